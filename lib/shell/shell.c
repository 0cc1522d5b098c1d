/* The shell analyser's entry points: parse then split, the word helpers
 * and the text dump the tests compare. */
#include "config.h"

#include "shell_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- words -------------------------------------------------------------------- */

const char *shell_word_static(const struct shell_word *w)
{
	return w ? w->lit : NULL;
}

unsigned shell_word_pattern(const struct shell_word *w, struct strbuf *prefix)
{
	unsigned m = 0;
	size_t i = 0;
	if (w->nparts && w->parts[0].kind == SHELL_PART_TILDE) {
		if (strcmp(w->parts[0].text, "~") != 0)
			return SHELL_PAT_UNKNOWN; /* ~user, ~+, ~- */
		m |= SHELL_PAT_HOME;
		i = 1;
	}
	for (; i < w->nparts; i++) {
		if (w->parts[i].kind != SHELL_PART_LIT)
			return m | SHELL_PAT_UNKNOWN;
		sb_adds(prefix, w->parts[i].text);
	}
	return m;
}

/* ---- the public interface ------------------------------------------------------------ */

struct shell_script {
	struct arena arena;
	struct shell_script_cmds cmds;
};

static void set_error(struct shell_error *err, size_t off, const char *msg)
{
	err->offset = off;
	snprintf(err->message, sizeof(err->message), "%s", msg);
}

struct shell_script *shell_parse(const char *text, size_t len, struct shell_error *err)
{
	struct shell_error local;
	if (!err)
		err = &local;
	memset(err, 0, sizeof(*err));
	if (!text)
		text = "", len = 0;
	if (len > SHELL_MAX_INPUT) {
		set_error(err, SHELL_MAX_INPUT, "input larger than 1 MiB");
		return NULL;
	}
	const char *nul = memchr(text, '\0', len);
	if (nul) {
		set_error(err, (size_t)(nul - text), "NUL byte in input");
		return NULL;
	}
	struct shell_script *sc = xcalloc(1, sizeof(*sc));
	arena_init(&sc->arena);
	struct shell_node *root = shell_parse_tree(&sc->arena, text, len, 0, false, 0, 0, err);
	if (!root) {
		shell_free(sc);
		return NULL;
	}
	shell_split(&sc->arena, root, &sc->cmds);
	return sc;
}

/* A byte that needs no quoting anywhere in a word.  In the program's word
 * "=" is quoted too: NAME=value there would read as an assignment. */
static bool plain_byte(unsigned char c, bool program)
{
	if (c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	switch (c) {
	case '_': case '-': case '.': case '/': case ',': case ':': case '+': case '@': case '%':
	case '^':
		return true;
	case '=':
		return !program;
	default:
		return false;
	}
}

static bool reserved_word(const char *w)
{
	static const char *const words[] = { "case", "coproc", "do",	 "done",  "elif",
					     "else", "esac",   "fi",	 "for",	  "function",
					     "if",   "in",     "select", "then",  "time",
					     "until", "while" };
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (words[i][0] == w[0] && strcmp(w, words[i]) == 0)
			return true;
	return false;
}

void shell_quote_word(struct strbuf *sb, const char *w, bool program)
{
	size_t i = 0;
	if (!*w) {
		sb_adds(sb, "''");
		return;
	}
	if (!program || !reserved_word(w))
		while (w[i] && (plain_byte((unsigned char)w[i], program) ||
				/* ~ expands only at the start and after = or : */
				(w[i] == '~' && i && w[i - 1] != '=' && w[i - 1] != ':')))
			i++;
	if (i == 0 && (strcmp(w, "[") == 0 || strcmp(w, "]") == 0))
		i = 1; /* test's brackets alone are no pattern */
	sb_add(sb, w, i);
	if (!w[i])
		return;
	sb_adds(sb, "$'");
	for (; w[i]; i++) {
		unsigned char c = (unsigned char)w[i];
		if (c == '\\' || c == '\'')
			sb_addf(sb, "\\%c", c);
		else if (c == '\n')
			sb_adds(sb, "\\n");
		else if (c == '\t')
			sb_adds(sb, "\\t");
		else if (c <= ' ' || c == 0x7f)
			sb_addf(sb, "\\x%02x", c);
		else
			sb_addc(sb, (char)c);
	}
	sb_addc(sb, '\'');
}

struct shell_script *shell_argv(const char *const *argv, size_t argc, struct strbuf *text,
				struct shell_error *err)
{
	struct shell_error local;
	if (!err)
		err = &local;
	memset(err, 0, sizeof(*err));
	if (!argc) {
		set_error(err, 0, "no words");
		return NULL;
	}
	struct shell_script *sc = xcalloc(1, sizeof(*sc));
	arena_init(&sc->arena);
	struct shell_node *n = arena_alloc(&sc->arena, sizeof(*n));
	struct shell_word **words = arena_alloc(&sc->arena, argc * sizeof(*words));
	memset(n, 0, sizeof(*n));
	size_t base = text->len;
	for (size_t i = 0; i < argc; i++) {
		struct shell_part *part = arena_alloc(&sc->arena, sizeof(*part));
		struct shell_word *w = arena_alloc(&sc->arena, sizeof(*w));
		if (i)
			sb_addc(text, ' ');
		size_t start = text->len - base;
		shell_quote_word(text, argv[i], i == 0);
		if (text->len - base > SHELL_MAX_INPUT) {
			set_error(err, SHELL_MAX_INPUT, "input larger than 1 MiB");
			shell_free(sc);
			return NULL;
		}
		memset(part, 0, sizeof(*part));
		memset(w, 0, sizeof(*w));
		/* Quoted: nothing in an argv word is a glob, a tilde or an
		 * expansion. */
		part->kind = SHELL_PART_LIT;
		part->quoted = true;
		part->text = arena_strdup(&sc->arena, argv[i]);
		part->start = start;
		part->end = text->len - base;
		w->parts = part;
		w->nparts = 1;
		w->lit = part->text;
		w->start = part->start;
		w->end = part->end;
		words[i] = w;
	}
	n->kind = SN_SIMPLE;
	n->end = text->len - base;
	n->u.simple.words = words;
	n->u.simple.nwords = argc;
	shell_split(&sc->arena, n, &sc->cmds);
	return sc;
}

void shell_free(struct shell_script *script)
{
	if (!script)
		return;
	arena_free(&script->arena);
	free(script);
}

size_t shell_cmd_count(const struct shell_script *script)
{
	return script->cmds.n;
}

const struct shell_cmd *shell_cmd_get(const struct shell_script *script, size_t i)
{
	return i < script->cmds.n ? script->cmds.cmds[i] : NULL;
}

/* ---- the dump ---------------------------------------------------------------------- */

static const char *const part_names[] = {
	[SHELL_PART_LIT] = "",          [SHELL_PART_PARAM] = "param",
	[SHELL_PART_CMDSUB] = "cmdsub", [SHELL_PART_ARITH] = "arith",
	[SHELL_PART_PROCSUB] = "procsub", [SHELL_PART_GLOB] = "glob",
	[SHELL_PART_BRACE] = "brace",   [SHELL_PART_TILDE] = "tilde",
	[SHELL_PART_ARRAY] = "array",
};

void shell_dump_word(const struct shell_word *w, struct strbuf *out)
{
	if (w->lit) {
		sb_add_quoted(out, w->lit);
		return;
	}
	sb_addc(out, '[');
	for (size_t i = 0; i < w->nparts; i++) {
		const struct shell_part *p = &w->parts[i];
		if (i)
			sb_addc(out, ' ');
		if (p->kind != SHELL_PART_LIT) {
			sb_addf(out, "%s%s", p->quoted ? "q" : "", part_names[p->kind]);
			sb_add_quoted(out, p->text);
			continue;
		}
		/* Literal parts side by side read as one. */
		struct strbuf lit;
		sb_init(&lit);
		for (; i < w->nparts && w->parts[i].kind == SHELL_PART_LIT; i++)
			sb_adds(&lit, w->parts[i].text);
		i--;
		sb_add_quoted(out, lit.buf);
		sb_free(&lit);
	}
	sb_addc(out, ']');
}


static const struct {
	unsigned flag;
	const char *name;
} flag_names[] = {
	{ SHELL_CMD_IN_SUBST, "subst" },       { SHELL_CMD_BACKGROUND, "bg" },
	{ SHELL_CMD_IN_FUNCTION, "function" }, { SHELL_CMD_IN_STRING, "string" },
	{ SHELL_CMD_EXTRA_ARGS, "extra-args" }, { SHELL_CMD_FIND_EXEC, "find-exec" },
	{ SHELL_CMD_FIND_DELETE, "find-delete" }, { SHELL_CMD_DOWNLOADS, "downloads" },
	{ SHELL_CMD_NET_REDIR, "net-redir" },  { SHELL_CMD_GIT_EXEC, "git-exec" },
	{ SHELL_CMD_REDIR_ONLY, "redir-only" },
};

static void dump_words(struct strbuf *out, const struct shell_word *const *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sb_addc(out, ' ');
		shell_dump_word(w[i], out);
	}
}

void shell_dump(const struct shell_script *script, struct strbuf *out)
{
	for (size_t i = 0; i < script->cmds.n; i++) {
		const struct shell_cmd *c = script->cmds.cmds[i];
		sb_addf(out, "cmd @%zu-%zu cwd=", c->start, c->end);
		if (c->cwd)
			sb_add_quoted(out, c->cwd);
		else
			sb_addc(out, '?');
		if (c->pipeline)
			sb_addf(out, " pipe=%zu.%zu", c->pipeline, c->pipe_pos);
		for (size_t k = 0; k < ARRAY_SIZE(flag_names); k++)
			if (c->flags & flag_names[k].flag)
				sb_addf(out, " %s", flag_names[k].name);
		if (c->flags & SHELL_CMD_OPAQUE) {
			sb_adds(out, " opaque(");
			sb_adds(out, c->reason);
			sb_addc(out, ')');
		}
		sb_addc(out, '\n');
		for (size_t k = 0; k < c->nwrappers; k++) {
			sb_adds(out, "  wrap");
			dump_words(out, c->wrappers[k].words, c->wrappers[k].nwords);
			sb_addc(out, '\n');
		}
		for (size_t k = 0; k < c->nassigns; k++) {
			const struct shell_assign *as = c->assigns[k];
			sb_addf(out, "  assign %s%s ", as->name, as->append ? "+=" : "=");
			shell_dump_word(as->value, out);
			sb_addc(out, '\n');
		}
		if (c->argi < c->nwords) {
			sb_adds(out, "  argv");
			dump_words(out, c->words + c->argi, c->nwords - c->argi);
			sb_addc(out, '\n');
		}
		for (size_t k = 0; k < c->nredirs; k++) {
			const struct shell_redir *r = c->redirs[k];
			if (r->op == SHELL_REDIR_OUT_ERR || r->op == SHELL_REDIR_APPEND_ERR)
				sb_addf(out, "  redir %s ", shell_redir_names[r->op]);
			else
				sb_addf(out, "  redir %d%s ", r->fd, shell_redir_names[r->op]);
			shell_dump_word(r->target, out);
			if (r->op == SHELL_REDIR_HEREDOC || r->op == SHELL_REDIR_HEREDOC_TABS) {
				sb_adds(out, " body ");
				shell_dump_word(r->body, out);
			}
			sb_addc(out, '\n');
		}
		if (c->ngit_config) {
			sb_adds(out, "  git-config");
			dump_words(out, c->git_config, c->ngit_config);
			sb_addc(out, '\n');
		}
	}
}
