/* The lowering of one call: what a runner launches a command with.
 *
 * A lowering is built from an evaluator (its preset with the context
 * applied) and, for an approved call, the paths the approval makes
 * writable.  The host is read once into it (cordon_lowering_read_host):
 * the environment the preset lets through, what each path of the plan is,
 * the symlinks the roots are reached through, the kernel's Landlock ABI.
 * Everything asked of it afterwards (the typed plan, the seccomp filter,
 * the Landlock ruleset, the Seatbelt profile, the environment, the
 * limits) is computed from that snapshot alone, never from the host, so
 * that what is checked is what is launched.
 *
 * Ownership as in cordon.h: a lowering is the caller's, released with
 * cordon_lowering_free; the strings its getters return are the lowering's. */
#ifndef CORDON_LOWERING_H
#define CORDON_LOWERING_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "cordon.h"
#include "cordon/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- resource limits ------------------------------------------------------ */

/* The limits a preset may set, in the order the lowering lists them. */
enum cordon_limit_kind {
	CORDON_LIMIT_PROCESSES,
	CORDON_LIMIT_OPEN_FILES,
	CORDON_LIMIT_FILE_SIZE,
	CORDON_LIMIT_CPU_TIME,
	CORDON_LIMIT_ADDRESS_SPACE,
	CORDON_LIMIT_MEMORY,
	CORDON_LIMIT_COUNT
};

/* A limit to apply (unlimited ones are not listed). */
struct cordon_limit {
	enum cordon_limit_kind which;
	unsigned long long value; /* a count, bytes or seconds */
	bool best_effort;         /* the call may run where it cannot be applied */
	char *origin;             /* "file:line:col" of the limit */
};

/* ---- the lowering --------------------------------------------------------- */

typedef struct cordon_lowering cordon_lowering;

/* A path an approval makes writable for one call: exactly the file, or
 * the directory and everything below it (cordon/approval.h). */
struct cordon_path_grant {
	const char *path;   /* canonical */
	bool tree;
	const char *origin; /* "approval ID" */
};

/* The lowering of the evaluator's preset, each grant a write root too (the
 * protections and denies inside it taken back as in any other).  Every
 * directory context variable the plan needs must have a value, and a path
 * that would break a profile or an argument vector (a newline, a NUL) is
 * refused: NULL with *err.  The host is not read yet. */
cordon_lowering *cordon_lowering_new(const cordon_evaluator *ev,
				     const struct cordon_path_grant *grants, size_t ngrants,
				     char **err);
/* A lowering that holds the preset's limits alone: what is known before the
 * call's temp dir exists.  Never NULL. */
cordon_lowering *cordon_lowering_limits_new(const cordon_evaluator *ev);
void cordon_lowering_free(cordon_lowering *l);
/* The call's approval grants hosts (CORDON_GRANT_HOST, cordon/approval.h):
 * the call gets its egress proxy, as a preset that allows some host does,
 * even where the preset allows none.  origin ("approval ID") is copied.
 * True when the approval alone opened it: the proxy must then let through
 * nothing but the approved hosts.  Before the plan, the filter and the
 * Landlock flags are asked for. */
bool cordon_lowering_egress_for_approval(cordon_lowering *l, const char *origin);

/* Read the host facts the lowering needs into its snapshot. */
void cordon_lowering_read_host(cordon_lowering *l);
/* Read path and its parents again into the snapshot: the runner made it. */
void cordon_lowering_note_host(cordon_lowering *l, const char *path);
/* Before the host is read: where the workspace's .git/hooks is protected,
 * protect the directory git's core.hooksPath names too, when it lies in a
 * write root (husky's .husky, a project's .githooks).  -1 with *err when
 * a git config cannot be read or the value not resolved: the call must not
 * start. */
int cordon_lowering_protect_hooks_path(cordon_lowering *l, char **err);
/* Add a mask for every path below the readable and writable roots that a
 * glob or regex read deny or ask matches, looked up on the host now within
 * fixed bounds.  A bound that is hit is an error (-1, *err naming the rule,
 * the root and the bound): the call must not start with a rule half
 * enforced. */
int cordon_lowering_expand_masks(cordon_lowering *l, char **err);
/* For a call the runner launches as root, whose command would own every
 * file root owns: add a mask for every file and directory of the host's
 * system trees that root may read and others may not (a host key, /root
 * when the home directory is elsewhere), outside the write roots, the home
 * and the working directory.  -1 with *err when a bound of the walk is
 * hit: the call must not start. */
int cordon_lowering_mask_root_secrets(cordon_lowering *l, char **err);
/* `cordon run --check-links`: walk the writable roots (within the same
 * bounds) for regular files that have more names than the walk found
 * writable: a write through one would change a file the sandbox may not
 * write.  0 when there is none; -1 with *err listing them, or saying
 * which bound stopped the walk. */
int cordon_lowering_check_links(const cordon_lowering *l, char **err);
/* After a call, its sandbox gone: every git repository nested in the
 * workspace (a .git below its top) whose .git, config, config.worktree
 * or commondir changed since `since` and whose config names a program git
 * runs (a key of the table in lib/base/git_keys.c, an include), or one
 * of whose hooks changed since then, has its .git renamed to
 * .git.cordon-disarmed, so that the host's
 * next git status in the workspace does not enter it.  Every Mercurial
 * repository too (a .hg anywhere in the workspace, its top's when it was
 * not there at launch or when its config files changed) whose hgrc or
 * hgrc-not-shared sets anything but [paths] and ui.username, or that
 * shares another's config (sharedpath), has its .hg renamed to
 * .hg.cordon-disarmed.  0 when there was
 * none; -1 with *report (malloc'd) listing each and why, or saying which
 * bound stopped the walk. */
int cordon_lowering_disarm_nested_git(const cordon_lowering *l, const struct timespec *since,
				      char **report);

/* The context's directories: where the command starts, the call's private
 * temp dir (NULL without one). */
const char *cordon_lowering_cwd(const cordon_lowering *l);
const char *cordon_lowering_tmp(const cordon_lowering *l);
/* The empty read-only regular file a file mask is bound from ("${tmp}.mask",
 * outside the sandbox's view), which the runner makes; NULL without a tmp. */
const char *cordon_lowering_mask_file(const cordon_lowering *l);
/* The ports cordon-exec relays connections to the sandbox's DNS stub's
 * addresses on, with the egress proxy: 80, 443 and each port a net rule
 * that allows or asks names.  Owned by the lowering. */
const int *cordon_lowering_relay_ports(const cordon_lowering *l, size_t *n);

/* The typed plan (cordon/plan.h): 0, or -1 with *err. */
int cordon_lowering_plan(const cordon_lowering *l, struct cordon_plan *plan, char **err);
/* The seccomp filter as the BPF program bwrap --seccomp reads, and the
 * Seatbelt profile: malloc'd bytes with *len, or NULL with *err. */
char *cordon_lowering_seccomp_bpf(const cordon_lowering *l, size_t *len, char **err);
char *cordon_lowering_sbpl(const cordon_lowering *l, size_t *len, char **err);
/* What the runner gives cordon_landlock_apply() (cordon/landlock.h) inside
 * the sandbox: the write roots and /dev (a malloc'd array of strings the
 * lowering owns), and its flags. */
const char **cordon_lowering_landlock_roots(const cordon_lowering *l, size_t *n);
unsigned cordon_lowering_landlock_flags(const cordon_lowering *l);
/* The kind of file (its S_IFMT bits) a bind's source was when the host was
 * read: S_IFREG for a file mask's source, S_IFDIR for a path the snapshot
 * does not hold (a directory pinned on the way to a read-only path). */
unsigned cordon_lowering_source_kind(const cordon_lowering *l, const struct cordon_plan_op *op);
/* Open an absolute path as O_PATH without following a symbolic link on the
 * way or at its end: what the descriptor names is exactly that path now.
 * An fd, or -1 with errno (ELOOP where a component is a link). */
int cordon_open_nofollow(const char *path);
/* The same for a directory, opened for reading (for openat and mkdirat
 * below it): an fd, or -1 with errno. */
int cordon_open_dir_nofollow(const char *path);

/* Whether path is there to see inside the sandbox: the deepest literal path
 * of the plan at or above it is not hidden. */
bool cordon_lowering_shows(const cordon_lowering *l, const char *path);

/* A path the runner fences for the call: below the write root `root`, it
 * keeps writes out and is either a directory (to hold while the call runs)
 * or missing (to make an empty directory, with its missing parents).  With
 * content, the fence is a read-only file holding it instead (held too when
 * it is there): a file a program reads, where a directory would stop it.
 * With writable, `path` is instead a write root the preset's environment
 * points into and `root` the nearest directory above it that exists: made
 * (0700, with its missing parents) or held the same way, so that the plan
 * binds it writable; where it cannot be made the call goes on without it. */
struct cordon_fence {
	const char *root;
	const char *path;
	const char *content;
	bool writable;
};
/* The fences of the plan: a malloc'd array of strings the lowering owns. */
struct cordon_fence *cordon_lowering_fences(const cordon_lowering *l, size_t *n);

/* The environment the preset lets through: the host's variables its keep
 * names or globs match and no drop pattern does, as the snapshot holds
 * them, then what it sets; a malloc'd NULL-terminated vector of malloc'd
 * "NAME=VALUE" strings. */
char **cordon_lowering_environ(const cordon_lowering *l);

/* The i-th limit to apply, in cordon_limit_kind order; NULL past the last. */
const struct cordon_limit *cordon_lowering_limit(const cordon_lowering *l, size_t i);
/* The limit of kind which, or NULL when it is unlimited. */
const struct cordon_limit *cordon_lowering_limit_find(const cordon_lowering *l,
						      enum cordon_limit_kind which);

#ifdef __cplusplus
}
#endif

#endif
