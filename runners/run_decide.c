/* What every runner asks before it launches anything: the exec request for
 * the command, and the message when the answer is not allow. */
#include "config.h"

#include "run.h"
#include "run_approval.h"

#include <stdio.h>
#include <stdlib.h>

struct cordon_request run_exec_request(const struct run_opts *o)
{
	struct cordon_request req = { .op = CORDON_EXEC };
	if (o->shell) {
		req.target = o->argv[0];
	} else {
		/* The argv exactly as it will run, never joined into a string. */
		req.argv = (const char *const *)o->argv;
		while (o->argv[req.argc])
			req.argc++;
	}
	return req;
}

int run_refusal_status(enum cordon_effect e)
{
	return e == CORDON_DENY ? RUN_DENIED : RUN_ASK;
}

void run_refuse(const struct run_opts *o, const cordon_decision *d, enum cordon_effect e,
		const char *err)
{
	const char *rule = d ? cordon_decision_rule(d) : NULL;
	fprintf(stderr, "cordon: %s by preset '%s': %s%s%s\n",
		e == CORDON_DENY ? "DENIED" : "NEEDS APPROVAL", o->preset,
		d && cordon_decision_reason(d) ? cordon_decision_reason(d) : err ? err : "",
		rule ? " at " : "", rule ? rule : "");
	if (!d || cordon_decision_operation_count(d) == 0)
		return;
	/* What a person needs to decide: every operation, and how to say yes. */
	char *preview = cordon_exec_preview(d);
	fprintf(stderr, "cordon: the preview (what the command will do, as the policy decides it):\n%s",
		preview);
	free(preview);
	if (e == CORDON_ASK)
		run_approval_hint(o);
	else
		fprintf(stderr, "cordon: a denied operation is never approvable\n");
}
