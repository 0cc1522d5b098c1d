/* The macOS runner: sandbox-exec with the lowered Seatbelt profile.  Built
 * only on macOS; restricted presets fail closed when /usr/bin/sandbox-exec
 * is missing or refuses the profile. */
#ifdef __APPLE__
#include "config.h"

#include "lower.h"
#include "rlimit.h"
#include "run.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char sandbox_exec[] = "/usr/bin/sandbox-exec";

/* A preset's limits here: the rlimits, set in the child before it execs
 * sandbox-exec (macOS counts RLIMIT_NPROC over all of the user's
 * processes); memory has no cgroup to go to, so a memory limit that is not
 * best_effort stops the call.  -1 after printing why. */
static int macos_limits_check(const struct lower_input *in)
{
	const struct lower_limit *mem = lower_limit_find(in, IR_LIMIT_MEMORY);
	if (mem && !mem->best_effort) {
		fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: %s: the memory limit needs a cgroup, "
				"which macOS does not have; write 'memory ... best_effort;' to run "
				"without it\n",
			mem->origin);
		return -1;
	}
	return 0;
}

static void macos_limits_apply(const struct lower_input *in)
{
	for (size_t i = 0; i < in->nlimits; i++) {
		struct run_rlimit r = { 0, in->limits[i].value };
		if (run_rlimit_for(in->limits[i].which, &r.resource) && run_rlimit_apply(&r) != 0) {
			fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: setrlimit: %s\n", strerror(errno));
			_exit(RUN_UNAVAILABLE);
		}
	}
}

char *run_find_helper(void)
{
	return NULL; /* Seatbelt needs no in-sandbox helper */
}

void run_probe(struct probe_result *r, bool launch)
{
	memset(r, 0, sizeof(*r));
	if (access(sandbox_exec, X_OK) == 0)
		r->bwrap_path = xstrdup(sandbox_exec);
	if (r->bwrap_path && launch) {
		pid_t pid = fork();
		int st = -1;
		if (pid == 0) {
			execl(sandbox_exec, sandbox_exec, "-p", "(version 1)(allow default)", "/usr/bin/true",
			      (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, &st, 0);
		r->userns = pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
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
}

int run_command(const struct run_opts *o)
{
	cordon_evaluator *ev = NULL;
	struct lower_input in;
	bool have_in = false;
	char *err = NULL, *profile = NULL, *tmp = NULL;
	size_t len;
	int status = RUN_UNAVAILABLE, wst = 0;
	pid_t pid;
	char tmpl[] = "/tmp/cordon-call-XXXXXX";

	if (o->redact) {
		/* Unredacted output must not pass for redacted. */
		fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: --redact is not supported by the macOS "
				"runner yet\n");
		return RUN_UNAVAILABLE;
	}
	if (o->check_links) {
		/* A check asked for and not made must not pass for one made. */
		fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: --check-links is not supported by the "
				"macOS runner yet\n");
		return RUN_UNAVAILABLE;
	}
	if (!(tmp = mkdtemp(tmpl)) || cordon_context_set(o->ctx, "tmp", tmp, &err) != 0) {
		fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: cannot make a private temp dir\n");
		goto out;
	}
	if (!(ev = cordon_evaluator_new(o->policy, o->preset, o->ctx, &err))) {
		fprintf(stderr, "cordon: %s\n", err);
		status = 2;
		goto out;
	}
	/* The command must be allowed before anything runs. */
	{
		struct cordon_request req = run_exec_request(o);
		cordon_decision *d = cordon_evaluate(ev, &req, &err);
		enum cordon_effect e = d ? cordon_decision_effect(d) : CORDON_DENY;
		if (e == CORDON_DENY || (e == CORDON_ASK && !o->approved)) {
			run_refuse(o, d, e, err);
			cordon_decision_free(d);
			status = RUN_DENIED;
			goto out;
		}
		cordon_decision_free(d);
	}
	bool sandboxed = ev->preset->sandbox == IR_SANDBOX_REQUIRED;
	if (sandboxed) {
		if (access(sandbox_exec, X_OK) != 0) {
			fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: %s is missing\n", sandbox_exec);
			goto out;
		}
		if (!(profile = cordon_lower(ev, "sbpl", &len, &err))) {
			fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: %s\n", err);
			goto out;
		}
	}
	if (lower_input_build(ev, &in, &err) != 0) {
		fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: %s\n", err);
		goto out;
	}
	have_in = true;
	if (macos_limits_check(&in) != 0)
		goto out;
	pid = fork();
	if (pid < 0)
		goto out;
	if (pid == 0) {
		setpgid(0, 0);
		macos_limits_apply(&in);
		if (sandboxed) {
			size_t n = 0;
			while (o->argv[n])
				n++;
			char **v = xcalloc(n + 8, sizeof(*v));
			size_t k = 0;
			v[k++] = (char *)sandbox_exec;
			v[k++] = (char *)"-p";
			v[k++] = profile;
			if (o->shell) {
				v[k++] = (char *)"/bin/sh";
				v[k++] = (char *)"-c";
			}
			for (size_t i = 0; i < n; i++)
				v[k++] = o->argv[i];
			execv(sandbox_exec, v);
		} else if (o->shell) {
			execl("/bin/sh", "sh", "-c", o->argv[0], (char *)NULL);
		} else {
			execvp(o->argv[0], o->argv);
		}
		_exit(RUN_UNAVAILABLE);
	}
	time_t deadline = o->timeout > 0 ? time(NULL) + (time_t)o->timeout + 1 : 0;
	for (;;) {
		pid_t r = waitpid(pid, &wst, WNOHANG);
		if (r == pid)
			break;
		if (deadline && time(NULL) >= deadline) {
			kill(-pid, SIGKILL);
			waitpid(pid, &wst, 0);
			status = RUN_TIMEOUT;
			goto out;
		}
		usleep(10000);
	}
	status = WIFEXITED(wst) ? WEXITSTATUS(wst) : 128 + WTERMSIG(wst);
out:
	if (tmp)
		rmdir(tmp);
	if (have_in)
		lower_input_free(&in);
	free(profile);
	free(err);
	cordon_evaluator_free(ev);
	return status;
}
#endif
