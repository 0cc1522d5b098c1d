/* Flattening: each preset with what it inherits, its protections and
 * environment merged, in canonical order. */
#include "config.h"

#include "checker.h"
#include "lang/literal.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

/* ---- flattening --------------------------------------------------------- */

static void copy_pattern(struct ir_pattern *dst, const struct ir_pattern *src)
{
	dst->kind = src->kind;
	dst->text = src->text ? xstrdup(src->text) : NULL;
	dst->regex = src->regex ? xstrdup(src->regex) : NULL;
}

void ck_append_rules(struct ir_preset *out, const struct ir_rule *rules, size_t n,
			 unsigned tier_shift)
{
	for (size_t i = 0; i < n; i++) {
		struct ir_rule r = rules[i];
		copy_pattern(&r.pat, &rules[i].pat);
		r.reason = rules[i].reason ? xstrdup(rules[i].reason) : NULL;
		r.from = rules[i].from ? xstrdup(rules[i].from) : NULL;
		if (r.tier != GLOBAL_TIER)
			r.tier += tier_shift;
		VEC_PUSH(out->rules, out->nrules, out->rules_cap, r);
	}
}

static bool same_pattern(const struct ir_pattern *a, const struct ir_pattern *b)
{
	return a->kind == b->kind && strcmp(a->text ? a->text : "", b->text ? b->text : "") == 0 &&
	       strcmp(a->regex ? a->regex : "", b->regex ? b->regex : "") == 0;
}

static void apply_protection(struct checker *c, struct ir_preset *out, const struct scope *s)
{
	if (s->unprotect_all) {
		for (size_t i = 0; i < out->nprotect; i++) {
			free(out->protect[i].pat.text);
			free(out->protect[i].pat.regex);
			free(out->protect[i].from);
		}
		out->nprotect = 0;
	}
	for (size_t u = 0; u < s->nunprotect; u++) {
		bool found = false;
		for (size_t i = 0; i < out->nprotect;) {
			if (!same_pattern(&out->protect[i].pat, &s->unprotect[u].pat)) {
				i++;
				continue;
			}
			free(out->protect[i].pat.text);
			free(out->protect[i].pat.regex);
			free(out->protect[i].from);
			memmove(&out->protect[i], &out->protect[i + 1],
				(out->nprotect - i - 1) * sizeof(out->protect[0]));
			out->nprotect--;
			found = true;
		}
		if (!found) {
			struct strbuf shown;
			sb_init(&shown);
			ir_text_print(&shown, s->unprotect[u].pat.text ? s->unprotect[u].pat.text : "");
			ERR(c, &s->unprotect[u].origin, "bad-value",
			    "nothing protected matches '%s'", shown.buf);
			sb_free(&shown);
		}
	}
	for (size_t i = 0; i < s->nprotect; i++) {
		struct ir_protect p = s->protect[i];
		copy_pattern(&p.pat, &s->protect[i].pat);
		p.from = s->protect[i].from ? xstrdup(s->protect[i].from) : NULL;
		VEC_PUSH(out->protect, out->nprotect, out->protect_cap, p);
	}
}

/* Add src's patterns that dst does not have yet. */
static void merge_patterns(struct ir_pattern **dst, size_t *n, size_t *cap,
			   const struct ir_pattern *src, size_t nsrc)
{
	for (size_t i = 0; i < nsrc; i++) {
		bool have = false;
		for (size_t j = 0; j < *n && !have; j++)
			have = same_pattern(&(*dst)[j], &src[i]);
		if (!have) {
			struct ir_pattern p;
			copy_pattern(&p, &src[i]);
			VEC_PUSH(*dst, *n, *cap, p);
		}
	}
}

static void merge_env(struct ir_env *dst, const struct ir_env *src)
{
	for (size_t i = 0; i < src->nkeep; i++) {
		bool have = false;
		for (size_t j = 0; j < dst->nkeep && !have; j++)
			have = strcmp(dst->keep[j], src->keep[i]) == 0;
		if (!have)
			VEC_PUSH(dst->keep, dst->nkeep, dst->keep_cap, xstrdup(src->keep[i]));
	}
	for (size_t i = 0; i < src->nset; i++) {
		struct ir_env_set set = { xstrdup(src->set[i].name), xstrdup(src->set[i].value),
					  src->set[i].origin };
		size_t j;
		for (j = 0; j < dst->nset; j++)
			if (strcmp(dst->set[j].name, set.name) == 0)
				break;
		if (j < dst->nset) {
			free(dst->set[j].name);
			free(dst->set[j].value);
			dst->set[j] = set;
		} else {
			VEC_PUSH(dst->set, dst->nset, dst->set_cap, set);
		}
	}
	merge_patterns(&dst->drop, &dst->ndrop, &dst->drop_cap, src->drop, src->ndrop);
	merge_patterns(&dst->secret, &dst->nsecret, &dst->secret_cap, src->secret, src->nsecret);
	merge_patterns(&dst->code, &dst->ncode, &dst->code_cap, src->code, src->ncode);
}

/* Per key, the preset's own value, else its parent's. */
static void inherit_limits(struct ir_preset *out, const struct scope *s,
			   const struct ir_preset *parent)
{
	for (int k = 0; k < IR_LIMIT_COUNT; k++) {
		const struct ir_limit_value *v = s->limits[k].set ? &s->limits[k]
						 : parent ? &parent->limits[k] : NULL;
		if (!v || !v->set)
			continue;
		out->limits[k] = *v;
		out->limits[k].from = xstrdup(s->limits[k].set ? s->name : v->from);
	}
}

/* Resolve s and its ancestors into s->out (without top-level rules). */
bool ck_flatten(struct checker *c, struct scope *s, struct scope **chain, size_t depth)
{
	struct scope *parent = NULL;
	struct ir_preset *out = s->out;

	if (s->state == FLAT_DONE)
		return true;
	if (s->state == FLAT_IN_PROGRESS) {
		struct strbuf sb;
		sb_init(&sb);
		for (size_t i = 0; i < depth; i++)
			sb_addf(&sb, "'%s' -> ", chain[i]->name);
		sb_addf(&sb, "'%s'", s->name);
		ERR(c, &chain[depth - 1]->parent_loc, "extends-cycle",
		    "preset inheritance forms a cycle: %s", sb.buf);
		sb_free(&sb);
		return false;
	}
	s->state = FLAT_IN_PROGRESS;
	chain[depth] = s;
	if (s->parent) {
		parent = ck_find_scope(c, s->parent);
		if (!parent) {
			const char **names = xcalloc(c->npresets, sizeof(*names));
			for (size_t i = 0; i < c->npresets; i++)
				names[i] = c->presets[i]->name;
			struct diag *d = ERR(c, &s->parent_loc, "unknown-preset",
					     "preset '%s' extends unknown preset '%s'", s->name, s->parent);
			ck_hint_closest(d, s->parent, names, c->npresets);
			free(names);
		} else if (!ck_flatten(c, parent, chain, depth + 1)) {
			parent = NULL;
		}
	}
	out->name = xstrdup(s->name);
	out->parent = s->parent ? xstrdup(s->parent) : NULL;
	out->description = s->description ? xstrdup(s->description) : NULL;
	out->loc = s->node->loc;
	out->approval = s->has_approval ? s->approval : parent ? parent->out->approval : IR_APPROVAL_ASK;
	out->approval_timeout = s->has_approval ? s->approval_timeout
			      : parent		? parent->out->approval_timeout
						: 0;
	out->sandbox = s->has_sandbox ? s->sandbox : parent ? parent->out->sandbox : IR_SANDBOX_REQUIRED;
	ck_append_rules(out, s->rules, s->nrules, 0);
	inherit_limits(out, s, parent ? parent->out : NULL);
	if (parent) {
		ck_append_rules(out, parent->out->rules, parent->out->nrules, 1);
		for (size_t i = 0; i < parent->out->nprotect; i++) {
			struct ir_protect p = parent->out->protect[i];
			copy_pattern(&p.pat, &parent->out->protect[i].pat);
			p.from = p.from ? xstrdup(p.from) : NULL;
			VEC_PUSH(out->protect, out->nprotect, out->protect_cap, p);
		}
		merge_env(&out->env, &parent->out->env);
	} else {
		apply_protection(c, out, &c->global);
		merge_env(&out->env, &c->global.env);
	}
	apply_protection(c, out, s);
	merge_env(&out->env, &s->env);
	s->state = FLAT_DONE;
	return true;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int protect_cmp(const void *pa, const void *pb)
{
	const struct ir_protect *a = pa, *b = pb;
	int r = cmp_str(a->pat.text, b->pat.text);
	return r ? r : cmp_str(a->pat.regex, b->pat.regex);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int set_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ir_env_set *)a)->name, ((const struct ir_env_set *)b)->name);
}

static int drop_cmp(const void *pa, const void *pb)
{
	const struct ir_pattern *a = pa, *b = pb;
	int r = cmp_str(a->text, b->text);
	return r ? r : cmp_str(a->regex, b->regex);
}

int ck_preset_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ir_preset *)a)->name, ((const struct ir_preset *)b)->name);
}

void ck_canonicalize(struct ir_preset *p)
{
	for (size_t i = 0; i < p->nrules; i++)
		p->rules[i].spec = ir_pattern_specificity(p->rules[i].op, &p->rules[i].pat);
	sort_items(p->rules, p->nrules, sizeof(*p->rules), ir_rule_cmp);
	sort_items(p->protect, p->nprotect, sizeof(*p->protect), protect_cmp);
	/* One protection per pattern: keep the first spelling. */
	size_t w = 0;
	for (size_t i = 0; i < p->nprotect; i++) {
		if (w && same_pattern(&p->protect[w - 1].pat, &p->protect[i].pat)) {
			free(p->protect[i].pat.text);
			free(p->protect[i].pat.regex);
			free(p->protect[i].from);
			continue;
		}
		p->protect[w++] = p->protect[i];
	}
	p->nprotect = w;
	sort_items(p->env.keep, p->env.nkeep, sizeof(*p->env.keep), str_cmp);
	sort_items(p->env.set, p->env.nset, sizeof(*p->env.set), set_cmp);
	sort_items(p->env.drop, p->env.ndrop, sizeof(*p->env.drop), drop_cmp);
	sort_items(p->env.secret, p->env.nsecret, sizeof(*p->env.secret), drop_cmp);
	sort_items(p->env.code, p->env.ncode, sizeof(*p->env.code), drop_cmp);
}

