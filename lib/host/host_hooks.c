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

enum section { SEC_OTHER, SEC_CORE, SEC_INCLUDE };

static void seen_push(char ***v, size_t *n, size_t *cap, char *value)
{
	VEC_PUSH(*v, *n, *cap, value);
}

void lower_git_config_scan(const char *text, struct git_config_seen *seen)
{
	enum section sec = SEC_OTHER;
	if (strncmp(text, "\xef\xbb\xbf", 3) == 0)
		text += 3; /* git skips a UTF-8 byte order mark */
	for (const char *s = text; *s; s += *s == '\n') {
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (*s == '[') {
			const char *name = ++s;
			while (*s && *s != ']' && *s != ' ' && *s != '\t' && *s != '"' && *s != '\n')
				s++;
			size_t n = (size_t)(s - name);
			/* [core] and [include] without a subsection; [includeIf "..."]
			 * with any condition (each is followed: see above). */
			sec = n == 4 && strncasecmp(name, "core", 4) == 0 && *s == ']' ? SEC_CORE
			      : n == 7 && strncasecmp(name, "include", 7) == 0 && *s == ']'
				      ? SEC_INCLUDE
			      : n == 9 && strncasecmp(name, "includeif", 9) == 0 ? SEC_INCLUDE
										 : SEC_OTHER;
			while (*s && *s != ']' && *s != '\n')
				s++;
			if (*s == ']')
				s++;
			while (*s == ' ' || *s == '\t')
				s++;
		}
		const char *key = s;
		while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		       (*s >= '0' && *s <= '9') || *s == '-')
			s++;
		size_t klen = (size_t)(s - key);
		bool hooks = sec == SEC_CORE && klen == 9 && strncasecmp(key, "hookspath", 9) == 0;
		bool include = sec == SEC_INCLUDE && klen == 4 && strncasecmp(key, "path", 4) == 0;
		while (*s == ' ' || *s == '\t')
			s++;
		/* Any other line, a value continued over lines included: its
		 * continuations are read as the value is. */
		if (*s == '=') {
			s++;
			char *v = config_value(&s);
			if (hooks)
				seen_push(&seen->hooks, &seen->nhooks, &seen->hooks_cap, v);
			else if (include && *v)
				seen_push(&seen->includes, &seen->nincludes, &seen->includes_cap, v);
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
	free(seen->hooks);
	free(seen->includes);
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

/* Protect the hooks directory value names for the call, where it lies in
 * a write root and nothing protects it yet.  0, or -1 with *err. */
static int protect_hooks_dir(struct lower_input *in, const char *origin, const char *value,
			     const char *home, char **err)
{
	/* Relative to the top of the work tree, where git runs hooks. */
	char *path = value[0] == '~' ? canon_tilde(value, strlen(value), home, err)
				     : canon_path(value, strlen(value), in->workspace, err);
	if (path && value[0] == '~') {
		char *c = canon_path(path, strlen(path), in->workspace, err);
		free(path);
		path = c;
	}
	if (!path) {
		char *why = *err;
		*err = xasprintf("core.hooksPath '%s': %s", value, why);
		free(why);
		return -1;
	}
	if (protection_of(in, path) || !under_write_root(in, path)) {
		free(path);
		return 0;
	}
	struct lower_path p = { .path = path, .why = LOWER_READ_ONLY, .origin = origin,
				.protect = true };
	lower_input_add_masks(in, &p, 1);
	return 0;
}

#define INCLUDE_DEPTH 10  /* as deep as git follows includes */
#define CONFIGS_MAX 64    /* files read in all: includes that fan out are refused */

struct reading {
	struct lower_input *in;
	/* The origins of the protections of .git/hooks and .git/config, or
	 * NULL where the policy has none (not pointers into in->paths, which
	 * each protection added moves). */
	const char *hooks_origin, *config_origin;
	const char *home;
	char **values; /* every core.hooksPath read */
	size_t nvalues, cap;
	size_t files;
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
	for (size_t i = 0; i < seen.nhooks; i++)
		VEC_PUSH(r->values, r->nvalues, r->cap, seen.hooks[i]);
	seen.nhooks = 0;
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

int lower_protect_hooks_path(struct lower_input *in, char **err)
{
	if (!in->restricted || !in->workspace)
		return 0;
	char *hooks = xstrcat(in->workspace, "/.git/hooks", (char *)NULL);
	char *repo = xstrcat(in->workspace, "/.git/config", (char *)NULL);
	char *worktree = xstrcat(in->workspace, "/.git/config.worktree", (char *)NULL);
	const struct lower_path *hooks_guard = protection_of(in, hooks);
	const struct lower_path *config_guard = protection_of(in, repo);
	struct reading r = { .in = in, .hooks_origin = hooks_guard ? hooks_guard->origin : NULL,
			     .config_origin = config_guard ? config_guard->origin : NULL,
			     .home = getenv("HOME"), .err = err };
	free(hooks);
	if (!hooks_guard && !config_guard) {
		free(repo);
		free(worktree);
		return 0; /* the policy leaves the hooks and the config writable */
	}
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
	free(sys);
	free(xdgc);
	free(user);
	free(repo);
	free(worktree);
	for (size_t i = 0; i < r.nvalues; i++) {
		if (rc == 0 && r.hooks_origin && *r.values[i])
			rc = protect_hooks_dir(in, r.hooks_origin, r.values[i], home, err);
		free(r.values[i]);
	}
	free(r.values);
	return rc;
}
