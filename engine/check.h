/* Semantic analysis: the trees of a policy (root and includes) in, the
 * checked IR out, every error reported in one run. */
#ifndef CORDON_CHECK_H
#define CORDON_CHECK_H

#include "ast.h"
#include "diag.h"
#include "ir.h"

#define CORDON_LANGUAGE_VERSION 1

/* Fills ir; returns the number of errors found. */
size_t check_policy(struct srcmgr *sm, struct diag_list *diags, struct ast *root,
		    struct ir_policy *ir);

#endif
