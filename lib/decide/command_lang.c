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

/* The files a sed program reads and writes (r, R, w, W, s///w) and the
 * code it runs (e, s///e), command by command.  What cannot be read makes
 * the part opaque. */
void ca_sed_scan(struct reading *r, const char *s)
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
			/* GNU sed ends a label at a ';' too (':a;e id' runs id). */
			p += strcspn(p, cmd == '#' ? "\n" : ";\n");
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

/* The files an awk program writes (print > "FILE", >> "FILE") and reads
 * (getline < "FILE").  Whatever runs code, reaches the environment or the
 * argument list, uses a pipe, or names a file by a value known only at run
 * time makes the part opaque, as does anything this reader does not
 * follow. */
void ca_awk_scan(struct reading *r, const char *s)
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

