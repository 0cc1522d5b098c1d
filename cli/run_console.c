/* cordon run under `approval console`: a command that asks is put to the
 * approval console before the runner starts, and a yes makes the call an
 * approved one (--approved --preview DIGEST, actor "console"): the runner
 * binds the approval to the preview the person saw and grants exactly it.
 * No console, a timeout, a deny or any error: the command does not run,
 * and cordon run exits with its ask status. */
#include "config.h"

#include "cli.h"
#include "run.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void audit(const struct run_opts *o, const char *target, const char *actor,
		  const char *outcome, const char *reason)
{
	struct cordon_audit_record rec = { .preset = o->preset, .op = "exec", .target = target,
					   .decision = "ask", .reason = reason, .actor = actor,
					   .outcome = outcome };
	char *err = NULL;
	if (o->audit && cordon_audit_append(o->audit, &rec, &err) != 0) {
		fprintf(stderr, "cordon: %s\n", err);
		free(err);
	}
}

/* The command as the person reads it: the shell string, or the argv's
 * words joined by spaces. */
static char *request_text(const struct run_opts *o)
{
	size_t len = 1;
	for (char **w = o->argv; *w; w++)
		len += strlen(*w) + 1;
	char *s = calloc(1, len);
	if (!s)
		abort();
	for (char **w = o->argv; *w; w++) {
		if (w != o->argv)
			strcat(s, " ");
		strcat(s, *w);
	}
	return s;
}

/* Ask the console about decision d; 0 on a yes with *actor. */
static int ask_console(const cordon_evaluator *ev, const struct run_opts *o,
		       const cordon_decision *d, const char *text, char **actor)
{
	const char *session_dir = cordon_context_get(o->ctx, "session_dir");
	if (session_dir && cordon_effects_granted(session_dir, &d, 1)) {
		*actor = strdup("session-grant");
		return 0;
	}
	/* The file given with -p, where "remember for the project" writes;
	 * none (the built-in default) leaves that answer refused. */
	char policy_real[PATH_MAX];
	const char *policy_file = o->policy_path && realpath(o->policy_path, policy_real)
					  ? policy_real
					  : NULL;
	struct cordon_console_ask ask = { .agent = "run", .request = text, .decisions = &d,
					  .ndecisions = 1, .in_sandbox = true,
					  .policy_file = policy_file };
	enum cordon_console_answer ans;
	char *err = NULL;
	if (cordon_console_ask(ev, &ask, cordon_evaluator_console_timeout(ev), &ans, actor,
			       &err) != 0) {
		fprintf(stderr, "cordon: the approval console: %s\n", err);
		audit(o, text, "console", "console-refused", err);
		free(err);
		return -1;
	}
	audit(o, text, *actor, ans == CORDON_CONSOLE_DENY ? "denied" : "approved",
	      ans == CORDON_CONSOLE_SESSION ? "approved for the session" : NULL);
	if (ans == CORDON_CONSOLE_DENY) {
		fprintf(stderr, "cordon: denied by %s in the approval console\n", *actor);
		return -1;
	}
	if (ans == CORDON_CONSOLE_SESSION &&
	    (!session_dir || cordon_grant_effects(session_dir, &d, 1, *actor, &err) != 0)) {
		fprintf(stderr, "cordon: the session grant: %s\n", err ? err : "no session dir");
		free(err);
		return -1;
	}
	if (ans == CORDON_CONSOLE_SESSION)
		audit(o, text, *actor, "granted-session", session_dir);
	/* The console wrote the rules into the file; this call runs approved
	 * once, against the preview the person saw. */
	if (ans == CORDON_CONSOLE_PROJECT)
		audit(o, text, *actor, "remembered-project", policy_file);
	return 0;
}

int run_console(struct run_opts *o, char **actor, char **digest)
{
	char *err = NULL;
	*actor = *digest = NULL;
	if (o->approval || o->approved)
		return EXIT_OK;
	/* Anything that fails here fails the same way in the runner, which
	 * says so: only a command that asks is the console's. */
	cordon_evaluator *ev = cordon_evaluator_new(o->policy, o->preset, o->ctx, &err);
	struct cordon_request req = run_exec_request(o);
	req.sandboxed = true;
	cordon_decision *d = ev && cordon_evaluator_console_timeout(ev)
				     ? cordon_evaluate(ev, &req, &err)
				     : NULL;
	int status = EXIT_OK;
	if (d && cordon_decision_effect(d) == CORDON_ASK) {
		char *text = request_text(o);
		if (ask_console(ev, o, d, text, actor) != 0) {
			run_refuse(o, d, CORDON_ASK, NULL);
			status = RUN_ASK;
		} else {
			/* Approved as the person saw it: the runner voids it if its
			 * own preview differs. */
			*digest = cordon_decision_preview_digest(d);
			o->approved = true;
			o->preview = *digest;
			o->actor = *actor;
		}
		free(text);
	}
	free(err);
	cordon_decision_free(d);
	cordon_evaluator_free(ev);
	return status;
}
