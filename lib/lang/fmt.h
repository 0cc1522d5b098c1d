/* cordon fmt: the one canonical layout of a policy file.
 *
 * The text is rebuilt from the syntax tree and the comments the scanner
 * kept; every token is copied as written (strings and regexes keep their
 * escapes), so only the space between tokens changes and the file compiles
 * to the same IR.  docs/fmt.md describes the layout. */
#ifndef CORDON_FMT_H
#define CORDON_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "load.h"

/* Lines longer than this have their lists wrapped, one element a line. */
#define FMT_WIDTH 80

/* Format file `file` of lc->sm on its own (its includes are not read).
 * Returns the formatted text (malloc'd, NUL-terminated, *len bytes), or
 * NULL when the file does not parse; the errors are then in lc->diags. */
char *fmt_file(struct load_ctx *lc, uint32_t file, size_t *len);

#endif
