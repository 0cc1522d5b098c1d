/* cordon check FILE...: parse and check, report every error. */
#include "config.h"

#include "cli.h"

#include <stdio.h>
#include <string.h>

int cmd_check(int argc, char **argv)
{
	struct cli_args a;
	const char *arg;
	int status = EXIT_OK;

	cli_args_init(&a, "check", argc, argv);
	if (cli_args_next(&a, &arg) != 0) {
		status = a.status;
		goto out;
	}
	if (a.noperands == 0) {
		status = cli_usage_error("check", "no policy file given");
		goto out;
	}
	for (int i = 0; i < a.noperands; i++) {
		cordon_policy *p = cordon_policy_load_file(a.operands[i]);
		if (cordon_policy_error_count(p)) {
			cordon_policy_print_diagnostics(p, stderr);
			if (cordon_policy_io_failed(p))
				status = EXIT_USAGE;
			else if (status == EXIT_OK)
				status = EXIT_POLICY;
		}
		cordon_policy_free(p);
	}
out:
	cli_args_free(&a);
	return status;
}
