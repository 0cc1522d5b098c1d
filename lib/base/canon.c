#include "config.h"

#include "canon.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__linux__) && __has_include(<linux/openat2.h>)
#include <dirent.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <stdatomic.h>
#include <stdint.h>
#if defined(SYS_openat2)
#define HAVE_CANON_OPENAT2 1
#endif
#endif

#define MAX_SYMLINKS 40 /* the kernel's own bound */

/* Append path to out lexically ("//", "." and ".." applied); true when a
 * ".." was met. */
static bool lexical_add(struct strbuf *out, const char *path)
{
	const char *p = path, *seg;
	size_t n;
	bool dotdot = false;
	while ((seg = path_next_component(&p, &n))) {
		if (n == 1 && seg[0] == '.')
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			path_pop_component(out);
			dotdot = true;
			continue;
		}
		if (out->len > 1)
			sb_addc(out, '/');
		sb_add(out, seg, n);
	}
	return dotdot;
}

char *canon_lexical(const char *path)
{
	struct strbuf out;
	sb_init(&out);
	sb_addc(&out, '/');
	lexical_add(&out, path);
	return sb_steal(&out);
}

/* Is path already its lexical form: absolute, without "//", "." or "..",
 * and no '/' at the end but the root's?  Then the walk would copy it. */
static bool lexically_normal(const char *path, size_t *len)
{
	const char *s = path + 1;
	if (path[0] != '/')
		return false;
	if (!*s) {
		*len = 1;
		return true;
	}
	for (;;) {
		const char *e = s;
		while (*e && *e != '/')
			e++;
		size_t n = (size_t)(e - s);
		if (n == 0 || (s[0] == '.' && (n == 1 || (n == 2 && s[1] == '.'))))
			return false;
		if (!*e) {
			*len = (size_t)(e - path);
			return true;
		}
		s = e + 1;
	}
}

void canon_lexical_into(struct strbuf *out, const char *path)
{
	size_t len;
	out->len = 0;
	if (lexically_normal(path, &len)) {
		sb_add(out, path, len);
		return;
	}
	sb_addc(out, '/');
	lexical_add(out, path);
}

/* The home directory of a user, malloc'd, or NULL with *err. */
static char *user_home(const char *user, char **err)
{
	long hint = sysconf(_SC_GETPW_R_SIZE_MAX);
	size_t size = hint > 0 ? (size_t)hint : 4096;
	struct passwd pw, *found = NULL;
	for (;;) {
		char *buf = xmalloc(size);
		int rc = getpwnam_r(user, &pw, buf, size, &found);
		if (rc == ERANGE && size < (1u << 20)) {
			free(buf);
			size *= 2;
			continue;
		}
		char *home = NULL;
		if (rc != 0)
			*err = xasprintf("cannot look up user '%s': %s", user, strerror(rc));
		else if (!found)
			*err = xasprintf("'~%s': no such user", user);
		else if (pw.pw_dir[0] != '/')
			*err = xasprintf("'~%s': the home directory '%s' is not absolute", user,
					 pw.pw_dir);
		else
			home = xstrdup(pw.pw_dir);
		free(buf);
		return home;
	}
}

char *canon_tilde(const char *path, size_t len, const char *home, char **err)
{
	const char *slash = memchr(path, '/', len);
	size_t name_len = (slash ? (size_t)(slash - path) : len) - 1;
	size_t rest = len - 1 - name_len;
	struct strbuf out;
	char *dir;
	if (name_len == 0) {
		if (!home) {
			*err = xstrdup("'~' needs the home context variable, which has no value");
			return NULL;
		}
		dir = xstrdup(home);
	} else {
		char *user = xstrndup(path + 1, name_len);
		dir = user_home(user, err);
		free(user);
		if (!dir)
			return NULL;
	}
	sb_init(&out);
	sb_adds(&out, dir);
	sb_add(&out, path + 1 + name_len, rest);
	free(dir);
	return sb_steal(&out);
}

void canon_memo_free(struct canon_memo *memo)
{
	for (size_t i = 0; i < memo->n; i++)
		free(memo->e[i].path);
	memo->n = memo->next = 0;
}

/* 1: exists and is not a symlink, 0: does not exist, -1: not known. */
static int memo_get(const struct canon_memo *memo, const char *path)
{
	for (size_t i = 0; memo && i < memo->n; i++)
		if (strcmp(memo->e[i].path, path) == 0)
			return memo->e[i].exists;
	return -1;
}

static void memo_put(struct canon_memo *memo, const char *path, bool exists)
{
	size_t i;
	if (!memo)
		return;
	if (memo->n < CANON_MEMO_SIZE) {
		i = memo->n++;
	} else {
		i = memo->next; /* the oldest */
		memo->next = (memo->next + 1) % CANON_MEMO_SIZE;
		free(memo->e[i].path);
	}
	memo->e[i].path = xstrdup(path);
	memo->e[i].exists = exists;
}

/* ---- the kernel's proof: one openat2 instead of an lstat a component ----
 *
 * The walk below follows a symlink only where lstat finds one; on a path
 * that has none, its answer is the path made absolute and normalised
 * lexically (its ".." pops a prefix free of symlinks, so the lexical parent
 * is the real one).  openat2 with RESOLVE_NO_SYMLINKS (which implies
 * RESOLVE_NO_MAGICLINKS) walks the same components with the same search
 * permissions in one call and fails with ELOOP at the first symlink, the
 * last component included (it is followed, not opened).  So:
 *
 * - no ".." in the path: open its lexical form L with O_PATH | O_DIRECTORY.
 *   Success (a directory), ENOTDIR (a non-directory, last or in the middle,
 *   where the walk stops as at a missing one) and ENOENT (the walk keeps the
 *   missing rest as it is) all mean every component before the stop exists
 *   and is not a symlink: the answer is L.  O_DIRECTORY spares the fd and
 *   its close for the usual target, a file.
 * - a "..": the kernel must walk the path as written (".." after a
 *   symlink, a file or a missing directory is where the walk and L part),
 *   and only an fd proves the whole path.
 *
 * Anything else (ELOOP for a symlink, EACCES, ENAMETOOLONG, ENOSYS under a
 * seccomp filter, EMFILE, ...) leaves the answer, and the message, to the
 * walk.  Nothing is cached: each call asks the kernel again, so a path is
 * never answered from a file system that has since changed.  Unlike lstat,
 * opening also triggers an automount at the last component, and does not
 * ask for any component's attributes: where only that would fail (a
 * security module refusing getattr, a FUSE server's error), the walk's
 * answer was an error and the proof's is the path the kernel resolves. */
#ifdef HAVE_CANON_OPENAT2
static long openat2_cloexec(const char *path, uint64_t flags, uint64_t resolve)
{
	struct open_how how = { .flags = flags | O_CLOEXEC, .resolve = resolve };
	return syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
}

static long open_nofollow(const char *path, uint64_t flags, uint64_t resolve)
{
	return openat2_cloexec(path, flags | O_PATH, resolve);
}

/* Whether openat2 here is the kernel's, honouring its resolve flags: 1 yes,
 * -1 no, 0 not asked yet.  A kernel opens "/" and refuses an unknown resolve
 * bit with EINVAL; a stand-in that ignored the flags, or a filter answering
 * every call with one errno (ENOENT would read as "missing"), cannot do
 * both.  Asked once a process; a filter installed later that fails the
 * call with ENOSYS or EPERM only sends paths to the walk.  Not asked under
 * valgrind, which may not know openat2 and would say so on stderr. */
static atomic_int openat2_honest;

static bool openat2_usable(void)
{
	int known = atomic_load_explicit(&openat2_honest, memory_order_relaxed);
	if (known)
		return known > 0;
	if (under_valgrind()) {
		atomic_store_explicit(&openat2_honest, -1, memory_order_relaxed);
		return false;
	}
	long fd = open_nofollow("/", O_DIRECTORY, RESOLVE_NO_SYMLINKS);
	bool ok = fd >= 0;
	if (fd >= 0)
		close((int)fd);
	if (ok) {
		fd = open_nofollow("/", O_DIRECTORY, RESOLVE_NO_SYMLINKS | (UINT64_C(1) << 63));
		ok = fd < 0 && errno == EINVAL;
		if (fd >= 0)
			close((int)fd);
	}
	atomic_store_explicit(&openat2_honest, ok ? 1 : -1, memory_order_relaxed);
	return ok;
}
#endif

char *canon_path_fast(const char *path, size_t len, const char *cwd)
{
#ifdef HAVE_CANON_OPENAT2
	bool relative, dotdot;
	struct strbuf lex;
	long fd;

	if (len == 0 || strlen(path) != len || len >= PATH_MAX)
		return NULL;
	relative = path[0] != '/';
	if (relative && (!cwd || cwd[0] != '/'))
		return NULL;
	if (!openat2_usable())
		return NULL;
	sb_init(&lex);
	sb_addc(&lex, '/');
	dotdot = relative && lexical_add(&lex, cwd);
	dotdot = lexical_add(&lex, path) || dotdot;
	if (lex.len >= PATH_MAX)
		goto walk;
	if (!dotdot) {
		fd = open_nofollow(lex.buf, O_DIRECTORY, RESOLVE_NO_SYMLINKS);
		if (fd < 0 && errno != ENOENT && errno != ENOTDIR)
			goto walk;
	} else {
		char raw[PATH_MAX];
		size_t clen = relative ? strlen(cwd) : 0;
		if (clen + 1 + len >= sizeof(raw))
			goto walk;
		if (relative) {
			memcpy(raw, cwd, clen);
			raw[clen++] = '/';
		}
		memcpy(raw + clen, path, len + 1);
		fd = open_nofollow(raw, 0, RESOLVE_NO_SYMLINKS);
		if (fd < 0)
			goto walk;
	}
	if (fd >= 0)
		close((int)fd);
	return sb_steal(&lex);
walk:
	sb_free(&lex);
	return NULL;
#else
	(void)path;
	(void)len;
	(void)cwd;
	return NULL;
#endif
}

static char *walk(const char *path, size_t len, const char *cwd, struct canon_memo *memo,
		  bool prove, char **err);

char *canon_path(const char *path, size_t len, const char *cwd, char **err)
{
	return canon_path_memo(path, len, cwd, NULL, err);
}

char *canon_path_memo(const char *path, size_t len, const char *cwd, struct canon_memo *memo,
		      char **err)
{
	char *proven = canon_path_fast(path, len, cwd);
	return proven ? proven : walk(path, len, cwd, memo, true, err);
}

char *canon_path_walk(const char *path, size_t len, const char *cwd, struct canon_memo *memo,
		      char **err)
{
	return walk(path, len, cwd, memo, false, err);
}

/* A walk of a path, component by component: todo holds the path still
 * to walk from pos, out the resolved prefix. */
struct walker {
	struct strbuf out, todo;
	size_t pos;
	int links;
	bool exists; /* the prefix resolved so far exists */
	struct canon_memo *memo;
	char **err;
};

/* What walk accepts: a path that is not empty, holds no NUL, fits
 * PATH_MAX, and is absolute or has an absolute cwd.  Sets *err when
 * not. */
static bool walk_input(const char *path, size_t len, const char *cwd, char **err)
{
	if (len == 0 || path[0] == '\0')
		*err = xstrdup("empty path");
	else if (strlen(path) != len)
		*err = xstrdup("path contains a NUL byte");
	else if (len >= PATH_MAX)
		*err = xasprintf("path is longer than %d bytes", PATH_MAX - 1);
	else if (path[0] != '/' && (!cwd || cwd[0] != '/'))
		*err = xasprintf("relative path '%s' needs an absolute cwd", path);
	else
		return true;
	return false;
}

/* The next component of todo, past its slashes; false at the end. */
static bool walk_segment(struct walker *w, const char **seg, size_t *n)
{
	while (w->pos < w->todo.len && w->todo.buf[w->pos] == '/')
		w->pos++;
	if (w->pos >= w->todo.len)
		return false;
	*seg = w->todo.buf + w->pos;
	*n = 0;
	while (w->pos + *n < w->todo.len && (*seg)[*n] != '/')
		(*n)++;
	w->pos += *n;
	return true;
}

/* "..": the prefix is free of symlinks, so its parent is its lexical
 * parent.  Back out of a part that does not exist yet into one that
 * does: links resolve again from there, as a write that first creates
 * the missing directories would. */
static void walk_up(struct walker *w)
{
	struct stat st;
	path_pop_component(&w->out);
	if (!w->exists)
		w->exists = lstat(w->out.buf, &st) == 0;
}

/* What the component just added to out is. */
enum walk_step { STEP_ON, STEP_LINK, STEP_FAIL };

/* out, ending in a new component: known by the memo or lstat.  A
 * missing one ends the part that exists: the rest is what a write would
 * create. */
static enum walk_step walk_inspect(struct walker *w)
{
	struct stat st;
	if (!w->exists)
		return STEP_ON;
	int known = memo_get(w->memo, w->out.buf);
	if (known >= 0) {
		w->exists = known == 1;
		return STEP_ON;
	}
	if (lstat(w->out.buf, &st) != 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			w->exists = false;
			memo_put(w->memo, w->out.buf, false);
			return STEP_ON;
		}
		*w->err = xasprintf("cannot inspect '%s': %s", w->out.buf, strerror(errno));
		return STEP_FAIL;
	}
	if (!S_ISLNK(st.st_mode)) {
		memo_put(w->memo, w->out.buf, true);
		return STEP_ON;
	}
	return STEP_LINK;
}

/* out ends in a symlink (its component began at mark): replace the link
 * by its target and walk that first, from / or from the link's
 * directory.  False with *err when that cannot be done. */
static bool walk_follow(struct walker *w, size_t mark)
{
	if (++w->links > MAX_SYMLINKS) {
		*w->err = xasprintf("too many levels of symbolic links at '%s'", w->out.buf);
		return false;
	}
	char target[PATH_MAX];
	ssize_t tl = readlink(w->out.buf, target, sizeof(target) - 1);
	if (tl < 0) {
		*w->err = xasprintf("cannot read symlink '%s': %s", w->out.buf, strerror(errno));
		return false;
	}
	target[tl] = '\0';
	struct strbuf next;
	sb_init(&next);
	sb_add(&next, target, (size_t)tl);
	sb_addc(&next, '/');
	sb_add(&next, w->todo.buf + w->pos, w->todo.len - w->pos);
	if (next.len >= 4 * PATH_MAX) {
		sb_free(&next);
		*w->err = xasprintf("path is longer than %d bytes once resolved", PATH_MAX - 1);
		return false;
	}
	sb_free(&w->todo);
	w->todo = next;
	w->pos = 0;
	w->out.len = target[0] == '/' ? 1 : mark;
	w->out.buf[w->out.len] = '\0';
	if (w->out.len == 0)
		sb_addc(&w->out, '/');
	return true;
}

/* Right after a link is followed, out exists and holds no symlink:
 * walking out/todo from the start would come back to this point, so its
 * proof by the kernel, where there is one, is the answer (or NULL). */
static char *walk_prove(const struct walker *w)
{
	struct strbuf rest;
	sb_init(&rest);
	sb_add(&rest, w->out.buf, w->out.len);
	sb_addc(&rest, '/');
	sb_add(&rest, w->todo.buf, w->todo.len);
	char *proven = canon_path_fast(rest.buf, rest.len, NULL);
	sb_free(&rest);
	return proven;
}

/* prove: after each symlink, let canon_path_fast answer for the rest. */
static char *walk(const char *path, size_t len, const char *cwd, struct canon_memo *memo,
		  bool prove, char **err)
{
	if (!walk_input(path, len, cwd, err))
		return NULL;
	struct walker w = { .exists = true, .memo = memo, .err = err };
	sb_init(&w.todo);
	if (path[0] != '/') {
		sb_adds(&w.todo, cwd);
		sb_addc(&w.todo, '/');
	}
	sb_adds(&w.todo, path);
	sb_init(&w.out);
	sb_addc(&w.out, '/');

	const char *seg;
	size_t n;
	char *proven = NULL;
	while (walk_segment(&w, &seg, &n)) {
		if (n == 1 && seg[0] == '.')
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			walk_up(&w);
			continue;
		}
		size_t mark = w.out.len;
		if (w.out.len > 1)
			sb_addc(&w.out, '/');
		sb_add(&w.out, seg, n);
		if (w.out.len >= PATH_MAX) {
			*err = xasprintf("path is longer than %d bytes once resolved", PATH_MAX - 1);
			goto fail;
		}
		enum walk_step step = walk_inspect(&w);
		if (step == STEP_FAIL || (step == STEP_LINK && !walk_follow(&w, mark)))
			goto fail;
		if (step == STEP_LINK && prove && (proven = walk_prove(&w)))
			break;
	}
	sb_free(&w.todo);
	if (proven) {
		sb_free(&w.out);
		return proven;
	}
	return sb_steal(&w.out);
fail:
	sb_free(&w.todo);
	sb_free(&w.out);
	return NULL;
}

/* ---- directories read once (struct canon_listing) ---- */

#define LISTING_MAX_READS 4 /* getdents64 calls of 32 KiB: some 4,000 names */

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct canon_name *)a)->name, ((const struct canon_name *)b)->name);
}

#ifdef HAVE_CANON_OPENAT2
/* Names compared byte for byte, as strcmp here: a folding directory
 * would find ".SSH" (or ".ſsh") for ".ssh" where the listing does not. */
static bool exact_names(int fd)
{
	struct statfs fs;
	int flags = 0;
	if (fstatfs(fd, &fs) != 0)
		return false;
	switch ((unsigned long)fs.f_type) {
	case EXT4_SUPER_MAGIC: /* ext2 and ext3 too */
	case XFS_SUPER_MAGIC:
	case BTRFS_SUPER_MAGIC:
	case TMPFS_MAGIC:
		break;
	default:
		return false;
	}
	return ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && !(flags & FS_CASEFOLD_FL);
}

/* The names in fd, sorted into l; false past LISTING_MAX_READS reads. */
static bool read_names(int fd, struct canon_listing *l)
{
	enum { BUF = 32768 };
	char *buf = xmalloc(BUF); /* malloc's alignment is dirent64's */
	size_t cap = 0;
	for (int reads = 0;; reads++) {
		long got = syscall(SYS_getdents64, fd, buf, BUF);
		if (got == 0)
			break;
		if (got < 0 || reads == LISTING_MAX_READS) {
			free(buf);
			return false;
		}
		for (long off = 0; off < got;) {
			const struct dirent64 *d = (const struct dirent64 *)(buf + off);
			off += d->d_reclen;
			if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
				continue;
			struct canon_name e = { xstrdup(d->d_name),
						d->d_type == DT_DIR || d->d_type == DT_REG };
			VEC_PUSH(l->names, l->n, cap, e);
		}
	}
	free(buf);
	sort_items(l->names, l->n, sizeof(*l->names), name_cmp);
	return true;
}
#endif

bool canon_listing_read(struct canon_listing *l, const char *dir)
{
	memset(l, 0, sizeof(*l));
#ifdef HAVE_CANON_OPENAT2
	size_t len;
	if (!dir || !lexically_normal(dir, &len) || len >= PATH_MAX || !openat2_usable())
		return false;
	/* Readable, not O_PATH: its names are read. */
	long fd = openat2_cloexec(dir, O_RDONLY | O_DIRECTORY, RESOLVE_NO_SYMLINKS);
	if (fd < 0)
		return false;
	bool ok = exact_names((int)fd) && read_names((int)fd, l);
	close((int)fd);
	if (!ok) {
		canon_listing_free(l);
		return false;
	}
	l->dir = xstrndup(dir, len);
	l->dir_len = len;
	return true;
#else
	(void)dir;
	return false;
#endif
}

void canon_listing_free(struct canon_listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i].name);
	free(l->names);
	free(l->dir);
	memset(l, 0, sizeof(*l));
}

/* Does l tell that path (lexically normal) is its own canonical form:
 * below l's directory, with a next name the directory lacks (the walk
 * stops there and keeps the rest), or naming an entry of it that is a
 * directory or a file (the path ends there; nothing on it is a link)? */
static bool listed_final(const struct canon_listing *l, const char *path, size_t len)
{
	size_t d = l->dir_len == 1 ? 0 : l->dir_len; /* "/" lists the root */
	if (len <= d + 1 || memcmp(path, l->dir, d) != 0 || path[d] != '/')
		return false;
	const char *name = path + d + 1, *slash = memchr(name, '/', len - d - 1);
	size_t n = slash ? (size_t)(slash - name) : len - d - 1;
	char key[NAME_MAX + 1];
	if (n > NAME_MAX)
		return false;
	memcpy(key, name, n);
	key[n] = '\0';
	const struct canon_name k = { key, false }, *e;
	e = l->n ? bsearch(&k, l->names, l->n, sizeof(*l->names), name_cmp) : NULL;
	return !e || (e->plain && !slash);
}

char *canon_path_listed(const struct canon_listing *ls, size_t nls, const char *path,
			size_t len, char **err)
{
	size_t normal;
	if (len < PATH_MAX && strlen(path) == len && lexically_normal(path, &normal) &&
	    normal == len)
		for (size_t i = 0; i < nls; i++)
			if (listed_final(&ls[i], path, len))
				return xstrndup(path, len);
	return canon_path_memo(path, len, NULL, NULL, err);
}
