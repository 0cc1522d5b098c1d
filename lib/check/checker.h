/* The checker's own state, shared by its files (check.c: statements,
 * items and env blocks; check_pattern.c: strings and patterns;
 * check_flatten.c: inheritance; check_test.c: test blocks, assertions and
 * the default). */
#ifndef CORDON_CHECKER_H
#define CORDON_CHECKER_H

#include "check.h"

#define GLOBAL_TIER 1000u

struct let_var {
	const char *name;
	struct loc loc;
	bool is_list;
	char **values;  /* IR text */
	struct loc *locs;
	size_t n, cap, locs_cap;
	bool used;
};

/* A rule, protection or environment piece before flattening. */
struct scope {
	const char *name;      /* preset name, NULL at top level */
	struct ast *node;
	const char *parent;
	struct loc parent_loc;
	bool has_description, has_approval, has_sandbox;
	struct loc description_loc, approval_loc, sandbox_loc;
	char *description;
	enum ir_approval approval;
	unsigned approval_timeout;
	enum ir_sandbox sandbox;
	struct ir_rule *rules;
	size_t nrules, rules_cap;
	struct ir_protect *protect;
	size_t nprotect, protect_cap;
	bool unprotect_all;
	struct ir_protect *unprotect; /* one pattern each */
	size_t nunprotect, unprotect_cap;
	struct ir_env env;
	struct ir_limit_value limits[IR_LIMIT_COUNT];
	enum { FLAT_NEW, FLAT_IN_PROGRESS, FLAT_DONE } state; /* flattening */
	struct ir_preset *out;
};

struct checker {
	struct srcmgr *sm;
	struct diag_list *d;
	struct ir_policy *ir;
	struct let_var *lets;
	size_t nlets, lets_cap;
	struct scope global;
	struct scope **presets;
	size_t npresets, presets_cap;
	struct ast **tests;
	size_t ntests, tests_cap;
	struct ast **asserts;
	size_t nasserts, asserts_cap;
	struct ast *default_node;
};

#define ERR(c, locp, id, ...) diag_add((c)->d, DIAG_ERROR, (locp), (id), __VA_ARGS__)

typedef void (*pattern_sink)(struct checker *c, void *arg, struct ir_pattern pat, struct loc at);

struct let_var *ck_let_find(struct checker *c, const char *name, size_t len);
int ck_lookup(const char *word, const char *const *names, size_t n);
void ck_hint_closest(struct diag *d, const char *word, const char *const *names, size_t n);
void ck_hint_variable(struct checker *c, struct diag *d, const char *name);
char *ck_decode_regex(struct checker *c, const struct ast *r);
bool ck_has_wildcard(const char *s);
char *ck_decode_string(struct checker *c, const struct ast *s, bool vars);
void ck_lower_pattern(struct checker *c, enum ir_op op, const struct ast *pat,
			  pattern_sink sink, void *arg);
struct scope *ck_find_scope(struct checker *c, const char *name);
void ck_canonicalize(struct ir_preset *p);
bool ck_flatten(struct checker *c, struct scope *s, struct scope **chain, size_t depth);
void ck_append_rules(struct ir_preset *out, const struct ir_rule *rules, size_t n,
			 unsigned tier_shift);
int ck_preset_cmp(const void *a, const void *b);
void ck_test_block(struct checker *c, const struct ast *node);
void ck_preset_ref(struct checker *c, const struct ast *str, const char *what,
			     char **out);
bool ck_assert_node(struct checker *c, const struct ast *node, struct check_assert *out);

#endif
