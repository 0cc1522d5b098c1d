/* The shell lexer: words cut into parts (quotes, expansions, substitutions,
 * globs, braces, tildes); shell_token.c makes the tokens around them.
 *
 * The lexer runs on demand, one token of lookahead, because shell lexing
 * depends on where the parser is (reserved words, here-document bodies,
 * `((`).  A command substitution inside a word calls back into the parser
 * on the same text.  Everything is allocated in the script's arena, so an
 * error simply longjmps out of the parse and the arena is dropped.
 *
 * The scans that look ahead (brace expansion, bracket globs, `((` versus
 * `( (`) are capped and remember their last answer, so the time taken
 * stays linear in the input. */
#include "config.h"

#include "shell_int.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ARITH_SCAN_MAX 4096
#define BRACE_SCAN_MAX 256
#define BRACKET_SCAN_MAX 256

void shell_avec_grow(struct arena *a, void **items, size_t *cap, size_t size)
{
	size_t n = *cap ? *cap * 2 : 4;
	void *p = arena_alloc(a, n * size);
	if (*cap)
		memcpy(p, *items, *cap * size);
	*items = p;
	*cap = n;
}

void shell_abuf_add(struct arena *a, struct abuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 16;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = arena_alloc(a, cap);
		if (b->len)
			memcpy(p, b->s, b->len);
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

_Noreturn void shell_fail(struct parser *p, size_t off, const char *fmt, ...)
{
	va_list ap;
	p->err->offset = map_start(p, off);
	va_start(ap, fmt);
	vsnprintf(p->err->message, sizeof(p->err->message), fmt, ap);
	va_end(ap);
	longjmp(*p->jb, 1);
}

void shell_enter(struct parser *p, size_t off)
{
	if (++*p->depth > SHELL_MAX_DEPTH)
		shell_fail(p, off, "nesting deeper than %d levels", SHELL_MAX_DEPTH);
}

void shell_leave(struct parser *p)
{
	--*p->depth;
}

/* Byte classes, looked up instead of compared one by one in the byte loops. */
enum { CC_META = 1, CC_WORD_SPECIAL = 2 };
#define CC_M (CC_META | CC_WORD_SPECIAL)
static const unsigned char char_class[256] = {
	[' '] = CC_M,  ['\t'] = CC_M, ['\n'] = CC_M, [';'] = CC_M, ['&'] = CC_M,
	['|'] = CC_M,  ['('] = CC_M,  [')'] = CC_M,  ['<'] = CC_M, ['>'] = CC_M,
	['\\'] = CC_WORD_SPECIAL, ['\''] = CC_WORD_SPECIAL, ['"'] = CC_WORD_SPECIAL,
	['$'] = CC_WORD_SPECIAL,  ['`'] = CC_WORD_SPECIAL,  ['*'] = CC_WORD_SPECIAL,
	['?'] = CC_WORD_SPECIAL,  ['['] = CC_WORD_SPECIAL,  ['{'] = CC_WORD_SPECIAL,
	['~'] = CC_WORD_SPECIAL,
};
#undef CC_M

static bool is_meta(int c)
{
	return c >= 0 && (char_class[c] & CC_META);
}

static bool is_name_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(int c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* ---- words ------------------------------------------------------------------ */

static void scan_dollar(struct parser *p, struct wb *w, bool quoted);
static void scan_backtick(struct parser *p, struct wb *w, bool quoted, bool dq);

static void scan_squote(struct parser *p, struct wb *w)
{
	size_t st = p->pos;
	const char *q = memchr(p->s + st + 1, '\'', p->len - st - 1);
	if (!q)
		shell_fail(p, st, "unterminated single quote");
	size_t e = (size_t)(q - p->s);
	shell_wb_lit(p, w, p->s + st + 1, e - st - 1, true, st);
	p->pos = e + 1;
}

static bool is_dq_special(int c)
{
	return c == '"' || c == '\\' || c == '$' || c == '`';
}

/* The inside of "...", from p->pos (after the quote; open is the quote), or
 * a here-document body to the end of the buffer. */
static void scan_dquote(struct parser *p, struct wb *w, bool heredoc, size_t open)
{
	shell_enter(p, open);
	shell_wb_lit(p, w, "", 0, true, p->pos);
	for (;;) {
		int c = at(p, p->pos);
		if (c < 0) {
			if (heredoc)
				break;
			shell_fail(p, open, "unterminated double quote");
		}
		if (c == '"' && !heredoc) {
			p->pos++;
			break;
		}
		if (c == '\\') {
			int d = at(p, p->pos + 1);
			if (d == '\n') {
				p->pos += 2;
				continue;
			}
			if (d == '$' || d == '`' || d == '\\' || (d == '"' && !heredoc)) {
				char ch = (char)d;
				shell_wb_lit(p, w, &ch, 1, true, p->pos);
				p->pos += 2;
				continue;
			}
			shell_wb_lit(p, w, "\\", 1, true, p->pos);
			p->pos++;
			continue;
		}
		if (c == '$') {
			scan_dollar(p, w, true);
			continue;
		}
		if (c == '`') {
			scan_backtick(p, w, true, !heredoc);
			continue;
		}
		size_t e = p->pos + 1;
		while (e < p->len && !is_dq_special((unsigned char)p->s[e]))
			e++;
		shell_wb_lit(p, w, p->s + p->pos, e - p->pos, true, p->pos);
		p->pos = e;
	}
	shell_leave(p);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static size_t utf8_encode(unsigned long cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* One escape of $'...' at p->pos (the backslash): the bytes it stands
 * for go to out, their count is returned; -1 for a NUL byte, which ends the
 * string as far as bash is concerned. */
static int ansi_escape(struct parser *p, size_t st, char *out)
{
	static const char simple[][2] = {
		{ 'a', '\a' }, { 'b', '\b' }, { 'e', 27 },   { 'E', 27 },   { 'f', '\f' },
		{ 'n', '\n' }, { 'r', '\r' }, { 't', '\t' }, { 'v', '\v' }, { '\\', '\\' },
		{ '\'', '\'' }, { '"', '"' }, { '?', '?' },
	};
	int d = at(p, p->pos + 1);
	if (d < 0)
		shell_fail(p, st, "unterminated $'...' string");
	for (size_t i = 0; i < ARRAY_SIZE(simple); i++) {
		if (simple[i][0] == d) {
			out[0] = simple[i][1];
			p->pos += 2;
			return 1;
		}
	}
	unsigned long v = 0;
	size_t i = p->pos + 1, n = 0;
	if (d >= '0' && d <= '7') {
		while (n < 3 && at(p, i) >= '0' && at(p, i) <= '7')
			v = v * 8 + (unsigned long)(at(p, i++) - '0'), n++;
		p->pos = i;
		v &= 0xff;
		out[0] = (char)v;
		return v ? 1 : -1;
	}
	if (d == 'x' || d == 'u' || d == 'U') {
		size_t max = d == 'x' ? 2 : d == 'u' ? 4 : 8;
		i++;
		while (n < max && hexval(at(p, i)) >= 0)
			v = v * 16 + (unsigned long)hexval(at(p, i++)), n++;
		if (n && (d == 'x' || v <= 0x10ffff)) {
			p->pos = i;
			if (!v)
				return -1;
			if (d == 'x') {
				out[0] = (char)v;
				return 1;
			}
			return (int)utf8_encode(v, out);
		}
	} else if (d == 'c' && at(p, p->pos + 2) >= 0 && at(p, p->pos + 2) != '\'') {
		v = (unsigned long)at(p, p->pos + 2) & 0x1f;
		p->pos += 3;
		out[0] = (char)v;
		return v ? 1 : -1;
	}
	/* Not an escape: both characters stay. */
	out[0] = '\\';
	out[1] = (char)d;
	p->pos += 2;
	return 2;
}

static void scan_ansi(struct parser *p, struct wb *w, size_t st)
{
	bool ended = false; /* after a NUL byte the rest is dropped */
	p->pos = st + 2;
	shell_wb_lit(p, w, "", 0, true, st);
	for (;;) {
		int c = at(p, p->pos);
		if (c < 0)
			shell_fail(p, st, "unterminated $'...' string");
		if (c == '\'') {
			p->pos++;
			break;
		}
		char buf[4];
		int n;
		if (c == '\\') {
			n = ansi_escape(p, st, buf);
		} else {
			buf[0] = (char)c;
			n = 1;
			p->pos++;
		}
		if (n < 0)
			ended = true;
		else if (!ended)
			shell_wb_lit(p, w, buf, (size_t)n, true, st);
	}
}

/* $(...) with p->pos at the '$'. */
static void scan_cmdsub(struct parser *p, struct wb *w, bool quoted, size_t st)
{
	char buf[48];
	p->pos = st + 2;
	p->cmdsub++;
	struct shell_node *body = shell_parse_list(p);
	struct token *t = shell_peek(p);
	p->cmdsub--;
	if (t->kind == T_EOF)
		shell_fail(p, st, "unterminated command substitution");
	if (t->kind != T_RPAREN)
		shell_fail(p, t->start, "unexpected %s in command substitution",
		     shell_tok_desc(p, t, buf, sizeof(buf)));
	shell_next(p);
	shell_wb_push(p, w, SHELL_PART_CMDSUB, quoted, st, p->pos)->sub = body;
}

/* ${ list; } and ${| list; }: bash 5.3 runs these in the current shell. */
static void scan_funsub(struct parser *p, struct wb *w, bool quoted, size_t st)
{
	char buf[48];
	p->pos = st + 2 + (at(p, st + 2) == '|');
	struct shell_node *body = shell_parse_list(p);
	struct token *t = shell_peek(p);
	if (t->kind != T_WORD || t->end - t->start != 1 || p->s[t->start] != '}')
		shell_fail(p, t->kind == T_EOF ? st : t->start, "expected '}' to close '${', found %s",
		     shell_tok_desc(p, t, buf, sizeof(buf)));
	shell_next(p);
	shell_wb_push(p, w, SHELL_PART_CMDSUB, quoted, st, p->pos)->sub = body;
}

/* ${...} with p->pos at the '$'. */
/* A single quote inside "${x-...}": bash matches it with the next one when
 * it looks for the closing brace ("${x-'}'}" is one expansion), but in
 * double quotes the quotes are literal, so what they hold is expanded
 * ("${x-'$(cmd)'}" runs cmd). */
static void squote_in_dquoted_param(struct parser *p, struct wb *in, size_t st)
{
	p->pos++;
	for (;;) {
		int c = at(p, p->pos);
		if (c < 0)
			shell_fail(p, st, "unterminated '${'");
		if (c == '\'') {
			p->pos++;
			return;
		}
		if (c == '\\')
			p->pos += at(p, p->pos + 1) < 0 ? 1 : 2;
		else if (c == '$')
			scan_dollar(p, in, true);
		else if (c == '`')
			scan_backtick(p, in, true, true);
		else
			p->pos++;
	}
}

static void scan_param(struct parser *p, struct wb *w, bool quoted, size_t st)
{
	struct wb in;
	shell_wb_init(&in);
	size_t depth = 0;
	shell_enter(p, st);
	p->pos = st + 2;
	for (;;) {
		int c = at(p, p->pos);
		if (c < 0)
			shell_fail(p, st, "unterminated '${'");
		if (c == '}') {
			p->pos++;
			if (depth == 0)
				break;
			depth--;
		} else if (c == '{') {
			depth++;
			p->pos++;
		} else if (c == '\\') {
			p->pos += at(p, p->pos + 1) < 0 ? 1 : 2;
		} else if (c == '\'' && !quoted) {
			scan_squote(p, &in);
		} else if (c == '\'') {
			squote_in_dquoted_param(p, &in, st);
		} else if (c == '"') {
			size_t open = p->pos++;
			scan_dquote(p, &in, false, open);
		} else if (c == '$') {
			scan_dollar(p, &in, quoted);
		} else if (c == '`') {
			scan_backtick(p, &in, quoted, quoted);
		} else {
			p->pos++;
		}
	}
	shell_leave(p);
	shell_wb_take_inner(p, &in, shell_wb_push(p, w, SHELL_PART_PARAM, quoted, st, p->pos));
}

/* The body of $((...)) or ((...)) from p->pos, up to and past the "))". */
static void scan_arith_body(struct parser *p, struct wb *in, size_t st)
{
	size_t depth = 0;
	shell_enter(p, st);
	for (;;) {
		int c = at(p, p->pos);
		if (c < 0)
			shell_fail(p, st, "unterminated arithmetic expression");
		if (c == '(') {
			depth++;
			p->pos++;
		} else if (c == ')') {
			if (depth == 0) {
				if (at(p, p->pos + 1) != ')')
					shell_fail(p, p->pos, "unexpected ')' in arithmetic expression");
				p->pos += 2;
				break;
			}
			depth--;
			p->pos++;
		} else if (c == '\\') {
			p->pos += at(p, p->pos + 1) < 0 ? 1 : 2;
		} else if (c == '\'') {
			scan_squote(p, in);
		} else if (c == '"') {
			size_t open = p->pos++;
			scan_dquote(p, in, false, open);
		} else if (c == '$') {
			scan_dollar(p, in, false);
		} else if (c == '`') {
			scan_backtick(p, in, false, false);
		} else {
			p->pos++;
		}
	}
	shell_leave(p);
}

/* An arithmetic part from st (the '$' or the first '('); body is where the
 * expression starts. */
static void scan_arith(struct parser *p, struct wb *w, bool quoted, size_t st, size_t body)
{
	struct wb in;
	shell_wb_init(&in);
	p->pos = body;
	scan_arith_body(p, &in, st);
	shell_wb_take_inner(p, &in, shell_wb_push(p, w, SHELL_PART_ARITH, quoted, st, p->pos));
}

/* Whether "((" before i opens an arithmetic expression: its parentheses
 * close with "))".  Otherwise it is a subshell in a subshell, or a command
 * substitution starting with a subshell. */
bool shell_arith_scan(const struct parser *p, size_t i)
{
	enum { N, SQ, DQ, BQ, COMMENT } st = N;
	size_t lim = p->len - i > ARITH_SCAN_MAX ? i + ARITH_SCAN_MAX : p->len;
	size_t depth = 0;
	for (; i < lim; i++) {
		char c = p->s[i];
		switch (st) {
		case SQ:
			if (c == '\'')
				st = N;
			break;
		case DQ:
		case BQ:
			if (c == '\\')
				i++;
			else if (c == (st == DQ ? '"' : '`'))
				st = N;
			break;
		case COMMENT:
			if (c == '\n')
				st = N;
			break;
		case N:
			if (c == '(') {
				depth++;
			} else if (c == ')') {
				if (depth == 0)
					return i + 1 < p->len && p->s[i + 1] == ')';
				depth--;
			} else if (c == '\\') {
				i++;
			} else if (c == '\'') {
				st = SQ;
			} else if (c == '"') {
				st = DQ;
			} else if (c == '`') {
				st = BQ;
			} else if (c == '#' && i > 0 && strchr(" \t\n;(", p->s[i - 1])) {
				st = COMMENT;
			}
			break;
		}
	}
	return false;
}

/* $[...], the old spelling of $((...)): one arithmetic part, its text as
 * written.  What it holds is not split further; whatever it reads makes
 * it opaque (shell_hidden.c), substitutions in it included. */
static void scan_old_arith(struct parser *p, struct wb *w, bool quoted, size_t st)
{
	size_t i = st + 2;
	int depth = 1;
	for (; depth > 0; i++) {
		int c = at(p, i);
		if (c < 0)
			shell_fail(p, st, "unterminated '$['");
		if (c == '\\')
			i++;
		else if (c == '[')
			depth++;
		else if (c == ']')
			depth--;
	}
	shell_wb_push(p, w, SHELL_PART_ARITH, quoted, st, i);
	p->pos = i;
}

static void scan_dollar(struct parser *p, struct wb *w, bool quoted)
{
	size_t st = p->pos;
	int c = at(p, st + 1);
	if (c == '(') {
		if (at(p, st + 2) == '(' && shell_arith_scan(p, st + 3))
			scan_arith(p, w, quoted, st, st + 3);
		else
			scan_cmdsub(p, w, quoted, st);
	} else if (c == '{') {
		int d = at(p, st + 2);
		if (d == ' ' || d == '\t' || d == '\n' || d == '|')
			scan_funsub(p, w, quoted, st);
		else
			scan_param(p, w, quoted, st);
	} else if (c == '[') {
		scan_old_arith(p, w, quoted, st);
	} else if (c == '\'' && !quoted) {
		scan_ansi(p, w, st);
	} else if (c == '"' && !quoted) {
		p->pos = st + 2;
		scan_dquote(p, w, false, st + 1);
	} else if (is_name_start(c)) {
		size_t e = st + 2;
		while (is_name_char(at(p, e)))
			e++;
		shell_wb_push(p, w, SHELL_PART_PARAM, quoted, st, e);
		p->pos = e;
	} else if (is_digit(c) || (c > 0 && strchr("@*#?$!-", c))) {
		shell_wb_push(p, w, SHELL_PART_PARAM, quoted, st, st + 2);
		p->pos = st + 2;
	} else {
		shell_wb_lit(p, w, "$", 1, quoted, st);
		p->pos = st + 1;
	}
}

/* `...`: the text between the backquotes, with \\, \` and \$ (and \" in
 * double quotes) unescaped, is parsed as a script of its own. */
static void scan_backtick(struct parser *p, struct wb *w, bool quoted, bool dq)
{
	struct abuf b = { 0 };
	size_t st = p->pos++;
	shell_abuf_add(p->a, &b, "", 0);
	for (;;) {
		int c = at(p, p->pos);
		if (c < 0)
			shell_fail(p, st, "unterminated backquote");
		if (c == '`') {
			p->pos++;
			break;
		}
		if (c == '\\') {
			int d = at(p, p->pos + 1);
			if (d == '`' || d == '\\' || d == '$' || (dq && d == '"')) {
				char ch = (char)d;
				shell_abuf_add(p->a, &b, &ch, 1);
				p->pos += 2;
				continue;
			}
		}
		shell_abuf_add(p->a, &b, p->s + p->pos, 1);
		p->pos++;
	}
	struct shell_node *body = shell_parse_child(p, b.s, b.len, st, p->pos);
	shell_wb_push(p, w, SHELL_PART_CMDSUB, quoted, st, p->pos)->sub = body;
}

/* <(...) or >(...) at p->pos. */
static void scan_procsub(struct parser *p, struct wb *w)
{
	char buf[48];
	size_t st = p->pos;
	p->pos += 2;
	struct shell_node *body = shell_parse_list(p);
	struct token *t = shell_peek(p);
	if (t->kind == T_EOF)
		shell_fail(p, st, "unterminated process substitution");
	if (t->kind != T_RPAREN)
		shell_fail(p, t->start, "unexpected %s in process substitution",
		     shell_tok_desc(p, t, buf, sizeof(buf)));
	shell_next(p);
	shell_wb_push(p, w, SHELL_PART_PROCSUB, false, st, p->pos)->sub = body;
}

/* An unquoted '[' at p->pos: a bracket glob up to a ']' in the same word, or
 * a literal '['.  When unsure (quotes inside, a long word) the '[' alone
 * counts as a glob. */
static void scan_bracket(struct parser *p, struct wb *w)
{
	size_t i = p->pos, j;
	int kind = 0; /* 0 literal, 1 the '[' alone is a glob */
	if (p->br_end && i >= p->br_start && i < p->br_end) {
		kind = p->br_glob;
		goto done;
	}
	size_t lim = p->len - i > BRACKET_SCAN_MAX ? i + BRACKET_SCAN_MAX : p->len;
	for (j = i + 1; j < lim; j++) {
		int c = (unsigned char)p->s[j];
		if (c == ']' && j > i + 1) {
			shell_wb_push(p, w, SHELL_PART_GLOB, false, i, j + 1);
			p->pos = j + 1;
			return;
		}
		if (is_meta(c))
			break;
		if (c == '\'' || c == '"' || c == '\\' || c == '$' || c == '`') {
			kind = 1;
			break;
		}
	}
	if (j >= lim && lim < p->len)
		kind = 1;
	p->br_start = i;
	p->br_end = j;
	p->br_glob = kind;
done:
	if (kind)
		shell_wb_push(p, w, SHELL_PART_GLOB, false, i, i + 1);
	else
		shell_wb_lit(p, w, "[", 1, false, i);
	p->pos = i + 1;
}

static bool brace_memo(struct parser *p, size_t start, size_t end, bool v)
{
	p->bc_start = start;
	p->bc_end = end;
	p->bc_val = v;
	return v;
}

/* Whether the unquoted '{' at i starts a brace expansion: a ',' or ".."
 * and then a '}' in the same word.  Unsure (quotes, long words): yes. */
static bool brace_here(struct parser *p, size_t i)
{
	if (p->bc_end && i >= p->bc_start && i < p->bc_end)
		return p->bc_val;
	size_t lim = p->len - i > BRACE_SCAN_MAX ? i + BRACE_SCAN_MAX : p->len;
	size_t sep = 0;
	for (size_t j = i + 1; j < p->len; j++) {
		if (j >= lim)
			return brace_memo(p, i, j, true);
		int c = (unsigned char)p->s[j];
		if (c == '\\') {
			j++;
		} else if (c == '\'' || c == '"' || c == '`' ||
			   (c == '$' && (at(p, j + 1) == '{' || at(p, j + 1) == '('))) {
			return brace_memo(p, i, j, true);
		} else if (is_meta(c)) {
			return brace_memo(p, i, j, false);
		} else if (!sep && (c == ',' || (c == '.' && at(p, j + 1) == '.'))) {
			sep = j;
		} else if (c == '}' && sep) {
			return brace_memo(p, i, sep, true);
		}
	}
	return brace_memo(p, i, p->len, false);
}

/* A tilde prefix at p->pos: ~, ~user, ~+, ~- before a '/' or the end of
 * the word (or a ':' in an assignment). */
static bool scan_tilde(struct parser *p, struct wb *w, bool assign)
{
	size_t i = p->pos + 1;
	while (is_name_char(at(p, i)) || at(p, i) == '.' || at(p, i) == '-' || at(p, i) == '+')
		i++;
	int c = at(p, i);
	if (!(c < 0 || c == '/' || is_meta(c) || (assign && c == ':')))
		return false;
	shell_wb_push(p, w, SHELL_PART_TILDE, false, p->pos, i);
	p->pos = i;
	return true;
}

void shell_skip_blanks(struct parser *p)
{
	for (;;) {
		int c = at(p, p->pos);
		if (c == ' ' || c == '\t') {
			p->pos++;
		} else if (c == '\\' && at(p, p->pos + 1) == '\n') {
			p->pos += 2;
		} else if (c == '#') {
			const char *nl = memchr(p->s + p->pos, '\n', p->len - p->pos);
			p->pos = nl ? (size_t)(nl - p->s) : p->len;
		} else {
			return;
		}
	}
}

/* a=(x y z) with p->pos at the '('. */
static void scan_array(struct parser *p, struct wb *w)
{
	struct wb in;
	shell_wb_init(&in);
	size_t st = p->pos++;
	bool was = p->in_array;
	shell_enter(p, st);
	p->in_array = true;
	for (;;) {
		shell_skip_blanks(p);
		int c = at(p, p->pos);
		if (c == '\n') {
			p->pos++;
			continue;
		}
		if (c < 0)
			shell_fail(p, st, "unterminated array assignment");
		if (c == ')') {
			p->pos++;
			break;
		}
		size_t before = p->pos;
		struct shell_word *e = shell_lex_word(p, NULL);
		if (p->pos == before)
			shell_fail(p, before, "unexpected '%c' in array assignment", c);
		for (size_t i = 0; i < e->nparts; i++)
			if (e->parts[i].kind != SHELL_PART_LIT)
				*shell_wb_new_part(p, &in) = e->parts[i];
	}
	p->in_array = was;
	shell_leave(p);
	shell_wb_take_inner(p, &in, shell_wb_push(p, w, SHELL_PART_ARRAY, false, st, p->pos));
}

/* Length of "NAME=", "NAME+=" or "NAME[sub]=" at i, or 0. */
static size_t assign_prefix(const struct parser *p, size_t i)
{
	size_t j = i;
	if (!is_name_start(at(p, j)))
		return 0;
	while (is_name_char(at(p, j)))
		j++;
	if (at(p, j) == '[') {
		for (j++; at(p, j) >= 0 && at(p, j) != ']'; j++) {
			int c = at(p, j);
			if (is_meta(c) || c == '\'' || c == '"' || c == '$' || c == '`' || c == '\\')
				return 0;
		}
		if (at(p, j) != ']')
			return 0;
		j++;
	}
	if (at(p, j) == '+')
		j++;
	if (at(p, j) != '=')
		return 0;
	return j + 1 - i;
}

static bool is_word_special(unsigned char c)
{
	return char_class[c] & CC_WORD_SPECIAL;
}

/* The common word of plain bytes (git, -c, src/main.c) at start, made
 * directly without the builder; NULL when the word holds anything else. */
static struct shell_word *plain_word(struct parser *p, size_t start)
{
	size_t e = start;
	while (e < p->len && !is_word_special((unsigned char)p->s[e]))
		e++;
	if (e == start || (e < p->len && !is_meta((unsigned char)p->s[e])))
		return NULL;
	struct shell_part part = { .kind = SHELL_PART_LIT };
	part.start = map_start(p, start);
	part.end = map_end(p, e);
	p->pos = e;
	return shell_one_part_word(p, &part, p->s + start, e - start, start, e);
}

/* A backslash outside quotes: the next character quoted, a line
 * continuation removed, or itself at the end of the input. */
static void scan_backslash(struct parser *p, struct wb *w)
{
	int d = at(p, p->pos + 1);
	if (d < 0) {
		shell_wb_lit(p, w, "\\", 1, false, p->pos);
		p->pos++;
	} else if (d == '\n') {
		p->pos += 2;
	} else {
		shell_wb_lit(p, w, p->s + p->pos + 1, 1, true, p->pos);
		p->pos += 2;
	}
}

/* A '~' in a word that started at start (n: the length of its NAME=
 * prefix, 0 without): a tilde expansion at the word's start or after the
 * '=' or a ':' of an assignment, else a literal '~'. */
static void scan_word_tilde(struct parser *p, struct wb *w, size_t start, size_t n)
{
	bool may = p->pos == start || (n && (p->s[p->pos - 1] == '=' || p->s[p->pos - 1] == ':'));
	if (may && scan_tilde(p, w, n > 0))
		return;
	shell_wb_lit(p, w, "~", 1, false, p->pos);
	p->pos++;
}

/* Plain bytes from p->pos to the next one the word reads otherwise. */
static void scan_plain(struct parser *p, struct wb *w)
{
	size_t e = p->pos + 1;
	while (e < p->len && !is_word_special((unsigned char)p->s[e]))
		e++;
	shell_wb_lit(p, w, p->s + p->pos, e - p->pos, false, p->pos);
	p->pos = e;
}

/* One piece of an unquoted word at p->pos, by its first character c (not
 * a metacharacter): quoting, an expansion, a glob, a brace, a tilde, or
 * plain bytes. */
static void scan_word_piece(struct parser *p, struct wb *w, int c, size_t start, size_t n)
{
	switch (c) {
	case '\\':
		scan_backslash(p, w);
		return;
	case '\'':
		scan_squote(p, w);
		return;
	case '"': {
		size_t open = p->pos++;
		scan_dquote(p, w, false, open);
		return;
	}
	case '$':
		scan_dollar(p, w, false);
		return;
	case '`':
		scan_backtick(p, w, false, false);
		return;
	case '*':
	case '?':
		shell_wb_push(p, w, SHELL_PART_GLOB, false, p->pos, p->pos + 1);
		p->pos++;
		return;
	case '[':
		scan_bracket(p, w);
		return;
	case '{':
		if (brace_here(p, p->pos))
			shell_wb_push(p, w, SHELL_PART_BRACE, false, p->pos, p->pos + 1);
		else
			shell_wb_lit(p, w, "{", 1, false, p->pos);
		p->pos++;
		return;
	case '~':
		scan_word_tilde(p, w, start, n);
		return;
	default:
		scan_plain(p, w);
	}
}

/* The assignment of word (NAME=VALUE, NAME+=VALUE: its NAME= prefix n
 * bytes at start): the name, whether it appends, and the value's word. */
static struct shell_assign *word_assign(struct parser *p, const struct shell_word *word,
					size_t start, size_t n)
{
	struct shell_assign *as = arena_alloc0(p->a, sizeof(*as));
	as->append = p->s[start + n - 2] == '+';
	as->name = arena_strndup(p->a, p->s + start, n - 1 - as->append);
	if (word->nparts > 1)
		as->value = shell_make_word(p, (struct shell_part *)word->parts + 1,
					    word->nparts - 1, start + n, p->pos);
	else
		as->value = shell_lit_word(p, "", 0, p->pos, p->pos);
	as->start = word->start;
	as->end = word->end;
	return as;
}

/* A word at p->pos: unquoted context, up to a blank or an operator. */
struct shell_word *shell_lex_word(struct parser *p, struct shell_assign **assign)
{
	struct wb w;
	shell_wb_init(&w);
	size_t start = p->pos;
	size_t n = p->in_array ? 0 : assign_prefix(p, start);
	if (n) {
		shell_wb_lit(p, &w, p->s + start, n, false, start);
		p->pos = start + n;
		shell_wb_flush(p, &w, p->pos);
		if (at(p, p->pos) == '(')
			scan_array(p, &w);
	} else {
		struct shell_word *plain = plain_word(p, start);
		if (plain)
			return plain;
	}
	for (;;) {
		int c = at(p, p->pos);
		if (c < 0)
			break;
		if (!is_meta(c)) {
			scan_word_piece(p, &w, c, start, n);
			continue;
		}
		/* A process substitution starts a word (or a value) only. */
		if ((c == '<' || c == '>') && at(p, p->pos + 1) == '(' && p->pos == start + n) {
			scan_procsub(p, &w);
			continue;
		}
		break;
	}
	struct shell_word *word = shell_wb_finish(p, &w, start, p->pos);
	if (n && assign)
		*assign = word_assign(p, word, start, n);
	return word;
}

struct shell_word *shell_arith_word(struct parser *p)
{
	struct wb w;
	shell_wb_init(&w);
	size_t st = shell_peek(p)->start;
	p->have = false;
	scan_arith(p, &w, false, st, st + 2);
	p->last_end = p->pos;
	return shell_wb_finish(p, &w, st, p->pos);
}

void shell_child_init(struct parser *c, struct parser *p, const char *text, size_t len,
		       size_t ostart, size_t oend)
{
	memset(c, 0, sizeof(*c));
	c->s = text;
	c->len = len;
	c->a = p->a;
	c->jb = p->jb;
	c->err = p->err;
	c->depth = p->depth;
	c->mapped = true;
	c->mstart = map_start(p, ostart);
	c->mend = map_end(p, oend);
}

struct shell_word *shell_heredoc_body(struct parser *p, const char *text, size_t len,
				      size_t ostart, size_t oend)
{
	struct parser c;
	struct wb w;
	/* bash removes backslash-newline from an unquoted body before it
	 * expands it: "$\\\n(cmd)" is $(cmd).  An escaped backslash stays. */
	if (memchr(text, '\\', len)) {
		struct abuf b = { 0 };
		shell_abuf_add(p->a, &b, "", 0);
		for (size_t i = 0; i < len; i++) {
			size_t run = i + 1 < len && text[i] == '\\' ? 2 : 1;
			if (run == 1 || text[i + 1] != '\n')
				shell_abuf_add(p->a, &b, text + i, run);
			i += run - 1;
		}
		text = b.s;
		len = b.len;
	}
	shell_wb_init(&w);
	shell_child_init(&c, p, text, len, ostart, oend);
	shell_enter(p, ostart);
	scan_dquote(&c, &w, true, 0);
	shell_leave(p);
	return shell_wb_finish(&c, &w, 0, len);
}
