/* `cordon proxy`: the egress proxy of `cordon run`, served alone.  The
 * proxy process is the one a call gets (proxy_start): it decides every
 * host with the preset's evaluator, refuses internal addresses unless a
 * rule names the host, and audits each contact.  Here its connections
 * come from a listener of this process (or one it is handed: fd:N)
 * instead of cordon-exec's, passed the same way (egress_send_fd), and what
 * it refuses is told on stderr as it happens. */
#include "config.h"

#include "egress_relay.h"
#include "proxy.h"
#include "run.h"
#include "run_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* "ADDR:PORT" or "[V6]:PORT" into a bound, listening socket; -1 with *why. */
static int listen_on(const char *spec, char *shown, size_t size, const char **why)
{
	char host[256];
	int port = -1;
	struct sockaddr_storage ss;
	socklen_t len;
	const char *colon = strrchr(spec, ':');
	size_t hl = colon ? (size_t)(colon - spec) : 0;
	if (hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']')
		spec++, hl -= 2;
	char *end = NULL;
	long p = colon ? strtol(colon + 1, &end, 10) : -1;
	if (!colon || hl == 0 || hl >= sizeof(host) || !colon[1] || *end || p < 0 || p > 65535) {
		*why = "not ADDR:PORT";
		return -2;
	}
	memcpy(host, spec, hl);
	host[hl] = '\0';
	port = (int)p;
	if (!proxy_numeric(host, &ss, &len)) {
		*why = "the address is not an IPv4 or IPv6 literal";
		return -2;
	}
	((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port); /* same place in _in6 */
	int one = 1, fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 128) != 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
		*why = strerror(errno);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	proxy_addr_text((struct sockaddr *)&ss, host, sizeof(host));
	snprintf(shown, size, ss.ss_family == AF_INET6 ? "[%s]:%d" : "%s:%d", host,
		 ntohs(((struct sockaddr_in *)&ss)->sin_port));
	return fd;
}

/* "fd:N": a listening TCP socket handed down, as systemd's socket
 * activation hands one.  A socket belongs to the network namespace it was
 * made in: so a container's namespace gets its proxy's listener while the
 * proxy's own contacts leave from another namespace, the one this process
 * runs in.  Anything but a listening stream socket of AF_INET or AF_INET6
 * is refused: -2 with *why. */
static int listen_inherited(const char *spec, char *shown, size_t size, const char **why)
{
	char *end = NULL, host[256];
	errno = 0;
	long n = strtol(spec, &end, 10);
	if (errno || end == spec || *end || n < 0 || n > INT_MAX) {
		*why = "not fd:N, N a descriptor number";
		return -2;
	}
	int fd = (int)n, type = 0, listening = 0;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss), tl = sizeof(type), ll = sizeof(listening);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &ll) != 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
		*why = errno == ENOTSOCK ? "the descriptor is not a socket" : strerror(errno);
		return -2;
	}
	if (type != SOCK_STREAM || !listening ||
	    (ss.ss_family != AF_INET && ss.ss_family != AF_INET6)) {
		*why = "the descriptor is not a listening TCP socket";
		return -2;
	}
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
		*why = strerror(errno);
		return -1;
	}
	proxy_addr_text((struct sockaddr *)&ss, host, sizeof(host));
	snprintf(shown, size, ss.ss_family == AF_INET6 ? "[%s]:%d (fd %d)" : "%s:%d (fd %d)",
		 host, ntohs(((struct sockaddr_in *)&ss)->sin_port), fd);
	return fd;
}

/* A refusal of the proxy's, as it happened. */
static void tell_refusal(int fd)
{
	struct proxy_refusal r;
	while (read(fd, &r, sizeof(r)) == (ssize_t)sizeof(r)) {
		r.host[sizeof(r.host) - 1] = r.rule[sizeof(r.rule) - 1] = '\0';
		r.reason[sizeof(r.reason) - 1] = '\0';
		fprintf(stderr, "cordon: proxy: refused %s:%d%s%s: %s\n", r.host[0] ? r.host : "?",
			r.port, r.rule[0] ? " by " : "", r.rule, r.reason);
	}
}

int run_proxy(const struct run_proxy_opts *o)
{
	struct proxy px;
	char shown[300], *err = NULL;
	const char *why = NULL;
	int lfd = strncmp(o->listen, "fd:", 3) == 0 ?
			  listen_inherited(o->listen + 3, shown, sizeof(shown), &why) :
			  listen_on(o->listen, shown, sizeof(shown), &why);
	if (lfd < 0) {
		fprintf(stderr, "cordon: proxy: cannot listen on %s: %s\n", o->listen, why);
		return lfd == -2 ? 2 : 125;
	}
	struct proxy_opts po = { .ev = o->ev, .audit = o->audit, .actor = o->actor,
				 .hosts_file = o->egress_hosts };
	if (proxy_start(&px, &po, &err) != 0) {
		fprintf(stderr, "cordon: proxy: %s\n", err);
		free(err);
		close(lfd);
		return 125;
	}
	signal(SIGPIPE, SIG_IGN);
	fprintf(stderr, "cordon: proxy: listening on %s (preset '%s')\n", shown,
		cordon_evaluator_preset(o->ev));
	for (;;) {
		struct pollfd p[2] = { { lfd, POLLIN, 0 }, { px.report_fd, POLLIN, 0 } };
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			tell_refusal(px.report_fd);
		if (!(p[0].revents & POLLIN))
			continue;
		int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue; /* a connection that went, or no descriptor now: the next */
		int r = egress_send_fd(px.sandbox_fd, c, NULL, 0);
		close(c);
		if (r != 0)
			break;
	}
	fprintf(stderr, "cordon: proxy: SANDBOX_UNAVAILABLE: the proxy process ended\n");
	proxy_stop(&px);
	close(lfd);
	return 125;
}
