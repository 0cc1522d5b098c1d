/* A bounded walk of a directory tree on the host, for what a call must
 * look up when it starts (host_masks.c: the matches of glob read denies;
 * host_links.c: files with more than one name).  Symlinks are never
 * followed.  The bounds hold over every root of one walk; a bound that is
 * hit stops it, and the caller must then stop the call rather than act on
 * part of the tree. */
#ifndef CORDON_HOST_WALK_H
#define CORDON_HOST_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct host_walk_entry {
	int dirfd;            /* the directory that holds it, open */
	const char *name;
	const char *path;     /* the root's path and the names below it */
	size_t len;           /* strlen(path) */
	unsigned char type;   /* DT_DIR, DT_REG, DT_LNK, ...; never DT_UNKNOWN */
	dev_t dir_dev;        /* the directory that holds it */
	ino_t dir_ino;
};

/* What visit answers for an entry. */
enum { HOST_WALK_SKIP = 0, HOST_WALK_ENTER = 1 };

struct host_walk {
	size_t max_entries;   /* directory entries, over every root */
	size_t max_depth;     /* directory levels below a root */
	double seconds;       /* wall time, from host_walk_start */
	/* Each entry but "." and "..": HOST_WALK_ENTER to walk a directory,
	 * HOST_WALK_SKIP, or -1 to stop (having said why). */
	int (*visit)(void *arg, const struct host_walk_entry *e);
	/* A directory to enter that cannot be opened for lack of permission:
	 * 0 to go on, -1 to stop.  NULL: go on. */
	int (*unlistable)(void *arg, const struct host_walk_entry *e);
	/* A bound is hit; what says which ("more than 5 s"). */
	void (*bound)(void *arg, const char *what);
	void *arg;
	/* The walk's own. */
	size_t entries;
	double deadline;
};

/* Start the clock and the entry count of w. */
void host_walk_start(struct host_walk *w);
/* Walk the tree below the directory root (not itself a symlink): 0, or
 * -1 when a bound or visit stopped it.  A root that cannot be opened has
 * nothing to walk. */
int host_walk_root(struct host_walk *w, const char *root);

#endif
