/* The splitter's own state, shared by its files: shell_split.c walks the
 * tree and follows the directory, shell_wrap.c knows the wrappers and
 * their options, shell_resolve.c looks through them (and into the strings
 * shells and other programs run). */
#ifndef CORDON_SHELL_SPLIT_H
#define CORDON_SHELL_SPLIT_H

#include "shell_int.h"
#include "base/strmap.h"

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

/* The wrappers found so far, in the arena. */
struct wlist {
	struct shell_wrapper *v;
	size_t n, cap;
};

const char *sp_cwd_join(struct split *sp, const char *base, const struct shell_word *w,
			    bool logical);
const char *sp_cwd_add(struct split *sp, const char *base, const char *dir, bool home,
			   bool logical);
struct shell_cmd *sp_new_cmd(struct split *sp, const struct ctx *c, size_t start, size_t end,
				 const char *cwd);
bool sp_starts_with(const char *s, const char *prefix);
const char *sp_arena_printf(struct arena *a, const char *fmt, ...) PRINTF_LIKE(2, 3);
void sp_set_opaque(struct shell_cmd *cmd, const char *reason);
const struct wrapper_spec *sp_find_spec(const char *name);
void sp_parse_opts(const struct wrapper_spec *ws, const struct shell_cmd *cmd, size_t i,
		       struct opts *o);
bool sp_in_list(const char *list, const char *s, size_t n);
void sp_wlist_add(struct split *sp, struct wlist *l, const struct shell_cmd *cmd, size_t from,
		      size_t to);
void sp_wlist_init(struct split *sp, struct wlist *l, const struct shell_wrapper *from,
		       size_t n);
bool sp_unquoted_expansion(const struct shell_cmd *cmd);
void sp_resolve(struct split *sp, struct shell_cmd *cmd, const struct ctx *c,
		    const char **cwd);
/* shell_hidden.c: text bash evaluates where the analysis cannot read it.
 * Each returns why, or NULL. */
const char *sp_hidden_part(const struct shell_part *p);
const char *sp_hidden_assign(const struct shell_assign *a, bool alone);
const char *sp_hidden_cmd(const struct shell_cmd *cmd);
/* A command of its own whose one word is text; sp_emit_hidden's is opaque. */
struct shell_cmd *sp_emit_text(struct split *sp, const struct ctx *c, const char *cwd,
			      const char *text, size_t start, size_t end);
void sp_emit_hidden(struct split *sp, const struct ctx *c, const char *cwd, const char *text,
		    size_t start, size_t end, const char *reason);
void sp_walk(struct split *sp, const struct shell_node *n, const struct ctx *c,
		 const char **cwd);

#endif
