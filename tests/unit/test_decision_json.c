/* Strings in decisions are written (json_write.h) as jansson writes them:
 * every byte value alone and amid text, escapes, valid and invalid UTF-8;
 * and whole decisions of the embedded policy parse back to what they say. */
#include "config.h"

#include "cordon.h"
#include "base/json_write.h"
#include "tap.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* What the decision writer did before: jansson, with a string that is not
 * UTF-8 made lossy (bytes from 0x80 up as '?'). */
static char *by_jansson(const char *s)
{
	json_t *j = json_string(s);
	if (!j) {
		char *copy = xstrdup(s);
		for (char *p = copy; *p; p++)
			if ((unsigned char)*p >= 0x80)
				*p = '?';
		j = json_string(copy);
		free(copy);
	}
	char *out = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(j);
	return out;
}

static bool same(const char *s)
{
	struct strbuf sb;
	sb_init(&sb);
	json_add_string(&sb, s);
	char *want = by_jansson(s);
	bool eq = want && strcmp(sb.buf, want) == 0;
	if (!eq)
		printf("#   got %s, jansson %s\n", sb.buf, want ? want : "(null)");
	free(want);
	sb_free(&sb);
	return eq;
}

int main(void)
{
	size_t differ = 0;
	for (int c = 1; c < 256; c++) {
		char s[8] = { 'a', (char)c, 'b', 0 }, t[2] = { (char)c, 0 };
		differ += !same(s) + !same(t);
	}
	ok(differ == 0, "every byte value, alone and between letters");
	static const char *const cases[] = {
		"", "plain", "a\"b\\c", "tab\there\nnewline\r\f\b", "\x01\x1f\x7f",
		"caf\xc3\xa9", "\xe2\x82\xac euro", "\xf0\x9f\x98\x80", "bad \xc3", "\xc0\xaf overlong",
		"\xed\xa0\x80 surrogate", "\xf4\x90\x80\x80 too big", "mixed \xc3\xa9 and \xff",
		"/path/with/slashes", "\\u0000 text",
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		ok(same(cases[i]), "string %zu", i);

	/* Whole decisions: they parse, and say what the accessors say. */
	cordon_policy *pol = cordon_policy_load_embedded();
	cordon_context *ctx = cordon_context_new();
	char *err = NULL;
	static const char *const vars[][2] = {
		{ "workspace", "/nonexistent-ws" }, { "cwd", "/nonexistent-ws" },
		{ "home", "/nonexistent-home" },    { "tmp", "/nonexistent-tmp" },
		{ "user", "u" },                    { "agent_dir", "/nonexistent-home/.cordon" },
		{ "session_dir", "/nonexistent-home/.cordon/s1" },
	};
	for (size_t i = 0; i < sizeof(vars) / sizeof(*vars); i++)
		cordon_context_set(ctx, vars[i][0], vars[i][1], &err);
	cordon_evaluator *ev = cordon_evaluator_new(pol, "workspace-write", ctx, &err);
	ok(ev != NULL, "an evaluator of the default policy%s%s", ev ? "" : ": ", ev ? "" : err);
	static const struct cordon_request reqs[] = {
		{ .op = CORDON_READ, .target = "/nonexistent-ws/src/a.c" },
		{ .op = CORDON_WRITE, .target = "/nonexistent-home/.ssh/id_ed25519" },
		{ .op = CORDON_EXEC, .target = "rm -rf \"$HOME\" && echo '\t\"x\"' > /tmp/\xc3\xa9" },
		{ .op = CORDON_NET, .target = "example.com" },
	};
	for (size_t i = 0; ev && i < sizeof(reqs) / sizeof(*reqs); i++) {
		struct cordon_request r = reqs[i];
		r.target_len = strlen(r.target);
		cordon_decision *d = cordon_evaluate(ev, &r, &err);
		char *s = d ? cordon_decision_json(d) : NULL;
		json_error_t je;
		json_t *j = s ? json_loads(s, 0, &je) : NULL;
		json_t *ops = json_object_get(j, "operations");
		ok(j && !strcmp(json_string_value(json_object_get(j, "decision")),
				cordon_effect_name(cordon_decision_effect(d))) &&
			   json_array_size(ops) == cordon_decision_operation_count(d),
		   "request %zu: the JSON parses and says the decision and its %zu operations", i,
		   d ? cordon_decision_operation_count(d) : 0);
		json_decref(j);
		free(s);
		cordon_decision_free(d);
	}
	cordon_evaluator_free(ev);
	cordon_context_free(ctx);
	cordon_policy_free(pol);
	free(err);
	return tap_done();
}
