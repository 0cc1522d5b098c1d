/* The egress proxy's process (see proxy.h): forked with the call's
 * socketpair and the pipe its refusals go to the runner on, killed when
 * the call ends; and the refusals it tells of. */
#include "config.h"

#ifdef __linux__

#include "proxy.h"
#include "run_util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- refusals ------------------------------------------------------------- */

int proxy_refusals_widens(struct proxy_refusals *pr, const char *target, const char *host,
			  bool address)
{
	if (!pr->widens)
		return -1;
	for (size_t i = 0; i < pr->nseen; i++)
		if (pr->seen[i].address == address && strcmp(pr->seen[i].target, target) == 0)
			return pr->seen[i].widens;
	if (pr->nseen >= PROXY_WIDENS_KEPT)
		return -1;
	struct proxy_widens_seen *w = &pr->seen[pr->nseen++];
	snprintf(w->target, sizeof(w->target), "%s", target);
	w->address = address;
	w->widens = pr->widens(pr->widens_arg, target, host, address);
	return w->widens;
}

void proxy_refusals_send(struct proxy_refusals *pr, enum proxy_refusal_kind kind,
			 enum cordon_effect e, const char *host, int port, const char *rule,
			 const char *reason, int widens)
{
	if (pr->fd < 0)
		return;
	struct proxy_refusal r;
	memset(&r, 0, sizeof(r));
	r.kind = (int)kind;
	r.effect = (int)e;
	r.port = port > 0 ? port : 0;
	snprintf(r.host, sizeof(r.host), "%s", host);
	snprintf(r.rule, sizeof(r.rule), "%s", rule ? rule : "");
	snprintf(r.reason, sizeof(r.reason), "%s", reason ? reason : "");
	r.widens = widens;
	ssize_t w;
	do
		w = write(pr->fd, &r, sizeof(r));
	while (w < 0 && errno == EINTR);
	if (w != (ssize_t)sizeof(r)) {
		/* The runner is gone: the refusals go to the audit log alone. */
		close(pr->fd);
		pr->fd = -1;
	}
}

void proxy_refusals_fix(const struct proxy_refusals *pr, enum cordon_effect e, const char *target,
			const char *rule, int w, char *buf, size_t size)
{
	/* On the reason's line: a client that shows one line shows both. */
	const char *approve = e == CORDON_ASK ? "a person may approve one call whose command names "
						"the host (cordon approve exec, then cordon run "
						"--approval ID)"
					      : NULL;
	if (w == 0)
		snprintf(buf, size,
			 "; %s%sno preset that extends \"%s\" can allow it: %s wins over `net \"%s\" "
			 "allow;`, only a change of that rule where it is written can",
			 approve ? approve : "", approve ? "; " : "", pr->preset,
			 rule ? rule : "the rule that refused", target);
	else
		snprintf(buf, size, "; to allow it: %s%sadd `net \"%s\" allow;` to a preset that extends \"%s\"",
			 approve ? approve : "", approve ? ", or " : "", target, pr->preset);
}

/* ---- the process ------------------------------------------------------------ */

int proxy_start(struct proxy *p, const struct proxy_opts *o, char **err)
{
	int sv[2], rp[2];
	struct proxy_hosts hosts = { 0 };
	p->pid = -1;
	p->sandbox_fd = -1;
	p->report_fd = -1;
	if (o->hosts_file && proxy_hosts_load(&hosts, o->hosts_file, err) != 0)
		return -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		*err = xasprintf("socketpair: %s", strerror(errno));
		proxy_hosts_free(&hosts);
		return -1;
	}
	/* The refusals' way to the runner: a pipe of the two processes
	 * alone, made close-on-exec, so that no launch inherits it. */
	if (pipe2(rp, O_CLOEXEC) != 0) {
		*err = xasprintf("pipe: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		proxy_hosts_free(&hosts);
		return -1;
	}
	pid_t parent = getpid();
	p->pid = fork();
	if (p->pid < 0) {
		*err = xasprintf("fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		close(rp[0]);
		close(rp[1]);
		proxy_hosts_free(&hosts);
		return -1;
	}
	if (p->pid == 0) {
		close(sv[1]);
		close(rp[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		prctl(PR_SET_NAME, "cordon-egress");
		/* The call's output is the command's: nothing of the proxy's
		 * holds it open (stderr stays, for what goes wrong). */
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (nul < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0)
			_exit(1);
		if (nul > 1)
			close(nul);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_IGN);
		signal(SIGCHLD, SIG_IGN); /* resolvers are reaped by the kernel */
		struct proxy_refusals *pr = xcalloc(1, sizeof(*pr));
		*pr = (struct proxy_refusals){ .fd = rp[1], .widens = o->widens,
					       .widens_arg = o->widens_arg,
					       .preset = cordon_evaluator_preset(o->ev) };
		proxy_serve(sv[0], o, o->hosts_file ? &hosts : NULL, pr);
		_exit(0);
	}
	close(sv[0]);
	close(rp[1]);
	fcntl(rp[0], F_SETFL, fcntl(rp[0], F_GETFL) | O_NONBLOCK);
	proxy_hosts_free(&hosts);
	p->sandbox_fd = sv[1];
	p->report_fd = rp[0];
	return 0;
}

void proxy_launched(struct proxy *p)
{
	if (p->sandbox_fd >= 0)
		close(p->sandbox_fd);
	p->sandbox_fd = -1;
}

void proxy_stop(struct proxy *p)
{
	proxy_launched(p);
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
	}
	p->pid = -1;
	if (p->report_fd >= 0)
		close(p->report_fd);
	p->report_fd = -1;
}

#endif
