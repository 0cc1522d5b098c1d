/* The languages some programs read: sed scripts and awk programs, for
 * the files they read and write and the commands they run. */
#include "config.h"

#include "command_int.h"
#include "command_env.h"
#include "shell/confusable.h"
#include "base/canon.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A file a sed program names, to the end of its line as sed reads it. */
static const char *sed_file(struct reading *r, const char *p, enum ir_op op, char cmd)
{
	while (*p == ' ' || *p == '\t')
		p++;
	size_t n = strcspn(p, "\n");
	if (n) {
		const char *name = ca_keepn(r->out, p, n);
		struct shell_part part = { .kind = SHELL_PART_LIT, .text = name,
					   .start = r->c->start, .end = r->c->start };
		struct shell_word sw = { .parts = &part, .nparts = 1, .start = r->c->start,
					 .end = r->c->start };
		char detail[160];
		snprintf(detail, sizeof(detail), "%s (%s, its %c command)",
			 op == IR_WRITE ? "write" : "read", r->prog, cmd);
		ca_add_path(r->out, r->env, r->dir, r->text, r->c, &sw, op, false, detail);
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

static const char *sed_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Past one address at p (N, $, /RE/, \cREc, first~step, +N), or NULL
 * when none starts there. */
static const char *sed_address(const char *p)
{
	if ((*p >= '0' && *p <= '9') || *p == '+' || *p == '~') {
		p++;
		while ((*p >= '0' && *p <= '9') || *p == '~')
			p++;
		return p;
	}
	if (*p == '$')
		return p + 1;
	if (*p == '/' || (*p == '\\' && p[1])) {
		char d = *p == '/' ? '/' : p[1];
		p = sed_part(p + (*p == '/' ? 1 : 2), d);
		while (*p == 'I' || *p == 'M')
			p++;
		return p;
	}
	return NULL;
}

/* Past a command's addresses: none, one, or two split by ','. */
static const char *sed_addresses(const char *p)
{
	for (int k = 0; k < 2; k++) {
		const char *past = sed_address(p);
		if (!past)
			break;
		p = sed_blanks(past);
		if (k == 0 && *p == ',') {
			p = sed_blanks(p + 1);
			continue;
		}
		break;
	}
	return p;
}

/* s/RE/REPLACEMENT/FLAGS at p (past the 's'): the w flag writes a file,
 * the e flag runs the pattern space.  NULL: stop reading, opaque. */
static const char *sed_substitute(struct reading *r, const char *p)
{
	char d = *p;
	if (!d || d == '\n' || d == '\\') {
		r->opaque = true;
		return NULL;
	}
	p = sed_part(sed_part(p + 1, d), d);
	while (*p && !strchr(";\n}", *p)) {
		if (*p == 'w')
			return sed_file(r, p + 1, IR_WRITE, 'w');
		if (*p == 'e')
			r->opaque = true;
		p++;
	}
	return p;
}

/* Past the arguments of command cmd, its files and code read into r; NULL
 * to stop reading (what is left cannot be followed).  The commands by what
 * follow them: nothing, a number, a label or comment, a text, a file. */
static const char *sed_command(struct reading *r, const char *p, char cmd)
{
	if (strchr("{}=dDgGhHnNpPxzF", cmd))
		return p;
	if (strchr("lLqQ", cmd)) {
		while (*p == ' ' || (*p >= '0' && *p <= '9'))
			p++;
		return p;
	}
	if (strchr("#:btTv", cmd)) /* GNU sed ends a label at a ';' too (':a;e id' runs id). */
		return p + strcspn(p, cmd == '#' ? "\n" : ";\n");
	if (strchr("aic", cmd)) {
		/* Text to the end of the line; a backslash continues it. */
		while (*p && !(*p == '\n' && p[-1] != '\\'))
			p++;
		return p;
	}
	if (cmd == 'r' || cmd == 'R')
		return sed_file(r, p, IR_READ, cmd);
	if (cmd == 'w' || cmd == 'W')
		return sed_file(r, p, IR_WRITE, cmd);
	if (cmd == 'e') {
		r->opaque = true;
		return p + strcspn(p, "\n");
	}
	if (cmd == 'y')
		return *p ? sed_part(sed_part(p + 1, *p), p[0]) : NULL;
	if (cmd == 's')
		return sed_substitute(r, p);
	r->opaque = true; /* not sed as cordon reads it */
	return NULL;
}

/* The files a sed program reads and writes (r, R, w, W, s///w) and the
 * code it runs (e, s///e), command by command.  What cannot be read makes
 * the part opaque. */
void ca_sed_scan(struct reading *r, const char *s)
{
	const char *p = s;
	while (p) {
		while (*p && strchr(" \t\n;", *p))
			p++;
		if (!*p)
			return;
		p = sed_addresses(p);
		while (*p == ' ' || *p == '\t' || *p == '!')
			p++;
		char cmd = *p;
		if (!cmd)
			return;
		p = sed_command(r, p + 1, cmd);
	}
}

/* ---- awk programs -------------------------------------------------------- */


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

/* Past blanks, escaped newlines and comments. */
static const char *awk_blanks(const char *p)
{
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (*p == '\\' && p[1] == '\n')
			p += 2;
		else if (*p == '#')
			p += strcspn(p, "\n");
		else
			return p;
	}
}

/* Past a bracket expression of a regex, which may hold the delimiter: at
 * its ']', or at the end of the line or text when it does not end. */
static const char *awk_bracket(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p && *p != ']' && *p != '\n')
		p++;
	return p;
}

/* Past a string or a regex that starts at p (its quote q), or NULL when
 * it does not end on its line. */
static const char *awk_quoted(const char *p)
{
	char q = *p++;
	while (*p && *p != q && *p != '\n') {
		if (*p == '\\' && p[1]) {
			p++;
		} else if (q == '/' && *p == '[') {
			p = awk_bracket(p);
			if (*p != ']')
				break;
		}
		p++;
	}
	return *p == q ? p + 1 : NULL;
}

/* Does the token x just read end an operand, so that a '/' after it
 * divides? */
static bool awk_ends_operand(const struct awk_lex *x)
{
	switch (x->kind) {
	case AWK_NUM:
	case AWK_STR:
	case AWK_RE:
		return true;
	case AWK_WORD:
		return !awk_keyword(x->start, x->len);
	case AWK_PUNCT:
		return (x->len == 1 && strchr(")]$", *x->start)) ||
		       (x->len == 2 && (!memcmp(x->start, "++", 2) || !memcmp(x->start, "--", 2)));
	default:
		return false;
	}
}

/* The next token of an awk program; AWK_BAD for what this reader does not
 * follow (a string or a regex that does not end, a newline in a string). */
static enum awk_tok awk_next(struct awk_lex *x)
{
	const char *p = awk_blanks(x->p);
	x->start = p;
	x->prev = x->kind;
	if (!*p) {
		x->kind = AWK_END;
	} else if (*p == '"' || (*p == '/' && !x->operand)) {
		x->kind = *p == '"' ? AWK_STR : AWK_RE;
		p = awk_quoted(p);
		if (!p) {
			x->kind = AWK_BAD;
			return x->kind;
		}
	} else if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_') {
		while (ca_name_char(*p))
			p++;
		x->kind = AWK_WORD;
	} else if ((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')) {
		while (ca_name_char(*p) || *p == '.')
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
	x->operand = awk_ends_operand(x);
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
	const char *name = ca_keepn(r->out, s, n);
	if (ca_is_sink(name))
		return; /* print > "/dev/stderr" */
	struct shell_part part = { .kind = SHELL_PART_LIT, .text = name, .start = r->c->start,
				   .end = r->c->start };
	struct shell_word sw = { .parts = &part, .nparts = 1, .lit = name, .start = r->c->start,
				 .end = r->c->start };
	char detail[160];
	snprintf(detail, sizeof(detail), "%s (%s, its %s)", op == IR_WRITE ? "write" : "read",
		 r->prog, how);
	ca_add_path(r->out, r->env, r->dir, r->text, r->c, &sw, op, false, detail);
	r->out->v[r->out->n - 1].shown = name;
}

/* Is x punctuation that ends a statement: ';', '}', a newline, and
 * with brace '{' too? */
static bool awk_statement_end(const struct awk_lex *x, bool brace)
{
	return x->kind == AWK_PUNCT && (awk_is(x, ";") || awk_is(x, "}") || *x->start == '\n' ||
					(brace && awk_is(x, "{")));
}

/* print ... > "FILE" (x at the '>'): the file, then the statement must
 * end.  False to stop reading: opaque, or the end of the program. */
static bool awk_print_to(struct reading *r, struct awk_lex *x)
{
	if (awk_next(x) != AWK_STR) {
		r->opaque = true;
		return false;
	}
	struct awk_lex file = *x;
	if (awk_next(x) != AWK_END && !awk_statement_end(x, false)) {
		r->opaque = true; /* "a" x: a name built at run time */
		return false;
	}
	awk_file(r, &file, IR_WRITE, "print >");
	return !r->opaque && x->kind != AWK_END;
}

/* getline [VAR] [< "FILE"] (x at getline): the file read.  False to stop
 * reading: opaque. */
static bool awk_getline(struct reading *r, struct awk_lex *x)
{
	struct awk_lex save = *x;
	awk_next(x);
	if (x->kind == AWK_WORD && !awk_keyword(x->start, x->len)) {
		save = *x;
		awk_next(x);
		if (x->kind == AWK_PUNCT && awk_is(x, "[")) {
			r->opaque = true; /* getline a[i] < FILE: not followed here */
			return false;
		}
	}
	if (x->kind == AWK_PUNCT && awk_is(x, "<")) {
		if (awk_next(x) != AWK_STR) {
			r->opaque = true;
			return false;
		}
		awk_file(r, x, IR_READ, "getline <");
		return !r->opaque;
	}
	if (x->kind == AWK_PUNCT && awk_is(x, "$")) {
		r->opaque = true; /* getline $expr: not followed here */
		return false;
	}
	*x = save; /* the token after getline is read again */
	return true;
}

/* Does s name what makes an awk program opaque wherever it stands: code
 * run, the environment or the argument list reached, a pipe, a network
 * file? */
static bool awk_opaque_words(const char *s)
{
	static const char *const opaque_words[] = { "system", "ENVIRON", "ARGV", "ARGC",
						    "PROCINFO", "SYMTAB", "FUNCTAB", "extension",
						    "|", "@", "/inet" };
	for (size_t i = 0; i < ARRAY_SIZE(opaque_words); i++)
		if (strstr(s, opaque_words[i]))
			return true;
	return false;
}

/* The files an awk program writes (print > "FILE", >> "FILE") and reads
 * (getline < "FILE").  Whatever runs code, reaches the environment or the
 * argument list, uses a pipe, or names a file by a value known only at run
 * time makes the part opaque, as does anything this reader does not
 * follow. */
void ca_awk_scan(struct reading *r, const char *s)
{
	if (awk_opaque_words(s)) {
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
		if (awk_statement_end(&x, true)) {
			printing = false;
			continue;
		}
		if (x.kind == AWK_PUNCT && awk_is(&x, "("))
			depth++;
		else if (x.kind == AWK_PUNCT && awk_is(&x, ")"))
			depth--;
		if (printing && depth <= 0 && x.kind == AWK_PUNCT &&
		    (awk_is(&x, ">") || awk_is(&x, ">>"))) {
			if (!awk_print_to(r, &x))
				return;
			printing = false;
		} else if (x.kind == AWK_WORD && awk_is(&x, "getline") && !awk_getline(r, &x)) {
			return;
		}
	}
}
