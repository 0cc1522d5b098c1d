/* After a call: the git repositories nested in the workspace that the
 * call made or changed, and that name a program git would run.
 *
 * A mount plan cannot protect a repository the command makes, and a
 * gitlink the command adds to the workspace's index makes the host's
 * next `git status` there recurse into it, running its core.fsmonitor,
 * its clean filters and the rest of base/git_keys.c's table.  So when the
 * sandbox is gone, the workspace is walked for .git entries below its
 * top: one whose entry, config, config.worktree or commondir changed
 * during the call (its ctime, which no process can set back, is at or
 * after the call's start) and whose config sets a key of the table (an
 * include too), or one of whose hooks changed during the call, is
 * disarmed: its .git is renamed
 * to .git.cordon-disarmed (or -N), in the directory the walk opened
 * without following a symlink.  git then sees no repository there, and
 * the superproject's status does not enter it.  The runner reports each,
 * with the keys that decided, so a person can look before moving it
 * back. */
#include "config.h"

#include "base/util.h"
#include "cordon/lowering.h"
#include "host_walk.h"
#include "lower/lower.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONFIG_READ_MAX (1 << 20)

struct nested_walk {
	const char *top;        /* the workspace's own .git, left to the mount plan */
	bool git_top_existed;   /* the workspace's .git was there at launch */
	bool hg_top_existed;    /* and its .hg */
	struct timespec since;
	struct strbuf report;
	size_t disarmed;
	size_t unlisted;        /* directories this user could not list */
	char *first_unlisted;
	char *bound;
};

static bool changed_since(const struct stat *st, const struct timespec *since)
{
	return st->st_ctim.tv_sec > since->tv_sec ||
	       (st->st_ctim.tv_sec == since->tv_sec && st->st_ctim.tv_nsec >= since->tv_nsec);
}

/* A file's text (at most 1 MiB), or NULL; *changed set when it changed
 * during the call.  Not blocking on a FIFO. */
static char *read_small(const char *path, const struct timespec *since, bool *changed)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	*changed |= changed_since(&st, since);
	struct strbuf sb;
	char buf[4096];
	ssize_t n;
	sb_init(&sb);
	while (sb.len < CONFIG_READ_MAX && (n = read(fd, buf, sizeof(buf))) > 0)
		sb_add(&sb, buf, (size_t)n);
	close(fd);
	return sb_steal(&sb);
}

/* A path a value names, from the top of the nested work tree (where git
 * runs it): changed during the call, or made then (a program the config
 * named before the call, rewritten by the command). */
struct named_check {
	const char *top;
	const struct timespec *since;
	bool *changed;
};

static void named_changed(void *arg, const char *value)
{
	struct named_check *c = arg;
	const char *home = getenv("HOME");
	char *path = value[0] == '/'			    ? xstrdup(value)
		     : value[0] == '~' && value[1] == '/' && home ? xasprintf("%s%s", home, value + 1)
		     : value[0] == '~'				    ? NULL
								    : xasprintf("%s/%s", c->top, value);
	struct stat st;
	if (path && ((lstat(path, &st) == 0 && changed_since(&st, c->since)) ||
		     (stat(path, &st) == 0 && changed_since(&st, c->since))))
		*c->changed = true;
	free(path);
}

/* What a config sets of the table, added to why ("core.fsmonitor, ..."),
 * and *changed also where a path such a value names changed. */
static void config_programs(const char *path, const char *top, const struct timespec *since,
			    bool *changed, struct strbuf *why)
{
	char *text = read_small(path, since, changed);
	if (!text)
		return;
	struct git_config_seen seen = { 0 };
	struct named_check check = { top, since, changed };
	lower_git_config_scan(text, &seen);
	free(text);
	for (size_t i = 0; i < seen.nvalues; i++) {
		if (!git_value_runs(&seen.values[i]))
			continue;
		git_value_paths(&seen.values[i], top, named_changed, &check);
		if (strstr(why->buf, seen.values[i].label))
			continue;
		if (why->len)
			sb_adds(why, ", ");
		sb_adds(why, seen.values[i].label);
	}
	lower_git_config_seen_free(&seen);
}

/* Hooks in dir that changed during the call (not git's .sample files):
 * programs git runs that the call put there.  Hooks that were there
 * before (git lfs's, husky's) are the user's. */
static void hooks_changed(const char *dir, const struct timespec *since, struct strbuf *why)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool any = false;
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;
		size_t n = strlen(de->d_name);
		if (de->d_name[0] == '.' || (n > 7 && strcmp(de->d_name + n - 7, ".sample") == 0) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		any |= changed_since(&st, since);
	}
	closedir(d);
	if (any) {
		if (why->len)
			sb_adds(why, ", ");
		sb_adds(why, "hooks");
	}
}

/* The git directory of the .git entry at path, as git finds it: the
 * directory itself (a symlink followed), or what a .git file names. */
static char *gitdir_of(const char *path, const char *dir, const struct timespec *since,
		       bool *changed)
{
	char *text = read_small(path, since, changed);
	if (!text)
		return xstrdup(path);
	text[strcspn(text, "\r\n")] = '\0';
	char *g = strncmp(text, "gitdir: ", 8) != 0 ? NULL
		  : text[8] == '/'		    ? xstrdup(text + 8)
						    : xasprintf("%s/%s", dir, text + 8);
	free(text);
	return g;
}

/* Why the repository whose .git entry is e would run a program the call
 * planted ("" if it would not): its config names one (a key of the
 * table) and the config, the .git entry or a path the value names
 * changed during the call; or a hook changed during it.  The entry's ctime changes with git's own
 * writes too (an index.lock): a repository the command only ran git in
 * is disarmed where its config names a program, the safe side. */
static char *repository_programs(const struct host_walk_entry *e, const struct timespec *since,
				 bool *changed)
{
	char *path = xstrndup(e->path, e->len);
	char *dir = xstrndup(e->path, e->len - strlen(e->name) - 1);
	struct strbuf why;
	struct stat st;
	sb_init(&why);
	*changed = fstatat(e->dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		   changed_since(&st, since);
	char *gitdir = gitdir_of(path, dir, since, changed);
	if (gitdir) {
		char *at = xasprintf("%s/commondir", gitdir);
		char *common = read_small(at, since, changed);
		free(at);
		if (common)
			common[strcspn(common, "\r\n")] = '\0';
		char *cdir = !common || !*common ? xstrdup(gitdir)
			     : common[0] == '/'  ? xstrdup(common)
						 : xasprintf("%s/%s", gitdir, common);
		char *config = xasprintf("%s/config", cdir), *wt = xasprintf("%s/config.worktree", gitdir);
		char *hooks = xasprintf("%s/hooks", cdir);
		config_programs(config, dir, since, changed, &why);
		config_programs(wt, dir, since, changed, &why);
		if (!*changed) { /* the user's own config, as it was */
			sb_free(&why);
			sb_init(&why);
		}
		hooks_changed(hooks, since, &why);
		free(config);
		free(wt);
		free(hooks);
		free(cdir);
		free(common);
	}
	free(gitdir);
	free(dir);
	free(path);
	return sb_steal(&why);
}

/* ---- Mercurial ------------------------------------------------------------ */

static void why_add(struct strbuf *why, const char *what)
{
	if (strstr(why->buf, what))
		return;
	if (why->len)
		sb_adds(why, ", ");
	sb_adds(why, what);
}

/* The settings of an hgrc that run nothing (hg help config): the remotes
 * of [paths], which hg clone writes, and [ui] username.  Any other may,
 * or is not known not to: [hooks] (shell commands, python:), [extensions]
 * (Python loaded from a path), [ui] merge, editor, ssh, patch,
 * [merge-tools], [merge-patterns], [extdiff], [pager], [alias] (`!` runs
 * a shell), [fsmonitor], [email] method, [subrepos]. */
static bool hg_inert(const char *section, const char *key)
{
	return strcmp(section, "paths") == 0 ||
	       (strcmp(section, "ui") == 0 && strcmp(key, "username") == 0);
}

/* What the hgrc at path sets besides those, added to why
 * ("hooks.precommit, %include"), read as Mercurial's config parser reads
 * it: `[section]` (to its last `]`), `key = value`, a value continued on
 * indented lines, `#` and `;` comments, `%include FILE`, `%unset KEY`. */
static void hgrc_programs(const char *path, const struct timespec *since, bool *changed,
			  struct strbuf *why)
{
	errno = 0;
	char *text = read_small(path, since, changed);
	char section[128] = "";
	if (!text && (errno == EACCES || errno == EPERM))
		why_add(why, "an hgrc this walk cannot read"); /* fail closed */
	for (char *line = text, *next; line; line = next) {
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		line[strcspn(line, "\r")] = '\0';
		char *end = strrchr(line, ']');
		if (!*line || strchr(" \t#;", *line))
			continue; /* blank, a comment, or a value continued */
		if (*line == '[' && end) {
			size_t n = (size_t)(end - line - 1);
			snprintf(section, sizeof(section), "%.*s", (int)n, line + 1);
		} else if (*line == '%') {
			if (strncmp(line, "%unset", 6) != 0)
				why_add(why, "%include");
		} else {
			size_t n = strcspn(line, "=");
			while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
				n--;
			line[n] = '\0';
			if (!hg_inert(section, line)) {
				char *label = xasprintf("%s.%s", section, line);
				why_add(why, label);
				free(label);
			}
		}
	}
	free(text);
}

/* Why the Mercurial repository whose .hg is e would run a program the call
 * planted ("" if it would not): its hgrc or hgrc-not-shared sets one, or
 * it shares another repository's store and config (sharedpath), and the
 * .hg entry or one of those files (or requires) changed during the call.
 * A .hg that existed at launch at the workspace's top is the plan's: only
 * a change to those files counts, not hg's own writes to .hg. */
static char *hg_programs(const struct host_walk_entry *e, const struct timespec *since,
			 bool top_existed)
{
	static const char *const configs[] = { "hgrc", "hgrc-not-shared" };
	struct strbuf why;
	struct stat st;
	sb_init(&why);
	bool changed = !top_existed && fstatat(e->dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		       changed_since(&st, since);
	for (size_t i = 0; i < sizeof(configs) / sizeof(*configs); i++) {
		char *path = xasprintf("%.*s/%s", (int)e->len, e->path, configs[i]);
		hgrc_programs(path, since, &changed, &why);
		free(path);
	}
	char *shared = xasprintf("%.*s/sharedpath", (int)e->len, e->path);
	char *requires = xasprintf("%.*s/requires", (int)e->len, e->path);
	char *text = read_small(shared, since, &changed);
	if (text)
		why_add(&why, "sharedpath");
	free(text);
	free(read_small(requires, since, &changed));
	free(shared);
	free(requires);
	if (!changed) { /* the user's own, as it was */
		sb_free(&why);
		sb_init(&why);
	}
	return sb_steal(&why);
}

/* Rename the repository entry e (.git, .hg) aside, in the directory the
 * walk holds open: the new name, malloc'd, or NULL with errno. */
static char *disarm(const struct host_walk_entry *e)
{
	for (int i = 0; i < 100; i++) {
		char name[64];
		if (i)
			snprintf(name, sizeof(name), "%s.cordon-disarmed-%d", e->name, i);
		else
			snprintf(name, sizeof(name), "%s.cordon-disarmed", e->name);
		if (renameat2(e->dirfd, e->name, e->dirfd, name, RENAME_NOREPLACE) == 0)
			return xstrdup(name);
		if (errno != EEXIST)
			return NULL;
	}
	errno = EEXIST;
	return NULL;
}

/* A directory of this user's that the call made unlistable (chmod 0)
 * would hide a repository from this walk, not from a person who lists it
 * again: it is given back its owner's read and search bits. */
static void relist(struct nested_walk *w, const struct host_walk_entry *e)
{
	struct stat st;
	if (faccessat(e->dirfd, e->name, R_OK | X_OK, AT_EACCESS) == 0 ||
	    fstatat(e->dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || !changed_since(&st, &w->since))
		return;
	if (fchmodat(e->dirfd, e->name, (st.st_mode & 07777) | S_IRUSR | S_IXUSR, 0) == 0)
		sb_addf(&w->report, "  %.*s: made listable again (u+rx) to look into it\n",
			(int)e->len, e->path);
}

static int visit(void *arg, const struct host_walk_entry *e)
{
	struct nested_walk *w = arg;
	bool hg = strcmp(e->name, ".hg") == 0;
	if (strcmp(e->name, ".git") != 0 && !hg) {
		if (e->type == DT_DIR)
			relist(w, e);
		return e->type == DT_DIR ? HOST_WALK_ENTER : HOST_WALK_SKIP;
	}
	/* The workspace's own .git or .hg: w->top less its ".git". */
	bool top = e->len == strlen(w->top) - 4 + strlen(e->name) &&
		   strncmp(w->top, e->path, strlen(w->top) - 4) == 0;
	if (top && !hg && w->git_top_existed)
		return HOST_WALK_SKIP; /* the workspace's own: the plan protects it */
	bool changed = false;
	char *why = hg ? hg_programs(e, &w->since, top && w->hg_top_existed)
		       : repository_programs(e, &w->since, &changed);
	if (*why) {
		char *dir = xstrndup(e->path, e->len - strlen(e->name) - 1);
		char *moved = disarm(e);
		if (moved)
			sb_addf(&w->report, "  %s (%s): its %s is now %s/%s\n", dir, why, e->name, dir,
				moved);
		else
			sb_addf(&w->report, "  %s (%s): its %s could not be moved aside: %s\n", dir,
				why, e->name, strerror(errno));
		w->disarmed++;
		free(moved);
		free(dir);
	}
	free(why);
	return HOST_WALK_SKIP; /* a repository directory holds no work tree to look into */
}

/* A directory this walk cannot list (another user's, that lets this one
 * search it) could hold a repository the call made, which a git reaching
 * it by name would enter: one that changed during the call is named. */
static int unlistable(void *arg, const struct host_walk_entry *e)
{
	struct nested_walk *w = arg;
	struct stat st;
	if (fstatat(e->dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !changed_since(&st, &w->since))
		return 0;
	if (!w->unlisted++)
		w->first_unlisted = xstrndup(e->path, e->len);
	return 0;
}

static void bound_hit(void *arg, const char *what)
{
	struct nested_walk *w = arg;
	w->bound = xstrdup(what);
}

/* Whether the command could write in the workspace at all. */
static bool workspace_writable(const struct lower_input *in)
{
	for (size_t i = 0; i < in->npaths; i++) {
		const struct lower_path *p = &in->paths[i];
		if (p->why == LOWER_WRITE_ROOT &&
		    (strcmp(p->path, in->workspace) == 0 || path_under(in->workspace, p->path)))
			return true;
	}
	return false;
}

/* The protected names at the workspace's top that were missing at launch
 * and were not fenced (lower_after_call_names): what the call made there
 * is renamed to NAME.cordon-disarmed, in the workspace opened without
 * following a symlink; each is added to report. */
static size_t move_aside_made(const struct lower_input *in, struct strbuf *report)
{
	size_t moved = 0;
	int ws = cordon_open_dir_nofollow(in->workspace);
	if (ws < 0)
		return 0;
	for (size_t i = 0; lower_after_call_names[i]; i++) {
		const char *name = lower_after_call_names[i];
		char *path = xstrcat(in->workspace, "/", name, (char *)NULL);
		const struct lower_path *p = NULL;
		struct stat st;
		for (size_t k = 0; k < in->npaths && !p; k++)
			if (in->paths[k].protect && strcmp(in->paths[k].path, path) == 0)
				p = &in->paths[k];
		if (p && lower_fact(in, path)->lstat_errno == ENOENT &&
		    fstatat(ws, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			struct host_walk_entry e = { .dirfd = ws, .name = name };
			char *to = disarm(&e);
			if (to)
				sb_addf(report, "  %s: made by the call at a protected path, now %s/%s\n",
					path, in->workspace, to);
			else
				sb_addf(report, "  %s: made by the call at a protected path, could not "
					"be moved aside: %s\n", path, strerror(errno));
			moved++;
			free(to);
		}
		free(path);
	}
	close(ws);
	return moved;
}

int cordon_lowering_disarm_nested_git(const cordon_lowering *l, const struct timespec *since,
				      char **report)
{
	const struct lower_input *in = &l->in;
	*report = NULL;
	if (!in->restricted || !in->workspace || strcmp(in->workspace, "/") == 0 ||
	    !workspace_writable(in))
		return 0;
	struct nested_walk w = { .since = *since };
	char *top = xstrcat(in->workspace, "/.git", (char *)NULL);
	w.top = top;
	char *hg_top = xstrcat(in->workspace, "/.hg", (char *)NULL);
	/* A lowering whose host was never read cannot tell: the workspace's
	 * own are taken as there at launch, the plan's. */
	w.hg_top_existed = !in->host.read || lower_fact_exists(in, hg_top);
	w.git_top_existed = !in->host.read || lower_fact_exists(in, top);
	free(hg_top);
	sb_init(&w.report);
	struct host_walk hw = { .max_entries = lower_mask_default_bounds.entries,
				.max_depth = lower_mask_default_bounds.depth,
				.seconds = lower_mask_default_bounds.seconds,
				.visit = visit,
				.unlistable = unlistable,
				.bound = bound_hit,
				.arg = &w };
	host_walk_start(&hw);
	int rc = host_walk_root(&hw, in->workspace);
	if (w.report.len)
		*report = xasprintf("%zu repositor%s (git, Mercurial) in %s that the call made or "
				    "changed name%s programs git or hg runs, and %s disarmed; look "
				    "before you undo it:\n%s",
				    w.disarmed, w.disarmed == 1 ? "y" : "ies", in->workspace,
				    w.disarmed == 1 ? "s" : "", w.disarmed == 1 ? "is" : "are",
				    w.report.buf);
	sb_free(&w.report);
	struct strbuf made;
	sb_init(&made);
	size_t nmade = in->host.read ? move_aside_made(in, &made) : 0;
	if (nmade) {
		char *was = *report;
		*report = xasprintf("%s%zu protected path%s that did not exist at launch the call "
				    "made, and %s moved aside; look before you undo it:\n%s",
				    was ? was : "", nmade, nmade == 1 ? "" : "s",
				    nmade == 1 ? "it is" : "they are", made.buf);
		free(was);
	}
	sb_free(&made);
	if (rc != 0) {
		char *was = *report;
		*report = xasprintf("%sthe repositories nested in %s were not all looked at (%s): "
				    "run git there with --ignore-submodules=all until you have",
				    was ? was : "", in->workspace, w.bound ? w.bound : "the walk stopped");
		free(was);
	}
	if (w.unlisted) {
		char *was = *report;
		*report = xasprintf("%s%zu director%s in %s could not be listed (%s%s): a "
				    "repository in %s was not looked at",
				    was ? was : "", w.unlisted, w.unlisted == 1 ? "y" : "ies",
				    in->workspace, w.first_unlisted, w.unlisted > 1 ? ", ..." : "",
				    w.unlisted == 1 ? "it" : "them");
		free(was);
	}
	free(w.first_unlisted);
	free(w.bound);
	free(top);
	return rc == 0 && !*report ? 0 : -1;
}
