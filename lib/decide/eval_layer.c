/* An evaluator under a managed layer (docs/fleet.md): the lower layer's
 * evaluator with the managed layer's beside it; evaluate (eval.c) asks
 * both and keeps the stricter decision. */
#include "config.h"

#include "eval.h"

#include <stdlib.h>

/* Under a managed layer (docs/fleet.md): the managed layer must offer the
 * preset; the evaluator is the lower layer's, with the managed layer's
 * beside it in ev->managed, and every decision is the stricter of the two
 * (evaluate).  A lower layer without the preset leaves the managed
 * layer's evaluator alone. */
cordon_evaluator *cordon_evaluator_new(const cordon_policy *policy, const char *preset,
				       const cordon_context *ctx, char **err)
{
	cordon_evaluator *ev, *m;
	if (!policy->managed)
		return ev_new_one(policy, preset, ctx, err);
	if (cordon_policy_error_count(policy)) {
		*err = xasprintf("%s has errors", cordon_policy_name(policy));
		return NULL;
	}
	if (!cordon_policy_has_preset(policy->managed, preset)) {
		char *why = NULL;
		m = ev_new_one(policy->managed, preset, ctx, &why);
		cordon_evaluator_free(m);
		*err = xasprintf("%s (the managed layer %s offers the presets there are)",
				 why ? why : "unknown preset", cordon_policy_name(policy->managed));
		free(why);
		return NULL;
	}
	if (!(m = ev_new_one(policy->managed, preset, ctx, err)))
		return NULL;
	m->layer = "managed";
	if (!ir_preset_find(&policy->ir, preset))
		return m;
	if (!(ev = ev_new_one(policy, preset, ctx, err))) {
		cordon_evaluator_free(m);
		return NULL;
	}
	ev->layer = "user";
	ev->managed = m;
	return ev;
}
