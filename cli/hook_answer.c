/* Each agent's hook protocol, and the answer of cordon hook in it: an
 * allow, an ask or a deny with its reason, and the command rewritten to
 * run under cordon run where the protocol lets a hook replace the tool
 * input. */
#include "config.h"

#include "cli.h"
#include "hook.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

const struct hook_proto hook_protos[HOOK_AGENT_COUNT] = {
	[HOOK_CLAUDE] = {
		.name = "claude", .title = "Claude Code", .event = "PreToolUse",
		.shell_tool = "Bash", .dir = ".claude", .file = "settings.json",
		/* Every tool: one the hook does not know (Claude Code adds them
		 * between releases) is decided by the policy as claude:NAME. */
		.matcher = "*",
		.timeout = 30, .can_rewrite = true, .can_ask = true,
		.project_env = "CLAUDE_PROJECT_DIR",
	},
	[HOOK_CODEX] = {
		.name = "codex", .title = "Codex", .event = "PreToolUse",
		.event2 = "PermissionRequest", .shell_tool = "Bash", .dir = ".codex",
		.file = "hooks.json", .matcher = NULL, .timeout = 30,
		.can_rewrite = true, .can_ask = false,
	},
	[HOOK_GEMINI] = {
		.name = "gemini", .title = "Gemini CLI", .event = "BeforeTool",
		.shell_tool = "run_shell_command", .dir = ".gemini", .file = "settings.json",
		.matcher = ".*", .timeout = 30000, .can_rewrite = true, .can_ask = true,
		.project_env = "GEMINI_PROJECT_DIR",
	},
};

const struct hook_proto *hook_proto_find(const char *name)
{
	for (size_t i = 0; i < HOOK_AGENT_COUNT; i++)
		if (strcmp(hook_protos[i].name, name) == 0)
			return &hook_protos[i];
	return NULL;
}

char *hook_shell_quote(const char *word)
{
	size_t n = 3;
	for (const char *s = word; *s; s++)
		n += *s == '\'' ? 4 : 1;
	char *q = malloc(n), *o = q;
	if (!q)
		abort();
	*o++ = '\'';
	for (const char *s = word; *s; s++) {
		if (*s == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *s;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return q;
}

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

