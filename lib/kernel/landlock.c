/* Landlock rulesets: the running kernel's ABI, and applying write roots to
 * the current process.  Built against whatever <linux/landlock.h> the
 * system has: constants newer than the header are defined here, and the
 * ruleset attribute is our own copy of the newest layout, passed with the
 * size the running ABI understands. */
#include "config.h"

#include "cordon/landlock.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The syscall numbers are the same on every architecture. */
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#endif
#ifndef LANDLOCK_ACCESS_NET_CONNECT_TCP
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#endif

/* struct landlock_net_port_attr and its rule type (ABI 4), which older
 * headers lack. */
struct ll_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
} __attribute__((packed));
#define LL_RULE_NET_PORT 2

/* struct landlock_ruleset_attr as of ABI 6; the kernel takes a prefix. */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI >= 4 */
	uint64_t scoped;             /* ABI >= 6 */
};

static const struct {
	uint64_t bit;
	const char *name;
	int abi;
	bool file; /* may be granted on a file */
} fs_rights[] = {
	{ LANDLOCK_ACCESS_FS_WRITE_FILE, "WRITE_FILE", 1, true },
	{ LANDLOCK_ACCESS_FS_REMOVE_DIR, "REMOVE_DIR", 1, false },
	{ LANDLOCK_ACCESS_FS_REMOVE_FILE, "REMOVE_FILE", 1, false },
	{ LANDLOCK_ACCESS_FS_MAKE_CHAR, "MAKE_CHAR", 1, false },
	{ LANDLOCK_ACCESS_FS_MAKE_DIR, "MAKE_DIR", 1, false },
	{ LANDLOCK_ACCESS_FS_MAKE_REG, "MAKE_REG", 1, false },
	{ LANDLOCK_ACCESS_FS_MAKE_SOCK, "MAKE_SOCK", 1, false },
	{ LANDLOCK_ACCESS_FS_MAKE_FIFO, "MAKE_FIFO", 1, false },
	{ LANDLOCK_ACCESS_FS_MAKE_BLOCK, "MAKE_BLOCK", 1, false },
	{ LANDLOCK_ACCESS_FS_MAKE_SYM, "MAKE_SYM", 1, false },
	{ LANDLOCK_ACCESS_FS_REFER, "REFER", 2, false },
	{ LANDLOCK_ACCESS_FS_TRUNCATE, "TRUNCATE", 3, true },
	{ LANDLOCK_ACCESS_FS_IOCTL_DEV, "IOCTL_DEV", 5, true },
};

int cordon_landlock_abi(void)
{
	if (under_valgrind())
		return 0; /* what the call would answer there (util.h) */
	long v = syscall(__NR_landlock_create_ruleset, NULL, (size_t)0,
			 (uint32_t)LANDLOCK_CREATE_RULESET_VERSION);
	return v < 0 ? 0 : (int)v;
}

uint64_t cordon_landlock_fs_writes(int abi)
{
	uint64_t m = 0;
	for (size_t i = 0; i < ARRAY_SIZE(fs_rights); i++)
		if (fs_rights[i].abi <= abi)
			m |= fs_rights[i].bit;
	return m;
}

uint64_t cordon_landlock_fs_file_writes(int abi)
{
	uint64_t m = 0;
	for (size_t i = 0; i < ARRAY_SIZE(fs_rights); i++)
		if (fs_rights[i].abi <= abi && fs_rights[i].file)
			m |= fs_rights[i].bit;
	return m;
}

void cordon_landlock_fs_names(uint64_t mask, char *buf, size_t size)
{
	size_t used = 0;
	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(fs_rights); i++) {
		if (!(mask & fs_rights[i].bit))
			continue;
		int n = snprintf(buf + used, size - used, "%s%s", used ? " " : "", fs_rights[i].name);
		if (n < 0 || (size_t)n >= size - used)
			return;
		used += (size_t)n;
	}
}

static int fail(char **err, int ret, int saved_errno, char *msg)
{
	*err = msg;
	errno = saved_errno;
	return ret;
}

/* TCP connect to the egress proxy's port and to each of ports: all of them
 * on the sandbox's own loopback, where cordon-exec's relay listens.  The
 * sandbox's network namespace has no route out, so a port granted here
 * reaches the relay or nothing.  0, or -1 with *err. */
static int egress_ports(int ruleset, const int *ports, size_t nports, char **err)
{
	for (size_t i = 0; i <= nports; i++) {
		int port = i == nports ? CORDON_EGRESS_PORT : ports[i];
		struct ll_net_port_attr np = {
			.allowed_access = LANDLOCK_ACCESS_NET_CONNECT_TCP,
			.port = (uint64_t)port,
		};
		if (port < 1 || port > 65535 ||
		    syscall(__NR_landlock_add_rule, ruleset, LL_RULE_NET_PORT, &np, 0U) != 0) {
			int e = port < 1 || port > 65535 ? EINVAL : errno;
			return fail(err, -1, e,
				    xasprintf("landlock_add_rule port %d: %s", port, strerror(e)));
		}
	}
	return 0;
}

int cordon_landlock_apply(const char *const *roots, size_t nroots, unsigned flags, char **err)
{
	return cordon_landlock_apply_ports(roots, nroots, flags, NULL, 0, err);
}

int cordon_landlock_apply_ports(const char *const *roots, size_t nroots, unsigned flags,
				const int *ports, size_t nports, char **err)
{
	int abi = cordon_landlock_abi();
	if (abi == 0) {
		int e = errno;
		return fail(err, 1, e,
			    xasprintf("the kernel has no Landlock (%s)",
				      e == EOPNOTSUPP ? "built in but disabled at boot"
				      : e == ENOSYS   ? "not built in"
						      : strerror(e)));
	}
	if (abi > CORDON_LANDLOCK_ABI_KNOWN)
		abi = CORDON_LANDLOCK_ABI_KNOWN;

	struct ll_ruleset_attr attr = { .handled_access_fs = cordon_landlock_fs_writes(abi) };
	size_t attr_size = sizeof(attr.handled_access_fs);
	if (abi >= 4) {
		attr_size = offsetof(struct ll_ruleset_attr, scoped);
		if (flags & CORDON_LANDLOCK_DENY_TCP)
			attr.handled_access_net =
				LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
	}
	if (abi >= 6) {
		attr_size = sizeof(attr);
		if (flags & CORDON_LANDLOCK_SCOPE_UNIX)
			attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
	}
	int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, attr_size, 0U);
	if (ruleset < 0) {
		int e = errno;
		return fail(err, -1, e,
			    xasprintf("landlock_create_ruleset (ABI %d): %s", abi, strerror(e)));
	}

	for (size_t i = 0; i < nroots; i++) {
		int fd = open(roots[i], O_PATH | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT || errno == ENOTDIR || errno == EACCES)
				continue; /* nothing there to grant */
			int e = errno;
			close(ruleset);
			return fail(err, -1, e, xasprintf("%s: %s", roots[i], strerror(e)));
		}
		struct stat st;
		if (fstat(fd, &st) != 0) {
			int e = errno;
			close(fd);
			close(ruleset);
			return fail(err, -1, e, xasprintf("%s: %s", roots[i], strerror(e)));
		}
		struct landlock_path_beneath_attr pb = {
			.allowed_access = S_ISDIR(st.st_mode) ? cordon_landlock_fs_writes(abi)
							      : cordon_landlock_fs_file_writes(abi),
			.parent_fd = fd,
		};
		long r = syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0U);
		int e = errno;
		close(fd);
		if (r != 0 && e == EBADFD)
			continue; /* a pipe or socket (/dev/stdout): no path to grant */
		if (r != 0) {
			close(ruleset);
			return fail(err, -1, e,
				    xasprintf("landlock_add_rule %s: %s", roots[i], strerror(e)));
		}
	}

	if (abi >= 4 && (flags & CORDON_LANDLOCK_DENY_TCP) && (flags & CORDON_LANDLOCK_EGRESS) &&
	    egress_ports(ruleset, ports, nports, err) != 0) {
		close(ruleset);
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) != 0) {
		int e = errno;
		close(ruleset);
		return fail(err, -1, e, xasprintf("prctl(PR_SET_NO_NEW_PRIVS): %s", strerror(e)));
	}
	if (syscall(__NR_landlock_restrict_self, ruleset, 0U) != 0) {
		int e = errno;
		close(ruleset);
		return fail(err, -1, e, xasprintf("landlock_restrict_self: %s", strerror(e)));
	}
	close(ruleset);
	return 0;
}
