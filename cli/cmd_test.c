/* cordon test [--coverage [--threshold N]] FILE...: run the policies' test
 * blocks, print TAP, and optionally which rules the expectations exercised. */
#include "config.h"

#include "cli.h"
#include "cordon_tools.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int cmd_test(int argc, char **argv)
{
	enum { OPT_COVERAGE = 256, OPT_THRESHOLD, OPT_INCLUDE_SHIPPED, OPT_HOST };
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "coverage", no_argument, NULL, OPT_COVERAGE },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "include-shipped", no_argument, NULL, OPT_INCLUDE_SHIPPED },
		{ "host", required_argument, NULL, OPT_HOST },
		{ NULL, 0, NULL, 0 },
	};
	size_t n = 0, failed = 0;
	int c, status = EXIT_OK;
	bool coverage = false, has_threshold = false, include_shipped = false;
	const char *host = NULL;
	double threshold = 0, total;
	char *end, *err = NULL;
	cordon_coverage *cov = NULL;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return cli_help("test");
		case OPT_COVERAGE:
			coverage = true;
			break;
		case OPT_INCLUDE_SHIPPED:
			include_shipped = true;
			break;
		case OPT_HOST: {
			/* Refused here, before any test runs, rather than once a test. */
			cordon_context *probe = cordon_context_new();
			int rc = cli_host_arg(probe, "test", optarg);
			cordon_context_free(probe);
			if (rc != EXIT_OK)
				return rc;
			host = optarg;
			break;
		}
		case OPT_THRESHOLD:
			threshold = strtod(optarg, &end);
			if (end == optarg || *end || !isfinite(threshold) || threshold < 0 ||
			    threshold > 100)
				return cli_usage_error("test",
						       "--threshold expects a percentage from 0 to 100, "
						       "not '%s'",
						       optarg);
			has_threshold = true;
			break;
		default:
			return cli_usage_error("test", "unknown option");
		}
	}
	if (has_threshold && !coverage)
		return cli_usage_error("test", "--threshold needs --coverage");
	if (optind >= argc)
		return cli_usage_error("test", "no policy file given");
	if (coverage)
		cov = cordon_coverage_new(include_shipped);
	struct cordon_test_options topts = {
		.include_shipped = include_shipped, .host = host, .coverage = cov,
	};
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
			if (cordon_test_run(p, &topts, stdout, &n, &failed, &err) != 0) {
				/* The host was checked above and the policy has no errors. */
				fprintf(stderr, "cordon: %s\n", err);
				free(err);
				err = NULL;
				status = EXIT_USAGE;
			} else if (n == before)
				printf("# %s has no test blocks\n", argv[i]);
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
	cordon_coverage_free(cov);
	if (status == EXIT_OK && failed)
		status = EXIT_POLICY;
	return status;
}
