/* cordon approve exec: approve one command that asks, for one call of
 * `cordon run --approval ID`.  The approval is libcordon's
 * (cordon_approve_exec); this verb decides the command as `cordon run`
 * will, prints the preview and the id, and audits the approval. */
#include "config.h"

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct approve_exec_opts {
	const char *policy_path, *preset, *audit_path, *actor;
	bool argv_form;
	unsigned long ttl;
	cordon_context *ctx;
};

static int parse(int argc, char **argv, struct approve_exec_opts *o, int *first)
{
	enum { OPT_PRESET = 256, OPT_WORKSPACE, OPT_CWD, OPT_CONTEXT, OPT_TTL, OPT_AUDIT,
	       OPT_ACTOR, OPT_ARGV };
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "policy", required_argument, NULL, 'p' },
		{ "preset", required_argument, NULL, OPT_PRESET },
		{ "workspace", required_argument, NULL, OPT_WORKSPACE },
		{ "cwd", required_argument, NULL, OPT_CWD },
		{ "context", required_argument, NULL, OPT_CONTEXT },
		{ "ttl", required_argument, NULL, OPT_TTL },
		{ "audit", required_argument, NULL, OPT_AUDIT },
		{ "actor", required_argument, NULL, OPT_ACTOR },
		{ "argv", no_argument, NULL, OPT_ARGV },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+hp:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help("approve");
			return -1;
		case 'p':
			o->policy_path = optarg;
			break;
		case OPT_PRESET:
			o->preset = optarg;
			break;
		case OPT_WORKSPACE:
		case OPT_CWD:
			rc = cli_dir_context_arg(o->ctx, "approve",
						 c == OPT_WORKSPACE ? "workspace" : "cwd", optarg);
			if (rc != EXIT_OK)
				return rc;
			break;
		case OPT_CONTEXT:
			if ((rc = cli_context_arg(o->ctx, "approve", optarg)) != EXIT_OK)
				return rc;
			break;
		case OPT_TTL:
			errno = 0;
			o->ttl = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || o->ttl == 0 || o->ttl > UINT_MAX ||
			    optarg[0] == '-')
				return cli_usage_error("approve", "--ttl expects a positive number of "
								  "seconds, not '%s'",
						       optarg);
			break;
		case OPT_AUDIT:
			o->audit_path = optarg;
			break;
		case OPT_ACTOR:
			o->actor = optarg;
			break;
		case OPT_ARGV:
			o->argv_form = true;
			break;
		default:
			return cli_usage_error("approve", "unknown option");
		}
	}
	*first = optind;
	if (optind < argc && strcmp(argv[optind], "--") == 0)
		(*first)++;
	if (*first >= argc)
		return cli_usage_error("approve", "no command: cordon approve exec [OPTIONS] 'COMMAND' "
						  "or --argv -- CMD [ARG...]");
	if (!o->argv_form && argc - *first != 1)
		return cli_usage_error("approve", "give the command as one shell string, or its "
						  "words after --argv --");
	cli_run_context_defaults(o->ctx);
	if (!o->actor)
		o->actor = getenv("USER");
	return EXIT_OK;
}

static void audit(cordon_audit *log, const struct cordon_audit_record *rec)
{
	char *msg = NULL;
	if (log && cordon_audit_append(log, rec, &msg) != 0) {
		fprintf(stderr, "cordon: %s\n", msg);
		free(msg);
	}
}

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
	audit(log, &rec);
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
		audit(log, &r);
	}
	cordon_decision_free(d);
}

int cmd_approve_exec(int argc, char **argv)
{
	struct approve_exec_opts o = { .ctx = cordon_context_new() };
	cordon_policy *policy = NULL;
	cordon_evaluator *ev = NULL;
	cordon_audit *log = NULL;
	char *err = NULL, *preview = NULL, *id = NULL, **args = NULL;
	enum cordon_effect effect = CORDON_DENY;
	int first = 0, nargs = 0, status;

	/* The word exec goes; the options around it stay. */
	args = calloc((size_t)argc + 1, sizeof(*args));
	if (!args)
		abort();
	for (int i = 0, dropped = 0; i < argc; i++) {
		if (!dropped && i > 0 && strcmp(argv[i], "exec") == 0) {
			dropped = 1;
			continue;
		}
		args[nargs++] = argv[i];
	}
	if ((status = parse(nargs, args, &o, &first)) != EXIT_OK)
		goto out;
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
	/* Decided as `cordon run` decides it: in the sandbox. */
	struct cordon_request req = { .op = CORDON_EXEC, .sandboxed = true };
	if (o.argv_form) {
		req.argv = (const char *const *)args + first;
		req.argc = (size_t)(nargs - first);
	} else {
		req.target = args[first];
	}
	id = cordon_approve_exec(ev, &req, (unsigned)o.ttl, o.actor, &effect, &preview, &err);
	if (!id && !err && effect == CORDON_ALLOW) {
		fprintf(stderr, "cordon: the command is allowed by preset '%s': no approval is "
				"needed\n",
			o.preset);
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
	audit_approval(log, ev, &req, id, o.actor, o.argv_form ? req.argv : NULL,
		       o.argv_form ? req.argc : 0);
	printf("the preview this approval covers (preset '%s'):\n%s", o.preset, preview);
	printf("it is valid once, for %lu s: cordon run --approval %s with the same policy, "
	       "preset, context and command\n%s\n",
	       o.ttl ? o.ttl : 600, id, id);
out:
	if (status < 0)
		status = EXIT_OK; /* --help */
	free(id);
	free(preview);
	free(err);
	free(args);
	cordon_evaluator_free(ev);
	cordon_audit_close(log);
	cordon_policy_free(policy);
	cordon_context_free(o.ctx);
	return status;
}
