/* cordon_lint_*: the lint driver and its outputs (lint.h) behind the
 * public API.  A handle wraps one lint_result; the checks are lint.h's
 * table. */
#include "config.h"

#include "cordon_tools.h"
#include "lint.h"

#include <stdlib.h>
#include <string.h>

_Static_assert((int)CORDON_LINT_ERROR == (int)DIAG_ERROR &&
		       (int)CORDON_LINT_WARNING == (int)DIAG_WARNING &&
		       (int)CORDON_LINT_INFO == (int)DIAG_INFO && DIAG_SEVERITY_COUNT == 3,
	       "the public lint levels are the diagnostic severities");

struct cordon_lint_options {
	struct lint_options o;
};

struct cordon_lint {
	struct lint_result *r;
};

const char *cordon_lint_level_name(enum cordon_lint_level level)
{
	return (unsigned)level < DIAG_SEVERITY_COUNT ? diag_severity_names[level] : NULL;
}

size_t cordon_lint_check_count(void)
{
	return lint_ncheck;
}

bool cordon_lint_check(size_t i, const char **id, enum cordon_lint_level *level,
		       const char **summary, const char **description)
{
	if (i >= lint_ncheck)
		return false;
	if (id)
		*id = lint_checks[i].id;
	if (level)
		*level = (enum cordon_lint_level)lint_checks[i].level;
	if (summary)
		*summary = lint_checks[i].summary;
	if (description)
		*description = lint_checks[i].description;
	return true;
}

int cordon_lint_check_find(const char *id)
{
	return id ? lint_check_lookup(id) : -1;
}

const char *cordon_lint_check_closest(const char *id)
{
	if (!id)
		return NULL;
	const char **ids = xcalloc(lint_ncheck, sizeof(*ids));
	for (size_t k = 0; k < lint_ncheck; k++)
		ids[k] = lint_checks[k].id;
	const char *best = closest_word(id, ids, lint_ncheck);
	free(ids);
	return best;
}

cordon_lint_options *cordon_lint_options_new(void)
{
	return xcalloc(1, sizeof(cordon_lint_options));
}

void cordon_lint_options_free(cordon_lint_options *opts)
{
	free(opts);
}

int cordon_lint_options_enable(cordon_lint_options *opts, const char *id, bool enabled,
			       char **err)
{
	int i;
	if (!opts || !id) {
		if (err)
			*err = xstrdup("cordon_lint_options_enable: no options or no id given");
		return -1;
	}
	if (strcmp(id, "all") == 0) {
		for (size_t k = 0; k < lint_ncheck; k++)
			opts->o.disabled[k] = !enabled;
		return 0;
	}
	if ((i = lint_check_lookup(id)) < 0) {
		const char *best = cordon_lint_check_closest(id);
		if (err)
			*err = best ? xasprintf("unknown check '%s'; did you mean '%s'?", id, best)
				    : xasprintf("unknown check '%s'", id);
		return -1;
	}
	opts->o.disabled[i] = !enabled;
	return 0;
}

void cordon_lint_options_include_shipped(cordon_lint_options *opts, bool include)
{
	opts->o.include_shipped = include;
}

cordon_lint *cordon_lint_file(const char *path, const cordon_lint_options *opts, char **err)
{
	static const struct lint_options defaults;
	if (!path) {
		if (err)
			*err = xstrdup("cordon_lint_file: no path given");
		return NULL;
	}
	cordon_lint *l = xcalloc(1, sizeof(*l));
	l->r = lint_file(path, opts ? &opts->o : &defaults);
	return l;
}

void cordon_lint_free(cordon_lint *l)
{
	if (!l)
		return;
	lint_result_free(l->r);
	free(l);
}

bool cordon_lint_io_failed(const cordon_lint *l)
{
	return l->r->io_failed;
}

size_t cordon_lint_count(const cordon_lint *l, enum cordon_lint_level level)
{
	return (unsigned)level < DIAG_SEVERITY_COUNT ? l->r->count[level] : 0;
}

size_t cordon_lint_suppressed(const cordon_lint *l)
{
	return l->r->suppressed;
}

size_t cordon_lint_finding_count(const cordon_lint *l)
{
	return l->r->n;
}

bool cordon_lint_finding(const cordon_lint *l, size_t i, const char **id,
			 enum cordon_lint_level *level, const char **message)
{
	if (i >= l->r->n)
		return false;
	if (id)
		*id = l->r->items[i].id;
	if (level)
		*level = (enum cordon_lint_level)l->r->items[i].severity;
	if (message)
		*message = l->r->items[i].message;
	return true;
}

int cordon_lint_print(cordon_lint *const *results, size_t n,
		      enum cordon_lint_format format, FILE *out, char **err)
{
	const char *bad = NULL;
	if (!out || (n && !results))
		bad = "cordon_lint_print: no output or no results given";
	for (size_t i = 0; i < n && !bad; i++)
		if (!results[i])
			bad = "cordon_lint_print: a result is NULL";
	if (!bad && (unsigned)format > CORDON_LINT_SARIF)
		bad = "cordon_lint_print: unknown format";
	if (bad) {
		if (err)
			*err = xstrdup(bad);
		return -1;
	}
	struct lint_result **rs = xcalloc(n + 1, sizeof(*rs));
	for (size_t i = 0; i < n; i++)
		rs[i] = results[i]->r;
	switch (format) {
	case CORDON_LINT_TEXT:
		for (size_t i = 0; i < n; i++)
			lint_print_text(out, rs[i]);
		break;
	case CORDON_LINT_SUMMARY:
		lint_print_summary(out, rs, n);
		break;
	case CORDON_LINT_JSON:
		lint_print_json(out, rs, n);
		break;
	case CORDON_LINT_SARIF:
		lint_print_sarif(out, rs, n);
		break;
	}
	free(rs);
	return 0;
}
