/* Regions of paths (region.h). */
#include "config.h"

#include "region.h"

#include <string.h>

void region_quote_re(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (strchr("\\^$.|?*+()[]{}", *s))
			sb_addc(sb, '\\');
		sb_addc(sb, *s);
	}
}

int region_init(struct region *g, const char *root, const char *pattern, bool tree)
{
	memset(g, 0, sizeof(*g));
	g->root = root;
	g->rn = strlen(root);
	g->exact = !pattern;
	g->tree = tree;
	if (pattern) {
		struct strbuf rx;
		sb_init(&rx);
		sb_addc(&rx, '^');
		if (strcmp(root, "/") != 0)
			region_quote_re(&rx, root);
		sb_addc(&rx, '/');
		sb_adds(&rx, pattern);
		if (tree)
			sb_adds(&rx, "(?:/.*)?");
		sb_addc(&rx, '$');
		int ec;
		PCRE2_SIZE eo;
		g->re = pcre2_compile((PCRE2_SPTR)rx.buf, rx.len, PCRE2_DOTALL, &ec, &eo, NULL);
		sb_free(&rx);
		if (!g->re)
			return -1;
		g->md = pcre2_match_data_create_from_pattern(g->re, NULL);
		sb_init(&g->below); /* an exact region needs no `a/` */
	}
	return 0;
}

void region_free(struct region *g)
{
	pcre2_match_data_free(g->md);
	pcre2_code_free(g->re);
	sb_free(&g->below);
}

static bool starts_with(const char *s, size_t n, const char *prefix, size_t pn)
{
	return n >= pn && memcmp(s, prefix, pn) == 0;
}

/* Is the exact region the whole of a?  As ^ROOT(?:/.*)?$ (or ^ROOT$)
 * would say, with PCRE2's `$`, which also matches before a final newline;
 * the tree of / is ^(?:/.*)?$. */
static bool exact_names(const struct region *g, const char *a, size_t n)
{
	if (g->tree && g->rn == 1 && g->root[0] == '/')
		return n == 0 || a[0] == '/' || (n == 1 && a[0] == '\n');
	size_t m = n && a[n - 1] == '\n' ? n - 1 : n;
	if ((n == g->rn || m == g->rn) && memcmp(a, g->root, g->rn) == 0)
		return true;
	return g->tree && starts_with(a, n, g->root, g->rn) && a[g->rn] == '/';
}

/* Does the exact region name a path that starts with b = a/ (b = / for
 * a = /)?  As the regex's partial match on b would say: b is a prefix of
 * a path the region names.  b is the first pn bytes of a, then '/'. */
static bool exact_names_below(const struct region *g, const char *a, size_t n)
{
	size_t pn = n == 1 && a[0] == '/' ? 0 : n, rn = g->rn;
	if (g->tree && rn == 1 && g->root[0] == '/')
		return pn == 0 || a[0] == '/';
	if (rn >= pn + 1 && memcmp(g->root, a, pn) == 0 && g->root[pn] == '/')
		return true;
	/* b[rn] == '/' needs rn <= pn: at pn it is the added '/'. */
	return g->tree && rn <= pn && memcmp(a, g->root, rn) == 0 && (rn == pn || a[rn] == '/');
}

bool region_reaches(struct region *g, const char *a)
{
	size_t n = strlen(a);
	if (g->exact)
		return exact_names(g, a, n) || exact_names_below(g, a, n);
	g->below.len = 0;
	if (strcmp(a, "/") != 0)
		sb_add(&g->below, a, n);
	sb_addc(&g->below, '/');
	if (pcre2_match(g->re, (PCRE2_SPTR)a, n, 0, 0, g->md, NULL) >= 0)
		return true;
	int rc = pcre2_match(g->re, (PCRE2_SPTR)g->below.buf, g->below.len, 0, PCRE2_PARTIAL_HARD,
			     g->md, NULL);
	return rc >= 0 || rc == PCRE2_ERROR_PARTIAL;
}
