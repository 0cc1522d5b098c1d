/* Semantic analysis: the trees of a policy (root and includes) in, the
 * checked IR out, every error reported in one run. */
#ifndef CORDON_CHECK_H
#define CORDON_CHECK_H

#include "lang/ast.h"
#include "base/diag.h"
#include "ir/ir.h"

#define CORDON_LANGUAGE_VERSION 1

/* Program specs (check_program.c): one `program` statement into ir, and
 * the final ordering once every file was read. */
void check_program(struct diag_list *d, struct ir_policy *ir, const struct ast *node);
void check_programs_done(struct ir_policy *ir);

/* A `limits { ... }` block (check_limits.c) into the per-key values of
 * the preset that holds it; in_preset false reports it misplaced. */
void check_limits(struct diag_list *d, const struct ast *node, bool in_preset,
		  struct ir_limit_value out[IR_LIMIT_COUNT]);

/* An `assert never` statement, checked and lowered (check.c), to be
 * analysed against the flattened presets (check_assert.c). */
struct check_assert {
	enum ir_op op;
	struct ir_pattern *pats;
	struct loc *pat_locs;
	size_t npats, pats_cap, locs_cap;
	char **presets;       /* the presets it names; none: every preset */
	size_t npresets, presets_cap;
	char *reason;         /* or NULL */
	struct loc loc;
};

/* Report every rule of a named preset that lets the assertion's operation
 * through on something its patterns match. */
void check_asserts(struct diag_list *d, const struct ir_policy *ir, const struct check_assert *a,
		   size_t n);
void check_assert_free(struct check_assert *a);

/* Fills ir; returns the number of errors found. */
size_t check_policy(struct srcmgr *sm, struct diag_list *diags, struct ast *root,
		    struct ir_policy *ir);

#endif
