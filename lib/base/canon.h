/* Path canonicalization, the way the kernel would resolve a path: relative
 * to cwd, "." and ".." applied, symlinks of existing ancestors followed
 * (dangling ones through their target), the not-yet-existing tail kept. */
#ifndef CORDON_CANON_H
#define CORDON_CANON_H

#include <stdbool.h>
#include <stddef.h>

/* The canonical form of path, malloc'd; NULL with a message in *err
 * (malloc'd) for an empty path, an embedded NUL (len != strlen), a symlink
 * loop, an over-long path, or an ancestor that cannot be inspected. */
char *canon_path(const char *path, size_t len, const char *cwd, char **err);

/* What lstat said of the prefixes already walked, kept while one request is
 * decided: the paths a shell command names share most of their ancestors.
 * Only the walk reads and fills it; the openat2 proof keeps nothing.  No
 * memo outlives a request (none is kept per stream): between two requests
 * a directory may be replaced by a symlink, and nothing would say so. */
#define CANON_MEMO_SIZE 32
struct canon_memo {
	struct {
		char *path;
		bool exists; /* and is not a symlink; otherwise it does not exist */
	} e[CANON_MEMO_SIZE];
	size_t n, next;
};

/* canon_path with a memo (NULL: none).  Free the memo's paths with
 * canon_memo_free.  It is canon_path_fast, and canon_path_walk where that
 * has no answer. */
char *canon_path_memo(const char *path, size_t len, const char *cwd, struct canon_memo *memo,
		      char **err);

/* The answer when one openat2(RESOLVE_NO_SYMLINKS) proves that no
 * component the walk would inspect is a symlink (the answer is then the
 * lexical form), malloc'd; NULL when the walk must decide: a symlink on
 * the path, an error, no openat2.  It never differs from canon_path_walk
 * where it answers. */
char *canon_path_fast(const char *path, size_t len, const char *cwd);

/* The walk by itself: an lstat a component, symlinks read and followed. */
char *canon_path_walk(const char *path, size_t len, const char *cwd, struct canon_memo *memo,
		      char **err);
void canon_memo_free(struct canon_memo *memo);

/* A file target as a person at a shell means it: "~" or "~/..." under
 * home (the home context variable, as "~" in rules), "~user" or
 * "~user/..." under that user's home directory from the password
 * database.  path[0] must be '~'.  The joined path, malloc'd; NULL with
 * *err (malloc'd) when home is NULL, the user is unknown, or the home
 * directory is not absolute. */
char *canon_tilde(const char *path, size_t len, const char *home, char **err);

/* Lexical normalisation only: "//", "." and ".." (at the root, ".." stays
 * at the root).  For paths that are already absolute. */
char *canon_lexical(const char *path);
/* canon_lexical into out, replacing what it held: a caller that
 * normalises many paths reuses one buffer. */
struct strbuf;
void canon_lexical_into(struct strbuf *out, const char *path);

/* A directory's names, read once so that the many paths below it whose
 * next name it does not hold are answered without a call each
 * (canon_path_listed): building an evaluator resolves the literal path
 * of every deny and protection, and most of them name files that do not
 * exist in the workspace or the home directory.  What a listing answers
 * is what canon_path answered when it was read; like a memo it is kept
 * for one piece of work (an evaluator's build) and no longer. */
struct canon_listing {
	char *dir;      /* lexically normal, free of symlinks when read */
	size_t dir_len;
	struct canon_name {
		char *name;
		bool plain; /* a directory or a file, not a symlink (d_type) */
	} *names;       /* sorted by name */
	size_t n;
};

/* Read dir (absolute and lexically normal) into l: true, or false and
 * nothing to free where it cannot be read or would not answer as the
 * kernel does: a symlink on its path, no openat2 to prove that, more
 * than a few thousand names, or a file system that is not known to
 * compare names byte for byte (ext4, XFS, Btrfs and tmpfs are, unless
 * the directory folds case: chattr +F). */
bool canon_listing_read(struct canon_listing *l, const char *dir);
void canon_listing_free(struct canon_listing *l);
/* canon_path_memo of an absolute path (cwd NULL), answered from the
 * listings where the path lies below a listed directory whose listing
 * lacks its next name, or is that directory's entry and not a symlink:
 * the path is then its own canonical form. */
char *canon_path_listed(const struct canon_listing *ls, size_t nls, const char *path,
			size_t len, char **err);

#endif
