/* A line diff of two texts, printed as a unified diff (`diff -u`), for
 * `cordon fmt --diff`.  The edit script is a shortest one (Myers' O(ND)
 * algorithm, split at the middle of the path, so memory stays linear). */
#ifndef CORDON_LINEDIFF_H
#define CORDON_LINEDIFF_H

#include <stddef.h>

#include "util.h"

#define LINEDIFF_CONTEXT 3

/* Append to out the unified diff that turns text a (named old_name) into
 * text b (new_name), with LINEDIFF_CONTEXT lines of context; nothing when
 * the texts are equal.  A last line without a newline is marked as
 * `diff` marks it. */
void linediff_unified(struct strbuf *out, const char *old_name, const char *a, size_t alen,
		      const char *new_name, const char *b, size_t blen);

#endif
