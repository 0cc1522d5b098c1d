/* cordon diff OLD NEW: what a policy change widens or narrows. */
#include "config.h"

#include "cli.h"
#include "cordon_tools.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_diff(int argc, char **argv)
{
	enum { OPT_PRESET = 256, OPT_ALL, OPT_FORMAT, OPT_FAIL_ON_WIDEN, OPT_CONTEXT };
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "preset", required_argument, NULL, OPT_PRESET },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "fail-on-widen", no_argument, NULL, OPT_FAIL_ON_WIDEN },
		{ "context", required_argument, NULL, OPT_CONTEXT },
		{ NULL, 0, NULL, 0 },
	};
	const char *preset = NULL;
	bool all = false, json = false, fail_on_widen = false;
	cordon_context *ctx = cordon_context_new();
	cordon_policy *old_p = NULL, *new_p = NULL;
	cordon_diff *d = NULL;
	int c, status = EXIT_OK, st_old = EXIT_OK, st_new = EXIT_OK;
	char *err = NULL;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cordon_context_free(ctx);
			return cli_help("diff");
		case OPT_PRESET:
			preset = optarg;
			break;
		case OPT_ALL:
			all = true;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "json") == 0) {
				json = true;
			} else if (strcmp(optarg, "text") != 0) {
				status = cli_usage_error("diff", "unknown format '%s': use text or json",
							 optarg);
				goto out;
			}
			break;
		case OPT_FAIL_ON_WIDEN:
			fail_on_widen = true;
			break;
		case OPT_CONTEXT:
			if ((status = cli_context_arg(ctx, "diff", optarg)) != EXIT_OK)
				goto out;
			break;
		default:
			status = cli_usage_error("diff", "unknown option");
			goto out;
		}
	}
	if (argc - optind != 2) {
		status = cli_usage_error("diff", argc - optind < 2 ? "give two policy files, OLD and NEW"
								   : "unexpected argument '%s'",
					 argv[optind + 2 < argc ? optind + 2 : optind]);
		goto out;
	}
	if (all && preset) {
		status = cli_usage_error("diff", "--all and --preset exclude each other");
		goto out;
	}
	/* Both files are checked, so one run reports the errors of both. */
	old_p = cli_load_policy(argv[optind], &st_old);
	new_p = cli_load_policy(argv[optind + 1], &st_new);
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
	cordon_context_free(ctx);
	return status;
}
