/* The runner's side of the file-system refusal report (refusal_watch.h):
 * each notification read, the write it asks for judged against the
 * sandbox's own mounts and write roots, and answered CONTINUE. */
#include "config.h"

#ifdef __linux__

#include "refusal_watch.h"
#include "refusals.h"
#include "run_util.h"
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/seccomp.h>

#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0)
#endif

/* Linux 6.6: the caller's wake-up of the runner and the answer's of the
 * caller are synchronous, the two run on one CPU in turn (the round trip
 * costs a context switch, not a trip through the scheduler). */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* Notifications answered in one turn of the runner's loop, so that the
 * command's output is passed on during a storm of them. */
#define WATCH_TURN 256

void refusal_watch_begin(struct refusal_watch *w, const cordon_lowering *in,
			 const cordon_evaluator *ev, const struct run_opts *o, bool sandboxed)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	w->ev = ev;
	w->off = !sandboxed || o->no_watch_writes;
	if (w->off)
		return;
	const char **roots = cordon_lowering_landlock_roots(in, &w->nroots);
	w->roots = xcalloc(w->nroots + 1, sizeof(*w->roots));
	for (size_t i = 0; i < w->nroots; i++)
		w->roots[i] = xstrdup(roots[i]);
	free(roots);
	w->nrs = xcalloc(watch_ncalls, sizeof(*w->nrs));
	for (size_t i = 0; i < watch_ncalls; i++) {
		int nr = seccomp_syscall_resolve_name(watch_calls[i].name);
		w->nrs[i] = nr == __NR_SCMP_ERROR ? -1 : nr;
	}
}

bool refusal_watch_status(struct refusal_watch *w, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	char ch = 0;
	struct iovec iov = { &ch, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	ssize_t r;
	do
		r = recvmsg(*fd, &msg, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	struct cmsghdr *c = r > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int))) {
		int got;
		memcpy(&got, CMSG_DATA(c), sizeof(got));
		if (w->off || !w->nrs || w->fd >= 0) {
			close(got);
		} else {
			w->fd = got;
			/* Older kernels refuse it (EINVAL): the answer is the same. */
			(void)ioctl(got, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
				    (unsigned long)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
		}
	}
	close(*fd);
	*fd = -1;
	return r == 1 && ch == 'L';
}

/* ---- one notification --------------------------------------------------- */

/* The NUL-ended string at addr in tid's memory, a page at a time (the
 * string may end just before an unmapped page): false when unreadable. */
static bool read_string(pid_t tid, uint64_t addr, char *out, size_t size)
{
	size_t got = 0;
	while (got < size - 1) {
		uint64_t at = addr + got;
		size_t page = 4096 - (size_t)(at % 4096), want = size - 1 - got;
		if (want > page)
			want = page;
		struct iovec local = { out + got, want }, remote = { (void *)(uintptr_t)at, want };
		ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
		if (n <= 0)
			return false;
		if (memchr(out + got, '\0', (size_t)n))
			return true;
		got += (size_t)n;
	}
	return false; /* longer than PATH_MAX: the kernel refuses it itself */
}

/* path made absolute against dirfd (-1: the cwd) of tid, "." and ".."
 * taken out, in out; false when the base is not a path (a pipe, a
 * deleted directory). */
static bool absolute(pid_t tid, int dirfd, const char *path, char *out, size_t size)
{
	char base[PATH_MAX] = "/";
	if (path[0] != '/') {
		char link[64];
		if (dirfd == AT_FDCWD || dirfd < 0)
			snprintf(link, sizeof(link), "/proc/%d/cwd", (int)tid);
		else
			snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)tid, dirfd);
		ssize_t n = readlink(link, base, sizeof(base) - 1);
		if (n <= 0 || base[0] != '/')
			return false;
		base[n] = '\0';
		if (n > 10 && strcmp(base + n - 10, " (deleted)") == 0)
			return false;
	}
	AUTO_FREE char *all = xasprintf("%s/%s", base, path);
	size_t len = 0;
	for (char *save = NULL, *seg = strtok_r(all, "/", &save); seg;
	     seg = strtok_r(NULL, "/", &save)) {
		if (strcmp(seg, ".") == 0)
			continue;
		if (strcmp(seg, "..") == 0) {
			while (len > 0 && out[--len] != '/')
				;
			continue;
		}
		size_t n = strlen(seg);
		if (len + 1 + n + 1 > size)
			return false;
		out[len++] = '/';
		memcpy(out + len, seg, n);
		len += n;
	}
	if (len == 0)
		out[len++] = '/';
	out[len] = '\0';
	return true;
}

/* How a call's name is written: made (EEXIST when it is there), changed
 * (ENOENT when it is not), replaced (either), or opened (by the flags). */
enum name_use { USE_MAKE, USE_CHANGE, USE_REPLACE, USE_OPEN };

static enum name_use use_of(const char *call, bool second)
{
	if (strncmp(call, "open", 4) == 0)
		return USE_OPEN;
	if (strcmp(call, "creat") == 0 || (second && strncmp(call, "rename", 6) == 0))
		return USE_REPLACE;
	if (strncmp(call, "mk", 2) == 0 || strncmp(call, "link", 4) == 0 ||
	    strncmp(call, "symlink", 7) == 0)
		return USE_MAKE;
	return USE_CHANGE;
}

static bool under_root(const struct refusal_watch *w, const char *path)
{
	for (size_t i = 0; i < w->nroots; i++)
		if (path_under(path, w->roots[i]))
			return true;
	return false;
}

/* Does the kernel refuse this write of path (as tid sees it)?  0 no, 1 a
 * read-only mount, 2 no write root covers it.  The sandbox's mounts are
 * looked at through /proc/TID/root; a name whose directory cannot be
 * looked at there is not reported. */
static int refused(const struct refusal_watch *w, pid_t tid, const char *path,
		   enum name_use use, unsigned long flags)
{
	char where[2 * PATH_MAX + 32];
	struct stat st;
	snprintf(where, sizeof(where), "/proc/%d/root%s", (int)tid, path);
	bool exists = fstatat(AT_FDCWD, where, &st, AT_SYMLINK_NOFOLLOW) == 0;
	bool gone = !exists && errno == ENOENT;
	if ((use == USE_MAKE && exists) || (use == USE_CHANGE && gone))
		return 0; /* EEXIST or ENOENT first: not a refusal */
	if (use == USE_OPEN) {
		bool writes = (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
		if ((flags & O_CREAT) && (flags & O_EXCL) && exists)
			return 0;
		if (!writes && exists)
			return 0; /* O_CREAT of a file that is there: a read */
		if (!writes && !exists && !gone)
			return 0;
	}
	if (!exists) {
		/* A name made in a directory that is not there: ENOENT first. */
		char *slash = strrchr(where, '/');
		*slash = '\0';
		bool dir = stat(where, &st) == 0 && S_ISDIR(st.st_mode);
		*slash = '/';
		if (!dir)
			return 0;
	}
	/* The mount of the name, or of the directory it would be made in. */
	size_t len = strlen(where), top = strlen(where) - strlen(path);
	while (len > top) {
		struct statvfs vfs;
		where[len] = '\0';
		if (statvfs(where, &vfs) == 0) {
			if (vfs.f_flag & ST_RDONLY)
				return 1;
			break;
		}
		if (errno != ENOENT && errno != ENOTDIR)
			break;
		while (len > top && where[--len] != '/')
			;
	}
	return under_root(w, path) ? 0 : 2;
}

static void note(struct refusal_watch *w, const char *path, const char *call, int why)
{
	for (size_t i = 0; i < w->n; i++) {
		if (strcmp(w->seen[i].path, path) == 0) {
			w->seen[i].count++;
			return;
		}
	}
	if (w->n >= WATCH_PATHS_MAX) {
		w->more++;
		return;
	}
	struct watch_seen s = { xstrdup(path), xstrdup(call), why == 2, 1 };
	VEC_PUSH(w->seen, w->n, w->cap, s);
}

static const struct watch_call *call_of(const struct refusal_watch *w, int nr)
{
	for (size_t i = 0; i < watch_ncalls; i++)
		if (w->nrs[i] == nr)
			return &watch_calls[i];
	return NULL;
}

/* One name of the call (its path and dirfd arguments) judged: whether
 * the kernel will refuse it (refused()), the path in path. */
static int judge(struct refusal_watch *w, const struct seccomp_notif *req,
		 const struct watch_call *c, bool second, char path[PATH_MAX])
{
	char raw[PATH_MAX];
	pid_t tid = (pid_t)req->pid;
	int dirfd_arg = second ? c->dirfd2 : c->dirfd, path_arg = second ? c->path2 : c->path;
	int dirfd = dirfd_arg >= 0 ? (int)req->data.args[dirfd_arg] : AT_FDCWD;
	if (path_arg < 0 || !read_string(tid, req->data.args[path_arg], raw, sizeof(raw)) ||
	    !raw[0] || !absolute(tid, dirfd, raw, path, PATH_MAX))
		return 0;
	unsigned long flags = c->flags >= 0 ? (unsigned long)req->data.args[c->flags] : 0;
	if (strcmp(c->name, "creat") == 0)
		flags = O_CREAT | O_WRONLY | O_TRUNC;
	return refused(w, tid, path, use_of(c->name, second), flags);
}

static int notif_ioctl(int fd, unsigned long what, void *arg)
{
	int r;
	do
		r = ioctl(fd, what, arg);
	while (r < 0 && errno == EINTR);
	return r;
}

/* One notification read, judged and answered; false when none could be
 * read (ENOENT: its caller was killed meanwhile). */
static bool serve_one(struct refusal_watch *w)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	char path[2][PATH_MAX];
	int why[2] = { 0, 0 };
	memset(&req, 0, sizeof(req));
	if (notif_ioctl(w->fd, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
		return errno == ENOENT;
	w->notes++;
	const struct watch_call *c = call_of(w, req.data.nr);
	for (int k = 0; c && k < 2; k++)
		why[k] = judge(w, &req, c, k == 1, path[k]);
	/* Still the same caller (its tid not reused while it was read)?
	 * Only the report depends on it: whatever is noted, the call goes on
	 * to the kernel's own checks, which decide. */
	uint64_t id = req.id;
	bool valid = notif_ioctl(w->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	(void)notif_ioctl(w->fd, SECCOMP_IOCTL_NOTIF_SEND, &resp); /* ENOENT: gone */
	for (int k = 0; valid && k < 2; k++)
		if (why[k])
			note(w, path[k], c->name, why[k]);
	return true;
}

void refusal_watch_serve(struct refusal_watch *w)
{
	for (int k = 0; w->fd >= 0 && k < WATCH_TURN; k++) {
		struct pollfd p = { w->fd, POLLIN, 0 };
		if (poll(&p, 1, 0) != 1)
			break;
		if (!(p.revents & POLLIN) || !serve_one(w)) {
			/* Every process of the filter is gone, or the listener
			 * fails: closed, so that a waiting call fails (ENOSYS)
			 * rather than waits for ever. */
			if (p.revents & POLLIN)
				fprintf(stderr, "cordon: the watch of refused writes stopped: %s\n",
					strerror(errno));
			close(w->fd);
			w->fd = -1;
		}
	}
}

/* ---- after the call ------------------------------------------------------ */

/* "~/x" for a path under the home, or the path as it is. */
static char *shown(const char *path, const char *home)
{
	if (home && home[0] == '/' && strcmp(home, "/") != 0 && path_under(path, home))
		return xasprintf("~%s", path + strlen(home));
	return xstrdup(path);
}

/* The path a rule that allows it would name: under the home, its first
 * directory there (~/.npm) or the file itself; elsewhere a file that
 * exists itself (a writable bind of that file alone), and for a new file
 * the directory it is in.  A directory, not a glob: a write allowed on a
 * directory lowers into a writable bind of it, a glob's into none. */
static char *pattern_for(const char *path, const char *home)
{
	if (home && home[0] == '/' && strcmp(home, "/") != 0 && path_under(path, home) &&
	    strcmp(path, home) != 0) {
		const char *rel = path + strlen(home) + 1, *slash = strchr(rel, '/');
		if (!slash)
			return xasprintf("~/%s", rel);
		return xasprintf("~/%.*s", (int)(slash - rel), rel);
	}
	struct stat st;
	const char *slash = strrchr(path, '/');
	if (slash == path || (lstat(path, &st) == 0 && S_ISREG(st.st_mode)))
		return xstrdup(path);
	return xasprintf("%.*s", (int)(slash - path), path);
}

/* What decides a write of s->path in the policy, and the change. */
static void explain(struct refusal *f, const struct watch_seen *s, const cordon_evaluator *ev,
		    const struct run_opts *o, const char *home)
{
	struct cordon_request req = { .op = CORDON_WRITE, .target = s->path, .sandboxed = true };
	AUTO_FREE char *err = NULL;
	cordon_decision *d = cordon_evaluate(ev, &req, &err);
	f->r.effect = d ? (int)cordon_decision_effect(d) : CORDON_DENY;
	const char *rule = d ? cordon_decision_rule(d) : NULL;
	f->rule = rule && rule[0] ? refusals_escape(rule) : NULL;
	if (f->r.effect == CORDON_ALLOW) {
		/* The preset allows it; the sandbox keeps it from the command. */
		f->reason = xstrdup(s->outside ? "no write root of the sandbox covers it"
					       : "a protected path: the sandbox binds it read-only "
						 "whatever the preset allows");
		f->fix = REFUSAL_FIX_NONE;
		f->why = xstrdup("a protection of the sandbox: no rule of a preset lifts it");
		cordon_decision_free(d);
		return;
	}
	const char *reason = d ? cordon_decision_reason(d) : NULL;
	f->reason = refusals_escape(reason ? reason : err ? err : "no decision");
	cordon_decision_free(d);
	AUTO_FREE char *pattern = pattern_for(s->path, home);
	int works = refusals_widens_write(o, pattern, s->path);
	if (works == 0) {
		f->fix = REFUSAL_FIX_NONE;
		f->why = xasprintf("`write \"%s\" allow;` in a preset that extends '%s' does not win "
				   "over %s (checked): only a change of that rule where it is written "
				   "can allow it",
				   pattern, o->preset, f->rule ? f->rule : "the rule that refused");
		return;
	}
	f->fix = REFUSAL_FIX_RULE;
	f->change = xasprintf("write \"%s\" allow;", pattern);
	if (works < 0)
		f->why = xstrdup("not checked against the policy");
	else if (pattern[0] == '/' && strcmp(pattern, s->path) != 0)
		/* A new file outside the home needs its whole directory
		 * (/etc, say): said, so that the line is not copied blind. */
		f->why = xasprintf("every file in %s becomes writable, not only this one", pattern);
}

void refusal_watch_end(struct refusal_watch *w, const struct run_opts *o, struct refusals *rs)
{
	const cordon_evaluator *ev = w->ev;
	const char *home = cordon_context_get(o->ctx, "home");
	for (size_t i = 0; ev && i < w->n; i++) {
		const struct watch_seen *s = &w->seen[i];
		struct refusal f = { .count = s->count };
		f.fs_kind = s->outside ? "outside" : "read-only";
		f.path = refusals_escape(s->path);
		f.call = xstrdup(s->call);
		AUTO_FREE char *disp = shown(s->path, home);
		f.target = refusals_escape(disp);
		explain(&f, s, ev, o, home);
		VEC_PUSH(rs->items, rs->n, rs->cap, f);
	}
	rs->fs_more += w->more;
}

void refusal_watch_free(struct refusal_watch *w)
{
	if (w->nrs && w->fd >= 0) /* begun: fd is the listener's or -1 */
		close(w->fd);
	for (size_t i = 0; i < w->n; i++) {
		free(w->seen[i].path);
		free(w->seen[i].call);
	}
	free(w->seen);
	for (size_t i = 0; i < w->nroots; i++)
		free(w->roots[i]);
	free(w->roots);
	free(w->nrs);
	memset(w, 0, sizeof(*w));
	w->fd = -1;
}

#endif
