/* cordon hook under `approval console`: a call that asks is put to the
 * approval console (cordon serve), and the hook waits for the person's
 * answer instead of leaving the ask to the agent.
 *
 * Anything but a yes is a deny: no console, a timeout, a closed console,
 * an answer that is not for this preview, a grant or an approval that
 * cannot be written.  A yes for a shell command mints the same single-use
 * approval `cordon approve exec` mints, bound to the preview the person
 * saw, and the command is rewritten to consume it; a yes for any other
 * call is the hook's allow for that one call. */
#include "config.h"

#include "cli.h"
#include "cordon_tools.h"
#include "hook.h"

#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void audit_answer(cordon_audit *log, const struct hook_console_call *call,
			 const char *actor, const char *outcome, const char *reason,
			 const char *approval)
{
	if (!log)
		return;
	struct cordon_audit_record rec = { .preset = call->preset, .op = call->op,
					   .target = call->request, .decision = "ask",
					   .reason = reason, .approval = approval, .actor = actor,
					   .outcome = outcome };
	char *err = NULL;
	if (cordon_audit_append(log, &rec, &err) != 0)
		hook_block("the audit log: %s", err ? err : "cannot be written");
}

/* The single-use approval of the rewritten command (`bash -c COMMAND` in
 * cordon run), only if its preview is still the one the person saw. */
static char *mint_approval(const cordon_evaluator *ev, const struct hook_console_call *call,
			   const char *actor, char **err)
{
	const char *argv[] = { "bash", "-c", call->command };
	struct cordon_request req = { .op = CORDON_EXEC, .argv = argv, .argc = 3,
				      .sandboxed = true };
	cordon_decision *d = cordon_evaluate(ev, &req, err);
	char *now = d ? cordon_decision_preview_digest(d) : NULL;
	cordon_decision_free(d);
	if (!now || !call->digest || strcmp(now, call->digest) != 0) {
		free(now);
		if (!*err)
			*err = strdup("the preview changed since it was shown");
		return NULL;
	}
	free(now);
	enum cordon_effect effect = CORDON_DENY;
	char *id = cordon_approve_exec(ev, &req, 0, actor, &effect, NULL, err);
	if (!id && !*err)
		*err = strdup("no approval could be made for the command");
	return id;
}

/* What a yes does: a session grant first when asked for, then the
 * approval of a rewritten command.  0, or -1 with *err. */
static int grant_yes(const cordon_evaluator *ev, const struct hook_console_call *call,
		     enum cordon_console_answer ans, const char *actor, cordon_audit *log,
		     char **approval, char **err)
{
	if (ans == CORDON_CONSOLE_SESSION) {
		if (!call->session_dir || cordon_grant_effects(call->session_dir, call->decisions,
							       call->ndecisions, actor, err) != 0)
			return -1;
		audit_answer(log, call, actor, "granted-session", call->session_dir, NULL);
	}
	if (ans == CORDON_CONSOLE_PROJECT)
		audit_answer(log, call, actor, "remembered-project", call->ask.policy_file, NULL);
	if (!call->command)
		return 0; /* the hook's allow is the grant: the agent's one call */
	/* The rules the console wrote allow the command now: cordon run
	 * decides it again with the file as it is.  An approval minted here
	 * would be bound to the preview under the file as it was, and void. */
	if (ans == CORDON_CONSOLE_PROJECT)
		return 0;
	if (!(*approval = mint_approval(ev, call, actor, err)))
		return -1;
	audit_answer(log, call, actor, "approval-issued", NULL, *approval);
	return 0;
}

enum cordon_effect hook_console(const cordon_evaluator *ev, const struct hook_console_call *call,
				cordon_audit *log, char **approval, char **why)
{
	enum cordon_console_answer ans = CORDON_CONSOLE_DENY;
	char *actor = NULL, *err = NULL;
	int rc;
	*approval = NULL;
	*why = NULL;
	if (call->session_dir &&
	    cordon_effects_granted(call->session_dir, call->decisions, call->ndecisions)) {
		actor = strdup("session-grant");
		ans = CORDON_CONSOLE_ONCE;
		rc = 0;
	} else {
		/* The smaller of the preset's time and the hook's own, less a
		 * margin: the hook answers deny before its alarm, and so
		 * before the agent, which waits longer (hook_protos), gives up
		 * on it. */
		unsigned t = cordon_evaluator_console_timeout(ev);
		unsigned own = call->hook_timeout > 2 ? call->hook_timeout - 2 : 1;
		rc = cordon_console_ask(ev, &call->ask, t < own ? t : own, &ans, &actor, &err);
	}
	if (rc != 0) {
		audit_answer(log, call, "console", "console-refused", err, NULL);
		*why = err;
		return CORDON_DENY;
	}
	audit_answer(log, call, actor, ans == CORDON_CONSOLE_DENY ? "denied" : "approved",
		     ans == CORDON_CONSOLE_SESSION   ? "approved for the session"
		     : ans == CORDON_CONSOLE_PROJECT ? "approved once, remembered for the project"
						     : NULL,
		     NULL);
	if (ans == CORDON_CONSOLE_DENY) {
		if (asprintf(why, "denied by %s in the approval console", actor) < 0)
			*why = NULL;
	} else if (grant_yes(ev, call, ans, actor, log, approval, &err) != 0) {
		audit_answer(log, call, actor, "approval-failed", err, NULL);
		*why = err;
		ans = CORDON_CONSOLE_DENY;
	} else if (asprintf(why, "approved by %s%s", actor,
			    ans == CORDON_CONSOLE_SESSION   ? " for the session"
			    : ans == CORDON_CONSOLE_PROJECT ? ", and remembered for the project "
							      "in the policy file"
							    : "") < 0) {
		*why = NULL;
	}
	free(actor);
	return ans == CORDON_CONSOLE_DENY ? CORDON_DENY : CORDON_ALLOW;
}

/* The file as it is now, for the diff of a write: a regular file read
 * without following a link, at most 1 MiB; "" when there is none. */
static char *current_text(const char *path, size_t *len)
{
	enum { MAX = 1 << 20 };
	*len = 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *text = NULL;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < MAX &&
	    (text = malloc((size_t)st.st_size + 1))) {
		ssize_t n = read(fd, text, (size_t)st.st_size);
		*len = n > 0 ? (size_t)n : 0;
	}
	if (fd >= 0)
		close(fd);
	return text ? text : strdup("");
}

char *hook_write_diff(json_t *in)
{
	const char *path = json_string_value(json_object_get(in, "file_path"));
	const char *content = json_string_value(json_object_get(in, "content"));
	const char *old_s = json_string_value(json_object_get(in, "old_string"));
	const char *new_s = json_string_value(json_object_get(in, "new_string"));
	char *err = NULL, *diff = NULL, *old = NULL;
	size_t old_len = 0;
	if (!path)
		return NULL;
	if (content) {
		old = current_text(path, &old_len);
		diff = cordon_line_diff(path, old, old_len, path, content, strlen(content), NULL,
					&err);
	} else if (old_s && new_s) {
		diff = cordon_line_diff(path, old_s, strlen(old_s), path, new_s, strlen(new_s), NULL,
					&err);
	}
	free(old);
	free(err);
	return diff;
}
