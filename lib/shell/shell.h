/* The shell command analyser: parse a command line the way bash would, then
 * list every simple command it can run, with its words, redirections,
 * working directory and the wrappers (sudo, env, xargs, bash -c, ...) it was
 * found behind.
 *
 * Nothing is executed and nothing is looked up: no file system, no
 * environment, no globals.  A word whose value depends on the run (an
 * expansion, a glob, a substitution) is reported as dynamic, never guessed.
 * When the program a command runs cannot be known, the command is flagged
 * SHELL_CMD_OPAQUE with a reason.
 *
 * What is listed, in the order it would run (substitutions before the
 * command that uses them):
 *  - every simple command, wherever it is: lists, pipelines, subshells,
 *    if/for/while/until/case bodies, function bodies (at their definition),
 *    $(...), `...`, <(...), >(...), ${x:-$(...)}, $((...)), here-strings,
 *    unquoted here-document bodies and redirection targets;
 *  - commands with no program: assignments only (X=$(cmd)) and redirections
 *    only (> file), and SHELL_CMD_REDIR_ONLY entries for the redirections of
 *    a compound command ({ ...; } > file);
 *  - the commands of strings the shell parses again, when the string is
 *    static: bash/sh/dash/zsh/ksh -c STRING, a shell reading a here-document
 *    or here-string, eval, su -c, flock -c, watch, trap ACTION, git rebase
 *    --exec, git submodule foreach.  The command holding the string is
 *    listed too; the nested ones have it as their last wrapper and the flag
 *    SHELL_CMD_IN_STRING.  A dynamic string makes the holder opaque;
 *  - find -exec/-execdir/-ok/-okdir PROG ... ; or + as a command of its own
 *    (SHELL_CMD_FIND_EXEC, SHELL_CMD_EXTRA_ARGS) besides the find itself.
 *
 * Wrappers (sudo, doas, env, nice, nohup, timeout, time, command, builtin,
 * exec, stdbuf, ionice, setsid, taskset, chroot, unbuffer, fakeroot, coproc,
 * busybox, xargs) are unwrapped: words[argi] is the program they run, and
 * each one is recorded with its options.  An option a wrapper does not know
 * makes the command opaque rather than guess where the program starts.
 * npx, bunx, uvx, pnpx, pipx run, pnpm dlx, yarn dlx, npm exec and bun x
 * are opaque with SHELL_CMD_DOWNLOADS; uv run, poetry run, pdm run,
 * pipenv run, conda run, bundle exec, pnpm exec and yarn exec run a local
 * command, unwrapped as the wrappers are (an option they do not know makes
 * the command opaque).  A shell reading commands from a
 * pipe or a terminal (curl ... | sh, sh -s, sudo -s) is opaque, and so is
 * a command with an unquoted expansion once IFS has been assigned.
 *
 * Ownership rule: shell_parse() returns a script that owns everything
 * reachable from it (commands, words, parts, strings); all of it stays valid
 * and unchanged until shell_free().  A script is immutable: several threads
 * may read one at once, and several threads may parse at once.  Functions
 * that fill a strbuf append to it; the caller owns the strbuf.
 *
 * Offsets are byte offsets into the text given to shell_parse().  Words and
 * commands that come from a string the shell parses again (backquotes,
 * `bash -c STRING`, `eval`, a here-document) carry the range of that string
 * in the original text.
 *
 * Costs: time and memory grow linearly with the input (about 40 bytes of
 * memory per byte of a typical script; at most a few hundred for inputs
 * made of tiny commands).  At the nesting limit a parse uses about 80 KiB
 * of stack. */
#ifndef CORDON_SHELL_H
#define CORDON_SHELL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

#define SHELL_MAX_INPUT (1024 * 1024) /* bytes of input */
#define SHELL_MAX_DEPTH 64            /* nested lists, substitutions, ${...} */
#define SHELL_MAX_STRINGS 8           /* shell strings inside shell strings */

struct shell_error {
	size_t offset;     /* where the error was found */
	char message[160]; /* e.g. "unterminated single quote" */
};

/* ---- words ---------------------------------------------------------------- */

enum shell_part_kind {
	SHELL_PART_LIT,     /* literal text, quoting removed */
	SHELL_PART_PARAM,   /* $x, ${x...}, $1, $@ */
	SHELL_PART_CMDSUB,  /* $(...), `...`, ${ ...; } */
	SHELL_PART_ARITH,   /* $((...)), and the body of ((...)) */
	SHELL_PART_PROCSUB, /* <(...), >(...) */
	SHELL_PART_GLOB,    /* unquoted *, ?, [...] */
	SHELL_PART_BRACE,   /* the "{" of a brace expansion {a,b} or {1..3} */
	SHELL_PART_TILDE,   /* ~, ~user, ~+, ~- */
	SHELL_PART_ARRAY,   /* the (...) of an array assignment a=(...) */
};

struct shell_node; /* the parse tree, private to the analyser */

struct shell_part {
	enum shell_part_kind kind;
	bool quoted;      /* inside quotes (LIT: quoted or escaped) */
	const char *text; /* LIT: the value; others: the source text */
	size_t start, end;
	/* PARAM, ARITH, ARRAY: the dynamic parts found inside, such as the
	 * command substitution in ${x:-$(cmd)}. */
	const struct shell_part *inner;
	size_t ninner;
	const struct shell_node *sub; /* CMDSUB, PROCSUB */
};

struct shell_word {
	const struct shell_part *parts; /* at least one */
	size_t nparts;
	const char *lit; /* see shell_word_static() */
	size_t start, end;
};

/* The word's value if it is fully static after quote removal ("r"m, r\m,
 * $'\x72m' and \rm all give "rm"), else NULL. */
const char *shell_word_static(const struct shell_word *w);

/* A conservative view of a word used as a path: appends to prefix the static
 * text before the first part whose value is unknown, and returns a mask:
 * SHELL_PAT_UNKNOWN when anything may follow prefix (a glob, an expansion,
 * a brace), SHELL_PAT_HOME when the value starts with the home directory (a
 * leading ~ or ~/, which is not put in prefix).  0: prefix is the whole
 * value. */
enum { SHELL_PAT_UNKNOWN = 1, SHELL_PAT_HOME = 2 };
unsigned shell_word_pattern(const struct shell_word *w, struct strbuf *prefix);

/* ---- commands --------------------------------------------------------------- */

enum shell_redir_op {
	SHELL_REDIR_IN,         /* <   */
	SHELL_REDIR_OUT,        /* >   */
	SHELL_REDIR_APPEND,     /* >>  */
	SHELL_REDIR_CLOBBER,    /* >|  */
	SHELL_REDIR_RDWR,       /* <>  */
	SHELL_REDIR_HEREDOC,    /* <<  */
	SHELL_REDIR_HEREDOC_TABS, /* <<- */
	SHELL_REDIR_HERESTRING, /* <<< */
	SHELL_REDIR_DUP_IN,     /* n<&m, n<&- */
	SHELL_REDIR_DUP_OUT,    /* n>&m, n>&- */
	SHELL_REDIR_OUT_ERR,    /* &> and >&FILE: stdout and stderr to a file */
	SHELL_REDIR_APPEND_ERR, /* &>> */
};

struct shell_redir {
	int fd; /* the descriptor redirected, defaults filled in (0 or 1) */
	enum shell_redir_op op;
	/* The file, the descriptor ("2", "-"), the here-string or the
	 * here-document delimiter as written.  A DUP target that is not a
	 * static number or "-" may name a file. */
	const struct shell_word *target;
	/* Here-documents: the body.  A quoted delimiter makes it one literal
	 * part; otherwise it may hold expansions and substitutions. */
	const struct shell_word *body;
	size_t start, end;
};

struct shell_assign {
	const char *name; /* "FOO", or "a[1]" */
	bool append;      /* FOO+=... */
	const struct shell_word *value;
	size_t start, end;
};

/* A wrapper a command was found behind: its name as written and its words
 * (the wrapper word itself, then its options and operands). */
struct shell_wrapper {
	const char *name;
	const struct shell_word *const *words;
	size_t nwords;
};

enum {
	SHELL_CMD_OPAQUE = 1 << 0,       /* the program run is not known */
	SHELL_CMD_IN_SUBST = 1 << 1,     /* inside $(), ``, <(), >() */
	SHELL_CMD_BACKGROUND = 1 << 2,   /* run with & */
	SHELL_CMD_IN_FUNCTION = 1 << 3,  /* in the body of a function */
	SHELL_CMD_IN_STRING = 1 << 4,    /* from a string the shell parses again */
	SHELL_CMD_EXTRA_ARGS = 1 << 5,   /* more arguments at run time (xargs, find -exec) */
	SHELL_CMD_FIND_EXEC = 1 << 6,    /* run by find -exec, -execdir, -ok, -okdir */
	SHELL_CMD_FIND_DELETE = 1 << 7,  /* a find with -delete */
	SHELL_CMD_DOWNLOADS = 1 << 8,    /* npx and the like: runs a fetched program */
	SHELL_CMD_NET_REDIR = 1 << 9,    /* a redirection to /dev/tcp or /dev/udp */
	SHELL_CMD_GIT_EXEC = 1 << 10,    /* git -c or --exec-path that runs a program */
	SHELL_CMD_REDIR_ONLY = 1 << 11,  /* the redirections of a compound command */
};

struct shell_cmd {
	/* All words of the simple command; the program is words[argi], its
	 * arguments follow.  Words before argi belong to wrappers.  When
	 * argi == nwords there is no program: assignments or redirections
	 * only.  An opaque command's words[argi] is the word that could not
	 * be resolved (a dynamic name, or the wrapper whose options were not
	 * understood). */
	const struct shell_word *const *words;
	size_t nwords, argi;
	const char *prog; /* static value of words[argi], NULL if dynamic or none */
	const struct shell_assign *const *assigns;
	size_t nassigns;
	const struct shell_redir *const *redirs;
	size_t nredirs;
	/* The directory the command runs in, relative to the directory the
	 * script starts in: ".", "src", "../lib", "/abs", "~" or "~/x" (the
	 * home directory); NULL when unknown.  cd, pushd and popd with a
	 * static directory are followed through ; && and newlines, with ".."
	 * resolved by text as cd does; `cd d || exit` keeps d.  Unknown after
	 * a dynamic cd, cd -, popd, source, an opaque command, a call of a
	 * function that changes directory, a loop that changes directory, or
	 * branches that end in different directories.  Subshells, pipelines,
	 * & and substitutions do not move the shell around them.  git -C,
	 * env -C and sudo -D move their own command; find -execdir and chroot
	 * make it unknown. */
	const char *cwd;
	/* Where the shell is when it opens the command's redirections: cwd
	 * before a wrapper (env -C, git -C, sudo -D) moved it. */
	const char *shell_cwd;
	unsigned flags;
	const char *reason; /* why SHELL_CMD_OPAQUE, else NULL */
	const struct shell_wrapper *wrappers; /* outermost first */
	size_t nwrappers;
	/* git: the -c NAME=VALUE settings and --config-env words. */
	const struct shell_word *const *git_config;
	size_t ngit_config;
	size_t pipeline; /* 0, or a number shared by the commands of one pipeline */
	size_t pipe_pos; /* position in that pipeline, from 0 */
	size_t start, end;
};

struct shell_script;

/* Parse and split text (len bytes, no terminator needed).  NULL on a parse
 * error, described in *err; err may be NULL. */
struct shell_script *shell_parse(const char *text, size_t len, struct shell_error *err);
void shell_free(struct shell_script *script);
/* An argv, one simple command whose words are exactly argv[0..argc) (no
 * expansion, no globbing, no assignment, no redirection), split as a parsed
 * script is: wrappers unwrapped, `sh -c STRING` and the other strings the
 * programs parse again analysed as shell.  The command line the argv
 * renders to (shell_quote_word, words joined by one space) is appended to
 * text, and every offset of the script counts from where text ended before
 * the call.  NULL for no words or a line past SHELL_MAX_INPUT, in *err. */
struct shell_script *shell_argv(const char *const *argv, size_t argc, struct strbuf *text,
				struct shell_error *err);

/* Append w as one shell word that bash reads back as exactly w, and in
 * which no whitespace appears: the bytes up to the first one that needs
 * quoting as they are (letters, digits, _-./,:=+@%^, bytes >= 0x80, a ~
 * that is not at the start or after = or :, and the words [ and ]),
 * the rest in $'...' with whitespace and control bytes escaped (\n, \t,
 * \x20).  A word that is only such bytes is written as it is, so a
 * pattern over the line sees a flag like --force exactly, and a space
 * only ever separates words.  program: the first word of a command, where
 * "=" and reserved words (if, while, ...) are quoted too. */
void shell_quote_word(struct strbuf *sb, const char *w, bool program);

size_t shell_cmd_count(const struct shell_script *script);
const struct shell_cmd *shell_cmd_get(const struct shell_script *script, size_t i);

/* A deterministic text dump of the commands and their words, for tests. */
void shell_dump(const struct shell_script *script, struct strbuf *out);
void shell_dump_word(const struct shell_word *w, struct strbuf *out);

#endif
