/* A hard link is another name of the same file, and a mount plan works on
 * names: a file in the workspace whose other name is ~/.bashrc is written,
 * inside the sandbox, as the workspace path it is, and the change shows
 * outside.  Landlock cannot tell either (it judges the path opened).  The
 * sandbox cannot make such a link (link(2) across mounts fails, and
 * Landlock refuses to link a file from outside the write roots), but one
 * made before the call stays.  The other names of a file cannot be found
 * without walking the whole filesystem, so this counts the names found
 * under the writable roots that the plan leaves writable: a file with more
 * links than that has a name elsewhere, in a read-only part of a root (a
 * protected .git/config), or in a directory the walk could not list.
 * `cordon run --check-links` asks it (cordon_lowering_check_links,
 * cordon/lowering.h). */
#include "config.h"

#include "base/util.h"
#include "host_walk.h"
#include "lower/lower.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* At most this many files are listed; the count says how many there are. */
#define LINKS_LISTED 20

struct name {
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
	dev_t dir_dev; /* the directory entry: a name is counted once however */
	ino_t dir_ino; /* many paths reach it (a bind mount inside a root) */
	char *path;
	const char *base;
};

struct outside;

struct links_walk {
	struct name *v;
	size_t n, cap;
	struct outside *out;
	size_t nout, out_cap;
	const char *root;
	char *err;
};

static int visit(void *arg, const struct host_walk_entry *e)
{
	struct links_walk *w = arg;
	struct stat st;
	if (e->type == DT_DIR)
		return HOST_WALK_ENTER;
	if (e->type != DT_REG || fstatat(e->dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISREG(st.st_mode) || st.st_nlink < 2)
		return HOST_WALK_SKIP;
	char *path = xstrndup(e->path, e->len);
	struct name nm = { st.st_dev, st.st_ino, st.st_nlink, e->dir_dev, e->dir_ino, path,
			   path + (e->len - strlen(e->name)) };
	VEC_PUSH(w->v, w->n, w->cap, nm);
	return HOST_WALK_SKIP;
}

static void bound_hit(void *arg, const char *what)
{
	struct links_walk *w = arg;
	if (!w->err)
		w->err = xasprintf("--check-links: cannot look for hard links under %s: %s; "
				   "narrow the writable roots or run without --check-links",
				   w->root, what);
}

/* By file, then by directory entry, then by path. */
static int name_cmp(const void *pa, const void *pb)
{
	const struct name *a = pa, *b = pb;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	if (a->dir_dev != b->dir_dev)
		return a->dir_dev < b->dir_dev ? -1 : 1;
	if (a->dir_ino != b->dir_ino)
		return a->dir_ino < b->dir_ino ? -1 : 1;
	int r = strcmp(a->base, b->base);
	return r ? r : strcmp(a->path, b->path);
}

/* A file with a name the sandbox may write and another it may not. */
struct outside {
	const struct name *file; /* its first name in sort order */
	const char *path;        /* its first writable name */
	size_t names;            /* writable names found */
};

static int outside_cmp(const void *pa, const void *pb)
{
	const struct outside *a = pa, *b = pb;
	return strcmp(a->path, b->path);
}

/* Group the names found by file; keep in w->out each file that has more
 * links than writable names.  -1 when there is any. */
static int find_outside(const struct lower_input *in, struct links_walk *w)
{
	sort_items(w->v, w->n, sizeof(*w->v), name_cmp);
	for (size_t i = 0, j; i < w->n; i = j) {
		struct outside o = { &w->v[i], NULL, 0 };
		for (j = i; j < w->n && w->v[j].dev == w->v[i].dev && w->v[j].ino == w->v[i].ino; j++) {
			bool same = j > i && w->v[j].dir_dev == w->v[j - 1].dir_dev &&
				    w->v[j].dir_ino == w->v[j - 1].dir_ino &&
				    strcmp(w->v[j].base, w->v[j - 1].base) == 0;
			/* A name that is read-only inside (protected, denied,
			 * masked) is one a write must not reach, as outside. */
			if (same || !lower_bwrap_writable(in, w->v[j].path))
				continue;
			o.names++;
			if (!o.path || strcmp(w->v[j].path, o.path) < 0)
				o.path = w->v[j].path;
		}
		if (o.names && o.names < (size_t)w->v[i].nlink)
			VEC_PUSH(w->out, w->nout, w->out_cap, o);
	}
	return w->nout ? -1 : 0;
}

/* The message that lists them, by path. */
static char *report(struct links_walk *w)
{
	struct strbuf sb;
	sb_init(&sb);
	sort_items(w->out, w->nout, sizeof(*w->out), outside_cmp);
	for (size_t k = 0; k < w->nout && k < LINKS_LISTED; k++) {
		const struct outside *o = &w->out[k];
		sb_addf(&sb, "\n  %s: %ju names, %zu of them writable in the sandbox (device %u:%u, "
			     "inode %ju)",
			o->path, (uintmax_t)o->file->nlink, o->names, major(o->file->dev),
			minor(o->file->dev), (uintmax_t)o->file->ino);
	}
	if (w->nout > LINKS_LISTED)
		sb_addf(&sb, "\n  and %zu more", w->nout - LINKS_LISTED);
	char *msg = xasprintf("--check-links: %zu file%s %s a name the sandbox may write and "
			      "another it may not (a hard link from outside the writable roots, or "
			      "from a read-only path inside them); a write inside would change the "
			      "file there too:%s\n"
			      "remove each such link or make the file a copy of its own "
			      "(cp -p F F.copy && mv F.copy F), or run without --check-links",
			      w->nout, w->nout == 1 ? "" : "s", w->nout == 1 ? "has" : "have", sb.buf);
	sb_free(&sb);
	return msg;
}

static bool kernel_fs(const char *path)
{
	return path_under(path, "/dev") || path_under(path, "/proc");
}

int cordon_lowering_check_links(const cordon_lowering *l, char **err)
{
	const struct lower_input *in = &l->in;
	struct links_walk w = { 0 };
	struct host_walk hw = { .max_entries = lower_mask_default_bounds.entries,
				.max_depth = lower_mask_default_bounds.depth,
				.seconds = lower_mask_default_bounds.seconds,
				.visit = visit,
				.bound = bound_hit,
				.arg = &w };
	const char **roots = NULL;
	size_t nroots = 0, cap = 0;
	int rc = 0;
	for (size_t i = 0; i < in->npaths; i++) {
		const struct lower_path *p = &in->paths[i];
		bool nested = false;
		if (p->why != LOWER_WRITE_ROOT || kernel_fs(p->path))
			continue;
		if (strcmp(p->path, "/") == 0) {
			free(roots); /* every name is writable already: none lies outside */
			return 0;
		}
		for (size_t k = 0; k < nroots && !nested; k++)
			nested = path_under(p->path, roots[k]);
		if (!nested) /* sorted by path: a root comes before those inside it */
			VEC_PUSH(roots, nroots, cap, p->path);
	}
	host_walk_start(&hw);
	for (size_t i = 0; i < nroots && rc == 0; i++) {
		w.root = roots[i];
		rc = host_walk_root(&hw, roots[i]);
	}
	free(roots);
	if (rc != 0) {
		*err = w.err;
		w.err = NULL;
	}
	if (rc == 0 && (rc = find_outside(in, &w)) != 0)
		*err = report(&w);
	for (size_t i = 0; i < w.n; i++)
		free(w.v[i].path);
	free(w.v);
	free(w.out);
	free(w.err);
	return rc;
}
