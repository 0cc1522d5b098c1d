/* Fences for protected paths that do not exist (see fence.h). */
#ifndef __APPLE__
#include "config.h"

#include "fence.h"
#include "run_util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* Open and share-lock the directory name in dir, making it when it is
 * missing (*made).  A sweeper removes a directory while it holds it
 * exclusively: one that is gone once the lock is ours is made afresh. */
static int open_held(int dir, const char *name, mode_t mode, bool *made, struct stat *held)
{
	*made = false;
	for (int tries = 0; tries < 16; tries++) {
		int fd = openat(dir, name, DIR_FLAGS);
		if (fd < 0 && errno == ENOENT) {
			if (mkdirat(dir, name, mode) == 0)
				*made = true;
			else if (errno != EEXIST)
				return -1;
			fd = openat(dir, name, DIR_FLAGS);
		}
		if (fd < 0)
			return -1;
		struct stat now;
		if (flock(fd, LOCK_SH) == 0 && fstat(fd, held) == 0 &&
		    fstatat(dir, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && held->st_dev == now.st_dev &&
		    held->st_ino == now.st_ino)
			return fd;
		close(fd);
		*made = false;
	}
	errno = EAGAIN;
	return -1;
}

/* The same for a file fence holding content: opened (never through a
 * symlink) and share-locked, made read-only with content when missing. */
static int open_held_file(int dir, const char *name, const char *content, bool *made,
			  struct stat *held)
{
	*made = false;
	for (int tries = 0; tries < 16; tries++) {
		int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
			if (fd >= 0) {
				*made = true;
				if (write_all(fd, content, strlen(content)) != 0) {
					int e = errno;
					close(fd);
					unlinkat(dir, name, 0);
					errno = e;
					return -1;
				}
			} else if (errno != EEXIST) {
				return -1;
			} else {
				continue;
			}
		}
		if (fd < 0)
			return -1;
		struct stat now;
		if (flock(fd, LOCK_SH) == 0 && fstat(fd, held) == 0 && S_ISREG(held->st_mode) &&
		    fstatat(dir, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && held->st_dev == now.st_dev &&
		    held->st_ino == now.st_ino)
			return fd;
		bool reg = S_ISREG(held->st_mode);
		close(fd);
		*made = false;
		if (!reg) {
			errno = EEXIST; /* a directory, a device: not a fence of ours */
			return -1;
		}
	}
	errno = EAGAIN;
	return -1;
}

/* Walk from root (open as rootfd) to path, component by component,
 * without following a symlink: each directory held (shared), each missing
 * one made and registered; with content, the last is a file holding it.
 * A writable root's directories are the user's own (0700), not fences. */
static int fence_make(struct fence *f, const char *root, int rootfd, const char *path,
		      const char *content, bool writable, char **err)
{
	struct strbuf at;
	const char *p = path + strlen(root);
	int cur = rootfd;
	sb_init(&at);
	sb_adds(&at, root);
	while (*p) {
		const char *seg;
		while (*p == '/')
			p++;
		seg = p;
		while (*p && *p != '/')
			p++;
		if (p == seg)
			break;
		char *name = xstrndup(seg, (size_t)(p - seg));
		bool made;
		struct stat st;
		sb_addc(&at, '/');
		sb_adds(&at, name);
		while (*p == '/')
			p++;
		int next = content && !*p ? open_held_file(cur, name, content, &made, &st)
					  : open_held(cur, name, writable ? 0700 : 0755, &made, &st);
		free(name);
		if (next < 0) {
			*err = writable ? xasprintf("cannot make the write root %s at %s: %s", path,
						    at.buf, strerror(errno))
					: xasprintf("cannot fence the missing protected path %s at %s: %s",
						    path, at.buf, strerror(errno));
			sb_free(&at);
			return -1;
		}
		VEC_PUSH(f->held, f->nheld, f->held_cap, next);
		cur = next;
		if (made) {
			char *line = xasprintf("%ju %ju %s\n", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
					       at.buf);
			int w = lseek(f->reg, 0, SEEK_END) < 0 ? -1 : write_all(f->reg, line, strlen(line));
			free(line);
			if (w != 0) {
				/* Unregistered, it would stay behind: take it back now. */
				int e = errno;
				if (S_ISREG(st.st_mode))
					unlink(at.buf);
				else
					rmdir(at.buf);
				*err = xasprintf("cannot register the fence %s: %s", at.buf, strerror(e));
				sb_free(&at);
				return -1;
			}
		}
	}
	sb_free(&at);
	return 0;
}

/* The write root of a fence, open: the one opened for the fence before
 * when it is the same (fences come grouped by root), else opened now and
 * held.  -1 with *err. */
static int fence_root(struct fence *f, const char *root, const char **last, int *last_fd,
		      char **err)
{
	if (*last && strcmp(*last, root) == 0)
		return *last_fd;
	int fd = open(root, DIR_FLAGS);
	if (fd < 0) {
		*err = xasprintf("cannot fence below %s: cannot open the write root: %s", root,
				 strerror(errno));
		return -1;
	}
	VEC_PUSH(f->held, f->nheld, f->held_cap, fd);
	*last = root;
	*last_fd = fd;
	return fd;
}

int fence_begin(struct fence *f, const char *dir, cordon_lowering *in, char **err)
{
	size_t n;
	struct cordon_fence *want = cordon_lowering_fences(in, &n);
	int rc = 0;
	memset(f, 0, sizeof(*f));
	f->reg = -1;
	if (n) {
		char *reg = xasprintf("%s/fences", dir);
		f->reg = open(reg, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (f->reg < 0 || flock(f->reg, LOCK_EX) != 0) {
			*err = xasprintf("cannot open and lock %s: %s", reg, strerror(errno));
			rc = -1;
		}
		free(reg);
	}
	const char *last = NULL;
	int last_fd = -1;
	for (size_t i = 0; i < n && rc == 0; i++) {
		int rootfd = fence_root(f, want[i].root, &last, &last_fd, err);
		if (rootfd < 0)
			rc = -1;
		else if ((rc = fence_make(f, want[i].root, rootfd, want[i].path, want[i].content,
					  want[i].writable, err)) == 0)
			cordon_lowering_note_host(in, want[i].path);
		if (rc != 0 && want[i].writable) {
			/* A write root that cannot be made stays unbound, as any
			 * missing one: the program that needs it fails inside, the
			 * call does not.  What was made on the way is registered. */
			free(*err);
			*err = NULL;
			rc = 0;
		}
	}
	if (f->reg >= 0)
		flock(f->reg, LOCK_UN);
	free(want);
	if (rc != 0)
		fence_end(f);
	return rc;
}

/* Remove the registered directory of one line unless a call still holds
 * it; false when the line must stay.  The descriptor of a directory
 * removed goes to *gone, still open (close_removed). */
static bool sweep_line(const char *line, int *gone)
{
	uintmax_t dev, ino;
	int off = 0;
	struct stat st;
	if (sscanf(line, "%ju %ju %n", &dev, &ino, &off) != 2 || off <= 0 || line[off] != '/')
		return false; /* not a line of ours */
	const char *path = line + off;
	while (path[1] == '/')
		path++; /* a fence below the write root "/" is listed as //PATH */
	const char *slash = strrchr(path, '/');
	if (!slash[1])
		return false;
	/* Everything by the parent's descriptor, reached without a symlink: a
	 * user who may rename above the fence (their own workspace) must not
	 * turn this removal onto another directory's file of the same name. */
	char *parent = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
	int dir = cordon_open_dir_nofollow(parent);
	free(parent);
	if (dir < 0)
		return errno == ELOOP; /* a link on the way now: a later sweep may reach it */
	const char *name = slash + 1;
	/* Opened only as the kind it was made (a FIFO put there since must not
	 * block the sweep, nor a device be opened). */
	int fd = -1;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
		fd = openat(dir, name,
			    S_ISDIR(st.st_mode) ? DIR_FLAGS : O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	bool keep = false;
	/* Only the directory made, and only while empty: what a command or a
	 * person put there since is theirs.  A file fence is the inode made. */
	if (fd >= 0 && fstat(fd, &st) == 0 && (uintmax_t)st.st_dev == dev &&
	    (uintmax_t)st.st_ino == ino && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
		if (flock(fd, LOCK_EX | LOCK_NB) != 0)
			keep = true; /* another call's sandbox relies on it */
		else if (unlinkat(dir, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) == 0) {
			*gone = fd;
			close(dir);
			return false;
		}
	}
	if (fd >= 0)
		close(fd);
	close(dir);
	return keep;
}

static void *close_one(void *fd)
{
	close((int)(intptr_t)fd);
	return NULL;
}

/* The last close of a removed directory frees its inode and block, and on
 * a file system mounted with discard that may wait for the device.  While
 * the device answers at once, closing one after another is cheapest (a
 * thread costs more than such a close); once a close is slow, the rest
 * run side by side, so that a call's end waits for about one of them, not
 * for every fence. */
#define CLOSERS_MAX 32
#define CLOSE_SLOW_NS 500000L

static long elapsed_ns(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000000000L + (b->tv_nsec - a->tv_nsec);
}

static void close_side_by_side(const int *fds, size_t n)
{
	for (size_t at = 0; at < n; at += CLOSERS_MAX) {
		pthread_t t[CLOSERS_MAX];
		bool started[CLOSERS_MAX];
		size_t k = n - at < CLOSERS_MAX ? n - at : CLOSERS_MAX;
		for (size_t i = 0; i < k; i++) {
			started[i] = pthread_create(&t[i], NULL, close_one,
						    (void *)(intptr_t)fds[at + i]) == 0;
			if (!started[i])
				close(fds[at + i]);
		}
		for (size_t i = 0; i < k; i++)
			if (started[i])
				pthread_join(t[i], NULL);
	}
}

static void close_removed(const int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		close(fds[i]);
		clock_gettime(CLOCK_MONOTONIC, &b);
		if (elapsed_ns(&a, &b) > CLOSE_SLOW_NS) {
			close_side_by_side(fds + i + 1, n - i - 1);
			return;
		}
	}
}

void fence_end(struct fence *f)
{
	struct stat st;
	int *gone = NULL; /* the directories removed, still open */
	size_t ngone = 0;
	/* This call's sandbox is gone: its holds first. */
	for (size_t i = 0; i < f->nheld; i++)
		close(f->held[i]);
	free(f->held);
	f->held = NULL;
	f->nheld = f->held_cap = 0;
	if (f->reg < 0)
		return;
	/* Then every fence no call holds, children before the parents made
	 * for them. */
	if (flock(f->reg, LOCK_EX) == 0 && fstat(f->reg, &st) == 0 && st.st_size > 0) {
		size_t len = (size_t)st.st_size, got = 0;
		char *text = xmalloc(len + 1);
		while (got < len) {
			ssize_t r = pread(f->reg, text + got, len - got, (off_t)got);
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		text[got] = '\0';
		char **lines = NULL;
		size_t nlines = 0, cap = 0;
		for (char *s = text, *nl; *s; s = nl + 1) {
			if (!(nl = strchr(s, '\n')))
				break;
			*nl = '\0';
			VEC_PUSH(lines, nlines, cap, s);
		}
		bool *keep = xcalloc(nlines + 1, sizeof(*keep));
		gone = xcalloc(nlines + 1, sizeof(*gone));
		for (size_t i = nlines; i-- > 0;) {
			gone[ngone] = -1;
			keep[i] = sweep_line(lines[i], &gone[ngone]);
			ngone += gone[ngone] >= 0;
		}
		struct strbuf kept;
		sb_init(&kept);
		for (size_t i = 0; i < nlines; i++)
			if (keep[i])
				sb_addf(&kept, "%s\n", lines[i]);
		if (ftruncate(f->reg, 0) == 0 && kept.len)
			(void)!pwrite(f->reg, kept.buf, kept.len, 0);
		sb_free(&kept);
		free(keep);
		free(lines);
		free(text);
	}
	flock(f->reg, LOCK_UN);
	close(f->reg);
	f->reg = -1;
	close_removed(gone, ngone); /* the registry's lock is free by now */
	free(gone);
}
#endif
