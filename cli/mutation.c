/* What cordon write, cordon edit and cordon approve write|edit share: a
 * file mutation through the policy, or a one-call approval of one that
 * asks, and the audit record of either. */
#include "config.h"

#include "cli.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exit statuses of these verbs beyond the shared ones. */
enum { EXIT_REFUSED = 1, EXIT_NEEDS_APPROVAL = 3 };

static int outcome_status(const char *verb, const struct cordon_mutation_result *res)
{
	switch (res->outcome) {
	case CORDON_MUTATION_DONE:
		return EXIT_OK;
	case CORDON_MUTATION_DENIED:
		fprintf(stderr, "cordon: %s denied: %s", verb, res->message);
		if (res->rule)
			fprintf(stderr, " (rule %s)", res->rule);
		fputc('\n', stderr);
		return EXIT_REFUSED;
	case CORDON_MUTATION_NEEDS_APPROVAL:
		fprintf(stderr, "cordon: %s: %s\n", verb, res->message);
		return EXIT_NEEDS_APPROVAL;
	case CORDON_MUTATION_APPROVAL_VOID:
	case CORDON_MUTATION_REFUSED:
		fprintf(stderr, "cordon: %s: %s\n", verb, res->message);
		return EXIT_REFUSED;
	case CORDON_MUTATION_FAILED:
		break;
	}
	fprintf(stderr, "cordon: %s: %s\n", verb, res->message ? res->message : "failed");
	return EXIT_USAGE;
}

static const char *const outcome_names[] = {
	[CORDON_MUTATION_DONE] = "done",
	[CORDON_MUTATION_DENIED] = "denied",
	[CORDON_MUTATION_NEEDS_APPROVAL] = "needs-approval",
	[CORDON_MUTATION_APPROVAL_VOID] = "approval-void",
	[CORDON_MUTATION_REFUSED] = "refused",
	[CORDON_MUTATION_FAILED] = "failed",
};

/* One audit record of what the mutation did (written, approval issued,
 * refused ...), with the decision it rests on. */
static void audit_mutation(cordon_audit *log, const struct cli_mutation *o, const char *verb,
			   const struct cordon_mutation *m, const struct cordon_mutation_result *res)
{
	char outcome[64];
	const char *args[] = { m->path, m->old_text, m->new_text };
	if (!log)
		return;
	snprintf(outcome, sizeof(outcome), "%s%s",
		 strcmp(verb, "approve") == 0 && res->outcome == CORDON_MUTATION_DONE ? "approval-"
										 : "",
		 res->outcome == CORDON_MUTATION_DONE && strcmp(verb, "approve") == 0
			 ? (res->approval_id ? "issued" : "not-needed")
			 : outcome_names[res->outcome]);
	struct cordon_audit_record rec = {
		.preset = o->preset,
		.op = m->kind == CORDON_MUTATE_EDIT ? "edit" : "write",
		.target = res->target ? res->target : m->path,
		.decision = cordon_effect_name(res->effect),
		.rule = res->rule,
		.reason = res->outcome == CORDON_MUTATION_DONE ? NULL : res->message,
		.approval = res->approval_id,
		.actor = o->actor,
		.outcome = outcome,
		.err = res->error,
		.args = args,
		.nargs = m->kind == CORDON_MUTATE_EDIT ? 3 : 1,
	};
	cli_audit_append(log, &rec);
}

int cli_mutation_run(struct cli_args *a, struct cli_mutation *o)
{
	const char *verb = a->verb->name;
	cordon_audit *log = NULL;
	struct cordon_mutation m = { .fd = -1, .kind = o->kind };
	struct cordon_mutation_result res = { 0 };
	cordon_policy *policy = NULL;
	cordon_evaluator *ev = NULL;
	bool approve = a->verb->id == VERB_APPROVE;
	char *err = NULL, *id;
	int status = EXIT_OK;

	o->preset = a->preset;
	o->actor = a->actor;
	if (m.kind == CORDON_MUTATE_EDIT && (!o->old_text || !o->new_text))
		return cli_usage_error(verb, "an edit needs --old STRING and --new STRING");
	if (m.kind == CORDON_MUTATE_EDIT && !*o->old_text)
		return cli_usage_error(verb, "--old must not be empty");
	cli_context_defaults(a->ctx);
	if (!(policy = cli_load_policy(a->policy_path, &status)))
		goto out;
	if (!o->preset && !(o->preset = cordon_policy_default_preset(policy))) {
		status = cli_usage_error(verb, "the policy names no default preset; give --preset");
		goto out;
	}
	if ((status = cli_audit_open(verb, a->audit_path, a->syslog, policy, &log)) != EXIT_OK)
		goto out;
	if (!(ev = cordon_evaluator_new(policy, o->preset, a->ctx, &err))) {
		status = cli_usage_error(NULL, "%s", err);
		goto out;
	}
	m.path = o->path;
	m.approval = o->approval;
	if (m.kind == CORDON_MUTATE_EDIT) {
		m.old_text = o->old_text;
		m.old_len = strlen(o->old_text);
		m.new_text = o->new_text;
		m.new_len = strlen(o->new_text);
		m.all = o->all;
	} else {
		m.fd = 0; /* the content comes from standard input */
	}
	if (!approve) {
		cordon_mutate(ev, &m, &res);
		audit_mutation(log, o, verb, &m, &res);
		status = outcome_status(verb, &res);
		goto out;
	}
	id = cordon_approve(ev, &m, (unsigned)o->ttl, &res);
	audit_mutation(log, o, verb, &m, &res);
	if (id) {
		printf("approved: %s %s, once, for %lu s\n%s\n",
		       m.kind == CORDON_MUTATE_EDIT ? "edit" : "write", res.target,
		       o->ttl ? o->ttl : 600, id);
		free(id);
		status = EXIT_OK;
	} else if (res.outcome == CORDON_MUTATION_DONE) {
		fprintf(stderr, "cordon: approve: %s\n", res.message);
		status = EXIT_OK;
	} else {
		status = outcome_status(verb, &res);
	}
out:
	free(err);
	cordon_audit_close(log);
	cordon_mutation_result_clear(&res);
	cordon_evaluator_free(ev);
	cordon_policy_free(policy);
	return status;
}
