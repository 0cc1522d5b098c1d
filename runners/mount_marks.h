/* What each descriptor bind must have become inside the sandbox, checked
 * there before the command runs.  bwrap cannot mount a descriptor from
 * another user namespace: it reads the path the descriptor names, mounts
 * that path, and compares the inode it finds at the destination with the
 * descriptor's.  A process that swaps a directory on the way for a
 * symlink and back again between those steps gets another directory
 * mounted where the symlink pointed, while the comparison sees the right
 * inode at the (unmounted) destination.  So cordon-exec checks, for every
 * bind the plan leaves visible, that its destination is reached without a
 * symlink, is the root of a mount, and is the descriptor's inode; any
 * difference stops the call.
 *
 * A mark is "DEV:INO:PATH" (decimal device number and inode, the
 * destination in the sandbox), or "-:-:PATH" for a mount that has no
 * source to open (a tmpfs): its path must be a mount root all the same. */
#ifndef CORDON_MOUNT_MARKS_H
#define CORDON_MOUNT_MARKS_H

/* The mark of the bind of fd at dest (malloc'd), or NULL with errno. */
char *mount_mark_of(int fd, const char *dest);

/* The mark of a mount of anything at dest (malloc'd). */
char *mount_mark_any(const char *dest);

/* The directory of the last mark checked, kept open: the marks of a call
 * share their way (the workspace's), which is then walked once. */
struct mark_walk {
	char *dir; /* its path ("" for "/"), or NULL */
	int dir_fd;
};
#define MARK_WALK_INIT { NULL, -1 }
void mark_walk_end(struct mark_walk *w);

/* 0 when the sandbox holds what mark says; else -1 and *why, a static
 * message (the mark's path is the caller's to name). */
int mount_mark_check(struct mark_walk *w, const char *mark, const char **why);

#endif
