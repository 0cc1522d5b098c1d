/* cordon run --check-links: files the sandbox may write that have a name
 * it may not write, outside the writable roots or read-only inside them
 * (run_links.c). */
#ifndef CORDON_RUN_LINKS_H
#define CORDON_RUN_LINKS_H

#include "lower/lower.h"

/* Walk the plan's writable roots (bounded like the expansion of glob
 * read denies) for regular files that have more names than the walk found
 * writable under those roots: a write through one would change a file the
 * sandbox may not write.  0 when there is none; -1 with *err listing them,
 * or saying which bound stopped the walk. */
int run_links_check(const struct lower_input *in, char **err);

#endif
