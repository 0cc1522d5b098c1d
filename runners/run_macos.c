/* The macOS runner: sandbox-exec with the lowered Seatbelt profile.  Built
 * only on macOS; restricted presets fail closed when /usr/bin/sandbox-exec
 * is missing or refuses the profile.
 *
 * The call's contract here:
 *  - a private temp dir of its own (0700), under the user's temp dir that
 *    confstr(_CS_DARWIN_USER_TEMP_DIR) names (/private/var/folders/.../T),
 *    else under $TMPDIR, else /private/tmp; removed with what the command
 *    left in it when the call ends;
 *  - the environment of the preset's env block alone, as on Linux
 *    (run_policy_environ): sandbox-exec passes it on to the command;
 *  - the command leads a process group of its own: a timeout kills the
 *    group, and so does the end of the call (what the command left running
 *    in it); a process that leaves the group (setsid) is not followed,
 *    there is no PID namespace here;
 *  - before the command, the profile is applied once to /usr/bin/true: a
 *    sandbox-exec that is missing, refuses the profile or cannot start a
 *    program under it stops the call with SANDBOX_UNAVAILABLE, so that its
 *    own failure never passes for the command's exit status. */
#ifdef __APPLE__
#include "config.h"

#include "cordon/lowering.h"
#include "cordon_tools.h"
#include "rlimit.h"
#include "run.h"
#include "run_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char sandbox_exec[] = "/usr/bin/sandbox-exec";
static const char true_bin[] = "/usr/bin/true";

/* A preset's limits here: the rlimits, set in the child before it execs
 * sandbox-exec (macOS counts RLIMIT_NPROC over all of the user's
 * processes); memory has no cgroup to go to, so a memory limit that is not
 * best_effort stops the call.  -1 after printing why. */
static int macos_limits_check(const cordon_lowering *in)
{
	const struct cordon_limit *mem = cordon_lowering_limit_find(in, CORDON_LIMIT_MEMORY);
	if (mem && !mem->best_effort) {
		fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: %s: the memory limit needs a cgroup, "
				"which macOS does not have; write 'memory ... best_effort;' to run "
				"without it\n",
			mem->origin);
		return -1;
	}
	return 0;
}

static void macos_limits_apply(const cordon_lowering *in)
{
	const struct cordon_limit *l;
	for (size_t i = 0; (l = cordon_lowering_limit(in, i)); i++) {
		struct run_rlimit r = { 0, l->value };
		if (run_rlimit_for(l->which, &r.resource) && run_rlimit_apply(&r) != 0) {
			fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: setrlimit: %s\n", strerror(errno));
			_exit(RUN_UNAVAILABLE);
		}
	}
}

char *run_find_helper(void)
{
	return NULL; /* Seatbelt needs no in-sandbox helper */
}

/* 0 when sandbox-exec applies profile and starts /usr/bin/true under it;
 * -1 with *why (malloc'd) otherwise. */
static int profile_applies(const char *profile, char **why)
{
	char *line = NULL;
	char *argv[] = { (char *)sandbox_exec, (char *)"-p", (char *)profile, (char *)true_bin,
			 NULL };
	char *const no_env[] = { NULL };
	int rc = run_capture(argv, no_env, &line);
	if (rc == 0) {
		free(line);
		return 0;
	}
	*why = rc < 0 ? xasprintf("%s could not be run", sandbox_exec)
		      : xasprintf("%s refused the profile or could not start %s under it "
				  "(exit %d%s%s)",
				  sandbox_exec, true_bin, rc, line ? ": " : "", line ? line : "");
	free(line);
	return -1;
}

void run_probe(struct probe_result *r, bool launch)
{
	memset(r, 0, sizeof(*r));
	r->seatbelt = true;
	if (access(sandbox_exec, X_OK) == 0)
		r->bwrap_path = xstrdup(sandbox_exec);
	if (r->bwrap_path && launch) {
		/* A profile that denies by default, as every lowered one does. */
		static const char probe_profile[] = "(version 1)(deny default)(allow process-exec)"
						    "(allow process-fork)(allow file-read*)"
						    "(allow sysctl-read)";
		r->userns = profile_applies(probe_profile, &r->userns_error) == 0;
	} else if (!r->bwrap_path) {
		r->userns_error = xasprintf("%s is missing", sandbox_exec);
	}
	r->seccomp = false;
	r->landlock_abi = 0;
}

void run_probe_free(struct probe_result *r)
{
	free(r->bwrap_path);
	free(r->bwrap_version);
	free(r->userns_error);
	free(r->helper_path);
	memset(r, 0, sizeof(*r));
}

/* The directory the call's private temp dir is made in: the user's own
 * temp dir, which no other user can list or write. */
static char *temp_base(void)
{
#ifdef _CS_DARWIN_USER_TEMP_DIR
	char buf[PATH_MAX];
	size_t n = confstr(_CS_DARWIN_USER_TEMP_DIR, buf, sizeof(buf));
	if (n > 0 && n <= sizeof(buf) && buf[0] == '/')
		return xstrdup(buf);
#endif
	const char *t = getenv("TMPDIR");
	return xstrdup(t && t[0] == '/' ? t : "/private/tmp");
}

/* The call's private temp dir, canonical (the evaluator would resolve
 * /var/folders to /private/var/folders anyway); NULL on failure. */
static char *make_call_tmp(void)
{
	char *base = temp_base();
	size_t n = strlen(base);
	while (n > 1 && base[n - 1] == '/')
		base[--n] = '\0';
	char *tmpl = xasprintf("%s/cordon-call-XXXXXX", base);
	free(base);
	if (!mkdtemp(tmpl)) {
		fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: cannot make a private temp dir %s: %s\n",
			tmpl, strerror(errno));
		free(tmpl);
		return NULL;
	}
	char *real = realpath(tmpl, NULL);
	if (!real) {
		fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: cannot resolve %s: %s\n", tmpl,
			strerror(errno));
		rmdir(tmpl);
	}
	free(tmpl);
	return real;
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What this runner cannot do yet stops the call: unredacted output must
 * not pass for redacted, a missing record for an audited call, a check
 * asked for and not made for one made.  0, or RUN_UNAVAILABLE after
 * saying why. */
static int macos_unsupported(const struct run_opts *o)
{
	const char *unsupported = o->redact	      ? "--redact"
				  : o->audit	      ? "--audit"
				  : o->output_file    ? "--output-file"
				  : o->max_output     ? "--max-output"
				  : o->check_links    ? "--check-links"
						      : NULL;
	if (!unsupported)
		return 0;
	fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: %s is not supported by the macOS runner yet\n",
		unsupported);
	return RUN_UNAVAILABLE;
}

/* The command must be allowed before anything runs: 0 when it is, else
 * the refusal's status after saying why. */
static int macos_decide(const struct run_opts *o, cordon_evaluator *ev)
{
	char *err = NULL;
	struct cordon_request req = run_exec_request(o);
	cordon_decision *d = cordon_evaluate(ev, &req, &err);
	enum cordon_effect e = d ? cordon_decision_effect(d) : CORDON_DENY;
	int status = 0;
	if (e == CORDON_DENY || (e == CORDON_ASK && !o->approved)) {
		run_refuse(o, d, e, err);
		status = run_refusal_status(e);
	}
	cordon_decision_free(d);
	free(err);
	return status;
}

/* The evaluator of the call, its layers checked and the command decided:
 * NULL with *status set after saying why. */
static cordon_evaluator *macos_evaluator(const struct run_opts *o, const char *tmp, int *status)
{
	char *err = NULL;
	cordon_evaluator *ev = NULL;
	*status = RUN_UNAVAILABLE;
	if (cordon_context_set(o->ctx, "tmp", tmp, &err) != 0) {
		fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: %s\n", err);
	} else if (!(ev = cordon_evaluator_new(o->policy, o->preset, o->ctx, &err))) {
		fprintf(stderr, "cordon: %s\n", err);
		*status = 2;
	} else if (cordon_evaluator_check_layers(ev, &err) != 0) {
		/* Under a managed layer, a plan wider than the managed layer's
		 * is no plan: the call does not start. */
		fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: %s\n", err);
		cordon_evaluator_free(ev);
		ev = NULL;
	} else if ((*status = macos_decide(o, ev)) != 0) {
		cordon_evaluator_free(ev);
		ev = NULL;
	}
	free(err);
	return ev;
}

/* The profile of a sandboxed call, applied once to /usr/bin/true; the
 * limits checked.  One lowering input serves the profile, the limits and
 * the environment, with the host read once for it.  NULL after saying why. */
static cordon_lowering *macos_lowering(cordon_evaluator *ev, bool sandboxed, char **profile)
{
	char *err = NULL;
	size_t len;
	if (sandboxed && access(sandbox_exec, X_OK) != 0) {
		fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: %s is missing\n", sandbox_exec);
		return NULL;
	}
	cordon_lowering *in = cordon_lowering_new(ev, NULL, 0, &err);
	if (!in)
		goto fail;
	cordon_lowering_read_host(in);
	if (sandboxed && (!(*profile = cordon_lowering_sbpl(in, &len, &err)) ||
			  profile_applies(*profile, &err) != 0))
		goto fail;
	if (macos_limits_check(in) != 0) {
		cordon_lowering_free(in);
		return NULL;
	}
	return in;
fail:
	fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: %s\n", err);
	free(err);
	cordon_lowering_free(in);
	return NULL;
}

/* In the child: its own process group, the limits, then the command under
 * sandbox-exec (or sh -c); never returns. */
static void macos_child(const struct run_opts *o, const cordon_lowering *in, char *profile,
			bool sandboxed, char **envp)
{
	setpgid(0, 0);
	macos_limits_apply(in);
	size_t n = 0;
	while (o->argv[n])
		n++;
	char **v = xcalloc(n + 8, sizeof(*v));
	size_t k = 0;
	if (sandboxed) {
		v[k++] = (char *)sandbox_exec;
		v[k++] = (char *)"-p";
		v[k++] = profile;
	}
	if (o->shell) {
		v[k++] = (char *)"/bin/sh";
		v[k++] = (char *)"-c";
	}
	for (size_t i = 0; i < n; i++)
		v[k++] = o->argv[i];
	if (sandboxed || o->shell) {
		execve(v[0], v, envp);
	} else {
		extern char **environ;
		environ = envp; /* the lookup and the program see the policy's */
		execvp(v[0], v);
	}
	fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: cannot run %s: %s\n", v[0], strerror(errno));
	_exit(RUN_UNAVAILABLE);
}

/* Wait for the command, killing its group at the timeout and at its end
 * (what it left running there ends with the call): its status. */
static int macos_wait(const struct run_opts *o, pid_t pid)
{
	int wst = 0;
	double deadline = o->timeout > 0 ? now_seconds() + o->timeout : 0;
	for (;;) {
		pid_t r = waitpid(pid, &wst, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: waitpid: %s\n", strerror(errno));
			kill(-pid, SIGKILL);
			return RUN_UNAVAILABLE;
		}
		if (deadline && now_seconds() >= deadline) {
			kill(-pid, SIGKILL);
			while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
				;
			return RUN_TIMEOUT;
		}
		usleep(10000);
	}
	kill(-pid, SIGKILL);
	int status = WIFEXITED(wst) ? WEXITSTATUS(wst) : 128 + WTERMSIG(wst);
	if (o->outcome)
		snprintf(o->outcome, RUN_OUTCOME_SIZE, "exit:%d", status);
	return status;
}

int run_command(const struct run_opts *o)
{
	cordon_evaluator *ev = NULL;
	cordon_lowering *in = NULL;
	char *profile = NULL, *tmp = NULL;
	char **envp = NULL;
	int status = macos_unsupported(o);
	if (status != 0)
		return status;
	status = RUN_UNAVAILABLE;
	if (!(tmp = make_call_tmp()) || !(ev = macos_evaluator(o, tmp, &status)))
		goto out;
	status = RUN_UNAVAILABLE;
	bool sandboxed = cordon_evaluator_sandboxed(ev);
	if (!(in = macos_lowering(ev, sandboxed, &profile)))
		goto out;
	envp = cordon_lowering_environ(in);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: fork: %s\n", strerror(errno));
		goto out;
	}
	if (pid == 0)
		macos_child(o, in, profile, sandboxed, envp);
	setpgid(pid, pid); /* as the child does: no window where the group is not there */
	status = macos_wait(o, pid);
out:
	if (tmp)
		remove_tree(tmp);
	cordon_lowering_free(in);
	run_free_argv(envp);
	free(tmp);
	free(profile);
	cordon_evaluator_free(ev);
	return status;
}
#endif
