/* Safe file mutation: cordon_mutate and cordon_approve.
 *
 * The policy decides on the canonical target (symlinks of existing
 * ancestors and a dangling final symlink resolved).  The write then follows
 * exactly that path: the parent directory is opened beneath the allowed
 * root without following any symlink (openat2 with RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS, or a per-component
 * O_NOFOLLOW walk where the kernel lacks openat2), so a component swapped
 * for a symlink after the decision fails the call instead of redirecting
 * it.  The content goes to a 0600 temp file in that directory, is fsync'd,
 * and replaces the target by rename after a recheck that the target and
 * the parent are still the inodes that were checked.  A rename replaces the
 * directory entry, so another hard link to the old inode keeps the old
 * content.
 *
 * Mutations in one directory are serialised by flock on the directory
 * itself: no lock files to clean up, and while the lock is held no other
 * cordon writer is active there, so every temp file found in it is a
 * leftover of a killed writer and is removed. */
#include "config.h"

#include "approval_exec.h"
#include "cordon.h"
#include "cordon/lowering.h"
#include "decide/eval.h"
#include "mutate.h"
#include "check/policy.h"
#include "base/digest.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__) && __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HAVE_OPENAT2_HEADER 1
#endif

bool mutate_force_walk;
void (*mutate_before_recheck)(void *arg);
void *mutate_before_recheck_arg;

#define DEFAULT_TTL 600

/* ---- opening a directory without following symlinks ---------------------- */

static int walk_nofollow(int base, const char *rel)
{
	char *copy = xstrdup(rel), *save = NULL;
	int fd = dup(base), err;
	if (fd < 0) {
		free(copy);
		return -1;
	}
	for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		/* A symlink opened with O_NOFOLLOW | O_DIRECTORY fails (ENOTDIR
		 * or ELOOP); canonical paths hold no "." or "..". */
		int next = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		err = errno;
		close(fd);
		if (next < 0) {
			free(copy);
			errno = err;
			return -1;
		}
		fd = next;
	}
	free(copy);
	int dir = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = errno;
	close(fd);
	errno = err;
	return dir;
}

static int open_beneath(int base, const char *rel)
{
#if defined(HAVE_OPENAT2_HEADER) && defined(SYS_openat2)
	if (!mutate_force_walk && !under_valgrind()) {
		struct open_how how = {
			.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};
		long fd = syscall(SYS_openat2, base, *rel ? rel : ".", &how, sizeof(how));
		if (fd >= 0 || errno != ENOSYS)
			return (int)fd;
	}
#endif
	return walk_nofollow(base, rel);
}

int mutate_open_dir(const char *root, const char *dir)
{
	size_t rlen = strcmp(root, "/") == 0 ? 0 : strlen(root);
	int top, rfd, fd, err;
	if (dir[0] != '/' || strncmp(dir, root, rlen) != 0 || (dir[rlen] && dir[rlen] != '/')) {
		errno = EXDEV;
		return -1;
	}
	top = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (top < 0)
		return -1;
	rfd = rlen ? open_beneath(top, root + 1) : dup(top);
	err = errno;
	close(top);
	if (rfd < 0) {
		errno = err;
		return -1;
	}
	fd = open_beneath(rfd, dir + rlen + (dir[rlen] == '/'));
	err = errno;
	close(rfd);
	errno = err;
	return fd;
}

int cordon_open_nofollow(const char *path)
{
	return mutate_open_path(path);
}

int cordon_open_dir_nofollow(const char *path)
{
	return mutate_open_dir("/", path);
}

int mutate_open_path(const char *path)
{
	if (path[0] != '/') {
		errno = EINVAL;
		return -1;
	}
#if defined(HAVE_OPENAT2_HEADER) && defined(SYS_openat2)
	if (!mutate_force_walk && !under_valgrind()) {
		struct open_how how = {
			.flags = O_PATH | O_CLOEXEC,
			.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};
		long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
		if (fd >= 0 || errno != ENOSYS)
			return (int)fd;
	}
#endif
	const char *slash = strrchr(path, '/');
	if (!slash[1])
		return open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); /* "/" */
	char *parent = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
	int dir = mutate_open_dir("/", parent), err = errno;
	free(parent);
	if (dir < 0) {
		errno = err;
		return -1;
	}
	int fd = openat(dir, slash + 1, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	err = errno;
	close(dir);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || S_ISLNK(st.st_mode))) {
		/* What openat2 refuses: the last component is a link. */
		close(fd);
		fd = -1;
		err = ELOOP;
	}
	errno = err;
	return fd;
}

/* ---- one mutation's state ---------------------------------------------------- */

struct mut {
	const cordon_evaluator *ev;
	const struct cordon_mutation *m;
	struct cordon_mutation_result *res;
	char *dir;         /* the canonical parent */
	const char *name;  /* the last component of res->target */
	const char *root;
	int dfd;           /* the parent, opened and locked */
	struct stat dst;   /* the parent as checked */
	struct stat tst;   /* the target as checked, when present */
	bool present;
	char *content;     /* edit: the new content */
	size_t content_len;
	char tmp[sizeof(TEMP_PREFIX) + 16];
	int tfd;           /* the temp file, while it exists */
	int ofd;           /* the target as checked (O_PATH), when present */
	struct approval now;  /* what an approval is checked against */
};

static enum cordon_mutation_outcome setf(struct mut *mu, enum cordon_mutation_outcome o, int err,
					 const char *fmt, ...) PRINTF_LIKE(4, 5);
static enum cordon_mutation_outcome setf(struct mut *mu, enum cordon_mutation_outcome o, int err,
					 const char *fmt, ...)
{
	struct strbuf sb;
	va_list ap;
	sb_init(&sb);
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (err)
		sb_addf(&sb, ": %s", strerror(err));
	free(mu->res->message);
	mu->res->message = sb_steal(&sb);
	mu->res->error = err;
	mu->res->outcome = o;
	return o;
}

void cordon_mutation_result_clear(struct cordon_mutation_result *res)
{
	free(res->target);
	free(res->message);
	free(res->rule);
	free(res->approval_id);
	memset(res, 0, sizeof(*res));
}

static bool args_valid(struct mut *mu)
{
	const struct cordon_mutation *m = mu->m;
	if (!m->path || !*m->path) {
		setf(mu, CORDON_MUTATION_FAILED, 0, "no path to write");
		return false;
	}
	if (m->kind == CORDON_MUTATE_EDIT && (!m->old_text || m->old_len == 0)) {
		setf(mu, CORDON_MUTATION_FAILED, 0, "an edit needs a nonempty --old string");
		return false;
	}
	if (m->kind == CORDON_MUTATE_EDIT && !m->new_text && m->new_len) {
		setf(mu, CORDON_MUTATION_FAILED, 0, "an edit's --new string is missing");
		return false;
	}
	if (m->kind != CORDON_MUTATE_EDIT && m->kind != CORDON_MUTATE_WRITE) {
		setf(mu, CORDON_MUTATION_FAILED, 0, "unknown kind of mutation");
		return false;
	}
	return true;
}

/* The policy's decision on the target; CORDON_MUTATION_DONE to go on. */
static enum cordon_mutation_outcome decide(struct mut *mu)
{
	struct cordon_request req = { .op = CORDON_WRITE, .target = mu->m->path };
	struct cordon_mutation_result *res = mu->res;
	const char *target, *rule, *reason;
	enum cordon_effect effect;
	cordon_decision *d;
	char *err = NULL;

	if (!(d = cordon_evaluate(mu->ev, &req, &err))) {
		setf(mu, CORDON_MUTATION_FAILED, 0, "%s", err);
		free(err);
		return res->outcome;
	}
	cordon_decision_operation(d, 0, NULL, &target, &effect, &reason, &rule);
	res->effect = cordon_decision_effect(d);
	res->target = xstrdup(target);
	res->rule = rule ? xstrdup(rule) : NULL;
	if (res->effect == CORDON_DENY)
		setf(mu, CORDON_MUTATION_DENIED, 0, "%s", cordon_decision_reason(d));
	else if (res->effect == CORDON_ASK)
		res->message = xstrdup(cordon_decision_reason(d));
	cordon_decision_free(d);
	if (res->effect == CORDON_DENY)
		return res->outcome;

	/* Split the canonical target into its directory and its name. */
	char *slash = strrchr(res->target, '/');
	if (!slash || !slash[1])
		return setf(mu, CORDON_MUTATION_FAILED, 0, "'%s' is not a file path", res->target);
	mu->name = slash + 1;
	mu->dir = slash == res->target ? xstrdup("/")
				       : xstrndup(res->target, (size_t)(slash - res->target));
	if (strncmp(mu->name, TEMP_PREFIX, strlen(TEMP_PREFIX)) == 0)
		return setf(mu, CORDON_MUTATION_FAILED, 0,
			    "'%s': names starting with '" TEMP_PREFIX "' are cordon's temp files",
			    res->target);
	/* The allowed root: the workspace when the target lies in it. */
	const char *ws = mu->ev->values[CTX_WORKSPACE];
	size_t wlen = ws ? strlen(ws) : 0;
	mu->root = ws && ws[0] == '/' && strncmp(mu->dir, ws, wlen) == 0 &&
				   (mu->dir[wlen] == '/' || mu->dir[wlen] == '\0')
			   ? ws
			   : "/";
	return CORDON_MUTATION_DONE;
}

static void fill_identity(struct mut *mu)
{
	file_id_from_stat(&mu->now.parent_id, &mu->dst);
	if (mu->present)
		file_id_from_stat(&mu->now.target_id, &mu->tst);
	else
		memset(&mu->now.target_id, 0, sizeof(mu->now.target_id));
}

/* Open and lock the parent, and look at the target. */
static enum cordon_mutation_outcome open_target(struct mut *mu)
{
	const char *t = mu->res->target;
	mu->dfd = mutate_open_dir(mu->root, mu->dir);
	if (mu->dfd < 0)
		return setf(mu, CORDON_MUTATION_FAILED, errno,
			    "cannot open the directory '%s' of '%s' without following a symlink",
			    mu->dir, t);
	while (flock(mu->dfd, LOCK_EX) != 0)
		if (errno != EINTR)
			return setf(mu, CORDON_MUTATION_FAILED, errno, "cannot lock '%s'", mu->dir);
	if (fstat(mu->dfd, &mu->dst) != 0)
		return setf(mu, CORDON_MUTATION_FAILED, errno, "cannot inspect '%s'", mu->dir);
	/* Holding the target open keeps its inode number from being reused by
	 * a file created in its place, so the recheck's dev+ino means it. */
	mu->ofd = openat(mu->dfd, mu->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (mu->ofd >= 0 && fstat(mu->ofd, &mu->tst) == 0) {
		if (!S_ISREG(mu->tst.st_mode))
			return setf(mu, CORDON_MUTATION_REFUSED, 0,
				    "'%s' is not a regular file (a symlink, directory or device is "
				    "never written through)",
				    t);
		mu->present = true;
	} else if (errno != ENOENT) {
		return setf(mu, CORDON_MUTATION_FAILED, errno, "cannot inspect '%s'", t);
	}
	fill_identity(mu);
	return CORDON_MUTATION_DONE;
}

static int read_all(int fd, struct strbuf *sb)
{
	char buf[65536];
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return 0;
		sb_add(sb, buf, (size_t)r);
	}
}

/* An edit: read the checked target and make the new content. */
static enum cordon_mutation_outcome edit_build(struct mut *mu)
{
	const struct cordon_mutation *m = mu->m;
	const char *t = mu->res->target;
	struct strbuf old, out;
	struct stat st;
	size_t count = 0;
	int fd;

	if (!mu->present)
		return setf(mu, CORDON_MUTATION_REFUSED, 0, "cannot edit '%s': it does not exist", t);
	fd = openat(mu->dfd, mu->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return setf(mu, CORDON_MUTATION_FAILED, errno, "cannot open '%s'", t);
	sb_init(&old);
	if (fstat(fd, &st) != 0 || st.st_dev != mu->tst.st_dev || st.st_ino != mu->tst.st_ino) {
		close(fd);
		sb_free(&old);
		return setf(mu, CORDON_MUTATION_REFUSED, 0, "'%s' changed while it was opened", t);
	}
	if (read_all(fd, &old) != 0) {
		int err = errno;
		close(fd);
		sb_free(&old);
		return setf(mu, CORDON_MUTATION_FAILED, err, "cannot read '%s'", t);
	}
	close(fd);
	sb_init(&out);
	const char *p = old.buf ? old.buf : "", *end = p + old.len, *hit;
	while ((hit = memmem(p, (size_t)(end - p), m->old_text, m->old_len))) {
		count++;
		sb_add(&out, p, (size_t)(hit - p));
		sb_add(&out, m->new_text ? m->new_text : "", m->new_len);
		p = hit + m->old_len;
	}
	sb_add(&out, p, (size_t)(end - p));
	sb_free(&old);
	if (count == 0 || (count > 1 && !m->all)) {
		sb_free(&out);
		if (count == 0)
			return setf(mu, CORDON_MUTATION_REFUSED, 0,
				    "the --old string does not occur in '%s'; nothing was changed", t);
		return setf(mu, CORDON_MUTATION_REFUSED, 0,
			    "the --old string occurs %zu times in '%s'; give --all to replace every "
			    "one, or a longer --old string; nothing was changed",
			    count, t);
	}
	mu->res->replacements = count;
	mu->content_len = out.len;
	mu->content = sb_steal(&out);
	return CORDON_MUTATION_DONE;
}

/* Remove temp files of killed writers; the caller holds the lock. */
static void sweep_leftovers(struct mut *mu)
{
	int fd = openat(mu->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	struct stat st;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, TEMP_PREFIX, strlen(TEMP_PREFIX)) != 0 ||
		    strlen(e->d_name) != strlen(TEMP_PREFIX) + 16)
			continue;
		if (fstatat(mu->dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			unlinkat(mu->dfd, e->d_name, 0);
	}
	closedir(d);
}


/* Copy a write's content from m->fd (into the temp file when out >= 0),
 * hashing it; -1 with errno on a read or write error. */
static int stream_content(int in, int out, char digest[DIGEST_HEX_LEN + 1])
{
	struct digest c;
	char *buf = xmalloc(1 << 16);
	int rc = 0;
	digest_init(&c);
	for (;;) {
		ssize_t r = read(in, buf, 1 << 16);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = r < 0 ? -1 : 0;
			break;
		}
		digest_update(&c, buf, (size_t)r);
		if (out >= 0 && write_all(out, buf, (size_t)r) != 0) {
			rc = -1;
			break;
		}
	}
	free(buf);
	digest_final_hex(&c, digest);
	return rc;
}

static enum cordon_mutation_outcome temp_fill(struct mut *mu)
{
	const struct cordon_mutation *m = mu->m;
	const char *t = mu->res->target;
	unsigned char rnd[8];

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return setf(mu, CORDON_MUTATION_FAILED, errno, "cannot get random bytes");
	char name[sizeof(mu->tmp)];
	_Static_assert(sizeof(name) == sizeof(TEMP_PREFIX) + 2 * sizeof(rnd),
		       "the prefix, two hex digits a random byte, a NUL");
	memcpy(name, TEMP_PREFIX, strlen(TEMP_PREFIX));
	hex_encode(rnd, sizeof(rnd), name + strlen(TEMP_PREFIX));
	mu->tfd = openat(mu->dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (mu->tfd < 0)
		return setf(mu, CORDON_MUTATION_FAILED, errno, "cannot create a temp file in '%s'",
			    mu->dir);
	memcpy(mu->tmp, name, sizeof(name)); /* ours now: removed on every failure */
	/* New files are 0600 whatever the umask; a replacement keeps the
	 * permission bits of the file it replaces (not setuid/setgid/sticky,
	 * owner, ACLs or extended attributes). */
	if (fchmod(mu->tfd, mu->present ? (mu->tst.st_mode & 0777) : 0600) != 0)
		return setf(mu, CORDON_MUTATION_FAILED, errno, "cannot set the mode of '%s'", t);
	if (m->kind == CORDON_MUTATE_EDIT) {
		if (write_all(mu->tfd, mu->content, mu->content_len) != 0)
			return setf(mu, CORDON_MUTATION_FAILED, errno, "cannot write '%s'", t);
		digest_hex(mu->content, mu->content_len, mu->now.content_digest);
	} else if (m->fd >= 0) {
		if (stream_content(m->fd, mu->tfd, mu->now.content_digest) != 0)
			return setf(mu, CORDON_MUTATION_FAILED, errno, "cannot copy the content to '%s'",
				    t);
	} else {
		if (write_all(mu->tfd, m->data ? m->data : "", m->len) != 0)
			return setf(mu, CORDON_MUTATION_FAILED, errno, "cannot write '%s'", t);
		digest_hex(m->data ? m->data : "", m->len, mu->now.content_digest);
	}
	if (fsync(mu->tfd) != 0)
		return setf(mu, CORDON_MUTATION_FAILED, errno, "cannot flush '%s'", t);
	return CORDON_MUTATION_DONE;
}

/* Before the rename: are the target and the parent still the ones checked? */
static enum cordon_mutation_outcome recheck(struct mut *mu)
{
	const char *t = mu->res->target;
	struct stat st;
	int fd = mutate_open_dir(mu->root, mu->dir);
	if (fd < 0)
		return setf(mu, CORDON_MUTATION_REFUSED, errno,
			    "the directory '%s' changed during the write", mu->dir);
	int same = fstat(fd, &st) == 0 && st.st_dev == mu->dst.st_dev && st.st_ino == mu->dst.st_ino;
	close(fd);
	if (!same)
		return setf(mu, CORDON_MUTATION_REFUSED, 0,
			    "the directory '%s' was replaced during the write", mu->dir);
	if (fstatat(mu->dfd, mu->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!mu->present || st.st_dev != mu->tst.st_dev || st.st_ino != mu->tst.st_ino)
			return setf(mu, CORDON_MUTATION_REFUSED, 0,
				    "'%s' was replaced during the write", t);
		/* An edit must not lose a change made in place meanwhile. */
		if (mu->m->kind == CORDON_MUTATE_EDIT &&
		    (st.st_size != mu->tst.st_size || st.st_mtim.tv_sec != mu->tst.st_mtim.tv_sec ||
		     st.st_mtim.tv_nsec != mu->tst.st_mtim.tv_nsec))
			return setf(mu, CORDON_MUTATION_REFUSED, 0,
				    "'%s' was modified during the edit", t);
	} else if (errno != ENOENT || mu->present) {
		return setf(mu, CORDON_MUTATION_REFUSED, errno,
			    "'%s' was removed or became unreadable during the write", t);
	}
	return CORDON_MUTATION_DONE;
}

static enum cordon_mutation_outcome commit(struct mut *mu)
{
	const char *t = mu->res->target;
	if (mu->present) {
		if (renameat(mu->dfd, mu->tmp, mu->dfd, mu->name) != 0)
			return setf(mu, CORDON_MUTATION_FAILED, errno, "cannot replace '%s'", t);
	} else if (renameat2(mu->dfd, mu->tmp, mu->dfd, mu->name, RENAME_NOREPLACE) != 0) {
		if (errno != EINVAL && errno != ENOSYS)
			return setf(mu, errno == EEXIST ? CORDON_MUTATION_REFUSED : CORDON_MUTATION_FAILED,
				    errno, "cannot create '%s'", t);
		/* A file system without RENAME_NOREPLACE: link refuses to
		 * replace too. */
		if (linkat(mu->dfd, mu->tmp, mu->dfd, mu->name, 0) != 0)
			return setf(mu, errno == EEXIST ? CORDON_MUTATION_REFUSED : CORDON_MUTATION_FAILED,
				    errno, "cannot create '%s'", t);
		unlinkat(mu->dfd, mu->tmp, 0);
	}
	mu->tmp[0] = '\0';
	if (fsync(mu->dfd) != 0)
		return setf(mu, CORDON_MUTATION_FAILED, errno,
			    "'%s' was written, but its directory could not be flushed", t);
	mu->res->created = !mu->present;
	return CORDON_MUTATION_DONE;
}

static void mut_init(struct mut *mu, const cordon_evaluator *ev, const struct cordon_mutation *m,
		     struct cordon_mutation_result *res)
{
	memset(mu, 0, sizeof(*mu));
	memset(res, 0, sizeof(*res));
	mu->ev = ev;
	mu->m = m;
	mu->res = res;
	mu->dfd = mu->tfd = mu->ofd = -1;
	res->outcome = CORDON_MUTATION_FAILED;
}

static void mut_finish(struct mut *mu)
{
	if (mu->tfd >= 0)
		close(mu->tfd);
	if (mu->ofd >= 0)
		close(mu->ofd);
	if (mu->tmp[0] && mu->dfd >= 0)
		unlinkat(mu->dfd, mu->tmp, 0);
	if (mu->dfd >= 0)
		close(mu->dfd); /* releases the lock */
	free(mu->dir);
	free(mu->content);
	mu->now.target = mu->now.preset = NULL;
	approval_clear(&mu->now);
}

/* What an approval for this mutation binds, besides the content. */
static void describe_now(struct mut *mu)
{
	const struct cordon_mutation *m = mu->m;
	mu->now.op = m->kind == CORDON_MUTATE_EDIT ? "edit" : "write";
	mu->now.target = mu->res->target;
	mu->now.preset = (char *)mu->ev->preset->name;
	approval_preset_digest(mu->ev, mu->now.preset_digest);
	if (m->kind == CORDON_MUTATE_EDIT) {
		digest_hex(m->old_text, m->old_len, mu->now.old_digest);
		digest_hex(m->new_text ? m->new_text : "", m->new_len, mu->now.new_digest);
		mu->now.all = m->all;
	}
}

static enum cordon_mutation_outcome void_approval(struct mut *mu, struct approval *ap, char *why)
{
	setf(mu, CORDON_MUTATION_APPROVAL_VOID, 0, "%s", why);
	free(why);
	approval_clear(ap);
	return mu->res->outcome;
}

enum cordon_mutation_outcome cordon_mutate(const cordon_evaluator *ev,
					   const struct cordon_mutation *m,
					   struct cordon_mutation_result *res)
{
	struct approval ap = { 0 };
	bool approved = false;
	struct mut mu;
	char *err = NULL;

	mut_init(&mu, ev, m, res);
	if (!args_valid(&mu) || decide(&mu) != CORDON_MUTATION_DONE)
		goto out;
	if (res->effect == CORDON_ASK) {
		if (!m->approval || !*m->approval) {
			setf(&mu, CORDON_MUTATION_NEEDS_APPROVAL, 0,
			     "writing '%s' needs approval (%s); get one with 'cordon approve'",
			     res->target, res->message);
			goto out;
		}
		res->approval_id = xstrdup(m->approval);
		if (approval_take(ev->values[CTX_SESSION_DIR], m->approval, &ap, &err) != 0) {
			void_approval(&mu, &ap, err);
			goto out;
		}
		approved = true;
	}
	if (open_target(&mu) != CORDON_MUTATION_DONE)
		goto out;
	if (approved) {
		/* Everything but the content, which is known once copied. */
		describe_now(&mu);
		char *why = approval_mismatch(&ap, &mu.now, (int64_t)time(NULL));
		if (why) {
			void_approval(&mu, &ap, why);
			goto out;
		}
	}
	if (m->kind == CORDON_MUTATE_EDIT && edit_build(&mu) != CORDON_MUTATION_DONE)
		goto out;
	sweep_leftovers(&mu);
	if (temp_fill(&mu) != CORDON_MUTATION_DONE)
		goto out;
	if (approved && strcmp(ap.content_digest, mu.now.content_digest) != 0) {
		void_approval(&mu, &ap,
			      xasprintf("approval %s is void: the content differs from the approved "
					"content (content SHA-256)",
					ap.id));
		goto out;
	}
	if (mutate_before_recheck)
		mutate_before_recheck(mutate_before_recheck_arg);
	if (recheck(&mu) != CORDON_MUTATION_DONE || commit(&mu) != CORDON_MUTATION_DONE)
		goto out;
	free(res->message);
	res->message = NULL;
	res->outcome = CORDON_MUTATION_DONE;
out:
	approval_clear(&ap);
	mut_finish(&mu);
	return res->outcome;
}

char *cordon_approve(const cordon_evaluator *ev, const struct cordon_mutation *m,
		     unsigned ttl_seconds, struct cordon_mutation_result *res)
{
	struct approval ap = { 0 };
	struct mut mu;
	char *err = NULL, *id = NULL, digest[DIGEST_HEX_LEN + 1];

	mut_init(&mu, ev, m, res);
	if (!args_valid(&mu) || decide(&mu) != CORDON_MUTATION_DONE)
		goto out;
	if (res->effect == CORDON_ALLOW) {
		res->outcome = CORDON_MUTATION_DONE;
		res->message = xasprintf("writing '%s' is allowed: no approval is needed", res->target);
		goto out;
	}
	/* The store exists before the identities are taken: creating it must
	 * not change a directory the approval binds. */
	char *store = approval_store_ready(ev->values[CTX_SESSION_DIR], &err);
	if (!store) {
		setf(&mu, CORDON_MUTATION_FAILED, 0, "%s", err);
		free(err);
		goto out;
	}
	size_t slen = strlen(store);
	bool in_store = strncmp(mu.dir, store, slen) == 0 &&
			(mu.dir[slen] == '/' || mu.dir[slen] == '\0');
	free(store);
	if (in_store) {
		setf(&mu, CORDON_MUTATION_DENIED, 0,
		     "'%s' is in the approvals directory, which approvals never cover", res->target);
		goto out;
	}
	/* A write's content is read before the directory is locked: a slow
	 * producer must not hold up other writers there. */
	if (m->kind == CORDON_MUTATE_WRITE && m->fd >= 0) {
		if (stream_content(m->fd, -1, digest) != 0) {
			setf(&mu, CORDON_MUTATION_FAILED, errno, "cannot read the content");
			goto out;
		}
	} else if (m->kind == CORDON_MUTATE_WRITE) {
		digest_hex(m->data ? m->data : "", m->len, digest);
	}
	if (open_target(&mu) != CORDON_MUTATION_DONE)
		goto out;
	describe_now(&mu);
	if (m->kind == CORDON_MUTATE_EDIT) {
		if (edit_build(&mu) != CORDON_MUTATION_DONE)
			goto out;
		digest_hex(mu.content, mu.content_len, mu.now.content_digest);
	} else {
		memcpy(mu.now.content_digest, digest, sizeof(digest));
	}
	ap = mu.now;
	ap.target = xstrdup(res->target);
	ap.preset = xstrdup(ev->preset->name);
	ap.expires = (int64_t)time(NULL) + (ttl_seconds ? ttl_seconds : DEFAULT_TTL);
	if (approval_store(ev->values[CTX_SESSION_DIR], &ap, &err) != 0) {
		setf(&mu, CORDON_MUTATION_FAILED, 0, "%s", err);
		free(err);
		goto out;
	}
	free(res->message);
	res->message = NULL;
	res->outcome = CORDON_MUTATION_DONE;
	res->approval_id = xstrdup(ap.id);
	id = xstrdup(ap.id);
out:
	approval_clear(&ap);
	mut_finish(&mu);
	return id;
}
