/* cordon run: launch one command under a preset's sandbox. */
#include "config.h"

#include "cli.h"
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { 0 };
	struct cli_args a;
	const char *shell = NULL, *arg;
	cordon_policy *policy = NULL;
	char *end, *shell_argv[2] = { NULL, NULL };
	int id, status = EXIT_OK;

	cli_args_init(&a, "run", argc, argv);
	o.ctx = a.ctx;
	while ((id = cli_args_next(&a, &arg)) > 0) {
		switch (id) {
		case OPT_TIMEOUT:
			o.timeout = strtod(arg, &end);
			if (*end || end == arg || o.timeout < 0) {
				status = cli_usage_error("run", "--timeout expects seconds, not '%s'", arg);
				goto out;
			}
			break;
		case OPT_MAX_OUTPUT:
			o.max_output = strtoull(arg, &end, 10);
			if (*end || end == arg || o.max_output == 0) {
				status = cli_usage_error("run", "--max-output expects a byte count, not '%s'",
							 arg);
				goto out;
			}
			break;
		case OPT_OUTPUT_FILE:
			o.output_file = arg;
			break;
		case OPT_SHELL:
			shell = arg;
			break;
		case OPT_APPROVED:
			o.approved = true;
			break;
		case OPT_APPROVAL:
#ifdef __APPLE__
			status = cli_usage_error("run", "--approval is not supported by the macOS runner");
			goto out;
#endif
			o.approval = arg;
			break;
		case OPT_PREVIEW:
			if (strlen(arg) != 64 || strspn(arg, "0123456789abcdef") != 64) {
				status = cli_usage_error("run", "--preview expects the 64 hex digits of "
								"a preview digest, not '%s'",
							 arg);
				goto out;
			}
			o.preview = arg;
			break;
		case OPT_REDACT:
			o.redact = true;
			break;
		case OPT_CHECK_LINKS:
			o.check_links = true;
			break;
		case OPT_EGRESS_HOSTS:
			o.egress_hosts = arg;
			break;
		}
	}
	if (id < 0) {
		status = a.status;
		goto out;
	}
	o.preset = a.preset;
	o.actor = a.actor;
	if (shell && a.noperands > 0) {
		status = cli_usage_error("run", "give either --shell 'COMMAND' or -- CMD [ARG...]");
		goto out;
	}
	if (!shell && a.noperands == 0) {
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
	if (!(policy = cli_load_policy(a.policy_path, &status)))
		goto out;
	if (!o.preset && !(o.preset = cordon_policy_default_preset(policy))) {
		status = cli_usage_error("run", "the policy names no default preset; give --preset");
		goto out;
	}
	if ((status = cli_audit_open("run", a.audit_path, policy, &o.audit)) != EXIT_OK)
		goto out;
	cli_run_context_defaults(a.ctx);
	o.policy = policy;
	o.policy_path = a.policy_path;
	if (shell) {
		shell_argv[0] = (char *)shell;
		o.argv = shell_argv;
		o.shell = true;
	} else {
		o.argv = a.operands;
	}
	status = run_command(&o);
out:
	cordon_audit_close(o.audit);
	cli_policy_done(policy);
	cli_args_free(&a);
	return status;
}
