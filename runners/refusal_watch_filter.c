/* The calls the runner watches, and the observing filter cordon-exec
 * loads (refusal_watch.h).  The filter only ever notifies or allows: it
 * refuses nothing, and bwrap's filter, loaded before it, still decides
 * first (an error action outranks a notification). */
#include "config.h"

#ifdef __linux__

#define CORDON_WATCH_FILTER_ONLY
#include "refusal_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <string.h>
#include <unistd.h>

/* name, dirfd, path, dirfd2, path2, flags */
const struct watch_call watch_calls[] = {
	{ "open", -1, 0, -1, -1, 1 },
	{ "openat", 0, 1, -1, -1, 2 },
	{ "creat", -1, 0, -1, -1, -1 },
	{ "truncate", -1, 0, -1, -1, -1 },
	{ "mkdir", -1, 0, -1, -1, -1 },
	{ "mkdirat", 0, 1, -1, -1, -1 },
	{ "mknod", -1, 0, -1, -1, -1 },
	{ "mknodat", 0, 1, -1, -1, -1 },
	{ "unlink", -1, 0, -1, -1, -1 },
	{ "unlinkat", 0, 1, -1, -1, -1 },
	{ "rmdir", -1, 0, -1, -1, -1 },
	{ "rename", -1, 0, -1, 1, -1 },
	{ "renameat", 0, 1, 2, 3, -1 },
	{ "renameat2", 0, 1, 2, 3, -1 },
	{ "link", -1, -1, -1, 1, -1 },
	{ "linkat", -1, -1, 2, 3, -1 },
	{ "symlink", -1, -1, -1, 1, -1 },
	{ "symlinkat", -1, -1, 1, 2, -1 },
	{ "chmod", -1, 0, -1, -1, -1 },
	{ "fchmodat", 0, 1, -1, -1, -1 },
	{ "fchmodat2", 0, 1, -1, -1, -1 },
	{ "chown", -1, 0, -1, -1, -1 },
	{ "lchown", -1, 0, -1, -1, -1 },
	{ "fchownat", 0, 1, -1, -1, -1 },
	{ "utimes", -1, 0, -1, -1, -1 },
	{ "utime", -1, 0, -1, -1, -1 },
	{ "utimensat", 0, 1, -1, -1, -1 },
};
const size_t watch_ncalls = sizeof(watch_calls) / sizeof(watch_calls[0]);

/* The open flags that write: one rule each, as a rule is an AND. */
static const unsigned long write_flags[] = { O_WRONLY, O_RDWR, O_CREAT, O_TRUNC };

static int add_call(scmp_filter_ctx ctx, const struct watch_call *c)
{
	int nr = seccomp_syscall_resolve_name(c->name);
	if (nr == __NR_SCMP_ERROR || nr < 0)
		return 0; /* not a call of this architecture (open on arm64) */
	if (c->flags >= 0) {
		for (size_t i = 0; i < sizeof(write_flags) / sizeof(write_flags[0]); i++) {
			int rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
						  SCMP_CMP((unsigned)c->flags, SCMP_CMP_MASKED_EQ,
							   write_flags[i], write_flags[i]));
			if (rc < 0)
				return rc;
		}
		return 0;
	}
	if (c->path >= 0 && c->dirfd >= 0 && strcmp(c->name, "utimensat") == 0)
		/* utimensat(fd, NULL, ...) is futimens: no name to look at. */
		return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
					SCMP_CMP((unsigned)c->path, SCMP_CMP_NE, 0, 0));
	return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
}

int watch_filter_load(const char **why)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc = ctx ? 0 : -ENOMEM;
	*why = "cannot start a filter";
	/* Another architecture's calls pass unwatched, never refused. */
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
	for (size_t i = 0; rc == 0 && i < watch_ncalls; i++)
		if ((rc = add_call(ctx, &watch_calls[i])) < 0)
			*why = watch_calls[i].name;
	if (rc == 0 && (rc = seccomp_load(ctx)) < 0)
		*why = "seccomp_load";
	int lib_fd = rc == 0 ? seccomp_notify_fd(ctx) : -1;
	/* A copy of its own: whether seccomp_release closes the library's
	 * differs between versions. */
	int fd = lib_fd >= 0 ? fcntl(lib_fd, F_DUPFD_CLOEXEC, 3) : -1;
	if (rc == 0 && fd < 0)
		*why = "no listener", rc = -EBADF;
	if (ctx)
		seccomp_release(ctx);
	if (lib_fd >= 0 && fcntl(lib_fd, F_GETFD) >= 0)
		close(lib_fd);
	if (rc < 0)
		errno = -rc;
	return rc == 0 ? fd : -1;
}

#endif
