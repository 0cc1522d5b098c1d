/* Which rule decides, against an oracle that reads the rules as a person
 * does.
 *
 *   bench/spec_bench [-n REQUESTS] [-p PROJECTS] [-s SEED] [-t] [-v]
 *
 * The policy has the shape people write: per-project allows of the whole
 * project, /home/ANY-USER/ws/projN and below (about 80% of the rules), and
 * denies of the .env and .pem files at any depth below some of the
 * projects (about 20%),
 * with a few overlapping extras (a subtree allow inside a project, an ask
 * on every key under /home, a denied home with a project allowed inside
 * it).  Random canonical paths are decided by cordon_evaluate and by the
 * oracle, and every difference is counted as a wrong answer.
 *
 * The oracle shares no code with cordon: its own glob matcher (path
 * components, "**" for any number of them, fnmatch(3) within one), and
 * containment by the definition, enumerated: rule A is more specific than
 * rule B when every path of a universe that A matches, B matches too, and
 * not the reverse.  The universe is every path of up to six components
 * drawn, level by level, from the components the rules and requests use
 * plus others that no rule names, so it holds a counterexample to every
 * containment that does not hold.  The decision: of the matching rules,
 * those that no other match is more specific than (or, matching the same
 * paths, more severe than) remain, and the most severe of them decides; no
 * match denies.
 *
 * -t prints TAP (one test: no wrong answer) for make check; -v prints the
 * first wrong answers.  Exit status: 0 when no answer is wrong (or
 * without -t, when the run completed), 1 otherwise, 2 on a usage error. */
#include "config.h"

#include "cordon.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tests/unit/xalloc.h"




static uint64_t rng;

static unsigned rnd(unsigned n)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (unsigned)((z ^ (z >> 31)) % n);
}

/* ---- the oracle's matcher ------------------------------------------------------ */

/* Split "/a/b" into components; returns the count. */
static size_t split(const char *path, char parts[][64], size_t max)
{
	size_t n = 0;
	const char *p = path;
	while (*p == '/')
		p++;
	while (*p && n < max) {
		size_t k = 0;
		while (*p && *p != '/' && k < 63)
			parts[n][k++] = *p++;
		parts[n++][k] = '\0';
		while (*p == '/')
			p++;
	}
	return n;
}

static bool seg_match(char pat[][64], size_t np, char path[][64], size_t nq)
{
	if (np == 0)
		return nq == 0;
	if (strcmp(pat[0], "**") == 0) {
		for (size_t skip = 0; skip <= nq; skip++)
			if (seg_match(pat + 1, np - 1, path + skip, nq - skip))
				return true;
		return false;
	}
	return nq > 0 && fnmatch(pat[0], path[0], 0) == 0 && seg_match(pat + 1, np - 1, path + 1, nq - 1);
}

struct orule {
	char *pattern;
	int effect; /* 0 allow, 1 ask, 2 deny */
	bool literal;
	char parts[8][64];
	size_t nparts;
	uint64_t *in; /* the universe paths it matches */
};

static bool orule_match(const struct orule *r, const char *path)
{
	char q[16][64];
	size_t nq = split(path, q, 16);
	if (r->literal) {
		/* the path itself and everything below it */
		if (nq < r->nparts)
			return false;
		for (size_t i = 0; i < r->nparts; i++)
			if (strcmp(r->parts[i], q[i]) != 0)
				return false;
		return true;
	}
	return seg_match((char(*)[64])r->parts, r->nparts, q, nq);
}

/* ---- the shape ----------------------------------------------------------------- */

static const char *const users[] = { "u", "v", "w" };
static const char *const tails[] = { "a", "src", "b.pem", "x.env", ".env", "k.pem", "main.c" };
static const char *const effects[] = { "allow", "ask", "deny" };

struct shape {
	struct orule *r;
	size_t n, cap;
	unsigned projects;
};

static void add_rule(struct shape *s, int effect, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void add_rule(struct shape *s, int effect, const char *f, ...)
{
	va_list ap;
	char buf[256];
	va_start(ap, f);
	vsnprintf(buf, sizeof(buf), f, ap);
	va_end(ap);
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->r = realloc(s->r, s->cap * sizeof(*s->r));
		if (!s->r)
			exit(2);
	}
	struct orule *r = &s->r[s->n++];
	memset(r, 0, sizeof(*r));
	r->pattern = xstrdup(buf);
	r->effect = effect;
	r->literal = !strpbrk(buf, "*?[");
	r->nparts = split(buf, r->parts, 8);
}

static void build_shape(struct shape *s, unsigned projects)
{
	memset(s, 0, sizeof(*s));
	s->projects = projects;
	for (unsigned p = 0; p < projects; p++) {
		add_rule(s, 0, "/home/*/ws/proj%u/**", p);
		if (p % 5 == 1)
			add_rule(s, 2, "/home/*/ws/proj%u/**/*.env", p);
		if (p % 5 == 3)
			add_rule(s, 2, "/home/*/ws/proj%u/**/*.pem", p);
		if (p % 10 == 6)
			add_rule(s, 2, "/home/u/ws/proj%u/**/*.pem", p);
		if (p % 8 == 2)
			add_rule(s, 0, "/home/*/ws/proj%u/src/**", p);
	}
	/* overlapping extras */
	add_rule(s, 1, "/home/**/*.pem");
	add_rule(s, 2, "/home/v");
	add_rule(s, 0, "/home/v/ws/proj1/**");
	add_rule(s, 1, "/home/*/tmp/*");
}

static char *policy_text(const struct shape *s)
{
	size_t cap = 256 + s->n * 96, len = 0;
	char *t = xmalloc(cap);
	len += (size_t)snprintf(t + len, cap - len, "cordon 1;\npreset \"p\" {\n  sandbox required;\n");
	for (size_t i = 0; i < s->n; i++)
		len += (size_t)snprintf(t + len, cap - len, "  read \"%s\" %s;\n", s->r[i].pattern,
					effects[s->r[i].effect]);
	snprintf(t + len, cap - len, "}\n");
	return t;
}

/* Every path of up to six components, level by level. */
struct universe {
	char **path;
	size_t n, cap;
};

static void uni_add(struct universe *u, char *p)
{
	if (u->n == u->cap) {
		u->cap = u->cap ? 2 * u->cap : 1024;
		u->path = realloc(u->path, u->cap * sizeof(*u->path));
		if (!u->path)
			exit(2);
	}
	u->path[u->n++] = p;
}

static void build_universe(struct universe *u, unsigned projects)
{
	static const char *const l1[] = { "home", "srv" };
	static const char *const l3[] = { "ws", "tmp" };
	memset(u, 0, sizeof(*u));
	uni_add(u, xstrdup("/"));
	for (size_t a = 0; a < 2; a++) {
		uni_add(u, xfmt("/%s", l1[a]));
		for (size_t b = 0; b < 3; b++) {
			uni_add(u, xfmt("/%s/%s", l1[a], users[b]));
			for (size_t c = 0; c < 2; c++) {
				uni_add(u, xfmt("/%s/%s/%s", l1[a], users[b], l3[c]));
				for (unsigned d = 0; d <= projects; d++) {
					char *proj = d < projects ? xfmt("proj%u", d) : xstrdup("other");
					char *base = xfmt("/%s/%s/%s/%s", l1[a], users[b], l3[c], proj);
					uni_add(u, xstrdup(base));
					/* level 3 files too: /home/u/tmp/k.pem */
					for (size_t e = 0; e < 7; e++) {
						uni_add(u, xfmt("%s/%s", base, tails[e]));
						for (size_t f = 0; f < 7; f++)
							uni_add(u, xfmt("%s/%s/%s", base, tails[e], tails[f]));
					}
					free(base);
					free(proj);
				}
				for (size_t e = 0; e < 7; e++)
					uni_add(u, xfmt("/%s/%s/%s/%s", l1[a], users[b], l3[c], tails[e]));
			}
		}
	}
}

/* more specific: a's paths are b's, and not the reverse; or the same paths */
static int orule_cmp(const struct orule *a, const struct orule *b, size_t words)
{
	bool ab = true, ba = true;
	for (size_t i = 0; i < words; i++) {
		ab = ab && (a->in[i] & ~b->in[i]) == 0;
		ba = ba && (b->in[i] & ~a->in[i]) == 0;
	}
	return ab && ba ? 0 : ab ? -1 : ba ? 1 : 2; /* 0 equal, -1 a inside b, 1 b inside a, 2 neither */
}

static int oracle(const struct shape *s, const char *path, size_t words, int *cmp)
{
	size_t m[64], nm = 0;
	for (size_t i = 0; i < s->n && nm < 64; i++)
		if (orule_match(&s->r[i], path))
			m[nm++] = i;
	int best = -1;
	for (size_t i = 0; i < nm; i++) {
		bool beaten = false;
		for (size_t j = 0; j < nm && !beaten; j++) {
			if (i == j)
				continue;
			int c = cmp[m[j] * s->n + m[i]];
			beaten = c == -1 || (c == 0 && s->r[m[j]].effect > s->r[m[i]].effect);
		}
		if (!beaten && s->r[m[i]].effect > best)
			best = s->r[m[i]].effect;
	}
	(void)words;
	return best < 0 ? 2 : best;
}

static char *random_path(unsigned projects)
{
	const char *top = rnd(20) ? "home" : "srv";
	const char *user = users[rnd(3)];
	const char *dir = rnd(10) ? "ws" : "tmp";
	char *proj = rnd(12) ? xfmt("proj%u", rnd(projects)) : xstrdup("other");
	char *p;
	switch (rnd(8)) {
	case 0: p = xfmt("/%s/%s/%s/%s", top, user, dir, proj); break;
	case 1: p = xfmt("/%s/%s/%s/%s", top, user, dir, tails[rnd(7)]); break;
	case 2:
	case 3: p = xfmt("/%s/%s/%s/%s/%s", top, user, dir, proj, tails[rnd(7)]); break;
	default:
		p = xfmt("/%s/%s/%s/%s/%s/%s", top, user, dir, proj, tails[rnd(7)], tails[rnd(7)]);
		break;
	}
	free(proj);
	return p;
}

int main(int argc, char **argv)
{
	unsigned long requests = 100000;
	unsigned projects = 40;
	uint64_t seed = 20261201;
	bool tap = false, verbose = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
			requests = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc)
			projects = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-t") == 0)
			tap = true;
		else if (strcmp(argv[i], "-v") == 0)
			verbose = true;
		else {
			fprintf(stderr, "usage: %s [-n REQUESTS] [-p PROJECTS] [-s SEED] [-t] [-v]\n",
				argv[0]);
			return 2;
		}
	}
	if (!requests || !projects || projects > 1000) {
		fprintf(stderr, "spec_bench: -n wants a positive number, -p one from 1 to 1000\n");
		return 2;
	}
	rng = seed;

	struct shape s;
	struct universe u;
	build_shape(&s, projects);
	build_universe(&u, projects);
	size_t words = (u.n + 63) / 64;
	for (size_t i = 0; i < s.n; i++) {
		s.r[i].in = calloc(words, sizeof(uint64_t));
		if (!s.r[i].in)
			return 2;
		for (size_t k = 0; k < u.n; k++)
			if (orule_match(&s.r[i], u.path[k]))
				s.r[i].in[k / 64] |= (uint64_t)1 << (k % 64);
	}
	int *cmp = xmalloc(s.n * s.n * sizeof(int));
	for (size_t i = 0; i < s.n; i++)
		for (size_t j = 0; j < s.n; j++)
			cmp[i * s.n + j] = orule_cmp(&s.r[i], &s.r[j], words);

	char *text = policy_text(&s);
	cordon_policy *pol = cordon_policy_load_string("spec-bench.cordon", NULL, text, strlen(text));
	if (cordon_policy_error_count(pol)) {
		cordon_policy_print_diagnostics(pol, stderr);
		return 2;
	}
	char *err = NULL;
	cordon_evaluator *ev = cordon_evaluator_new(pol, "p", NULL, &err);
	if (!ev) {
		fprintf(stderr, "spec_bench: %s\n", err);
		return 2;
	}

	unsigned long wrong = 0, count[3][3] = { { 0 } };
	double ns = 0;
	for (unsigned long n = 0; n < requests; n++) {
		char *path = random_path(projects);
		struct cordon_request req = { .op = CORDON_READ, .target = path, .canonical = true };
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		cordon_decision *d = cordon_evaluate(ev, &req, &err);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ns += (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
		int got = d ? (int)cordon_decision_effect(d) : -1;
		int want = oracle(&s, path, words, cmp);
		if (got >= 0)
			count[want][got]++;
		if (got != want) {
			if (verbose && wrong < 10)
				printf("# wrong: read %s: cordon %s (%s), oracle %s\n", path,
				       got >= 0 ? effects[got] : "error",
				       d && cordon_decision_rule(d) ? cordon_decision_rule(d) : "-",
				       effects[want]);
			wrong++;
		}
		cordon_decision_free(d);
		free(path);
	}
	if (tap) {
		printf("%sok 1 - %lu requests over %zu rules (%u projects): %lu wrong answers\n",
		       wrong ? "not " : "", requests, s.n, projects, wrong);
		printf("1..1\n");
	} else {
		printf("rules: %zu (%u projects); universe of the oracle: %zu paths\n", s.n, projects, u.n);
		printf("requests: %lu; wrong answers: %lu\n", requests, wrong);
		printf("oracle \\ cordon   allow      ask     deny\n");
		for (int w = 0; w < 3; w++)
			printf("%-16s %8lu %8lu %8lu\n", effects[w], count[w][0], count[w][1], count[w][2]);
		printf("cordon_evaluate: %.0f ns per decision\n", ns / (double)requests);
	}
	cordon_evaluator_free(ev);
	cordon_policy_free(pol);
	free(text);
	free(cmp);
	for (size_t i = 0; i < s.n; i++) {
		free(s.r[i].pattern);
		free(s.r[i].in);
	}
	free(s.r);
	for (size_t k = 0; k < u.n; k++)
		free(u.path[k]);
	free(u.path);
	return tap ? (wrong ? 1 : 0) : 0;
}
