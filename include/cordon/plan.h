/* The typed sandbox plan: what `cordon run` sets up on Linux, as data.
 *
 * A plan is an ordered list of operations, each of one kind and with the
 * rule it came from.  Order matters: a deeper mount covers an outer one, a
 * later one at the same place covers an earlier one.  Every consumer (the
 * bubblewrap argument vector, `cordon compile --emit bwrap`, `cordon diff`,
 * the runner) switches on the kind; nobody parses rendered text.
 *
 * Ownership: a plan owns every string in it; cordon_plan_free releases
 * them (cordon.h's rule). */
#ifndef CORDON_PLAN_H
#define CORDON_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "cordon.h"

#ifdef __cplusplus
extern "C" {
#endif

enum cordon_plan_kind {
	CORDON_PLAN_UNSHARE_USER,
	CORDON_PLAN_UNSHARE_PID,
	CORDON_PLAN_UNSHARE_IPC,
	CORDON_PLAN_UNSHARE_UTS,
	CORDON_PLAN_UNSHARE_CGROUP_TRY,
	CORDON_PLAN_UNSHARE_NET,        /* a network namespace with loopback only */
	CORDON_PLAN_UNSHARE_NET_EGRESS, /* the same, left only through the egress proxy */
	CORDON_PLAN_DIE_WITH_PARENT,
	CORDON_PLAN_NEW_SESSION,
	CORDON_PLAN_CAP_DROP_ALL,
	CORDON_PLAN_DEV,         /* a fresh /dev at path */
	CORDON_PLAN_PROC,        /* a fresh /proc at path */
	CORDON_PLAN_RO_BIND,     /* source, read-only, at path */
	CORDON_PLAN_BIND,        /* source, writable, at path */
	CORDON_PLAN_TMPFS,       /* an empty directory at path, read-only once filled */
	CORDON_PLAN_MASK_DIR,    /* an unreadable directory: an empty tmpfs in its place */
	CORDON_PLAN_MASK_FILE,   /* an unreadable file: source (an empty file) in its place */
	CORDON_PLAN_DIR,         /* a directory made at path */
	CORDON_PLAN_REMOUNT_RO,  /* path made read-only, after what is mounted below it */
	CORDON_PLAN_SYMLINK,     /* a link at path holding source */
	CORDON_PLAN_CLEARENV,
	CORDON_PLAN_SETENV,      /* variable `path` set to `source` */
	CORDON_PLAN_UNSETENV,    /* variable `path` removed */
	CORDON_PLAN_CHDIR,       /* the command starts in path */
	CORDON_PLAN_SKIP,        /* nothing is done at path; the note says why */
	/* What `cordon run` gives bwrap in place of a bind: the descriptor it
	 * opened the source with, without following a symlink, and checked;
	 * source holds the descriptor's number. */
	CORDON_PLAN_BIND_FD,     /* the descriptor source, writable, at path */
	CORDON_PLAN_RO_BIND_FD,  /* the descriptor source, read-only, at path */
	CORDON_PLAN_KIND_COUNT
};

struct cordon_plan_op {
	enum cordon_plan_kind kind;
	char *path;   /* where it acts in the sandbox, or a variable's name; NULL when none */
	char *source; /* what a bind or mask shows, a link's target, a variable's value */
	char *origin; /* "file:line:col" of the rule, or NULL */
	char *note;   /* why, in words, or NULL */
};

struct cordon_plan {
	char *preset;
	struct cordon_plan_op *ops;
	size_t n, cap;
};

/* Which way an operation that is added to a plan moves what it grants. */
enum cordon_plan_effect {
	CORDON_PLAN_WIDENS,
	CORDON_PLAN_NARROWS,
	CORDON_PLAN_NEUTRAL,
};

/* The bwrap option of a kind ("--ro-bind"), or NULL for CORDON_PLAN_SKIP. */
const char *cordon_plan_kind_option(enum cordon_plan_kind kind);
enum cordon_plan_effect cordon_plan_kind_effect(enum cordon_plan_kind kind);
/* Whether the kind mounts something at its path, hiding what was there. */
bool cordon_plan_kind_mounts(enum cordon_plan_kind kind);

/* The plan of the evaluator's preset, with the host read now for the facts
 * it needs (what exists, the environment kept, the symlinks roots are
 * reached through).  0, or -1 with *err (malloc'd) for a preset without a
 * sandbox or a context that cannot be lowered. */
int cordon_plan_build(const cordon_evaluator *ev, struct cordon_plan *plan, char **err);
void cordon_plan_free(struct cordon_plan *plan);

/* Whether the operation mounts a host path (its source) into the sandbox:
 * a bind, a read-only bind or a file mask. */
bool cordon_plan_binds_host(const struct cordon_plan_op *op);
/* Make such an operation mount the descriptor fd instead (--bind-fd or
 * --ro-bind-fd; a file mask is a read-only one): what bwrap mounts is
 * then what fd names, whatever the source path has become. */
void cordon_plan_bind_fd(struct cordon_plan_op *op, int fd);

/* Whether two operations do the same, whatever rule they came from. */
bool cordon_plan_op_same(const struct cordon_plan_op *a, const struct cordon_plan_op *b);
/* One operation as a JSON object (malloc'd): {"args":[...]} or
 * {"skipped":PATH}, then origin (with_origin) and note.  sorted: keys in
 * alphabetical order, as a stable key for comparisons. */
char *cordon_plan_op_json(const struct cordon_plan_op *op, bool with_origin, bool sorted);
/* The arguments bwrap reads with --args FD: NUL-terminated, one after the
 * other (malloc'd, *len set). */
char *cordon_plan_bwrap_args(const struct cordon_plan *plan, size_t *len);

#ifdef __cplusplus
}
#endif

#endif
