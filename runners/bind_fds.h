/* The host paths the mount plan binds, each opened without following any
 * symlink on the way and checked on what is open, then handed to bwrap as
 * that descriptor (--bind-fd, --ro-bind-fd) instead of a path it would
 * resolve again later.  A component swapped for a symlink after the plan
 * was made can then make the call fail, never mount something else: bwrap
 * mounts what the descriptor names and checks that it landed at the path
 * the plan names (its "Race condition binding dirfd" refusal). */
#ifndef CORDON_BIND_FDS_H
#define CORDON_BIND_FDS_H

#include "cordon/lowering.h"
#include "run_approval.h"

struct bind_fds {
	int *fds; /* bwrap's LAUNCH_BIND_FD_FIRST + i is fds[i] */
	size_t n, cap;
	/* What cordon-exec checks in the sandbox (mount_marks.h): one for
	 * each bind that no later mount of the plan covers. */
	char **marks;
	size_t nmarks, marks_cap;
};

/* Turn every bind of a host path in the plan into a bind of its
 * descriptor: an approved path's is the one its approval checked (ra), any
 * other is opened now and must still be the kind of file the host facts
 * of in say it is; and the mark of each that stays visible.  0, or -1 with
 * *err: the call must not start. */
int bind_fds_take(struct bind_fds *b, struct cordon_plan *pl, const cordon_lowering *in,
		  const struct run_approval *ra, char **err);

void bind_fds_end(struct bind_fds *b);

#endif
