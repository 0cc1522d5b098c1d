/* The shell lexer's tokens: operators, reserved words and words (cut into
 * parts by shell_lex.c), one token of lookahead, and the bodies of
 * here-documents, read after the line that announced them. */
#include "config.h"

#include "shell_int.h"

#include <string.h>

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static void read_heredoc(struct parser *p, const struct heredoc *h)
{
	struct abuf b = { 0 };
	size_t start = p->pos;
	shell_abuf_add(p->a, &b, "", 0);
	while (p->pos < p->len) {
		size_t ls = p->pos, cs = ls;
		const char *nl = memchr(p->s + ls, '\n', p->len - ls);
		size_t le = nl ? (size_t)(nl - p->s) : p->len;
		if (h->strip)
			while (cs < le && p->s[cs] == '\t')
				cs++;
		p->pos = nl ? le + 1 : le;
		if (le - cs >= h->dlen && memcmp(p->s + cs, h->delim, h->dlen) == 0) {
			if (le - cs == h->dlen)
				break;
			/* Inside $(...), bash ends the body at a line that starts
			 * with the delimiter and a ')', which closes the
			 * substitution ($(cat <<X\n...\nX)). */
			if (p->cmdsub > 0 && p->s[cs + h->dlen] == ')') {
				p->pos = cs + h->dlen;
				break;
			}
		}
		shell_abuf_add(p->a, &b, p->s + cs, le - cs);
		if (nl)
			shell_abuf_add(p->a, &b, "\n", 1);
	}
	if (h->quoted)
		h->r->body = shell_lit_word(p, b.s, b.len, start, p->pos);
	else
		h->r->body = shell_heredoc_body(p, b.s, b.len, start, p->pos);
}

/* After a newline: the bodies of the here-documents of that line. */
static void read_heredocs(struct parser *p)
{
	struct heredoc *hd = p->hd;
	size_t n = p->nhd;
	p->hd = NULL;
	p->nhd = p->hdcap = 0;
	for (size_t i = 0; i < n; i++)
		read_heredoc(p, &hd[i]);
}

void shell_heredoc_register(struct parser *p, struct shell_redir *r, size_t ws, size_t we)
{
	struct abuf d = { 0 };
	struct heredoc h = { 0 };
	shell_abuf_add(p->a, &d, "", 0);
	for (size_t i = ws; i < we; i++) {
		char c = p->s[i];
		if (c == '\\' && i + 1 < we) {
			h.quoted = true;
			shell_abuf_add(p->a, &d, p->s + ++i, 1);
		} else if (c == '\'' || c == '"') {
			h.quoted = true;
		} else {
			shell_abuf_add(p->a, &d, &c, 1);
		}
	}
	h.r = r;
	h.delim = d.s;
	h.dlen = d.len;
	h.strip = r->op == SHELL_REDIR_HEREDOC_TABS;
	AVEC_PUSH(p->a, p->hd, p->nhd, p->hdcap, h);
}

const char *const shell_tok_words[TW_COUNT] = {
	[TW_NONE] = "",	       [TW_IF] = "if",	       [TW_FOR] = "for",     [TW_SELECT] = "select",
	[TW_WHILE] = "while",  [TW_UNTIL] = "until",   [TW_CASE] = "case",   [TW_LBRACE] = "{",
	[TW_DBRACKET] = "[[",  [TW_FUNCTION] = "function", [TW_THEN] = "then", [TW_ELIF] = "elif",
	[TW_ELSE] = "else",    [TW_FI] = "fi",	       [TW_DO] = "do",	     [TW_DONE] = "done",
	[TW_ESAC] = "esac",    [TW_RBRACE] = "}",      [TW_IN] = "in",	     [TW_BANG] = "!",
	[TW_TIME] = "time",    [TW_TIME_P] = "-p",
};

/* Which of shell_tok_words the n bytes at w are. */
enum tok_word shell_tok_word_of(const char *w, size_t n)
{
	/* The candidates by length, so that most words are rejected at once. */
	static const unsigned char by_len[9][8] = {
		[1] = { TW_LBRACE, TW_RBRACE, TW_BANG },
		[2] = { TW_IF, TW_DBRACKET, TW_FI, TW_DO, TW_IN, TW_TIME_P },
		[3] = { TW_FOR },
		[4] = { TW_CASE, TW_THEN, TW_ELIF, TW_ELSE, TW_DONE, TW_ESAC, TW_TIME },
		[5] = { TW_WHILE, TW_UNTIL },
		[6] = { TW_SELECT },
		[8] = { TW_FUNCTION },
	};
	if (n == 0 || n > 8)
		return TW_NONE; /* none is longer than "function" */
	for (const unsigned char *c = by_len[n]; *c; c++) {
		const char *kw = shell_tok_words[*c];
		size_t j = 0;
		while (j < n && w[j] == kw[j])
			j++;
		if (j == n)
			return (enum tok_word)*c;
	}
	return TW_NONE;
}

/* The operators, each read by what follows its first character (c, then
 * d and e): the token's kind, and its length. */

/* ;;& ;; ;& ; */
static size_t op_semi(int d, int e, struct token *t)
{
	if (d == ';' && e == '&')
		return t->kind = T_DSEMI_AMP, 3;
	if (d == ';')
		return t->kind = T_DSEMI, 2;
	if (d == '&')
		return t->kind = T_SEMI_AMP, 2;
	return t->kind = T_SEMI, 1;
}

/* && &>> &> & */
static size_t op_amp(int d, int e, struct token *t)
{
	if (d == '&')
		return t->kind = T_AND, 2;
	if (d != '>')
		return t->kind = T_AMP, 1;
	t->kind = T_REDIR;
	t->op = e == '>' ? SHELL_REDIR_APPEND_ERR : SHELL_REDIR_OUT_ERR;
	return t->op == SHELL_REDIR_APPEND_ERR ? 3 : 2;
}

/* || |& | */
static size_t op_pipe(int d, struct token *t)
{
	if (d == '|')
		return t->kind = T_OR, 2;
	if (d == '&')
		return t->kind = T_PIPE_AMP, 2;
	return t->kind = T_PIPE, 1;
}

/* A redirection that starts with c, '<' or '>': <<< <<- << <& <> < >> >&
 * >| >. */
static size_t op_redir(int c, int d, int e, struct token *t)
{
	t->kind = T_REDIR;
	if (c == '<') {
		if (d == '<' && e == '<')
			return t->op = SHELL_REDIR_HERESTRING, 3;
		if (d == '<' && e == '-')
			return t->op = SHELL_REDIR_HEREDOC_TABS, 3;
		if (d == '<')
			return t->op = SHELL_REDIR_HEREDOC, 2;
		if (d == '&')
			return t->op = SHELL_REDIR_DUP_IN, 2;
		if (d == '>')
			return t->op = SHELL_REDIR_RDWR, 2;
		return t->op = SHELL_REDIR_IN, 1;
	}
	if (d == '>')
		return t->op = SHELL_REDIR_APPEND, 2;
	if (d == '&')
		return t->op = SHELL_REDIR_DUP_OUT, 2;
	if (d == '|')
		return t->op = SHELL_REDIR_CLOBBER, 2;
	return t->op = SHELL_REDIR_OUT, 1;
}

/* The digits at *i as the descriptor of the redirection right after them
 * (2>file, 10<&0; not 2<(cmd), and at most 6 digits); then *i is at the
 * redirection.  False, and nothing changed, when they are a word. */
static bool redir_fd(const struct parser *p, size_t *i, struct token *t)
{
	size_t j = *i;
	while (is_digit(at(p, j)))
		j++;
	int e = at(p, j);
	if (!((e == '<' || e == '>') && at(p, j + 1) != '(' && j - *i <= 6))
		return false;
	t->fd = 0;
	for (size_t k = *i; k < j; k++)
		t->fd = t->fd * 10 + (p->s[k] - '0');
	*i = j;
	return true;
}

static void lex(struct parser *p, struct token *tp)
{
	struct token t;
	memset(&t, 0, sizeof(t));
	t.fd = -1;
	shell_skip_blanks(p);
	size_t i = p->pos;
	int c = at(p, i), d = at(p, i + 1);
	size_t n = 1;
	t.start = i;
	switch (c) {
	case -1:
		t.kind = T_EOF;
		t.end = i;
		*tp = t;
		return;
	case '\n':
		p->pos = t.end = i + 1;
		t.kind = T_NEWLINE;
		read_heredocs(p);
		*tp = t;
		return;
	case ';':
		n = op_semi(d, at(p, i + 2), &t);
		break;
	case '&':
		n = op_amp(d, at(p, i + 2), &t);
		break;
	case '|':
		n = op_pipe(d, &t);
		break;
	case '(':
		t.kind = T_LPAREN;
		break;
	case ')':
		t.kind = T_RPAREN;
		break;
	default:
		if (is_digit(c) && redir_fd(p, &i, &t)) {
			c = at(p, i);
			d = at(p, i + 1);
		}
		if ((c == '<' || c == '>') && d != '(') {
			n = op_redir(c, d, at(p, i + 2), &t);
			break;
		}
		t.kind = T_WORD;
		t.word = shell_lex_word(p, &t.assign);
		t.end = p->pos;
		t.tw = TW_UNSET;
		*tp = t;
		return;
	}
	p->pos = t.end = i + n;
	*tp = t;
}

void shell_lex_token(struct parser *p)
{
	lex(p, &p->tok);
	p->have = true;
}

const char *const shell_redir_names[] = {
	[SHELL_REDIR_IN] = "<",          [SHELL_REDIR_OUT] = ">",
	[SHELL_REDIR_APPEND] = ">>",     [SHELL_REDIR_CLOBBER] = ">|",
	[SHELL_REDIR_RDWR] = "<>",       [SHELL_REDIR_HEREDOC] = "<<",
	[SHELL_REDIR_HEREDOC_TABS] = "<<-", [SHELL_REDIR_HERESTRING] = "<<<",
	[SHELL_REDIR_DUP_IN] = "<&",     [SHELL_REDIR_DUP_OUT] = ">&",
	[SHELL_REDIR_OUT_ERR] = "&>",    [SHELL_REDIR_APPEND_ERR] = "&>>",
};

const char *shell_tok_desc(struct parser *p, const struct token *t, char *buf, size_t size)
{
	if (t->kind == T_EOF)
		return "end of input";
	if (t->kind == T_NEWLINE)
		return "newline";
	size_t n = t->end - t->start, k = 0;
	if (n > 24)
		n = 24;
	buf[k++] = '\'';
	for (size_t i = 0; i < n && k + 6 < size; i++) {
		unsigned char c = (unsigned char)p->s[t->start + i];
		buf[k++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	if (t->end - t->start > n)
		buf[k++] = '.', buf[k++] = '.', buf[k++] = '.';
	buf[k++] = '\'';
	buf[k] = '\0';
	return buf;
}

/* An arithmetic word for "((" at the current token. */
