/* The skeleton of a path pattern: what containment can read from its
 * text (contain_skel.c).  Internal to lib/ir/contain.c. */
#ifndef CORDON_CONTAIN_SKEL_H
#define CORDON_CONTAIN_SKEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

/* A path pattern read by components, for the answers of gprog_subset that
 * need no automaton (skel_subset).  The leading components that are each
 * a literal or a lone "*" wildcard are `comp`; `rest` says what follows
 * them.  `witness` is a target the pattern matches, built from its text,
 * and `tail` what every target it matches ends with. */
enum skel_rest {
	SKEL_MORE, /* anything else, or not analysed */
	SKEL_END,  /* nothing: the pattern is its components */
	SKEL_TREE, /* the subtree below them, "/" "**" or a literal path */
};

struct skel_comp {
	uint32_t off, len; /* in text */
	bool star;
};

struct skeleton {
	const char *text;
	struct skel_comp *comp;
	size_t ncomp;
	enum skel_rest rest;
	char *witness; /* NULL: none known (then no shortcut uses it) */
	size_t witness_len;
	size_t tail_len; /* text[text_len - tail_len..] is literal and last */
	size_t text_len;
};

/* The skeleton of the path pattern s[0..n), whose byte i is literal when
 * lit[i] (lit NULL: a literal path, itself and the subtree below it).  s
 * is borrowed and must outlive the skeleton. */
void skel_build(struct skeleton *k, const char *s, const bool *lit, size_t n);
void skel_free(struct skeleton *k);

/* Are the targets of x all targets of y, whose targets all start with
 * lead[0..lead_len)?  1 yes, 0 no, -1 the texts do not tell. */
int skel_subset(const struct skeleton *x, const struct skeleton *y, const char *lead,
		size_t lead_len);

#endif
