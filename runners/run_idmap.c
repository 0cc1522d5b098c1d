/* The unprivileged uid of a call run by root (run_idmap.h).  Linux 5.12
 * and later attach a mount idmapped: open_tree(OPEN_TREE_CLONE) makes a
 * detached copy of a tree, mount_setattr(MOUNT_ATTR_IDMAP) gives it the
 * map of a user namespace (here "0 65534 1": the file system's uid 0 is
 * seen, and written, as 65534), move_mount attaches it.  Detached copies
 * are made in cordon, where a refusal still lets the call run as before;
 * they are attached in the launch, in a mount namespace of its own, so
 * that the host never sees them, and bwrap, started as the unprivileged
 * uid, binds them like any path. */
#ifndef __APPLE__
#include "config.h"

#include "run_idmap.h"
#include "run_util.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/mount.h>

static void run_idmap_init(struct run_idmap *im)
{
	memset(im, 0, sizeof(*im));
	for (size_t i = 0; i < RUN_IDMAP_MAX; i++)
		im->trees[i] = -1;
}

void run_idmap_end(struct run_idmap *im)
{
	for (size_t i = 0; i < im->n; i++) {
		if (im->trees[i] >= 0)
			close(im->trees[i]);
		free(im->dests[i]);
	}
	if (im->helper_copy)
		unlink(im->helper_copy);
	free(im->helper_copy);
	free(im->why);
	run_idmap_init(im);
}

static int no(struct run_idmap *im, char *why)
{
	free(im->why);
	im->why = why;
	return -1;
}

/* ---- the user namespace that holds the map ------------------------------ */

static int write_map(pid_t pid, const char *which, unsigned outside)
{
	char path[64], map[32];
	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, which);
	int len = snprintf(map, sizeof(map), "0 %u 1\n", outside);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int r = write(fd, map, (size_t)len) == len ? 0 : -1;
	int saved = errno;
	close(fd);
	errno = saved;
	return r;
}

/* A user namespace mapping uid and gid 0 to the unprivileged ones, held by
 * a descriptor: a child makes it and waits while cordon writes its map. */
static int map_userns(char **why)
{
	int ready[2], done[2];
	if (pipe2(ready, O_CLOEXEC) != 0)
		return *why = xasprintf("pipe: %s", strerror(errno)), -1;
	if (pipe2(done, O_CLOEXEC) != 0) {
		close(ready[0]);
		close(ready[1]);
		return *why = xasprintf("pipe: %s", strerror(errno)), -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(ready[0]);
		close(done[1]);
		char ch = unshare(CLONE_NEWUSER) == 0 ? 'u' : 'x';
		(void)!write(ready[1], &ch, 1);
		(void)!read(done[0], &ch, 1);
		_exit(0);
	}
	close(ready[1]);
	close(done[0]);
	char ch = 0;
	int fd = -1;
	if (pid < 0)
		*why = xasprintf("fork: %s", strerror(errno));
	else if (read(ready[0], &ch, 1) != 1 || ch != 'u')
		*why = xstrdup("unshare(CLONE_NEWUSER) failed: user namespaces are disabled");
	else if (write_map(pid, "uid_map", RUN_IDMAP_UID) != 0 ||
		 write_map(pid, "gid_map", RUN_IDMAP_GID) != 0)
		*why = xasprintf("cannot write the user namespace's map: %s", strerror(errno));
	else {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%ld/ns/user", (long)pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			*why = xasprintf("%s: %s", path, strerror(errno));
	}
	close(ready[0]);
	close(done[1]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return fd;
}

/* ---- which trees -------------------------------------------------------- */

struct want {
	const char *path;
	bool ro;
};

static bool under_any(const char *path, const struct want *w, size_t n, bool rw_only)
{
	for (size_t i = 0; i < n; i++)
		if ((!rw_only || !w[i].ro) && path_under(path, w[i].path))
			return true;
	return false;
}

/* Whether the unprivileged uid may search the directory dir, with the
 * trees wanted attached: in one, root's files are its own. */
static bool searchable(const char *dir, const struct stat *st, const struct want *w, size_t n)
{
	bool mapped = under_any(dir, w, n, false);
	bool owner = mapped ? st->st_uid == 0 : st->st_uid == RUN_IDMAP_UID;
	bool group = mapped ? st->st_gid == 0 : st->st_gid == RUN_IDMAP_GID;
	mode_t bit = owner ? S_IXUSR : group ? S_IXGRP : S_IXOTH;
	return (st->st_mode & bit) != 0;
}

/* The first directory on the way to path that the unprivileged uid could
 * not pass (malloc'd), or NULL.  A directory that does not exist on the
 * host is bwrap's to make, inside: the walk stops there. */
static char *blocked_on_way(const char *path, const struct want *w, size_t n)
{
	if (!path || path[0] != '/')
		return NULL;
	AUTO_FREE char *dir = xstrdup(path);
	for (char *s = dir + 1;; s++) {
		char *slash = strchr(s, '/');
		if (!slash)
			return NULL;
		*slash = '\0';
		struct stat st;
		if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
			return NULL;
		if (!searchable(dir, &st, w, n))
			return xstrdup(dir);
		*slash = '/';
		s = slash;
	}
}

static bool root_owned(const char *path, bool dir_only)
{
	struct stat st;
	return path && lstat(path, &st) == 0 && st.st_uid == 0 &&
	       (S_ISDIR(st.st_mode) || (!dir_only && S_ISREG(st.st_mode)));
}

static int by_length(const void *a, const void *b)
{
	size_t la = strlen(((const struct want *)a)->path), lb = strlen(((const struct want *)b)->path);
	return la < lb ? -1 : la > lb;
}

/* What to idmap: the runner dir and the plan's root-owned writable binds
 * (rw), the home directory when root owns it and no write root holds it
 * (read-only: the policy decides it, as it did for root), outer first. */
static int want_trees(struct run_idmap *im, const struct cordon_plan *plan,
		      const char *runner_dir, const char *home, struct want *w, size_t *n)
{
	*n = 0;
	w[(*n)++] = (struct want){ runner_dir, false };
	for (size_t i = 0; i < plan->n; i++) {
		const struct cordon_plan_op *op = &plan->ops[i];
		if (op->kind != CORDON_PLAN_BIND || !root_owned(op->source, false) ||
		    under_any(op->source, w, *n, true))
			continue;
		if (*n == RUN_IDMAP_MAX - 1)
			return no(im, xasprintf("more than %d write roots", RUN_IDMAP_MAX - 2));
		w[(*n)++] = (struct want){ op->source, false };
	}
	if (home && strcmp(home, "/") != 0 && root_owned(home, true) && !under_any(home, w, *n, true))
		w[(*n)++] = (struct want){ home, true };
	sort_items(w, *n, sizeof(*w), by_length);
	return 0;
}

/* Every path the plan mounts at, binds from or starts in, and extra[],
 * must be reachable by the unprivileged uid, or bwrap would stop. */
static int check_reach(struct run_idmap *im, const struct cordon_plan *plan, const struct want *w,
		       size_t n, const char *const *extra, size_t nextra)
{
	for (size_t i = 0; i < plan->n + nextra; i++) {
		const struct cordon_plan_op *op = i < plan->n ? &plan->ops[i] : NULL;
		const char *paths[2] = { op ? NULL : extra[i - plan->n], NULL };
		if (op && (cordon_plan_kind_mounts(op->kind) || op->kind == CORDON_PLAN_DIR ||
			   op->kind == CORDON_PLAN_CHDIR || op->kind == CORDON_PLAN_SYMLINK))
			paths[0] = op->path;
		if (op && cordon_plan_binds_host(op))
			paths[1] = op->source;
		for (int k = 0; k < 2; k++) {
			AUTO_FREE char *blocked = blocked_on_way(paths[k], w, n);
			if (blocked)
				return no(im, xasprintf("uid %u cannot pass %s on the way to %s", RUN_IDMAP_UID,
							blocked, paths[k]));
		}
	}
	return 0;
}

/* The detached idmapped copy of path, checked to be what path names. */
static int clone_idmapped(struct run_idmap *im, const struct want *w, int userns)
{
	int fd = (int)syscall(SYS_open_tree, AT_FDCWD, w->path,
			      OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);
	if (fd < 0)
		return no(im, xasprintf("open_tree(%s, OPEN_TREE_CLONE): %s%s", w->path,
					strerror(errno),
					errno == ENOSYS ? " (Linux 5.2 or later)" : "")),
		       -1;
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP | (w->ro ? MOUNT_ATTR_RDONLY : 0),
				   .userns_fd = (unsigned)userns };
	if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) !=
	    0) {
		int e = errno;
		close(fd);
		return no(im, xasprintf("mount_setattr(%s, MOUNT_ATTR_IDMAP): %s%s", w->path,
					strerror(e),
					e == ENOSYS ? " (Linux 5.12 or later)"
					: e == EINVAL ? " (its file system, or one mounted below it, "
							"has no idmapped mounts)"
						      : "")),
		       -1;
	}
	return fd;
}

int run_idmap_prepare(struct run_idmap *im, const struct cordon_plan *plan,
		      const char *runner_dir, const char *home, const char *const *extra,
		      size_t nextra)
{
	struct want w[RUN_IDMAP_MAX];
	size_t n = 0;
	if (want_trees(im, plan, runner_dir, home, w, &n) != 0 ||
	    check_reach(im, plan, w, n, extra, nextra) != 0)
		return -1;
	char *why = NULL;
	int userns = map_userns(&why);
	if (userns < 0)
		return no(im, why);
	for (size_t i = 0; i < n; i++) {
		int fd = clone_idmapped(im, &w[i], userns);
		if (fd < 0) {
			close(userns);
			return -1;
		}
		im->trees[im->n] = fd;
		im->dests[im->n++] = xstrdup(w[i].path);
	}
	close(userns);
	im->active = true;
	return 0;
}

/* Other users' calls keep their temp dirs out of sight by being closed to
 * everyone else; root's command, now nobody, would see nobody's own: each
 * place of them, where the plan shows it, becomes an empty tmpfs, as the
 * runner's own places do (run_linux.c). */
static void hide_nobody_calls(const cordon_lowering *in, struct cordon_plan *plan)
{
	char places[3][64];
	snprintf(places[0], sizeof(places[0]), "/run/user/%u/cordon", RUN_IDMAP_UID);
	snprintf(places[1], sizeof(places[1]), "/tmp/cordon-%u", RUN_IDMAP_UID);
	snprintf(places[2], sizeof(places[2]), "/var/tmp/cordon-%u", RUN_IDMAP_UID);
	for (size_t i = 0; i < ARRAY_SIZE(places); i++) {
		struct stat st;
		if (lstat(places[i], &st) != 0 || !S_ISDIR(st.st_mode) ||
		    !cordon_lowering_shows(in, places[i]))
			continue;
		struct cordon_plan_op op = { CORDON_PLAN_TMPFS, xstrdup(places[i]), NULL, NULL,
					     xstrdup("the temp dirs of nobody's own calls") };
		VEC_PUSH(plan->ops, plan->n, plan->cap, op);
	}
}

/* The helper where the unprivileged uid can reach it: a build tree in a
 * directory closed to others (a clone in a 0700 temporary directory)
 * would make every call of root's fall back to uid 0.  Such a helper is
 * copied into the call's own directory, which the launch maps to that uid;
 * *helper then names the copy.  0, or -1 (the path stays). */
static int helper_reachable(struct run_idmap *im, char **helper, const char *runner_dir)
{
	AUTO_FREE char *blocked = blocked_on_way(*helper, NULL, 0);
	if (!blocked)
		return 0;
	/* A name of the call's own: calls of root's share the runner dir. */
	char *copy = xasprintf("%s/cordon-exec.XXXXXX", runner_dir);
	int in = open(*helper, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	int out = mkostemp(copy, O_CLOEXEC);
	if (out >= 0 && fchmod(out, 0755) != 0) {
		close(out);
		unlink(copy);
		out = -1;
	}
	char buf[65536];
	ssize_t r = in < 0 || out < 0 ? -1 : 0;
	while (r >= 0 && (r = read(in, buf, sizeof(buf))) > 0)
		if (write_all(out, buf, (size_t)r) != 0)
			r = -1;
	if (in >= 0)
		close(in);
	if ((out >= 0 && close(out) != 0) || r < 0) {
		if (out >= 0)
			unlink(copy);
		free(copy);
		return -1;
	}
	free(*helper);
	*helper = copy;
	im->helper_copy = xstrdup(copy);
	return 0;
}

int run_idmap_or_masks(struct run_idmap *im, cordon_lowering *in, struct cordon_plan *plan,
		       const char *runner_dir, char **helper, const char *home, char **err)
{
	helper_reachable(im, helper, runner_dir);
	const char *extra[] = { *helper, cordon_lowering_tmp(in) };
	if (run_idmap_prepare(im, plan, runner_dir, home, extra, ARRAY_SIZE(extra)) == 0) {
		hide_nobody_calls(in, plan);
		return 0;
	}
	/* An administrator who will not have root's command run as root
	 * makes the call fail closed instead. */
	const char *require = getenv("CORDON_ROOT_UNPRIVILEGED");
	if (require && strcmp(require, "require") == 0) {
		*err = xasprintf("CORDON_ROOT_UNPRIVILEGED=require, and the command cannot run as uid "
				 "%u: %s",
				 RUN_IDMAP_UID, im->why);
		return -1;
	}
	fprintf(stderr,
		"cordon: run as root: the command runs as uid 0, with what only root may read "
		"in the system trees masked, not as uid %u: %s\n",
		RUN_IDMAP_UID, im->why);
	cordon_plan_free(plan);
	memset(plan, 0, sizeof(*plan));
	if (cordon_lowering_mask_root_secrets(in, err) != 0)
		return -1;
	return cordon_lowering_plan(in, plan, err);
}

/* ---- in the launch ------------------------------------------------------ */

static int attach(int tree, const char *dest)
{
	struct stat want, at;
	int fd = open(dest, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &at) != 0 || fstat(tree, &want) != 0 || at.st_dev != want.st_dev ||
	    at.st_ino != want.st_ino) {
		dprintf(2, "cordon: SANDBOX_UNAVAILABLE: %s changed before the call started\n", dest);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	int r = (int)syscall(SYS_move_mount, tree, "", fd, "",
			     MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
	if (r != 0)
		dprintf(2, "cordon: SANDBOX_UNAVAILABLE: move_mount to %s: %s\n", dest,
			strerror(errno));
	close(fd);
	return r;
}

int run_idmap_enter(const int *trees, char *const *dests, size_t n, pid_t parent)
{
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0) {
		dprintf(2, "cordon: SANDBOX_UNAVAILABLE: a mount namespace for the launch: %s\n",
			strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (attach(trees[i], dests[i]) != 0)
			return -1;
	gid_t gid = RUN_IDMAP_GID;
	if (setgroups(1, &gid) != 0 || setresgid(gid, gid, gid) != 0 ||
	    setresuid(RUN_IDMAP_UID, RUN_IDMAP_UID, RUN_IDMAP_UID) != 0 ||
	    getuid() != RUN_IDMAP_UID || geteuid() != RUN_IDMAP_UID) {
		dprintf(2, "cordon: SANDBOX_UNAVAILABLE: cannot become uid %u: %s\n", RUN_IDMAP_UID,
			strerror(errno));
		return -1;
	}
	/* A change of uid clears the parent-death signal: set it again. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		return -1;
	return 0;
}
#endif

char *run_idmap_probe(void)
{
	char dir[] = "/tmp/cordon-probe.XXXXXX";
	if (!mkdtemp(dir))
		return xasprintf("mkdtemp(/tmp): %s", strerror(errno));
	struct cordon_plan plan = { 0 };
	struct run_idmap im;
	run_idmap_init(&im);
	char *why = NULL;
	if (run_idmap_prepare(&im, &plan, dir, NULL, NULL, 0) != 0) {
		why = im.why ? im.why : xstrdup("idmapped mounts failed");
		im.why = NULL;
	}
	run_idmap_end(&im);
	rmdir(dir);
	return why;
}
