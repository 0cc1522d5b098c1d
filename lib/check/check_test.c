/* Test blocks, assertions and the default preset, checked against the
 * flattened presets. */
#include "config.h"

#include "checker.h"
#include "lang/literal.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

/* ---- tests and default -------------------------------------------------- */

void ck_preset_ref(struct checker *c, const struct ast *str, const char *what,
			     char **out)
{
	char *name = ck_decode_string(c, str, false);
	if (!name)
		return;
	if (!ck_find_scope(c, name)) {
		const char **names = xcalloc(c->npresets, sizeof(*names));
		for (size_t i = 0; i < c->npresets; i++)
			names[i] = c->presets[i]->name;
		struct diag *d = ERR(c, &str->loc, "unknown-preset", "%s names unknown preset '%s'",
				     what, name);
		ck_hint_closest(d, name, names, c->npresets);
		free(names);
		free(name);
		return;
	}
	*out = name;
}

static void add_assert_pattern(struct checker *c, void *varg, struct ir_pattern pat, struct loc at)
{
	struct check_assert *a = varg;
	(void)c;
	VEC_PUSH(a->pats, a->npats, a->pats_cap, pat);
	grow_array((void **)&a->pat_locs, &a->locs_cap, a->npats, sizeof(*a->pat_locs));
	a->pat_locs[a->npats - 1] = at;
}

/* assert never OP patterns [in "p", ...] ["why"]; into *out.  False when
 * the statement has errors (they are reported). */
bool ck_assert_node(struct checker *c, const struct ast *node, struct check_assert *out)
{
	static const char *const modes[] = { "never" };
	static const char *const clauses[] = { "in" };
	const struct ast *mode = node->u.assertion.mode, *op = node->u.assertion.op;
	const struct ast *clause = node->u.assertion.clause, *reason = NULL;
	const struct ast *last = node->u.assertion.patterns.tail;
	struct ast trimmed;
	size_t errors = c->d->nerrors;
	int o;

	memset(out, 0, sizeof(*out));
	out->loc = node->loc;
	if (ck_lookup(mode->u.tok.text, modes, ARRAY_SIZE(modes)) < 0) {
		struct diag *d = ERR(c, &mode->loc, "syntax", "unknown assertion '%s'", mode->u.tok.text);
		diag_hint(d, "write 'assert never OP PATTERN;'");
	}
	/* No pattern ends in a second string: that string is the reason. */
	if (last->u.seq.n == 2 && last->u.seq.tail->kind == AST_STRING) {
		reason = last->u.seq.tail;
		trimmed = *last;
		trimmed.u.seq.n = 1;
		trimmed.u.seq.tail = trimmed.u.seq.head;
		trimmed.loc.end = trimmed.u.seq.head->loc.end;
		if (clause) {
			struct diag *d = ERR(c, &reason->loc, "syntax",
					     "an assertion's reason comes last, after the presets");
			diag_hint(d, "write 'assert never OP PATTERN in \"PRESET\" \"REASON\";'");
		}
	}
	o = ck_lookup(op->u.tok.text, ir_op_names, IR_OP_COUNT);
	if (o < 0) {
		struct diag *d = ERR(c, &op->loc, "unknown-operation", "unknown operation '%s'",
				     op->u.tok.text);
		ck_hint_closest(d, op->u.tok.text, ir_op_names, IR_OP_COUNT);
	} else {
		out->op = (enum ir_op)o;
		for (const struct ast *p = node->u.assertion.patterns.head; p; p = p->next)
			ck_lower_pattern(c, out->op, p == last && reason ? &trimmed : p,
				      add_assert_pattern, out);
	}
	if (clause) {
		const struct ast *word = clause->u.clause.word;
		if (ck_lookup(word->u.tok.text, clauses, ARRAY_SIZE(clauses)) < 0) {
			struct diag *d = ERR(c, &word->loc, "syntax", "unknown assertion clause '%s'",
					     word->u.tok.text);
			diag_hint(d, "name the presets with 'in \"PRESET\", ...'");
		}
		for (const struct ast *v = clause->u.clause.values.head; v; v = v->next) {
			char *name = NULL;
			ck_preset_ref(c, v, "assert", &name);
			if (name)
				VEC_PUSH(out->presets, out->npresets, out->presets_cap, name);
		}
		if (clause->u.clause.reason)
			reason = clause->u.clause.reason;
	}
	if (reason)
		out->reason = ck_decode_string(c, reason, true);
	return c->d->nerrors == errors;
}

/* `context workspace = "/w", ...;`: each a known variable and a string,
 * absolute where the variable is a path. */
static void test_context(struct checker *c, struct ir_test *t, const struct ast *it)
{
	for (const struct ast *a = it->u.seq.head; a; a = a->next) {
		const struct ast *key = a->u.bind.name;
		int var = ir_ctx_var_lookup(key->u.tok.text, key->u.tok.len);
		char *value;
		if (var < 0) {
			struct diag *d = ERR(c, &key->loc, "undefined-variable",
					     "unknown context variable '%s'", key->u.tok.text);
			ck_hint_closest(d, key->u.tok.text, ir_ctx_var_names, CTX_COUNT);
			continue;
		}
		if (a->u.bind.value->kind != AST_STRING) {
			ERR(c, &a->u.bind.value->loc, "bad-value", "a context value is a string");
			continue;
		}
		if (!(value = ck_decode_string(c, a->u.bind.value, false)))
			continue;
		if (ir_ctx_var_is_path(var) && value[0] != '/') {
			ERR(c, &a->u.bind.value->loc, "relative-path",
			    "context value for '%s' must be an absolute path", key->u.tok.text);
			free(value);
			continue;
		}
		struct ir_binding b = { var, value, a->loc };
		VEC_PUSH(t->context, t->ncontext, t->context_cap, b);
	}
}

/* `expect EFFECT exec argv ["WORD", ...];` (e and o looked up, -1 when
 * unknown): the words of an argv, for exec alone. */
static void test_expect_argv(struct checker *c, struct ir_test *t, const struct ast *it, int e,
			     int o)
{
	const struct ast *form = it->u.expect.form, *target = it->u.expect.target;
	struct ir_expect x = { e, o, NULL, NULL, 0, it->loc };
	bool good = e >= 0 && o >= 0;
	if (strcmp(form->u.tok.text, "argv") != 0) {
		ERR(c, &form->loc, "syntax",
		    "unknown form '%s' of an expectation: expect EFFECT exec "
		    "argv [\"WORD\", ...];", form->u.tok.text);
		return;
	}
	if (o >= 0 && o != IR_EXEC) {
		ERR(c, &form->loc, "syntax", "only an exec expectation takes an argv, not %s",
		    ir_op_names[o]);
		return;
	}
	if (target->kind != AST_LIST || !target->u.seq.n) {
		ERR(c, &target->loc, "syntax",
		    "an argv expectation's target is a list of words, at least "
		    "one");
		return;
	}
	x.argv = xcalloc(target->u.seq.n, sizeof(*x.argv));
	for (const struct ast *w = target->u.seq.head; w; w = w->next) {
		char *word = ck_decode_string(c, w, true);
		good = good && word;
		if (word)
			x.argv[x.argc++] = word;
	}
	if (!good) {
		for (size_t k = 0; k < x.argc; k++)
			free(x.argv[k]);
		free(x.argv);
		return;
	}
	VEC_PUSH(t->expects, t->nexpects, t->expects_cap, x);
}

/* `expect EFFECT OP "TARGET";`, or the argv form. */
static void test_expect(struct checker *c, struct ir_test *t, const struct ast *it)
{
	const struct ast *eff = it->u.expect.effect, *op = it->u.expect.op;
	const struct ast *target = it->u.expect.target;
	int e = ck_lookup(eff->u.tok.text, ir_effect_names, IR_EFFECT_COUNT);
	int o = ck_lookup(op->u.tok.text, ir_op_names, IR_OP_COUNT);
	if (e < 0) {
		struct diag *d = ERR(c, &eff->loc, "unknown-effect", "unknown effect '%s'",
				     eff->u.tok.text);
		ck_hint_closest(d, eff->u.tok.text, ir_effect_names, IR_EFFECT_COUNT);
	}
	if (o < 0) {
		struct diag *d = ERR(c, &op->loc, "unknown-operation", "unknown operation '%s'",
				     op->u.tok.text);
		ck_hint_closest(d, op->u.tok.text, ir_op_names, IR_OP_COUNT);
	}
	if (it->u.expect.form) {
		test_expect_argv(c, t, it, e, o);
		return;
	}
	if (target->u.seq.n != 1 || target->u.seq.head->kind != AST_STRING) {
		ERR(c, &target->loc, "syntax", "an expectation's target is one string");
		return;
	}
	char *text = ck_decode_string(c, target->u.seq.head, true);
	if (e < 0 || o < 0 || !text) {
		free(text);
		return;
	}
	struct ir_expect x = { e, o, text, NULL, 0, it->loc };
	VEC_PUSH(t->expects, t->nexpects, t->expects_cap, x);
}

void ck_test_block(struct checker *c, const struct ast *node)
{
	struct ir_test t = { .loc = node->loc };
	bool have_preset = false;
	t.name = ck_decode_string(c, node->u.block.name, false);
	if (!t.name)
		t.name = xstrdup("");
	for (const struct ast *it = node->u.block.body.head; it; it = it->next) {
		if (it->kind == AST_TEST_PRESET) {
			if (have_preset) {
				ERR(c, &it->loc, "duplicate-setting", "a test names one preset");
				continue;
			}
			have_preset = true;
			ck_preset_ref(c, it->u.one.value, "test", &t.preset);
		} else if (it->kind == AST_TEST_CONTEXT) {
			test_context(c, &t, it);
		} else if (it->kind == AST_TEST_EXPECT) {
			test_expect(c, &t, it);
		}
	}
	if (!have_preset) {
		struct diag *d = ERR(c, &node->u.block.name->loc, "unknown-preset",
				     "test '%s' names no preset", t.name);
		diag_hint(d, "add 'preset \"NAME\";' to the test");
	}
	VEC_PUSH(c->ir->tests, c->ir->ntests, c->ir->tests_cap, t);
}
