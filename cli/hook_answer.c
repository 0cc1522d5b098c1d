/* The answer of cordon hook in each agent's protocol: an allow, an ask or
 * a deny with its reason, and the command rewritten to run under cordon
 * run where the protocol lets a hook replace the tool input. */
#include "config.h"

#include "cli.h"
#include "hook.h"

#include <jansson.h>
#include <string.h>

static json_t *updated_input(json_t *in, const char *key, const char *command)
{
	json_t *u = json_deep_copy(in);
	if (!u || json_object_set_new(u, key, json_string(command)) != 0)
		hook_block("out of memory");
	return u;
}

json_t *hook_answer_claude(const char *event, enum cordon_effect e, const char *why,
				    json_t *in, const char *rewritten)
{
	json_t *h = json_pack("{s:s, s:s, s:s}", "hookEventName", event, "permissionDecision",
			      cordon_effect_name(e), "permissionDecisionReason", why);
	if (!h)
		hook_block("out of memory");
	if (rewritten && e != CORDON_DENY)
		json_object_set_new(h, "updatedInput", updated_input(in, "command", rewritten));
	return json_pack("{s:o}", "hookSpecificOutput", h);
}

json_t *hook_answer_codex(const char *event, enum cordon_effect e, const char *why,
			   json_t *in, const char *rewritten)
{
	if (strcmp(event, "PermissionRequest") == 0) {
		/* An ask stays the person's: a quiet hook leaves Codex's own prompt. */
		if (e == CORDON_ASK)
			return NULL;
		json_t *dec = e == CORDON_ALLOW ? json_pack("{s:s}", "behavior", "allow")
						: json_pack("{s:s, s:s}", "behavior", "deny",
							    "message", why);
		return json_pack("{s:{s:s, s:o}}", "hookSpecificOutput", "hookEventName", event,
				 "decision", dec);
	}
	/* PreToolUse: Codex takes an allow only with updatedInput (the command
	 * inside cordon run); any other allow is silence, which lets the call
	 * go on.  It cannot ask: an ask arrives here as a deny. */
	if (e == CORDON_ALLOW && rewritten)
		return json_pack("{s:{s:s, s:s, s:s, s:o}}", "hookSpecificOutput", "hookEventName",
				 event, "permissionDecision", "allow", "permissionDecisionReason", why,
				 "updatedInput", updated_input(in, "command", rewritten));
	if (e == CORDON_ALLOW)
		return NULL;
	return json_pack("{s:{s:s, s:s, s:s}}", "hookSpecificOutput", "hookEventName", event,
			 "permissionDecision", "deny", "permissionDecisionReason", why);
}

json_t *hook_answer_gemini(enum cordon_effect e, const char *why, json_t *in,
			    const char *rewritten)
{
	if (e == CORDON_DENY)
		return json_pack("{s:s, s:s}", "decision", "deny", "reason", why);
	/* Gemini CLI shows its own confirmation for an ask, with the preview. */
	json_t *out = e == CORDON_ASK ? json_pack("{s:s, s:s, s:s}", "decision", "ask", "reason", why,
						  "systemMessage", why)
				      : json_pack("{s:s}", "decision", "allow");
	/* tool_input merges over the model's arguments: dir_path and the rest
	 * stay, the command becomes the one inside cordon run. */
	if (rewritten)
		json_object_set_new(out, "hookSpecificOutput",
				    json_pack("{s:s, s:o}", "hookEventName", "BeforeTool",
					      "tool_input", updated_input(in, "command", rewritten)));
	return out;
}

