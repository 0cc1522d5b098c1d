/* The Linux runner: bwrap with the lowered mount plan (--args), the seccomp
 * filter (--seccomp), and cordon-exec applying Landlock inside; setup
 * failure told from command failure by bwrap's --json-status-fd and the
 * helper's status byte, in the one launch. */
#ifndef __APPLE__
#include "config.h"

#include "fence.h"
#include "proxy.h"
#include "lower.h"
#include "run.h"
#include "run_approval.h"
#include "run_limits.h"
#include "run_links.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "build-id.h"
#include "landlock.h"

#include <linux/keyctl.h>

#ifndef LIBEXECDIR
#define LIBEXECDIR "/usr/local/libexec"
#endif

static const char *const bwrap_paths[] = { "/usr/bin/bwrap", "/bin/bwrap" };

static int unavailable(const char *fmt, ...) PRINTF_LIKE(1, 2);
static int unavailable(const char *fmt, ...)
{
	va_list ap;
	fputs("cordon: SANDBOX_UNAVAILABLE: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return RUN_UNAVAILABLE;
}

static const char *find_bwrap(void)
{
	struct stat st;
	for (size_t i = 0; i < ARRAY_SIZE(bwrap_paths); i++)
		if (stat(bwrap_paths[i], &st) == 0 && S_ISREG(st.st_mode) &&
		    access(bwrap_paths[i], X_OK) == 0)
			return bwrap_paths[i];
	return NULL;
}

char *run_find_helper(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			char *p = xasprintf("%s/cordon-exec", self);
			if (access(p, X_OK) == 0)
				return p;
			free(p);
		}
	}
	char *p = xasprintf("%s/cordon/cordon-exec", LIBEXECDIR);
	if (access(p, X_OK) == 0)
		return p;
	free(p);
	return NULL;
}

bool run_helper_matches(const char *path)
{
	struct stat st;
	bool found = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			/* With its NUL: this build's identity, not one it begins. */
			found = memmem(m, (size_t)st.st_size, CORDON_BUILD_MARKER,
				       sizeof(CORDON_BUILD_MARKER)) != NULL;
			munmap(m, (size_t)st.st_size);
		}
	}
	close(fd);
	return found;
}

/* ---- the private temp dir ---------------------------------------------- */

static bool inside(const char *path, const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;
	return n && strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Where this user's per-call temp dirs live.  The places are fixed for the
 * uid, never taken from the environment (a call told another
 * $XDG_RUNTIME_DIR would otherwise keep its dirs where this one does not
 * look), and every one of them is hidden inside the sandbox, whichever
 * this call uses.  /run/user/UID counts only when it is this user's own. */
#define RUNNER_ROOTS_MAX 3

static bool private_dir(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
	       !(st.st_mode & 077);
}

static size_t runner_roots(char *roots[RUNNER_ROOTS_MAX])
{
	unsigned uid = (unsigned)getuid();
	size_t n = 0;
	char *run = xasprintf("/run/user/%u", uid);
	if (private_dir(run))
		roots[n++] = xasprintf("%s/cordon", run);
	free(run);
	roots[n++] = xasprintf("/tmp/cordon-%u", uid);
	roots[n++] = xasprintf("/var/tmp/cordon-%u", uid);
	return n;
}

/* The first root that neither holds the workspace nor lies in it; it must
 * be a directory of this user's, closed to others, not a symlink.  A
 * workspace inside any root of ours is refused: hiding the roots would hide
 * it. */
static const char *runner_dir(char *const *roots, size_t n, const char *workspace, char **err)
{
	/* Every root exists before any call hides them, so that none can
	 * appear between one call's look and its launch. */
	for (size_t i = 0; i < n; i++)
		(void)!mkdir(roots[i], 0700);
	for (size_t i = 0; i < n; i++) {
		if (workspace && inside(workspace, roots[i]) && private_dir(roots[i])) {
			*err = xasprintf("the workspace %s is inside %s, where cordon keeps its "
					 "per-call temp dirs",
					 workspace, roots[i]);
			return NULL;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (inside(roots[i], workspace) || lstat(roots[i], &st) != 0)
			continue;
		if (!private_dir(roots[i])) {
			*err = xasprintf("%s is not a private directory of this user (a symlink, "
					 "another owner, or open permissions)",
					 roots[i]);
			return NULL;
		}
		return roots[i];
	}
	*err = xstrdup("no place for a private temp dir outside the workspace");
	return NULL;
}

/* Whether path is there to see inside the sandbox: the deepest literal path
 * of the plan at or above it is not hidden. */
static bool plan_shows(const struct lower_input *in, const char *path)
{
	size_t best = 0;
	bool found = false, shown = false;
	for (size_t i = 0; i < in->npaths; i++) {
		const struct lower_path *p = &in->paths[i];
		size_t len = strcmp(p->path, "/") == 0 ? 0 : strlen(p->path);
		if (len && !inside(path, p->path))
			continue;
		if (!found || len > best) {
			found = true;
			best = len;
			shown = p->why != LOWER_MASK;
		} else if (len == best && p->why == LOWER_MASK) {
			shown = false;
		}
	}
	return shown;
}

/* ---- masks -------------------------------------------------------------- */

/* What file masks are bound from: an empty file, read-only, beside the
 * private temp dir (so inside the runner dir the sandbox never sees); and
 * the matches of glob and regex read denies, looked up now. */
static int prepare_masks(struct lower_input *in, bool *made, char **err)
{
	if (in->mask_file) {
		int fd = open(in->mask_file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
		if (fd < 0) {
			*err = xasprintf("cannot make the mask file %s: %s", in->mask_file,
					 strerror(errno));
			return -1;
		}
		close(fd);
		*made = true;
	}
	return lower_expand_masks(in, &lower_mask_default_bounds, err);
}

/* ---- launching ----------------------------------------------------------- */

static int memfd_with(const char *name, const char *data, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write_all(fd, data, len) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static volatile sig_atomic_t got_signal;
static int signal_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	int saved = errno;
	got_signal = sig;
	if (signal_pipe[1] >= 0)
		(void)!write(signal_pipe[1], "", 1);
	errno = saved;
}

/* With --redact the reply is held back until the command ends, so a
 * secret split across reads is redacted whole; past this much a stream's
 * reply is cut (the output file still keeps everything). */
#define REDACT_HOLD_MAX ((size_t)64 << 20)

struct output {
	size_t limit, passed;
	bool truncated;
	int file;
	const char *file_path;
	const cordon_redactor *redactor; /* --redact: hold the reply in held[] */
	struct strbuf held[2];
	bool held_cut[2];
};

static void pass_reply(struct output *out, int to, const char *buf, size_t n);

static void pass_output(struct output *out, int to, const char *buf, size_t n)
{
	if (out->file >= 0)
		(void)!write(out->file, buf, n);
	if (out->redactor) {
		struct strbuf *h = &out->held[to - 1];
		size_t room = h->len < REDACT_HOLD_MAX ? REDACT_HOLD_MAX - h->len : 0;
		sb_add(h, buf, n < room ? n : room);
		if (n > room)
			out->held_cut[to - 1] = true;
		return;
	}
	pass_reply(out, to, buf, n);
}

/* The held output, redacted, then through the same limit as live output. */
static void flush_redacted(struct output *out)
{
	if (!out->redactor)
		return;
	for (int k = 0; k < 2; k++) {
		size_t len = 0;
		char *clean = cordon_redact(out->redactor, out->held[k].buf ? out->held[k].buf : "",
					    out->held[k].len, &len, NULL);
		pass_reply(out, k + 1, clean, len);
		free(clean);
		if (out->held_cut[k])
			dprintf(2, "\n[cordon: %s beyond %zu bytes is not shown; the whole output is "
				   "in %s]\n",
				k ? "stderr" : "stdout", REDACT_HOLD_MAX,
				out->file_path ? out->file_path : "(nowhere)");
		sb_free(&out->held[k]);
	}
}

static void pass_reply(struct output *out, int to, const char *buf, size_t n)
{
	if (!out->limit) {
		(void)!write(to, buf, n);
		return;
	}
	if (out->passed < out->limit) {
		size_t take = n < out->limit - out->passed ? n : out->limit - out->passed;
		(void)!write(to, buf, take);
		out->passed += take;
		n -= take;
	}
	if (n && !out->truncated) {
		out->truncated = true;
		dprintf(2, "\n[cordon: output truncated after %zu bytes; the whole output is in %s]\n",
			out->limit, out->file_path ? out->file_path : "(nowhere)");
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Build argv for the launch. */
static char **launch_argv(const char *bwrap, const char *helper, char *const *roots,
			  size_t nroots, const struct lower_input *in, const struct run_opts *o,
			  bool sandboxed)
{
	char **v = NULL;
	size_t n = 0, cap = 0;
#define ARG(s) VEC_PUSH(v, n, cap, xstrdup(s))
	if (sandboxed) {
		ARG(bwrap);
		ARG("--args");
		ARG("3");
		ARG("--seccomp");
		ARG("4");
		ARG("--json-status-fd");
		ARG("5");
		/* No user namespace inside, even past the filter: bwrap uses up
		 * the limit of the namespace around the sandbox's (0.8.0+). */
		ARG("--disable-userns");
		/* Other calls' temp dirs stay out of sight: each place of them an
		 * empty tmpfs (a mount point, which cannot be renamed away), then
		 * this call's own temp dir bound back into its place. */
		for (size_t i = 0; i < nroots; i++) {
			if (!private_dir(roots[i]) || !plan_shows(in, roots[i]))
				continue;
			ARG("--tmpfs");
			ARG(roots[i]);
		}
		ARG("--bind");
		ARG(in->tmp);
		ARG(in->tmp);
		/* The helper must be visible whatever the plan reads. */
		ARG("--ro-bind");
		ARG(helper);
		ARG(helper);
		ARG("--");
		ARG(helper);
		ARG("--build-id");
		ARG(CORDON_BUILD_ID);
		ARG("--status-fd");
		ARG("6");
		/* The same ruleset `cordon compile --emit landlock` shows. */
		unsigned flags = lower_landlock_flags(in);
		if (flags & CORDON_LANDLOCK_DENY_TCP)
			ARG("--deny-tcp");
		if (flags & CORDON_LANDLOCK_SCOPE_UNIX)
			ARG("--scope-unix");
		if (flags & CORDON_LANDLOCK_EGRESS) {
			/* The call's end of the egress proxy's socketpair. */
			ARG("--egress-fd");
			ARG("7");
		}
		size_t nwroots = 0;
		const char **wroots = lower_landlock_roots(in, &nwroots);
		for (size_t i = 0; i < nwroots; i++) {
			ARG("--root");
			ARG(wroots[i]);
		}
		free(wroots);
		run_limits_helper_args(in, &v, &n, &cap);
		ARG("--");
	}
	if (o->shell) {
		ARG("/bin/sh");
		ARG("-c");
		ARG(o->argv[0]);
	} else {
		for (char **a = o->argv; *a; a++)
			ARG(*a);
	}
	VEC_PUSH(v, n, cap, NULL);
#undef ARG
	return v;
}

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

static void kill_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

struct launch {
	pid_t pid;
	int status_json; /* bwrap --json-status-fd, read end */
	int helper;      /* the helper's status byte, read end */
	int out[2];      /* captured stdout/stderr, read ends, or -1 */
	int go;          /* where the launch waits for its argv, write end, or -1 */
};

/* The message that lets a launch run: a header (magic, the length of
 * what follows, the number of descriptors) carrying the descriptors the
 * sandbox gets (the plan, the filter, the egress proxy's end), then argv
 * as NUL-ended strings.  A launch runs nothing unless all of it arrives. */
#define LAUNCH_GO_MAGIC 0x63676f31u /* "cgo1" */
#define LAUNCH_GO_MAX (64u << 20)
#define LAUNCH_GO_FDS 3

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

/* In the launch: argv and the descriptors (*nfds, at most
 * LAUNCH_GO_FDS) from the message on fd, or NULL when it is not whole. */
static char **launch_read_go(int fd, int *fds, int *nfds)
{
	uint32_t hdr[3];
	union {
		char buf[CMSG_SPACE(LAUNCH_GO_FDS * sizeof(int))];
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
	    hdr[1] == 0 || hdr[1] > LAUNCH_GO_MAX || hdr[2] > LAUNCH_GO_FDS)
		return NULL;
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	*nfds = (int)hdr[2];
	if (*nfds) {
		if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len != CMSG_LEN((size_t)*nfds * sizeof(int)))
			return NULL;
		memcpy(fds, CMSG_DATA(c), (size_t)*nfds * sizeof(int));
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
	char **argv = xcalloc(n + 1, sizeof(*argv));
	for (size_t i = 0, k = 0; k < n; k++) {
		argv[k] = blob + i;
		i += strlen(blob + i) + 1;
	}
	return argv;
}

/* Fork the launch.  It leaves cordon's signals behind, joins the call's
 * cgroups and waits for launch_go: on cgroup v1 a join waits for an RCU
 * grace period, milliseconds of a launch, which a launch forked before the
 * plan is made spends while cordon makes it.  It dies with cordon, and a
 * cordon that stops before launch_go sends no message: the launch exits
 * without running anything.  sandboxed: bwrap's and the helper's status
 * pipes are made, and the plan, filter and egress descriptors come with
 * the message. */
static int launch_fork(struct launch *l, char **envp, bool sandboxed, bool capture,
		       const char *cwd, const struct run_limits *lim)
{
	int js[2] = { -1, -1 }, hs[2] = { -1, -1 }, po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	int go[2] = { -1, -1 };
	pid_t parent = getpid();
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) != 0 ||
	    (sandboxed && (pipe2(js, O_CLOEXEC) != 0 || pipe2(hs, O_CLOEXEC) != 0)) ||
	    (capture && (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0)))
		return -1;
	l->pid = fork();
	if (l->pid < 0)
		return -1;
	if (l->pid == 0) {
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
		int got[LAUNCH_GO_FDS] = { -1, -1, -1 }, ngot = 0;
		char **argv = launch_read_go(go[0], got, &ngot);
		if (!argv || (sandboxed ? ngot < 2 : ngot != 0))
			_exit(RUN_UNAVAILABLE); /* cordon gave up: nothing runs */
		if (capture) {
			dup2(po[1], 1);
			dup2(pe[1], 2);
		}
		if (sandboxed) {
			/* 3: the plan, 4: seccomp, 5: json status, 6: helper status,
			 * 7: the egress proxy's socketpair when there is one. */
			int egress = got[2];
			int want[5] = { got[0], got[1], js[1], hs[1], egress };
			int moved[5], nwant = egress >= 0 ? 5 : 4;
			for (int i = 0; i < nwant; i++)
				moved[i] = fcntl(want[i], F_DUPFD_CLOEXEC, 10);
			for (int i = 0; i < nwant; i++)
				if (moved[i] < 0 || dup2(moved[i], 3 + i) < 0)
					_exit(RUN_UNAVAILABLE);
			/* Nothing the caller left open enters the sandbox: a
			 * descriptor of a directory or file outside would
			 * reach past every mount (cordon-exec closes 3-7). */
			if (close_fds_from(3 + nwant) != 0) {
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
	setpgid(l->pid, l->pid);
	close(go[0]);
	l->go = go[1];
	l->status_json = js[0];
	l->helper = hs[0];
	l->out[0] = po[0];
	l->out[1] = pe[0];
	if (js[1] >= 0)
		close(js[1]);
	if (hs[1] >= 0)
		close(hs[1]);
	if (po[1] >= 0)
		close(po[1]);
	if (pe[1] >= 0)
		close(pe[1]);
	return 0;
}

/* Let the launch run argv, with fds (plan, filter, and the egress
 * proxy's end or -1) when it is sandboxed.  A launch that is gone already (it could not join a
 * cgroup) makes the send fail; its exit status tells the rest. */
static void launch_go(struct launch *l, char *const *argv, const int *fds)
{
	struct strbuf m;
	sb_init(&m);
	for (char *const *a = argv; *a; a++)
		sb_add(&m, *a, strlen(*a) + 1);
	uint32_t nfds = !fds ? 0 : fds[2] >= 0 ? 3 : 2;
	uint32_t hdr[3] = { LAUNCH_GO_MAGIC, (uint32_t)m.len, nfds };
	union {
		char buf[CMSG_SPACE(LAUNCH_GO_FDS * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { hdr, sizeof(hdr) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (nfds) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
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
/* A launch forked but never let go: stopped and reaped, so that its
 * cgroups can go. */
static void launch_abandon(struct launch *l)
{
	if (l->go < 0)
		return;
	close(l->go);
	l->go = -1;
	kill_group(l->pid);
	waitpid(l->pid, NULL, 0);
	l->pid = -1;
}

/* A preset that allows some host gets the call's own egress proxy. */
static int egress_begin(struct proxy *px, const struct run_opts *o, const cordon_evaluator *ev,
			const struct lower_input *in, char **err)
{
	if (!(lower_landlock_flags(in) & CORDON_LANDLOCK_EGRESS))
		return 0;
	struct proxy_opts po = {
		.ev = ev,
		.audit = o->audit,
		.actor = o->actor,
		.hosts_file = o->egress_hosts,
		/* An ask is refused until an approval of the call names hosts. */
		.approve = NULL,
	};
	return proxy_start(px, &po, err);
}

int run_command(const struct run_opts *o)
{
	cordon_evaluator *ev = NULL;
	struct lower_input in;
	bool have_in = false;
	char *err = NULL, *tmp = NULL, *helper = NULL, *roots[RUNNER_ROOTS_MAX];
	const char *dir = NULL;
	size_t nroots = runner_roots(roots);
	char *plan = NULL, *bpf = NULL, **argv = NULL, **envp = NULL;
	size_t plan_len = 0, bpf_len = 0;
	int fds[2] = { -1, -1 }, status = RUN_UNAVAILABLE, out_file = -1;
	struct launch l = { -1, -1, -1, { -1, -1 }, -1 };
	struct output out = { o->max_output, 0, false, -1, o->output_file, NULL, { { 0 } }, { 0 } };
	cordon_redactor *redactor = NULL;
	cordon_decision *dec = NULL;
	const char *outcome = "refused";
	char outcome_buf[32];
	bool capture = o->max_output || o->output_file || o->redact;
	const char *bwrap = NULL, *workspace = cordon_context_get(o->ctx, "workspace");
	bool sandboxed, started = false, layers = false, recheck = false, mask_made = false;
	struct sigaction sa, old_int, old_term;
	struct run_limits lim = { .procs = { -1, -1 } };
	struct fence fence = { .reg = -1 };
	struct run_approval ra = { 0 };
	struct proxy px = { -1, -1 };

	/* The command must be allowed before anything else happens. */
	if (!(ev = cordon_evaluator_new(o->policy, o->preset, o->ctx, &err))) {
		fprintf(stderr, "cordon: %s\n", err);
		status = 2;
		goto out;
	}
	{
		struct cordon_request req = run_exec_request(o);
		req.sandboxed = true;
		cordon_decision *d = dec = cordon_evaluate(ev, &req, &err);
		enum cordon_effect e = d ? cordon_decision_effect(d) : CORDON_DENY;
		/* An ask may come from $TMPDIR, unknown until the private temp
		 * dir exists: decided again below.  A deny never gets better. */
		if (d && run_approval_wanted(o, e) && run_approval_begin(o, ev, d, &ra) != 0) {
			outcome = "approval-void";
			status = RUN_DENIED;
			goto out;
		}
		recheck = e == CORDON_ASK && !ra.active;
		if (e == CORDON_DENY) {
			run_refuse(o, d, e, err);
			outcome = "denied";
			status = RUN_DENIED;
			goto out;
		}
	}
	outcome = "sandbox-unavailable";
	if (o->redact && !(redactor = cordon_redactor_new(o->policy, &err))) {
		status = unavailable("%s", err);
		goto out;
	}
	out.redactor = redactor;
	sandboxed = ev->preset->sandbox == IR_SANDBOX_REQUIRED;

	if (sandboxed) {
		if (!(bwrap = find_bwrap())) {
			status = unavailable("no usable bwrap in /usr/bin or /bin (install the Debian "
					     "package 'bubblewrap')");
			goto out;
		}
		if (!(helper = o->exec_helper ? xstrdup(o->exec_helper) : run_find_helper())) {
			status = unavailable("cordon-exec, the in-sandbox helper, is not installed "
					     "next to cordon or in " LIBEXECDIR "/cordon");
			goto out;
		}
		if (!run_helper_matches(helper)) {
			status = unavailable("%s is not from this build of cordon (%s): install "
					     "cordon and cordon-exec together",
					     helper, CORDON_BUILD_ID);
			goto out;
		}
		if (cordon_landlock_abi() < 1) {
			status = unavailable("the kernel has no Landlock (boot with lsm=...,landlock)");
			goto out;
		}
		/* The limits are the preset's alone: the cgroups are made, and
		 * the launch forked to join them, before anything else, so that
		 * the join's wait passes while the plan is made (launch_fork). */
		struct lower_input li = { 0 };
		lower_limits_build(ev, &li);
		int r = run_limits_prepare(&li, true, &lim, &err);
		lower_limits_free(&li);
		if (r != 0) {
			status = unavailable("%s", err);
			goto out;
		}
		if (launch_fork(&l, NULL, true, capture, NULL, &lim) != 0) {
			status = unavailable("cannot launch: %s", strerror(errno));
			goto out;
		}
	}
	cordon_evaluator_free(ev);
	ev = NULL;
	if (!(dir = runner_dir(roots, nroots, workspace, &err))) {
		status = unavailable("%s", err);
		goto out;
	}
	tmp = xasprintf("%s/call-XXXXXX", dir);
	if (!mkdtemp(tmp)) {
		status = unavailable("cannot make a private temp dir in %s: %s", dir, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	if (cordon_context_set(o->ctx, "tmp", tmp, &err) != 0 ||
	    !(ev = cordon_evaluator_new(o->policy, o->preset, o->ctx, &err))) {
		status = unavailable("%s", err);
		goto out;
	}
	if (recheck) {
		struct cordon_request req = run_exec_request(o);
		req.sandboxed = true;
		cordon_decision *d = cordon_evaluate(ev, &req, &err);
		enum cordon_effect e = d ? cordon_decision_effect(d) : CORDON_DENY;
		if (d) {
			cordon_decision_free(dec); /* the audit records the final one */
			dec = d;
		}
		if (e != CORDON_ALLOW) {
			run_refuse(o, d, e, err);
			outcome = e == CORDON_DENY ? "denied" : "needs-approval";
			status = RUN_DENIED;
			goto out;
		}
	}
	if (ra.active && run_approval_prepare(&ra, &err) != 0) {
		fprintf(stderr, "cordon: APPROVAL VOID: %s\n", err);
		outcome = "approval-void";
		status = RUN_DENIED;
		goto out;
	}
	if (lower_input_build_granted(ev, ra.grants, ra.ngrants, &in, &err) != 0) {
		status = unavailable("%s", err);
		goto out;
	}
	have_in = true;
	if (!sandboxed && run_limits_prepare(&in, false, &lim, &err) != 0) {
		status = unavailable("%s", err);
		goto out;
	}
	if (sandboxed) {
		/* Missing protected paths become fences before the plan is made,
		 * so that it binds them like paths that exist. */
		if (fence_begin(&fence, dir, &in, &err) != 0) {
			status = unavailable("%s", err);
			goto out;
		}
		if (prepare_masks(&in, &mask_made, &err) != 0 ||
		    (o->check_links && run_links_check(&in, &err) != 0) ||
		    !(plan = lower_bwrap_args(&in, &plan_len, &err)) ||
		    /* The filter reads only the input's network and unix terms,
		     * which fences and masks leave as they are: one input for both. */
		    !(bpf = lower_seccomp_bpf(&in, &bpf_len, &err))) {
			status = unavailable("%s", err);
			goto out;
		}
		if ((fds[0] = memfd_with("cordon-plan", plan, plan_len)) < 0 ||
		    (fds[1] = memfd_with("cordon-seccomp", bpf, bpf_len)) < 0) {
			status = unavailable("memfd: %s", strerror(errno));
			goto out;
		}
	} else {
		envp = run_policy_environ(&in);
	}
	if (o->output_file || o->max_output) {
		const char *path = o->output_file;
		char *made = NULL;
		if (!path)
			path = made = xasprintf("%s/output-%ld", dir, (long)getpid());
		out_file = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (out_file < 0) {
			status = unavailable("cannot create the output file %s: %s", path,
					     strerror(errno));
			free(made);
			goto out;
		}
		out.file = out_file;
		out.file_path = made ? made : o->output_file;
	}
	argv = launch_argv(bwrap, helper, roots, nroots, &in, o, sandboxed);

	if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		status = unavailable("pipe: %s", strerror(errno));
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	signal(SIGPIPE, SIG_IGN);

	if (sandboxed && egress_begin(&px, o, ev, &in, &err) != 0) {
		status = unavailable("egress proxy: %s", err);
		goto restore;
	}
	if (!sandboxed && launch_fork(&l, envp, false, capture, in.cwd, &lim) != 0) {
		status = unavailable("cannot launch: %s", strerror(errno));
		goto restore;
	}
	int go_fds[LAUNCH_GO_FDS] = { fds[0], fds[1], px.sandbox_fd };
	launch_go(&l, argv, sandboxed ? go_fds : NULL);
	proxy_launched(&px);
	double deadline = o->timeout > 0 ? now() + o->timeout : 0;
	bool timed_out = false;
	int wstatus = 0;
	char json[4096];
	size_t json_len = 0;
	/* A pidfd wakes the loop the moment the launched process exits. */
	int pidfd = (int)syscall(SYS_pidfd_open, l.pid, 0);
	for (;;) {
		struct pollfd p[6] = {
			{ signal_pipe[0], POLLIN, 0 }, { l.status_json, POLLIN, 0 },
			{ l.helper, POLLIN, 0 },       { l.out[0], POLLIN, 0 },
			{ l.out[1], POLLIN, 0 },       { pidfd, POLLIN, 0 },
		};
		int wait_ms = -1;
		if (deadline) {
			double left = deadline - now();
			if (left <= 0) {
				timed_out = true;
				kill_group(l.pid);
				break;
			}
			wait_ms = (int)(left * 1000) + 1;
		}
		bool open_fds = l.status_json >= 0 || l.helper >= 0 || l.out[0] >= 0 || l.out[1] >= 0;
		if (!open_fds || pidfd >= 0) {
			/* Exited with its pipes drained (or being drained): done. */
			if (!open_fds && waitpid(l.pid, &wstatus, WNOHANG) == l.pid)
				goto reaped;
			if (pidfd < 0 && (wait_ms < 0 || wait_ms > 50))
				wait_ms = 50;
		}
		int r = poll(p, 6, wait_ms);
		if (r < 0 && errno != EINTR)
			break;
		if (got_signal) {
			kill_group(l.pid);
			break;
		}
		char buf[65536];
		if (p[5].revents) {
			/* The process is gone; read what its pipes still hold. */
			close(pidfd);
			pidfd = -1;
		}
		if (p[1].revents) {
			ssize_t n = read(l.status_json, json + json_len, sizeof(json) - 1 - json_len);
			if (n > 0) {
				json_len += (size_t)n;
				json[json_len] = '\0';
				if (strstr(json, "\"child-pid\""))
					started = true;
			} else {
				close(l.status_json);
				l.status_json = -1;
			}
		}
		if (p[2].revents) {
			char c;
			if (read(l.helper, &c, 1) == 1 && c == 'L')
				layers = true;
			close(l.helper);
			l.helper = -1;
		}
		for (int k = 0; k < 2; k++) {
			if (!p[3 + k].revents)
				continue;
			ssize_t n = read(l.out[k], buf, sizeof(buf));
			if (n > 0) {
				pass_output(&out, k + 1, buf, (size_t)n);
			} else {
				close(l.out[k]);
				l.out[k] = -1;
			}
		}
	}
	waitpid(l.pid, &wstatus, 0);
reaped:
	if (pidfd >= 0)
		close(pidfd);
	flush_redacted(&out);
	if (timed_out) {
		fprintf(stderr, "cordon: the command timed out after %g s (preset '%s'); its "
				"processes were killed\n",
			o->timeout, o->preset);
		status = RUN_TIMEOUT;
	} else if (got_signal) {
		status = 128 + got_signal;
	} else if (sandboxed && (!started || !layers)) {
		status = unavailable("bwrap could not set up the sandbox for preset '%s'%s", o->preset,
				     started ? " (the in-sandbox layers did not apply)" : "");
	} else if (WIFEXITED(wstatus)) {
		status = WEXITSTATUS(wstatus);
	} else if (WIFSIGNALED(wstatus)) {
		status = 128 + WTERMSIG(wstatus);
	}
	if (timed_out) {
		outcome = "timeout";
	} else if (got_signal) {
		outcome = "cancelled";
	} else if (status != RUN_UNAVAILABLE) {
		snprintf(outcome_buf, sizeof(outcome_buf), "exit:%d", status);
		outcome = outcome_buf;
	}
	if (!timed_out && !got_signal && status != 0 && status != RUN_UNAVAILABLE)
		fprintf(stderr, "cordon: the command exited with status %d (preset '%s')\n", status,
			o->preset);
restore:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	close(signal_pipe[0]);
	close(signal_pipe[1]);
	signal_pipe[0] = signal_pipe[1] = -1;
out:
	if (o->audit && dec) {
		struct cordon_audit_record rec = { .actor = o->actor, .outcome = outcome };
		size_t nargs = 0;
		char *aerr = NULL;
		if (!o->shell)
			while (o->argv[nargs])
				nargs++;
		cordon_audit_record_decision(&rec, dec);
		rec.args = (const char *const *)o->argv;
		rec.nargs = nargs;
		if (ra.active)
			rec.approval = ra.ap.id;
		if (cordon_audit_append(o->audit, &rec, &aerr) != 0) {
			fprintf(stderr, "cordon: %s\n", aerr);
			free(aerr);
		}
	}
	cordon_decision_free(dec);
	run_approval_end(&ra);
	cordon_redactor_free(redactor);
	for (int k = 0; k < 2; k++)
		sb_free(&out.held[k]);
	for (int k = 0; k < 2; k++)
		if (l.out[k] >= 0)
			close(l.out[k]);
	if (l.status_json >= 0)
		close(l.status_json);
	if (l.helper >= 0)
		close(l.helper);
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	if (out_file >= 0) {
		close(out_file);
		if (!o->output_file)
			free((char *)out.file_path);
	}
	launch_abandon(&l);
	proxy_stop(&px); /* the sandbox is gone: so is its way out */
	run_limits_release(&lim);
	run_remove_tree(tmp);
	if (mask_made)
		unlink(in.mask_file);
	fence_end(&fence); /* the sandbox is gone: nothing relies on them now */
	if (have_in)
		lower_input_free(&in);
	run_free_argv(argv);
	run_free_argv(envp);
	free(plan);
	free(bpf);
	free(tmp);
	for (size_t i = 0; i < nroots; i++)
		free(roots[i]);
	free(helper);
	free(err);
	cordon_evaluator_free(ev);
	return status;
}
#endif
