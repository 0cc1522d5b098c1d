/* The shell splitter: every simple command a parsed script can run, with
 * wrappers unwrapped, shell strings parsed again and the working directory
 * followed through `cd`. */
#include "config.h"

#include "shell_int.h"
#include "base/strmap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CWD_MAX 4096            /* longest directory followed */
#define CWD_BUDGET (4 << 20)    /* bytes of directories per script */
#define MAX_WRAPPERS 16

struct split {
	struct arena *a;
	struct shell_script_cmds *out;
	struct strmap cdfuncs; /* functions whose body changes directory */
	bool cdpath;           /* CDPATH was assigned: relative cd is unknown */
	bool ifs;              /* IFS was assigned in the shell */
	size_t pipes;
	size_t cwd_bytes;
	int strings; /* shell strings being walked */
};

/* What a command inherits from where it sits. */
struct ctx {
	unsigned flags;
	const struct shell_wrapper *wrappers;
	size_t nwrappers;
	size_t pipeline, pipe_pos;
	int depth;
};

static void walk(struct split *sp, const struct shell_node *n, const struct ctx *c,
		 const char **cwd);

/* ---- directories -------------------------------------------------------------- */

static const char *arena_printf(struct arena *a, const char *fmt, ...) PRINTF_LIKE(2, 3);

static const char *arena_printf(struct arena *a, const char *fmt, ...)
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
 * unknown.  logical: resolve ".." by text, as cd does. */
static const char *cwd_add(struct split *sp, const char *base, const char *dir, bool home,
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
static const char *cwd_join(struct split *sp, const char *base, const struct shell_word *w,
			    bool logical)
{
	struct strbuf sb;
	sb_init(&sb);
	unsigned m = shell_word_pattern(w, &sb);
	const char *res = m & SHELL_PAT_UNKNOWN
				  ? NULL
				  : cwd_add(sp, base, sb.buf, m & SHELL_PAT_HOME, logical);
	sb_free(&sb);
	return res;
}

/* ---- commands ------------------------------------------------------------------- */

static struct shell_cmd *new_cmd(struct split *sp, const struct ctx *c, size_t start, size_t end,
				 const char *cwd)
{
	struct shell_cmd *cmd = arena_alloc(sp->a, sizeof(*cmd));
	cmd->flags = c->flags;
	cmd->wrappers = c->wrappers;
	cmd->nwrappers = c->nwrappers;
	cmd->pipeline = c->pipeline;
	cmd->pipe_pos = c->pipe_pos;
	cmd->start = start;
	cmd->end = end;
	cmd->cwd = cwd;
	AVEC_PUSH(sp->a, sp->out->cmds, sp->out->n, sp->out->cap, cmd);
	return cmd;
}

static void set_opaque(struct shell_cmd *cmd, const char *reason)
{
	if (!(cmd->flags & SHELL_CMD_OPAQUE)) {
		cmd->flags |= SHELL_CMD_OPAQUE;
		cmd->reason = reason;
	}
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void walk_parts(struct split *sp, const struct shell_part *parts, size_t n,
		       const struct ctx *c, const char *cwd)
{
	for (size_t i = 0; i < n; i++) {
		const struct shell_part *part = &parts[i];
		if (part->sub) {
			struct ctx in = *c;
			const char *cw = cwd;
			in.flags |= SHELL_CMD_IN_SUBST;
			in.pipeline = in.pipe_pos = 0;
			in.depth++;
			walk(sp, part->sub, &in, &cw);
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
			hit = hit || starts_with(sb.buf, devs[k]) ||
			      ((m & SHELL_PAT_UNKNOWN) && sb.len > 5 && starts_with(devs[k], sb.buf));
		sb_free(&sb);
		if (hit)
			return true;
	}
	return false;
}

/* ---- wrappers --------------------------------------------------------------------- */

enum wkind {
	W_PLAIN,   /* options, `operands` operands, then the command */
	W_ENV,     /* also NAME=VALUE words, and "-" */
	W_SUDO,    /* also NAME=VALUE words */
	W_NICE,    /* also -N */
	W_COMMAND, /* command [-p]: still the shell's own command lookup */
	W_BUILTIN,
	W_XARGS,
	W_FIND,
	W_GIT,
	W_SHELL,
	W_FOREIGN, /* a shell whose language is not analysed */
	W_SU,      /* su -c CMD, script -c CMD: CMD is a shell string */
	W_WATCH,
	W_FLOCK,
	W_RUNNER,  /* npx PKG: runs a fetched program */
	W_RUNNER2, /* pipx run PKG, pnpm dlx PKG, ... */
	W_EVAL,
	W_SOURCE,
	W_TRAP,    /* trap ACTION SIGNAL...: ACTION is run later */
	W_TMUX,    /* tmux new-session CMD, tmux -c CMD: CMD is a shell string */
};

struct wrapper_spec {
	const char *name;
	enum wkind kind;
	const char *flags;  /* short options without an argument */
	const char *args;   /* short options with one */
	const char *optarg; /* short options with an optional attached one */
	const char *stop;   /* short options after which no command runs */
	/* Long options, each surrounded by spaces. */
	const char *long_args, *long_flags, *long_stop;
	char chdir; /* the option that sets the directory, and its long form */
	const char *chdir_long;
	unsigned char operands;
	bool builtin;  /* a shell builtin: matched only without a '/' */
	bool lost_cwd; /* the command's directory becomes unknown */
	const char *sub; /* W_RUNNER2: the subcommands, space separated */
	const char *local; /* W_RUNNER2: subcommands that run a local command (uv run CMD) */
	const char *shellopt; /* options that start a shell when no command follows */
};

/* Sorted by name (strcmp order): find_spec() searches it by halves. */
static const struct wrapper_spec specs[] = {
	{ .name = ".", .kind = W_SOURCE, .builtin = true },
	{ .name = "ash", .kind = W_SHELL },
	{ .name = "bash", .kind = W_SHELL },
	{ .name = "builtin", .kind = W_BUILTIN, .builtin = true },
	{ .name = "bun", .kind = W_RUNNER2, .sub = " x " },
	{ .name = "bundle", .kind = W_RUNNER2, .local = " exec " },
	{ .name = "bunx", .kind = W_RUNNER },
	{ .name = "busybox", .kind = W_PLAIN,
	  .long_stop = " --list --list-full --help --install " },
	{ .name = "chroot", .kind = W_PLAIN, .long_args = " --userspec --groups ",
	  .long_flags = " --skip-chdir ", .operands = 1, .lost_cwd = true },
	{ .name = "command", .kind = W_COMMAND, .flags = "pvV", .stop = "vV", .builtin = true },
	{ .name = "conda", .kind = W_RUNNER2, .local = " run ", .args = "np",
	  .long_args = " --name --prefix --cwd " },
	{ .name = "coproc", .kind = W_PLAIN, .builtin = true },
	{ .name = "csh", .kind = W_FOREIGN },
	{ .name = "dash", .kind = W_SHELL },
	{ .name = "doas", .kind = W_SUDO, .flags = "Lns", .args = "uC", .stop = "LC",
	  .shellopt = "s" },
	{ .name = "env", .kind = W_ENV, .flags = "i0v", .args = "uCS",
	  .long_args = " --unset --chdir --split-string ",
	  .long_flags = " --ignore-environment --null --debug --block-signal --default-signal "
			"--ignore-signal ",
	  .long_stop = " --list-signal-handling --help --version ", .chdir = 'C',
	  .chdir_long = "--chdir" },
	{ .name = "eval", .kind = W_EVAL, .builtin = true },
	{ .name = "exec", .kind = W_PLAIN, .flags = "cl", .args = "a", .builtin = true },
	{ .name = "fakeroot", .kind = W_PLAIN, .flags = "uhv", .args = "lisb",
	  .long_args = " --lib --faked ",
	  .long_flags = " --unknown-is-real " },
	{ .name = "find", .kind = W_FIND },
	{ .name = "fish", .kind = W_FOREIGN },
	{ .name = "flock", .kind = W_FLOCK, .flags = "sexunoF", .args = "Ew",
	  .long_args = " --conflict-exit-code --timeout --wait ",
	  .long_flags = " --shared --exclusive --unlock --nonblock --nb --close --no-fork "
			"--verbose ",
	  .operands = 1 },
	{ .name = "git", .kind = W_GIT },
	{ .name = "ionice", .kind = W_PLAIN, .flags = "t", .args = "cnpPu", .stop = "pPu",
	  .long_args = " --class --classdata --pid --pgid --uid ", .long_flags = " --ignore " },
	{ .name = "ksh", .kind = W_SHELL },
	{ .name = "mksh", .kind = W_SHELL },
	{ .name = "nice", .kind = W_NICE, .args = "n", .long_args = " --adjustment " },
	{ .name = "nohup", .kind = W_PLAIN },
	{ .name = "npm", .kind = W_RUNNER2, .sub = " exec x " },
	{ .name = "npx", .kind = W_RUNNER },
	{ .name = "nu", .kind = W_FOREIGN },
	{ .name = "pdm", .kind = W_RUNNER2, .local = " run " },
	{ .name = "pipenv", .kind = W_RUNNER2, .local = " run " },
	{ .name = "pipx", .kind = W_RUNNER2, .sub = " run " },
	{ .name = "pnpm", .kind = W_RUNNER2, .sub = " dlx ", .local = " exec " },
	{ .name = "pnpx", .kind = W_RUNNER },
	{ .name = "poetry", .kind = W_RUNNER2, .local = " run " },
	{ .name = "posh", .kind = W_SHELL },
	{ .name = "pwsh", .kind = W_FOREIGN },
	{ .name = "script", .kind = W_SU }, /* script -c CMD [FILE] */
	{ .name = "setsid", .kind = W_PLAIN, .flags = "cfw",
	  .long_flags = " --ctty --fork --wait " },
	{ .name = "sh", .kind = W_SHELL },
	{ .name = "source", .kind = W_SOURCE, .builtin = true },
	{ .name = "stdbuf", .kind = W_PLAIN, .args = "ioe",
	  .long_args = " --input --output --error " },
	{ .name = "su", .kind = W_SU },
	{ .name = "sudo", .kind = W_SUDO, .flags = "AbEeHiKklnPSsVvBN", .args = "ugCDhprtUTc",
	  .stop = "eklLvVK",
	  .long_args = " --user --group --close-from --chdir --host --prompt --role --type "
		       "--other-user --command-timeout --login-class ",
	  .long_flags = " --askpass --background --preserve-env --edit --set-home --login "
			"--remove-timestamp --reset-timestamp --non-interactive --preserve-groups "
			"--stdin --shell --bell ",
	  .long_stop = " --list --validate --version --help --edit ", .chdir = 'D',
	  .chdir_long = "--chdir", .shellopt = "si" },
	{ .name = "taskset", .kind = W_PLAIN, .flags = "ac", .stop = "p",
	  .long_flags = " --all-tasks --cpu-list ", .operands = 1 },
	{ .name = "tcsh", .kind = W_FOREIGN },
	{ .name = "time", .kind = W_PLAIN, .flags = "apvq", .args = "fo",
	  .long_args = " --format --output ",
	  .long_flags = " --append --portability --verbose --quiet " },
	{ .name = "timeout", .kind = W_PLAIN, .flags = "v", .args = "sk",
	  .long_args = " --signal --kill-after ",
	  .long_flags = " --preserve-status --foreground --verbose ", .operands = 1 },
	{ .name = "tmux", .kind = W_TMUX },
	{ .name = "trap", .kind = W_TRAP, .builtin = true },
	{ .name = "unbuffer", .kind = W_PLAIN, .flags = "p" },
	{ .name = "uv", .kind = W_RUNNER2, .local = " run " },
	{ .name = "uvx", .kind = W_RUNNER },
	{ .name = "watch", .kind = W_WATCH, .flags = "ptbegcxwrC", .args = "n", .optarg = "d",
	  .long_args = " --interval ",
	  .long_flags = " --differences --precise --no-title --beep --errexit --chgexit --color "
			"--exec --no-wrap " },
	{ .name = "xargs", .kind = W_XARGS, .flags = "0rtpxo", .args = "adEILnPs", .optarg = "eil",
	  .long_args = " --arg-file --delimiter --max-args --max-procs --max-chars "
		       "--process-slot-var ",
	  .long_flags = " --null --no-run-if-empty --verbose --interactive --exit --open-tty "
			"--eof --replace --max-lines ",
	  .long_stop = " --show-limits --help --version " },
	{ .name = "yarn", .kind = W_RUNNER2, .sub = " dlx ", .local = " exec " },
	{ .name = "yash", .kind = W_SHELL },
	{ .name = "zsh", .kind = W_SHELL },
};

static int cmp_spec(const void *key, const void *elem)
{
	return strcmp(key, ((const struct wrapper_spec *)elem)->name);
}

static const struct wrapper_spec *find_spec(const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	const struct wrapper_spec *ws =
		bsearch(base, specs, ARRAY_SIZE(specs), sizeof(specs[0]), cmp_spec);
	return ws && !(ws->builtin && base != name) ? ws : NULL;
}

/* s as " word " appears in list. */
static bool in_list(const char *list, const char *s, size_t n)
{
	if (!list)
		return false;
	for (const char *p = strstr(list, " "); p && p[1]; p = strchr(p + 1, ' '))
		if (!strncmp(p + 1, s, n) && p[1 + n] == ' ')
			return true;
	return false;
}

static bool has_char(const char *set, char c)
{
	return set && c && strchr(set, c);
}

struct opts {
	size_t next;      /* the first word after the options and operands */
	bool stop;        /* an option after which no command runs */
	const char *bad;  /* an option not known */
	bool chdir;       /* a directory option was given ... */
	const char *dir;  /* ... with this static value (NULL: dynamic) */
	const struct shell_word *dirword;
	bool split;       /* env -S */
	bool shell;       /* sudo -s, sudo -i */
};

static void parse_opts(const struct wrapper_spec *ws, const struct shell_cmd *cmd, size_t i,
		       struct opts *o)
{
	size_t n = cmd->nwords;
	memset(o, 0, sizeof(*o));
	for (i++; i < n; i++) {
		const char *w = cmd->words[i]->lit;
		if (!w)
			break;
		if (!strcmp(w, "--")) {
			i++;
			break;
		}
		if (ws->kind == W_ENV && !strcmp(w, "-"))
			continue;
		if (w[0] != '-' || !w[1])
			break;
		if (ws->kind == W_NICE && strspn(w + 1, "0123456789") == strlen(w + 1))
			continue;
		if (w[1] == '-') {
			const char *eq = strchr(w, '=');
			size_t len = eq ? (size_t)(eq - w) : strlen(w);
			const char *val = eq ? eq + 1 : NULL;
			const struct shell_word *vw = NULL;
			if (in_list(ws->long_stop, w, len)) {
				o->stop = true;
			} else if (in_list(ws->long_args, w, len)) {
				if (!eq && i + 1 < n) {
					vw = cmd->words[++i];
					val = vw->lit;
				}
			} else if (!in_list(ws->long_flags, w, len)) {
				o->bad = w;
				break;
			}
			if (ws->chdir_long && !strncmp(w, ws->chdir_long, len) &&
			    !ws->chdir_long[len]) {
				o->chdir = true;
				o->dir = val;
				o->dirword = vw;
			}
			o->split = o->split || (ws->kind == W_ENV && !strncmp(w, "--split-string", len) &&
						len == 14);
			continue;
		}
		for (size_t j = 1; w[j]; j++) {
			char c = w[j];
			if (has_char(ws->stop, c))
				o->stop = true;
			o->shell = o->shell || has_char(ws->shellopt, c);
			if (has_char(ws->optarg, c))
				break;
			if (has_char(ws->args, c)) {
				const char *val = w + j + 1;
				const struct shell_word *vw = NULL;
				if (!*val) {
					val = NULL;
					if (i + 1 < n) {
						vw = cmd->words[++i];
						val = vw->lit;
					}
				}
				if (c == ws->chdir) {
					o->chdir = true;
					o->dir = val;
					o->dirword = vw;
				}
				o->split = o->split || (ws->kind == W_ENV && c == 'S');
				break;
			}
			if (!has_char(ws->flags, c) && !has_char(ws->stop, c)) {
				o->bad = w;
				goto out;
			}
		}
	}
out:
	if (!o->bad && !o->stop) {
		for (unsigned k = 0; k < ws->operands && i < n; k++)
			i++;
		/* env and sudo take NAME=VALUE before the command. */
		while ((ws->kind == W_ENV || ws->kind == W_SUDO) && i < n && cmd->words[i]->lit &&
		       strchr(cmd->words[i]->lit, '=') && cmd->words[i]->lit[0] != '=')
			i++;
	}
	o->next = i;
}

/* The wrappers found so far, in the arena. */
struct wlist {
	struct shell_wrapper *v;
	size_t n, cap;
};

static void wlist_init(struct split *sp, struct wlist *l, const struct shell_wrapper *from,
		       size_t n)
{
	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < n; i++)
		AVEC_PUSH(sp->a, l->v, l->n, l->cap, from[i]);
}

static void wlist_add(struct split *sp, struct wlist *l, const struct shell_cmd *cmd, size_t from,
		      size_t to)
{
	struct shell_wrapper w;
	w.name = cmd->words[from]->lit;
	w.words = cmd->words + from;
	w.nwords = to - from;
	AVEC_PUSH(sp->a, l->v, l->n, l->cap, w);
}

/* The words of a command run by a wrapper: find -exec, git bisect run. */
static void emit_words(struct split *sp, const struct shell_cmd *parent, const struct ctx *c,
		       const struct shell_word *const *words, size_t n, const struct wlist *wl,
		       unsigned flags, const char *cwd);
static void resolve(struct split *sp, struct shell_cmd *cmd, const struct ctx *c,
		    const char **cwd);

/* Parse a string the shell will run and walk its commands.  same_shell: it
 * runs in the current shell (eval), so cd in it moves *cwd. */
static void run_string(struct split *sp, struct shell_cmd *cmd, const struct ctx *c,
		       const char *text, size_t start, size_t end, const struct wlist *wl,
		       bool same_shell, const char **cwd)
{
	struct shell_error err;
	if (sp->strings >= SHELL_MAX_STRINGS || c->depth >= SHELL_MAX_DEPTH) {
		set_opaque(cmd, "shell strings nested too deeply");
		if (same_shell)
			*cwd = NULL;
		return;
	}
	struct shell_node *root =
		shell_parse_tree(sp->a, text, strlen(text), c->depth, true, start, end, &err);
	if (!root) {
		set_opaque(cmd, arena_printf(sp->a, "the shell string does not parse: %s",
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
	walk(sp, root, &in, same_shell ? cwd : &cw);
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
		set_opaque(cmd, "the command string is not static");
		if (same_shell)
			*cwd = NULL;
		return;
	}
	if (from < to)
		run_string(sp, cmd, c, text, cmd->words[from]->start, cmd->words[to - 1]->end, wl,
			   same_shell, cwd);
}

static void handle_shell(struct split *sp, struct shell_cmd *cmd, const struct ctx *c,
			 size_t i, struct wlist *wl)
{
	size_t n = cmd->nwords, j;
	bool has_c = false, stdin_ = false;
	for (j = i + 1; j < n; j++) {
		const char *w = cmd->words[j]->lit;
		if (!w)
			break;
		if (!strcmp(w, "--") || !strcmp(w, "-")) {
			j++;
			break;
		}
		if (w[0] == '-' && w[1] == '-') {
			if (!strcmp(w, "--rcfile") || !strcmp(w, "--init-file"))
				j++;
			continue;
		}
		if ((w[0] != '-' && w[0] != '+') || !w[1])
			break;
		size_t skip = 0;
		for (size_t k = 1; w[k]; k++) {
			if (w[k] == 'c')
				has_c = true;
			else if (w[k] == 's')
				stdin_ = true;
			else if (w[k] == 'o' || w[k] == 'O')
				skip++;
		}
		j += skip;
	}
	const char *cw = cmd->cwd;
	wlist_add(sp, wl, cmd, i, j < n ? j : n);
	if (has_c) {
		if (j >= n)
			return;
		if (!cmd->words[j]->lit) {
			set_opaque(cmd, "the shell command string is not static");
			return;
		}
		run_string(sp, cmd, c, cmd->words[j]->lit, cmd->words[j]->start, cmd->words[j]->end,
			   wl, false, &cw);
		return;
	}
	if (j < n && !stdin_) {
		/* A script file: bash <(curl ...) runs what it downloads. */
		if (!cmd->words[j]->lit)
			set_opaque(cmd, "the shell runs a script whose name is not static");
		return;
	}
	const struct shell_redir *in = NULL;
	for (size_t k = 0; k < cmd->nredirs; k++)
		if (cmd->redirs[k]->fd == 0)
			in = cmd->redirs[k];
	if (in && in->op == SHELL_REDIR_IN) {
		/* bash < script.sh: a script file again, read through the
		 * redirection; what it runs is not seen. */
		set_opaque(cmd, "the shell runs the script on its standard input");
		return;
	}
	const struct shell_word *text = !in ? NULL
					: in->op == SHELL_REDIR_HERESTRING ? in->target
					: in->op == SHELL_REDIR_HEREDOC || in->op == SHELL_REDIR_HEREDOC_TABS
						? in->body
						: NULL;
	if (!text) {
		set_opaque(cmd, "the shell reads its commands from standard input");
		return;
	}
	if (!text->lit) {
		set_opaque(cmd, "the shell reads commands that are not static");
		return;
	}
	run_string(sp, cmd, c, text->lit, text->start, text->end, wl, false, &cw);
}

/* git -c NAME=VALUE settings that make git run a program. */
static const char *const git_exec_keys[] = {
	"core.hookspath",    "core.sshcommand",       "core.gitproxy",
	"core.askpass",      "core.editor",           "core.pager",
	"core.fsmonitor",    "core.alternaterefscommand", "sequence.editor",
	"diff.external",     "diff.*.textconv",       "diff.*.command",
	"merge.*.driver",    "filter.*.clean",        "filter.*.smudge",
	"filter.*.process",  "credential.helper",     "credential.*.helper",
	"gpg.program",       "gpg.*.program",         "alias.*",
	"pager.*",           "uploadpack.packobjectshook", "remote.*.uploadpack",
	"remote.*.receivepack", "protocol.allow",     "protocol.*.allow",
	"include.path",      "includeif.*.path",      "init.templatedir",
	"url.*.insteadof",   "url.*.pushinsteadof",   "ssh.variant",
	"sendemail.smtpserver", "web.browser",        "browser.*.cmd",
	"browser.*.path",    "mergetool.*.cmd",       "mergetool.*.path",
	"difftool.*.cmd",    "difftool.*.path",       "man.*.cmd",
	"man.*.path",        "instaweb.httpd",        "submodule.*.update",
};

static bool git_key_execs(const char *setting)
{
	char key[256];
	size_t n = strcspn(setting, "=");
	if (n >= sizeof(key))
		return true;
	for (size_t i = 0; i < n; i++)
		key[i] = (char)(setting[i] >= 'A' && setting[i] <= 'Z' ? setting[i] + 32 : setting[i]);
	key[n] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(git_exec_keys); i++) {
		const char *pat = git_exec_keys[i], *star = strchr(pat, '*');
		if (!star) {
			if (!strcmp(key, pat))
				return true;
			continue;
		}
		size_t pre = (size_t)(star - pat), post = strlen(star + 1);
		if (n > pre + post && !strncmp(key, pat, pre) && !strcmp(key + n - post, star + 1))
			return true;
	}
	return false;
}

static void handle_git(struct split *sp, struct shell_cmd *cmd, const struct ctx *c, size_t i,
		       struct wlist *wl)
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
				cmd->cwd = cwd_join(sp, cmd->cwd, v, false);
				continue;
			}
			AVEC_PUSH(sp->a, cfg, ncfg, ccap, v);
			if (!v->lit || git_key_execs(v->lit))
				cmd->flags |= SHELL_CMD_GIT_EXEC;
			continue;
		}
		if (starts_with(w, "--exec-path=")) {
			cmd->flags |= SHELL_CMD_GIT_EXEC;
			continue;
		}
		if (starts_with(w, "--config-env") && (w[12] == '=' || (!w[12] && j + 1 < n))) {
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
	if (j >= n || !cmd->words[j]->lit)
		return;
	const char *sub = cmd->words[j]->lit;
	const char *cw = cmd->cwd;
	wlist_add(sp, wl, cmd, i, j);
	if (!strcmp(sub, "rebase")) {
		/* git rebase -x CMD / --exec CMD: run with sh -c. */
		for (size_t k = j + 1; k < n; k++) {
			const char *w = cmd->words[k]->lit, *text;
			const struct shell_word *v = cmd->words[k];
			if (!w)
				continue;
			if ((!strcmp(w, "-x") || !strcmp(w, "--exec")) && k + 1 < n) {
				v = cmd->words[++k];
				text = v->lit;
			} else if (starts_with(w, "--exec=")) {
				text = w + 7;
			} else if (starts_with(w, "-x")) {
				text = w + 2;
			} else {
				continue;
			}
			if (!text)
				set_opaque(cmd, "the command of git rebase --exec is not static");
			else
				run_string(sp, cmd, c, text, v->start, v->end, wl, false, &cw);
		}
	} else if (!strcmp(sub, "submodule")) {
		size_t k = j + 1;
		while (k < n && cmd->words[k]->lit && cmd->words[k]->lit[0] == '-')
			k++;
		if (k < n && cmd->words[k]->lit && !strcmp(cmd->words[k]->lit, "foreach")) {
			for (k++; k < n && cmd->words[k]->lit && cmd->words[k]->lit[0] == '-'; k++)
				;
			const char *none = NULL;
			string_words(sp, cmd, c, k, n, wl, false, &none);
		}
	} else if (!strcmp(sub, "bisect") && j + 1 < n && cmd->words[j + 1]->lit &&
		   !strcmp(cmd->words[j + 1]->lit, "run") && j + 2 < n) {
		emit_words(sp, cmd, c, cmd->words + j + 2, n - j - 2, wl, 0, cw);
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
		wlist_init(sp, &fl, wl->v, wl->n);
		wlist_add(sp, &fl, cmd, i, j + 1);
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
	struct shell_cmd *cmd = new_cmd(sp, &in, parent->start, parent->end, cwd);
	cmd->flags |= flags;
	cmd->words = words;
	cmd->nwords = n;
	if (in.depth > SHELL_MAX_DEPTH) {
		set_opaque(cmd, "wrappers nested too deeply");
		return;
	}
	const char *none = cwd;
	resolve(sp, cmd, &in, &none);
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
		*cwd = cwd_join(sp, *cwd, cmd->words[i], logical);
}

static bool unquoted_expansion(const struct shell_cmd *cmd)
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
		set_opaque(cmd, "the command string is not static");
	else
		run_string(sp, cmd, c, cmd->words[k]->lit, cmd->words[k]->start,
			   cmd->words[k]->end, wl, false, &cw);
}

static bool word_is(const struct shell_word *w, const char *s)
{
	return w->lit && !strcmp(w->lit, s);
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
	static const struct {
		const char *names, *args;
	} subs[] = {
		{ " new-session new ", "cefFnstxy" },
		{ " new-window neww ", "ceFnt" },
		{ " split-window splitw ", "celFt" },
		{ " run-shell run ", "cdt" },
	};
	size_t n = cmd->nwords, k = i + 1;
	for (; k < n; k++) { /* the server's own options */
		const char *w = cmd->words[k]->lit;
		if (!w || w[0] != '-' || !w[1])
			break;
		if (!strcmp(w, "-c")) {
			wlist_add(sp, wl, cmd, i, k + 1);
			option_string(sp, cmd, c, k + 1, wl);
			if (k + 1 >= n)
				set_opaque(cmd, "tmux -c without a command");
			return;
		}
		if (strchr("fLST", w[1]) && !w[2])
			k++;
		else if (strspn(w + 1, "2CDlNuVv") != strlen(w + 1)) {
			set_opaque(cmd, arena_printf(sp->a, "unknown option '%s' of tmux", w));
			return;
		}
	}
	const char *sub = k < n ? cmd->words[k]->lit : NULL;
	size_t t = 0;
	while (sub && t < ARRAY_SIZE(subs) && !in_list(subs[t].names, sub, strlen(sub)))
		t++;
	if (!sub || t == ARRAY_SIZE(subs)) {
		set_opaque(cmd, "tmux runs a command this reader does not follow");
		return;
	}
	const char *dir = t == 0 ? cmd->cwd : NULL; /* new-session: the client's directory */
	size_t j = k + 1;
	for (; j < n; j++) {
		const char *w = cmd->words[j]->lit;
		if (!w || w[0] != '-' || !w[1])
			break;
		if (!strcmp(w, "--")) {
			j++;
			break;
		}
		if (strchr(subs[t].args, w[1]) && !w[2]) {
			if (w[1] == 'c') /* -c DIR: where the command starts */
				dir = j + 1 < n && cmd->words[j + 1]->lit &&
						      cmd->words[j + 1]->lit[0] == '/'
					      ? cmd->words[j + 1]->lit
					      : NULL;
			j++;
		} else if (strspn(w + 1, "AdDEPXabkSbfhIvZC") != strlen(w + 1)) {
			set_opaque(cmd, arena_printf(sp->a, "unknown option '%s' of tmux %s", w, sub));
			return;
		}
	}
	for (size_t m = j; m < n; m++)
		if (word_is(cmd->words[m], ";")) {
			set_opaque(cmd, "tmux runs a chain of commands");
			return;
		}
	if (j >= n) {
		set_opaque(cmd, "tmux starts a shell");
		return;
	}
	wlist_add(sp, wl, cmd, i, j);
	if (j + 1 == n) {
		const char *cw = dir;
		if (!cmd->words[j]->lit)
			set_opaque(cmd, "the command string is not static");
		else
			run_string(sp, cmd, c, cmd->words[j]->lit, cmd->words[j]->start,
				   cmd->words[j]->end, wl, false, &cw);
		return;
	}
	emit_words(sp, cmd, c, cmd->words + j, n - j, wl, 0, dir);
}

/* Unwrap the wrappers of cmd and deal with what it runs.  *cwd is the
 * directory of the shell cmd runs in, moved by cd, eval and the like. */
static void resolve(struct split *sp, struct shell_cmd *cmd, const struct ctx *c,
		    const char **cwd)
{
	struct wlist wl;
	bool in_shell = !(cmd->flags & SHELL_CMD_FIND_EXEC); /* a builtin would run here */
	size_t i = 0, n = cmd->nwords;
	wlist_init(sp, &wl, c->wrappers, c->nwrappers);
	while (i < n) {
		const char *name = cmd->words[i]->lit;
		if (!name) {
			set_opaque(cmd, "the command name is not a static word");
			break;
		}
		const struct wrapper_spec *ws = find_spec(name);
		if (!ws)
			break;
		if (wl.n >= MAX_WRAPPERS) {
			set_opaque(cmd, "too many wrappers");
			break;
		}
		bool here = in_shell;
		if (ws->kind != W_COMMAND && ws->kind != W_BUILTIN)
			in_shell = false;
		switch (ws->kind) {
		case W_FIND:
			handle_find(sp, cmd, c, i, &wl);
			goto done;
		case W_GIT:
		case W_SHELL: {
			/* The nested commands have these as a wrapper, cmd not. */
			size_t keep = wl.n;
			if (ws->kind == W_GIT)
				handle_git(sp, cmd, c, i, &wl);
			else
				handle_shell(sp, cmd, c, i, &wl);
			wl.n = keep;
			goto done;
		}
		case W_FOREIGN:
			set_opaque(cmd, arena_printf(sp->a, "%s commands are not analysed", ws->name));
			goto done;
		case W_RUNNER:
			cmd->flags |= SHELL_CMD_DOWNLOADS;
			set_opaque(cmd, arena_printf(sp->a, "%s runs a downloaded program", ws->name));
			goto done;
		case W_RUNNER2: {
			const char *sub = i + 1 < n ? cmd->words[i + 1]->lit : NULL;
			if (sub && in_list(ws->sub, sub, strlen(sub))) {
				cmd->flags |= SHELL_CMD_DOWNLOADS;
				set_opaque(cmd, arena_printf(sp->a, "%s %s runs a downloaded program",
							     ws->name, sub));
				goto done;
			}
			if (!sub || !in_list(ws->local, sub, strlen(sub)))
				goto done;
			/* uv run [OPTIONS] CMD...: CMD runs as a wrapper's would; an
			 * option this table does not know makes it opaque. */
			size_t k = i + 2;
			while (k < n && cmd->words[k]->lit && cmd->words[k]->lit[0] == '-') {
				const char *w = cmd->words[k]->lit;
				if (!strcmp(w, "--")) {
					k++;
					break;
				}
				bool arg = (w[1] != '-' && w[1] && !w[2] && ws->args &&
					    strchr(ws->args, w[1])) ||
					   in_list(ws->long_args, w, strlen(w));
				if (!arg) {
					set_opaque(cmd, arena_printf(sp->a, "unknown option '%s' of %s %s",
								     w, ws->name, sub));
					goto done;
				}
				k += 2;
			}
			if (k >= n || !cmd->words[k]->lit)
				goto done;
			wlist_add(sp, &wl, cmd, i, k);
			i = k;
			continue;
		}
		case W_EVAL: {
			const char *cw = *cwd;
			wlist_add(sp, &wl, cmd, i, i + 1);
			string_words(sp, cmd, c, i + 1, n, &wl, true, here ? cwd : &cw);
			wl.n--;
			goto done;
		}
		case W_TRAP: {
			/* trap [--] ACTION SIGNAL...: ACTION runs later, in this
			 * shell, from a directory not known here. */
			size_t k = i + 1 < n && word_is(cmd->words[i + 1], "--") ? i + 2 : i + 1;
			const char *none = NULL;
			if (n - k >= 2 && !word_is(cmd->words[k], "-")) {
				wlist_add(sp, &wl, cmd, i, i + 1);
				string_words(sp, cmd, c, k, k + 1, &wl, false, &none);
				wl.n--;
			}
			goto done;
		}
		case W_SOURCE:
			if (i + 1 < n && !cmd->words[i + 1]->lit)
				set_opaque(cmd, "the sourced file name is not static");
			if (here)
				*cwd = NULL;
			goto done;
		case W_TMUX: {
			size_t keep = wl.n;
			handle_tmux(sp, cmd, c, i, &wl);
			wl.n = keep;
			goto done;
		}
		case W_SU: {
			size_t k = i + 1;
			while (k < n && !word_is(cmd->words[k], "-c") &&
			       !word_is(cmd->words[k], "--command"))
				k++;
			wlist_add(sp, &wl, cmd, i, k < n ? k + 1 : n);
			if (k + 1 >= n)
				set_opaque(cmd, arena_printf(sp->a, "%s without -c starts a shell",
							     ws->name));
			else
				option_string(sp, cmd, c, k + 1, &wl);
			wl.n--;
			goto done;
		}
		default:
			break;
		}
		struct opts o;
		parse_opts(ws, cmd, i, &o);
		if (o.bad) {
			set_opaque(cmd, arena_printf(sp->a, "unknown option '%s' of %s", o.bad,
						     ws->name));
			break;
		}
		if (o.split) {
			set_opaque(cmd, "env -S splits a string into a command");
			break;
		}
		if (o.shell && o.next >= n && !o.stop)
			set_opaque(cmd, arena_printf(sp->a, "%s starts a shell", name));
		if (o.stop || o.next >= n)
			break;
		if (ws->kind == W_WATCH) {
			/* watch runs its arguments with sh -c, unless -x. */
			bool exec = false;
			for (size_t k = i + 1; k < o.next; k++) {
				const char *w = cmd->words[k]->lit;
				exec = exec || (w && w[0] == '-' && w[1] != '-' && strchr(w, 'x')) ||
				       (w && !strcmp(w, "--exec"));
			}
			if (!exec) {
				const char *cw = cmd->cwd;
				wlist_add(sp, &wl, cmd, i, o.next);
				string_words(sp, cmd, c, o.next, n, &wl, false, &cw);
				wl.n--;
				break;
			}
		}
		if (ws->kind == W_FLOCK && (word_is(cmd->words[o.next], "-c") ||
					    word_is(cmd->words[o.next], "--command"))) {
			wlist_add(sp, &wl, cmd, i, o.next + 1);
			option_string(sp, cmd, c, o.next + 1, &wl);
			wl.n--;
			break;
		}
		if (o.chdir && o.dirword)
			cmd->cwd = cwd_join(sp, cmd->cwd, o.dirword, false);
		else if (o.chdir)
			cmd->cwd = o.dir ? cwd_add(sp, cmd->cwd, o.dir, false, false) : NULL;
		if (ws->lost_cwd)
			cmd->cwd = NULL;
		if (ws->kind == W_XARGS)
			cmd->flags |= SHELL_CMD_EXTRA_ARGS;
		wlist_add(sp, &wl, cmd, i, o.next);
		i = o.next;
	}
done:
	cmd->argi = i < n ? i : n;
	cmd->prog = i < n ? cmd->words[i]->lit : NULL;
	cmd->wrappers = wl.v;
	cmd->nwrappers = wl.n;
	if (!in_shell)
		return;
	if (cmd->flags & SHELL_CMD_OPAQUE) {
		*cwd = NULL;
	} else if (cmd->prog && !strchr(cmd->prog, '/')) {
		track_cd(sp, cmd, cwd);
		if (strmap_get(&sp->cdfuncs, cmd->prog, strlen(cmd->prog)))
			*cwd = NULL;
	}
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

	struct shell_cmd *cmd = new_cmd(sp, c, n->start, n->end, *cwd);
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
	resolve(sp, cmd, c, cwd);
	if ((ifs || sp->ifs) && unquoted_expansion(cmd))
		set_opaque(cmd, "word splitting with a changed IFS");
}

/* Redirections of a compound command, as a command of their own. */
static void emit_redirs(struct split *sp, const struct shell_node *n, const struct ctx *c,
			const char *cwd)
{
	if (!n->nredirs)
		return;
	walk_redirs(sp, n->redirs, n->nredirs, c, cwd);
	struct shell_cmd *cmd = new_cmd(sp, c, n->start, n->end, cwd);
	cmd->flags |= SHELL_CMD_REDIR_ONLY;
	cmd->redirs = (const struct shell_redir *const *)n->redirs;
	cmd->nredirs = n->nredirs;
	if (net_redirs(cmd->redirs, cmd->nredirs))
		cmd->flags |= SHELL_CMD_NET_REDIR;
}

/* Whether running n may change the directory of the shell it runs in. */
static bool changes_cwd(const struct split *sp, const struct shell_node *n)
{
	static const char *const movers[] = { "cd", "pushd", "popd", "eval", "source", "." };
	switch (n->kind) {
	case SN_SIMPLE: {
		size_t i = 0;
		while (i < n->u.simple.nwords && n->u.simple.words[i]->lit &&
		       (!strcmp(n->u.simple.words[i]->lit, "builtin") ||
			!strcmp(n->u.simple.words[i]->lit, "command") ||
			!strcmp(n->u.simple.words[i]->lit, "-p")))
			i++;
		if (i >= n->u.simple.nwords)
			return false;
		const char *name = n->u.simple.words[i]->lit;
		if (!name)
			return true;
		for (size_t k = 0; k < ARRAY_SIZE(movers); k++)
			if (!strcmp(name, movers[k]))
				return true;
		return strmap_get(&sp->cdfuncs, name, strlen(name)) != NULL;
	}
	case SN_LIST:
	case SN_ANDOR:
		for (size_t i = 0; i < n->u.list.n; i++)
			if (!(n->kind == SN_LIST && n->u.list.sep[i] == SN_SEP_BG) &&
			    changes_cwd(sp, n->u.list.items[i]))
				return true;
		return false;
	case SN_GROUP:
		return changes_cwd(sp, n->u.sub.body);
	case SN_IF:
		for (size_t i = 0; i < n->u.if_.n; i++)
			if (changes_cwd(sp, n->u.if_.conds[i]) || changes_cwd(sp, n->u.if_.bodies[i]))
				return true;
		return n->u.if_.else_body && changes_cwd(sp, n->u.if_.else_body);
	case SN_FOR:
		return changes_cwd(sp, n->u.for_.body);
	case SN_WHILE:
	case SN_UNTIL:
		return changes_cwd(sp, n->u.loop.cond) || changes_cwd(sp, n->u.loop.body);
	case SN_CASE:
		for (size_t i = 0; i < n->u.case_.n; i++)
			if (changes_cwd(sp, n->u.case_.items[i].body))
				return true;
		return false;
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

static void walk(struct split *sp, const struct shell_node *n, const struct ctx *c,
		 const char **cwd)
{
	struct ctx in = *c;
	const char *cur, *acc = NULL;
	bool have = false;
	switch (n->kind) {
	case SN_SIMPLE:
		emit_simple(sp, n, c, cwd);
		return;
	case SN_LIST:
		in.depth++;
		for (size_t i = 0; i < n->u.list.n; i++) {
			if (n->u.list.sep[i] == SN_SEP_BG) {
				struct ctx bg = in;
				cur = *cwd;
				bg.flags |= SHELL_CMD_BACKGROUND;
				walk(sp, n->u.list.items[i], &bg, &cur);
			} else {
				walk(sp, n->u.list.items[i], &in, cwd);
			}
		}
		return;
	case SN_ANDOR: {
		const char *before = *cwd;
		walk(sp, n->u.list.items[0], c, cwd);
		for (size_t i = 1; i < n->u.list.n; i++) {
			if (n->u.list.sep[i] == SN_SEP_AND) {
				walk(sp, n->u.list.items[i], c, cwd);
				continue;
			}
			/* || runs the right side when the left failed: maybe
			 * before or after a cd on the left. */
			const char *left = *cwd;
			cur = same_cwd(left, before) ? left : NULL;
			walk(sp, n->u.list.items[i], c, &cur);
			*cwd = same_cwd(left, cur) || never_returns(n->u.list.items[i]) ? left : NULL;
		}
		return;
	}
	case SN_PIPE:
		in.pipeline = ++sp->pipes;
		for (size_t i = 0; i < n->u.list.n; i++) {
			cur = *cwd;
			in.pipe_pos = i;
			walk(sp, n->u.list.items[i], &in, &cur);
		}
		return;
	case SN_SUBSHELL:
		emit_redirs(sp, n, c, *cwd);
		cur = *cwd;
		walk(sp, n->u.sub.body, c, &cur);
		return;
	case SN_GROUP:
		emit_redirs(sp, n, c, *cwd);
		walk(sp, n->u.sub.body, c, cwd);
		return;
	case SN_IF:
		emit_redirs(sp, n, c, *cwd);
		cur = *cwd;
		for (size_t i = 0; i < n->u.if_.n; i++) {
			walk(sp, n->u.if_.conds[i], c, &cur);
			const char *b = cur;
			walk(sp, n->u.if_.bodies[i], c, &b);
			merge_cwd(&acc, &have, b);
		}
		if (n->u.if_.else_body)
			walk(sp, n->u.if_.else_body, c, &cur);
		merge_cwd(&acc, &have, cur);
		*cwd = acc;
		return;
	case SN_FOR:
		emit_redirs(sp, n, c, *cwd);
		for (size_t i = 0; i < n->u.for_.nwords; i++)
			walk_word(sp, n->u.for_.words[i], c, *cwd);
		walk_word(sp, n->u.for_.arith, c, *cwd);
		if (changes_cwd(sp, n->u.for_.body))
			*cwd = NULL;
		walk(sp, n->u.for_.body, c, cwd);
		return;
	case SN_WHILE:
	case SN_UNTIL:
		emit_redirs(sp, n, c, *cwd);
		if (changes_cwd(sp, n->u.loop.cond) || changes_cwd(sp, n->u.loop.body))
			*cwd = NULL;
		walk(sp, n->u.loop.cond, c, cwd);
		walk(sp, n->u.loop.body, c, cwd);
		return;
	case SN_CASE:
		emit_redirs(sp, n, c, *cwd);
		walk_word(sp, n->u.case_.subject, c, *cwd);
		for (size_t i = 0; i < n->u.case_.n; i++) {
			const struct sn_case_item *it = &n->u.case_.items[i];
			for (size_t k = 0; k < it->npatterns; k++)
				walk_word(sp, it->patterns[k], c, *cwd);
			cur = *cwd;
			walk(sp, it->body, c, &cur);
			merge_cwd(&acc, &have, cur);
		}
		merge_cwd(&acc, &have, *cwd);
		*cwd = acc;
		return;
	case SN_FUNC: {
		const char *name = n->u.func.name->lit;
		if (name && changes_cwd(sp, n->u.func.body) &&
		    !strmap_get(&sp->cdfuncs, name, strlen(name)))
			strmap_add(&sp->cdfuncs, name, strlen(name), 0);
		in.flags |= SHELL_CMD_IN_FUNCTION;
		cur = NULL;
		walk(sp, n->u.func.body, &in, &cur);
		return;
	}
	case SN_ARITH:
		emit_redirs(sp, n, c, *cwd);
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
	walk(&sp, root, &c, &cwd);
	strmap_free(&sp.cdfuncs);
}
