/* Descriptor binds checked where they landed (mount_marks.h). */
#ifndef __APPLE__
#include "config.h"

#include "mount_marks.h"
#include "run_util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

char *mount_mark_of(int fd, const char *dest)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return NULL;
	return xasprintf("%ju:%ju:%s", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino, dest);
}

char *mount_mark_any(const char *dest)
{
	return xasprintf("-:-:%s", dest);
}

/* path opened as O_PATH without following a symlink anywhere on the way,
 * one component at a time (the sandbox's filter refuses openat2), or -1. */
static int open_unlinked(const char *path)
{
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	const char *p = path;
	while (fd >= 0 && *p) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (!n)
			break;
		char name[NAME_MAX + 1];
		if (n > NAME_MAX || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
			close(fd);
			errno = EINVAL;
			return -1;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		/* O_NOFOLLOW with O_PATH opens a symlink itself: caught below. */
		int next = openat(fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		int err = errno;
		close(fd);
		errno = err;
		fd = next;
		struct stat st;
		if (fd >= 0 && (fstat(fd, &st) != 0 || S_ISLNK(st.st_mode))) {
			close(fd);
			errno = ELOOP;
			return -1;
		}
	}
	return fd;
}

void mark_walk_end(struct mark_walk *w)
{
	if (w->dir_fd >= 0)
		close(w->dir_fd);
	free(w->dir);
	w->dir = NULL;
	w->dir_fd = -1;
}

/* path's last component opened as O_PATH below its directory, reached
 * without a symlink; the directory is kept open in w for the next mark
 * that shares it. */
static int open_mark(struct mark_walk *w, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dlen = (size_t)(slash - path);
	const char *name = slash + 1;
	if (!dlen && !*name)
		return open_unlinked("/");
	if (!*name || (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))) {
		errno = EINVAL;
		return -1;
	}
	if (!w->dir || strlen(w->dir) != dlen || memcmp(w->dir, path, dlen) != 0) {
		mark_walk_end(w);
		w->dir = xstrndup(path, dlen);
		if ((w->dir_fd = open_unlinked(dlen ? w->dir : "/")) < 0) {
			int err = errno;
			mark_walk_end(w);
			errno = err;
			return -1;
		}
	}
	/* O_NOFOLLOW with O_PATH opens a symlink itself: caught by the caller. */
	return openat(w->dir_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
}

int mount_mark_check(struct mark_walk *w, const char *mark, const char **why)
{
	char *end;
	uintmax_t dev = 0, ino = 0;
	bool any = strncmp(mark, "-:-:", 4) == 0;
	if (any) {
		end = (char *)mark + 3;
	} else {
		errno = 0;
		dev = strtoumax(mark, &end, 10);
		if (errno || end == mark || *end != ':')
			goto bad;
		ino = strtoumax(end + 1, &end, 10);
		if (errno || *end != ':')
			goto bad;
	}
	if (end[1] != '/')
		goto bad;
	const char *path = end + 1;
	int fd = open_mark(w, path);
	if (fd < 0) {
		*why = errno == ELOOP ? "a symbolic link is on its way now" : "it cannot be reached";
		return -1;
	}
	struct statx sx;
	int rc = statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_TYPE, &sx);
	close(fd);
	if (rc != 0 || !(sx.stx_mask & STATX_TYPE)) {
		*why = "it cannot be inspected";
		return -1;
	}
	if (S_ISLNK(sx.stx_mode)) {
		*why = "a symbolic link is on its way now";
		return -1;
	}
	if (!(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT)) {
		*why = "the kernel does not say which paths are mount points (statx, Linux 5.8)";
		return -1;
	}
	if (!(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
		*why = "nothing is mounted there: the bind landed elsewhere";
		return -1;
	}
	if (!any &&
	    ((uintmax_t)makedev(sx.stx_dev_major, sx.stx_dev_minor) != dev || sx.stx_ino != ino)) {
		*why = "what is mounted there is not what was opened to be bound";
		return -1;
	}
	return 0;
bad:
	*why = "not a mark DEV:INO:PATH";
	return -1;
}
#endif
