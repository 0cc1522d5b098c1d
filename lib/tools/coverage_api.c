/* cordon_test_run and cordon_coverage_*: the policy tests and their
 * coverage (policy_test.c, coverage.c) behind the public API. */
#include "config.h"

#include "cordon_tools.h"
#include "policy_test.h"

#include <stdlib.h>
#include <string.h>

struct cordon_coverage {
	struct coverage cov;
};

static void set_err(char **err, char *msg)
{
	if (err)
		*err = msg;
	else
		free(msg);
}

cordon_coverage *cordon_coverage_new(bool include_shipped)
{
	cordon_coverage *c = xcalloc(1, sizeof(*c));
	coverage_init(&c->cov);
	c->cov.include_shipped = include_shipped;
	return c;
}

void cordon_coverage_free(cordon_coverage *cov)
{
	if (!cov)
		return;
	coverage_free(&cov->cov);
	free(cov);
}

int cordon_test_run(const cordon_policy *policy, const struct cordon_test_options *opts,
		    FILE *out, size_t *count, size_t *failed, char **err)
{
	static const struct cordon_test_options defaults;
	size_t n;
	if (!opts)
		opts = &defaults;
	if (!policy || !out) {
		set_err(err, xstrdup("cordon_test_run: no policy or no output given"));
		return -1;
	}
	if (cordon_policy_error_count(policy)) {
		set_err(err, xasprintf("%s: the policy has errors", cordon_policy_name(policy)));
		return -1;
	}
	if (opts->host) {
		/* Refused here, before any test runs, rather than once a test. */
		cordon_context *probe = cordon_context_new();
		char *why = NULL;
		int rc = cordon_context_set_host(probe, opts->host, &why);
		cordon_context_free(probe);
		if (rc != 0) {
			set_err(err, why);
			return -1;
		}
	}
	if (opts->coverage)
		coverage_add_policy(&opts->coverage->cov, policy);
	n = policy_run_tests(policy, out, count, opts->coverage ? &opts->coverage->cov : NULL,
			     opts->include_shipped, opts->host);
	if (failed)
		*failed += n;
	return 0;
}

double cordon_coverage_finish(cordon_coverage *cov)
{
	return coverage_finish(&cov->cov);
}

size_t cordon_coverage_rule_count(const cordon_coverage *cov)
{
	return cov->cov.n;
}

bool cordon_coverage_rule(const cordon_coverage *cov, size_t i, const char **origin,
			  const char **text, const char **preset, bool *covered)
{
	if (i >= cov->cov.n)
		return false;
	const struct coverage_rule *r = &cov->cov.rules[i];
	if (origin)
		*origin = r->origin;
	if (text)
		*text = r->text;
	if (preset)
		*preset = r->preset;
	if (covered)
		*covered = r->covered;
	return true;
}

void cordon_coverage_print(const cordon_coverage *cov, FILE *out)
{
	coverage_print(out, &cov->cov);
}
