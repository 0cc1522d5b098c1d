/* The shell parser: a hand-written recursive descent over bash syntax,
 * building the tree of shell_int.h from the tokens of shell_lex.c.
 *
 * Every construct that recurses enters a depth counter (SHELL_MAX_DEPTH).
 * Errors longjmp back to shell_parse_tree(), which returns NULL. */
#include "config.h"

#include "shell_int.h"

#include <ctype.h>
#include <setjmp.h>
#include <string.h>

static _Noreturn void fail_unexpected(struct parser *p, const struct token *t)
{
	char buf[48];
	shell_fail(p, t->start, "unexpected %s", shell_tok_desc(p, t, buf, sizeof(buf)));
}

static bool tok_is(struct parser *p, enum tok_word tw)
{
	struct token *t = shell_peek(p);
	return t->kind == T_WORD && shell_tok_word(p, t) == tw;
}

static void expect_word(struct parser *p, enum tok_word tw, const char *what)
{
	char buf[48];
	if (!tok_is(p, tw)) {
		struct token *t = shell_peek(p);
		shell_fail(p, t->start, "expected '%s'%s%s, found %s", shell_tok_words[tw],
			   what ? " to close " : "", what ? what : "",
			   shell_tok_desc(p, t, buf, sizeof(buf)));
	}
	shell_next(p);
}

static void skip_newlines(struct parser *p)
{
	while (shell_peek(p)->kind == T_NEWLINE)
		shell_next(p);
}

/* ---- the grammar -------------------------------------------------------------- */

enum keyword {
	KW_NONE,
	KW_IF,
	KW_FOR,
	KW_WHILE,
	KW_UNTIL,
	KW_CASE,
	KW_LBRACE,
	KW_DBRACKET,
	KW_FUNCTION,
	KW_END, /* closes something: never starts a command */
};

static const enum keyword keywords[TW_COUNT] = {
	[TW_IF] = KW_IF,	   [TW_FOR] = KW_FOR,	     [TW_SELECT] = KW_FOR,
	[TW_WHILE] = KW_WHILE,	   [TW_UNTIL] = KW_UNTIL,    [TW_CASE] = KW_CASE,
	[TW_LBRACE] = KW_LBRACE,   [TW_DBRACKET] = KW_DBRACKET, [TW_FUNCTION] = KW_FUNCTION,
	[TW_THEN] = KW_END,	   [TW_ELIF] = KW_END,	     [TW_ELSE] = KW_END,
	[TW_FI] = KW_END,	   [TW_DO] = KW_END,	     [TW_DONE] = KW_END,
	[TW_ESAC] = KW_END,	   [TW_RBRACE] = KW_END,
};

static enum keyword keyword_of(struct parser *p, struct token *t)
{
	return t->kind == T_WORD ? keywords[shell_tok_word(p, t)] : KW_NONE;
}

static struct shell_node *new_node(struct parser *p, enum sn_kind kind, size_t start)
{
	struct shell_node *n = arena_alloc0(p->a, sizeof(*n));
	n->kind = kind;
	n->start = map_start(p, start);
	return n;
}

static void end_node(struct parser *p, struct shell_node *n)
{
	n->end = map_end(p, p->last_end);
}

static bool at_list_end(struct parser *p)
{
	struct token *t = shell_peek(p);
	switch (t->kind) {
	case T_EOF:
	case T_RPAREN:
	case T_DSEMI:
	case T_SEMI_AMP:
	case T_DSEMI_AMP:
		return true;
	case T_WORD:
		return keyword_of(p, t) == KW_END;
	default:
		return false;
	}
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool is_fd_word(const char *s)
{
	if (!strcmp(s, "-"))
		return true;
	if (!*s)
		return false;
	for (; *s; s++)
		if (!is_digit((unsigned char)*s))
			return false;
	return true;
}

static void parse_redirect(struct parser *p, struct shell_node *n, size_t *cap)
{
	char buf[48];
	struct token *t = shell_peek(p);
	enum shell_redir_op op = t->op;
	int fd = t->fd;
	size_t st = t->start;
	shell_next(p);
	t = shell_peek(p);
	if (t->kind != T_WORD)
		shell_fail(p, t->start, "expected a word after '%s', found %s", shell_redir_names[op],
		     shell_tok_desc(p, t, buf, sizeof(buf)));
	struct shell_redir *r = arena_alloc0(p->a, sizeof(*r));
	r->op = op;
	r->fd = fd >= 0 ? fd
		: (op == SHELL_REDIR_IN || op == SHELL_REDIR_RDWR || op == SHELL_REDIR_HEREDOC ||
		   op == SHELL_REDIR_HEREDOC_TABS || op == SHELL_REDIR_HERESTRING ||
		   op == SHELL_REDIR_DUP_IN)
			? 0
			: 1;
	r->target = t->word;
	r->start = map_start(p, st);
	r->end = map_end(p, t->end);
	if (op == SHELL_REDIR_HEREDOC || op == SHELL_REDIR_HEREDOC_TABS) {
		r->body = shell_lit_word(p, "", 0, t->end, t->end);
		shell_heredoc_register(p, r, t->start, t->end);
	}
	/* >&FILE sends both stdout and stderr to FILE. */
	if (op == SHELL_REDIR_DUP_OUT && fd < 0 && t->word->lit && !is_fd_word(t->word->lit))
		r->op = SHELL_REDIR_OUT_ERR;
	shell_next(p);
	AVEC_PUSH(p->a, n->redirs, n->nredirs, *cap, r);
}

static void parse_redirs(struct parser *p, struct shell_node *n)
{
	size_t cap = 0;
	while (shell_peek(p)->kind == T_REDIR)
		parse_redirect(p, n, &cap);
}

static struct shell_node *parse_command(struct parser *p);

/* A list that must hold at least one command. */
static struct shell_node *parse_body(struct parser *p)
{
	char buf[48];
	struct shell_node *n = shell_parse_list(p);
	if (!n->u.list.n) {
		struct token *t = shell_peek(p);
		shell_fail(p, t->start, "expected a command, found %s", shell_tok_desc(p, t, buf, sizeof(buf)));
	}
	return n;
}

static struct shell_node *parse_funcdef(struct parser *p, struct shell_node *simple)
{
	char buf[48];
	struct shell_node *f = new_node(p, SN_FUNC, 0);
	f->start = simple->start;
	f->u.func.name = simple->u.simple.words[0];
	shell_next(p); /* ( */
	struct token *t = shell_peek(p);
	if (t->kind != T_RPAREN)
		shell_fail(p, t->start, "expected ')' in a function definition, found %s",
		     shell_tok_desc(p, t, buf, sizeof(buf)));
	shell_next(p);
	skip_newlines(p);
	t = shell_peek(p);
	enum keyword kw = keyword_of(p, t);
	if (!(t->kind == T_LPAREN || (kw != KW_NONE && kw != KW_END && kw != KW_FUNCTION)))
		shell_fail(p, t->start, "expected a function body, found %s",
		     shell_tok_desc(p, t, buf, sizeof(buf)));
	f->u.func.body = parse_command(p);
	end_node(p, f);
	return f;
}

static struct shell_node *parse_simple(struct parser *p)
{
	struct token *t = shell_peek(p);
	struct shell_node *n = new_node(p, SN_SIMPLE, t->start);
	size_t acap = 0, wcap = 0, rcap = 0;
	for (;;) {
		t = shell_peek(p);
		if (t->kind == T_REDIR) {
			parse_redirect(p, n, &rcap);
			continue;
		}
		if (t->kind != T_WORD)
			break;
		if (!n->u.simple.nwords && t->assign)
			AVEC_PUSH(p->a, n->u.simple.assigns, n->u.simple.nassigns, acap, t->assign);
		else
			AVEC_PUSH(p->a, n->u.simple.words, n->u.simple.nwords, wcap, t->word);
		shell_next(p);
		if (n->u.simple.nwords == 1 && !n->u.simple.nassigns && !n->nredirs &&
		    shell_peek(p)->kind == T_LPAREN)
			return parse_funcdef(p, n);
	}
	if (!n->u.simple.nwords && !n->u.simple.nassigns && !n->nredirs)
		fail_unexpected(p, t);
	end_node(p, n);
	return n;
}

/* [[ ... ]]: a command named "[[" whose operators are words. */
/* The regex after =~ in [[ ]]: bash reads it as one word up to a blank
 * outside parentheses, so ( | ; < > & in it are characters of the regex
 * ((^|;)x($|;)).  Such a word is read as a here-document body is
 * (expansions and substitutions, quotes as characters); a word without
 * them is left to the ordinary lexer (NULL). */
static struct shell_word *regex_operand(struct parser *p)
{
	size_t i = p->pos, start, depth = 0;
	while (at(p, i) == ' ' || at(p, i) == '\t')
		i++;
	start = i;
	bool special = false;
	for (int c; (c = at(p, i)) >= 0; i++) {
		if (depth == 0 && (c == ' ' || c == '\t' || c == '\n'))
			break;
		if (c == '\\') {
			i++;
		} else if (c == '\'' || c == '"') {
			while (at(p, i + 1) >= 0 && at(p, i + 1) != c)
				i += (c == '"' && at(p, i + 1) == '\\') ? 2 : 1;
			i++;
		} else if (c == '(') {
			depth++;
			special = true;
		} else if (c == ')') {
			if (depth == 0)
				break;
			depth--;
		} else if (strchr("|;&<>", c)) {
			special = true;
		}
	}
	if (!special || i == start)
		return NULL;
	if (i > p->len)
		i = p->len;
	struct shell_word *w = shell_heredoc_body(p, p->s + start, i - start, start, i);
	p->pos = i;
	p->have = false;
	return w;
}

static struct shell_node *parse_dbracket(struct parser *p)
{
	struct token *t = shell_peek(p);
	struct shell_node *n = new_node(p, SN_SIMPLE, t->start);
	size_t cap = 0, open = t->start;
	AVEC_PUSH(p->a, n->u.simple.words, n->u.simple.nwords, cap, t->word);
	shell_next(p);
	for (;;) {
		t = shell_peek(p);
		switch (t->kind) {
		case T_EOF:
			shell_fail(p, open, "expected ']]' to close '[['");
		case T_NEWLINE:
			shell_next(p);
			continue;
		case T_SEMI:
		case T_AMP:
		case T_DSEMI:
		case T_SEMI_AMP:
		case T_DSEMI_AMP:
		case T_PIPE_AMP:
			fail_unexpected(p, t);
		case T_WORD: {
			bool end = t->end - t->start == 2 && !memcmp(p->s + t->start, "]]", 2);
			bool regex = t->end - t->start == 2 && !memcmp(p->s + t->start, "=~", 2);
			AVEC_PUSH(p->a, n->u.simple.words, n->u.simple.nwords, cap, t->word);
			shell_next(p);
			if (end)
				return n;
			struct shell_word *rw = regex ? regex_operand(p) : NULL;
			if (rw)
				AVEC_PUSH(p->a, n->u.simple.words, n->u.simple.nwords, cap, rw);
			continue;
		}
		default:
			AVEC_PUSH(p->a, n->u.simple.words, n->u.simple.nwords, cap,
				  shell_lit_word(p, p->s + t->start, t->end - t->start, t->start, t->end));
			shell_next(p);
		}
	}
}

static bool at_dparen(struct parser *p)
{
	struct token *t = shell_peek(p);
	return t->kind == T_LPAREN && at(p, t->start + 1) == '(' && shell_arith_scan(p, t->start + 2);
}

static struct shell_node *parse_if(struct parser *p)
{
	struct shell_node *n = new_node(p, SN_IF, shell_peek(p)->start);
	size_t cap = 0, cap2 = 0;
	shell_next(p);
	for (;;) {
		AVEC_PUSH(p->a, n->u.if_.conds, n->u.if_.n, cap, parse_body(p));
		n->u.if_.n--;
		expect_word(p, TW_THEN, NULL);
		AVEC_PUSH(p->a, n->u.if_.bodies, n->u.if_.n, cap2, parse_body(p));
		if (tok_is(p, TW_ELIF)) {
			shell_next(p);
			continue;
		}
		if (tok_is(p, TW_ELSE)) {
			shell_next(p);
			n->u.if_.else_body = parse_body(p);
		}
		expect_word(p, TW_FI, "'if'");
		return n;
	}
}

static struct shell_node *parse_loop(struct parser *p, enum sn_kind kind)
{
	struct shell_node *n = new_node(p, kind, shell_peek(p)->start);
	shell_next(p);
	n->u.loop.cond = parse_body(p);
	expect_word(p, TW_DO, NULL);
	n->u.loop.body = parse_body(p);
	expect_word(p, TW_DONE, "'do'");
	return n;
}

static struct shell_node *parse_for(struct parser *p)
{
	char buf[48];
	struct shell_node *n = new_node(p, SN_FOR, shell_peek(p)->start);
	shell_next(p);
	struct token *t = shell_peek(p);
	if (t->kind == T_LPAREN && at(p, t->start + 1) == '(') {
		if (!shell_arith_scan(p, t->start + 2))
			shell_fail(p, t->start, "unterminated arithmetic for loop header");
		n->u.for_.arith = shell_arith_word(p);
		t = shell_peek(p);
		if (t->kind == T_SEMI || t->kind == T_NEWLINE)
			shell_next(p);
	} else {
		if (t->kind != T_WORD)
			shell_fail(p, t->start, "expected a variable name after 'for', found %s",
			     shell_tok_desc(p, t, buf, sizeof(buf)));
		n->u.for_.var = t->word;
		shell_next(p);
		skip_newlines(p);
		if (tok_is(p, TW_IN)) {
			size_t cap = 0;
			shell_next(p);
			while (shell_peek(p)->kind == T_WORD) {
				AVEC_PUSH(p->a, n->u.for_.words, n->u.for_.nwords, cap, shell_peek(p)->word);
				shell_next(p);
			}
			t = shell_peek(p);
			if (t->kind == T_SEMI || t->kind == T_NEWLINE)
				shell_next(p);
		} else if (shell_peek(p)->kind == T_SEMI) {
			shell_next(p);
		}
	}
	skip_newlines(p);
	if (tok_is(p, TW_LBRACE)) {
		n->u.for_.body = parse_command(p);
	} else {
		expect_word(p, TW_DO, NULL);
		n->u.for_.body = parse_body(p);
		expect_word(p, TW_DONE, "'do'");
	}
	return n;
}

static struct shell_node *parse_case(struct parser *p)
{
	char buf[48];
	struct shell_node *n = new_node(p, SN_CASE, shell_peek(p)->start);
	size_t cap = 0;
	shell_next(p);
	struct token *t = shell_peek(p);
	if (t->kind != T_WORD)
		shell_fail(p, t->start, "expected a word after 'case', found %s",
		     shell_tok_desc(p, t, buf, sizeof(buf)));
	n->u.case_.subject = t->word;
	shell_next(p);
	skip_newlines(p);
	expect_word(p, TW_IN, NULL);
	for (;;) {
		struct sn_case_item item = { 0 };
		size_t pcap = 0;
		skip_newlines(p);
		if (tok_is(p, TW_ESAC)) {
			shell_next(p);
			return n;
		}
		if (shell_peek(p)->kind == T_LPAREN)
			shell_next(p);
		if (shell_peek(p)->kind == T_EOF)
			expect_word(p, TW_ESAC, "'case'");
		for (;;) {
			t = shell_peek(p);
			if (t->kind != T_WORD)
				shell_fail(p, t->start, "expected a case pattern, found %s",
				     shell_tok_desc(p, t, buf, sizeof(buf)));
			AVEC_PUSH(p->a, item.patterns, item.npatterns, pcap, t->word);
			shell_next(p);
			if (shell_peek(p)->kind != T_PIPE)
				break;
			shell_next(p);
		}
		t = shell_peek(p);
		if (t->kind != T_RPAREN)
			shell_fail(p, t->start, "expected ')' after a case pattern, found %s",
			     shell_tok_desc(p, t, buf, sizeof(buf)));
		shell_next(p);
		item.body = shell_parse_list(p);
		AVEC_PUSH(p->a, n->u.case_.items, n->u.case_.n, cap, item);
		t = shell_peek(p);
		if (t->kind == T_DSEMI || t->kind == T_SEMI_AMP || t->kind == T_DSEMI_AMP) {
			shell_next(p);
			continue;
		}
		expect_word(p, TW_ESAC, "'case'");
		return n;
	}
}

static struct shell_node *parse_function_kw(struct parser *p)
{
	char buf[48];
	struct shell_node *f = new_node(p, SN_FUNC, shell_peek(p)->start);
	shell_next(p);
	struct token *t = shell_peek(p);
	if (t->kind != T_WORD)
		shell_fail(p, t->start, "expected a function name, found %s",
		     shell_tok_desc(p, t, buf, sizeof(buf)));
	f->u.func.name = t->word;
	shell_next(p);
	if (shell_peek(p)->kind == T_LPAREN && !at_dparen(p)) {
		shell_next(p);
		t = shell_peek(p);
		if (t->kind != T_RPAREN)
			shell_fail(p, t->start, "expected ')' in a function definition, found %s",
			     shell_tok_desc(p, t, buf, sizeof(buf)));
		shell_next(p);
	}
	skip_newlines(p);
	t = shell_peek(p);
	enum keyword kw = keyword_of(p, t);
	if (!(t->kind == T_LPAREN || (kw != KW_NONE && kw != KW_END && kw != KW_FUNCTION)))
		shell_fail(p, t->start, "expected a function body, found %s",
		     shell_tok_desc(p, t, buf, sizeof(buf)));
	f->u.func.body = parse_command(p);
	end_node(p, f);
	return f;
}

static size_t skip_blanks_at(const struct parser *p, size_t i)
{
	while (at(p, i) == ' ' || at(p, i) == '\t')
		i++;
	return i;
}

/* Whether a compound command starts at byte i: { ( if for while until
 * case select [[, each followed by a blank or an end of word. */
static bool compound_at(const struct parser *p, size_t i)
{
	static const char *const starts[] = { "if", "for", "while", "until", "case", "select", "[[",
					      "{" };
	if (at(p, i) == '(')
		return true;
	for (size_t k = 0; k < ARRAY_SIZE(starts); k++) {
		size_t n = strlen(starts[k]);
		int after = at(p, i + n);
		if (i + n <= p->len && !memcmp(p->s + i, starts[k], n) &&
		    (after == ' ' || after == '\t' || after == '\n' || after < 0))
			return true;
	}
	return false;
}

/* coproc [NAME] COMPOUND: how many tokens (1 or 2) come before the
 * compound command, 0 when this is no such coproc (coproc CMD ARGS is a
 * simple command, unwrapped as a wrapper). */
static int coproc_prefix(struct parser *p, const struct token *t)
{
	if (t->end - t->start != 6 || memcmp(p->s + t->start, "coproc", 6))
		return 0;
	size_t i = skip_blanks_at(p, t->end);
	if (compound_at(p, i))
		return 1;
	size_t k = i;
	if (!(isalpha(at(p, k)) || at(p, k) == '_'))
		return 0;
	while (isalnum(at(p, k)) || at(p, k) == '_')
		k++;
	if (at(p, k) != ' ' && at(p, k) != '\t')
		return 0;
	return compound_at(p, skip_blanks_at(p, k)) ? 2 : 0;
}

static struct shell_node *parse_command(struct parser *p)
{
	char buf[48];
	struct token *t = shell_peek(p);
	struct shell_node *n;
	if (t->kind == T_WORD && coproc_prefix(p, t)) {
		/* The compound command runs in the background with its input
		 * and output on pipes: what it runs is the command's. */
		for (int k = coproc_prefix(p, t); k > 0; k--)
			shell_next(p);
		return parse_command(p);
	}
	if (t->kind == T_WORD) {
		switch (keyword_of(p, t)) {
		case KW_IF:
			n = parse_if(p);
			break;
		case KW_FOR:
			n = parse_for(p);
			break;
		case KW_WHILE:
			n = parse_loop(p, SN_WHILE);
			break;
		case KW_UNTIL:
			n = parse_loop(p, SN_UNTIL);
			break;
		case KW_CASE:
			n = parse_case(p);
			break;
		case KW_LBRACE: {
			size_t open = t->start;
			n = new_node(p, SN_GROUP, open);
			shell_next(p);
			n->u.sub.body = parse_body(p);
			expect_word(p, TW_RBRACE, "'{'");
			break;
		}
		case KW_DBRACKET:
			n = parse_dbracket(p);
			break;
		case KW_FUNCTION:
			return parse_function_kw(p);
		case KW_END:
			fail_unexpected(p, t);
		default:
			return parse_simple(p);
		}
	} else if (t->kind == T_LPAREN) {
		if (at_dparen(p)) {
			n = new_node(p, SN_ARITH, t->start);
			n->u.arith.expr = shell_arith_word(p);
		} else {
			n = new_node(p, SN_SUBSHELL, t->start);
			shell_next(p);
			n->u.sub.body = parse_body(p);
			t = shell_peek(p);
			if (t->kind != T_RPAREN)
				shell_fail(p, t->start, "expected ')' to close '(', found %s",
				     shell_tok_desc(p, t, buf, sizeof(buf)));
			shell_next(p);
		}
	} else if (t->kind == T_REDIR) {
		return parse_simple(p);
	} else {
		shell_fail(p, t->start, "expected a command, found %s", shell_tok_desc(p, t, buf, sizeof(buf)));
	}
	parse_redirs(p, n);
	end_node(p, n);
	return n;
}

static struct shell_node *parse_pipeline(struct parser *p)
{
	size_t start = shell_peek(p)->start;
	for (;;) {
		if (tok_is(p, TW_BANG)) {
			shell_next(p);
		} else if (tok_is(p, TW_TIME)) {
			shell_next(p);
			if (tok_is(p, TW_TIME_P))
				shell_next(p);
		} else {
			break;
		}
	}
	struct shell_node *first = parse_command(p);
	struct token *t = shell_peek(p);
	if (t->kind != T_PIPE && t->kind != T_PIPE_AMP)
		return first;
	struct shell_node *n = new_node(p, SN_PIPE, start);
	size_t cap = 0;
	AVEC_PUSH(p->a, n->u.list.items, n->u.list.n, cap, first);
	while ((t = shell_peek(p))->kind == T_PIPE || t->kind == T_PIPE_AMP) {
		shell_next(p);
		skip_newlines(p);
		AVEC_PUSH(p->a, n->u.list.items, n->u.list.n, cap, parse_command(p));
	}
	end_node(p, n);
	return n;
}

static struct shell_node *parse_andor(struct parser *p)
{
	size_t start = shell_peek(p)->start;
	struct shell_node *first = parse_pipeline(p);
	struct token *t = shell_peek(p);
	if (t->kind != T_AND && t->kind != T_OR)
		return first;
	struct shell_node *n = new_node(p, SN_ANDOR, start);
	size_t cap = 0, scap = 0;
	AVEC_PUSH(p->a, n->u.list.sep, n->u.list.n, scap, SN_SEP_AND);
	n->u.list.n = 0;
	AVEC_PUSH(p->a, n->u.list.items, n->u.list.n, cap, first);
	while ((t = shell_peek(p))->kind == T_AND || t->kind == T_OR) {
		unsigned char sep = t->kind == T_OR ? SN_SEP_OR : SN_SEP_AND;
		shell_next(p);
		skip_newlines(p);
		AVEC_PUSH(p->a, n->u.list.sep, n->u.list.n, scap, sep);
		n->u.list.n--;
		AVEC_PUSH(p->a, n->u.list.items, n->u.list.n, cap, parse_pipeline(p));
	}
	end_node(p, n);
	return n;
}

struct shell_node *shell_parse_list(struct parser *p)
{
	struct shell_node *n = new_node(p, SN_LIST, p->pos);
	size_t cap = 0, scap = 0;
	shell_enter(p, p->pos);
	for (;;) {
		skip_newlines(p);
		if (at_list_end(p))
			break;
		struct shell_node *item = parse_andor(p);
		struct token *t = shell_peek(p);
		unsigned char sep = t->kind == T_AMP ? SN_SEP_BG : SN_SEP_SEQ;
		AVEC_PUSH(p->a, n->u.list.sep, n->u.list.n, scap, sep);
		n->u.list.n--;
		AVEC_PUSH(p->a, n->u.list.items, n->u.list.n, cap, item);
		if (t->kind != T_SEMI && t->kind != T_NEWLINE && t->kind != T_AMP)
			break;
		shell_next(p);
	}
	shell_leave(p);
	if (n->u.list.n)
		n->start = n->u.list.items[0]->start;
	end_node(p, n);
	return n;
}

static struct shell_node *parse_program(struct parser *p)
{
	struct shell_node *n = shell_parse_list(p);
	struct token *t = shell_peek(p);
	if (t->kind != T_EOF)
		fail_unexpected(p, t);
	return n;
}

/* A script inside backquotes, parsed from its own buffer. */
struct shell_node *shell_parse_child(struct parser *p, const char *text, size_t len,
				      size_t ostart, size_t oend)
{
	struct parser c;
	shell_child_init(&c, p, text, len, ostart, oend);
	shell_enter(p, ostart);
	struct shell_node *n = parse_program(&c);
	shell_leave(p);
	return n;
}

struct shell_node *shell_parse_tree(struct arena *a, const char *text, size_t len, int depth,
				    bool mapped, size_t ostart, size_t oend,
				    struct shell_error *err)
{
	jmp_buf jb;
	struct parser p;
	int d = depth;
	memset(&p, 0, sizeof(p));
	p.s = text;
	p.len = len;
	p.a = a;
	p.jb = &jb;
	p.err = err;
	p.depth = &d;
	p.mapped = mapped;
	p.mstart = ostart;
	p.mend = oend;
	if (setjmp(jb))
		return NULL;
	return parse_program(&p);
}
