/* cordon explain: the trace of one decision. */
#include "config.h"

#include "cli.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

int cmd_explain(int argc, char **argv)
{
	struct cli_args a;
	struct cordon_request req;
	cordon_policy *policy = NULL;
	cordon_evaluator *ev = NULL;
	const char *arg, *escalate = NULL, *preset;
	bool sandboxed = false;
	char *err = NULL, *trace;
	int id, status = EXIT_OK;

	cli_args_init(&a, "explain", argc, argv);
	while ((id = cli_args_next(&a, &arg)) > 0) {
		if (id == OPT_ESCALATE)
			escalate = arg;
		else if (id == OPT_SANDBOXED)
			sandboxed = true;
	}
	if (id < 0) {
		status = a.status;
		goto out;
	}
	if ((status = cli_request_from_args(&a, escalate, &req)) != EXIT_OK)
		goto out;
	req.sandboxed = sandboxed;
	cli_context_defaults(a.ctx);
	if (!(policy = cli_load_policy(a.policy_path, &status)))
		goto out;
	if (!(preset = a.preset ? a.preset : cordon_policy_default_preset(policy))) {
		status = cli_usage_error("explain", "the policy names no default preset; give --preset");
		goto out;
	}
	if (!(ev = cordon_evaluator_new(policy, preset, a.ctx, &err)) ||
	    !(trace = cordon_explain(ev, &req, &err))) {
		status = cli_usage_error(NULL, "%s", err);
		goto out;
	}
	fputs(trace, stdout);
	free(trace);
out:
	free(err);
	cordon_evaluator_free(ev);
	cordon_policy_free(policy);
	cli_args_free(&a);
	return status;
}
