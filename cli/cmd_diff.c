/* cordon diff OLD NEW: what a policy change widens or narrows. */
#include "config.h"

#include "cli.h"
#include "cordon_tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_diff(int argc, char **argv)
{
	const char *preset, *arg;
	bool all = false, json, fail_on_widen = false;
	cordon_context *ctx;
	cordon_policy *old_p = NULL, *new_p = NULL;
	cordon_diff *d = NULL;
	struct cli_args a;
	int id, status = EXIT_OK, st_old = EXIT_OK, st_new = EXIT_OK;
	char *err = NULL;

	cli_args_init(&a, "diff", argc, argv);
	while ((id = cli_args_next(&a, &arg)) > 0) {
		if (id == OPT_ALL)
			all = true;
		else if (id == OPT_FAIL_ON_WIDEN)
			fail_on_widen = true;
	}
	preset = a.preset;
	ctx = a.ctx;
	json = a.format && strcmp(a.format, "json") == 0;
	char **files = a.operands;
	if (id < 0) {
		status = a.status;
		goto out;
	}
	if (a.noperands != 2) {
		status = cli_usage_error("diff", a.noperands < 2 ? "give two policy files, OLD and NEW"
								  : "unexpected argument '%s'",
					 files[a.noperands > 2 ? 2 : 0]);
		goto out;
	}
	if (all && preset) {
		status = cli_usage_error("diff", "--all and --preset exclude each other");
		goto out;
	}
	/* Both files are checked, so one run reports the errors of both. */
	old_p = cli_load_policy_file(files[0], &st_old);
	new_p = cli_load_policy_file(files[1], &st_new);
	if (!old_p || !new_p) {
		status = st_old == EXIT_USAGE || st_new == EXIT_USAGE ? EXIT_USAGE : EXIT_POLICY;
		goto out;
	}
	/* What --context leaves unset takes the diff's fixed values. */
	if (!(d = cordon_diff_new(old_p, new_p, preset, ctx, &err)) ||
	    cordon_diff_print(d, json ? CORDON_DIFF_JSON : CORDON_DIFF_TEXT, stdout, &err) != 0) {
		status = cli_usage_error(NULL, "%s", err);
		goto out;
	}
	if (fail_on_widen && cordon_diff_count(d, CORDON_DIFF_WIDENED)) {
		/* One line on stderr, which a job whose stdout goes elsewhere
		 * still shows: how much widened, and the first change. */
		char *first = cordon_diff_first_widening(d);
		fprintf(stderr,
			"cordon: the change widens what the policy grants (%zu widened; first, %s)\n",
			cordon_diff_count(d, CORDON_DIFF_WIDENED), first ? first : "");
		free(first);
		status = EXIT_POLICY;
	}
out:
	free(err);
	cordon_diff_free(d);
	cordon_policy_free(old_p);
	cordon_policy_free(new_p);
	cli_args_free(&a);
	return status;
}
