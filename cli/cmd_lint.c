/* cordon lint FILE...: the errors of `cordon check`, and the warnings and
 * notes of the lint checks, as text, JSON or SARIF. */
#include "config.h"

#include "cli.h"
#include "cordon_tools.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	enum cordon_lint_format format;
} formats[] = {
	{ "text", CORDON_LINT_TEXT },
	{ "json", CORDON_LINT_JSON },
	{ "sarif", CORDON_LINT_SARIF },
};

/* Apply "--disable ID,..." or "--enable ID,...": `all` names every check. */
static int set_checks(cordon_lint_options *opts, const char *list, bool disable)
{
	char *copy = strdup(list), *save = NULL, *err = NULL;
	int status = EXIT_OK;
	if (!copy)
		abort();
	for (char *id = strtok_r(copy, ",", &save); id; id = strtok_r(NULL, ",", &save)) {
		if (cordon_lint_options_enable(opts, id, !disable, &err) == 0)
			continue;
		/* The message suggests the nearest id, or else where the ids are. */
		const char *where = cordon_lint_check_closest(id) ? "" : " (--list-checks shows them)";
		status = cli_usage_error("lint", "%s%s", err, where);
		free(err);
		break;
	}
	free(copy);
	return status;
}

static void free_options(cordon_lint_options **opts)
{
	cordon_lint_options_free(*opts);
}

static void list_checks(void)
{
	const char *id, *summary;
	enum cordon_lint_level level;
	for (size_t i = 0; cordon_lint_check(i, &id, &level, &summary, NULL); i++)
		printf("%-22s %-8s %s\n", id, cordon_lint_level_name(level), summary);
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
	/* Freed on every way out of the option loop. */
	cordon_lint_options *lo __attribute__((cleanup(free_options))) = cordon_lint_options_new();
	enum cordon_lint_format format = CORDON_LINT_TEXT;
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
			cordon_lint_options_include_shipped(lo, true);
			break;
		case 'd':
		case 'e':
			if ((status = set_checks(lo, optarg, c == 'd')) != EXIT_OK)
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
	cordon_lint **rs = calloc(n, sizeof(*rs));
	if (!rs)
		abort();
	for (size_t i = 0; i < n; i++) {
		rs[i] = cordon_lint_file(argv[optind + (int)i], lo, NULL); /* a path: never NULL */
		if (format == CORDON_LINT_TEXT)
			cordon_lint_print(&rs[i], 1, CORDON_LINT_TEXT, stdout, NULL);
	}
	cordon_lint_print(rs, n, format == CORDON_LINT_TEXT ? CORDON_LINT_SUMMARY : format, stdout,
			  NULL);

	for (size_t i = 0; i < n; i++) {
		const cordon_lint *r = rs[i];
		if (cordon_lint_io_failed(r))
			status = EXIT_USAGE;
		else if (status == EXIT_OK &&
			 (cordon_lint_count(r, CORDON_LINT_ERROR) ||
			  (werror && (cordon_lint_count(r, CORDON_LINT_WARNING) ||
				      cordon_lint_count(r, CORDON_LINT_INFO)))))
			status = EXIT_POLICY;
		cordon_lint_free(rs[i]);
	}
	free(rs);
	if (fflush(stdout) != 0)
		return EXIT_USAGE;
	return status;
}
