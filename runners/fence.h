/* Fences for protected paths that do not exist: for the length of a call,
 * each becomes an empty directory (with its missing parents) that the mount
 * plan binds read-only, so a command can create neither it nor anything
 * below it while the directory around it stays writable; or, where the
 * lowering gives the fence content (a file git reads, where a directory
 * would stop it), a read-only file holding that.  Afterwards they are
 * removed again, by the last call that needs them.
 *
 * Removing a directory that is a mount point in another call's namespace
 * would detach that call's fence.  So each call holds a shared flock on
 * every directory its fences rely on, for as long as its sandbox runs, and
 * a directory is removed only under an exclusive one: never while any
 * call, of any user, still relies on it.  What cordon made is listed, by
 * device, inode and path, in a registry in the runner's private directory
 * (DIR/fences, under its own lock), so that a directory a person made is
 * never removed. */
#ifndef CORDON_FENCE_H
#define CORDON_FENCE_H

#include "cordon/lowering.h"

struct fence {
	int reg;     /* the registry, or -1 */
	int *held;   /* the directories held, shared */
	size_t nheld, held_cap;
};

/* Make the fences of the lowering (cordon_lowering_fences), each noted in
 * its host facts as the directory it now is.  0, or -1 with *err:
 * the call must not start. */
int fence_begin(struct fence *f, const char *dir, cordon_lowering *in, char **err);

/* The call's sandbox is gone: drop its locks and remove every fence that no
 * other call uses.  Safe on a fence that never began. */
void fence_end(struct fence *f);

#endif
