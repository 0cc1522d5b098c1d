/* Fences for protected paths that do not exist: for the length of a call,
 * each becomes an empty directory (with its missing parents) that the mount
 * plan binds read-only, so a command can create neither it nor anything
 * below it while the directory around it stays writable.  Afterwards the
 * directories are removed again, by the last call that needs them.
 *
 * Calls of one user share a registry in the runner's private directory
 * (DIR/fences): what cordon made, by device, inode and path, under a lock.
 * Each call holds a shared lock on a byte of the registry per path it
 * relies on, for as long as its sandbox runs; a directory is removed only
 * when no call holds its byte.  Removing a directory that is a mount point
 * in another call's namespace would detach that call's fence, so a call
 * never removes what another still uses, and the last one out cleans up. */
#ifndef CORDON_FENCE_H
#define CORDON_FENCE_H

#include "lower.h"

struct fence {
	int fd; /* the registry, or -1 */
};

/* Make the fences of the plan's input (lower_bwrap_fences).  0, or -1 with
 * *err: the call must not start. */
int fence_begin(struct fence *f, const char *dir, const struct lower_input *in, char **err);

/* The call's sandbox is gone: drop its locks and remove every fence that no
 * other call uses.  Safe on a fence that never began. */
void fence_end(struct fence *f);

#endif
