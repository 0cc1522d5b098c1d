/* The managed layer: a policy under an administrator's managed policy
 * (docs/fleet.md).  The lower layer is checked against the managed one with
 * the semantic diff (diff.c), the managed layer as the old policy and the
 * lower one as the new: every change the diff calls widening is an error at
 * the lower layer's rule with a note at the managed layer's.  The lower
 * policy then keeps the managed one, and every evaluator of it decides with
 * both layers and keeps the stricter decision (lib/decide/eval.c), so what
 * the check cannot see (the diff asks a finite set of requests) is still
 * never wider than the managed layer decides. */
#include "config.h"

#include "cordon_tools.h"
#include "diff.h"
#include "decide/eval.h"

#include <stdlib.h>
#include <string.h>

#define LAYER_ID "managed-layer"

/* Copy the managed layer's sources into the lower layer's source manager,
 * so that one diagnostic can point into both; returns the id the managed
 * layer's first file has there. */
static uint32_t adopt_sources(cordon_policy *lower, const cordon_policy *managed)
{
	uint32_t base = (uint32_t)lower->sm.n;
	for (size_t f = 0; f < managed->sm.n; f++) {
		const struct src_file *sf = managed->sm.files[f];
		char *text = xmalloc(sf->len + 1);
		memcpy(text, sf->text, sf->len);
		text[sf->len] = '\0';
		srcmgr_add(&lower->sm, sf->name, sf->path, text, sf->len, NULL);
	}
	return base;
}

static struct loc moved(struct loc at, uint32_t base)
{
	at.file += base;
	return at;
}

static bool same_loc(struct loc a, struct loc b)
{
	return a.file == b.file && a.start == b.start && a.end == b.end;
}

/* Do changes a and b name the same two places (a decision of the same
 * rules over several requests)? */
static bool same_places(const struct diff_change *a, const struct diff_change *b)
{
	return a->kind == b->kind && a->has_old_loc == b->has_old_loc &&
	       a->has_new_loc == b->has_new_loc &&
	       (!a->has_old_loc || same_loc(a->old_loc, b->old_loc)) &&
	       (!a->has_new_loc || same_loc(a->new_loc, b->new_loc));
}

/* What a lower layer may not change: whatever the diff calls widening,
 * and a value the sandbox's environment gets (`env { set }`), which the
 * diff calls neither wider nor narrower.  Failing closed, that value is
 * the managed layer's to choose. */
static bool refused(const struct diff_change *c)
{
	return c->cls == DIFF_WIDENED ||
	       (c->kind == DIFF_ENV && c->cls == DIFF_CHANGED && strncmp(c->subject, "set ", 4) == 0);
}

/* One error for each pair of places that widens: the first request, and
 * how many more the same two rules decide alike. */
static void errors_widen(cordon_policy *lower, uint32_t base, const struct ir_preset *own,
			 const struct diff_preset *dp)
{
	for (size_t i = 0; i < dp->n; i++) {
		const struct diff_change *c = &dp->changes[i];
		size_t more = 0;
		bool seen = false;
		if (!refused(c))
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = refused(&dp->changes[k]) && same_places(&dp->changes[k], c);
		if (seen)
			continue;
		for (size_t k = i + 1; k < dp->n; k++)
			more += refused(&dp->changes[k]) && same_places(&dp->changes[k], c);
		struct loc at = c->has_new_loc ? c->new_loc : own->loc;
		char *words = diff_change_words(c);
		struct diag *d;
		const char *how = c->cls == DIFF_WIDENED ? "widens" : "changes";
		if (more)
			d = diag_add(&lower->diags, DIAG_ERROR, &at, LAYER_ID,
				     "preset '%s' %s the managed layer: %s (and %zu more like it)",
				     own->name, how, words, more);
		else
			d = diag_add(&lower->diags, DIAG_ERROR, &at, LAYER_ID,
				     "preset '%s' %s the managed layer: %s", own->name, how, words);
		free(words);
		if (d && c->has_old_loc)
			diag_note(d, moved(c->old_loc, base), "%s",
				  c->kind == DIFF_DECISION ? "the managed layer's rule"
							   : "what the managed layer says");
		if (d)
			diag_hint(d, "a lower layer may add denies, asks and protections; it cannot "
				     "widen what the managed layer decides");
	}
}

/* Each preset of the lower layer against the managed layer's of that
 * name.  Every diff is made before any error is added: an evaluator is not
 * built for a policy with errors. */
static void check_presets(cordon_policy *lower, const cordon_policy *managed, uint32_t base)
{
	char *err = NULL;
	cordon_context *ctx = diff_fixed_context(NULL, &err);
	size_t n = lower->ir.npresets;
	struct diff_result *res = xcalloc(n + 1, sizeof(*res));
	char **why = xcalloc(n + 1, sizeof(*why));
	enum { OFFERED, NOT_OFFERED, FAILED } *state = xcalloc(n + 1, sizeof(*state));

	for (size_t i = 0; i < n; i++) {
		const struct ir_preset *own = &lower->ir.presets[i];
		if (!ir_preset_find(&managed->ir, own->name))
			state[i] = NOT_OFFERED;
		else if (!ctx)
			state[i] = FAILED, why[i] = xstrdup(err ? err : "no context");
		else if (diff_policies(managed, lower, own->name, ctx, &res[i], &why[i]) != 0)
			state[i] = FAILED;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ir_preset *own = &lower->ir.presets[i];
		struct diag *d;
		switch (state[i]) {
		case NOT_OFFERED:
			d = diag_add(&lower->diags, DIAG_ERROR, &own->loc, LAYER_ID,
				     "preset '%s' is not offered by the managed layer %s", own->name,
				     managed->name);
			if (d)
				diag_hint(d, "the managed layer's presets are the ones there are");
			break;
		case FAILED:
			/* Fail closed: what cannot be compared is not used. */
			diag_add(&lower->diags, DIAG_ERROR, &own->loc, LAYER_ID,
				 "preset '%s' cannot be compared with the managed layer's: %s",
				 own->name, why[i] ? why[i] : "unknown error");
			break;
		case OFFERED:
			for (size_t p = 0; p < res[i].n; p++)
				errors_widen(lower, base, own, &res[i].presets[p]);
			break;
		}
		diff_result_free(&res[i]);
		free(why[i]);
	}
	free(res);
	free(why);
	free(state);
	free(err);
	cordon_context_free(ctx);
}

cordon_policy *cordon_policy_layer(cordon_policy *managed, cordon_policy *lower)
{
	uint32_t base;
	if (!lower)
		return managed;
	/* A managed layer with errors is used for nothing: its errors are
	 * the result, and no lower layer stands in for it. */
	if (cordon_policy_error_count(managed) || cordon_policy_io_failed(managed)) {
		cordon_policy_free(lower);
		return managed;
	}
	base = adopt_sources(lower, managed);
	if (managed->ir.lower_layers_denied) {
		struct loc at = { 0, 0, 0 };
		const struct src_file *f = srcmgr_file(&lower->sm, 0);
		if (f && f->len)
			at.end = 1;
		struct diag *d = diag_add(&lower->diags, DIAG_ERROR, &at, LAYER_ID,
					  "the managed layer %s forbids lower layers: %s cannot be "
					  "used under it",
					  managed->name, lower->name);
		if (d)
			diag_note(d, moved(managed->ir.lower_layers_loc, base),
				  "lower layers are forbidden here");
	} else if (!cordon_policy_error_count(lower)) {
		const char *pinned = managed->ir.default_preset, *own = lower->ir.default_preset;
		if (pinned && own && strcmp(pinned, own) != 0) {
			struct diag *d = diag_add(&lower->diags, DIAG_ERROR, &lower->ir.default_loc,
						  LAYER_ID,
						  "the managed layer sets the default preset to '%s'; "
						  "a lower layer cannot move it to '%s'",
						  pinned, own);
			if (d)
				diag_note(d, moved(managed->ir.default_loc, base),
					  "the default is set here");
		}
		check_presets(lower, managed, base);
	}
	diag_sort(&lower->diags);
	lower->managed = managed;
	return lower;
}

int cordon_evaluator_check_layers(const cordon_evaluator *ev, char **err)
{
	char *first;
	if (!ev->managed)
		return 0;
	if (!(first = diff_plan_widening(ev->managed, ev)))
		return 0;
	*err = xasprintf("the sandbox of preset '%s' would be wider than the managed layer's "
			 "(%s): %s",
			 ev->preset->name, cordon_policy_name(ev->managed->policy), first);
	free(first);
	return -1;
}
