/* The asking side of the approval console: a hook or a run posts its ask
 * to the spool and waits for the console's answer (cordon.h).
 *
 * Whatever goes wrong is a deny: no console (its lock is free), a console
 * that closes while we wait, the time running out, an answer that is not
 * for this ask or this preview, a file that is not ours.  The ask is
 * withdrawn on every way out, and an answer is taken by renaming it away
 * first, so it is used once. */
#include "config.h"

#include "cordon.h"
#include "approval.h"
#include "console.h"
#include "base/digest.h"
#include "base/util.h"
#include "decide/eval.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How often the waiting side looks for the answer and the console. */
#define CONSOLE_POLL_MS 100

static unsigned preset_console_timeout(const struct ir_preset *p)
{
	return p->approval == IR_APPROVAL_CONSOLE ? p->approval_timeout : 0;
}

/* Under a managed layer, its console setting holds whatever the layer
 * under it says, and the shorter time of the two wins. */
unsigned cordon_evaluator_console_timeout(const cordon_evaluator *ev)
{
	unsigned t = preset_console_timeout(ev->preset);
	unsigned m = ev->managed ? preset_console_timeout(ev->managed->preset) : 0;
	return m && (!t || m < t) ? m : t;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* Every operation of every decision, with what approving it grants. */
static json_t *ops_json(const struct cordon_console_ask *ask)
{
	json_t *ops = json_array();
	for (size_t i = 0; i < ask->ndecisions; i++) {
		const cordon_decision *d = ask->decisions[i];
		for (size_t k = 0; k < cordon_decision_operation_count(d); k++) {
			enum cordon_op op;
			enum cordon_effect e;
			const char *target, *reason, *rule, *why = NULL;
			cordon_decision_operation(d, k, &op, &target, &e, &reason, &rule);
			const char *grant = cordon_decision_operation_grant(d, k, &why);
			if (!ask->in_sandbox) {
				grant = "call";
				why = "the agent's tool call goes ahead, this once";
			}
			json_t *o = json_object();
			json_object_set_new(o, "op", json_string(cordon_op_name(op)));
			json_object_set_new(o, "target", str_or_null(target));
			json_object_set_new(o, "detail",
					    str_or_null(cordon_decision_operation_detail(d, k)));
			json_object_set_new(o, "decision", json_string(cordon_effect_name(e)));
			json_object_set_new(o, "rule", str_or_null(rule));
			json_object_set_new(o, "reason", str_or_null(reason));
			json_object_set_new(o, "grant", str_or_null(e == CORDON_ASK ? grant : NULL));
			json_object_set_new(o, "grant_reason",
					    str_or_null(e == CORDON_ASK ? why : NULL));
			json_array_append_new(ops, o);
		}
	}
	return ops;
}

/* What the person sees and answers: the digest covers all of it. */
static json_t *shown_json(const cordon_evaluator *ev, const struct cordon_console_ask *ask)
{
	json_t *o = json_object();
	json_object_set_new(o, "agent", str_or_null(ask->agent));
	json_object_set_new(o, "session", str_or_null(ask->session));
	json_object_set_new(o, "tool", str_or_null(ask->tool));
	json_object_set_new(o, "preset", json_string(ev->preset->name));
	json_object_set_new(o, "workspace", str_or_null(ev->values[CTX_WORKSPACE]));
	json_object_set_new(o, "cwd", str_or_null(ev->values[CTX_CWD]));
	json_object_set_new(o, "session_dir", str_or_null(ev->values[CTX_SESSION_DIR]));
	json_object_set_new(o, "request", str_or_null(ask->request));
	json_object_set_new(o, "diff", str_or_null(ask->diff));
	json_object_set_new(o, "policy", str_or_null(ask->policy_file));
	json_object_set_new(o, "ops", ops_json(ask));
	return o;
}

/* The ask's file: what is shown, its digest, its id and its times. */
static char *ask_text(const cordon_evaluator *ev, const struct cordon_console_ask *ask,
		      const char *id, unsigned timeout, char digest[DIGEST_HEX_LEN + 1])
{
	json_t *o = shown_json(ev, ask);
	char *shown = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	if (!shown) {
		json_decref(o);
		return NULL;
	}
	digest_hex(shown, strlen(shown), digest);
	free(shown);
	long long now = (long long)time(NULL);
	json_object_set_new(o, "id", json_string(id));
	json_object_set_new(o, "digest", json_string(digest));
	json_object_set_new(o, "created", json_integer(now));
	json_object_set_new(o, "expires", json_integer(now + timeout));
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return s;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The answer to ask id, taken (renamed away, read, removed): 1 with it,
 * 0 when there is none yet, -1 with *err for one that is not sound.  The
 * ask is withdrawn from pending/ before its answer is taken: the console
 * checks pending/ after it writes an answer, so an answer it accepted once
 * this one is gone is one it takes back and refuses (404), never a "yes"
 * reported as accepted after the call was decided. */
static int take_answer(int pending, int answers, const char *id, const char *digest,
		       enum cordon_console_answer *answer, char **actor, char **err)
{
	char name[64], taken[64];
	snprintf(name, sizeof(name), "%s.json", id);
	snprintf(taken, sizeof(taken), "%s.taken", id);
	if (faccessat(answers, name, F_OK, AT_SYMLINK_NOFOLLOW) != 0)
		return 0;
	unlinkat(pending, name, 0);
	if (renameat(answers, name, answers, taken) != 0) {
		if (errno == ENOENT)
			return 0;
		*err = xasprintf("cannot take the console's answer: %s", strerror(errno));
		return -1;
	}
	char *text = console_read(answers, taken);
	unlinkat(answers, taken, 0);
	json_t *o = text ? json_loads(text, 0, NULL) : NULL;
	free(text);
	const char *aid = json_string_value(json_object_get(o, "id"));
	const char *adig = json_string_value(json_object_get(o, "digest"));
	const char *word = json_string_value(json_object_get(o, "answer"));
	const char *who = json_string_value(json_object_get(o, "actor"));
	int rc = 1;
	if (!aid || strcmp(aid, id) != 0 || !adig || strcmp(adig, digest) != 0 || !who || !word) {
		*err = xstrdup("the console's answer is not for this ask as it was shown");
		rc = -1;
	} else if (!strcmp(word, "once")) {
		*answer = CORDON_CONSOLE_ONCE;
	} else if (!strcmp(word, "session")) {
		*answer = CORDON_CONSOLE_SESSION;
	} else if (!strcmp(word, "project")) {
		*answer = CORDON_CONSOLE_PROJECT;
	} else {
		*answer = CORDON_CONSOLE_DENY;
	}
	if (rc == 1)
		*actor = xstrdup(who);
	json_decref(o);
	return rc;
}

/* The answer, waited for until the deadline or the console's end.  When
 * the wait ends without one, the ask is withdrawn first and looked for once
 * more: an answer the console accepted before the withdrawal is the one
 * the call gets. */
static int wait_answer(int dfd, int pending, int answers, const char *id, const char *digest,
		       unsigned timeout, enum cordon_console_answer *answer, char **actor,
		       char **err)
{
	long long deadline = now_ms() + (long long)timeout * 1000;
	char name[64];
	snprintf(name, sizeof(name), "%s.json", id);
	for (;;) {
		int got = take_answer(pending, answers, id, digest, answer, actor, err);
		if (got != 0)
			return got > 0 ? 0 : -1;
		bool alive = console_alive(dfd);
		if (alive && now_ms() < deadline) {
			poll(NULL, 0, CONSOLE_POLL_MS);
			continue;
		}
		unlinkat(pending, name, 0);
		got = take_answer(pending, answers, id, digest, answer, actor, err);
		if (got != 0)
			return got > 0 ? 0 : -1;
		*err = alive ? xasprintf("no answer from the approval console within %u s", timeout)
			     : xstrdup("the approval console closed before it answered");
		return -1;
	}
}

/* Post the ask in pending/ and wait; the ask is withdrawn either way. */
static int post_and_wait(int dfd, const cordon_evaluator *ev,
			 const struct cordon_console_ask *ask, unsigned timeout,
			 enum cordon_console_answer *answer, char **actor, char **err)
{
	char id[APPROVAL_ID_LEN + 1], digest[DIGEST_HEX_LEN + 1], name[64];
	int pending = console_subdir(dfd, "pending", err), answers = -1, rc = -1;
	char *text = NULL;
	if (pending < 0 || (answers = console_subdir(dfd, "answers", err)) < 0)
		goto out;
	if (approval_new_id(id, err) != 0)
		goto out;
	if (!(text = ask_text(ev, ask, id, timeout, digest))) {
		*err = xstrdup("the ask cannot be written as JSON (text that is not UTF-8?)");
		goto out;
	}
	snprintf(name, sizeof(name), "%s.json", id);
	if (console_write(pending, name, text, true) != 0) {
		*err = xasprintf("cannot post the ask to the console: %s", strerror(errno));
		goto out;
	}
	rc = wait_answer(dfd, pending, answers, id, digest, timeout, answer, actor, err);
	unlinkat(pending, name, 0);
	unlinkat(answers, name, 0); /* an answer that came too late */
out:
	free(text);
	if (pending >= 0)
		close(pending);
	if (answers >= 0)
		close(answers);
	return rc;
}

int cordon_console_ask(const cordon_evaluator *ev, const struct cordon_console_ask *ask,
		       unsigned timeout, enum cordon_console_answer *answer, char **actor,
		       char **err)
{
	*answer = CORDON_CONSOLE_DENY;
	*actor = NULL;
	*err = NULL;
	if (timeout == 0) {
		*err = xstrdup("the preset sends no asks to the approval console");
		return -1;
	}
	const char *agent_dir = ev->values[CTX_AGENT_DIR];
	int dfd = console_open(agent_dir, false, err);
	if (dfd < 0) {
		free(*err);
		*err = xasprintf("no approval console runs for %s (start one with cordon serve)",
				 agent_dir ? agent_dir : "(no agent dir)");
		return -1;
	}
	int rc = -1;
	if (!console_alive(dfd))
		*err = xasprintf("no approval console runs for %s (start one with cordon serve)",
				 agent_dir);
	else
		rc = post_and_wait(dfd, ev, ask, timeout, answer, actor, err);
	close(dfd);
	if (rc != 0) {
		*answer = CORDON_CONSOLE_DENY;
		free(*actor);
		*actor = NULL;
	}
	return rc;
}
