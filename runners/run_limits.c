/* Resource limits at run time on Linux.  The rlimits travel to cordon-exec
 * as --rlimit arguments and are set there, inside the user namespace, just
 * before the command runs.  memory, and processes where possible, go to a
 * per-call cgroup: a child of a writable cgroup (delegated cgroup v2, or
 * the cgroup v1 pids/memory hierarchies as root) that the launched process
 * joins itself before it execs bwrap, so nothing of the call starts
 * outside it; it is emptied and removed when the call ends. */
#ifndef __APPLE__
#include "config.h"

#include "run_limits.h"
#include "run_util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CGROUP2_MAGIC 0x63677270UL
#define CGROUP1_MAGIC 0x27e0ebUL

static bool write_file(const char *dir, const char *name, const char *value)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return false;
	ssize_t w = write(fd, value, strlen(value));
	int saved = errno;
	close(fd);
	errno = saved;
	return w == (ssize_t)strlen(value);
}

static char *read_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct strbuf sb;
	char buf[4096];
	ssize_t n;
	if (fd < 0)
		return NULL;
	sb_init(&sb);
	while ((n = read(fd, buf, sizeof(buf))) > 0 && sb.len < (1u << 20))
		sb_add(&sb, buf, (size_t)n);
	close(fd);
	if (!sb.buf)
		sb_adds(&sb, "");
	return sb_steal(&sb);
}

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == ',') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n' || p[n] == ','))
			return true;
	return false;
}

static bool is_fs(const char *path, unsigned long magic)
{
	struct statfs st;
	return statfs(path, &st) == 0 && (unsigned long)st.f_type == magic;
}

/* This process's cgroup directory: in the unified hierarchy (ctrl NULL)
 * or in the v1 hierarchy of ctrl.  malloc'd, or NULL. */
static char *own_cgroup(const char *ctrl)
{
	char *text = read_file("/proc/self/cgroup"), *line, *save = NULL, *dir = NULL;
	if (!text)
		return NULL;
	for (line = strtok_r(text, "\n", &save); line && !dir; line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2 || c2[1] != '/')
			continue;
		*c1 = *c2 = '\0';
		const char *ctrls = c1 + 1, *path = strcmp(c2 + 1, "/") == 0 ? "" : c2 + 1;
		if (!ctrl && strcmp(line, "0") == 0 && !*ctrls) {
			const char *mounts[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
			for (size_t i = 0; i < ARRAY_SIZE(mounts) && !dir; i++)
				if (is_fs(mounts[i], CGROUP2_MAGIC))
					dir = xasprintf("%s%s", mounts[i], path);
		} else if (ctrl && has_word(ctrls, ctrl)) {
			char *mount = xasprintf("/sys/fs/cgroup/%s", ctrls);
			if (is_fs(mount, CGROUP1_MAGIC))
				dir = xasprintf("%s%s", mount, path);
			free(mount);
		}
	}
	free(text);
	return dir;
}

static char *make_child(const char *parent)
{
	static unsigned counter;
	/* A call killed before it removed its cgroup leaves one named after
	 * its pid, which a later process may get again: take the next name. */
	for (int tries = 0; tries < 64; tries++) {
		char *dir = xasprintf("%s/cordon-%ld-%u", parent, (long)getpid(), counter++);
		if (mkdir(dir, 0755) == 0)
			return dir;
		int err = errno;
		free(dir);
		if (err != EEXIST)
			break;
	}
	return NULL;
}

static bool listed(const char *procs, long pid)
{
	char *text = read_file(procs);
	bool found = false;
	for (char *p = text; p && *p && !found;) {
		found = strtol(p, &p, 10) == pid;
		while (*p == '\n')
			p++;
	}
	free(text);
	return found;
}

/* SIGKILL every process in the cgroup.  A pid read from cgroup.procs may
 * be reused by the time it is signalled (pids wrap): the pidfd pins the
 * process, which is signalled only if it is still listed. */
static void kill_members(const char *dir)
{
	char *procs = xasprintf("%s/cgroup.procs", dir), *pids = read_file(procs);
	for (char *p = pids; p && *p;) {
		long pid = strtol(p, &p, 10);
		while (*p == '\n')
			p++;
		int fd = pid > 0 ? (int)syscall(SYS_pidfd_open, (pid_t)pid, 0) : -1;
		if (fd < 0)
			continue;
		if (listed(procs, pid))
			syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
		close(fd);
	}
	free(pids);
	free(procs);
}

static void remove_cgroup(const char *dir)
{
	/* Whatever of the call is still alive goes first (cgroup.kill is v2's,
	 * since Linux 5.14; otherwise one by one). */
	write_file(dir, "cgroup.kill", "1");
	int err = 0;
	/* The last member's exit is accounted a moment after it is reaped:
	 * retry soon, then less often (at most 10 ms apart, about 3 s in all). */
	long wait_ns = 50000, waited_ns = 0;
	while (waited_ns < 3000000000L) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return;
		err = errno;
		kill_members(dir);
		nanosleep(&(struct timespec){ 0, wait_ns }, NULL);
		waited_ns += wait_ns;
		if (wait_ns < 10000000)
			wait_ns = wait_ns * 2 > 10000000 ? 10000000 : wait_ns * 2;
	}
	fprintf(stderr, "cordon: cannot remove the cgroup %s: %s\n", dir, strerror(err));
}

/* A child of dir holding the limits, with its file join open for the
 * launched process to write "0" to (run_limits_enter); false (and
 * nothing left) if not. */
static bool add_cgroup(struct run_limits *lim, const char *dir, const char *join,
		       const char *const *files, const char *const *values, size_t n)
{
	char *child = make_child(dir);
	bool ok = child != NULL;
	for (size_t i = 0; ok && i < n; i++)
		ok = write_file(child, files[i], values[i]);
	int fd = -1;
	if (ok) {
		char *procs = xasprintf("%s/%s", child, join);
		fd = open(procs, O_WRONLY | O_CLOEXEC);
		free(procs);
	}
	if (!ok || fd < 0) {
		if (child)
			rmdir(child);
		free(child);
		return false;
	}
	lim->cgroup[lim->ncgroups] = child;
	lim->procs[lim->ncgroups++] = fd;
	return true;
}

/* cgroup v2: a child of this process's cgroup or of its parent whose
 * subtree_control enables every controller wanted, where moving a process
 * is allowed (cgroup.procs of the common ancestor writable). */
static bool cgroup_v2(struct run_limits *lim, const char *pids, const char *mem)
{
	char *dir = own_cgroup(NULL);
	bool done = false;
	for (int up = 0; dir && up < 2 && !done; up++) {
		char *sc_path = xasprintf("%s/cgroup.subtree_control", dir);
		char *procs = xasprintf("%s/cgroup.procs", dir);
		char *sc = read_file(sc_path);
		if (sc && (!pids || has_word(sc, "pids")) && (!mem || has_word(sc, "memory")) &&
		    access(procs, W_OK) == 0) {
			const char *files[2], *values[2];
			size_t n = 0;
			if (pids) {
				files[n] = "pids.max";
				values[n++] = pids;
			}
			if (mem) {
				files[n] = "memory.max";
				values[n++] = mem;
			}
			done = add_cgroup(lim, dir, "cgroup.procs", files, values, n);
			if (done && mem) {
				/* Swap would stretch the bound; one OOM ends the call. */
				write_file(lim->cgroup[lim->ncgroups - 1], "memory.swap.max", "0");
				write_file(lim->cgroup[lim->ncgroups - 1], "memory.oom.group", "1");
			}
		}
		free(sc);
		free(sc_path);
		free(procs);
		char *slash = strrchr(dir, '/');
		if (slash && strncmp(dir, "/sys/fs/cgroup/", 15) == 0 && slash > dir + 14)
			*slash = '\0';
		else
			break;
	}
	free(dir);
	return done;
}

/* cgroup v1: a child in the controller's own hierarchy, joined through
 * its `tasks` file.  Writing "0" to cgroup.procs moves the whole thread
 * group under the global cgroup_threadgroup_rwsem taken for writing,
 * which waits for an RCU grace period: 5 to 16 ms a call here, 40 under
 * load, the largest part of a launch.  "0" in `tasks` moves the calling
 * thread alone, without that lock; the launched process has one thread
 * (it is fork()'s child and starts none), so it moves all of it, and
 * what it execs and forks after starts inside. */
static bool cgroup_v1(struct run_limits *lim, const char *ctrl, const char *file,
		      const char *value)
{
	char *dir = own_cgroup(ctrl);
	const char *files[1] = { file }, *values[1] = { value };
	bool done = dir && lim->ncgroups < RUN_CGROUP_MAX &&
		    add_cgroup(lim, dir, "tasks", files, values, 1);
	free(dir);
	return done;
}

int run_limits_prepare(const cordon_lowering *in, bool sandboxed, struct run_limits *lim,
		       char **err)
{
	const struct cordon_limit *pids = cordon_lowering_limit_find(in, CORDON_LIMIT_PROCESSES);
	const struct cordon_limit *mem = cordon_lowering_limit_find(in, CORDON_LIMIT_MEMORY);
	char pids_text[32], mem_text[32];
	bool have_pids = false, have_mem = false;

	memset(lim, 0, sizeof(*lim));
	for (size_t i = 0; i < RUN_CGROUP_MAX; i++)
		lim->procs[i] = -1;
	/* Inside a sandbox cordon-exec sets them; without one, the child does. */
	const struct cordon_limit *l;
	for (size_t i = 0; !sandboxed && (l = cordon_lowering_limit(in, i)); i++) {
		struct run_rlimit r = { 0, l->value };
		if (run_rlimit_for(l->which, &r.resource))
			lim->rl[lim->nrl++] = r;
	}
	if (!pids && !mem)
		return 0;
	snprintf(pids_text, sizeof(pids_text), "%llu", pids ? pids->value : 0);
	snprintf(mem_text, sizeof(mem_text), "%llu", mem ? mem->value : 0);
	if (cgroup_v2(lim, pids ? pids_text : NULL, mem ? mem_text : NULL)) {
		have_pids = pids != NULL;
		have_mem = mem != NULL;
	} else if (pids && mem && mem->best_effort && cgroup_v2(lim, pids_text, NULL)) {
		/* A delegation without the memory controller still counts processes. */
		have_pids = true;
	} else {
		have_pids = pids && cgroup_v1(lim, "pids", "pids.max", pids_text);
		have_mem = mem && cgroup_v1(lim, "memory", "memory.limit_in_bytes", mem_text);
	}
	if (mem && !have_mem && !mem->best_effort) {
		*err = xasprintf("%s: the memory limit needs a cgroup with the memory controller, "
				 "and none is writable here (a delegated cgroup v2, or cgroup v1 as "
				 "root); write 'memory ... best_effort;' to run without it",
				 mem->origin);
		run_limits_release(lim);
		return -1;
	}
	/* RLIMIT_NPROC never binds a process whose real user is root. */
	if (pids && !have_pids && getuid() == 0 && !pids->best_effort) {
		*err = xasprintf("%s: the processes limit cannot hold for root without a cgroup "
				 "(RLIMIT_NPROC does not bind root), and no cgroup with the pids "
				 "controller is writable here; write 'processes ... best_effort;' to "
				 "run without it",
				 pids->origin);
		run_limits_release(lim);
		return -1;
	}
	return 0;
}

const char *run_limits_probe(void)
{
	struct run_limits lim = { .procs = { -1, -1 } };
	const char *what;
	if (cgroup_v2(&lim, "max", "max")) {
		what = "cgroup v2 (pids, memory): processes and memory limits apply";
	} else {
		bool pids = cgroup_v1(&lim, "pids", "pids.max", "max");
		bool mem = cgroup_v1(&lim, "memory", "memory.limit_in_bytes", "-1");
		what = pids && mem ? "cgroup v1 (pids, memory): processes and memory limits apply"
		       : pids	   ? "cgroup v1 (pids): processes limits apply; memory only as best_effort"
		       : mem	   ? "cgroup v1 (memory): memory limits apply; processes for root only as "
				     "best_effort"
		       : getuid() == 0 ? "none writable: memory and processes limits (as root) only as "
					 "best_effort"
				       : "none writable: memory limits only as best_effort";
	}
	run_limits_release(&lim);
	return what;
}

void run_limits_helper_args(const cordon_lowering *in, char ***v, size_t *n, size_t *cap)
{
	const struct cordon_limit *l;
	for (size_t i = 0; (l = cordon_lowering_limit(in, i)); i++) {
		struct run_rlimit r = { 0, l->value };
		if (!run_rlimit_for(l->which, &r.resource))
			continue;
		VEC_PUSH(*v, *n, *cap, xstrdup("--rlimit"));
		VEC_PUSH(*v, *n, *cap, run_rlimit_arg(&r));
	}
}

int run_limits_enter(const struct run_limits *lim)
{
	for (size_t i = 0; i < lim->ncgroups; i++) {
		if (write(lim->procs[i], "0", 1) != 1) {
			dprintf(2, "cordon: SANDBOX_UNAVAILABLE: cannot join the cgroup %s: %s\n",
				lim->cgroup[i], strerror(errno));
			return -1;
		}
	}
	for (size_t i = 0; i < lim->nrl; i++) {
		if (run_rlimit_apply(&lim->rl[i]) != 0) {
			dprintf(2, "cordon: SANDBOX_UNAVAILABLE: setrlimit: %s\n", strerror(errno));
			return -1;
		}
	}
	return 0;
}

void run_limits_release(struct run_limits *lim)
{
	for (size_t i = 0; i < lim->ncgroups; i++) {
		if (lim->procs[i] >= 0)
			close(lim->procs[i]);
		lim->procs[i] = -1;
		remove_cgroup(lim->cgroup[i]);
		free(lim->cgroup[i]);
		lim->cgroup[i] = NULL;
	}
	lim->ncgroups = 0;
}
#endif
