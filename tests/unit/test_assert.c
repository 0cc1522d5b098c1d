/* `assert never` against the evaluator, on random policies.
 *
 * Each case writes a random policy of rules over a small vocabulary of
 * literal paths, globs and context variables for reads and writes, and of
 * commands, hosts and tools for the other operations (two presets,
 * one extending the other, top-level rules, a protection now and then,
 * either approval), adds one random assertion, and compiles it.  When the
 * assertion holds (the policy loads), every target it names, a child and a
 * grandchild of it must be denied by the evaluator in every preset under a
 * fixed context: the analysis must never miss what the evaluator grants.
 * When it fails, nothing is checked (the analysis may over-report, and a
 * violation may need another context or a target deeper inside); how often
 * the evaluator grants the named target itself is printed with the counts,
 * and held and failed must each be a fair share of the cases.
 *
 * CORDON_ASSERT_SEED and CORDON_ASSERT_CASES change the run. */
#include "config.h"

#include "cordon.h"
#include "tap.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rng_state >> 33) % n);
}

static const char *const rule_paths[] = {
	"/a", "/a/b", "/a/b/c", "/a/*", "/a/**", "/a/b/**", "/a/*/c", "/a/b*", "/b",
	"/b/**", "/**", "/a/b/c.txt", "${workspace}", "${workspace}/a", "~/x", "~", "/home/u/x",
};
/* Literal targets, or a directory and all below it (a final double star). */
static const char *const assert_paths[] = {
	"/a/b/c", "/a/b", "/a", "/b/x", "/ws/a", "/home/u/x/y", "/a/**", "/a/b/**", "~/x",
	"${workspace}/a/**", "/c",
};
static const char *const effects[] = { "allow", "ask", "deny" };
static const char *const ops[] = { "read", "write", "exec", "net", "tool" };

/* Rules and assertion targets of the other operations, as written. */
static const char *const rule_words[][6] = {
	[2] = { "\"*\"", "\"git\"", "\"git push\"", "\"rm\"", "\"git push\" /--force/", "opaque" },
	[3] = { "\"*\"", "\"*.example.com\"", "\"api.example.com\"", "\"api.example.com:443\"",
		"\"example.com\"", "\"*:22\"" },
	[4] = { "\"*\"", "\"mcp:*\"", "\"mcp:github/*\"", "\"mcp:github/x\"", "\"x\"", "/^mcp:/" },
};
static const char *const assert_words[][4] = {
	[2] = { "git push --force", "rm -rf /", "ls", "git status" },
	[3] = { "api.example.com:443", "x.example.com", "example.com:22", "other.org" },
	[4] = { "mcp:github/x", "mcp:y", "x", "y" },
};

#define ARRAY_LEN (sizeof(rule_paths) / sizeof(rule_paths[0]))

static void add_rules(FILE *f, unsigned n, int op)
{
	for (unsigned i = 0; i < n; i++) {
		/* Mostly rules of the assertion's operation, some of the others. */
		int o = rnd(4) ? op : (int)rnd(5);
		if (o < 2)
			fprintf(f, "  %s \"%s\" %s;\n", ops[o], rule_paths[rnd(ARRAY_LEN)],
				effects[rnd(3)]);
		else
			fprintf(f, "  %s %s %s;\n", ops[o], rule_words[o][rnd(6)],
				effects[rnd(3)]);
	}
}

/* The absolute target of an assertion path under the test context. */
static void expand(const char *in, char *out, size_t size)
{
	if (in[0] == '~')
		snprintf(out, size, "/home/u%s", in + 1);
	else if (strncmp(in, "${workspace}", 12) == 0)
		snprintf(out, size, "/ws%s", in + 12);
	else
		snprintf(out, size, "%s", in);
	size_t n = strlen(out);
	if (n >= 3 && strcmp(out + n - 3, "/**") == 0)
		out[n - 3] = '\0';
}

static bool denied(cordon_evaluator *ev, int op, const char *path, char *why, size_t size)
{
	struct cordon_request req = { .op = op, .target = path, .canonical = op < 2 };
	char *err = NULL;
	cordon_decision *d = cordon_evaluate(ev, &req, &err);
	bool r = d && cordon_decision_effect(d) == CORDON_DENY;
	if (!r)
		snprintf(why, size, "%s by %s", d ? cordon_effect_name(cordon_decision_effect(d)) : err,
			 d && cordon_decision_rule(d) ? cordon_decision_rule(d) : "no rule");
	cordon_decision_free(d);
	free(err);
	return r;
}

int main(void)
{
	const char *seed_env = getenv("CORDON_ASSERT_SEED");
	const char *cases_env = getenv("CORDON_ASSERT_CASES");
	unsigned cases = cases_env ? (unsigned)atoi(cases_env) : 400;
	unsigned held = 0, reported = 0, probes = 0, misses = 0, confirmed = 0;
	cordon_context *ctx = cordon_context_new();
	char *err = NULL;

	rng_state = seed_env ? strtoull(seed_env, NULL, 10) : 20261129;
	cordon_context_set(ctx, "workspace", "/ws", &err);
	cordon_context_set(ctx, "home", "/home/u", &err);
	cordon_context_set(ctx, "agent_dir", "/a/b", &err);
	cordon_context_set(ctx, "session_dir", "/a/b/s", &err);
	cordon_context_set(ctx, "tmp", "/tmp/t", &err);

	for (unsigned k = 0; k < cases; k++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		int op = (int)rnd(5);
		const char *target = op < 2 ? assert_paths[rnd(sizeof(assert_paths) /
							      sizeof(assert_paths[0]))]
					    : assert_words[op][rnd(4)];

		fputs("cordon 1;\n", f);
		if (rnd(3) == 0)
			fputs("protect \"${agent_dir}\";\n", f);
		add_rules(f, rnd(2), op);
		fprintf(f, "preset \"base\" {\n  approval %s;\n", rnd(3) ? "ask" : "never");
		add_rules(f, 2 + rnd(4), op);
		fprintf(f, "}\npreset \"child\" extends \"base\" {\n  approval %s;\n",
			rnd(3) ? "ask" : "never");
		add_rules(f, rnd(3), op);
		fputs("}\n", f);
		fflush(f);
		size_t base_len = len;
		fprintf(f, "assert never %s \"%s\";\n", ops[op], target);
		fclose(f);

		/* Without its assertion, the policy is valid. */
		cordon_policy *p = cordon_policy_load_string("case.cordon", NULL, text, base_len);
		if (cordon_policy_error_count(p)) {
			ok(0, "case %u: the random policy is valid\n%s", k, text);
			cordon_policy_free(p);
			free(text);
			continue;
		}
		cordon_policy_free(p);
		p = cordon_policy_load_string("case.cordon", NULL, text, len);
		if (cordon_policy_error_count(p)) {
			reported++;
			/* How often the evaluator agrees under this one context. */
			cordon_policy *plain = cordon_policy_load_string("case.cordon", NULL, text,
									 base_len);
			char probe[300], why[512];
			bool granted = false;
			if (op < 2)
				expand(target, probe, sizeof(probe));
			else
				snprintf(probe, sizeof(probe), "%s", target);
			for (size_t i = 0; i < cordon_policy_preset_count(plain) && !granted; i++) {
				cordon_evaluator *ev = cordon_evaluator_new(
					plain, cordon_policy_preset_name(plain, i), ctx, &err);
				granted = ev && !denied(ev, op, probe, why, sizeof(why));
				cordon_evaluator_free(ev);
			}
			confirmed += granted;
			cordon_policy_free(plain);
		} else {
			char dir[256], probe[300], why[512];
			held++;
			if (op < 2)
				expand(target, dir, sizeof(dir));
			else
				snprintf(dir, sizeof(dir), "%s", target);
			for (size_t i = 0; i < cordon_policy_preset_count(p); i++) {
				const char *preset = cordon_policy_preset_name(p, i);
				cordon_evaluator *ev = cordon_evaluator_new(p, preset, ctx, &err);
				if (!ev) {
					ok(0, "case %u: evaluator for %s: %s", k, preset, err);
					free(err);
					err = NULL;
					continue;
				}
				for (int depth = 0; depth < (op < 2 ? 3 : op == 2 ? 2 : 1); depth++) {
					if (op < 2)
						snprintf(probe, sizeof(probe), "%s%s",
							 strcmp(dir, "/") ? dir : "",
							 depth == 0 ? "" : depth == 1 ? "/k" : "/k/m");
					else
						snprintf(probe, sizeof(probe), "%s%s", dir,
							 depth ? " x" : "");
					probes++;
					if (!denied(ev, op, probe, why, sizeof(why))) {
						misses++;
						ok(0, "case %u: the assertion holds, yet preset %s lets %s %s through (%s)\n%s",
						   k, preset, ops[op], probe, why, text);
					}
				}
				cordon_evaluator_free(ev);
			}
		}
		cordon_policy_free(p);
		free(text);
	}
	cordon_context_free(ctx);
	printf("# %u cases: %u assertions held (%u requests checked), %u reported, of which the\n"
	       "# evaluator lets the named target through under the test context in %u\n",
	       cases, held, probes, reported, confirmed);
	ok(misses == 0, "no assertion that held let a request through (%u requests)", probes);
	ok(held >= cases / 10, "a fair share of assertions held (%u of %u)", held, cases);
	ok(reported >= cases / 10, "a fair share of assertions failed (%u of %u)", reported, cases);
	return tap_done();
}
