/* Program specs of the binary's own policy files, read when they are first
 * looked up.  rules/commands.cordon is three quarters of the embedded
 * default policy's text and of the time it takes to load, and a call
 * reads the specs of the few programs it runs.  Its text is part of the
 * binary and never changes, so at load only where each `program`
 * statement lies and the names it gives are read here; the checker keeps
 * the statement's place, and its body is parsed and checked by the same
 * parser and checker the first time the spec is looked up
 * (check_program.c, ir_spec_ready).
 *
 * The reading here is deliberately narrow: `cordon 1;`, comments and
 * `program "name", ... { ... }` statements whose bodies hold no regex.
 * Anything else and the file is parsed whole, as any other file is. */
#include "config.h"

#include "load.h"
#include "parse.h"

#include <stdlib.h>
#include <string.h>

struct cursor {
	const char *t;
	uint32_t i, n;
};

static void skip_blank(struct cursor *c)
{
	while (c->i < c->n) {
		char ch = c->t[c->i];
		if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n') {
			c->i++;
		} else if (ch == '#') {
			const char *nl = memchr(c->t + c->i, '\n', c->n - c->i);
			c->i = nl ? (uint32_t)(nl - c->t) : c->n;
		} else {
			break;
		}
	}
}

/* The keyword w, followed by a blank. */
static bool keyword(struct cursor *c, const char *w)
{
	size_t k = strlen(w);
	if (c->n - c->i <= k || memcmp(c->t + c->i, w, k) != 0)
		return false;
	char next = c->t[c->i + k];
	if (next != ' ' && next != '\t' && next != '\n' && next != '\r')
		return false;
	c->i += (uint32_t)k;
	return true;
}

/* A string or regex token as the scanner reads one: the quote q ('"' or
 * '/'), then characters other than q, '\\' and line ends, or '\\' and any
 * character but a line end, then q; its end (past q) in *end. */
static bool quoted_end(const struct cursor *c, char q, uint32_t *end)
{
	const char stops[] = { q, '\\', '\n', '\r', '\0' };
	uint32_t j = c->i + 1;
	while ((j += (uint32_t)strcspn(c->t + j, stops)) < c->n && c->t[j] != q) {
		char ch = c->t[j];
		if (ch == '\n' || ch == '\r')
			return false;
		if (ch == '\\' && (++j >= c->n || c->t[j] == '\n' || c->t[j] == '\r'))
			return false;
		j++;
	}
	if (j >= c->n)
		return false;
	*end = j + 1;
	return true;
}

/* The names of a program statement, as the parser makes their tokens. */
static bool names(struct cursor *c, uint32_t file, struct arena *a, struct ast_seq *out)
{
	ast_seq_init(out);
	for (;;) {
		uint32_t end;
		skip_blank(c);
		if (c->i >= c->n || c->t[c->i] != '"' || !quoted_end(c, '"', &end))
			return false;
		struct loc at = { file, c->i, end };
		ast_seq_push(out, ast_token(a, AST_STRING, at, c->t + c->i + 1, end - c->i - 2));
		c->i = end;
		skip_blank(c);
		if (c->i < c->n && c->t[c->i] == ',') {
			c->i++;
			continue;
		}
		return out->head != NULL;
	}
}

/* Past the end of the statement or block that c is in, depth levels of
 * braces and brackets down: a ';' or a closing '}' at depth 0 ends it.
 * Strings and regexes are skipped whole, so braces inside them do not
 * count. */
static bool statement_end(struct cursor *c, unsigned depth)
{
	while (c->i < c->n) {
		/* To the next byte that can end or nest a statement or start
		 * a comment, a string or a regex (the text ends in a NUL). */
		c->i += (uint32_t)strcspn(c->t + c->i, "#\"/{}[];");
		if (c->i >= c->n)
			return false;
		char ch = c->t[c->i];
		uint32_t end;
		if (ch == '#') {
			skip_blank(c);
			continue;
		}
		if (ch == '"' || ch == '/') {
			if (!quoted_end(c, ch, &end))
				return false;
			c->i = end;
			continue;
		}
		c->i++;
		if (ch == '{' || ch == '[') {
			depth++;
		} else if (ch == '}' || ch == ']') {
			if (depth == 0)
				return false;
			if (--depth == 0 && ch == '}')
				return true;
		} else if (ch == ';' && depth == 0) {
			return true;
		}
	}
	return false;
}

/* Past the '}' that closes a block whose '{' is just before c, where the
 * block is laid out as `cordon fmt` writes it (tests/fmt.sh keeps rules/
 * so): nothing but a comment after the '{' on its line, every line of the
 * body blank or indented past indent spaces, and the first line that is
 * not, indent spaces and the '}' alone.  This finds the end by lines,
 * where statement_end reads every byte; false, and c unmoved, when the
 * block is not laid out so (statement_end reads it then).  A block cut
 * wrong would not parse as exactly those bytes when it is read, which
 * stops cordon; tests/fast-load.sh reads every built-in spec both ways. */
static bool block_end(struct cursor *c, unsigned indent)
{
	uint32_t i = c->i;
	while (i < c->n && (c->t[i] == ' ' || c->t[i] == '\t'))
		i++;
	if (i < c->n && c->t[i] != '\n' && c->t[i] != '#')
		return false;
	for (;;) {
		const char *nl = memchr(c->t + i, '\n', c->n - i);
		if (!nl)
			return false;
		i = (uint32_t)(nl - c->t) + 1;
		unsigned k = 0;
		while (k <= indent && i + k < c->n && c->t[i + k] == ' ')
			k++;
		if (i + k >= c->n)
			return false;
		if (k > indent || c->t[i + k] == '\n')
			continue; /* indented past the block's own column, or blank */
		if (k < indent || c->t[i + k] != '}' ||
		    (i + k + 1 < c->n && c->t[i + k + 1] != '\n'))
			return false;
		c->i = i + k + 1;
		return true;
	}
}

static struct ast *program(struct cursor *c, uint32_t file, struct arena *a)
{
	uint32_t start = c->i;
	struct ast_seq seq;
	if (!keyword(c, "program") || !names(c, file, a, &seq))
		return NULL;
	if (c->i >= c->n || c->t[c->i] != '{')
		return NULL;
	c->i++;
	if (!block_end(c, 0) && !statement_end(c, 1))
		return NULL;
	struct loc at = { file, start, c->i };
	struct ast *node = ast_new(a, AST_PROGRAM, at);
	node->u.prog.names = seq;
	ast_seq_init(&node->u.prog.body);
	node->u.prog.deferred = c->t;
	return node;
}

/* Parse [start, end) of the file and append its statements to root. */
static void parse_run(struct load_ctx *lc, uint32_t file, const char *text, uint32_t start,
		      uint32_t end, struct ast_seq *root)
{
	if (start == end)
		return;
	struct ast *run = parse_range(file, text, start, end, lc->arena, lc->diags);
	for (struct ast *s = run->u.seq.head, *next; s; s = next) {
		next = s->next;
		ast_seq_push(root, s);
	}
}

/* A deferred program, after the run of other statements before it (from
 * run_start to run_end, empty when there are none), which the parser reads. */
struct piece {
	struct ast *program;
	uint32_t run_start, run_end;
};

#define NO_RUN UINT32_MAX

/* The file cut into pieces, or false when it is not of the form read here;
 * nothing is parsed yet, so a file read whole has no diagnostics twice.
 * With lc->defer_specs a program statement is a piece of its own; with
 * lc->skip_tests a `test` block ends the run before it and is no piece. */
static bool cut(const struct load_ctx *lc, struct cursor *c, uint32_t file, struct piece **out,
		size_t *n)
{
	size_t cap = 0;
	uint32_t run = NO_RUN; /* where the other statements since the last piece start */
	for (skip_blank(c); c->i < c->n; skip_blank(c)) {
		uint32_t start = c->i;
		struct cursor probe = *c;
		bool test = lc->skip_tests && keyword(&probe, "test");
		probe = *c;
		if (!test && !(lc->defer_specs && keyword(&probe, "program"))) {
			if (run == NO_RUN)
				run = start;
			if (!statement_end(c, 0))
				return false;
			continue;
		}
		struct ast *node = NULL;
		if (test ? !statement_end(c, 0) || c->t[c->i - 1] != '}'
			 : !(node = program(c, file, lc->arena)))
			return false;
		struct piece p = { node, run == NO_RUN ? start : run, start };
		VEC_PUSH(*out, *n, cap, p);
		run = NO_RUN;
	}
	struct piece last = { NULL, run == NO_RUN ? c->n : run, c->n };
	VEC_PUSH(*out, *n, cap, last);
	return true;
}

struct ast *load_defer_programs(struct load_ctx *lc, uint32_t file, const char *text, size_t len)
{
	struct cursor c = { text, 0, (uint32_t)len };
	struct piece *pieces = NULL;
	size_t n = 0;
	/* The text is a C string: the scan stops at its NUL (strcspn). */
	if (len > LOAD_MAX_FILE_BYTES || strlen(text) != len ||
	    !cut(lc, &c, file, &pieces, &n)) {
		/* Nodes made so far stay in the arena unused, as a parse's
		 * partial trees do, until the policy is checked. */
		free(pieces);
		return NULL;
	}
	struct loc all = { file, 0, (uint32_t)len };
	struct ast *root = ast_new(lc->arena, AST_FILE, all);
	ast_seq_init(&root->u.seq);
	for (size_t i = 0; i < n; i++) {
		parse_run(lc, file, text, pieces[i].run_start, pieces[i].run_end, &root->u.seq);
		if (pieces[i].program)
			ast_seq_push(&root->u.seq, pieces[i].program);
	}
	free(pieces);
	return root;
}

/* Past the names of a program or subcommand statement. */
static bool skip_names(struct cursor *c)
{
	for (;;) {
		uint32_t end;
		skip_blank(c);
		if (c->i >= c->n || c->t[c->i] != '"' || !quoted_end(c, '"', &end))
			return false;
		c->i = end;
		skip_blank(c);
		if (c->i >= c->n || c->t[c->i] != ',')
			return true;
		c->i++;
	}
}

/* A subcommand statement at c, past its end: its place in *r. */
static bool subcommand(struct cursor *c, struct load_range *r)
{
	r->start = c->i;
	if (!keyword(c, "subcommand") || !skip_names(c) || c->i >= c->n || c->t[c->i] != '{')
		return false;
	r->open = ++c->i;
	if (!block_end(c, 2) && (!statement_end(c, 1) || c->t[c->i - 1] != '}'))
		return false;
	r->close = c->i - 1;
	r->end = c->i;
	return true;
}

size_t load_defer_subcommands(const char *text, uint32_t start, uint32_t end, uint32_t *open,
			      struct load_range **subs)
{
	struct cursor c = { text, start, end };
	struct load_range *v = NULL;
	size_t n = 0, cap = 0;
	*subs = NULL;
	if (!keyword(&c, "program") || !skip_names(&c) || c.i >= c.n || c.t[c.i] != '{')
		return 0;
	*open = ++c.i;
	for (skip_blank(&c); c.i < c.n && c.t[c.i] != '}'; skip_blank(&c)) {
		struct cursor probe = c;
		struct load_range r;
		if (!keyword(&probe, "subcommand")) {
			if (!statement_end(&c, 0) || c.t[c.i - 1] != ';')
				break;
			continue;
		}
		if (!subcommand(&c, &r))
			break;
		VEC_PUSH(v, n, cap, r);
	}
	/* The body's closing brace ends the statement, or it is read whole. */
	if (c.i + 1 != end || c.t[c.i] != '}') {
		free(v);
		return 0;
	}
	*subs = v;
	return n;
}
