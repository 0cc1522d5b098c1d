/* Fences for protected paths that do not exist (see fence.h). */
#ifndef __APPLE__
#include "config.h"

#include "fence.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* A path's lock: one byte far beyond the registry's text.  Two paths that
 * share a byte only keep each other's fences a little longer. */
#define KEY_BASE ((off_t)1 << 40)

static off_t key_of(const char *path)
{
	uint64_t h = 1469598103934665603u; /* FNV-1a */
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		h ^= *p;
		h *= 1099511628211u;
	}
	return KEY_BASE + (off_t)(h & (((uint64_t)1 << 40) - 1));
}

static int key_lock(int fd, const char *path, short type)
{
	struct flock l = { .l_type = type, .l_whence = SEEK_SET, .l_start = key_of(path), .l_len = 1 };
	return fcntl(fd, F_OFD_SETLK, &l);
}

/* Walk from root to path, component by component, without following a
 * symlink: a shared lock on each, and an empty directory made (and
 * registered) for each one missing. */
static int fence_make(int fd, const char *root, const char *path, char **err)
{
	struct strbuf at;
	const char *p = path + strlen(root);
	int cur = open(root, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cur < 0) {
		*err = xasprintf("cannot fence %s: cannot open the write root %s: %s", path, root,
				 strerror(errno));
		return -1;
	}
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
		sb_addc(&at, '/');
		sb_adds(&at, name);
		bool made = false;
		int next = -1;
		if (key_lock(fd, at.buf, F_RDLCK) == 0) {
			next = openat(cur, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (next < 0 && errno == ENOENT) {
				made = mkdirat(cur, name, 0755) == 0;
				next = openat(cur, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			}
		}
		free(name);
		if (next < 0) {
			*err = xasprintf("cannot fence the missing protected path %s at %s: %s", path,
					 at.buf, strerror(errno));
			close(cur);
			sb_free(&at);
			return -1;
		}
		close(cur);
		cur = next;
		struct stat st;
		if (made && fstat(cur, &st) == 0) {
			char *line = xasprintf("%ju %ju %s\n", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
					       at.buf);
			int w = lseek(fd, 0, SEEK_END) < 0 ? -1 : write_all(fd, line, strlen(line));
			free(line);
			if (w != 0) {
				/* Unregistered, it would stay behind: take it back now. */
				rmdir(at.buf);
				*err = xasprintf("cannot register the fence %s: %s", at.buf,
						 strerror(errno));
				close(cur);
				sb_free(&at);
				return -1;
			}
		}
	}
	close(cur);
	sb_free(&at);
	return 0;
}

int fence_begin(struct fence *f, const char *dir, const struct lower_input *in, char **err)
{
	size_t n;
	struct lower_fence *want = lower_bwrap_fences(in, &n);
	int rc = 0;
	f->fd = -1;
	if (n) {
		char *reg = xasprintf("%s/fences", dir);
		f->fd = open(reg, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (f->fd < 0 || flock(f->fd, LOCK_EX) != 0) {
			*err = xasprintf("cannot open and lock %s: %s", reg, strerror(errno));
			rc = -1;
		}
		free(reg);
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = fence_make(f->fd, want[i].root, want[i].path, err);
	if (f->fd >= 0)
		flock(f->fd, LOCK_UN);
	free(want);
	if (rc != 0)
		fence_end(f);
	return rc;
}

void fence_end(struct fence *f)
{
	struct flock mine = { .l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = KEY_BASE };
	struct stat st;
	if (f->fd < 0)
		return;
	/* This call's sandbox is gone: its locks first, then every fence no
	 * call holds, children before the parents made for them. */
	fcntl(f->fd, F_OFD_SETLK, &mine);
	if (flock(f->fd, LOCK_EX) == 0 && fstat(f->fd, &st) == 0 && st.st_size > 0) {
		size_t len = (size_t)st.st_size, got = 0;
		char *text = xmalloc(len + 1);
		while (got < len) {
			ssize_t r = pread(f->fd, text + got, len - got, (off_t)got);
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
		for (size_t i = nlines; i-- > 0;) {
			uintmax_t dev, ino;
			int off = 0;
			if (sscanf(lines[i], "%ju %ju %n", &dev, &ino, &off) != 2 || off <= 0 ||
			    lines[i][off] != '/')
				continue; /* not ours: dropped */
			const char *path = lines[i] + off;
			if (key_lock(f->fd, path, F_WRLCK) != 0) {
				keep[i] = true; /* another call's sandbox still relies on it */
				continue;
			}
			struct stat pst;
			/* Only the directory made, and only while empty: what a
			 * command or a person put there since is theirs. */
			if (lstat(path, &pst) == 0 && S_ISDIR(pst.st_mode) &&
			    (uintmax_t)pst.st_dev == dev && (uintmax_t)pst.st_ino == ino)
				rmdir(path);
			key_lock(f->fd, path, F_UNLCK);
		}
		struct strbuf kept;
		sb_init(&kept);
		for (size_t i = 0; i < nlines; i++)
			if (keep[i])
				sb_addf(&kept, "%s\n", lines[i]);
		if (ftruncate(f->fd, 0) == 0 && kept.len)
			(void)!pwrite(f->fd, kept.buf, kept.len, 0);
		sb_free(&kept);
		free(keep);
		free(lines);
		free(text);
	}
	flock(f->fd, LOCK_UN);
	close(f->fd);
	f->fd = -1;
}
#endif
