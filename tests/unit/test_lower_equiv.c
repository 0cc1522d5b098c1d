/* Randomized equivalence of the lowerings with the evaluator.
 *
 * Each case builds a real directory tree in a temp dir (a workspace, a temp
 * dir, a home, a directory outside them, the agent's storage inside the
 * workspace or elsewhere, present or missing), writes a random restricted
 * policy of literal path rules over it (read and write allow/ask/deny,
 * nested, inherited, protections of present and missing paths, now and then
 * a glob or regex deny), and compares, for many paths of the tree and
 * beyond it, the evaluator's decisions with
 *
 *  - the bubblewrap mount plan (`bwrap-args`), run through a model of the
 *    mount stack: a path gets the state of the last mount on it or on an
 *    ancestor (ro-bind: readable; bind: readable and writable; tmpfs and
 *    the empty mask file ${tmp}.mask: hidden; --remount-ro takes writes
 *    back), where no mount
 *    means nothing of the host is reachable;
 *  - the Seatbelt profile (`sbpl`), answered by tests/sbpl-check's
 *    interpreter, which must agree exactly, missing paths included;
 *  - the same policy on the macOS host's facts, where /etc, /tmp and /var
 *    are symlinks into /private: every path decides as on this machine
 *    (the /private spelling as the path it names), and the Seatbelt
 *    profile lowered there, asked with the paths as a Mac's kernel
 *    reports them (sbpl-check --macos-paths), agrees with that evaluator.
 *    Some rules name paths under /etc, /tmp and /var for it.
 *
 * What the mount plan cannot say, by design, and is counted rather than
 * failed:
 *  (a) a write-denied or protected path that does not exist, below a file
 *      that could be replaced by a directory, makes that file read-only:
 *      the plan is stricter there (below a directory it is fenced alone);
 *  (b) an `ask` write is not writable in the sandbox (like a deny);
 *  (c) an `ask` write path that does not exist is part of the writable root
 *      around it: the plan is wider than the decision there (asks only);
 *  (d) a write allow of a path that does not exist binds nothing: the plan
 *      is stricter below it;
 *  (e) glob and regex denies are advisories: each is listed in the plan,
 *      none is enforced by it (cordon run masks the matches of read ones
 *      at launch: tests/unit/test_host_masks); a path whose decision such a rule changes
 *      (the same policy without them decides otherwise) is left out;
 *  (h) a glob allow is carried by neither the plan nor the profile: where
 *      one decides, both are stricter than the decision;
 *  (i) a literal allow whose own path a glob makes ask or deny (they are
 *      incomparable: the literal covers its subtree, the glob does not) is
 *      no root of the plan or the profile: below it they are stricter;
 *  (j) a write allow of a path this user cannot write anyway (/etc, as an
 *      ordinary user) may be bound read-only: the plan takes nothing away.
 * The glob rules overlap one another and the literal ones: exceptions
 * inside a glob deny, denies of keys inside a glob allow, and pairs where
 * neither contains the other, so the ranking by containment is exercised;
 * the Seatbelt profile enforces glob denies and must never allow what the
 * evaluator does not.
 * Every other difference fails its case, with the policy, the context,
 * the path and both answers.
 *
 * Environment:
 *   CORDON_EQUIV_SEED       the run's seed (a fixed default)
 *   CORDON_EQUIV_CASES      how many policies (200)
 *   CORDON_EQUIV_FIRST      the first case's number: with CASES=1, reruns
 *                           the one case a diagnostic names
 *   CORDON_EQUIV_SBPL_EVERY the Seatbelt check on every Nth case (2; 0: never)
 *   CORDON_EQUIV_SHOW       examples printed per class of difference (3)
 *   CORDON_EQUIV_VERBOSE    print every policy
 *   CORDON_EQUIV_KEEP       keep the trees in $TMPDIR
 *   CORDON_EQUIV_BWRAP      1, or bwrap's path: also run each plan that keeps
 *                           "/" readable under bwrap itself, this program
 *                           probing inside, to check the model of the mounts
 *   CORDON_SBPL_CHECK       the checker (default: $builddir/tests/sbpl-check) */
#include "config.h"

#include "cordon.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "xalloc.h"

extern char **environ;

/* ---- small helpers ----------------------------------------------------------- */





struct buf {
	char *s;
	size_t len, cap;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void bprintf(struct buf *b, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void bprintf(struct buf *b, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	char *s = xvfmt(f, ap);
	va_end(ap);
	size_t n = strlen(s);
	buf_add(b, s, (size_t)n);
	free(s);
}

struct list {
	char **v;
	size_t n, cap;
};

static void list_add(struct list *l, char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = s;
}

static bool list_has(const struct list *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return true;
	return false;
}

static void list_free(struct list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* path is root or below it */
static bool under(const char *path, const char *root)
{
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return path[0] == '/';
	return strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static char *nearest_existing(const char *path);

/* Whether this user could write the path, or create it, without any
 * sandbox: as an ordinary user /etc is not, and a plan that binds it
 * read-only takes nothing away. */
static bool user_can_write(const char *path)
{
	char *anc = nearest_existing(path);
	bool ok = access(anc, W_OK) == 0;
	free(anc);
	return ok;
}

static char *nearest_existing(const char *path)
{
	char *p = xstrdup(path);
	while (strcmp(p, "/") != 0 && !exists(p)) {
		char *slash = strrchr(p, '/');
		if (slash == p)
			p[1] = '\0';
		else
			*slash = '\0';
	}
	return p;
}

static bool kernel_fs(const char *path)
{
	return under(path, "/dev") || under(path, "/proc");
}

/* Prefix every line with "# " for TAP. */
static void diag_text(const char *text)
{
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		printf("#   %.*s\n", (int)n, p);
		p += n + (nl ? 1 : 0);
	}
}

/* ---- random numbers: splitmix64, one stream per case -------------------------- */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned rnd(unsigned n)
{
	return n ? (unsigned)(rnd64() % n) : 0;
}

/* true with probability pct/100 */
static bool chance(unsigned pct)
{
	return rnd(100) < pct;
}

/* ---- the tree ------------------------------------------------------------------- */

static const char *const dir_names[] = {
	"a", "b", "src", "lib", ".git", "hooks", "docs", "x-y", "sp ace", "n.d", "build",
};
static const char *const file_names[] = {
	"f", "g.txt", "Makefile", "h.c", "id_rsa", ".env", "k.pem",
};

struct world {
	char *root, *ws, *home, *tmp, *out, *agent, *session;
	struct list dirs, files, missing;
};

static void make_dir(struct world *w, const char *path)
{
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		printf("# mkdir %s: %s\n", path, strerror(errno));
		exit(99);
	}
	if (!list_has(&w->dirs, path))
		list_add(&w->dirs, xstrdup(path));
}

static void make_file(struct world *w, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		printf("# create %s: %s\n", path, strerror(errno));
		exit(99);
	}
	if (write(fd, "x\n", 2) != 2)
		exit(99);
	close(fd);
	list_add(&w->files, xstrdup(path));
}

static void grow_tree(struct world *w, const char *dir, int depth)
{
	unsigned nd = depth < 3 ? rnd(depth == 0 ? 5 : 4) : 0, nf = rnd(4);
	for (unsigned i = 0; i < nd; i++) {
		char *p = xfmt("%s/%s", dir, dir_names[rnd(sizeof(dir_names) / sizeof(*dir_names))]);
		if (!exists(p)) {
			make_dir(w, p);
			grow_tree(w, p, depth + 1);
		}
		free(p);
	}
	for (unsigned i = 0; i < nf; i++) {
		char *p = xfmt("%s/%s", dir, file_names[rnd(sizeof(file_names) / sizeof(*file_names))]);
		if (!exists(p))
			make_file(w, p);
		free(p);
	}
}

static void world_build(struct world *w, const char *base)
{
	memset(w, 0, sizeof(*w));
	char *tmpl = xfmt("%s/cordon-equiv.XXXXXX", base);
	if (!mkdtemp(tmpl)) {
		printf("# mkdtemp %s: %s\n", tmpl, strerror(errno));
		exit(99);
	}
	char real[PATH_MAX];
	if (!realpath(tmpl, real))
		exit(99);
	free(tmpl);
	w->root = xstrdup(real);
	w->ws = xfmt("%s/ws", w->root);
	w->home = xfmt("%s/home", w->root);
	w->tmp = xfmt("%s/tmp", w->root);
	w->out = xfmt("%s/out", w->root);
	list_add(&w->dirs, xstrdup(w->root));
	make_dir(w, w->ws);
	make_dir(w, w->home);
	make_dir(w, w->tmp);
	make_dir(w, w->out);
	grow_tree(w, w->ws, 0);
	grow_tree(w, w->home, 1);
	grow_tree(w, w->tmp, 2);
	grow_tree(w, w->out, 1);

	/* The agent's storage: in the workspace, in the home or outside both;
	 * present or missing, and its session dir likewise. */
	switch (rnd(3)) {
	case 0: w->agent = xfmt("%s/.agent", w->ws); break;
	case 1: w->agent = xfmt("%s/.cordon", w->home); break;
	default: w->agent = xfmt("%s/agent", w->out); break;
	}
	w->session = xfmt("%s/sessions/s1", w->agent);
	if (chance(50)) {
		make_dir(w, w->agent);
		if (chance(60)) {
			char *s = xfmt("%s/sessions", w->agent);
			make_dir(w, s);
			free(s);
			make_dir(w, w->session);
			if (chance(50)) {
				char *f = xfmt("%s/state.json", w->session);
				make_file(w, f);
				free(f);
			}
		}
	}

	/* Paths that do not exist, under directories that do. */
	size_t ndirs = w->dirs.n;
	for (int i = 0; i < 8; i++) {
		const char *d = w->dirs.v[1 + rnd((unsigned)ndirs - 1)];
		char *m = xfmt("%s/m%d", d, i);
		list_add(&w->missing, m);
		if (chance(40))
			list_add(&w->missing, xfmt("%s/n", m));
	}
	if (!exists(w->agent))
		list_add(&w->missing, xstrdup(w->agent));
	if (!exists(w->session))
		list_add(&w->missing, xstrdup(w->session));
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void world_free(struct world *w, bool keep)
{
	if (!keep)
		nftw(w->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(w->root);
	free(w->ws);
	free(w->home);
	free(w->tmp);
	free(w->out);
	free(w->agent);
	free(w->session);
	list_free(&w->dirs);
	list_free(&w->files);
	list_free(&w->missing);
}

/* ---- the policy --------------------------------------------------------------------- */

enum rop { R_READ, R_WRITE, R_PROTECT };
enum reff { E_ALLOW, E_ASK, E_DENY };

struct rule {
	enum rop op;
	enum reff eff;
	char *path;       /* resolved, absolute; NULL for a glob or regex */
	bool advisory;    /* a glob or regex that a mount plan cannot carry */
	int line;
	int where;        /* 0 top level, 1 base preset, 2 child preset */
	int form;         /* an advisory's form */
};

struct policy {
	struct buf text;
	struct rule *r;
	size_t n, cap;
	int line;
	bool never;           /* approval never */
	bool child;           /* the evaluated preset is "p", extending "base" */
	bool agent_unprotected;
	size_t nadvisories;   /* expected in the plan */
};

static const char *const eff_names[] = { "allow", "ask", "deny" };

static void pol_line(struct policy *p, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void pol_line(struct policy *p, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	char *s = xvfmt(f, ap);
	va_end(ap);
	size_t n = strlen(s);
	buf_add(&p->text, s, (size_t)n);
	buf_add(&p->text, "\n", 1);
	free(s);
	p->line++;
}

static void pol_rule(struct policy *p, enum rop op, enum reff eff, const char *path, bool advisory,
		     int where)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 16;
		p->r = xrealloc(p->r, p->cap * sizeof(*p->r));
	}
	p->r[p->n++] = (struct rule){ op, eff, path ? xstrdup(path) : NULL, advisory, p->line + 1,
				      where, 0 };
}

/* A path as the policy spells it: quoted, escaped, and through a context
 * variable or ~ when it lies below one. */
static char *spell(const struct world *w, const char *path)
{
	struct buf b = { 0 };
	const char *rest = NULL;
	buf_add(&b, "\"", 1);
	if (strcmp(path, w->agent) == 0 && chance(70)) {
		buf_add(&b, "${agent_dir}", 12);
		rest = "";
	} else if (strcmp(path, w->session) == 0 && chance(70)) {
		buf_add(&b, "${session_dir}", 14);
		rest = "";
	} else if (under(path, w->ws) && chance(70)) {
		buf_add(&b, "${workspace}", 12);
		rest = path + strlen(w->ws);
	} else if (under(path, w->home) && chance(70)) {
		if (chance(50))
			buf_add(&b, "~", 1);
		else
			buf_add(&b, "${home}", 7);
		rest = path + strlen(w->home);
	} else if (under(path, w->tmp) && chance(70)) {
		buf_add(&b, "${tmp}", 6);
		rest = path + strlen(w->tmp);
	} else {
		rest = path;
	}
	for (const char *c = rest; *c; c++) {
		if (*c == '"' || *c == '\\' || *c == '$')
			buf_add(&b, "\\", 1);
		buf_add(&b, c, 1);
	}
	buf_add(&b, "\"", 1);
	return b.s;
}

/* Paths under the macOS aliases, for rules and queries; none exists here
 * but /etc, /tmp and /var, and none is a symlink here. */
static const char *const alias_paths[] = {
	"/etc",		       "/etc/cordon-equiv",   "/etc/cordon-equiv/a.conf",
	"/var/cordon-equiv",   "/var/cordon-equiv/db", "/tmp/cordon-equiv-alias",
	"/tmp/cordon-equiv-alias/x",
};

/* Which rules name an alias path draws from a stream of its own, so that
 * the policies of a seed stay what they were otherwise. */
static uint64_t alias_rng_state;

static unsigned alias_rnd(unsigned n)
{
	alias_rng_state = alias_rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((alias_rng_state >> 33) % n);
}

static const char *pick_tree_path(const struct world *w);

/* A path for a rule: most of them in the workspace, now and then one
 * under /etc, /tmp or /var. */
static const char *pick_path(const struct world *w)
{
	const char *p = pick_tree_path(w);
	if (alias_rnd(100) < 6)
		return alias_paths[alias_rnd(sizeof(alias_paths) / sizeof(*alias_paths))];
	return p;
}

static const char *pick_tree_path(const struct world *w)
{
	for (;;) {
		unsigned k = rnd(10);
		const struct list *l = k < 5 ? &w->dirs : k < 8 ? &w->files : &w->missing;
		if (!l->n)
			continue;
		const char *p = l->v[rnd((unsigned)l->n)];
		if (strcmp(p, w->root) == 0)
			continue;
		if (!under(p, w->ws) && chance(40))
			continue;
		return p;
	}
}

static enum reff pick_effect(void)
{
	unsigned k = rnd(100);
	return k < 35 ? E_ALLOW : k < 65 ? E_ASK : E_DENY;
}

static void random_rule(struct policy *p, const struct world *w, int where, const char *indent)
{
	enum rop op = chance(35) ? R_READ : R_WRITE;
	enum reff eff = pick_effect();
	const char *path = pick_path(w);
	/* Now and then a path named before: ties between presets and effects. */
	if (p->n && chance(20)) {
		const struct rule *r = &p->r[rnd((unsigned)p->n)];
		if (r->path && strcmp(r->path, "/") != 0)
			path = r->path;
	}
	char *s = spell(w, path);
	pol_rule(p, op, eff, path, false, where);
	pol_line(p, "%s%s %s %s;", indent, op == R_READ ? "read" : "write", s, eff_names[eff]);
	free(s);
}

static void random_protect(struct policy *p, const struct world *w, int where, const char *indent)
{
	const char *path = pick_path(w);
	char *s = spell(w, path);
	pol_rule(p, R_PROTECT, E_DENY, path, false, where);
	pol_line(p, "%sprotect %s;", indent, s);
	free(s);
}

/* A glob or regex rule: E is a deny or ask (A an allow), W the workspace
 * as a regex.  Several of them overlap: the keys at any depth with a
 * project's subtree, the keys of one directory, the sources of another. */
static void random_advisory(struct policy *p, const struct world *w, int where, const char *indent)
{
	static const char *const forms[] = {
		"read \"${workspace}/**/*.pem\" E;",
		"write \"${workspace}/**/*.pem\" E;",
		"write \"/**/*.pem\" E;",
		"read /\\.pem$/ E;",
		"write /^W\\/.*\\.pem$/ E;",
		"protect \"${workspace}/**/*.pem\";",
		"write \"~/*.pem\" E;",
		"write \"${workspace}/**/.git/**\" E;",
		"read \"${workspace}/*/h.c\" E;",
		"write \"${workspace}/*\" E;",
		"read \"~/.*\" E;",
		"write /\\/hooks(\\/|$)/ E;",
		"write /^W\\/src\\// E;",
		"protect \"${workspace}/**/hooks\";",
		"read \"${workspace}/[ab]\" E;",
		"write \"${workspace}/x-?\" E;",
		"write \"${workspace}/**\" E;",
		"read \"${tmp}/**/.env\" E;",
		"read \"/**/id_rsa\" E;",
		"read \"${workspace}/*/k.pem\" A;",
		"read \"${workspace}/src/**\" A;",
		"write \"${workspace}/**/*.c\" A;",
		"write \"${workspace}/**/h.c\" E;",
		"read \"${workspace}/**/.env\" A;",
		"write \"${workspace}/**/.git/**/*\" A;",
		"read \"~/**/*.pem\" E;",
		"write \"${workspace}/a/**\" A;",
		"read \"${workspace}/**/*.txt\" A;",
		"write \"${tmp}/**/*.pem\" E;",
	};
	unsigned k = rnd(sizeof(forms) / sizeof(*forms));
	enum reff eff = chance(50) ? E_DENY : E_ASK;
	enum rop op = strncmp(forms[k], "read", 4) == 0 ? R_READ
		      : strncmp(forms[k], "protect", 7) == 0 ? R_PROTECT
							      : R_WRITE;
	struct buf line = { 0 };
	bprintf(&line, "%s", indent);
	bool allow = strstr(forms[k], " A;") != NULL;
	if (allow)
		eff = E_ALLOW;
	for (const char *c = forms[k]; *c; c++) {
		if ((*c == 'E' || *c == 'A') && c[1] == ';') {
			bprintf(&line, "%s", eff_names[eff]);
		} else if (*c == 'W' && c[-1] == '^') {
			/* every character but letters and digits escaped */
			for (const char *x = w->ws; *x; x++) {
				if (!((*x >= 'a' && *x <= 'z') || (*x >= 'A' && *x <= 'Z') ||
				      (*x >= '0' && *x <= '9')))
					buf_add(&line, "\\", 1);
				buf_add(&line, x, 1);
			}
		} else {
			buf_add(&line, c, 1);
		}
	}
	pol_rule(p, op, op == R_PROTECT ? E_DENY : eff, NULL, true, where);
	p->r[p->n - 1].form = (int)k;
	pol_line(p, "%s", line.s);
	free(line.s);
}

static void policy_build(struct policy *p, const struct world *w)
{
	memset(p, 0, sizeof(*p));
	bool top_protect = chance(70);
	pol_line(p, "cordon 1;");
	if (top_protect) {
		pol_rule(p, R_PROTECT, E_DENY, w->agent, false, 0);
		pol_rule(p, R_PROTECT, E_DENY, w->session, false, 0);
		pol_line(p, "protect \"${agent_dir}\", \"${session_dir}\";");
	}
	for (unsigned i = chance(30) ? 1 + rnd(2) : 0; i > 0; i--)
		random_rule(p, w, 0, "");

	p->never = chance(15);
	pol_line(p, "preset \"base\" {");
	pol_line(p, "  sandbox required;");
	pol_line(p, "  approval %s;", p->never ? "never" : "ask");
	if (chance(70)) {
		pol_rule(p, R_READ, E_ALLOW, "/", false, 1);
		pol_line(p, "  read \"/**\" allow;");
	} else {
		/* An allowlist: the system, maybe the workspace, a few more. */
		pol_rule(p, R_READ, E_ALLOW, "/usr", false, 1);
		pol_rule(p, R_READ, E_ALLOW, "/etc", false, 1);
		pol_line(p, "  read \"/usr\", \"/etc\" allow;");
		if (chance(70)) {
			pol_rule(p, R_READ, E_ALLOW, w->ws, false, 1);
			pol_line(p, "  read \"${workspace}\" allow;");
		}
		if (chance(50)) {
			pol_rule(p, R_READ, E_ALLOW, w->tmp, false, 1);
			pol_line(p, "  read \"${tmp}\" allow;");
		}
		if (chance(50))
			pol_line(p, "  read \"/**\" deny;");
		for (unsigned i = rnd(3); i > 0; i--) {
			const char *path = pick_path(w);
			char *s = spell(w, path);
			pol_rule(p, R_READ, E_ALLOW, path, false, 1);
			pol_line(p, "  read %s allow;", s);
			free(s);
		}
	}
	switch (rnd(5)) {
	case 0: case 1: pol_line(p, "  write \"/**\" ask;"); break;
	case 2: case 3: pol_line(p, "  write \"/**\" deny;"); break;
	default: break; /* nothing matches: deny */
	}
	if (chance(80)) {
		pol_rule(p, R_WRITE, E_ALLOW, w->ws, false, 1);
		pol_line(p, "  write \"${workspace}\" allow;");
	}
	if (chance(60)) {
		pol_rule(p, R_WRITE, E_ALLOW, w->tmp, false, 1);
		pol_line(p, "  write \"${tmp}\" allow;");
	}
	for (unsigned i = 2 + rnd(7); i > 0; i--)
		random_rule(p, w, 1, "  ");
	for (unsigned i = chance(35) ? 1 + rnd(2) : 0; i > 0; i--)
		random_protect(p, w, 1, "  ");
	/* overlapping globs: none, one, or several */
	for (unsigned i = chance(45) ? 1 + rnd(3) : 0; i > 0; i--)
		random_advisory(p, w, 1, "  ");
	pol_line(p, "}");

	p->child = chance(50);
	if (p->child) {
		pol_line(p, "preset \"p\" extends \"base\" {");
		if (top_protect && chance(15)) {
			p->agent_unprotected = true;
			pol_line(p, "  unprotect \"${agent_dir}\";");
		}
		for (unsigned i = 1 + rnd(5); i > 0; i--)
			random_rule(p, w, 2, "  ");
		if (chance(25))
			random_protect(p, w, 2, "  ");
		for (unsigned i = chance(30) ? 1 + rnd(2) : 0; i > 0; i--)
			random_advisory(p, w, 2, "  ");
		pol_line(p, "}");
	}
	/* One advisory per rule; a protection named twice is one protection. */
	for (size_t i = 0; i < p->n; i++) {
		bool again = false;
		for (size_t j = 0; j < i && p->r[i].op == R_PROTECT; j++)
			again = again || (p->r[j].advisory && p->r[j].form == p->r[i].form);
		if (p->r[i].advisory && p->r[i].eff != E_ALLOW && !again)
			p->nadvisories++;
	}
}

static void policy_free(struct policy *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->r[i].path);
	free(p->r);
	free(p->text.s);
}

/* The policy without its glob and regex rules, lines kept in place. */
static char *literal_text(const struct policy *p)
{
	struct buf b = { 0 };
	const char *t = p->text.s;
	for (int line = 1; *t; line++) {
		const char *nl = strchr(t, '\n');
		size_t n = nl ? (size_t)(nl - t) + 1 : strlen(t);
		bool adv = false;
		for (size_t i = 0; i < p->n; i++)
			adv = adv || (p->r[i].advisory && p->r[i].line == line);
		if (adv)
			buf_add(&b, "# a glob or regex rule\n", 23);
		else
			buf_add(&b, t, n);
		t += n;
	}
	return b.s;
}

static const struct rule *rule_at_line(const struct policy *p, int line)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->r[i].line == line)
			return &p->r[i];
	return NULL;
}

/* ---- decisions ------------------------------------------------------------------------ */

struct decision {
	enum cordon_effect effect;
	int line;   /* of the deciding rule, 0 when none */
	char *rule; /* "file:line:col" or NULL */
};

static struct decision decide(const cordon_evaluator *ev, enum cordon_op op, const char *path)
{
	struct cordon_request req = { .op = op, .target = path };
	char *err = NULL;
	struct decision d = { CORDON_DENY, 0, NULL };
	cordon_decision *cd = cordon_evaluate(ev, &req, &err);
	if (!cd) {
		printf("# evaluate %s %s: %s\n", cordon_op_name(op), path, err ? err : "?");
		free(err);
		return d;
	}
	d.effect = cordon_decision_effect(cd);
	const char *r = cordon_decision_rule(cd);
	if (r) {
		d.rule = xstrdup(r);
		const char *c = strchr(r, ':');
		if (c)
			d.line = atoi(c + 1);
	}
	cordon_decision_free(cd);
	return d;
}

static enum cordon_effect decide_effect(const cordon_evaluator *ev, enum cordon_op op,
				       const char *path)
{
	struct decision d = decide(ev, op, path);
	free(d.rule);
	return d.effect;
}

/* ---- the mount plan, simulated ---------------------------------------------------------- */

enum mkind { M_RO, M_RW, M_TMPFS, M_NULL, M_DEV, M_PROC };
static const char *const mkind_names[] = { "--ro-bind", "--bind", "--tmpfs",
					   "--ro-bind MASK", "--dev", "--proc" };

struct mount {
	char *dest;
	enum mkind kind;
	bool ro; /* remounted read-only */
};

struct sim {
	struct mount *m;
	size_t n, cap;
	char *failure; /* why bwrap would not start, or why the plan is malformed */
	/* The fences of the plan: `cordon run` makes each (and its missing
	 * parents) before bwrap starts, so their mount points exist. */
	char **fences;
	size_t nfences;
};

static bool sim_fenced(const struct sim *s, const char *path)
{
	for (size_t i = 0; i < s->nfences; i++)
		if (under(s->fences[i], path))
			return true;
	return false;
}

static const struct mount *sim_cover(const struct sim *s, const char *path)
{
	for (size_t i = s->n; i-- > 0;)
		if (under(path, s->m[i].dest))
			return &s->m[i];
	return NULL;
}

/* bwrap creates a missing mount point where it mounts: in a read-only
 * mount, or below a file, that fails and the sandbox does not start. */
static void sim_reach(struct sim *s, const char *dest)
{
	const struct mount *c = sim_cover(s, dest);
	if (s->failure || !c || strcmp(c->dest, dest) == 0)
		return;
	bool missing = c->kind == M_TMPFS || c->kind == M_NULL || (!exists(dest) && !sim_fenced(s, dest));
	if (!missing)
		return;
	if (c->kind == M_NULL)
		s->failure = xfmt("mount point %s lies below the file %s, which is hidden by the mask file",
				 dest, c->dest);
	else if (c->kind == M_RO || c->ro)
		s->failure = xfmt("mount point %s does not exist in the read-only %s mount on %s: "
				 "bwrap cannot create it",
				 dest, c->kind == M_TMPFS ? "tmpfs" : "bind", c->dest);
}

static void sim_push(struct sim *s, const char *dest, enum mkind kind)
{
	sim_reach(s, dest);
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->m = xrealloc(s->m, s->cap * sizeof(*s->m));
	}
	s->m[s->n++] = (struct mount){ xstrdup(dest), kind, false };
}

static void sim_free(struct sim *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->m[i].dest);
	free(s->m);
	free(s->failure);
}

/* mask: the empty file file masks are bound from (${tmp}.mask). */
static void sim_build(struct sim *s, const char *args, size_t len, const char *mask, char **fences,
		      size_t nfences)
{
	static const char *const zero[] = {
		"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--unshare-cgroup-try", "--unshare-net", "--share-net", "--die-with-parent",
		"--new-session", "--clearenv", "--unshare-all",
	};
	const char *tok[3];
	size_t i = 0;
	memset(s, 0, sizeof(*s));
	s->fences = fences;
	s->nfences = nfences;
	if (len && args[len - 1] != '\0') {
		s->failure = xstrdup("the option list does not end in a NUL");
		return;
	}
#define NEXT(k)                                                                   \
	do {                                                                      \
		if (i >= len) {                                                   \
			free(s->failure);                                         \
			s->failure = xfmt("%s is missing an argument", tok[0]);    \
			return;                                                   \
		}                                                                 \
		tok[k] = args + i;                                                \
		i += strlen(args + i) + 1;                                        \
	} while (0)
	while (i < len) {
		NEXT(0);
		const char *o = tok[0];
		bool z = false;
		for (size_t k = 0; k < sizeof(zero) / sizeof(*zero); k++)
			z = z || strcmp(o, zero[k]) == 0;
		if (z)
			continue;
		if (!strcmp(o, "--cap-drop") || !strcmp(o, "--chdir") || !strcmp(o, "--unsetenv")) {
			NEXT(1);
		} else if (!strcmp(o, "--setenv")) {
			NEXT(1);
			NEXT(2);
		} else if (!strcmp(o, "--dev") || !strcmp(o, "--proc")) {
			NEXT(1);
			sim_push(s, tok[1], o[2] == 'd' ? M_DEV : M_PROC);
		} else if (!strcmp(o, "--tmpfs")) {
			NEXT(1);
			sim_push(s, tok[1], M_TMPFS);
		} else if (!strcmp(o, "--remount-ro")) {
			NEXT(1);
			for (size_t k = 0; k < s->n; k++)
				if (under(s->m[k].dest, tok[1]))
					s->m[k].ro = true;
		} else if (!strcmp(o, "--bind") || !strcmp(o, "--ro-bind")) {
			NEXT(1);
			NEXT(2);
			bool ro = o[2] == 'r';
			if (strcmp(tok[1], tok[2]) == 0) {
				sim_push(s, tok[2], ro ? M_RO : M_RW);
			} else if (ro && strcmp(tok[1], mask) == 0) {
				struct stat st;
				if (lstat(tok[2], &st) == 0 && S_ISDIR(st.st_mode) && !s->failure)
					s->failure = xfmt("the mask file bound over the directory %s", tok[2]);
				sim_push(s, tok[2], M_NULL);
			} else if (!s->failure) {
				s->failure = xfmt("%s %s %s: a source other than the destination", o,
						 tok[1], tok[2]);
			}
		} else {
			free(s->failure);
			s->failure = xfmt("unknown option '%s' in the plan", o);
			return;
		}
	}
#undef NEXT
}

struct state {
	bool readable, writable;
	const struct mount *by;
};

/* Whether path lies inside a directory the plan hides (an empty tmpfs). */
static bool sim_masked(const struct sim *s, const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->m[i].kind == M_TMPFS && under(path, s->m[i].dest))
			return true;
	return false;
}

static struct state sim_state(const struct sim *s, const char *path)
{
	struct state st = { false, false, sim_cover(s, path) };
	if (!st.by)
		return st;
	switch (st.by->kind) {
	case M_RO: st.readable = true; break;
	case M_RW: st.readable = true; st.writable = !st.by->ro; break;
	default: break;
	}
	return st;
}

static char *state_text(const struct state *st)
{
	if (!st->by)
		return xstrdup("no mount: not reachable");
	return xfmt("%s%s %s (%s, %s)", mkind_names[st->by->kind], st->by->ro ? " +remount-ro" : "",
		   st->by->dest, st->readable ? "readable" : "not readable",
		   st->writable ? "writable" : "not writable");
}

/* ---- the Seatbelt profile, through sbpl-check ---------------------------------------------- */

static const char *sbpl_check;

/* Answers "allow"/"deny" for each query line, in order; false when the
 * checker failed (with a message in *why). */
static bool sbpl_answers(const char *profile, size_t plen, const struct list *queries,
			 bool *answers, const char *dir, bool mac, char **why)
{
	char *pf = xfmt("%s/profile.sb", dir), *qf = xfmt("%s/queries", dir),
	     *af = xfmt("%s/answers", dir), *ef = xfmt("%s/errors", dir);
	bool good = false;
	FILE *f = fopen(pf, "wb");
	if (!f || fwrite(profile, 1, plen, f) != plen || fclose(f) != 0) {
		*why = xfmt("cannot write %s", pf);
		goto out;
	}
	f = fopen(qf, "wb");
	if (!f) {
		*why = xfmt("cannot write %s", qf);
		goto out;
	}
	for (size_t i = 0; i < queries->n; i++)
		fprintf(f, "%s\n", queries->v[i]);
	fclose(f);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, qf, O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, af, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, ef, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	char *argv[] = { (char *)sbpl_check, pf, (char *)"--queries", NULL, NULL };
	if (mac) {
		argv[1] = (char *)"--macos-paths";
		argv[2] = pf;
		argv[3] = (char *)"--queries";
	}
	pid_t pid;
	int rc = posix_spawn(&pid, sbpl_check, &fa, NULL, argv, environ), status = 0;
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		*why = xfmt("cannot run %s: %s", sbpl_check, strerror(rc));
		goto out;
	}
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		struct buf e = { 0 };
		char line[1024];
		bprintf(&e, "sbpl-check exited with %d:", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		if ((f = fopen(ef, "r"))) {
			for (int k = 0; k < 10 && fgets(line, sizeof(line), f); k++)
				bprintf(&e, "\n%s", strtok(line, "\n") ? line : "");
			fclose(f);
		}
		*why = e.s;
		goto out;
	}
	if (!(f = fopen(af, "r"))) {
		*why = xfmt("cannot read %s", af);
		goto out;
	}
	char *line = NULL;
	size_t cap = 0, k = 0;
	while (getline(&line, &cap, f) > 0 && k < queries->n) {
		line[strcspn(line, "\n")] = '\0';
		size_t ql = strlen(queries->v[k]);
		size_t ll = strlen(line);
		if (ll < ql + 1 || strcmp(line + ll - ql, queries->v[k]) != 0) {
			*why = xfmt("answer '%s' is not for query '%s'", line, queries->v[k]);
			break;
		}
		answers[k++] = strncmp(line, "allow ", 6) == 0;
	}
	free(line);
	fclose(f);
	if (!*why && k != queries->n)
		*why = xfmt("%zu answers for %zu queries", k, queries->n);
	good = !*why;
out:
	unlink(pf);
	unlink(qf);
	unlink(af);
	unlink(ef);
	free(pf);
	free(qf);
	free(af);
	free(ef);
	return good;
}

/* ---- classes of disagreement ----------------------------------------------------------------- */

enum cls {
	/* agreements */
	C_AGREE_READ,
	C_AGREE_WRITE,
	C_ASK_NOT_WRITABLE,        /* (b) */
	/* documented, counted */
	C_MISSING_DENY_ANCESTOR,   /* (a) */
	C_MISSING_ASK_WRITABLE,    /* (c) */
	C_MISSING_WRITE_ROOT,      /* (d) */
	C_ADVISORY_SKIPPED,        /* (e) */
	C_GLOB_ALLOW_STRICTER,     /* (h) */
	C_ROOT_NOT_ALLOWED,        /* (i) */
	/* failures */
	C_WIDER_WRITE,
	C_WIDER_WRITE_PIN,
	C_WIDER_READ,
	C_WIDER_READ_WRITE_ROOT,
	C_WIDER_READ_UNMASKED,
	C_STRICTER_WRITE,
	C_STRICTER_WRITE_NO_ACCESS, /* (j) */
	C_STRICTER_WRITE_MASK,
	C_STRICTER_WRITE_READ_ROOT,
	C_STRICTER_READ,
	C_PLAN_FAILS,
	C_ADVISORY_COUNT,
	C_MODEL,
	C_MODEL_AGREE,
	C_SBPL_WIDER,
	C_SBPL_STRICTER,
	C_SBPL_AGREE,
	C_HOST_DIFFERS,
	C_HOST_AGREE,
	C_SBPL_MAC_WIDER,
	C_SBPL_MAC_STRICTER,
	C_SBPL_MAC_AGREE,
	C_COUNT
};

static const struct {
	const char *name;
	bool failure;
} cls_info[C_COUNT] = {
	[C_AGREE_READ] = { "bwrap agrees: read", false },
	[C_AGREE_WRITE] = { "bwrap agrees: write", false },
	[C_ASK_NOT_WRITABLE] = { "(b) ask write, not writable (counted in the agreements)", false },
	[C_MISSING_DENY_ANCESTOR] = { "(a) stricter: a missing write-denied or protected path's "
				      "ancestor is read-only",
				      false },
	[C_MISSING_ASK_WRITABLE] = { "(c) wider: a missing ask path is part of the writable root",
				     false },
	[C_MISSING_WRITE_ROOT] = { "(d) stricter: a write allow of a missing path binds nothing",
				   false },
	[C_ADVISORY_SKIPPED] = { "(e) decided by a glob or regex rule (an advisory), left out",
				 false },
	[C_GLOB_ALLOW_STRICTER] = { "(h) stricter: the plan or the profile denies what a glob "
				    "allow allows",
				    false },
	[C_ROOT_NOT_ALLOWED] = { "(i) stricter: below a literal allow whose own path is not allowed",
				 false },
	[C_WIDER_WRITE] = { "BUG plan writable, eval does not allow the write", true },
	[C_WIDER_WRITE_PIN] = { "BUG plan writable through a pinned mount point, eval does not "
				"allow the write",
				true },
	[C_WIDER_READ] = { "BUG plan readable, eval does not allow the read", true },
	[C_WIDER_READ_WRITE_ROOT] = { "(f) wider: readable through a write root or a read-only "
				      "path in it, where no read rule allows (a mount cannot be "
				      "write-only; the plan notes it)",
				      false },
	[C_WIDER_READ_UNMASKED] = { "BUG plan readable: a literal read deny or ask in a write root "
				    "is not masked",
				    true },
	[C_STRICTER_WRITE] = { "BUG plan not writable, eval allows the write", true },
	[C_STRICTER_WRITE_NO_ACCESS] = { "(j) stricter: not writable where this user cannot write "
					 "outside the sandbox either",
					 false },
	[C_STRICTER_WRITE_MASK] = { "(g) stricter: not writable under a read mask (what may not be "
				    "read is hidden, and so cannot be written)",
				    false },
	[C_STRICTER_WRITE_READ_ROOT] = { "BUG plan not writable: a read allow in a write root binds "
					 "it read-only, eval allows the write",
					 true },
	[C_STRICTER_READ] = { "BUG plan not readable, eval allows the read", true },
	[C_PLAN_FAILS] = { "BUG the plan cannot start or is malformed (policies)", true },
	[C_ADVISORY_COUNT] = { "BUG the plan does not list each glob or regex deny (policies)",
			       true },
	[C_MODEL] = { "BUG the model of the mount stack disagrees with bwrap itself", true },
	[C_MODEL_AGREE] = { "the model agrees with bwrap itself (CORDON_EQUIV_BWRAP)", false },
	[C_SBPL_WIDER] = { "BUG sbpl allows, eval does not", true },
	[C_SBPL_STRICTER] = { "BUG sbpl denies, eval allows", true },
	[C_SBPL_AGREE] = { "sbpl agrees", false },
	[C_HOST_DIFFERS] = { "BUG macOS facts decide otherwise", true },
	[C_HOST_AGREE] = { "macOS facts decide the same", false },
	[C_SBPL_MAC_WIDER] = { "BUG macOS sbpl allows, macOS eval does not", true },
	[C_SBPL_MAC_STRICTER] = { "BUG macOS sbpl denies, macOS eval allows", true },
	[C_SBPL_MAC_AGREE] = { "macOS sbpl agrees", false },
};

static size_t counts[C_COUNT];
static size_t cases_with[C_COUNT]; /* policies with at least one */
static size_t shown[C_COUNT];
static size_t max_shown = 3;

struct ctx_case {
	const struct world *w;
	const struct policy *p;
	const char *preset;
	unsigned long long seed;
	unsigned index;
	bool policy_shown;
	size_t failures;
	bool seen[C_COUNT];
};

static void show_policy(struct ctx_case *c)
{
	if (c->policy_shown)
		return;
	c->policy_shown = true;
	printf("# case %u (CORDON_EQUIV_SEED=%llu CORDON_EQUIV_FIRST=%u CORDON_EQUIV_CASES=1), "
	       "preset %s\n",
	       c->index, c->seed, c->index, c->preset);
	printf("# context: workspace=%s home=%s tmp=%s agent_dir=%s%s session_dir=%s%s\n", c->w->ws,
	       c->w->home, c->w->tmp, c->w->agent, exists(c->w->agent) ? "" : " (missing)",
	       c->w->session, exists(c->w->session) ? "" : " (missing)");
	printf("# policy:\n");
	diag_text(c->p->text.s);
	printf("# rule paths:\n");
	for (size_t i = 0; i < c->p->n; i++)
		if (c->p->r[i].path)
			printf("#   line %d: %s%s\n", c->p->r[i].line, c->p->r[i].path,
			       exists(c->p->r[i].path) ? "" : " (missing)");
}

static void count(struct ctx_case *c, enum cls k)
{
	counts[k]++;
	if (!c->seen[k])
		cases_with[k]++;
	c->seen[k] = true;
}

/* After a case's checks: how to see a failure not shown. */
static void hint(const struct ctx_case *c, size_t before)
{
	if (c->failures > before && !c->policy_shown)
		printf("# case %u: %zu differences, examples not shown (rerun alone: "
		       "CORDON_EQUIV_SEED=%llu CORDON_EQUIV_FIRST=%u CORDON_EQUIV_CASES=1)\n",
		       c->index, c->failures - before, c->seed, c->index);
}

static void report(struct ctx_case *c, enum cls k, const char *what, ...)
	__attribute__((format(printf, 3, 4)));
static void report(struct ctx_case *c, enum cls k, const char *what, ...)
{
	count(c, k);
	if (!cls_info[k].failure)
		return;
	c->failures++;
	if (shown[k]++ >= max_shown)
		return;
	show_policy(c);
	va_list ap;
	va_start(ap, what);
	printf("# %s: ", cls_info[k].name);
	vprintf(what, ap);
	va_end(ap);
	putchar('\n');
}

/* ---- one case ------------------------------------------------------------------------------------ */

/* A missing literal write deny (or an ask under approval never) or
 * protection whose nearest existing ancestor is `at`. */
static bool missing_deny_at(const struct ctx_case *c, const cordon_evaluator *ev, const char *at)
{
	for (size_t i = 0; i < c->p->n; i++) {
		const struct rule *r = &c->p->r[i];
		if (!r->path || r->op == R_READ || r->eff == E_ALLOW || exists(r->path))
			continue;
		if (r->op == R_WRITE) {
			struct decision d = decide(ev, CORDON_WRITE, r->path);
			free(d.rule);
			if (d.effect != CORDON_DENY)
				continue;
		}
		char *anc = nearest_existing(r->path);
		bool same = strcmp(anc, at) == 0;
		free(anc);
		if (same)
			return true;
	}
	return false;
}

/* A missing literal write ask at or above path (approval ask). */
static bool under_missing_ask(const struct ctx_case *c, const char *path)
{
	if (c->p->never)
		return false;
	for (size_t i = 0; i < c->p->n; i++) {
		const struct rule *r = &c->p->r[i];
		if (r->path && r->op == R_WRITE && r->eff == E_ASK && !exists(r->path) &&
		    under(path, r->path))
			return true;
	}
	return false;
}

/* An allow rule of this operation names exactly this path. */
static bool root_at(const struct ctx_case *c, enum rop op, const char *path)
{
	for (size_t i = 0; i < c->p->n; i++) {
		const struct rule *r = &c->p->r[i];
		if (r->path && r->op == op && r->eff == E_ALLOW && strcmp(r->path, path) == 0)
			return true;
	}
	return false;
}

static void query_paths(const struct world *w, const struct policy *p, struct list *q)
{
	static const char *const system[] = { "/", "/usr", "/usr/bin", "/etc", "/tmp",
					      "/cordon-equiv-missing", "/usr/cordon-equiv-missing" };
	for (size_t i = 0; i < sizeof(system) / sizeof(*system); i++)
		list_add(q, xstrdup(system[i]));
	for (size_t i = 0; i < sizeof(alias_paths) / sizeof(*alias_paths); i++) {
		if (!list_has(q, alias_paths[i]))
			list_add(q, xstrdup(alias_paths[i]));
		list_add(q, xfmt("/private%s", alias_paths[i]));
		list_add(q, xfmt("%s/zz", alias_paths[i]));
	}
	for (size_t i = 0; i < w->dirs.n; i++) {
		list_add(q, xstrdup(w->dirs.v[i]));
		if (chance(30))
			list_add(q, xfmt("%s/new", w->dirs.v[i]));
	}
	for (size_t i = 0; i < w->files.n; i++)
		list_add(q, xstrdup(w->files.v[i]));
	for (size_t i = 0; i < w->missing.n; i++)
		if (!list_has(q, w->missing.v[i]))
			list_add(q, xstrdup(w->missing.v[i]));
	for (size_t i = 0; i < p->n; i++) {
		if (!p->r[i].path || strcmp(p->r[i].path, "/") == 0)
			continue;
		char *below = xfmt("%s/zz", p->r[i].path);
		if (!list_has(q, below))
			list_add(q, below);
		else
			free(below);
	}
}

/* ---- the plan under bwrap itself (CORDON_EQUIV_BWRAP) ------------------------------------------------ */

static const char *bwrap_bin;
static char self_exe[PATH_MAX];

/* Inside the sandbox: for each line "EXISTS DEV INO\tX\tP" (X is P, or
 * its nearest existing ancestor on the host, with the host's device and
 * inode), print "R W": P can be read (it is the host's file), and P can be
 * written or created (X is the host's and not on a read-only mount). */
static int probe_main(void)
{
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, stdin) > 0) {
		int ex = 0;
		uintmax_t dev = 0, ino = 0;
		int used = 0;
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%d %ju %ju\t%n", &ex, &dev, &ino, &used) != 3 || !used)
			return 2;
		char *x = line + used, *tab = strchr(x, '\t');
		if (!tab)
			return 2;
		*tab = '\0';
		const char *p = tab + 1;
		struct stat st;
		bool same = lstat(x, &st) == 0 && (uintmax_t)st.st_dev == dev &&
			    (uintmax_t)st.st_ino == ino;
		bool r = ex && same && access(p, R_OK) == 0;
		bool w = same && access(x, W_OK) == 0;
		printf("%d %d\n", r, w);
	}
	free(line);
	return 0;
}

/* Run the plan with this program as the probe; compare with the model. */
static void bwrap_compare(struct ctx_case *c, const char *args, size_t alen, const struct sim *sim,
			  const struct list *paths)
{
	const char *dir = c->w->root;
	char *af = xfmt("%s/plan.args", dir), *qf = xfmt("%s/probe.in", dir),
	     *of = xfmt("%s/probe.out", dir), *ef = xfmt("%s/probe.err", dir);
	struct list used = { 0 };
	FILE *f = fopen(af, "wb");
	if (!f || fwrite(args, 1, alen, f) != alen || fclose(f) != 0)
		goto out;
	f = fopen(qf, "wb");
	if (!f)
		goto out;
	for (size_t i = 0; i < paths->n; i++) {
		const char *p = paths->v[i];
		struct stat st;
		char *x = nearest_existing(p);
		if (lstat(x, &st) == 0) {
			fprintf(f, "%d %ju %ju\t%s\t%s\n", exists(p), (uintmax_t)st.st_dev,
				(uintmax_t)st.st_ino, x, p);
			list_add(&used, xstrdup(p));
		}
		free(x);
	}
	fclose(f);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, qf, O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, of, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, ef, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 3, af, O_RDONLY, 0);
	char *argv[] = { (char *)bwrap_bin, (char *)"--args", (char *)"3", self_exe,
			 (char *)"--probe", NULL };
	pid_t pid;
	int status = 0, rc = posix_spawnp(&pid, bwrap_bin, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		report(c, C_MODEL, "cannot run %s: %s", bwrap_bin, strerror(rc));
		goto out;
	}
	waitpid(pid, &status, 0);
	bool started = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	char err[512] = "";
	if ((f = fopen(ef, "r"))) {
		if (!fgets(err, sizeof(err), f))
			err[0] = '\0';
		err[strcspn(err, "\n")] = '\0';
		fclose(f);
	}
	if (sim->failure || !started) {
		if (!sim->failure != started)
			report(c, C_MODEL, "bwrap %s (%s); the model: %s",
			       started ? "started" : "did not start", err,
			       sim->failure ? sim->failure : "it starts");
		else
			count(c, C_MODEL_AGREE);
		goto out;
	}
	if (!(f = fopen(of, "r")))
		goto out;
	for (size_t i = 0; i < used.n; i++) {
		int r, w;
		if (fscanf(f, "%d %d", &r, &w) != 2) {
			report(c, C_MODEL, "the probe answered %zu of %zu paths", i, used.n);
			break;
		}
		struct state st = sim_state(sim, used.v[i]);
		bool ex = exists(used.v[i]);
		if ((ex && st.readable != (r != 0)) || st.writable != (w != 0)) {
			char *s = state_text(&st);
			report(c, C_MODEL, "%s%s: bwrap %s, %s; the model: %s", used.v[i],
			       ex ? "" : " (missing)", r ? "readable" : "not readable",
			       w ? "writable" : "not writable", s);
			free(s);
		} else {
			count(c, C_MODEL_AGREE);
		}
	}
	fclose(f);
out:
	unlink(af);
	unlink(qf);
	unlink(of);
	unlink(ef);
	free(af);
	free(qf);
	free(of);
	free(ef);
	list_free(&used);
}

static size_t total_bwrap, total_sbpl;

/* (i): decided by a literal allow whose own path the evaluator does not
 * allow (a glob it is incomparable with asks or denies there). */
static bool root_not_allowed(const struct ctx_case *c, const cordon_evaluator *ev,
			     enum cordon_op op, const struct decision *d)
{
	const struct rule *r = rule_at_line(c->p, d->line);
	return r && r->path && !r->advisory && r->eff == E_ALLOW &&
	       (r->op == R_READ) == (op == CORDON_READ) && decide_effect(ev, op, r->path) != CORDON_ALLOW;
}

/* One path under the mount plan, one operation at a time. */
static void compare_path(struct ctx_case *c, const cordon_evaluator *ev,
			 const cordon_evaluator *ev_lit, const struct sim *sim, const char *path)
{
	bool ex = exists(path);
	struct state st = sim_state(sim, path);
	char *s = state_text(&st);
	for (int op = 0; op < 2; op++) {
		enum cordon_op cop = op ? CORDON_WRITE : CORDON_READ;
		if (cop == CORDON_READ && !ex)
			continue;
		struct decision d = decide(ev, cop, path);
		/* What a glob or regex rule decides, the plan does not carry. */
		if (decide_effect(ev_lit, cop, path) != d.effect) {
			count(c, C_ADVISORY_SKIPPED);
			free(d.rule);
			continue;
		}
		bool allowed = d.effect == CORDON_ALLOW, granted = op ? st.writable : st.readable;
		enum cls k = C_COUNT;
		const struct rule *by = rule_at_line(c->p, d.line);
		total_bwrap++;
		if (allowed && !granted && by && by->advisory && by->eff == E_ALLOW) {
			count(c, C_GLOB_ALLOW_STRICTER);
		} else if (allowed && !granted && root_not_allowed(c, ev, cop, &d)) {
			count(c, C_ROOT_NOT_ALLOWED);
		} else if (allowed == granted) {
			count(c, op ? C_AGREE_WRITE : C_AGREE_READ);
			if (op && d.effect == CORDON_ASK)
				count(c, C_ASK_NOT_WRITABLE);
		} else if (op && granted) {
			if (d.effect == CORDON_ASK && under_missing_ask(c, path))
				count(c, C_MISSING_ASK_WRITABLE);
			else if (!root_at(c, R_WRITE, st.by->dest) ||
				 decide_effect(ev, CORDON_WRITE, st.by->dest) != CORDON_ALLOW)
				k = C_WIDER_WRITE_PIN;
			else
				k = C_WIDER_WRITE;
		} else if (op) {
			const struct rule *r = rule_at_line(c->p, d.line);
			if (st.by && st.by->kind == M_RO && missing_deny_at(c, ev, st.by->dest))
				count(c, C_MISSING_DENY_ANCESTOR);
			else if (r && r->path && !exists(r->path))
				count(c, C_MISSING_WRITE_ROOT);
			else if (st.by && (st.by->kind == M_TMPFS || st.by->kind == M_NULL ||
					   sim_masked(sim, path)))
				count(c, C_STRICTER_WRITE_MASK);
			else if (st.by && st.by->kind == M_RO && root_at(c, R_READ, st.by->dest))
				k = C_STRICTER_WRITE_READ_ROOT;
			else if (!user_can_write(path))
				count(c, C_STRICTER_WRITE_NO_ACCESS);
			else
				k = C_STRICTER_WRITE;
		} else if (granted) {
			const struct rule *r = rule_at_line(c->p, d.line);
			if (st.by->kind == M_RO && root_at(c, R_READ, st.by->dest) &&
			    decide_effect(ev, CORDON_READ, st.by->dest) == CORDON_ALLOW)
				k = C_WIDER_READ;
			else if (r && r->path && r->op == R_READ && strcmp(r->path, "/") != 0 &&
				 under(r->path, st.by->dest))
				/* The denied path lies inside the mount that shows it:
				 * it should have been masked there. */
				k = C_WIDER_READ_UNMASKED;
			else
				k = C_WIDER_READ_WRITE_ROOT;
		} else {
			k = C_STRICTER_READ;
		}
		if (k != C_COUNT)
			report(c, k, "%s %s%s: eval %s (%s), plan %s", op ? "write" : "read", path,
			       ex ? "" : " (missing)", cordon_effect_name(d.effect),
			       d.rule ? d.rule : "no rule", s);
		free(d.rule);
	}
	free(s);
}

static void show_plan(const char *json, size_t jlen)
{
	printf("# plan (filesystem):\n");
	for (size_t i = 0; i < jlen;) {
		const char *nl = memchr(json + i, '\n', jlen - i);
		size_t n = nl ? (size_t)(nl - json - i) : jlen - i;
		if ((memmem(json + i, n, "\"args\":[\"--", 11) || memmem(json + i, n, "skipped", 7)) &&
		    !memmem(json + i, n, "unshare", 7) && !memmem(json + i, n, "env\"", 4))
			printf("#   %.*s\n", (int)n, json + i);
		i += n + 1;
	}
}

static void check_bwrap(struct ctx_case *c, const cordon_evaluator *ev,
			const cordon_evaluator *ev_lit, const struct list *q)
{
	char *err = NULL;
	size_t alen = 0, jlen = 0, before = c->failures;
	char *args = cordon_lower(ev, "bwrap-args", &alen, &err);
	char *json = args ? cordon_lower(ev, "bwrap", &jlen, &err) : NULL;
	if (!args || !json) {
		show_policy(c);
		ok(0, "case %u: lowers to bwrap (%s)", c->index, err ? err : "?");
		free(args);
		free(err);
		return;
	}
	json_error_t jerr;
	json_t *plan = json_loadb(json, jlen, 0, &jerr);
	json_t *adv = plan ? json_object_get(plan, "advisories") : NULL;
	/* One a rule: a protection resolved again in every write root lists
	 * one advisory a root, all with its origin. */
	size_t nadv = json_is_array(adv) ? 0 : (size_t)-1;
	for (size_t i = 0; json_is_array(adv) && i < json_array_size(adv); i++) {
		const char *o = json_string_value(json_object_get(json_array_get(adv, i), "origin"));
		bool seen = false;
		for (size_t k = 0; k < i && o && !seen; k++) {
			const char *ok_ = json_string_value(
				json_object_get(json_array_get(adv, k), "origin"));
			seen = ok_ && strcmp(ok_, o) == 0;
		}
		nadv += !seen;
	}
	if (nadv != c->p->nadvisories)
		report(c, C_ADVISORY_COUNT, "%zu advisories listed, %zu glob or regex denies in the "
					    "policy",
		       nadv, c->p->nadvisories);
	/* The fences cordon run makes for the call: an empty directory the
	 * plan mounts a tmpfs on, its note says so. */
	json_t *ops = plan ? json_object_get(plan, "operations") : NULL;
	char **fences = NULL;
	size_t nfences = 0;
	for (size_t i = 0; json_is_array(ops) && i < json_array_size(ops); i++) {
		json_t *op = json_array_get(ops, i), *a = json_object_get(op, "args");
		const char *note = json_string_value(json_object_get(op, "note"));
		const char *kind = json_string_value(json_array_get(a, 0));
		const char *at = json_string_value(json_array_get(a, 1));
		if (kind && at && note && strcmp(kind, "--tmpfs") == 0 &&
		    strstr(note, "cordon run makes the mount point")) {
			fences = xrealloc(fences, (nfences + 1) * sizeof(*fences));
			fences[nfences++] = xstrdup(at);
		}
	}
	json_decref(plan);

	struct sim sim;
	char *mask = xfmt("%s.mask", c->w->tmp);
	sim_build(&sim, args, alen, mask, fences, nfences);
	free(mask);
	if (sim.failure) {
		report(c, C_PLAN_FAILS, "%s", sim.failure);
		if (shown[C_PLAN_FAILS] <= max_shown)
			show_plan(json, jlen);
	}
	struct list cmp = { 0 };
	for (size_t i = 0; i < q->n; i++) {
		if (kernel_fs(q->v[i]))
			continue;
		list_add(&cmp, xstrdup(q->v[i]));
		if (!sim.failure)
			compare_path(c, ev, ev_lit, &sim, q->v[i]);
	}
	/* The probe must be reachable inside: only where "/" is readable. */
	if (bwrap_bin && root_at(c, R_READ, "/"))
		bwrap_compare(c, args, alen, &sim, &cmp);
	list_free(&cmp);
	hint(c, before);
	ok(c->failures == before, "case %u: bwrap plan agrees with eval%s", c->index,
	   sim.failure ? " (the plan cannot start)" : "");
	sim_free(&sim);
	for (size_t i = 0; i < nfences; i++)
		free(fences[i]);
	free(fences);
	free(args);
	free(json);
}

static void check_sbpl(struct ctx_case *c, const cordon_evaluator *ev, const struct list *q,
		       bool mac)
{
	char *err = NULL, *why = NULL;
	size_t before = c->failures, plen = 0;
	char *profile = cordon_lower(ev, "sbpl", &plen, &err);
	if (!profile) {
		show_policy(c);
		ok(0, "case %u: lowers to sbpl (%s)", c->index, err ? err : "?");
		free(err);
		return;
	}
	struct list sq = { 0 };
	for (size_t i = 0; i < q->n; i++) {
		if (kernel_fs(q->v[i]))
			continue;
		/* A profile lowered on this host's facts names each path under a
		 * macOS alias with its /private target too, for the Mac it runs
		 * on: here /private/etc is another directory, not asked. */
		if (!mac && strncmp(q->v[i], "/private/", 9) == 0)
			continue;
		list_add(&sq, xfmt("read %s", q->v[i]));
		list_add(&sq, xfmt("write %s", q->v[i]));
	}
	bool *answers = xmalloc(sq.n * sizeof(bool));
	if (!sbpl_answers(profile, plen, &sq, answers, c->w->root, mac, &why)) {
		show_policy(c);
		diag_text(why);
		c->failures++;
	} else {
		for (size_t i = 0; i < sq.n; i++) {
			bool is_read = sq.v[i][0] == 'r';
			const char *path = strchr(sq.v[i], ' ') + 1;
			struct decision d = decide(ev, is_read ? CORDON_READ : CORDON_WRITE, path);
			total_sbpl++;
			const struct rule *r = rule_at_line(c->p, d.line);
			if ((d.effect == CORDON_ALLOW) == answers[i])
				count(c, mac ? C_SBPL_MAC_AGREE : C_SBPL_AGREE);
			else if (!answers[i] && r && r->advisory && r->eff == E_ALLOW)
				count(c, C_GLOB_ALLOW_STRICTER);
			else if (!answers[i] &&
				 root_not_allowed(c, ev, is_read ? CORDON_READ : CORDON_WRITE, &d))
				count(c, C_ROOT_NOT_ALLOWED);
			else
				report(c,
				       answers[i] ? mac ? C_SBPL_MAC_WIDER : C_SBPL_WIDER
				       : mac      ? C_SBPL_MAC_STRICTER
						  : C_SBPL_STRICTER,
				       "%s%s: eval %s (%s), sbpl %s", sq.v[i],
				       exists(path) ? "" : " (missing)", cordon_effect_name(d.effect),
				       d.rule ? d.rule : "no rule", answers[i] ? "allow" : "deny");
			free(d.rule);
		}
	}
	free(why);
	free(answers);
	list_free(&sq);
	free(profile);
	hint(c, before);
	ok(c->failures == before, "case %u: %s agrees with eval", c->index,
	   mac ? "the sbpl profile on macOS facts" : "sbpl profile");
}

/* On macOS facts every path decides as here, by the same rule; a path
 * spelled under /private decides as the alias it is the target of. */
static void check_hosts(struct ctx_case *c, const cordon_evaluator *ev,
			const cordon_evaluator *ev_mac, const struct list *q)
{
	size_t before = c->failures;
	for (size_t i = 0; i < q->n; i++) {
		const char *path = q->v[i];
		if (kernel_fs(path))
			continue;
		const char *here = path;
		if (strncmp(path, "/private/", 9) == 0) {
			here = path + 8;
			if (!under(here, "/etc") && !under(here, "/tmp") && !under(here, "/var"))
				continue;
		}
		for (int op = CORDON_READ; op <= CORDON_WRITE; op++) {
			struct decision a = decide(ev, (enum cordon_op)op, here);
			struct decision b = decide(ev_mac, (enum cordon_op)op, path);
			bool same = a.effect == b.effect &&
				    (a.rule ? b.rule && strcmp(a.rule, b.rule) == 0 : !b.rule);
			if (same)
				count(c, C_HOST_AGREE);
			else
				report(c, C_HOST_DIFFERS, "%s %s: here %s (%s), on macOS %s %s (%s)",
				       cordon_op_name((enum cordon_op)op), here,
				       cordon_effect_name(a.effect), a.rule ? a.rule : "no rule", path,
				       cordon_effect_name(b.effect), b.rule ? b.rule : "no rule");
			free(a.rule);
			free(b.rule);
		}
	}
	hint(c, before);
	ok(c->failures == before, "case %u: macOS host facts decide as this host's", c->index);
}

static cordon_evaluator *evaluator(struct ctx_case *c, const char *text, cordon_policy **pol,
				   const char *host)
{
	const struct world *w = c->w;
	const char *names[] = { "workspace", "cwd", "home", "tmp", "agent_dir", "session_dir" };
	const char *values[] = { w->ws, w->ws, w->home, w->tmp, w->agent, w->session };
	char *err = NULL;
	*pol = cordon_policy_load_string("equiv.cordon", NULL, text, strlen(text));
	if (cordon_policy_error_count(*pol)) {
		show_policy(c);
		cordon_policy_print_diagnostics(*pol, stdout);
		ok(0, "case %u: the policy loads", c->index);
		return NULL;
	}
	cordon_context *ctx = cordon_context_new();
	if (host && cordon_context_set_host(ctx, host, &err) != 0) {
		printf("# host %s: %s\n", host, err);
		exit(99);
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		if (cordon_context_set(ctx, names[i], values[i], &err) != 0) {
			printf("# context %s: %s\n", names[i], err);
			exit(99);
		}
	}
	cordon_evaluator *ev = cordon_evaluator_new(*pol, c->preset, ctx, &err);
	cordon_context_free(ctx);
	if (!ev) {
		show_policy(c);
		ok(0, "case %u: an evaluator (%s)", c->index, err ? err : "?");
		free(err);
	}
	return ev;
}

/* Consecutive cases share a tree: building one costs more than a case. */
enum { CASES_PER_TREE = 4 };

static void run_case(unsigned index, unsigned long long seed, struct world *wp, bool with_sbpl,
		     bool verbose)
{
	struct world w = *wp;
	struct policy p;
	struct ctx_case c = { 0 };
	cordon_policy *pol = NULL, *pol_lit = NULL, *pol_mac = NULL;
	cordon_evaluator *ev = NULL, *ev_lit = NULL, *ev_mac = NULL;
	struct list q = { 0 };

	rng_state = seed * 0x100000001b3ULL + index;
	rnd64();
	alias_rng_state = seed ^ ((uint64_t)index << 20);
	policy_build(&p, &w);
	c.w = &w;
	c.p = &p;
	c.seed = seed;
	c.index = index;
	c.preset = p.child ? "p" : "base";
	if (verbose)
		show_policy(&c);
	query_paths(&w, &p, &q);

	char *lit = literal_text(&p);
	if ((ev = evaluator(&c, p.text.s, &pol, NULL)) &&
	    (ev_lit = evaluator(&c, lit, &pol_lit, NULL))) {
		check_bwrap(&c, ev, ev_lit, &q);
		if (with_sbpl)
			check_sbpl(&c, ev, &q, false);
		if ((ev_mac = evaluator(&c, p.text.s, &pol_mac, "macos"))) {
			check_hosts(&c, ev, ev_mac, &q);
			if (with_sbpl)
				check_sbpl(&c, ev_mac, &q, true);
		}
	}
	free(lit);
	list_free(&q);
	cordon_evaluator_free(ev);
	cordon_evaluator_free(ev_lit);
	cordon_evaluator_free(ev_mac);
	cordon_policy_free(pol);
	cordon_policy_free(pol_lit);
	cordon_policy_free(pol_mac);
	policy_free(&p);
}

static unsigned long long env_num(const char *name, unsigned long long def)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return def;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end) {
		printf("# %s=%s is not a number\n", name, s);
		exit(99);
	}
	return v;
}

static const char *find_sbpl_check(const char *argv0)
{
	static char path[PATH_MAX];
	const char *e = getenv("CORDON_SBPL_CHECK");
	if (e && *e)
		return access(e, X_OK) == 0 ? e : NULL;
	const char *b = getenv("builddir");
	if (b && *b) {
		snprintf(path, sizeof(path), "%s/tests/sbpl-check", b);
		if (access(path, X_OK) == 0)
			return path;
	}
	/* next to this program: tests/unit/.. */
	snprintf(path, sizeof(path), "%s", argv0);
	char *slash = strrchr(path, '/');
	if (slash) {
		snprintf(slash, sizeof(path) - (size_t)(slash - path), "/../sbpl-check");
		if (access(path, X_OK) == 0)
			return path;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--probe") == 0)
		return probe_main();
	unsigned long long seed = env_num("CORDON_EQUIV_SEED", 20240611);
	unsigned cases = (unsigned)env_num("CORDON_EQUIV_CASES", 200);
	unsigned first = (unsigned)env_num("CORDON_EQUIV_FIRST", 0);
	unsigned every = (unsigned)env_num("CORDON_EQUIV_SBPL_EVERY", 2);
	bool keep = env_num("CORDON_EQUIV_KEEP", 0) != 0;
	bool verbose = env_num("CORDON_EQUIV_VERBOSE", 0) != 0;
	max_shown = (size_t)env_num("CORDON_EQUIV_SHOW", 3);
	const char *base = getenv("TMPDIR");
	char basereal[PATH_MAX];
	if (!base || !*base || !realpath(base, basereal))
		snprintf(basereal, sizeof(basereal), "/tmp");
	setvbuf(stdout, NULL, _IOLBF, 0);

	sbpl_check = every ? find_sbpl_check(argv[0]) : NULL;
	const char *b = getenv("CORDON_EQUIV_BWRAP");
	if (b && *b && strcmp(b, "0") != 0) {
		ssize_t n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
		if (n > 0) {
			self_exe[n] = '\0';
			bwrap_bin = strcmp(b, "1") == 0 ? "bwrap" : b;
		}
	}
	printf("# seed %llu, %u cases from %u; sbpl-check: %s\n", seed, cases, first,
	       sbpl_check ? sbpl_check : "not used");
	if (every && !sbpl_check)
		ok(1, "# SKIP tests/sbpl-check not found: no Seatbelt comparison");

	struct world w;
	bool have_world = false;
	for (unsigned i = first; i < first + cases; i++) {
		if (!have_world || i % CASES_PER_TREE == 0) {
			if (have_world)
				world_free(&w, keep);
			rng_state = seed * 0x100000001b3ULL + ((uint64_t)1 << 40) + i / CASES_PER_TREE;
			rnd64();
			world_build(&w, basereal);
			have_world = true;
		}
		run_case(i, seed, &w, sbpl_check && i % every == 0, verbose);
	}
	if (have_world)
		world_free(&w, keep);

	printf("# %zu (policy, path, op) comparisons with the mount plan, %zu with the Seatbelt "
	       "profile\n",
	       total_bwrap, total_sbpl);
	printf("#  results  policies  class\n");
	for (int k = 0; k < C_COUNT; k++)
		printf("# %8zu  %8zu  %s\n", counts[k], cases_with[k], cls_info[k].name);
	for (int k = 0; k < C_COUNT; k++)
		if (cls_info[k].failure && (k != C_MODEL || bwrap_bin))
			ok(counts[k] == 0, "none: %s (%zu)", cls_info[k].name + 4, counts[k]);
	return tap_done();
}
