/* An exact region (region.h) answers by comparing strings what the regex
 * ^ROOT(?:/.*)?$ (or ^ROOT$) answers, matched in full on a path and
 * partially on the path and a slash: checked on every pair of a set of
 * roots and of paths around them (equal, prefixes, children, siblings,
 * trailing slash or newline, regex metacharacters), so that a rule the
 * regex says a command reaches is never missed. */
#include "config.h"

#include "ir/region.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What region.c did before an exact region stopped being a regex. */
static bool by_regex(const char *root, bool tree, const char *a)
{
	struct strbuf rx;
	sb_init(&rx);
	sb_addc(&rx, '^');
	if (strcmp(root, "/") != 0 || !tree)
		region_quote_re(&rx, root);
	if (tree)
		sb_adds(&rx, "(?:/.*)?");
	sb_addc(&rx, '$');
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)rx.buf, rx.len, PCRE2_DOTALL, &ec, &eo, NULL);
	if (!re)
		abort();
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	bool hit = pcre2_match(re, (PCRE2_SPTR)a, strlen(a), 0, 0, md, NULL) >= 0;
	if (!hit) {
		char *below = xasprintf("%s/", strcmp(a, "/") == 0 ? "" : a);
		int rc = pcre2_match(re, (PCRE2_SPTR)below, strlen(below), 0, PCRE2_PARTIAL_HARD,
				     md, NULL);
		hit = rc >= 0 || rc == PCRE2_ERROR_PARTIAL;
		free(below);
	}
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	sb_free(&rx);
	return hit;
}

static const char *const roots[] = {
	"/", "/srv", "/srv/repo", "/srv/repo/src", "/a.b", "/x(y)", "/t+[1]", "/d$", "/e\\f",
};

int main(void)
{
	/* Candidates: every root, each with its prefixes, children, siblings,
	 * trailing slash and newline, and a few that are none of those. */
	const char *extra[] = { "", "/", "rel", "srv", "/s", "/sr", "/srvx", "/srv\n", "/aXb",
				"/a.bc", "/xy", "/x(y)z", "//", "/srv//repo", "\n" };
	char **cand = NULL;
	size_t ncand = 0, cap = 0;
	for (size_t i = 0; i < sizeof(extra) / sizeof(*extra); i++)
		VEC_PUSH(cand, ncand, cap, xstrdup(extra[i]));
	for (size_t r = 0; r < sizeof(roots) / sizeof(*roots); r++) {
		const char *root = roots[r];
		size_t n = strlen(root);
		for (size_t k = 1; k <= n; k++)
			VEC_PUSH(cand, ncand, cap, xstrndup(root, k));
		static const char *const tails[] = { "/", "/q", "/q/r", "x", "\n", "/\n", "y/q" };
		for (size_t t = 0; t < sizeof(tails) / sizeof(*tails); t++)
			VEC_PUSH(cand, ncand, cap, xasprintf("%s%s", root, tails[t]));
	}
	size_t pairs = 0, hits = 0;
	for (size_t r = 0; r < sizeof(roots) / sizeof(*roots); r++) {
		for (int tree = 0; tree < 2; tree++) {
			struct region g;
			ok(region_init(&g, roots[r], NULL, tree) == 0, "region %s%s", roots[r],
			   tree ? " and its tree" : "");
			size_t differ = 0;
			for (size_t c = 0; c < ncand; c++) {
				bool want = by_regex(roots[r], tree, cand[c]);
				bool got = region_reaches(&g, cand[c]);
				if (got != want) {
					differ++;
					printf("#   %s%s on '%s': %d, the regex says %d\n", roots[r],
					       tree ? " (tree)" : "", cand[c], got, want);
				}
				pairs++;
				hits += want;
			}
			ok(differ == 0, "  reaches what the regex reaches, on %zu paths", ncand);
			region_free(&g);
		}
	}
	/* The pairs must exercise both answers, or the comparison says little. */
	ok(hits > 50 && hits < pairs - 50, "%zu of %zu pairs reached", hits, pairs);

	/* A pattern region is the regex itself. */
	struct region p;
	ok(region_init(&p, "/srv/repo", "[^/]*\\.c", false) == 0, "pattern region /srv/repo/*.c");
	ok(region_reaches(&p, "/srv/repo/main.c"), "  reaches a match");
	ok(region_reaches(&p, "/srv"), "  reaches an ancestor");
	ok(!region_reaches(&p, "/srv/repo/main.h"), "  not a non-match");
	ok(!region_reaches(&p, "/srv/repo/sub/x.c"), "  not below a match without the tree");
	region_free(&p);
	ok(region_init(&p, "/srv", "(", false) != 0, "a pattern that does not compile is refused");

	for (size_t c = 0; c < ncand; c++)
		free(cand[c]);
	free(cand);
	return tap_done();
}
