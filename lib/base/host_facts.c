#include "config.h"

#include "host_facts.h"
#include "util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* macOS: the BSD directories that live on the data volume are symlinks
 * into /private, fixed by the system (SIP); the data volume is mounted at
 * /System/Volumes/Data and its firmlinks (/usr/share/firmlinks) give the
 * directories a user writes to a second name there.  Only the firmlinks a
 * policy names are listed: a path on the sealed system volume has one
 * name. */
static const struct host_alias macos_aliases[] = {
	{ "/etc", "/private/etc", HOST_SYMLINK },
	{ "/tmp", "/private/tmp", HOST_SYMLINK },
	{ "/var", "/private/var", HOST_SYMLINK },
	{ "/System/Volumes/Data/private", "/private", HOST_FIRMLINK },
	{ "/System/Volumes/Data/Users", "/Users", HOST_FIRMLINK },
	{ "/System/Volumes/Data/Applications", "/Applications", HOST_FIRMLINK },
	{ "/System/Volumes/Data/Library", "/Library", HOST_FIRMLINK },
	{ "/System/Volumes/Data/Volumes", "/Volumes", HOST_FIRMLINK },
	{ "/System/Volumes/Data/opt", "/opt", HOST_FIRMLINK },
	{ "/System/Volumes/Data/usr/local", "/usr/local", HOST_FIRMLINK },
	{ "/System/Volumes/Data/cores", "/cores", HOST_FIRMLINK },
};

#ifdef __APPLE__
#define NATIVE_LINUX false
#define NATIVE_MACOS true
#else
#define NATIVE_LINUX true
#define NATIVE_MACOS false
#endif

static const struct host_facts hosts[] = {
	/* Linux has no alias of its own: the symlinks a path crosses are
	 * read from the file system where it runs. */
	{ "linux", "bwrap", NATIVE_LINUX, NULL, 0 },
	{ "macos", "seatbelt", NATIVE_MACOS, macos_aliases, ARRAY_SIZE(macos_aliases) },
};

/* The same platforms with no machine behind them: every symlink a path
 * crosses is one of the facts above, so a decision reads the same on every
 * machine (diff, lint and the managed layer's check decide in a context
 * that names no real directory). */
static const struct host_facts fixed_hosts[] = {
	{ "linux", "bwrap", false, NULL, 0 },
	{ "macos", "seatbelt", false, macos_aliases, ARRAY_SIZE(macos_aliases) },
};
_Static_assert(ARRAY_SIZE(fixed_hosts) == ARRAY_SIZE(hosts), "one fixed twin for each host");

const struct host_facts *host_facts_fixed(const struct host_facts *h)
{
	for (size_t i = 0; i < ARRAY_SIZE(hosts); i++)
		if (h == &hosts[i] || h == &fixed_hosts[i])
			return &fixed_hosts[i];
	return h;
}

bool host_facts_same(const struct host_facts *a, const struct host_facts *b)
{
	return a && b && strcmp(a->name, b->name) == 0;
}

const struct host_facts *host_facts_native(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(hosts); i++)
		if (hosts[i].live)
			return &hosts[i];
	return &hosts[0];
}

const struct host_facts *host_facts_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(hosts); i++)
		if (strcmp(hosts[i].name, name) == 0)
			return &hosts[i];
	return NULL;
}

const char *host_facts_names(void)
{
	return "linux, macos";
}

static bool component_prefix(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);
	return k <= n && memcmp(s, p, k) == 0 && (k == n || s[k] == '/');
}

/* The longest alias of `kind` (or any, kind < 0) that s starts with. */
static const struct host_alias *alias_at(const struct host_facts *h, const char *s, size_t n,
					 int kind)
{
	const struct host_alias *best = NULL;
	for (size_t i = 0; h && i < h->naliases; i++) {
		const struct host_alias *a = &h->aliases[i];
		if ((kind < 0 || (int)a->kind == kind) && component_prefix(s, n, a->path) &&
		    (!best || strlen(a->path) > strlen(best->path)))
			best = a;
	}
	return best;
}

const struct host_alias *host_alias_of(const struct host_facts *h, const char *s, size_t n)
{
	return alias_at(h, s, n, -1);
}

char *host_alias_apply(const struct host_facts *h, const char *path)
{
	const struct host_alias *a = alias_at(h, path, strlen(path), -1);
	return a ? xasprintf("%s%s", a->target, path + strlen(a->path)) : xstrdup(path);
}

static bool re_special(char c)
{
	return strchr(".[]()*+?{}|^$\\", c) != NULL;
}

static bool re_quantifier(char c)
{
	return c == '*' || c == '+' || c == '?' || c == '{';
}

char *host_alias_regex(const struct host_facts *h, const char *re, const struct host_alias **used)
{
	char lit[PATH_MAX];
	size_t end[PATH_MAX]; /* where in re the literal character i ends */
	size_t n = 0, i = 1;
	if (!h || !h->naliases || re[0] != '^')
		return NULL;
	/* The literal head: plain characters and escaped punctuation. */
	while (re[i] && n < sizeof(lit) - 1) {
		char c;
		size_t next;
		if (re[i] == '\\' && re[i + 1] && strchr("/.-_~@%+,:=", re[i + 1])) {
			c = re[i + 1];
			next = i + 2;
		} else if (!re_special(re[i])) {
			c = re[i];
			next = i + 1;
		} else {
			break;
		}
		if (re_quantifier(re[next]))
			break; /* the character is optional or repeated: not literal */
		lit[n] = c;
		end[n++] = next;
		i = next;
	}
	lit[n] = '\0';
	const struct host_alias *a = alias_at(h, lit, n, -1);
	if (!a)
		return NULL;
	size_t k = strlen(a->path);
	const char *rest = re + (k ? end[k - 1] : 1);
	if (k == n && strcmp(rest, "$") != 0)
		return NULL; /* the component may go on: ^/etc.*, ^/etc */
	struct strbuf sb;
	sb_init(&sb);
	sb_addc(&sb, '^');
	for (const char *t = a->target; *t; t++) {
		if (re_special(*t))
			sb_addc(&sb, '\\');
		sb_addc(&sb, *t);
	}
	sb_adds(&sb, rest);
	if (used)
		*used = a;
	return sb_steal(&sb);
}

/* The built-in facts' resolution: lexical, but a component that makes the
 * prefix a symlink alias is replaced by the alias's target, so that ".."
 * below it leaves the target as the kernel's walk would. */
static char *resolve_facts(const struct host_facts *h, const char *path, size_t len,
			   const char *cwd, char **err)
{
	struct strbuf in, out;
	if (len == 0 || path[0] == '\0') {
		*err = xstrdup("empty path");
		return NULL;
	}
	if (strlen(path) != len) {
		*err = xstrdup("path contains a NUL byte");
		return NULL;
	}
	if (len >= PATH_MAX) {
		*err = xasprintf("path is longer than %d bytes", PATH_MAX - 1);
		return NULL;
	}
	if (path[0] != '/' && (!cwd || cwd[0] != '/')) {
		*err = xasprintf("relative path '%s' needs an absolute cwd", path);
		return NULL;
	}
	sb_init(&in);
	if (path[0] != '/') {
		sb_adds(&in, cwd);
		sb_addc(&in, '/');
	}
	sb_add(&in, path, len);
	sb_init(&out);
	sb_addc(&out, '/');
	const char *p = in.buf, *seg;
	size_t n;
	while ((seg = path_next_component(&p, &n))) {
		if (n == 1 && seg[0] == '.')
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			path_pop_component(&out);
			continue;
		}
		if (out.len > 1)
			sb_addc(&out, '/');
		sb_add(&out, seg, n);
		const struct host_alias *a = alias_at(h, out.buf, out.len, HOST_SYMLINK);
		if (a && strlen(a->path) == out.len) {
			out.len = 0;
			sb_adds(&out, a->target);
		}
		if (out.len >= PATH_MAX) {
			sb_free(&in);
			sb_free(&out);
			*err = xasprintf("path is longer than %d bytes once resolved", PATH_MAX - 1);
			return NULL;
		}
	}
	sb_free(&in);
	return sb_steal(&out);
}

/* real, a firmlink's second name replaced by the kernel's name for it. */
static char *named_by_kernel(const struct host_facts *h, char *real)
{
	const struct host_alias *a = real ? alias_at(h, real, strlen(real), HOST_FIRMLINK) : NULL;
	if (a) {
		char *named = xasprintf("%s%s", a->target, real + strlen(a->path));
		free(real);
		real = named;
	}
	return real;
}

char *host_resolve(const struct host_facts *h, const char *path, size_t len, const char *cwd,
		   struct canon_memo *memo, char **err)
{
	return named_by_kernel(h, h->live ? canon_path_memo(path, len, cwd, memo, err)
					  : resolve_facts(h, path, len, cwd, err));
}

char *host_resolve_listed(const struct host_facts *h, const struct canon_listing *ls,
			  size_t nls, const char *path, size_t len, char **err)
{
	return named_by_kernel(h, h->live ? canon_path_listed(ls, nls, path, len, err)
					  : resolve_facts(h, path, len, NULL, err));
}
