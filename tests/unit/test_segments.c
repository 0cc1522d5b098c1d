/* The index of path rules by literal components (lib/decide/eval_segments.c)
 * against a linear scan.
 *
 * A decision looks up the path globs that may match a request in the
 * index, and ranking relates only the pairs of rules the index pairs; a
 * rule the index left out would be a rule that never decides, or two
 * rules never ranked.  So: random path patterns (globs of *, ?, [ab], "**"
 * and literal components, literal and exact paths, some starting with a
 * wildcard component as "/home/STAR/ws/..." does) are indexed, and for
 * every canonical path of a universe (components a, b, ab, c, where c is
 * in no pattern) the rules whose matcher matches it (the linear scan)
 * must all be among those the index returns for it, each once; and for
 * every pair of rules that match one path of the universe, the index must
 * pair them (each rule's lookup by its own text returns the other).
 * The test also counts how much the index leaves out, so that an index
 * that returns everything is seen for what it is.
 *
 *   CORDON_SEGMENTS_SEED, CORDON_SEGMENTS_ROUNDS (default 40) */
#include "config.h"

#include "decide/eval_segments.h"
#include "ir/match.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#define NRULES 60
#define MAXDEPTH 4

static uint64_t rng;

static void bail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void bail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("Bail out! ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	exit(1);
}

static unsigned rnd(unsigned n)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (unsigned)((z ^ (z >> 31)) % n);
}

static char **paths;
static size_t npaths, paths_cap;

/* Every path of up to MAXDEPTH components over the universe's names. */
static void enumerate(char *buf, size_t len, unsigned depth)
{
	static const char *const names[] = { "a", "b", "ab", "c" };
	if (depth > 0) {
		if (npaths == paths_cap) {
			paths_cap = paths_cap ? 2 * paths_cap : 1024;
			paths = xrealloc(paths, paths_cap * sizeof(*paths));
		}
		paths[npaths++] = xstrndup(buf, len);
	}
	if (depth == MAXDEPTH)
		return;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i]);
		buf[len] = '/';
		memcpy(buf + len + 1, names[i], n);
		enumerate(buf, len + 1 + n, depth + 1);
	}
}

static char *random_pattern(enum ir_pat_kind *kind)
{
	static const char *const comps[] = { "a", "b", "ab", "*", "?", "**", "*b", "a*", "[ab]",
					     "a?" };
	struct strbuf sb;
	sb_init(&sb);
	unsigned k = rnd(6);
	*kind = k == 0 ? IR_PAT_LITERAL : k == 1 ? IR_PAT_EXACT : IR_PAT_GLOB;
	for (unsigned c = 1 + rnd(MAXDEPTH); c > 0; c--) {
		sb_addc(&sb, '/');
		sb_adds(&sb, comps[*kind == IR_PAT_GLOB ? rnd(10) : rnd(3)]);
	}
	if (*kind == IR_PAT_GLOB && !strpbrk(sb.buf, "*?["))
		*kind = IR_PAT_LITERAL;
	return sb_steal(&sb);
}

struct rule {
	char *text;
	struct matcher m;
	uint64_t *in; /* which paths it matches */
};

static bool has(const struct seg_pairs *p, uint32_t id, size_t *times)
{
	*times = 0;
	for (size_t i = 0; i < p->n; i++)
		*times += p->ids[i] == id;
	return *times > 0;
}

struct counts {
	unsigned long missed, twice, pairs_missed, looked, returned, matched;
};

static void round_once(pcre2_match_data *md, size_t words, struct counts *c)
{
	struct rule r[NRULES];
	struct seg_index *x = seg_index_new();
	struct seg_pairs got = { 0 };
	for (uint32_t i = 0; i < NRULES; i++) {
		enum ir_pat_kind kind;
		char *err = NULL;
		int missing = -1;
		r[i].text = random_pattern(&kind);
		struct ir_pattern ip = { kind, r[i].text, NULL };
		if (matcher_build(&r[i].m, IR_READ, &ip, NULL, &missing, &err) != MATCH_OK)
			bail("pattern '%s' does not build: %s", r[i].text, err ? err : "");
		if (!seg_indexable(&r[i].m, IR_READ))
			bail("pattern '%s' is not indexable", r[i].text);
		seg_index_add(x, &r[i].m, i);
		r[i].in = xcalloc(words, sizeof(uint64_t));
		for (size_t p = 0; p < npaths; p++) {
			struct target t;
			char *why = NULL;
			if (target_prepare(&t, IR_READ, paths[p], strlen(paths[p]), &why) != 0)
				bail("path '%s': %s", paths[p], why);
			if (matcher_match(&r[i].m, &t, md))
				r[i].in[p / 64] |= (uint64_t)1 << (p % 64);
			target_free(&t);
		}
	}
	/* requests: the linear scan's matches are all in the lookup, once */
	for (size_t p = 0; p < npaths; p++) {
		seg_index_meeting(x, paths[p], strlen(paths[p]), &got);
		c->looked++;
		c->returned += got.n;
		for (uint32_t i = 0; i < NRULES; i++) {
			size_t times;
			bool in = (r[i].in[p / 64] >> (p % 64)) & 1;
			bool found = has(&got, i, &times);
			c->matched += in;
			if (in && !found && c->missed++ < 5)
				printf("# '%s' matches '%s', the index does not return it\n",
				       r[i].text, paths[p]);
			if (times > 1 && c->twice++ < 5)
				printf("# '%s' returned %zu times for '%s'\n", r[i].text, times,
				       paths[p]);
		}
	}
	/* ranking: rules that share a path are paired */
	for (uint32_t i = 0; i < NRULES; i++) {
		seg_index_meeting(x, r[i].m.text, strlen(r[i].m.text), &got);
		for (uint32_t j = 0; j < NRULES; j++) {
			bool meet = false;
			size_t times;
			for (size_t w = 0; w < words && !meet; w++)
				meet = (r[i].in[w] & r[j].in[w]) != 0;
			if (meet && !has(&got, j, &times) && c->pairs_missed++ < 5)
				printf("# '%s' and '%s' share a path, the index does not pair them\n",
				       r[i].text, r[j].text);
		}
	}
	free(got.ids);
	seg_index_free(x);
	for (uint32_t i = 0; i < NRULES; i++) {
		matcher_free(&r[i].m);
		free(r[i].text);
		free(r[i].in);
	}
}

int main(void)
{
	const char *s = getenv("CORDON_SEGMENTS_SEED"), *n = getenv("CORDON_SEGMENTS_ROUNDS");
	unsigned long rounds = n ? strtoul(n, NULL, 10) : 40;
	char buf[MAXDEPTH * 3 + 1];
	rng = s ? strtoull(s, NULL, 10) : 20261207;
	enumerate(buf, 0, 0);
	size_t words = (npaths + 63) / 64;
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	struct counts c = { 0 };
	for (unsigned long k = 0; k < rounds; k++)
		round_once(md, words, &c);
	printf("# %lu rounds of %d rules, %zu paths each: %lu matches; the index returned "
	       "%lu rules a path of %d\n",
	       rounds, NRULES, npaths, c.matched, c.looked ? c.returned / c.looked : 0, NRULES);
	ok(c.matched > 0, "the random rules match paths of the universe (%lu)", c.matched);
	ok(c.missed == 0, "every rule that matches a path is returned by its lookup (%lu missed)",
	   c.missed);
	ok(c.twice == 0, "no rule is returned twice for one path (%lu)", c.twice);
	ok(c.pairs_missed == 0, "every two rules that share a path are paired (%lu missed)",
	   c.pairs_missed);
	ok(c.returned < c.looked * NRULES,
	   "the index leaves rules out (%lu of %lu returned)", c.returned, c.looked * NRULES);
	pcre2_match_data_free(md);
	for (size_t i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	return tap_done();
}
