/* Containment of path patterns read from their texts, by components.
 *
 * Most pairs an evaluator ranks are a project's subtree and a pattern
 * inside it ("/home/STAR/ws/p/STARSTAR" and "/home/STAR/ws/p/STARSTAR/STAR.env",
 * STAR a wildcard): the automata of contain.c answer them exactly, but
 * each answer that is "yes" searches the whole product of the two, some
 * 160,000 instructions.  These answers need only the texts: the pattern's
 * leading components, a target built from its text, and the literal tail
 * every target ends with.  They are the automata's answers wherever they
 * answer (tests/unit/test_contain compares the two on random patterns);
 * everything else goes to the automata. */
#include "config.h"

#include "contain.h"
#include "contain_skel.h"

#include <stdlib.h>
#include <string.h>

/* Is s[i] one of the glob's own characters (a wildcard, a set's bracket)? */
static bool skel_wild(const char *s, const bool *lit, size_t i)
{
	return lit && !lit[i] && (s[i] == '*' || s[i] == '?' || s[i] == '[' || s[i] == ']');
}

/* The component s[start..end): 1 a literal, 2 a lone "*", 0 anything else. */
static int skel_kind(const char *s, const bool *lit, size_t start, size_t end)
{
	if (end == start)
		return 0;
	if (end == start + 1 && s[start] == '*' && lit && !lit[start])
		return 2;
	for (size_t i = start; i < end; i++)
		if (skel_wild(s, lit, i))
			return 0;
	return 1;
}

/* Is the component s[start..end), after a separator at start - 1, the
 * subtree "/" "**" as gprog_build reads it? */
static bool skel_tree(const char *s, const bool *lit, size_t start, size_t end)
{
	return lit && end == start + 2 && s[start] == '*' && s[start + 1] == '*' && !lit[start] &&
	       !lit[start + 1] && !lit[start - 1];
}

/* Write the component s[start..end) at w, its wildcards as 'x'; the end
 * of what was written, or NULL when it has no canonical instance here (a
 * set, "", ".", ".."). */
static char *skel_instance(char *w, const char *s, const bool *lit, size_t start, size_t end)
{
	bool wild = false;
	for (size_t i = start; i < end; i++) {
		if (lit && !lit[i] && (s[i] == '[' || s[i] == ']'))
			return NULL;
		wild = wild || skel_wild(s, lit, i);
	}
	size_t n = end - start;
	if (!wild && (n == 0 || (n == 1 && s[start] == '.') ||
		      (n == 2 && s[start] == '.' && s[start + 1] == '.')))
		return NULL;
	*w++ = '/';
	for (size_t i = start; i < end; i++)
		*w++ = skel_wild(s, lit, i) ? 'x' : s[i];
	return w;
}

/* The witness of the whole text: each "/" "**" left out, every other
 * component instantiated.  NULL when some component has no instance. */
static char *skel_witness(const char *s, const bool *lit, size_t n, size_t *len)
{
	char *w = xmalloc(n + 2), *at = w;
	for (size_t i = 0; i < n && at;) {
		size_t end = i + 1;
		while (end < n && s[end] != '/')
			end++;
		if (s[i] != '/')
			at = NULL;
		else if (!skel_tree(s, lit, i + 1, end))
			at = skel_instance(at, s, lit, i + 1, end);
		i = end;
	}
	if (n == 1 && s[0] == '/')
		at = w; /* "/" is its own target */
	if (!at) {
		free(w);
		return NULL;
	}
	if (at == w)
		*at++ = '/';
	*at = '\0';
	*len = (size_t)(at - w);
	return w;
}

/* lit NULL: a literal path, itself and the subtree below it. */
void skel_build(struct skeleton *k, const char *s, const bool *lit, size_t n)
{
	k->text = s; /* the gprog's own copy */
	k->text_len = n;
	k->rest = SKEL_MORE;
	size_t i = 0, slashes = 0;
	for (size_t j = 0; j < n; j++)
		slashes += s[j] == '/';
	k->comp = xmalloc((slashes ? slashes : 1) * sizeof(*k->comp));
	while (i < n && s[i] == '/' && !(lit == NULL && n == 1)) {
		size_t end = i + 1;
		while (end < n && s[end] != '/')
			end++;
		if (skel_tree(s, lit, i + 1, end)) {
			k->rest = end == n ? SKEL_TREE : SKEL_MORE;
			break;
		}
		int kind = skel_kind(s, lit, i + 1, end);
		if (!kind)
			break;
		k->comp[k->ncomp++] =
			(struct skel_comp){ (uint32_t)(i + 1), (uint32_t)(end - i - 1), kind == 2 };
		i = end;
	}
	if (i == n || (lit == NULL && n == 1 && s[0] == '/'))
		k->rest = lit ? SKEL_END : SKEL_TREE;
	/* a literal path is one target: itself, when it is canonical */
	k->witness = skel_witness(s, lit, n, &k->witness_len);
	if (lit)
		while (k->tail_len < n && !skel_wild(s, lit, n - 1 - k->tail_len))
			k->tail_len++;
}

void skel_free(struct skeleton *k)
{
	free(k->comp);
	free(k->witness);
}

static bool skel_shortcuts_on = true;

void contain_shortcuts(bool on)
{
	skel_shortcuts_on = on;
}

/* Do a's first components fit b's, one by one: a literal only the same
 * literal, a lone "*" any component of a? */
static bool skel_fits(const struct skeleton *a, const struct skeleton *b)
{
	if (a->ncomp < b->ncomp)
		return false;
	for (size_t i = 0; i < b->ncomp; i++) {
		const struct skel_comp *x = &a->comp[i], *y = &b->comp[i];
		if (y->star)
			continue;
		if (x->star || x->len != y->len ||
		    memcmp(a->text + x->off, b->text + y->off, x->len) != 0)
			return false;
	}
	return true;
}

/* a <= b answered from the texts: 1, 0, or -1 when they do not tell.
 * Yes: every target of a (it has one) starts with components that b's
 * components match, and b is those and the subtree below them.  No: a's
 * witness lacks the lead or the literal tail every target of b has. */
int skel_subset(const struct skeleton *x, const struct skeleton *y, const char *lead,
		size_t lead_len)
{
	if (!skel_shortcuts_on || !x->text || !y->text || !x->witness)
		return -1;
	if (y->rest == SKEL_TREE && skel_fits(x, y))
		return 1;
	if (x->witness_len < lead_len || memcmp(x->witness, lead, lead_len) != 0)
		return 0;
	if (y->tail_len && (x->witness_len < y->tail_len ||
			    memcmp(x->witness + x->witness_len - y->tail_len,
				   y->text + y->text_len - y->tail_len, y->tail_len) != 0))
		return 0;
	return -1;
}
