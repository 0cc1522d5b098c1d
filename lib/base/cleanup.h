/* Scope-bound cleanup (GCC and Clang's cleanup attribute): a variable so
 * marked is released when it goes out of scope, on every way out of the
 * function.  steal_pointer and steal_fd hand one over, leaving nothing to
 * release.
 *
 *	AUTO_FREE char *path = xasprintf(...);   free()d
 *	AUTO_FD int fd = open(...);              close()d when >= 0
 *	AUTO_PIPE int p[2] = { -1, -1 };         both ends close()d
 *	AUTO_TMPDIR char *dir = mkdtemp(...);    removed with what is in it, then free()d */
#ifndef CORDON_CLEANUP_H
#define CORDON_CLEANUP_H

#include <stdlib.h>
#include <unistd.h>

static inline void cleanup_free(void *p)
{
	free(*(void **)p);
}

static inline void cleanup_close(const int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

/* Remove a directory and everything below it, symlinks not followed,
 * directories its owner made unreadable or unwritable included (util.c);
 * NULL does nothing. */
void remove_tree(const char *dir);

/* Both ends of a pipe(2), each closed when >= 0. */
static inline void cleanup_pipe(int (*p)[2])
{
	cleanup_close(&(*p)[0]);
	cleanup_close(&(*p)[1]);
}

static inline void cleanup_tmpdir(char **dir)
{
	if (*dir) {
		remove_tree(*dir);
		free(*dir);
	}
}

#define AUTO_FREE __attribute__((cleanup(cleanup_free)))
#define AUTO_FD __attribute__((cleanup(cleanup_close)))
#define AUTO_PIPE __attribute__((cleanup(cleanup_pipe)))
#define AUTO_TMPDIR __attribute__((cleanup(cleanup_tmpdir)))

static inline void *steal_pointer(void *pp)
{
	void **p = pp, *v = *p;
	*p = NULL;
	return v;
}

static inline int steal_fd(int *fd)
{
	int v = *fd;
	*fd = -1;
	return v;
}

#endif
