/* Path canonicalization, the way the kernel would resolve a path: relative
 * to cwd, "." and ".." applied, symlinks of existing ancestors followed
 * (dangling ones through their target), the not-yet-existing tail kept. */
#ifndef CORDON_CANON_H
#define CORDON_CANON_H

#include <stddef.h>

/* The canonical form of path, malloc'd; NULL with a message in *err
 * (malloc'd) for an empty path, an embedded NUL (len != strlen), a symlink
 * loop, an over-long path, or an ancestor that cannot be inspected. */
char *canon_path(const char *path, size_t len, const char *cwd, char **err);

/* Lexical normalisation only: "//", "." and ".." (at the root, ".." stays
 * at the root).  For paths that are already absolute. */
char *canon_lexical(const char *path);

#endif
