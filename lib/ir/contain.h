/* Containment of patterns: is every target one pattern matches also
 * matched by another?  That is what "more specific" means when the
 * evaluator picks the rule that decides (eval.c), when lint proves that a
 * rule never decides, and when a Seatbelt profile orders its rules.
 *
 * A glob is a regular language, so the answer is exact: each pattern
 * becomes a small automaton (struct gprog) read the way match.c compiles
 * it, and inclusion is decided on the product of the two automata with the
 * language of the targets a request can have (canonical paths, command
 * words, lowercase hosts, tool names).  A regex is comparable only with an
 * identical regex.  Where the search would grow past a bound the answer is
 * "cannot tell", which every caller reads as incomparable: the more severe
 * rule then wins, never the more permissive one. */
#ifndef CORDON_CONTAIN_H
#define CORDON_CONTAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "ir.h"
#include "base/util.h"

struct matcher;

enum gprog_mode {
	GPROG_PATH, /* canonical paths: '*' and '?' stay within a component */
	GPROG_WORD, /* one word of a command: no blanks */
	GPROG_HOST, /* a host, matched without regard to case */
	GPROG_TEXT, /* a tool name */
};

struct gprog;

/* The automaton of a resolved pattern text; lit[i] marks a character that
 * came from a context value (never a wildcard).  `literal`: a path that
 * means itself and everything below it, or a text without wildcards.
 * NULL when the pattern uses a form this module does not model (it is then
 * comparable only with an identical text). */
struct gprog *gprog_build(const char *s, const bool *lit, size_t n, enum gprog_mode mode,
			  bool literal);
void gprog_free(struct gprog *g);

enum contain_rel {
	REL_INCOMPARABLE, /* neither contains the other, or cannot tell */
	REL_EQUAL,        /* the same targets */
	REL_SUBSET,       /* a matches fewer: a is more specific */
	REL_SUPERSET,     /* b is more specific */
};

extern const char *const contain_rel_names[];

/* How two compiled patterns of operation op relate. */
enum contain_rel matcher_relate(const struct matcher *a, const struct matcher *b, enum ir_op op);

/* Can no path be matched by both?  False when it cannot tell (regexes). */
bool matcher_disjoint(const struct matcher *a, const struct matcher *b, enum ir_op op);

/* Whether containment of path patterns may be answered from their texts
 * where the texts tell (on by default).  The answers are the automata's;
 * tests turn this off to compare the two.  Not for use while other threads
 * compare patterns. */
void contain_shortcuts(bool on);

/* The literal start of a matcher's targets, for pairing patterns that may
 * overlap: two patterns whose leads are not prefixes of one another match
 * no target in common.  NULL when nothing is known (any target). */
const char *matcher_lead(const struct matcher *m, size_t *len);

#endif
