/* A protection of the workspace's .git/hooks follows core.hooksPath.  git
 * runs the hooks of the directory that setting names (husky's .husky, a
 * project's .githooks, anything), so where it lies in a write root that
 * directory is protected for the call too, as the policy's own .git/hooks
 * is.  The setting is read at launch, from the files git reads it from (the
 * system's, the user's, the repository's .git/config; the last one wins),
 * before the command runs: a change the command makes to a config it may
 * write cannot take the protection away from this call. */
#include "config.h"

#include "base/canon.h"
#include "lower/lower.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define CONFIG_MAX (1 << 20) /* a git config larger than this is refused */

/* The text of a config file, malloc'd; NULL with *missing when there is
 * none, NULL with *err when it cannot be read.  A user's or the system's
 * config that may not be read is none, as git takes it (eacces_ok). */
static char *config_text(const char *path, bool eacces_ok, bool *missing, char **err)
{
	*missing = false;
	FILE *f = fopen(path, "re");
	if (!f) {
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
	char *text = xmalloc(CONFIG_MAX + 1);
	size_t n = fread(text, 1, CONFIG_MAX + 1, f);
	bool bad = ferror(f);
	fclose(f);
	if (bad || n > CONFIG_MAX) {
		*err = xasprintf("cannot read %s for core.hooksPath: %s", path,
				 bad ? "read error" : "larger than 1 MiB");
		free(text);
		return NULL;
	}
	text[n] = '\0';
	return text;
}

/* A value as git's config parser reads it, from *p to the end of its line
 * (continuations joined); *p moves past it. */
static char *config_value(const char **p)
{
	struct strbuf v;
	bool quoted = false;
	size_t keep = 0; /* the length without trailing blanks outside quotes */
	const char *s = *p;
	sb_init(&v);
	while (*s == ' ' || *s == '\t')
		s++;
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
			char c = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s == 'b' ? '\b' : *s;
			if (c != '\n')
				sb_addc(&v, c);
			keep = v.len;
			continue;
		}
		sb_addc(&v, *s);
		if (quoted || (*s != ' ' && *s != '\t'))
			keep = v.len;
	}
	while (*s && *s != '\n')
		s++;
	*p = s;
	v.buf[keep] = '\0';
	v.len = keep;
	return sb_steal(&v);
}

/* The last core.hooksPath of the text, malloc'd, or *found as it was. */
void lower_git_config_hooks_path(const char *text, char **found)
{
	bool core = false;
	if (strncmp(text, "\xef\xbb\xbf", 3) == 0)
		text += 3; /* git skips a UTF-8 byte order mark */
	for (const char *s = text; *s; s += *s == '\n') {
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (*s == '[') {
			const char *name = ++s;
			while (*s && *s != ']' && *s != ' ' && *s != '"' && *s != '\n')
				s++;
			core = (size_t)(s - name) == 4 && strncasecmp(name, "core", 4) == 0 &&
			       *s == ']';
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
		bool ours = core && (size_t)(s - key) == 9 && strncasecmp(key, "hookspath", 9) == 0;
		while (*s == ' ' || *s == '\t')
			s++;
		if (ours && *s == '=') {
			s++;
			free(*found);
			*found = config_value(&s);
			continue;
		}
		/* Any other line, a value continued over lines included: its
		 * continuations are read as the value is. */
		if (*s == '=') {
			s++;
			free(config_value(&s));
		}
		while (*s && *s != '\n')
			s++;
	}
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
static int protect_hooks_dir(struct lower_input *in, const struct lower_path *guard,
			     const char *value, const char *home, char **err)
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
	struct lower_path p = { .path = path, .why = LOWER_READ_ONLY, .origin = guard->origin,
				.protect = true };
	lower_input_add_masks(in, &p, 1);
	return 0;
}

int lower_protect_hooks_path(struct lower_input *in, char **err)
{
	if (!in->restricted || !in->workspace)
		return 0;
	char *hooks = xstrcat(in->workspace, "/.git/hooks", (char *)NULL);
	const struct lower_path *guard = protection_of(in, hooks);
	free(hooks);
	if (!guard)
		return 0; /* the policy leaves the hooks writable */
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	const char *sys_env = getenv("GIT_CONFIG_SYSTEM"), *glob_env = getenv("GIT_CONFIG_GLOBAL");
	char *sys = xstrdup("/etc/gitconfig");
	char *xdgc = xdg && *xdg ? xstrcat(xdg, "/git/config", (char *)NULL)
		     : home	 ? xstrcat(home, "/.config/git/config", (char *)NULL)
				 : NULL;
	char *user = home ? xstrcat(home, "/.gitconfig", (char *)NULL) : NULL;
	char *repo = xstrcat(in->workspace, "/.git/config", (char *)NULL);
	bool env = (sys_env && *sys_env) || (glob_env && *glob_env);
	/* The files git reads by default; then, where the environment names
	 * others (GIT_CONFIG_SYSTEM, GIT_CONFIG_GLOBAL), as git reads with it:
	 * the host's git may run with or without it, so the last value of
	 * each reading is protected.  The workspace's comes last in both. */
	const char *readings[2][4] = {
		{ sys, xdgc, user, repo },
		{ sys_env && *sys_env ? sys_env : sys, glob_env && *glob_env ? glob_env : xdgc,
		  glob_env && *glob_env ? NULL : user, repo },
	};
	char *value[2] = { NULL, NULL };
	int rc = 0;
	for (size_t r = 0; r < (env ? 2u : 1u); r++) {
		for (size_t i = 0; i < 4 && rc == 0; i++) {
			const char *f = readings[r][i];
			bool missing;
			char *text = f ? config_text(f, i < 3, &missing, err) : NULL;
			if (text)
				lower_git_config_hooks_path(text, &value[r]);
			else if (f && !missing)
				rc = -1;
			free(text);
		}
	}
	free(sys);
	free(xdgc);
	free(user);
	free(repo);
	for (size_t r = 0; r < 2 && rc == 0; r++)
		if (value[r] && *value[r])
			rc = protect_hooks_dir(in, guard, value[r], home, err);
	free(value[0]);
	free(value[1]);
	return rc;
}
