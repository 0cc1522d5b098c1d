/* The evaluator's inside, shared with the lowerings (lower_*.c), which
 * read the same resolved rules so that a sandbox grants exactly what a
 * decision would. */
#ifndef CORDON_EVAL_H
#define CORDON_EVAL_H

#include "command.h"
#include "explain.h"
#include "base/host_facts.h"
#include "ir/match.h"
#include "check/policy.h"
#include "base/strmap.h"
#include <stdatomic.h>

struct ev_rule {
	enum ir_op op;
	struct matcher m;
	enum ir_effect effect;
	char *reason;   /* context applied, or NULL */
	char *origin;   /* "file:line:col" */
	char *said;     /* what a decision by it says: reason, or "allowed by ORIGIN" */
	const char *from;
	unsigned tier;
	/* What the matcher was built from: the IR pattern (NULL for the
	 * resolved form of a symlinked path) and the context it was resolved
	 * with (a protection is resolved again in every write root). */
	const struct ir_pattern *pat;
	struct ir_context ctx;
	const char *resolved_from; /* the symlinked path it resolves (borrowed), or NULL */
	/* the rules that beat this one wherever both match (eval_rank.c),
	 * indices into the evaluator's rules, sorted */
	uint32_t *beaten_by;
	size_t nbeaten_by, beaten_cap;
	/* the rules that match exactly the same targets (any place, effect) */
	uint32_t *same;
	size_t nsame, same_cap;
	/* Ranked when needed (ev_rank_build): the rules this one is to be
	 * compared with, sorted, the relation of each found at its first
	 * question; beaten_by and same stay empty until ev_rank_complete. */
	struct ev_meet *meets;
	size_t nmeets, meets_cap;
};

/* A pair of rules whose relation decides which beats the other where both
 * match (eval_rank.c): the other rule; whether this one is the relation's
 * first (a pair is related one way, from the same rule as when all are
 * ranked at once); and the relation, 0 until it is known, then an enum
 * contain_rel + 1. */
struct ev_meet {
	uint32_t other;
	bool first;
	_Atomic unsigned char rel;
};

/* The host facts of one literal path the rules name, taken once when the
 * evaluator is built: the decisions and the lowerings read this snapshot,
 * so that a plan follows the symlinks the decisions followed. */
struct ev_link {
	char *path;         /* as the rule names it, aliases applied */
	char *real;         /* what it resolves to on the host; NULL: it cannot be */
	const char *origin; /* the first rule that names it (borrowed) */
};

struct ev_index {
	struct strmap anchors;
	/* path globs by their literal components (eval_segments.h), or NULL */
	struct seg_index *segs;
	uint32_t *floating;
	size_t nfloating, cap;
};

/* One record of a decision; its strings are in the decision's arena. */
struct dec_op {
	enum ir_op op;
	char *target;
	enum ir_effect effect;
	char *reason;
	char *rule;
	char *detail; /* what the operation is: "delete, recursive (rm)" */
	/* A path operation of a shell command: what an approval could make
	 * writable for it (approval_exec.c). */
	enum dec_shape {
		DEC_SHAPE_NONE,    /* not a path of a command, or not known exactly */
		DEC_SHAPE_FILE,    /* exactly target */
		DEC_SHAPE_TREE,    /* target and everything below it */
		DEC_SHAPE_REGION,  /* some paths below target, known at run time */
		DEC_SHAPE_REACHED, /* a rule's path the operation may reach */
	} shape;
	bool maybe; /* the path is known only at run time */
	bool contained; /* a sandboxed request's: the sandbox refuses it by itself */
};

struct cordon_decision {
	enum ir_effect effect;
	const char *layer; /* "managed" or "user" under a managed layer, else NULL */
	const char *reason; /* in strings: the worst record's, or the escalation's */
	const char *rule;   /* in strings, or NULL */
	const char *preset;
	const char *sandbox;
	const char *analysed; /* exec: "shell" or "argv" */
	bool unsandboxed;
	bool sandboxed; /* the request's: runs under `cordon run` */
	struct dec_op *ops; /* first, until a second record comes */
	size_t nops, ops_cap;
	struct dec_op first;
	/* The records' strings (target, reason, rule, detail): a script's
	 * decision has many thousands, allocated and freed together. */
	struct arena strings;
};

struct cordon_evaluator {
	const cordon_policy *policy;
	const struct ir_preset *preset;
	/* The host whose file system paths are resolved on, requests and the
	 * literal paths of rules alike; the lowerings read it too. */
	const struct host_facts *host;
	char *values[CTX_COUNT];
	struct ir_context ctx;
	struct ev_rule *rules;
	size_t nrules, rules_cap;
	struct ev_index index[IR_OP_COUNT];
	struct ev_rule *protect;
	size_t nprotect, protect_cap;
	struct ev_index protect_index;
	struct ev_link *links;
	size_t nlinks, links_cap;
	struct strmap link_index; /* a link's path -> its index in links */
	/* While ev_new_one adds the rules: the workspace and the home
	 * directory read once (ev_list_roots), for ev_record_link; NULL after. */
	const struct canon_listing *listed;
	size_t nlisted;
	struct cmd_names env_names; /* the preset's secret and code names, compiled */
	struct cmd_var *vars;   /* environment values known before a command runs */
	size_t nvars;
	/* What a decision may reuse from the one before it; the evaluator is
	 * shared read-only between threads, so this lives behind a pointer. */
	struct ev_spare *spare;
	/* Under a managed layer: "managed" or "user", the layer this
	 * evaluator's preset is from; and, for the lower layer's evaluator,
	 * the managed layer's (owned), asked about every request too. */
	const char *layer;
	struct cordon_evaluator *managed;
	/* The rules' ranking is found a pair at a time, as decisions ask
	 * (eval_rank.c); false once ev_rank_complete has found all of it, or
	 * with CORDON_FAST_LOAD=0. */
	bool rank_lazy;
};

/* The evaluator of one policy's preset, whatever layer is above it
 * (cordon_evaluator_new layers it, eval_layer.c). */
cordon_evaluator *ev_new_one(const cordon_policy *policy, const char *preset,
			      const cordon_context *ctx, char **err);

/* A match data block left by the last decision: taken by one decision at
 * a time (an atomic exchange), so threads never share one. */
struct ev_spare {
	_Atomic(pcre2_match_data *) md;
};
pcre2_match_data *ev_md_take(const cordon_evaluator *ev);
void ev_md_give(const cordon_evaluator *ev, pcre2_match_data *md);

/* The snapshot of a literal path a rule names, or NULL when none does. */
const struct ev_link *ev_link_find(const cordon_evaluator *ev, const char *path);
/* Take the host facts of a rule's literal path (named by the rule at
 * origin, which must outlive the evaluator) into the snapshot, once. */
const struct ev_link *ev_record_link(cordon_evaluator *ev, const char *path, const char *origin);
/* /dev and /proc: the sandbox's own, never resolved on the host. */
bool ev_kernel_path(const char *path);
/* While ev_new_one adds the rules: the workspace and the home directory
 * read once into out[0..2) (ev->listed), and released. */
struct canon_listing;
void ev_list_roots(cordon_evaluator *ev, struct canon_listing *out);
void ev_unlist_roots(cordon_evaluator *ev, struct canon_listing *out);

/* What the rules say of one target.  Deciding an operation yields a
 * verdict and touches no decision: its caller makes the complete record
 * of the operation from it and appends that once (ev_append). */
struct ev_verdict {
	enum ir_effect effect;
	char *reason;             /* owned, until a record takes it */
	const char *rule;         /* the deciding rule's or protection's origin, or NULL */
	const struct ev_rule *by; /* the deciding rule: NULL for a protection or no match */
};

/* Judge a prepared target; name is the target as a reason names it
 * (NULL: its text).  j, when explaining, records how. */
struct ev_verdict ev_judge(const cordon_evaluator *ev, const struct target *t, const char *name,
			   pcre2_match_data *md, struct xp_judgment *j);
/* A verdict of no rule: deny, for reason (taken). */
struct ev_verdict ev_refused(char *reason);
/* The record of operation op on target, with the verdict's effect, reason
 * (taken) and rule; the caller completes what it knows (detail, shape).
 * A record's strings live in d's arena (ev_keep). */
struct dec_op ev_record(cordon_decision *d, enum ir_op op, const char *target,
			struct ev_verdict *v);
/* s copied into d's arena, or NULL for NULL. */
char *ev_keep(cordon_decision *d, const char *s);
/* Append a complete record; the decision takes what it holds. */
void ev_append(cordon_decision *d, struct dec_op *o);
/* Which rule decides (eval_rank.c).  ev_rank_build computes, once per
 * evaluator, which rules beat which; ev_pick chooses among the rules that
 * match a request; a may beat b somewhere unless b always beats a. */
void ev_rank_build(cordon_evaluator *ev);
/* Every pair's relation found now, and each rule's beaten_by and same
 * lists filled (lint reads them); not while other threads decide. */
void ev_rank_complete(cordon_evaluator *ev);
const struct ev_rule *ev_pick(const cordon_evaluator *ev, const struct ev_rule *const *m,
			      size_t n);
bool ev_rule_always_beats(const cordon_evaluator *ev, const struct ev_rule *a,
			  const struct ev_rule *b);
bool ev_rule_may_beat(const cordon_evaluator *ev, const struct ev_rule *a, const struct ev_rule *b);
/* Is w, among the matches m, the only one that no other match beats? */
bool ev_pick_alone(const cordon_evaluator *ev, const struct ev_rule *w,
		   const struct ev_rule *const *m, size_t n);
/* For explain: how the winner w relates to each other match. */
void ev_rank_notes(const cordon_evaluator *ev, struct xp_judgment *j, const struct ev_rule *w,
		   const struct ev_rule *const *m, size_t n);
/* Decide the operations of a shell command (exec requests): whole is the
 * command line judged as one target, v its verdict (the decision takes
 * its reason); an analysed command that is the request itself is one
 * record with it. */
void ev_decide_command(const cordon_evaluator *ev, cordon_decision *d, const struct target *whole,
		       struct ev_verdict *v, pcre2_match_data *md, struct explain *x);
/* Decide an exec request given as argv: the command itself, as its words,
 * then every operation it performs. */
void ev_decide_argv(const cordon_evaluator *ev, cordon_decision *d, const char *const *argv,
		    size_t argc, pcre2_match_data *md, struct explain *x);

#endif
