/* Safe file mutation: the pieces cordon_mutate and cordon_approve share,
 * and the knobs the tests turn. */
#ifndef CORDON_MUTATE_H
#define CORDON_MUTATE_H

#include <stdbool.h>

/* Temp files are named TEMP_PREFIX + 16 hex digits in the target's
 * directory; a file of that name left by a killed writer is removed by the
 * next mutation in that directory, under the directory's lock. */
#define TEMP_PREFIX ".cordon-tmp-"

/* Tests set this to exercise the per-component O_NOFOLLOW walk that
 * replaces openat2 on kernels without it. */
extern bool mutate_force_walk;

/* Called, when set, after the temp file is written and before the recheck:
 * tests change the tree there to prove that the recheck catches it. */
extern void (*mutate_before_recheck)(void *arg);
extern void *mutate_before_recheck_arg;

/* Open the directory at the canonical path dir (absolute, no symlinks)
 * for reading, beneath root (a canonical ancestor of dir, or "/"), without
 * following any symlink on the way.  An fd, or -1 with errno. */
int mutate_open_dir(const char *root, const char *dir);

/* Open the canonical path (absolute, no symlinks) with O_PATH, whatever it
 * is, without following any symlink on the way or at its end: what the fd
 * names is exactly that path at the moment of the call.  An fd, or -1 with
 * errno (ELOOP where a component is a link). */
int mutate_open_path(const char *path);

#endif
