/* cordon lint FILE...: the errors of `cordon check`, and the warnings and
 * notes of the lint checks, as text, JSON or SARIF. */
#include "config.h"

#include "cli.h"
#include "tools/lint.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum format { FORMAT_TEXT, FORMAT_JSON, FORMAT_SARIF };

static const struct {
	const char *name;
	enum format format;
} formats[] = {
	{ "text", FORMAT_TEXT },
	{ "json", FORMAT_JSON },
	{ "sarif", FORMAT_SARIF },
};

/* Apply "--disable ID,..." or "--enable ID,...": `all` names every check. */
static int set_checks(struct lint_options *opts, const char *list, bool disable)
{
	char *copy = xstrdup(list), *save = NULL;
	int status = EXIT_OK;
	for (char *id = strtok_r(copy, ",", &save); id; id = strtok_r(NULL, ",", &save)) {
		if (strcmp(id, "all") == 0) {
			for (size_t i = 0; i < lint_ncheck; i++)
				opts->disabled[i] = disable;
			continue;
		}
		int i = lint_check_lookup(id);
		if (i < 0) {
			const char **ids = xcalloc(lint_ncheck, sizeof(*ids));
			for (size_t k = 0; k < lint_ncheck; k++)
				ids[k] = lint_checks[k].id;
			const char *best = closest_word(id, ids, lint_ncheck);
			free(ids);
			status = best ? cli_usage_error("lint", "unknown check '%s'; did you mean '%s'?",
							id, best)
				      : cli_usage_error("lint", "unknown check '%s' (--list-checks "
								"shows them)",
							id);
			break;
		}
		opts->disabled[i] = disable;
	}
	free(copy);
	return status;
}

static void list_checks(void)
{
	for (size_t i = 0; i < lint_ncheck; i++)
		printf("%-22s %-8s %s\n", lint_checks[i].id, diag_severity_names[lint_checks[i].level],
		       lint_checks[i].summary);
}

int cmd_lint(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "werror", no_argument, NULL, 'W' },
		{ "disable", required_argument, NULL, 'd' },
		{ "enable", required_argument, NULL, 'e' },
		{ "list-checks", no_argument, NULL, 'l' },
		{ "include-shipped", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lint_options lo = { 0 };
	enum format format = FORMAT_TEXT;
	bool werror = false;
	int c, status = EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return cli_help("lint");
		case 'l':
			list_checks();
			return EXIT_OK;
		case 'W':
			werror = true;
			break;
		case 'S':
			lo.include_shipped = true;
			break;
		case 'd':
		case 'e':
			if ((status = set_checks(&lo, optarg, c == 'd')) != EXIT_OK)
				return status;
			break;
		case 'f': {
			size_t i;
			for (i = 0; i < ARRAY_SIZE(formats); i++)
				if (strcmp(optarg, formats[i].name) == 0)
					break;
			if (i == ARRAY_SIZE(formats))
				return cli_usage_error("lint", "unknown format '%s': use text, json or sarif",
						       optarg);
			format = formats[i].format;
			break;
		}
		default:
			return cli_usage_error("lint", "unknown option");
		}
	}
	if (optind >= argc)
		return cli_usage_error("lint", "no policy file given");

	size_t n = (size_t)(argc - optind);
	struct lint_result **rs = xcalloc(n, sizeof(*rs));
	for (size_t i = 0; i < n; i++) {
		rs[i] = lint_file(argv[optind + (int)i], &lo);
		if (format == FORMAT_TEXT)
			lint_print_text(stdout, rs[i]);
	}
	if (format == FORMAT_TEXT)
		lint_print_summary(stdout, rs, n);
	else if (format == FORMAT_JSON)
		lint_print_json(stdout, rs, n);
	else
		lint_print_sarif(stdout, rs, n);

	for (size_t i = 0; i < n; i++) {
		const struct lint_result *r = rs[i];
		if (r->io_failed)
			status = EXIT_USAGE;
		else if (status == EXIT_OK &&
			 (r->count[DIAG_ERROR] || (werror && (r->count[DIAG_WARNING] || r->count[DIAG_INFO]))))
			status = EXIT_POLICY;
		lint_result_free(rs[i]);
	}
	free(rs);
	if (fflush(stdout) != 0)
		return EXIT_USAGE;
	return status;
}
