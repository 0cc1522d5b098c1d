/* The evaluator's inside, shared with the lowerings (lower_*.c), which
 * read the same resolved rules so that a sandbox grants exactly what a
 * decision would. */
#ifndef CORDON_EVAL_H
#define CORDON_EVAL_H

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
};

struct ev_index {
	struct strmap anchors;
	uint32_t *floating;
	size_t nfloating, cap;
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
};

#endif
