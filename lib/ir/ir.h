/* The checked intermediate representation: one flattened record per preset
 * (inheritance resolved, top-level rules merged), each rule keeping where it
 * was written and which preset it came from.  Context variables stay
 * symbolic (see IR_VAR_OPEN) until a context substitutes them. */
#ifndef CORDON_IR_H
#define CORDON_IR_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/source.h"
#include "base/util.h"
#include "base/strmap.h"

/* A context variable inside IR text is written VAR_OPEN name VAR_CLOSE;
 * source strings cannot contain these bytes, so literal text never
 * collides with a reference. */
#define IR_VAR_OPEN '\x01'
#define IR_VAR_CLOSE '\x02'

/* Every operation of a rule or request, once: the enum, the names, the
 * checker's list of them and the public enum cordon_op (checked entry by
 * entry in ir.c) come from this list.  X(ID, name, paths): paths, its
 * patterns are paths (canonicalised, matched by components).  The order
 * is the public API's and the canonical rule order's. */
#define IR_OPS(X) \
	X(READ, "read", 1) \
	X(WRITE, "write", 1) \
	X(EXEC, "exec", 0) \
	X(NET, "net", 0) \
	X(TOOL, "tool", 0)

/* IR_PROTECT: a protect pattern, matched as a path for no operation of
 * its own; it is no request's operation and has no name. */
enum ir_op {
	IR_PROTECT = -1,
#define IR_OP_ENUM(id, name, paths) IR_##id,
	IR_OPS(IR_OP_ENUM)
#undef IR_OP_ENUM
	IR_OP_COUNT
};

/* Every effect, once, as IR_OPS.  X(ID, name).  Ordered by severity: a
 * later entry is more severe (the evaluator takes the largest). */
#define IR_EFFECTS(X) \
	X(ALLOW, "allow") \
	X(ASK, "ask") \
	X(DENY, "deny")

enum ir_effect {
#define IR_EFFECT_ENUM(id, name) IR_##id,
	IR_EFFECTS(IR_EFFECT_ENUM)
#undef IR_EFFECT_ENUM
	IR_EFFECT_COUNT
};
/* IR_APPROVAL_CONSOLE: an ask as IR_APPROVAL_ASK, which the hook and
 * `cordon run` send to the approval console and wait for, at most
 * approval_timeout seconds (docs/approvals.md, "The console"). */
enum ir_approval { IR_APPROVAL_ASK, IR_APPROVAL_NEVER, IR_APPROVAL_CONSOLE, IR_APPROVAL_COUNT };

/* `approval console;` without a time waits this long (seconds), and no
 * longer than the bound. */
#define IR_CONSOLE_TIMEOUT_DEFAULT 120
#define IR_CONSOLE_TIMEOUT_MAX 3600
enum ir_sandbox { IR_SANDBOX_REQUIRED, IR_SANDBOX_NONE, IR_SANDBOX_COUNT };
/* IR_PAT_OPAQUE: `exec opaque`, the parts of a command that cannot be
 * analysed statically ($CMD, eval, a substitution as the program).
 * IR_PAT_EXACT: `read exact "/p"`, a path without wildcards that means
 * that one path and nothing below it (an IR_PAT_LITERAL path means its
 * subtree too). */
enum ir_pat_kind { IR_PAT_LITERAL, IR_PAT_GLOB, IR_PAT_REGEX, IR_PAT_OPAQUE, IR_PAT_EXACT };

enum ir_ctx_var {
	CTX_WORKSPACE,
	CTX_CWD,
	CTX_HOME,
	CTX_TMP,
	CTX_AGENT_DIR,
	CTX_SESSION_DIR,
	CTX_USER,
	CTX_COUNT
};

/* Specificity of a pattern's text: the literal prefix before any wildcard
 * (for hosts, every literal character of the host, plus one for a port)
 * and the number of wildcards (a "**" counts twice). */
struct ir_specificity {
	unsigned literal;
	unsigned wildcards;
};

struct ir_pattern {
	enum ir_pat_kind kind;
	char *text;  /* path, host, tool or command prefix; NULL for a bare regex */
	char *regex; /* pcre2 source, or NULL */
};

struct ir_rule {
	enum ir_op op;
	struct ir_pattern pat;
	enum ir_effect effect;
	char *reason;        /* or NULL */
	struct loc origin;
	char *from;          /* declaring preset, or NULL for a top-level rule */
	unsigned tier;       /* 0 own, 1 parent, ...; top-level rules last */
	struct ir_specificity spec; /* of pat, kept for sorting (ir_rule_cmp) */
};

struct ir_protect {
	struct ir_pattern pat;
	struct loc origin;
	char *from;          /* declaring preset, or NULL at top level */
};

struct ir_env_set {
	char *name, *value;
	struct loc origin;
};

struct ir_env {
	char **keep;         /* names or globs */
	size_t nkeep, keep_cap;
	struct ir_env_set *set;
	size_t nset, set_cap;
	struct ir_pattern *drop; /* globs or regexes on names */
	size_t ndrop, drop_cap;
	/* What the shell analysis judges for a host without the sandbox:
	 * names of variables that hold secrets (expanding or printing one),
	 * and of variables that change which code runs (setting one). */
	struct ir_pattern *secret, *code;
	size_t nsecret, secret_cap, ncode, code_cap;
};


/* Resource limits (`limits { ... }` in a preset).  The first five are
 * setrlimit(2) limits set just before the command runs; memory is a
 * cgroup limit, and processes is a cgroup limit too where a cgroup can be
 * had.  A value is a count, bytes or seconds; unlimited lifts a parent's
 * value.  best_effort: where the machine cannot apply it, the command
 * runs without it; otherwise it fails closed. */
enum ir_limit {
	IR_LIMIT_PROCESSES,
	IR_LIMIT_OPEN_FILES,
	IR_LIMIT_FILE_SIZE,
	IR_LIMIT_CPU_TIME,
	IR_LIMIT_ADDRESS_SPACE,
	IR_LIMIT_MEMORY,
	IR_LIMIT_COUNT
};
enum ir_limit_unit { IR_UNIT_COUNT, IR_UNIT_BYTES, IR_UNIT_SECONDS };

struct ir_limit_value {
	bool set;            /* written in this preset or an ancestor */
	bool unlimited;
	bool best_effort;
	unsigned long long value;
	struct loc origin;
	char *from;          /* declaring preset */
};

extern const char *const ir_limit_names[IR_LIMIT_COUNT];
extern const enum ir_limit_unit ir_limit_units[IR_LIMIT_COUNT];
/* A value as the language spells it: 512, 8G, 10m, unlimited. */
void ir_limit_print(struct strbuf *sb, enum ir_limit which, const struct ir_limit_value *v);

struct ir_preset {
	char *name;
	char *parent;        /* or NULL */
	char *description;   /* or NULL */
	enum ir_approval approval;
	unsigned approval_timeout; /* seconds, with IR_APPROVAL_CONSOLE */
	enum ir_sandbox sandbox;
	struct loc loc;
	struct ir_rule *rules;
	size_t nrules, rules_cap;
	struct ir_protect *protect;
	size_t nprotect, protect_cap;
	struct ir_env env;
	struct ir_limit_value limits[IR_LIMIT_COUNT];
};

struct ir_binding {
	enum ir_ctx_var var;
	char *value;
	struct loc origin;
};

struct ir_expect {
	enum ir_effect effect;
	enum ir_op op;
	char *target; /* NULL for an exec given as argv */
	char **argv;  /* expect EFFECT exec argv [...]: the words */
	size_t argc;
	struct loc origin;
};

struct ir_test {
	char *name;
	char *preset;
	struct loc loc;
	struct ir_binding *context;
	size_t ncontext, context_cap;
	struct ir_expect *expects;
	size_t nexpects, expects_cap;
};

/* Program specs: what a program does with its operands and options, so a
 * shell command can be turned into the reads, writes and contacts it makes.
 * They are policy data (rules/commands.cordon); a later spec for a name
 * replaces an earlier one, so an administrator can override the shipped
 * ones. */
/* Every role of a program spec, once: the enum, the names, where the
 * checker accepts it and how the analysis reads it come from this list.
 * X(ID, name, operand, option, arg): operand, the role can be given to
 * operands (`operands ROLE`, `first ROLE`); option, to options; arg, as an
 * option's role, the option takes the next word (or its =VALUE). */
#define IR_ROLES(X) \
	/* operands: ignored */ \
	X(NONE, "none", 1, 0, 1) \
	X(READ, "read", 1, 1, 1) \
	X(WRITE, "write", 1, 1, 1) \
	/* a write that removes */ \
	X(DELETE, "delete", 1, 1, 1) \
	/* a host or URL */ \
	X(NET, "net", 1, 1, 1) \
	/* code: the part cannot be analysed (python -c) */ \
	X(OPAQUE, "opaque", 1, 1, 1) \
	/* option: takes an argument that means nothing here */ \
	X(ARG, "arg", 1, 1, 1) \
	/* option: takes the directory the program works in (git -C) */ \
	X(CWD, "cwd", 1, 1, 1) \
	/* option flag: the operands are written (sed -i) */ \
	X(MODIFIES, "modifies", 0, 1, 0) \
	/* option flag: operands are whole trees (rm -r) */ \
	X(RECURSIVE, "recursive", 0, 1, 0) \
	/* option flag without meaning here */ \
	X(FLAG, "flag", 0, 1, 0) \
	/* option: takes the program's code or pattern; `first` no longer \
	 * applies */ \
	X(SCRIPT, "script", 0, 1, 1) \
	/* option: takes a file of code, read; `first` no longer applies */ \
	X(SCRIPTFILE, "scriptfile", 0, 1, 1) \
	/* a file of code the program runs (bash FILE): read, and the part is \
	 * opaque; "-" is the program read from stdin */ \
	X(RUN, "run", 1, 1, 1) \
	/* option flag: rewrites or deletes shared history (git push \
	 * --force); the part also runs as PROG SUB... FIRST-NAME, so one \
	 * rule on the first name catches every spelling */ \
	X(REWRITES, "rewrites", 0, 1, 0) \
	/* operand: a git refspec; "+SRC:DST" forces, ":DST" deletes */ \
	X(REFSPEC, "refspec", 1, 0, 1) \
	/* a sed program: its w/W files are written, r/R files read, and an e \
	 * command or flag runs code; `first` no longer applies */ \
	X(SEDSCRIPT, "sedscript", 1, 1, 1) \
	/* option flag: files it does not name land below the directory it \
	 * works in (tar -x); the operands named are written */ \
	X(EXTRACTS, "extracts", 0, 1, 0) \
	/* option: takes the directory extracted files land in (unzip -d) */ \
	X(INTO, "into", 0, 1, 1) \
	/* option flag: nothing is written (a listing or a dry run: unzip -l, \
	 * git clean -n) */ \
	X(LISTS, "lists", 0, 1, 0) \
	/* option flag: the spec's `delete` paths are deleted only with it, \
	 * and the operands written are deleted trees (git stash -u) */ \
	X(DELETES, "deletes", 0, 1, 0) \
	/* operand, option flag: the program changes its `changes` paths (git \
	 * tag NAME, git config KEY VALUE, git config --unset) */ \
	X(CHANGES, "changes", 1, 1, 0) \
	/* option flag with a path: its changes go to that file instead of \
	 * the `changes` paths (git config --global) */ \
	X(STORE, "store", 0, 1, 0) \
	/* operand: a variable's name, whose value the program prints \
	 * (printenv NAME) */ \
	X(VARIABLE, "variable", 1, 0, 1) \
	/* option: takes a module the program runs (python3 -m pip): opaque, \
	 * and the words after it are read against the module's spec too */ \
	X(MODULE, "module", 0, 1, 1) \
	/* an awk program: print > FILE is written, getline < FILE read; \
	 * system(), pipes, ENVIRON, ARGV make the part opaque */ \
	X(AWKSCRIPT, "awkscript", 1, 1, 1) \
	/* operand with a path: a branch's start point; one that may be a \
	 * remote-tracking branch (a '/', an '@{', a value known only at run \
	 * time) becomes its upstream, kept in that path (git branch NAME \
	 * origin/main writes .git/config) */ \
	X(UPSTREAM, "upstream", 1, 0, 1) \
	/* option: takes the name of a new branch; the operands in the role \
	 * upstream are its start point only with it (git checkout -b) */ \
	X(CREATES, "creates", 0, 1, 1) \
	/* option: takes data the program sends: @FILE (name=@FILE, \
	 * name=<FILE, name@FILE) reads FILE, other text reads nothing */ \
	X(DATA, "data", 0, 1, 1) \
	/* option with a host: given, the program contacts that host too \
	 * (curl -L: "*", a host known only at run time); besides the \
	 * option's own role where it is listed with another too */ \
	X(CONTACTS, "contacts", 0, 1, 0) \
	/* option: takes two words that mean nothing here (jq --arg NAME \
	 * VALUE) */ \
	X(PAIR, "pair", 0, 1, 0) \
	/* option: takes a name, then a file it reads (jq --rawfile NAME \
	 * FILE) */ \
	X(NAMEDREAD, "namedread", 0, 1, 0) \
	/* operand, option, env: where the program fetches from (npm \
	 * --registry, pip -i, GOPROXY); given, it replaces the spec's `net` \
	 * hosts: a URL, or a list of them split at ',' or '|', where \
	 * `direct` is a host known only at run time and `off` none */ \
	X(REGISTRY, "registry", 1, 1, 1) \
	/* operand, option: a git repository fetched from: a URL, a path or a \
	 * remote's name, resolved through git's config; it replaces the \
	 * spec's `net` hosts, and with none given the default remote does */ \
	X(FETCHURL, "fetchurl", 1, 1, 1) \
	/* the same, pushed to (remote.NAME.pushurl, pushInsteadOf) */ \
	X(PUSHURL, "pushurl", 1, 1, 1) \
	/* the same, from outside any repository: only the user's and the \
	 * system's config apply (git clone) */ \
	X(CLONEURL, "cloneurl", 1, 1, 1)

enum ir_role {
#define IR_ROLE_ENUM(id, name, operand, option, arg) ROLE_##id,
	IR_ROLES(IR_ROLE_ENUM)
#undef IR_ROLE_ENUM
	ROLE_COUNT
};

extern const char *const ir_role_names[ROLE_COUNT];
/* Where a role may be given, and whether an option in it takes a word. */
extern const bool ir_role_operand[ROLE_COUNT], ir_role_option[ROLE_COUNT],
	ir_role_takes_arg[ROLE_COUNT];

struct ir_option {
	char **names;   /* "-i", "--in-place" */
	size_t nnames;
	enum ir_role role;
	char *path;     /* store: the file its changes go to; contacts: the host */
	struct loc origin;
};

/* A spec's option and subcommand names, indexed the first time they are
 * looked up (ir_spec_option, ir_spec_sub, ir_spec_declares): the analysis
 * of a command looks up each of its words there. */
struct ir_spec_index {
	atomic_bool built;
	struct strmap options; /* option name -> indices into options, ascending */
	struct strmap subs;    /* subcommand name -> indices into subs, ascending */
	size_t *glob_subs;     /* the subcommands with a name holding '*', ascending */
	size_t nglob_subs;
	uint64_t roles;        /* bit r: an option has role r */
};

/* A spec of a policy file built into cordon whose body is read the first
 * time the spec is looked up (lib/lang/load_defer.c): text (of static
 * duration) holds the `program` statement at [start, end) of file, and
 * read, the checker's, fills the spec from it.  A subcommand directly in
 * such a program is read likewise, when it is first looked up after its
 * program: its statement is at [sub_start, sub_end), open is past the
 * program body's '{', and up is the program's spec (which has been read). */
struct ir_spec_deferred {
	const char *text;
	uint32_t file, start, end;
	void (*read)(void *spec);
	uint32_t sub_start, sub_end, open;
	const struct ir_spec *up;
};

struct ir_spec {
	char **names;   /* program basenames, or subcommand words */
	size_t nnames;
	/* The body, from operands up to origin: what a deferred spec's first
	 * lookup fills in (check_program.c copies that range). */
	enum ir_role operands, first, last;
	bool has_first, has_last;
	bool recursive; /* `recursive;`: operands are whole trees */
	bool extracts;  /* `extracts;`: files it does not name land below its directory */
	char *extracts_dir; /* `extracts "PATH";`: below PATH instead ("*": a directory
			     * known only at run time, make install's prefix) */
	bool environment; /* `environment;`: it prints the environment (env, printenv) */
	bool remote;    /* `remote;`: a HOST:PATH operand is a contact of HOST (rsync, scp) */
	bool targets;   /* `targets;`: any operand selects a subcommand (make all install) */
	bool project;   /* `project;`: it runs code from the project's files (make: the
			 * Makefile; npm test: package.json; pytest: conftest.py) */
	bool host;      /* `host;`: it changes the host outside the files it names
			 * (processes, services, network links: pkill, systemctl restart) */
	bool shell_escape; /* `shell_escape;`: it runs shell commands its input asks
			    * for (vim's :!, less's !) */
	char *bare;     /* `bare "install";`: the subcommand run without one (yarn) */
	char *implied;  /* `implied "typescript";`: the operand taken when none is given */
	char *upstream; /* `last upstream ".git/config";`: where a start point's upstream goes */
	/* `config "~/.curlrc", ... unless "-q";`: config files it reads by
	 * default, which may make it contact any host, unless its first
	 * word is the option named (or a name declared with it) */
	char **configs;
	size_t nconfigs, configs_cap;
	char *config_unless;
	struct loc config_loc;
	/* `config ".npmrc", "~/.npmrc" net "registry";`: config files whose
	 * KEY = VALUE lines name hosts it contacts too (names: the paths;
	 * path: the key, a glob; role: net) */
	struct ir_option *configkeys;
	size_t nconfigkeys, configkeys_cap;
	struct ir_option *options;
	size_t noptions, options_cap;
	struct ir_spec *subs;
	size_t nsubs, subs_cap;
	/* `getenv "GOPROXY" registry;`: variables of the program's environment
	 * that name where it goes; names holds the variables */
	struct ir_option *envs;
	size_t nenvs, envs_cap;
	char **hosts;   /* `net "host";`: contacts made whatever the words; "*" unknown */
	size_t nhosts, hosts_cap;
	/* `read "path";`, `write ".git";`: paths used whatever the words,
	 * relative to the program's working directory */
	char **reads, **writes;
	size_t nreads, reads_cap, nwrites, writes_cap;
	/* `delete ".";`: the trees the program deletes from when no operand
	 * says where (git clean removes the untracked files of its directory) */
	char **deletes;
	size_t ndeletes, deletes_cap;
	/* `changes ".git";`: paths written when an operand or flag says it
	 * changes something (git tag NAME; a bare `git tag` lists) */
	char **changes;
	size_t nchanges, changes_cap;
	struct loc origin;
	struct ir_spec_index index;
	/* Set for a program whose body is read at its first lookup, which
	 * sets read; its names are read at load (a later spec may take some) */
	struct ir_spec_deferred *deferred;
	atomic_bool read;
};

/* A `let`, kept for analyses of the policy as written (unused variables). */
struct ir_let {
	char *name;
	struct loc loc;
	bool used;
};

/* A redaction pattern: secrets it matches in audit records and in output
 * returned by `cordon run --redact` become [REDACTED:name].  A later
 * pattern with the same name replaces an earlier one in place. */
struct ir_redact {
	char *name;
	char *regex;    /* pcre2 source, checked */
	struct loc origin;
};

struct ir_policy {
	struct ir_preset *presets;  /* sorted by name */
	size_t npresets, presets_cap;
	struct ir_test *tests;      /* in source order */
	size_t ntests, tests_cap;
	char *default_preset;       /* or NULL */
	struct loc default_loc;     /* of the `default` statement, when there is one */
	/* `lower_layers deny;` (a managed layer's setting, docs/fleet.md): no
	 * policy may be layered under this one.  lower_layers_loc is where it
	 * was said; lower_layers_set whether it was said at all. */
	bool lower_layers_denied, lower_layers_set;
	struct loc lower_layers_loc;
	struct ir_let *lets;        /* in definition order */
	size_t nlets, lets_cap;
	struct ir_spec *programs;   /* sorted by first name */
	size_t nprograms, programs_cap;
	struct ir_redact *redacts;  /* in definition order */
	size_t nredacts, redacts_cap;
	/* Program name -> index in programs of the spec that names it last
	 * (check_program.c), or NULL when there are none: while checking, the
	 * index before the specs are sorted; after, the one in programs. */
	struct strmap *spec_names;
};

/* The spec for a program name (basename), or NULL. */
const struct ir_spec *ir_program_find(const struct ir_policy *ir, const char *name);
void ir_spec_free(struct ir_spec *s);
/* s, its body read now if it was deferred (NULL for NULL): every lookup of
 * a program's spec goes through it before the spec is read. */
const struct ir_spec *ir_spec_ready(const struct ir_spec *s);
/* Index the names of s now, rather than at its first lookup; s must not
 * change after. */
void ir_spec_index(struct ir_spec *s);
void ir_spec_index_free(struct ir_spec_index *x);
/* The first option of s one of whose names is the n bytes of name, or
 * NULL (s NULL too). */
const struct ir_option *ir_spec_option(const struct ir_spec *s, const char *name, size_t n);
/* The first subcommand of s that word selects: a name equal to it, or a
 * name with a '*' that matches it as a glob; NULL when none does. */
const struct ir_spec *ir_spec_sub(const struct ir_spec *s, const char *word);
/* Does an option of s (NULL: none) have role role? */
bool ir_spec_declares(const struct ir_spec *s, enum ir_role role);

extern const char *const ir_op_names[IR_OP_COUNT];
/* Whether an operation's patterns are paths (IR_OPS' third column). */
extern const bool ir_op_paths[IR_OP_COUNT];
extern const char *const ir_effect_names[IR_EFFECT_COUNT];
/* The words of the approval and sandbox settings. */
extern const char *const ir_approval_names[IR_APPROVAL_COUNT];
extern const char *const ir_sandbox_names[IR_SANDBOX_COUNT];
extern const char *const ir_ctx_var_names[CTX_COUNT];

/* Whether op's patterns are paths (read, write and protect). */
static inline bool ir_op_on_paths(enum ir_op op)
{
	return op == IR_PROTECT || (op >= 0 && op < IR_OP_COUNT && ir_op_paths[op]);
}

int ir_ctx_var_lookup(const char *name, size_t len);
bool ir_ctx_var_is_path(enum ir_ctx_var var);
const struct ir_preset *ir_preset_find(const struct ir_policy *ir, const char *name);
void ir_policy_free(struct ir_policy *ir);
void ir_env_free(struct ir_env *env);

/* Values for context variables; NULL entries stay symbolic. */
struct ir_context {
	const char *value[CTX_COUNT];
};

/* Substitute context values into IR text.  Returns a new string, or NULL
 * with *missing set to the first variable that has no value when
 * require_all is set. */
char *ir_text_subst(const char *text, const struct ir_context *ctx, bool require_all,
		    int *missing);
/* IR text in source spelling: ${var} for references, \$ for a literal $. */
void ir_text_print(struct strbuf *sb, const char *text);
/* A pattern as the IR dump shows it: quoted text, /regex/, or opaque. */
void ir_pattern_print(struct strbuf *sb, const struct ir_pattern *p);

struct ir_specificity ir_pattern_specificity(enum ir_op op, const struct ir_pattern *p);
struct ir_specificity ir_host_specificity(const char *host_port);
/* The literal start of an anchored regex ("^/home/[^/]+" -> "/home/"),
 * malloc'd, or NULL when it may match anywhere or alternates at the top. */
char *ir_regex_prefix(const char *re);

/* The canonical rule order: by operation, most specific first, then by
 * text, tier and severity; a qsort comparator over struct ir_rule, which
 * reads each rule's cached `spec` (set it with ir_pattern_specificity). */
int ir_rule_cmp(const void *a, const void *b);
/* Substitute the context values that are set; paths are re-normalised. */
char *ir_text_resolve(const char *text, const struct ir_context *ctx, bool is_path);

#endif
