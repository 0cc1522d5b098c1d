/* What every lowering shares: a preset with its context applied, reduced to
 * the paths a sandbox can express, each decided by the evaluator itself so
 * that a mount plan or a profile grants exactly what a decision would.
 *
 * Only literal path rules can become mounts or path-beneath rules.  A glob
 * or regex rule that would deny or ask is kept as an advisory: the file
 * tools enforce it through decisions, the sandbox cannot (lower_*.c list
 * them in their output; nothing is dropped silently). */
#ifndef CORDON_LOWER_H
#define CORDON_LOWER_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "cordon/lowering.h"
#include "base/git_keys.h"
#include "cordon/plan.h"
#include "decide/eval.h"

enum lower_why {
	LOWER_READ_ROOT,     /* a literal read allow */
	LOWER_WRITE_ROOT,    /* a literal write allow */
	LOWER_READ_ONLY,     /* a protection, or a write deny/ask, under a write root */
	LOWER_MASK,          /* a read deny/ask under a read root */
};

struct lower_path {
	char *path;          /* canonical */
	enum lower_why why;
	const char *origin;  /* "file:line:col" of the rule, borrowed from the evaluator */
	bool protect;        /* READ_ONLY because of a protection */
	bool expanded;       /* a MASK found at launch: a path a glob or regex matched */
	bool config;         /* a git config a protected one includes: a missing one is
				fenced as an empty file */
	bool entries;        /* from the entries of a directory a glob write rule covers
				(lower_host.c): READ_ONLY, the home directory's top level;
				WRITE_ROOT, an entry of it bound back writable */
};

/* A symlink a root is reached through on the host (/bin -> usr/bin): the
 * plan binds what it resolves to, so the link itself is made again in the
 * sandbox where nothing bound from the host shows it. */
struct lower_link {
	char *path;          /* the link, canonical up to its last component */
	char *target;        /* what it holds, as readlink gives it */
	const char *origin;
};

struct lower_advisory {
	enum ir_op op;       /* read or write */
	char *pattern;       /* as shown: "glob" or /regex/ */
	enum ir_effect effect;
	const char *origin;
	const struct ev_rule *rule; /* borrowed from the evaluator */
};

struct lower_env_var {
	const char *name;    /* borrowed from the IR */
	char *value;         /* context applied */
	char *origin;        /* "file:line:col" of the set */
};

/* A root's path as its rule wrote it: the symlinks along it are read
 * with the host (lower_host_read). */
struct lower_link_source {
	const char *path;    /* borrowed from the rule or the grant; read by lower_host_read only */
	const char *origin;
};

/* What one path is on the host, as the snapshot holds it. */
struct lower_fact {
	char *path;
	int lstat_errno;     /* 0: lstat succeeded */
	unsigned mode;       /* lstat's st_mode */
	bool stat_dir;       /* stat, links followed, says a directory */
	int stat_errno;      /* 0: stat succeeded */
	bool writable;       /* access(W_OK) */
	int got;             /* which of stat and access were read (lower_host.c) */
};

/* The host facts the lowerings need, read once (lower_host_read) by the
 * runner, or by `cordon compile` and `cordon diff` for their user: the
 * lowerings themselves read nothing but this. */
struct lower_host {
	bool read;
	char **env;          /* the environment filtered, "NAME=VALUE", NULL-terminated */
	size_t nenv;
	struct lower_fact *facts; /* sorted by path */
	size_t nfacts, facts_cap;
	struct lower_link *links; /* the links roots are reached through, in the order found */
	size_t nlinks, links_cap;
	int landlock_abi;    /* the running kernel's (cordon_landlock_abi) */
	char *landlock_abi_shown; /* $CORDON_LANDLOCK_ABI: the ABI to show instead, or NULL */
	unsigned uid, gid;   /* who reads it: the caller a container config runs as */
	char **root_entries; /* "/usr", "/etc", ...: the entries of "/", sorted */
	size_t nroot_entries;
};

#define LOWER_RELAY_PORTS_MAX 64
struct lower_input {
	const cordon_evaluator *ev;
	const char *preset;
	bool restricted;     /* sandbox required */
	bool net_allowed;    /* some host may be contacted: through the egress proxy */
	const char *net_origin;
	/* "approval ID" when that approval's hosts alone opened the egress
	 * proxy (the preset allows no host), else NULL; net_origin is it. */
	char *net_approval;
	bool unix_allowed;   /* `net "unix" allow`: AF_UNIX sockets in the sandbox */
	/* Nothing looks at the workspace after the call (a container
	 * runtime's config, a Pod): every missing protected path is fenced,
	 * those of lower_after_call_* too. */
	bool no_after_call;
	/* The ports cordon-exec's transparent relay listens on: 80, 443 and
	 * each one a net rule that allows or asks names ("host:8080"). */
	int relay_ports[LOWER_RELAY_PORTS_MAX];
	size_t nrelay_ports;
	struct lower_path *paths;   /* sorted by path, then by `why` */
	size_t npaths, paths_cap;
	struct lower_advisory *advisories;
	size_t nadvisories, adv_cap;
	struct lower_link_source *link_sources; /* roots, as written, where the host is live */
	size_t nlink_sources, link_sources_cap;
	char **keep;         /* kept variable names and globs (borrowed) */
	size_t nkeep;
	struct ir_pattern *drop; /* borrowed */
	size_t ndrop;
	struct lower_env_var *set;
	size_t nset, set_cap;
	const char *workspace, *cwd, *tmp;
	struct cordon_limit limits[IR_LIMIT_COUNT]; /* in ir_limit order */
	size_t nlimits;
	/* The empty read-only regular file a file mask is bound from:
	 * "${tmp}.mask", beside the private temp dir and outside the
	 * sandbox's view; the runner makes it.  NULL without a tmp. */
	char *mask_file;
	struct lower_host host; /* lower_host_read's snapshot */
};

/* The public handle of a lowering (cordon/lowering.h, lowering_api.c). */
struct cordon_lowering {
	struct lower_input in;
};

/* Build the input of the lowerings.  Every directory context variable the
 * plan needs must have a value, and paths that would break a profile or an
 * argument vector (a newline, a NUL) are refused: -1 with *err. */
int lower_input_build(const cordon_evaluator *ev, struct lower_input *in, char **err);
/* The same for one approved call (struct cordon_path_grant: cordon/lowering.h):
 * each grant is a write root too, with the protections and denies inside it
 * taken back as in any other. */
int lower_input_build_granted(const cordon_evaluator *ev, const struct cordon_path_grant *grants,
			      size_t ngrants, struct lower_input *in, char **err);
void lower_input_free(struct lower_input *in);
/* The call's approval grants hosts: give the call its egress proxy even
 * where the preset allows no host.  True when the approval alone opened it
 * (in->net_approval, a copy of origin, is then set). */
bool lower_input_egress_for_approval(struct lower_input *in, const char *origin);

/* The resource limits (lower_limits.c): built with the input, the one
 * for a key or NULL, and the "limits" member of the bwrap plan's JSON. */
void lower_limits_build(const cordon_evaluator *ev, struct lower_input *in);
void lower_limits_free(struct lower_input *in);
const struct cordon_limit *lower_limit_find(const struct lower_input *in, enum ir_limit which);
void lower_limits_json(const struct lower_input *in, struct strbuf *sb);
/* Add masks found on the host (host_masks.c) and keep the paths sorted.
 * The paths are taken over. */
void lower_input_add_masks(struct lower_input *in, struct lower_path *masks, size_t n);
/* Whether a rule's text is "D/G", or that and a last "**" component, G one
 * component with a wildcard, D literal (*dir gets D, malloc'd); and
 * whether advisory `a` is such a write deny or ask of the home directory's
 * entries (`write "~/.*" ask`), which the bwrap plan enforces where a write
 * root holds the home directory (lower_host.c). */
bool lower_entries_glob(const char *text, char **dir);
bool lower_home_rule(const struct lower_input *in, const struct lower_advisory *a, char **dir);
/* Whether path lies in a write root of the plan (not one bound back from
 * a directory's entries), so that a command can write there. */
bool lower_in_write_root(const struct lower_input *in, const char *path);
/* The order of in->paths: by path, then by `why`. */
int lower_path_cmp(const void *a, const void *b);

/* Reads the host, so it runs at launch (host_hooks.c): where the
 * workspace's .git/hooks is protected, the directory core.hooksPath names
 * (in the system's, the user's or the repository's git config, or a file
 * one includes) is protected too when it lies in a write root; where its
 * .git/config is, so is each included file in a write root.  -1 with
 * *err when a config cannot be read or a value not resolved. */
int lower_protect_hooks_path(struct lower_input *in, char **err);
/* The last core.hooksPath of a git config's text, as git reads it, into
 * *found (malloc'd; freed when replaced); *found as it was without one. */
void lower_git_config_hooks_path(const char *text, char **found);
/* What a git config's text says that matters here, in order: every
 * core.hooksPath, the files it includes (include.path and every
 * includeIf.*.path, as written), and every value of a key of the table
 * (the two before included). */
struct git_config_seen {
	char **hooks;
	size_t nhooks, hooks_cap;
	char **includes;
	size_t nincludes, includes_cap;
	struct git_config_value *values;
	size_t nvalues, values_cap;
};
void lower_git_config_scan(const char *text, struct git_config_seen *seen);
void lower_git_config_seen_free(struct git_config_seen *seen);

/* Bounds of the expansion of glob and regex read denies at launch. */
struct lower_mask_bounds {
	size_t entries;   /* directory entries visited, over every root */
	size_t depth;     /* directory levels below a root */
	size_t masks;     /* paths masked */
	double seconds;   /* wall time */
};
extern const struct lower_mask_bounds lower_mask_default_bounds;

/* Reads the host, so it runs at launch, never in a lowering: every path
 * below the readable and writable roots that a glob or regex read deny or
 * ask matches, and the evaluator does not allow reading, becomes a mask.
 * Where the walk goes is lower_mask_roots'.  A bound that is hit is an
 * error (-1, *err naming the rule, the root and the bound): the call must
 * not start with a rule half enforced. */
int lower_expand_masks(struct lower_input *in, const struct lower_mask_bounds *b, char **err);

/* Reads the host, so it runs at launch, and only for a call the runner
 * launches as root (host_root_secrets.c): mask every file and directory of
 * the system trees (/etc, /root, /var, /opt, /srv, /boot, /usr/local/etc)
 * that uid 0 or gid 0 may read and others may not, but the write roots,
 * the home directory, the working directory and the agent's directories
 * and what lies below them.  A bound that is hit is an error (-1, *err):
 * the call must not start. */
int lower_mask_root_secrets(struct lower_input *in, const struct lower_mask_bounds *b,
			    char **err);

/* The directories the expansion of advisory read deny or ask `a` walks
 * (malloc'd strings, *n set): the directory before its first wildcard,
 * where a root makes it readable, and the roots inside that directory, "/"
 * itself never.  *complete: every readable match lies in them (false for
 * a regex, or a glob whose first wildcard follows the leading slash,
 * under a read root of "/"). */
char **lower_mask_roots(const struct lower_input *in, const struct lower_advisory *a, size_t *n,
			bool *complete);

/* What a rule's literal path resolves to, by the evaluator's snapshot. */
char *lower_resolved(const struct lower_input *in, const char *path);

/* Read the host facts the lowerings of `in` need into in->host: the
 * environment, the symlinks along the roots, and what each path of the
 * input and its parents are.  Masks found later (lower_expand_masks) and
 * fences the runner makes are noted one by one (lower_host_note). */
void lower_host_read(struct lower_input *in);
/* Read path and its parents again into the snapshot: the runner made it. */
void lower_host_note(struct lower_input *in, const char *path);
void lower_host_free(struct lower_host *h);
/* The snapshot's fact of path; a path it does not hold reads as missing. */
const struct lower_fact *lower_fact(const struct lower_input *in, const char *path);
bool lower_fact_exists(const struct lower_input *in, const char *path);
/* The parts of /proc the bwrap plan binds read-only over the sandbox's
 * own /proc where the host has them (NULL-terminated). */
extern const char *const lower_proc_covers[];
bool lower_fact_is_dir(const struct lower_input *in, const char *path);

/* The environment policy: is a variable of the host kept (a keep name or
 * glob matches it), and is it dropped (a drop pattern matches it; drop
 * beats keep)? */
bool lower_env_kept(const struct lower_input *in, const char *name);
bool lower_env_dropped(const struct lower_input *in, const char *name);
/* Whether the host's variable name reaches the command: kept, not dropped,
 * and not one the policy sets itself. */
bool lower_env_passes(const struct lower_input *in, const char *name);
/* Its value in the snapshot's environment (the first), or NULL. */
const char *lower_host_getenv(const struct lower_input *in, const char *name);

/* The evaluator's effect for one path operation. */
enum ir_effect lower_decide(const cordon_evaluator *ev, enum ir_op op, const char *path);

/* One lowering: the bytes it emits (malloc'd, *len set), or NULL with *err.
 * Each lives in its own file, lower_KIND.c, and is listed in lower.c. */
typedef char *(*lower_fn)(const struct lower_input *in, size_t *len, char **err);
char *lower_bwrap_json(const struct lower_input *in, size_t *len, char **err);
/* The typed plan of the input (cordon/plan.h): 0, or -1 with *err. */
int lower_bwrap_plan(const struct lower_input *in, struct cordon_plan *pl, char **err);
/* Append one operation to a plan (plan.c); the strings are copied, the
 * note is taken over. */
void plan_push(struct cordon_plan *pl, enum cordon_plan_kind kind, const char *path,
	       const char *source, const char *origin, char *note);
char *lower_bwrap_args(const struct lower_input *in, size_t *len, char **err);
/* The repository directories at the workspace's top (.git, .hg; NULL
 * ends it) whose missing protections are kept after the call, not by a
 * fence (lower_bwrap.c); the host facts say whether each was there at
 * launch. */
extern const char *const lower_after_call_dirs[];
/* The names at the workspace's top kept so too: what the call made there
 * is moved aside after it. */
extern const char *const lower_after_call_names[];

/* The paths `cordon run` fences for the call (struct cordon_fence:
 * cordon/lowering.h; see lower_bwrap.c).  A malloc'd array of borrowed
 * strings. */
struct cordon_fence *lower_bwrap_fences(const struct lower_input *in, size_t *n);
/* Whether the mounts planned at or above path leave it writable: the
 * deepest of them decides, as in the mount stack. */
bool lower_bwrap_writable(const struct lower_input *in, const char *path);
/* Whether path is there to see inside the sandbox: the deepest literal
 * path of the plan at or above it is not hidden. */
bool lower_bwrap_shows(const struct lower_input *in, const char *path);
char *lower_seccomp_text(const struct lower_input *in, size_t *len, char **err);
char *lower_seccomp_bpf(const struct lower_input *in, size_t *len, char **err);
/* The seccomp filter's rules one by one, after the expansions the filter
 * makes (a rule a bit or a value): what `--emit oci` and `--emit
 * k8s-seccomp` write in the runtime's seccomp JSON (lower_seccomp.c). */
struct lower_sc_cmp {
	unsigned arg;
	const char *op;       /* libseccomp's name: "SCMP_CMP_MASKED_EQ" */
	uint64_t value;       /* datum_a: the mask of a masked comparison */
	uint64_t value_two;   /* datum_b */
};
struct lower_sc_entry {
	const char *syscall;
	int err;
	const char *err_name; /* "EPERM" */
	unsigned ncmp;
	struct lower_sc_cmp cmp[2];
	const char *cond, *why;
	const char *origin;   /* "file:line:col" of the rule that turns it on */
};
typedef void (*lower_sc_fn)(const struct lower_sc_entry *e, void *data);
int lower_seccomp_each(const struct lower_input *in, lower_sc_fn fn, void *data, char **err);
/* libseccomp's names of the filter's architectures, native first. */
size_t lower_seccomp_arch_names(const char **names, size_t max);
char *lower_landlock_text(const struct lower_input *in, size_t *len, char **err);
/* What the runner gives cordon_landlock_apply() (cordon/landlock.h) inside the
 * sandbox: the write roots and /dev (a malloc'd array of borrowed strings),
 * and its flags. */
const char **lower_landlock_roots(const struct lower_input *in, size_t *n);
unsigned lower_landlock_flags(const struct lower_input *in);
char *lower_sbpl(const struct lower_input *in, size_t *len, char **err);
/* The host facts the evaluator resolved paths with (lower_facts.c). */
char *lower_facts_text(const struct lower_input *in, size_t *len, char **err);
char *lower_sbpl_argv(const struct lower_input *in, size_t *len, char **err);
/* The preset for a container runtime (lower_oci.c): an OCI runtime-spec
 * config.json, and its seccomp section alone, the same bytes, which a
 * Kubernetes node keeps as a localhost profile. */
char *lower_oci(const struct lower_input *in, size_t *len, char **err);
char *lower_oci_seccomp(const struct lower_input *in, size_t *len, char **err);
/* The seccomp section as a JSON object, and its origins: an array of
 * "file:line:col", one a syscalls entry (both new references). */
json_t *lower_oci_seccomp_json(const struct lower_input *in, json_t **origins, char **err);
/* A JSON value as `--emit oci` and `--emit k8s` lay it out: objects a
 * member a line down to depth levels, arrays an element a line down to
 * one more; the rest, and the members named in flat, on one line (depth
 * -1: all of it). */
void lower_json_layout(struct strbuf *sb, json_t *v, int depth, const char *const *flat);
/* Whom the container runs as: the caller, or nobody for root. */
void lower_oci_user(const struct lower_input *in, unsigned *uid, unsigned *gid);
/* The same bounds as a Kubernetes Pod and NetworkPolicy (lower_k8s.c). */
char *lower_k8s(const struct lower_input *in, size_t *len, char **err);

/* Seatbelt's regexes (lower_sbpl_regex.c): c escaped for a POSIX extended
 * regex, and a pcre2 regex as an extended regex with the same matches, or
 * NULL with *why when it uses syntax Seatbelt's matcher lacks. */
void sbpl_ere_char(struct strbuf *sb, char c);
char *sbpl_pcre_to_ere(const char *re, const char **why);

#endif
