/* The seccomp filter bwrap loads for the sandboxed command (bwrap --seccomp
 * FD): everything is allowed but what would take the sandbox apart from
 * inside (user namespaces, mounts, io_uring, tracing another process) and
 * the sockets the policy does not allow.  Two forms from one rule table:
 * "seccomp", a line per rule for a reader, and "seccomp-bpf", the program
 * itself as libseccomp exports it.
 *
 * Argument checks compare the low 32 bits where the kernel reads an int, so
 * a value with high bits set does not slip past a rule, and a "not AF_UNIX"
 * check is an unsigned greater-than on all 64 bits, so it fails closed. */
#include "config.h"

#include "lower.h"

#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

/* clone's flags come second on s390; first everywhere else. */
#if defined(__s390__) || defined(__s390x__)
#define CLONE_FLAGS_ARG 1
#else
#define CLONE_FLAGS_ARG 0
#endif

enum sc_when { SC_ALWAYS, SC_NO_NET, SC_NO_UNIX, SC_NO_NET_OR_UNIX, SC_EGRESS };

/* How one rule of the table becomes seccomp rules.  A seccomp rule is an AND
 * of comparisons, so an OR is several rules:
 * SC_EACH_BIT: cmp[0]'s mask is a set of bits, a rule for each, any one
 * matches.
 * SC_EACH_VALUE: the last comparison is masked; a rule for every value the
 * mask lets through but those in keep, so what is allowed is an allowlist
 * and a value nobody thought of is refused. */
enum sc_expand { SC_ONE, SC_EACH_BIT, SC_EACH_VALUE };

struct sc_rule {
	const char *syscall;
	enum sc_when when;
	unsigned ncmp;
	struct scmp_arg_cmp cmp[2];
	int err;
	const char *cond;
	const char *why;
	enum sc_expand expand;
	uint32_t keep; /* SC_EACH_VALUE: the values of the last comparison left allowed */
};

#define LOW32 0xffffffffULL
#define WHY_USERNS "a new user namespace regains every capability inside it (mounts, more namespaces)"
#define WHY_MOUNT "changing mounts could undo the sandbox's read-only binds and masks"
#define WHY_URING "io_uring opens files and sockets itself, where this filter never looks"
#define WHY_VM "reading or writing another process's memory"
#define WHY_KEYS "the kernel keyrings are shared with the caller's user and session: a key read " \
		 "or planted there crosses the sandbox"
#define WHY_SETID "a set-user-ID or set-group-ID file made inside runs with its owner's rights " \
		  "outside (root's, for a call run as root)"
#define WHY_DEV "a device node reaches disks and memory past every mount"

/* mode & (S_ISUID | S_ISGID), on argument n. */
#define SETID_MODE(name, n)                                                                   \
	{ name, SC_ALWAYS, 1, { { n, SCMP_CMP_MASKED_EQ, S_ISUID | S_ISGID, S_ISUID | S_ISGID } }, \
	  EPERM, "mode & (S_ISUID|S_ISGID)", WHY_SETID, SC_EACH_BIT, 0 }
/* A device node's type (S_IFCHR, S_IFBLK) in the mode, argument n. */
#define DEVICE_MODE(name, n, type)                                                 \
	{ name, SC_ALWAYS, 1, { { n, SCMP_CMP_MASKED_EQ, S_IFMT, type } }, EPERM, "type " #type, \
	  WHY_DEV, SC_ONE, 0 }

#define WHY_EGRESS "the network goes through the egress proxy: AF_INET and AF_INET6 only, which " \
		   "reach nothing but the sandbox's own loopback; AF_NETLINK, AF_PACKET, AF_VSOCK " \
		   "and the rest are refused"
/* A family between AF_INET and AF_INET6 (AX25, IPX, APPLETALK, ...). */
_Static_assert(AF_INET == 2 && AF_AX25 == 3 && AF_X25 == 9 && AF_INET6 == 10,
	       "the families between AF_INET and AF_INET6 are listed one by one");
/* The kernel reads a socket type's low four bits as the type and refuses
 * every other bit but SOCK_NONBLOCK and SOCK_CLOEXEC. */
#define SOCK_TYPE_MASK 0xf
_Static_assert(SOCK_STREAM < 16 && SOCK_SEQPACKET < 16, "a socket type fits SOCK_TYPE_MASK");
#define UNIX_PAIR_KEEP ((1u << SOCK_STREAM) | (1u << SOCK_SEQPACKET))
#define WHY_UNIX_PAIR "a pair is decided by what it can do: a datagram one (SOCK_DGRAM, and " \
		      "SOCK_RAW, which the kernel makes SOCK_DGRAM) sends to any named socket " \
		      "outside, descriptors too (sendto, connect); a stream or seqpacket pair " \
		      "reaches only itself; every other type is refused, known or not"

#define EGRESS_FAMILY(f)                                                                  \
	{ "socket", SC_EGRESS, 1, { { 0, SCMP_CMP_MASKED_EQ, LOW32, f } }, EAFNOSUPPORT,        \
	  "domain " #f, WHY_EGRESS, SC_ONE, 0 }

/* In order: on x86-32 libseccomp also turns a socket rule into one on
 * socketcall(SYS_SOCKET), which must find socketcall refused already; and
 * the socket rule on AF_UNIX comes before the one on the other families
 * (libseccomp resolves their overlap by order). */
static const struct sc_rule rules[] = {
	{ "unshare", SC_ALWAYS, 1, { { 0, SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER } },
	  EPERM, "flags & CLONE_NEWUSER", WHY_USERNS, SC_ONE, 0 },
	{ "clone", SC_ALWAYS, 1,
	  { { CLONE_FLAGS_ARG, SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER } }, EPERM,
	  "flags & CLONE_NEWUSER", WHY_USERNS, SC_ONE, 0 },
	{ "clone3", SC_ALWAYS, 0, { { 0 } }, ENOSYS, "any",
	  "its flags are in memory the filter cannot read; ENOSYS makes libc fall back to clone, "
	  "which is checked", SC_ONE, 0 },
	{ "setns", SC_ALWAYS, 0, { { 0 } }, EPERM, "any",
	  "joining another namespace, such as one open on an inherited descriptor", SC_ONE, 0 },
	{ "mount", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_MOUNT, SC_ONE, 0 },
	{ "umount", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_MOUNT, SC_ONE, 0 },
	{ "umount2", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_MOUNT, SC_ONE, 0 },
	{ "pivot_root", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_MOUNT, SC_ONE, 0 },
	{ "open_tree", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_MOUNT, SC_ONE, 0 },
	{ "move_mount", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_MOUNT, SC_ONE, 0 },
	{ "fsopen", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_MOUNT, SC_ONE, 0 },
	{ "fsconfig", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_MOUNT, SC_ONE, 0 },
	{ "fsmount", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_MOUNT, SC_ONE, 0 },
	{ "fspick", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_MOUNT, SC_ONE, 0 },
	{ "mount_setattr", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_MOUNT, SC_ONE, 0 },
	{ "io_uring_setup", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_URING, SC_ONE, 0 },
	{ "io_uring_enter", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_URING, SC_ONE, 0 },
	{ "io_uring_register", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_URING, SC_ONE, 0 },
	{ "ptrace", SC_ALWAYS, 0, { { 0 } }, EPERM, "any",
	  "tracing another process: its memory, registers and syscalls", SC_ONE, 0 },
	{ "process_vm_readv", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_VM, SC_ONE, 0 },
	{ "process_vm_writev", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_VM, SC_ONE, 0 },
	{ "keyctl", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_KEYS, SC_ONE, 0 },
	{ "add_key", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_KEYS, SC_ONE, 0 },
	{ "request_key", SC_ALWAYS, 0, { { 0 } }, EPERM, "any", WHY_KEYS, SC_ONE, 0 },
	SETID_MODE("chmod", 1),
	SETID_MODE("fchmod", 1),
	SETID_MODE("fchmodat", 2),
	SETID_MODE("fchmodat2", 2),
	SETID_MODE("open", 2),
	SETID_MODE("openat", 3),
	SETID_MODE("creat", 1),
	SETID_MODE("mkdir", 1),
	SETID_MODE("mkdirat", 2),
	SETID_MODE("mknod", 1),
	SETID_MODE("mknodat", 2),
	DEVICE_MODE("mknod", 1, S_IFCHR),
	DEVICE_MODE("mknod", 1, S_IFBLK),
	DEVICE_MODE("mknodat", 2, S_IFCHR),
	DEVICE_MODE("mknodat", 2, S_IFBLK),
	{ "openat2", SC_ALWAYS, 0, { { 0 } }, ENOSYS, "any",
	  "its mode is in memory the filter cannot read; ENOSYS makes libc fall back to openat, "
	  "which is checked", SC_ONE, 0 },
	{ "socketcall", SC_NO_NET_OR_UNIX, 0, { { 0 } }, EPERM, "any",
	  "the 32-bit socket multiplexer keeps its arguments in memory the filter cannot read, so "
	  "it is refused whole; the direct socket syscalls (Linux 4.3+) are checked below", SC_ONE, 0 },
	{ "socket", SC_NO_UNIX, 1, { { 0, SCMP_CMP_MASKED_EQ, LOW32, AF_UNIX } }, EPERM,
	  "domain AF_UNIX",
	  "net \"unix\" is not allowed: local sockets reach daemons outside the sandbox; "
	  "connect() cannot see a family, so refusing the socket suffices", SC_ONE, 0 },
	{ "socketpair", SC_NO_UNIX, 2,
	  { { 0, SCMP_CMP_MASKED_EQ, LOW32, AF_UNIX }, { 1, SCMP_CMP_MASKED_EQ, SOCK_TYPE_MASK, 0 } },
	  EPERM, "AF_UNIX, not STREAM or SEQPACKET", WHY_UNIX_PAIR,
	  SC_EACH_VALUE, UNIX_PAIR_KEEP },
	{ "socket", SC_NO_NET, 1, { { 0, SCMP_CMP_GT, AF_UNIX, 0 } }, EAFNOSUPPORT,
	  "domain not AF_UNIX",
	  "no net rule allows a host: AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_VSOCK and "
	  "every other family", SC_ONE, 0 },
	/* Through the egress proxy: AF_INET and AF_INET6 reach only the
	 * sandbox's own loopback, where the proxy listens; the rest stays
	 * refused. */
	EGRESS_FAMILY(AF_AX25), EGRESS_FAMILY(AF_IPX), EGRESS_FAMILY(AF_APPLETALK),
	EGRESS_FAMILY(AF_NETROM), EGRESS_FAMILY(AF_BRIDGE), EGRESS_FAMILY(AF_ATMPVC),
	EGRESS_FAMILY(AF_X25),
	{ "socket", SC_EGRESS, 1, { { 0, SCMP_CMP_GT, AF_INET6, 0 } }, EAFNOSUPPORT,
	  "domain above AF_INET6", WHY_EGRESS, SC_ONE, 0 },
};

struct sc_arch {
	uint32_t token;
	const char *name;
};

/* The native ABI and the others its kernel can run. */
static size_t sc_arches(struct sc_arch *out)
{
	uint32_t native = seccomp_arch_native();
	size_t n = 0;
	switch (native) {
	case SCMP_ARCH_X86_64:
		out[n++] = (struct sc_arch){ SCMP_ARCH_X86_64, "x86_64 (native)" };
		out[n++] = (struct sc_arch){ SCMP_ARCH_X86, "x86 (32-bit)" };
		out[n++] = (struct sc_arch){ SCMP_ARCH_X32, "x32" };
		break;
	case SCMP_ARCH_AARCH64:
		out[n++] = (struct sc_arch){ SCMP_ARCH_AARCH64, "aarch64 (native)" };
		out[n++] = (struct sc_arch){ SCMP_ARCH_ARM, "arm (32-bit)" };
		break;
	default:
		out[n++] = (struct sc_arch){ native, "native" };
		break;
	}
	return n;
}

static const char *arch_short(uint32_t token)
{
	switch (token) {
	case SCMP_ARCH_X86_64: return "x86_64";
	case SCMP_ARCH_X86: return "x86";
	case SCMP_ARCH_X32: return "x32";
	case SCMP_ARCH_AARCH64: return "aarch64";
	case SCMP_ARCH_ARM: return "arm";
	default: return "native";
	}
}

static bool rule_active(const struct lower_input *in, const struct sc_rule *r)
{
	switch (r->when) {
	case SC_ALWAYS: return true;
	case SC_NO_NET: return !in->net_allowed;
	case SC_NO_UNIX: return !in->unix_allowed;
	case SC_NO_NET_OR_UNIX: return !in->net_allowed || !in->unix_allowed;
	case SC_EGRESS: return in->net_allowed;
	}
	return false;
}

/* Whether the syscall exists on arch.  libseccomp names the ones an ABI
 * lacks with pseudo numbers from -10000 down, and the socket calls that
 * x86-32 also has behind socketcall with small negative numbers it maps to
 * the direct syscalls. */
static bool on_arch(const struct sc_rule *r, uint32_t arch)
{
	int nr = seccomp_syscall_resolve_name_arch(arch, r->syscall);
	return nr >= 0 || (nr != __NR_SCMP_ERROR && nr > -10000);
}

static int restricted(const struct lower_input *in, char **err)
{
	if (in->restricted)
		return 0;
	*err = xasprintf("preset '%s' runs without a sandbox (sandbox none): there is no seccomp "
			 "filter",
			 in->preset);
	return -1;
}

/* What one concrete seccomp rule is handed to: the filter under
 * construction, or the OCI form's collector. */
typedef int (*sc_emit_fn)(const struct sc_rule *r, unsigned ncmp, const struct scmp_arg_cmp *cmp,
			  void *data);

/* A rule for every bit of cmp[0]'s mask. */
static int sc_each_bit(const struct sc_rule *r, sc_emit_fn emit, void *data)
{
	for (scmp_datum_t bits = r->cmp[0].datum_a; bits; bits &= bits - 1) {
		struct scmp_arg_cmp one = r->cmp[0];
		one.datum_a = one.datum_b = bits & -bits;
		int rc = emit(r, 1, &one, data);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* A rule for every value of the last comparison's mask that keep leaves
 * out; the mask is a low run of bits, so the values are 0 to the mask. */
static int sc_each_value(const struct sc_rule *r, sc_emit_fn emit, void *data)
{
	struct scmp_arg_cmp cmp[2];
	unsigned last = r->ncmp - 1;
	memcpy(cmp, r->cmp, sizeof(cmp));
	for (scmp_datum_t v = 0; v <= r->cmp[last].datum_a; v++) {
		if (v < 32 && (r->keep >> v) & 1)
			continue;
		cmp[last].datum_b = v;
		int rc = emit(r, r->ncmp, cmp, data);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* One table rule as concrete seccomp rules (a seccomp rule's comparisons
 * must all hold; an OR is several rules): the one expansion both the
 * filter and its OCI form use. */
static int sc_expand(const struct sc_rule *r, sc_emit_fn emit, void *data)
{
	switch (r->expand) {
	case SC_EACH_BIT: return sc_each_bit(r, emit, data);
	case SC_EACH_VALUE: return sc_each_value(r, emit, data);
	case SC_ONE: break;
	}
	return emit(r, r->ncmp, r->cmp, data);
}

static int sc_filter_add(const struct sc_rule *r, unsigned ncmp, const struct scmp_arg_cmp *cmp,
			 void *data)
{
	scmp_filter_ctx ctx = data;
	return seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO((uint32_t)r->err),
				      seccomp_syscall_resolve_name(r->syscall), ncmp,
				      ncmp ? cmp : NULL);
}

static scmp_filter_ctx sc_arch_filter(const struct lower_input *in, uint32_t arch, char **err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	const char *what = NULL;
	int rc = 0;
	if (!ctx) {
		*err = xstrdup("seccomp_init failed");
		return NULL;
	}
	if (arch != seccomp_arch_native()) {
		rc = seccomp_arch_add(ctx, arch);
		if (rc == 0)
			rc = seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE);
	}
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	for (size_t i = 0; rc == 0 && i < ARRAY_SIZE(rules); i++) {
		const struct sc_rule *r = &rules[i];
		if (!rule_active(in, r) || !on_arch(r, arch))
			continue;
		rc = sc_expand(r, sc_filter_add, ctx);
		if (rc != 0)
			what = r->syscall;
	}
	if (rc != 0) {
		*err = xasprintf("seccomp: %s%s on %s: %s", what ? "the rule for " : "setting up",
				 what ? what : "", arch_short(arch), strerror(-rc));
		seccomp_release(ctx);
		return NULL;
	}
	return ctx;
}

static scmp_filter_ctx sc_filter(const struct lower_input *in, char **err)
{
	struct sc_arch arches[4];
	size_t n = sc_arches(arches);
	scmp_filter_ctx all = NULL;
	/* The program is exported, not loaded (bwrap loads it): assume the
	 * kernel API of Linux 4.14 (SCMP_ACT_KILL_PROCESS) rather than probe the
	 * running kernel, so the program is the same wherever it is built.  An
	 * older kernel reads KILL_PROCESS as killing the thread.  The level is
	 * libseccomp's global state; cordon loads no filter itself. */
	if (seccomp_api_set(3) != 0) {
		*err = xstrdup("seccomp: libseccomp refuses API level 3");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		scmp_filter_ctx one = sc_arch_filter(in, arches[i].token, err);
		if (!one) {
			seccomp_release(all);
			return NULL;
		}
		if (!all) {
			all = one;
			continue;
		}
		int rc = seccomp_merge(all, one);
		if (rc != 0) {
			*err = xasprintf("seccomp: adding %s: %s", arch_short(arches[i].token),
					 strerror(-rc));
			seccomp_release(one);
			seccomp_release(all);
			return NULL;
		}
	}
	return all;
}

char *lower_seccomp_bpf(const struct lower_input *in, size_t *len, char **err)
{
	if (restricted(in, err) != 0)
		return NULL;
	scmp_filter_ctx ctx = sc_filter(in, err);
	if (!ctx)
		return NULL;
	int fd = memfd_create("cordon-seccomp", MFD_CLOEXEC);
	if (fd < 0) {
		*err = xasprintf("memfd_create: %s", strerror(errno));
		seccomp_release(ctx);
		return NULL;
	}
	int rc = seccomp_export_bpf(ctx, fd);
	seccomp_release(ctx);
	if (rc != 0) {
		*err = xasprintf("seccomp_export_bpf: %s", strerror(-rc));
		close(fd);
		return NULL;
	}
	struct strbuf sb;
	char buf[4096];
	ssize_t got;
	sb_init(&sb);
	if (lseek(fd, 0, SEEK_SET) != 0) {
		*err = xasprintf("memfd: %s", strerror(errno));
		close(fd);
		sb_free(&sb);
		return NULL;
	}
	while ((got = read(fd, buf, sizeof(buf))) > 0)
		sb_add(&sb, buf, (size_t)got);
	int e = errno;
	close(fd);
	if (got < 0 || sb.len == 0 || sb.len % 8 != 0) {
		*err = xasprintf("reading the exported filter: %s",
				 got < 0 ? strerror(e) : "not a whole number of BPF instructions");
		sb_free(&sb);
		return NULL;
	}
	*len = sb.len;
	return sb_steal(&sb);
}

static const char *errno_name(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case ENOSYS: return "ENOSYS";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	default: return "?";
	}
}

char *lower_seccomp_text(const struct lower_input *in, size_t *len, char **err)
{
	struct sc_arch arches[4];
	size_t narch;
	struct strbuf sb;
	if (restricted(in, err) != 0)
		return NULL;
	/* The program must build: the text describes nothing libseccomp refuses. */
	scmp_filter_ctx ctx = sc_filter(in, err);
	if (!ctx)
		return NULL;
	seccomp_release(ctx);

	narch = sc_arches(arches);
	sb_init(&sb);
	sb_adds(&sb, "# seccomp filter for preset ");
	sb_add_quoted(&sb, in->preset);
	sb_adds(&sb, "\n# the program itself: cordon compile --emit seccomp-bpf; bwrap --seccomp FD "
		     "applies it to the command\n");
	sb_adds(&sb, "default action: allow\narchitectures: ");
	for (size_t a = 0; a < narch; a++)
		sb_addf(&sb, "%s%s", a ? ", " : "", arches[a].name);
	sb_adds(&sb, "; a syscall of any other ABI kills the process\n");
	if (in->net_allowed)
		sb_addf(&sb, "network: through the egress proxy (%s): AF_INET and AF_INET6 sockets "
			     "reach only the sandbox's loopback; other families are refused\n",
			in->net_origin ? in->net_origin : "?");
	else
		sb_adds(&sb, "network: denied (no net rule allows a host)\n");
	sb_addf(&sb, "unix sockets: %s\n",
		in->unix_allowed ? "allowed (a net rule allows \"unix\")"
				  : "denied (net \"unix\" is not allowed)");

	sb_addf(&sb, "\n%-18s %-10s %-33s %-19s %s\n", "syscall", "abis", "condition", "action",
		"why");
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++) {
		const struct sc_rule *r = &rules[i];
		char abis[64] = "";
		size_t on = 0;
		if (!rule_active(in, r))
			continue;
		for (size_t a = 0; a < narch; a++) {
			if (!on_arch(r, arches[a].token))
				continue;
			size_t used = strlen(abis);
			snprintf(abis + used, sizeof(abis) - used, "%s%s", used ? "," : "",
				 arch_short(arches[a].token));
			on++;
		}
		if (on == 0)
			continue;
		char action[32];
		snprintf(action, sizeof(action), "errno %s", errno_name(r->err));
		sb_addf(&sb, "%-18s %-10s %-33s %-19s %s\n", r->syscall, on == narch ? "all" : abis,
			r->cond, action, r->why);
	}

	sb_adds(&sb, "\nnot filtered:\n");
	if (!in->unix_allowed)
		sb_adds(&sb, "  connect, sendto, sendmsg: a unix socket the command could use comes "
			     "from socket() or socketpair(), refused above, or was inherited open\n"
			     "  socketpair(AF_UNIX) of SOCK_STREAM or SOCK_SEQPACKET: a connected "
			     "pair reaches nothing outside it (sendto ignores or refuses an address, "
			     "connect answers EISCONN)\n");
	sb_adds(&sb, "  every other syscall: the mounts and namespaces of bwrap and the Landlock "
		     "ruleset bound what it can reach\n");
	*len = sb.len;
	return sb_steal(&sb);
}

/* ---- the same rules for a container runtime (lower_oci.c) ---------------- */

static const char *const cmp_op_names[] = {
	[SCMP_CMP_NE] = "SCMP_CMP_NE",
	[SCMP_CMP_LT] = "SCMP_CMP_LT",
	[SCMP_CMP_LE] = "SCMP_CMP_LE",
	[SCMP_CMP_EQ] = "SCMP_CMP_EQ",
	[SCMP_CMP_GE] = "SCMP_CMP_GE",
	[SCMP_CMP_GT] = "SCMP_CMP_GT",
	[SCMP_CMP_MASKED_EQ] = "SCMP_CMP_MASKED_EQ",
};

size_t lower_seccomp_arch_names(const char **names, size_t max)
{
	struct sc_arch arches[4];
	size_t n = sc_arches(arches), k = 0;
	for (size_t i = 0; i < n && k < max; i++) {
		switch (arches[i].token) {
		case SCMP_ARCH_X86_64: names[k++] = "SCMP_ARCH_X86_64"; break;
		case SCMP_ARCH_X86: names[k++] = "SCMP_ARCH_X86"; break;
		case SCMP_ARCH_X32: names[k++] = "SCMP_ARCH_X32"; break;
		case SCMP_ARCH_AARCH64: names[k++] = "SCMP_ARCH_AARCH64"; break;
		case SCMP_ARCH_ARM: names[k++] = "SCMP_ARCH_ARM"; break;
		default: break; /* the native ABI of another machine: the runtime's default */
		}
	}
	return k;
}

/* The rule of the policy that turns a table rule on: the preset itself
 * (sandbox required) for what is always refused, the net rules for the
 * socket rules. */
static const char *sc_origin(const struct lower_input *in, enum sc_when when,
			     const char *preset_at, const char *net_at, const char *unix_at)
{
	switch (when) {
	case SC_ALWAYS: return preset_at;
	case SC_NO_NET: return net_at;
	case SC_NO_UNIX: return unix_at;
	case SC_NO_NET_OR_UNIX: return in->net_allowed ? unix_at : net_at;
	case SC_EGRESS: return in->net_origin ? in->net_origin : preset_at;
	}
	return preset_at;
}

/* "file:line:col" of the rule deciding a net request, or NULL. */
static char *net_rule_at(const struct lower_input *in, const char *target)
{
	struct cordon_request req = { .op = CORDON_NET, .target = target };
	char *err = NULL;
	cordon_decision *d = cordon_evaluate(in->ev, &req, &err);
	const char *at = d ? cordon_decision_rule(d) : NULL;
	char *copy = at ? xstrdup(at) : NULL;
	free(err);
	cordon_decision_free(d);
	return copy;
}

struct sc_each {
	lower_sc_fn fn;
	void *data;
	const char *origin;
};

static int sc_each_emit(const struct sc_rule *r, unsigned ncmp, const struct scmp_arg_cmp *cmp,
			void *data)
{
	struct sc_each *e = data;
	struct lower_sc_entry x = { r->syscall, r->err, errno_name(r->err), ncmp, { { 0 } },
				    r->cond, r->why, e->origin };
	for (unsigned i = 0; i < ncmp; i++)
		x.cmp[i] = (struct lower_sc_cmp){ cmp[i].arg, cmp_op_names[cmp[i].op],
						  cmp[i].datum_a, cmp[i].datum_b };
	e->fn(&x, e->data);
	return 0;
}

int lower_seccomp_each(const struct lower_input *in, lower_sc_fn fn, void *data, char **err)
{
	struct sc_arch arches[4];
	char preset_at[512];
	if (restricted(in, err) != 0)
		return -1;
	/* The rules must build as a filter: the runtime's libseccomp is given
	 * nothing cordon's refuses. */
	scmp_filter_ctx ctx = sc_filter(in, err);
	if (!ctx)
		return -1;
	seccomp_release(ctx);
	srcmgr_format_loc(&in->ev->policy->sm, in->ev->preset->loc, preset_at, sizeof(preset_at));
	char *net_at = net_rule_at(in, "cordon.invalid"), *unix_at = net_rule_at(in, "unix");
	size_t narch = sc_arches(arches);
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++) {
		const struct sc_rule *r = &rules[i];
		bool somewhere = false;
		for (size_t a = 0; a < narch; a++)
			somewhere = somewhere || on_arch(r, arches[a].token);
		if (!rule_active(in, r) || !somewhere)
			continue;
		const char *at = sc_origin(in, r->when, preset_at, net_at ? net_at : preset_at,
					   unix_at ? unix_at : preset_at);
		struct sc_each e = { fn, data, at };
		sc_expand(r, sc_each_emit, &e);
	}
	free(net_at);
	free(unix_at);
	return 0;
}
