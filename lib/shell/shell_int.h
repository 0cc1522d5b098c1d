/* The shell analyser's parse tree, shared by the parser (shell_parse.c) and
 * the splitter (shell_split.c).  Everything lives in one arena. */
#ifndef CORDON_SHELL_INT_H
#define CORDON_SHELL_INT_H

#include "shell.h"
#include "base/util.h"

#include <setjmp.h>

enum sn_kind {
	SN_SIMPLE,
	SN_LIST,     /* a ; b & c */
	SN_ANDOR,    /* a && b || c */
	SN_PIPE,     /* a | b */
	SN_SUBSHELL, /* ( ... ) */
	SN_GROUP,    /* { ...; } */
	SN_IF,
	SN_FOR,      /* for and select */
	SN_WHILE,
	SN_UNTIL,
	SN_CASE,
	SN_FUNC,
	SN_ARITH,    /* (( ... )) */
};

/* SN_LIST: item i runs in the background when sep[i] is 1.
 * SN_ANDOR: item i (i >= 1) follows "&&" when sep[i] is 0, "||" when 1. */
enum { SN_SEP_SEQ = 0, SN_SEP_BG = 1, SN_SEP_AND = 0, SN_SEP_OR = 1 };

struct sn_case_item {
	struct shell_word **patterns;
	size_t npatterns;
	struct shell_node *body;
};

struct shell_node {
	enum sn_kind kind;
	size_t start, end;
	struct shell_redir **redirs;
	size_t nredirs;
	union {
		struct {
			struct shell_assign **assigns;
			struct shell_word **words;
			size_t nassigns, nwords;
		} simple;
		struct {
			struct shell_node **items;
			unsigned char *sep;
			size_t n;
		} list; /* SN_LIST, SN_ANDOR, SN_PIPE */
		struct {
			struct shell_node *body;
		} sub; /* SN_SUBSHELL, SN_GROUP */
		struct {
			struct shell_node **conds, **bodies;
			size_t n;
			struct shell_node *else_body;
		} if_;
		struct {
			struct shell_word *var, *arith;
			struct shell_word **words;
			size_t nwords;
			struct shell_node *body;
		} for_;
		struct {
			struct shell_node *cond, *body;
		} loop; /* SN_WHILE, SN_UNTIL */
		struct {
			struct shell_word *subject;
			struct sn_case_item *items;
			size_t n;
		} case_;
		struct {
			struct shell_word *name;
			struct shell_node *body;
		} func;
		struct {
			struct shell_word *expr;
		} arith;
	} u;
};

/* "<", ">>", ... by enum shell_redir_op. */
extern const char *const shell_redir_names[];

/* Grow an arena array: *items holds *cap elements of size bytes. */
void shell_avec_grow(struct arena *a, void **items, size_t *cap, size_t size);
#define AVEC_PUSH(a, arr, len, cap, val)                                               \
	do {                                                                           \
		if ((len) == (cap))                                                    \
			shell_avec_grow((a), (void **)&(arr), &(cap), sizeof(*(arr))); \
		(arr)[(len)++] = (val);                                                \
	} while (0)

/* Parse text into a tree allocated in a.  depth is the nesting already
 * used by the caller.  Every offset in the tree is in the caller's text:
 * when mapped, every offset becomes the range [ostart, oend).  NULL on an
 * error, described in *err. */
struct shell_node *shell_parse_tree(struct arena *a, const char *text, size_t len, int depth,
				    bool mapped, size_t ostart, size_t oend,
				    struct shell_error *err);

/* Split a tree into commands: shell_split.c. */
struct shell_script_cmds {
	struct shell_cmd **cmds;
	size_t n, cap;
};
void shell_split(struct arena *a, const struct shell_node *root, struct shell_script_cmds *out);

/* ---- parser internals: shared by shell_lex.c and shell_parse.c ---------------- */

enum tok_kind {
	T_EOF,
	T_WORD,
	T_NEWLINE,
	T_SEMI,
	T_AMP,
	T_AND,
	T_OR,
	T_PIPE,
	T_PIPE_AMP,
	T_LPAREN,
	T_RPAREN,
	T_DSEMI,
	T_SEMI_AMP,
	T_DSEMI_AMP,
	T_REDIR,
};

/* The words the parser looks for, told apart by the bytes as written (a
 * quoted "if" is no keyword), once a token, when the parser first asks. */
enum tok_word {
	TW_NONE,
	TW_IF,
	TW_FOR,
	TW_SELECT,
	TW_WHILE,
	TW_UNTIL,
	TW_CASE,
	TW_LBRACE,   /* { */
	TW_DBRACKET, /* [[ */
	TW_FUNCTION,
	TW_THEN,
	TW_ELIF,
	TW_ELSE,
	TW_FI,
	TW_DO,
	TW_DONE,
	TW_ESAC,
	TW_RBRACE, /* } */
	TW_IN,
	TW_BANG, /* ! */
	TW_TIME,
	TW_TIME_P, /* -p */
	TW_COUNT,
	TW_UNSET = TW_COUNT, /* not looked at yet */
};
/* "if", "{", ... by enum tok_word. */
extern const char *const shell_tok_words[TW_COUNT];

struct token {
	enum tok_kind kind;
	enum tok_word tw; /* T_WORD: see shell_tok_word(); other tokens: TW_NONE */
	size_t start, end; /* in the parser's buffer */
	struct shell_word *word;
	struct shell_assign *assign; /* a word of the form NAME=value */
	enum shell_redir_op op;
	int fd; /* an explicit descriptor before a redirection, or -1 */
};

struct heredoc {
	struct shell_redir *r;
	const char *delim;
	size_t dlen;
	bool quoted, strip;
};

struct parser {
	const char *s;
	size_t len, pos;
	struct arena *a;
	jmp_buf *jb;
	struct shell_error *err;
	int *depth;
	bool mapped; /* a string parsed again: every offset is [mstart, mend) */
	size_t mstart, mend;
	struct heredoc *hd;
	size_t nhd, hdcap;
	struct token tok;
	bool have;
	size_t last_end;
	bool in_array;
	int cmdsub; /* command substitutions open around the current token */
	/* The last answers of the look-ahead scans, valid for [start, end). */
	size_t bc_start, bc_end, br_start, br_end;
	bool bc_val, br_glob;
};


/* Offsets in p's buffer as the caller sees them. */
static inline size_t map_start(const struct parser *p, size_t off)
{
	return p->mapped ? p->mstart : off;
}

static inline size_t map_end(const struct parser *p, size_t off)
{
	return p->mapped ? p->mend : off;
}

/* The byte at i, or -1 past the end. */
static inline int at(const struct parser *p, size_t i)
{
	return i < p->len ? (unsigned char)p->s[i] : -1;
}

/* shell_lex.c: words and their parts */
_Noreturn void shell_fail(struct parser *p, size_t off, const char *fmt, ...) PRINTF_LIKE(3, 4);
void shell_enter(struct parser *p, size_t off); /* one level deeper, or fail */
void shell_leave(struct parser *p);
/* An arena string being built. */
struct abuf {
	char *s;
	size_t len, cap;
};
void shell_abuf_add(struct arena *a, struct abuf *b, const char *s, size_t n);
/* A word being built: its parts, and the bytes of its literal parts, one
 * after the other, each ended by a NUL.  Both start in the structure itself
 * (most words are short) and move to the arena when they outgrow it;
 * wb_finish() then puts the word, its parts and their bytes in one arena
 * block, so a word costs one allocation. */
#define WB_PARTS 4
#define WB_BYTES 64
struct wb {
	struct shell_part *parts; /* ip, or an arena array */
	size_t n, cap;
	char *bytes; /* ib, or an arena array */
	size_t blen, bcap;
	size_t lstart, lbyte; /* where the open literal starts: source, bytes */
	bool lquoted, inlit;
	struct shell_part ip[WB_PARTS];
	char ib[WB_BYTES];
};
static inline void shell_wb_init(struct wb *w)
{
	w->parts = w->ip;
	w->n = 0;
	w->cap = WB_PARTS;
	w->bytes = w->ib;
	w->blen = 0;
	w->bcap = WB_BYTES;
	w->inlit = false;
}
/* shell_word.c: the word builder */
/* Literal bytes at source offset off, quoted or not. */
void shell_wb_lit(struct parser *p, struct wb *w, const char *s, size_t n, bool quoted,
		  size_t off);
/* End the literal part being gathered at source offset end. */
void shell_wb_flush(struct parser *p, struct wb *w, size_t end);
/* A new part at the end of w, all zero. */
struct shell_part *shell_wb_new_part(struct parser *p, struct wb *w);
/* Add a dynamic part whose source text is [start, end). */
struct shell_part *shell_wb_push(struct parser *p, struct wb *w, enum shell_part_kind kind,
				 bool quoted, size_t start, size_t end);
/* The dynamic parts of a scratch word in, as part's inner list. */
void shell_wb_take_inner(struct parser *p, struct wb *in, struct shell_part *part);
/* The word w built, over source offsets [start, end). */
struct shell_word *shell_wb_finish(struct parser *p, struct wb *w, size_t start, size_t end);
/* A word of the one part given (for a literal part, n bytes of text). */
struct shell_word *shell_one_part_word(struct parser *p, const struct shell_part *part,
				       const char *bytes, size_t n, size_t start, size_t end);
/* A word of n parts that are already in the arena. */
struct shell_word *shell_make_word(struct parser *p, struct shell_part *parts, size_t n,
				   size_t start, size_t end);

/* Blanks, escaped newlines and a comment before the next token. */
void shell_skip_blanks(struct parser *p);
/* The word at p->pos; *assign set for NAME=value where one may stand. */
struct shell_word *shell_lex_word(struct parser *p, struct shell_assign **assign);
/* A word of one literal part; offsets [start, end) in p's buffer. */
struct shell_word *shell_lit_word(struct parser *p, const char *s, size_t n, size_t start,
				  size_t end);
/* An unquoted here-document body: expansions and substitutions as in
 * double quotes, but '"' is an ordinary character. */
struct shell_word *shell_heredoc_body(struct parser *p, const char *text, size_t len,
				      size_t ostart, size_t oend);
/* Whether "((" before i opens an arithmetic expression. */
bool shell_arith_scan(const struct parser *p, size_t i);
/* The arithmetic word of "((" at the current token. */
struct shell_word *shell_arith_word(struct parser *p);
/* A parser for a string of p's script parsed again: text, mapped to
 * [ostart, oend) of p's buffer. */
void shell_child_init(struct parser *c, struct parser *p, const char *text, size_t len,
		      size_t ostart, size_t oend);

/* shell_token.c: tokens, lookahead, here-documents */
void shell_lex_token(struct parser *p); /* the next token into p->tok */
static inline struct token *shell_peek(struct parser *p)
{
	if (!p->have)
		shell_lex_token(p);
	return &p->tok;
}
enum tok_word shell_tok_word_of(const char *w, size_t n);
/* Which of the words above a word token is. */
static inline enum tok_word shell_tok_word(struct parser *p, struct token *t)
{
	if (t->tw == TW_UNSET)
		t->tw = shell_tok_word_of(p->s + t->start, t->end - t->start);
	return t->tw;
}
static inline void shell_next(struct parser *p)
{
	shell_peek(p);
	p->last_end = p->tok.end;
	p->have = false;
}
const char *shell_tok_desc(struct parser *p, const struct token *t, char *buf, size_t size);
void shell_heredoc_register(struct parser *p, struct shell_redir *r, size_t ws, size_t we);

/* shell_parse.c */
struct shell_node *shell_parse_list(struct parser *p);
struct shell_node *shell_parse_child(struct parser *p, const char *text, size_t len,
				     size_t ostart, size_t oend);

#endif
