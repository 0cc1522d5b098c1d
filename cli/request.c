/* The request of eval's and explain's operands: OP TARGET, or
 * exec --argv [--] WORD... */
#include "config.h"

#include "cli.h"

#include <string.h>

int cli_request_from_args(const struct cli_args *a, const char *escalate,
			  struct cordon_request *req)
{
	const char *verb = a->verb->name;
	int op;
	if (a->rest >= 0) {
		/* --argv: the words after it are the command. */
		if (a->rest == 1 && strcmp(a->operands[0], "exec") != 0)
			return cli_usage_error(verb, "--argv belongs to exec requests, not '%s'",
					       a->operands[0]);
		if (a->rest != 1 || a->noperands == 1)
			return cli_usage_error(verb, "exec --argv expects the command's words "
						     "(e.g. 'exec --argv -- git push -f')");
	} else if (a->noperands != 2) {
		return cli_usage_error(verb, "expected OP TARGET (e.g. 'write ./out.txt') or "
					     "exec --argv -- WORD...");
	}
	if ((op = cordon_op_from_name(a->operands[0])) < 0) {
		char ops[80];
		cli_op_names(ops, sizeof(ops), " or ");
		return cli_usage_error(verb, "unknown operation '%s' (%s)", a->operands[0], ops);
	}
	memset(req, 0, sizeof(*req));
	req->op = (enum cordon_op)op;
	if (a->rest >= 0) {
		req->argv = (const char *const *)a->operands + a->rest;
		req->argc = (size_t)(a->noperands - a->rest);
	} else {
		req->target = a->operands[1];
	}
	req->escalate = escalate != NULL;
	req->justification = escalate;
	return EXIT_OK;
}
