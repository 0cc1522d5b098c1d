/* What only root may read stays out of a sandbox that runs as root.
 *
 * Run by root, the sandboxed command is uid 0 without capabilities: it
 * still owns every file root owns, so the mounts alone leave it a host key
 * (0600) that an unprivileged user could never read.  Until the command
 * runs as an unprivileged uid (docs/sandbox.md, "Run as root"), the runner
 * masks, when it runs as root, every file of the host's system trees that
 * root may read and others may not: a regular file or other non-directory
 * owned by uid 0 or gid 0 without the read bit for others, and such a
 * directory without the search bit for others.  A rule, not a list: a key
 * planted tomorrow in a new place under /etc is covered as one today.
 *
 * What it leaves: the write roots, the home directory, the working
 * directory and the agent's directories (their contents are the policy's
 * to decide, and a mask there would break the workspace), and the
 * directories on the way to them (walked, not masked).  Below such a
 * directory that others cannot search (/root above a workspace in it),
 * every entry off the way is masked, whatever its own mode: others could
 * not reach it. */
#include "config.h"

#include "host_walk.h"
#include "lower/lower.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The system trees looked in.  /tmp and /var/tmp are the users' own, and
 * the runner hides its temp dirs there already. */
static const char *const secret_roots[] = { "/etc", "/root", "/var", "/opt", "/srv", "/boot",
					    "/usr/local/etc", NULL };
static const char *const skipped[] = { "/var/tmp", NULL };

#define ROOT_SECRETS_ORIGIN "cordon run as root: what only root may read"

struct secrets_walk {
	struct lower_input *in;
	const struct lower_mask_bounds *b;
	const char **keep; /* never masked, nor walked below */
	size_t nkeep;
	struct lower_path *found;
	size_t nfound, cap;
	char **closed; /* on the way to a kept path, and closed to others */
	size_t nclosed, closed_cap;
	char *err;
	const char *root;
};

/* Readable by root through its owner or group, and not by others. */
static bool root_only(const struct stat *st)
{
	if (st->st_uid != 0 && st->st_gid != 0)
		return false;
	if (S_ISLNK(st->st_mode))
		return false;
	return S_ISDIR(st->st_mode) ? !(st->st_mode & S_IXOTH) : !(st->st_mode & S_IROTH);
}

static bool is_listed(const char *path, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(path, *list) == 0)
			return true;
	return false;
}

/* 1: under a kept path (left to the policy); 2: on the way to one (walked,
 * never masked); 0: neither. */
static int kept(const struct secrets_walk *w, const char *path)
{
	int on_way = 0;
	for (size_t i = 0; i < w->nkeep; i++) {
		if (path_under(path, w->keep[i]))
			return 1;
		if (path_under(w->keep[i], path))
			on_way = 2;
	}
	return on_way;
}

/* Whether path lies below a directory on the way to a kept path that
 * others cannot search (/root, 0700, above a workspace in it). */
static bool below_closed(const struct secrets_walk *w, const char *path)
{
	for (size_t i = 0; i < w->nclosed; i++)
		if (strcmp(path, w->closed[i]) != 0 && path_under(path, w->closed[i]))
			return true;
	return false;
}

static bool masked_already(const struct secrets_walk *w, const char *path)
{
	for (size_t i = 0; i < w->in->npaths; i++)
		if (w->in->paths[i].why == LOWER_MASK && path_under(path, w->in->paths[i].path))
			return true;
	return false;
}

static void bound_hit(void *arg, const char *what)
{
	struct secrets_walk *w = arg;
	if (!w->err)
		w->err = xasprintf("cordon run as root masks what only root may read, and looking "
				   "under %s, %s; run cordon as another user",
				   w->root, what);
}

static int add_mask(struct secrets_walk *w, const char *path)
{
	if (masked_already(w, path) || !lower_bwrap_shows(w->in, path))
		return 0;
	if (w->nfound >= w->b->masks) {
		char *what = xasprintf("more than %zu paths are root's alone", w->b->masks);
		bound_hit(w, what);
		free(what);
		return -1;
	}
	struct lower_path p = { .path = xstrdup(path), .why = LOWER_MASK,
				 .origin = ROOT_SECRETS_ORIGIN, .expanded = true };
	VEC_PUSH(w->found, w->nfound, w->cap, p);
	return 0;
}

/* One path and what lstat says of it: mask it, walk it, or leave it. */
static int judge(struct secrets_walk *w, const char *path, const struct stat *st)
{
	int k = kept(w, path);
	if (k == 1 || is_listed(path, skipped))
		return HOST_WALK_SKIP;
	/* Below a directory others cannot search, nothing is theirs to read,
	 * whatever its own mode says. */
	bool closed = root_only(st) || below_closed(w, path);
	if (k == 0 && closed)
		return add_mask(w, path) < 0 ? -1 : HOST_WALK_SKIP;
	if (k == 2 && closed && S_ISDIR(st->st_mode))
		VEC_PUSH(w->closed, w->nclosed, w->closed_cap, xstrdup(path));
	return S_ISDIR(st->st_mode) ? HOST_WALK_ENTER : HOST_WALK_SKIP;
}

static int visit(void *arg, const struct host_walk_entry *e)
{
	struct secrets_walk *w = arg;
	struct stat st;
	if (e->type == DT_LNK)
		return HOST_WALK_SKIP;
	if (fstatat(e->dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return HOST_WALK_SKIP; /* gone since it was listed */
	return judge(w, e->path, &st);
}

/* Not listable even by root (a FUSE mount of another user's): what a
 * name inside holds cannot be judged, and the sandbox's root could not
 * list it either.  Left as it is. */
static int unlistable(void *arg, const struct host_walk_entry *e)
{
	(void)arg;
	(void)e;
	return 0;
}

static void add_keep(struct secrets_walk *w, size_t *cap, const char *path)
{
	if (path && path[0] == '/')
		VEC_PUSH(w->keep, w->nkeep, *cap, path);
}

int lower_mask_root_secrets(struct lower_input *in, const struct lower_mask_bounds *b,
			    char **err)
{
	struct secrets_walk w = { .in = in, .b = b };
	size_t keep_cap = 0;
	int rc = 0;
	if (!in->restricted)
		return 0;
	for (size_t i = 0; i < in->npaths; i++)
		if (in->paths[i].why == LOWER_WRITE_ROOT)
			add_keep(&w, &keep_cap, in->paths[i].path);
	add_keep(&w, &keep_cap, in->workspace);
	add_keep(&w, &keep_cap, in->cwd);
	add_keep(&w, &keep_cap, in->tmp);
	add_keep(&w, &keep_cap, in->ev->values[CTX_HOME]);
	add_keep(&w, &keep_cap, in->ev->values[CTX_AGENT_DIR]);
	add_keep(&w, &keep_cap, in->ev->values[CTX_SESSION_DIR]);
	struct host_walk hw = { .max_entries = b->entries, .max_depth = b->depth,
				.seconds = b->seconds, .visit = visit, .unlistable = unlistable,
				.bound = bound_hit, .arg = &w };
	host_walk_start(&hw);
	for (size_t r = 0; secret_roots[r] && rc == 0; r++) {
		struct stat st;
		w.root = secret_roots[r];
		if (lstat(w.root, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		rc = judge(&w, w.root, &st);
		if (rc == HOST_WALK_ENTER)
			rc = host_walk_root(&hw, w.root);
	}
	free(w.keep);
	for (size_t i = 0; i < w.nclosed; i++)
		free(w.closed[i]);
	free(w.closed);
	if (rc < 0) {
		*err = w.err ? w.err : xstrdup("cordon run as root: the walk of the system trees "
					       "stopped");
		for (size_t i = 0; i < w.nfound; i++)
			free(w.found[i].path);
		free(w.found);
		return -1;
	}
	free(w.err);
	lower_input_add_masks(in, w.found, w.nfound);
	for (size_t i = 0; i < w.nfound; i++)
		lower_host_note(in, w.found[i].path);
	free(w.found);
	return 0;
}
