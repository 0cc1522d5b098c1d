/* A semantic diff of two policies: for each preset, the requests whose
 * decision changed (found by evaluating both versions over one probe set),
 * the settings, protections and environment that changed, and the lines of
 * the lowered bubblewrap plan that differ.  Each change is classified as
 * widening (less severe, more reach), narrowing, or neither.
 *
 * Ownership: a diff_result owns every string in it; diff_result_free
 * releases them.  The policies are only read. */
#ifndef CORDON_DIFF_H
#define CORDON_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "check/policy.h"

enum diff_class { DIFF_WIDENED, DIFF_NARROWED, DIFF_CHANGED, DIFF_CLASS_COUNT };
enum diff_kind {
	DIFF_PRESET,   /* a preset added or removed */
	DIFF_DECISION, /* a request decides differently */
	DIFF_SETTING,  /* description, extends, approval, sandbox */
	DIFF_PROTECT,  /* a protected path added or removed */
	DIFF_ENV,      /* keep, set, drop, secret or code */
	DIFF_PLAN,     /* a line of the bubblewrap plan added or removed */
	DIFF_KIND_COUNT
};

extern const char *const diff_class_names[DIFF_CLASS_COUNT];
extern const char *const diff_kind_names[DIFF_KIND_COUNT];

struct diff_change {
	enum diff_kind kind;
	enum diff_class cls;
	enum ir_op op;          /* DIFF_DECISION only */
	char *subject;          /* target, setting, path, variable or plan line */
	char *old_value;        /* as shown; NULL when absent on that side */
	char *new_value;
	char *old_rule;         /* DIFF_DECISION: deciding rules, or NULL */
	char *new_rule;
	/* Where each side says what it says, in its own policy's sources:
	 * the deciding rule, the protection, the limit, or else the preset
	 * (the `default` statement for the policy's default); has_*_loc is
	 * false where that side has none. */
	struct loc old_loc, new_loc;
	bool has_old_loc, has_new_loc;
};

enum diff_status { DIFF_SAME, DIFF_MODIFIED, DIFF_ADDED, DIFF_REMOVED };

struct diff_preset {
	char *name;
	enum diff_status status;
	struct diff_change *changes; /* decisions by op and target, then the rest */
	size_t n, cap;
};

struct diff_result {
	struct diff_preset policy;   /* the policy's own settings (default) */
	struct diff_preset *presets; /* by name */
	size_t n, cap;
	size_t count[DIFF_CLASS_COUNT];
	size_t probes;               /* requests evaluated on each side */
};

/* Diff one preset (or every preset of either policy when preset is NULL)
 * under ctx, whose values must all be set.  Returns 0, or -1 with *err for
 * a preset neither policy has or an evaluator that cannot be built. */
int diff_policies(const cordon_policy *old_p, const cordon_policy *new_p, const char *preset,
		  const cordon_context *ctx, struct diff_result *out, char **err);
void diff_result_free(struct diff_result *r);

/* The result as `cordon diff` prints it (diff_output.c): text, or JSON
 * naming the two policies and the context the diff was made under. */
void diff_print_text(FILE *out, const struct diff_result *r);
void diff_print_json(FILE *out, const struct diff_result *r, const char *old_name,
		     const char *new_name, const struct ir_context *ctx);
/* The first widening change in words (malloc'd), or NULL when none widened. */
char *diff_first_widening(const struct diff_result *r);
/* The first operation of below's bubblewrap plan that widens above's (an
 * operation only below has that widens, or one only above has that
 * narrows), in words (malloc'd); NULL when none does.  A preset without a
 * sandbox on either side has no plan: the sandbox setting says so. */
char *diff_plan_widening(const cordon_evaluator *above, const cordon_evaluator *below);
/* A change in words, as diff_first_widening words one (malloc'd). */
char *diff_change_words(const struct diff_change *c);

/* ctx with the diff's fixed values (/ws, /home/u, ...) where it has none,
 * so that a diff reads the same on every machine (ctx may be NULL); NULL
 * with *err for a value the context refuses (diff_api.c). */
cordon_context *diff_fixed_context(const cordon_context *ctx, char **err);

#endif
