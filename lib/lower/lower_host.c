/* The host facts a lowering needs, read at one place: the environment the
 * preset lets through, the symlinks its roots are reached through, what
 * each path of the plan (and each parent) is on this machine, and the
 * kernel's Landlock ABI.  The
 * lowerings ask the snapshot, never the file system, so a plan is a
 * function of the policy, the context and these facts alone. */
#include "config.h"

#include "cordon/landlock.h"
#include "lower.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

static int fact_cmp(const void *pa, const void *pb)
{
	const struct lower_fact *a = pa, *b = pb;
	return strcmp(a->path, b->path);
}

static struct lower_fact *fact_find(const struct lower_host *h, const char *path)
{
	struct lower_fact key = { .path = (char *)path };
	return h->nfacts ? bsearch(&key, h->facts, h->nfacts, sizeof(*h->facts), fact_cmp) : NULL;
}

/* What to read of a path: lstat always; stat (links followed) for the
 * roots Landlock is given and the working directory; access(W_OK) for the
 * directory a missing path would be made in. */
enum { READ_STAT = 1, READ_ACCESS = 2 };

static void fact_read(struct lower_fact *f, int what)
{
	struct stat st;
	f->lstat_errno = lstat(f->path, &st) == 0 ? 0 : errno;
	f->mode = f->lstat_errno ? 0 : (unsigned)st.st_mode;
	if (what & READ_STAT) {
		f->stat_errno = stat(f->path, &st) == 0 ? 0 : errno;
		f->stat_dir = !f->stat_errno && S_ISDIR(st.st_mode);
	}
	if (what & READ_ACCESS)
		f->writable = !f->lstat_errno && access(f->path, W_OK) == 0;
	f->got |= what;
}

/* The fact of path, added unread when the snapshot lacks it.  The facts
 * are unsorted while they are read; facts_sort ends a read. */
static struct lower_fact *fact_get(struct lower_host *h, const char *path, bool *added)
{
	*added = false;
	for (size_t i = 0; i < h->nfacts; i++)
		if (strcmp(h->facts[i].path, path) == 0)
			return &h->facts[i];
	struct lower_fact f = { .path = xstrdup(path), .stat_errno = ENOENT };
	VEC_PUSH(h->facts, h->nfacts, h->facts_cap, f);
	*added = true;
	return &h->facts[h->nfacts - 1];
}

/* Cut the last component off p, in place; false at "/". */
static bool parent_of(char *p)
{
	char *slash = strrchr(p, '/');
	if (!slash || (slash == p && p[1] == '\0'))
		return false;
	if (slash == p)
		p[1] = '\0';
	else
		*slash = '\0';
	return true;
}

/* path, and when it is missing each parent up to the first that exists
 * (or "/"): what the plan asks of a path, as the mounts it makes ask it.
 * again: read anew what the snapshot holds already. */
static void read_path(struct lower_host *h, const char *path, int what, bool again)
{
	if (!path || path[0] != '/')
		return;
	char *p = xstrdup(path);
	for (bool first = true;; first = false) {
		bool added;
		struct lower_fact *f = fact_get(h, p, &added);
		int want = first ? what : 0;
		if (added || again || (want & ~f->got))
			fact_read(f, want);
		if (f->lstat_errno == 0 || !parent_of(p)) {
			/* The directory a missing path below would be made in. */
			if (!first && !(f->got & READ_ACCESS))
				fact_read(f, READ_ACCESS);
			break;
		}
	}
	free(p);
}

static void facts_sort(struct lower_host *h)
{
	sort_items(h->facts, h->nfacts, sizeof(*h->facts), fact_cmp);
}

/* The symlinks along a root's written path, each once: the path is made
 * canonical component by component, so each link found is named by where
 * it really is. */
static void add_links(struct lower_input *in, const char *path, const char *origin)
{
	struct lower_host *h = &in->host;
	if (strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0)
		return;
	size_t len = strlen(path);
	for (size_t end = 1; end <= len; end++) {
		if (end < len && path[end] != '/')
			continue;
		char *prefix = xstrndup(path, end), *slash = strrchr(prefix, '/');
		struct stat st;
		char target[PATH_MAX];
		ssize_t n;
		if (lstat(prefix, &st) == 0 && S_ISLNK(st.st_mode) &&
		    (n = readlink(prefix, target, sizeof(target) - 1)) > 0) {
			target[n] = '\0';
			/* Its parent as it really is, so the link lands where the
			 * host has it. */
			char *parent;
			if (slash == prefix) {
				parent = xstrdup("/");
			} else {
				char *up = xstrndup(prefix, (size_t)(slash - prefix));
				parent = lower_resolved(in, up);
				free(up);
			}
			char *at = strcmp(parent, "/") == 0 ? xasprintf("/%s", slash + 1)
							    : xasprintf("%s/%s", parent, slash + 1);
			bool known = false;
			for (size_t i = 0; i < h->nlinks && !known; i++)
				known = strcmp(h->links[i].path, at) == 0;
			if (!known) {
				struct lower_link l = { at, xstrdup(target), origin };
				VEC_PUSH(h->links, h->nlinks, h->links_cap, l);
			} else {
				free(at);
			}
			free(parent);
		}
		free(prefix);
	}
}

/* ---- the home directory's entries, when a glob write rule covers them ---------- */

/* At most this many entries of the home directory are looked at; those
 * past it stay read-only with it (stricter, never wider). */
enum { ENTRIES_MAX = 1024 };

/* Whether rule text is "D/G", or that and a last "**" component: G one component with a
 * wildcard, D a literal directory.  *dir gets D (malloc'd). */
bool lower_entries_glob(const char *text, char **dir)
{
	if (!text || text[0] != '/')
		return false;
	size_t n = strlen(text);
	if (n > 3 && strcmp(text + n - 3, "/**") == 0)
		n -= 3;
	const char *slash = text + n;
	while (slash > text && *--slash != '/')
		;
	size_t dlen = (size_t)(slash - text);
	if (memchr(slash + 1, '/', n - dlen - 1) || strcspn(slash + 1, "*?[") >= n - dlen - 1 ||
	    strcspn(text, "*?[") < dlen)
		return false;
	*dir = dlen ? xstrndup(text, dlen) : xstrdup("/");
	return true;
}

static bool has_path(const struct lower_input *in, const char *path, enum lower_why why)
{
	for (size_t i = 0; i < in->npaths; i++)
		if (in->paths[i].why == why && strcmp(in->paths[i].path, path) == 0)
			return true;
	return false;
}

static void push_path(struct lower_input *in, const char *path, enum lower_why why,
		      const char *origin, bool protect, bool entries)
{
	if (has_path(in, path, why))
		return;
	struct lower_path p = { xstrdup(path), why, origin, protect, false, false, entries };
	VEC_PUSH(in->paths, in->npaths, in->paths_cap, p);
	read_path(&in->host, path, why == LOWER_WRITE_ROOT ? READ_STAT : 0, false);
}

bool lower_in_write_root(const struct lower_input *in, const char *path)
{
	for (size_t i = 0; i < in->npaths; i++)
		if (in->paths[i].why == LOWER_WRITE_ROOT && !in->paths[i].entries &&
		    path_under(path, in->paths[i].path))
			return true;
	return false;
}

/* One entry of the home directory, whose top level is read-only: what
 * the evaluator lets be written is bound back writable. */
static void entry_decide(struct lower_input *in, const struct lower_advisory *a, const char *path)
{
	if (lower_decide(in->ev, IR_WRITE, path) == IR_ALLOW)
		push_path(in, path, LOWER_WRITE_ROOT, a->origin, false, true);
}

bool lower_home_rule(const struct lower_input *in, const struct lower_advisory *a, char **dir)
{
	const char *home_ctx = in->ev->ctx.value[CTX_HOME];
	*dir = NULL;
	if (a->op != IR_WRITE || a->effect == IR_ALLOW || !a->rule || a->rule->m.regex || !home_ctx ||
	    !lower_entries_glob(a->rule->m.text, dir))
		return false;
	char *home = lower_resolved(in, home_ctx);
	bool is_home = strcmp(home, *dir) == 0;
	free(home);
	if (!is_home) {
		free(*dir);
		*dir = NULL;
	}
	return is_home;
}

static void entries_read(struct lower_input *in, const struct lower_advisory *a, const char *dir)
{
	struct stat st;
	if (!lower_in_write_root(in, dir) || lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return;
	push_path(in, dir, LOWER_READ_ONLY, a->origin, false, true);
	DIR *d = opendir(dir);
	if (!d)
		return; /* not listable: nothing is bound back, all of it stays read-only */
	struct dirent *e;
	for (size_t n = 0; (e = readdir(d)) && n < ENTRIES_MAX; n++) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *path = strcmp(dir, "/") == 0 ? xasprintf("/%s", e->d_name)
						   : xasprintf("%s/%s", dir, e->d_name);
		/* A link is the directory's entry, read-only with it; what it
		 * points to is judged where it lies.  Only files and
		 * directories are bound back: a socket or FIFO stays as it is. */
		if (lstat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
			entry_decide(in, a, path);
		free(path);
	}
	closedir(d);
}

/* A glob write deny, ask or protection of the home directory's entries
 * (`write "~/.*" ask`), where a write root holds the home directory: its
 * top level is made read-only, so that no new entry (a startup file the
 * shell would source) can be made, and the entries the evaluator lets be
 * written are bound back.  Listed here, where the host is read, so that
 * the plan stays a function of the facts.  Other directories' globs stay
 * advisories: a read-only workspace top would stop ordinary work. */
static void entries_expand(struct lower_input *in)
{
	if (!in->restricted || !in->ev->host->live)
		return;
	size_t nadv = in->nadvisories;
	for (size_t i = 0; i < nadv; i++) {
		const struct lower_advisory *a = &in->advisories[i];
		char *dir = NULL;
		if (!lower_home_rule(in, a, &dir))
			continue;
		entries_read(in, a, dir);
		free(dir);
	}
	sort_items(in->paths, in->npaths, sizeof(*in->paths), lower_path_cmp);
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of this machine's root, sorted: what a container's root is
 * made of where a runtime cannot take "/" itself as its root (lower_oci.c).
 * Another host's are not read. */
static void read_root_entries(struct lower_input *in)
{
	struct lower_host *h = &in->host;
	size_t cap = 0;
	DIR *d = in->ev->host->live ? opendir("/") : NULL;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			VEC_PUSH(h->root_entries, h->nroot_entries, cap, xasprintf("/%s", e->d_name));
	}
	if (d)
		closedir(d);
	sort_items(h->root_entries, h->nroot_entries, sizeof(*h->root_entries), entry_cmp);
}

void lower_host_read(struct lower_input *in)
{
	struct lower_host *h = &in->host;
	size_t cap = 0;
	lower_host_free(h);
	h->read = true;
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq)
			continue;
		char *name = xstrndup(*e, (size_t)(eq - *e));
		if (lower_env_passes(in, name))
			VEC_PUSH(h->env, h->nenv, cap, xstrdup(*e));
		free(name);
	}
	VEC_PUSH(h->env, h->nenv, cap, NULL);
	h->nenv--;
	for (size_t i = 0; i < in->nlink_sources; i++)
		add_links(in, in->link_sources[i].path, in->link_sources[i].origin);
	for (size_t i = 0; i < in->npaths; i++)
		read_path(h, in->paths[i].path,
			  in->paths[i].why == LOWER_WRITE_ROOT ? READ_STAT : 0, false);
	entries_expand(in);
	read_path(h, in->cwd, READ_STAT, false);
	/* Whether the workspace had its repository directories at launch:
	 * the after-call walk leaves only those to the plan. */
	for (size_t i = 0; in->workspace && lower_after_call_dirs[i]; i++) {
		char *dir = xstrcat(in->workspace, "/", lower_after_call_dirs[i], (char *)NULL);
		read_path(h, dir, 0, false);
		free(dir);
	}
	read_path(h, "/dev", READ_STAT, false);
	for (size_t i = 0; lower_proc_covers[i]; i++)
		read_path(h, lower_proc_covers[i], 0, false);
	facts_sort(h);
	h->landlock_abi = cordon_landlock_abi();
	read_root_entries(in);
	h->uid = (unsigned)getuid();
	h->gid = (unsigned)getgid();
	/* `cordon compile --emit landlock` shows the ruleset of another ABI. */
	const char *shown = getenv("CORDON_LANDLOCK_ABI");
	h->landlock_abi_shown = shown && *shown ? xstrdup(shown) : NULL;
}

void lower_host_note(struct lower_input *in, const char *path)
{
	/* What the snapshot holds as missing of path and its parents is read
	 * anew: the runner made it, or found it.  What existed still does. */
	char *p = xstrdup(path);
	do {
		for (size_t i = 0; i < in->host.nfacts; i++)
			if (strcmp(in->host.facts[i].path, p) == 0 && in->host.facts[i].lstat_errno)
				fact_read(&in->host.facts[i], READ_STAT | READ_ACCESS);
	} while (parent_of(p));
	free(p);
	read_path(&in->host, path, READ_STAT, false);
	facts_sort(&in->host);
}

void lower_host_free(struct lower_host *h)
{
	for (size_t i = 0; h->env && i < h->nenv; i++)
		free(h->env[i]);
	free(h->env);
	for (size_t i = 0; i < h->nfacts; i++)
		free(h->facts[i].path);
	free(h->facts);
	for (size_t i = 0; i < h->nlinks; i++) {
		free(h->links[i].path);
		free(h->links[i].target);
	}
	free(h->links);
	for (size_t i = 0; i < h->nroot_entries; i++)
		free(h->root_entries[i]);
	free(h->root_entries);
	free(h->landlock_abi_shown);
	memset(h, 0, sizeof(*h));
}

const struct lower_fact *lower_fact(const struct lower_input *in, const char *path)
{
	static const struct lower_fact missing = { .lstat_errno = ENOENT, .stat_errno = ENOENT };
	const struct lower_fact *f = fact_find(&in->host, path);
	return f ? f : &missing;
}

bool lower_fact_exists(const struct lower_input *in, const char *path)
{
	return lower_fact(in, path)->lstat_errno == 0;
}

bool lower_fact_is_dir(const struct lower_input *in, const char *path)
{
	const struct lower_fact *f = lower_fact(in, path);
	return f->lstat_errno == 0 && S_ISDIR(f->mode);
}

const char *lower_host_getenv(const struct lower_input *in, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < in->host.nenv; i++)
		if (strncmp(in->host.env[i], name, n) == 0 && in->host.env[i][n] == '=')
			return in->host.env[i] + n + 1;
	return NULL;
}
