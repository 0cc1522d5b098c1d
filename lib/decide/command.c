/* From a parsed shell command to the operations it will perform, through
 * the program specs.  Conservative where the text says too little: an
 * unknown path is a region (or anywhere), an option a spec does not list
 * takes no argument, an operand a spec does not mention is read. */
#include "config.h"

#include "command.h"
#include "command_env.h"
#include "shell/confusable.h"
#include "base/canon.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void cmd_programs_index(struct strmap *map, const struct ir_policy *ir)
{
	strmap_init(map);
	for (size_t i = 0; i < ir->nprograms; i++)
		for (size_t j = 0; j < ir->programs[i].nnames; j++)
			strmap_add(map, ir->programs[i].names[j], strlen(ir->programs[i].names[j]),
				   (uint32_t)i);
}

static const struct ir_spec *find_program(const struct cmd_env *env, const char *prog)
{
	const char *base = strrchr(prog, '/');
	base = base ? base + 1 : prog;
	if (!env->programs)
		return ir_program_find(env->ir, base);
	const struct strmap_entry *e = strmap_get(env->programs, base, strlen(base));
	return e ? &env->ir->programs[e->items[e->nitems - 1]] : NULL;
}

/* ---- recording ------------------------------------------------------------ */

static struct cmd_op *push(struct cmd_ops *out, enum ir_op op, const struct shell_cmd *c)
{
	struct cmd_op o = { .op = op, .cmd = c };
	VEC_PUSH(out->v, out->n, out->cap, o);
	return &out->v[out->n - 1];
}

static char *word_source(const char *text, const struct shell_word *w)
{
	return xstrndup(text + w->start, w->end - w->start);
}

/* The absolute directory a command runs in, or NULL when unknown. */
static char *cmd_dir(const struct cmd_env *env, const char *rel)
{
	if (!rel)
		return NULL;
	if (rel[0] == '/')
		return canon_lexical(rel);
	if (rel[0] == '~' && (rel[1] == '\0' || rel[1] == '/')) {
		if (!env->home)
			return NULL;
		char *j = xasprintf("%s/%s", env->home, rel + 1);
		char *r = canon_lexical(j);
		free(j);
		return r;
	}
	if (!env->cwd)
		return NULL;
	char *j = xasprintf("%s/%s", env->cwd, rel);
	char *r = canon_lexical(j);
	free(j);
	return r;
}

static void re_quote(struct strbuf *sb, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (strchr("\\^$.|?*+()[]{}/-", s[i]))
			sb_addc(sb, '\\');
		sb_addc(sb, s[i]);
	}
}

static bool name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Is every mention of name in text a reference ($NAME, ${NAME})? */
static bool only_referenced(const char *text, size_t len, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = text, *end = text + len; (p = memmem(p, (size_t)(end - p), name, n));
	     p += n) {
		bool before = p > text && name_char(p[-1]);
		bool after = p + n < end && name_char(p[n]);
		if (before || after)
			continue;
		if ((p > text && p[-1] == '$') || (p - text >= 2 && p[-1] == '{' && p[-2] == '$'))
			continue;
		return false;
	}
	return true;
}

/* The value of $NAME or ${NAME} when it is known. */
static const char *known_value(const struct cmd_env *env, const struct shell_part *p)
{
	const char *t = p->text, *name;
	size_t n;
	if (t[0] != '$')
		return NULL;
	if (t[1] == '{') {
		name = t + 2;
		for (n = 0; name_char(name[n]); n++)
			;
		if (name[n] != '}' || name[n + 1])
			return NULL;
	} else {
		name = t + 1;
		for (n = 0; name_char(name[n]); n++)
			;
		if (name[n])
			return NULL;
	}
	for (size_t i = 0; i < env->nvars; i++)
		if (strlen(env->vars[i].name) == n && memcmp(env->vars[i].name, name, n) == 0)
			return env->vars[i].value;
	return NULL;
}

static void add_path_word(struct cmd_ops *out, const struct cmd_env *env, const char *dir,
			  const char *text, const struct shell_cmd *c,
			  const struct shell_word *w, enum ir_op op, bool tree,
			  const char *detail);

/* A word used as a path, made absolute against dir (NULL: unknown).  Known
 * variables are put in first. */
static void add_path(struct cmd_ops *out, const struct cmd_env *env, const char *dir,
		     const char *text, const struct shell_cmd *c, const struct shell_word *w,
		     enum ir_op op, bool tree, const char *detail)
{
	struct shell_part *parts = NULL;
	for (size_t i = 0; i < w->nparts; i++) {
		const char *v;
		if (w->parts[i].kind != SHELL_PART_PARAM || !(v = known_value(env, &w->parts[i])))
			continue;
		if (!parts) {
			parts = xcalloc(w->nparts, sizeof(*parts));
			memcpy(parts, w->parts, w->nparts * sizeof(*parts));
		}
		parts[i].kind = SHELL_PART_LIT;
		parts[i].quoted = true;
		parts[i].text = v;
	}
	if (!parts) {
		add_path_word(out, env, dir, text, c, w, op, tree, detail);
		return;
	}
	struct shell_word sw = *w;
	sw.parts = parts;
	add_path_word(out, env, dir, text, c, &sw, op, tree, detail);
	free(parts);
}

static void add_path_word(struct cmd_ops *out, const struct cmd_env *env, const char *dir,
			  const char *text, const struct shell_cmd *c,
			  const struct shell_word *w, enum ir_op op, bool tree,
			  const char *detail)
{
	struct strbuf lit;
	size_t i = 0;
	bool home = false, anywhere = false;
	sb_init(&lit);
	if (w->nparts && w->parts[0].kind == SHELL_PART_TILDE) {
		if (strcmp(w->parts[0].text, "~") == 0 && env->home)
			home = true;
		else
			anywhere = true; /* ~user, ~+, or no home directory */
		i = 1;
	}
	for (; i < w->nparts && w->parts[i].kind == SHELL_PART_LIT; i++)
		sb_adds(&lit, w->parts[i].text);
	bool exact = i == w->nparts && !anywhere;
	if (exact && !home && lit.len == 0) {
		sb_free(&lit);
		return; /* "" names no file */
	}
	/* The static start, absolute. */
	char *abs = NULL;
	bool relative_unknown = false;
	if (!anywhere) {
		if (home)
			abs = xasprintf("%s/%s", env->home, lit.buf);
		else if (lit.len && lit.buf[0] == '/')
			abs = xstrdup(lit.buf);
		else if (i == 0 && i < w->nparts && w->parts[0].kind != SHELL_PART_GLOB &&
			 w->parts[0].kind != SHELL_PART_BRACE)
			anywhere = true; /* a dynamic start may be absolute */
		else if (dir)
			abs = xasprintf("%s/%s", dir, lit.buf);
		else if (exact)
			relative_unknown = true;
		else
			anywhere = true;
	}
	struct cmd_op *o = push(out, op, c);
	o->shown = word_source(text, w);
	o->detail = xstrdup(detail);
	o->tree = tree;
	if (exact && abs) {
		o->kind = CMD_PATH_EXACT;
		o->target = canon_lexical(abs);
		free(abs);
		sb_free(&lit);
		return;
	}
	if (relative_unknown) {
		/* A relative name, and the cwd is unknown: that name anywhere. */
		struct strbuf re;
		sb_init(&re);
		sb_adds(&re, "(?:.*/)?");
		re_quote(&re, lit.buf, lit.len);
		o->kind = CMD_PATH_REGION;
		o->target = xstrdup("/");
		o->pattern = sb_steal(&re);
		o->maybe = true;
		sb_free(&lit);
		return;
	}
	o->kind = CMD_PATH_REGION;
	if (anywhere || !abs) {
		o->target = xstrdup("/");
		o->pattern = xstrdup(".*");
		o->maybe = true;
		free(abs);
		sb_free(&lit);
		return;
	}
	/* Region: the directory of the static start, then a pattern. */
	char *slash = strrchr(abs, '/');
	char *dirpart = xstrndup(abs, (size_t)(slash - abs));
	o->target = canon_lexical(*dirpart ? dirpart : "/");
	free(dirpart);
	struct strbuf re;
	sb_init(&re);
	re_quote(&re, slash + 1, strlen(slash + 1));
	bool comp_start = slash[1] == '\0';
	for (; i < w->nparts; i++) {
		const struct shell_part *p = &w->parts[i];
		if (p->kind == SHELL_PART_LIT) {
			if (strstr(p->text, "..")) {
				/* A ".." after a glob leaves the region. */
				free(o->target);
				o->target = xstrdup("/");
				sb_free(&re);
				sb_init(&re);
				sb_adds(&re, ".*");
				break;
			}
			re_quote(&re, p->text, strlen(p->text));
			comp_start = p->text[0] && p->text[strlen(p->text) - 1] == '/';
			continue;
		}
		if (p->kind == SHELL_PART_GLOB) {
			if (strcmp(p->text, "*") == 0)
				sb_adds(&re, comp_start ? "(?!\\.)[^/]*" : "[^/]*");
			else if (strcmp(p->text, "?") == 0)
				sb_adds(&re, comp_start ? "(?!\\.)[^/]" : "[^/]");
			else if (strcmp(p->text, "[") != 0)
				sb_adds(&re, "[^/]");
			else {
				sb_adds(&re, ".*");
				break;
			}
			comp_start = false;
			continue;
		}
		if (p->kind == SHELL_PART_TILDE) {
			sb_adds(&re, "~");
			comp_start = false;
			continue;
		}
		if (p->kind == SHELL_PART_BRACE && !memmem(text + w->start, w->end - w->start, "..", 2)) {
			/* {a,b}: static words of an unknown shape, in this directory. */
			sb_adds(&re, ".*");
			break;
		}
		/* An expansion: its value may hold "/" and ".." -- anywhere. */
		free(o->target);
		o->target = xstrdup("/");
		sb_free(&re);
		sb_init(&re);
		sb_adds(&re, ".*");
		o->maybe = p->kind != SHELL_PART_BRACE;
		break;
	}
	o->pattern = sb_steal(&re);
	free(abs);
	sb_free(&lit);
}

/* ---- hosts ---------------------------------------------------------------- */

/* The port a URL's scheme implies, for a URL that names none: so that a
 * rule with a port (`net "registry.npmjs.org:443" allow`) decides the
 * contact the proxy will see.  0: no scheme known to imply one. */
static int scheme_port(const char *v, size_t n)
{
	static const struct {
		const char *scheme;
		int port;
	} ports[] = {
		{ "https", 443 }, { "http", 80 },  { "ssh", 22 },   { "git+ssh", 22 },
		{ "git", 9418 },  { "ftp", 21 },   { "wss", 443 },  { "ws", 80 },
		{ "git+https", 443 }, { "sftp", 22 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(ports); i++)
		if (strlen(ports[i].scheme) == n && strncasecmp(v, ports[i].scheme, n) == 0)
			return ports[i].port;
	return 0;
}

/* The host of a URL, user@host:path, host:port or bare host name; NULL when
 * the word does not look like one.  A URL's scheme and user@host:path
 * (ssh's form) give the port they imply. */
static char *host_of(const char *v)
{
	const char *h = v, *e;
	const char *scheme = strstr(v, "://");
	if (scheme)
		h = scheme + 3;
	const char *at = strchr(h, '@');
	const char *slash = strchr(h, '/');
	if (at && (!slash || at < slash))
		h = at + 1;
	if (*h == '[') {
		e = strchr(h, ']');
		if (!e)
			return NULL;
		e++;
	} else {
		e = h + strcspn(h, ":/?#");
	}
	if (e == h)
		return NULL;
	for (const char *c = h; c < e; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_[]:", *c))
			return NULL;
	/* A bare word without a dot is a remote name or a file, not a host. */
	if (!scheme && !at && !memchr(h, '.', (size_t)(e - h)) && *e != ':')
		return NULL;
	size_t n = (size_t)(e - h);
	const char *port = NULL;
	if (*e == ':' && e[1] >= '0' && e[1] <= '9' && (scheme || !at))
		port = e + 1;
	if (port) {
		size_t pn = strspn(port, "0123456789");
		return xasprintf("%.*s:%.*s", (int)n, h, (int)pn, port);
	}
	int implied = scheme ? scheme_port(v, (size_t)(scheme - v)) : at && *e == ':' ? 22 : 0;
	if (implied)
		return xasprintf("%.*s:%d", (int)n, h, implied);
	return xstrndup(h, n);
}

static void add_net(struct cmd_ops *out, const struct shell_cmd *c, const char *host,
		    const char *shown, const char *detail)
{
	struct cmd_op *o = push(out, IR_NET, c);
	o->target = xstrdup(host ? host : "*");
	o->maybe = !host;
	o->shown = xstrdup(shown);
	o->detail = xstrdup(detail);
}

/* ---- program specs ------------------------------------------------------- */

static const struct ir_option *find_option(const struct ir_spec *s, const char *name, size_t n)
{
	for (size_t i = 0; s && i < s->noptions; i++)
		for (size_t j = 0; j < s->options[i].nnames; j++)
			if (s->options[i].names[j][0] == (n ? name[0] : '\0') && /* most differ there */
			    strlen(s->options[i].names[j]) == n &&
			    memcmp(s->options[i].names[j], name, n) == 0)
				return &s->options[i];
	return NULL;
}

static const struct ir_option *lookup(const struct ir_spec *sub, const struct ir_spec *prog,
				      const char *name, size_t n)
{
	const struct ir_option *o = sub != prog ? find_option(sub, name, n) : NULL;
	return o ? o : find_option(prog, name, n);
}

static bool takes_arg(enum ir_role r)
{
	return r != ROLE_MODIFIES && r != ROLE_RECURSIVE && r != ROLE_FLAG && r != ROLE_REWRITES &&
	       r != ROLE_EXTRACTS && r != ROLE_LISTS && r != ROLE_DELETES && r != ROLE_CHANGES &&
	       r != ROLE_STORE;
}

/* --PREFIX of a long option that rewrites history, as getopt_long and git
 * resolve an abbreviation (--forc).  Only those: a word the spec does not
 * list may be an option of its own (--stat beside --stat-width), and
 * reading it as another that takes an argument would hide the next word. */
static const struct ir_option *abbreviation(const struct ir_spec *sub, const struct ir_spec *prog,
					    const char *name, size_t n)
{
	if (n < 3 || name[0] != '-' || name[1] != '-')
		return NULL;
	for (const struct ir_spec *s = sub; s; s = s == prog ? NULL : prog) {
		for (size_t i = 0; i < s->noptions; i++) {
			const struct ir_option *o = &s->options[i];
			for (size_t j = 0; j < o->nnames; j++) {
				if (o->names[j][0] != '-' || o->names[j][1] != '-' ||
				    o->names[j][2] != name[2] || strlen(o->names[j]) <= n ||
				    memcmp(o->names[j], name, n) != 0)
					continue;
				if (o->role == ROLE_REWRITES)
					return o;
			}
		}
		if (s == prog)
			break;
	}
	return NULL;
}

static bool declares(const struct ir_spec *s, enum ir_role role)
{
	for (size_t i = 0; s && i < s->noptions; i++)
		if (s->options[i].role == role)
			return true;
	return false;
}

static bool declares_recursive(const struct ir_spec *s)
{
	return declares(s, ROLE_RECURSIVE);
}

struct operand {
	const struct shell_word *w;
	enum ir_role role;
};

struct reading {
	const struct cmd_env *env;
	const char *text;
	const struct shell_cmd *c;
	struct cmd_ops *out;
	const char *prog;
	char *dir;           /* where operands are resolved */
	bool modifies, recursive, script, opaque;
	bool extracts, lists, deletes, changes;
	bool remote;         /* HOST:PATH operands are contacts (`remote;`) */
	char *into;          /* where extracted files land (unzip -d), or NULL: dir */
	const char *extracts_dir; /* the spec's `extracts "PATH";`, or NULL */
	bool into_set;       /* an `into` option was given (into NULL: unknown) */
	const char *store;   /* the file changes go to (git config --global), or NULL */
	struct operand *ops;
	size_t nops, cap;
	const char *subs[4]; /* the subcommand words read so far */
	size_t nsubs;
	const char *rewrote[4]; /* the history-rewriting spellings recorded */
	size_t nrewrote;
};

/* The part rewrites or deletes shared history: it also runs as
 * PROG SUB... CANONICAL, the spelling a rule names. */
static void add_rewrite(struct reading *r, const char *canonical, const char *spelled)
{
	for (size_t i = 0; i < r->nrewrote; i++)
		if (strcmp(r->rewrote[i], canonical) == 0)
			return;
	if (r->nrewrote < sizeof(r->rewrote) / sizeof(*r->rewrote))
		r->rewrote[r->nrewrote++] = canonical;
	struct cmd_op *o = push(r->out, IR_EXEC, r->c);
	struct strbuf sb;
	sb_init(&sb);
	o->nwords = r->nsubs + 2;
	o->words = xcalloc(o->nwords + 1, sizeof(*o->words));
	o->dyn = xcalloc(o->nwords + 1, sizeof(*o->dyn));
	o->words[0] = xstrdup(r->prog);
	for (size_t i = 0; i < r->nsubs; i++)
		o->words[i + 1] = xstrdup(r->subs[i]);
	o->words[o->nwords - 1] = xstrdup(canonical);
	for (size_t i = 0; i < o->nwords; i++) {
		if (i)
			sb_addc(&sb, ' ');
		shell_quote_word(&sb, o->words[i], i == 0);
	}
	o->target = sb_steal(&sb);
	o->shown = xstrndup(r->text + r->c->start, r->c->end - r->c->start);
	o->detail = xasprintf("rewrites or deletes shared history (%s, spelled %s)", canonical,
			      spelled);
}

/* A file a sed program names, to the end of its line as sed reads it. */
static const char *sed_file(struct reading *r, const char *p, enum ir_op op, char cmd)
{
	while (*p == ' ' || *p == '\t')
		p++;
	size_t n = strcspn(p, "\n");
	if (n) {
		char *name = xstrndup(p, n);
		struct shell_part part = { .kind = SHELL_PART_LIT, .text = name,
					   .start = r->c->start, .end = r->c->start };
		struct shell_word sw = { .parts = &part, .nparts = 1, .start = r->c->start,
					 .end = r->c->start };
		char detail[160];
		snprintf(detail, sizeof(detail), "%s (%s, its %c command)",
			 op == IR_WRITE ? "write" : "read", r->prog, cmd);
		add_path(r->out, r->env, r->dir, r->text, r->c, &sw, op, false, detail);
		free(r->out->v[r->out->n - 1].shown);
		r->out->v[r->out->n - 1].shown = name;
	}
	return p + n;
}

/* Past a delimited part (a regex or a replacement) that starts at p. */
static const char *sed_part(const char *p, char delim)
{
	while (*p && *p != delim) {
		if (*p == '\\' && p[1])
			p++;
		p++;
	}
	return *p ? p + 1 : p;
}

/* The files a sed program reads and writes (r, R, w, W, s///w) and the
 * code it runs (e, s///e), command by command.  What cannot be read makes
 * the part opaque. */
static void sed_scan(struct reading *r, const char *s)
{
	const char *p = s;
	for (;;) {
		while (*p && strchr(" \t\n;", *p))
			p++;
		if (!*p)
			return;
		/* Up to two addresses: N, $, /RE/, \cREc, first~step, +N. */
		for (int k = 0; k < 2; k++) {
			if ((*p >= '0' && *p <= '9') || *p == '+' || *p == '~') {
				p++;
				while ((*p >= '0' && *p <= '9') || *p == '~')
					p++;
			} else if (*p == '$') {
				p++;
			} else if (*p == '/' || (*p == '\\' && p[1])) {
				char d = *p == '/' ? '/' : p[1];
				p = sed_part(p + (*p == '/' ? 1 : 2), d);
				while (*p == 'I' || *p == 'M')
					p++;
			} else {
				break;
			}
			while (*p == ' ' || *p == '\t')
				p++;
			if (k == 0 && *p == ',') {
				p++;
				while (*p == ' ' || *p == '\t')
					p++;
				continue;
			}
			break;
		}
		while (*p == ' ' || *p == '\t' || *p == '!')
			p++;
		char cmd = *p;
		if (!cmd)
			return;
		p++;
		switch (cmd) {
		case '{': case '}': case '=': case 'd': case 'D': case 'g': case 'G': case 'h':
		case 'H': case 'n': case 'N': case 'p': case 'P': case 'x': case 'z': case 'F':
			break;
		case 'l': case 'L': case 'q': case 'Q':
			while (*p == ' ' || (*p >= '0' && *p <= '9'))
				p++;
			break;
		case '#': case ':': case 'b': case 't': case 'T': case 'v':
			p += strcspn(p, cmd == '#' || cmd == ':' ? "\n" : ";\n");
			break;
		case 'a': case 'i': case 'c':
			/* Text to the end of the line; a backslash continues it. */
			while (*p && !(*p == '\n' && p[-1] != '\\'))
				p++;
			break;
		case 'r': case 'R':
			p = sed_file(r, p, IR_READ, cmd);
			break;
		case 'w': case 'W':
			p = sed_file(r, p, IR_WRITE, cmd);
			break;
		case 'e':
			r->opaque = true;
			p += strcspn(p, "\n");
			break;
		case 'y':
			if (!*p)
				return;
			p = sed_part(sed_part(p + 1, *p), p[0]);
			break;
		case 's': {
			char d = *p;
			if (!d || d == '\n' || d == '\\') {
				r->opaque = true;
				return;
			}
			p = sed_part(sed_part(p + 1, d), d);
			while (*p && !strchr(";\n}", *p)) {
				if (*p == 'w') {
					p = sed_file(r, p + 1, IR_WRITE, 'w');
					break;
				}
				if (*p == 'e')
					r->opaque = true;
				p++;
			}
			break;
		}
		default:
			r->opaque = true; /* not sed as cordon reads it */
			return;
		}
	}
}

/* A directory word's value when it is known before the command runs: its
 * static text, a leading ~ as the home directory, and the variables whose
 * values are known ($TMPDIR).  NULL: known only at run time. */
static char *dir_value(const struct cmd_env *env, const struct shell_word *w)
{
	if (shell_word_static(w))
		return xstrdup(shell_word_static(w));
	struct strbuf sb;
	sb_init(&sb);
	for (size_t i = 0; i < w->nparts; i++) {
		const struct shell_part *p = &w->parts[i];
		const char *v = NULL;
		if (p->kind == SHELL_PART_LIT)
			v = p->text;
		else if (p->kind == SHELL_PART_TILDE && i == 0 && strcmp(p->text, "~") == 0)
			v = env->home;
		else if (p->kind == SHELL_PART_PARAM)
			v = known_value(env, p);
		if (!v) {
			sb_free(&sb);
			return NULL;
		}
		sb_adds(&sb, v);
	}
	return sb_steal(&sb);
}

/* ---- awk programs -------------------------------------------------------- */

static bool is_sink(const char *v);

/* Words of awk after which a '/' starts a regex, not a division. */
static bool awk_keyword(const char *s, size_t n)
{
	static const char *const words[] = { "print", "printf", "return", "in", "getline",
					     "case", "do", "else", "if", "while", "for",
					     "delete", "exit", "next", "nextfile" };
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (strlen(words[i]) == n && memcmp(words[i], s, n) == 0)
			return true;
	return false;
}

enum awk_tok { AWK_END, AWK_WORD, AWK_NUM, AWK_STR, AWK_RE, AWK_PUNCT, AWK_BAD };

struct awk_lex {
	const char *p;
	enum awk_tok kind, prev;
	const char *start;
	size_t len;
	bool operand; /* the last token ends an operand: a '/' after it divides */
};

/* The next token of an awk program; AWK_BAD for what this reader does not
 * follow (a string or a regex that does not end, a newline in a string). */
static enum awk_tok awk_next(struct awk_lex *x)
{
	const char *p = x->p;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (*p == '\\' && p[1] == '\n') {
			p += 2;
			continue;
		}
		if (*p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		break;
	}
	x->start = p;
	x->prev = x->kind;
	if (!*p) {
		x->kind = AWK_END;
	} else if (*p == '"' || (*p == '/' && !x->operand)) {
		char q = *p++;
		while (*p && *p != q && *p != '\n') {
			if (*p == '\\' && p[1])
				p++;
			else if (q == '/' && *p == '[') {
				/* a bracket expression may hold the delimiter */
				p++;
				if (*p == '^')
					p++;
				if (*p == ']')
					p++;
				while (*p && *p != ']' && *p != '\n')
					p++;
				if (*p != ']')
					break;
			}
			p++;
		}
		if (*p != q) {
			x->kind = AWK_BAD;
			return x->kind;
		}
		p++;
		x->kind = q == '"' ? AWK_STR : AWK_RE;
	} else if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_') {
		while (name_char(*p))
			p++;
		x->kind = AWK_WORD;
	} else if ((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')) {
		while (name_char(*p) || *p == '.')
			p++;
		x->kind = AWK_NUM;
	} else {
		/* One or two characters of punctuation: >>, >=, <=, ==, !=, &&, ++, ... */
		if (p[1] && strchr("><=!&+-*/%^", p[0]) &&
		    (p[1] == '=' || (p[1] == p[0] && strchr("><&+-", p[0]))))
			p++;
		p++;
		x->kind = AWK_PUNCT;
	}
	x->len = (size_t)(p - x->start);
	x->p = p;
	x->operand = x->kind == AWK_NUM || x->kind == AWK_STR || x->kind == AWK_RE ||
		     (x->kind == AWK_WORD && !awk_keyword(x->start, x->len)) ||
		     (x->kind == AWK_PUNCT && x->len == 1 && strchr(")]$", *x->start)) ||
		     (x->kind == AWK_PUNCT && x->len == 2 &&
		      (!memcmp(x->start, "++", 2) || !memcmp(x->start, "--", 2)));
	return x->kind;
}

static bool awk_is(const struct awk_lex *x, const char *s)
{
	return x->len == strlen(s) && memcmp(x->start, s, x->len) == 0;
}

/* A string literal used as a file name: the file, or NULL when it holds an
 * escape (its value is not its text). */
static void awk_file(struct reading *r, const struct awk_lex *x, enum ir_op op, const char *how)
{
	const char *s = x->start + 1;
	size_t n = x->len - 2;
	if (memchr(s, '\\', n) || n == 0 || (n >= 6 && memcmp(s, "/inet", 5) == 0)) {
		r->opaque = true; /* an escape, no name, or gawk's network files */
		return;
	}
	char *name = xstrndup(s, n);
	if (is_sink(name)) {
		free(name); /* print > "/dev/stderr" */
		return;
	}
	struct shell_part part = { .kind = SHELL_PART_LIT, .text = name, .start = r->c->start,
				   .end = r->c->start };
	struct shell_word sw = { .parts = &part, .nparts = 1, .lit = name, .start = r->c->start,
				 .end = r->c->start };
	char detail[160];
	snprintf(detail, sizeof(detail), "%s (%s, its %s)", op == IR_WRITE ? "write" : "read",
		 r->prog, how);
	add_path(r->out, r->env, r->dir, r->text, r->c, &sw, op, false, detail);
	free(r->out->v[r->out->n - 1].shown);
	r->out->v[r->out->n - 1].shown = name;
}

/* The files an awk program writes (print > "FILE", >> "FILE") and reads
 * (getline < "FILE").  Whatever runs code, reaches the environment or the
 * argument list, uses a pipe, or names a file by a value known only at run
 * time makes the part opaque, as does anything this reader does not
 * follow. */
static void awk_scan(struct reading *r, const char *s)
{
	static const char *const opaque_words[] = { "system", "ENVIRON", "ARGV", "ARGC",
						    "PROCINFO", "SYMTAB", "FUNCTAB", "extension",
						    "|", "@", "/inet" };
	for (size_t i = 0; i < ARRAY_SIZE(opaque_words); i++)
		if (strstr(s, opaque_words[i])) {
			r->opaque = true;
			return;
		}
	struct awk_lex x = { .p = s };
	bool printing = false; /* in a print or printf statement */
	int depth = 0;         /* parentheses since it started */
	while (awk_next(&x) != AWK_END) {
		if (x.kind == AWK_BAD) {
			r->opaque = true;
			return;
		}
		if (x.kind == AWK_WORD && (awk_is(&x, "print") || awk_is(&x, "printf"))) {
			printing = true;
			depth = 0;
			continue;
		}
		if (x.kind == AWK_PUNCT && (awk_is(&x, ";") || awk_is(&x, "}") || awk_is(&x, "{") ||
					    *x.start == '\n')) {
			printing = false;
			continue;
		}
		if (x.kind == AWK_PUNCT && awk_is(&x, "("))
			depth++;
		else if (x.kind == AWK_PUNCT && awk_is(&x, ")"))
			depth--;
		if (printing && depth <= 0 && x.kind == AWK_PUNCT &&
		    (awk_is(&x, ">") || awk_is(&x, ">>"))) {
			/* print ... > "FILE": the file, then the statement ends. */
			if (awk_next(&x) != AWK_STR) {
				r->opaque = true;
				return;
			}
			struct awk_lex file = x;
			if (awk_next(&x) != AWK_END && !(x.kind == AWK_PUNCT &&
						       (awk_is(&x, ";") || awk_is(&x, "}") ||
							*x.start == '\n'))) {
				r->opaque = true; /* "a" x: a name built at run time */
				return;
			}
			awk_file(r, &file, IR_WRITE, "print >");
			if (r->opaque || x.kind == AWK_END)
				return;
			printing = false;
			continue;
		}
		if (x.kind == AWK_WORD && awk_is(&x, "getline")) {
			/* getline [VAR] [< "FILE"] */
			struct awk_lex save = x;
			awk_next(&x);
			if (x.kind == AWK_WORD && !awk_keyword(x.start, x.len)) {
				save = x;
				awk_next(&x);
				if (x.kind == AWK_PUNCT && awk_is(&x, "[")) {
					r->opaque = true; /* getline a[i] < FILE: not followed here */
					return;
				}
			}
			if (x.kind == AWK_PUNCT && awk_is(&x, "<")) {
				if (awk_next(&x) != AWK_STR) {
					r->opaque = true;
					return;
				}
				awk_file(r, &x, IR_READ, "getline <");
				if (r->opaque)
					return;
				continue;
			}
			if (x.kind == AWK_PUNCT && awk_is(&x, "$")) {
				r->opaque = true; /* getline $expr: not followed here */
				return;
			}
			x = save; /* the token after getline is read again */
			continue;
		}
	}
}

/* rsync and scp read a word as [USER@]HOST:PATH (or rsync://HOST/PATH)
 * when a ':' comes before any '/'; ./a:b and /a:b are local. */
static bool remote_operand(const char *v)
{
	if (!v || v[0] == '/' || v[0] == '.')
		return false;
	if (strncmp(v, "rsync://", 8) == 0)
		return true;
	size_t colon = strcspn(v, ":/");
	return colon > 0 && v[colon] == ':';
}

/* A word of a command find -exec runs that holds {}: the paths find
 * passes, which lie below its starting points.  Each starting point is a
 * tree; with no test before -exec every path below it is passed (a tree
 * known in full), otherwise some of them (members known only at run time).
 * Returns false when they cannot be narrowed: a dynamic starting point or
 * directory, -execdir, a word that does not start with {}. */
static bool find_args(struct reading *r, const struct shell_word *w, enum ir_role role,
		      const char *what)
{
	const char *v = shell_word_static(w);
	const struct shell_cmd *c = r->c;
	if (!(c->flags & SHELL_CMD_FIND_EXEC) || !c->nwrappers || !r->dir || !v ||
	    strncmp(v, "{}", 2) != 0 || (role != ROLE_READ && role != ROLE_WRITE &&
					 role != ROLE_DELETE))
		return false;
	const struct shell_wrapper *fw = &c->wrappers[c->nwrappers - 1];
	const char *base = strrchr(fw->name, '/');
	if (strcmp(base ? base + 1 : fw->name, "find") != 0 || fw->nwords < 2)
		return false;
	size_t k = 1, first;
	for (; k < fw->nwords; k++) { /* -H, -L, -P before the starting points */
		const char *o = shell_word_static(fw->words[k]);
		if (!o || (strcmp(o, "-H") != 0 && strcmp(o, "-L") != 0 && strcmp(o, "-P") != 0))
			break;
	}
	first = k;
	for (; k < fw->nwords; k++) {
		const char *o = shell_word_static(fw->words[k]);
		if (!o)
			return false;
		if (o[0] == '-' || strcmp(o, "(") == 0 || strcmp(o, "!") == 0)
			break;
	}
	/* The wrapper's words end with the -exec that runs this command. */
	if (k >= fw->nwords)
		return false;
	bool every = k == fw->nwords - 1; /* no test before -exec */
	char detail[160];
	snprintf(detail, sizeof(detail), "%s, recursive (%s%s, the paths find passes)",
		 role == ROLE_READ ? "read" : role == ROLE_WRITE ? "write" : "delete", r->prog, what);
	size_t n0 = r->out->n;
	for (size_t i = first; i < k || (i == first && first == k); i++) {
		/* No starting point: find starts at ".". */
		const char *start = i < k ? shell_word_static(fw->words[i]) : ".";
		char *dir;
		if (start[0] == '/') {
			dir = canon_lexical(start);
		} else {
			char *j = xasprintf("%s/%s", r->dir, start);
			dir = canon_lexical(j);
			free(j);
		}
		struct cmd_op *o = push(r->out, role == ROLE_READ ? IR_READ : IR_WRITE, c);
		o->kind = CMD_PATH_EXACT;
		o->target = dir;
		o->tree = true;
		o->members = !every;
		o->shown = xstrdup(start);
		o->detail = xstrdup(detail);
		if (i >= k)
			break;
	}
	return r->out->n > n0;
}

static void role_word(struct reading *r, const struct shell_word *w, enum ir_role role,
		      const char *what)
{
	char detail[160];
	const char *v;
	if (r->c->flags & SHELL_CMD_FIND_EXEC) {
		v = shell_word_static(w);
		if (v && strstr(v, "{}") && find_args(r, w, role, what))
			return;
		if (v && strstr(v, "{}") && role != ROLE_NONE && role != ROLE_ARG) {
			/* {} inside a word, or paths that cannot be narrowed:
			 * anywhere, known only at run time. */
			struct shell_part part = { .kind = SHELL_PART_PARAM, .text = "{}" };
			struct shell_word sw = { .parts = &part, .nparts = 1, .start = w->start,
						 .end = w->end };
			w = &sw;
			role_word(r, w, role, what);
			return;
		}
	}
	if (r->remote && (role == ROLE_READ || role == ROLE_WRITE || role == ROLE_DELETE) &&
	    remote_operand(shell_word_static(w)))
		role = ROLE_NET; /* a path on another host: a contact of that host */
	switch (role) {
	case ROLE_READ:
	case ROLE_SCRIPTFILE:
		snprintf(detail, sizeof(detail), "read%s (%s%s)",
			 r->recursive && role == ROLE_READ ? ", recursive" : "", r->prog, what);
		add_path(r->out, r->env, r->dir, r->text, r->c, w, IR_READ,
			 r->recursive && role == ROLE_READ, detail);
		break;
	case ROLE_WRITE:
		if (r->lists)
			break; /* a listing or a dry run writes nothing */
		snprintf(detail, sizeof(detail), "write%s (%s%s)", r->recursive ? ", recursive" : "",
			 r->prog, what);
		add_path(r->out, r->env, r->dir, r->text, r->c, w, IR_WRITE, r->recursive, detail);
		break;
	case ROLE_DELETE:
		if (r->lists)
			break;
		snprintf(detail, sizeof(detail), "delete%s (%s%s)", r->recursive ? ", recursive" : "",
			 r->prog, what);
		add_path(r->out, r->env, r->dir, r->text, r->c, w, IR_WRITE, r->recursive, detail);
		break;
	case ROLE_NET:
		v = shell_word_static(w);
		snprintf(detail, sizeof(detail), "network (%s%s)", r->prog, what);
		{
			char *h = v ? host_of(v) : NULL;
			char *shown = word_source(r->text, w);
			add_net(r->out, r->c, h, shown, detail);
			free(shown);
			free(h);
		}
		break;
	case ROLE_OPAQUE:
		r->opaque = true;
		break;
	case ROLE_SEDSCRIPT:
	case ROLE_AWKSCRIPT:
		v = shell_word_static(w);
		if (!v)
			r->opaque = true; /* a program built at run time */
		else if (role == ROLE_SEDSCRIPT)
			sed_scan(r, v);
		else
			awk_scan(r, v);
		break;
	case ROLE_REFSPEC:
		/* +SRC:DST forces the update of DST; :DST (nothing pushed) deletes it. */
		v = shell_word_static(w);
		if (v && v[0] == '+')
			add_rewrite(r, "--force", v);
		else if (v && v[0] == ':' && v[1])
			add_rewrite(r, "--delete", v);
		break;
	case ROLE_RUN:
		/* The code in the file runs: what it does is not seen here. */
		r->opaque = true;
		v = shell_word_static(w);
		if (v && strcmp(v, "-") == 0)
			break; /* the program comes from stdin */
		snprintf(detail, sizeof(detail), "read (%s%s, the code it runs)", r->prog, what);
		add_path(r->out, r->env, r->dir, r->text, r->c, w, IR_READ, false, detail);
		break;
	case ROLE_CWD:
	case ROLE_INTO: {
		char *d = dir_value(r->env, w);
		char *nd = NULL;
		if (d && d[0] == '/') {
			nd = canon_lexical(d);
		} else if (d && r->dir) {
			char *j = xasprintf("%s/%s", r->dir, d);
			nd = canon_lexical(j);
			free(j);
		}
		free(d);
		/* unknown when dynamic */
		if (role == ROLE_CWD) {
			free(r->dir);
			r->dir = nd;
		} else {
			free(r->into);
			r->into = nd;
			r->into_set = true;
		}
		break;
	}
	case ROLE_CHANGES:
		r->changes = true;
		break;
	case ROLE_VARIABLE:
		break; /* printenv NAME: command_env.c judges the name */
	default:
		break;
	}
}

/* A path a spec says the program uses whatever its words: `write ".git";`,
 * relative to the directory it works in, or under ~. */
static void fixed_path(struct reading *r, const char *path, bool write, bool tree)
{
	if (strcmp(path, "*") == 0) {
		/* A path known only at run time (git stash's work tree, above
		 * a subdirectory): anywhere. */
		char detail[160];
		snprintf(detail, sizeof(detail), "%s (%s uses a path known only at run time)",
			 tree ? "delete, recursive" : write ? "write" : "read", r->prog);
		struct cmd_op *o = push(r->out, write ? IR_WRITE : IR_READ, r->c);
		o->kind = CMD_PATH_REGION;
		o->target = xstrdup("/");
		o->pattern = xstrdup(".*");
		o->maybe = true;
		o->tree = tree;
		o->shown = xstrdup("(a path known only at run time)");
		o->detail = xstrdup(detail);
		return;
	}
	/* A read relative to a directory known only at run time (git status
	 * under git submodule foreach) is left out: it names no path a rule
	 * could judge.  Writes there stay, as a name anywhere. */
	if (!write && !r->dir && path[0] != '/' && path[0] != '~')
		return;
	struct shell_part parts[2] = { { .kind = SHELL_PART_LIT, .text = path } };
	struct shell_word sw = { .parts = parts, .nparts = 1, .start = r->c->start,
				 .end = r->c->start };
	if (path[0] == '~' && (path[1] == '/' || !path[1])) {
		parts[0].kind = SHELL_PART_TILDE;
		parts[0].text = "~";
		parts[1].kind = SHELL_PART_LIT;
		parts[1].text = path + 1;
		sw.nparts = path[1] ? 2 : 1;
	}
	char detail[160];
	snprintf(detail, sizeof(detail), "%s (%s uses %s)",
		 tree ? "delete, recursive" : write ? "write" : "read", r->prog, path);
	add_path(r->out, r->env, r->dir, r->text, r->c, &sw, write ? IR_WRITE : IR_READ, tree,
		 detail);
	/* The preview shows the path, not the command it came from. */
	free(r->out->v[r->out->n - 1].shown);
	r->out->v[r->out->n - 1].shown = xstrdup(path);
}

/* Files the program does not name land below the directory it extracts
 * into (tar -x -C DIR, unzip -d DIR, patch): a write of that tree whose
 * members are known only at run time.  Archivers refuse members with ".."
 * and strip a leading "/", so they stay below it. */
static void add_members(struct reading *r)
{
	const char *dir = r->into_set ? r->into : r->dir;
	char *own = NULL;
	if (!r->into_set && r->extracts_dir) {
		/* The spec's directory: "*" is one known only at run time. */
		dir = own = strcmp(r->extracts_dir, "*") == 0 ? NULL : cmd_dir(r->env, r->extracts_dir);
		if (own && r->extracts_dir[0] != '/' && r->extracts_dir[0] != '~' && r->dir) {
			free(own);
			char *j = xasprintf("%s/%s", r->dir, r->extracts_dir);
			dir = own = canon_lexical(j);
			free(j);
		}
	}
	char detail[160];
	snprintf(detail, sizeof(detail),
		 "write, recursive (%s writes files it does not name below this directory)",
		 r->prog);
	struct cmd_op *o = push(r->out, IR_WRITE, r->c);
	o->detail = xstrdup(detail);
	o->tree = true;
	if (!dir) {
		/* A directory known only at run time: anywhere. */
		o->kind = CMD_PATH_REGION;
		o->target = xstrdup("/");
		o->pattern = xstrdup(".*");
		o->maybe = true;
		o->shown = xstrdup("(a directory known only at run time)");
		return;
	}
	o->kind = CMD_PATH_EXACT;
	o->target = xstrdup(dir);
	o->members = true;
	o->shown = xstrdup(dir);
	free(own);
}

/* An option the spec names: what a flag does, or its argument -- glued to
 * the word (--x=V, -xV, key=V) or the next word.  Returns how many words
 * past words[i] it used. */
static size_t apply_option(struct reading *r, const struct ir_option *o,
			   const struct shell_word *w, const char *glued, size_t i)
{
	if (o->role == ROLE_MODIFIES)
		r->modifies = true;
	else if (o->role == ROLE_EXTRACTS)
		r->modifies = r->extracts = true;
	else if (o->role == ROLE_LISTS)
		r->lists = true;
	else if (o->role == ROLE_DELETES)
		r->deletes = true;
	else if (o->role == ROLE_CHANGES)
		r->changes = true;
	else if (o->role == ROLE_STORE)
		r->store = o->path;
	else if (o->role == ROLE_RECURSIVE)
		r->recursive = true;
	else if (o->role == ROLE_REWRITES)
		add_rewrite(r, o->names[0], shell_word_static(w) ? shell_word_static(w) : o->names[0]);
	if (!takes_arg(o->role))
		return 0;
	/* The program's code came through an option (sed -e, awk -f): the
	 * first operand is an input, not the code. */
	if (o->role == ROLE_SCRIPT || o->role == ROLE_SCRIPTFILE || o->role == ROLE_SEDSCRIPT ||
	    o->role == ROLE_AWKSCRIPT || o->role == ROLE_RUN)
		r->script = true;
	if (!glued) {
		if (i + 1 >= r->c->nwords)
			return 0;
		role_word(r, r->c->words[i + 1], o->role, "");
		return 1;
	}
	/* The value sits inside this word, which is static. */
	if (o->role == ROLE_OPAQUE) {
		r->opaque = true;
	} else if (o->role != ROLE_ARG && o->role != ROLE_SCRIPT) {
		struct shell_part part = { .kind = SHELL_PART_LIT, .text = glued,
					   .start = w->start, .end = w->end };
		struct shell_word sw = { .parts = &part, .nparts = 1, .lit = glued,
					 .start = w->start, .end = w->end };
		role_word(r, &sw, o->role, "");
	}
	return 0;
}

/* Read words[from..] against a spec. */
static void read_spec(struct reading *r, const struct ir_spec *prog, size_t from);

/* python3 -m MODULE ARGS: the module's code is not seen (opaque), but a
 * module with a spec of its own (pip, pytest) does what that spec says
 * with the words after it.  Returns true when it read them. */
static bool read_module(struct reading *r, const char *name, size_t from)
{
	r->opaque = true;
	const struct ir_spec *spec = name ? find_program(r->env, name) : NULL;
	if (!spec)
		return false;
	struct reading m = { .env = r->env, .text = r->text, .c = r->c, .out = r->out,
			     .prog = name, .dir = r->dir ? xstrdup(r->dir) : NULL };
	read_spec(&m, spec, from);
	free(m.ops);
	free(m.dir);
	free(m.into);
	return true;
}

static void read_spec(struct reading *r, const struct ir_spec *prog, size_t from)
{
	const struct shell_cmd *c = r->c;
	const struct ir_spec *sub = prog;
	bool ddash = false;
	r->recursive = prog->recursive;
	r->remote = prog->remote;
	for (size_t i = from; i < c->nwords; i++) {
		const struct shell_word *w = c->words[i];
		const char *v = shell_word_static(w);
		if (v && !ddash && strcmp(v, "--") == 0) {
			ddash = true;
			continue;
		}
		if (v && !ddash && v[0] == '-' && v[1]) {
			const struct ir_option *o;
			const char *arg = NULL;
			/* -m MODULE, -mMODULE: the rest of the words are the module's. */
			o = v[1] != '-' ? lookup(sub, prog, (char[3]){ '-', v[1], 0 }, 2) : NULL;
			if (o && o->role == ROLE_MODULE) {
				const char *name = v[2] ? v + 2
					    : i + 1 < c->nwords ? shell_word_static(c->words[i + 1]) : NULL;
				if (read_module(r, name, i + (v[2] ? 1 : 2)))
					break;
				i += v[2] ? 0 : 1;
				continue;
			}
			if (v[1] == '-' || (o = lookup(sub, prog, v, strlen(v)))) {
				/* --long[=value], or a single-dash word the spec names */
				const char *eq = strchr(v, '=');
				size_t n = eq ? (size_t)(eq - v) : strlen(v);
				o = lookup(sub, prog, v, n);
				if (!o)
					o = abbreviation(sub, prog, v, n);
				if (!o)
					continue;
				if (eq)
					arg = eq + 1;
				i += apply_option(r, o, w, arg, i);
				continue;
			}
			/* Short options, maybe bundled: -xzf FILE. */
			for (size_t k = 1; v[k]; k++) {
				char name[3] = { '-', v[k], 0 };
				o = lookup(sub, prog, name, 2);
				if (!o)
					continue;
				if (!takes_arg(o->role)) {
					apply_option(r, o, w, NULL, i);
					continue;
				}
				i += apply_option(r, o, w, v[k + 1] ? v + k + 1 : NULL, i);
				break;
			}
			continue;
		}
		/* +COMMAND words a spec names as the option "+": less +G, vim +CMD. */
		const struct ir_option *plus =
			v && !ddash && v[0] == '+' && v[1] ? lookup(sub, prog, "+", 1) : NULL;
		if (plus) {
			apply_option(r, plus, w, v + 1, i);
			continue;
		}
		/* key=value operands a spec names as options: dd of=FILE. */
		const char *eq = v && !ddash ? strchr(v, '=') : NULL;
		const struct ir_option *kv = eq ? lookup(sub, prog, v, (size_t)(eq - v) + 1) : NULL;
		if (kv) {
			apply_option(r, kv, w, eq + 1, i);
			continue;
		}
		/* Subcommands nest: `git stash list`, `uv pip install`. */
		if (r->nops == 0 && v) {
			const struct ir_spec *s = NULL;
			for (size_t k = 0; k < sub->nsubs && !s; k++)
				for (size_t j = 0; j < sub->subs[k].nnames; j++)
					if (strcmp(sub->subs[k].names[j], v) == 0)
						s = &sub->subs[k];
			if (s) {
				sub = s;
				r->recursive = r->recursive || s->recursive;
				r->remote = r->remote || s->remote;
				if (r->nsubs < sizeof(r->subs) / sizeof(*r->subs))
					r->subs[r->nsubs++] = v;
				continue;
			}
		}
		struct operand op = { w, sub->operands };
		VEC_PUSH(r->ops, r->nops, r->cap, op);
	}
	/* A program run without a subcommand that runs one (yarn: install). */
	if (sub == prog && r->nops == 0 && prog->bare) {
		for (size_t k = 0; k < prog->nsubs && sub == prog; k++)
			for (size_t j = 0; j < prog->subs[k].nnames; j++)
				if (strcmp(prog->subs[k].names[j], prog->bare) == 0)
					sub = &prog->subs[k];
		if (sub != prog && r->nsubs < sizeof(r->subs) / sizeof(*r->subs))
			r->subs[r->nsubs++] = prog->bare;
	}
	/* Code given by an option (python3 -c, perl -e): the first operand
	 * is not the file of code to run, but may be one the code reads. */
	if (r->nops && sub->has_first && !r->script)
		r->ops[0].role = sub->first == ROLE_RUN && r->opaque ? ROLE_READ : sub->first;
	if (r->nops >= 2 && sub->has_last)
		r->ops[r->nops - 1].role = sub->last;
	/* A delete is of a whole tree unless the program has a recursive
	 * option and it was not given. */
	bool tree_deletes = r->recursive || (!declares_recursive(sub) && !declares_recursive(prog));
	bool extracting = r->extracts || sub->extracts || prog->extracts;
	r->extracts_dir = sub->extracts_dir ? sub->extracts_dir : prog->extracts_dir;
	bool named = false; /* an operand names what is written */
	for (size_t k = 0; k < r->nops; k++) {
		enum ir_role role = r->ops[k].role;
		if (r->modifies && role == ROLE_READ)
			role = ROLE_WRITE;
		if (r->deletes && role == ROLE_WRITE)
			role = ROLE_DELETE; /* git stash -u -- PATH removes PATH's untracked files */
		bool saved = r->recursive;
		if (role == ROLE_DELETE)
			r->recursive = r->deletes || tree_deletes;
		named = named || role == ROLE_WRITE || role == ROLE_DELETE;
		char *dir = r->dir;
		if (extracting && r->into_set && (role == ROLE_WRITE || role == ROLE_DELETE))
			r->dir = r->into; /* members named land in the extraction directory */
		role_word(r, r->ops[k].w, role, "");
		r->dir = dir;
		r->recursive = saved;
	}
	if (extracting && !named && !r->lists)
		add_members(r);
	if ((c->flags & SHELL_CMD_EXTRA_ARGS) && !(c->flags & SHELL_CMD_FIND_EXEC)) {
		/* xargs and find -exec ... + add operands only known at run time. */
		enum ir_role role = sub->operands == ROLE_READ && r->modifies ? ROLE_WRITE : sub->operands;
		if (role == ROLE_DELETE)
			r->recursive = r->recursive || tree_deletes;
		struct shell_part part = { .kind = SHELL_PART_PARAM, .text = "{}" };
		struct shell_word sw = { .parts = &part, .nparts = 1, .start = c->start, .end = c->start };
		role_word(r, &sw, role, ", arguments added at run time");
	}
	for (const struct ir_spec *s = sub; s; s = s == prog ? NULL : prog) {
		for (size_t k = 0; k < s->nreads + s->nwrites; k++) {
			bool wr = k >= s->nreads;
			if (wr && r->lists)
				break;
			fixed_path(r, wr ? s->writes[k - s->nreads] : s->reads[k], wr, false);
		}
		/* What it deletes when no operand says where: with a flag that
		 * says so, when the spec has one (git stash -u). */
		bool deleting = !r->lists && r->nops == 0 &&
				(r->deletes || (!declares(sub, ROLE_DELETES) && !declares(prog, ROLE_DELETES)));
		for (size_t k = 0; k < s->ndeletes && deleting; k++)
			fixed_path(r, s->deletes[k], true, true);
		/* What it changes when an operand or a flag says it does. */
		for (size_t k = 0; k < s->nchanges && r->changes && !r->lists; k++) {
			if (r->store && k > 0)
				break;
			fixed_path(r, r->store ? r->store : s->changes[k], true, false);
		}
		for (size_t k = 0; k < s->nhosts; k++) {
			char detail[160];
			snprintf(detail, sizeof(detail), "network (%s contacts it)", r->prog);
			bool any = strcmp(s->hosts[k], "*") == 0;
			add_net(r->out, c, any ? NULL : s->hosts[k], s->hosts[k], detail);
		}
		if (s == prog)
			break;
	}
}

/* find's starting points: the words before the expression. */
static void find_deletes(struct reading *r)
{
	const struct shell_cmd *c = r->c;
	bool any = false;
	r->recursive = true;
	for (size_t i = c->argi + 1; i < c->nwords; i++) {
		const char *v = shell_word_static(c->words[i]);
		if (v && (v[0] == '-' || strcmp(v, "(") == 0 || strcmp(v, "!") == 0))
			break;
		role_word(r, c->words[i], ROLE_DELETE, " -delete");
		any = true;
	}
	if (!any) {
		struct shell_part part = { .kind = SHELL_PART_LIT, .text = "." };
		struct shell_word sw = { .parts = &part, .nparts = 1, .start = c->start, .end = c->start };
		role_word(r, &sw, ROLE_DELETE, " -delete");
	}
	r->recursive = false;
}

/* ---- redirections -------------------------------------------------------- */

static bool is_sink(const char *v)
{
	static const char *const sinks[] = { "/dev/null", "/dev/stdin", "/dev/stdout",
					     "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/random",
					     "/dev/urandom" };
	for (size_t i = 0; i < sizeof(sinks) / sizeof(*sinks); i++)
		if (strcmp(v, sinks[i]) == 0)
			return true;
	return strncmp(v, "/dev/fd/", 8) == 0;
}

static void add_redir(struct cmd_ops *out, const struct cmd_env *env, const char *dir,
		      const char *text, const struct shell_cmd *c, const struct shell_redir *rd)
{
	static const char *const names[] = {
		[SHELL_REDIR_IN] = "<",       [SHELL_REDIR_OUT] = ">",
		[SHELL_REDIR_APPEND] = ">>",  [SHELL_REDIR_CLOBBER] = ">|",
		[SHELL_REDIR_RDWR] = "<>",    [SHELL_REDIR_HEREDOC] = "<<",
		[SHELL_REDIR_HEREDOC_TABS] = "<<-", [SHELL_REDIR_HERESTRING] = "<<<",
		[SHELL_REDIR_DUP_IN] = "<&",  [SHELL_REDIR_DUP_OUT] = ">&",
		[SHELL_REDIR_OUT_ERR] = "&>", [SHELL_REDIR_APPEND_ERR] = "&>>",
	};
	bool rd_in = false, wr = false;
	switch (rd->op) {
	case SHELL_REDIR_IN:
		rd_in = true;
		break;
	case SHELL_REDIR_RDWR:
		rd_in = wr = true;
		break;
	case SHELL_REDIR_OUT:
	case SHELL_REDIR_APPEND:
	case SHELL_REDIR_CLOBBER:
	case SHELL_REDIR_OUT_ERR:
	case SHELL_REDIR_APPEND_ERR:
		wr = true;
		break;
	case SHELL_REDIR_DUP_IN:
	case SHELL_REDIR_DUP_OUT: {
		const char *v = shell_word_static(rd->target);
		if (v && (strcmp(v, "-") == 0 || (v[0] && strspn(v, "0123456789") == strlen(v))))
			return; /* a descriptor */
		rd_in = rd->op == SHELL_REDIR_DUP_IN;
		wr = !rd_in;
		break;
	}
	default:
		return; /* here-documents and here-strings name no file */
	}
	const char *v = shell_word_static(rd->target);
	char detail[64];
	if (v && (strncmp(v, "/dev/tcp/", 9) == 0 || strncmp(v, "/dev/udp/", 9) == 0)) {
		const char *h = v + 9, *sl = strchr(h, '/');
		char *host = sl ? xasprintf("%.*s:%s", (int)(sl - h), h, sl + 1) : xstrdup(h);
		snprintf(detail, sizeof(detail), "network (redirection %s)", names[rd->op]);
		add_net(out, c, host, v, detail);
		free(host);
		return;
	}
	if (v && is_sink(v))
		return;
	if (rd_in) {
		snprintf(detail, sizeof(detail), "read (redirection %s)", names[rd->op]);
		add_path(out, env, dir, text, c, rd->target, IR_READ, false, detail);
	}
	if (wr) {
		snprintf(detail, sizeof(detail), "write (redirection %s)", names[rd->op]);
		add_path(out, env, dir, text, c, rd->target, IR_WRITE, false, detail);
	}
}

/* ---- commands ------------------------------------------------------------ */

static void add_exec(struct cmd_ops *out, const char *text, const struct shell_cmd *c,
		     bool opaque, const char *detail)
{
	struct cmd_op *o = push(out, IR_EXEC, c);
	struct strbuf sb;
	sb_init(&sb);
	o->opaque = opaque;
	o->nwords = c->nwords - c->argi;
	o->words = xcalloc(o->nwords + 1, sizeof(*o->words));
	o->dyn = xcalloc(o->nwords + 1, sizeof(*o->dyn));
	for (size_t i = 0; i < o->nwords; i++) {
		const struct shell_word *w = c->words[c->argi + i];
		const char *v = shell_word_static(w);
		o->words[i] = v ? xstrdup(v) : word_source(text, w);
		o->dyn[i] = !v;
		if (i)
			sb_addc(&sb, ' ');
		/* The line exec rules match: a static word quoted so that a
		 * space in it cannot pass for a word boundary. */
		if (v)
			shell_quote_word(&sb, v, i == 0);
		else
			sb_adds(&sb, o->words[i]);
	}
	o->target = sb_steal(&sb);
	o->shown = xstrndup(text + c->start, c->end - c->start);
	o->detail = xstrdup(detail);
}

/* The words that commands of a script run from a string hand to the string's
 * shell (bash -c STRING, eval, watch CMD): each with the command that
 * holds it, sorted by address, so that whether a command runs nested is
 * one binary search and a script of n commands takes O(n log n), not n^2. */
struct nested_word {
	const struct shell_word *word;
	const struct shell_cmd *owner;
};

static int nested_word_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct nested_word *)a)->word;
	uintptr_t y = (uintptr_t)((const struct nested_word *)b)->word;
	return x < y ? -1 : x > y;
}

static struct nested_word *nested_words(const struct shell_script *sc, size_t *count)
{
	size_t n = 0, cap = 0;
	struct nested_word *v = NULL;
	for (size_t i = 0, nc = shell_cmd_count(sc); i < nc; i++) {
		const struct shell_cmd *in = shell_cmd_get(sc, i);
		if (!(in->flags & SHELL_CMD_IN_STRING) || !in->nwrappers)
			continue;
		const struct shell_wrapper *w = &in->wrappers[in->nwrappers - 1];
		for (size_t k = 0; k < w->nwords; k++)
			VEC_PUSH(v, n, cap, ((struct nested_word){ w->words[k], in }));
	}
	sort_items(v, n, sizeof(*v), nested_word_cmp);
	*count = n;
	return v;
}

/* Does some other command of the script run from c's string?  Then what c
 * runs is analysed there, not opaque. */
static bool runs_nested(const struct nested_word *v, size_t n, const struct shell_cmd *c)
{
	if (c->argi >= c->nwords || !n)
		return false;
	const struct shell_word *word = c->words[c->argi];
	size_t lo = 0, hi = n;
	while (lo < hi) { /* the first entry at or after word */
		size_t mid = lo + (hi - lo) / 2;
		if ((uintptr_t)v[mid].word < (uintptr_t)word)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && v[lo].word == word; lo++)
		if (v[lo].owner != c)
			return true;
	return false;
}

/* Does an operation of the part (from index first) read /proc/PID/environ,
 * the environment of a process, which holds what a host passes it?  Under
 * cordon's sandbox /proc shows the sandbox's own processes only. */
static bool reads_environ(const struct cmd_ops *out, size_t first)
{
	for (size_t k = first; k < out->n; k++) {
		const struct cmd_op *o = &out->v[k];
		if (o->op != IR_READ || !o->target)
			continue;
		if (o->kind == CMD_PATH_EXACT && fnmatch("/proc/*/environ", o->target, FNM_PATHNAME) == 0)
			return true;
		if (o->kind == CMD_PATH_REGION && o->shown && strstr(o->shown, "environ") &&
		    (strcmp(o->target, "/proc") == 0 || strncmp(o->target, "/proc/", 6) == 0))
			return true;
	}
	return false;
}

static void analyse_cmd(const struct cmd_env *env, const char *text, const struct shell_cmd *c,
			bool nested, struct cmd_ops *out)
{
	char *dir = cmd_dir(env, c->cwd);
	size_t first = out->n;
	if (c->argi < c->nwords) {
		bool opaque = (c->flags & SHELL_CMD_OPAQUE) != 0;
		add_exec(out, text, c, opaque, opaque ? c->reason ? c->reason : "opaque" : "runs");
		if (c->flags & SHELL_CMD_DOWNLOADS)
			add_net(out, c, NULL, c->reason ? c->reason : "", "network (fetches the program it runs)");
		const struct ir_spec *runs = opaque && c->prog ? find_program(env, c->prog) : NULL;
		if (runs && runs->has_first && runs->first == ROLE_RUN) {
			/* A shell whose script name is not static (bash ~/x, bash
			 * "$F"): opaque, but the script it reads is still read. */
			struct reading r = { .env = env, .text = text, .c = c, .out = out };
			const char *base = strrchr(c->prog, '/');
			r.prog = base ? base + 1 : c->prog;
			r.dir = dir ? xstrdup(dir) : NULL;
			read_spec(&r, runs, c->argi + 1);
			free(r.ops);
			free(r.dir);
			free(r.into);
		}
		if (!opaque && c->prog) {
			struct reading r = { .env = env, .text = text, .c = c, .out = out };
			const char *base = strrchr(c->prog, '/');
			r.prog = base ? base + 1 : c->prog;
			r.dir = dir ? xstrdup(dir) : NULL;
			const struct ir_spec *spec = find_program(env, c->prog);
			if (spec)
				read_spec(&r, spec, c->argi + 1);
			if (c->flags & SHELL_CMD_FIND_DELETE)
				find_deletes(&r);
			free(out->v[first].detail);
			if (c->flags & SHELL_CMD_GIT_EXEC) {
				/* git -c core.hooksPath=..., an alias with "!": git runs
				 * a program its configuration names. */
				out->v[first].opaque = true;
				out->v[first].detail =
					xstrdup("opaque: git runs a program named on its command line");
			} else if (r.opaque && !nested) {
				out->v[first].opaque = true;
				out->v[first].detail = xasprintf(
					"opaque: %s runs code given on its command line", r.prog);
			} else if (spec || nested) {
				out->v[first].detail =
					spec ? xasprintf("runs (spec \"%s\")", r.prog)
					     : xasprintf("runs the command in its string (%s)", r.prog);
			} else {
				/* What it does with its words is not known: opaque. */
				char *like = confusable_fold(r.prog);
				const struct ir_spec *known = like ? find_program(env, like) : NULL;
				out->v[first].unknown = true;
				out->v[first].detail =
					known ? xasprintf("unknown: no program spec for '%s', which looks "
							  "like '%s'",
							  r.prog, like)
					      : xasprintf("unknown: no program spec for '%s'", r.prog);
				free(like);
			}
			free(r.ops);
			free(r.dir);
			free(r.into);
		}
	}
	if (c->argi < c->nwords) {
		char why[160];
		const char *caution =
			cmd_env_caution(env->names, c, c->prog ? find_program(env, c->prog) : NULL,
					why, sizeof(why));
		if (caution)
			out->v[first].caution = xstrdup(caution);
	}
	for (size_t i = 0; i < c->nredirs; i++)
		add_redir(out, env, dir, text, c, c->redirs[i]);
	if (c->argi < c->nwords && !out->v[first].caution && reads_environ(out, first))
		out->v[first].caution =
			xstrdup("it reads a process's environment (/proc/PID/environ)");
	free(dir);
}

void cmd_analyse(const struct cmd_env *env, const struct shell_script *script, const char *text,
		 size_t len, struct cmd_ops *out)
{
	size_t n = shell_cmd_count(script);
	struct cmd_env e = *env;
	struct cmd_var *vars = xcalloc(env->nvars + 1, sizeof(*vars));
	e.vars = vars;
	e.nvars = 0;
	for (size_t i = 0; i < env->nvars; i++)
		if (only_referenced(text, len, env->vars[i].name))
			vars[e.nvars++] = env->vars[i];
	size_t nnested;
	struct nested_word *nested = nested_words(script, &nnested);
	for (size_t i = 0; i < n; i++) {
		const struct shell_cmd *c = shell_cmd_get(script, i);
		analyse_cmd(&e, text, c, runs_nested(nested, nnested, c), out);
	}
	free(nested);
	free(vars);
}

void cmd_ops_free(struct cmd_ops *ops)
{
	for (size_t i = 0; i < ops->n; i++) {
		struct cmd_op *o = &ops->v[i];
		free(o->target);
		free(o->shown);
		free(o->detail);
		free(o->pattern);
		free(o->caution);
		for (size_t k = 0; k < o->nwords; k++)
			free(o->words[k]);
		free(o->words);
		free(o->dyn);
	}
	free(ops->v);
	memset(ops, 0, sizeof(*ops));
}
