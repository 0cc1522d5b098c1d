#include "config.h"

#include "contain.h"

#include "contain_skel.h"
#include "match.h"

#include "base/once.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const contain_rel_names[] = { "incomparable", "equal", "subset", "superset" };

/* The product search gives up past this many states: "cannot tell". */
#define GPROG_BUDGET 20000

/* ---- automata ----------------------------------------------------------------------
 *
 * A glob is a chain: state i is "before the i-th element".  A character or
 * set moves to a new state; a star is a new state looping on its set; the
 * subtree of a path (a "**" component, or what lies below a literal path) is
 * (empty | "/" anything).  State 0 starts, the last state accepts. */

typedef uint64_t byteset[4];

struct gedge {
	uint32_t from, to, set;
};

/* The automaton, built by g_finish the first time the pattern is compared:
 * an evaluator builds a gprog for each pattern and compares few of them,
 * most of those by their skeletons alone. */
struct gauto {
	uint32_t nstates;
	struct gedge *edges;
	size_t nedges, edges_cap;
	uint32_t (*eps)[2];
	size_t neps, eps_cap;
	byteset *sets;
	size_t nsets, sets_cap;
	int16_t *single; /* single[i]: the one byte of set i, or -1 */
	uint32_t *by_byte; /* while building: by_byte[c] is 1 + the set of c alone, or 0 */
	size_t single_cap;
	char *witness; /* the shortest target it matches, or NULL: none */
	struct strbuf guess[2]; /* witness candidates: stars empty, stars "x" */
	unsigned char *cls; /* 256 byte classes */
	size_t ncls;
	size_t words;       /* 64-bit words in a state set */
	uint64_t *closure;  /* nstates * words: the epsilon closure of each state */
	uint32_t *first;    /* nstates + 1: edges of state s are first[s]..first[s+1] */
};

struct gprog {
	enum gprog_mode mode;
	/* Known from the text when it is built (g_shape): */
	char *lead; /* what every target starts with */
	size_t lead_len;
	/* the lead and then the subtree below it, nothing else: a literal
	 * path, "X/" "**", "/" "**" (lead "") */
	bool subtree;
	bool literal;
	char *src;     /* the text, and which of its bytes are literal */
	bool *src_lit; /* (NULL: all of them, a literal) until constructed */
	size_t src_n;
	/* path patterns: the shape the shortcuts read, made at the first
	 * comparison that asks (skel_of): most rules of an evaluator are
	 * never compared, and a hook call made 125 skeletons for none */
	struct skeleton skel;
	atomic_bool skel_built;
	atomic_bool finished;
	struct gauto *au; /* NULL until finished */
};

static void set_add(byteset s, unsigned c)
{
	s[c >> 6] |= (uint64_t)1 << (c & 63);
}

static bool set_has(const byteset s, unsigned c)
{
	return (s[c >> 6] >> (c & 63)) & 1;
}

/* The byte of a set of one byte, or -1. */
static int set_single(const byteset s)
{
	int count = 0, one = -1;
	for (int w = 0; w < 4 && count < 2; w++) {
		for (uint64_t bits = s[w]; bits && count < 2; bits &= bits - 1, count++)
			one = w * 64 + __builtin_ctzll(bits);
	}
	return count == 1 ? one : -1;
}

static uint32_t g_set(struct gprog *g, const byteset s)
{
	/* most sets are one byte of the text: found by the byte while building */
	int one = set_single(s);
	if (one >= 0 && g->au->by_byte && g->au->by_byte[one])
		return g->au->by_byte[one] - 1;
	for (size_t i = 0; one < 0 && i < g->au->nsets; i++)
		if (memcmp(g->au->sets[i], s, sizeof(byteset)) == 0)
			return (uint32_t)i;
	grow_array((void **)&g->au->sets, &g->au->sets_cap, g->au->nsets + 1, sizeof(byteset));
	grow_array((void **)&g->au->single, &g->au->single_cap, g->au->nsets + 1, sizeof(*g->au->single));
	memcpy(g->au->sets[g->au->nsets], s, sizeof(byteset));
	g->au->single[g->au->nsets] = (int16_t)one;
	if (one >= 0 && g->au->by_byte)
		g->au->by_byte[one] = (uint32_t)g->au->nsets + 1;
	return (uint32_t)g->au->nsets++;
}

static uint32_t g_state(struct gprog *g)
{
	return g->au->nstates++;
}

static void g_edge(struct gprog *g, uint32_t from, uint32_t to, const byteset s)
{
	struct gedge e = { from, to, g_set(g, s) };
	VEC_PUSH(g->au->edges, g->au->nedges, g->au->edges_cap, e);
}

static void g_eps(struct gprog *g, uint32_t from, uint32_t to)
{
	grow_array((void **)&g->au->eps, &g->au->eps_cap, g->au->neps + 1, sizeof(*g->au->eps));
	g->au->eps[g->au->neps][0] = from;
	g->au->eps[g->au->neps][1] = to;
	g->au->neps++;
}

static void set_all(byteset s)
{
	memset(s, 0xff, sizeof(byteset));
}

static void set_fold(byteset s, enum gprog_mode mode)
{
	if (mode != GPROG_HOST)
		return;
	for (unsigned c = 'A'; c <= 'Z'; c++) {
		if (set_has(s, c) || set_has(s, c + 32)) {
			set_add(s, c);
			set_add(s, c + 32);
		}
	}
}

/* One element that consumes one character of s. */
static void g_char(struct gprog *g, uint32_t *cur, byteset s, int lead)
{
	uint32_t t = g_state(g);
	set_fold(s, g->mode);
	g_edge(g, *cur, t, s);
	{
		unsigned pick = lead >= 0 ? (unsigned)lead : set_has(s, 'x') ? 'x' : 0;
		for (unsigned c = 'a'; !pick && c < 256; c++)
			if (set_has(s, c) && c != '/' && c != '.')
				pick = c;
		for (unsigned c = 1; !pick && c < 256; c++)
			if (set_has(s, c))
				pick = c;
		sb_addc(&g->au->guess[0], (char)(pick ? pick : 'x'));
		sb_addc(&g->au->guess[1], (char)(pick ? pick : 'x'));
	}
	*cur = t;
}

static void g_star(struct gprog *g, uint32_t *cur, byteset s)
{
	uint32_t t = g_state(g);
	sb_addc(&g->au->guess[1], 'x');
	g_eps(g, *cur, t);
	g_edge(g, t, t, s);
	*cur = t;
}

/* (empty | "/" anything) */
static void g_tree(struct gprog *g, uint32_t *cur)
{
	byteset slash = { 0 }, any;
	uint32_t in = g_state(g), end = g_state(g);
	set_add(slash, '/');
	set_all(any);
	g_eps(g, *cur, end);
	g_edge(g, *cur, in, slash);
	g_edge(g, in, in, any);
	g_eps(g, in, end);
	*cur = end;
}

static void g_literal_char(struct gprog *g, uint32_t *cur, unsigned char c)
{
	byteset s = { 0 };
	set_add(s, c);
	g_char(g, cur, s, c);
}

/* A [...] set as match.c hands it to pcre2; false for a form that is not
 * modelled here (an empty set). */
static bool parse_set(const char *s, size_t i, size_t close, byteset out)
{
	size_t j = i + 1;
	bool neg = false;
	memset(out, 0, sizeof(byteset));
	if (s[j] == '!' || s[j] == '^') {
		neg = true;
		j++;
	}
	if (j >= close)
		return false;
	while (j < close) {
		unsigned lo = (unsigned char)s[j], hi = lo;
		if (j + 2 < close && s[j + 1] == '-') {
			hi = (unsigned char)s[j + 2];
			j += 3;
		} else {
			j++;
		}
		if (hi < lo)
			return false;
		for (unsigned c = lo; c <= hi; c++)
			set_add(out, c);
	}
	if (neg)
		for (int w = 0; w < 4; w++)
			out[w] = ~out[w];
	return true;
}

static void g_finish(struct gprog *g);
static void g_witness(struct gprog *g);
static void own_classes(struct gprog *g);

/* The elements of a glob, as the automaton reads them. */
enum g_elem {
	E_CHAR,     /* the byte c */
	E_ONE,      /* '?': one byte of a component */
	E_SET,      /* [...]: one byte of the set */
	E_STAR,     /* '*': bytes of a component */
	E_STAR_ANY, /* '**' in a component: any bytes */
	E_TREE,     /* "/" "**" as a component: the subtree */
	E_BAD,      /* a form not modelled (an empty set) */
};

/* The element of the glob s at *i, *i moved past it. */
static enum g_elem next_elem(const char *s, const bool *lit, size_t n, bool path, size_t *i,
			     byteset set, unsigned char *c)
{
	size_t at = (*i)++;
	*c = (unsigned char)s[at];
	if (lit[at])
		return E_CHAR;
	if (path && *c == '/' && at + 2 < n && s[at + 1] == '*' && s[at + 2] == '*' &&
	    !lit[at + 1] && !lit[at + 2] && (at + 3 == n || s[at + 3] == '/')) {
		*i += 2;
		return E_TREE;
	}
	if (*c == '*') {
		if (at + 1 < n && s[at + 1] == '*' && !lit[at + 1]) {
			(*i)++;
			return E_STAR_ANY;
		}
		return E_STAR;
	}
	if (*c == '?')
		return E_ONE;
	if (*c != '[')
		return E_CHAR;
	const char *close = strchr(s + at + 1 + (s[at + 1] == ']'), ']');
	if (!close)
		return E_CHAR;
	if (s + at + 1 + (s[at + 1] == ']') > close || !parse_set(s, at, (size_t)(close - s), set))
		return E_BAD;
	*i = (size_t)(close - s) + 1;
	return E_SET;
}

/* What is known from the text alone: its lead, whether it is the lead's
 * subtree, its skeleton.  False for a form not modelled. */
static bool g_shape(struct gprog *g, const char *s, const bool *lit, size_t n)
{
	bool path = g->mode == GPROG_PATH, leading = true;
	g->lead = xmalloc(n + 1);
	g->lead_len = 0;
	if (g->literal) {
		/* "/" is every path: the subtree of "" */
		if (!(path && n == 1 && s[0] == '/'))
			for (size_t i = 0; i < n; i++)
				g->lead[g->lead_len++] =
					(char)(g->mode == GPROG_HOST ? tolower((unsigned char)s[i]) : s[i]);
		g->subtree = path;
	}
	for (size_t i = 0; !g->literal && i < n;) {
		byteset set;
		unsigned char c;
		enum g_elem e = next_elem(s, lit, n, path, &i, set, &c);
		if (e == E_BAD)
			return false;
		if (e == E_CHAR && leading) {
			g->lead[g->lead_len++] = (char)(g->mode == GPROG_HOST ? tolower(c) : c);
		} else {
			g->subtree = leading && e == E_TREE;
			leading = false;
		}
	}
	g->lead[g->lead_len] = '\0';
	return true;
}

static void build_skel(void *arg)
{
	struct gprog *g = arg;
	skel_build(&g->skel, g->src, g->literal ? NULL : g->src_lit, g->src_n);
}

/* A path pattern's skeleton, made once. */
static const struct skeleton *skel_of(const struct gprog *g)
{
	once_build(&((struct gprog *)g)->skel_built, build_skel, (void *)g);
	return &g->skel;
}

/* The automaton of the text, at its first comparison. */
static void g_construct(struct gprog *g)
{
	const char *s = g->src;
	const bool *lit = g->src_lit;
	size_t n = g->src_n;
	bool path = g->mode == GPROG_PATH;
	uint32_t cur;
	byteset any, comp;
	g->au = xcalloc(1, sizeof(*g->au));
	sb_init(&g->au->guess[0]);
	sb_init(&g->au->guess[1]);
	g->au->by_byte = xcalloc(256, sizeof(*g->au->by_byte));
	grow_array((void **)&g->au->edges, &g->au->edges_cap, n + 2, sizeof(*g->au->edges));
	set_all(any);
	set_all(comp);
	comp['/' >> 6] &= ~((uint64_t)1 << ('/' & 63));
	if (!path)
		memcpy(comp, any, sizeof(byteset));
	cur = g_state(g);
	if (g->literal && path && n == 1 && s[0] == '/') {
		g_literal_char(g, &cur, '/');
		g_star(g, &cur, any);
	} else if (g->literal) {
		for (size_t i = 0; i < n; i++)
			g_literal_char(g, &cur, (unsigned char)s[i]);
		if (path)
			g_tree(g, &cur);
	}
	if (g->literal) /* its shortest target is its text, when that is one */
		g->au->witness = xstrndup(s, n);
	for (size_t i = 0; !g->literal && i < n;) {
		byteset set;
		unsigned char c;
		switch (next_elem(s, lit, n, path, &i, set, &c)) {
		case E_CHAR: g_literal_char(g, &cur, c); break;
		case E_TREE: g_tree(g, &cur); break;
		case E_STAR: g_star(g, &cur, comp); break;
		case E_STAR_ANY: g_star(g, &cur, any); break;
		case E_ONE: memcpy(set, comp, sizeof(byteset)); /* fall through */
		case E_SET: g_char(g, &cur, set, -1); break;
		case E_BAD: break; /* g_shape refused it already */
		}
	}
	free(g->au->by_byte);
	g->au->by_byte = NULL;
	/* The skeleton reads src_lit too: made now if it is not yet (under
	 * the lock of every once-built thing, which this build holds). */
	if (g->mode == GPROG_PATH && !atomic_load_explicit(&g->skel_built, memory_order_acquire)) {
		build_skel(g);
		atomic_store_explicit(&g->skel_built, true, memory_order_release);
	}
	free(g->src_lit);
	g->src_lit = NULL;
}

struct gprog *gprog_build(const char *s, const bool *lit, size_t n, enum gprog_mode mode,
			  bool literal)
{
	struct gprog *g = xcalloc(1, sizeof(*g));
	g->mode = mode;
	g->literal = literal;
	g->src = xstrndup(s, n);
	g->src_n = n;
	if (!literal) {
		g->src_lit = xmalloc(n ? n : 1);
		memcpy(g->src_lit, lit, n);
	}
	if (!g_shape(g, g->src, g->src_lit, n)) {
		gprog_free(g);
		return NULL;
	}
	return g;
}

static void gauto_free(struct gauto *au)
{
	if (!au)
		return;
	free(au->edges);
	free(au->eps);
	free(au->sets);
	free(au->single);
	free(au->by_byte);
	free(au->witness);
	sb_free(&au->guess[0]);
	sb_free(&au->guess[1]);
	free(au->closure);
	free(au->first);
	free(au->cls);
	free(au);
}

void gprog_free(struct gprog *g)
{
	if (!g)
		return;
	gauto_free(g->au);
	free(g->lead);
	free(g->src);
	free(g->src_lit);
	skel_free(&g->skel);
	free(g);
}

static int edge_cmp(const void *pa, const void *pb)
{
	const struct gedge *a = pa, *b = pb;
	return a->from != b->from ? (a->from < b->from ? -1 : 1) : 0;
}

static void closure_of(struct gprog *g, uint32_t s, uint64_t *out)
{
	if ((out[s >> 6] >> (s & 63)) & 1)
		return;
	out[s >> 6] |= (uint64_t)1 << (s & 63);
	for (size_t i = 0; i < g->au->neps; i++)
		if (g->au->eps[i][0] == s)
			closure_of(g, g->au->eps[i][1], out);
}

static void g_finish(struct gprog *g)
{
	g_construct(g);
	g->au->words = (g->au->nstates + 63) / 64;
	g->au->closure = xcalloc((size_t)g->au->nstates * g->au->words, sizeof(uint64_t));
	for (uint32_t s = 0; s < g->au->nstates; s++)
		closure_of(g, s, g->au->closure + (size_t)s * g->au->words);
	sort_items(g->au->edges, g->au->nedges, sizeof(*g->au->edges), edge_cmp);
	g->au->first = xcalloc(g->au->nstates + 1, sizeof(uint32_t));
	for (size_t i = 0; i < g->au->nedges; i++)
		g->au->first[g->au->edges[i].from + 1]++;
	for (uint32_t s = 0; s < g->au->nstates; s++)
		g->au->first[s + 1] += g->au->first[s];
	own_classes(g);
	g_witness(g);
	/* the guesses served the witness; an automaton is kept for the
	 * evaluator's life, so it keeps no more than it needs */
	sb_free(&g->au->guess[0]);
	sb_free(&g->au->guess[1]);
}

static void finish(void *g)
{
	g_finish(g);
}

/* g, finished by the first comparison (explain compares while deciding). */
static const struct gprog *ready(const struct gprog *g)
{
	once_build(&((struct gprog *)g)->finished, finish, (void *)g);
	return g;
}

static bool accepts(const struct gprog *g, const uint64_t *set)
{
	uint32_t f = g->au->nstates - 1;
	return (set[f >> 6] >> (f & 63)) & 1;
}

/* out = the states reached from `set` on byte c; false when none. */
static bool step(const struct gprog *g, const uint64_t *set, unsigned c, uint64_t *out)
{
	bool any = false;
	memset(out, 0, g->au->words * sizeof(uint64_t));
	for (size_t w = 0; w < g->au->words; w++) {
		for (uint64_t bits = set[w]; bits; bits &= bits - 1) {
			uint32_t s = (uint32_t)(w * 64 + (unsigned)__builtin_ctzll(bits));
			for (uint32_t e = g->au->first[s]; e < g->au->first[s + 1]; e++) {
				if (!set_has(g->au->sets[g->au->edges[e].set], c))
					continue;
				const uint64_t *cl = g->au->closure + (size_t)g->au->edges[e].to * g->au->words;
				for (size_t k = 0; k < g->au->words; k++)
					out[k] |= cl[k];
				any = true;
			}
		}
	}
	return any;
}

/* ---- the targets a request can have -------------------------------------------------
 *
 * Paths are canonical: "/", or components after single slashes, none of
 * them "." or "..", no trailing slash.  Words have no blanks; hosts are
 * lowercase; nothing has a NUL. */

enum { K_DEAD = -1 };

static int k_step(enum gprog_mode mode, int k, unsigned c)
{
	if (c == 0)
		return K_DEAD;
	switch (mode) {
	case GPROG_PATH:
		switch (k) {
		case 0: return c == '/' ? 1 : K_DEAD;
		case 1:
		case 2: return c == '/' ? K_DEAD : c == '.' ? 4 : 3;
		case 3: return c == '/' ? 2 : 3;
		case 4: return c == '/' ? K_DEAD : c == '.' ? 5 : 3;
		default: return c == '/' ? K_DEAD : 3;
		}
	case GPROG_WORD:
		return isspace((int)c) ? K_DEAD : 1;
	case GPROG_HOST:
		return c >= 'A' && c <= 'Z' ? K_DEAD : 1;
	default:
		return 1;
	}
}

static bool k_accepts(enum gprog_mode mode, int k)
{
	return mode == GPROG_PATH ? k == 1 || k == 3 : k == 1;
}

static void own_classes(struct gprog *g)
{
	byteset blank_upper = { 0 };
	for (unsigned c = 0; c < 256; c++)
		if (isspace((int)c) || (c >= 'A' && c <= 'Z'))
			set_add(blank_upper, c);
	/* Sets of one byte (most of them) give that byte a class of its own;
	 * the other sets split what remains. */
	g->au->cls = xcalloc(256, 1);
	g->au->ncls = 1;
	const unsigned char own[3] = { 0, '/', '.' };
	for (size_t i = 0; i < g->au->nsets + 3; i++) {
		int one = i >= g->au->nsets ? own[i - g->au->nsets] : g->au->single[i];
		if (one < 0)
			continue;
		if (g->au->cls[one] == 0)
			g->au->cls[one] = (unsigned char)g->au->ncls++;
	}
	for (size_t i = 0; i <= g->au->nsets; i++) {
		const uint64_t *set = i < g->au->nsets ? g->au->sets[i] : blank_upper;
		int map[256][2];
		size_t next = 0;
		if (i < g->au->nsets && g->au->single[i] >= 0)
			continue;
		for (size_t k = 0; k < g->au->ncls; k++)
			map[k][0] = map[k][1] = -1;
		for (unsigned c = 0; c < 256; c++) {
			int in = set_has(set, c);
			if (map[g->au->cls[c]][in] < 0)
				map[g->au->cls[c]][in] = (int)next++;
			g->au->cls[c] = (unsigned char)map[g->au->cls[c]][in];
		}
		g->au->ncls = next;
	}
}

static size_t byte_classes(const struct gprog *a, const struct gprog *b, unsigned char *rep)
{
	size_t n = 0;
	if (a == b) {
		bool got[256] = { false };
		for (unsigned c = 0; c < 256; c++)
			if (!got[a->au->cls[c]]) {
				got[a->au->cls[c]] = true;
				rep[n++] = (unsigned char)c;
			}
		return n;
	}
	/* a pair of classes is new the first time a byte shows it */
	uint8_t *pairs = xcalloc(a->au->ncls * b->au->ncls, 1);
	for (unsigned c = 0; c < 256; c++) {
		uint8_t *p = &pairs[a->au->cls[c] * b->au->ncls + b->au->cls[c]];
		if (!*p) {
			*p = 1;
			rep[n++] = (unsigned char)c;
		}
	}
	free(pairs);
	return n;
}

/* A set of visited product states, each `w` words long. */
struct visited {
	uint64_t *keys;
	uint32_t *slots; /* index + 1, 0 empty */
	size_t n, cap, nslots, w;
};

static uint64_t key_hash(const uint64_t *k, size_t w)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	for (size_t i = 0; i < w; i++) {
		h ^= k[i] + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
		h *= 0xbf58476d1ce4e5b9ULL;
	}
	return h ^ (h >> 31);
}

/* Add k; false when it was there already. */
static bool visit(struct visited *v, const uint64_t *k)
{
	if ((v->n + 1) * 2 > v->nslots) {
		size_t ns = v->nslots ? v->nslots * 2 : 256;
		uint32_t *slots = xcalloc(ns, sizeof(*slots));
		for (size_t i = 0; i < v->n; i++) {
			size_t h = key_hash(v->keys + i * v->w, v->w) & (ns - 1);
			while (slots[h])
				h = (h + 1) & (ns - 1);
			slots[h] = (uint32_t)i + 1;
		}
		free(v->slots);
		v->slots = slots;
		v->nslots = ns;
	}
	size_t h = key_hash(k, v->w) & (v->nslots - 1);
	while (v->slots[h]) {
		if (memcmp(v->keys + (v->slots[h] - 1) * v->w, k, v->w * sizeof(uint64_t)) == 0)
			return false;
		h = (h + 1) & (v->nslots - 1);
	}
	grow_array((void **)&v->keys, &v->cap, (v->n + 1) * v->w, sizeof(uint64_t));
	memcpy(v->keys + v->n * v->w, k, v->w * sizeof(uint64_t));
	v->slots[h] = (uint32_t)++v->n;
	return true;
}

/* The shortest target g matches, found breadth first: a cheap test of
 * inclusion (b must match it) before the product search. */
static bool gprog_accepts(const struct gprog *g, const char *s);

static bool is_target(const struct gprog *g, const char *s)
{
	int k = 0;
	for (const char *c = s; *c && k != K_DEAD; c++)
		k = k_step(g->mode, k, (unsigned char)*c);
	return k != K_DEAD && k_accepts(g->mode, k);
}

static void g_witness(struct gprog *g)
{
	/* a guess from the pattern's own text is nearly always right */
	for (int i = 0; i < 2 && !g->au->witness; i++)
		if (g->au->guess[i].buf && is_target(g, g->au->guess[i].buf) &&
		    gprog_accepts(g, g->au->guess[i].buf))
			g->au->witness = xstrdup(g->au->guess[i].buf);
	if (g->au->witness) {
		int k = 0;
		for (const char *c = g->au->witness; *c && k != K_DEAD; c++)
			k = k_step(g->mode, k, (unsigned char)*c);
		if (k == K_DEAD || !k_accepts(g->mode, k)) {
			free(g->au->witness);
			g->au->witness = NULL;
		}
		return;
	}
	unsigned char rep[256];
	size_t ncls = byte_classes(g, g, rep);
	size_t w = g->au->words + 1;
	struct visited v = { .w = w };
	uint32_t *parent = NULL;
	unsigned char *via = NULL;
	size_t pn = 0, pcap = 0, vn = 0, vcap = 0, found = SIZE_MAX;
	uint64_t *k = xcalloc(w, sizeof(uint64_t));
	memcpy(k, g->au->closure, g->au->words * sizeof(uint64_t));
	visit(&v, k);
	VEC_PUSH(parent, pn, pcap, 0);
	VEC_PUSH(via, vn, vcap, 0);
	for (size_t i = 0; i < v.n && found == SIZE_MAX && v.n < GPROG_BUDGET; i++) {
		for (size_t c = 0; c < ncls; c++) {
			const uint64_t *cur = v.keys + i * w;
			int ks = k_step(g->mode, (int)cur[w - 1], rep[c]);
			if (ks == K_DEAD || !step(g, cur, rep[c], k))
				continue;
			k[w - 1] = (uint64_t)ks;
			if (!visit(&v, k))
				continue;
			VEC_PUSH(parent, pn, pcap, (uint32_t)i);
			VEC_PUSH(via, vn, vcap, rep[c]);
			if (accepts(g, k) && k_accepts(g->mode, ks)) {
				found = v.n - 1;
				break;
			}
		}
	}
	if (found != SIZE_MAX) {
		size_t len = 0;
		for (size_t x = found; x; x = parent[x])
			len++;
		g->au->witness = xcalloc(len + 1, 1);
		for (size_t x = found; x; x = parent[x])
			g->au->witness[--len] = (char)via[x];
	}
	free(parent);
	free(via);
	free(k);
	free(v.keys);
	free(v.slots);
}

/* Does g match s?  Every target of g starts with its lead, which is a
 * chain of states: state i follows the first i characters. */
static bool gprog_accepts(const struct gprog *g, const char *s)
{
	size_t n = strlen(s);
	if (n < g->lead_len || memcmp(s, g->lead, g->lead_len) != 0)
		return false;
	uint64_t small[16];
	uint64_t *buf = g->au->words <= 8 ? small : xcalloc(2 * g->au->words, sizeof(uint64_t));
	uint64_t *cur = buf, *next = buf + g->au->words;
	bool ok = true;
	memcpy(cur, g->au->closure + g->lead_len * g->au->words, g->au->words * sizeof(uint64_t));
	for (s += g->lead_len; *s && ok; s++) {
		ok = step(g, cur, (unsigned char)*s, next);
		memcpy(cur, next, g->au->words * sizeof(uint64_t));
	}
	ok = ok && accepts(g, cur);
	if (buf != small)
		free(buf);
	return ok;
}

static int product_subset(const struct gprog *a, const struct gprog *b);

/* Is every target that a matches also matched by b?  1 yes, 0 no, -1 the
 * search grew past its bound.  Shapes that decide it at once first. */
static int gprog_subset(const struct gprog *a, const struct gprog *b)
{
	int quick = a->mode == GPROG_PATH && b->mode == GPROG_PATH
			    ? skel_subset(skel_of(a), skel_of(b), b->lead, b->lead_len)
			    : -1;
	if (quick >= 0)
		return quick;
	a = ready(a);
	b = ready(b);
	if (b->subtree && b->mode == GPROG_PATH) {
		if (b->lead_len == 0)
			return 1; /* every path */
		if (a->lead_len > b->lead_len && memcmp(a->lead, b->lead, b->lead_len) == 0 &&
		    a->lead[b->lead_len] == '/')
			return 1;
	}
	if (!a->au->witness)
		return -1; /* matches nothing: not worth a rank */
	if (!gprog_accepts(b, a->au->witness))
		return 0;
	return product_subset(a, b);
}

/* The product of a, b and the targets, searched breadth first for a
 * target that a matches and b does not (subset: 1 none, 0 found) or that
 * both match (meet: 1 found, 0 none); -1 past the bound. */
static int product_search(const struct gprog *a, const struct gprog *b, bool meet)
{
	a = ready(a);
	b = ready(b);
	unsigned char rep[256];
	size_t ncls = byte_classes(a, b, rep);
	size_t wa = a->au->words, wb = b->au->words, w = wa + wb + 1;
	struct visited v = { .w = w };
	uint64_t *k = xcalloc(w, sizeof(uint64_t));
	int result = -2;
	memcpy(k, a->au->closure, wa * sizeof(uint64_t));
	memcpy(k + wa, b->au->closure, wb * sizeof(uint64_t));
	k[w - 1] = 0;
	visit(&v, k);
	for (size_t i = 0; i < v.n && result == -2; i++) {
		if (v.n > GPROG_BUDGET) {
			result = -1;
			break;
		}
		for (size_t c = 0; c < ncls; c++) {
			const uint64_t *cur = v.keys + i * w;
			int ks = k_step(a->mode, (int)cur[w - 1], rep[c]);
			if (ks == K_DEAD || !step(a, cur, rep[c], k))
				continue;
			cur = v.keys + i * w;
			bool in_b = step(b, cur + wa, rep[c], k + wa);
			if (meet && !in_b)
				continue;
			k[w - 1] = (uint64_t)ks;
			if (accepts(a, k) && k_accepts(a->mode, ks) && accepts(b, k + wa) == meet) {
				result = meet ? 1 : 0;
				break;
			}
			visit(&v, k);
		}
	}
	free(k);
	free(v.keys);
	free(v.slots);
	return result == -2 ? (meet ? 0 : 1) : result;
}

static int product_subset(const struct gprog *a, const struct gprog *b)
{
	return product_search(a, b, false);
}

/* ---- patterns ------------------------------------------------------------------------ */

static enum contain_rel from_subsets(int ab, int ba)
{
	if (ab == 1 && ba == 1)
		return REL_EQUAL;
	if (ab == 1 && ba == 0)
		return REL_SUBSET;
	if (ba == 1 && ab == 0)
		return REL_SUPERSET;
	return REL_INCOMPARABLE;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool leads_meet(const struct gprog *a, const struct gprog *b)
{
	size_t n = a->lead_len < b->lead_len ? a->lead_len : b->lead_len;
	return memcmp(a->lead, b->lead, n) == 0;
}

static enum contain_rel prog_relate(const struct gprog *a, const struct gprog *b)
{
	if (!leads_meet(a, b))
		return REL_INCOMPARABLE; /* no target in common */
	return from_subsets(gprog_subset(a, b), gprog_subset(b, a));
}

static enum contain_rel path_relate(const struct matcher *a, const struct matcher *b)
{
	if (a->kind == IR_PAT_LITERAL && b->kind == IR_PAT_LITERAL) {
		if (strcmp(a->text, b->text) == 0)
			return REL_EQUAL;
		if (path_under(a->text, b->text))
			return REL_SUBSET;
		if (path_under(b->text, a->text))
			return REL_SUPERSET;
		return REL_INCOMPARABLE;
	}
	return prog_relate(a->prog, b->prog);
}

/* Does the exec pattern match the parts that cannot be analysed? */
static bool exec_any_opaque(const struct matcher *m)
{
	return m->nwords == 1 && m->word_re[0] && strcmp(m->words[0], "*") == 0;
}

/* a <= b for exec patterns: 1, 0 or -1 */
static int exec_subset(const struct matcher *a, const struct matcher *b)
{
	int r = 1;
	if (b->nwords > a->nwords || (b->re && !same_str(a->regex, b->regex)))
		return 0;
	/* what each matches of the opaque parts */
	if (a->nwords == 0 && b->nwords != 0)
		return 0;
	if (exec_any_opaque(a) && !exec_any_opaque(b) && b->nwords != 0)
		return 0;
	for (size_t i = 0; i < b->nwords && r != 0; i++) {
		if (!a->word_prog[i] || !b->word_prog[i])
			return -1;
		int s = gprog_subset(a->word_prog[i], b->word_prog[i]);
		r = s < r ? s : r;
	}
	return r;
}

static enum contain_rel exec_relate(const struct matcher *a, const struct matcher *b)
{
	if (a->kind == IR_PAT_OPAQUE || b->kind == IR_PAT_OPAQUE) {
		if (a->kind == b->kind)
			return REL_EQUAL;
		/* `exec opaque` is the part of "*" that cannot be analysed */
		if (a->kind == IR_PAT_OPAQUE)
			return exec_any_opaque(b) && !b->re ? REL_SUBSET : REL_INCOMPARABLE;
		return exec_any_opaque(a) && !a->re ? REL_SUPERSET : REL_INCOMPARABLE;
	}
	if (a->nwords && b->nwords && a->word_prog[0] && b->word_prog[0] &&
	    !leads_meet(a->word_prog[0], b->word_prog[0]))
		return REL_INCOMPARABLE;
	return from_subsets(exec_subset(a, b), exec_subset(b, a));
}

static enum contain_rel net_relate(const struct matcher *a, const struct matcher *b)
{
	bool ports_ab = b->port < 0 || a->port == b->port;
	bool ports_ba = a->port < 0 || a->port == b->port;
	if (!a->prog || !b->prog)
		return REL_INCOMPARABLE;
	if (!leads_meet(a->prog, b->prog))
		return REL_INCOMPARABLE;
	int ab = ports_ab ? gprog_subset(a->prog, b->prog) : 0;
	int ba = ports_ba ? gprog_subset(b->prog, a->prog) : 0;
	return from_subsets(ab, ba);
}

enum contain_rel matcher_relate(const struct matcher *a, const struct matcher *b, enum ir_op op)
{
	bool path = ir_op_on_paths(op);
	/* A regex is comparable only with the same regex. */
	if ((!a->text && a->kind != IR_PAT_OPAQUE) || (!b->text && b->kind != IR_PAT_OPAQUE))
		return !a->text && !b->text && a->kind == b->kind && same_str(a->regex, b->regex)
			       ? REL_EQUAL
			       : REL_INCOMPARABLE;
	if (op == IR_EXEC)
		return exec_relate(a, b);
	if (a->kind == b->kind && same_str(a->text, b->text) && same_str(a->regex, b->regex))
		return REL_EQUAL;
	if ((path && (a->regex || b->regex)) || !a->prog || !b->prog)
		return REL_INCOMPARABLE;
	if (path)
		return path_relate(a, b);
	if (op == IR_NET)
		return net_relate(a, b);
	return prog_relate(a->prog, b->prog);
}

bool matcher_disjoint(const struct matcher *a, const struct matcher *b, enum ir_op op)
{
	bool path = ir_op_on_paths(op);
	if (!path || !a->text || !b->text || a->regex || b->regex || !a->prog || !b->prog)
		return false;
	if (a->kind == IR_PAT_LITERAL && b->kind == IR_PAT_LITERAL)
		return !path_under(a->text, b->text) && !path_under(b->text, a->text);
	if (!leads_meet(a->prog, b->prog))
		return true;
	return product_search(a->prog, b->prog, true) == 0;
}

const char *matcher_lead(const struct matcher *m, size_t *len)
{
	const struct gprog *g = m->prog;
	if (m->nwords && m->word_prog)
		g = m->word_prog[0];
	if (!g || (!m->text && m->kind != IR_PAT_OPAQUE) || m->kind == IR_PAT_OPAQUE)
		return NULL;
	*len = g->lead_len;
	return g->lead;
}
