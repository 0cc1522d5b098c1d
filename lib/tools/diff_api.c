/* cordon_diff_*: the semantic diff of two policies (diff.c) behind the
 * public API.  The handle keeps the result, the context it was computed
 * under and the policies' names, so it outlives the policies. */
#include "config.h"

#include "check/policy.h"
#include "cordon_tools.h"
#include "diff.h"

#include <stdlib.h>
#include <string.h>

_Static_assert((int)CORDON_DIFF_WIDENED == (int)DIFF_WIDENED &&
		       (int)CORDON_DIFF_NARROWED == (int)DIFF_NARROWED &&
		       (int)CORDON_DIFF_CHANGED == (int)DIFF_CHANGED && DIFF_CLASS_COUNT == 3,
	       "the public diff classes are diff.h's");
_Static_assert((int)CORDON_CHANGE_PRESET == (int)DIFF_PRESET &&
		       (int)CORDON_CHANGE_DECISION == (int)DIFF_DECISION &&
		       (int)CORDON_CHANGE_SETTING == (int)DIFF_SETTING &&
		       (int)CORDON_CHANGE_PROTECT == (int)DIFF_PROTECT &&
		       (int)CORDON_CHANGE_ENV == (int)DIFF_ENV &&
		       (int)CORDON_CHANGE_PLAN == (int)DIFF_PLAN &&
		       DIFF_KIND_COUNT == 6,
	       "the public change kinds are diff.h's");
_Static_assert((int)CORDON_PRESET_UNCHANGED == (int)DIFF_SAME &&
		       (int)CORDON_PRESET_CHANGED == (int)DIFF_MODIFIED &&
		       (int)CORDON_PRESET_ADDED == (int)DIFF_ADDED &&
		       (int)CORDON_PRESET_REMOVED == (int)DIFF_REMOVED,
	       "the public preset statuses are diff.h's");
_Static_assert((int)CORDON_READ == (int)IR_READ && (int)CORDON_WRITE == (int)IR_WRITE &&
		       (int)CORDON_EXEC == (int)IR_EXEC && (int)CORDON_NET == (int)IR_NET &&
		       (int)CORDON_TOOL == (int)IR_TOOL && IR_OP_COUNT == 5,
	       "the public operations are the IR's");

/* A fixed context, so a diff reads the same on every machine: made-up
 * directories, decided on the host's facts alone (a /home/u that exists
 * here, closed to this user, changes nothing). */
static const char *const fixed_context[CTX_COUNT] = {
	[CTX_WORKSPACE] = "/ws",
	[CTX_CWD] = "/ws",
	[CTX_HOME] = "/home/u",
	[CTX_TMP] = "/tmp/t",
	[CTX_AGENT_DIR] = "/home/u/.cordon",
	[CTX_SESSION_DIR] = "/home/u/.cordon/s",
	[CTX_USER] = "u",
};

struct cordon_diff {
	struct diff_result res;
	cordon_context *ctx;
	char *old_name, *new_name;
};

static void set_err(char **err, char *msg)
{
	if (err)
		*err = msg;
	else
		free(msg);
}

cordon_context *diff_fixed_context(const cordon_context *ctx, char **err)
{
	cordon_context *full = cordon_context_new();
	full->fixed = true;
	const char *host = ctx ? cordon_context_get_host(ctx) : NULL;
	char *why = NULL;
	for (int v = 0; v < CTX_COUNT; v++) {
		const char *value = ctx ? cordon_context_get(ctx, ir_ctx_var_names[v]) : NULL;
		if (cordon_context_set(full, ir_ctx_var_names[v], value ? value : fixed_context[v],
				       &why) != 0)
			goto fail;
	}
	if (host && cordon_context_set_host(full, host, &why) != 0)
		goto fail;
	return full;
fail:
	set_err(err, why);
	cordon_context_free(full);
	return NULL;
}

cordon_diff *cordon_diff_new(const cordon_policy *old_policy, const cordon_policy *new_policy,
			     const char *preset, const cordon_context *ctx, char **err)
{
	const cordon_policy *both[2] = { old_policy, new_policy };
	for (int i = 0; i < 2; i++) {
		if (!both[i]) {
			set_err(err, xstrdup("cordon_diff_new: a policy is NULL"));
			return NULL;
		}
		if (cordon_policy_error_count(both[i])) {
			set_err(err,
				xasprintf("%s: the policy has errors", cordon_policy_name(both[i])));
			return NULL;
		}
	}
	cordon_diff *d = xcalloc(1, sizeof(*d));
	char *why = NULL;
	if (!(d->ctx = diff_fixed_context(ctx, err)))
		goto fail;
	if (diff_policies(old_policy, new_policy, preset, d->ctx, &d->res, &why) != 0) {
		set_err(err, why);
		goto fail;
	}
	d->old_name = xstrdup(cordon_policy_name(old_policy));
	d->new_name = xstrdup(cordon_policy_name(new_policy));
	return d;
fail:
	cordon_diff_free(d);
	return NULL;
}

void cordon_diff_free(cordon_diff *d)
{
	if (!d)
		return;
	diff_result_free(&d->res);
	cordon_context_free(d->ctx);
	free(d->old_name);
	free(d->new_name);
	free(d);
}

size_t cordon_diff_count(const cordon_diff *d, enum cordon_diff_class cls)
{
	return (unsigned)cls < DIFF_CLASS_COUNT ? d->res.count[cls] : 0;
}

size_t cordon_diff_requests(const cordon_diff *d)
{
	return d->res.probes;
}

size_t cordon_diff_preset_count(const cordon_diff *d)
{
	return d->res.n;
}

bool cordon_diff_preset(const cordon_diff *d, size_t i, const char **name,
			enum cordon_preset_status *status)
{
	if (i >= d->res.n)
		return false;
	if (name)
		*name = d->res.presets[i].name;
	if (status)
		*status = (enum cordon_preset_status)d->res.presets[i].status;
	return true;
}

static const struct diff_preset *preset_at(const cordon_diff *d, size_t preset)
{
	if (preset == CORDON_DIFF_POLICY)
		return &d->res.policy;
	return preset < d->res.n ? &d->res.presets[preset] : NULL;
}

size_t cordon_diff_change_count(const cordon_diff *d, size_t preset)
{
	const struct diff_preset *p = preset_at(d, preset);
	return p ? p->n : 0;
}

bool cordon_diff_change(const cordon_diff *d, size_t preset, size_t j,
			struct cordon_diff_change *out)
{
	const struct diff_preset *p = preset_at(d, preset);
	if (!p || j >= p->n || !out)
		return false;
	const struct diff_change *c = &p->changes[j];
	*out = (struct cordon_diff_change){
		.kind = (enum cordon_change_kind)c->kind,
		.cls = (enum cordon_diff_class)c->cls,
		.op = (enum cordon_op)c->op,
		.subject = c->subject,
		.old_value = c->old_value,
		.new_value = c->new_value,
		.old_rule = c->old_rule,
		.new_rule = c->new_rule,
	};
	return true;
}

const char *cordon_diff_context(const cordon_diff *d, const char *name)
{
	return name ? cordon_context_get(d->ctx, name) : NULL;
}

int cordon_diff_print(const cordon_diff *d, enum cordon_diff_format format, FILE *out,
		      char **err)
{
	if (!d || !out) {
		set_err(err, xstrdup("cordon_diff_print: no diff or no output given"));
		return -1;
	}
	switch (format) {
	case CORDON_DIFF_TEXT:
		diff_print_text(out, &d->res);
		return 0;
	case CORDON_DIFF_JSON:
		diff_print_json(out, &d->res, d->old_name, d->new_name, &d->ctx->vars);
		return 0;
	}
	set_err(err, xstrdup("cordon_diff_print: unknown format"));
	return -1;
}

char *cordon_diff_first_widening(const cordon_diff *d)
{
	return diff_first_widening(&d->res);
}
