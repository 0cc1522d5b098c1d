/* The setrlimit(2) half of a preset's limits, shared by the runners and
 * cordon-exec: which rlimit applies which limit, the helper's argument
 * spelling (--rlimit NPROC=512), and applying one. */
#ifndef CORDON_RLIMIT_H
#define CORDON_RLIMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "cordon/lowering.h"

struct run_rlimit {
	int resource;             /* RLIMIT_* */
	unsigned long long value; /* count, bytes or seconds */
};

/* The rlimit that applies a limit; false for memory (a cgroup's). */
bool run_rlimit_for(enum cordon_limit_kind which, int *resource);
/* "NPROC=512" for the helper, malloc'd. */
char *run_rlimit_arg(const struct run_rlimit *r);
/* Parse one; false with *why set on a bad argument. */
bool run_rlimit_parse(const char *arg, struct run_rlimit *out, const char **why);
/* Lower soft and hard limits to the value (never above the current hard
 * limit); for CPU time the hard limit is a second later, so SIGXCPU
 * comes before SIGKILL.  -1 with errno on failure. */
int run_rlimit_apply(const struct run_rlimit *r);

#endif
