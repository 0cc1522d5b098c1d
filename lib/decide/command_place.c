/* Where a program goes when its words or its environment say so: a
 * package manager's registry (npm --registry, pip -i, GOPROXY) and the
 * repository a git command fetches from or pushes to.  What names the
 * place replaces the spec's `net` hosts (all of them, or the one the
 * role names); a place that cannot be known before the command runs is a
 * host known only at run time, never a guess. */
#include "config.h"

#include "command_int.h"
#include "base/canon.h"
#include "base/git_config.h"

#include <errno.h>
#include <fnmatch.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONFIG_MAX (1 << 20) /* a git config larger than this is not read */

/* ---- registries ----------------------------------------------------------- */

/* The spec's host `replaces` (NULL: all of them) is not contacted. */
static void replace(struct reading *r, const char *replaces)
{
	const size_t max = sizeof(r->replaced) / sizeof(*r->replaced);
	if (!replaces) {
		r->replaced_all = true;
		return;
	}
	for (size_t k = 0; k < r->nreplaced; k++)
		if (strcmp(r->replaced[k], replaces) == 0)
			return;
	if (r->nreplaced < max)
		r->replaced[r->nreplaced++] = replaces;
	else
		r->replaced_all = true; /* more than it keeps: the stricter reading */
}

bool ca_replaced(const struct reading *r, const char *host)
{
	if (r->replaced_all)
		return true;
	for (size_t k = 0; k < r->nreplaced; k++)
		if (strcmp(r->replaced[k], host) == 0)
			return true;
	return false;
}

/* A registry's value v (NULL: known only at run time): a URL or a host,
 * or a list of them split at ',' or '|' (GOPROXY) or blanks
 * (PIP_EXTRA_INDEX_URL), where `direct` is the
 * module's own host, known only at run time, and `off` is none. */
static void registry_value(struct reading *r, const char *v, const char *shown, const char *by)
{
	if (!v || !v[strspn(v, ",| \t\n")]) {
		/* An empty value may mean the default, or an error: unknown. */
		ca_add_net(r->out, r->c, NULL, shown,
			   ca_printf(r->out, "network (%s %s: %s)", r->prog, by,
				     v ? "an empty value" : "a value known only at run time"));
		return;
	}
	for (const char *p = v; *p;) {
		size_t n = strcspn(p, ",| \t\n");
		char *el = xstrndup(p, n);
		p += n + (p[n] != '\0');
		if (!*el || strcmp(el, "off") == 0) {
			free(el);
			continue;
		}
		if (strcmp(el, "direct") == 0) {
			ca_add_net(r->out, r->c, NULL, "direct",
				   ca_printf(r->out, "network (%s %s: direct, each module's own host, "
					     "known only at run time)", r->prog, by));
			free(el);
			continue;
		}
		char *h = ca_host_of(el);
		ca_add_net(r->out, r->c, h, ca_keep(r->out, el),
			   ca_printf(r->out, "network (%s %s names it)", r->prog, by));
		free(h);
		free(el);
	}
}

void ca_registry_word(struct reading *r, const struct shell_word *w, const char *by,
		      const char *replaces)
{
	replace(r, replaces);
	registry_value(r, shell_word_static(w), ca_word_source(r->out, r->text, w), by);
}

/* The value the command gives variable name: a prefix assignment
 * (NAME=V prog) or env's (env NAME=V prog).  *set: it is given; NULL
 * then: known only at run time. */
static const char *assigned(const struct reading *r, const char *name, bool *set)
{
	const struct shell_cmd *c = r->c;
	const char *v = NULL;
	*set = false;
	for (size_t i = 0; i < c->nassigns; i++)
		if (strcmp(c->assigns[i]->name, name) == 0) {
			*set = true;
			v = c->assigns[i]->append ? NULL : shell_word_static(c->assigns[i]->value);
		}
	size_t n = strlen(name);
	for (size_t k = 0; k < c->nwrappers; k++) {
		const struct shell_wrapper *wr = &c->wrappers[k];
		const char *base = strrchr(wr->name, '/');
		if (strcmp(base ? base + 1 : wr->name, "env") != 0)
			continue;
		for (size_t i = 1; i < wr->nwords; i++) {
			const char *s = shell_word_static(wr->words[i]);
			if (!s) {
				*set = true; /* a word known only at run time may assign it */
				v = NULL;
				continue;
			}
			if (strncmp(s, name, n) == 0 && s[n] == '=') {
				*set = true;
				v = s + n + 1;
			}
		}
	}
	return v;
}

/* The spec's `getenv "NAME" ROLE;` items: the variables the command gives
 * a value, those the preset's env block sets, and, named anywhere in
 * the command (export NAME=...), a value known only at run time.  A
 * variable only the host's environment may hold is not known here. */
static void env_places(struct reading *r, const struct ir_spec *s)
{
	const struct cmd_env *env = r->env;
	for (size_t i = 0; i < s->nenvs; i++) {
		const struct ir_option *e = &s->envs[i];
		for (size_t j = 0; j < e->nnames; j++) {
			const char *name = e->names[j], *v = NULL;
			bool set;
			v = assigned(r, name, &set);
			for (size_t k = 0; k < env->nvars && !set; k++)
				if (strcmp(env->vars[k].name, name) == 0) {
					v = env->vars[k].value;
					set = true;
				}
			if (!set && !ca_mentions(r->text, env->text_len, name, strlen(name)))
				continue;
			const char *by = ca_printf(r->out, "$%s", name);
			if (e->role == ROLE_REGISTRY)
				replace(r, e->path);
			registry_value(r, v, v ? ca_printf(r->out, "%s=%s", name, v) : by, by);
		}
	}
}

/* ---- git's config --------------------------------------------------------- */

struct entry {
	char *section, *sub, *key, *value;
};

struct gitcfg {
	struct entry *v;
	size_t n, cap;
	const char *file; /* the file being read */
	char *why;        /* why where it goes cannot be known, or NULL */
	char *top;        /* the working tree's top, NULL outside a repository */
	char *gitdir;
};

static void unsure(struct gitcfg *g, char *why)
{
	if (!g->why)
		g->why = why;
	else
		free(why);
}

static int collect(void *arg, const char *section, const char *sub, const char *key,
		   const char *value)
{
	struct gitcfg *g = arg;
	if ((strcmp(section, "include") == 0 || strcmp(section, "includeif") == 0) &&
	    strcmp(key, "path") == 0)
		unsure(g, xasprintf("%s includes another file of config", g->file));
	if ((strcmp(section, "http") == 0 || strcmp(section, "remote") == 0) &&
	    strcmp(key, "proxy") == 0)
		unsure(g, xasprintf("%s names a proxy git goes through", g->file));
	if (strcmp(section, "remote") == 0 && strcmp(key, "vcs") == 0)
		unsure(g, xasprintf("%s hands a remote to a helper program (remote.*.vcs)", g->file));
	struct entry e = { xstrdup(section), sub ? xstrdup(sub) : NULL, xstrdup(key),
			   value ? xstrdup(value) : NULL };
	VEC_PUSH(g->v, g->n, g->cap, e);
	return 0;
}

/* The text of a file of at most 1 MiB, malloc'd (len bytes); NULL with
 * *missing when there is none, NULL with *err (malloc'd) when it cannot
 * be read.  nofollow: a link is not followed (its target may lie
 * anywhere). */
static char *small_file(const char *path, bool nofollow, bool *missing, size_t *len, char **err)
{
	*missing = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			*missing = true;
			return NULL;
		}
		*err = errno == ELOOP && nofollow
			       ? xasprintf("%s is a symbolic link", path)
			       : xasprintf("%s cannot be read: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > CONFIG_MAX) {
		*err = xasprintf("%s is not a regular file of at most 1 MiB", path);
		close(fd);
		return NULL;
	}
	struct strbuf sb;
	char buf[4096];
	ssize_t n;
	sb_init(&sb);
	while (sb.len <= CONFIG_MAX && (n = read(fd, buf, sizeof(buf))) > 0)
		sb_add(&sb, buf, (size_t)n);
	bool bad = n < 0 || sb.len > CONFIG_MAX;
	close(fd);
	if (bad) {
		*err = xasprintf("%s cannot be read", path);
		sb_free(&sb);
		return NULL;
	}
	*len = sb.len;
	return sb_steal(&sb);
}

static char *file_text(struct gitcfg *g, const char *path, bool nofollow, bool *missing,
		       size_t *len)
{
	char *err = NULL;
	char *text = small_file(path, nofollow, missing, len, &err);
	if (err)
		unsure(g, err);
	return text;
}

static void read_config(struct gitcfg *g, const char *path, bool nofollow)
{
	bool missing;
	size_t len = 0;
	char *text = file_text(g, path, nofollow, &missing, &len);
	if (!text)
		return;
	g->file = path;
	if (git_config_parse(text, len, collect, g) < 0)
		unsure(g, xasprintf("git would refuse %s", path));
	free(text);
}

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR);
}

/* The repository of the directory dir: the nearest .git directory at or
 * above it.  A .git that is a file (a linked worktree, a submodule) or a
 * link, and a directory that may be a repository itself (a bare one, or
 * inside a .git), leave where it goes unknown. */
static void find_repository(struct gitcfg *g, const char *dir)
{
	char *d = xstrdup(dir);
	for (;;) {
		char *dotgit = xasprintf("%s/.git", strcmp(d, "/") != 0 ? d : "");
		char *head = xasprintf("%s/HEAD", strcmp(d, "/") != 0 ? d : "");
		struct stat st;
		bool here = lstat(dotgit, &st) == 0;
		if (here && S_ISDIR(st.st_mode)) {
			g->gitdir = dotgit;
			g->top = d;
			free(head);
			return;
		}
		if (here || (errno != ENOENT && errno != ENOTDIR))
			unsure(g, xasprintf("%s is not a directory git's config can be read from", dotgit));
		else if (exists(head))
			unsure(g, xasprintf("%s may be a repository of its own (it holds HEAD)", d));
		free(dotgit);
		free(head);
		if (g->why || strcmp(d, "/") == 0)
			break;
		char *slash = strrchr(d, '/');
		if (slash == d)
			d[1] = '\0';
		else
			*slash = '\0';
	}
	free(d);
}

/* git's config as the command will read it: the system's, the user's
 * (~/.config/git/config, ~/.gitconfig) and, in a repository, its own. */
static void load_config(struct gitcfg *g, const struct reading *r, bool repository)
{
	const char *home = r->env->home;
	if (!home) {
		unsure(g, xstrdup("the home directory, whose ~/.gitconfig git reads, is unknown"));
		return;
	}
	read_config(g, "/etc/gitconfig", false);
	char *xdg = xasprintf("%s/.config/git/config", home);
	char *user = xasprintf("%s/.gitconfig", home);
	read_config(g, xdg, false);
	read_config(g, user, false);
	free(xdg);
	free(user);
	if (!repository)
		return;
	if (!r->dir) {
		unsure(g, xstrdup("the directory it runs in is known only at run time"));
		return;
	}
	find_repository(g, r->dir);
	if (!g->gitdir)
		return;
	char *worktree = xasprintf("%s/config.worktree", g->gitdir);
	char *common = xasprintf("%s/commondir", g->gitdir);
	if (exists(worktree) || exists(common))
		unsure(g, xasprintf("%s has a config of its worktree", g->gitdir));
	free(worktree);
	free(common);
	char *local = xasprintf("%s/config", g->gitdir);
	read_config(g, local, true);
	free(local);
}

static void config_free(struct gitcfg *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].section);
		free(g->v[i].sub);
		free(g->v[i].key);
		free(g->v[i].value);
	}
	free(g->v);
	free(g->why);
	free(g->top);
	free(g->gitdir);
}

static bool is(const struct entry *e, const char *section, const char *sub, const char *key)
{
	return strcmp(e->section, section) == 0 && strcmp(e->key, key) == 0 &&
	       (sub ? e->sub && strcmp(e->sub, sub) == 0 : !e->sub);
}

/* The last value of section.sub.key, or NULL. */
static const char *last_value(const struct gitcfg *g, const char *section, const char *sub,
			      const char *key)
{
	const char *v = NULL;
	for (size_t i = 0; i < g->n; i++)
		if (is(&g->v[i], section, sub, key))
			v = g->v[i].value ? g->v[i].value : "";
	return v;
}

/* url rewritten by the url.BASE.KEY (insteadOf, pushInsteadOf) with the
 * longest value that starts it, malloc'd; NULL when none does. */
static char *rewrite(struct gitcfg *g, const char *url, const char *key)
{
	const struct entry *best = NULL;
	size_t blen = 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct entry *e = &g->v[i];
		if (strcmp(e->section, "url") != 0 || !e->sub || strcmp(e->key, key) != 0)
			continue;
		if (!e->value) {
			unsure(g, xasprintf("url.%s.%s has no value", e->sub, key));
			return NULL;
		}
		size_t n = strlen(e->value);
		if (strncmp(url, e->value, n) != 0)
			continue;
		if (best && n == blen && strcmp(best->sub, e->sub) != 0)
			unsure(g, xasprintf("two url.*.%s rewrite %s alike", key, url));
		if (!best || n > blen) {
			best = e;
			blen = n;
		}
	}
	return best ? xasprintf("%s%s", best->sub, url + blen) : NULL;
}

static bool valid_nick(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

/* The branch HEAD names (ref: refs/heads/NAME), malloc'd, or NULL. */
static char *current_branch(struct gitcfg *g)
{
	char *path = xasprintf("%s/HEAD", g->gitdir);
	bool missing;
	size_t len = 0;
	char *text = file_text(g, path, true, &missing, &len);
	free(path);
	char *branch = NULL;
	if (text && strncmp(text, "ref: refs/heads/", 16) == 0)
		branch = xstrndup(text + 16, strcspn(text + 16, "\r\n"));
	free(text);
	return branch;
}

/* The remote a command without one goes to, as git picks it: the
 * branch's pushRemote and remote.pushDefault for a push, the branch's
 * remote, the only remote there is, origin. */
static char *default_remote(struct gitcfg *g, bool push)
{
	char *branch = g->gitdir ? current_branch(g) : NULL;
	const char *v = NULL;
	if (push && branch)
		v = last_value(g, "branch", branch, "pushremote");
	if (push && !v)
		v = last_value(g, "remote", NULL, "pushdefault");
	if (!v && branch)
		v = last_value(g, "branch", branch, "remote");
	free(branch);
	if (v)
		return xstrdup(v);
	const char *only = NULL;
	for (size_t i = 0; i < g->n; i++) {
		const struct entry *e = &g->v[i];
		if (strcmp(e->section, "remote") != 0 || !e->sub)
			continue;
		if (only && strcmp(only, e->sub) != 0)
			return xstrdup("origin");
		only = e->sub;
	}
	return xstrdup(only ? only : "origin");
}

struct urls {
	char **v;
	size_t n, cap;
};

static void urls_free(struct urls *u)
{
	for (size_t i = 0; i < u->n; i++)
		free(u->v[i]);
	free(u->v);
	memset(u, 0, sizeof(*u));
}

/* The URLs git goes to for name, a remote or a URL, as remote.c finds
 * them: the remote's url and pushurl values or the name itself, each
 * rewritten by insteadOf, and for a push without a pushurl the urls a
 * pushInsteadOf rewrites.  A fetch goes to the first url; a push to the
 * pushurls, else to every url. */
static void remote_urls(struct gitcfg *g, const char *name, bool push, bool clone,
			struct urls *out)
{
	struct urls urls = { 0 }, pushurls = { 0 };
	if (!clone && valid_nick(name)) {
		for (size_t i = 0; i < g->n; i++) {
			const struct entry *e = &g->v[i];
			bool url = is(e, "remote", name, "url"), pushurl = is(e, "remote", name, "pushurl");
			if ((url || pushurl) && !e->value)
				unsure(g, xasprintf("remote.%s.%s has no value", name, e->key));
			else if (url)
				VEC_PUSH(urls.v, urls.n, urls.cap, xstrdup(e->value));
			else if (pushurl)
				VEC_PUSH(pushurls.v, pushurls.n, pushurls.cap, xstrdup(e->value));
		}
		if (!urls.n)
			unsure(g, xasprintf("no remote '%s' is configured", name));
	}
	if (!urls.n)
		VEC_PUSH(urls.v, urls.n, urls.cap, xstrdup(name));
	for (size_t i = 0; i < pushurls.n; i++) {
		char *w = rewrite(g, pushurls.v[i], "insteadof");
		if (w) {
			free(pushurls.v[i]);
			pushurls.v[i] = w;
		}
	}
	bool aliases = pushurls.n == 0;
	for (size_t i = 0; i < urls.n; i++) {
		char *p = aliases ? rewrite(g, urls.v[i], "pushinsteadof") : NULL;
		if (p)
			VEC_PUSH(pushurls.v, pushurls.n, pushurls.cap, p);
		char *w = rewrite(g, urls.v[i], "insteadof");
		if (w) {
			free(urls.v[i]);
			urls.v[i] = w;
		}
	}
	struct urls *use = push && pushurls.n ? &pushurls : &urls;
	*out = *use;
	memset(use, 0, sizeof(*use));
	if (!push)
		while (out->n > 1)
			free(out->v[--out->n]);
	urls_free(&urls);
	urls_free(&pushurls);
}

static bool host_chars(const char *h, size_t n)
{
	if (!n || h[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_", h[i]))
			return false;
	return true;
}

/* What going to url is: a contact of HOST:PORT, a local repository
 * (a path, file://), or unknown (a transport helper, X::ADDRESS, a
 * scheme git hands to a helper, a host it cannot read). */
static void url_contact(struct reading *r, struct gitcfg *g, const char *url, const char *base,
			bool push, const char *what)
{
	static const char *const schemes[] = { "https", "http", "ssh", "git", "git+ssh",
					       "ssh+git", "ftp", "ftps" };
	const char *slash = strchr(url, '/'), *colon = strchr(url, ':');
	const char *sep = strstr(url, "://"), *helper = strstr(url, "::");
	const char *path = NULL;
	if (sep && (!slash || sep < slash)) {
		size_t n = (size_t)(sep - url);
		if (n == 4 && strncasecmp(url, "file", 4) == 0) {
			if (sep[3] != '/') {
				unsure(g, xasprintf("%s names a host for a file URL", url));
				return;
			}
			path = sep + 3;
		} else {
			bool known = false;
			for (size_t i = 0; i < ARRAY_SIZE(schemes) && !known; i++)
				known = strlen(schemes[i]) == n && strncasecmp(url, schemes[i], n) == 0;
			char *h = known ? ca_host_of(url) : NULL;
			if (!h) {
				unsure(g, xasprintf(known ? "the host of %s cannot be read"
							  : "git hands %s to a helper program",
						    url));
				return;
			}
			ca_add_net(r->out, r->c, h, ca_keep(r->out, url),
				   ca_printf(r->out, "network (%s %s)", r->prog, what));
			free(h);
			return;
		}
	} else if (helper && (!slash || helper < slash)) {
		unsure(g, xasprintf("git hands %s to a helper program", url));
		return;
	} else if (colon && (!slash || colon < slash)) {
		/* [USER@]HOST:PATH, ssh's form */
		const char *h = url, *at = memchr(url, '@', (size_t)(colon - url));
		if (at)
			h = at + 1;
		if (!host_chars(h, (size_t)(colon - h))) {
			unsure(g, xasprintf("the host of %s cannot be read", url));
			return;
		}
		char *host = xasprintf("%.*s:22", (int)(colon - h), h);
		ca_add_net(r->out, r->c, host, ca_keep(r->out, url),
			   ca_printf(r->out, "network (%s %s)", r->prog, what));
		free(host);
		return;
	} else {
		path = url;
	}
	/* A repository on this host: read, or written by a push. */
	if (path[0] != '/' && !base) {
		unsure(g, xasprintf("%s is relative to a directory known only at run time", url));
		return;
	}
	struct shell_part part = { .kind = SHELL_PART_LIT, .text = path };
	struct shell_word sw = { .parts = &part, .nparts = 1, .lit = path, .start = r->c->start,
				 .end = r->c->start };
	ca_add_path(r->out, r->env, base, r->text, r->c, &sw, push ? IR_WRITE : IR_READ, true,
		    ca_printf(r->out, "%s, recursive (%s %s)", push ? "write" : "read", r->prog,
			      what));
	r->out->v[r->out->n - 1].shown = ca_keep(r->out, url);
}

/* Whether something besides the files may decide where git goes: a -c
 * setting, --git-dir, a variable git reads (GIT_*, HOME), or another part
 * of the command that may change git's config first (git config, git
 * remote, a file under .git, url.*.insteadOf).  Parts of the command are
 * found by their text, so a loop or a background job counts too. */
static char *unsettled(const struct reading *r)
{
	const struct shell_cmd *c = r->c;
	const char *t = r->text;
	size_t len = r->env->text_len;
	if (c->ngit_config)
		return xstrdup("git -c or --config-env sets config for this command");
	for (size_t i = c->argi + 1; i < c->nwords; i++) {
		const char *v = shell_word_static(c->words[i]);
		if (v && strncmp(v, "--git-dir", 9) == 0)
			return xstrdup("--git-dir names another repository");
	}
	for (size_t k = 0; k < r->env->nvars; k++) {
		const struct cmd_var *v = &r->env->vars[k];
		if (strncmp(v->name, "GIT_", 4) == 0 || strcmp(v->name, "XDG_CONFIG_HOME") == 0 ||
		    (strcmp(v->name, "HOME") == 0 &&
		     (!r->env->home || strcmp(v->value, r->env->home) != 0)))
			return xasprintf("the preset sets %s", v->name);
	}
	static const char *const names[] = { "GIT_", "XDG_CONFIG_HOME" };
	for (size_t k = 0; k < ARRAY_SIZE(names); k++)
		if (memmem(t, len, names[k], strlen(names[k])))
			return xasprintf("the command names %s", names[k]);
	if (ca_mentions(t, len, "HOME", 4))
		return xstrdup("the command names HOME");
	size_t s = c->start, e = c->end;
	if (e > len || s > e)
		s = e = len;
	static const char *const others[] = { "config", "remote", "insteadof", ".git" };
	for (size_t k = 0; k < ARRAY_SIZE(others); k++) {
		size_t n = strlen(others[k]);
		for (size_t i = 0; i + n <= len; i++) {
			if (i >= s && i < e)
				continue;
			if (strncasecmp(t + i, others[k], n) != 0)
				continue;
			/* .github, .gitignore name other files */
			if (k == 3 && i + n < len && (ca_name_char(t[i + n]) || t[i + n] == '-'))
				continue;
			return xasprintf("another part of the command may change git's config "
					 "(it names %s)", others[k]);
		}
	}
	return NULL;
}

/* Where a git command goes: the repository w names (NULL: the default
 * remote), in role (fetchurl, pushurl, cloneurl). */
void ca_git_place(struct reading *r, const struct shell_word *w, enum ir_role role)
{
	bool push = role == ROLE_PUSHURL, clone = role == ROLE_CLONEURL;
	const char *name = w ? shell_word_static(w) : NULL;
	const char *shown = w ? ca_word_source(r->out, r->text, w) : "(the default remote)";
	replace(r, NULL);
	struct gitcfg g = { 0 };
	g.why = unsettled(r);
	if (w && !name)
		unsure(&g, xstrdup("the repository is a value known only at run time"));
	if (!g.why)
		load_config(&g, r, !clone);
	char *remote = NULL;
	if (!g.why)
		remote = name ? xstrdup(name) : default_remote(&g, push);
	struct urls urls = { 0 };
	if (!g.why)
		remote_urls(&g, remote, push, clone, &urls);
	/* Every URL is checked before any is recorded: one git cannot be
	 * followed to makes the whole place unknown. */
	size_t n0 = r->out->n;
	for (size_t i = 0; i < urls.n && !g.why; i++) {
		bool named = strcmp(urls.v[i], remote) == 0;
		const char *what =
			named ? ca_printf(r->out, "%s %s", push ? "pushes to" : "fetches from", remote)
			      : ca_printf(r->out, "%s remote %s, %s",
					  push ? "pushes to" : "fetches from", remote, urls.v[i]);
		url_contact(r, &g, urls.v[i], named ? r->dir : g.top ? g.top : r->dir, push, what);
	}
	if (g.why) {
		r->out->n = n0;
		ca_add_net(r->out, r->c, NULL, shown,
			   ca_printf(r->out, "network (%s %s a repository known only at run time: %s)",
				     r->prog, push ? "pushes to" : "fetches from", g.why));
	}
	urls_free(&urls);
	free(remote);
	config_free(&g);
}

/* ---- config files ---------------------------------------------------------- */

/* The values of text's KEY = VALUE lines whose key matches c's glob (as
 * npm's .npmrc and pip's pip.conf write them: blanks around, [section]
 * lines and # ; comments skipped, an indented line without '=' going on
 * with the value before it), each read as the role says. */
static void config_value(struct reading *r, const struct ir_option *c, const char *file,
			 const char *v)
{
	const char *by = ca_printf(r->out, "%s in %s", c->path, file);
	/* npm expands ${NAME} when it runs */
	registry_value(r, strchr(v, '$') || strchr(v, '`') ? NULL : v, file, by);
}

static void config_values(struct reading *r, const struct ir_option *c, const char *file,
			  const char *text)
{
	struct strbuf v;
	bool in = false;
	sb_init(&v);
	for (const char *line = text; line;) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		char *l = xstrndup(line, n);
		line = end ? end + 1 : NULL;
		bool indented = l[0] == ' ' || l[0] == '\t';
		char *t = l + strspn(l, " \t");
		t[strcspn(t, "\r")] = '\0';
		char *eq = strchr(t, '=');
		if (indented && !eq && in && *t && *t != '#' && *t != ';') {
			sb_addc(&v, ' ');
			sb_adds(&v, t);
			free(l);
			continue;
		}
		if (in)
			config_value(r, c, file, v.buf);
		in = false;
		if (eq && *t != '#' && *t != ';' && *t != '[') {
			char *k = t, *ke = eq;
			while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
				ke--;
			*ke = '\0';
			if (fnmatch(c->path, k, FNM_CASEFOLD) == 0) {
				char *val = eq + 1 + strspn(eq + 1, " \t");
				size_t vl = strlen(val);
				while (vl && (val[vl - 1] == ' ' || val[vl - 1] == '\t'))
					val[--vl] = '\0';
				if (vl >= 2 && (val[0] == '"' || val[0] == '\'') && val[vl - 1] == val[0]) {
					val[vl - 1] = '\0';
					val++;
				}
				v.len = 0;
				v.buf[0] = '\0';
				sb_adds(&v, val);
				in = true;
			}
		}
		free(l);
	}
	if (in)
		config_value(r, c, file, v.buf);
	sb_free(&v);
}

/* One config file: its values, or a host known only at run time when it
 * cannot be read or the command names it (it may write it first). */
static void config_file(struct reading *r, const struct ir_option *c, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *by = ca_printf(r->out, "%s in %s", c->path, path);
	if (ca_mentions(r->text, r->env->text_len, base, strlen(base))) {
		registry_value(r, NULL, ca_keep(r->out, path), by);
		return;
	}
	bool missing;
	size_t len = 0;
	char *err = NULL;
	char *text = small_file(path, false, &missing, &len, &err);
	if (err || (text && memchr(text, '\0', len))) {
		registry_value(r, NULL, ca_keep(r->out, path), by);
		free(err);
		free(text);
		return;
	}
	if (text)
		config_values(r, c, ca_keep(r->out, path), text);
	free(text);
}

/* The spec's `config PATHS net "KEY";` items: what the files name is
 * contacted besides the `net` hosts, since an option, a variable or
 * another file may take its place (npm --userconfig).  A file name is
 * looked for in the directory it works in and every one above it (npm
 * reads the project's, found upward). */
static void config_places(struct reading *r, const struct ir_spec *s)
{
	const struct cmd_env *env = r->env;
	for (size_t i = 0; i < s->nconfigkeys; i++) {
		const struct ir_option *c = &s->configkeys[i];
		for (size_t j = 0; j < c->nnames; j++) {
			const char *p = c->names[j];
			if (p[0] == '/') {
				config_file(r, c, p);
			} else if (p[0] == '~') {
				if (!env->home) {
					registry_value(r, NULL, p, ca_printf(r->out, "%s in %s", c->path, p));
					continue;
				}
				char *f = xasprintf("%s%s", env->home, p + 1);
				config_file(r, c, f);
				free(f);
			} else if (p[0] == '$') {
				const char *name = p + 2, *v = NULL;
				size_t n = strcspn(name, "}");
				char *nm = xstrndup(name, n);
				bool set;
				v = assigned(r, nm, &set);
				for (size_t k = 0; k < env->nvars && !set; k++)
					if (strcmp(env->vars[k].name, nm) == 0) {
						v = env->vars[k].value;
						set = true;
					}
				if (!set && ca_mentions(r->text, env->text_len, nm, n))
					set = true;
				if (set && v) {
					char *f = xasprintf("%s%s", v, name + n + 1);
					config_file(r, c, f);
					free(f);
				} else if (set) {
					registry_value(r, NULL, p, ca_printf(r->out, "%s in %s", c->path, p));
				}
				free(nm);
			} else if (!r->dir) {
				registry_value(r, NULL, p, ca_printf(r->out, "%s in %s", c->path, p));
			} else {
				char *d = xstrdup(r->dir);
				for (;;) {
					char *f = xasprintf("%s/%s", strcmp(d, "/") ? d : "", p);
					config_file(r, c, f);
					free(f);
					char *slash = strrchr(d, '/');
					if (!slash || slash == d)
						break;
					*slash = '\0';
				}
				free(d);
			}
		}
	}
}

/* After the words: the spec's variables, and the default remote of a
 * git command that named none. */
void ca_places_done(struct reading *r, const struct ir_spec *sub, const struct ir_spec *prog)
{
	for (const struct ir_spec *s = sub; s; s = s == prog ? NULL : prog) {
		env_places(r, s);
		config_places(r, s);
		if (s == prog)
			break;
	}
	enum ir_role first = sub->has_first ? sub->first : ROLE_NONE;
	if (r->git_named || (first != ROLE_FETCHURL && first != ROLE_PUSHURL))
		return;
	if (r->c->flags & SHELL_CMD_EXTRA_ARGS) {
		/* xargs git fetch: the repository comes at run time */
		struct shell_part part = { .kind = SHELL_PART_PARAM, .text = "{}" };
		struct shell_word sw = { .parts = &part, .nparts = 1, .start = r->c->start,
					 .end = r->c->start };
		ca_git_place(r, &sw, first);
		return;
	}
	ca_git_place(r, NULL, first);
}
