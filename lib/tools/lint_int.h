/* What the lint driver (lint.c) shares with its checks (lint_rules.c,
 * lint_sandbox.c, lint_scan.c) and its output (lint_output.c). */
#ifndef CORDON_LINT_INT_H
#define CORDON_LINT_INT_H

#include "lang/ast.h"
#include "decide/eval.h"
#include "lint.h"

struct linter {
	const cordon_policy *p;
	const struct ir_policy *ir;
	const struct srcmgr *sm;
	const struct ast *root;       /* the syntax tree of the root file, includes linked */
	struct lint_result *out;
	const struct lint_check *check; /* the check running */
	cordon_context *ctx;          /* the representative context (lint.c) */
	size_t *order;                /* preset indices, parents before children */
	cordon_evaluator **ev;        /* per preset, built on first use */
	bool *ev_tried;
};

/* Queue a finding of the running check at `at` (NULL: no location).  A
 * finding with the same id, place and key (the message when key is NULL)
 * as an earlier one is dropped: NULL is returned, and diag_hint/diag_note
 * accept NULL. */
struct diag *lint_report(struct linter *l, const struct loc *at, const char *key,
			 const char *fmt, ...) PRINTF_LIKE(4, 5);

/* The k-th preset in `order`: a finding first seen in a parent names the
 * parent rather than a preset that inherits it. */
#define LINT_PRESET(l, k) (&(l)->ir->presets[(l)->order[k]])

/* The evaluator of preset i under the representative context, or NULL. */
const cordon_evaluator *lint_evaluator(struct linter *l, size_t preset);
/* The representative context: the values requests are made against. */
extern const char *const lint_context[CTX_COUNT];
/* The IR rule or protection of preset p whose origin prints as `origin`
 * ("file:line:col"); false when there is none. */
bool lint_origin_loc(const struct linter *l, const struct ir_preset *p, const char *origin,
		     struct loc *at);

/* A pattern or rule in the policy's own spelling: "${home}/.ssh",
 * /regex/, `read "/x" deny`. */
void lint_show_pattern(struct strbuf *sb, const struct ir_pattern *pat);
char *lint_rule_text(const struct ir_rule *r);

/* Rules that match the same requests as another, by the evaluator of the
 * k-th preset in `order`: found(loser, winner, override) for a nearer
 * rule with another effect (override) or the same effect twice. */
void lint_shadow_equal(struct linter *l, size_t k,
		       void (*found)(struct linter *l, const struct ir_rule *loser,
				     const struct ir_rule *winner, bool override));

/* The checks: a prototype for each row of lint_checks.def. */
#define LINT_CHECK(id, level, fn, summary, description) void fn(struct linter *l);
#include "lint_checks.def"
#undef LINT_CHECK

#endif
