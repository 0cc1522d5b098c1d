/* What a shell command will do: the parsed command line (shell.h) read
 * through the policy's program specs (rules/commands.cordon) into a list of
 * operations -- the programs it runs, the files it reads, writes and
 * deletes, the hosts it contacts.  No rule is consulted here; the evaluator
 * judges each operation (eval_command.c).
 *
 * Paths are absolute and lexically normal but not yet resolved through the
 * file system.  A path that is not fully known before the command runs is a
 * region: a directory and an anchored pcre2 pattern over the absolute paths
 * the word can name inside it. */
#ifndef CORDON_COMMAND_H
#define CORDON_COMMAND_H

#include "ir/ir.h"
#include "shell/shell.h"
#include "base/strmap.h"
#include "base/util.h"
#include "command_env.h"

enum cmd_path_kind {
	CMD_PATH_EXACT,  /* `path` is the whole value */
	CMD_PATH_REGION, /* `path` is a directory; `pattern` says which paths below it */
};

struct cmd_op {
	enum ir_op op;       /* IR_READ, IR_WRITE, IR_EXEC or IR_NET */
	const char *target;        /* path, directory of a region, host[:port] ("*": unknown), command */
	const char *shown;         /* the word as written, for the preview */
	const char *detail;        /* "delete, recursive (rm)", "redirection >", ... */
	/* paths */
	enum cmd_path_kind kind;
	const char *pattern;       /* REGION: regex over absolute paths */
	bool tree;           /* the path and everything below it */
	bool maybe;          /* the value is unknown before run time ($X, unknown cwd) */
	bool members;        /* a tree whose members are known only at run time (tar -x
			      * -C DIR): the path is known, what it reaches below may be */
	/* exec */
	bool opaque;
	bool unknown;        /* no program spec: what it does with its words is not seen */
	const char *caution;       /* why only a sandbox's environment bounds it, or NULL */
	const char *project;       /* `project;`: "make runs the project's code ...", or NULL */
	const struct shell_cmd *cmd;
	/* The exec words: the static value, or the source text of a dynamic
	 * word (then dyn[i] is set). */
	const char **words;
	bool *dyn;
	size_t nwords;
};

struct cmd_ops {
	struct cmd_op *v;
	size_t n, cap;
	/* The operations' strings and word lists, freed at once with them;
	 * a string that does not change may be a literal. */
	struct arena arena;
	/* Buffers the analysis reuses for a path's words (command.c). */
	struct strbuf scratch[3];
};

/* The analysis context: the directory the command starts in and the home
 * directory (either may be NULL: unknown). */
struct cmd_var {
	const char *name, *value;
};

struct cmd_env {
	const char *cwd;
	const char *home;
	/* Variables whose value the command will see, known before it runs
	 * (those the preset's env block sets, HOME); one the command string
	 * itself assigns is unknown again. */
	const struct cmd_var *vars;
	size_t nvars;
	const struct ir_policy *ir;
	const struct strmap *programs; /* program name -> index into ir->programs (its
					* spec_names), or NULL: looked up in ir */
	const struct cmd_names *names; /* the preset's env: secret and code names, or NULL */
	pcre2_match_data *md;          /* the caller's, for matching names */
	size_t text_len;               /* the script's length (cmd_analyse sets it) */
	bool sandboxed;                /* it runs under `cordon run`, whose proxy
					* checks each host it contacts */
};

/* The operations of every command of the script, in order. */
void cmd_analyse(const struct cmd_env *env, const struct shell_script *script,
		 const char *text, size_t len, struct cmd_ops *out);
void cmd_ops_free(struct cmd_ops *ops);

#endif
