/* cordon approve --session tool NAME, cordon revoke: session grants for
 * named tools.  The grant itself is libcordon's (lib/decide/grant.c); this
 * verb checks that the policy would ask, records the grant and audits it. */
#include "config.h"

#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct grant_opts {
	const char *policy_path, *preset, *audit_path, *actor;
	bool session, all;
	cordon_context *ctx;
};

static int parse(const char *verb, int argc, char **argv, struct grant_opts *o, int *first)
{
	enum { OPT_PRESET = 256, OPT_CONTEXT, OPT_SESSION, OPT_ALL, OPT_AUDIT, OPT_ACTOR };
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "policy", required_argument, NULL, 'p' },
		{ "preset", required_argument, NULL, OPT_PRESET },
		{ "context", required_argument, NULL, OPT_CONTEXT },
		{ "session", no_argument, NULL, OPT_SESSION },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "audit", required_argument, NULL, OPT_AUDIT },
		{ "actor", required_argument, NULL, OPT_ACTOR },
		{ NULL, 0, NULL, 0 },
	};
	bool approve = strcmp(verb, "approve") == 0;
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+hp:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help(verb);
			return -1;
		case 'p':
			o->policy_path = optarg;
			break;
		case OPT_PRESET:
			o->preset = optarg;
			break;
		case OPT_CONTEXT:
			if ((rc = cli_context_arg(o->ctx, verb, optarg)) != EXIT_OK)
				return rc;
			break;
		case OPT_SESSION:
			o->session = true;
			break;
		case OPT_ALL:
			if (approve)
				return cli_usage_error(verb, "--all belongs to 'cordon revoke'");
			o->all = true;
			break;
		case OPT_AUDIT:
			o->audit_path = optarg;
			break;
		case OPT_ACTOR:
			o->actor = optarg;
			break;
		default:
			return cli_usage_error(verb, "unknown option");
		}
	}
	*first = optind;
	if (!o->session)
		return cli_usage_error(verb, "%s of a tool needs --session (grants last one session)",
				       verb);
	if (o->all) {
		if (optind != argc)
			return cli_usage_error(verb, "--all takes no 'tool NAME'");
	} else if (argc - optind != 2 || strcmp(argv[optind], "tool") != 0) {
		return cli_usage_error(verb, "expected 'tool NAME': session grants are for named "
					     "tools only, never for read, write, exec or net");
	}
	cli_context_defaults(o->ctx);
	if (!cordon_context_get(o->ctx, "session_dir"))
		return cli_usage_error(verb, "no session dir: give --context session_dir=DIR");
	if (!o->actor)
		o->actor = getenv("USER");
	return EXIT_OK;
}

static void audit_grant(cordon_audit *log, const char *preset, const char *tool,
			const char *decision, const char *rule, const char *reason,
			const char *actor, const char *outcome, int err)
{
	struct cordon_audit_record rec = { .preset = preset, .op = "tool", .target = tool,
					   .decision = decision, .rule = rule, .reason = reason,
					   .actor = actor, .outcome = outcome, .err = err };
	char *msg = NULL;
	if (log && cordon_audit_append(log, &rec, &msg) != 0) {
		fprintf(stderr, "cordon: %s\n", msg);
		free(msg);
	}
}

int cmd_approve_session(int argc, char **argv)
{
	struct grant_opts o = { .ctx = cordon_context_new() };
	cordon_policy *policy = NULL;
	cordon_evaluator *ev = NULL;
	cordon_decision *d = NULL;
	cordon_audit *log = NULL;
	char *err = NULL;
	int first = 0, status;

	if ((status = parse("approve", argc, argv, &o, &first)) != EXIT_OK)
		goto out;
	const char *tool = argv[first + 1];
	const char *session_dir = cordon_context_get(o.ctx, "session_dir");
	if (!(policy = cli_load_policy(o.policy_path, &status)))
		goto out;
	if (!o.preset && !(o.preset = cordon_policy_default_preset(policy))) {
		status = cli_usage_error("approve", "the policy names no default preset; give --preset");
		goto out;
	}
	if ((status = cli_audit_open("approve", o.audit_path, policy, &log)) != EXIT_OK)
		goto out;
	if (!(ev = cordon_evaluator_new(policy, o.preset, o.ctx, &err))) {
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
			tool, o.preset, cordon_decision_reason(d), cordon_decision_rule(d) ? " at " : "",
			cordon_decision_rule(d) ? cordon_decision_rule(d) : "");
		audit_grant(log, o.preset, tool, "deny", cordon_decision_rule(d),
			    cordon_decision_reason(d), o.actor, "grant-refused", 0);
		status = EXIT_POLICY;
		goto out;
	}
	if (cordon_grant_tool(session_dir, tool, o.actor, &err) != 0) {
		fprintf(stderr, "cordon: %s\n", err);
		audit_grant(log, o.preset, tool, cordon_effect_name(cordon_decision_effect(d)),
			    cordon_decision_rule(d), cordon_decision_reason(d), o.actor,
			    "grant-failed", 0);
		status = EXIT_USAGE;
		goto out;
	}
	audit_grant(log, o.preset, tool, cordon_effect_name(cordon_decision_effect(d)),
		    cordon_decision_rule(d), cordon_decision_reason(d), o.actor, "granted", 0);
	if (cordon_decision_effect(d) == CORDON_ALLOW)
		printf("tool '%s' is allowed in preset '%s' already (%s); granted for session %s "
		       "as well\n",
		       tool, o.preset, cordon_decision_reason(d), session_dir);
	else
		printf("granted tool '%s' for session %s\n", tool, session_dir);
out:
	if (status < 0)
		status = EXIT_OK; /* --help */
	free(err);
	cordon_decision_free(d);
	cordon_evaluator_free(ev);
	cordon_audit_close(log);
	cordon_policy_free(policy);
	cordon_context_free(o.ctx);
	return status;
}

int cmd_revoke(int argc, char **argv)
{
	struct grant_opts o = { .ctx = cordon_context_new() };
	cordon_policy *policy = NULL;
	cordon_audit *log = NULL;
	char *err = NULL;
	size_t removed = 0;
	int first = 0, status, rc;

	if ((status = parse("revoke", argc, argv, &o, &first)) != EXIT_OK)
		goto out;
	const char *session_dir = cordon_context_get(o.ctx, "session_dir");
	const char *tool = o.all ? NULL : argv[first + 1];
	if (o.audit_path || getenv("CORDON_AUDIT_LOG")) {
		if (!(policy = cli_load_policy(o.policy_path, &status)))
			goto out;
		if ((status = cli_audit_open("revoke", o.audit_path, policy, &log)) != EXIT_OK)
			goto out;
	}
	rc = o.all ? cordon_revoke_all(session_dir, &removed, &err)
		   : cordon_revoke_tool(session_dir, tool, &removed, &err);
	audit_grant(log, o.preset, o.all ? "*" : tool, NULL, NULL, NULL, o.actor,
		    rc != 0 ? "revoke-failed" : removed ? "revoked" : "no-grant", 0);
	if (rc != 0) {
		fprintf(stderr, "cordon: %s\n", err);
		status = EXIT_USAGE;
		goto out;
	}
	if (o.all)
		printf("revoked %zu grant%s in session %s\n", removed, removed == 1 ? "" : "s",
		       session_dir);
	else if (removed)
		printf("revoked tool '%s' in session %s\n", tool, session_dir);
	else
		printf("tool '%s' had no grant in session %s\n", tool, session_dir);
out:
	if (status < 0)
		status = EXIT_OK;
	free(err);
	cordon_audit_close(log);
	cordon_policy_free(policy);
	cordon_context_free(o.ctx);
	return status;
}
