/* `assert never OP PATTERN;`: a compile-time invariant over the flattened
 * presets.  It fails when a rule could let OP through on something PATTERN
 * matches: an allow rule, or an ask rule in a preset whose approval is ask
 * (`approval never` turns ask into deny).
 *
 * The analysis is on pattern text, for every context at once, and it is
 * conservative: it may report a rule that can never win, never the
 * reverse.
 *   - Overlap: a rule and the assertion may match a common target when the
 *     literal starts of their patterns (up to the first wildcard) agree
 *     where both have text.  A context variable stands for any value, so a
 *     pattern that reaches one first may overlap anything, except the same
 *     variable at the same place in the other pattern.
 *   - Excuse: a rule is forgiven only when one deny rule of the preset
 *     covers the whole assertion pattern (or the whole rule) and beats the
 *     rule wherever both match (more specific, or as specific and nearer);
 *     both must be free of context variables, whose values would change
 *     the specificities.  For writes, a protection covering the same
 *     region forgives any rule, as it beats every rule. */
#include "config.h"

#include "check.h"
#include "ir/match.h"

#include <stdlib.h>
#include <string.h>

void check_assert_free(struct check_assert *a)
{
	for (size_t i = 0; i < a->npats; i++) {
		free(a->pats[i].text);
		free(a->pats[i].regex);
	}
	free(a->pats);
	free(a->pat_locs);
	for (size_t i = 0; i < a->npresets; i++)
		free(a->presets[i]);
	free(a->presets);
	free(a->reason);
	memset(a, 0, sizeof(*a));
}

/* The text every match of the pattern starts with: up to the first
 * wildcard or escape of a glob, the anchored prefix of a regex, nothing
 * for an opaque command.  Context variables stay in, as tokens. */
static char *literal_start(const struct ir_pattern *p)
{
	if (p->kind == IR_PAT_OPAQUE)
		return xstrdup("");
	if (!p->text) {
		char *prefix = ir_regex_prefix(p->regex);
		return prefix ? prefix : xstrdup("");
	}
	if (p->kind == IR_PAT_LITERAL || p->kind == IR_PAT_EXACT)
		return xstrdup(p->text);
	return xstrndup(p->text, strcspn(p->text, "*?[\\"));
}

static bool has_var(const char *s)
{
	return strchr(s, IR_VAR_OPEN) != NULL;
}

/* Could strings starting with a and strings starting with b meet? */
static bool starts_agree(const char *a, const char *b)
{
	while (*a && *b) {
		if (*a == IR_VAR_OPEN || *b == IR_VAR_OPEN) {
			const char *ea = strchr(a, IR_VAR_CLOSE), *eb = strchr(b, IR_VAR_CLOSE);
			/* The same variable at the same place has the same value. */
			if (*a != *b || ea - a != eb - b || strncmp(a, b, (size_t)(ea - a)) != 0)
				return true;
			a = ea + 1;
			b = eb + 1;
			continue;
		}
		if (*a != *b)
			return false;
		a++;
		b++;
	}
	return true;
}

static bool may_overlap(const struct ir_pattern *x, const struct ir_pattern *y)
{
	char *a = literal_start(x), *b = literal_start(y);
	bool r = starts_agree(a, b);
	free(a);
	free(b);
	return r;
}

/* The directory a path pattern covers whole: a literal's path, or the
 * directory of "DIR/" followed by a final double star.  NULL otherwise. */
static char *covered_dir(const struct ir_pattern *p)
{
	size_t n;
	if (p->regex || !p->text)
		return NULL;
	if (p->kind == IR_PAT_LITERAL)
		return xstrdup(p->text);
	n = strlen(p->text);
	if (n < 3 || strcmp(p->text + n - 3, "/**") != 0 || strcspn(p->text, "*?[\\") != n - 2)
		return NULL;
	return xstrndup(p->text, n - 3); /* "" for the root */
}

/* Does the evaluator's own matcher for d match the target text? */
static bool literal_matches(enum ir_op op, const struct ir_pattern *d, const char *text)
{
	struct ir_context none = { { NULL } };
	struct matcher m = { 0 };
	struct target t;
	int missing = -1;
	char *err = NULL;
	bool r = false;
	if (matcher_build(&m, op, d, &none, &missing, &err) == MATCH_OK) {
		if (target_prepare(&t, op, text, strlen(text), &err) == 0) {
			pcre2_match_data *md = pcre2_match_data_create(1, NULL);
			r = matcher_match(&m, &t, md);
			pcre2_match_data_free(md);
			target_free(&t);
		}
	}
	matcher_free(&m);
	free(err);
	return r;
}

/* covers for paths: d is a directory and its subtree, and x's literal
 * start lies below it (a glob's matches continue past that start). */
static bool covers_path(const struct ir_pattern *d, const struct ir_pattern *x)
{
	char *dir = covered_dir(d);
	bool r = false;
	if (dir && x->text && x->kind != IR_PAT_OPAQUE) {
		char *start = literal_start(x);
		r = (x->kind == IR_PAT_LITERAL || x->kind == IR_PAT_EXACT) && !x->regex
			    ? path_under(start, dir)
			    : strncmp(start, dir, strlen(dir)) == 0 && start[strlen(dir)] == '/';
		free(start);
	}
	free(dir);
	return r;
}

/* covers for exec: a command prefix d covers the commands that start
 * with its words. */
static bool covers_prefix(const struct ir_pattern *d, const struct ir_pattern *x)
{
	char *start = literal_start(x);
	size_t n = strlen(d->text);
	bool r = strncmp(start, d->text, n) == 0 &&
		 (start[n] == ' ' || (start[n] == '\0' && x->kind == IR_PAT_LITERAL));
	free(start);
	return r;
}

/* Does every target x matches also match d?  False when unsure. */
static bool covers(enum ir_op op, const struct ir_pattern *d, const struct ir_pattern *x)
{
	if (d->kind == x->kind && !d->regex && !x->regex && d->text && x->text &&
	    strcmp(d->text, x->text) == 0)
		return true;
	if (op == IR_READ || op == IR_WRITE)
		return covers_path(d, x);
	if (d->regex || !d->text)
		return false;
	if (d->kind == IR_PAT_GLOB && strcmp(d->text, "*") == 0)
		return true; /* every command, host or tool */
	if (x->kind == IR_PAT_LITERAL && !x->regex && !has_var(x->text) && !has_var(d->text))
		/* One host or tool; for exec, a command and any words after it,
		 * which a prefix pattern that matches the command matches too. */
		return literal_matches(op, d, x->text);
	return op == IR_EXEC && d->kind == IR_PAT_LITERAL && x->text &&
	       x->kind != IR_PAT_OPAQUE && covers_prefix(d, x);
}

static bool pattern_has_var(const struct ir_pattern *p)
{
	return (p->text && has_var(p->text)) || (p->regex && has_var(p->regex));
}

/* The fewest literal characters a pattern's literal start can have once
 * its variables are substituted: each value is at least one character,
 * and a directory's value can merge with the '/' after it. */
static unsigned literal_floor(const struct ir_pattern *p)
{
	char *start;
	unsigned n = 0;
	if (!p->text || p->kind == IR_PAT_OPAQUE)
		return 0;
	start = literal_start(p);
	for (const char *c = start; *c; c++) {
		if (*c == IR_VAR_OPEN)
			c = strchr(c, IR_VAR_CLOSE);
		else
			n++;
	}
	free(start);
	return n;
}

/* Does deny rule d beat rule r wherever both match?  A rule with a
 * variable can be as specific as its value is long, so it is never
 * known to lose; a deny with one is known to win only by its floor. */
static bool beats(const struct ir_rule *d, const struct ir_rule *r)
{
	int c;
	if (pattern_has_var(&r->pat))
		return false;
	if (pattern_has_var(&d->pat))
		return d->pat.kind != IR_PAT_REGEX && literal_floor(&d->pat) > r->spec.literal;
	c = spec_cmp(d->spec, r->spec);
	return c > 0 || (c == 0 && d->tier <= r->tier);
}

static bool excused(const struct ir_preset *p, const struct ir_rule *r, enum ir_op op,
		    const struct ir_pattern *a)
{
	if (op == IR_WRITE)
		for (size_t i = 0; i < p->nprotect; i++)
			if (covers(op, &p->protect[i].pat, a) || covers(op, &p->protect[i].pat, &r->pat))
				return true;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct ir_rule *d = &p->rules[i];
		if (d->op != op || d->effect != IR_DENY || !beats(d, r))
			continue;
		if (covers(op, &d->pat, a) || covers(op, &d->pat, &r->pat))
			return true;
	}
	return false;
}

static bool names_preset(const struct check_assert *a, const char *name)
{
	if (!a->npresets)
		return true;
	for (size_t i = 0; i < a->npresets; i++)
		if (strcmp(a->presets[i], name) == 0)
			return true;
	return false;
}

/* One offending rule statement, with the presets it offends in. */
struct offence {
	struct loc origin;
	size_t pattern;          /* the assertion pattern it overlaps */
	const struct ir_rule *rule;
	struct strbuf presets;
	size_t npresets;
	const struct ir_preset *last;
	bool through_var;
};

static void report(struct diag_list *dl, const struct check_assert *a, struct offence *o)
{
	struct strbuf what, rule;
	struct diag *d;
	sb_init(&what);
	sb_init(&rule);
	ir_pattern_print(&what, &a->pats[o->pattern]);
	d = diag_add(dl, DIAG_ERROR, &a->loc, "assert",
		     "assertion fails: %s %s %s %s through on %s",
		     o->npresets == 1 ? "preset" : "presets", o->presets.buf,
		     o->npresets == 1 ? "lets" : "let", ir_op_names[a->op], what.buf);
	if (a->reason)
		diag_hint(d, "the assertion's reason: %s", a->reason);
	sb_addf(&rule, "%s ", ir_op_names[o->rule->op]);
	ir_pattern_print(&rule, &o->rule->pat);
	sb_addf(&rule, " %s", ir_effect_names[o->rule->effect]);
	diag_note(d, o->origin, "by this rule (%s)%s", rule.buf,
		  o->through_var ? ", whose context variable may take any value" : "");
	sb_free(&what);
	sb_free(&rule);
}

static void check_one(struct diag_list *dl, const struct ir_policy *ir, const struct check_assert *a)
{
	struct offence *offences = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < ir->npresets; i++) {
		const struct ir_preset *p = &ir->presets[i];
		if (!names_preset(a, p->name))
			continue;
		for (size_t j = 0; j < p->nrules; j++) {
			const struct ir_rule *r = &p->rules[j];
			size_t k;
			if (r->op != a->op || r->effect == IR_DENY ||
			    (r->effect == IR_ASK && p->approval == IR_APPROVAL_NEVER))
				continue;
			for (k = 0; k < a->npats; k++)
				if (may_overlap(&r->pat, &a->pats[k]) && !excused(p, r, a->op, &a->pats[k]))
					break;
			if (k == a->npats)
				continue;
			/* A statement with several patterns is one offence a preset. */
			struct offence *o = NULL;
			for (size_t m = 0; m < n && !o; m++)
				if (offences[m].origin.file == r->origin.file &&
				    offences[m].origin.start == r->origin.start)
					o = &offences[m];
			if (!o) {
				struct offence fresh = { .origin = r->origin, .pattern = k, .rule = r };
				sb_init(&fresh.presets);
				fresh.through_var = pattern_has_var(&r->pat) && !pattern_has_var(&a->pats[k]);
				VEC_PUSH(offences, n, cap, fresh);
				o = &offences[n - 1];
			}
			if (o->last == p)
				continue; /* this preset's other pattern of the statement */
			o->last = p;
			sb_addf(&o->presets, "%s\"%s\"", o->npresets ? ", " : "", p->name);
			o->npresets++;
		}
	}
	for (size_t m = 0; m < n; m++) {
		report(dl, a, &offences[m]);
		sb_free(&offences[m].presets);
	}
	free(offences);
}

void check_asserts(struct diag_list *d, const struct ir_policy *ir, const struct check_assert *a,
		   size_t n)
{
	for (size_t i = 0; i < n; i++)
		check_one(d, ir, &a[i]);
}
