/* Forking the launch and letting it go (launch.h).  The launch leaves
 * cordon's signals behind, joins the call's cgroups and waits for the
 * message that carries its argv and descriptors; it runs nothing unless
 * the whole message arrives, and it dies with cordon. */
#ifndef __APPLE__
#include "config.h"

#include "launch.h"
#include "run_util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/keyctl.h>

/* The sandbox gets a session keyring of its own, empty, so that no key of
 * the caller's session can be read inside and none made inside is left in
 * it (the filter refuses the keyring calls as well).  A kernel without
 * keys has no keyring to share. */
static int fresh_session_keyring(void)
{
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) >= 0 || errno == ENOSYS)
		return 0;
	return -1;
}

void kill_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}



static bool read_exact(int fd, void *buf, size_t n)
{
	size_t off = 0;
	while (off < n) {
		ssize_t r = read(fd, (char *)buf + off, n - off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		off += (size_t)r;
	}
	return true;
}

/* In the launch: the idmapped trees' places (*ntrees) then argv, the
 * descriptors (*nfds, at most LAUNCH_GO_FDS), after them the bind sources
 * (*nbinds) and the trees, from the message on fd, or NULL when it is not
 * whole. */
static char **launch_read_go(int fd, int *fds, int *nfds, int *nbinds, int *ntrees)
{
	uint32_t hdr[5];
	union {
		char buf[CMSG_SPACE(LAUNCH_ALL_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { hdr, sizeof(hdr) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	ssize_t r;
	do
		r = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)sizeof(hdr) || (msg.msg_flags & MSG_CTRUNC) || hdr[0] != LAUNCH_GO_MAGIC ||
	    hdr[1] == 0 || hdr[1] > LAUNCH_GO_MAX || hdr[2] > LAUNCH_GO_FDS ||
	    hdr[3] > LAUNCH_BIND_FDS_MAX || hdr[4] > RUN_IDMAP_MAX)
		return NULL;
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	*nfds = (int)hdr[2];
	*nbinds = (int)hdr[3];
	*ntrees = (int)hdr[4];
	size_t all = (size_t)*nfds + (size_t)*nbinds + (size_t)*ntrees;
	if (all) {
		if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len != CMSG_LEN(all * sizeof(int)))
			return NULL;
		memcpy(fds, CMSG_DATA(c), all * sizeof(int));
	} else if (c) {
		return NULL;
	}
	char *blob = xmalloc(hdr[1]);
	if (!read_exact(fd, blob, hdr[1]) || blob[hdr[1] - 1] != '\0') {
		free(blob);
		return NULL;
	}
	size_t n = 0;
	for (size_t i = 0; i < hdr[1]; i++)
		n += blob[i] == '\0';
	if (n <= hdr[4]) {
		free(blob);
		return NULL;
	}
	char **argv = xcalloc(n + 1, sizeof(*argv));
	for (size_t i = 0, k = 0; k < n; k++) {
		argv[k] = blob + i;
		i += strlen(blob + i) + 1;
	}
	return argv;
}

/* In launch_fork's child of a sandboxed launch: the fds cordon-exec reads
 * moved to their fixed numbers and every other one closed, apart so that
 * the child reads as its steps; exits RUN_UNAVAILABLE when one fails, as
 * nothing may enter the sandbox half placed. */
static void place_sandbox_fds(const int *got, int ngot, int nbinds, int js_w, int hs_w)
{
	/* 3: the plan, 4: seccomp, 5: json status, 6: helper status,
	 * 7: the egress proxy's socketpair when there is one, 8 on:
	 * the bind sources, which bwrap closes once mounted. */
	int egress = ngot > 2 ? got[2] : -1;
	int want[5] = { got[0], got[1], js_w, hs_w, egress };
	int moved[5 + LAUNCH_BIND_FDS_MAX], nwant = egress >= 0 ? 5 : 4;
	int top = LAUNCH_BIND_FD_FIRST + nbinds;
	for (int i = 0; i < nwant; i++)
		moved[i] = fcntl(want[i], F_DUPFD_CLOEXEC, top);
	for (int i = 0; i < nbinds; i++)
		moved[5 + i] = fcntl(got[ngot + i], F_DUPFD_CLOEXEC, top);
	for (int i = 0; i < nwant; i++)
		if (moved[i] < 0 || dup2(moved[i], 3 + i) < 0)
			_exit(RUN_UNAVAILABLE);
	for (int i = 0; i < nbinds; i++)
		if (moved[5 + i] < 0 || dup2(moved[5 + i], LAUNCH_BIND_FD_FIRST + i) < 0)
			_exit(RUN_UNAVAILABLE);
	/* Nothing the caller left open enters the sandbox: a
	 * descriptor of a directory or file outside would
	 * reach past every mount (cordon-exec closes 3-7). */
	if ((nwant < 5 && close(7) != 0 && errno != EBADF) || close_fds_from(top) != 0) {
		dprintf(2, "cordon: SANDBOX_UNAVAILABLE: cannot close inherited "
			   "descriptors: %s\n",
			strerror(errno));
		_exit(RUN_UNAVAILABLE);
	}
	if (fresh_session_keyring() != 0) {
		dprintf(2, "cordon: SANDBOX_UNAVAILABLE: cannot start a session "
			   "keyring of its own: %s\n",
			strerror(errno));
		_exit(RUN_UNAVAILABLE);
	}
}

/* launch_fork's child, apart from the parent's side: waits on go for
 * the command, then execs it (cordon-exec when sandboxed); never returns. */
static _Noreturn void launch_child(const int go[2], const int js[2], const int hs[2],
				   const int po[2], const int pe[2], pid_t parent, char **envp,
				   bool sandboxed, bool capture, const char *cwd,
				   const struct run_limits *lim)
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	setpgid(0, 0);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(RUN_UNAVAILABLE);
	close(go[1]);
	/* Before the fds move: the cgroup's may sit where they go. */
	if (run_limits_enter(lim) != 0)
		_exit(RUN_UNAVAILABLE);
	int got[LAUNCH_ALL_FDS_MAX] = { -1, -1, -1 }, ngot = 0, nbinds = 0, ntrees = 0;
	char **argv = launch_read_go(go[0], got, &ngot, &nbinds, &ntrees);
	if (!argv || (sandboxed ? ngot < 2 : ngot != 0 || nbinds != 0 || ntrees != 0))
		_exit(RUN_UNAVAILABLE); /* cordon gave up: nothing runs */
	/* Root's command as the unprivileged uid (run_idmap.h). */
	if (ntrees && run_idmap_enter(got + ngot + nbinds, argv, (size_t)ntrees, parent) != 0)
		_exit(RUN_UNAVAILABLE);
	argv += ntrees;
	if (capture) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
	}
	if (sandboxed)
		place_sandbox_fds(got, ngot, nbinds, js[1], hs[1]);
	if (cwd && chdir(cwd) != 0) {
		dprintf(2, "cordon: cannot enter %s: %s\n", cwd, strerror(errno));
		_exit(RUN_UNAVAILABLE);
	}
	if (envp) {
		/* Unsandboxed (sandbox none): the command itself, found on PATH. */
		execvpe(argv[0], argv, envp);
		dprintf(2, "cordon: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	execv(argv[0], argv);
	dprintf(2, "cordon: SANDBOX_UNAVAILABLE: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(RUN_UNAVAILABLE);
}

int launch_fork(struct launch *l, char **envp, bool sandboxed, bool capture,
		       const char *cwd, const struct run_limits *lim)
{
	/* Whatever is left open on the way out is closed: the child's ends
	 * once it has them, everything when the fork fails. */
	AUTO_PIPE int js[2] = { -1, -1 }, hs[2] = { -1, -1 }, po[2] = { -1, -1 },
		      pe[2] = { -1, -1 }, go[2] = { -1, -1 };
	pid_t parent = getpid();
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) != 0 ||
	    /* The helper's status is a socket: its byte may bring the
	     * listener of the write watch (refusal_watch.h). */
	    (sandboxed && (pipe2(js, O_CLOEXEC) != 0 ||
			   socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, hs) != 0)) ||
	    (capture && (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0)))
		return -1;
	l->pid = fork();
	if (l->pid < 0)
		return -1;
	if (l->pid == 0)
		launch_child(go, js, hs, po, pe, parent, envp, sandboxed, capture, cwd, lim);
	setpgid(l->pid, l->pid);
	l->go = steal_fd(&go[1]);
	l->status_json = steal_fd(&js[0]);
	l->helper = steal_fd(&hs[0]);
	l->out[0] = steal_fd(&po[0]);
	l->out[1] = steal_fd(&pe[0]);
	return 0;
}

void launch_go(struct launch *l, char *const *argv, const int *fds, const int *binds,
	       size_t nbinds)
{
	struct strbuf m;
	sb_init(&m);
	const struct run_idmap *im = fds && l->idmap && l->idmap->active ? l->idmap : NULL;
	uint32_t ntrees = im ? (uint32_t)im->n : 0;
	for (uint32_t i = 0; i < ntrees; i++)
		sb_add(&m, im->dests[i], strlen(im->dests[i]) + 1);
	for (char *const *a = argv; *a; a++)
		sb_add(&m, *a, strlen(*a) + 1);
	uint32_t nfds = !fds ? 0 : fds[2] >= 0 ? 3 : 2;
	if (!fds || nbinds > LAUNCH_BIND_FDS_MAX)
		nbinds = 0; /* the runner refuses more before it gets here */
	uint32_t hdr[5] = { LAUNCH_GO_MAGIC, (uint32_t)m.len, nfds, (uint32_t)nbinds, ntrees };
	size_t all = nfds + nbinds + ntrees;
	union {
		char buf[CMSG_SPACE(LAUNCH_ALL_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { hdr, sizeof(hdr) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (all) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = CMSG_SPACE(all * sizeof(int));
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(all * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
		if (nbinds)
			memcpy(CMSG_DATA(c) + nfds * sizeof(int), binds, nbinds * sizeof(int));
		if (ntrees)
			memcpy(CMSG_DATA(c) + (nfds + nbinds) * sizeof(int), im->trees,
			       ntrees * sizeof(int));
	}
	ssize_t r;
	do
		r = sendmsg(l->go, &msg, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r == (ssize_t)sizeof(hdr))
		(void)write_all(l->go, m.buf, m.len); /* a short one: the launch exits */
	sb_free(&m);
	close(l->go);
	l->go = -1;
}

void launch_abandon(struct launch *l)
{
	if (l->go < 0)
		return;
	close(l->go);
	l->go = -1;
	kill_group(l->pid);
	waitpid(l->pid, NULL, 0);
	l->pid = -1;
}
#endif
