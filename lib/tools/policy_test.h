/* Running a policy's test blocks, and the rules their expectations
 * exercised (coverage.c). */
#ifndef CORDON_POLICY_TEST_H
#define CORDON_POLICY_TEST_H

#include <stdio.h>

#include "check/policy.h"

/* The rules of one or more policies, each covered or not.  A rule is
 * covered when it decided at least one expectation.  Rules are told apart
 * by where they were written, so a rule inherited by several presets, or
 * a file included by several policies, counts once. */
struct coverage_rule {
	char *file;
	unsigned line, col;
	char *origin;       /* "file:line:col", as shown */
	char *key;          /* the same with the file's real path: the identity */
	char *text;         /* the rule as written, e.g. `write "/ws" allow` */
	char *preset;       /* declaring preset, or NULL at top level */
	bool covered;
};

struct coverage_alias {
	char *name, *key;   /* a file's name in decisions, and its identity */
};

struct coverage {
	struct coverage_rule *rules; /* sorted by origin after coverage_finish */
	size_t n, cap;
	char **decided;              /* origins that decided an expectation */
	size_t ndecided, decided_cap;
	struct coverage_alias *aliases;
	size_t naliases, aliases_cap;
	bool include_shipped;        /* count the rules of included shipped files */
};

void coverage_init(struct coverage *cov);
void coverage_free(struct coverage *cov);
/* Add every rule and protection of a checked policy. */
void coverage_add_policy(struct coverage *cov, const cordon_policy *policy);
void coverage_mark(struct coverage *cov, const char *origin);
/* Settle what is covered; returns the total percentage (100 for no rules). */
double coverage_finish(struct coverage *cov);
/* Per file, the total, then the uncovered rules, as TAP comment lines. */
void coverage_print(FILE *out, const struct coverage *cov);

/* cordon_policy_run_tests, recording deciding rules in cov (may be NULL);
 * the tests of included shipped files (embedded_included) run only when
 * include_shipped is set, and a comment counts those left out.  host:
 * decide on that host's facts (cordon_context_set_host), NULL for this
 * machine's. */
size_t policy_run_tests(const cordon_policy *policy, FILE *out, size_t *count,
			struct coverage *cov, bool include_shipped, const char *host);

#endif
