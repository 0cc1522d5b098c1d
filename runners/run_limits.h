/* A preset's resource limits at run time (run_limits.c): the rlimits,
 * set by cordon-exec inside the sandbox (or in the child of an unsandboxed
 * run), and a per-call cgroup around the whole call for memory and
 * processes where a writable one can be had.  A limit that cannot be
 * applied stops the call, unless it is best_effort. */
#ifndef CORDON_RUN_LIMITS_H
#define CORDON_RUN_LIMITS_H

#include "cordon/lowering.h"
#include "rlimit.h"
#include "run.h"

enum { RUN_CGROUP_MAX = 2 }; /* cgroup v1 keeps pids and memory apart */

struct run_limits {
	char *cgroup[RUN_CGROUP_MAX]; /* the per-call cgroup directories */
	int procs[RUN_CGROUP_MAX];    /* their cgroup.procs, open for writing */
	size_t ncgroups;
	struct run_rlimit rl[CORDON_LIMIT_COUNT]; /* for the child of an unsandboxed run */
	size_t nrl;
};

/* Decide how each limit of the plan is applied and make the cgroup:
 * -1 with *err when a limit that is not best_effort cannot be. */
int run_limits_prepare(const cordon_lowering *in, bool sandboxed, struct run_limits *lim,
		       char **err);
/* cordon-exec's --rlimit arguments, pushed onto an argument vector. */
void run_limits_helper_args(const cordon_lowering *in, char ***v, size_t *n, size_t *cap);
/* In the launched child, before exec: join the cgroup, set the rlimits of
 * an unsandboxed run.  -1 after printing why. */
int run_limits_enter(const struct run_limits *lim);
/* After the call: kill what is left in the cgroup and remove it. */
void run_limits_release(struct run_limits *lim);

#endif
