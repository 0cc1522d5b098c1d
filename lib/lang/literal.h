/* The text of string and regex literals, decoded by the rules of
 * docs/language.md: every reader of a literal goes through here. */
#ifndef CORDON_LITERAL_H
#define CORDON_LITERAL_H

#include <stdbool.h>
#include <stddef.h>

#include "ast.h"
#include "base/diag.h"

/* What ${name} (at `at`, the whole reference) stands for: append it to out,
 * or report why it cannot be used and return false. */
typedef bool (*lit_var_fn)(void *arg, struct strbuf *out, const char *name, size_t len,
			   struct loc at);

/* The text of string token s: \" \\ \n \t \$ decoded, another escape or a
 * control character an error.  With var, each ${name} goes through it;
 * without, '$' is literal.  NULL after reporting every error to d (d may
 * be NULL when the policy was already checked). */
char *lit_string(struct diag_list *d, const struct ast *s, lit_var_fn var, void *arg);

/* The pattern of regex token r as PCRE2 reads it: \/ is '/', every other
 * escape is PCRE2's and stays.  With map (r's length + 1 entries), map[k]
 * is the offset in the token's text of the pattern's byte k. */
char *lit_regex(const struct ast *r, size_t *map);

/* Bytes from..to of the text of a token at base (past its opening quote
 * or slash when base is the token's own location moved by one). */
struct loc lit_sub_loc(struct loc base, size_t from, size_t to);

#endif
