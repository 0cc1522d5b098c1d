/* The sandbox's side of the egress proxy, in cordon-exec: a listener on
 * the sandbox's own loopback whose connections go, as descriptors, over
 * the call's socketpair to the proxy outside; the proxy variables the
 * command sees; and `cordon-exec --connect HOST PORT`, the ssh
 * ProxyCommand that takes git over ssh the same way (SOCKS5). */
#include "config.h"

#include "egress_relay.h"
#include "dns_stub.h"
#include "cordon/landlock.h"
#include "run_util.h"

#include <arpa/inet.h>
#include <linux/capability.h>
#include <net/if.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
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

int egress_send_fd(int ctl, int fd, const char *host, int port)
{
	struct egress_msg m = { .kind = 'c' };
	size_t len = 1;
	if (host) {
		size_t hl = strlen(host);
		if (hl >= sizeof(m.host))
			return 0; /* no name the stub hands out is this long */
		m.kind = 't';
		m.port[0] = (unsigned char)(port >> 8);
		m.port[1] = (unsigned char)port;
		memcpy(m.host, host, hl + 1);
		len = offsetof(struct egress_msg, host) + hl + 1;
	}
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	memset(&cm, 0, sizeof(cm));
	struct iovec iov = { &m, len };
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
	return r == (ssize_t)len ? 0 : -1;
}

/* ---- the sandbox's network namespace -------------------------------------- */

int egress_netns(char **err)
{
	if (unshare(CLONE_NEWNET) != 0) {
		*err = xasprintf("cannot make the sandbox's network namespace: %s", strerror(errno));
		return -1;
	}
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int rc = s < 0 ? -1 : ioctl(s, SIOCGIFFLAGS, &ifr);
	if (rc == 0) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		rc = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	if (rc != 0)
		*err = xasprintf("cannot bring the sandbox's loopback up: %s", strerror(errno));
	if (s >= 0)
		close(s);
	return rc == 0 ? 0 : -1;
}

/* The bounding set emptied: that needs CAP_SETPCAP, made effective first
 * where it is permitted.  A process that holds no capability (cordon-exec
 * run as an ordinary user outside a sandbox) cannot lower its bounding set,
 * and needs not: it gains none past no_new_privs, which Landlock sets. */
static int drop_bounding(char **err)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) != 0) {
		*err = xasprintf("cannot read the capabilities: %s", strerror(errno));
		return -1;
	}
	uint32_t bit = 1u << CAP_SETPCAP;
	if (!(data[0].permitted & bit))
		return 0;
	data[0].effective |= bit;
	if (syscall(SYS_capset, &hdr, data) != 0) {
		*err = xasprintf("cannot raise CAP_SETPCAP to drop the bounding set: %s",
				 strerror(errno));
		return -1;
	}
	for (int c = 0; prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0; c++) {
		if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1 && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0) {
			*err = xasprintf("cannot drop capability %d from the bounding set: %s", c,
					 strerror(errno));
			return -1;
		}
	}
	return 0;
}

int egress_drop_caps(char **err)
{
	/* The bounding set first: the capset below takes CAP_SETPCAP away. */
	if (drop_bounding(err) != 0)
		return -1;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
		*err = xasprintf("cannot clear the ambient capabilities: %s", strerror(errno));
		return -1;
	}
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data) != 0 || syscall(SYS_capget, &hdr, data) != 0) {
		*err = xasprintf("cannot drop the capabilities: %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(data); i++) {
		if (data[i].effective || data[i].permitted || data[i].inheritable) {
			*err = xstrdup("a capability is left after dropping them all");
			return -1;
		}
	}
	return 0;
}

/* ---- the relay process ------------------------------------------------------ */

/* What the relay process serves: the proxy listener (slot 0), the DNS
 * stub (slot 1) and the transparent listeners after them. */
#define RELAY_MAX_PORTS 64
struct relay {
	int ctl;
	int fds[2 + RELAY_MAX_PORTS];
	size_t nfds;
	struct dns_names names;
};

/* One query on the stub's socket, answered. */
static void relay_dns(struct relay *r)
{
	unsigned char q[DNS_MSG_MAX], out[DNS_MSG_MAX];
	struct sockaddr_storage from;
	socklen_t flen = sizeof(from);
	ssize_t n = recvfrom(r->fds[1], q, sizeof(q), MSG_DONTWAIT, (struct sockaddr *)&from, &flen);
	if (n <= 0)
		return;
	size_t len = dns_answer(&r->names, q, (size_t)n, out);
	if (len)
		(void)!sendto(r->fds[1], out, len, MSG_DONTWAIT, (struct sockaddr *)&from, flen);
}

/* A connection on listener fd: to the proxy; a transparent one with the
 * name its address stands for, or closed when it stands for none.  false
 * when the proxy is gone. */
static bool relay_accept(struct relay *r, int fd, bool transparent)
{
	int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return errno == EAGAIN || errno == EINTR || errno == ECONNABORTED ||
		       errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM;
	const char *host = NULL;
	int port = 0;
	if (transparent) {
		struct sockaddr_in a;
		socklen_t alen = sizeof(a);
		if (getsockname(c, (struct sockaddr *)&a, &alen) == 0 && a.sin_family == AF_INET) {
			host = dns_name_of(&r->names, ntohl(a.sin_addr.s_addr));
			port = ntohs(a.sin_port);
		}
		if (!host) {
			close(c); /* an address the stub never gave out */
			return true;
		}
	}
	int rc = egress_send_fd(r->ctl, c, host, port);
	close(c);
	return rc == 0;
}

static void relay_loop(struct relay *r)
{
	struct pollfd p[ARRAY_SIZE(r->fds)];
	for (;;) {
		for (size_t i = 0; i < r->nfds; i++)
			p[i] = (struct pollfd){ r->fds[i], POLLIN, 0 };
		if (poll(p, r->nfds, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		if (p[1].revents)
			relay_dns(r);
		for (size_t i = 0; i < r->nfds; i++) {
			if (i == 1 || !(p[i].revents & POLLIN))
				continue;
			if (!relay_accept(r, r->fds[i], i > 1))
				_exit(0); /* the proxy is gone: no way out any more */
		}
	}
}

/* A socket of type bound to addr:port (host byte order), listening when a
 * stream; -1 with *err. */
static int bound(int type, uint32_t addr, int port, char **err)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(addr);
	int one = 1;
	int fd = socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    (type == SOCK_STREAM && listen(fd, 128) != 0)) {
		char at[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, &a.sin_addr, at, sizeof(at));
		*err = xasprintf("cannot listen on %s:%d (%s) inside the sandbox: %s", at, port,
				 type == SOCK_STREAM ? "TCP" : "UDP", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void relay_close(struct relay *r)
{
	for (size_t i = 0; i < r->nfds; i++)
		close(r->fds[i]);
	r->nfds = 0;
}

/* Every socket the relay serves, bound now, while this process may bind
 * port 53 and the ports below 1024.  0, or -1 with *err. */
static int relay_bind(struct relay *r, const int *ports, size_t nports, char **err)
{
	r->nfds = 0;
	if (nports > RELAY_MAX_PORTS) {
		*err = xasprintf("%zu ports to relay, more than %d", nports, RELAY_MAX_PORTS);
		return -1;
	}
	int fd = bound(SOCK_STREAM, INADDR_LOOPBACK, CORDON_EGRESS_PORT, err);
	if (fd >= 0)
		r->fds[r->nfds++] = fd;
	fd = fd < 0 ? -1 : bound(SOCK_DGRAM, INADDR_LOOPBACK, DNS_PORT, err);
	if (fd >= 0)
		r->fds[r->nfds++] = fd;
	for (size_t i = 0; fd >= 0 && i < nports; i++) {
		if (ports[i] == CORDON_EGRESS_PORT)
			continue;
		fd = bound(SOCK_STREAM, INADDR_ANY, ports[i], err);
		if (fd >= 0)
			r->fds[r->nfds++] = fd;
	}
	if (fd < 0)
		relay_close(r);
	return fd < 0 ? -1 : 0;
}

/* The relay process: its descriptors alone, no capability, no way to
 * write, bind or connect; serves until the proxy is gone. */
static void relay_run(struct relay *r)
{
	/* Not dumpable: nothing in the sandbox can take its descriptors
	 * (pidfd_getfd, /proc/PID/fd) or trace it. */
	prctl(PR_SET_DUMPABLE, 0);
	signal(SIGPIPE, SIG_IGN);
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0)
		_exit(1);
	/* Its own descriptors, moved to 3 onward; everything else closed. */
	int all[ARRAY_SIZE(r->fds) + 1];
	size_t n = 0;
	all[n++] = r->ctl;
	for (size_t i = 0; i < r->nfds; i++)
		all[n++] = r->fds[i];
	for (size_t i = 0; i < n; i++)
		if ((all[i] = fcntl(all[i], F_DUPFD_CLOEXEC, 3 + (int)n)) < 0)
			_exit(1);
	for (size_t i = 0; i < n; i++)
		if (dup2(all[i], 3 + (int)i) < 0)
			_exit(1);
	if (close_fds_from(3 + (int)n) != 0)
		_exit(1);
	r->ctl = 3;
	for (size_t i = 0; i < r->nfds; i++)
		r->fds[i] = 4 + (int)i;
	char *lerr = NULL;
	if (egress_drop_caps(&lerr) != 0 ||
	    cordon_landlock_apply(NULL, 0, CORDON_LANDLOCK_DENY_TCP | CORDON_LANDLOCK_SCOPE_UNIX,
				  &lerr) < 0)
		_exit(1);
	relay_loop(r);
}

int egress_relay_start(int ctl, const int *ports, size_t nports, char **err)
{
	static struct relay r; /* the names table is large: not on the stack */
	r.ctl = ctl;
	if (relay_bind(&r, ports, nports, err) != 0)
		return -1;
	/* Twice forked, so the relay is the namespace's init's child, not the
	 * command's, and dies with the sandbox. */
	pid_t pid = fork();
	if (pid < 0) {
		*err = xasprintf("fork: %s", strerror(errno));
		relay_close(&r);
		return -1;
	}
	if (pid == 0) {
		if (fork() != 0)
			_exit(0);
		relay_run(&r);
	}
	int st;
	waitpid(pid, &st, 0);
	relay_close(&r);
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
