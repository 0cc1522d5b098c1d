/* Semantic analysis: the trees of a policy (root and includes) in, the
 * checked IR out, every error reported in one run. */
#ifndef CORDON_CHECK_H
#define CORDON_CHECK_H

#include "ast.h"
#include "diag.h"
#include "ir.h"

#define CORDON_LANGUAGE_VERSION 1

/* Program specs (check_program.c): one `program` statement into ir, and
 * the final ordering once every file was read. */
void check_program(struct diag_list *d, struct ir_policy *ir, const struct ast *node);
void check_programs_done(struct ir_policy *ir);

/* Fills ir; returns the number of errors found. */
size_t check_policy(struct srcmgr *sm, struct diag_list *diags, struct ast *root,
		    struct ir_policy *ir);

#endif
