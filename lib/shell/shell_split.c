/* The shell splitter: every simple command a parsed script can run, with
 * wrappers unwrapped, shell strings parsed again and the working directory
 * followed through `cd`. */
#include "config.h"

#include "shell_split.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- directories -------------------------------------------------------------- */

const char *sp_arena_printf(struct arena *a, const char *fmt, ...)
{
	struct strbuf sb;
	va_list ap;
	sb_init(&sb);
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	const char *s = arena_strdup(a, sb.buf);
	sb_free(&sb);
	return s;
}

static bool same_cwd(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* Resolve "." and ".." in a directory the way cd does without -P: by
 * text.  A leading "/" or "~" (the home directory) is never removed. */
static void cwd_normalize(struct strbuf *out, const char *path)
{
	bool abs = path[0] == '/';
	bool home = path[0] == '~' && (path[1] == '/' || !path[1]);
	const char *p = path + (abs || home);
	size_t removable = 0; /* components ".." may take away */
	sb_init(out);
	if (abs || home)
		sb_addc(out, path[0]);
	while (*p) {
		size_t n = strcspn(p, "/");
		bool dot = n == 1 && p[0] == '.', dotdot = n == 2 && p[0] == '.' && p[1] == '.';
		if (dotdot && removable) {
			char *slash = strrchr(out->buf, '/');
			out->len = !slash ? 0 : slash == out->buf ? 1 : (size_t)(slash - out->buf);
			out->buf[out->len] = '\0';
			removable--;
		} else if (n && !dot && !(dotdot && abs)) {
			if (out->len && out->buf[out->len - 1] != '/')
				sb_addc(out, '/');
			sb_add(out, p, n);
			removable += !dotdot;
		}
		p += n + (p[n] == '/');
	}
	if (!out->len)
		sb_addc(out, '.');
	/* A directory literally named "~..." must not read as the home. */
	if (!home && out->buf[0] == '~') {
		struct strbuf tmp;
		sb_init(&tmp);
		sb_addf(&tmp, "./%s", out->buf);
		sb_free(out);
		*out = tmp;
	}
}

/* dir (under the home directory when home) applied to base; NULL when
 * unknown.  logical: sp_resolve ".." by text, as cd does. */
const char *sp_cwd_add(struct split *sp, const char *base, const char *dir, bool home,
			   bool logical)
{
	struct strbuf joined, norm;
	if (sp->cwd_bytes > CWD_BUDGET || strlen(dir) > CWD_MAX)
		return NULL;
	sb_init(&joined);
	if (home)
		sb_addf(&joined, "~%s", dir);
	else if (dir[0] == '/')
		sb_adds(&joined, dir);
	else if (*dir && base && !sp->cdpath)
		sb_addf(&joined, "%s/%s", base, dir);
	if (!joined.len || joined.len > CWD_MAX) {
		sb_free(&joined);
		return NULL;
	}
	if (logical) {
		cwd_normalize(&norm, joined.buf);
	} else {
		/* Keep the text as it is, only without a leading "./". */
		const char *t = joined.buf;
		while (t[0] == '.' && t[1] == '/' && t[2] && !(t[2] == '~' && !home))
			t += 2;
		sb_init(&norm);
		sb_adds(&norm, t);
	}
	const char *res = arena_strdup(sp->a, norm.buf);
	sp->cwd_bytes += norm.len;
	sb_free(&joined);
	sb_free(&norm);
	return res;
}

/* A directory word applied to base. */
const char *sp_cwd_join(struct split *sp, const char *base, const struct shell_word *w,
			    bool logical)
{
	struct strbuf sb;
	sb_init(&sb);
	unsigned m = shell_word_pattern(w, &sb);
	const char *res = m & SHELL_PAT_UNKNOWN
				  ? NULL
				  : sp_cwd_add(sp, base, sb.buf, m & SHELL_PAT_HOME, logical);
	sb_free(&sb);
	return res;
}

/* ---- commands ------------------------------------------------------------------- */

struct shell_cmd *sp_new_cmd(struct split *sp, const struct ctx *c, size_t start, size_t end,
				 const char *cwd)
{
	struct shell_cmd *cmd = arena_alloc0(sp->a, sizeof(*cmd));
	cmd->flags = c->flags;
	cmd->wrappers = c->wrappers;
	cmd->nwrappers = c->nwrappers;
	cmd->pipeline = c->pipeline;
	cmd->pipe_pos = c->pipe_pos;
	cmd->start = start;
	cmd->end = end;
	cmd->cwd = cmd->shell_cwd = cwd;
	AVEC_PUSH(sp->a, sp->out->cmds, sp->out->n, sp->out->cap, cmd);
	return cmd;
}

void sp_set_opaque(struct shell_cmd *cmd, const char *reason)
{
	if (!(cmd->flags & SHELL_CMD_OPAQUE)) {
		cmd->flags |= SHELL_CMD_OPAQUE;
		cmd->reason = reason;
	}
}

bool sp_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void walk_parts(struct split *sp, const struct shell_part *parts, size_t n,
		       const struct ctx *c, const char *cwd)
{
	for (size_t i = 0; i < n; i++) {
		const struct shell_part *part = &parts[i];
		const char *hidden = sp_hidden_part(part);
		if (hidden)
			sp_emit_hidden(sp, c, cwd, part->text, part->start, part->end, hidden);
		if (part->sub) {
			struct ctx in = *c;
			const char *cw = cwd;
			in.flags |= SHELL_CMD_IN_SUBST;
			in.pipeline = in.pipe_pos = 0;
			in.depth++;
			sp_walk(sp, part->sub, &in, &cw);
		}
		if (part->ninner)
			walk_parts(sp, part->inner, part->ninner, c, cwd);
	}
}

static void walk_word(struct split *sp, const struct shell_word *w, const struct ctx *c,
		      const char *cwd)
{
	if (w)
		walk_parts(sp, w->parts, w->nparts, c, cwd);
}

static void walk_redirs(struct split *sp, struct shell_redir *const *r, size_t n,
			const struct ctx *c, const char *cwd)
{
	for (size_t i = 0; i < n; i++) {
		/* A here-document delimiter is never expanded. */
		if (r[i]->op != SHELL_REDIR_HEREDOC && r[i]->op != SHELL_REDIR_HEREDOC_TABS)
			walk_word(sp, r[i]->target, c, cwd);
		walk_word(sp, r[i]->body, c, cwd);
	}
}

static bool net_redirs(const struct shell_redir *const *r, size_t n)
{
	static const char *const devs[] = { "/dev/tcp/", "/dev/udp/" };
	for (size_t i = 0; i < n; i++) {
		struct strbuf sb;
		bool hit = false;
		if (r[i]->op == SHELL_REDIR_HEREDOC || r[i]->op == SHELL_REDIR_HEREDOC_TABS ||
		    r[i]->op == SHELL_REDIR_HERESTRING)
			continue;
		sb_init(&sb);
		unsigned m = shell_word_pattern(r[i]->target, &sb);
		for (size_t k = 0; k < ARRAY_SIZE(devs) && !(m & SHELL_PAT_HOME); k++)
			hit = hit || sp_starts_with(sb.buf, devs[k]) ||
			      ((m & SHELL_PAT_UNKNOWN) && sb.len > 5 && sp_starts_with(devs[k], sb.buf));
		sb_free(&sb);
		if (hit)
			return true;
	}
	return false;
}

/* What bash evaluates of the command's text where the analysis cannot see
 * (shell_hidden.c) makes it opaque; an assignment alone gets an opaque
 * command of its own, since a command without words runs no program. */
static void hidden_evaluation(struct split *sp, struct shell_cmd *cmd, const struct ctx *c,
			      const char *cwd)
{
	const char *why = sp_hidden_cmd(cmd);
	if (why)
		sp_set_opaque(cmd, why);
	for (size_t i = 0; i < cmd->nassigns; i++) {
		const struct shell_assign *a = cmd->assigns[i];
		why = sp_hidden_assign(a, cmd->nwords == 0);
		if (!why)
			continue;
		if (cmd->nwords)
			sp_set_opaque(cmd, why);
		else
			sp_emit_hidden(sp, c, cwd, a->name, a->start,
				       a->end, why);
	}
}

/* A brace expansion in command position, {rm,-rf,dir}: bash expands it
 * into the words rm -rf dir, so the program is rm.  Only the plain form
 * (one level, static alternatives, nothing around it) is expanded; any
 * other stays a word whose value is not static (opaque). */
static void expand_brace_name(struct split *sp, struct shell_cmd *cmd)
{
	if (!cmd->nwords || cmd->words[0]->lit)
		return;
	const struct shell_word *w = cmd->words[0];
	struct strbuf sb;
	sb_init(&sb);
	for (size_t i = 0; i < w->nparts; i++) {
		const struct shell_part *part = &w->parts[i];
		if ((part->kind != SHELL_PART_BRACE && part->kind != SHELL_PART_LIT) || part->quoted ||
		    !part->text) {
			sb_free(&sb);
			return;
		}
		sb_adds(&sb, part->text);
	}
	const char *s = sb.buf;
	size_t n = sb.len, commas = 0;
	bool plain = n > 2 && s[0] == '{' && s[n - 1] == '}' && !strpbrk(s + 1, "{") &&
		     !memchr(s + 1, '}', n - 2);
	for (size_t i = 1; plain && i + 1 < n; i++)
		commas += s[i] == ',';
	if (!plain || !commas) {
		sb_free(&sb);
		return;
	}
	struct shell_word **words =
		arena_alloc0(sp->a, (commas + cmd->nwords) * sizeof(*words));
	size_t k = 0;
	for (const char *p = s + 1; p < s + n; ) {
		size_t len = strcspn(p, ",}");
		if (!len) { /* an empty alternative expands to no word */
			p++;
			continue;
		}
		const char *text = arena_strndup(sp->a, p, len);
		struct shell_part *lit = arena_alloc0(sp->a, sizeof(*lit));
		lit->kind = SHELL_PART_LIT;
		lit->text = text;
		lit->start = w->start;
		lit->end = w->end;
		struct shell_word *nw = arena_alloc0(sp->a, sizeof(*nw));
		nw->parts = lit;
		nw->nparts = 1;
		nw->lit = text;
		nw->start = w->start;
		nw->end = w->end;
		words[k++] = nw;
		p += len + 1;
	}
	for (size_t i = 1; i < cmd->nwords; i++)
		words[k++] = (struct shell_word *)cmd->words[i];
	cmd->words = (const struct shell_word *const *)words;
	cmd->nwords = k;
	sb_free(&sb);
}

static void emit_simple(struct split *sp, const struct shell_node *n, const struct ctx *c,
			const char **cwd)
{
	bool ifs = false;
	for (size_t i = 0; i < n->u.simple.nassigns; i++)
		walk_word(sp, n->u.simple.assigns[i]->value, c, *cwd);
	for (size_t i = 0; i < n->u.simple.nwords; i++)
		walk_word(sp, n->u.simple.words[i], c, *cwd);
	walk_redirs(sp, n->redirs, n->nredirs, c, *cwd);

	struct shell_cmd *cmd = sp_new_cmd(sp, c, n->start, n->end, *cwd);
	cmd->words = (const struct shell_word *const *)n->u.simple.words;
	cmd->nwords = n->u.simple.nwords;
	cmd->assigns = (const struct shell_assign *const *)n->u.simple.assigns;
	cmd->nassigns = n->u.simple.nassigns;
	cmd->redirs = (const struct shell_redir *const *)n->redirs;
	cmd->nredirs = n->nredirs;
	if (net_redirs(cmd->redirs, cmd->nredirs))
		cmd->flags |= SHELL_CMD_NET_REDIR;
	for (size_t i = 0; i < cmd->nassigns; i++) {
		const char *name = cmd->assigns[i]->name;
		if (!strcmp(name, "IFS"))
			ifs = true;
		if (!strcmp(name, "CDPATH"))
			sp->cdpath = true;
	}
	if (ifs && !cmd->nwords)
		sp->ifs = true;
	expand_brace_name(sp, cmd);
	sp_resolve(sp, cmd, c, cwd);
	if ((ifs || sp->ifs) && sp_unquoted_expansion(cmd))
		sp_set_opaque(cmd, "word splitting with a changed IFS");
	hidden_evaluation(sp, cmd, c, *cwd);
}

/* Redirections of a compound command, as a command of their own. */
static void emit_redirs(struct split *sp, const struct shell_node *n, const struct ctx *c,
			const char *cwd)
{
	if (!n->nredirs)
		return;
	walk_redirs(sp, n->redirs, n->nredirs, c, cwd);
	struct shell_cmd *cmd = sp_new_cmd(sp, c, n->start, n->end, cwd);
	cmd->flags |= SHELL_CMD_REDIR_ONLY;
	cmd->redirs = (const struct shell_redir *const *)n->redirs;
	cmd->nredirs = n->nredirs;
	if (net_redirs(cmd->redirs, cmd->nredirs))
		cmd->flags |= SHELL_CMD_NET_REDIR;
}

/* Whether running n may change the directory of the shell it runs in. */
/* Is w one of the n words? */
static bool in_words(const char *w, const char *const *words, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (!strcmp(w, words[k]))
			return true;
	return false;
}

static bool changes_cwd(const struct split *sp, const struct shell_node *n);

/* A simple command that may change the shell's directory: cd and its
 * kin (past `builtin`, `command`, `-p`), eval and source (which run
 * anything), a function known to, or a program name not static. */
static bool simple_changes_cwd(const struct split *sp, const struct shell_node *n)
{
	static const char *const movers[] = { "cd", "pushd", "popd", "eval", "source", "." };
	static const char *const prefixes[] = { "builtin", "command", "-p" };
	size_t i = 0;
	while (i < n->u.simple.nwords && n->u.simple.words[i]->lit &&
	       in_words(n->u.simple.words[i]->lit, prefixes, ARRAY_SIZE(prefixes)))
		i++;
	if (i >= n->u.simple.nwords)
		return false;
	const char *name = n->u.simple.words[i]->lit;
	if (!name || in_words(name, movers, ARRAY_SIZE(movers)))
		return true;
	return strmap_get(&sp->cdfuncs, name, strlen(name)) != NULL;
}

/* A list or and-or list: a part run in the background moves no one. */
static bool list_changes_cwd(const struct split *sp, const struct shell_node *n)
{
	for (size_t i = 0; i < n->u.list.n; i++)
		if (!(n->kind == SN_LIST && n->u.list.sep[i] == SN_SEP_BG) &&
		    changes_cwd(sp, n->u.list.items[i]))
			return true;
	return false;
}

static bool if_changes_cwd(const struct split *sp, const struct shell_node *n)
{
	for (size_t i = 0; i < n->u.if_.n; i++)
		if (changes_cwd(sp, n->u.if_.conds[i]) || changes_cwd(sp, n->u.if_.bodies[i]))
			return true;
	return n->u.if_.else_body && changes_cwd(sp, n->u.if_.else_body);
}

static bool case_changes_cwd(const struct split *sp, const struct shell_node *n)
{
	for (size_t i = 0; i < n->u.case_.n; i++)
		if (changes_cwd(sp, n->u.case_.items[i].body))
			return true;
	return false;
}

/* May n change the directory of the shell that runs it?  A pipeline's
 * parts, a subshell and a function's definition run in shells of their
 * own. */
static bool changes_cwd(const struct split *sp, const struct shell_node *n)
{
	switch (n->kind) {
	case SN_SIMPLE:
		return simple_changes_cwd(sp, n);
	case SN_LIST:
	case SN_ANDOR:
		return list_changes_cwd(sp, n);
	case SN_GROUP:
		return changes_cwd(sp, n->u.sub.body);
	case SN_IF:
		return if_changes_cwd(sp, n);
	case SN_FOR:
		return changes_cwd(sp, n->u.for_.body);
	case SN_WHILE:
	case SN_UNTIL:
		return changes_cwd(sp, n->u.loop.cond) || changes_cwd(sp, n->u.loop.body);
	case SN_CASE:
		return case_changes_cwd(sp, n);
	case SN_PIPE:
	case SN_SUBSHELL:
	case SN_FUNC:
	case SN_ARITH:
		return false;
	}
	return false;
}

/* Whether n ends the shell or function it runs in: `cd x || exit`. */
static bool never_returns(const struct shell_node *n)
{
	switch (n->kind) {
	case SN_SIMPLE: {
		const char *w = n->u.simple.nwords ? n->u.simple.words[0]->lit : NULL;
		return w && (!strcmp(w, "exit") || !strcmp(w, "return"));
	}
	case SN_GROUP:
		return never_returns(n->u.sub.body);
	case SN_LIST:
		return n->u.list.n && n->u.list.sep[n->u.list.n - 1] != SN_SEP_BG &&
		       never_returns(n->u.list.items[n->u.list.n - 1]);
	default:
		return false;
	}
}

/* Join the directories two ways can end in. */
static void merge_cwd(const char **acc, bool *have, const char *cwd)
{
	if (!*have)
		*acc = cwd;
	else if (!same_cwd(*acc, cwd))
		*acc = NULL;
	*have = true;
}

/* One handler a kind of node below: each walks its parts in the order
 * they run, and leaves in *cwd the directory the shell is in after the
 * node, NULL when that is not known (a cd in one branch only). */

/* a; b & c: one after the other, in the same directory, but a command
 * sent to the background moves no one else. */
static void walk_list(struct split *sp, const struct shell_node *n, const struct ctx *c,
		      const char **cwd)
{
	struct ctx in = *c;
	in.depth++;
	for (size_t i = 0; i < n->u.list.n; i++) {
		if (n->u.list.sep[i] == SN_SEP_BG) {
			struct ctx bg = in;
			const char *cur = *cwd;
			bg.flags |= SHELL_CMD_BACKGROUND;
			sp_walk(sp, n->u.list.items[i], &bg, &cur);
		} else {
			sp_walk(sp, n->u.list.items[i], &in, cwd);
		}
	}
}

/* a && b || c: && runs its right side after the left, in its directory. */
static void walk_andor(struct split *sp, const struct shell_node *n, const struct ctx *c,
		       const char **cwd)
{
	const char *before = *cwd;
	sp_walk(sp, n->u.list.items[0], c, cwd);
	for (size_t i = 1; i < n->u.list.n; i++) {
		if (n->u.list.sep[i] == SN_SEP_AND) {
			sp_walk(sp, n->u.list.items[i], c, cwd);
			continue;
		}
		/* || runs the right side when the left failed: maybe before or
		 * after a cd on the left. */
		const char *left = *cwd;
		const char *cur = same_cwd(left, before) ? left : NULL;
		sp_walk(sp, n->u.list.items[i], c, &cur);
		*cwd = same_cwd(left, cur) || never_returns(n->u.list.items[i]) ? left : NULL;
	}
}

/* a | b: each part in a subshell of its own, numbered as one pipeline. */
static void walk_pipe(struct split *sp, const struct shell_node *n, const struct ctx *c,
		      const char **cwd)
{
	struct ctx in = *c;
	in.pipeline = ++sp->pipes;
	for (size_t i = 0; i < n->u.list.n; i++) {
		const char *cur = *cwd;
		in.pipe_pos = i;
		sp_walk(sp, n->u.list.items[i], &in, &cur);
	}
}

/* if: the conditions run one after another; the directory after is the
 * one every branch (and no branch taken) leaves, or unknown. */
static void walk_if(struct split *sp, const struct shell_node *n, const struct ctx *c,
		    const char **cwd)
{
	const char *cur = *cwd, *acc = NULL;
	bool have = false;
	for (size_t i = 0; i < n->u.if_.n; i++) {
		sp_walk(sp, n->u.if_.conds[i], c, &cur);
		const char *b = cur;
		sp_walk(sp, n->u.if_.bodies[i], c, &b);
		merge_cwd(&acc, &have, b);
	}
	if (n->u.if_.else_body)
		sp_walk(sp, n->u.if_.else_body, c, &cur);
	merge_cwd(&acc, &have, cur);
	*cwd = acc;
}

/* for: the words, then the body, whose second round may start where a
 * cd of the first left it. */
static void walk_for(struct split *sp, const struct shell_node *n, const struct ctx *c,
		     const char **cwd)
{
	for (size_t i = 0; i < n->u.for_.nwords; i++)
		walk_word(sp, n->u.for_.words[i], c, *cwd);
	walk_word(sp, n->u.for_.arith, c, *cwd);
	if (changes_cwd(sp, n->u.for_.body))
		*cwd = NULL;
	sp_walk(sp, n->u.for_.body, c, cwd);
}

/* while and until, as for. */
static void walk_loop(struct split *sp, const struct shell_node *n, const struct ctx *c,
		      const char **cwd)
{
	if (changes_cwd(sp, n->u.loop.cond) || changes_cwd(sp, n->u.loop.body))
		*cwd = NULL;
	sp_walk(sp, n->u.loop.cond, c, cwd);
	sp_walk(sp, n->u.loop.body, c, cwd);
}

/* case: the subject and patterns are expanded; one body or none runs. */
static void walk_case(struct split *sp, const struct shell_node *n, const struct ctx *c,
		      const char **cwd)
{
	const char *acc = NULL;
	bool have = false;
	walk_word(sp, n->u.case_.subject, c, *cwd);
	for (size_t i = 0; i < n->u.case_.n; i++) {
		const struct sn_case_item *it = &n->u.case_.items[i];
		for (size_t k = 0; k < it->npatterns; k++)
			walk_word(sp, it->patterns[k], c, *cwd);
		const char *cur = *cwd;
		sp_walk(sp, it->body, c, &cur);
		merge_cwd(&acc, &have, cur);
	}
	merge_cwd(&acc, &have, *cwd);
	*cwd = acc;
}

/* A function's body runs where it is called, unknown here; a function
 * that may cd is remembered, so that its calls make the directory
 * unknown. */
static void walk_func(struct split *sp, const struct shell_node *n, const struct ctx *c)
{
	struct ctx in = *c;
	const char *name = n->u.func.name->lit;
	if (name && changes_cwd(sp, n->u.func.body) &&
	    !strmap_get(&sp->cdfuncs, name, strlen(name)))
		strmap_add(&sp->cdfuncs, name, strlen(name), 0);
	in.flags |= SHELL_CMD_IN_FUNCTION;
	const char *cur = NULL;
	sp_walk(sp, n->u.func.body, &in, &cur);
}

void sp_walk(struct split *sp, const struct shell_node *n, const struct ctx *c,
	     const char **cwd)
{
	const char *cur;
	/* A compound command's redirections are opened before its body runs. */
	if (n->kind != SN_SIMPLE && n->kind != SN_LIST && n->kind != SN_ANDOR &&
	    n->kind != SN_PIPE && n->kind != SN_FUNC)
		emit_redirs(sp, n, c, *cwd);
	switch (n->kind) {
	case SN_SIMPLE:
		emit_simple(sp, n, c, cwd);
		return;
	case SN_LIST:
		walk_list(sp, n, c, cwd);
		return;
	case SN_ANDOR:
		walk_andor(sp, n, c, cwd);
		return;
	case SN_PIPE:
		walk_pipe(sp, n, c, cwd);
		return;
	case SN_SUBSHELL:
		cur = *cwd; /* a cd inside stays inside */
		sp_walk(sp, n->u.sub.body, c, &cur);
		return;
	case SN_GROUP:
		sp_walk(sp, n->u.sub.body, c, cwd);
		return;
	case SN_IF:
		walk_if(sp, n, c, cwd);
		return;
	case SN_FOR:
		walk_for(sp, n, c, cwd);
		return;
	case SN_WHILE:
	case SN_UNTIL:
		walk_loop(sp, n, c, cwd);
		return;
	case SN_CASE:
		walk_case(sp, n, c, cwd);
		return;
	case SN_FUNC:
		walk_func(sp, n, c);
		return;
	case SN_ARITH:
		walk_word(sp, n->u.arith.expr, c, *cwd);
		return;
	}
}

void shell_split(struct arena *a, const struct shell_node *root, struct shell_script_cmds *out)
{
	struct split sp;
	struct ctx c;
	const char *cwd = ".";
	memset(&sp, 0, sizeof(sp));
	memset(&c, 0, sizeof(c));
	sp.a = a;
	sp.out = out;
	strmap_init(&sp.cdfuncs);
	sp_walk(&sp, root, &c, &cwd);
	strmap_free(&sp.cdfuncs);
}
