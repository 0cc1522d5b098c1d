/* runprobe OP ARGS: one operation for tests/run.sh, from outside or inside
 * the sandbox.  Prints "ok" or the errno name (EACCES, ...) on stdout and
 * exits 0 on success, 1 on failure, 2 on a usage error.
 *
 *   tcp-listen PORTFILE LOG SECONDS   listen on 127.0.0.1, an ephemeral port
 *   udp-listen PORTFILE LOG SECONDS   receive datagrams on 127.0.0.1
 *   unix-listen PATH LOG SECONDS      listen on a unix socket
 *       (listeners write the port, or "ready", to PORTFILE once they accept,
 *        append a line to LOG for each connection or datagram, and exit
 *        after SECONDS)
 *   tcp-connect HOST PORT             connect, read the greeting
 *   udp-send HOST PORT                send one datagram
 *   unix-connect PATH                 connect, read the greeting
 *   socket-inet | socket-inet6 | socket-unix   create a socket
 *   unshare-user                      unshare(CLONE_NEWUSER)
 *   mount-tmpfs DIR                   mount(2) a tmpfs on DIR
 *   mknod-char PATH                   a character device (1,3)
 *   link OLD NEW                      link(2)
 *   rename OLD NEW                    rename(2)
 *   write PATH                        open(O_WRONLY|O_CREAT|O_TRUNC), write a line
 *   mkdir PATH                        mkdir(2)
 *   read PATH                         open(O_RDONLY) and read
 *   kill PID                          kill(PID, 0)
 *   euid                              print the effective uid
 *   key-add NAME DATA                 add a "user" key to the session keyring
 *   key-read NAME                     print the payload of the "user" key NAME
 *   key-session NAME DATA PLANT CMD...   in a new session keyring holding the key
 *       NAME, run CMD, then print "planted visible" or "planted absent":
 *       whether a key PLANT is in that keyring afterwards */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <linux/keyctl.h>
#include <time.h>
#include <unistd.h>

/* Inside the sandbox ptrace is refused, which the leak checker of a
 * sanitizer build needs at exit: it would fail the probe, not the sandbox.
 * Leaks of this short-lived probe are of no interest. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

static int result(int r)
{
	if (r < 0) {
		const char *name = strerrorname_np(errno);
		if (name)
			printf("%s\n", name);
		else
			printf("errno %d\n", errno);
		return 1;
	}
	printf("ok\n");
	return 0;
}

static int inet_addr_of(const char *host, const char *port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((unsigned short)atoi(port));
	return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1;
}

static int unix_addr_of(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -1;
	strcpy(sa->sun_path, path);
	return 0;
}

static void note(const char *log, const char *what)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		dprintf(fd, "%s\n", what);
		close(fd);
	}
}

static void ready(const char *file, const char *text)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	FILE *f = fopen(tmp, "w");
	if (!f)
		exit(1);
	fprintf(f, "%s\n", text);
	fclose(f);
	if (rename(tmp, file) != 0)
		exit(1);
}

/* Accept (or receive) until the time is up; every arrival is logged. */
static int serve(int fd, bool stream, const char *log, int seconds)
{
	time_t end = time(NULL) + seconds;
	alarm((unsigned)seconds + 1);
	for (;;) {
		time_t left = end - time(NULL);
		if (left <= 0)
			return 0;
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, (int)left * 1000) <= 0)
			continue;
		if (stream) {
			int c = accept(fd, NULL, NULL);
			if (c < 0)
				continue;
			note(log, "accepted");
			(void)!write(c, "hello\n", 6);
			close(c);
		} else {
			char buf[512];
			if (recv(fd, buf, sizeof(buf), 0) >= 0)
				note(log, "received");
		}
	}
}

static int greeting(int fd)
{
	char buf[16] = { 0 };
	struct pollfd p = { fd, POLLIN, 0 };
	if (poll(&p, 1, 5000) <= 0 || read(fd, buf, sizeof(buf) - 1) <= 0) {
		printf("no greeting\n");
		return 1;
	}
	printf("ok %s", buf);
	return 0;
}

static long key_find(const char *name)
{
	return syscall(SYS_request_key, "user", name, NULL, 0L);
}

static long key_add(const char *name, const char *data)
{
	return syscall(SYS_add_key, "user", name, data, strlen(data),
		       (long)KEY_SPEC_SESSION_KEYRING);
}

static int key_read(const char *name)
{
	char buf[256];
	long id = key_find(name), n;
	if (id < 0 || (n = syscall(SYS_keyctl, (long)KEYCTL_READ, id, buf, sizeof(buf) - 1)) < 0)
		return result(-1);
	buf[n < (long)sizeof(buf) - 1 ? n : (long)sizeof(buf) - 1] = '\0';
	printf("%s\n", buf);
	return 0;
}

static int key_session(char **argv)
{
	int status = 0;
	if (syscall(SYS_keyctl, (long)KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 ||
	    key_add(argv[0], argv[1]) < 0) {
		perror("runprobe: key-session");
		return 2;
	}
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 2;
	printf("planted %s\n", key_find(argv[2]) >= 0 ? "visible" : "absent");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";
	int fd;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(op, "tcp-listen") == 0 && argc == 5) {
		struct sockaddr_in sa;
		socklen_t len = sizeof(sa);
		char port[16];
		inet_addr_of("127.0.0.1", "0", &sa);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 8) != 0 ||
		    getsockname(fd, (struct sockaddr *)&sa, &len) != 0)
			return result(-1);
		snprintf(port, sizeof(port), "%u", ntohs(sa.sin_port));
		ready(argv[2], port);
		return serve(fd, true, argv[3], atoi(argv[4]));
	}
	if (strcmp(op, "udp-listen") == 0 && argc == 5) {
		struct sockaddr_in sa;
		socklen_t len = sizeof(sa);
		char port[16];
		inet_addr_of("127.0.0.1", "0", &sa);
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
		    getsockname(fd, (struct sockaddr *)&sa, &len) != 0)
			return result(-1);
		snprintf(port, sizeof(port), "%u", ntohs(sa.sin_port));
		ready(argv[2], port);
		return serve(fd, false, argv[3], atoi(argv[4]));
	}
	if (strcmp(op, "unix-listen") == 0 && argc == 5) {
		struct sockaddr_un sa;
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0 || unix_addr_of(argv[2], &sa) != 0 ||
		    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 8) != 0)
			return result(-1);
		char rf[4096];
		snprintf(rf, sizeof(rf), "%s.ready", argv[2]);
		ready(rf, "ready");
		return serve(fd, true, argv[3], atoi(argv[4]));
	}
	if (strcmp(op, "tcp-connect") == 0 && argc == 4) {
		struct sockaddr_in sa;
		if (inet_addr_of(argv[2], argv[3], &sa) != 0)
			return 2;
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
			return result(-1);
		return greeting(fd);
	}
	if (strcmp(op, "udp-send") == 0 && argc == 4) {
		struct sockaddr_in sa;
		if (inet_addr_of(argv[2], argv[3], &sa) != 0)
			return 2;
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd < 0)
			return result(-1);
		return result(sendto(fd, "x", 1, 0, (struct sockaddr *)&sa, sizeof(sa)) == 1 ? 0 : -1);
	}
	if (strcmp(op, "unix-connect") == 0 && argc == 3) {
		struct sockaddr_un sa;
		if (unix_addr_of(argv[2], &sa) != 0)
			return 2;
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
			return result(-1);
		return greeting(fd);
	}
	if (strcmp(op, "socket-inet") == 0 && argc == 2)
		return result(socket(AF_INET, SOCK_STREAM, 0));
	if (strcmp(op, "socket-inet6") == 0 && argc == 2)
		return result(socket(AF_INET6, SOCK_STREAM, 0));
	if (strcmp(op, "socket-unix") == 0 && argc == 2)
		return result(socket(AF_UNIX, SOCK_STREAM, 0));
	if (strcmp(op, "unshare-user") == 0 && argc == 2)
		return result(unshare(CLONE_NEWUSER));
	if (strcmp(op, "mount-tmpfs") == 0 && argc == 3)
		return result(mount("none", argv[2], "tmpfs", 0, NULL));
	if (strcmp(op, "mknod-char") == 0 && argc == 3)
		return result(mknod(argv[2], S_IFCHR | 0666, makedev(1, 3)));
	if (strcmp(op, "link") == 0 && argc == 4)
		return result(link(argv[2], argv[3]));
	if (strcmp(op, "rename") == 0 && argc == 4)
		return result(rename(argv[2], argv[3]));
	if (strcmp(op, "write") == 0 && argc == 3) {
		fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			return result(-1);
		return result(write(fd, "written\n", 8) == 8 ? 0 : -1);
	}
	if (strcmp(op, "read") == 0 && argc == 3) {
		char buf[64];
		fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return result(-1);
		return result(read(fd, buf, sizeof(buf)) >= 0 ? 0 : -1);
	}
	if (strcmp(op, "mkdir") == 0 && argc == 3)
		return result(mkdir(argv[2], 0755));
	if (strcmp(op, "kill") == 0 && argc == 3)
		return result(kill((pid_t)atoi(argv[2]), 0));
	if (strcmp(op, "euid") == 0 && argc == 2) {
		printf("%u\n", (unsigned)geteuid());
		return 0;
	}
	if (strcmp(op, "key-add") == 0 && argc == 4)
		return result(key_add(argv[2], argv[3]) < 0 ? -1 : 0);
	if (strcmp(op, "key-read") == 0 && argc == 3)
		return key_read(argv[2]);
	if (strcmp(op, "key-session") == 0 && argc >= 6)
		return key_session(argv + 2);
	fprintf(stderr, "usage: runprobe OP ARGS (see the source)\n");
	return 2;
}
