/* cordon grants: list the grants of a session, the tools granted with
 * `cordon approve --session` and the effects a yes "for the session" in
 * the approval console granted (lib/decide/grant.c, lib/host/console_grant.c).
 * `cordon revoke --session --all` removes them. */
#include "config.h"

#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

int cmd_grants(int argc, char **argv)
{
	struct cli_args a;
	const char *arg;
	char *err = NULL, *list = NULL;
	int id, status = EXIT_OK;

	cli_args_init(&a, "grants", argc, argv);
	while ((id = cli_args_next(&a, &arg)) > 0)
		;
	if (id < 0) {
		status = a.status;
		goto out;
	}
	if (a.noperands) {
		status = cli_usage_error("grants", "unexpected operand '%s'", a.operands[0]);
		goto out;
	}
	cli_context_defaults(a.ctx);
	const char *session_dir = cordon_context_get(a.ctx, "session_dir");
	if (!(list = cordon_grants_describe(session_dir, &err))) {
		fprintf(stderr, "cordon: grants: %s\n", err);
		status = EXIT_USAGE;
		goto out;
	}
	if (fputs(list, stdout) == EOF || fflush(stdout) != 0)
		status = EXIT_USAGE;
out:
	free(list);
	free(err);
	cli_args_free(&a);
	return status;
}
