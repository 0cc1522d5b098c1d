/* The Linux runner: bwrap with the lowered mount plan (--args), the seccomp
 * filter (--seccomp), and cordon-exec applying Landlock inside; setup
 * failure told from command failure by bwrap's --json-status-fd and the
 * helper's status byte, in the one launch. */
#ifndef __APPLE__
#include "config.h"

#include "bind_fds.h"
#include "call_lock.h"
#include "fence.h"
#include "launch.h"
#include "proxy.h"
#include "refusals.h"
#include "cordon/lowering.h"
#include "cordon_tools.h"
#include "run.h"
#include "run_approval.h"
#include "run_idmap.h"
#include "run_limits.h"
#include "egress_launch.h"
#include "run_util.h"

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
#include "cordon/landlock.h"

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

/* ---- the private temp dir ---------------------------------------------- */

static bool inside(const char *path, const char *dir)
{
	return dir && *dir && path_under(path, dir);
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

/* ---- masks -------------------------------------------------------------- */

/* What file masks are bound from: an empty file, read-only, beside the
 * private temp dir (so inside the runner dir the sandbox never sees); and
 * the matches of glob and regex read denies, looked up now. */
static int prepare_masks(cordon_lowering *in, bool *made, char **err)
{
	const char *mask_file = cordon_lowering_mask_file(in);
	if (mask_file) {
		int fd = open(mask_file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
		if (fd < 0) {
			*err = xasprintf("cannot make the mask file %s: %s", mask_file,
					 strerror(errno));
			return -1;
		}
		close(fd);
		*made = true;
	}
	return cordon_lowering_expand_masks(in, err); /* root's: run_idmap.h */
}

/* ---- launching ----------------------------------------------------------- */

static int memfd_with(const char *name, const char *data, size_t len)
{
	AUTO_FD int fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0 || write_all(fd, data, len) != 0)
		return -1;
	lseek(fd, 0, SEEK_SET);
	return steal_fd(&fd);
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
			  size_t nroots, const cordon_lowering *in, const struct bind_fds *binds,
			  const struct run_opts *o, bool sandboxed)
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
			if (!private_dir(roots[i]) || !cordon_lowering_shows(in, roots[i]))
				continue;
			ARG("--tmpfs");
			ARG(roots[i]);
		}
		ARG("--bind");
		ARG(cordon_lowering_tmp(in));
		ARG(cordon_lowering_tmp(in));
		if (cordon_lowering_landlock_flags(in) & CORDON_LANDLOCK_EGRESS)
			egress_bwrap_args(in, &v, &n, &cap);
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
		unsigned flags = cordon_lowering_landlock_flags(in);
		if (flags & CORDON_LANDLOCK_DENY_TCP)
			ARG("--deny-tcp");
		if (flags & CORDON_LANDLOCK_SCOPE_UNIX)
			ARG("--scope-unix");
		if (flags & CORDON_LANDLOCK_EGRESS) {
			/* The call's end of the egress proxy's socketpair. */
			ARG("--egress-fd");
			ARG("7");
			egress_helper_args(in, &v, &n, &cap);
		}
		size_t nwroots = 0;
		const char **wroots = cordon_lowering_landlock_roots(in, &nwroots);
		for (size_t i = 0; i < nwroots; i++) {
			ARG("--root");
			ARG(wroots[i]);
		}
		free(wroots);
		/* Where each descriptor bind must have landed (mount_marks.h). */
		for (size_t i = 0; i < binds->nmarks; i++) {
			ARG("--mounted");
			ARG(binds->marks[i]);
		}
		run_limits_helper_args(in, &v, &n, &cap);
		if (!o->no_watch_writes)
			ARG("--watch-writes");
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

/* A preset that allows some host, or a call whose approval grants hosts
 * (call_input), gets the call's own egress proxy; approved_only: the
 * approval alone opened it. */
static int egress_begin(struct proxy *px, const struct run_opts *o, const cordon_evaluator *ev,
			const cordon_lowering *in, struct run_approval *ra, bool approved_only,
			char **err)
{
	if (!(cordon_lowering_landlock_flags(in) & CORDON_LANDLOCK_EGRESS))
		return 0;
	struct proxy_opts po = {
		.ev = ev,
		.audit = o->audit,
		.actor = o->actor,
		.hosts_file = o->egress_hosts,
		/* An ask is let through only for a host this call's approval
		 * names; without an approval, every ask is refused. */
		.approve = ra->nhosts ? run_approval_host : NULL,
		.approve_arg = ra,
		.approval = ra->active ? cordon_exec_approval_id(ra->ap) : NULL,
		.widens = refusals_widens, /* would an allow in a preset extending it do? */
		.widens_arg = (void *)o,
		.approved_only = approved_only,
	};
	return proxy_start(px, &po, err);
}

/* ---- one call, step by step --------------------------------------------- */

/* What a call holds from its first step to its end; call_end releases all
 * of it, whichever step stopped. */
struct call {
	const struct run_opts *o;
	cordon_evaluator *ev;
	cordon_decision *dec; /* the decision the audit records */
	const char *outcome;
	char outcome_buf[32];
	char *err;
	char *roots[RUNNER_ROOTS_MAX];
	size_t nroots;
	const char *dir;      /* this user's runner dir, one of roots */
	char *tmp_name;       /* its name, chosen before the decision */
	cordon_context *ctx0; /* the context as given, without that name */
	cordon_evaluator *ev_tmp; /* with ${tmp}, while ev is without */
	bool ev_has_tmp;
	char *tmp;            /* the call's private temp dir, once made */
	int tmp_lock;         /* held while the call runs (call_lock.h) */
	char *helper;
	const char *bwrap;
	bool sandboxed, recheck, mask_made, resolv_made;
	bool egress_approved_only; /* the approval's hosts alone opened the egress proxy */
	cordon_lowering *in;
	struct run_approval ra;
	struct run_limits lim;
	struct fence fence;
	struct bind_fds binds; /* the plan's bind sources, opened and checked */
	struct run_idmap idmap; /* run by root: the command's unprivileged uid */
	struct proxy px;
	struct refusals refusals; /* what the proxy refused, read as the call runs */
	cordon_redactor *redactor;
	struct output out;
	int fds[2];           /* the plan and the seccomp filter, as memfds */
	char **argv, **envp;
	struct launch l;
};

static void call_init(struct call *c, const struct run_opts *o)
{
	memset(c, 0, sizeof(*c));
	c->o = o;
	c->outcome = "refused";
	c->nroots = runner_roots(c->roots);
	c->fds[0] = c->fds[1] = -1;
	c->tmp_lock = -1;
	c->lim.procs[0] = c->lim.procs[1] = -1;
	c->fence.reg = -1;
	c->px.pid = c->px.sandbox_fd = c->px.report_fd = -1;
	c->l = (struct launch){ -1, -1, -1, { -1, -1 }, -1, &c->idmap };
	c->out = (struct output){ o->max_output, 0, false, -1, o->output_file, NULL, { { 0 } }, { 0 } };
}

/* The call's temp dir is named before the decision, and the evaluator
 * built with the name as ${tmp}: the one evaluator that decides and lowers
 * the call.  The directory is made only once the command is allowed
 * (call_tmp).  c->ctx0 keeps the context as it was given, without that
 * name.  No name (no runner dir yet): no ${tmp}, and call_tmp says why. */
static void call_name_tmp(struct call *c)
{
	const struct run_opts *o = c->o;
	AUTO_FREE char *err = NULL;
	if (!(c->dir = runner_dir(c->roots, c->nroots, cordon_context_get(o->ctx, "workspace"),
				  &err)) ||
	    !(c->tmp_name = call_lock_name(c->dir)))
		return;
	c->ctx0 = cordon_context_new();
	for (size_t i = 0; cordon_context_name(i); i++) {
		const char *name = cordon_context_name(i), *value = cordon_context_get(o->ctx, name);
		if (value && cordon_context_set(c->ctx0, name, value, &err) != 0)
			goto undo;
	}
	if ((cordon_context_get_host(o->ctx) &&
	     cordon_context_set_host(c->ctx0, cordon_context_get_host(o->ctx), &err) != 0) ||
	    cordon_context_set(o->ctx, "tmp", c->tmp_name, &err) != 0)
		goto undo;
	return;
undo:
	cordon_context_free(c->ctx0);
	c->ctx0 = NULL;
	free(c->tmp_name);
	c->tmp_name = NULL;
}

/* The command must be allowed before anything else happens.
 *
 * Allowed with ${tmp} known, it is allowed.  Otherwise it is decided as
 * without ${tmp}, which is what a host's `cordon eval` and an approval see
 * (its value differs in every call): an allow stands, a deny never gets
 * better, and an ask, which may come from $TMPDIR, is decided again with
 * it (call_recheck).  With --approval or --approved the decision is made
 * without ${tmp} from the start, and the evaluator built again with it
 * once the temp dir exists (call_tmp). */
static int call_decide(struct call *c)
{
	const struct run_opts *o = c->o;
	struct cordon_request req = run_exec_request(o);
	req.sandboxed = true;
	if (!o->approval && !o->approved)
		call_name_tmp(c);
	if (c->tmp_name) {
		AUTO_FREE char *err = NULL;
		cordon_evaluator *ev = cordon_evaluator_new(o->policy, o->preset, o->ctx, &err);
		cordon_decision *d = ev ? cordon_evaluate(ev, &req, &err) : NULL;
		if (d && cordon_decision_effect(d) == CORDON_ALLOW) {
			c->ev = ev;
			c->dec = d;
			c->ev_has_tmp = true;
			c->outcome = "sandbox-unavailable";
			c->sandboxed = cordon_evaluator_sandboxed(c->ev);
			return 0;
		}
		cordon_decision_free(d);
		c->ev_tmp = ev; /* for call_tmp, should the command be allowed below */
	}
	if (!(c->ev = cordon_evaluator_new(o->policy, o->preset, c->ctx0 ? c->ctx0 : o->ctx,
					   &c->err))) {
		fprintf(stderr, "cordon: %s\n", c->err);
		return 2;
	}
	cordon_decision *d = c->dec = cordon_evaluate(c->ev, &req, &c->err);
	enum cordon_effect e = d ? cordon_decision_effect(d) : CORDON_DENY;
	if (d && run_approval_wanted(o, e) && run_approval_begin(o, c->ev, d, &c->ra) != 0) {
		c->outcome = "approval-void";
		return run_refusal_status(e);
	}
	c->recheck = e == CORDON_ASK && !c->ra.active;
	if (e == CORDON_DENY) {
		run_refuse(o, d, e, c->err);
		c->outcome = "denied";
		return RUN_DENIED;
	}
	c->outcome = "sandbox-unavailable";
	c->sandboxed = cordon_evaluator_sandboxed(c->ev);
	return 0;
}

static int call_redactor(struct call *c)
{
	if (c->o->redact && !(c->redactor = cordon_redactor_new(c->o->policy, &c->err)))
		return unavailable("%s", c->err);
	c->out.redactor = c->redactor;
	return 0;
}

/* bwrap, the helper of this build, and Landlock: every layer, or no call. */
static int call_layers(struct call *c)
{
	if (!c->sandboxed)
		return 0;
	if (!(c->bwrap = find_bwrap()))
		return unavailable("no usable bwrap in /usr/bin or /bin (install the Debian "
				   "package 'bubblewrap')");
	if (!(c->helper = c->o->exec_helper ? xstrdup(c->o->exec_helper) : run_find_helper()))
		return unavailable("cordon-exec, the in-sandbox helper, is not installed next to "
				   "cordon or in " LIBEXECDIR "/cordon");
	if (!run_helper_matches(c->helper))
		return unavailable("%s is not from this build of cordon (%s): install cordon and "
				   "cordon-exec together",
				   c->helper, CORDON_BUILD_ID);
	if (cordon_landlock_abi() < 1)
		return unavailable("the kernel has no Landlock (boot with lsm=...,landlock)");
	return 0;
}

static bool call_captures(const struct run_opts *o)
{
	return o->max_output || o->output_file || o->redact;
}

/* A sandboxed call's cgroups, made from the preset's limits alone, and its
 * launch forked to join them, before anything else: on cgroup v1 the
 * join's wait passes while the plan is made (launch_fork).  A call
 * without a sandbox forks where it launches (call_supervise). */
static int call_fork(struct call *c)
{
	if (!c->sandboxed)
		return 0;
	cordon_lowering *li = cordon_lowering_limits_new(c->ev);
	int r = run_limits_prepare(li, true, &c->lim, &c->err);
	cordon_lowering_free(li);
	if (r != 0)
		return unavailable("%s", c->err);
	if (launch_fork(&c->l, NULL, true, call_captures(c->o), NULL, &c->lim) != 0)
		return unavailable("cannot launch: %s", strerror(errno));
	return 0;
}

/* The private temp dir, made under the name ${tmp} was given; without
 * an evaluator that knows it, the evaluator again with it. */
static int call_tmp(struct call *c)
{
	const struct run_opts *o = c->o;
	if (!c->dir && !(c->dir = runner_dir(c->roots, c->nroots,
					     cordon_context_get(o->ctx, "workspace"), &c->err)))
		return unavailable("%s", c->err);
	if (!c->tmp_name && !(c->tmp_name = call_lock_name(c->dir)))
		return unavailable("cannot name a private temp dir in %s: %s", c->dir,
				   strerror(errno));
	const char *what = NULL;
	if ((c->tmp_lock = call_lock_make(c->dir, c->tmp_name, &what)) < 0)
		return unavailable("%s %s: %s", what, c->dir, strerror(errno));
	c->tmp = steal_pointer(&c->tmp_name);
	if (!c->ev_has_tmp) {
		cordon_evaluator_free(c->ev);
		c->ev = steal_pointer(&c->ev_tmp);
	}
	if (!c->ev && (cordon_context_set(o->ctx, "tmp", c->tmp, &c->err) != 0 ||
		       !(c->ev = cordon_evaluator_new(o->policy, o->preset, o->ctx, &c->err))))
		return unavailable("%s", c->err);
	/* Under a managed layer, a plan wider than the managed layer's is
	 * no plan: the call does not start. */
	if (cordon_evaluator_check_layers(c->ev, &c->err) != 0)
		return unavailable("%s", c->err);
	return 0;
}

/* An ask decided again, now that ${tmp} has its value. */
static int call_recheck(struct call *c)
{
	if (!c->recheck)
		return 0;
	struct cordon_request req = run_exec_request(c->o);
	req.sandboxed = true;
	cordon_decision *d = cordon_evaluate(c->ev, &req, &c->err);
	enum cordon_effect e = d ? cordon_decision_effect(d) : CORDON_DENY;
	if (d) {
		cordon_decision_free(c->dec); /* the audit records the final one */
		c->dec = d;
	}
	if (e != CORDON_ALLOW) {
		run_refuse(c->o, d, e, c->err);
		c->outcome = e == CORDON_DENY ? "denied" : "needs-approval";
		return run_refusal_status(e);
	}
	return 0;
}

static int call_approval(struct call *c)
{
	if (c->ra.active && run_approval_prepare(&c->ra, &c->err) != 0) {
		fprintf(stderr, "cordon: APPROVAL VOID: %s\n", c->err);
		c->outcome = "approval-void";
		return RUN_ASK; /* a fresh approval may still let it run */
	}
	return 0;
}

/* The lowering input, built once for the call, and the host facts it
 * needs, read once; then the limits of a call without a sandbox (a
 * sandboxed one has them from call_fork). */
static int call_input(struct call *c)
{
	if (!(c->in = cordon_lowering_new(c->ev, c->ra.grants, c->ra.ngrants, &c->err)))
		return unavailable("%s", c->err);
	/* An approved host is reachable only through the egress proxy: a
	 * preset that allows no host gets one for the approval's hosts. */
	if (c->ra.nhosts)
		c->egress_approved_only = cordon_lowering_egress_for_approval(c->in, c->ra.origin);
	if (c->sandboxed && cordon_lowering_protect_hooks_path(c->in, &c->err) != 0)
		return unavailable("%s", c->err);
	cordon_lowering_read_host(c->in);
	if (!c->sandboxed && run_limits_prepare(c->in, false, &c->lim, &c->err) != 0)
		return unavailable("%s", c->err);
	return 0;
}

/* The typed plan as bwrap's arguments, and the filter, each in a memfd. */
static int call_plan(struct call *c)
{
	if (!c->sandboxed) {
		c->envp = cordon_lowering_environ(c->in);
		return 0;
	}
	/* Missing protected paths become fences before the plan is made, so
	 * that it binds them like paths that exist. */
	if (fence_begin(&c->fence, c->dir, c->in, &c->err) != 0)
		return unavailable("%s", c->err);
	struct cordon_plan plan = { 0 };
	AUTO_FREE char *args = NULL, *bpf = NULL;
	size_t args_len = 0, bpf_len = 0;
	if (prepare_masks(c->in, &c->mask_made, &c->err) != 0 ||
	    prepare_resolv(c->in, &c->resolv_made, &c->err) != 0 ||
	    (c->o->check_links && cordon_lowering_check_links(c->in, &c->err) != 0) ||
	    cordon_lowering_plan(c->in, &plan, &c->err) != 0 ||
	    (geteuid() == 0 && run_idmap_or_masks(&c->idmap, c->in, &plan, c->dir, &c->helper,
						  cordon_context_get(c->o->ctx, "home"), &c->err)) ||
	    bind_fds_take(&c->binds, &plan, c->in, &c->ra, &c->err) != 0 ||
	    /* The filter reads only the input's network and unix terms, which
	     * fences and masks leave as they are: one input for both. */
	    !(bpf = cordon_lowering_seccomp_bpf(c->in, &bpf_len, &c->err))) {
		cordon_plan_free(&plan);
		return unavailable("%s", c->err);
	}
	args = cordon_plan_bwrap_args(&plan, &args_len);
	cordon_plan_free(&plan);
	if ((c->fds[0] = memfd_with("cordon-plan", args, args_len)) < 0 ||
	    (c->fds[1] = memfd_with("cordon-seccomp", bpf, bpf_len)) < 0)
		return unavailable("memfd: %s", strerror(errno));
	return 0;
}

/* Where the whole output is kept, with --output-file or --max-output. */
static int call_output(struct call *c)
{
	const struct run_opts *o = c->o;
	if (!o->output_file && !o->max_output)
		return 0;
	AUTO_FREE char *made = o->output_file ? NULL
					      : xasprintf("%s/output-%ld", c->dir, (long)getpid());
	const char *path = o->output_file ? o->output_file : made;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return unavailable("cannot create the output file %s: %s", path, strerror(errno));
	c->out.file = fd;
	c->out.file_path = made ? steal_pointer(&made) : o->output_file;
	return 0;
}

/* The command started: the egress proxy first, whose end the launch
 * passes on, then the fork (a sandboxed call forked in call_fork) and the
 * go; 0, or why nothing was launched. */
static int supervise_launch(struct call *c)
{
	const struct run_opts *o = c->o;
	if (c->sandboxed && egress_begin(&c->px, o, c->ev, c->in, &c->ra, c->egress_approved_only,
				       &c->err) != 0)
		return unavailable("egress proxy: %s", c->err);
	if (!c->sandboxed &&
	    launch_fork(&c->l, c->envp, false, call_captures(o), cordon_lowering_cwd(c->in),
			&c->lim) != 0)
		return unavailable("cannot launch: %s", strerror(errno));
	int go_fds[LAUNCH_GO_FDS] = { c->fds[0], c->fds[1], c->px.sandbox_fd };
	launch_go(&c->l, c->argv, c->sandboxed ? go_fds : NULL, c->binds.fds, c->binds.n);
	proxy_launched(&c->px);
	return 0;
}

/* What one wake of the poll found ready, read: the proxy's refusals, the
 * end of the process (its pidfd), bwrap's status (started once it names
 * the child), the write watch's requests, the helper's byte (layers), and
 * the command's output, passed on. */
static void supervise_read(struct call *c, const struct pollfd *p, int *pidfd, char *json,
			   size_t json_size, size_t *json_len, bool *started, bool *layers)
{
	struct launch *l = &c->l;
	char buf[65536];
	if (p[6].revents && !refusals_read(&c->refusals, c->px.report_fd)) {
		close(c->px.report_fd);
		c->px.report_fd = -1;
	}
	if (p[5].revents) {
		/* The process is gone; read what its pipes still hold. */
		close(*pidfd);
		*pidfd = -1;
	}
	if (p[1].revents) {
		ssize_t n = read(l->status_json, json + *json_len, json_size - 1 - *json_len);
		if (n > 0) {
			*json_len += (size_t)n;
			json[*json_len] = '\0';
			if (strstr(json, "\"child-pid\""))
				*started = true;
		} else {
			close(l->status_json);
			l->status_json = -1;
		}
	}
	if (p[7].revents)
		refusal_watch_serve(&c->refusals.fs); /* the command waits for the answer */
	if (p[2].revents)
		*layers = refusal_watch_status(&c->refusals.fs, &l->helper);
	for (int k = 0; k < 2; k++) {
		if (!p[3 + k].revents)
			continue;
		ssize_t n = read(l->out[k], buf, sizeof(buf));
		if (n > 0) {
			pass_output(&c->out, k + 1, buf, (size_t)n);
		} else {
			close(l->out[k]);
			l->out[k] = -1;
		}
	}
}

/* The call's status from how the command ended, its outcome for the
 * audit, and the person told of a failure; apart from the loop so that
 * call_supervise reads as launch, pass through, wait. */
static int supervise_status(struct call *c, bool timed_out, bool started, bool layers,
			    int wstatus)
{
	const struct run_opts *o = c->o;
	int status = RUN_UNAVAILABLE;
	if (timed_out) {
		fprintf(stderr, "cordon: the command timed out after %g s (preset '%s'); its "
				"processes were killed\n",
			o->timeout, o->preset);
		status = RUN_TIMEOUT;
	} else if (got_signal) {
		status = 128 + got_signal;
	} else if (c->sandboxed && (!started || !layers)) {
		/* A bwrap older than 0.8.0 stops here too, at --disable-userns or
		 * --bind-fd, having named the option it does not know. */
		status = unavailable("bwrap could not set up the sandbox for preset '%s'%s", o->preset,
				     started ? " (the in-sandbox layers did not apply)"
					     : " (bwrap says why above; cordon needs bubblewrap 0.8.0 or later)");
	} else if (WIFEXITED(wstatus)) {
		status = WEXITSTATUS(wstatus);
	} else if (WIFSIGNALED(wstatus)) {
		status = 128 + WTERMSIG(wstatus);
	}
	if (timed_out) {
		c->outcome = "timeout";
	} else if (got_signal) {
		c->outcome = "cancelled";
	} else if (status != RUN_UNAVAILABLE) {
		snprintf(c->outcome_buf, sizeof(c->outcome_buf), "exit:%d", status);
		c->outcome = c->outcome_buf;
	}
	if (!timed_out && !got_signal && status != 0 && status != RUN_UNAVAILABLE)
		fprintf(stderr, "cordon: the command exited with status %d (preset '%s')\n", status,
			o->preset);
	return status;
}

/* Launch, pass the output through, and wait: the command's status, or
 * why there is none. */
static int call_supervise(struct call *c)
{
	const struct run_opts *o = c->o;
	struct launch *l = &c->l;
	bool started = false, layers = false, timed_out = false;
	int wstatus = 0;
	int rc = supervise_launch(c);
	if (rc != 0)
		return rc;
	double deadline = o->timeout > 0 ? now() + o->timeout : 0;
	char json[4096];
	size_t json_len = 0;
	/* A pidfd wakes the loop the moment the launched process exits. */
	int pidfd = (int)syscall(SYS_pidfd_open, l->pid, 0);
	for (;;) {
		struct pollfd p[8] = {
			{ signal_pipe[0], POLLIN, 0 }, { l->status_json, POLLIN, 0 },
			{ l->helper, POLLIN, 0 },      { l->out[0], POLLIN, 0 },
			{ l->out[1], POLLIN, 0 },      { pidfd, POLLIN, 0 },
			{ c->px.report_fd, POLLIN, 0 }, { c->refusals.fs.fd, POLLIN, 0 },
		};
		int wait_ms = -1;
		if (deadline) {
			double left = deadline - now();
			if (left <= 0) {
				timed_out = true;
				kill_group(l->pid);
				break;
			}
			wait_ms = (int)(left * 1000) + 1;
		}
		bool open_fds = l->status_json >= 0 || l->helper >= 0 || l->out[0] >= 0 ||
				l->out[1] >= 0;
		if (!open_fds || pidfd >= 0) {
			/* Exited with its pipes drained (or being drained): done. */
			if (!open_fds && waitpid(l->pid, &wstatus, WNOHANG) == l->pid)
				goto reaped;
			if (pidfd < 0 && (wait_ms < 0 || wait_ms > 50))
				wait_ms = 50;
		}
		int r = poll(p, 8, wait_ms);
		if (r < 0 && errno != EINTR)
			break;
		if (got_signal) {
			kill_group(l->pid);
			break;
		}
		supervise_read(c, p, &pidfd, json, sizeof(json), &json_len, &started, &layers);
	}
	waitpid(l->pid, &wstatus, 0);
reaped:
	if (pidfd >= 0)
		close(pidfd);
	/* Every refusal the command was told of is in the pipe by now. */
	if (c->px.report_fd >= 0)
		refusals_read(&c->refusals, c->px.report_fd);
	flush_redacted(&c->out);
	return supervise_status(c, timed_out, started, layers, wstatus);
}

/* The repositories nested in the workspace that the call made or changed
 * and that name a program git runs are disarmed once the sandbox is gone
 * (cordon/lowering.h), so that the host's next git status in the
 * workspace cannot enter one; the person is told which. */
static void call_nested_git(struct call *c, const struct timespec *since)
{
	AUTO_FREE char *report = NULL;
	if (c->sandboxed && cordon_lowering_disarm_nested_git(c->in, since, &report) != 0)
		fprintf(stderr, "cordon: %s\n", report);
}

/* The launch with SIGINT and SIGTERM caught (they end the command's
 * group), restored afterwards. */
static int call_launch(struct call *c)
{
	struct sigaction sa, old_int, old_term;
	struct timespec since;
	/* The coarse clock: the one file times are taken from, never ahead. */
	clock_gettime(CLOCK_REALTIME_COARSE, &since);
	c->argv = launch_argv(c->bwrap, c->helper, c->roots, c->nroots, c->in, &c->binds, c->o,
			      c->sandboxed);
	if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		return unavailable("pipe: %s", strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	signal(SIGPIPE, SIG_IGN);
	refusal_watch_begin(&c->refusals.fs, c->in, c->ev, c->o, c->sandboxed);
	int status = call_supervise(c);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	close(signal_pipe[0]);
	close(signal_pipe[1]);
	signal_pipe[0] = signal_pipe[1] = -1;
	call_nested_git(c, &since);
	refusals_end(&c->refusals, c->o, c->dec); /* the call's last words */
	return status;
}

static void call_audit(struct call *c)
{
	const struct run_opts *o = c->o;
	if (!o->audit || !c->dec)
		return;
	struct cordon_audit_record rec = { .actor = o->actor, .outcome = c->outcome };
	size_t nargs = 0;
	AUTO_FREE char *aerr = NULL;
	if (!o->shell)
		while (o->argv[nargs])
			nargs++;
	cordon_audit_record_decision(&rec, c->dec);
	rec.args = (const char *const *)o->argv;
	rec.nargs = nargs;
	if (c->ra.active)
		rec.approval = cordon_exec_approval_id(c->ra.ap);
	if (cordon_audit_append(o->audit, &rec, &aerr) != 0)
		fprintf(stderr, "cordon: %s\n", aerr);
}

/* The record of the call, then everything it holds, in the order that
 * keeps the sandbox's supports until the sandbox is gone. */
static void call_end(struct call *c)
{
	call_audit(c);
	cordon_decision_free(c->dec);
	run_approval_end(&c->ra);
	cordon_redactor_free(c->redactor);
	for (int k = 0; k < 2; k++)
		sb_free(&c->out.held[k]);
	for (int k = 0; k < 2; k++)
		cleanup_close(&c->l.out[k]);
	cleanup_close(&c->l.status_json);
	cleanup_close(&c->l.helper);
	cleanup_close(&c->fds[0]);
	cleanup_close(&c->fds[1]);
	bind_fds_end(&c->binds); /* the launch has its own */
	run_idmap_end(&c->idmap);
	if (c->out.file >= 0) {
		close(c->out.file);
		if (!c->o->output_file)
			free((char *)c->out.file_path);
	}
	launch_abandon(&c->l); /* before its cgroups go */
	proxy_stop(&c->px); /* the sandbox is gone: so is its way out */
	refusals_free(&c->refusals);
	run_limits_release(&c->lim);
	if (c->mask_made)
		unlink(cordon_lowering_mask_file(c->in));
	if (c->resolv_made)
		resolv_remove(c->in);
	call_lock_release(c->tmp, c->tmp_lock);
	free(c->tmp);
	free(c->tmp_name);
	cordon_context_free(c->ctx0);
	cordon_evaluator_free(c->ev_tmp);
	fence_end(&c->fence); /* the sandbox is gone: nothing relies on them now */
	cordon_lowering_free(c->in);
	run_free_argv(c->argv);
	run_free_argv(c->envp);
	for (size_t i = 0; i < c->nroots; i++)
		free(c->roots[i]);
	free(c->helper);
	free(c->err);
	cordon_evaluator_free(c->ev);
}

/* The setup of a call, in order.  Each step returns 0 or the exit status
 * that ends the call: the first that fails stops it before the command
 * runs. */
static int (*const call_steps[])(struct call *) = {
	call_decide,   call_redactor, call_layers, call_fork,   call_tmp,    call_recheck,
	call_approval, call_input,    call_plan,   call_output, call_launch,
};

int run_command(const struct run_opts *o)
{
	struct call c;
	int status = 0;
	call_init(&c, o);
	for (size_t i = 0; i < ARRAY_SIZE(call_steps) && status == 0; i++)
		status = call_steps[i](&c);
	if (o->outcome)
		snprintf(o->outcome, RUN_OUTCOME_SIZE, "%s", c.outcome);
	call_end(&c);
	return status;
}
#endif
