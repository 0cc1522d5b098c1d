/* cordon-exec: runs inside the sandbox, between bwrap and the command.
 * It checks that every descriptor bind landed where the plan put it
 * (mount_marks.h), applies the Landlock ruleset and no_new_privs, lowers the preset's
 * rlimits (here, inside the user namespace, RLIMIT_NPROC counts the
 * sandbox's processes, not the user's), tells the runner that
 * it did (a byte on --status-fd), and execs the command.  Any failure stops
 * here with status 125: a layer that cannot be applied never degrades into
 * running without it.
 *
 * It runs only for the cordon of its own build: the runner passes its build
 * identity, and a cordon-exec of another build (one installed elsewhere,
 * found by path) refuses it, so that no older or newer layer is taken for
 * this one's.
 *
 * With --egress-fd, the network goes through the call's egress proxy: in a
 * network namespace of its own it listens on the sandbox's loopback for
 * it, answers DNS there (dns_stub.h) and relays connections to the stub's
 * addresses at each --relay-port, and sets the proxy variables
 * (egress_relay.c) before Landlock takes TCP away but for those ports.
 * Whatever capabilities bwrap gave it for that are dropped, all of them,
 * before Landlock and the command.
 *
 * With --watch-writes, the step before the rlimits adds the observing
 * filter of refusal_watch.h, whose listener goes out with the status
 * byte; a filter that cannot be added is said once and the command runs
 * unwatched, under the same sandbox.
 *
 *   cordon-exec --build-id ID --status-fd N [--deny-tcp] [--scope-unix] [--egress-fd N]
 *               [--relay-port N]... [--root DIR]... [--mounted DEV:INO:PATH]...
 *               [--rlimit NAME=VALUE]... [--watch-writes]
 *               -- CMD [ARG...]
 *   cordon-exec --connect HOST PORT      (ssh's ProxyCommand inside the sandbox) */
#include "config.h"

#include "build-id.h"
#include "egress_relay.h"
#include "cordon/landlock.h"
#include "mount_marks.h"
#define CORDON_WATCH_FILTER_ONLY
#include "refusal_watch.h"
#include "run_util.h"
#include "rlimit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Kept whole in the binary: the runner looks for it there before it runs
 * this helper. */
static const char build_marker[] __attribute__((used)) = CORDON_BUILD_MARKER;
#define BUILD_ID (build_marker + sizeof("cordon-build-id:") - 1)

/* The argument tables, released on every way out that is not an exec. */
static const char **roots, **marks;
static struct run_rlimit *rlimits;
static int *ports;

static void release(void)
{
	free(ports);
	ports = NULL;
	free(roots);
	free(marks);
	free(rlimits);
	roots = marks = NULL;
	rlimits = NULL;
}

static int fail(const char *what, const char *why)
{
	fprintf(stderr, "cordon: SANDBOX_UNAVAILABLE: %s: %s\n", what, why);
	release();
	return 125;
}

/* A port's number, or 0 when text is not one. */
static int port_arg(const char *text)
{
	char *end;
	long p = strtol(text, &end, 10);
	return *end || end == text || p < 1 || p > 65535 ? 0 : (int)p;
}

/* With egress_fd, the sandbox's network namespace, the relay and the
 * proxy variables; then every capability dropped, whatever bwrap added (or
 * a root's): nothing of them reaches the command.  0, or 125 told. */
static int egress_and_caps(int egress_fd, const char *self, size_t nports)
{
	char *err = NULL;
	const char *what = "egress";
	if (egress_fd >= 0) {
		if (egress_netns(&err) != 0 ||
		    egress_relay_start(egress_fd, ports, nports, &err) != 0)
			goto failed;
		egress_relay_environ(self);
	}
	what = "capabilities";
	if (egress_drop_caps(&err) == 0)
		return 0;
failed:
	fail(what, err);
	free(err);
	return 125;
}

/* The observing filter's listener, or -1, said once: the report is not
 * enforcement, so the command runs without it. */
static int watch_writes(void)
{
	const char *why = NULL;
	int fd = watch_filter_load(&why);
	if (fd < 0)
		fprintf(stderr, "cordon: the writes the sandbox refuses are not reported for this "
				"call (%s: %s)\n",
			why, strerror(errno));
	return fd;
}

/* The status byte, with the write watch's listener when there is one
 * (>= 0): the watched calls wait for the runner, which has the listener
 * once it has the byte (its end is a socket).  The helper keeps no copy
 * (close_fds_from). */
static int send_status(int status_fd, int listener)
{
	char byte = 'L';
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (listener >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &listener, sizeof(int));
	}
	ssize_t r;
	do
		r = listener >= 0 ? sendmsg(status_fd, &msg, MSG_NOSIGNAL) : write(status_fd, &byte, 1);
	while (r < 0 && errno == EINTR);
	return r == 1 ? 0 : -1;
}

/* What the command line asks of the helper beside the tables above: their
 * lengths, the flags and fds, and where the command starts in argv. */
struct helper_args {
	size_t nroots, nmarks, nrlimits, nports;
	unsigned flags;
	int status_fd, egress_fd, watch, cmd;
	const char *build_id;
};

/* The options into a and the tables, apart so that helper reads as its
 * layers in their order; 0, or 125 told and the tables released. */
static int parse_args(int argc, char **argv, struct helper_args *a)
{
	int i;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else if (strcmp(argv[i], "--build-id") == 0 && i + 1 < argc) {
			a->build_id = argv[++i];
		} else if (strcmp(argv[i], "--status-fd") == 0 && i + 1 < argc) {
			a->status_fd = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--deny-tcp") == 0) {
			a->flags |= CORDON_LANDLOCK_DENY_TCP;
		} else if (strcmp(argv[i], "--egress-fd") == 0 && i + 1 < argc) {
			a->egress_fd = atoi(argv[++i]);
			a->flags |= CORDON_LANDLOCK_EGRESS;
		} else if (strcmp(argv[i], "--relay-port") == 0 && i + 1 < argc) {
			if ((ports[a->nports++] = port_arg(argv[++i])) == 0)
				return fail(argv[i], "not a port");
		} else if (strcmp(argv[i], "--watch-writes") == 0) {
			a->watch = 1;
		} else if (strcmp(argv[i], "--scope-unix") == 0) {
			a->flags |= CORDON_LANDLOCK_SCOPE_UNIX;
		} else if (strcmp(argv[i], "--root") == 0 && i + 1 < argc) {
			roots[a->nroots++] = argv[++i];
		} else if (strcmp(argv[i], "--mounted") == 0 && i + 1 < argc) {
			marks[a->nmarks++] = argv[++i];
		} else if (strcmp(argv[i], "--rlimit") == 0 && i + 1 < argc) {
			const char *why;
			if (!run_rlimit_parse(argv[++i], &rlimits[a->nrlimits++], &why))
				return fail(argv[i], why);
		} else {
			return fail("cordon-exec", "usage: cordon-exec --build-id ID --status-fd N "
						   "[--root DIR]... -- CMD");
		}
	}
	a->cmd = i;
	return 0;
}

/* The helper of another build refuses to stand in for this one's: 0, or
 * 125 told and the tables released. */
static int check_build_id(const char *build_id)
{
	if (!build_id || strcmp(build_id, BUILD_ID) != 0) {
		fprintf(stderr,
			"cordon: SANDBOX_UNAVAILABLE: cordon-exec: this helper is build %s, the "
			"cordon that runs it %s%s; install cordon and cordon-exec from one build\n",
			BUILD_ID, build_id ? "build " : "", build_id ? build_id : "gives no build");
		release();
		return 125;
	}
	return 0;
}

/* Every descriptor bind where the plan put it (mount_marks.h), before any
 * layer goes on: 0, or 125 told and the tables released. */
static int check_marks(size_t nmarks)
{
	struct mark_walk walk = MARK_WALK_INIT;
	for (size_t k = 0; k < nmarks; k++) {
		const char *why;
		if (mount_mark_check(&walk, marks[k], &why) != 0) {
			const char *at = strchr(marks[k], ':');
			at = at ? strchr(at + 1, ':') : NULL;
			fprintf(stderr,
				"cordon: SANDBOX_UNAVAILABLE: the bind of %s did not land as the plan "
				"put it (%s): did a path on its way change during the launch?\n",
				at ? at + 1 : marks[k], why);
			mark_walk_end(&walk);
			release();
			return 125;
		}
	}
	mark_walk_end(&walk);
	return 0;
}

/* The arguments checked, then the layers in their order (the network and
 * capabilities, Landlock, the rlimits), the status byte and the command;
 * the status of cordon-exec. */
static int helper(int argc, char **argv)
{
	roots = calloc((size_t)argc, sizeof(*roots));
	marks = calloc((size_t)argc, sizeof(*marks));
	rlimits = calloc((size_t)argc, sizeof(*rlimits));
	ports = calloc((size_t)argc, sizeof(*ports));
	struct helper_args a = { .status_fd = -1, .egress_fd = -1 };
	char *err = NULL;

	if (!roots || !marks || !rlimits || !ports)
		return fail("cordon-exec", "out of memory");
	if (argc == 4 && strcmp(argv[1], "--connect") == 0) {
		release();
		return egress_connect_main(argv[2], argv[3]);
	}
	if (parse_args(argc, argv, &a) != 0 || check_build_id(a.build_id) != 0)
		return 125;
	int i = a.cmd;
	if (i >= argc || a.status_fd < 0)
		return fail("cordon-exec", "no command or no --status-fd");
	if (check_marks(a.nmarks) != 0)
		return 125;
	if (egress_and_caps(a.egress_fd, argv[0], a.nports) != 0)
		return 125;
	int rc = cordon_landlock_apply_ports(roots, a.nroots, a.flags, ports, a.nports, &err);
	if (rc != 0) {
		fail("landlock", err ? err : "cannot apply the ruleset");
		free(err);
		return 125;
	}
	/* The watch's filter goes in before the rlimits: loading it takes
	 * memory and a descriptor, which a small address_space or
	 * open_files limit would refuse (it is not enforcement; the rlimits
	 * are).  No call the filter watches is made between the two. */
	int listener = a.watch ? watch_writes() : -1;
	for (size_t k = 0; k < a.nrlimits; k++)
		if (run_rlimit_apply(&rlimits[k]) != 0)
			return fail("setrlimit", strerror(errno));
	/* The status byte says every layer is in place; then the fd goes:
	 * only stdin, stdout and stderr go on, not the runner's setup
	 * descriptors (the status socket, what bwrap kept, the watch's
	 * listener) nor anything inherited. */
	if (send_status(a.status_fd, listener) != 0 || close_fds_from(3) != 0)
		return fail("cordon-exec", strerror(errno));
	execvp(argv[i], argv + i);
	int e = errno;
	fprintf(stderr, "cordon: cannot run '%s': %s\n", argv[i], strerror(e));
	release();
	return e == ENOENT ? 127 : 126;
}

/* The status leaves by _exit: nothing runs after the helper's own work.  In
 * a build with LeakSanitizer its exit-time check needs ptrace, which the
 * sandbox refuses, and would turn every status into 1. */
int main(int argc, char **argv)
{
	int status = helper(argc, argv);
	fflush(stderr);
	_exit(status);
}
