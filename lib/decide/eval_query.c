/* What a runner asks of an evaluator besides decisions (cordon.h): its
 * preset, whether that runs in a sandbox, and what a net rule names. */
#include "config.h"

#include "eval.h"

#include <string.h>
#include <strings.h>

const char *cordon_evaluator_preset(const cordon_evaluator *ev)
{
	return ev->preset->name;
}

bool cordon_evaluator_sandboxed(const cordon_evaluator *ev)
{
	/* Under a managed layer, a sandbox either layer requires. */
	return ev->preset->sandbox == IR_SANDBOX_REQUIRED ||
	       (ev->managed && ev->managed->preset->sandbox == IR_SANDBOX_REQUIRED);
}

bool cordon_evaluator_rule_names_host(const cordon_evaluator *ev, const char *rule,
				      const char *host)
{
	for (size_t i = 0; rule && i < ev->nrules; i++) {
		const struct ev_rule *r = &ev->rules[i];
		if (r->op == IR_NET && r->m.kind == IR_PAT_LITERAL && r->m.anchor &&
		    strcmp(r->origin, rule) == 0 && strcasecmp(r->m.anchor, host) == 0)
			return true;
	}
	return false;
}
