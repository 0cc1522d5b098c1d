/* git's config syntax, read as git's own parser reads it (config.c):
 * sections, subsections in quotes ([remote "origin"], case kept) or after
 * a dot ([remote.origin], folded to lower case), keys without regard to
 * case, values with quotes, escapes, comments and continuations.  A file
 * git would refuse is refused: the caller cannot know what git does then. */
#ifndef CORDON_GIT_CONFIG_H
#define CORDON_GIT_CONFIG_H

#include <stddef.h>

/* One entry, in order.  section and key in lower case; sub as written
 * ([remote "Origin"]), lower case in the old form ([remote.Origin]), or
 * NULL; value NULL for a key without '=' (a boolean true).  A nonzero
 * return stops the parse and is its result. */
typedef int (*git_config_fn)(void *arg, const char *section, const char *sub, const char *key,
			     const char *value);

/* Parse text (len bytes; a NUL byte in it is refused).  Returns 0, -1 at
 * the first line git refuses (the entries before it were given), or the
 * callback's nonzero result. */
int git_config_parse(const char *text, size_t len, git_config_fn each, void *arg);

#endif
