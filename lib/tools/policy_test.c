/* Running a policy's own test blocks: each expectation becomes one TAP
 * line, evaluated against the test's preset and context. */
#include "config.h"

#include "lang/embedded.h"
#include "check/policy.h"
#include "policy_test.h"

#include <stdlib.h>
#include <string.h>

static void tap_line(FILE *out, size_t n, bool pass, const struct ir_test *t,
		     const struct ir_expect *x, const char *target)
{
	fprintf(out, "%s %zu - %s: expect %s %s ", pass ? "ok" : "not ok", n, t->name,
		ir_effect_names[x->effect], ir_op_names[x->op]);
	/* One TAP line, whatever the target holds: control bytes as escapes. */
	for (const unsigned char *p = (const unsigned char *)target; *p; p++) {
		if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\x%02x", *p);
		else
			fputc(*p, out);
	}
	fputc('\n', out);
}

/* The request's deciding rule and those of each operation it performs (a
 * command's exec and the reads and writes it makes). */
static void mark_rules(struct coverage *cov, const cordon_decision *d)
{
	const char *rule;
	if ((rule = cordon_decision_rule(d)))
		coverage_mark(cov, rule);
	for (size_t i = 0; i < cordon_decision_operation_count(d); i++) {
		cordon_decision_operation(d, i, NULL, NULL, NULL, NULL, &rule);
		if (rule)
			coverage_mark(cov, rule);
	}
}

/* The request of expectation x with the test's context ctx applied: its
 * target, or its words (the caller frees either), and in shown as the
 * test spells it.  False, with *missing, when a context variable it
 * names has no value. */
static bool expect_request(const struct ir_expect *x, const cordon_context *ctx,
			   struct strbuf *shown, char **target, char ***words, int *missing)
{
	if (!x->argv) {
		*target = ir_text_subst(x->target, &ctx->vars, true, missing);
		ir_text_print(shown, x->target);
		return *target != NULL;
	}
	*words = xcalloc(x->argc, sizeof(**words));
	sb_adds(shown, "argv [");
	for (size_t k = 0; k < x->argc; k++) {
		(*words)[k] = ir_text_subst(x->argv[k], &ctx->vars, true, missing);
		sb_adds(shown, k ? ", \"" : "\"");
		ir_text_print(shown, x->argv[k]);
		sb_addc(shown, '"');
	}
	sb_addc(shown, ']');
	bool ready = true;
	for (size_t k = 0; k < x->argc; k++)
		ready = ready && (*words)[k];
	return ready;
}

/* The request decided by ev and checked against x, TAP line n (shown: the
 * request as the test spells it, where: x's place); true when it passed. */
static bool decide_expect(FILE *out, size_t n, const struct ir_test *t,
			  const struct ir_expect *x, cordon_evaluator *ev, const char *target,
			  char **words, const char *shown, const char *where,
			  struct coverage *cov)
{
	struct cordon_request req = { .op = (enum cordon_op)x->op, .target = target,
				      .argv = (const char *const *)words,
				      .argc = words ? x->argc : 0 };
	char *rerr = NULL;
	cordon_decision *d = cordon_evaluate(ev, &req, &rerr);
	bool pass = d && cordon_decision_effect(d) == (enum cordon_effect)x->effect;
	if (d && cov)
		mark_rules(cov, d);
	tap_line(out, n, pass, t, x, shown);
	if (!pass && d)
		fprintf(out, "# %s: expected %s, got %s (rule %s: %s)\n", where,
			ir_effect_names[x->effect], cordon_effect_name(cordon_decision_effect(d)),
			cordon_decision_rule(d) ? cordon_decision_rule(d) : "none",
			cordon_decision_reason(d) ? cordon_decision_reason(d) : "");
	else if (!pass)
		fprintf(out, "# %s: %s\n", where, rerr);
	cordon_decision_free(d);
	free(rerr);
	return pass;
}

/* Expectation x of test t as TAP line n: a failure without an evaluator
 * (err says why) or with a context variable unset, else its decision. */
static bool run_expect(const cordon_policy *policy, FILE *out, size_t n, const struct ir_test *t,
		       const struct ir_expect *x, cordon_evaluator *ev, const cordon_context *ctx,
		       const char *err, struct coverage *cov)
{
	char where[512];
	int missing = -1;
	char *target = NULL, **words = NULL;
	struct strbuf shown;
	sb_init(&shown);
	bool ready = expect_request(x, ctx, &shown, &target, &words, &missing);
	bool pass = false;
	srcmgr_format_loc(&policy->sm, x->origin, where, sizeof(where));
	if (!ev || !ready) {
		tap_line(out, n, false, t, x, shown.buf);
		if (!ev)
			fprintf(out, "# %s: %s\n", where, err ? err : "the test names no preset");
		else
			fprintf(out, "# %s: context variable '%s' has no value in this test\n", where,
				ir_ctx_var_names[missing]);
	} else {
		pass = decide_expect(out, n, t, x, ev, target, words, shown.buf, where, cov);
	}
	sb_free(&shown);
	free(target);
	for (size_t k = 0; words && k < x->argc; k++)
		free(words[k]);
	free(words);
	return pass;
}

/* The context of test t (its bindings, and the host's facts of host), or
 * false with *err. */
static bool test_context(const struct ir_test *t, const char *host, cordon_context *ctx,
			 char **err)
{
	if (host && cordon_context_set_host(ctx, host, err) != 0)
		return false;
	for (size_t j = 0; j < t->ncontext; j++) {
		const struct ir_binding *b = &t->context[j];
		if (cordon_context_set(ctx, ir_ctx_var_names[b->var], b->value, err) != 0)
			return false;
	}
	return true;
}

size_t policy_run_tests(const cordon_policy *policy, FILE *out, size_t *count,
			struct coverage *cov, bool include_shipped, const char *host)
{
	size_t n = count ? *count : 0, failed = 0, shipped = 0;
	for (size_t i = 0; i < policy->ir.ntests; i++) {
		const struct ir_test *t = &policy->ir.tests[i];
		if (!include_shipped && embedded_included(srcmgr_file(&policy->sm, t->loc.file))) {
			shipped++;
			continue;
		}
		cordon_context *ctx = cordon_context_new();
		cordon_evaluator *ev = NULL;
		char *err = NULL;
		if (test_context(t, host, ctx, &err) && t->preset)
			ev = cordon_evaluator_new(policy, t->preset, ctx, &err);
		for (size_t j = 0; j < t->nexpects; j++)
			if (!run_expect(policy, out, ++n, t, &t->expects[j], ev, ctx, err, cov))
				failed++;
		free(err);
		cordon_evaluator_free(ev);
		cordon_context_free(ctx);
	}
	if (shipped)
		fprintf(out, "# %s: %zu test block%s of the shipped policies it includes not run "
			     "(--include-shipped runs them)\n",
			cordon_policy_name(policy), shipped, shipped == 1 ? "" : "s");
	if (count)
		*count = n;
	return failed;
}

size_t cordon_policy_run_tests(const cordon_policy *policy, FILE *out, size_t *count)
{
	return policy_run_tests(policy, out, count, NULL, true, NULL);
}
