/* cordon write, cordon edit and cordon approve: file mutations through
 * the policy, and one-call approvals for the ones that ask. */
#include "config.h"

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exit statuses of these verbs beyond the shared ones. */
enum { EXIT_REFUSED = 1, EXIT_NEEDS_APPROVAL = 3 };

struct write_opts {
	const char *policy_path, *preset, *approval, *old_text, *new_text, *audit, *actor;
	bool all;
	unsigned long ttl;
	cordon_context *ctx;
};

enum {
	OPT_PRESET = 256,
	OPT_CONTEXT,
	OPT_APPROVAL,
	OPT_OLD,
	OPT_NEW,
	OPT_ALL,
	OPT_TTL,
	OPT_AUDIT,
	OPT_ACTOR
};

static int parse_opts(const char *verb, int argc, char **argv, struct write_opts *o, int *first)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "policy", required_argument, NULL, 'p' },
		{ "preset", required_argument, NULL, OPT_PRESET },
		{ "context", required_argument, NULL, OPT_CONTEXT },
		{ "approval", required_argument, NULL, OPT_APPROVAL },
		{ "old", required_argument, NULL, OPT_OLD },
		{ "new", required_argument, NULL, OPT_NEW },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "ttl", required_argument, NULL, OPT_TTL },
		{ "audit", required_argument, NULL, OPT_AUDIT },
		{ "actor", required_argument, NULL, OPT_ACTOR },
		{ NULL, 0, NULL, 0 },
	};
	bool approve = strcmp(verb, "approve") == 0;
	char *end;
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hp:", opts, NULL)) != -1) {
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
		case OPT_APPROVAL:
			if (approve)
				return cli_usage_error(verb, "--approval belongs to 'cordon write' and "
							     "'cordon edit'");
			o->approval = optarg;
			break;
		case OPT_OLD:
			o->old_text = optarg;
			break;
		case OPT_NEW:
			o->new_text = optarg;
			break;
		case OPT_ALL:
			o->all = true;
			break;
		case OPT_AUDIT:
			o->audit = optarg;
			break;
		case OPT_ACTOR:
			o->actor = optarg;
			break;
		case OPT_TTL:
			if (!approve)
				return cli_usage_error(verb, "--ttl belongs to 'cordon approve'");
			errno = 0;
			o->ttl = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || o->ttl == 0 || o->ttl > UINT_MAX ||
			    optarg[0] == '-')
				return cli_usage_error(verb, "--ttl expects a positive number of "
							     "seconds, not '%s'",
						       optarg);
			break;
		default:
			return cli_usage_error(verb, "unknown option");
		}
	}
	*first = optind;
	cli_context_defaults(o->ctx);
	return EXIT_OK;
}

/* The edit options belong to edits only, and an edit needs both. */
static int check_edit_opts(const char *verb, bool edit, const struct write_opts *o)
{
	if (!edit && (o->old_text || o->new_text || o->all))
		return cli_usage_error(verb, "--old, --new and --all belong to an edit");
	if (edit && (!o->old_text || !o->new_text))
		return cli_usage_error(verb, "an edit needs --old STRING and --new STRING");
	if (edit && !*o->old_text)
		return cli_usage_error(verb, "--old must not be empty");
	return EXIT_OK;
}

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
static void audit_mutation(cordon_audit *log, const struct write_opts *o, const char *verb,
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
	char *err = NULL;
	if (cordon_audit_append(log, &rec, &err) != 0) {
		fprintf(stderr, "cordon: %s\n", err);
		free(err);
	}
}

static int run(const char *verb, int argc, char **argv)
{
	cordon_audit *log = NULL;
	struct write_opts o = { .ctx = cordon_context_new() };
	struct cordon_mutation m = { .fd = -1 };
	struct cordon_mutation_result res = { 0 };
	cordon_policy *policy = NULL;
	cordon_evaluator *ev = NULL;
	bool approve = strcmp(verb, "approve") == 0;
	char *err = NULL, *id;
	int first = 0, status;

	status = parse_opts(verb, argc, argv, &o, &first);
	if (status != EXIT_OK)
		goto out;
	argv += first;
	argc -= first;
	if (approve) {
		if (argc != 2 || (strcmp(argv[0], "write") != 0 && strcmp(argv[0], "edit") != 0)) {
			status = cli_usage_error(verb, "expected 'write PATH' or 'edit PATH'");
			goto out;
		}
		m.kind = argv[0][0] == 'e' ? CORDON_MUTATE_EDIT : CORDON_MUTATE_WRITE;
		argv++;
		argc--;
	} else {
		m.kind = strcmp(verb, "edit") == 0 ? CORDON_MUTATE_EDIT : CORDON_MUTATE_WRITE;
		if (argc != 1) {
			status = cli_usage_error(verb, "expected one PATH");
			goto out;
		}
	}
	if ((status = check_edit_opts(verb, m.kind == CORDON_MUTATE_EDIT, &o)) != EXIT_OK)
		goto out;
	if (!(policy = cli_load_policy(o.policy_path, &status)))
		goto out;
	if (!o.preset && !(o.preset = cordon_policy_default_preset(policy))) {
		status = cli_usage_error(verb, "the policy names no default preset; give --preset");
		goto out;
	}
	if ((status = cli_audit_open(verb, o.audit, policy, &log)) != EXIT_OK)
		goto out;
	if (!(ev = cordon_evaluator_new(policy, o.preset, o.ctx, &err))) {
		status = cli_usage_error(NULL, "%s", err);
		goto out;
	}
	m.path = argv[0];
	m.approval = o.approval;
	if (m.kind == CORDON_MUTATE_EDIT) {
		m.old_text = o.old_text;
		m.old_len = strlen(o.old_text);
		m.new_text = o.new_text;
		m.new_len = strlen(o.new_text);
		m.all = o.all;
	} else {
		m.fd = 0; /* the content comes from standard input */
	}
	if (!approve) {
		cordon_mutate(ev, &m, &res);
		audit_mutation(log, &o, verb, &m, &res);
		status = outcome_status(verb, &res);
		goto out;
	}
	id = cordon_approve(ev, &m, (unsigned)o.ttl, &res);
	audit_mutation(log, &o, verb, &m, &res);
	if (id) {
		printf("approved: %s %s, once, for %lu s\n%s\n",
		       m.kind == CORDON_MUTATE_EDIT ? "edit" : "write", res.target,
		       o.ttl ? o.ttl : 600, id);
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
	cordon_context_free(o.ctx);
	return status < 0 ? EXIT_OK : status;
}

int cmd_write(int argc, char **argv)
{
	return run("write", argc, argv);
}

int cmd_edit(int argc, char **argv)
{
	return run("edit", argc, argv);
}

/* `approve --session tool NAME` grants a named tool (cmd_grant.c); any
 * other approve is a one-call approval of a write or an edit. */
int cmd_approve(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "write") == 0 || strcmp(argv[i], "edit") == 0)
			break;
		if (strcmp(argv[i], "exec") == 0)
			return cmd_approve_exec(argc, argv);
		if (strcmp(argv[i], "--session") == 0 || strcmp(argv[i], "tool") == 0)
			return cmd_approve_session(argc, argv);
	}
	return run("approve", argc, argv);
}
