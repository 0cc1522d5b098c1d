/* A preset's resource limits in the plan: each with the rule it came from,
 * for the runner to apply (setrlimit in cordon-exec, a cgroup around the
 * sandbox) and for `cordon compile --emit bwrap` to show. */
#include "config.h"

#include "lower.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

void lower_limits_build(const cordon_evaluator *ev, struct lower_input *in)
{
	const struct ir_preset *p = ev->preset;
	in->nlimits = 0;
	for (int k = 0; k < IR_LIMIT_COUNT; k++) {
		const struct ir_limit_value *v = &p->limits[k];
		char where[512];
		/* unlimited lifts an inherited limit: nothing to apply. */
		if (!v->set || v->unlimited)
			continue;
		srcmgr_format_loc(&ev->policy->sm, v->origin, where, sizeof(where));
		in->limits[in->nlimits++] = (struct cordon_limit){
			.which = (enum cordon_limit_kind)k,
			.value = v->value,
			.best_effort = v->best_effort,
			.origin = xstrdup(where),
		};
	}
}

void lower_limits_free(struct lower_input *in)
{
	for (size_t i = 0; i < in->nlimits; i++)
		free(in->limits[i].origin);
	in->nlimits = 0;
}

const struct cordon_limit *lower_limit_find(const struct lower_input *in, enum ir_limit which)
{
	for (size_t i = 0; i < in->nlimits; i++)
		if ((int)in->limits[i].which == (int)which)
			return &in->limits[i];
	return NULL;
}

/* Where each limit is applied, as `--emit bwrap` says it. */
static const char *const applied_by[IR_LIMIT_COUNT] = {
	"setrlimit RLIMIT_NPROC in cordon-exec; cgroup pids.max where a cgroup can be had",
	"setrlimit RLIMIT_NOFILE in cordon-exec",
	"setrlimit RLIMIT_FSIZE in cordon-exec",
	"setrlimit RLIMIT_CPU in cordon-exec",
	"setrlimit RLIMIT_AS in cordon-exec",
	"cgroup memory.max around the sandbox",
};

void lower_limits_json(const struct lower_input *in, struct strbuf *sb)
{
	sb_adds(sb, "  \"limits\": [\n");
	for (size_t i = 0; i < in->nlimits; i++) {
		const struct cordon_limit *l = &in->limits[i];
		struct ir_limit_value v = { .set = true, .value = l->value };
		struct strbuf text;
		json_t *o = json_object();
		sb_init(&text);
		ir_limit_print(&text, (enum ir_limit)l->which, &v);
		json_object_set_new(o, "limit", json_string(ir_limit_names[l->which]));
		json_object_set_new(o, "value", json_integer((json_int_t)l->value));
		json_object_set_new(o, "text", json_string(text.buf));
		json_object_set_new(o, "best_effort", json_boolean(l->best_effort));
		json_object_set_new(o, "origin", json_string(l->origin));
		json_object_set_new(o, "note", json_string(applied_by[l->which]));
		char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
		sb_addf(sb, "    %s%s\n", s ? s : "{}", i + 1 == in->nlimits ? "" : ",");
		free(s);
		json_decref(o);
		sb_free(&text);
	}
	sb_adds(sb, "  ]\n");
}
