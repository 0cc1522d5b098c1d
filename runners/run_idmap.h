/* A call run by root runs its command as an unprivileged uid: the write
 * roots are attached idmapped (on-disk root seen as that uid) in the
 * launch's own mount namespace, and the launch drops to that uid before
 * it starts bwrap, which then sets up the sandbox as for any user.  The
 * rest of the host keeps its ownership, so what only root may read the
 * kernel refuses to the command (docs/sandbox.md, "Run as root"). */
#ifndef CORDON_RUN_IDMAP_H
#define CORDON_RUN_IDMAP_H

#include "cordon/lowering.h"
#include "cordon/plan.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The command's uid and gid when root runs cordon: nobody, the account
 * every Linux system has for owning nothing, with a passwd entry so that
 * the tools that look their user up (id, git, ssh) keep working. */
#define RUN_IDMAP_UID 65534u
#define RUN_IDMAP_GID 65534u
/* Idmapped trees of one call at most: the runner dir, the home directory
 * and the write roots that do not lie in another; with the launch's
 * descriptors and bind sources, within the 253 one message carries. */
#define RUN_IDMAP_MAX 10

/* All zero: not prepared, nothing held. */
struct run_idmap {
	bool active;           /* the command runs as RUN_IDMAP_UID */
	size_t n;
	int trees[RUN_IDMAP_MAX];     /* detached idmapped clones, outer first */
	char *dests[RUN_IDMAP_MAX];   /* where each is attached: its own path */
	char *why;             /* why not, once decided against (malloc'd) */
	char *helper_copy;     /* the helper copied for the call, removed at its end */
};

/* In cordon, as root, once the plan is made: the idmapped clones of the
 * runner dir (rw), the home directory when root owns it (read-only) and
 * each root-owned directory the plan binds writable (rw), after checking
 * that the unprivileged uid reaches every path the plan and extra[] name.
 * 0 and active; or -1 with im->why: the kernel, a file system or a path
 * on the way does not allow it, and the call runs as today. */
int run_idmap_prepare(struct run_idmap *im, const struct cordon_plan *plan,
		      const char *runner_dir, const char *home, const char *const *extra,
		      size_t nextra);
void run_idmap_end(struct run_idmap *im);
/* The call of a runner that is root, once its plan is made: the
 * unprivileged uid (run_idmap_prepare, which must reach the helper and the
 * temp dir besides the plan; a helper that uid cannot reach is copied into
 * runner_dir first, and *helper names the copy), or, where it cannot be
 * had, uid 0
 * as before: said once on stderr, and what only root may read in the
 * system trees masked, the plan made again with the masks; with
 * CORDON_ROOT_UNPRIVILEGED=require in cordon's environment, the call
 * stops instead.  0, or -1 with *err: the call must not start. */
int run_idmap_or_masks(struct run_idmap *im, cordon_lowering *in, struct cordon_plan *plan,
		       const char *runner_dir, char **helper, const char *home, char **err);

/* In the launch, before bwrap: a mount namespace of its own with the n
 * trees attached at dests (each checked to be the directory it was cloned
 * from), then the unprivileged uid, with parent's death still killing it.
 * 0, or -1 with a message on stderr: nothing may run. */
int run_idmap_enter(const int *trees, char *const *dests, size_t n, pid_t parent);

/* For cordon probe, as root: whether root's commands can run as the
 * unprivileged uid on this machine (an idmapped clone of a directory of
 * its own in /tmp, made and dropped).  NULL, or why not (malloc'd).  A
 * call still falls back where that uid cannot reach its paths. */
char *run_idmap_probe(void);

#endif
