/* The bounded walk of a host tree (host_walk.h). */
#include "config.h"

#include "host_walk.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void host_walk_start(struct host_walk *w)
{
	w->entries = 0;
	w->deadline = now() + w->seconds;
}

static int bound_hit(struct host_walk *w, char *what)
{
	w->bound(w->arg, what);
	free(what);
	return -1;
}

/* Walk the directory open at fd, spelled path (in a buffer of PATH_MAX
 * bytes that the walk extends and restores). */
static int walk_dir(struct host_walk *w, int fd, char *path, size_t len, size_t depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	struct stat dst;
	int rc = 0;
	if (!d) {
		close(fd);
		return 0;
	}
	if (fstat(dirfd(d), &dst) != 0)
		memset(&dst, 0, sizeof(dst));
	while (rc == 0 && (errno = 0, e = readdir(d))) {
		const char *name = e->d_name;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		if (++w->entries > w->max_entries) {
			rc = bound_hit(w, xasprintf("more than %zu directory entries", w->max_entries));
			break;
		}
		if ((w->entries & 1023) == 0 && now() > w->deadline) {
			rc = bound_hit(w, xasprintf("more than %g s", w->seconds));
			break;
		}
		size_t nlen = strlen(name);
		if (len + 1 + nlen >= PATH_MAX)
			continue; /* no process can name it either */
		size_t at = len;
		if (!(len == 1 && path[0] == '/'))
			path[at++] = '/';
		memcpy(path + at, name, nlen + 1);
		struct host_walk_entry ent = { dirfd(d), name, path, at + nlen, e->d_type,
					       dst.st_dev, dst.st_ino };
		if (ent.type == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
				path[len] = '\0';
				continue; /* gone */
			}
			ent.type = IFTODT(st.st_mode);
		}
		int v = w->visit(w->arg, &ent);
		if (v < 0) {
			rc = -1;
		} else if (v == HOST_WALK_ENTER && ent.type == DT_DIR) {
			if (depth + 1 > w->max_depth) {
				rc = bound_hit(w, xasprintf("a directory deeper than %zu levels (%s)",
							    w->max_depth, path));
			} else {
				int sub = openat(dirfd(d), name,
						 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (sub >= 0)
					rc = walk_dir(w, sub, path, ent.len, depth + 1);
				else if ((errno == EACCES || errno == EPERM) && w->unlistable)
					rc = w->unlistable(w->arg, &ent);
			}
		}
		path[len] = '\0';
	}
	closedir(d);
	return rc;
}

int host_walk_root(struct host_walk *w, const char *root)
{
	size_t len = strlen(root);
	if (len >= PATH_MAX)
		return 0;
	char *path = xmalloc(PATH_MAX);
	memcpy(path, root, len + 1);
	int rc = 0, fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		rc = walk_dir(w, fd, path, len, 0);
	free(path);
	return rc;
}
