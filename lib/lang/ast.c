#include "config.h"

#include "ast.h"

struct ast *ast_new(struct arena *a, enum ast_kind kind, struct loc loc)
{
	struct ast *n = arena_alloc0(a, sizeof(*n));
	n->kind = kind;
	n->loc = loc;
	return n;
}

struct ast *ast_token(struct arena *a, enum ast_kind kind, struct loc loc, const char *text,
		      size_t len)
{
	struct ast *n = ast_new(a, kind, loc);
	n->u.tok.text = arena_strndup(a, text, len);
	n->u.tok.len = len;
	return n;
}

void ast_seq_init(struct ast_seq *s)
{
	s->head = s->tail = NULL;
	s->n = 0;
}

void ast_seq_push(struct ast_seq *s, struct ast *node)
{
	if (!node)
		return;
	node->next = NULL;
	if (s->tail)
		s->tail->next = node;
	else
		s->head = node;
	s->tail = node;
	s->n++;
}

static const char *const kind_names[] = {
	[AST_FILE] = "file",
	[AST_VERSION] = "version",
	[AST_INCLUDE] = "include",
	[AST_LET] = "let",
	[AST_ITEM] = "item",
	[AST_ENV] = "env",
	[AST_ENV_KEEP] = "keep",
	[AST_ENV_SET] = "set",
	[AST_ENV_DROP] = "drop",
	[AST_ENV_LIST] = "env-list",
	[AST_PRESET] = "preset",
	[AST_TEST] = "test",
	[AST_TEST_PRESET] = "test-preset",
	[AST_TEST_CONTEXT] = "context",
	[AST_TEST_EXPECT] = "expect",
	[AST_DEFAULT] = "default",
	[AST_PROGRAM] = "program",
	[AST_SUBCOMMAND] = "subcommand",
	[AST_ASSERT] = "assert",
	[AST_ASSERT_CLAUSE] = "assert-clause",
	[AST_PATTERN] = "pattern",
	[AST_LIST] = "list",
	[AST_ASSIGN] = "assign",
	[AST_STRING] = "string",
	[AST_REGEX] = "regex",
	[AST_IDENT] = "ident",
	[AST_VAR] = "var",
	[AST_NUMBER] = "number",
	[AST_LIMITS] = "limits",
	[AST_LIMIT] = "limit",
	[AST_QUANTITY] = "quantity",
};

const char *ast_kind_name(enum ast_kind kind)
{
	return (size_t)kind < ARRAY_SIZE(kind_names) ? kind_names[kind] : "?";
}

static void dump_seq(struct strbuf *out, const struct ast_seq *s, int depth)
{
	for (const struct ast *c = s->head; c; c = c->next)
		ast_dump(out, c, depth);
}

/* The children of a node that is not a token, one level deeper, in the
 * order of its fields: apart from ast_dump, which writes the node's own
 * line, so that each switch stays one over the node kinds. */
static void dump_children(struct strbuf *out, const struct ast *n, int depth)
{
	switch (n->kind) {
	case AST_FILE:
	case AST_ENV:
	case AST_LIST:
	case AST_PATTERN:
	case AST_ENV_KEEP:
	case AST_ENV_SET:
	case AST_ENV_DROP:
	case AST_TEST_CONTEXT:
		dump_seq(out, &n->u.seq, depth + 1);
		break;
	case AST_VERSION:
	case AST_INCLUDE:
	case AST_DEFAULT:
	case AST_TEST_PRESET:
		ast_dump(out, n->u.one.value, depth + 1);
		break;
	case AST_LET:
	case AST_ASSIGN:
		ast_dump(out, n->u.bind.name, depth + 1);
		ast_dump(out, n->u.bind.value, depth + 1);
		break;
	case AST_ENV_LIST:
	case AST_ITEM:
		ast_dump(out, n->u.item.name, depth + 1);
		ast_dump(out, n->u.item.mod, depth + 1);
		dump_seq(out, &n->u.item.patterns, depth + 1);
		ast_dump(out, n->u.item.word, depth + 1);
		ast_dump(out, n->u.item.reason, depth + 1);
		if (n->u.item.value)
			ast_dump(out, n->u.item.value, depth + 1);
		break;
	case AST_PRESET:
	case AST_TEST:
	case AST_LIMITS:
		ast_dump(out, n->u.block.name, depth + 1);
		ast_dump(out, n->u.block.parent, depth + 1);
		dump_seq(out, &n->u.block.body, depth + 1);
		break;
	case AST_PROGRAM:
	case AST_SUBCOMMAND:
		dump_seq(out, &n->u.prog.names, depth + 1);
		dump_seq(out, &n->u.prog.body, depth + 1);
		break;
	case AST_ASSERT:
		ast_dump(out, n->u.assertion.mode, depth + 1);
		ast_dump(out, n->u.assertion.op, depth + 1);
		dump_seq(out, &n->u.assertion.patterns, depth + 1);
		ast_dump(out, n->u.assertion.clause, depth + 1);
		break;
	case AST_ASSERT_CLAUSE:
		ast_dump(out, n->u.clause.word, depth + 1);
		dump_seq(out, &n->u.clause.values, depth + 1);
		ast_dump(out, n->u.clause.reason, depth + 1);
		break;
	case AST_LIMIT:
		ast_dump(out, n->u.limit.key, depth + 1);
		ast_dump(out, n->u.limit.value, depth + 1);
		ast_dump(out, n->u.limit.flag, depth + 1);
		break;
	case AST_TEST_EXPECT:
		ast_dump(out, n->u.expect.effect, depth + 1);
		ast_dump(out, n->u.expect.op, depth + 1);
		ast_dump(out, n->u.expect.form, depth + 1);
		ast_dump(out, n->u.expect.target, depth + 1);
		break;
	default:
		break;
	}
}

void ast_dump(struct strbuf *out, const struct ast *n, int depth)
{
	if (!n)
		return;
	sb_addf(out, "%*s%s", depth * 2, "", ast_kind_name(n->kind));
	switch (n->kind) {
	case AST_STRING:
	case AST_REGEX:
	case AST_IDENT:
	case AST_VAR:
	case AST_NUMBER:
	case AST_QUANTITY:
		sb_addc(out, ' ');
		sb_add_quoted(out, n->u.tok.text);
		sb_addc(out, '\n');
		return;
	default:
		sb_addc(out, '\n');
	}
	dump_children(out, n, depth);
}
