/* cordon run: launch one command under a preset's sandbox. */
#include "config.h"

#include "cli.h"
#include "run.h"

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --status-fd FD: an open descriptor from 3 up, kept from the command. */
static int status_fd_open(const char *arg, int *fd)
{
	char *end;
	long n = strtol(arg, &end, 10);
	if (*end || end == arg || n < 3 || n > INT_MAX)
		return cli_usage_error("run", "--status-fd expects a descriptor number from 3 up, "
					      "not '%s'",
				       arg);
	int flags = fcntl((int)n, F_GETFD);
	if (flags < 0 || fcntl((int)n, F_SETFD, flags | FD_CLOEXEC) < 0)
		return cli_usage_error("run", "--status-fd %ld is not an open descriptor", n);
	*fd = (int)n;
	return EXIT_OK;
}

/* The call's end for a host that cannot tell cordon's statuses from the
 * command's own by the number: "ran" is true only when the status is the
 * command's.  A host that reads no line must take the call as failed. */
static void status_fd_write(int fd, int status, const char *outcome, const char *refusals)
{
	if (fd < 0)
		return;
	bool ran = strncmp(outcome, "exit:", 5) == 0;
	dprintf(fd, "{\"status\":%d,\"ran\":%s,\"outcome\":\"%.*s\",\"refusals\":%s}\n",
		status, ran ? "true" : "false", (int)strcspn(outcome, "\"\\"), outcome,
		refusals ? refusals : "[]");
	close(fd);
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { 0 };
	struct cli_args a;
	const char *shell = NULL, *arg;
	cordon_policy *policy = NULL;
	char *end, *shell_argv[2] = { NULL, NULL }, *refusals = NULL;
	char outcome[RUN_OUTCOME_SIZE] = "usage-error";
	char *console_actor = NULL, *console_digest = NULL;
	int id, status = EXIT_OK, status_fd = -1;

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
		case OPT_STATUS_FD:
			if ((status = status_fd_open(arg, &status_fd)) != EXIT_OK)
				goto out;
			o.refusals = &refusals;
			break;
		case OPT_QUIET_REFUSALS:
			o.quiet_refusals = true;
			break;
		case OPT_NO_WATCH_WRITES:
			o.no_watch_writes = true;
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
	if (!(policy = cli_load_policy(a.policy_path, &status))) {
		if (status == EXIT_POLICY)
			snprintf(outcome, sizeof(outcome), "policy-error");
		/* The administrator's signed policy cannot be used: nothing
		 * runs, as where the sandbox cannot start. */
		if (cli_policy_bundle_refused())
			status = RUN_UNAVAILABLE;
		goto out;
	}
	if (!o.preset && !(o.preset = cordon_policy_default_preset(policy))) {
		status = cli_usage_error("run", "the policy names no default preset; give --preset");
		goto out;
	}
	if ((status = cli_audit_open("run", a.audit_path, a.syslog, policy, &o.audit)) != EXIT_OK)
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
	o.outcome = outcome;
	snprintf(outcome, sizeof(outcome), "refused");
	if ((status = run_console(&o, &console_actor, &console_digest)) != EXIT_OK)
		snprintf(outcome, sizeof(outcome), "needs-approval");
	else
		status = run_command(&o);
out:
	free(console_actor);
	free(console_digest);
	status_fd_write(status_fd, status, outcome, refusals);
	free(refusals);
	cordon_audit_close(o.audit);
	cli_policy_done(policy);
	cli_args_free(&a);
	return status;
}
