/* sysprobe OP...: try each operation and print one line per operation,
 * "OP ok" or "OP ERRNO-NAME", for the seccomp tests to compare.  Every
 * operation is harmless when it succeeds (a child that exits at once, a
 * socket that is closed again, a file made in the working directory and
 * removed again, a key in the process keyring that ends with it). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

static const char *errno_name(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOSYS: return "ENOSYS";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case EINVAL: return "EINVAL";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	case ESOCKTNOSUPPORT: return "ESOCKTNOSUPPORT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOSPC: return "ENOSPC";
	case ENOMEM: return "ENOMEM";
	case ENOKEY: return "ENOKEY";
	case EEXIST: return "EEXIST";
	default: return "E?";
	}
}

static int result(const char *op, long r)
{
	if (r < 0)
		printf("%s %s\n", op, errno_name(errno));
	else
		printf("%s ok\n", op);
	return 0;
}

static long try_socket(long domain, int type)
{
	long fd = syscall(SYS_socket, domain, (long)type, 0L);
	if (fd >= 0)
		close((int)fd);
	return fd;
}

static long try_socketpair(int type)
{
	int sv[2];
	long r = syscall(SYS_socketpair, (long)AF_UNIX, (long)type, 0L, sv);
	if (r == 0) {
		close(sv[0]);
		close(sv[1]);
	}
	return r;
}

/* "unix-pair-T" or "unix-socket-T", T a type name or number, "+flags"
 * adding SOCK_NONBLOCK|SOCK_CLOEXEC: every spelling of an AF_UNIX socket. */
static const struct {
	const char *name;
	int type;
} sock_types[] = {
	{ "stream", SOCK_STREAM }, { "dgram", SOCK_DGRAM },	  { "raw", SOCK_RAW },
	{ "rdm", SOCK_RDM },	   { "seqpacket", SOCK_SEQPACKET }, { "packet", SOCK_PACKET },
};

static int sock_type_of(const char *spec)
{
	char *end;
	size_t n = strcspn(spec, "+");
	int type = -1;
	for (size_t i = 0; i < sizeof(sock_types) / sizeof(sock_types[0]); i++)
		if (strlen(sock_types[i].name) == n && strncmp(spec, sock_types[i].name, n) == 0)
			type = sock_types[i].type;
	if (type < 0) {
		type = (int)strtol(spec, &end, 10);
		if (end != spec + n)
			return -1;
	}
	if (strcmp(spec + n, "+flags") == 0)
		type |= SOCK_NONBLOCK | SOCK_CLOEXEC;
	else if (spec[n])
		return -1;
	return type;
}

/* A child in a new user namespace that exits at once. */
static long try_clone_user(void)
{
	long pid = syscall(SYS_clone, (long)(CLONE_NEWUSER | SIGCHLD), 0L, 0L, 0L, 0L);
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return pid;
}

#ifdef SYS_clone3
struct probe_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};
#endif

static long try_clone3(void)
{
#ifdef SYS_clone3
	struct probe_clone_args args = { .exit_signal = SIGCHLD };
	long pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return pid;
#else
	errno = ENOSYS;
	return -1;
#endif
}

static long try_io_uring(void)
{
#ifdef SYS_io_uring_setup
	char params[120] = { 0 }; /* struct io_uring_params */
	long fd = syscall(SYS_io_uring_setup, 1L, params);
	if (fd >= 0)
		close((int)fd);
	return fd;
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* Read a word of our own memory the way a debugger would read another's. */
static long try_process_vm_readv(void)
{
	long word = 42, copy = 0;
	struct iovec local = { &copy, sizeof(copy) }, remote = { &word, sizeof(word) };
	return (long)process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
}

/* A child that asks to be traced, then exits. */
static long try_ptrace(void)
{
	int fds[2];
	if (pipe(fds) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		long r = ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		int e = r < 0 ? errno : 0;
		if (write(fds[1], &e, sizeof(e)) != (ssize_t)sizeof(e))
			_exit(1);
		_exit(0);
	}
	int e = EINVAL;
	close(fds[1]);
	if (pid < 0 || read(fds[0], &e, sizeof(e)) != (ssize_t)sizeof(e))
		e = EINVAL;
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	errno = e;
	return e ? -1 : 0;
}

/* Join the user namespace we are in: EINVAL when allowed, EPERM when filtered. */
static long try_setns(void)
{
	int fd = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	long r = setns(fd, 0);
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

/* ---- set-user-ID and set-group-ID bits ---- */

#define PROBE_FILE "sysprobe-file"
#define PROBE_DIR "sysprobe-dir"
#define SETID_FILE (S_ISUID | 0755)
#define SETID_DIR (S_ISGID | 0755)
#define CREATE_FLAGS (O_CREAT | O_WRONLY | O_EXCL)

#ifndef SYS_fchmodat2
#if defined(__x86_64__) || defined(__aarch64__) || defined(__i386__)
#define SYS_fchmodat2 452
#endif
#endif

/* An ordinary 0644 file to change the mode of; -1 when it cannot be made. */
static int plain_file(void)
{
	unlink(PROBE_FILE);
	return open(PROBE_FILE, CREATE_FLAGS | O_CLOEXEC, 0644);
}

/* Run the syscall, then remove what it made, keeping its errno. */
static long cleaned(long r)
{
	int e = errno;
	unlink(PROBE_FILE);
	rmdir(PROBE_DIR);
	errno = e;
	return r;
}

static long try_chmod(int how, mode_t mode)
{
	int fd = plain_file();
	long r = -1;
	if (fd < 0)
		return -1;
	switch (how) {
	case 0: r = chmod(PROBE_FILE, mode); break;
	case 1: r = fchmod(fd, mode); break;
	case 2: r = syscall(SYS_fchmodat, (long)AT_FDCWD, PROBE_FILE, (long)mode, 0L); break;
	case 3:
#ifdef SYS_fchmodat2
		r = syscall(SYS_fchmodat2, (long)AT_FDCWD, PROBE_FILE, (long)mode, 0L);
#else
		errno = ENOSYS;
#endif
		break;
	}
	int e = errno;
	close(fd);
	errno = e;
	return cleaned(r);
}

/* A new file or directory made with the bits already in its mode. */
static long try_create(const char *how)
{
	long r = -1;
	unlink(PROBE_FILE);
	errno = ENOSYS;
	if (strcmp(how, "openat") == 0)
		r = syscall(SYS_openat, (long)AT_FDCWD, PROBE_FILE, (long)CREATE_FLAGS, (long)SETID_FILE);
#ifdef SYS_open
	else if (strcmp(how, "open") == 0)
		r = syscall(SYS_open, PROBE_FILE, (long)CREATE_FLAGS, (long)SETID_FILE);
#endif
#ifdef SYS_creat
	else if (strcmp(how, "creat") == 0)
		r = syscall(SYS_creat, PROBE_FILE, (long)SETID_FILE);
#endif
#ifdef SYS_mkdir
	else if (strcmp(how, "mkdir") == 0)
		r = syscall(SYS_mkdir, PROBE_DIR, (long)SETID_DIR);
#endif
	else if (strcmp(how, "mkdirat") == 0)
		r = syscall(SYS_mkdirat, (long)AT_FDCWD, PROBE_DIR, (long)SETID_DIR);
#ifdef SYS_mknod
	else if (strcmp(how, "mknod") == 0)
		r = syscall(SYS_mknod, PROBE_FILE, (long)(S_IFREG | SETID_FILE), 0L);
#endif
	else if (strcmp(how, "mknodat") == 0)
		r = syscall(SYS_mknodat, (long)AT_FDCWD, PROBE_FILE, (long)(S_IFREG | SETID_FILE), 0L);
	else if (strcmp(how, "mknodat-char") == 0) /* /dev/null's numbers */
		r = syscall(SYS_mknodat, (long)AT_FDCWD, PROBE_FILE, (long)(S_IFCHR | 0600),
			    (long)((1 << 8) | 3));
	if (r > 2 && strncmp(how, "mk", 2) != 0)
		close((int)r);
	return cleaned(r);
}

/* openat2 with an ordinary mode: the filter cannot read its struct. */
static long try_openat2(void)
{
#ifdef SYS_openat2
	uint64_t how[3] = { CREATE_FLAGS | O_CLOEXEC, 0644, 0 }; /* struct open_how */
	unlink(PROBE_FILE);
	long fd = syscall(SYS_openat2, (long)AT_FDCWD, PROBE_FILE, how, sizeof(how));
	if (fd >= 0)
		close((int)fd);
	return cleaned(fd);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* ---- the kernel keyrings ---- */

#define KEYCTL_GET_KEYRING_ID_OP 0
#define KEY_SPEC_PROCESS (-2L)
#define KEY_SPEC_SESSION (-3L)

static long try_keys(const char *op)
{
#if defined(SYS_keyctl) && defined(SYS_add_key) && defined(SYS_request_key)
	if (strcmp(op, "keyctl") == 0)
		return syscall(SYS_keyctl, (long)KEYCTL_GET_KEYRING_ID_OP, KEY_SPEC_SESSION, 0L);
	if (strcmp(op, "add_key") == 0)
		return syscall(SYS_add_key, "user", "sysprobe", "x", 1L, KEY_SPEC_PROCESS);
	return syscall(SYS_request_key, "user", "sysprobe-absent", NULL, KEY_SPEC_PROCESS);
#else
	(void)op;
	errno = ENOSYS;
	return -1;
#endif
}

#if defined(__x86_64__)
/* The 32-bit x86 ABI from this 64-bit process: int $0x80 takes i386 syscall
 * numbers and the filter sees AUDIT_ARCH_I386, as for a 32-bit program. */
static long int80(long n, long a, long b, long c, long d)
{
	long r;
	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "a"(n), "b"(a), "c"(b), "d"(c), "S"(d)
			 : "memory");
	return r;
}


static void x86_report(const char *op, long r)
{
	if (r < 0) {
		errno = (int)-r;
		result(op, -1);
	} else {
		result(op, 0);
	}
	fflush(stdout);
}

/* The mode and keyring calls through the 32-bit ABI; names are copied
 * below 4 GiB, at mem. */
static void try_x86_setid(char *mem)
{
	char *file = strcpy(mem + 1024, PROBE_FILE), *dir = strcpy(mem + 1100, PROBE_DIR);
	uint32_t *how = (uint32_t *)(mem + 1200); /* struct open_how: three u64 */
	int fd = plain_file();
	x86_report("x86-chmod-suid", int80(15 /* chmod */, (long)file, SETID_FILE, 0, 0));
	x86_report("x86-fchmod-suid", int80(94 /* fchmod */, fd, SETID_FILE, 0, 0));
	x86_report("x86-fchmodat-suid",
		   int80(306 /* fchmodat */, AT_FDCWD, (long)file, SETID_FILE, 0));
	x86_report("x86-chmod-plain", int80(15, (long)file, 0755, 0, 0));
	close(fd);
	cleaned(0);
	x86_report("x86-open-suid", int80(5 /* open */, (long)file, CREATE_FLAGS, SETID_FILE, 0));
	cleaned(0);
	x86_report("x86-openat-suid",
		   int80(295 /* openat */, AT_FDCWD, (long)file, CREATE_FLAGS, SETID_FILE));
	cleaned(0);
	x86_report("x86-creat-suid", int80(8 /* creat */, (long)file, SETID_FILE, 0, 0));
	cleaned(0);
	x86_report("x86-mkdir-sgid", int80(39 /* mkdir */, (long)dir, SETID_DIR, 0, 0));
	cleaned(0);
	x86_report("x86-mknod-suid", int80(14 /* mknod */, (long)file, S_IFREG | SETID_FILE, 0, 0));
	cleaned(0);
	memset(how, 0, 24);
	how[0] = CREATE_FLAGS;
	how[2] = 0644;
	x86_report("x86-openat2", int80(437 /* openat2 */, AT_FDCWD, (long)file, (long)how, 24));
	cleaned(0);
	x86_report("x86-keyctl",
		   int80(288 /* keyctl */, KEYCTL_GET_KEYRING_ID_OP, KEY_SPEC_SESSION, 0, 0));
}

/* In a child, since a kernel without the 32-bit ABI answers int $0x80 with
 * SIGSEGV: then one line, "x86 unavailable". */
static void try_x86(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL); /* no sanitizer report for the expected fault */
		/* Pointers must lie below 4 GiB; i386 longs are 32 bits. */
		int *args = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
		if (args == MAP_FAILED)
			_exit(3);
		if (int80(20 /* getpid */, 0, 0, 0, 0) != getpid())
			_exit(3);
		args[0] = AF_INET; /* socketcall's argument block */
		args[1] = SOCK_STREAM;
		args[2] = 0;
		long r = int80(102 /* socketcall */, 1 /* SYS_SOCKET */, (long)args, 0, 0);
		x86_report("x86-socketcall", r);
		x86_report("x86-socket-inet", int80(359 /* socket */, AF_INET, SOCK_STREAM, 0, 0));
		x86_report("x86-socket-unix", int80(359, AF_UNIX, SOCK_STREAM, 0, 0));
		x86_report("x86-socketpair-dgram",
			   int80(360 /* socketpair */, AF_UNIX, SOCK_DGRAM, 0,
				 (long)(args + 4)));
		x86_report("x86-socketpair-stream", int80(360, AF_UNIX, SOCK_STREAM, 0, (long)(args + 4)));
		x86_report("x86-socketpair-raw", int80(360, AF_UNIX, SOCK_RAW, 0, (long)(args + 4)));
		x86_report("x86-socketpair-seqpacket",
			   int80(360, AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, (long)(args + 4)));
		try_x86_setid((char *)args);
		x86_report("x86-unshare-user", int80(310 /* unshare */, CLONE_NEWUSER, 0, 0, 0));
		_exit(0);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		printf("x86 unavailable\n");
}
#else
static void try_x86(void)
{
	printf("x86 unavailable\n");
}
#endif

int main(int argc, char **argv)
{
	const long hi = (long)(1UL << 32) * (sizeof(long) > 4);
	setvbuf(stdout, NULL, _IOLBF, 0); /* each line out before anything can kill us */
	for (int i = 1; i < argc; i++) {
		const char *op = argv[i];
		long r;
		if (strcmp(op, "inet") == 0)
			r = try_socket(AF_INET, SOCK_STREAM);
		else if (strcmp(op, "inet6") == 0)
			r = try_socket(AF_INET6, SOCK_DGRAM);
		else if (strcmp(op, "netlink") == 0)
			r = try_socket(AF_NETLINK, SOCK_RAW);
		else if (strcmp(op, "packet") == 0)
			r = try_socket(AF_PACKET, SOCK_DGRAM);
		else if (strcmp(op, "vsock") == 0)
			r = try_socket(AF_VSOCK, SOCK_STREAM);
		else if (strcmp(op, "unix") == 0)
			r = try_socket(AF_UNIX, SOCK_STREAM);
		else if (strcmp(op, "inet-high-bits") == 0) /* the kernel reads an int */
			r = try_socket(hi | AF_INET, SOCK_STREAM);
		else if (strcmp(op, "unix-high-bits") == 0)
			r = try_socket(hi | AF_UNIX, SOCK_STREAM);
		else if (strcmp(op, "pair-stream") == 0)
			r = try_socketpair(SOCK_STREAM);
		else if (strcmp(op, "pair-dgram") == 0)
			r = try_socketpair(SOCK_DGRAM | SOCK_CLOEXEC);
		else if (strncmp(op, "unix-pair-", 10) == 0 || strncmp(op, "unix-socket-", 12) == 0) {
			bool pair = op[5] == 'p';
			int type = sock_type_of(op + (pair ? 10 : 12));
			if (type < 0) {
				fprintf(stderr, "sysprobe: unknown socket type in '%s'\n", op);
				return 2;
			}
			r = pair ? try_socketpair(type) : try_socket(AF_UNIX, type);
		} else if (strcmp(op, "unshare-user") == 0)
			r = unshare(CLONE_NEWUSER);
		else if (strcmp(op, "clone-user") == 0)
			r = try_clone_user();
		else if (strcmp(op, "clone3") == 0)
			r = try_clone3();
		else if (strcmp(op, "setns") == 0)
			r = try_setns();
		else if (strcmp(op, "io_uring") == 0)
			r = try_io_uring();
		else if (strcmp(op, "ptrace") == 0)
			r = try_ptrace();
		else if (strcmp(op, "process_vm_readv") == 0)
			r = try_process_vm_readv();
		else if (strcmp(op, "chmod-suid") == 0)
			r = try_chmod(0, SETID_FILE);
		else if (strcmp(op, "chmod-sgid") == 0)
			r = try_chmod(0, S_ISGID | 0755);
		else if (strcmp(op, "chmod-plain") == 0)
			r = try_chmod(0, 0755);
		else if (strcmp(op, "fchmod-suid") == 0)
			r = try_chmod(1, SETID_FILE);
		else if (strcmp(op, "fchmodat-suid") == 0)
			r = try_chmod(2, SETID_FILE);
		else if (strcmp(op, "fchmodat2-suid") == 0)
			r = try_chmod(3, SETID_FILE);
		else if (strncmp(op, "create-", 7) == 0)
			r = try_create(op + 7);
		else if (strcmp(op, "openat2") == 0)
			r = try_openat2();
		else if (strcmp(op, "keyctl") == 0 || strcmp(op, "add_key") == 0 ||
			 strcmp(op, "request_key") == 0)
			r = try_keys(op);
		else if (strcmp(op, "x86") == 0) {
			try_x86();
			continue;
		} else if (strcmp(op, "fork") == 0) {
			pid_t pid = fork();
			if (pid == 0)
				_exit(0);
			if (pid > 0)
				waitpid(pid, NULL, 0);
			r = pid;
		} else {
			fprintf(stderr, "sysprobe: unknown operation '%s'\n", op);
			return 2;
		}
		result(op, r);
	}
	return 0;
}
