/* Looking through wrappers: the command a wrapper runs, the strings
 * shells, git, find and tmux run again, and the directory they run in. */
#include "config.h"

#include "shell_split.h"

#include "base/git_keys.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The words of a command run by a wrapper: find -exec, git bisect run. */
static void emit_words(struct split *sp, const struct shell_cmd *parent, const struct ctx *c,
		       const struct shell_word *const *words, size_t n, const struct wlist *wl,
		       unsigned flags, const char *cwd);

/* Parse a string the shell will run and sp_walk its commands.  same_shell: it
 * runs in the current shell (eval), so cd in it moves *cwd. */
static void run_string(struct split *sp, struct shell_cmd *cmd, const struct ctx *c,
		       const char *text, size_t start, size_t end, const struct wlist *wl,
		       bool same_shell, const char **cwd)
{
	struct shell_error err;
	if (sp->strings >= SHELL_MAX_STRINGS || c->depth >= SHELL_MAX_DEPTH) {
		sp_set_opaque(cmd, "shell strings nested too deeply");
		if (same_shell)
			*cwd = NULL;
		return;
	}
	struct shell_node *root =
		shell_parse_tree(sp->a, text, strlen(text), c->depth, true, start, end, &err);
	if (!root) {
		sp_set_opaque(cmd, sp_arena_printf(sp->a, "the shell string does not parse: %s",
					     err.message));
		if (same_shell)
			*cwd = NULL;
		return;
	}
	struct ctx in = *c;
	const char *cw = *cwd;
	in.flags |= SHELL_CMD_IN_STRING;
	in.wrappers = wl->v;
	in.nwrappers = wl->n;
	in.depth++;
	sp->strings++;
	sp_walk(sp, root, &in, same_shell ? cwd : &cw);
	sp->strings--;
}

/* Static words joined with spaces, as eval, su -c and watch do; NULL when
 * one is dynamic. */
static const char *join_words(struct split *sp, const struct shell_word *const *w, size_t n)
{
	struct strbuf sb;
	sb_init(&sb);
	for (size_t i = 0; i < n; i++) {
		if (!w[i]->lit) {
			sb_free(&sb);
			return NULL;
		}
		if (i)
			sb_addc(&sb, ' ');
		sb_adds(&sb, w[i]->lit);
	}
	const char *s = arena_strdup(sp->a, sb.buf);
	sb_free(&sb);
	return s;
}

static void string_words(struct split *sp, struct shell_cmd *cmd, const struct ctx *c,
			 size_t from, size_t to, const struct wlist *wl, bool same_shell,
			 const char **cwd)
{
	const char *text = join_words(sp, cmd->words + from, to - from);
	if (!text) {
		sp_set_opaque(cmd, "the command string is not static");
		if (same_shell)
			*cwd = NULL;
		return;
	}
	if (from < to)
		run_string(sp, cmd, c, text, cmd->words[from]->start, cmd->words[to - 1]->end, wl,
			   same_shell, cwd);
}

/* The text xargs or find puts into the words of the command they run
 * before words[i]: xargs -I REPL (-IREPL, --replace=REPL, -i: "{}"), or
 * find -exec's "{}"; "" when REPL is not static, NULL when nothing is
 * replaced. */
static const char *replaced_text(const struct shell_cmd *cmd, size_t i)
{
	if (!(cmd->flags & (SHELL_CMD_EXTRA_ARGS | SHELL_CMD_FIND_EXEC)))
		return NULL;
	for (size_t k = 0; k < i; k++) {
		const char *w = cmd->words[k]->lit;
		if (!w)
			continue;
		if (!strcmp(w, "-I") && k + 1 < i)
			return cmd->words[k + 1]->lit ? cmd->words[k + 1]->lit : "";
		if (!strncmp(w, "-I", 2) && w[2])
			return w + 2;
		if (!strncmp(w, "--replace=", 10))
			return w + 10;
	}
	return "{}";
}

/* What a shell's options say: -c (a command string), -s (commands from
 * standard input), and why it runs code of files it reads first or reads
 * the string otherwise (NULL: it does not). */
struct shell_opts {
	bool has_c, stdin_;
	const char *profile;
};

/* A word of single-letter options (-xc, +o, -O expand_aliases) at
 * words[j].  Returns how many words after it the -o and -O take. */
static size_t shell_letters(const struct shell_cmd *cmd, size_t j, struct shell_opts *o)
{
	const char *w = cmd->words[j]->lit;
	size_t skip = 0;
	for (size_t k = 1; w[k]; k++) {
		if (w[k] == 'c')
			o->has_c = true;
		else if (w[k] == 's')
			o->stdin_ = true;
		else if (w[k] == 'l' && w[0] == '-')
			o->profile = "a login shell runs /etc/profile and the user's profile first";
		else if (w[k] == 'i' && w[0] == '-')
			o->profile = "an interactive shell runs ~/.bashrc first and expands aliases";
		else if (w[k] == 'o' || w[k] == 'O') {
			/* -O expand_aliases, -o anything: options change how the
			 * string is read. */
			const char *opt = j + skip + 1 < cmd->nwords ? cmd->words[j + skip + 1]->lit : NULL;
			if (w[k] == 'O' && (!opt || !strcmp(opt, "expand_aliases")))
				o->profile = "with expand_aliases, an alias may stand for any command";
			skip++;
		}
	}
	return skip;
}

/* The shell's options, words[i+1..].  Returns the index of the first
 * word after them (the command string or the script, n: none). */
static size_t shell_options(const struct shell_cmd *cmd, size_t i, struct shell_opts *o)
{
	size_t n = cmd->nwords, j;
	for (j = i + 1; j < n; j++) {
		const char *w = cmd->words[j]->lit;
		if (!w)
			break;
		if (!strcmp(w, "--") || !strcmp(w, "-")) {
			j++;
			break;
		}
		if (w[0] == '-' && w[1] == '-') {
			if (!strcmp(w, "--rcfile") || !strcmp(w, "--init-file")) {
				o->profile = "the shell runs the file --rcfile names first";
				j++;
			} else if (!strcmp(w, "--login")) {
				o->profile = "a login shell runs /etc/profile and the user's profile first";
			}
			continue;
		}
		if ((w[0] != '-' && w[0] != '+') || !w[1])
			break;
		j += shell_letters(cmd, j, o);
	}
	return j;
}

/* sh -c STRING (the shell at words[i], STRING at words[j]): the commands
 * of the string. */
static void shell_string(struct split *sp, struct shell_cmd *cmd, const struct ctx *c, size_t i,
			 size_t j, struct wlist *wl)
{
	const char *cw = cmd->cwd;
	if (j >= cmd->nwords)
		return;
	if (!cmd->words[j]->lit) {
		sp_set_opaque(cmd, "the shell command string is not static");
		return;
	}
	/* xargs -I{} sh -c 'rm -rf {}': the string's text is known
	 * only at run time. */
	const char *repl = replaced_text(cmd, i);
	if (repl && (!*repl || strstr(cmd->words[j]->lit, repl)))
		sp_set_opaque(cmd, "the shell command string gets text known only at run "
				   "time (xargs -I, find -exec {})");
	run_string(sp, cmd, c, cmd->words[j]->lit, cmd->words[j]->start, cmd->words[j]->end,
		   wl, false, &cw);
}

/* A shell that reads its commands from standard input: those of a
 * here-document or a here-string; any other input is not seen. */
static void shell_stdin(struct split *sp, struct shell_cmd *cmd, const struct ctx *c,
			struct wlist *wl)
{
	const char *cw = cmd->cwd;
	const struct shell_redir *in = NULL;
	for (size_t k = 0; k < cmd->nredirs; k++)
		if (cmd->redirs[k]->fd == 0)
			in = cmd->redirs[k];
	if (in && in->op == SHELL_REDIR_IN) {
		/* bash < script.sh: a script file again, read through the
		 * redirection; what it runs is not seen. */
		sp_set_opaque(cmd, "the shell runs the script on its standard input");
		return;
	}
	const struct shell_word *text = !in ? NULL
					: in->op == SHELL_REDIR_HERESTRING ? in->target
					: in->op == SHELL_REDIR_HEREDOC || in->op == SHELL_REDIR_HEREDOC_TABS
						? in->body
						: NULL;
	if (!text) {
		sp_set_opaque(cmd, "the shell reads its commands from standard input");
		return;
	}
	if (!text->lit) {
		sp_set_opaque(cmd, "the shell reads commands that are not static");
		return;
	}
	run_string(sp, cmd, c, text->lit, text->start, text->end, wl, false, &cw);
}

/* sh, bash, ... at words[i]: the commands it runs from a string or its
 * standard input; a script file or code it reads first is opaque. */
static void handle_shell(struct split *sp, struct shell_cmd *cmd, const struct ctx *c,
			 size_t i, struct wlist *wl)
{
	struct shell_opts o = { false, false, NULL };
	size_t n = cmd->nwords, j = shell_options(cmd, i, &o);
	if (o.profile)
		sp_set_opaque(cmd, o.profile);
	sp_wlist_add(sp, wl, cmd, i, j < n ? j : n);
	if (o.has_c) {
		shell_string(sp, cmd, c, i, j, wl);
	} else if (j < n && !o.stdin_) {
		/* A script file: bash <(curl ...) runs what it downloads. */
		if (!cmd->words[j]->lit)
			sp_set_opaque(cmd, "the shell runs a script whose name is not static");
	} else {
		shell_stdin(sp, cmd, c, wl);
	}
}

/* git -c NAME=VALUE settings that make git run a program: the keys of
 * the one table (base/git_keys.c), whatever the value. */
static bool git_key_execs(const char *setting)
{
	enum git_value_kind kind;
	return git_key_find_dotted(setting, &kind) != NULL;
}

/* git's own options, words[i+1..]: -C DIR moves cmd's directory, the
 * settings of -c and --config-env go to cmd->git_config, and those that
 * make git run a program (a key of the table, --exec-path, --git-dir)
 * mark cmd.  Returns the index of the subcommand's word (n: none). */
static size_t git_options(struct split *sp, struct shell_cmd *cmd, size_t i)
{
	static const char *const with_arg[] = { "--git-dir",      "--work-tree",
						"--namespace",    "--super-prefix",
						"--list-cmds",    "--attr-source" };
	const struct shell_word **cfg = NULL;
	size_t ncfg = 0, ccap = 0, n = cmd->nwords, j;
	for (j = i + 1; j < n; j++) {
		const char *w = cmd->words[j]->lit;
		if (!w || w[0] != '-')
			break;
		if ((!strcmp(w, "-C") || !strcmp(w, "-c")) && j + 1 < n) {
			const struct shell_word *v = cmd->words[++j];
			if (w[1] == 'C') {
				cmd->cwd = sp_cwd_join(sp, cmd->cwd, v, false);
				continue;
			}
			AVEC_PUSH(sp->a, cfg, ncfg, ccap, v);
			if (!v->lit || git_key_execs(v->lit))
				cmd->flags |= SHELL_CMD_GIT_EXEC;
			continue;
		}
		/* --git-dir=DIR: a repository whose config may name programs git
		 * runs (core.fsmonitor), one the agent may have written. */
		if (sp_starts_with(w, "--exec-path=") || !strcmp(w, "--git-dir") ||
		    sp_starts_with(w, "--git-dir=")) {
			if (!strcmp(w, "--git-dir"))
				j++;
			cmd->flags |= SHELL_CMD_GIT_EXEC;
			continue;
		}
		if (sp_starts_with(w, "--config-env") && (w[12] == '=' || (!w[12] && j + 1 < n))) {
			/* --config-env=NAME=ENVVAR: the value comes from the
			 * environment, the name says what it does. */
			const struct shell_word *v = w[12] ? cmd->words[j] : cmd->words[++j];
			const char *setting = w[12] ? w + 13 : v->lit;
			AVEC_PUSH(sp->a, cfg, ncfg, ccap, v);
			if (!setting || git_key_execs(setting))
				cmd->flags |= SHELL_CMD_GIT_EXEC;
			continue;
		}
		for (size_t k = 0; k < ARRAY_SIZE(with_arg); k++)
			if (!strcmp(w, with_arg[k]))
				j++;
	}
	cmd->git_config = cfg;
	cmd->ngit_config = ncfg;
	return j;
}

/* git rebase -x CMD / --exec CMD (subcommand at j): run with sh -c. */
static void git_rebase(struct split *sp, struct shell_cmd *cmd, const struct ctx *c, size_t j,
		       struct wlist *wl)
{
	const char *cw = cmd->cwd;
	size_t n = cmd->nwords;
	for (size_t k = j + 1; k < n; k++) {
		const char *w = cmd->words[k]->lit, *text;
		const struct shell_word *v = cmd->words[k];
		if (!w)
			continue;
		if ((!strcmp(w, "-x") || !strcmp(w, "--exec")) && k + 1 < n) {
			v = cmd->words[++k];
			text = v->lit;
		} else if (sp_starts_with(w, "--exec=")) {
			text = w + 7;
		} else if (sp_starts_with(w, "-x")) {
			text = w + 2;
		} else {
			continue;
		}
		if (!text)
			sp_set_opaque(cmd, "the command of git rebase --exec is not static");
		else
			run_string(sp, cmd, c, text, v->start, v->end, wl, false, &cw);
	}
}

/* git submodule [OPTIONS] foreach [OPTIONS] CMD (subcommand at j): CMD
 * runs with sh -c in each submodule, a directory not known here. */
static void git_submodule(struct split *sp, struct shell_cmd *cmd, const struct ctx *c, size_t j,
			  struct wlist *wl)
{
	size_t n = cmd->nwords, k = j + 1;
	while (k < n && cmd->words[k]->lit && cmd->words[k]->lit[0] == '-')
		k++;
	if (k < n && cmd->words[k]->lit && !strcmp(cmd->words[k]->lit, "foreach")) {
		for (k++; k < n && cmd->words[k]->lit && cmd->words[k]->lit[0] == '-'; k++)
			;
		const char *none = NULL;
		string_words(sp, cmd, c, k, n, wl, false, &none);
	}
}

/* git config KEY VALUE (subcommand at j; in any repository, git -C DIR
 * config): does it set a key that makes git run a program?  That program
 * runs later, outside anything that bounds this command. */
static bool git_config_execs(const struct shell_cmd *cmd, size_t j)
{
	static const char *const opt_arg[] = { "-f", "--file", "--blob", "--type",
					       "--default", "--comment", "--value" };
	const struct shell_word *key = NULL;
	bool value = false;
	for (size_t k = j + 1; k < cmd->nwords; k++) {
		const char *w = cmd->words[k]->lit;
		if (w && w[0] == '-' && w[1]) {
			for (size_t o = 0; o < ARRAY_SIZE(opt_arg); o++)
				if (!strcmp(w, opt_arg[o]))
					k++;
			value = value || !strcmp(w, "--add") || !strcmp(w, "--replace-all");
			continue;
		}
		if (!key && w && (!strcmp(w, "set") || !strcmp(w, "get") || !strcmp(w, "list")))
			continue;
		if (key) {
			value = true;
			break;
		}
		key = cmd->words[k];
	}
	return key && value && (!key->lit || git_key_execs(key->lit));
}

/* git [OPTIONS] SUBCOMMAND ...: the commands its subcommands run
 * (rebase --exec, submodule foreach, bisect run), and the settings that
 * make it run a program. */
static void handle_git(struct split *sp, struct shell_cmd *cmd, const struct ctx *c, size_t i,
		       struct wlist *wl)
{
	size_t n = cmd->nwords, j = git_options(sp, cmd, i);
	if (j >= n || !cmd->words[j]->lit)
		return;
	const char *sub = cmd->words[j]->lit;
	sp_wlist_add(sp, wl, cmd, i, j);
	if (!strcmp(sub, "rebase")) {
		git_rebase(sp, cmd, c, j, wl);
	} else if (!strcmp(sub, "submodule")) {
		git_submodule(sp, cmd, c, j, wl);
	} else if (!strcmp(sub, "config")) {
		if (git_config_execs(cmd, j))
			cmd->flags |= SHELL_CMD_GIT_EXEC;
	} else if (!strcmp(sub, "bisect") && j + 1 < n && cmd->words[j + 1]->lit &&
		   !strcmp(cmd->words[j + 1]->lit, "run") && j + 2 < n) {
		emit_words(sp, cmd, c, cmd->words + j + 2, n - j - 2, wl, 0, cmd->cwd);
	}
}

static void handle_find(struct split *sp, struct shell_cmd *cmd, const struct ctx *c, size_t i,
			struct wlist *wl)
{
	static const char *const execs[] = { "-exec", "-execdir", "-ok", "-okdir" };
	size_t n = cmd->nwords;
	for (size_t j = i + 1; j < n; j++) {
		const char *w = cmd->words[j]->lit;
		if (!w)
			continue;
		if (!strcmp(w, "-delete"))
			cmd->flags |= SHELL_CMD_FIND_DELETE;
		size_t e = 0;
		while (e < ARRAY_SIZE(execs) && strcmp(w, execs[e]) != 0)
			e++;
		if (e == ARRAY_SIZE(execs))
			continue;
		size_t k = j + 1;
		for (; k < n; k++) {
			const char *t = cmd->words[k]->lit;
			if (t && (!strcmp(t, ";") || (!strcmp(t, "+") && k > j + 1 &&
						      cmd->words[k - 1]->lit &&
						      !strcmp(cmd->words[k - 1]->lit, "{}"))))
				break;
		}
		struct wlist fl;
		sp_wlist_init(sp, &fl, wl->v, wl->n);
		sp_wlist_add(sp, &fl, cmd, i, j + 1);
		emit_words(sp, cmd, c, cmd->words + j + 1, k - j - 1, &fl,
			   SHELL_CMD_FIND_EXEC | SHELL_CMD_EXTRA_ARGS, e % 2 ? NULL : cmd->cwd);
		j = k;
	}
}

static void emit_words(struct split *sp, const struct shell_cmd *parent, const struct ctx *c,
		       const struct shell_word *const *words, size_t n, const struct wlist *wl,
		       unsigned flags, const char *cwd)
{
	if (!n)
		return;
	struct ctx in = *c;
	in.wrappers = wl->v;
	in.nwrappers = wl->n;
	in.depth++;
	struct shell_cmd *cmd = sp_new_cmd(sp, &in, parent->start, parent->end, cwd);
	cmd->flags |= flags;
	cmd->words = words;
	cmd->nwords = n;
	if (in.depth > SHELL_MAX_DEPTH) {
		sp_set_opaque(cmd, "wrappers nested too deeply");
		return;
	}
	const char *none = cwd;
	sp_resolve(sp, cmd, &in, &none);
}

/* cd, pushd and popd in the current shell. */
static void track_cd(struct split *sp, const struct shell_cmd *cmd, const char **cwd)
{
	const char *p = cmd->prog;
	bool pushd = !strcmp(p, "pushd"), logical = true, dashdash = false;
	size_t i = cmd->argi + 1, n = cmd->nwords;
	if (!strcmp(p, "popd")) {
		*cwd = NULL;
		return;
	}
	if (strcmp(p, "cd") != 0 && !pushd)
		return;
	for (; i < n; i++) { /* -L -P -e -@ */
		const char *w = cmd->words[i]->lit;
		if (!w || w[0] != '-' || !w[1])
			break;
		if (!strcmp(w, "--")) {
			dashdash = true;
			i++;
			break;
		}
		if (strspn(w + 1, "LPe@") != strlen(w + 1))
			break;
		if (strchr(w, 'P'))
			logical = false;
		else if (strchr(w, 'L'))
			logical = true;
	}
	const char *w = i < n ? cmd->words[i]->lit : NULL;
	if (i == n)
		*cwd = pushd ? NULL : "~";
	else if (i + 1 < n || (w && !strcmp(w, "-")) ||
		 (w && !dashdash && (w[0] == '-' || (pushd && w[0] == '+'))))
		*cwd = NULL;
	else
		*cwd = sp_cwd_join(sp, *cwd, cmd->words[i], logical);
}

bool sp_unquoted_expansion(const struct shell_cmd *cmd)
{
	for (size_t i = cmd->argi; i < cmd->nwords; i++)
		for (size_t k = 0; k < cmd->words[i]->nparts; k++) {
			const struct shell_part *p = &cmd->words[i]->parts[k];
			if (!p->quoted && (p->kind == SHELL_PART_PARAM || p->kind == SHELL_PART_CMDSUB ||
					   p->kind == SHELL_PART_ARITH))
				return true;
		}
	return false;
}

/* A command string given to su -c or flock -c: the word after the option. */
static void option_string(struct split *sp, struct shell_cmd *cmd, const struct ctx *c,
			  size_t k, const struct wlist *wl)
{
	const char *cw = cmd->cwd;
	if (k >= cmd->nwords)
		return;
	if (!cmd->words[k]->lit)
		sp_set_opaque(cmd, "the command string is not static");
	else
		run_string(sp, cmd, c, cmd->words[k]->lit, cmd->words[k]->start,
			   cmd->words[k]->end, wl, false, &cw);
}

static bool word_is(const struct shell_word *w, const char *s)
{
	return w->lit && !strcmp(w->lit, s);
}

/* The tmux commands that run a shell command, and the flags of each
 * that take an argument. */
static const struct {
	const char *names, *args;
} tmux_subs[] = {
	{ " new-session new ", "cefFnstxy" },
	{ " new-window neww ", "ceFnt" },
	{ " split-window splitw ", "celFt" },
	{ " run-shell run ", "cdt" },
};

/* tmux's own options, from the word after tmux (at i); *k: the word
 * after them.  True when that settled the command: -c CMD run, or an
 * option this reader does not know (opaque). */
static bool tmux_server_opts(struct split *sp, struct shell_cmd *cmd, const struct ctx *c,
			     size_t i, struct wlist *wl, size_t *k)
{
	size_t n = cmd->nwords;
	for (*k = i + 1; *k < n; (*k)++) {
		const char *w = cmd->words[*k]->lit;
		if (!w || w[0] != '-' || !w[1])
			return false;
		if (!strcmp(w, "-c")) {
			sp_wlist_add(sp, wl, cmd, i, *k + 1);
			option_string(sp, cmd, c, *k + 1, wl);
			if (*k + 1 >= n)
				sp_set_opaque(cmd, "tmux -c without a command");
			return true;
		}
		if (strchr("fLST", w[1]) && !w[2]) {
			(*k)++;
		} else if (strspn(w + 1, "2CDlNuVv") != strlen(w + 1)) {
			sp_set_opaque(cmd, sp_arena_printf(sp->a, "unknown option '%s' of tmux", w));
			return true;
		}
	}
	return false;
}

/* The options of tmux command sub (tmux_subs[t]) from word j: *j, the
 * word after them, and *dir, where its shell command starts (-c DIR).
 * False, opaque, for an option this reader does not know. */
static bool tmux_sub_opts(struct split *sp, struct shell_cmd *cmd, size_t t, const char *sub,
			  size_t *j, const char **dir)
{
	size_t n = cmd->nwords;
	for (; *j < n; (*j)++) {
		const char *w = cmd->words[*j]->lit;
		if (!w || w[0] != '-' || !w[1])
			return true;
		if (!strcmp(w, "--")) {
			(*j)++;
			return true;
		}
		if (strchr(tmux_subs[t].args, w[1]) && !w[2]) {
			const char *v = *j + 1 < n ? cmd->words[*j + 1]->lit : NULL;
			if (w[1] == 'c') /* -c DIR: where the command starts */
				*dir = v && v[0] == '/' ? v : NULL;
			(*j)++;
		} else if (strspn(w + 1, "AdDEPXabkSbfhIvZC") != strlen(w + 1)) {
			sp_set_opaque(cmd, sp_arena_printf(sp->a, "unknown option '%s' of tmux %s", w, sub));
			return false;
		}
	}
	return true;
}

/* tmux [FLAGS] [-c CMD] COMMAND [FLAGS] [SHELL-COMMAND]: -c runs CMD with
 * the shell; new-session, new-window, split-window and run-shell run their
 * shell command, one word as a shell string, more as a command.  A new
 * session starts in this directory (or -c DIR); the others in a
 * directory known only to the server.  Another tmux command, a chain
 * (`\;`) or an option this reader does not know is opaque. */
static void handle_tmux(struct split *sp, struct shell_cmd *cmd, const struct ctx *c, size_t i,
			struct wlist *wl)
{
	size_t n = cmd->nwords, k;
	if (tmux_server_opts(sp, cmd, c, i, wl, &k))
		return;
	const char *sub = k < n ? cmd->words[k]->lit : NULL;
	size_t t = 0;
	while (sub && t < ARRAY_SIZE(tmux_subs) && !sp_in_list(tmux_subs[t].names, sub, strlen(sub)))
		t++;
	if (!sub || t == ARRAY_SIZE(tmux_subs)) {
		sp_set_opaque(cmd, "tmux runs a command this reader does not follow");
		return;
	}
	const char *dir = t == 0 ? cmd->cwd : NULL; /* new-session: the client's directory */
	size_t j = k + 1;
	if (!tmux_sub_opts(sp, cmd, t, sub, &j, &dir))
		return;
	for (size_t m = j; m < n; m++)
		if (word_is(cmd->words[m], ";")) {
			sp_set_opaque(cmd, "tmux runs a chain of commands");
			return;
		}
	if (j >= n) {
		sp_set_opaque(cmd, "tmux starts a shell");
		return;
	}
	sp_wlist_add(sp, wl, cmd, i, j);
	if (j + 1 < n) {
		emit_words(sp, cmd, c, cmd->words + j, n - j, wl, 0, dir);
		return;
	}
	const char *cw = dir;
	if (!cmd->words[j]->lit)
		sp_set_opaque(cmd, "the command string is not static");
	else
		run_string(sp, cmd, c, cmd->words[j]->lit, cmd->words[j]->start, cmd->words[j]->end,
			   wl, false, &cw);
}

/* pipx run PKG, pnpm dlx PKG, uv tool run PKG: a subcommand that runs a
 * downloaded program is opaque.  uv run [OPTIONS] CMD...: CMD runs as a
 * wrapper's would; an option this table does not know makes it opaque.
 * Returns whether CMD is unwrapped further (*i moved to it). */
static bool handle_runner2(struct split *sp, struct shell_cmd *cmd, const struct wrapper_spec *ws,
			   size_t *i, struct wlist *wl)
{
	size_t n = cmd->nwords;
	const char *sub = *i + 1 < n ? cmd->words[*i + 1]->lit : NULL;
	if (sub && sp_in_list(ws->sub, sub, strlen(sub))) {
		cmd->flags |= SHELL_CMD_DOWNLOADS;
		sp_set_opaque(cmd, sp_arena_printf(sp->a, "%s %s runs a downloaded program",
					     ws->name, sub));
		return false;
	}
	if (!sub || !sp_in_list(ws->local, sub, strlen(sub)))
		return false;
	size_t k = *i + 2;
	while (k < n && cmd->words[k]->lit && cmd->words[k]->lit[0] == '-') {
		const char *w = cmd->words[k]->lit;
		if (!strcmp(w, "--")) {
			k++;
			break;
		}
		bool arg = (w[1] != '-' && w[1] && !w[2] && ws->args && strchr(ws->args, w[1])) ||
			   sp_in_list(ws->long_args, w, strlen(w));
		if (!arg) {
			sp_set_opaque(cmd, sp_arena_printf(sp->a, "unknown option '%s' of %s %s", w,
						     ws->name, sub));
			return false;
		}
		k += 2;
	}
	if (k >= n || !cmd->words[k]->lit)
		return false;
	sp_wlist_add(sp, wl, cmd, *i, k);
	*i = k;
	return true;
}

/* eval WORDS: their text runs in the shell eval runs in, whose
 * directory is *cwd; here: that is the current shell, whose directory
 * the text may move (else it moves a copy). */
static void handle_eval(struct split *sp, struct shell_cmd *cmd, const struct ctx *c, size_t i,
			struct wlist *wl, const char **cwd, bool here)
{
	const char *cw = *cwd;
	sp_wlist_add(sp, wl, cmd, i, i + 1);
	string_words(sp, cmd, c, i + 1, cmd->nwords, wl, true, here ? cwd : &cw);
	wl->n--;
}

/* trap [--] ACTION SIGNAL...: ACTION runs later, in this shell, from a
 * directory not known here. */
static void handle_trap(struct split *sp, struct shell_cmd *cmd, const struct ctx *c, size_t i,
			struct wlist *wl)
{
	size_t n = cmd->nwords;
	size_t k = i + 1 < n && word_is(cmd->words[i + 1], "--") ? i + 2 : i + 1;
	const char *none = NULL;
	if (n - k >= 2 && !word_is(cmd->words[k], "-")) {
		sp_wlist_add(sp, wl, cmd, i, i + 1);
		string_words(sp, cmd, c, k, k + 1, wl, false, &none);
		wl->n--;
	}
}

/* su ... -c CMD, script -c CMD: CMD is a shell string; without -c a
 * shell starts. */
static void handle_su(struct split *sp, struct shell_cmd *cmd, const struct ctx *c, size_t i,
		      struct wlist *wl, const struct wrapper_spec *ws)
{
	size_t n = cmd->nwords, k = i + 1;
	while (k < n && !word_is(cmd->words[k], "-c") && !word_is(cmd->words[k], "--command"))
		k++;
	sp_wlist_add(sp, wl, cmd, i, k < n ? k + 1 : n);
	if (k + 1 >= n)
		sp_set_opaque(cmd, sp_arena_printf(sp->a, "%s without -c starts a shell", ws->name));
	else
		option_string(sp, cmd, c, k + 1, wl);
	wl->n--;
}

/* Does watch, whose options are words[i+1..next), run its arguments as
 * a command (-x, --exec) rather than with sh -c? */
static bool watch_execs(const struct shell_cmd *cmd, size_t i, size_t next)
{
	bool exec = false;
	for (size_t k = i + 1; k < next; k++) {
		const char *w = cmd->words[k]->lit;
		exec = exec || (w && w[0] == '-' && w[1] != '-' && strchr(w, 'x')) ||
		       (w && !strcmp(w, "--exec"));
	}
	return exec;
}

/* A wrapper read by its options (env, nice, sudo, xargs, watch, flock,
 * ...): where the command it runs starts, and the directory it runs in.
 * Returns whether that command is unwrapped further (*i moved to it). */
static bool handle_options(struct split *sp, struct shell_cmd *cmd, const struct ctx *c,
			   const struct wrapper_spec *ws, size_t *i, struct wlist *wl)
{
	size_t n = cmd->nwords;
	struct opts o;
	sp_parse_opts(ws, cmd, *i, &o);
	if (o.bad) {
		sp_set_opaque(cmd, sp_arena_printf(sp->a, "unknown option '%s' of %s", o.bad,
					     ws->name));
		return false;
	}
	if (o.split) {
		sp_set_opaque(cmd, "env -S splits a string into a command");
		return false;
	}
	if (o.shell && o.next >= n && !o.stop)
		sp_set_opaque(cmd, sp_arena_printf(sp->a, "%s starts a shell", cmd->words[*i]->lit));
	if (ws->kind == W_XARGS && !o.stop && o.next >= n) {
		/* xargs without a command runs echo with the words it reads. */
		struct shell_cmd *echo = sp_emit_text(sp, c, cmd->cwd, "echo", cmd->start, cmd->end);
		echo->prog = "echo";
		echo->flags |= SHELL_CMD_EXTRA_ARGS;
	}
	if (o.stop || o.next >= n)
		return false;
	if (ws->kind == W_WATCH && !watch_execs(cmd, *i, o.next)) {
		/* watch runs its arguments with sh -c, unless -x. */
		const char *cw = cmd->cwd;
		sp_wlist_add(sp, wl, cmd, *i, o.next);
		string_words(sp, cmd, c, o.next, n, wl, false, &cw);
		wl->n--;
		return false;
	}
	if (ws->kind == W_FLOCK && (word_is(cmd->words[o.next], "-c") ||
				    word_is(cmd->words[o.next], "--command"))) {
		sp_wlist_add(sp, wl, cmd, *i, o.next + 1);
		option_string(sp, cmd, c, o.next + 1, wl);
		wl->n--;
		return false;
	}
	if (o.chdir && o.dirword)
		cmd->cwd = sp_cwd_join(sp, cmd->cwd, o.dirword, false);
	else if (o.chdir)
		cmd->cwd = o.dir ? sp_cwd_add(sp, cmd->cwd, o.dir, false, false) : NULL;
	if (ws->lost_cwd)
		cmd->cwd = NULL;
	if (ws->kind == W_XARGS)
		cmd->flags |= SHELL_CMD_EXTRA_ARGS;
	sp_wlist_add(sp, wl, cmd, *i, o.next);
	*i = o.next;
	return true;
}

/* The wrapper ws at words[*i], by its kind.  here: whether it runs in
 * the current shell, whose directory is *cwd.  Returns whether the
 * command it runs is unwrapped further (*i moved to it); false: cmd's
 * own command starts at *i, or it is dealt with (nested commands,
 * opaque). */
static bool resolve_wrapper(struct split *sp, struct shell_cmd *cmd, const struct ctx *c,
			    const struct wrapper_spec *ws, size_t *i, struct wlist *wl,
			    const char **cwd, bool here)
{
	size_t keep = wl->n;
	switch (ws->kind) {
	case W_FIND:
		handle_find(sp, cmd, c, *i, wl);
		return false;
	case W_GIT:
	case W_SHELL:
	case W_TMUX:
		/* The nested commands have these as a wrapper, cmd not. */
		if (ws->kind == W_GIT)
			handle_git(sp, cmd, c, *i, wl);
		else if (ws->kind == W_SHELL)
			handle_shell(sp, cmd, c, *i, wl);
		else
			handle_tmux(sp, cmd, c, *i, wl);
		wl->n = keep;
		return false;
	case W_FOREIGN:
		sp_set_opaque(cmd, sp_arena_printf(sp->a, "%s commands are not analysed", ws->name));
		return false;
	case W_RUNNER:
		cmd->flags |= SHELL_CMD_DOWNLOADS;
		sp_set_opaque(cmd, sp_arena_printf(sp->a, "%s runs a downloaded program", ws->name));
		return false;
	case W_RUNNER2:
		return handle_runner2(sp, cmd, ws, i, wl);
	case W_EVAL:
		handle_eval(sp, cmd, c, *i, wl, cwd, here);
		return false;
	case W_TRAP:
		handle_trap(sp, cmd, c, *i, wl);
		return false;
	case W_SOURCE:
		if (*i + 1 < cmd->nwords && !cmd->words[*i + 1]->lit)
			sp_set_opaque(cmd, "the sourced file name is not static");
		if (here)
			*cwd = NULL;
		return false;
	case W_SU:
		handle_su(sp, cmd, c, *i, wl, ws);
		return false;
	default:
		return handle_options(sp, cmd, c, ws, i, wl);
	}
}

/* Unwrap the wrappers of cmd and deal with what it runs.  *cwd is the
 * directory of the shell cmd runs in, moved by cd, eval and the like. */
void sp_resolve(struct split *sp, struct shell_cmd *cmd, const struct ctx *c,
		    const char **cwd)
{
	struct wlist wl;
	bool in_shell = !(cmd->flags & SHELL_CMD_FIND_EXEC); /* a builtin would run here */
	size_t i = 0, n = cmd->nwords;
	sp_wlist_init(sp, &wl, c->wrappers, c->nwrappers);
	while (i < n) {
		const char *name = cmd->words[i]->lit;
		if (!name) {
			sp_set_opaque(cmd, "the command name is not a static word");
			break;
		}
		const struct wrapper_spec *ws = sp_find_spec(name);
		if (!ws)
			break;
		if (wl.n >= MAX_WRAPPERS) {
			sp_set_opaque(cmd, "too many wrappers");
			break;
		}
		bool here = in_shell;
		if (ws->kind != W_COMMAND && ws->kind != W_BUILTIN)
			in_shell = false;
		if (!resolve_wrapper(sp, cmd, c, ws, &i, &wl, cwd, here))
			break;
	}
	cmd->argi = i < n ? i : n;
	cmd->prog = i < n ? cmd->words[i]->lit : NULL;
	cmd->wrappers = wl.v;
	cmd->nwrappers = wl.n;
	if (!in_shell)
		return;
	/* What the command does to the shell's directory. */
	if (cmd->flags & SHELL_CMD_OPAQUE) {
		*cwd = NULL;
	} else if (cmd->prog && !strchr(cmd->prog, '/')) {
		track_cd(sp, cmd, cwd);
		if (strmap_get(&sp->cdfuncs, cmd->prog, strlen(cmd->prog)))
			*cwd = NULL;
	}
}

