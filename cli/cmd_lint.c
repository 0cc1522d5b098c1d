/* cordon lint FILE...: the errors of `cordon check`, and the warnings and
 * notes of the lint checks, as text, JSON or SARIF. */
#include "config.h"

#include "cli.h"
#include "cordon_tools.h"

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
	cordon_lint_options *lo __attribute__((cleanup(free_options))) = cordon_lint_options_new();
	struct cli_args a;
	enum cordon_lint_format format = CORDON_LINT_TEXT;
	bool werror = false, list = false;
	const char *arg;
	int id, status = EXIT_OK;

	cli_args_init(&a, "lint", argc, argv);
	while ((id = cli_args_next(&a, &arg)) > 0) {
		switch (id) {
		case OPT_LIST_CHECKS:
			list = true;
			break;
		case OPT_WERROR:
			werror = true;
			break;
		case OPT_INCLUDE_SHIPPED:
			cordon_lint_options_include_shipped(lo, true);
			break;
		case OPT_DISABLE:
		case OPT_ENABLE:
			if ((status = set_checks(lo, arg, id == OPT_DISABLE)) != EXIT_OK)
				goto out;
			break;
		}
	}
	if (id < 0) {
		status = a.status;
		goto out;
	}
	if (list) {
		list_checks();
		goto out;
	}
	for (size_t i = 0; a.format && i < ARRAY_SIZE(formats); i++)
		if (strcmp(a.format, formats[i].name) == 0)
			format = formats[i].format;
	if (a.noperands == 0) {
		status = cli_usage_error("lint", "no policy file given");
		goto out;
	}

	size_t n = (size_t)a.noperands;
	cordon_lint **rs = calloc(n, sizeof(*rs));
	if (!rs)
		abort();
	for (size_t i = 0; i < n; i++) {
		rs[i] = cordon_lint_file(a.operands[i], lo, NULL); /* a path: never NULL */
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
		status = EXIT_USAGE;
out:
	cli_args_free(&a);
	return status;
}
