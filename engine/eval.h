/* The evaluator's inside, shared with the lowerings (lower_*.c), which
 * read the same resolved rules so that a sandbox grants exactly what a
 * decision would. */
#ifndef CORDON_EVAL_H
#define CORDON_EVAL_H

#include "command.h"
#include "match.h"
#include "policy.h"
#include "strmap.h"

struct ev_rule {
	enum ir_op op;
	struct matcher m;
	enum ir_effect effect;
	char *reason;   /* context applied, or NULL */
	char *origin;   /* "file:line:col" */
	const char *from;
	unsigned tier;
	/* What the matcher was built from: the IR pattern (NULL for the
	 * resolved form of a symlinked path) and the context it was resolved
	 * with (a protection is resolved again in every write root). */
	const struct ir_pattern *pat;
	struct ir_context ctx;
	const char *resolved_from; /* the symlinked path it resolves (borrowed), or NULL */
};

struct ev_index {
	struct strmap anchors;
	uint32_t *floating;
	size_t nfloating, cap;
};

struct dec_op {
	enum ir_op op;
	char *target;
	enum ir_effect effect;
	char *reason;
	char *rule;
	char *detail; /* what the operation is: "delete, recursive (rm)" */
	bool contained; /* a sandboxed request's: the sandbox refuses it by itself */
};

struct cordon_decision {
	enum ir_effect effect;
	char *reason;
	char *rule;
	const char *preset;
	const char *sandbox;
	const char *analysed; /* exec: "shell" or "argv" */
	bool unsandboxed;
	bool sandboxed; /* the request's: runs under `cordon run` */
	struct dec_op *ops;
	size_t nops, ops_cap;
};

struct cordon_evaluator {
	const cordon_policy *policy;
	const struct ir_preset *preset;
	char *values[CTX_COUNT];
	struct ir_context ctx;
	struct ev_rule *rules;
	size_t nrules, rules_cap;
	struct ev_index index[IR_OP_COUNT];
	struct ev_rule *protect;
	size_t nprotect, protect_cap;
	struct ev_index protect_index;
	struct strmap programs; /* program spec names -> index in the IR */
	struct cmd_var *vars;   /* environment values known before a command runs */
	size_t nvars;
};

/* Shared by the evaluator and the command analysis (eval_command.c). */
const struct ev_rule *ev_decide_op(const cordon_evaluator *ev, cordon_decision *d,
				   const struct target *t, pcre2_match_data *md,
				   struct strbuf *trace);
void ev_add_op(cordon_decision *d, enum ir_op op, const char *target, enum ir_effect effect,
	       char *reason, const char *rule);
int ev_rule_beats(const struct ev_rule *a, const struct ev_rule *b);
/* Decide the operations of a shell command (exec requests). */
void ev_decide_command(const cordon_evaluator *ev, cordon_decision *d, const char *text,
		       size_t len, pcre2_match_data *md, struct strbuf *trace);
/* Decide an exec request given as argv: the command itself, as its words,
 * then every operation it performs. */
void ev_decide_argv(const cordon_evaluator *ev, cordon_decision *d, const char *const *argv,
		    size_t argc, pcre2_match_data *md, struct strbuf *trace);

#endif
