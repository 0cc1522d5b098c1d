/* The git config keys whose value git runs or loads, or that let git run
 * a program without naming one: one table (git_keys.c), read by the shell
 * analysis (git -c KEY=VALUE, git config KEY VALUE), by the launch
 * (host_hooks.c: the paths such a value names are protected) and after a
 * call (host_nested_git.c: a nested repository that sets one is disarmed). */
#ifndef CORDON_GIT_KEYS_H
#define CORDON_GIT_KEYS_H

#include <stdbool.h>
#include <stddef.h>

/* How git uses the value of a key of the table. */
enum git_value_kind {
	GIT_RUNS,             /* a command or program: the shell words that name files */
	GIT_RUNS_BANG,        /* one only when it starts with '!' (alias.*) */
	GIT_RUNS_UNLESS_BOOL, /* one unless it is a boolean (core.fsmonitor) */
	GIT_HOOKS_DIR,        /* the directory git runs hooks from */
	GIT_TEMPLATE_DIR,     /* the directory git init and clone copy hooks from */
	GIT_INCLUDE,          /* a file of config */
	GIT_ENABLES,          /* names no program, but lets git run one (protocol.allow,
				 url.*.insteadOf to an ext:: URL, ssh.variant) */
};

struct git_config_value {
	const char *label;    /* the key as git-config(1) names it; static */
	char *value;
	enum git_value_kind kind;
};

/* A key of the table: its label and kind, or NULL.  The section and key
 * as written (any case); has_sub: a subsection was given. */
const char *git_key_find(const char *section, size_t slen, bool has_sub, const char *key,
			 size_t klen, enum git_value_kind *kind);
/* The same for a key written whole, "diff.pdf.textconv" (up to an '=' or
 * the end): git -c's and git config's spelling. */
const char *git_key_find_dotted(const char *name, enum git_value_kind *kind);
/* The i-th environment variable that names a program or directory git
 * runs or copies from (GIT_EDITOR, GIT_TEMPLATE_DIR, GIT_EXEC_PATH, ...),
 * and how its value is used; NULL past the last. */
const char *git_env_program_at(size_t i, enum git_value_kind *kind);
size_t git_key_count(void);
const char *git_key_at(size_t i);
/* Whether the value makes git run or load something (not "true" for
 * core.fsmonitor, not an alias without '!', never a GIT_ENABLES key's). */
bool git_value_runs(const struct git_config_value *v);
/* Each path the value names, as written (relative, ~, absolute): the
 * directory or file of a path key; the words of a command that name a
 * file (a slash or a leading ~, or a file that exists below top).  A word
 * with an expansion ($, `) is not followed. */
void git_value_paths(const struct git_config_value *v, const char *top,
		     void (*each)(void *arg, const char *path), void *arg);

#endif
