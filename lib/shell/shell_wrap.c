/* The wrappers: programs that run a command given as their words (env,
 * sudo, nice, xargs, find -exec, ...), each with the options it takes. */
#include "config.h"

#include "shell_split.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- wrappers --------------------------------------------------------------------- */

/* Sorted by name (strcmp order): sp_find_spec() searches it by halves. */
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
	const char *k = key, *name = ((const struct wrapper_spec *)elem)->name;
	/* The first byte settles most steps of the search without a call. */
	if (*k != *name)
		return (unsigned char)*k - (unsigned char)*name;
	return strcmp(k, name);
}

const struct wrapper_spec *sp_find_spec(const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	const struct wrapper_spec *ws =
		bsearch(base, specs, ARRAY_SIZE(specs), sizeof(specs[0]), cmp_spec);
	return ws && !(ws->builtin && base != name) ? ws : NULL;
}

/* s as " word " appears in list. */
bool sp_in_list(const char *list, const char *s, size_t n)
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

/* The option that names the directory the command runs in (env -C DIR,
 * --chdir=DIR) was given with value val, of word vw (NULL: in its own). */
static void set_chdir(struct opts *o, const char *val, const struct shell_word *vw)
{
	o->chdir = true;
	o->dir = val;
	o->dirword = vw;
}

/* The long option w at cmd->words[*i], and its value (=VALUE or the next
 * word, which *i then moves to).  False when the wrapper has no such
 * option (o->bad). */
static bool long_option(const struct wrapper_spec *ws, const struct shell_cmd *cmd, size_t *i,
			const char *w, struct opts *o)
{
	const char *eq = strchr(w, '=');
	size_t len = eq ? (size_t)(eq - w) : strlen(w);
	const char *val = eq ? eq + 1 : NULL;
	const struct shell_word *vw = NULL;
	if (sp_in_list(ws->long_stop, w, len)) {
		o->stop = true;
	} else if (sp_in_list(ws->long_args, w, len)) {
		if (!eq && *i + 1 < cmd->nwords) {
			vw = cmd->words[++*i];
			val = vw->lit;
		}
	} else if (!sp_in_list(ws->long_flags, w, len)) {
		o->bad = w;
		return false;
	}
	if (ws->chdir_long && !strncmp(w, ws->chdir_long, len) && !ws->chdir_long[len])
		set_chdir(o, val, vw);
	o->split = o->split ||
		   (ws->kind == W_ENV && !strncmp(w, "--split-string", len) && len == 14);
	return true;
}

/* The short options of w at cmd->words[*i] (-abc), up to one that takes
 * an argument: the rest of w, or the next word (which *i then moves to).
 * False when one is not the wrapper's (o->bad). */
static bool short_options(const struct wrapper_spec *ws, const struct shell_cmd *cmd, size_t *i,
			  const char *w, struct opts *o)
{
	for (size_t j = 1; w[j]; j++) {
		char c = w[j];
		if (has_char(ws->stop, c))
			o->stop = true;
		o->shell = o->shell || has_char(ws->shellopt, c);
		if (has_char(ws->optarg, c))
			return true;
		if (has_char(ws->args, c)) {
			const char *val = w + j + 1;
			const struct shell_word *vw = NULL;
			if (!*val) {
				val = NULL;
				if (*i + 1 < cmd->nwords) {
					vw = cmd->words[++*i];
					val = vw->lit;
				}
			}
			if (c == ws->chdir)
				set_chdir(o, val, vw);
			o->split = o->split || (ws->kind == W_ENV && c == 'S');
			return true;
		}
		if (!has_char(ws->flags, c) && !has_char(ws->stop, c)) {
			o->bad = w;
			return false;
		}
	}
	return true;
}

/* Past the wrapper's operands from i (timeout DURATION), and the
 * NAME=VALUE words env and sudo take before the command. */
static size_t skip_operands(const struct wrapper_spec *ws, const struct shell_cmd *cmd, size_t i)
{
	size_t n = cmd->nwords;
	for (unsigned k = 0; k < ws->operands && i < n; k++)
		i++;
	while ((ws->kind == W_ENV || ws->kind == W_SUDO) && i < n && cmd->words[i]->lit &&
	       strchr(cmd->words[i]->lit, '=') && cmd->words[i]->lit[0] != '=')
		i++;
	return i;
}

/* Is w, a word of wrapper ws, one to pass over without reading it as
 * options: env's "-" (an empty environment), nice's -N (a niceness)? */
static bool wrapper_word(const struct wrapper_spec *ws, const char *w)
{
	return (ws->kind == W_ENV && !strcmp(w, "-")) ||
	       (ws->kind == W_NICE && w[0] == '-' && w[1] &&
		strspn(w + 1, "0123456789") == strlen(w + 1));
}

void sp_parse_opts(const struct wrapper_spec *ws, const struct shell_cmd *cmd, size_t i,
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
		if (wrapper_word(ws, w))
			continue;
		if (w[0] != '-' || !w[1])
			break;
		if (!(w[1] == '-' ? long_option : short_options)(ws, cmd, &i, w, o))
			break;
	}
	if (!o->bad && !o->stop)
		i = skip_operands(ws, cmd, i);
	o->next = i;
}

void sp_wlist_init(struct split *sp, struct wlist *l, const struct shell_wrapper *from,
		       size_t n)
{
	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < n; i++)
		AVEC_PUSH(sp->a, l->v, l->n, l->cap, from[i]);
}

void sp_wlist_add(struct split *sp, struct wlist *l, const struct shell_cmd *cmd, size_t from,
		      size_t to)
{
	struct shell_wrapper w;
	w.name = cmd->words[from]->lit;
	w.words = cmd->words + from;
	w.nwords = to - from;
	AVEC_PUSH(sp->a, l->v, l->n, l->cap, w);
}

