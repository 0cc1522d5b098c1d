/* From a parsed shell command to the operations it will perform, through
 * the program specs.  Conservative where the text says too little: an
 * unknown path is a region (or anywhere), an option a spec does not list
 * takes no argument, an operand a spec does not mention is read. */
#include "config.h"

#include "command_int.h"
#include "command_env.h"
#include "shell/confusable.h"
#include "base/canon.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const struct ir_spec *ca_find_program(const struct cmd_env *env, const char *prog)
{
	const char *base = strrchr(prog, '/');
	base = base ? base + 1 : prog;
	if (!env->programs)
		return ir_program_find(env->ir, base);
	const struct strmap_entry *e = strmap_get(env->programs, base, strlen(base));
	return e ? ir_spec_ready(&env->ir->programs[e->items[e->nitems - 1]]) : NULL;
}

/* ---- recording ------------------------------------------------------------ */

struct cmd_op *ca_push(struct cmd_ops *out, enum ir_op op, const struct shell_cmd *c)
{
	struct cmd_op o = { .op = op, .cmd = c };
	VEC_PUSH(out->v, out->n, out->cap, o);
	return &out->v[out->n - 1];
}

const char *ca_keep(struct cmd_ops *out, const char *s)
{
	return s ? arena_strdup(&out->arena, s) : NULL;
}

const char *ca_keepn(struct cmd_ops *out, const char *s, size_t n)
{
	return arena_strndup(&out->arena, s, n);
}

const char *ca_keep_sb(struct cmd_ops *out, struct strbuf *sb)
{
	const char *s = arena_strndup(&out->arena, sb->buf ? sb->buf : "", sb->len);
	sb_free(sb);
	return s;
}

const char *ca_own(struct cmd_ops *out, char *s)
{
	const char *k = ca_keep(out, s);
	free(s);
	return k;
}

const char *ca_printf(struct cmd_ops *out, const char *fmt, ...)
{
	char buf[256];
	va_list ap, cp;
	va_start(ap, fmt);
	va_copy(cp, ap);
	int n = vsnprintf(buf, sizeof(buf), fmt, cp);
	va_end(cp);
	char *s;
	if (n < 0) {
		s = arena_strdup(&out->arena, "");
	} else if ((size_t)n < sizeof(buf)) {
		s = arena_strndup(&out->arena, buf, (size_t)n);
	} else {
		s = arena_alloc(&out->arena, (size_t)n + 1);
		vsnprintf(s, (size_t)n + 1, fmt, ap);
	}
	va_end(ap);
	return s;
}

void ca_join(char *buf, size_t size, ...)
{
	va_list ap;
	size_t at = 0;
	va_start(ap, size);
	for (const char *p; (p = va_arg(ap, const char *));) {
		size_t n = strlen(p);
		if (at + n >= size)
			n = size - 1 - at;
		memcpy(buf + at, p, n);
		at += n;
	}
	va_end(ap);
	buf[at] = '\0';
}

const char *ca_cat(struct cmd_ops *out, ...)
{
	va_list ap;
	size_t n = 0;
	va_start(ap, out);
	for (const char *p; (p = va_arg(ap, const char *));)
		n += strlen(p);
	va_end(ap);
	char *s = arena_alloc(&out->arena, n + 1), *at = s;
	va_start(ap, out);
	for (const char *p; (p = va_arg(ap, const char *));) {
		size_t k = strlen(p);
		memcpy(at, p, k);
		at += k;
	}
	va_end(ap);
	*at = '\0';
	return s;
}

const char *ca_word_source(struct cmd_ops *out, const char *text, const struct shell_word *w)
{
	return ca_keepn(out, text + w->start, w->end - w->start);
}

/* canon_lexical, through canon_lexical_into: a path already normal (most
 * are) is copied whole, not a component at a time. */
static char *lexical(const char *path)
{
	struct strbuf sb;
	sb_init(&sb);
	canon_lexical_into(&sb, path);
	return sb_steal(&sb);
}

/* The absolute directory a command runs in, or NULL when unknown. */
char *ca_cmd_dir(const struct cmd_env *env, const char *rel)
{
	if (!rel)
		return NULL;
	if (rel[0] == '/')
		return lexical(rel);
	if (rel[0] == '~' && (rel[1] == '\0' || rel[1] == '/')) {
		if (!env->home)
			return NULL;
		char *j = xstrcat(env->home, "/", rel + 1, (char *)NULL);
		char *r = lexical(j);
		free(j);
		return r;
	}
	if (!env->cwd)
		return NULL;
	char *j = xstrcat(env->cwd, "/", rel, (char *)NULL);
	char *r = lexical(j);
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

bool ca_name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Is every mention of name in text a reference ($NAME, ${NAME})?  Each
 * mention is found by memchr for its first byte and a compare: the names
 * are short and upper case, and memmem spends more setting up than this
 * takes over a command line. */
static bool only_referenced(const char *text, size_t len, const char *name)
{
	size_t n = strlen(name);
	if (!n)
		return false; /* "" is mentioned, unreferenced, at the start */
	const char *p = text, *end = text + len;
	while ((size_t)(end - p) >= n && (p = memchr(p, name[0], (size_t)(end - p) - n + 1))) {
		if (memcmp(p, name, n) != 0) {
			p++;
			continue;
		}
		bool before = p > text && ca_name_char(p[-1]);
		bool after = p + n < end && ca_name_char(p[n]);
		if (before || after || (p > text && p[-1] == '$') ||
		    (p - text >= 2 && p[-1] == '{' && p[-2] == '$')) {
			p += n;
			continue;
		}
		return false;
	}
	return true;
}

/* The value of $NAME or ${NAME} when it is known. */
const char *ca_known_value(const struct cmd_env *env, const struct shell_part *p)
{
	const char *t = p->text, *name;
	size_t n;
	if (t[0] != '$')
		return NULL;
	if (t[1] == '{') {
		name = t + 2;
		for (n = 0; ca_name_char(name[n]); n++)
			;
		if (name[n] != '}' || name[n + 1])
			return NULL;
	} else {
		name = t + 1;
		for (n = 0; ca_name_char(name[n]); n++)
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
void ca_add_path(struct cmd_ops *out, const struct cmd_env *env, const char *dir,
		     const char *text, const struct shell_cmd *c, const struct shell_word *w,
		     enum ir_op op, bool tree, const char *detail)
{
	struct shell_part *parts = NULL;
	for (size_t i = 0; i < w->nparts; i++) {
		const char *v;
		if (w->parts[i].kind != SHELL_PART_PARAM || !(v = ca_known_value(env, &w->parts[i])))
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

/* The buffers of add_path_word: the word's static start, that made
 * absolute, and that normalised; add_exec builds its line in the first. */
enum { SCRATCH_LIT, SCRATCH_ABS, SCRATCH_NORMAL };

/* Scratch buffer k of the analysis, emptied. */
static struct strbuf *scratch(struct cmd_ops *out, int k)
{
	struct strbuf *sb = &out->scratch[k];
	if (!sb->buf)
		sb_init(sb);
	sb->len = 0;
	sb->buf[0] = '\0';
	return sb;
}

/* canon_lexical of path, in the operations' arena without a copy of its
 * own on the heap. */
static const char *ca_lexical(struct cmd_ops *out, const char *path)
{
	struct strbuf *sb = scratch(out, SCRATCH_NORMAL);
	canon_lexical_into(sb, path);
	return arena_strndup(&out->arena, sb->buf, sb->len);
}

/* abs made of the strings up to a NULL, in scratch buffer SCRATCH_ABS. */
static char *scratch_cat(struct cmd_ops *out, ...) __attribute__((sentinel));
static char *scratch_cat(struct cmd_ops *out, ...)
{
	struct strbuf *sb = scratch(out, SCRATCH_ABS);
	va_list ap;
	va_start(ap, out);
	for (const char *p; (p = va_arg(ap, const char *));)
		sb_adds(sb, p);
	va_end(ap);
	return sb->buf;
}

/* Where a path word starts: its literal parts up to the first that is
 * not, made absolute when that can be known. */
struct path_start {
	struct strbuf *lit;    /* the literal parts (scratch buffer SCRATCH_LIT) */
	size_t next;           /* the first part after them */
	bool exact;            /* the word is all literal: one path, not a region */
	bool anywhere;         /* it may start anywhere (~user, a dynamic start) */
	bool relative_unknown; /* exact and relative, where the cwd is unknown */
	char *abs;             /* the static start, absolute, or NULL */
};

/* The start of w, resolved in dir (NULL: unknown); false when the word
 * names no file (""). */
static bool path_start(struct cmd_ops *out, const struct cmd_env *env, const char *dir,
		       const struct shell_word *w, struct path_start *ps)
{
	struct strbuf *lit = scratch(out, SCRATCH_LIT);
	size_t i = 0;
	bool home = false;
	*ps = (struct path_start){ .lit = lit };
	if (w->nparts && w->parts[0].kind == SHELL_PART_TILDE) {
		if (strcmp(w->parts[0].text, "~") == 0 && env->home)
			home = true;
		else
			ps->anywhere = true; /* ~user, ~+, or no home directory */
		i = 1;
	}
	for (; i < w->nparts && w->parts[i].kind == SHELL_PART_LIT; i++)
		sb_adds(lit, w->parts[i].text);
	ps->next = i;
	ps->exact = i == w->nparts && !ps->anywhere;
	if (ps->exact && !home && lit->len == 0)
		return false; /* "" names no file */
	if (ps->anywhere)
		return true;
	if (home)
		ps->abs = scratch_cat(out, env->home, "/", lit->buf, (char *)NULL);
	else if (lit->len && lit->buf[0] == '/')
		ps->abs = lit->buf;
	else if (i == 0 && i < w->nparts && w->parts[0].kind != SHELL_PART_GLOB &&
		 w->parts[0].kind != SHELL_PART_BRACE)
		ps->anywhere = true; /* a dynamic start may be absolute */
	else if (dir)
		ps->abs = scratch_cat(out, dir, "/", lit->buf, (char *)NULL);
	else if (ps->exact)
		ps->relative_unknown = true;
	else
		ps->anywhere = true;
	return true;
}

/* What a part after the static start does to the region's pattern. */
enum part_step {
	PART_GO_ON,     /* appended to it: the next part */
	PART_REST_HERE, /* the rest is anything in this directory */
	PART_LEAVES,    /* a ".." after a glob leaves the region: anywhere */
	PART_EXPANDS,   /* an expansion, whose value may hold "/" and "..": anywhere */
};

/* Part p of w (in text), as PCRE in re; *comp_start: a component starts
 * here, where a glob does not match a leading dot. */
static enum part_step part_regex(struct strbuf *re, const char *text, const struct shell_word *w,
				 const struct shell_part *p, bool *comp_start)
{
	switch (p->kind) {
	case SHELL_PART_LIT:
		if (strstr(p->text, ".."))
			return PART_LEAVES;
		re_quote(re, p->text, strlen(p->text));
		*comp_start = p->text[0] && p->text[strlen(p->text) - 1] == '/';
		return PART_GO_ON;
	case SHELL_PART_GLOB:
		if (strcmp(p->text, "*") == 0)
			sb_adds(re, *comp_start ? "(?!\\.)[^/]*" : "[^/]*");
		else if (strcmp(p->text, "?") == 0)
			sb_adds(re, *comp_start ? "(?!\\.)[^/]" : "[^/]");
		else if (strcmp(p->text, "[") != 0)
			sb_adds(re, "[^/]");
		else
			return PART_REST_HERE;
		*comp_start = false;
		return PART_GO_ON;
	case SHELL_PART_TILDE:
		sb_adds(re, "~");
		*comp_start = false;
		return PART_GO_ON;
	case SHELL_PART_BRACE:
		/* {a,b}: static words of an unknown shape, in this directory;
		 * {1..9} may be anything. */
		if (!memmem(text + w->start, w->end - w->start, "..", 2))
			return PART_REST_HERE;
		return PART_EXPANDS;
	default:
		return PART_EXPANDS;
	}
}

/* o, a region: the directory of the static start abs, and a pattern of
 * the parts from the next on below it. */
static void path_region(struct cmd_ops *out, const char *text, const struct shell_word *w,
			struct cmd_op *o, const char *abs, size_t next)
{
	const char *slash = strrchr(abs, '/');
	char *dirpart = xstrndup(abs, (size_t)(slash - abs));
	o->target = ca_lexical(out, *dirpart ? dirpart : "/");
	free(dirpart);
	struct strbuf re;
	sb_init(&re);
	re_quote(&re, slash + 1, strlen(slash + 1));
	bool comp_start = slash[1] == '\0';
	for (size_t i = next; i < w->nparts; i++) {
		const struct shell_part *p = &w->parts[i];
		enum part_step step = part_regex(&re, text, w, p, &comp_start);
		if (step == PART_GO_ON)
			continue;
		if (step != PART_REST_HERE) {
			o->target = "/";
			sb_free(&re);
			sb_init(&re);
		}
		if (step == PART_EXPANDS)
			o->maybe = p->kind != SHELL_PART_BRACE;
		sb_adds(&re, ".*");
		break;
	}
	o->pattern = ca_keep_sb(out, &re);
}

/* The operation op on the path word w of c: one path when it is all
 * literal and its directory known, else a region (a directory and a
 * pattern below it), or anywhere. */
static void add_path_word(struct cmd_ops *out, const struct cmd_env *env, const char *dir,
			  const char *text, const struct shell_cmd *c,
			  const struct shell_word *w, enum ir_op op, bool tree,
			  const char *detail)
{
	struct path_start ps;
	if (!path_start(out, env, dir, w, &ps))
		return;
	struct cmd_op *o = ca_push(out, op, c);
	o->shown = ca_word_source(out, text, w);
	o->detail = ca_keep(out, detail);
	o->tree = tree;
	if (ps.exact && ps.abs) {
		o->kind = CMD_PATH_EXACT;
		o->target = ca_lexical(out, ps.abs);
		return;
	}
	if (ps.relative_unknown) {
		/* A relative name, and the cwd is unknown: that name anywhere. */
		struct strbuf re;
		sb_init(&re);
		sb_adds(&re, "(?:.*/)?");
		re_quote(&re, ps.lit->buf, ps.lit->len);
		o->kind = CMD_PATH_REGION;
		o->target = "/";
		o->pattern = ca_keep_sb(out, &re);
		o->maybe = true;
		return;
	}
	o->kind = CMD_PATH_REGION;
	if (ps.anywhere || !ps.abs) {
		o->target = "/";
		o->pattern = ".*";
		o->maybe = true;
		return;
	}
	path_region(out, text, w, o, ps.abs, ps.next);
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
char *ca_host_of(const char *v)
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

void ca_add_net(struct cmd_ops *out, const struct shell_cmd *c, const char *host,
		    const char *shown, const char *detail)
{
	struct cmd_op *o = ca_push(out, IR_NET, c);
	o->target = host ? ca_keep(out, host) : "*";
	o->maybe = !host;
	o->shown = ca_keep(out, shown);
	o->detail = ca_keep(out, detail);
}

/* ---- redirections -------------------------------------------------------- */

bool ca_is_sink(const char *v)
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
		ca_join(detail, sizeof(detail), "network (redirection ", names[rd->op], ")", (char *)NULL);
		ca_add_net(out, c, host, v, detail);
		free(host);
		return;
	}
	if (v && ca_is_sink(v))
		return;
	if (rd_in) {
		ca_join(detail, sizeof(detail), "read (redirection ", names[rd->op], ")", (char *)NULL);
		ca_add_path(out, env, dir, text, c, rd->target, IR_READ, false, detail);
	}
	if (wr) {
		ca_join(detail, sizeof(detail), "write (redirection ", names[rd->op], ")", (char *)NULL);
		ca_add_path(out, env, dir, text, c, rd->target, IR_WRITE, false, detail);
	}
}

/* ---- commands ------------------------------------------------------------ */

static void add_exec(struct cmd_ops *out, const char *text, const struct shell_cmd *c,
		     bool opaque, const char *detail)
{
	struct cmd_op *o = ca_push(out, IR_EXEC, c);
	struct strbuf *sb = scratch(out, SCRATCH_LIT);
	o->opaque = opaque;
	o->nwords = c->nwords - c->argi;
	o->words = arena_alloc0(&out->arena, (o->nwords + 1) * sizeof(*o->words));
	o->dyn = arena_alloc0(&out->arena, (o->nwords + 1) * sizeof(*o->dyn));
	for (size_t i = 0; i < o->nwords; i++) {
		const struct shell_word *w = c->words[c->argi + i];
		const char *v = shell_word_static(w);
		o->words[i] = v ? ca_keep(out, v) : ca_word_source(out, text, w);
		o->dyn[i] = !v;
		if (i)
			sb_addc(sb, ' ');
		/* The line exec rules match: a static word quoted so that a
		 * space in it cannot pass for a word boundary. */
		if (v)
			shell_quote_word(sb, v, i == 0);
		else
			sb_adds(sb, o->words[i]);
	}
	o->target = ca_keepn(out, sb->buf, sb->len);
	o->shown = ca_keepn(out, text + c->start, c->end - c->start);
	o->detail = ca_keep(out, detail);
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

/* A reading of c's words as prog's (a path: its basename), resolved in
 * dir (copied; NULL: unknown); reading_done frees what it gathered. */
static void reading_start(struct reading *r, const struct cmd_env *env, const char *text,
			  const struct shell_cmd *c, struct cmd_ops *out, const char *prog,
			  const char *dir)
{
	const char *base = strrchr(prog, '/');
	*r = (struct reading){ .env = env, .text = text, .c = c, .out = out,
			       .prog = base ? base + 1 : prog };
	r->dir = dir ? xstrdup(dir) : NULL;
}

static void reading_done(struct reading *r)
{
	free(r->ops);
	free(r->dir);
	free(r->into);
}

/* Why the exec of a program read through its spec, or without one, is
 * what it is: the first reason that holds, in this order, sets the
 * detail of *x (and marks it opaque or unknown).  nested: c runs the
 * command of a string (sh -c), whose own commands speak for it. */
static void mark_program(const struct cmd_env *env, struct cmd_ops *out, struct cmd_op *x,
			 const struct reading *r, const struct ir_spec *spec, bool nested)
{
	if (r->c->flags & SHELL_CMD_GIT_EXEC) {
		/* git -c core.hooksPath=..., an alias with "!": git runs a
		 * program its configuration names. */
		x->opaque = true;
		x->detail = "opaque: git runs a program named on its command line";
	} else if (r->opaque && !nested) {
		x->opaque = true;
		x->detail = r->stdin_code
				    ? ca_printf(out, "opaque: %s runs code from its standard input",
						r->prog)
				    : ca_printf(out, "opaque: %s runs code given on its command line",
						r->prog);
	} else if (r->shell_escape && !nested) {
		x->opaque = true;
		x->detail = ca_printf(out, "opaque: %s runs shell commands its input asks for",
				      r->prog);
	} else if (r->host && !nested) {
		x->opaque = true;
		x->detail = ca_printf(out, "opaque: %s changes the host outside the files it names "
					   "(processes, services, network links)",
				      r->prog);
	} else if (spec || nested) {
		x->detail = spec ? ca_cat(out, "runs (spec \"", r->prog, "\")", (char *)NULL)
				 : ca_cat(out, "runs the command in its string (", r->prog, ")",
					  (char *)NULL);
	} else {
		/* What it does with its words is not known: opaque. */
		char *like = confusable_fold(r->prog);
		const struct ir_spec *known = like ? ca_find_program(env, like) : NULL;
		x->unknown = true;
		x->detail = known ? ca_printf(out, "unknown: no program spec for '%s', which looks "
						   "like '%s'",
					      r->prog, like)
				  : ca_printf(out, "unknown: no program spec for '%s'", r->prog);
		free(like);
	}
}

/* A program whose words are static: its operations through its spec
 * (find -delete's too), and the detail of its exec, out->v[first]. */
static void read_program(const struct cmd_env *env, const char *text, const struct shell_cmd *c,
			 const char *dir, bool nested, const struct ir_spec *spec,
			 struct cmd_ops *out, size_t first)
{
	struct reading r;
	reading_start(&r, env, text, c, out, c->prog, dir);
	if (spec)
		ca_read_spec(&r, spec, c->argi + 1);
	if (c->flags & SHELL_CMD_FIND_DELETE)
		ca_find_deletes(&r);
	mark_program(env, out, &out->v[first], &r, spec, nested);
	/* `project;`: the code it runs is in files the agent may have
	 * written (a Makefile, package.json, conftest.py).  Not opaque: the
	 * rules that name the program still speak for it. */
	if (r.project && !nested)
		out->v[first].project = ca_printf(
			out, "%s runs the project's code, from files of the directory it "
			     "works in",
			r.prog);
	reading_done(&r);
}

/* The exec of c's program and what its words do: opaque when the words
 * are not static, though a shell whose script name is not (bash ~/x,
 * bash "$F") still reads that script. */
static void analyse_exec(const struct cmd_env *env, const char *text, const struct shell_cmd *c,
			 const char *dir, bool nested, const struct ir_spec *spec,
			 struct cmd_ops *out, size_t first)
{
	bool opaque = (c->flags & SHELL_CMD_OPAQUE) != 0;
	add_exec(out, text, c, opaque, opaque ? c->reason ? c->reason : "opaque" : "runs");
	if (c->flags & SHELL_CMD_DOWNLOADS)
		ca_add_net(out, c, NULL, c->reason ? c->reason : "", "network (fetches the program it runs)");
	if (opaque && spec && spec->has_first && spec->first == ROLE_RUN) {
		struct reading r;
		reading_start(&r, env, text, c, out, c->prog, dir);
		ca_read_spec(&r, spec, c->argi + 1);
		reading_done(&r);
	}
	if (!opaque && c->prog)
		read_program(env, text, c, dir, nested, spec, out, first);
}

/* The files the wrappers of this command's own words name (time -o
 * FILE); those of a string's holders were read with its command.  A
 * relative one lies in the command's directory when no wrapper after it
 * may move that (env -C), else in one known only at run time. */
static void read_wrappers(const struct cmd_env *env, const char *text, const struct shell_cmd *c,
			  const char *dir, struct cmd_ops *out)
{
	for (size_t k = 0; k < c->nwrappers; k++) {
		const struct shell_wrapper *w = &c->wrappers[k];
		const struct ir_spec *wspec = w->name ? ca_find_program(env, w->name) : NULL;
		size_t at = 0;
		while (at < c->argi && c->words + at != w->words)
			at++;
		if (!wspec || at >= c->argi)
			continue;
		struct reading r;
		reading_start(&r, env, text, c, out, w->name, k + 1 == c->nwrappers ? dir : NULL);
		ca_read_wrapper(&r, wspec, at, w->nwords);
		reading_done(&r);
	}
}

/* The shell opens c's redirections where it is, before a wrapper moved
 * the command (env -C sub true > f writes ./f). */
static void add_redirs(const struct cmd_env *env, const char *text, const struct shell_cmd *c,
		       const char *dir, struct cmd_ops *out)
{
	bool moved = c->shell_cwd != c->cwd &&
		     !(c->shell_cwd && c->cwd && strcmp(c->shell_cwd, c->cwd) == 0);
	char *shell_dir = moved && c->nredirs ? ca_cmd_dir(env, c->shell_cwd) : NULL;
	for (size_t i = 0; i < c->nredirs; i++)
		add_redir(out, env, moved ? shell_dir : dir, text, c, c->redirs[i]);
	free(shell_dir);
}

/* dir: where c runs (ca_cmd_dir of its cwd), NULL when unknown. */
static void analyse_cmd(const struct cmd_env *env, const char *text, const struct shell_cmd *c,
			const char *dir, bool nested, struct cmd_ops *out)
{
	size_t first = out->n;
	bool runs = c->argi < c->nwords; /* not only assignments and redirections */
	/* The program's spec, looked up once for the reading and the caution. */
	const struct ir_spec *spec = runs && c->prog ? ca_find_program(env, c->prog) : NULL;
	if (runs) {
		analyse_exec(env, text, c, dir, nested, spec, out, first);
		char why[160];
		const char *caution =
			cmd_env_caution(env->names, env->md, c, spec, why, sizeof(why));
		if (caution)
			out->v[first].caution = ca_keep(out, caution);
	}
	read_wrappers(env, text, c, dir, out);
	add_redirs(env, text, c, dir, out);
	if (runs && !out->v[first].caution && reads_environ(out, first))
		out->v[first].caution = "it reads a process's environment (/proc/PID/environ)";
}

void cmd_analyse(const struct cmd_env *env, const struct shell_script *script, const char *text,
		 size_t len, struct cmd_ops *out)
{
	size_t n = shell_cmd_count(script);
	struct cmd_env e = *env;
	struct cmd_var *vars = xcalloc(env->nvars + 1, sizeof(*vars));
	e.vars = vars;
	e.nvars = 0;
	e.text_len = len;
	for (size_t i = 0; i < env->nvars; i++)
		if (only_referenced(text, len, env->vars[i].name))
			vars[e.nvars++] = env->vars[i];
	size_t nnested;
	struct nested_word *nested = nested_words(script, &nnested);
	/* Commands in a row mostly run in one directory (cd DIR && a && b):
	 * the directory of the one before is kept while the cwd is the same. */
	const char *cwd = NULL;
	char *dir = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct shell_cmd *c = shell_cmd_get(script, i);
		if (!i || !(c->cwd == cwd || (c->cwd && cwd && strcmp(c->cwd, cwd) == 0))) {
			free(dir);
			dir = ca_cmd_dir(&e, c->cwd);
			cwd = c->cwd;
		}
		analyse_cmd(&e, text, c, dir, runs_nested(nested, nnested, c), out);
	}
	free(dir);
	free(nested);
	free(vars);
}

void cmd_ops_free(struct cmd_ops *ops)
{
	for (size_t k = 0; k < sizeof(ops->scratch) / sizeof(*ops->scratch); k++)
		sb_free(&ops->scratch[k]);
	arena_free(&ops->arena);
	free(ops->v);
	memset(ops, 0, sizeof(*ops));
}
