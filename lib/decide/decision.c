/* A decision as the API reads it: its effect, reason and rule, and each
 * operation's record; the names of operations and effects. */
#include "config.h"

#include "eval.h"

#include <string.h>

void cordon_decision_free(cordon_decision *d)
{
	if (!d)
		return;
	arena_free(&d->strings);
	if (d->ops != &d->first)
		free(d->ops);
	free(d);
}

enum cordon_effect cordon_decision_effect(const cordon_decision *d)
{
	return (enum cordon_effect)d->effect;
}

const char *cordon_decision_reason(const cordon_decision *d)
{
	return d->reason;
}

const char *cordon_decision_rule(const cordon_decision *d)
{
	return d->rule;
}

const char *cordon_decision_preset(const cordon_decision *d)
{
	return d->preset;
}

const char *cordon_decision_layer(const cordon_decision *d)
{
	return d->layer;
}

const char *cordon_decision_analysed(const cordon_decision *d)
{
	return d->analysed;
}

const char *cordon_decision_sandbox(const cordon_decision *d)
{
	return d->sandbox;
}

size_t cordon_decision_operation_count(const cordon_decision *d)
{
	return d->nops;
}

void cordon_decision_operation(const cordon_decision *d, size_t i, enum cordon_op *op,
			       const char **target, enum cordon_effect *effect,
			       const char **reason, const char **rule)
{
	const struct dec_op *o = &d->ops[i];
	if (op)
		*op = (enum cordon_op)o->op;
	if (target)
		*target = o->target;
	if (effect)
		*effect = (enum cordon_effect)o->effect;
	if (reason)
		*reason = o->reason;
	if (rule)
		*rule = o->rule;
}

const char *cordon_decision_operation_detail(const cordon_decision *d, size_t i)
{
	return d->ops[i].detail;
}

const char *cordon_op_name(enum cordon_op op)
{
	return (unsigned)op < IR_OP_COUNT ? ir_op_names[op] : "?";
}

const char *cordon_effect_name(enum cordon_effect effect)
{
	return (unsigned)effect < IR_EFFECT_COUNT ? ir_effect_names[effect] : "?";
}

int cordon_op_from_name(const char *name)
{
	for (int i = 0; i < IR_OP_COUNT; i++)
		if (strcmp(ir_op_names[i], name) == 0)
			return i;
	return -1;
}

int cordon_effect_from_name(const char *name)
{
	for (int i = 0; i < IR_EFFECT_COUNT; i++)
		if (strcmp(ir_effect_names[i], name) == 0)
			return i;
	return -1;
}
