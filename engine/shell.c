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
