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
#include <linux/openat2.h>
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
static long open_nofollow(const char *path, uint64_t flags, uint64_t resolve)
{
	struct open_how how = { .flags = flags | O_PATH | O_CLOEXEC, .resolve = resolve };
	return syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
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

/* prove: after each symlink, let canon_path_fast answer for the rest. */
static char *walk(const char *path, size_t len, const char *cwd, struct canon_memo *memo,
		  bool prove, char **err)
{
	struct strbuf out, todo;
	size_t pos = 0;
	int links = 0;
	bool exists = true; /* the prefix resolved so far exists */

	if (len == 0 || path[0] == '\0') {
		*err = xstrdup("empty path");
		return NULL;
	}
	if (strlen(path) != len) {
		*err = xstrdup("path contains a NUL byte");
		return NULL;
	}
	if (len >= PATH_MAX) {
		*err = xasprintf("path is longer than %d bytes", PATH_MAX - 1);
		return NULL;
	}
	sb_init(&todo);
	if (path[0] != '/') {
		if (!cwd || cwd[0] != '/') {
			sb_free(&todo);
			*err = xasprintf("relative path '%s' needs an absolute cwd", path);
			return NULL;
		}
		sb_adds(&todo, cwd);
		sb_addc(&todo, '/');
	}
	sb_adds(&todo, path);
	sb_init(&out);
	sb_addc(&out, '/');

	/* todo holds the path still to walk from pos; out the resolved prefix. */
	while (pos < todo.len) {
		const char *seg;
		size_t n, mark;
		struct stat st;
		while (pos < todo.len && todo.buf[pos] == '/')
			pos++;
		if (pos >= todo.len)
			break;
		seg = todo.buf + pos;
		n = 0;
		while (pos + n < todo.len && seg[n] != '/')
			n++;
		pos += n;
		if (n == 1 && seg[0] == '.')
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			/* The prefix is free of symlinks, so its parent is its
			 * lexical parent. */
			path_pop_component(&out);
			/* Back out of a part that does not exist yet into one that
			 * does: resolve links again from there, as a write that
			 * first creates the missing directories would. */
			if (!exists)
				exists = lstat(out.buf, &st) == 0;
			continue;
		}
		mark = out.len;
		if (out.len > 1)
			sb_addc(&out, '/');
		sb_add(&out, seg, n);
		if (out.len >= PATH_MAX) {
			*err = xasprintf("path is longer than %d bytes once resolved", PATH_MAX - 1);
			goto fail;
		}
		if (!exists)
			continue;
		int known = memo_get(memo, out.buf);
		if (known == 1)
			continue;
		if (known == 0) {
			exists = false;
			continue;
		}
		if (lstat(out.buf, &st) != 0) {
			if (errno == ENOENT || errno == ENOTDIR) {
				exists = false; /* the rest is what a write would create */
				memo_put(memo, out.buf, false);
				continue;
			}
			*err = xasprintf("cannot inspect '%s': %s", out.buf, strerror(errno));
			goto fail;
		}
		if (!S_ISLNK(st.st_mode)) {
			memo_put(memo, out.buf, true);
			continue;
		}
		if (++links > MAX_SYMLINKS) {
			*err = xasprintf("too many levels of symbolic links at '%s'", out.buf);
			goto fail;
		}
		char target[PATH_MAX];
		ssize_t tl = readlink(out.buf, target, sizeof(target) - 1);
		if (tl < 0) {
			*err = xasprintf("cannot read symlink '%s': %s", out.buf, strerror(errno));
			goto fail;
		}
		target[tl] = '\0';
		/* Replace the link by its target and walk that first. */
		struct strbuf next;
		sb_init(&next);
		sb_add(&next, target, (size_t)tl);
		sb_addc(&next, '/');
		sb_add(&next, todo.buf + pos, todo.len - pos);
		if (next.len >= 4 * PATH_MAX) {
			sb_free(&next);
			*err = xasprintf("path is longer than %d bytes once resolved", PATH_MAX - 1);
			goto fail;
		}
		sb_free(&todo);
		todo = next;
		pos = 0;
		if (target[0] == '/') {
			out.len = 1;
			out.buf[1] = '\0';
		} else {
			out.len = mark;
			out.buf[mark] = '\0';
			if (out.len == 0)
				sb_addc(&out, '/');
		}
		if (prove) {
			/* out exists and holds no symlink: walking out/todo from the
			 * start would come back to this point, so its proof by the
			 * kernel, where there is one, is the answer. */
			struct strbuf rest;
			sb_init(&rest);
			sb_add(&rest, out.buf, out.len);
			sb_addc(&rest, '/');
			sb_add(&rest, todo.buf, todo.len);
			char *proven = canon_path_fast(rest.buf, rest.len, NULL);
			sb_free(&rest);
			if (proven) {
				sb_free(&todo);
				sb_free(&out);
				return proven;
			}
		}
	}
	sb_free(&todo);
	return sb_steal(&out);
fail:
	sb_free(&todo);
	sb_free(&out);
	return NULL;
}
