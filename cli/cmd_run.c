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

/* One run, from its options to its status line: what the steps share. */
struct run_call {
	struct run_opts o;
	struct cli_args a;
	const char *shell;      /* --shell's command, or NULL */
	char *shell_argv[2];
	cordon_policy *policy;
	char *refusals;         /* what was refused, for --status-fd */
	char outcome[RUN_OUTCOME_SIZE];
	int status_fd;          /* --status-fd's descriptor, or -1 */
};

/* The options into the run's settings, each value checked as it is read:
 * true when the run goes on, else false with its status (--help: EXIT_OK). */
static bool read_run_options(struct run_call *c, int *status)
{
	struct run_opts *o = &c->o;
	const char *arg;
	char *end;
	int id;
	while ((id = cli_args_next(&c->a, &arg)) > 0) {
		switch (id) {
		case OPT_TIMEOUT:
			o->timeout = strtod(arg, &end);
			if (*end || end == arg || o->timeout < 0) {
				*status = cli_usage_error("run", "--timeout expects seconds, not '%s'",
							  arg);
				return false;
			}
			break;
		case OPT_MAX_OUTPUT:
			o->max_output = strtoull(arg, &end, 10);
			if (*end || end == arg || o->max_output == 0) {
				*status = cli_usage_error(
					"run", "--max-output expects a byte count, not '%s'", arg);
				return false;
			}
			break;
		case OPT_OUTPUT_FILE:
			o->output_file = arg;
			break;
		case OPT_SHELL:
			c->shell = arg;
			break;
		case OPT_APPROVED:
			o->approved = true;
			break;
		case OPT_APPROVAL:
#ifdef __APPLE__
			*status = cli_usage_error("run",
						  "--approval is not supported by the macOS runner");
			return false;
#endif
			o->approval = arg;
			break;
		case OPT_PREVIEW:
			if (strlen(arg) != 64 || strspn(arg, "0123456789abcdef") != 64) {
				*status = cli_usage_error("run", "--preview expects the 64 hex digits "
								 "of a preview digest, not '%s'",
							  arg);
				return false;
			}
			o->preview = arg;
			break;
		case OPT_REDACT:
			o->redact = true;
			break;
		case OPT_CHECK_LINKS:
			o->check_links = true;
			break;
		case OPT_EGRESS_HOSTS:
			o->egress_hosts = arg;
			break;
		case OPT_STATUS_FD:
			if ((*status = status_fd_open(arg, &c->status_fd)) != EXIT_OK)
				return false;
			o->refusals = &c->refusals;
			break;
		case OPT_QUIET_REFUSALS:
			o->quiet_refusals = true;
			break;
		case OPT_NO_WATCH_WRITES:
			o->no_watch_writes = true;
			break;
		}
	}
	if (id < 0) {
		*status = c->a.status;
		return false;
	}
	return true;
}

/* The options that only make sense together, or not at all: one command,
 * one kind of approval.  EXIT_OK, or EXIT_USAGE after a message. */
static int check_run_form(const struct run_call *c)
{
	if (c->shell && c->a.noperands > 0)
		return cli_usage_error("run", "give either --shell 'COMMAND' or -- CMD [ARG...]");
	if (!c->shell && c->a.noperands == 0)
		return cli_usage_error("run", "no command: cordon run [OPTIONS] -- CMD [ARG...]");
	if (c->o.approval && c->o.approved)
		return cli_usage_error("run", "give either --approval ID or --approved");
	if (c->o.preview && !c->o.approved)
		return cli_usage_error("run", "--preview belongs to --approved");
	return EXIT_OK;
}

/* The policy, its preset and the audit log the run is decided and
 * recorded by: true when they are ready, else false with the status. */
static bool load_run_policy(struct run_call *c, int *status)
{
	struct run_opts *o = &c->o;
	if (!(c->policy = cli_load_policy(c->a.policy_path, status))) {
		if (*status == EXIT_POLICY)
			snprintf(c->outcome, sizeof(c->outcome), "policy-error");
		/* The administrator's signed policy cannot be used: nothing
		 * runs, as where the sandbox cannot start. */
		if (cli_policy_bundle_refused())
			*status = RUN_UNAVAILABLE;
		return false;
	}
	if (!o->preset && !(o->preset = cordon_policy_default_preset(c->policy))) {
		*status = cli_usage_error("run",
					  "the policy names no default preset; give --preset");
		return false;
	}
	*status = cli_audit_open("run", c->a.audit_path, c->a.syslog, c->policy, &o->audit);
	if (*status != EXIT_OK)
		return false;
	cli_run_context_defaults(c->a.ctx);
	o->policy = c->policy;
	o->policy_path = c->a.policy_path;
	return true;
}

/* The command under the preset's sandbox, after the approval console
 * where the preset sends what needs approval to one. */
static int launch_run(struct run_call *c)
{
	struct run_opts *o = &c->o;
	char *console_actor = NULL, *console_digest = NULL;
	int status;
	if (c->shell) {
		c->shell_argv[0] = (char *)c->shell;
		o->argv = c->shell_argv;
		o->shell = true;
	} else {
		o->argv = c->a.operands;
	}
	o->outcome = c->outcome;
	snprintf(c->outcome, sizeof(c->outcome), "refused");
	if ((status = run_console(o, &console_actor, &console_digest)) != EXIT_OK)
		snprintf(c->outcome, sizeof(c->outcome), "needs-approval");
	else
		status = run_command(o);
	free(console_actor);
	free(console_digest);
	return status;
}

int cmd_run(int argc, char **argv)
{
	struct run_call c = { .outcome = "usage-error", .status_fd = -1 };
	int status = EXIT_OK;

	cli_args_init(&c.a, "run", argc, argv);
	c.o.ctx = c.a.ctx;
	if (read_run_options(&c, &status)) {
		c.o.preset = c.a.preset;
		c.o.actor = c.a.actor;
		if ((status = check_run_form(&c)) == EXIT_OK && load_run_policy(&c, &status))
			status = launch_run(&c);
	}
	status_fd_write(c.status_fd, status, c.outcome, c.refusals);
	free(c.refusals);
	cordon_audit_close(c.o.audit);
	cli_policy_done(c.policy);
	cli_args_free(&c.a);
	return status;
}
