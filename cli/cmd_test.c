/* cordon test [--coverage [--threshold N]] FILE...: run the policies' test
 * blocks, print TAP, and optionally which rules the expectations exercised. */
#include "config.h"

#include "cli.h"
#include "cordon_tools.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int cmd_test(int argc, char **argv)
{
	size_t n = 0, failed = 0;
	int id, status = EXIT_OK;
	bool coverage = false, has_threshold = false, include_shipped = false;
	double threshold = 0, total;
	char *end, *err = NULL;
	const char *arg;
	cordon_coverage *cov = NULL;
	struct cli_args a;

	/* --host is checked by the parser, before any test runs. */
	cli_args_init(&a, "test", argc, argv);
	while ((id = cli_args_next(&a, &arg)) > 0) {
		switch (id) {
		case OPT_COVERAGE:
			coverage = true;
			break;
		case OPT_INCLUDE_SHIPPED:
			include_shipped = true;
			break;
		case OPT_THRESHOLD:
			threshold = strtod(arg, &end);
			if (end == arg || *end || !isfinite(threshold) || threshold < 0 ||
			    threshold > 100) {
				status = cli_usage_error("test",
							 "--threshold expects a percentage from 0 to "
							 "100, not '%s'",
							 arg);
				goto out;
			}
			has_threshold = true;
			break;
		}
	}
	if (id < 0) {
		status = a.status;
		goto out;
	}
	if (has_threshold && !coverage) {
		status = cli_usage_error("test", "--threshold needs --coverage");
		goto out;
	}
	if (a.noperands == 0) {
		status = cli_usage_error("test", "no policy file given");
		goto out;
	}
	char **files = a.operands;
	if (coverage)
		cov = cordon_coverage_new(include_shipped);
	struct cordon_test_options topts = {
		.include_shipped = include_shipped, .host = a.host, .coverage = cov,
	};
	for (int i = 0; i < a.noperands; i++) {
		cordon_policy *p = cordon_policy_load_file(files[i]);
		if (cordon_policy_error_count(p)) {
			cordon_policy_print_diagnostics(p, stderr);
			printf("not ok %zu - %s: the policy has errors\n", ++n, files[i]);
			failed++;
			if (cordon_policy_io_failed(p))
				status = EXIT_USAGE;
		} else {
			size_t before = n;
			if (cordon_test_run(p, &topts, stdout, &n, &failed, &err) != 0) {
				/* The host was checked by the parser and the policy has no errors. */
				fprintf(stderr, "cordon: %s\n", err);
				free(err);
				err = NULL;
				status = EXIT_USAGE;
			} else if (n == before)
				printf("# %s has no test blocks\n", files[i]);
		}
		cordon_policy_free(p);
	}
	printf("1..%zu\n", n);
	if (coverage) {
		total = cordon_coverage_finish(cov);
		cordon_coverage_print(cov, stdout);
		if (has_threshold && total < threshold) {
			printf("# coverage %.1f%% is below the threshold of %g%%\n", total, threshold);
			if (status == EXIT_OK)
				status = EXIT_POLICY;
		}
	}
	if (status == EXIT_OK && failed)
		status = EXIT_POLICY;
out:
	cordon_coverage_free(cov);
	cli_args_free(&a);
	return status;
}
