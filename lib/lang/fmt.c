/* The formatter: statements are laid out from the syntax tree, comments are
 * put back where the scanner found them, and the output is built as lines
 * (indentation, code, a trailing comment) that are rendered at the end, when
 * runs of trailing comments can be aligned. */
#include "config.h"

#include "fmt.h"
#include "parse.h"

#include <stdlib.h>
#include <string.h>

#define INDENT 2
/* A single pattern wider than this stands outside the effect column of its
 * block, so one long path does not push every other effect to the right. */
#define ALIGN_MAX 24
#define COMMENT_ALIGN_MAX 60

struct line {
	unsigned indent;
	struct strbuf code;  /* empty on a comment line and a blank line */
	struct loc comment;  /* the comment ending the line; start == end when none */
};

struct fmt {
	const char *src;
	size_t len;
	const struct loc *comments; /* in source order */
	size_t ncomments, next;     /* comments[next] is the first not yet placed */
	struct line *lines;
	size_t nlines, cap;
	bool open;       /* the last line takes more code */
	unsigned indent; /* of the statements of the current block */
	unsigned cont;   /* of the continuation lines of the current statement */
	uint32_t last;   /* source offset just past what was placed last */
	bool fresh;      /* nothing placed yet in the current block */
};

/* Column widths shared by the statements of a block. */
struct align {
	unsigned name;   /* the operation word of a rule */
	unsigned effect; /* where a rule's effect starts, after its pattern */
	unsigned expect_effect, expect_op; /* the words of `expect` in a test */
};

static void emit_stmt(struct fmt *f, const struct ast *s, const struct align *al);

/* ---- measuring ------------------------------------------------------------------- */

/* Columns of UTF-8 text: one for each character. */
static unsigned text_width(const char *s, size_t n)
{
	unsigned w = 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			w++;
	return w;
}

static unsigned span_width(const struct fmt *f, struct loc l)
{
	return text_width(f->src + l.start, l.end - l.start);
}

/* What a list element takes on one line: a pattern's atoms one space
 * apart, `name = value`, or a single token. */
static unsigned elem_width(const struct fmt *f, const struct ast *e)
{
	unsigned w = 0;
	switch (e->kind) {
	case AST_PATTERN:
		for (const struct ast *a = e->u.seq.head; a; a = a->next)
			w += span_width(f, a->loc) + (a->next ? 1 : 0);
		return w;
	case AST_ASSIGN:
		return span_width(f, e->u.bind.name->loc) + 3 + span_width(f, e->u.bind.value->loc);
	default:
		return span_width(f, e->loc);
	}
}

/* The elements one line, ", " apart. */
static unsigned seq_width(const struct fmt *f, const struct ast_seq *seq)
{
	unsigned w = 0;
	for (const struct ast *e = seq->head; e; e = e->next)
		w += elem_width(f, e) + (e->next ? 2 : 0);
	return w;
}

/* Whether a comment starts in [a, b). */
static bool has_comment(const struct fmt *f, uint32_t a, uint32_t b)
{
	size_t lo = f->next, hi = f->ncomments;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->comments[mid].start < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->ncomments && f->comments[lo].start < b;
}

static bool seq_has_comment(const struct fmt *f, const struct ast_seq *seq)
{
	return seq->n && has_comment(f, seq->head->loc.start, seq->tail->loc.end);
}

static bool newline_between(const struct fmt *f, uint32_t a, uint32_t b)
{
	return a < b && memchr(f->src + a, '\n', b - a) != NULL;
}

/* Whether [a, b) holds a blank line: two newlines with only white space
 * between them. */
static bool blank_between(const struct fmt *f, uint32_t a, uint32_t b)
{
	bool newline = false;
	for (uint32_t i = a; i < b; i++) {
		char c = f->src[i];
		if (c == '\n') {
			if (newline)
				return true;
			newline = true;
		} else if (c != ' ' && c != '\t' && c != '\r') {
			newline = false;
		}
	}
	return false;
}

/* The offset of punctuation `ch`, the next thing after `from` but for
 * white space and comments (the file parsed, so it is there). */
static uint32_t find_punct(const struct fmt *f, uint32_t from, char ch)
{
	uint32_t i = from;
	while (i < f->len && f->src[i] != ch) {
		if (f->src[i] == '#')
			while (i < f->len && f->src[i] != '\n')
				i++;
		else
			i++;
	}
	if (i >= f->len)
		abort(); /* the parser accepted a block without its brace */
	return i;
}

/* ---- lines --------------------------------------------------------------------- */

static struct line *cur(struct fmt *f)
{
	return &f->lines[f->nlines - 1];
}

static void new_line(struct fmt *f, unsigned indent)
{
	grow_array((void **)&f->lines, &f->cap, f->nlines + 1, sizeof(*f->lines));
	struct line *l = &f->lines[f->nlines++];
	l->indent = indent;
	sb_init(&l->code);
	l->comment = (struct loc){ 0, 0, 0 };
	f->open = true;
}

static void blank_line(struct fmt *f)
{
	new_line(f, 0);
	f->open = false;
}

static unsigned line_width(const struct line *l)
{
	return l->indent + text_width(l->code.buf, l->code.len);
}

static bool line_has_comment(const struct line *l)
{
	return l->comment.end > l->comment.start;
}

/* The line a trailing comment may join: the last one, when it has code
 * and no comment yet. */
static bool can_trail(struct fmt *f)
{
	return f->nlines && cur(f)->code.len && !line_has_comment(cur(f));
}

static void set_comment(struct fmt *f, struct loc c)
{
	/* Trailing white space (a CR of a CRLF file) is not part of it. */
	while (c.end > c.start && strchr(" \t\r", f->src[c.end - 1]))
		c.end--;
	cur(f)->comment = c;
	f->open = false;
	f->last = c.end;
}

/* Comments before pos between statements: one on the line of the code
 * before it stays there; the others get lines of their own at the block's
 * indentation, with one blank line where the source had any. */
static void comments_between(struct fmt *f, uint32_t pos)
{
	while (f->next < f->ncomments && f->comments[f->next].start < pos) {
		struct loc c = f->comments[f->next++];
		if (!newline_between(f, f->last, c.start) && can_trail(f)) {
			set_comment(f, c);
			continue;
		}
		if (!f->fresh && blank_between(f, f->last, c.start))
			blank_line(f);
		new_line(f, f->indent);
		set_comment(f, c);
		f->fresh = false;
	}
}

/* Comments before pos inside a statement: the same, at the indentation
 * of its continuation lines; the code after them starts a new line. */
static void comments_inside(struct fmt *f, uint32_t pos)
{
	while (f->next < f->ncomments && f->comments[f->next].start < pos) {
		struct loc c = f->comments[f->next++];
		if (newline_between(f, f->last, c.start) || !can_trail(f))
			new_line(f, f->cont);
		set_comment(f, c);
	}
}

static void put_text(struct fmt *f, const char *text, unsigned sep)
{
	if (!f->open)
		new_line(f, f->cont);
	else
		for (unsigned i = 0; i < sep; i++)
			sb_addc(&cur(f)->code, ' ');
	sb_adds(&cur(f)->code, text);
}

/* A token as written, after the comments before it. */
static void put_tok(struct fmt *f, struct loc l, unsigned sep)
{
	comments_inside(f, l.start);
	put_text(f, "", sep);
	sb_add(&cur(f)->code, f->src + l.start, l.end - l.start);
	f->last = l.end;
}

static void put_elem(struct fmt *f, const struct ast *e, unsigned sep)
{
	switch (e->kind) {
	case AST_PATTERN:
		for (const struct ast *a = e->u.seq.head; a; a = a->next)
			put_tok(f, a->loc, a == e->u.seq.head ? sep : 1);
		break;
	case AST_ASSIGN:
		put_tok(f, e->u.bind.name->loc, sep);
		put_text(f, "=", 1);
		put_tok(f, e->u.bind.value->loc, 1);
		break;
	default:
		put_tok(f, e->loc, sep);
		break;
	}
}

/* How a list is laid out: on its line; filled, each line taking as many
 * elements as fit; or one element a line (a list holding comments). */
enum wrap { WRAP_NONE, WRAP_FILL, WRAP_EACH };

/* A list that is too long is filled; one with comments has one element a
 * line, so each comment stays beside its element. */
static enum wrap wrap_for(const struct fmt *f, const struct ast_seq *seq, bool too_long)
{
	if (seq->n < 2)
		return WRAP_NONE;
	if (seq_has_comment(f, seq))
		return WRAP_EACH;
	return too_long ? WRAP_FILL : WRAP_NONE;
}

/* Does e, after a space, still fit on the current line, with the comma
 * after it (more = true) or the `tail` columns that follow the last one? */
static bool fits(struct fmt *f, const struct ast *e, bool more, unsigned tail)
{
	return line_width(cur(f)) + 1 + elem_width(f, e) + (more ? 1 : tail) <= FMT_WIDTH;
}

/* Elements ", " apart; wrapped, at the continuation indent.  `tail` is the
 * width of what follows the last element on its line. */
static void put_seq(struct fmt *f, const struct ast_seq *seq, unsigned sep, enum wrap wrap,
		    unsigned tail)
{
	for (const struct ast *e = seq->head; e; e = e->next) {
		if (e != seq->head && wrap == WRAP_FILL && f->open && !fits(f, e, e->next, tail))
			f->open = false;
		put_elem(f, e, e == seq->head ? sep : 1);
		if (e->next) {
			put_text(f, ",", 0);
			if (wrap == WRAP_EACH)
				f->open = false;
		}
	}
}

/* The start of a statement: the comments and the blank line before it. */
static void stmt_begin(struct fmt *f, const struct ast *s)
{
	comments_between(f, s->loc.start);
	if (!f->fresh && blank_between(f, f->last, s->loc.start))
		blank_line(f);
	new_line(f, f->indent);
	f->cont = f->indent + 2 * INDENT;
	f->fresh = false;
	f->last = s->loc.start; /* a keyword comes first, and is not a token */
}

/* The ';' that ends s; comments before it follow it, with no blank line
 * (that would split a paragraph the source did not split). */
static void stmt_end(struct fmt *f, const struct ast *s)
{
	uint32_t semi = s->loc.end - 1;
	put_text(f, ";", 0);
	f->fresh = true;
	comments_between(f, semi);
	f->fresh = false;
	if (f->last < semi + 1)
		f->last = semi + 1;
	f->open = false;
}

/* `{`, the statements, `}` (the last byte of the block statement); an empty
 * block is `{}`. */
static void put_block(struct fmt *f, const struct ast *block, const struct ast_seq *body,
		      const struct align *al)
{
	uint32_t open = find_punct(f, f->last, '{');
	uint32_t close = block->loc.end - 1;
	unsigned outer = f->indent;

	comments_inside(f, open);
	if (!body->n && !has_comment(f, open, close)) {
		put_text(f, "{}", 1);
		f->last = close + 1;
		f->open = false;
		return;
	}
	put_text(f, "{", 1);
	f->last = open + 1;
	f->open = false;
	f->indent = outer + INDENT;
	f->fresh = true;
	for (const struct ast *s = body->head; s; s = s->next)
		emit_stmt(f, s, al);
	comments_between(f, close);
	f->indent = outer;
	new_line(f, outer);
	put_text(f, "}", 0);
	f->last = close + 1;
	f->open = false;
	f->fresh = false;
}

/* ---- alignment ------------------------------------------------------------------- */

/* A rule decides: operation, patterns, effect.  Settings (`approval ask;`,
 * `description "..."`, `protect ...;`) are not aligned. */
static bool is_rule(const struct ast *s)
{
	return s->kind == AST_ITEM && s->u.item.patterns.n && s->u.item.word;
}

static unsigned max_u(unsigned a, unsigned b)
{
	return a > b ? a : b;
}

/* A rule's operation and the word that modifies its patterns, one space
 * apart (`read exact`): the patterns line up after them. */
static unsigned head_width(const struct fmt *f, const struct ast *s)
{
	unsigned w = span_width(f, s->u.item.name->loc);
	if (s->u.item.mod)
		w += 1 + span_width(f, s->u.item.mod->loc);
	return w;
}

static void align_stmt(const struct fmt *f, const struct ast *s, struct align *al)
{
	if (is_rule(s)) {
		al->name = max_u(al->name, head_width(f, s));
		if (s->u.item.patterns.n == 1) {
			unsigned w = elem_width(f, s->u.item.patterns.head);
			if (w <= ALIGN_MAX)
				al->effect = max_u(al->effect, w);
		}
	} else if (s->kind == AST_TEST_EXPECT) {
		al->expect_effect = max_u(al->expect_effect, span_width(f, s->u.expect.effect->loc));
		al->expect_op = max_u(al->expect_op, span_width(f, s->u.expect.op->loc));
	}
}

/* The columns of a block: every statement in it. */
static struct align align_block(const struct fmt *f, const struct ast_seq *body)
{
	struct align al = { 0 };
	for (const struct ast *s = body->head; s; s = s->next)
		align_stmt(f, s, &al);
	return al;
}

/* The columns of a paragraph of top-level rules: the rules from s on, up
 * to a blank line or another kind of statement. */
static struct align align_paragraph(const struct fmt *f, const struct ast *s)
{
	struct align al = { 0 };
	for (const struct ast *prev = NULL; s && s->kind == AST_ITEM; prev = s, s = s->next) {
		if (prev && blank_between(f, prev->loc.end, s->loc.start))
			break;
		align_stmt(f, s, &al);
	}
	return al;
}

/* ---- statements ------------------------------------------------------------------ */

/* KEYWORD elem, elem, ...;  wrapped when too long or holding comments. */
static void put_keyword_list(struct fmt *f, const char *keyword, const struct ast_seq *seq)
{
	put_text(f, keyword, 0);
	f->cont = line_width(cur(f)) + 1;
	put_seq(f, seq, 1, wrap_for(f, seq, f->cont + seq_width(f, seq) + 1 > FMT_WIDTH), 1);
}

static void put_item(struct fmt *f, const struct ast *s, const struct align *al)
{
	const struct ast *name = s->u.item.name, *word = s->u.item.word;
	const struct ast *reason = s->u.item.reason;
	const struct ast_seq *pats = &s->u.item.patterns;
	unsigned name_w = head_width(f, s);

	put_tok(f, name->loc, 0);
	if (s->u.item.mod)
		put_tok(f, s->u.item.mod->loc, 1);
	if (pats->n) {
		unsigned sep = is_rule(s) && al->name > name_w ? al->name - name_w + 1 : 1;
		unsigned pat_w = seq_width(f, pats);
		unsigned after = 1; /* spaces before the effect */
		if (is_rule(s) && pats->n == 1 && pat_w <= ALIGN_MAX && al->effect > pat_w)
			after = al->effect - pat_w + 1;
		f->cont = line_width(cur(f)) + sep;
		/* What follows the last pattern: the effect, the reason, ';'. */
		unsigned tail = (word ? 1 + span_width(f, word->loc) : 0) +
				(reason ? 1 + span_width(f, reason->loc) : 0) + 1;
		unsigned flat = f->cont + pat_w + (word ? after - 1 : 0) + tail;
		put_seq(f, pats, sep, wrap_for(f, pats, flat > FMT_WIDTH), tail);
		if (word)
			put_tok(f, word->loc, pats->n > 1 ? 1 : after);
	} else if (word) {
		put_tok(f, word->loc, 1);
	}
	if (s->u.item.value)
		put_tok(f, s->u.item.value->loc, 1);
	if (reason)
		put_tok(f, reason->loc, 1);
}

/* A string, or a list [...]: one that does not fit on the line, or holds
 * comments, has one element a line and a trailing comma. */
static void put_value(struct fmt *f, const struct ast *v)
{
	if (v->kind != AST_LIST) {
		put_tok(f, v->loc, 1);
		return;
	}
	const struct ast_seq *seq = &v->u.seq;
	uint32_t close = v->loc.end - 1;
	bool wrap = has_comment(f, v->loc.start, close) ||
		    (seq->n && line_width(cur(f)) + 2 + seq_width(f, seq) + 2 > FMT_WIDTH);
	comments_inside(f, v->loc.start);
	put_text(f, "[", 1);
	f->last = v->loc.start + 1;
	if (!wrap) {
		put_seq(f, seq, 0, WRAP_NONE, 0);
		put_text(f, "]", 0);
		f->last = v->loc.end;
		return;
	}
	/* Filled at one indentation step, every element followed by a comma;
	 * with comments inside, one element a line. */
	bool each = has_comment(f, v->loc.start, close);
	f->cont = f->indent + INDENT;
	f->open = false;
	for (const struct ast *e = seq->head; e; e = e->next) {
		if (e != seq->head && (each || (f->open && !fits(f, e, true, 0))))
			f->open = false;
		put_elem(f, e, f->open ? 1 : 0);
		put_text(f, ",", 0);
	}
	f->open = false;
	comments_inside(f, close);
	new_line(f, f->indent);
	put_text(f, "]", 0);
	f->last = v->loc.end;
}

/* let NAME = "value";  let NAME = [...]; */
static void put_let(struct fmt *f, const struct ast *s)
{
	put_text(f, "let", 0);
	put_tok(f, s->u.bind.name->loc, 1);
	put_text(f, "=", 1);
	put_value(f, s->u.bind.value);
}

/* expect EFFECT OP pattern;  the words in columns across the test. */
static void put_expect(struct fmt *f, const struct ast *s, const struct align *al)
{
	const struct ast *effect = s->u.expect.effect, *op = s->u.expect.op;
	unsigned ew = span_width(f, effect->loc), ow = span_width(f, op->loc);
	put_text(f, "expect", 0);
	put_tok(f, effect->loc, 1);
	put_tok(f, op->loc, al->expect_effect > ew ? al->expect_effect - ew + 1 : 1);
	if (s->u.expect.form) {
		/* expect EFFECT exec argv [...] */
		put_tok(f, s->u.expect.form->loc, al->expect_op > ow ? al->expect_op - ow + 1 : 1);
		put_value(f, s->u.expect.target);
		return;
	}
	put_elem(f, s->u.expect.target, al->expect_op > ow ? al->expect_op - ow + 1 : 1);
}

/* program "a", "b" { ... }  and  subcommand "a", "b" { ... } */
static void put_program(struct fmt *f, const struct ast *s, const char *keyword)
{
	const struct ast_seq *names = &s->u.prog.names;
	put_text(f, keyword, 0);
	f->cont = line_width(cur(f)) + 1;
	put_seq(f, names, 1, wrap_for(f, names, f->cont + seq_width(f, names) + 2 > FMT_WIDTH), 2);
	struct align al = align_block(f, &s->u.prog.body);
	put_block(f, s, &s->u.prog.body, &al);
}

static void emit_stmt(struct fmt *f, const struct ast *s, const struct align *al)
{
	struct align inner;

	stmt_begin(f, s);
	switch (s->kind) {
	case AST_VERSION:
		put_text(f, "cordon", 0);
		put_tok(f, s->u.one.value->loc, 1);
		break;
	case AST_INCLUDE:
		put_text(f, "include", 0);
		put_tok(f, s->u.one.value->loc, 1);
		break;
	case AST_DEFAULT:
		put_text(f, "default", 0);
		put_tok(f, s->u.one.value->loc, 1);
		break;
	case AST_TEST_PRESET:
		put_text(f, "preset", 0);
		put_tok(f, s->u.one.value->loc, 1);
		break;
	case AST_LET:
		put_let(f, s);
		break;
	case AST_ITEM:
		put_item(f, s, al);
		break;
	case AST_ENV_KEEP:
		put_keyword_list(f, "keep", &s->u.seq);
		break;
	case AST_ENV_SET:
		put_keyword_list(f, "set", &s->u.seq);
		break;
	case AST_ENV_DROP:
		put_keyword_list(f, "drop", &s->u.seq);
		break;
	case AST_ENV_LIST:
		put_keyword_list(f, s->u.item.name->u.tok.text, &s->u.item.patterns);
		break;
	case AST_TEST_CONTEXT:
		put_keyword_list(f, "context", &s->u.seq);
		break;
	case AST_TEST_EXPECT:
		put_expect(f, s, al);
		break;
	case AST_ENV:
		put_text(f, "env", 0);
		inner = align_block(f, &s->u.seq);
		put_block(f, s, &s->u.seq, &inner);
		return;
	case AST_LIMITS:
		put_tok(f, s->u.block.name->loc, 0);
		inner = align_block(f, &s->u.block.body);
		put_block(f, s, &s->u.block.body, &inner);
		return;
	case AST_LIMIT:
		put_tok(f, s->u.limit.key->loc, 0);
		put_tok(f, s->u.limit.value->loc, 1);
		if (s->u.limit.flag)
			put_tok(f, s->u.limit.flag->loc, 1);
		break;
	case AST_PRESET:
	case AST_TEST:
		put_text(f, s->kind == AST_PRESET ? "preset" : "test", 0);
		put_tok(f, s->u.block.name->loc, 1);
		if (s->u.block.parent) {
			put_text(f, "extends", 1);
			put_tok(f, s->u.block.parent->loc, 1);
		}
		inner = align_block(f, &s->u.block.body);
		put_block(f, s, &s->u.block.body, &inner);
		return;
	case AST_ASSERT: {
		const struct ast *cl = s->u.assertion.clause;
		put_text(f, "assert", 0);
		put_tok(f, s->u.assertion.mode->loc, 1);
		put_tok(f, s->u.assertion.op->loc, 1);
		f->cont = line_width(cur(f)) + 1;
		const struct ast_seq *pats = &s->u.assertion.patterns;
		put_seq(f, pats, 1, wrap_for(f, pats, f->cont + seq_width(f, pats) > FMT_WIDTH), 0);
		if (cl) {
			put_tok(f, cl->u.clause.word->loc, 1);
			put_seq(f, &cl->u.clause.values, 1, WRAP_NONE, 0);
			if (cl->u.clause.reason)
				put_tok(f, cl->u.clause.reason->loc, 1);
		}
		break;
	}
	case AST_PROGRAM:
		put_program(f, s, "program");
		return;
	case AST_SUBCOMMAND:
		put_program(f, s, "subcommand");
		return;
	default:
		abort(); /* the parser makes no other statement */
	}
	stmt_end(f, s);
}

/* ---- output ---------------------------------------------------------------------- */

static bool has_trailing_comment(const struct line *l)
{
	return l->code.len && line_has_comment(l);
}

/* Trailing comments on consecutive lines share a column, two spaces past
 * the longest code among them; a line with more than COMMENT_ALIGN_MAX
 * columns of code stands apart, so that it does not push the comments of
 * the others far to the right. */
static void render(const struct fmt *f, struct strbuf *out)
{
	size_t run_end = 0;
	unsigned column = 0;
	for (size_t i = 0; i < f->nlines; i++) {
		const struct line *l = &f->lines[i];
		if (has_trailing_comment(l) && i >= run_end) {
			column = line_width(l) + 2;
			for (run_end = i + 1; run_end < f->nlines; run_end++) {
				const struct line *r = &f->lines[run_end];
				if (!has_trailing_comment(r) || line_width(r) > COMMENT_ALIGN_MAX ||
				    line_width(l) > COMMENT_ALIGN_MAX)
					break;
				column = max_u(column, line_width(r) + 2);
			}
		}
		if (l->code.len || line_has_comment(l))
			for (unsigned k = 0; k < l->indent; k++)
				sb_addc(out, ' ');
		sb_add(out, l->code.buf, l->code.len);
		if (line_has_comment(l)) {
			for (unsigned k = l->code.len ? line_width(l) : column; k < column; k++)
				sb_addc(out, ' ');
			sb_add(out, f->src + l->comment.start, l->comment.end - l->comment.start);
		}
		sb_addc(out, '\n');
	}
}

char *fmt_file(struct load_ctx *lc, uint32_t file, size_t *len)
{
	struct comment_list comments = { NULL, 0, 0 };
	size_t errors = lc->diags->nerrors;
	struct ast *root = load_parse(lc, file, &comments);
	const struct src_file *sf = srcmgr_file(lc->sm, file);

	if (lc->diags->nerrors > errors || !root) {
		free(comments.items);
		return NULL;
	}
	struct fmt f = {
		.src = sf->text,
		.len = sf->len,
		.comments = comments.items,
		.ncomments = comments.n,
		.fresh = true,
	};
	struct align al = { 0 };
	for (const struct ast *s = root->u.seq.head, *prev = NULL; s; prev = s, s = s->next) {
		if (s->kind == AST_ITEM &&
		    (!prev || prev->kind != AST_ITEM || blank_between(&f, prev->loc.end, s->loc.start)))
			al = align_paragraph(&f, s);
		emit_stmt(&f, s, &al);
	}
	comments_between(&f, (uint32_t)f.len);

	struct strbuf out;
	sb_init(&out);
	render(&f, &out);
	for (size_t i = 0; i < f.nlines; i++)
		sb_free(&f.lines[i].code);
	free(f.lines);
	free(comments.items);
	*len = out.len;
	return sb_steal(&out);
}
