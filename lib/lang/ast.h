/* The syntax tree of one policy file.  One node kind enum, one tagged union,
 * a location in every node.  Nodes live in the compile's arena; sibling
 * lists are linked through `next`.  The tree carries only what was written:
 * names of operations, effects and settings are checked later (check.c). */
#ifndef CORDON_AST_H
#define CORDON_AST_H

#include <stddef.h>

#include "base/source.h"
#include "base/util.h"

enum ast_kind {
	AST_FILE,      /* the statements of one file */
	AST_VERSION,   /* cordon N; */
	AST_INCLUDE,   /* include "path"; */
	AST_LET,       /* let name = "value" | [ ... ]; */
	AST_ITEM,      /* word [mod] [patterns] [word [reason]] ; -- a rule or a setting */
	AST_ENV,       /* env { keep/set/drop ... } */
	AST_ENV_KEEP,  /* keep NAME, "GLOB*", ...; */
	AST_ENV_SET,   /* set NAME = "value", ...; */
	AST_ENV_DROP,  /* drop /regex/, NAME, ...; */
	AST_ENV_LIST,  /* secret /regex/, ...; code NAME, ...; (u.item: name, patterns) */
	AST_PRESET,    /* preset "name" [extends "parent"] { ... } */
	AST_TEST,      /* test "name" { ... } */
	AST_TEST_PRESET,  /* preset "name"; inside a test */
	AST_TEST_CONTEXT, /* context k = "v", ...; */
	AST_TEST_EXPECT,  /* expect EFFECT OP "target"; */
	AST_DEFAULT,   /* default "name"; */
	AST_PROGRAM,   /* program "name", ... { items, subcommands } */
	AST_SUBCOMMAND, /* subcommand "name", ... { items } */
	AST_ASSERT,    /* assert never OP patterns [in "p", ...] ["why"]; */
	AST_ASSERT_CLAUSE, /* in "p", ... ["why"] */
	AST_PATTERN,   /* juxtaposed atoms: "git push" /--force/ */
	AST_LIST,      /* [ "a", "b" ] */
	AST_ASSIGN,    /* name = value */
	AST_STRING,    /* raw text between the quotes, escapes undecoded */
	AST_REGEX,     /* raw text between the slashes */
	AST_IDENT,
	AST_VAR,       /* $name or ${name} outside a string */
	AST_NUMBER,
	AST_LIMITS,    /* limits { key value [flag]; ... } (u.block: name is the word) */
	AST_LIMIT,     /* processes 512;  memory 8G best_effort; */
	AST_QUANTITY,  /* a number with a unit, or a negative one: 8G, 10m, -1 */
};

struct ast;

struct ast_seq {
	struct ast *head, *tail;
	size_t n;
};

struct ast {
	enum ast_kind kind;
	struct loc loc;
	struct ast *next;
	union {
		struct ast_seq seq;  /* FILE, ENV, LIST, PATTERN, KEEP, SET, DROP, CONTEXT */
		struct {
			struct ast *value; /* VERSION: NUMBER; INCLUDE/DEFAULT/TEST_PRESET: STRING */
			struct ast *included; /* INCLUDE: the file's tree, set by the loader */
		} one;
		struct {
			struct ast *name, *value; /* LET, ASSIGN */
		} bind;
		struct {
			struct ast *name;      /* IDENT */
			struct ast *mod;       /* IDENT or NULL: a word before the patterns (exact) */
			struct ast_seq patterns; /* PATTERN nodes, maybe empty */
			struct ast *word;      /* IDENT or NULL: the effect of a rule, a setting's value */
			struct ast *reason;    /* STRING or NULL */
			struct ast *value;     /* NUMBER, QUANTITY or NULL: a setting's time */
		} item;
		struct {
			struct ast *name;   /* STRING */
			struct ast *parent; /* STRING or NULL */
			struct ast_seq body;
		} block;                    /* PRESET, TEST */
		struct {
			/* IDENT, IDENT, IDENT "argv" or NULL, and PATTERN (a LIST
			 * after argv) */
			struct ast *effect, *op, *form, *target;
		} expect;
		struct {
			struct ast *mode, *op;   /* IDENT, IDENT */
			struct ast_seq patterns; /* PATTERN; the last may end in the reason */
			struct ast *clause;      /* ASSERT_CLAUSE or NULL */
		} assertion;
		struct {
			struct ast *word;        /* IDENT */
			struct ast_seq values;   /* STRING */
			struct ast *reason;      /* STRING or NULL */
		} clause;                        /* ASSERT_CLAUSE */
		struct {
			struct ast_seq names; /* STRING */
			struct ast_seq body;  /* ITEM, SUBCOMMAND */
			/* PROGRAM of a file of the binary's own, its body
			 * unread (load_defer_programs): the file's text, whose
			 * bytes at loc are the statement; else NULL */
			const char *deferred;
		} prog;                       /* PROGRAM, SUBCOMMAND */
		struct {
			struct ast *key;   /* IDENT */
			struct ast *value; /* NUMBER, QUANTITY, STRING or IDENT */
			struct ast *flag;  /* IDENT or NULL: best_effort */
		} limit;                      /* LIMIT */
		struct {
			const char *text; /* arena copy, NUL-terminated */
			size_t len;
		} tok;                      /* STRING, REGEX, IDENT, VAR, NUMBER, QUANTITY */
	} u;
};

struct ast *ast_new(struct arena *a, enum ast_kind kind, struct loc loc);
struct ast *ast_token(struct arena *a, enum ast_kind kind, struct loc loc, const char *text,
		      size_t len);
void ast_seq_init(struct ast_seq *s);
void ast_seq_push(struct ast_seq *s, struct ast *node);
const char *ast_kind_name(enum ast_kind kind);
/* An indented, location-free dump for tests and `--emit ast`. */
void ast_dump(struct strbuf *out, const struct ast *node, int depth);

#endif
