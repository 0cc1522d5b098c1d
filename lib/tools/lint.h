/* cordon lint: the checks of `cordon check` plus the warnings and notes of a
 * policy that compiles but may not do what its author meant (rules that
 * never decide, broad grants, secrets within reach, rules the sandbox
 * cannot enforce).  Every finding has a stable id, a level, a location, a
 * message and usually a hint; the checks are one table (lint_checks, from
 * the rows of lint_checks.def).
 *
 * Ownership: a lint_result owns its findings and the policy it loaded;
 * lint_result_free releases both. */
#ifndef CORDON_LINT_H
#define CORDON_LINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "check/policy.h"

struct linter;

struct lint_check {
	const char *id;
	enum diag_severity level; /* of its findings */
	const char *summary;     /* one line */
	const char *description; /* what it finds and why it matters */
	void (*run)(struct linter *l);
};

extern const struct lint_check lint_checks[];
extern const size_t lint_ncheck;

/* The index of a check in lint_checks, or -1. */
int lint_check_lookup(const char *id);

struct lint_options {
	bool disabled[64];       /* indexed like lint_checks */
	bool include_shipped;    /* report findings in included shipped files too */
};

struct lint_result {
	cordon_policy *policy;   /* owned */
	struct diag *items; /* findings, sorted by file and offset: id always
			     * set (a lint check's, or a `cordon check` error's),
			     * key too */
	size_t n, cap;
	size_t count[DIAG_SEVERITY_COUNT];
	size_t suppressed;       /* silenced by `# cordon: ignore[ID]` comments */
	bool io_failed;
};

/* Load, check and lint one policy file. Never NULL. */
struct lint_result *lint_file(const char *path, const struct lint_options *opts);
void lint_result_free(struct lint_result *r);

/* Output: GCC-style text (one result), a JSON array of findings, or one
 * SARIF 2.1.0 log; the JSON and SARIF forms cover every result given. */
void lint_print_text(FILE *out, const struct lint_result *r);
void lint_print_summary(FILE *out, struct lint_result *const *rs, size_t n);
void lint_print_json(FILE *out, struct lint_result *const *rs, size_t n);
void lint_print_sarif(FILE *out, struct lint_result *const *rs, size_t n);

#endif
