/* cordon approve: approve one write, edit or command that asks, for one
 * call (write and edit through cli/mutation.c), or grant a named tool for
 * the session. */
#include "config.h"

#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The approval and each operation it approves, as audit records. */
static void audit_approval(cordon_audit *log, const cordon_evaluator *ev,
			   const struct cordon_request *req, const char *id, const char *actor,
			   const char *const *args, size_t nargs)
{
	char *err = NULL;
	cordon_decision *d = log ? cordon_evaluate(ev, req, &err) : NULL;
	free(err);
	if (!d)
		return;
	struct cordon_audit_record rec = { .approval = id, .actor = actor,
					   .outcome = "approval-issued", .args = args,
					   .nargs = nargs };
	cordon_audit_record_decision(&rec, d);
	cli_audit_append(log, &rec);
	for (size_t i = 0; i < cordon_decision_operation_count(d); i++) {
		enum cordon_op op;
		enum cordon_effect e;
		const char *target, *reason, *rule;
		cordon_decision_operation(d, i, &op, &target, &e, &reason, &rule);
		if (e != CORDON_ASK)
			continue;
		struct cordon_audit_record r = { .preset = cordon_decision_preset(d),
						 .op = cordon_op_name(op), .target = target,
						 .decision = "ask", .rule = rule, .reason = reason,
						 .approval = id, .actor = actor, .outcome = "approved" };
		cli_audit_append(log, &r);
	}
	cordon_decision_free(d);
}

/* approve exec: one command that asks, for one call of `cordon run
 * --approval ID`.  The approval is libcordon's (cordon_approve_exec); this
 * decides the command as `cordon run` will, prints the preview and the id,
 * and audits the approval. */
static int approve_exec(struct cli_args *a, unsigned long ttl)
{
	cordon_policy *policy = NULL;
	cordon_evaluator *ev = NULL;
	cordon_audit *log = NULL;
	char *err = NULL, *preview = NULL, *id = NULL;
	enum cordon_effect effect = CORDON_DENY;
	const char *preset = a->preset, *actor = a->actor ? a->actor : getenv("USER");
	bool argv_form = a->rest >= 0;
	int status = EXIT_OK;

	if (a->noperands < 2)
		return cli_usage_error("approve", "no command: cordon approve exec [OPTIONS] 'COMMAND' "
						  "or --argv -- CMD [ARG...]");
	if ((!argv_form && a->noperands != 2) || (argv_form && a->rest != 1))
		return cli_usage_error("approve", "give the command as one shell string, or its "
						  "words after --argv --");
	cli_run_context_defaults(a->ctx);
	if (!(policy = cli_load_policy(a->policy_path, &status)))
		goto out;
	if (!preset && !(preset = cordon_policy_default_preset(policy))) {
		status = cli_usage_error("approve", "the policy names no default preset; give --preset");
		goto out;
	}
	if ((status = cli_audit_open("approve", a->audit_path, a->syslog, policy, &log)) != EXIT_OK)
		goto out;
	if (!(ev = cordon_evaluator_new(policy, preset, a->ctx, &err))) {
		status = cli_usage_error(NULL, "%s", err);
		goto out;
	}
	/* Decided as `cordon run` decides it: in the sandbox. */
	struct cordon_request req = { .op = CORDON_EXEC, .sandboxed = true };
	if (argv_form) {
		req.argv = (const char *const *)a->operands + 1;
		req.argc = (size_t)(a->noperands - 1);
	} else {
		req.target = a->operands[1];
	}
	id = cordon_approve_exec(ev, &req, (unsigned)ttl, actor, &effect, &preview, &err);
	if (!id && !err && effect == CORDON_ALLOW) {
		fprintf(stderr, "cordon: the command is allowed by preset '%s': no approval is "
				"needed\n",
			preset);
		status = EXIT_OK;
		goto out;
	}
	if (!id) {
		if (preview)
			fprintf(stderr, "cordon: the preview:\n%s", preview);
		fprintf(stderr, "cordon: %s\n", err ? err : "cannot approve the command");
		status = effect == CORDON_DENY ? EXIT_POLICY : EXIT_USAGE;
		goto out;
	}
	audit_approval(log, ev, &req, id, actor, argv_form ? req.argv : NULL,
		       argv_form ? req.argc : 0);
	printf("the preview this approval covers (preset '%s'):\n%s", preset, preview);
	printf("it is valid once, for %lu s: cordon run --approval %s with the same policy, "
	       "preset, context and command\n%s\n",
	       ttl ? ttl : 600, id, id);
out:
	free(id);
	free(preview);
	free(err);
	cordon_evaluator_free(ev);
	cordon_audit_close(log);
	cordon_policy_free(policy);
	return status;
}

/* approve --session tool NAME: a session grant for the named tool.  The
 * grant itself is libcordon's (lib/decide/grant.c); this checks that the policy
 * would ask, records the grant and audits it. */
static int approve_tool(struct cli_args *a)
{
	cordon_policy *policy = NULL;
	cordon_evaluator *ev = NULL;
	cordon_decision *d = NULL;
	cordon_audit *log = NULL;
	char *err = NULL;
	const char *preset = a->preset, *actor = a->actor ? a->actor : getenv("USER");
	int status = EXIT_OK;

	if (a->noperands != 2)
		return cli_usage_error("approve", "expected 'tool NAME': session grants are for named "
						  "tools only, never for read, write, exec or net");
	const char *tool = a->operands[1];
	cli_context_defaults(a->ctx);
	const char *session_dir = cordon_context_get(a->ctx, "session_dir");
	if (!session_dir)
		return cli_usage_error("approve", "no session dir: give --context session_dir=DIR");
	if (!(policy = cli_load_policy(a->policy_path, &status)))
		goto out;
	if (!preset && !(preset = cordon_policy_default_preset(policy))) {
		status = cli_usage_error("approve", "the policy names no default preset; give --preset");
		goto out;
	}
	if ((status = cli_audit_open("approve", a->audit_path, a->syslog, policy, &log)) != EXIT_OK)
		goto out;
	if (!(ev = cordon_evaluator_new(policy, preset, a->ctx, &err))) {
		status = cli_usage_error(NULL, "%s", err);
		goto out;
	}
	struct cordon_request req = { .op = CORDON_TOOL, .target = tool };
	if (!(d = cordon_evaluate(ev, &req, &err))) {
		status = cli_usage_error(NULL, "%s", err);
		goto out;
	}
	if (cordon_decision_effect(d) == CORDON_DENY) {
		/* A grant only answers an ask; under `approval never` an ask
		 * is already a deny here. */
		fprintf(stderr, "cordon: tool '%s' is denied by preset '%s': %s%s%s; a session grant "
				"cannot allow it\n",
			tool, preset, cordon_decision_reason(d), cordon_decision_rule(d) ? " at " : "",
			cordon_decision_rule(d) ? cordon_decision_rule(d) : "");
		cli_audit_grant(log, preset, tool, "deny", cordon_decision_rule(d),
			    cordon_decision_reason(d), actor, "grant-refused", 0);
		status = EXIT_POLICY;
		goto out;
	}
	if (cordon_grant_tool(session_dir, tool, actor, &err) != 0) {
		fprintf(stderr, "cordon: %s\n", err);
		cli_audit_grant(log, preset, tool, cordon_effect_name(cordon_decision_effect(d)),
			    cordon_decision_rule(d), cordon_decision_reason(d), actor,
			    "grant-failed", 0);
		status = EXIT_USAGE;
		goto out;
	}
	cli_audit_grant(log, preset, tool, cordon_effect_name(cordon_decision_effect(d)),
		    cordon_decision_rule(d), cordon_decision_reason(d), actor, "granted", 0);
	if (cordon_decision_effect(d) == CORDON_ALLOW)
		printf("tool '%s' is allowed in preset '%s' already (%s); granted for session %s "
		       "as well\n",
		       tool, preset, cordon_decision_reason(d), session_dir);
	else
		printf("granted tool '%s' for session %s\n", tool, session_dir);
out:
	free(err);
	cordon_decision_free(d);
	cordon_evaluator_free(ev);
	cordon_audit_close(log);
	cordon_policy_free(policy);
	return status;
}

int cmd_approve(int argc, char **argv)
{
	struct cli_mutation m = { 0 };
	struct cli_args a;
	const char *arg, *form;
	bool session = false;
	char *end;
	int id, status = EXIT_OK;

	cli_args_init(&a, "approve", argc, argv);
	while ((id = cli_args_next(&a, &arg)) > 0) {
		switch (id) {
		case OPT_TTL:
			errno = 0;
			m.ttl = strtoul(arg, &end, 10);
			if (errno || end == arg || *end || m.ttl == 0 || m.ttl > UINT_MAX ||
			    arg[0] == '-') {
				status = cli_usage_error("approve", "--ttl expects a positive number of "
								    "seconds, not '%s'",
							 arg);
				goto out;
			}
			break;
		case OPT_OLD:
			m.old_text = arg;
			break;
		case OPT_NEW:
			m.new_text = arg;
			break;
		case OPT_ALL:
			m.all = true;
			break;
		case OPT_SESSION:
			session = true;
			break;
		}
	}
	if (id < 0) {
		status = a.status;
		goto out;
	}
	/* What is approved: the first operand. */
	form = a.noperands > 0 ? a.operands[0] : "";
	if (session && strcmp(form, "tool") != 0) {
		status = cli_usage_error("approve", "expected 'tool NAME': session grants are for "
						    "named tools only, never for read, write, exec "
						    "or net");
		goto out;
	}
	if (strcmp(form, "tool") == 0 && !session) {
		status = cli_usage_error("approve", "approve of a tool needs --session (grants last "
						    "one session)");
		goto out;
	}
	if (strcmp(form, "write") != 0 && strcmp(form, "edit") != 0 && strcmp(form, "exec") != 0 &&
	    strcmp(form, "tool") != 0) {
		status = cli_usage_error("approve", "expected 'write PATH', 'edit PATH', "
						    "'exec COMMAND' or 'tool NAME'");
		goto out;
	}
	if ((status = cli_args_form(&a, form)) != EXIT_OK)
		goto out;
	if (strcmp(form, "exec") == 0) {
		status = approve_exec(&a, m.ttl);
	} else if (strcmp(form, "tool") == 0) {
		status = approve_tool(&a);
	} else if (a.noperands != 2) {
		status = cli_usage_error("approve", "expected 'write PATH' or 'edit PATH'");
	} else {
		m.kind = form[0] == 'e' ? CORDON_MUTATE_EDIT : CORDON_MUTATE_WRITE;
		m.path = a.operands[1];
		status = cli_mutation_run(&a, &m);
	}
out:
	cli_args_free(&a);
	return status;
}
