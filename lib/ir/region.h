/* A region: the paths a shell word names when it is known only in part,
 * or exactly.  Either an exact path (its tree too, with `tree`), or the
 * paths below a directory that match a pattern (a regex body, as
 * command.c writes it), again with their trees.
 *
 * region_reaches(g, a) says whether the region names `a` or a path below
 * it: whether a rule on `a` can apply to something the word touches.  It
 * answers as the regex ^ROOT(?:/PATTERN)?(?:/.*)?$ would, matched in full
 * on `a` and partially on `a/`; an exact region is answered by comparing
 * strings, without a regex. */
#ifndef CORDON_REGION_H
#define CORDON_REGION_H

#include "match.h"
#include "base/util.h"

#include <stdbool.h>
#include <stddef.h>

struct region {
	const char *root;   /* borrowed; canonical */
	size_t rn;
	bool exact, tree;
	pcre2_code *re;     /* patterns only */
	pcre2_match_data *md;
	struct strbuf below; /* scratch: `a/` */
};

/* pattern NULL: the exact path root.  0, or -1 if the pattern does not
 * compile (nothing to free then). */
int region_init(struct region *g, const char *root, const char *pattern, bool tree);
bool region_reaches(struct region *g, const char *a);
void region_free(struct region *g);

/* Append s to sb with every regex metacharacter escaped. */
void region_quote_re(struct strbuf *sb, const char *s);

#endif
