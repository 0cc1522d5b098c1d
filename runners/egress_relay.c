/* The sandbox's side of the egress proxy, in cordon-exec: a listener on
 * the sandbox's own loopback whose connections go, as descriptors, over
 * the call's socketpair to the proxy outside; the proxy variables the
 * command sees; and `cordon-exec --connect HOST PORT`, the ssh
 * ProxyCommand that takes git over ssh the same way (SOCKS5). */
#include "config.h"

#include "egress_relay.h"
#include "cordon/landlock.h"
#include "run_util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static struct sockaddr_in egress_addr(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(CORDON_EGRESS_PORT) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

int egress_send_fd(int ctl, int fd)
{
	char byte = 'c';
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	memset(&cm, 0, sizeof(cm));
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf,
			      .msg_controllen = sizeof(cm.buf) };
	struct cmsghdr *h = CMSG_FIRSTHDR(&msg);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof(int));
	ssize_t r;
	do
		r = sendmsg(ctl, &msg, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	return r == 1 ? 0 : -1;
}

static void relay_loop(int lfd, int ctl)
{
	for (;;) {
		int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE ||
			    errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				continue;
			_exit(1);
		}
		int r = egress_send_fd(ctl, c);
		close(c);
		if (r != 0)
			_exit(0); /* the proxy is gone: no way out any more */
	}
}

int egress_relay_start(int ctl, char **err)
{
	struct sockaddr_in a = egress_addr();
	int one = 1;
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(lfd, 128) != 0) {
		*err = xasprintf("cannot listen on 127.0.0.1:%d inside the sandbox: %s",
				 CORDON_EGRESS_PORT, strerror(errno));
		if (lfd >= 0)
			close(lfd);
		return -1;
	}
	/* Twice forked, so the relay is the namespace's init's child, not the
	 * command's, and dies with the sandbox. */
	pid_t pid = fork();
	if (pid < 0) {
		*err = xasprintf("fork: %s", strerror(errno));
		close(lfd);
		return -1;
	}
	if (pid == 0) {
		if (fork() != 0)
			_exit(0);
		/* Not dumpable: nothing in the sandbox can take its descriptors
		 * (pidfd_getfd, /proc/PID/fd) or trace it. */
		prctl(PR_SET_DUMPABLE, 0);
		signal(SIGPIPE, SIG_IGN);
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
		int l2 = fcntl(lfd, F_DUPFD_CLOEXEC, 10), c2 = fcntl(ctl, F_DUPFD_CLOEXEC, 10);
		if (nul < 0 || l2 < 0 || c2 < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 ||
		    dup2(l2, 3) < 0 || dup2(c2, 4) < 0 || close_fds_from(5) != 0)
			_exit(1);
		char *lerr = NULL;
		/* It writes nothing and binds nothing more. */
		if (cordon_landlock_apply(NULL, 0, CORDON_LANDLOCK_DENY_TCP | CORDON_LANDLOCK_SCOPE_UNIX,
					  &lerr) < 0)
			_exit(1);
		relay_loop(3, 4);
	}
	int st;
	waitpid(pid, &st, 0);
	close(lfd);
	return 0;
}

void egress_relay_environ(const char *helper)
{
	char url[64], socks[64], ssh[4096];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", CORDON_EGRESS_PORT);
	snprintf(socks, sizeof(socks), "socks5h://127.0.0.1:%d", CORDON_EGRESS_PORT);
	static const char *const http[] = { "HTTP_PROXY", "http_proxy", "HTTPS_PROXY",
					    "https_proxy" };
	for (size_t i = 0; i < ARRAY_SIZE(http); i++)
		setenv(http[i], url, 1);
	setenv("ALL_PROXY", socks, 1);
	setenv("all_proxy", socks, 1);
	/* The sandbox's loopback is its own: nothing there needs the proxy. */
	setenv("NO_PROXY", "localhost,127.0.0.1,::1", 1);
	setenv("no_proxy", "localhost,127.0.0.1,::1", 1);
	if (!strpbrk(helper, "'\" \\")) {
		snprintf(ssh, sizeof(ssh), "ssh -o ProxyCommand='%s --connect %%h %%p'", helper);
		setenv("GIT_SSH_COMMAND", ssh, 1);
	}
}

/* Copy between the two descriptor pairs until both directions end. */
static int splice_stdio(int s)
{
	char buf[65536];
	bool in_open = true, s_open = true;
	while (s_open) {
		struct pollfd p[2] = { { in_open ? 0 : -1, POLLIN, 0 }, { s, POLLIN, 0 } };
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (p[0].revents) {
			ssize_t n = read(0, buf, sizeof(buf));
			if (n <= 0) {
				in_open = false;
				shutdown(s, SHUT_WR);
			} else if (write_all(s, buf, (size_t)n) != 0) {
				return 1;
			}
		}
		if (p[1].revents) {
			ssize_t n = read(s, buf, sizeof(buf));
			if (n <= 0)
				s_open = false;
			else if (write_all(1, buf, (size_t)n) != 0)
				return 1;
		}
	}
	return 0;
}

static int read_n(int fd, unsigned char *b, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, b + got, n - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

int egress_connect_main(const char *host, const char *port_text)
{
	char *end;
	long port = strtol(port_text, &end, 10);
	size_t hl = strlen(host);
	if (*end || port < 1 || port > 65535 || hl == 0 || hl > 255) {
		fprintf(stderr, "cordon-exec: --connect HOST PORT: '%s' '%s' is not a host and port\n",
			host, port_text);
		return 2;
	}
	struct sockaddr_in a = egress_addr();
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) != 0) {
		fprintf(stderr, "cordon-exec: no egress proxy in this sandbox: %s\n", strerror(errno));
		return 1;
	}
	unsigned char req[300] = { 5, 1, 0 }, r[10];
	size_t n = 3;
	req[n++] = 5;
	req[n++] = 1;
	req[n++] = 0;
	req[n++] = 3;
	req[n++] = (unsigned char)hl;
	memcpy(req + n, host, hl);
	n += hl;
	req[n++] = (unsigned char)(port >> 8);
	req[n++] = (unsigned char)port;
	if (write_all(s, req, n) != 0 || read_n(s, r, 2) != 0 || r[1] != 0 ||
	    read_n(s, r, 10) != 0) {
		fprintf(stderr, "cordon-exec: the egress proxy did not answer\n");
		return 1;
	}
	if (r[1] != 0) {
		fprintf(stderr, "cordon-exec: the egress proxy refused %s:%ld (SOCKS reply %d; the "
				"audit log says why)\n",
			host, port, r[1]);
		return 1;
	}
	return splice_stdio(s);
}
