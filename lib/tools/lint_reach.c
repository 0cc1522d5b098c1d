/* Rules that never decide, by the evaluator's own ranking (eval_rank.c):
 * a rule loses everywhere to one that matches the same requests and wins
 * the tie, or, when the two are incomparable (a regex against anything
 * but the same regex), to a more severe rule that matches every request it
 * matches.  A rule that strictly contains another never beats it, so
 * containment alone never silences a rule.  The relation comes from the
 * evaluator under the representative context; a finding that depends on a
 * context value (two patterns through different variables) is not made. */
#include "config.h"

#include "lint_int.h"

#include <stdlib.h>
#include <string.h>

/* The variables a pattern text uses, in order: "workspace,home,". */
static char *var_refs(const char *text)
{
	struct strbuf sb;
	sb_init(&sb);
	for (const char *p = text ? text : ""; *p; p++) {
		if (*p != IR_VAR_OPEN)
			continue;
		const char *end = strchr(p, IR_VAR_CLOSE);
		if (!end)
			break;
		sb_add(&sb, p + 1, (size_t)(end - p - 1));
		sb_addc(&sb, ',');
		p = end;
	}
	return sb_steal(&sb);
}

static bool same_vars(const struct ir_rule *a, const struct ir_rule *b)
{
	char *va = var_refs(a->pat.text), *vb = var_refs(b->pat.text);
	bool same = strcmp(va, vb) == 0;
	free(va);
	free(vb);
	return same;
}

static bool has_vars(const struct ir_rule *r)
{
	return r->pat.text && strchr(r->pat.text, IR_VAR_OPEN);
}

static bool identical(const struct ir_rule *a, const struct ir_rule *b)
{
	return a->pat.kind == b->pat.kind &&
	       strcmp(a->pat.text ? a->pat.text : "", b->pat.text ? b->pat.text : "") == 0 &&
	       strcmp(a->pat.regex ? a->pat.regex : "", b->pat.regex ? b->pat.regex : "") == 0 &&
	       (a->pat.text != NULL) == (b->pat.text != NULL);
}

/* The evaluator of preset k, when its rules are the preset's IR rules one
 * for one (the representative context gives every variable a value). */
static const cordon_evaluator *preset_ev(struct linter *l, size_t k)
{
	const cordon_evaluator *ev = lint_evaluator(l, l->order[k]);
	return ev && ev->nrules == LINT_PRESET(l, k)->nrules ? ev : NULL;
}

/* Does a match every request that b matches, when b is a regex that the
 * evaluator cannot compare (its literal start `prefix`, or NULL)?  a
 * matches everything of its operation, or is a subtree (a literal path,
 * or X followed by a "**" component) that the literal start lies below. */
static bool covers_regex(const struct ev_rule *a, const char *prefix)
{
	if (a->m.regex || !a->m.text)
		return false;
	if (a->op != IR_READ && a->op != IR_WRITE)
		return strcmp(a->m.text, "*") == 0 && (a->op != IR_EXEC || a->m.nwords == 1);
	if (strcmp(a->m.text, "/**") == 0 || strcmp(a->m.text, "/") == 0)
		return true;
	size_t n = strlen(a->m.text), rn;
	if (a->m.kind == IR_PAT_LITERAL)
		rn = n;
	else if (n > 3 && strcmp(a->m.text + n - 3, "/**") == 0 &&
		 strcspn(a->m.text, "*?[") == n - 2)
		rn = n - 3;
	else
		return false;
	return prefix && strncmp(prefix, a->m.text, rn) == 0 && prefix[rn] == '/';
}

static void report(struct linter *l, const struct ir_rule *b, const struct ir_rule *a,
		   const char *why)
{
	char *bt = lint_rule_text(b), *at = lint_rule_text(a);
	char *key = xasprintf("%s|%u:%u", bt, a->origin.file, a->origin.start);
	struct diag *f = lint_report(l, &b->origin, key,
				     "'%s' can never decide: '%s' always beats it (%s)", bt,
				     at, why);
	diag_hint(f, "make the exception a glob or an exact path contained in the rule it carves "
		     "out of (a regex is comparable only with the same regex), or remove one of "
		     "them");
	diag_note(f, a->origin, "the rule that always beats it");
	free(key);
	free(bt);
	free(at);
}

void lint_unreachable_rule(struct linter *l)
{
	for (size_t k = 0; k < l->ir->npresets; k++) {
		const struct ir_preset *p = LINT_PRESET(l, k);
		const cordon_evaluator *ev = preset_ev(l, k);
		if (!ev)
			continue;
		for (size_t i = 0; i < ev->nrules; i++) {
			const struct ev_rule *b = &ev->rules[i];
			const struct ir_rule *bi = &p->rules[i];
			bool done = false;
			/* the same requests, and the other wins the tie as near */
			for (size_t x = 0; x < b->nsame && !done; x++) {
				const struct ev_rule *a = &ev->rules[b->same[x]];
				const struct ir_rule *ai = &p->rules[b->same[x]];
				if (a->tier != b->tier || a->effect <= b->effect || identical(ai, bi) ||
				    !same_vars(ai, bi))
					continue;
				report(l, bi, ai,
				       "the two match the same requests, and the more severe one wins");
				done = true;
			}
			/* a regex under a more severe rule that matches all it matches */
			if (done || b->m.text || !b->m.regex)
				continue;
			char *prefix = b->op == IR_READ || b->op == IR_WRITE
					       ? ir_regex_prefix(b->m.regex)
					       : NULL;
			for (size_t j = 0; j < ev->nrules && !done; j++) {
				const struct ev_rule *a = &ev->rules[j];
				const struct ir_rule *ai = &p->rules[j];
				if (j == i || a->op != b->op || a->effect <= b->effect ||
				    !covers_regex(a, prefix) || has_vars(ai) ||
				    ev_rule_always_beats(ev, b, a))
					continue;
				report(l, bi, ai,
				       "it matches every request this one matches, a regex is comparable "
				       "only with the same regex, and of two incomparable rules the more "
				       "severe wins");
				done = true;
			}
			free(prefix);
		}
	}
}

/* Two spellings of the same requests, from places that do not conflict:
 * a nearer rule that overrides, or the same effect twice. */
void lint_shadow_equal(struct linter *l, size_t k,
		       void (*found)(struct linter *l, const struct ir_rule *loser,
				     const struct ir_rule *winner, bool override))
{
	const struct ir_preset *p = LINT_PRESET(l, k);
	const cordon_evaluator *ev = preset_ev(l, k);
	if (!ev)
		return;
	for (size_t i = 0; i < ev->nrules; i++) {
		const struct ev_rule *b = &ev->rules[i];
		for (size_t x = 0; x < b->nsame; x++) {
			size_t j = b->same[x];
			const struct ev_rule *a = &ev->rules[j];
			const struct ir_rule *ai = &p->rules[j], *bi = &p->rules[i];
			bool override = a->tier < b->tier && a->effect != b->effect;
			bool redundant = a->tier == b->tier && a->effect == b->effect && j < i;
			if ((!override && !redundant) || identical(ai, bi) || !same_vars(ai, bi))
				continue;
			found(l, bi, ai, override);
			break;
		}
	}
}
