/* cordon run: launch one command under a preset's sandbox. */
#include "config.h"

#include "cli.h"
#include "run.h"

#include <getopt.h>
#include <limits.h>
#include <unistd.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_dir_context_arg(cordon_context *ctx, const char *verb, const char *name,
			const char *value)
{
	/* A relative directory is joined to the current one, not resolved: a
	 * workspace reached through a symlink must be refused by the
	 * evaluator, not quietly followed. */
	char here[PATH_MAX], *kv;
	int status;
	if (value[0] == '/') {
		kv = malloc(strlen(name) + strlen(value) + 2);
		if (kv)
			sprintf(kv, "%s=%s", name, value);
	} else if (getcwd(here, sizeof(here))) {
		kv = malloc(strlen(name) + strlen(here) + strlen(value) + 3);
		if (kv)
			sprintf(kv, "%s=%s/%s", name, here, value);
	} else {
		return cli_usage_error(verb, "cannot tell the current directory");
	}
	if (!kv)
		abort();
	status = cli_context_arg(ctx, verb, kv);
	free(kv);
	return status;
}

void cli_run_context_defaults(cordon_context *ctx)
{
	/* The workspace defaults to the cwd, the cwd to the workspace. */
	if (!cordon_context_get(ctx, "cwd") && cordon_context_get(ctx, "workspace")) {
		char *err = NULL;
		cordon_context_set(ctx, "cwd", cordon_context_get(ctx, "workspace"), &err);
		free(err);
	}
	cli_context_defaults(ctx);
}

int cmd_run(int argc, char **argv)
{
	enum { OPT_PRESET = 256, OPT_WORKSPACE, OPT_CWD, OPT_CONTEXT, OPT_TIMEOUT, OPT_MAX_OUTPUT,
	       OPT_OUTPUT_FILE, OPT_SHELL, OPT_APPROVED, OPT_REDACT, OPT_AUDIT, OPT_ACTOR,
	       OPT_APPROVAL, OPT_PREVIEW, OPT_CHECK_LINKS, OPT_EGRESS_HOSTS };
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "policy", required_argument, NULL, 'p' },
		{ "preset", required_argument, NULL, OPT_PRESET },
		{ "workspace", required_argument, NULL, OPT_WORKSPACE },
		{ "cwd", required_argument, NULL, OPT_CWD },
		{ "context", required_argument, NULL, OPT_CONTEXT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "max-output", required_argument, NULL, OPT_MAX_OUTPUT },
		{ "output-file", required_argument, NULL, OPT_OUTPUT_FILE },
		{ "shell", required_argument, NULL, OPT_SHELL },
		{ "approved", no_argument, NULL, OPT_APPROVED },
		{ "approval", required_argument, NULL, OPT_APPROVAL },
		{ "preview", required_argument, NULL, OPT_PREVIEW },
		{ "redact", no_argument, NULL, OPT_REDACT },
		{ "audit", required_argument, NULL, OPT_AUDIT },
		{ "actor", required_argument, NULL, OPT_ACTOR },
		{ "check-links", no_argument, NULL, OPT_CHECK_LINKS },
		{ "egress-hosts", required_argument, NULL, OPT_EGRESS_HOSTS },
		{ NULL, 0, NULL, 0 },
	};
	struct run_opts o = { 0 };
	const char *policy_path = NULL, *shell = NULL, *audit_path = NULL;
	cordon_context *ctx = cordon_context_new();
	cordon_policy *policy = NULL;
	char *end, *shell_argv[2] = { NULL, NULL };
	int c, status = EXIT_OK;

	o.ctx = ctx;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+hp:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cordon_context_free(ctx);
			return cli_help("run");
		case 'p':
			policy_path = optarg;
			break;
		case OPT_PRESET:
			o.preset = optarg;
			break;
		case OPT_WORKSPACE:
		case OPT_CWD:
			status = cli_dir_context_arg(ctx, "run", c == OPT_WORKSPACE ? "workspace" : "cwd",
						     optarg);
			if (status != EXIT_OK)
				goto out;
			break;
		case OPT_CONTEXT:
			if ((status = cli_context_arg(ctx, "run", optarg)) != EXIT_OK)
				goto out;
			break;
		case OPT_TIMEOUT:
			o.timeout = strtod(optarg, &end);
			if (*end || end == optarg || o.timeout < 0) {
				status = cli_usage_error("run", "--timeout expects seconds, not '%s'", optarg);
				goto out;
			}
			break;
		case OPT_MAX_OUTPUT:
			o.max_output = strtoull(optarg, &end, 10);
			if (*end || end == optarg || o.max_output == 0) {
				status = cli_usage_error("run", "--max-output expects a byte count, not '%s'",
							 optarg);
				goto out;
			}
			break;
		case OPT_OUTPUT_FILE:
			o.output_file = optarg;
			break;
		case OPT_SHELL:
			shell = optarg;
			break;
		case OPT_APPROVED:
			o.approved = true;
			break;
		case OPT_APPROVAL:
#ifdef __APPLE__
			status = cli_usage_error("run", "--approval is not supported by the macOS runner");
			goto out;
#endif
			o.approval = optarg;
			break;
		case OPT_PREVIEW:
			if (strlen(optarg) != 64 || strspn(optarg, "0123456789abcdef") != 64) {
				status = cli_usage_error("run", "--preview expects the 64 hex digits of "
								"a preview digest, not '%s'",
							 optarg);
				goto out;
			}
			o.preview = optarg;
			break;
		case OPT_REDACT:
			o.redact = true;
			break;
		case OPT_AUDIT:
			audit_path = optarg;
			break;
		case OPT_ACTOR:
			o.actor = optarg;
			break;
		case OPT_CHECK_LINKS:
			o.check_links = true;
			break;
		case OPT_EGRESS_HOSTS:
			o.egress_hosts = optarg;
			break;
		default:
			status = cli_usage_error("run", "unknown option");
			goto out;
		}
	}
	if (shell && optind < argc) {
		status = cli_usage_error("run", "give either --shell 'COMMAND' or -- CMD [ARG...]");
		goto out;
	}
	if (!shell && optind >= argc) {
		status = cli_usage_error("run", "no command: cordon run [OPTIONS] -- CMD [ARG...]");
		goto out;
	}
	if (o.approval && o.approved) {
		status = cli_usage_error("run", "give either --approval ID or --approved");
		goto out;
	}
	if (o.preview && !o.approved) {
		status = cli_usage_error("run", "--preview belongs to --approved");
		goto out;
	}
	if (!(policy = cli_load_policy(policy_path, &status)))
		goto out;
	if (!o.preset && !(o.preset = cordon_policy_default_preset(policy))) {
		status = cli_usage_error("run", "the policy names no default preset; give --preset");
		goto out;
	}
	if ((status = cli_audit_open("run", audit_path, policy, &o.audit)) != EXIT_OK)
		goto out;
	cli_run_context_defaults(ctx);
	o.policy = policy;
	o.policy_path = policy_path;
	if (shell) {
		shell_argv[0] = (char *)shell;
		o.argv = shell_argv;
		o.shell = true;
	} else {
		o.argv = argv + optind;
	}
	status = run_command(&o);
out:
	cordon_audit_close(o.audit);
	cordon_policy_free(policy);
	cordon_context_free(ctx);
	return status;
}

/* macOS: sandbox-exec, and whether a profile that denies by default
 * applies and starts a program. */
static int probe_seatbelt(struct probe_result *r, bool json)
{
	bool ok = r->bwrap_path && r->userns;
	if (json) {
		json_t *o = json_pack("{s:{s:s?,s:b,s:s?},s:b}", "seatbelt", "path", r->bwrap_path,
				      "profile_applies", r->userns, "error", r->userns_error,
				      "ready", ok);
		char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
		puts(s ? s : "{}");
		free(s);
		json_decref(o);
	} else {
		printf("seatbelt:  %s\n", r->bwrap_path ? r->bwrap_path : "missing (/usr/bin/sandbox-exec)");
		printf("profile:   %s%s\n", r->userns ? "a deny-default profile applies" : "refused: ",
		       r->userns ? "" : r->userns_error ? r->userns_error : "?");
		printf("sandbox:   %s\n", ok ? "ready" : "UNAVAILABLE: restricted presets will not run");
	}
	run_probe_free(r);
	return ok ? EXIT_OK : 125;
}

int cmd_probe(int argc, char **argv)
{
	struct probe_result r;
	bool json = argc > 1 && strcmp(argv[1], "--json") == 0;
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return cli_help("probe");
	if (argc > 2 || (argc == 2 && !json))
		return cli_usage_error("probe", "usage: cordon probe [--json]");
	run_probe(&r, true);
	if (r.seatbelt)
		return probe_seatbelt(&r, json);
	bool ok = r.bwrap_path && r.userns && r.landlock_abi >= 1 && r.seccomp && r.helper_path &&
		  r.helper_same_build;
	if (json) {
		json_t *o = json_pack("{s:{s:s?,s:s?},s:{s:b,s:s?},s:{s:i},s:{s:b},s:s?,s:b,s:b}",
				      "bwrap", "path", r.bwrap_path, "version", r.bwrap_version,
				      "userns", "ok", r.userns, "error", r.userns_error, "landlock",
				      "abi", r.landlock_abi, "seccomp", "ok", r.seccomp, "helper",
				      r.helper_path, "helper_same_build", r.helper_same_build, "ready",
				      ok);
		char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
		puts(s ? s : "{}");
		free(s);
		json_decref(o);
	} else {
		printf("bwrap:     %s%s%s\n", r.bwrap_path ? r.bwrap_path : "missing (install bubblewrap)",
		       r.bwrap_version ? ", " : "", r.bwrap_version ? r.bwrap_version : "");
		printf("userns:    %s%s\n", r.userns ? "works" : "refused: ",
		       r.userns ? "" : r.userns_error ? r.userns_error : "bwrap is missing");
		if (r.landlock_abi >= 1)
			printf("landlock:  ABI %d\n", r.landlock_abi);
		else
			printf("landlock:  unavailable\n");
		printf("seccomp:   %s\n", r.seccomp ? "available" : "unavailable");
		printf("helper:    %s%s\n", r.helper_path ? r.helper_path : "missing (cordon-exec)",
		       r.helper_path && !r.helper_same_build
			       ? " (of another build of cordon: refused; install the two together)"
			       : "");
#ifndef __APPLE__
		printf("limits:    %s\n", run_limits_probe());
#endif
		printf("sandbox:   %s\n", ok ? "ready" : "UNAVAILABLE: restricted presets will not run");
	}
	run_probe_free(&r);
	return ok ? EXIT_OK : 125;
}
