/* Containment of path and tool-name globs (lib/ir/contain.c) against
 * brute force.
 *
 * Random globs over a small alphabet ('a', 'b', '.', with *, ?, [ab],
 * [!a] and ** components, literal and exact paths too) are compiled by the
 * evaluator's matcher, and every pair is related by matcher_relate.  The
 * oracle is the definition, enumerated: every canonical path of up to
 * MAXLEN bytes over '/', 'a', 'b', 'c', '.' ('c' stands for every byte no
 * pattern names), matched with the pcre2 program the evaluator decides
 * with; tool names likewise, every string of up to MAXLEN - 1 bytes, where
 * '*' and '?' match any byte.  A relation that claims containment (subset,
 * superset or equal) must hold on every enumerated path, and a strict one
 * must have a path that shows it strict: a false claim would let a rule win
 * where it should not.  A pair the relation calls incomparable must have a
 * path that shows it, unless the shortest such path is longer than the
 * enumeration: those are counted, and must stay a small share (the relation
 * is exact; the enumeration is bounded).  Each relation is also computed
 * with the shortcuts that answer from the patterns' texts turned off
 * (contain_shortcuts), and must be the same; a second round of path globs
 * made of whole components (literals, lone "*", "**") gives them the
 * shapes they read.
 *
 *   CORDON_CONTAIN_SEED, CORDON_CONTAIN_PAIRS (default 1500) */
#include "config.h"

#include "ir/contain.h"
#include "ir/match.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#define MAXLEN 7

static uint64_t rng;

static unsigned rnd(unsigned n)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (unsigned)((z ^ (z >> 31)) % n);
}

/* ---- the universe ------------------------------------------------------------------- */

static char **paths;
static size_t npaths, paths_cap;
static enum ir_op universe_op = IR_READ;

static bool canonical(const char *s, size_t n)
{
	if (n == 0 || s[0] != '/')
		return false;
	if (n == 1)
		return true;
	if (s[n - 1] == '/')
		return false;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && s[j] != '/')
			j++;
		size_t len = j - i - 1;
		if (len == 0 || (len == 1 && s[i + 1] == '.') ||
		    (len == 2 && s[i + 1] == '.' && s[i + 2] == '.'))
			return false;
		i = j;
	}
	return true;
}

static void enumerate(char *buf, size_t n)
{
	/* 'c' is in no set a pattern names but the negated ones */
	static const char alphabet[] = "/abc.";
	bool path = universe_op == IR_READ;
	if (path ? canonical(buf, n) : n > 0) {
		if (npaths == paths_cap) {
			paths_cap = paths_cap ? 2 * paths_cap : 4096;
			paths = xrealloc(paths, paths_cap * sizeof(*paths));
		}
		paths[npaths++] = xstrndup(buf, n);
	}
	if (n == (path ? MAXLEN : MAXLEN - 1))
		return;
	for (int i = 0; i < 5; i++) {
		buf[n] = alphabet[i];
		enumerate(buf, n + 1);
	}
}

/* ---- random globs -------------------------------------------------------------------- */

/* A tool name glob: '*' and '?' match any byte, '/' and '.' too. */
static char *random_tool_glob(bool *literal)
{
	static const char *const atoms[] = { "a", "b", ".", "/", "a", "*", "?", "[ab]", "[!a]" };
	struct strbuf sb;
	sb_init(&sb);
	*literal = rnd(4) == 0;
	for (unsigned k = 1 + rnd(4); k > 0; k--)
		sb_adds(&sb, atoms[*literal ? rnd(5) : rnd(9)]);
	if (!*literal && !strpbrk(sb.buf, "*?["))
		*literal = true;
	return sb_steal(&sb);
}

/* Whole components, the shapes the shortcuts read: literals, lone "*",
 * "**", and components with a wildcard inside. */
static bool skeletal;

static char *random_skeletal_glob(bool *literal)
{
	static const char *const comps[] = { "a", "b", "ab", "*", "*", "**", "*a", "a*", "?" };
	struct strbuf sb;
	sb_init(&sb);
	*literal = rnd(5) == 0;
	for (unsigned c = 1 + rnd(3); c > 0; c--) {
		sb_addc(&sb, '/');
		sb_adds(&sb, comps[*literal ? rnd(3) : rnd(9)]);
	}
	if (!*literal && !strpbrk(sb.buf, "*?["))
		*literal = true;
	return sb_steal(&sb);
}

static char *random_glob(bool *literal)
{
	if (universe_op == IR_TOOL)
		return random_tool_glob(literal);
	if (skeletal)
		return random_skeletal_glob(literal);
	static const char *const atoms[] = { "a", "b", ".", "a", "b", "*", "?", "[ab]", "[!a]" };
	struct strbuf sb;
	sb_init(&sb);
	*literal = rnd(5) == 0;
	unsigned ncomp = 1 + rnd(3);
	for (unsigned c = 0; c < ncomp; c++) {
		sb_addc(&sb, '/');
		if (!*literal && rnd(4) == 0) {
			sb_adds(&sb, "**");
			continue;
		}
		unsigned natoms = 1 + rnd(3);
		for (unsigned k = 0; k < natoms; k++) {
			const char *a = atoms[*literal ? rnd(5) : rnd(9)];
			sb_adds(&sb, a);
		}
	}
	if (!*literal && !strpbrk(sb.buf, "*?["))
		*literal = true;
	return sb_steal(&sb);
}

struct pat {
	char *text;
	bool exact;
	struct matcher m;
	uint64_t *in;
	size_t count;
};

static bool build(struct pat *p, size_t words, pcre2_match_data *md)
{
	bool literal;
	char *err = NULL;
	int missing = -1;
	p->text = random_glob(&literal);
	/* half the literal paths are exact: the path alone */
	p->exact = universe_op == IR_READ && literal && rnd(2) == 0;
	struct ir_pattern ip = { p->exact ? IR_PAT_EXACT : literal ? IR_PAT_LITERAL : IR_PAT_GLOB,
				 p->text, NULL };
	if (matcher_build(&p->m, universe_op, &ip, NULL, &missing, &err) != MATCH_OK) {
		free(err);
		matcher_free(&p->m);
		free(p->text);
		return false;
	}
	p->in = xcalloc(words, sizeof(uint64_t));
	p->count = 0;
	for (size_t i = 0; i < npaths; i++) {
		struct target t;
		char *why = NULL;
		if (target_prepare(&t, universe_op, paths[i], strlen(paths[i]), &why) != 0) {
			free(why);
			continue;
		}
		if (matcher_match(&p->m, &t, md)) {
			p->in[i / 64] |= (uint64_t)1 << (i % 64);
			p->count++;
		}
		target_free(&t);
	}
	return true;
}

static void pat_free(struct pat *p)
{
	matcher_free(&p->m);
	free(p->in);
	free(p->text);
}

/* a's paths are all b's */
static bool inside(const struct pat *a, const struct pat *b, size_t words)
{
	for (size_t i = 0; i < words; i++)
		if (a->in[i] & ~b->in[i])
			return false;
	return true;
}

static void run(enum ir_op op, unsigned long pairs)
{
	char buf[MAXLEN + 1];
	universe_op = op;
	enumerate(buf, 0);
	size_t words = (npaths + 63) / 64;
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	const char *what = op == IR_READ ? "path" : "tool";
	printf("# %s globs: %zu targets of up to %d bytes; %lu pairs\n", what, npaths,
	       op == IR_READ ? MAXLEN : MAXLEN - 1, pairs);

	unsigned long wrong_claim = 0, missed = 0, compared = 0, rel_count[4] = { 0 };
	unsigned long shortcut_differs = 0;
	unsigned long exact_inside = 0;
	for (unsigned long k = 0; k < pairs; k++) {
		struct pat a, b;
		if (!build(&a, words, md))
			continue;
		if (!build(&b, words, md)) {
			pat_free(&a);
			continue;
		}
		if (a.count == 0 || b.count == 0) {
			/* nothing to compare: a pattern no target here meets */
			pat_free(&a);
			pat_free(&b);
			continue;
		}
		compared++;
		enum contain_rel rel = matcher_relate(&a.m, &b.m, op);
		/* the answers from the texts are the automata's */
		contain_shortcuts(false);
		enum contain_rel slow = matcher_relate(&a.m, &b.m, op);
		contain_shortcuts(true);
		if (slow != rel && shortcut_differs++ < 5)
			printf("# the shortcuts say \"%s\" %s \"%s\", the automata %s\n", a.text,
			       contain_rel_names[rel], b.text, contain_rel_names[slow]);
		bool ab = inside(&a, &b, words), ba = inside(&b, &a, words);
		bool ok_claim = rel == REL_EQUAL      ? ab && ba
				: rel == REL_SUBSET   ? ab && !ba
				: rel == REL_SUPERSET ? ba && !ab
						      : true;
		rel_count[rel]++;
		if ((a.exact && rel == REL_SUBSET) || (b.exact && rel == REL_SUPERSET))
			exact_inside++;
		if (!ok_claim) {
			if (wrong_claim++ < 5)
				printf("# wrong: %s\"%s\" %s %s\"%s\", but by enumeration a<=b %d, "
				       "b<=a %d\n",
				       a.exact ? "exact " : "", a.text, contain_rel_names[rel],
				       b.exact ? "exact " : "", b.text, ab, ba);
		} else if (rel == REL_INCOMPARABLE && (ab || ba)) {
			if (missed++ < 3)
				printf("# incomparable, but no target here shows it: \"%s\" and \"%s\"\n",
				       a.text, b.text);
		}
		pat_free(&a);
		pat_free(&b);
	}
	printf("# compared %lu: %lu equal, %lu subset, %lu superset, %lu incomparable\n", compared,
	       rel_count[REL_EQUAL], rel_count[REL_SUBSET], rel_count[REL_SUPERSET],
	       rel_count[REL_INCOMPARABLE]);
	ok(compared > pairs / 2, "%s: most random pairs match some target (%lu of %lu)", what,
	   compared, pairs);
	ok(rel_count[REL_SUBSET] + rel_count[REL_SUPERSET] > 0 && rel_count[REL_EQUAL] > 0,
	   "%s: the pairs include containment and equality", what);
	if (op == IR_READ)
		ok(exact_inside > 0, "%s: exact paths are found inside other patterns (%lu pairs)",
		   what, exact_inside);
	ok(shortcut_differs == 0,
	   "%s: the relation from the texts' skeletons is the automata's (%lu differ)", what,
	   shortcut_differs);
	ok(wrong_claim == 0,
	   "%s: every containment claimed holds on every target, strictly where claimed "
	   "(%lu wrong)",
	   what, wrong_claim);
	ok(missed * 50 <= rel_count[REL_INCOMPARABLE],
	   "%s: nearly every pair called incomparable has a target here that shows it "
	   "(%lu of %lu without)",
	   what, missed, rel_count[REL_INCOMPARABLE]);
	pcre2_match_data_free(md);
	for (size_t i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	paths = NULL;
	npaths = paths_cap = 0;
}

int main(void)
{
	const char *s = getenv("CORDON_CONTAIN_SEED"), *n = getenv("CORDON_CONTAIN_PAIRS");
	unsigned long pairs = n ? strtoul(n, NULL, 10) : 1500;
	rng = s ? strtoull(s, NULL, 10) : 20261201;
	run(IR_READ, pairs);
	skeletal = true;
	run(IR_READ, pairs);
	skeletal = false;
	run(IR_TOOL, pairs);
	return tap_done();
}
