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
#include "base/strmap.h"

#include <stdlib.h>
#include <string.h>

struct seg_node {
	uint32_t wild;                /* the wildcard edge's node, or 0: none */
	uint32_t *kids;               /* every child, literal edges and the wildcard's */
	size_t nkids, kids_cap;
	uint32_t *here;               /* rules whose comparison ends at this node */
	size_t nhere, here_cap;
};

struct seg_index {
	struct seg_node *nodes;       /* nodes[0] is the root */
	size_t nnodes, nodes_cap;
	struct strmap edges;          /* the parent's index (4 bytes), then the
				       * component -> the child's index */
};

/* The key of the edge from parent by component s[0..n), in key. */
static size_t edge_key(struct strbuf *key, uint32_t parent, const char *s, size_t n)
{
	key->len = 0;
	sb_add(key, (const char *)&parent, sizeof(parent));
	sb_add(key, s, n);
	return key->len;
}

/* A component that matches exactly itself. */
static bool component_literal(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strchr("*?[]{}\\", s[i]))
			return false;
	return true;
}

bool seg_indexable(const struct matcher *m, enum ir_op op)
{
	return ir_op_on_paths(op) && (m->kind == IR_PAT_LITERAL || m->kind == IR_PAT_GLOB ||
					 m->kind == IR_PAT_EXACT) &&
	       m->text && m->text[0] == '/' && !m->regex && !m->alias;
}

static uint32_t node_new(struct seg_index *x)
{
	struct seg_node n = {0};
	VEC_PUSH(x->nodes, x->nnodes, x->nodes_cap, n);
	return (uint32_t)(x->nnodes - 1);
}

static uint32_t child(struct seg_index *x, uint32_t parent, const char *s, size_t n,
		      struct strbuf *key)
{
	if (!component_literal(s, n)) {
		if (!x->nodes[parent].wild) {
			uint32_t c = node_new(x);
			x->nodes[parent].wild = c;
			VEC_PUSH(x->nodes[parent].kids, x->nodes[parent].nkids,
				 x->nodes[parent].kids_cap, c);
		}
		return x->nodes[parent].wild;
	}
	size_t keylen = edge_key(key, parent, s, n);
	const struct strmap_entry *e = strmap_get(&x->edges, key->buf, keylen);
	if (e)
		return e->items[0];
	uint32_t c = node_new(x);
	strmap_add(&x->edges, key->buf, keylen, c);
	VEC_PUSH(x->nodes[parent].kids, x->nodes[parent].nkids, x->nodes[parent].kids_cap, c);
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
	return n >= 2 && memmem(s, n, "**", 2) != NULL;
}

static void seg_insert(struct seg_index *x, const char *text, uint32_t id)
{
	uint32_t at = 0;
	const char *p = text, *end = text + strlen(text), *s;
	size_t n;
	struct strbuf key = {0};
	while (next_component(&p, end, &s, &n) && !ends_comparison(s, n))
		at = child(x, at, s, n, &key);
	sb_free(&key);
	VEC_PUSH(x->nodes[at].here, x->nodes[at].nhere, x->nodes[at].here_cap, id);
}

static void collect_subtree(const struct seg_index *x, uint32_t at, struct seg_pairs *out)
{
	const struct seg_node *nd = &x->nodes[at];
	for (size_t i = 0; i < nd->nhere; i++)
		VEC_PUSH(out->ids, out->n, out->cap, nd->here[i]);
	for (size_t i = 0; i < nd->nkids; i++)
		collect_subtree(x, nd->kids[i], out);
}

/* The rules that may share a target with a pattern whose components from
 * p on are still to compare, below node at. */
static void seg_query(const struct seg_index *x, uint32_t at, const char *p, const char *end,
		      struct strbuf *key, struct seg_pairs *out)
{
	const struct seg_node *nd = &x->nodes[at];
	const char *s;
	size_t n;
	if (!next_component(&p, end, &s, &n) || ends_comparison(s, n)) {
		collect_subtree(x, at, out);
		return;
	}
	for (size_t i = 0; i < nd->nhere; i++)
		VEC_PUSH(out->ids, out->n, out->cap, nd->here[i]);
	if (!component_literal(s, n)) {
		for (size_t i = 0; i < nd->nkids; i++)
			seg_query(x, nd->kids[i], p, end, key, out);
		return;
	}
	size_t keylen = edge_key(key, at, s, n);
	const struct strmap_entry *e = strmap_get(&x->edges, key->buf, keylen);
	if (e)
		seg_query(x, e->items[0], p, end, key, out);
	if (nd->wild)
		seg_query(x, nd->wild, p, end, key, out);
}

struct seg_index *seg_index_new(void)
{
	struct seg_index *x = xcalloc(1, sizeof(*x));
	strmap_init(&x->edges);
	node_new(x);
	return x;
}

void seg_index_add(struct seg_index *x, const struct matcher *m, uint32_t id)
{
	seg_insert(x, m->text, id);
}

void seg_index_meeting(const struct seg_index *x, const char *text, size_t len,
		       struct seg_pairs *out)
{
	struct strbuf key = {0};
	out->n = 0;
	seg_query(x, 0, text, text + len, &key, out);
	sb_free(&key);
}

void seg_index_free(struct seg_index *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->nnodes; i++) {
		free(x->nodes[i].kids);
		free(x->nodes[i].here);
	}
	free(x->nodes);
	strmap_free(&x->edges);
	free(x);
}
