/* From a parsed shell command to the operations it will perform, through
 * the program specs.  Conservative where the text says too little: an
 * unknown path is a region (or anywhere), an option a spec does not list
 * takes no argument, an operand a spec does not mention is read. */
#include "config.h"

#include "command.h"
#include "command_env.h"
#include "confusable.h"
#include "canon.h"

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
	return r != ROLE_MODIFIES && r != ROLE_RECURSIVE && r != ROLE_FLAG && r != ROLE_REWRITES;
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

static bool declares_recursive(const struct ir_spec *s)
{
	for (size_t i = 0; s && i < s->noptions; i++)
		if (s->options[i].role == ROLE_RECURSIVE)
			return true;
	return false;
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

static void role_word(struct reading *r, const struct shell_word *w, enum ir_role role,
		      const char *what)
{
	char detail[160];
	const char *v;
	switch (role) {
	case ROLE_READ:
	case ROLE_SCRIPTFILE:
		snprintf(detail, sizeof(detail), "read%s (%s%s)",
			 r->recursive && role == ROLE_READ ? ", recursive" : "", r->prog, what);
		add_path(r->out, r->env, r->dir, r->text, r->c, w, IR_READ,
			 r->recursive && role == ROLE_READ, detail);
		break;
	case ROLE_WRITE:
		snprintf(detail, sizeof(detail), "write%s (%s%s)", r->recursive ? ", recursive" : "",
			 r->prog, what);
		add_path(r->out, r->env, r->dir, r->text, r->c, w, IR_WRITE, r->recursive, detail);
		break;
	case ROLE_DELETE:
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
		v = shell_word_static(w);
		if (!v)
			r->opaque = true; /* a program built at run time */
		else
			sed_scan(r, v);
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
	case ROLE_CWD: {
		const char *d = shell_word_static(w);
		char *nd = NULL;
		if (d && d[0] == '/') {
			nd = canon_lexical(d);
		} else if (d && r->dir) {
			char *j = xasprintf("%s/%s", r->dir, d);
			nd = canon_lexical(j);
			free(j);
		}
		free(r->dir);
		r->dir = nd; /* unknown when dynamic */
		break;
	}
	default:
		break;
	}
}

/* A path a spec says the program uses whatever its words: `write ".git";`,
 * relative to the directory it works in, or under ~. */
static void fixed_path(struct reading *r, const char *path, bool write, bool tree)
{
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

/* An option the spec names: what a flag does, or its argument -- glued to
 * the word (--x=V, -xV, key=V) or the next word.  Returns how many words
 * past words[i] it used. */
static size_t apply_option(struct reading *r, const struct ir_option *o,
			   const struct shell_word *w, const char *glued, size_t i)
{
	if (o->role == ROLE_MODIFIES)
		r->modifies = true;
	else if (o->role == ROLE_RECURSIVE)
		r->recursive = true;
	else if (o->role == ROLE_REWRITES)
		add_rewrite(r, o->names[0], shell_word_static(w) ? shell_word_static(w) : o->names[0]);
	if (!takes_arg(o->role))
		return 0;
	if (o->role == ROLE_SCRIPT || o->role == ROLE_SCRIPTFILE || o->role == ROLE_SEDSCRIPT)
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
		struct shell_word sw = { .parts = &part, .nparts = 1, .start = w->start,
					 .end = w->end };
		role_word(r, &sw, o->role, "");
	}
	return 0;
}

/* Read words[from..] against a spec. */
static void read_spec(struct reading *r, const struct ir_spec *prog, size_t from)
{
	const struct shell_cmd *c = r->c;
	const struct ir_spec *sub = prog;
	bool ddash = false;
	r->recursive = prog->recursive;
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
				if (r->nsubs < sizeof(r->subs) / sizeof(*r->subs))
					r->subs[r->nsubs++] = v;
				continue;
			}
		}
		struct operand op = { w, sub->operands };
		VEC_PUSH(r->ops, r->nops, r->cap, op);
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
	for (size_t k = 0; k < r->nops; k++) {
		enum ir_role role = r->ops[k].role;
		if (r->modifies && role == ROLE_READ)
			role = ROLE_WRITE;
		bool saved = r->recursive;
		if (role == ROLE_DELETE)
			r->recursive = tree_deletes;
		role_word(r, r->ops[k].w, role, "");
		r->recursive = saved;
	}
	if (c->flags & SHELL_CMD_EXTRA_ARGS) {
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
			fixed_path(r, wr ? s->writes[k - s->nreads] : s->reads[k], wr, false);
		}
		/* What it deletes when no operand says where. */
		for (size_t k = 0; k < s->ndeletes && r->nops == 0; k++)
			fixed_path(r, s->deletes[k], true, true);
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
		}
	}
	if (c->argi < c->nwords) {
		char why[160];
		const char *caution = cmd_env_caution(c, why, sizeof(why));
		if (caution)
			out->v[first].caution = xstrdup(caution);
	}
	for (size_t i = 0; i < c->nredirs; i++)
		add_redir(out, env, dir, text, c, c->redirs[i]);
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
