/* Which path rules can share a target, found by their literal components.
 *
 * Ranking relates every pair of rules that may match one target
 * (eval_rank.c).  Pairing by the literal lead alone makes a policy whose
 * patterns start with a wildcard component ("/home/STAR/ws/projN/STARSTAR",
 * where STAR is one wildcard) one bucket, every pair of it compared:
 * quadratic, and 10,000 such rules took minutes.  Two path patterns can
 * share no target when, at some component both reach before either has a
 * "**" or ends, both components are literal and differ.  This file indexes
 * the patterns by those components in a trie (a literal component is an
 * edge of its own, any other one the node's wildcard edge) and lists, for
 * each rule, the rules that pass that test: the pairs ranking then compares.
 * A request's path is looked up the same way (its components are all
 * literal), so a decision tries the globs that can match it rather than
 * every glob below a shared directory.
 *
 * The test may only ever keep a pair that cannot meet, never drop one
 * that can, so whatever it does not understand is a wildcard: a component
 * with any of * ? [ ] { } \ or empty, and the end of a glob without "**"
 * (which in truth matches no deeper path) ends the comparison as "**"
 * does.  A dropped pair would leave two rules unranked, and ev_pick gives
 * unranked rules to the stricter. */
#include "config.h"

#include "eval.h"
#include "eval_segments.h"

#include <stdlib.h>
#include <string.h>

/* Nodes, edges and the rules at each node live in three arrays: an index
 * of 10,000 patterns has some 17,000 nodes, and a key, a child list and a
 * rule list allocated for each made building it cost more than ranking. */
struct seg_node {
	uint32_t wild;       /* the wildcard edge's node, or 0: none */
	uint32_t kid, last;  /* first and last child (0: none), literal edges and the wildcard's */
	uint32_t next;       /* the parent's next child, or 0 */
	uint32_t here, tail; /* the rules whose comparison ends here (1 + an index of
			      * `at`, 0: none), in the order they were added */
};

struct seg_edge {
	uint64_t hash;   /* of parent and component; 0: an empty slot */
	const char *s;   /* the component, in the text of the rule that made it (borrowed) */
	uint32_t n, parent, child;
};

struct seg_at {
	uint32_t id, next; /* a rule, and the next at its node (1 + index, 0: none) */
};

struct seg_index {
	struct seg_node *nodes;  /* nodes[0] is the root */
	size_t nnodes, nodes_cap;
	struct seg_edge *edges;  /* open addressing by hash, nedges_slots a power of 2 */
	size_t nedges, nedge_slots;
	struct seg_at *at;
	size_t nat, at_cap;
};

static uint64_t edge_hash(uint32_t parent, const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ ((uint64_t)parent * 0x9e3779b97f4a7c15ull);
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	h ^= h >> 29;
	return h | 1; /* never 0, the empty slot */
}

/* The slot of the edge from parent by s[0..n): its own, or the empty one
 * where it would go. */
static struct seg_edge *edge_slot(const struct seg_index *x, uint64_t h, uint32_t parent,
				  const char *s, size_t n)
{
	size_t mask = x->nedge_slots - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct seg_edge *e = &x->edges[i];
		if (!e->hash || (e->hash == h && e->parent == parent && e->n == n &&
				 memcmp(e->s, s, n) == 0))
			return e;
	}
}

static void edges_grow(struct seg_index *x)
{
	size_t n = x->nedge_slots ? 2 * x->nedge_slots : 64;
	struct seg_edge *old = x->edges;
	size_t nold = x->nedge_slots;
	x->edges = xcalloc(n, sizeof(*x->edges));
	x->nedge_slots = n;
	for (size_t i = 0; i < nold; i++)
		if (old[i].hash) {
			size_t mask = n - 1, k = old[i].hash & mask;
			while (x->edges[k].hash)
				k = (k + 1) & mask;
			x->edges[k] = old[i];
		}
	free(old);
}

/* A component that matches exactly itself. */
static bool component_literal(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		switch (s[i]) {
		case '*': case '?': case '[': case ']': case '{': case '}': case '\\':
			return false;
		default:
			break;
		}
	return true;
}

bool seg_indexable(const struct matcher *m, enum ir_op op)
{
	return ir_op_on_paths(op) && (m->kind == IR_PAT_LITERAL || m->kind == IR_PAT_GLOB ||
					 m->kind == IR_PAT_EXACT) &&
	       m->text && m->text[0] == '/' && !m->regex && !m->alias;
}

static uint32_t node_new(struct seg_index *x, uint32_t parent)
{
	struct seg_node n = {0};
	VEC_PUSH(x->nodes, x->nnodes, x->nodes_cap, n);
	uint32_t c = (uint32_t)(x->nnodes - 1);
	if (c) {
		struct seg_node *p = &x->nodes[parent];
		if (p->last)
			x->nodes[p->last].next = c;
		else
			p->kid = c;
		p->last = c;
	}
	return c;
}

static uint32_t child(struct seg_index *x, uint32_t parent, const char *s, size_t n)
{
	if (!component_literal(s, n)) {
		if (!x->nodes[parent].wild) {
			uint32_t c = node_new(x, parent);
			x->nodes[parent].wild = c;
		}
		return x->nodes[parent].wild;
	}
	if ((x->nedges + 1) * 2 > x->nedge_slots)
		edges_grow(x);
	uint64_t h = edge_hash(parent, s, n);
	struct seg_edge *e = edge_slot(x, h, parent, s, n);
	if (e->hash)
		return e->child;
	uint32_t c = node_new(x, parent);
	*e = (struct seg_edge){ h, s, (uint32_t)n, parent, c };
	x->nedges++;
	return c;
}

/* The next component of a path or pattern at *p (up to end), or false at
 * its end. */
static bool next_component(const char **p, const char *end, const char **s, size_t *n)
{
	if (*p >= end || **p != '/')
		return false;
	*s = *p + 1;
	const char *slash = memchr(*s, '/', (size_t)(end - *s));
	*n = (size_t)((slash ? slash : end) - *s);
	*p = *s + *n;
	return true;
}

static bool ends_comparison(const char *s, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (s[i] == '*' && s[i + 1] == '*')
			return true;
	return false;
}

/* text is the rule's own (it outlives the index, which borrows its
 * components). */
static void seg_insert(struct seg_index *x, const char *text, uint32_t id)
{
	uint32_t at = 0;
	const char *p = text, *end = text + strlen(text), *s;
	size_t n;
	while (next_component(&p, end, &s, &n) && !ends_comparison(s, n))
		at = child(x, at, s, n);
	struct seg_at a = { id, 0 };
	VEC_PUSH(x->at, x->nat, x->at_cap, a);
	uint32_t k = (uint32_t)x->nat;
	struct seg_node *nd = &x->nodes[at];
	if (nd->tail)
		x->at[nd->tail - 1].next = k;
	else
		nd->here = k;
	nd->tail = k;
}

static void push_here(const struct seg_index *x, const struct seg_node *nd, struct seg_pairs *out)
{
	for (uint32_t k = nd->here; k; k = x->at[k - 1].next)
		VEC_PUSH(out->ids, out->n, out->cap, x->at[k - 1].id);
}

static void collect_subtree(const struct seg_index *x, uint32_t at, struct seg_pairs *out)
{
	const struct seg_node *nd = &x->nodes[at];
	push_here(x, nd, out);
	for (uint32_t c = nd->kid; c; c = x->nodes[c].next)
		collect_subtree(x, c, out);
}

/* The rules that may share a target with a pattern whose components from
 * p on are still to compare, below node at. */
static void seg_query(const struct seg_index *x, uint32_t at, const char *p, const char *end,
		      struct seg_pairs *out)
{
	const struct seg_node *nd = &x->nodes[at];
	const char *s;
	size_t n;
	if (!next_component(&p, end, &s, &n) || ends_comparison(s, n)) {
		collect_subtree(x, at, out);
		return;
	}
	push_here(x, nd, out);
	if (!component_literal(s, n)) {
		for (uint32_t c = nd->kid; c; c = x->nodes[c].next)
			seg_query(x, c, p, end, out);
		return;
	}
	if (x->nedges) {
		const struct seg_edge *e = edge_slot(x, edge_hash(at, s, n), at, s, n);
		if (e->hash)
			seg_query(x, e->child, p, end, out);
	}
	if (nd->wild)
		seg_query(x, nd->wild, p, end, out);
}

struct seg_index *seg_index_new(void)
{
	struct seg_index *x = xcalloc(1, sizeof(*x));
	node_new(x, 0);
	return x;
}

void seg_index_add(struct seg_index *x, const struct matcher *m, uint32_t id)
{
	seg_insert(x, m->text, id);
}

void seg_index_meeting(const struct seg_index *x, const char *text, size_t len,
		       struct seg_pairs *out)
{
	out->n = 0;
	seg_query(x, 0, text, text + len, out);
}

void seg_index_free(struct seg_index *x)
{
	if (!x)
		return;
	free(x->nodes);
	free(x->edges);
	free(x->at);
	free(x);
}
