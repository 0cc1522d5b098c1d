/* cordon revoke: remove session grants of named tools (lib/decide/grant.c),
 * and audit it. */
#include "config.h"

#include "cli.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_revoke(int argc, char **argv)
{
	struct cli_args a;
	cordon_policy *policy = NULL;
	cordon_audit *log = NULL;
	const char *arg, *actor;
	bool session = false, all = false;
	char *err = NULL;
	size_t removed = 0;
	int id, status = EXIT_OK, rc;

	cli_args_init(&a, "revoke", argc, argv);
	while ((id = cli_args_next(&a, &arg)) > 0) {
		if (id == OPT_SESSION)
			session = true;
		else if (id == OPT_ALL)
			all = true;
	}
	if (id < 0) {
		status = a.status;
		goto out;
	}
	if (!session) {
		status = cli_usage_error("revoke", "revoke of a tool needs --session (grants last one "
						   "session)");
		goto out;
	}
	if (all && a.noperands != 0) {
		status = cli_usage_error("revoke", "--all takes no 'tool NAME'");
		goto out;
	}
	if (!all && (a.noperands != 2 || strcmp(a.operands[0], "tool") != 0)) {
		status = cli_usage_error("revoke", "expected 'tool NAME': session grants are for named "
						   "tools only, never for read, write, exec or net");
		goto out;
	}
	cli_context_defaults(a.ctx);
	const char *session_dir = cordon_context_get(a.ctx, "session_dir");
	if (!session_dir) {
		status = cli_usage_error("revoke", "no session dir: give --context session_dir=DIR");
		goto out;
	}
	actor = a.actor ? a.actor : getenv("USER");
	const char *tool = all ? NULL : a.operands[1];
	if (cli_audit_wanted(a.audit_path, a.syslog)) {
		if (!(policy = cli_load_policy(a.policy_path, &status)))
			goto out;
		if ((status = cli_audit_open("revoke", a.audit_path, a.syslog, policy,
					     &log)) != EXIT_OK)
			goto out;
	}
	rc = all ? cordon_revoke_all(session_dir, &removed, &err)
		 : cordon_revoke_tool(session_dir, tool, &removed, &err);
	cli_audit_grant(log, a.preset, all ? "*" : tool, NULL, NULL, NULL, actor,
		    rc != 0 ? "revoke-failed" : removed ? "revoked" : "no-grant", 0);
	if (rc != 0) {
		fprintf(stderr, "cordon: %s\n", err);
		status = EXIT_USAGE;
		goto out;
	}
	if (all)
		printf("revoked %zu grant%s in session %s\n", removed, removed == 1 ? "" : "s",
		       session_dir);
	else if (removed)
		printf("revoked tool '%s' in session %s\n", tool, session_dir);
	else
		printf("tool '%s' had no grant in session %s\n", tool, session_dir);
out:
	free(err);
	cordon_audit_close(log);
	cordon_policy_free(policy);
	cli_args_free(&a);
	return status;
}
