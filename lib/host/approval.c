/* One-call approvals.
 *
 * An approval is a JSON file session_dir/approvals/ID.json (0600, in a 0700
 * directory owned by the user).  Taking one renames it to a name no other
 * taker can guess, so of two racing takers exactly one wins the rename;
 * the winner reads the record and removes it.  Whatever the verification
 * then finds, the approval is gone: a void approval is never retried.
 * Issuing an approval removes the expired ones. */
#include "config.h"

#include "approval.h"
#include "base/cleanup.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

void file_id_from_stat(struct file_id *id, const struct stat *st)
{
	id->present = true;
	id->dev = (uint64_t)st->st_dev;
	id->ino = (uint64_t)st->st_ino;
	id->size = (uint64_t)st->st_size;
	id->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

void approval_clear(struct approval *a)
{
	free(a->target);
	free(a->preset);
	memset(a, 0, sizeof(*a));
}

static int random_hex(char *out, size_t bytes, char **err)
{
	unsigned char b[32];
	size_t got = 0;
	while (got < bytes) {
		ssize_t r = getrandom(b + got, bytes - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			*err = xasprintf("cannot get random bytes: %s", strerror(errno));
			return -1;
		}
		got += (size_t)r;
	}
	hex_encode(b, bytes, out);
	return 0;
}

int approval_new_id(char id[APPROVAL_ID_LEN + 1], char **err)
{
	return random_hex(id, APPROVAL_ID_LEN / 2, err);
}

/* mkdir -p with 0700 for what is missing. */
static int make_dirs(const char *path, char **err)
{
	char *p = xstrdup(path);
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0700) != 0 && errno != EEXIST) {
			*err = xasprintf("cannot create '%s': %s", p, strerror(errno));
			free(p);
			return -1;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return 0;
}

/* The approvals directory, opened, after checking that nobody else can
 * plant or read records in it. */
static int open_store(const char *session_dir, bool create, char **err)
{
	struct stat st;
	if (!session_dir || session_dir[0] != '/') {
		*err = xstrdup("approvals need the context variable session_dir (an absolute path)");
		return -1;
	}
	AUTO_FREE char *dir = xasprintf("%s/approvals", session_dir);
	if (create && make_dirs(dir, err) != 0)
		return -1;
	AUTO_FD int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		*err = xasprintf("cannot open the approvals directory '%s': %s", dir, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
		*err = xasprintf("the approvals directory '%s' must be owned by this user with "
				 "mode 0700",
				 dir);
		return -1;
	}
	return steal_fd(&fd);
}

char *approval_store_ready(const char *session_dir, char **err)
{
	AUTO_FD int fd = open_store(session_dir, true, err);
	if (fd < 0)
		return NULL;
	return xasprintf("%s/approvals", session_dir);
}

static json_t *file_id_json(const struct file_id *id)
{
	if (!id->present)
		return json_string("absent");
	return json_pack("{s:I, s:I, s:I, s:I}", "dev", (json_int_t)id->dev, "ino",
			 (json_int_t)id->ino, "size", (json_int_t)id->size, "mtime_ns",
			 (json_int_t)id->mtime_ns);
}

static int file_id_parse(json_t *j, struct file_id *id)
{
	json_int_t dev, ino, size, mtime;
	memset(id, 0, sizeof(*id));
	if (json_is_string(j) && strcmp(json_string_value(j), "absent") == 0)
		return 0;
	if (json_unpack(j, "{s:I, s:I, s:I, s:I}", "dev", &dev, "ino", &ino, "size", &size,
			"mtime_ns", &mtime) != 0)
		return -1;
	id->present = true;
	id->dev = (uint64_t)dev;
	id->ino = (uint64_t)ino;
	id->size = (uint64_t)size;
	id->mtime_ns = (int64_t)mtime;
	return 0;
}


/* Remove expired approvals, and the half-made or half-taken records of
 * killed processes (their ctime, which a rename updates, is a minute old). */
static void sweep_store(int dfd, time_t now)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	struct stat st;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (e->d_name[0] == '.') {
			if (st.st_ctim.tv_sec < now - 60)
				unlinkat(dfd, e->d_name, 0);
			continue;
		}
		if (n != APPROVAL_ID_LEN + 5 || strcmp(e->d_name + APPROVAL_ID_LEN, ".json") != 0)
			continue;
		int rfd = openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		json_t *j = rfd >= 0 ? json_loadfd(rfd, 0, NULL) : NULL;
		json_t *exp = json_object_get(j, "expires");
		if (rfd >= 0)
			close(rfd);
		if (json_is_integer(exp) && json_integer_value(exp) <= (json_int_t)now)
			unlinkat(dfd, e->d_name, 0);
		json_decref(j);
	}
	closedir(d);
}

int approval_store_json(const char *session_dir, json_t *j, char id[APPROVAL_ID_LEN + 1],
			char **err)
{
	char tmp[APPROVAL_ID_LEN + 16], name[APPROVAL_ID_LEN + 8];
	int rc = -1;

	if (approval_new_id(id, err) != 0)
		return -1;
	AUTO_FD int dfd = open_store(session_dir, true, err);
	if (dfd < 0)
		return -1;
	sweep_store(dfd, time(NULL));
	json_object_set_new(j, "id", json_string(id));
	AUTO_FREE char *text = json_dumps(j, JSON_PRESERVE_ORDER | JSON_INDENT(1));
	snprintf(tmp, sizeof(tmp), ".%s.new", id);
	snprintf(name, sizeof(name), "%s.json", id);
	AUTO_FD int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, text, strlen(text)) != 0 || write_all(fd, "\n", 1) != 0 ||
	    fsync(fd) != 0) {
		*err = xasprintf("cannot write the approval in '%s/approvals': %s", session_dir,
				 strerror(errno));
		if (fd >= 0)
			unlinkat(dfd, tmp, 0);
	} else if (renameat(dfd, tmp, dfd, name) != 0) {
		*err = xasprintf("cannot store the approval in '%s/approvals': %s", session_dir,
				 strerror(errno));
		unlinkat(dfd, tmp, 0);
	} else {
		fsync(dfd);
		rc = 0;
	}
	return rc;
}

int approval_store(const char *session_dir, struct approval *a, char **err)
{
	json_t *j;
	int rc;

	j = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:I}", "version", 1, "id",
		      "", "op", a->op, "target", a->target, "preset", a->preset, "preset_digest",
		      a->preset_digest, "content_sha256", a->content_digest, "target_identity",
		      file_id_json(&a->target_id), "parent_identity", file_id_json(&a->parent_id),
		      "expires", (json_int_t)a->expires);
	if (!j) {
		/* jansson refuses strings that are not UTF-8. */
		*err = xasprintf("cannot record an approval for '%s': the path is not valid UTF-8",
				 a->target);
		return -1;
	}
	if (strcmp(a->op, "edit") == 0) {
		json_object_set_new(j, "old_sha256", json_string(a->old_digest));
		json_object_set_new(j, "new_sha256", json_string(a->new_digest));
		json_object_set_new(j, "all", json_boolean(a->all));
	}
	rc = approval_store_json(session_dir, j, a->id, err);
	json_decref(j);
	return rc;
}

static bool id_valid(const char *id)
{
	if (strlen(id) != APPROVAL_ID_LEN)
		return false;
	for (const char *s = id; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

static int copy_digest(json_t *j, const char *key, char out[DIGEST_HEX_LEN + 1])
{
	const char *s = json_string_value(json_object_get(j, key));
	if (!s || strlen(s) != DIGEST_HEX_LEN)
		return -1;
	memcpy(out, s, DIGEST_HEX_LEN + 1);
	return 0;
}

static int parse_record(json_t *j, struct approval *a)
{
	const char *op, *target, *preset;
	json_int_t expires;
	if (json_unpack(j, "{s:s, s:s, s:s, s:I}", "op", &op, "target", &target, "preset", &preset,
			"expires", &expires) != 0)
		return -1;
	if (strcmp(op, "write") == 0)
		a->op = "write";
	else if (strcmp(op, "edit") == 0)
		a->op = "edit";
	else
		return -1;
	a->target = xstrdup(target);
	a->preset = xstrdup(preset);
	a->expires = (int64_t)expires;
	if (copy_digest(j, "preset_digest", a->preset_digest) != 0 ||
	    copy_digest(j, "content_sha256", a->content_digest) != 0 ||
	    file_id_parse(json_object_get(j, "target_identity"), &a->target_id) != 0 ||
	    file_id_parse(json_object_get(j, "parent_identity"), &a->parent_id) != 0)
		return -1;
	if (a->op[0] == 'e' &&
	    (copy_digest(j, "old_sha256", a->old_digest) != 0 ||
	     copy_digest(j, "new_sha256", a->new_digest) != 0 ||
	     !json_is_boolean(json_object_get(j, "all"))))
		return -1;
	a->all = json_is_true(json_object_get(j, "all"));
	return 0;
}

int approval_take_json(const char *session_dir, const char *id, json_t **out, char **err)
{
	char name[APPROVAL_ID_LEN + 8], taken[APPROVAL_ID_LEN + 64], nonce[17];
	json_error_t jerr;
	json_t *j;
	int dfd, fd;

	*out = NULL;
	if (!id_valid(id)) {
		*err = xasprintf("'%s' is not an approval id (32 lowercase hex digits)", id);
		return -1;
	}
	if (random_hex(nonce, 8, err) != 0)
		return -1;
	if ((dfd = open_store(session_dir, false, err)) < 0)
		return -1;
	snprintf(name, sizeof(name), "%s.json", id);
	snprintf(taken, sizeof(taken), ".%s.taken.%ld.%s", id, (long)getpid(), nonce);
	if (renameat(dfd, name, dfd, taken) != 0) {
		*err = errno == ENOENT
			       ? xasprintf("approval %s is unknown or was already used", id)
			       : xasprintf("cannot take approval %s: %s", id, strerror(errno));
		close(dfd);
		return -1;
	}
	fd = openat(dfd, taken, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	j = fd >= 0 ? json_loadfd(fd, 0, &jerr) : NULL;
	if (fd >= 0)
		close(fd);
	unlinkat(dfd, taken, 0);
	close(dfd);
	if (!json_is_object(j) ||
	    strcmp(json_string_value(json_object_get(j, "id")) ?: "", id) != 0) {
		*err = xasprintf("approval %s is damaged and cannot be used", id);
		json_decref(j);
		return -1;
	}
	*out = j;
	return 0;
}

int approval_take(const char *session_dir, const char *id, struct approval *a, char **err)
{
	const char *op;
	json_t *j;

	memset(a, 0, sizeof(*a));
	if (approval_take_json(session_dir, id, &j, err) != 0)
		return -1;
	op = json_string_value(json_object_get(j, "op"));
	if (op && strcmp(op, "exec") == 0) {
		*err = xasprintf("approval %s was given for a command (cordon run --approval), "
				 "not for a file mutation",
				 id);
		json_decref(j);
		return -1;
	}
	if (parse_record(j, a) != 0) {
		*err = xasprintf("approval %s is damaged and cannot be used", id);
		json_decref(j);
		approval_clear(a);
		return -1;
	}
	memcpy(a->id, id, APPROVAL_ID_LEN + 1);
	json_decref(j);
	return 0;
}

static bool same_id(const struct file_id *a, const struct file_id *b)
{
	if (a->present != b->present)
		return false;
	return !a->present || (a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
			       a->mtime_ns == b->mtime_ns);
}

char *approval_mismatch(const struct approval *ap, const struct approval *now, int64_t now_s)
{
	if (now_s >= ap->expires)
		return xasprintf("approval %s expired %lld s ago", ap->id,
				 (long long)(now_s - ap->expires));
	if (now->op && strcmp(ap->op, now->op) != 0)
		return xasprintf("approval %s was given for %s, not %s", ap->id, ap->op, now->op);
	if (now->target && strcmp(ap->target, now->target) != 0)
		return xasprintf("approval %s was given for target '%s', not '%s'", ap->id,
				 ap->target, now->target);
	if (now->preset && strcmp(ap->preset, now->preset) != 0)
		return xasprintf("approval %s was given under preset '%s', not '%s'", ap->id,
				 ap->preset, now->preset);
	if (now->preset_digest[0] && strcmp(ap->preset_digest, now->preset_digest) != 0)
		return xasprintf("approval %s is void: preset '%s' changed since it was given",
				 ap->id, ap->preset);
	if (now->op && strcmp(now->op, "edit") == 0 &&
	    (strcmp(ap->old_digest, now->old_digest) != 0 ||
	     strcmp(ap->new_digest, now->new_digest) != 0 || ap->all != now->all))
		return xasprintf("approval %s is void: the edit's arguments (--old, --new, --all) "
				 "differ from the approved ones",
				 ap->id);
	if (now->op && !same_id(&ap->target_id, &now->target_id))
		return xasprintf("approval %s is void: '%s' changed since it was given (target "
				 "identity: %s)",
				 ap->id, ap->target,
				 ap->target_id.present != now->target_id.present
					 ? (ap->target_id.present ? "it was removed" : "it was created")
					 : "device, inode, size or mtime differ");
	if (now->op && !same_id(&ap->parent_id, &now->parent_id))
		return xasprintf("approval %s is void: the parent directory of '%s' changed since "
				 "it was given (parent identity)",
				 ap->id, ap->target);
	if (now->content_digest[0] && strcmp(ap->content_digest, now->content_digest) != 0)
		return xasprintf("approval %s is void: the content differs from the approved "
				 "content (content SHA-256)",
				 ap->id);
	return NULL;
}
