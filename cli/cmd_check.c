/* cordon check FILE...: parse and check, report every error. */
#include "config.h"

#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, status = EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'h')
			return cli_help("check");
		return cli_usage_error("check", "unknown option");
	}
	if (optind >= argc)
		return cli_usage_error("check", "no policy file given");
	for (int i = optind; i < argc; i++) {
		cordon_policy *p = cordon_policy_load_file(argv[i]);
		if (cordon_policy_error_count(p)) {
			cordon_policy_print_diagnostics(p, stderr);
			if (cordon_policy_io_failed(p))
				status = EXIT_USAGE;
			else if (status == EXIT_OK)
				status = EXIT_POLICY;
		}
		cordon_policy_free(p);
	}
	return status;
}
