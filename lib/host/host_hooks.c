/* A protection of the workspace's .git/hooks follows core.hooksPath.  git
 * runs the hooks of the directory that setting names (husky's .husky, a
 * project's .githooks, anything), so where it lies in a write root that
 * directory is protected for the call too, as the policy's own .git/hooks
 * is.  The setting is read at launch, from the files git reads it from (the
 * system's, the user's, the repository's .git/config and config.worktree,
 * and every file they include), before the command runs: a change the
 * command makes to a config it may write cannot take the protection away
 * from this call.  Every value read is protected, not only the one git
 * would use: which that is can depend on an includeIf's condition.
 *
 * A file a config includes (include.path, includeIf.*.path) is config
 * too: one in a write root could set core.fsmonitor or a hooks path, and
 * the host's next git command would run it.  It is protected as the
 * config that names it is; a missing one is fenced as an empty file (git
 * reads an empty config as none, and stops at a directory). */
#include "config.h"

#include "base/canon.h"
#include "base/cleanup.h"
#include "lower/lower.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONFIG_MAX (1 << 20) /* a git config larger than this is refused */

/* The text of a config file, malloc'd; NULL with *missing when there is
 * none, NULL with *err when it cannot be read.  A user's or the system's
 * config that may not be read is none, as git takes it (eacces_ok). */
static char *config_text(const char *path, bool eacces_ok, bool *missing, char **err)
{
	*missing = false;
	/* Not blocking on a FIFO's writer: the launch would wait for one. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		if (errno == ENOENT || errno == ENOTDIR || (eacces_ok && errno == EACCES)) {
			*missing = true;
			return NULL;
		}
		*err = xasprintf("cannot read %s for core.hooksPath: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		/* Another call's fence of a missing config: git reads none. */
		fclose(f);
		*missing = true;
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISFIFO(st.st_mode)) {
		fclose(f);
		*err = xasprintf("cannot read %s for core.hooksPath: a FIFO, whose content is "
				 "whatever is written to it when git reads it",
				 path);
		return NULL;
	}
	struct strbuf text;
	char buf[4096];
	size_t n;
	sb_init(&text);
	while (text.len <= CONFIG_MAX && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_add(&text, buf, n);
	bool bad = ferror(f);
	fclose(f);
	if (bad || text.len > CONFIG_MAX) {
		*err = xasprintf("cannot read %s for core.hooksPath: %s", path,
				 bad ? "read error" : "larger than 1 MiB");
		sb_free(&text);
		return NULL;
	}
	return sb_steal(&text);
}

/* A value as git's config parser reads it, from *p to the end of its line
 * (continuations joined); *p moves past it.  As git reads it: CRLF is a
 * line's end, and outside quotes each blank (space, tab, a lone CR)
 * between words is a space, those around the value none. */
static char *config_value(const char **p)
{
	struct strbuf v;
	bool quoted = false;
	size_t keep = 0; /* the length without trailing blanks outside quotes */
	const char *s = *p;
	sb_init(&v);
	for (; *s && *s != '\n'; s++) {
		if (*s == '\r' && s[1] == '\n')
			break; /* a line that ends in CRLF, as git reads it */
		if (*s == '"') {
			quoted = !quoted;
			keep = v.len;
			continue;
		}
		if (!quoted && (*s == '#' || *s == ';'))
			break;
		if (*s == '\\' && s[1]) {
			s++;
			if (*s == '\r' && s[1] == '\n')
				s++; /* a continuation in a CRLF file */
			char c = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s == 'b' ? '\b' : *s;
			if (c != '\n' || *s == 'n')
				sb_addc(&v, c);
			keep = v.len;
			continue;
		}
		bool blank = *s == ' ' || *s == '\t' || *s == '\r';
		if (blank && !quoted) {
			if (v.len)
				sb_addc(&v, ' ');
			continue;
		}
		sb_addc(&v, *s);
		keep = v.len;
	}
	while (*s && *s != '\n')
		s++;
	*p = s;
	v.buf[keep] = '\0';
	v.len = keep;
	return sb_steal(&v);
}

static void seen_push(char ***v, size_t *n, size_t *cap, char *value)
{
	VEC_PUSH(*v, *n, *cap, value);
}

/* A section header from *s (past its '['): the section's name and
 * whether a subsection follows ([diff "x"], or the old [diff.x]); *s
 * moves past the ']' and the blanks after it. */
struct section {
	const char *name;
	size_t len;
	bool sub;
};

static struct section section_header(const char **p)
{
	const char *s = *p;
	struct section sec = { .name = s };
	while (*s && *s != ']' && *s != ' ' && *s != '\t' && *s != '"' && *s != '\n')
		s++;
	sec.len = (size_t)(s - sec.name);
	const char *dot = memchr(sec.name, '.', sec.len);
	if (dot) {
		sec.sub = true;
		sec.len = (size_t)(dot - sec.name);
	}
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '"') {
		sec.sub = true;
		for (s++; *s && *s != '"' && *s != '\n'; s++)
			if (*s == '\\' && s[1] && s[1] != '\n')
				s++;
	}
	while (*s && *s != ']' && *s != '\n')
		s++;
	if (*s == ']')
		s++;
	while (*s == ' ' || *s == '\t')
		s++;
	*p = s;
	return sec;
}

/* Where a value of the table goes in seen (taken over). */
static void seen_value(struct git_config_seen *seen, const char *label, enum git_value_kind kind,
		       char *v)
{
	if (kind == GIT_HOOKS_DIR)
		seen_push(&seen->hooks, &seen->nhooks, &seen->hooks_cap, xstrdup(v));
	else if (kind == GIT_INCLUDE && *v)
		seen_push(&seen->includes, &seen->nincludes, &seen->includes_cap, xstrdup(v));
	struct git_config_value x = { label, v, kind };
	VEC_PUSH(seen->values, seen->nvalues, seen->values_cap, x);
}

void lower_git_config_scan(const char *text, struct git_config_seen *seen)
{
	struct section sec = { "", 0, false };
	if (strncmp(text, "\xef\xbb\xbf", 3) == 0)
		text += 3; /* git skips a UTF-8 byte order mark */
	for (const char *s = text; *s; s += *s == '\n') {
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (*s == '[') {
			s++;
			sec = section_header(&s);
		}
		const char *key = s;
		while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		       (*s >= '0' && *s <= '9') || *s == '-')
			s++;
		size_t klen = (size_t)(s - key);
		enum git_value_kind kind = GIT_RUNS;
		const char *label = klen ? git_key_find(sec.name, sec.len, sec.sub, key,
								  klen, &kind)
					 : NULL;
		while (*s == ' ' || *s == '\t')
			s++;
		/* Any other line, a value continued over lines included: its
		 * continuations are read as the value is. */
		if (*s == '=') {
			s++;
			char *v = config_value(&s);
			if (label)
				seen_value(seen, label, kind, v);
			else
				free(v);
			continue;
		}
		while (*s && *s != '\n')
			s++;
	}
}

void lower_git_config_seen_free(struct git_config_seen *seen)
{
	for (size_t i = 0; i < seen->nhooks; i++)
		free(seen->hooks[i]);
	for (size_t i = 0; i < seen->nincludes; i++)
		free(seen->includes[i]);
	for (size_t i = 0; i < seen->nvalues; i++)
		free(seen->values[i].value);
	free(seen->hooks);
	free(seen->includes);
	free(seen->values);
	memset(seen, 0, sizeof(*seen));
}

/* The last core.hooksPath of the text, malloc'd, or *found as it was. */
void lower_git_config_hooks_path(const char *text, char **found)
{
	struct git_config_seen seen = { 0 };
	lower_git_config_scan(text, &seen);
	if (seen.nhooks) {
		free(*found);
		*found = seen.hooks[--seen.nhooks];
	}
	lower_git_config_seen_free(&seen);
}

/* The protection of path, or NULL: a protected read-only path at or above
 * it. */
static const struct lower_path *protection_of(const struct lower_input *in, const char *path)
{
	for (size_t i = 0; i < in->npaths; i++) {
		const struct lower_path *p = &in->paths[i];
		if (p->why == LOWER_READ_ONLY && p->protect &&
		    (strcmp(p->path, path) == 0 || path_under(path, p->path)))
			return p;
	}
	return NULL;
}

static bool under_write_root(const struct lower_input *in, const char *path)
{
	for (size_t i = 0; i < in->npaths; i++)
		if (in->paths[i].why == LOWER_WRITE_ROOT &&
		    (strcmp(in->paths[i].path, path) == 0 || path_under(path, in->paths[i].path)))
			return true;
	return false;
}

#define INCLUDE_DEPTH 10  /* as deep as git follows includes */
#define CONFIGS_MAX 64    /* files read in all: includes that fan out are refused */

/* A value of the table as read, with the file it was read from. */
struct read_value {
	struct git_config_value v;
	char *from;
};

struct reading {
	struct lower_input *in;
	/* The origins of the protections of .git/hooks and .git/config, or
	 * NULL where the policy has none (not pointers into in->paths, which
	 * each protection added moves). */
	const char *hooks_origin, *config_origin;
	const char *home;
	struct read_value *values; /* every value of the table read */
	size_t nvalues, cap;
	size_t files;
	int rc;
	char **err;
};

/* The file an include names, as git opens it: "~/" from HOME, a relative
 * path from the directory of the file that includes it, as that file was
 * named (not where a symlink took it); malloc'd, or NULL (with *err) when
 * it cannot be resolved. */
static char *include_raw(const char *value, const char *from, const char *home, char **err)
{
	if (value[0] == '~')
		return canon_tilde(value, strlen(value), home, err);
	if (value[0] == '/')
		return xstrdup(value);
	const char *slash = strrchr(from, '/');
	return slash ? xasprintf("%.*s/%s", (int)(slash - from), from, value) : xstrdup(value);
}

/* A symlink on the way to raw that the command could repoint (it lies in
 * a write root, and nothing protects it), malloc'd, or NULL: the host's
 * next git would follow it wherever the command made it point, past any
 * protection of where it pointed at launch. */
static char *repointable_link(const struct reading *r, const char *raw)
{
	for (const char *c = strchr(raw + 1, '/');; c = strchr(c + 1, '/')) {
		size_t end = c ? (size_t)(c - raw) : strlen(raw);
		const char *name = raw + end;
		while (name > raw && name[-1] != '/')
			name--;
		size_t nlen = (size_t)(raw + end - name);
		char *err = NULL, *up = xstrndup(raw, (size_t)(name - raw));
		char *parent = nlen && !(nlen == 1 && name[0] == '.') &&
					       !(nlen == 2 && name[0] == '.' && name[1] == '.')
				       ? canon_path(up, strlen(up), "/", &err)
				       : NULL;
		free(up);
		free(err);
		char *at = parent ? xasprintf("%s/%.*s", strcmp(parent, "/") ? parent : "",
					      (int)nlen, name)
				  : NULL;
		free(parent);
		struct stat st;
		if (at && lstat(at, &st) == 0 && S_ISLNK(st.st_mode) && under_write_root(r->in, at) &&
		    !protection_of(r->in, at))
			return at;
		free(at);
		if (!c)
			return NULL;
	}
}

static char *include_target(struct reading *r, const char *raw, const char *from,
			    const char *value)
{
	char *link = repointable_link(r, raw);
	if (link) {
		*r->err = xasprintf("the git config %s includes '%s' through the symlink %s, which "
				    "the command could point elsewhere: name the file it points to",
				    from, value, link);
		free(link);
		return NULL;
	}
	char *c = canon_path(raw, strlen(raw), "/", r->err);
	if (!c) {
		char *why = *r->err;
		*r->err = xasprintf("the git config %s includes '%s': %s", from, value, why);
		free(why);
	}
	return c;
}

/* An included config in a write root, protected as .git/config is. */
static void protect_config(struct reading *r, const char *path)
{
	if (!r->config_origin || protection_of(r->in, path) || !under_write_root(r->in, path))
		return;
	struct lower_path p = { .path = xstrdup(path), .why = LOWER_READ_ONLY,
				.origin = r->config_origin, .protect = true, .config = true };
	lower_input_add_masks(r->in, &p, 1);
}

/* One config file and what it includes.  0, or -1 with *r->err. */
static int read_config(struct reading *r, const char *path, bool eacces_ok, int depth)
{
	bool missing;
	if (++r->files > CONFIGS_MAX) {
		*r->err = xasprintf("more than %d git config files include one another (at %s)",
				    CONFIGS_MAX, path);
		return -1;
	}
	char *text = config_text(path, eacces_ok, &missing, r->err);
	if (!text)
		return missing ? 0 : -1;
	struct git_config_seen seen = { 0 };
	lower_git_config_scan(text, &seen);
	free(text);
	for (size_t i = 0; i < seen.nvalues; i++) {
		struct read_value x = { seen.values[i], xasprintf("the git config %s", path) };
		VEC_PUSH(r->values, r->nvalues, r->cap, x);
	}
	seen.nvalues = 0;
	int rc = 0;
	for (size_t i = 0; i < seen.nincludes && rc == 0; i++) {
		char *raw = include_raw(seen.includes[i], path, r->home, r->err);
		char *target = raw ? include_target(r, raw, path, seen.includes[i]) : NULL;
		if (!target) {
			free(raw);
			rc = -1;
			break;
		}
		protect_config(r, target);
		/* git names it as it was reached: its own includes are relative
		 * to that name. */
		if (depth < INCLUDE_DEPTH)
			rc = read_config(r, raw, true, depth + 1);
		free(target);
		free(raw);
	}
	lower_git_config_seen_free(&seen);
	return rc;
}

/* The path a value of the table names, as the host's git reaches it: "~"
 * from HOME, a relative path from the top of the work tree (where git
 * runs hooks, aliases, filters and the fsmonitor), malloc'd; NULL with
 * *err. */
static char *named_raw(const struct reading *r, const char *value, char **err)
{
	if (value[0] == '~')
		return canon_tilde(value, strlen(value), r->home, err);
	if (value[0] == '/')
		return xstrdup(value);
	return xasprintf("%s/%s", r->in->workspace, value);
}

/* Protect a path that a value of the table names, where it lies in a
 * write root and nothing protects it yet: the command could otherwise
 * put a program of its own there for the host's git to run.  One reached
 * through a symlink the command could repoint refuses the launch. */
struct naming {
	struct reading *r;
	const struct read_value *x;
};

static void protect_one(void *arg, const char *value)
{
	struct naming *n = arg;
	struct reading *r = n->r;
	if (r->rc != 0)
		return;
	char *why = NULL;
	char *raw = named_raw(r, value, &why);
	char *link = raw ? repointable_link(r, raw) : NULL;
	char *path = raw && !link ? canon_path(raw, strlen(raw), "/", &why) : NULL;
	/* A word of a command this user cannot resolve (~nobody-known, an
	 * ancestor it may not inspect) is none the command can write either. */
	bool word = n->x->v.kind != GIT_HOOKS_DIR && n->x->v.kind != GIT_TEMPLATE_DIR;
	if (!path && !link && word) {
		free(raw);
		free(why);
		return;
	}
	if (!path) {
		*r->err = link ? xasprintf("%s sets %s to '%s', reached through the "
					   "symlink %s, which the command could point elsewhere: "
					   "name the file it points to",
					   n->x->from, n->x->v.label, n->x->v.value, link)
			       : xasprintf("%s sets %s to '%s': %s", n->x->from,
					   n->x->v.label, n->x->v.value, why);
		r->rc = -1;
	} else if (!protection_of(r->in, path) && under_write_root(r->in, path)) {
		bool hooks = n->x->v.kind == GIT_HOOKS_DIR;
		const char *origin = hooks && r->hooks_origin ? r->hooks_origin
				     : r->config_origin	      ? r->config_origin
							      : r->hooks_origin;
		struct lower_path p = { .path = steal_pointer(&path), .why = LOWER_READ_ONLY,
					.origin = origin, .protect = true };
		lower_input_add_masks(r->in, &p, 1);
	}
	free(path);
	free(link);
	free(raw);
	free(why);
}

/* The first line of a small file git reads a path from (.git's "gitdir:
 * X", commondir's "X"), without the line's end; NULL when there is none. */
static char *first_line(const char *path)
{
	bool missing;
	char *err = NULL;
	char *text = config_text(path, false, &missing, &err);
	free(err);
	if (!text)
		return NULL;
	text[strcspn(text, "\r\n")] = '\0';
	return text;
}

/* A path git read from the file `from` (relative to dir), canonical;
 * NULL with r->rc and *r->err when a symlink the command could repoint
 * is on its way, or it cannot be resolved. */
static char *git_pointer(struct reading *r, const char *from, const char *dir, const char *value)
{
	char *raw = value[0] == '/' ? xstrdup(value) : xasprintf("%s/%s", dir, value);
	char *link = repointable_link(r, raw), *why = NULL;
	char *path = link ? NULL : canon_path(raw, strlen(raw), "/", &why);
	if (!path) {
		*r->err = link ? xasprintf("%s names '%s' through the symlink %s, which the "
					   "command could point elsewhere: name the directory it "
					   "points to",
					   from, value, link)
			       : xasprintf("%s names '%s': %s", from, value, why);
		r->rc = -1;
	}
	free(raw);
	free(link);
	free(why);
	return path;
}

/* The workspace's git directory and common directory, as git finds them:
 * .git, the directory a .git file names ("gitdir: X", a linked worktree,
 * a submodule, --separate-git-dir), and the one its commondir names.  A
 * .git that is a symlink in a write root refuses the launch: a symlink
 * cannot be a mount point, so the command could put a directory of its
 * own in its place, with a config the host's next git runs.  0, or -1
 * with *r->err. */
static int git_dirs(struct reading *r, char **gitdir, char **common)
{
	const char *ws = r->in->workspace;
	char *dotgit = xstrcat(ws, "/.git", (char *)NULL);
	struct stat st = { 0 };
	*gitdir = *common = NULL;
	if (lstat(dotgit, &st) != 0)
		st.st_mode = 0;
	if (S_ISLNK(st.st_mode) && under_write_root(r->in, dotgit)) {
		char target[4096];
		ssize_t n = readlink(dotgit, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		*r->err = xasprintf("%s is a symlink (to %s), which the command could replace with "
				    "a git directory whose config runs a program on the host: make "
				    "it a file that says 'gitdir: %s' (git init --separate-git-dir "
				    "makes one)",
				    dotgit, target, target);
		free(dotgit);
		return -1;
	}
	char *line = S_ISREG(st.st_mode) ? first_line(dotgit) : NULL;
	if (line && strncmp(line, "gitdir: ", 8) == 0)
		*gitdir = git_pointer(r, dotgit, ws, line + 8);
	else
		*gitdir = xstrdup(dotgit);
	free(line);
	free(dotgit);
	if (!*gitdir)
		return -1;
	char *at = xstrcat(*gitdir, "/commondir", (char *)NULL);
	line = first_line(at);
	*common = line && *line ? git_pointer(r, at, *gitdir, line) : xstrdup(*gitdir);
	free(line);
	free(at);
	return *common ? 0 : -1;
}

/* What git keeps in the common directory, shared by every worktree
 * (git's path.c, common_list); the rest of a git directory is the
 * worktree's own (commondir, config.worktree, HEAD, index). */
static bool git_common_name(const char *rel)
{
	static const char *const names[] = { "config",	"hooks",    "worktrees",   "modules",
					     "info",	"objects",  "refs",	   "packed-refs",
					     "branches", "remotes", "logs",	   "shallow",
					     "rr-cache", "svn",	    "lost-found", "common" };
	size_t n = strcspn(rel, "/");
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (strlen(names[i]) == n && strncmp(rel, names[i], n) == 0)
			return true;
	return false;
}

/* The policy's protections of ${workspace}/.git/..., given as well to
 * the git directory and the common directory git really uses, where
 * those lie in a write root (a .git file that points into the
 * workspace, a commondir): the host's git reads its config and runs its
 * hooks there. */
static void protect_git_dirs(struct reading *r, const char *gitdir, const char *common)
{
	char *dotgit = xstrcat(r->in->workspace, "/.git", (char *)NULL);
	struct lower_path *add = NULL;
	size_t nadd = 0, cap = 0;
	for (size_t i = 0; i < r->in->npaths; i++) {
		const struct lower_path *p = &r->in->paths[i];
		if (p->why != LOWER_READ_ONLY || !p->protect || !path_under(p->path, dotgit))
			continue;
		const char *rel = p->path + strlen(dotgit) + 1;
		char *at = xasprintf("%s/%s", git_common_name(rel) ? common : gitdir, rel);
		bool config = strcmp(rel, "config") == 0 || strcmp(rel, "config.worktree") == 0;
		struct lower_path x = { .path = at, .why = LOWER_READ_ONLY, .origin = p->origin,
					.protect = true, .config = config };
		VEC_PUSH(add, nadd, cap, x);
	}
	for (size_t i = 0; i < nadd; i++) {
		if (!protection_of(r->in, add[i].path) && under_write_root(r->in, add[i].path))
			lower_input_add_masks(r->in, &add[i], 1);
		else
			free(add[i].path);
	}
	free(add);
	free(dotgit);
}

/* Every path a value read names, protected (includes were, as read). */
static void protect_values(struct reading *r)
{
	for (size_t i = 0; i < r->nvalues; i++) {
		struct naming n = { r, &r->values[i] };
		if (r->rc == 0 && r->values[i].v.kind != GIT_INCLUDE)
			git_value_paths(&r->values[i].v, r->in->workspace, protect_one, &n);
		free(r->values[i].v.value);
		free(r->values[i].from);
	}
	free(r->values);
	r->values = NULL;
	r->nvalues = 0;
}

/* The values of GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n,
 * as git reads them from the environment of the host's git: a key of the
 * table among them is read as a config's. */
static void read_env_config(struct reading *r)
{
	const char *count = getenv("GIT_CONFIG_COUNT");
	long n = count ? strtol(count, NULL, 10) : 0;
	for (long i = 0; i < n && i < 1000; i++) {
		char name[64];
		snprintf(name, sizeof(name), "GIT_CONFIG_KEY_%ld", i);
		const char *key = getenv(name);
		snprintf(name, sizeof(name), "GIT_CONFIG_VALUE_%ld", i);
		const char *value = getenv(name);
		const char *dot = key ? strchr(key, '.') : NULL, *last = key ? strrchr(key, '.') : NULL;
		enum git_value_kind kind;
		const char *label = dot && value
					    ? git_key_find(key, (size_t)(dot - key), dot != last,
								    last + 1, strlen(last + 1), &kind)
					    : NULL;
		if (!label)
			continue;
		struct read_value x = { { label, xstrdup(value), kind }, xstrdup("the environment (GIT_CONFIG_COUNT)") };
		VEC_PUSH(r->values, r->nvalues, r->cap, x);
	}
}

/* The protection of a path of the workspace's .git, as written or as
 * resolved (a .git that is a symlink into the workspace). */
static const struct lower_path *guard_of(const struct lower_input *in, const char *path)
{
	const struct lower_path *p = protection_of(in, path);
	char *why = NULL, *c = p ? NULL : canon_path(path, strlen(path), "/", &why);
	if (c)
		p = protection_of(in, c);
	free(c);
	free(why);
	return p;
}

/* Whether the workspace's .git/config resolves outside every write root
 * (a .git that is a symlink out of the workspace): the command cannot
 * write it, but could replace the link. */
static bool config_outside(const struct lower_input *in, const char *path)
{
	char *why = NULL, *c = canon_path(path, strlen(path), "/", &why);
	bool out = c && !under_write_root(in, c);
	free(c);
	free(why);
	return out;
}

/* The environment variables that name what git runs (GIT_EDITOR,
 * GIT_TEMPLATE_DIR, ...), as the host's git would read them. */
static void read_env_programs(struct reading *r)
{
	enum git_value_kind kind;
	const char *name;
	for (size_t i = 0; (name = git_env_program_at(i, &kind)); i++) {
		const char *value = getenv(name);
		if (!value || !*value)
			continue;
		struct read_value x = { { name, xstrdup(value), kind }, xstrdup("the environment") };
		VEC_PUSH(r->values, r->nvalues, r->cap, x);
	}
}

int lower_protect_hooks_path(struct lower_input *in, char **err)
{
	if (!in->restricted || !in->workspace)
		return 0;
	char *hooks = xstrcat(in->workspace, "/.git/hooks", (char *)NULL);
	char *repo = xstrcat(in->workspace, "/.git/config", (char *)NULL);
	const struct lower_path *hooks_guard = guard_of(in, hooks);
	const struct lower_path *config_guard = guard_of(in, repo);
	struct reading r = { .in = in, .hooks_origin = hooks_guard ? hooks_guard->origin : NULL,
			     .config_origin = config_guard ? config_guard->origin : NULL,
			     .home = getenv("HOME"), .err = err };
	bool outside = config_outside(in, repo);
	free(hooks);
	free(repo);
	if (!hooks_guard && !config_guard && !outside)
		return 0; /* the policy leaves the hooks and the config writable */
	char *gitdir, *common;
	if (git_dirs(&r, &gitdir, &common) != 0)
		return -1;
	if (!hooks_guard && !config_guard) {
		free(gitdir); /* nothing to protect: only a .git link to refuse */
		free(common);
		return 0;
	}
	protect_git_dirs(&r, gitdir, common);
	repo = xstrcat(common, "/config", (char *)NULL);
	char *worktree = xstrcat(gitdir, "/config.worktree", (char *)NULL);
	const char *home = r.home, *xdg = getenv("XDG_CONFIG_HOME");
	const char *sys_env = getenv("GIT_CONFIG_SYSTEM"), *glob_env = getenv("GIT_CONFIG_GLOBAL");
	char *sys = xstrdup("/etc/gitconfig");
	char *xdgc = xdg && *xdg ? xstrcat(xdg, "/git/config", (char *)NULL)
		     : home	 ? xstrcat(home, "/.config/git/config", (char *)NULL)
				 : NULL;
	char *user = home ? xstrcat(home, "/.gitconfig", (char *)NULL) : NULL;
	bool env = (sys_env && *sys_env) || (glob_env && *glob_env);
	/* The files git reads by default; then, where the environment names
	 * others (GIT_CONFIG_SYSTEM, GIT_CONFIG_GLOBAL), as git reads with it:
	 * the host's git may run with or without it.  config.worktree is read
	 * whether or not extensions.worktreeConfig asks for it. */
	const char *readings[2][5] = {
		{ sys, xdgc, user, repo, worktree },
		{ sys_env && *sys_env ? sys_env : sys, glob_env && *glob_env ? glob_env : xdgc,
		  glob_env && *glob_env ? NULL : user, repo, worktree },
	};
	int rc = 0;
	for (size_t k = 0; k < (env ? 2u : 1u); k++) {
		r.files = 0; /* the bound is a reading's: the second reads the same repository */
		for (size_t i = 0; i < 5 && rc == 0; i++)
			if (readings[k][i])
				rc = read_config(&r, readings[k][i], i < 3, 0);
	}
	read_env_config(&r);
	read_env_programs(&r);
	free(sys);
	free(xdgc);
	free(user);
	free(repo);
	free(worktree);
	free(gitdir);
	free(common);
	r.rc = rc;
	protect_values(&r);
	return r.rc;
}
