/* The bubblewrap mount plan: an ordered list of bwrap options, each with
 * the rule it came from.  Mounts are applied in order and a deeper mount
 * covers an outer one, so the plan lists, per path in sorted order, the
 * read root, the writable bind, then what is taken back (read-only binds,
 * masks): the same precedence the evaluator applies. */
#include "config.h"

#include "cordon/landlock.h"
#include "lower.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* /dev and /proc are fresh inside the sandbox: nothing is bound there. */
static bool kernel_fs(const char *path)
{
	return path_under(path, "/dev") || path_under(path, "/proc");
}

static char *nearest_existing(const struct lower_input *in, const char *path)
{
	char *p = xstrdup(path);
	while (strcmp(p, "/") != 0 && !lower_fact_exists(in, p)) {
		char *slash = strrchr(p, '/');
		if (slash == p)
			p[1] = '\0';
		else
			*slash = '\0';
	}
	return p;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

const char *const lower_proc_covers[] = { "/proc/sys", "/proc/sysrq-trigger", NULL };

/* A fresh /dev and /proc, and the parts of /proc that act on the whole
 * kernel bound read-only over it.  bwrap covers them only where its own
 * user cannot write them (a 0555 /proc/sys passes that test), yet the
 * files below are the sandbox root's to write when the call runs as root:
 * then Landlock alone stood between a command and the host's settings. */
static void plan_dev_proc(struct cordon_plan *pl, const struct lower_input *in)
{
	plan_push(pl, CORDON_PLAN_DEV, "/dev", NULL, NULL, NULL);
	plan_push(pl, CORDON_PLAN_PROC, "/proc", NULL, NULL, NULL);
	for (size_t i = 0; lower_proc_covers[i]; i++)
		if (lower_fact_exists(in, lower_proc_covers[i]))
			plan_push(pl, CORDON_PLAN_RO_BIND, lower_proc_covers[i], lower_proc_covers[i],
				  NULL, xstrdup("the kernel's settings, read-only"));
}

/* The environment: cleared, then the kept variables the host's snapshot
 * has, then the ones the policy sets (a set wins over a kept value). */
static void plan_env(struct cordon_plan *pl, const struct lower_input *in)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	plan_push(pl, CORDON_PLAN_CLEARENV, NULL, NULL, NULL, NULL);
	for (size_t i = 0; i < in->host.nenv; i++) {
		const char *e = in->host.env[i], *eq = strchr(e, '=');
		VEC_PUSH(names, n, cap, xstrndup(e, (size_t)(eq - e)));
	}
	sort_items(names, n, sizeof(*names), str_cmp);
	for (size_t i = 0; i < n; i++) {
		const char *value = lower_host_getenv(in, names[i]);
		if (value && !strpbrk(value, "\n"))
			plan_push(pl, CORDON_PLAN_SETENV, names[i], value, NULL,
			     xstrdup("kept from the environment"));
		free(names[i]);
	}
	free(names);
	for (size_t i = 0; i < in->nset; i++)
		plan_push(pl, CORDON_PLAN_SETENV, in->set[i].name, in->set[i].value, in->set[i].origin,
		     NULL);
}

/* The read mask strictly above path, or NULL. */
/* The hidden directory path lies in, or NULL.  A mask of a path that does
 * not exist hides nothing: what lies below it is created in the mount
 * around it, so it needs its own mounts. */
static const char *under_mask(const struct lower_input *in, const char *path)
{
	for (size_t i = 0; i < in->npaths; i++)
		if (in->paths[i].why == LOWER_MASK && strcmp(path, in->paths[i].path) != 0 &&
		    path_under(path, in->paths[i].path) && lower_fact_exists(in, in->paths[i].path))
			return in->paths[i].path;
	return NULL;
}

static bool under_write_root(const struct lower_input *in, const char *path)
{
	for (size_t i = 0; i < in->npaths; i++)
		if (in->paths[i].why == LOWER_WRITE_ROOT && path_under(path, in->paths[i].path))
			return true;
	return false;
}

/* Whether a bind of a host directory at or above path's parent already
 * shows path as the host has it (a link inside a bound directory). */
static bool shown_by_bind(const struct lower_input *in, const char *path)
{
	for (size_t i = 0; i < in->npaths; i++) {
		const struct lower_path *p = &in->paths[i];
		if ((p->why == LOWER_READ_ROOT || p->why == LOWER_WRITE_ROOT) &&
		    strcmp(path, p->path) != 0 && path_under(path, p->path))
			return true;
	}
	return false;
}

bool lower_bwrap_writable(const struct lower_input *in, const char *dir)
{
	const struct lower_path *best = NULL;
	for (size_t i = 0; i < in->npaths; i++) {
		const struct lower_path *p = &in->paths[i];
		if (!path_under(dir, p->path) || (best && strlen(p->path) < strlen(best->path)))
			continue;
		if (p->why == LOWER_READ_ROOT && under_write_root(in, p->path))
			continue; /* not mounted: readable through the write root */
		if ((p->why == LOWER_READ_ONLY || p->why == LOWER_MASK) &&
		    !lower_fact_exists(in, p->path))
			continue; /* not mounted: nothing there to keep or hide */
		if (best && strlen(p->path) == strlen(best->path) && p->why < best->why)
			continue; /* at one path the later kind is mounted last */
		best = p;
	}
	return best && best->why == LOWER_WRITE_ROOT;
}

/* Whether path is there to see inside the sandbox: the deepest literal path
 * of the plan at or above it is not hidden. */
bool lower_bwrap_shows(const struct lower_input *in, const char *path)
{
	size_t best = 0;
	bool found = false, shown = false;
	for (size_t i = 0; i < in->npaths; i++) {
		const struct lower_path *p = &in->paths[i];
		size_t len = strcmp(p->path, "/") == 0 ? 0 : strlen(p->path);
		if (len && !path_under(path, p->path))
			continue;
		if (!found || len > best) {
			found = true;
			best = len;
			shown = p->why != LOWER_MASK;
		} else if (len == best && p->why == LOWER_MASK) {
			shown = false;
		}
	}
	return shown;
}

/* A read-only path that keeps writes out: a protection or a write deny. */
static bool keeps_out(const struct lower_input *in, const struct lower_path *p)
{
	return p->why == LOWER_READ_ONLY &&
	       (p->protect || lower_decide(in->ev, IR_WRITE, p->path) == IR_DENY);
}

/* The deepest write root strictly above path, or NULL. */
static const char *root_above(const struct lower_input *in, const char *path)
{
	const char *root = NULL;
	for (size_t k = 0; k < in->npaths; k++) {
		const struct lower_path *w = &in->paths[k];
		if (w->why == LOWER_WRITE_ROOT && path_under(path, w->path) && strcmp(path, w->path) != 0 &&
		    (!root || strlen(w->path) > strlen(root)))
			root = w->path;
	}
	return root;
}

/* A path that keeps writes out below a write root, outside the sandbox's
 * own filesystems and hidden directories, and below nothing else that
 * keeps writes out: the kind of path a fence is for. */
/* A write root that exists strictly below `above` and at or above `path`:
 * mounted after `above`, it makes what is under it writable again. */
static bool reopened_between(const struct lower_input *in, const char *above, const char *path)
{
	for (size_t k = 0; k < in->npaths; k++) {
		const struct lower_path *w = &in->paths[k];
		if (w->why == LOWER_WRITE_ROOT && strcmp(w->path, above) != 0 &&
		    path_under(w->path, above) && path_under(path, w->path) &&
		    lower_fact_exists(in, w->path))
			return true;
	}
	return false;
}

static bool fence_place(const struct lower_input *in, const struct lower_path *p)
{
	if (!keeps_out(in, p) || kernel_fs(p->path) || under_mask(in, p->path) ||
	    !root_above(in, p->path))
		return false;
	for (size_t i = 0; i < in->npaths; i++) {
		const struct lower_path *q = &in->paths[i];
		if (q != p && strcmp(q->path, p->path) != 0 && path_under(p->path, q->path) &&
		    keeps_out(in, q) && !reopened_between(in, q->path, p->path))
			return false;
	}
	return true;
}

/* What the fence of a missing path holds when it must be a file: git
 * reads these as files, and stops at a directory in their place.
 * .git/commondir names the directory git's config and hooks are in: "."
 * is the repository itself, as if there were none; an empty config is
 * none.  Only files outside the work tree: one there would show as a new
 * file to git status and git add. */
static const char *fence_content(const char *path)
{
	static const struct {
		const char *tail, *content;
	} files[] = {
		{ "/commondir", "." }, /* .git/commondir, and a git directory's */
		{ "/.git/config.worktree", "" },
		{ "/.gitconfig", "" },
	};
	size_t n = strlen(path);
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		size_t t = strlen(files[i].tail);
		if (n >= t && strcmp(path + n - t, files[i].tail) == 0)
			return files[i].content;
	}
	return NULL;
}

/* The repository directories at the workspace's top that a fence would
 * have to make, and whose protections are kept after the call instead:
 * a fence there is an empty directory that tools take for a repository
 * (cargo init writes .hgignore beside a .hg), and what a repository the
 * call makes there could run is disarmed once the sandbox is gone
 * (lib/host/host_nested_git.c walks every .git and .hg the call made or
 * changed, the workspace's own among them when it was not there at
 * launch).  A fence in a .git that exists stays: nothing probes for it. */
const char *const lower_after_call_dirs[] = { ".git", ".hg", NULL };

/* Names at the workspace's top read only when a person starts a tool,
 * never by a program running beside the call: protected, missing at
 * launch, they are not fenced, and what the call made there is moved
 * aside once the sandbox is gone (host_nested_git.c).  Dev Containers
 * read .devcontainer/ and .devcontainer.json when a container is built
 * or the folder reopened in one; pre-commit its config from the git hook
 * of a commit; git a hooks directory only where core.hooksPath, in the
 * protected config, names it; aider its config when it starts.  The
 * agents' and editors' names stay fenced: the agent host that runs the
 * call, and an editor open on the workspace, read them while it runs. */
const char *const lower_after_call_names[] = {
	".devcontainer", ".devcontainer.json", ".pre-commit-config.yaml",
	".husky", ".githooks", ".aider.conf.yml", NULL,
};

/* A protected path below such a directory, or of such a name, missing at
 * launch: not fenced, so the workspace shows nothing that is not there. */
static bool after_call(const struct lower_input *in, const struct lower_path *p)
{
	if (!in->workspace || in->no_after_call || !p->protect ||
	    lower_fact(in, p->path)->lstat_errno != ENOENT)
		return false;
	size_t n = strlen(in->workspace);
	for (size_t i = 0; lower_after_call_names[i]; i++)
		if (strncmp(p->path, in->workspace, n) == 0 && p->path[n] == '/' &&
		    strcmp(p->path + n + 1, lower_after_call_names[i]) == 0)
			return true;
	bool hit = false;
	for (size_t i = 0; lower_after_call_dirs[i] && !hit; i++) {
		char *dir = xstrcat(in->workspace, "/", lower_after_call_dirs[i], (char *)NULL);
		hit = path_under(p->path, dir) && strcmp(p->path, dir) != 0 &&
		      lower_fact(in, dir)->lstat_errno == ENOENT;
		free(dir);
	}
	return hit;
}

/* Such a path that does not exist, below a directory the plan leaves
 * writable: it is fenced by itself.  `cordon run` makes it (and its
 * missing parents) empty directories for the call and removes them
 * afterwards (runners/fence.c); the plan mounts an empty read-only
 * directory there.  Only that path is fenced, never the directory around
 * it. */
static bool fenced(const struct lower_input *in, const struct lower_path *p)
{
	if (!fence_place(in, p) || lower_fact(in, p->path)->lstat_errno != ENOENT ||
	    after_call(in, p))
		return false;
	/* A directory this user cannot write is none a command can create
	 * anything in: no fence is needed, nor could one be made. */
	char *anc = nearest_existing(in, p->path);
	bool ok = lower_fact_is_dir(in, anc) && lower_bwrap_writable(in, anc) &&
		  lower_fact(in, anc)->writable;
	free(anc);
	return ok;
}

/* Below a path that keeps writes out and is bound read-only (it exists, or
 * is fenced): nothing below it can be created. */
static const char *kept_out_above(const struct lower_input *in, const struct lower_path *p)
{
	for (size_t i = 0; i < in->npaths; i++) {
		const struct lower_path *q = &in->paths[i];
		if (strcmp(q->path, p->path) != 0 && path_under(p->path, q->path) && keeps_out(in, q) &&
		    !reopened_between(in, q->path, p->path) &&
		    (lower_fact_exists(in, q->path) || fenced(in, q)))
			return q->path;
	}
	return NULL;
}

/* A write root the environment points a program into: a variable the
 * preset sets names a path strictly below it (npm_config_cache =
 * "${workspace_caches}/npm" below `write "${workspace_caches}" allow`), so
 * it is a directory, made by `cordon run` for the call when it is missing
 * and the sandbox could not make it: the nearest existing directory above
 * it is read-only in the sandbox and this user's to write on the host. */
static bool made_root_place(const struct lower_input *in, const struct lower_path *p)
{
	if (p->why != LOWER_WRITE_ROOT || p->entries || kernel_fs(p->path) ||
	    under_mask(in, p->path) || strcmp(p->path, "/") == 0)
		return false;
	bool named = false;
	for (size_t i = 0; i < in->nset && !named; i++)
		named = in->set[i].value[0] == '/' && strcmp(in->set[i].value, p->path) != 0 &&
			path_under(in->set[i].value, p->path);
	if (!named)
		return false;
	char *parent = xstrdup(p->path);
	*strrchr(parent, '/') = '\0';
	char *anc = nearest_existing(in, parent[0] ? parent : "/");
	bool ok = lower_fact_is_dir(in, anc) && !lower_bwrap_writable(in, anc) &&
		  lower_fact(in, anc)->writable;
	free(parent);
	free(anc);
	return ok;
}

static bool made_root(const struct lower_input *in, const struct lower_path *p)
{
	return made_root_place(in, p) && lower_fact(in, p->path)->lstat_errno == ENOENT;
}

struct cordon_fence *lower_bwrap_fences(const struct lower_input *in, size_t *n)
{
	struct cordon_fence *f = NULL;
	size_t cap = 0;
	*n = 0;
	if (!in->restricted)
		return NULL;
	for (size_t i = 0; i < in->npaths; i++) {
		const struct lower_path *p = &in->paths[i];
		/* Such a write root is made from the nearest directory above it
		 * that exists; one that exists is held from its parent, for a
		 * call that made it empty removes it only while no call holds
		 * it. */
		if (made_root_place(in, p) &&
		    (made_root(in, p) || lower_fact_is_dir(in, p->path))) {
			char *parent = xstrdup(p->path);
			*strrchr(parent, '/') = '\0';
			char *anc = nearest_existing(in, parent[0] ? parent : "/");
			/* The snapshot's own copy: the array holds borrowed strings. */
			const char *from = lower_fact(in, anc)->path;
			free(parent);
			free(anc);
			if (from) {
				struct cordon_fence x = { from, p->path, NULL, true };
				VEC_PUSH(f, *n, cap, x);
			}
			continue;
		}
		/* A directory that exists may be a fence another call made: it
		 * is held too, so that call cannot remove it under this one; so
		 * is a file where the fence is one. */
		const char *content = p->config ? "" : fence_content(p->path);
		const struct lower_fact *fact = lower_fact(in, p->path);
		bool held = content ? fact->lstat_errno == 0 && S_ISREG(fact->mode)
				    : lower_fact_is_dir(in, p->path);
		if (!(held ? fence_place(in, p) : fenced(in, p)))
			continue;
		struct cordon_fence x = { root_above(in, p->path), p->path, content, false };
		VEC_PUSH(f, *n, cap, x);
	}
	return f;
}

/* A filesystem operation before ordering: mounted at `at`. */
struct fs_op {
	char *at;
	int rank; /* read root, writable bind, read-only bind, mask; 9: only a note */
	size_t seq;
	const struct lower_path *p;
	enum cordon_plan_kind kind; /* CORDON_PLAN_SKIP: only a note */
	bool dropped;               /* the same mount at the same place is made already */
	char *src;
	char *note;
};

static int fs_op_cmp(const void *pa, const void *pb)
{
	const struct fs_op *a = pa, *b = pb;
	int r = strcmp(a->at, b->at);
	if (r)
		return r;
	if (a->rank != b->rank)
		return a->rank - b->rank;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* What a mask puts in place of a path, and why. */
static char *mask_note(const struct lower_path *p, const char *kind)
{
	const char *what = strcmp(kind, "file") == 0 ? "an empty read-only file"
						     : "an empty directory";
	if (p->expanded)
		return xasprintf("unreadable, matched by the rule when the call started: %s in its "
				 "place",
				 what);
	return xasprintf("unreadable: %s in its place", what);
}

/* The network of a preset that allows some host, or of a call whose
 * approval grants hosts: still a namespace of its own, left only through
 * the call's egress proxy. */
static char *egress_note(const struct lower_input *in)
{
	return xasprintf("%s: still a network namespace of its own; the only way out is cordon's "
			 "per-call egress proxy (127.0.0.1:%d inside, HTTP_PROXY and ALL_PROXY "
			 "set), which %s",
			 in->net_approval ? "the call's approval grants hosts, though no net rule "
					    "allows one"
					  : "a net rule allows some host",
			 CORDON_EGRESS_PORT,
			 in->net_approval ? "lets through only the hosts the approval grants"
					  : "decides every contact");
}

/* The namespaces and process settings every plan has; the network's
 * depends on whether some host is allowed. */
static void plan_namespaces(struct cordon_plan *pl, const struct lower_input *in)
{
	plan_push(pl, CORDON_PLAN_UNSHARE_USER, NULL, NULL, NULL, NULL);
	plan_push(pl, CORDON_PLAN_UNSHARE_PID, NULL, NULL, NULL, NULL);
	plan_push(pl, CORDON_PLAN_UNSHARE_IPC, NULL, NULL, NULL, NULL);
	plan_push(pl, CORDON_PLAN_UNSHARE_UTS, NULL, NULL, NULL, NULL);
	plan_push(pl, CORDON_PLAN_UNSHARE_CGROUP_TRY, NULL, NULL, NULL, NULL);
	if (!in->net_allowed)
		plan_push(pl, CORDON_PLAN_UNSHARE_NET, NULL, NULL, NULL,
		     xstrdup("no net rule allows a host: a network namespace with loopback only, "
			     "and the seccomp filter refuses new sockets"));
	else
		plan_push(pl, CORDON_PLAN_UNSHARE_NET_EGRESS, NULL, NULL, in->net_origin,
			  egress_note(in));
	plan_push(pl, CORDON_PLAN_DIE_WITH_PARENT, NULL, NULL, NULL, NULL);
	plan_push(pl, CORDON_PLAN_NEW_SESSION, NULL, NULL, NULL, NULL);
	plan_push(pl, CORDON_PLAN_CAP_DROP_ALL, NULL, NULL, NULL, NULL);
}

/* The filesystem operations gathered from the paths, before ordering. */
struct fs_ops {
	struct fs_op *v;
	size_t n, cap;
	char *err; /* a path that cannot be lowered (the last one found), or NULL */
};

/* Mount kind at `at` (from src) for path p, ranked among those at the
 * same place; note (owned) says why, or is NULL. */
static void fs_add(struct fs_ops *fs, const char *at, int rank, const struct lower_path *p,
		   enum cordon_plan_kind kind, const char *src, char *note)
{
	struct fs_op f = { xstrdup(at), rank, fs->n, p, kind, false, src ? xstrdup(src) : NULL,
			   note };
	VEC_PUSH(fs->v, fs->n, fs->cap, f);
}

/* Only a note for p: nothing is mounted for it. */
static void fs_note(struct fs_ops *fs, const struct lower_path *p, char *note)
{
	fs_add(fs, p->path, 9, p, CORDON_PLAN_SKIP, NULL, note);
}

static void fs_ops_free(struct fs_ops *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		free(fs->v[i].at);
		free(fs->v[i].src);
		free(fs->v[i].note);
	}
	free(fs->v);
	free(fs->err);
}

/* A read root or a write root: bound read-only or writable where it
 * exists. */
static void fs_root(struct fs_ops *fs, const struct lower_input *in, const struct lower_path *p,
		    bool exists, const char *mask)
{
	if (p->why == LOWER_READ_ROOT && !mask && under_write_root(in, p->path))
		fs_note(fs, p, xstrdup("readable through the writable root around it"));
	else if (exists && p->entries)
		fs_add(fs, p->path, 1, p, CORDON_PLAN_BIND, p->path,
		       xstrdup("an entry of the home directory the policy lets be written, "
			       "bound back over its read-only top"));
	else if (exists)
		fs_add(fs, p->path, p->why == LOWER_READ_ROOT ? 0 : 1, p,
		       p->why == LOWER_READ_ROOT ? CORDON_PLAN_RO_BIND : CORDON_PLAN_BIND, p->path,
		       p->why == LOWER_WRITE_ROOT && lower_decide(in->ev, IR_READ, p->path) != IR_ALLOW
			       ? xstrdup("writable, and so readable: a mount cannot be "
					 "write-only, though no read rule allows reading it")
			       : NULL);
	else if (made_root(in, p))
		fs_note(fs, p,
			xstrdup("does not exist: the environment points into it, so cordon "
				"run makes it (with its missing parents) for the call and "
				"binds it writable; what it made and is still empty "
				"afterwards is removed"));
	else
		fs_note(fs, p,
			xstrdup("does not exist: nothing to bind, and nothing can be created "
				"there inside the sandbox"));
}

/* Each directory between the write root and what is made read-only
 * (at, or the nearest existing directory above it) becomes a mount point
 * too: a mount point cannot be renamed, so `mv .git .git2; mkdir -p
 * .git/hooks` cannot move the protection out of the way. */
static void fs_pins(struct fs_ops *fs, const struct lower_input *in, const struct lower_path *p,
		    bool at_path)
{
	char *at = at_path ? xstrdup(p->path) : nearest_existing(in, p->path);
	const char *root = root_above(in, at);
	for (size_t n = root ? strlen(root) + 1 : 0; root && at[n]; n++) {
		if (at[n] != '/')
			continue;
		char *dir = xstrndup(at, n);
		/* The pin keeps the mode the mount stack gives the
		 * directory, so nothing below it changes. */
		bool rw = lower_bwrap_writable(in, dir);
		fs_add(fs, dir, rw ? 1 : 2, p, rw ? CORDON_PLAN_BIND : CORDON_PLAN_RO_BIND, dir,
		       xstrdup("pinned as a mount point: it cannot be renamed away from "
			       "the read-only path below it"));
		free(dir);
	}
	free(at);
}

/* A read-only path that does not exist and cannot hold a fence.  Where
 * the nearest existing ancestor is writable (a file: .git of a worktree),
 * a command could replace it and create the path: it is bound read-only.
 * One already read-only needs nothing. */
static void fs_keep_out(struct fs_ops *fs, const struct lower_input *in,
			const struct lower_path *p)
{
	char *anc = nearest_existing(in, p->path);
	if (lower_bwrap_writable(in, anc))
		fs_add(fs, anc, 2, p, CORDON_PLAN_RO_BIND, anc,
		       xasprintf("%s %s does not exist and %s cannot hold a fence (a file, or a "
				 "directory this user cannot write): it is "
				 "bound read-only in its place",
				 p->protect ? "protected path" : "write-denied path", p->path, anc));
	else
		fs_note(fs, p,
			xasprintf("does not exist, and %s is read-only in the sandbox: it "
				  "cannot be created",
				  anc));
	free(anc);
}

/* A path made read-only (protected, or writes to it denied): its pins,
 * then a read-only bind, an empty tmpfs in its place (a fence), or what
 * keeps it from being created. */
static void fs_read_only(struct fs_ops *fs, const struct lower_input *in,
			 const struct lower_path *p, bool exists)
{
	const char *above = exists ? NULL : kept_out_above(in, p);
	bool fence = !exists && !above && fenced(in, p);
	if (above) {
		fs_note(fs, p,
			xasprintf("does not exist, below %s, which is read-only: it cannot be "
				  "created",
				  above));
		return;
	}
	if (!exists && after_call(in, p) && fence_place(in, p)) {
		fs_note(fs, p,
			xstrdup("protected path does not exist: no fence, which would show "
				"a file that is not there; what the call makes there is moved "
				"aside after it (a repository: where it names a program)"));
		return;
	}
	fs_pins(fs, in, p, exists || fence);
	if (exists)
		fs_add(fs, p->path, 2, p, CORDON_PLAN_RO_BIND, p->path,
		       p->entries ? xstrdup("the home directory's top, read-only: no "
					    "configuration can be made there")
				  : NULL);
	else if (fence)
		/* An empty read-only tmpfs: it needs no source, and bwrap
		 * makes the mount point if the runner did not. */
		fs_add(fs, p->path, 2, p, CORDON_PLAN_TMPFS, NULL,
		       xasprintf("%s does not exist: an empty read-only directory in its "
				 "place; cordon run makes the mount point for the call and "
				 "removes it afterwards",
				 p->protect ? "protected path" : "write-denied path"));
	else if (keeps_out(in, p))
		fs_keep_out(fs, in, p);
	else
		fs_note(fs, p,
			xstrdup("asks before writes but does not exist: inside the sandbox it "
				"is part of the writable root around it"));
}

/* A path hidden: an empty directory or an empty file in its place. */
static void fs_mask(struct fs_ops *fs, const struct lower_input *in, const struct lower_path *p,
		    bool exists)
{
	if (!exists) {
		fs_note(fs, p, xstrdup("does not exist: nothing to hide"));
	} else if (lower_fact_is_dir(in, p->path)) {
		fs_add(fs, p->path, 3, p, CORDON_PLAN_MASK_DIR, NULL, mask_note(p, "directory"));
	} else if (!in->mask_file) {
		free(fs->err);
		fs->err = xasprintf("%s: %s is masked with an empty file beside ${tmp}, which "
				    "has no value (give it with --context tmp=DIR)",
				    p->origin, p->path);
	} else {
		/* An empty read-only regular file, not /dev/null: git, pytest
		 * and the like stop at a character device in a tree. */
		fs_add(fs, p->path, 3, p, CORDON_PLAN_MASK_FILE, in->mask_file,
		       mask_note(p, "file"));
	}
}

/* The operations of one path of the input, by why it is there. */
static void fs_path(struct fs_ops *fs, const struct lower_input *in, const struct lower_path *p)
{
	if (kernel_fs(p->path)) {
		fs_note(fs, p,
			xasprintf("%s is a fresh kernel filesystem inside the sandbox; nothing is "
				  "bound there",
				  path_under(p->path, "/dev") ? "/dev" : "/proc"));
		return;
	}
	bool exists = lower_fact_exists(in, p->path);
	const char *mask = under_mask(in, p->path);
	if (mask && (p->why == LOWER_WRITE_ROOT || p->why == LOWER_READ_ONLY)) {
		/* Below a hidden directory only what may be read comes back:
		 * a bind would show the host's content again. */
		fs_note(fs, p, xasprintf("inside %s, which is hidden: not writable in the sandbox", mask));
		return;
	}
	switch (p->why) {
	case LOWER_READ_ROOT:
	case LOWER_WRITE_ROOT:
		fs_root(fs, in, p, exists, mask);
		break;
	case LOWER_READ_ONLY:
		fs_read_only(fs, in, p, exists);
		break;
	case LOWER_MASK:
		fs_mask(fs, in, p, exists);
		break;
	}
}

/* Is fs->v[i] a mount made already at the same place?  A directory
 * pinned for two protections, or two protections with one missing
 * ancestor, are bound once. */
static bool fs_repeats(const struct fs_ops *fs, size_t i)
{
	const struct fs_op *f = &fs->v[i];
	bool same = false;
	for (size_t j = 0; j < i && !same; j++)
		same = !fs->v[j].dropped && fs->v[j].kind != CORDON_PLAN_SKIP &&
		       fs->v[j].kind == f->kind && strcmp(fs->v[j].at, f->at) == 0 &&
		       fs->v[j].rank == f->rank;
	return same;
}

/* The links roots are reached through, where no bind shows them. */
static void plan_links(struct cordon_plan *pl, const struct lower_input *in)
{
	for (size_t i = 0; i < in->host.nlinks; i++) {
		const struct lower_link *l = &in->host.links[i];
		if (shown_by_bind(in, l->path))
			continue;
		plan_push(pl, CORDON_PLAN_SYMLINK, l->path, l->target, l->origin,
		     xasprintf("%s is a symlink on the host: the same link in the sandbox", l->path));
	}
}

/* The filesystem operations in order: each once, /dev and /proc after
 * the root's own, the host's links, then the read-only remounts of the
 * tmpfs ones.  The plan takes the notes. */
static void plan_mounts(struct cordon_plan *pl, const struct lower_input *in, struct fs_ops *fs)
{
	sort_items(fs->v, fs->n, sizeof(*fs->v), fs_op_cmp);
	bool root_done = false;
	struct fs_op **remount = NULL;
	size_t nremount = 0, remount_cap = 0;
	for (size_t i = 0; i < fs->n; i++) {
		struct fs_op *f = &fs->v[i];
		if (fs_repeats(fs, i)) {
			free(f->note);
			f->note = NULL;
			f->dropped = true;
			continue;
		}
		if (!root_done && strcmp(f->at, "/") != 0) {
			plan_dev_proc(pl, in);
			root_done = true;
		}
		if (f->kind == CORDON_PLAN_SKIP) {
			plan_push(pl, CORDON_PLAN_SKIP, f->p->path, NULL, f->p->origin, f->note);
		} else if (f->kind == CORDON_PLAN_TMPFS || f->kind == CORDON_PLAN_MASK_DIR) {
			/* Read-only only once what is mounted below it is in place:
			 * bwrap makes those mount points inside the empty tmpfs. */
			plan_push(pl, f->kind, f->at, NULL, f->p->origin, f->note);
			VEC_PUSH(remount, nremount, remount_cap, f);
		} else {
			plan_push(pl, f->kind, f->at, f->src, f->p->origin, f->note);
		}
		f->note = NULL;
	}
	plan_links(pl, in);
	for (size_t i = 0; i < nremount; i++)
		plan_push(pl, CORDON_PLAN_REMOUNT_RO, remount[i]->at, NULL, remount[i]->p->origin,
			  NULL);
	free(remount);
	if (!root_done)
		plan_dev_proc(pl, in);
}

static int plan_build(const struct lower_input *in, struct cordon_plan *pl, char **err)
{
	memset(pl, 0, sizeof(*pl));
	if (in->restricted && !in->host.read) {
		*err = xstrdup("the host facts of the plan were not read");
		return -1;
	}
	if (!in->restricted) {
		*err = xasprintf("preset '%s' runs without a sandbox (sandbox none): there is no "
				 "bwrap plan",
				 in->preset);
		return -1;
	}
	plan_namespaces(pl, in);
	/* Filesystem operations, ordered by the path they mount on (a parent
	 * before its children), then read root, writable bind, read-only bind,
	 * mask: so each deeper or later mount overrides what it covers. */
	struct fs_ops fs = { 0 };
	for (size_t i = 0; i < in->npaths; i++)
		fs_path(&fs, in, &in->paths[i]);
	if (fs.err) {
		*err = fs.err;
		fs.err = NULL;
		fs_ops_free(&fs);
		cordon_plan_free(pl);
		return -1;
	}
	plan_mounts(pl, in, &fs);
	fs_ops_free(&fs);
	plan_env(pl, in);
	if (in->cwd && lower_fact(in, in->cwd)->stat_dir)
		plan_push(pl, CORDON_PLAN_CHDIR, in->cwd, NULL, NULL, NULL);
	return 0;
}

/* One operation a line: a plan reads like the bwrap command it is. */
static void add_line(struct strbuf *sb, char *s, bool last)
{
	sb_addf(sb, "    %s%s\n", s, last ? "" : ",");
	free(s);
}

static json_t *jstr(const char *s)
{
	json_t *j = s ? json_string(s) : json_null();
	return j ? j : json_string("(not UTF-8)");
}

static char *dump(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return s ? s : xstrdup("{}");
}

/* A glob or regex is no mount.  A read deny or ask is expanded when
 * `cordon run` starts a call (host_masks.c); the rest is advice. */
static const char *advisory_note(const struct lower_input *in, const struct lower_advisory *a)
{
	size_t n = 0;
	bool complete = false;
	char **roots = lower_mask_roots(in, a, &n, &complete);
	for (size_t i = 0; i < n; i++)
		free(roots[i]);
	free(roots);
	char *dir = NULL;
	bool home = lower_home_rule(in, a, &dir);
	free(dir);
	if (home)
		return "the home directory's entries: where a write root holds the home directory, "
		       "its top is bound read-only, and each entry the evaluator lets be written is "
		       "bound back when the call starts";
	if (a->op != IR_READ || a->effect == IR_ALLOW)
		return "a glob or regex is no mount: enforced when file tools ask, not inside the "
		       "sandbox";
	if (complete)
		return "expanded at launch: `cordon run` masks each path it matches when the call "
		       "starts; a path created during the call is not masked";
	return "expanded at launch below the writable and readable roots other than \"/\": "
	       "`cordon run` masks each path it matches there when the call starts; elsewhere, "
	       "and for paths created during the call, enforced when file tools ask only";
}

int lower_bwrap_plan(const struct lower_input *in, struct cordon_plan *pl, char **err)
{
	if (plan_build(in, pl, err) != 0)
		return -1;
	pl->preset = xstrdup(in->preset);
	return 0;
}

char *lower_bwrap_json(const struct lower_input *in, size_t *len, char **err)
{
	struct cordon_plan pl;
	struct strbuf sb;
	json_t *name = json_string(in->preset);
	char *s;
	if (plan_build(in, &pl, err) != 0) {
		json_decref(name);
		return NULL;
	}
	sb_init(&sb);
	s = json_dumps(name, JSON_ENCODE_ANY);
	sb_addf(&sb, "{\n  \"preset\": %s,\n  \"sandbox\": \"bwrap\",\n  \"operations\": [\n", s);
	free(s);
	json_decref(name);
	for (size_t i = 0; i < pl.n; i++)
		add_line(&sb, cordon_plan_op_json(&pl.ops[i], true, false), i + 1 == pl.n);
	sb_adds(&sb, "  ],\n  \"advisories\": [\n");
	for (size_t i = 0; i < in->nadvisories; i++) {
		const struct lower_advisory *a = &in->advisories[i];
		json_t *o = json_object();
		json_object_set_new(o, "op", json_string(ir_op_names[a->op]));
		json_object_set_new(o, "pattern", jstr(a->pattern));
		json_object_set_new(o, "effect", json_string(ir_effect_names[a->effect]));
		json_object_set_new(o, "origin", json_string(a->origin));
		json_object_set_new(o, "note", json_string(advisory_note(in, a)));
		add_line(&sb, dump(o), i + 1 == in->nadvisories);
	}
	sb_adds(&sb, "  ],\n");
	lower_limits_json(in, &sb);
	sb_adds(&sb, "}\n");
	cordon_plan_free(&pl);
	*len = sb.len;
	return sb_steal(&sb);
}

char *lower_bwrap_args(const struct lower_input *in, size_t *len, char **err)
{
	struct cordon_plan pl;
	if (plan_build(in, &pl, err) != 0)
		return NULL;
	char *args = cordon_plan_bwrap_args(&pl, len);
	cordon_plan_free(&pl);
	return args;
}
