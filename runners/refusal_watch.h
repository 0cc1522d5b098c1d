/* Which file-system writes the kernel refused during a call, told after it
 * (docs/sandbox.md, "Refusals").
 *
 * Observation only.  cordon-exec adds, after Landlock and just before it
 * execs the command, a second seccomp filter whose one action other than
 * allow is a user notification, on the calls that can write, create or
 * remove a name (an open only when its flags ask for a write, a create or
 * a truncation: read-only opens never notify).  It hands the listener to
 * the runner outside with its status byte (SCM_RIGHTS), and keeps no copy.
 * The runner reads the path the call names, works out from the sandbox's
 * own mounts (through /proc/PID/root) and the Landlock write roots whether
 * the kernel refuses that write, keeps each refused path once with a
 * count, and ALWAYS answers SECCOMP_USER_NOTIF_FLAG_CONTINUE: the call then
 * goes on to the kernel's own checks (the read-only mounts, Landlock and
 * bwrap's filter, whose error action outranks a notification), which
 * enforce as before.  A process that races the runner (changes the path
 * after the notification) or lies can only make the report wrong, never
 * the sandbox weaker.  Without the runner (it closed the listener), a
 * watched call fails with ENOSYS: the runner answers until the command and
 * every process of the sandbox is gone.  A filter that cannot be set up
 * leaves the command running under the same sandbox, unwatched, said once
 * on stderr: the report is not enforcement. */
#ifndef CORDON_REFUSAL_WATCH_H
#define CORDON_REFUSAL_WATCH_H

#include <stdbool.h>
#include <stddef.h>

/* One watched call: where its names are.  dirfd -1: the path is taken
 * against the cwd (open, mkdir, ...); path2 -1: one name only.  flags: the
 * argument of the open flags (notify only for a write), or -1. */
struct watch_call {
	const char *name;
	int dirfd, path, dirfd2, path2, flags;
};
extern const struct watch_call watch_calls[];
extern const size_t watch_ncalls;

/* ---- in cordon-exec (refusal_watch_filter.c) -------------------------- */

/* The observing filter, loaded into this process (inherited by the
 * command): its listener, or -1 with *why. */
int watch_filter_load(const char **why);

/* ---- in the runner (refusal_watch.c) ---------------------------------- */

#ifndef CORDON_WATCH_FILTER_ONLY
#include "cordon.h"
#include "cordon/lowering.h"

struct refusals;
struct run_opts;

/* Distinct refused paths kept; those beyond are counted, not listed. */
#define WATCH_PATHS_MAX 64

struct watch_seen {
	char *path;   /* absolute, as the sandbox sees it */
	char *call;   /* the first call refused on it: "openat", "mkdir", ... */
	bool outside; /* under no write root (Landlock), rather than on a read-only mount */
	unsigned long count;
};

struct refusal_watch {
	int fd;             /* the listener, or -1 */
	bool off;           /* the call asked for no watch */
	char **roots;       /* the Landlock write roots */
	size_t nroots;
	int *nrs;           /* each watch_calls entry's syscall number, or -1 */
	struct watch_seen *seen;
	size_t n, cap;
	unsigned long more; /* refused writes to paths beyond WATCH_PATHS_MAX */
	unsigned long notes; /* notifications answered */
	const cordon_evaluator *ev; /* the call's, to explain what was refused */
};

/* Before the launch: the call's write roots (in), its evaluator, and
 * whether it watches at all (a sandboxed call without --no-watch-writes).
 * A struct refusal_watch zeroed and never begun holds nothing. */
void refusal_watch_begin(struct refusal_watch *w, const cordon_lowering *in,
			 const cordon_evaluator *ev, const struct run_opts *o, bool sandboxed);
/* The helper's status byte read from *fd (a socket), which is closed and
 * set to -1, with the listener when it came with it: whether the byte
 * says every layer is in place. */
bool refusal_watch_status(struct refusal_watch *w, int *fd);
/* Answer every notification waiting on the listener (poll said so). */
void refusal_watch_serve(struct refusal_watch *w);
/* After the call (refusals_end): each refused path as a refusal in rs,
 * explained from the evaluator of the call.  o the call. */
void refusal_watch_end(struct refusal_watch *w, const struct run_opts *o, struct refusals *rs);
void refusal_watch_free(struct refusal_watch *w);
#endif

#endif
