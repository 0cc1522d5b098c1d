/* What the files of the command analysis share: command.c records the
 * operations and reads redirections and commands, command_spec.c reads a
 * command through its program's spec, command_fixed.c adds what the spec
 * says it touches whatever its words, command_lang.c reads the programs
 * of sed and awk. */
#ifndef CORDON_COMMAND_INT_H
#define CORDON_COMMAND_INT_H

#include "command.h"

struct operand {
	const struct shell_word *w;
	enum ir_role role;
};

struct reading {
	const struct cmd_env *env;
	const char *text;
	const struct shell_cmd *c;
	struct cmd_ops *out;
	const char *prog;
	char *dir;           /* where operands are resolved */
	bool modifies, recursive, script, opaque;
	bool extracts, lists, deletes, changes;
	bool remote;         /* HOST:PATH operands are contacts (`remote;`) */
	bool project;        /* it runs the project's code (`project;`: make, npm test) */
	bool host;           /* it changes the host beyond its files (`host;`: pkill) */
	bool shell_escape;   /* its input may run commands (`shell_escape;`: vim) */
	bool stdin_code;     /* its code comes from standard input (python3 <<EOF) */
	char *into;          /* where extracted files land (unzip -d), or NULL: dir */
	const char *extracts_dir; /* the spec's `extracts "PATH";`, or NULL */
	bool into_set;       /* an `into` option was given (into NULL: unknown) */
	const char *store;   /* the file changes go to (git config --global), or NULL */
	const char *changed[4]; /* paths flags change too (git branch -d: .git/config) */
	const char *upstream; /* where a start point's upstream goes (the spec's
			       * `upstream` path), set while the operands are read */
	bool creating;       /* a `creates` option was given (git checkout -b NAME) */
	size_t nchanged;
	/* The hosts `contacts` options given add (curl -L: "*"), each with
	 * the option's name */
	const char *contacted[4], *contacted_by[4];
	size_t ncontacted;
	struct operand *ops;
	size_t nops, cap;
	const char *subs[4]; /* the subcommand words read so far */
	size_t nsubs;
	const char *rewrote[4]; /* the history-rewriting spellings recorded */
	size_t nrewrote;
	/* The spec's `net` hosts a registry or a repository named replaces:
	 * all of them, or those listed */
	bool replaced_all;
	const char *replaced[4];
	size_t nreplaced;
	bool git_named;      /* an operand or option named the git repository */
	const struct ir_option *opt; /* the option whose value is being read, or NULL */
};

char *ca_host_of(const char *v);
const struct ir_spec *ca_find_program(const struct cmd_env *env, const char *prog);
const char *ca_known_value(const struct cmd_env *env, const struct shell_part *p);
bool ca_is_sink(const char *v);
bool ca_name_char(char c);
/* Does text (len bytes) name the variable name anywhere, as a word? */
bool ca_mentions(const char *text, size_t len, const char *name, size_t n);
/* Where a program goes (command_place.c): a registry word (by: the option
 * that gave it; replaces: the spec's host it replaces, NULL: all); the
 * repository a git command goes to (w NULL: the default remote); after
 * the words, the spec's `getenv` items and the default remote; whether the
 * spec's host is replaced. */
void ca_registry_word(struct reading *r, const struct shell_word *w, const char *by,
		      const char *replaces);
void ca_git_place(struct reading *r, const struct shell_word *w, enum ir_role role);
void ca_places_done(struct reading *r, const struct ir_spec *sub, const struct ir_spec *prog);
bool ca_replaced(const struct reading *r, const char *host);
void ca_add_path(struct cmd_ops *out, const struct cmd_env *env, const char *dir,
		     const char *text, const struct shell_cmd *c, const struct shell_word *w,
		     enum ir_op op, bool tree, const char *detail);
char *ca_cmd_dir(const struct cmd_env *env, const char *rel);
struct cmd_op *ca_push(struct cmd_ops *out, enum ir_op op, const struct shell_cmd *c);
void ca_add_net(struct cmd_ops *out, const struct shell_cmd *c, const char *host,
		    const char *shown, const char *detail);
const char *ca_word_source(struct cmd_ops *out, const char *text, const struct shell_word *w);
/* Strings in the operations' arena: a copy of s (NULL stays NULL), of its
 * first n bytes, of what sb holds (sb is freed), of heap string s (s is
 * freed), a formatted one. */
const char *ca_keep(struct cmd_ops *out, const char *s);
const char *ca_keepn(struct cmd_ops *out, const char *s, size_t n);
const char *ca_keep_sb(struct cmd_ops *out, struct strbuf *sb);
const char *ca_own(struct cmd_ops *out, char *s);
const char *ca_printf(struct cmd_ops *out, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* The strings up to a NULL, joined: in the operations' arena; or in buf,
 * cut to size - 1 bytes as snprintf would cut them.  The details of the
 * operations are built so, for a format costs more than the copy. */
const char *ca_cat(struct cmd_ops *out, ...) __attribute__((sentinel));
void ca_join(char *buf, size_t size, ...) __attribute__((sentinel));
void ca_read_spec(struct reading *r, const struct ir_spec *prog, size_t from);
/* What the program touches whatever its words (command_fixed.c): the
 * spec's own paths and hosts, those of its default config and of the
 * options given, after the words were read; one such path. */
void ca_fixed_places(struct reading *r, const struct ir_spec *sub, const struct ir_spec *prog);
void ca_fixed_path(struct reading *r, const char *path, bool write, bool tree);
void ca_read_wrapper(struct reading *r, const struct ir_spec *spec, size_t at, size_t nwords);
void ca_find_deletes(struct reading *r);
void ca_sed_scan(struct reading *r, const char *s);
void ca_awk_scan(struct reading *r, const char *s);

#endif
