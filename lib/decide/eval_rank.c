/* Which matching rule decides.
 *
 * Rule a beats rule b wherever both match when a is more specific (every
 * target a matches, b matches too, and not the reverse: contain.h), or
 * when both match the same targets and a is the preset's own over an
 * inherited or top-level one, or, as near, more severe.  That relation is
 * computed once per evaluator, after the context is applied (it depends
 * on the values of ${workspace} and the rest), and kept per rule as the
 * sorted list of the rules that beat it; an evaluator is one context, and
 * the decision stream keeps its evaluators by preset and context, so the
 * relation is cached with them.  Only pairs whose literal leads can meet,
 * and, for path patterns, whose literal components can, are compared, so
 * building stays near linear in the rules.  A request then only finds the
 * rules that match it: those beaten by none of the others remain, and the
 * most severe of them decides, so incomparable rules go to the stricter.
 *
 * A call decides a request or a few and asks about a few pairs of the
 * rules, so building the evaluator finds only which pairs meet (cheap: the
 * leads and components), and the relation of a pair, the costly part
 * (contain.h), is found the first time a decision asks about it and kept
 * for the next (rank_lazy).  Each pair is related the one way building
 * all of them at once relates it, so the answers are the same; lint
 * reads the complete lists (ev_rank_complete), as does CORDON_FAST_LOAD=0. */
#include "config.h"

#include "eval.h"
#include "eval_segments.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* a beats b on a tie: the same targets */
static bool tie_beats(const struct ev_rule *a, const struct ev_rule *b)
{
	if (a->tier != b->tier)
		return a->tier < b->tier;
	return a->effect > b->effect;
}

static void add_beaten(struct ev_rule *loser, uint32_t winner)
{
	VEC_PUSH(loser->beaten_by, loser->nbeaten_by, loser->beaten_cap, winner);
}

static void add_meet(struct ev_rule *r, uint32_t other, bool first)
{
	if (r->nmeets == r->meets_cap) {
		r->meets_cap = r->meets_cap ? 2 * r->meets_cap : 4;
		r->meets = xrealloc(r->meets, r->meets_cap * sizeof(*r->meets));
	}
	struct ev_meet *m = &r->meets[r->nmeets++];
	m->other = other;
	m->first = first;
	atomic_init(&m->rel, 0);
}

static void relate_pair(cordon_evaluator *ev, uint32_t i, uint32_t j)
{
	struct ev_rule *a = &ev->rules[i], *b = &ev->rules[j];
	if (ev->rank_lazy) {
		add_meet(a, j, true);
		add_meet(b, i, false);
		return;
	}
	switch (matcher_relate(&a->m, &b->m, a->op)) {
	case REL_SUBSET: add_beaten(b, i); break;
	case REL_SUPERSET: add_beaten(a, j); break;
	case REL_EQUAL:
		VEC_PUSH(a->same, a->nsame, a->same_cap, j);
		VEC_PUSH(b->same, b->nsame, b->same_cap, i);
		if (tie_beats(a, b))
			add_beaten(b, i);
		else if (tie_beats(b, a))
			add_beaten(a, j);
		break;
	default: break;
	}
}

static int u32_cmp(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return a < b ? -1 : a > b;
}

static int meet_cmp(const void *pa, const void *pb)
{
	uint32_t a = ((const struct ev_meet *)pa)->other, b = ((const struct ev_meet *)pb)->other;
	return a < b ? -1 : a > b;
}

/* The key under which rules that are compared by their text alone meet. */
static char *ident_key(const struct ev_rule *r)
{
	return xasprintf("%d\x01%s\x01%s", (int)r->m.kind, r->m.text ? r->m.text : "",
			 r->m.regex ? r->m.regex : "");
}

/* Pairs by lead: i meets the rules of `leads` whose lead starts its own;
 * each pair is met once, from the rule with the longer lead (or, with
 * leads of one length, from the lower index). */
static void relate_by_lead(cordon_evaluator *ev, uint32_t i, const char *lead, size_t n,
			   const struct strmap *leads, const bool *has_len)
{
	for (size_t l = 0; l <= n; l++) {
		if (!has_len[l])
			continue;
		const struct strmap_entry *e = strmap_get(leads, lead, l);
		for (size_t x = 0; e && x < e->nitems; x++) {
			uint32_t j = e->items[x];
			if (j == i || (l == n && j < i))
				continue;
			relate_pair(ev, i, j);
		}
	}
}

static void relate_by_ident(cordon_evaluator *ev, uint32_t i, const struct strmap *ident,
			    const struct strmap *leads)
{
	const struct ev_rule *r = &ev->rules[i];
	char *k = ident_key(r);
	const struct strmap_entry *e = strmap_get(ident, k, strlen(k));
	free(k);
	for (size_t x = 0; e && x < e->nitems; x++)
		if (e->items[x] > i)
			relate_pair(ev, i, e->items[x]);
	/* `exec opaque` meets the patterns that start with a wildcard */
	if (r->m.kind == IR_PAT_OPAQUE && (e = strmap_get(leads, "", 0)))
		for (size_t x = 0; x < e->nitems; x++)
			relate_pair(ev, i, e->items[x]);
}

/* Two patterns can share a target only when one's lead starts the other's.
 * Absolute path patterns are paired among themselves by their literal
 * components instead (eval_segments.c), which also tells apart the many
 * whose lead is the same short text ("/home/" before a wildcard); with the
 * other patterns of a lead they pair by lead. */
static void relate_op(cordon_evaluator *ev, enum ir_op op)
{
	struct strmap leads, other_leads, ident;
	struct seg_index *segs = seg_index_new();
	struct seg_pairs meet = {0};
	bool *has_len = NULL; /* has_len[n]: some lead is n bytes long */
	size_t max_len = 0;
	strmap_init(&leads);
	strmap_init(&other_leads);
	strmap_init(&ident);
	for (uint32_t i = 0; i < ev->nrules; i++) {
		const struct ev_rule *r = &ev->rules[i];
		size_t n = 0;
		if (r->op == op && matcher_lead(&r->m, &n) && n > max_len)
			max_len = n;
	}
	has_len = xcalloc(max_len + 1, sizeof(*has_len));
	for (uint32_t i = 0; i < ev->nrules; i++) {
		const struct ev_rule *r = &ev->rules[i];
		size_t n = 0;
		if (r->op != op)
			continue;
		const char *lead = matcher_lead(&r->m, &n);
		if (!lead) {
			char *k = ident_key(r);
			strmap_add(&ident, k, strlen(k), i);
			free(k);
			continue;
		}
		strmap_add(&leads, lead, n, i);
		has_len[n] = true;
		if (seg_indexable(&r->m, op))
			seg_index_add(segs, &r->m, i);
		else
			strmap_add(&other_leads, lead, n, i);
	}
	for (uint32_t i = 0; i < ev->nrules; i++) {
		const struct ev_rule *r = &ev->rules[i];
		size_t n = 0;
		if (r->op != op)
			continue;
		const char *lead = matcher_lead(&r->m, &n);
		if (!lead) {
			relate_by_ident(ev, i, &ident, &leads);
			continue;
		}
		if (!seg_indexable(&r->m, op)) {
			relate_by_lead(ev, i, lead, n, &leads, has_len);
			continue;
		}
		relate_by_lead(ev, i, lead, n, &other_leads, has_len);
		seg_index_meeting(segs, r->m.text, strlen(r->m.text), &meet);
		for (size_t x = 0; x < meet.n; x++)
			if (meet.ids[x] > i)
				relate_pair(ev, i, meet.ids[x]);
	}
	strmap_free(&leads);
	strmap_free(&other_leads);
	strmap_free(&ident);
	seg_index_free(segs);
	free(meet.ids);
	free(has_len);
}

static void rank_all(cordon_evaluator *ev)
{
	for (int op = 0; op < IR_OP_COUNT; op++)
		relate_op(ev, (enum ir_op)op);
	for (size_t i = 0; i < ev->nrules; i++) {
		struct ev_rule *r = &ev->rules[i];
		if (ev->rank_lazy) {
			sort_items(r->meets, r->nmeets, sizeof(*r->meets), meet_cmp);
			continue;
		}
		sort_items(r->beaten_by, r->nbeaten_by, sizeof(uint32_t), u32_cmp);
		sort_items(r->same, r->nsame, sizeof(uint32_t), u32_cmp);
	}
}

void ev_rank_build(cordon_evaluator *ev)
{
	ev->rank_lazy = fast_load();
	rank_all(ev);
}

void ev_rank_complete(cordon_evaluator *ev)
{
	if (!ev->rank_lazy)
		return;
	ev->rank_lazy = false;
	rank_all(ev);
}

/* The relation of a pair that meets, found once: decisions on several
 * threads may ask about the same pair. */
static pthread_mutex_t relating = PTHREAD_MUTEX_INITIALIZER;

static enum contain_rel meet_rel(const cordon_evaluator *ev, const struct ev_rule *self,
				 struct ev_meet *m)
{
	unsigned char rel = atomic_load_explicit(&m->rel, memory_order_acquire);
	if (rel)
		return (enum contain_rel)(rel - 1);
	pthread_mutex_lock(&relating);
	rel = atomic_load_explicit(&m->rel, memory_order_relaxed);
	if (!rel) {
		const struct ev_rule *other = &ev->rules[m->other];
		enum contain_rel r = m->first ? matcher_relate(&self->m, &other->m, self->op)
					      : matcher_relate(&other->m, &self->m, other->op);
		rel = (unsigned char)(r + 1);
		atomic_store_explicit(&m->rel, rel, memory_order_release);
	}
	pthread_mutex_unlock(&relating);
	return (enum contain_rel)(rel - 1);
}

/* Does a beat b, with the relation of the pair found if it meets: as
 * relate_pair decides it when it relates a and b. */
static bool beats_lazily(const cordon_evaluator *ev, const struct ev_rule *a,
			 const struct ev_rule *b)
{
	struct ev_meet key = { .other = (uint32_t)(a - ev->rules) };
	struct ev_meet *m = b->nmeets ? bsearch(&key, b->meets, b->nmeets, sizeof(*b->meets),
						meet_cmp)
				      : NULL;
	if (!m)
		return false;
	switch (meet_rel(ev, b, m)) {
	case REL_SUBSET: return !m->first;  /* a, the first, is more specific */
	case REL_SUPERSET: return m->first; /* b, the first, is less specific */
	case REL_EQUAL: return tie_beats(a, b);
	default: return false;
	}
}

bool ev_rule_always_beats(const cordon_evaluator *ev, const struct ev_rule *a,
			  const struct ev_rule *b)
{
	if (a < ev->rules || a >= ev->rules + ev->nrules || b < ev->rules ||
	    b >= ev->rules + ev->nrules)
		return false;
	if (ev->rank_lazy)
		return beats_lazily(ev, a, b);
	uint32_t key = (uint32_t)(a - ev->rules);
	return b->nbeaten_by &&
	       bsearch(&key, b->beaten_by, b->nbeaten_by, sizeof(uint32_t), u32_cmp) != NULL;
}

/* For display and determinism among rules that tie: the old ranking by
 * literal prefix, then nearer, then the earlier rule. */
static bool shown_first(const struct ev_rule *a, const struct ev_rule *b)
{
	int c = spec_cmp(a->m.spec, b->m.spec);
	if (c)
		return c > 0;
	if (a->tier != b->tier)
		return a->tier < b->tier;
	return a < b;
}

const struct ev_rule *ev_pick(const cordon_evaluator *ev, const struct ev_rule *const *m,
			      size_t n)
{
	const struct ev_rule *best = NULL, *worst = NULL;
	for (size_t i = 0; i < n; i++) {
		bool beaten = false;
		for (size_t j = 0; j < n && !beaten; j++)
			beaten = j != i && ev_rule_always_beats(ev, m[j], m[i]);
		if (!worst || m[i]->effect > worst->effect ||
		    (m[i]->effect == worst->effect && shown_first(m[i], worst)))
			worst = m[i];
		if (beaten)
			continue;
		if (!best || m[i]->effect > best->effect ||
		    (m[i]->effect == best->effect && shown_first(m[i], best)))
			best = m[i];
	}
	/* A cycle cannot arise from exact containment; if it did, fail closed. */
	return best ? best : worst;
}

bool ev_pick_alone(const cordon_evaluator *ev, const struct ev_rule *w,
		   const struct ev_rule *const *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool beaten = m[i] == w;
		for (size_t j = 0; j < n && !beaten; j++)
			beaten = j != i && ev_rule_always_beats(ev, m[j], m[i]);
		if (!beaten)
			return false;
	}
	return true;
}

bool ev_rule_may_beat(const cordon_evaluator *ev, const struct ev_rule *a, const struct ev_rule *b)
{
	return !ev_rule_always_beats(ev, b, a);
}

void ev_rank_notes(const cordon_evaluator *ev, struct xp_judgment *j, const struct ev_rule *w,
		   const struct ev_rule *const *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct ev_rule *x = m[i];
		if (x == w)
			continue;
		enum contain_rel rel = matcher_relate(&w->m, &x->m, w->op);
		if (rel == REL_SUBSET) {
			xp_rank_push(j, XP_REL_MORE_SPECIFIC, x, NULL);
		} else if (rel == REL_EQUAL) {
			xp_rank_push(j,
				     w->tier != x->tier ? (x->from ? XP_REL_SAME_OWN : XP_REL_SAME_PRESET)
				     : w->effect != x->effect ? XP_REL_SAME_SEVERE
							      : XP_REL_SAME_EFFECT,
				     x, NULL);
		} else {
			const struct ev_rule *by = NULL;
			for (size_t k = 0; k < n && !by; k++)
				if (m[k] != x && ev_rule_always_beats(ev, m[k], x))
					by = m[k];
			if (rel == REL_SUPERSET || by)
				xp_rank_push(j, XP_REL_BEATEN, x, by);
			else
				xp_rank_push(j,
					     x->effect == w->effect ? XP_REL_INCOMPARABLE
								    : XP_REL_INCOMPARABLE_SEVERE,
					     x, NULL);
		}
	}
}
