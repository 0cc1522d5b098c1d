/* A matcher's programs before and after their JIT copies (struct re_jit
 * in lib/ir/match.h): every kind of pattern that compiles a program (a
 * path glob, a bare path regex, a tool glob, an exec word glob and an
 * exec regex, a host glob) is matched against targets it matches and
 * targets it does not, RE_JIT_AFTER * 3 times each, and must answer the
 * same every time: the first answers come from the interpreter, the
 * later ones from the JIT copy.  Where pcre2 has JIT and CORDON_NO_JIT is
 * not 1, the copy must have been made (else the second half of the test
 * is the first again); with CORDON_NO_JIT=1 it must not. */
#include "config.h"

#include "ir/match.h"

#include <stdlib.h>
#include <string.h>

#include "tap.h"

struct jit_case {
	enum ir_op op;
	enum ir_pat_kind kind;
	const char *text, *regex;
	const char *target;
	bool match;
};

static const struct jit_case cases[] = {
	{ IR_READ, IR_PAT_GLOB, "/home/*/ws/**/*.env", NULL, "/home/u/ws/a/b/.env", true },
	{ IR_READ, IR_PAT_GLOB, "/home/*/ws/**/*.env", NULL, "/home/u/ws.env", false },
	{ IR_READ, IR_PAT_GLOB, "/home/*/ws/**/*.env", NULL, "/home/u/x/ws/a.env", false },
	{ IR_WRITE, IR_PAT_REGEX, NULL, "^/srv/p[0-9]+/.*\\.(pem|key)$", "/srv/p12/a/b.key", true },
	{ IR_WRITE, IR_PAT_REGEX, NULL, "^/srv/p[0-9]+/.*\\.(pem|key)$", "/srv/px/a/b.key", false },
	{ IR_TOOL, IR_PAT_GLOB, "mcp__*__read", NULL, "mcp__fs__read", true },
	{ IR_TOOL, IR_PAT_GLOB, "mcp__*__read", NULL, "mcp__fs__write", false },
	{ IR_EXEC, IR_PAT_GLOB, "git push* origin", NULL, "git push-all origin main", true },
	{ IR_EXEC, IR_PAT_GLOB, "git push* origin", NULL, "git pull origin", false },
	{ IR_EXEC, IR_PAT_GLOB, "curl", "--data(-binary)?\\b", "curl --data-binary @x h", true },
	{ IR_EXEC, IR_PAT_GLOB, "curl", "--data(-binary)?\\b", "curl -o x h", false },
	{ IR_NET, IR_PAT_GLOB, "*.example.com:443", NULL, "api.example.com:443", true },
	{ IR_NET, IR_PAT_GLOB, "*.example.com:443", NULL, "API.Example.COM:443", true },
	{ IR_NET, IR_PAT_GLOB, "*.example.com:443", NULL, "example.org:443", false },
};

static bool jit_made(const struct matcher *m)
{
	if (atomic_load(&m->re_jit.code))
		return true;
	for (size_t i = 0; i < m->nwords; i++)
		if (atomic_load(&m->word_jit[i].code))
			return true;
	return false;
}

int main(void)
{
	const char *no_jit = getenv("CORDON_NO_JIT");
	uint32_t have_jit = 0;
	(void)pcre2_config(PCRE2_CONFIG_JIT, &have_jit);
	bool want_jit = have_jit && !(no_jit && strcmp(no_jit, "1") == 0);
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct jit_case *k = &cases[c];
		struct ir_pattern ip = { k->kind, (char *)k->text, (char *)k->regex };
		struct matcher m;
		struct target t;
		char *err = NULL;
		int missing = -1;
		if (matcher_build(&m, k->op, &ip, NULL, &missing, &err) != MATCH_OK ||
		    target_prepare(&t, k->op, k->target, strlen(k->target), &err) != 0) {
			ok(0, "'%s' builds: %s", k->text ? k->text : k->regex, err ? err : "");
			free(err);
			continue;
		}
		size_t same = 0, n = 3 * RE_JIT_AFTER;
		for (size_t i = 0; i < n; i++)
			same += matcher_match(&m, &t, md) == k->match;
		ok(same == n, "'%s' %s '%s' all %zu times (%zu)", k->text ? k->text : k->regex,
		   k->match ? "matches" : "does not match", k->target, n, same);
		ok(jit_made(&m) == want_jit, "its JIT copy %s", want_jit ? "made" : "not made");
		target_free(&t);
		matcher_free(&m);
	}
	pcre2_match_data_free(md);
	return tap_done();
}
