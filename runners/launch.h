/* The launch: the process that becomes bwrap (or the command, without a
 * sandbox), forked early, waiting for the one message that lets it run. */
#ifndef CORDON_LAUNCH_H
#define CORDON_LAUNCH_H

#include "run.h"
#include "run_idmap.h"
#include "run_limits.h"

#include <stdbool.h>
#include <sys/types.h>

/* The message that lets a launch run: a header (magic, the length of
 * what follows, the number of descriptors, the number of bind sources,
 * the number of idmapped trees) carrying the descriptors the sandbox gets
 * (the plan, the filter, the egress proxy's end, then the sources bwrap
 * binds, then the trees), then where each tree goes and argv as NUL-ended
 * strings.  A launch runs nothing unless all of it arrives. */
#define LAUNCH_GO_MAGIC 0x63676f33u /* "cgo3" */
#define LAUNCH_GO_MAX (64u << 20)
#define LAUNCH_GO_FDS 3
/* The bind sources (--bind-fd, --ro-bind-fd) are bwrap's descriptors
 * LAUNCH_BIND_FD_FIRST, LAUNCH_BIND_FD_FIRST + 1, ..., in the order given;
 * one message carries at most this many (SCM_RIGHTS takes 253). */
#define LAUNCH_BIND_FD_FIRST 8
#define LAUNCH_BIND_FDS_MAX 240
#define LAUNCH_ALL_FDS_MAX (LAUNCH_GO_FDS + LAUNCH_BIND_FDS_MAX + RUN_IDMAP_MAX)

struct launch {
	pid_t pid;
	int status_json; /* bwrap --json-status-fd, read end */
	int helper;      /* the helper's status byte, read end */
	int out[2];      /* captured stdout/stderr, read ends, or -1 */
	int go;          /* where the launch waits for its argv, write end, or -1 */
	/* Set before launch_go when root's command runs unprivileged
	 * (run_idmap.h): the launch attaches these and drops to its uid. */
	const struct run_idmap *idmap;
};

/* A launch forked but never let go: stopped and reaped, so that its
 * cgroups can go. */
void launch_abandon(struct launch *l);
/* Fork the launch.  It leaves cordon's signals behind, joins the call's
 * cgroups and waits for launch_go: on cgroup v1 a join waits for an RCU
 * grace period, milliseconds of a launch, which a launch forked before the
 * plan is made spends while cordon makes it.  It dies with cordon, and a
 * cordon that stops before launch_go sends no message: the launch exits
 * without running anything.  sandboxed: bwrap's and the helper's status
 * pipes are made, and the plan, filter and egress descriptors come with
 * the message. */
int launch_fork(struct launch *l, char **envp, bool sandboxed, bool capture, const char *cwd,
		const struct run_limits *lim);
/* Let the launch run argv, with fds (plan, filter, and the egress
 * proxy's end or -1) and the nbinds bind sources when it is sandboxed.  A
 * launch that is gone already (it could not join a cgroup) makes the send
 * fail; its exit status tells the rest. */
void launch_go(struct launch *l, char *const *argv, const int *fds, const int *binds,
	       size_t nbinds);
/* The launch's process group and the launch itself, killed. */
void kill_group(pid_t pid);

#endif
