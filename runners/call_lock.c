/* The temp dirs of calls, held while they run; what dead calls left,
 * removed (call_lock.h). */
#ifndef __APPLE__
#include "config.h"

#include "call_lock.h"
#include "run_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOCK_SUFFIX ".lock"

/* name is CALL.lock, CALL a temp dir's name (call-...). */
static bool lock_name(const char *name)
{
	size_t n = strlen(name), s = strlen(LOCK_SUFFIX);
	return strncmp(name, "call-", 5) == 0 && n > 5 + s && strcmp(name + n - s, LOCK_SUFFIX) == 0 &&
	       !strchr(name, '/');
}

/* The lock named is this user's file and nobody holds it: its call is
 * dead.  Its temp dir, mask file and lock go, the lock last. */
static void sweep_one(int dfd, const char *dir, const char *name)
{
	struct stat st;
	AUTO_FD int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid() ||
	    flock(fd, LOCK_EX | LOCK_NB) != 0)
		return; /* not ours, or its call still runs */
	AUTO_FREE char *call = xstrndup(name, strlen(name) - strlen(LOCK_SUFFIX));
	AUTO_FREE char *tmp = xasprintf("%s/%s", dir, call);
	AUTO_FREE char *mask = xasprintf("%s.mask", tmp);
	remove_tree(tmp);
	unlink(mask);
	unlinkat(dfd, name, 0);
}

static void sweep_dead(int dfd, const char *dir)
{
	int scan = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = scan >= 0 ? fdopendir(scan) : NULL;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	if (!d) {
		if (scan >= 0)
			close(scan);
		return;
	}
	while ((e = readdir(d)))
		if (lock_name(e->d_name))
			VEC_PUSH(names, n, cap, xstrdup(e->d_name));
	closedir(d);
	for (size_t i = 0; i < n; i++) {
		sweep_one(dfd, dir, names[i]);
		free(names[i]);
	}
	free(names);
}

char *call_lock_name(const char *dir)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		char name[sizeof(r) + 1];
		struct stat st;
		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return NULL;
		for (size_t i = 0; i < sizeof(r); i++)
			name[i] = set[r[i] % (sizeof(set) - 1)];
		name[sizeof(r)] = '\0';
		char *path = xasprintf("%s/call-%s", dir, name);
		AUTO_FREE char *lock = xasprintf("%s" LOCK_SUFFIX, path);
		if (lstat(path, &st) != 0 && errno == ENOENT && lstat(lock, &st) != 0 && errno == ENOENT)
			return path;
		free(path);
	}
	errno = EEXIST;
	return NULL;
}

int call_lock_make(const char *dir, const char *tmp, const char **what)
{
	AUTO_FD int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || flock(dfd, LOCK_EX) != 0) {
		*what = "cannot open and lock";
		return -1;
	}
	sweep_dead(dfd, dir);
	if (mkdir(tmp, 0700) != 0) {
		*what = "cannot make a private temp dir in";
		return -1;
	}
	AUTO_FREE char *lock = xasprintf("%s" LOCK_SUFFIX, tmp);
	int fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(lock);
		}
		rmdir(tmp);
		errno = e;
		*what = "cannot lock a private temp dir in";
		return -1;
	}
	return fd; /* the lock on dir goes with dfd */
}

void call_lock_release(const char *tmp, int fd)
{
	if (!tmp)
		return;
	remove_tree(tmp);
	if (fd >= 0) {
		AUTO_FREE char *lock = xasprintf("%s" LOCK_SUFFIX, tmp);
		unlink(lock);
		close(fd);
	}
}
#endif
