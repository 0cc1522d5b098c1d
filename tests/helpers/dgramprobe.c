/* dgramprobe: a datagram socket of the host's, and every spelling of an
 * AF_UNIX socket that might reach it, for tests/run-unix-dgram.sh.
 *
 *   listen PATH LOG SECONDS   bind a SOCK_DGRAM socket at PATH (mode 0666, as
 *                             /dev/log is), write PATH.ready, and append a line
 *                             to LOG for each datagram: its text, then "fd"
 *                             when it carried a descriptor (SCM_RIGHTS) or
 *                             "nofd"; exit after SECONDS
 *   send PATH SPELLING...     for each spelling, make the socket it names and
 *                             send its name and a descriptor (stdin) to PATH:
 *                             sendmsg with the address, else connect and send.
 *                             One line each: "SPELLING ok" or "SPELLING ERRNO"
 *                             (the step that failed first).
 *
 * A SPELLING is CALL:TYPE[+flags]: CALL socket or socketpair, TYPE stream,
 * dgram, raw, rdm, seqpacket, packet or a number, +flags adds
 * SOCK_NONBLOCK|SOCK_CLOEXEC. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* The probe runs in the sandbox, where ptrace (a sanitizer's leak check)
 * is refused. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

static const struct {
	const char *name;
	int type;
} types[] = {
	{ "stream", SOCK_STREAM }, { "dgram", SOCK_DGRAM },	  { "raw", SOCK_RAW },
	{ "rdm", SOCK_RDM },	   { "seqpacket", SOCK_SEQPACKET }, { "packet", SOCK_PACKET },
};

static int addr_of(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -1;
	strcpy(sa->sun_path, path);
	return 0;
}

/* The type a spelling's TYPE[+flags] names, or -1. */
static int type_of(const char *spec)
{
	size_t n = strcspn(spec, "+");
	int type = -1;
	char *end;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i].name) == n && strncmp(spec, types[i].name, n) == 0)
			type = types[i].type;
	if (type < 0) {
		type = (int)strtol(spec, &end, 10);
		if (n == 0 || end != spec + n)
			return -1;
	}
	if (strcmp(spec + n, "+flags") == 0)
		return type | SOCK_NONBLOCK | SOCK_CLOEXEC;
	return spec[n] ? -1 : type;
}

static const char *errno_text(int e)
{
	const char *name = strerrorname_np(e);
	return name ? name : "E?";
}

/* The socket a spelling names, through the raw syscalls (no libc check in
 * between), or -1 with errno. */
static int make_socket(const char *spelling)
{
	const char *colon = strchr(spelling, ':');
	int type = colon ? type_of(colon + 1) : -1;
	int sv[2];
	if (type < 0) {
		errno = EINVAL;
		return -2;
	}
	if (strncmp(spelling, "socket:", 7) == 0)
		return (int)syscall(SYS_socket, (long)AF_UNIX, (long)type, 0L);
	if (strncmp(spelling, "socketpair:", 11) != 0) {
		errno = EINVAL;
		return -2;
	}
	if (syscall(SYS_socketpair, (long)AF_UNIX, (long)type, 0L, sv) != 0)
		return -1;
	return sv[0]; /* the other end stays open: the pair stays connected */
}

/* The spelling's text and stdin as SCM_RIGHTS, to addr or (NULL) to the
 * peer. */
static ssize_t send_with_fd(int fd, const char *text, const struct sockaddr_un *addr)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { (void *)text, strlen(text) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	int passed = 0;
	memset(&u, 0, sizeof(u));
	m.msg_control = u.buf;
	m.msg_controllen = sizeof(u.buf);
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &passed, sizeof(int));
	if (addr) {
		m.msg_name = (void *)addr;
		m.msg_namelen = sizeof(*addr);
	}
	return sendmsg(fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static void send_one(const char *path, const char *spelling)
{
	struct sockaddr_un sa;
	int fd = make_socket(spelling);
	if (fd == -2) {
		printf("%s usage\n", spelling);
		return;
	}
	if (fd < 0 || addr_of(path, &sa) != 0) {
		printf("%s %s\n", spelling, errno_text(errno));
		return;
	}
	if (send_with_fd(fd, spelling, &sa) >= 0) {
		printf("%s ok\n", spelling);
		return;
	}
	int first = errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 && send_with_fd(fd, spelling, NULL) >= 0)
		printf("%s ok\n", spelling);
	else
		printf("%s %s\n", spelling, errno_text(first));
}

static void note(const char *log, const char *text, size_t len, bool had_fd)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		dprintf(fd, "%.*s %s\n", (int)len, text, had_fd ? "fd" : "nofd");
		close(fd);
	}
}

/* One datagram: its text, and whether a descriptor came with it (closed at
 * once). */
static void receive_one(int fd, const char *log)
{
	char text[256];
	union {
		char buf[CMSG_SPACE(sizeof(int) * 8)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { text, sizeof(text) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	ssize_t n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
	bool had_fd = false;
	if (n < 0)
		return;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int got;
			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			close(got);
			had_fd = true;
		}
	}
	note(log, text, (size_t)n, had_fd);
}

static int listen_on(const char *path, const char *log, int seconds)
{
	struct sockaddr_un sa;
	char ready[4096];
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || addr_of(path, &sa) != 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    chmod(path, 0666) != 0) {
		perror("dgramprobe: listen");
		return 1;
	}
	snprintf(ready, sizeof(ready), "%s.ready", path);
	FILE *f = fopen(ready, "w");
	if (!f || fclose(f) != 0)
		return 1;
	time_t end = time(NULL) + seconds;
	alarm((unsigned)seconds + 1);
	for (time_t left; (left = end - time(NULL)) > 0;) {
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, (int)left * 1000) > 0)
			receive_one(fd, log);
	}
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && strcmp(argv[1], "listen") == 0)
		return listen_on(argv[2], argv[3], atoi(argv[4]));
	if (argc >= 4 && strcmp(argv[1], "send") == 0) {
		for (int i = 3; i < argc; i++)
			send_one(argv[2], argv[i]);
		return 0;
	}
	fprintf(stderr, "usage: dgramprobe listen PATH LOG SECONDS | send PATH SPELLING...\n");
	return 2;
}
