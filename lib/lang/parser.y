/* The cordon grammar.  Pure, with byte-offset locations; actions only build
 * the tree.  Statements are few: the words that start rules and settings
 * (read, write, approval, protect ...) are plain identifiers here and are
 * resolved by the checker, which can then say "did you mean ...". */
%require "3.6"
%define api.pure full
%define api.prefix {cordon_yy}
%define parse.error custom
%define parse.lac full
%locations
%expect 0

%code requires {
#include "parse.h"
}

%code provides {
int cordon_yylex(CORDON_YYSTYPE *lval, CORDON_YYLTYPE *lloc, void *scanner);
}

%param {void *scanner}
%initial-action {
	@$.file = ps->file;
	@$.start = @$.end = 0;
}
%parse-param {struct parse_state *ps}

%code {
#include "config.h"

#include <string.h>

#define YYLLOC_DEFAULT(cur, rhs, n)                                       \
	do {                                                              \
		if (n) {                                                  \
			(cur).file = YYRHSLOC(rhs, 1).file;               \
			(cur).start = YYRHSLOC(rhs, 1).start;             \
			(cur).end = YYRHSLOC(rhs, n).end;                 \
		} else {                                                  \
			(cur).file = YYRHSLOC(rhs, 0).file;               \
			(cur).start = (cur).end = YYRHSLOC(rhs, 0).end;   \
		}                                                         \
	} while (0)

#define NODE(kind, l) ast_new(ps->arena, kind, l)

static struct ast *seq_node(struct parse_state *ps, enum ast_kind kind, struct loc loc,
			    struct ast_seq seq)
{
	struct ast *n = NODE(kind, loc);
	n->u.seq = seq;
	return n;
}

static struct ast *one_node(struct parse_state *ps, enum ast_kind kind, struct loc loc,
			    struct ast *value)
{
	struct ast *n = NODE(kind, loc);
	n->u.one.value = value;
	return n;
}

static struct ast *bind_node(struct parse_state *ps, enum ast_kind kind, struct loc loc,
			     struct ast *name, struct ast *value)
{
	struct ast *n = NODE(kind, loc);
	n->u.bind.name = name;
	n->u.bind.value = value;
	return n;
}

static struct ast *item_node(struct parse_state *ps, struct loc loc, struct ast *name,
			     struct ast_seq *patterns, struct ast *word, struct ast *reason)
{
	struct ast *n = NODE(AST_ITEM, loc);
	n->u.item.name = name;
	if (patterns)
		n->u.item.patterns = *patterns;
	n->u.item.word = word;
	n->u.item.reason = reason;
	return n;
}

static struct ast *block_node(struct parse_state *ps, enum ast_kind kind, struct loc loc,
			      struct ast *name, struct ast *parent, struct ast_seq body)
{
	struct ast *n = NODE(kind, loc);
	n->u.block.name = name;
	n->u.block.parent = parent;
	n->u.block.body = body;
	return n;
}

static struct ast *limit_node(struct parse_state *ps, struct loc loc, struct ast *key,
			      struct ast *value, struct ast *flag)
{
	struct ast *n = NODE(AST_LIMIT, loc);
	n->u.limit.key = key;
	n->u.limit.value = value;
	n->u.limit.flag = flag;
	return n;
}

/* Bison's own last resort ("memory exhausted"). */
static void cordon_yyerror(struct loc *loc, void *scanner, struct parse_state *ps,
			   const char *msg)
{
	(void)scanner;
	diag_add(ps->diags, DIAG_ERROR, loc, "too-large", "%s", msg);
}

static struct ast_seq seq_of(struct ast *first)
{
	struct ast_seq s;
	ast_seq_init(&s);
	ast_seq_push(&s, first);
	return s;
}
}

%union {
	struct ast *node;
	struct ast_seq seq;
}

/* Nodes live in the arena; nothing to free on error recovery. */
%destructor { (void)$$; } <node> <seq>

%token END 0 "end of file"
%token KW_CORDON "'cordon'" KW_INCLUDE "'include'" KW_LET "'let'" KW_ENV "'env'"
%token KW_KEEP "'keep'" KW_SET "'set'" KW_DROP "'drop'" KW_PRESET "'preset'"
%token KW_EXTENDS "'extends'" KW_TEST "'test'" KW_CONTEXT "'context'"
%token KW_EXPECT "'expect'" KW_DEFAULT "'default'" KW_PROGRAM "'program'"
%token KW_SUBCOMMAND "'subcommand'" KW_ASSERT "'assert'"
%token <node> IDENT "word" STRING "string" REGEX "regex" VAR "variable" NUMBER "number"
%token <node> QUANTITY "number with a unit"
%token ';' "';'" ',' "','" '{' "'{'" '}' "'}'" '[' "'['" ']' "']'" '=' "'='"

%type <node> statement item pattern atom let_value env_block env_item preset test
%type <node> test_item env_name assign assign_value program program_item
%type <seq> program_items
%type <seq> statements patterns atoms items strings env_items env_names assigns keyword
%type <seq> test_items
%type <node> assertion assert_clause
%type <node> limits limit_item limit_value
%type <seq> limit_items

%%

file
	: statements { ps->root = seq_node(ps, AST_FILE, @$, $1); }
	;

statements
	: %empty { ast_seq_init(&$$); }
	| statements statement { $$ = $1; ast_seq_push(&$$, $2); ps->partial = $$; }
	;

statement
	: KW_CORDON NUMBER ';' { $$ = one_node(ps, AST_VERSION, @$, $2); }
	| KW_INCLUDE STRING ';' { $$ = one_node(ps, AST_INCLUDE, @$, $2); }
	| KW_LET IDENT '=' let_value ';' { $$ = bind_node(ps, AST_LET, @$, $2, $4); }
	| KW_DEFAULT STRING ';' { $$ = one_node(ps, AST_DEFAULT, @$, $2); }
	| env_block
	| program
	| preset
	| test
	| item
	| limits
	| assertion
	| error ';' { $$ = NULL; }
	| error '}' { $$ = NULL; }
	;

let_value
	: STRING
	| '[' strings ']' { $$ = seq_node(ps, AST_LIST, @$, $2); }
	| '[' strings ',' ']' { $$ = seq_node(ps, AST_LIST, @$, $2); }
	| '[' ']' { struct ast_seq e; ast_seq_init(&e); $$ = seq_node(ps, AST_LIST, @$, e); }
	;

strings
	: STRING { $$ = seq_of($1); }
	| strings ',' STRING { $$ = $1; ast_seq_push(&$$, $3); }
	;

/* A rule or a setting:  read "/x" allow "why";  approval ask;  unprotect;
 * approval console 2m;  (a setting's word and a time)
 * a word before the patterns modifies them:  read exact "/x/a.pem" allow; */
item
	: IDENT ';' { $$ = item_node(ps, @$, $1, NULL, NULL, NULL); }
	| IDENT IDENT ';' { $$ = item_node(ps, @$, $1, NULL, $2, NULL); }
	| IDENT IDENT NUMBER ';'
		{ $$ = item_node(ps, @$, $1, NULL, $2, NULL); $$->u.item.value = $3; }
	| IDENT IDENT QUANTITY ';'
		{ $$ = item_node(ps, @$, $1, NULL, $2, NULL); $$->u.item.value = $3; }
	| IDENT patterns ';' { $$ = item_node(ps, @$, $1, &$2, NULL, NULL); }
	| IDENT patterns IDENT ';' { $$ = item_node(ps, @$, $1, &$2, $3, NULL); }
	| IDENT patterns IDENT STRING ';' { $$ = item_node(ps, @$, $1, &$2, $3, $4); }
	| IDENT keyword IDENT ';' { $$ = item_node(ps, @$, $1, &$2, $3, NULL); }
	| IDENT keyword IDENT STRING ';' { $$ = item_node(ps, @$, $1, &$2, $3, $4); }
	| IDENT IDENT patterns ';'
		{ $$ = item_node(ps, @$, $1, &$3, NULL, NULL); $$->u.item.mod = $2; }
	| IDENT IDENT patterns IDENT ';'
		{ $$ = item_node(ps, @$, $1, &$3, $4, NULL); $$->u.item.mod = $2; }
	| IDENT IDENT patterns IDENT STRING ';'
		{ $$ = item_node(ps, @$, $1, &$3, $4, $5); $$->u.item.mod = $2; }
	;

/* A pattern named by a word: exec opaque ask; */
keyword
	: IDENT { $$ = seq_of(seq_node(ps, AST_PATTERN, @1, seq_of($1))); }
	;

patterns
	: pattern { $$ = seq_of($1); }
	| patterns ',' pattern { $$ = $1; ast_seq_push(&$$, $3); }
	;

/* Juxtaposed atoms form one pattern: exec "git push" /--force/ */
pattern
	: atoms { $$ = seq_node(ps, AST_PATTERN, @$, $1); }
	;

atoms
	: atom { $$ = seq_of($1); }
	| atoms atom { $$ = $1; ast_seq_push(&$$, $2); }
	;

atom
	: STRING
	| REGEX
	| VAR
	;

env_block
	: KW_ENV '{' env_items '}' { $$ = seq_node(ps, AST_ENV, @$, $3); }
	;

env_items
	: %empty { ast_seq_init(&$$); }
	| env_items env_item { $$ = $1; ast_seq_push(&$$, $2); }
	;

env_item
	: KW_KEEP env_names ';' { $$ = seq_node(ps, AST_ENV_KEEP, @$, $2); }
	| KW_SET assigns ';' { $$ = seq_node(ps, AST_ENV_SET, @$, $2); }
	| KW_DROP env_names ';' { $$ = seq_node(ps, AST_ENV_DROP, @$, $2); }
	| IDENT env_names ';'
		{ $$ = NODE(AST_ENV_LIST, @$); $$->u.item.name = $1; $$->u.item.patterns = $2; }
	| error ';' { $$ = NULL; }
	;

env_names
	: env_name { $$ = seq_of($1); }
	| env_names ',' env_name { $$ = $1; ast_seq_push(&$$, $3); }
	;

env_name
	: IDENT
	| STRING
	| REGEX
	;

assigns
	: assign { $$ = seq_of($1); }
	| assigns ',' assign { $$ = $1; ast_seq_push(&$$, $3); }
	;

assign
	: IDENT '=' assign_value { $$ = bind_node(ps, AST_ASSIGN, @$, $1, $3); }
	;

assign_value
	: STRING
	| VAR
	;

preset
	: KW_PRESET STRING '{' items '}'
		{ $$ = block_node(ps, AST_PRESET, @$, $2, NULL, $4); }
	| KW_PRESET STRING KW_EXTENDS STRING '{' items '}'
		{ $$ = block_node(ps, AST_PRESET, @$, $2, $4, $6); }
	;

items
	: %empty { ast_seq_init(&$$); }
	| items item { $$ = $1; ast_seq_push(&$$, $2); }
	| items env_block { $$ = $1; ast_seq_push(&$$, $2); }
	| items limits { $$ = $1; ast_seq_push(&$$, $2); }
	| items error ';' { $$ = $1; }
	;

/* Resource limits:  limits { processes 512; file_size 8G; memory 8G best_effort; }
 * The block's word, the keys, the values and the flag are checked by
 * check_limits.c; a value is a number, a number with a unit, a string or a
 * word (unlimited). */
limits
	: IDENT '{' limit_items '}'
		{ $$ = block_node(ps, AST_LIMITS, @$, $1, NULL, $3); }
	;

limit_items
	: %empty { ast_seq_init(&$$); }
	| limit_items limit_item { $$ = $1; ast_seq_push(&$$, $2); }
	| limit_items error ';' { $$ = $1; }
	;

limit_item
	: IDENT limit_value ';' { $$ = limit_node(ps, @$, $1, $2, NULL); }
	| IDENT limit_value IDENT ';' { $$ = limit_node(ps, @$, $1, $2, $3); }
	;

limit_value
	: NUMBER
	| QUANTITY
	| STRING
	| IDENT
	;

/* What a program does with its operands and options (rules/commands.cordon). */
program
	: KW_PROGRAM strings '{' program_items '}'
		{ $$ = NODE(AST_PROGRAM, @$); $$->u.prog.names = $2; $$->u.prog.body = $4; }
	;

program_items
	: %empty { ast_seq_init(&$$); }
	| program_items program_item { $$ = $1; ast_seq_push(&$$, $2); }
	| program_items error ';' { $$ = $1; }
	;

program_item
	: item
	| KW_SUBCOMMAND strings '{' program_items '}'
		{ $$ = NODE(AST_SUBCOMMAND, @$); $$->u.prog.names = $2; $$->u.prog.body = $4; }
	;

/* An invariant over the presets it names:
 *   assert never write "/etc/**" in "dev" "system files stay the system's";
 * 'never' and 'in' are words the checker resolves; the reason is the last
 * string (without 'in' it joins the last pattern's atoms, and the checker
 * takes it back, since no pattern ends in a second string). */
assertion
	: KW_ASSERT IDENT IDENT patterns assert_clause ';'
		{
			$$ = NODE(AST_ASSERT, @$);
			$$->u.assertion.mode = $2;
			$$->u.assertion.op = $3;
			$$->u.assertion.patterns = $4;
			$$->u.assertion.clause = $5;
		}
	;

assert_clause
	: %empty { $$ = NULL; }
	| IDENT strings
		{
			$$ = NODE(AST_ASSERT_CLAUSE, @$);
			$$->u.clause.word = $1;
			$$->u.clause.values = $2;
			$$->u.clause.reason = NULL;
		}
	| IDENT strings STRING
		{
			$$ = NODE(AST_ASSERT_CLAUSE, @$);
			$$->u.clause.word = $1;
			$$->u.clause.values = $2;
			$$->u.clause.reason = $3;
		}
	;

test
	: KW_TEST STRING '{' test_items '}'
		{ $$ = block_node(ps, AST_TEST, @$, $2, NULL, $4); }
	;

test_items
	: %empty { ast_seq_init(&$$); }
	| test_items test_item { $$ = $1; ast_seq_push(&$$, $2); }
	;

test_item
	: KW_PRESET STRING ';' { $$ = one_node(ps, AST_TEST_PRESET, @$, $2); }
	| KW_CONTEXT assigns ';' { $$ = seq_node(ps, AST_TEST_CONTEXT, @$, $2); }
	| KW_EXPECT IDENT IDENT pattern ';'
		{
			$$ = NODE(AST_TEST_EXPECT, @$);
			$$->u.expect.effect = $2;
			$$->u.expect.op = $3;
			$$->u.expect.target = $4;
		}
	/* expect deny exec argv ["git", "push", "-f"]; */
	| KW_EXPECT IDENT IDENT IDENT let_value ';'
		{
			$$ = NODE(AST_TEST_EXPECT, @$);
			$$->u.expect.effect = $2;
			$$->u.expect.op = $3;
			$$->u.expect.form = $4;
			$$->u.expect.target = $5;
		}
	| error ';' { $$ = NULL; }
	;

%%

/* Show the offending token as written, shortened. */
static void describe_token(struct parse_state *ps, const struct loc *loc, int tok, char *buf,
			   size_t size)
{
	size_t len = loc->end > loc->start ? loc->end - loc->start : 0;
	if (tok == YYSYMBOL_YYEOF || len == 0 || loc->start >= ps->len) {
		snprintf(buf, size, "end of file");
		return;
	}
	const char *text = ps->text + loc->start;
	size_t shown = 0;
	for (; shown < len && shown < 24 && text[shown] != '\n'; shown++)
		;
	snprintf(buf, size, "'%.*s'%s", (int)shown, text, shown < len ? "..." : "");
}

static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner, struct parse_state *ps)
{
	enum { MAX_EXPECTED = 8 };
	yysymbol_kind_t expected[MAX_EXPECTED];
	yysymbol_kind_t tok = yypcontext_token(ctx);
	const struct loc *loc = yypcontext_location(ctx);
	int n = yypcontext_expected_tokens(ctx, expected, MAX_EXPECTED);
	char what[64];
	struct strbuf sb;
	bool want_semicolon = false;

	(void)scanner;
	/* Text the scanner rejected just before this token explains the
	 * error already; do not pile a second one on it. */
	if (ps->lex_error_pending && ps->lex_error_at >= ps->prev_end)
		return 0;
	describe_token(ps, loc, tok, what, sizeof(what));
	sb_init(&sb);
	for (int i = 0; i < n; i++)
		if (strcmp(yysymbol_name(expected[i]), "';'") == 0)
			want_semicolon = true;
	if (want_semicolon && tok != YYSYMBOL_YYEOF && loc->start > ps->prev_end) {
		/* Point just past the previous token, where the ';' belongs. */
		struct loc at = { loc->file, ps->prev_end, ps->prev_end };
		diag_add(ps->diags, DIAG_ERROR, &at, "syntax", "expected ';' before %s", what);
		sb_free(&sb);
		return 0;
	}
	sb_addf(&sb, "unexpected %s", what);
	if (n > 0) {
		sb_adds(&sb, n == 1 ? ", expected " : ", expected one of: ");
		for (int i = 0; i < n; i++) {
			if (i)
				sb_adds(&sb, ", ");
			sb_adds(&sb, yysymbol_name(expected[i]));
		}
	}
	diag_add(ps->diags, DIAG_ERROR, loc, "syntax", "%s", sb.buf);
	sb_free(&sb);
	return 0;
}
