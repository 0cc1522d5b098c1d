/* cordon test FILE...: run the policies' test blocks, print TAP. */
#include "config.h"

#include "cli.h"

#include <getopt.h>
#include <stdio.h>

int cmd_test(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t n = 0, failed = 0;
	int c, status = EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'h')
			return cli_help("test");
		return cli_usage_error("test", "unknown option");
	}
	if (optind >= argc)
		return cli_usage_error("test", "no policy file given");
	for (int i = optind; i < argc; i++) {
		cordon_policy *p = cordon_policy_load_file(argv[i]);
		if (cordon_policy_error_count(p)) {
			cordon_policy_print_diagnostics(p, stderr);
			printf("not ok %zu - %s: the policy has errors\n", ++n, argv[i]);
			failed++;
			if (cordon_policy_io_failed(p))
				status = EXIT_USAGE;
		} else {
			size_t before = n;
			failed += cordon_policy_run_tests(p, stdout, &n);
			if (n == before)
				printf("# %s has no test blocks\n", argv[i]);
		}
		cordon_policy_free(p);
	}
	printf("1..%zu\n", n);
	if (status == EXIT_OK && failed)
		status = EXIT_POLICY;
	return status;
}
