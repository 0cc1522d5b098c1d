/* Deterministic dumps of a flattened preset: the text form auditors read
 * (`--emit ir`) and the same content as JSON (`--emit json`).  No
 * pointers, no timestamps, canonical order. */
#include "config.h"

#include "policy.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* A preset's content with the context applied, re-sorted: the order of
 * rules depends on the substituted paths. */
struct view {
	struct ir_rule *rules;
	size_t nrules;
	struct ir_protect *protect;
	size_t nprotect;
	struct ir_env_set *set;
	size_t nset;
};

static bool op_is_path(enum ir_op op)
{
	return op == IR_READ || op == IR_WRITE;
}

static char *resolve(const char *text, const struct ir_context *ctx, bool is_path)
{
	return text ? ir_text_resolve(text, ctx, is_path) : NULL;
}

static int protect_text_cmp(const void *pa, const void *pb)
{
	const struct ir_protect *a = pa, *b = pb;
	int r = strcmp(a->pat.text ? a->pat.text : "", b->pat.text ? b->pat.text : "");
	return r ? r : strcmp(a->pat.regex ? a->pat.regex : "", b->pat.regex ? b->pat.regex : "");
}

static void view_build(struct view *v, const struct ir_preset *p, const struct ir_context *ctx)
{
	v->nrules = p->nrules;
	v->rules = xcalloc(p->nrules + 1, sizeof(*v->rules));
	for (size_t i = 0; i < p->nrules; i++) {
		v->rules[i] = p->rules[i];
		v->rules[i].pat.text = resolve(p->rules[i].pat.text, ctx, op_is_path(p->rules[i].op));
		v->rules[i].spec = ir_pattern_specificity(v->rules[i].op, &v->rules[i].pat);
	}
	sort_items(v->rules, v->nrules, sizeof(*v->rules), ir_rule_cmp);
	v->nprotect = p->nprotect;
	v->protect = xcalloc(p->nprotect + 1, sizeof(*v->protect));
	for (size_t i = 0; i < p->nprotect; i++) {
		v->protect[i] = p->protect[i];
		v->protect[i].pat.text = resolve(p->protect[i].pat.text, ctx, true);
	}
	sort_items(v->protect, v->nprotect, sizeof(*v->protect), protect_text_cmp);
	v->nset = p->env.nset;
	v->set = xcalloc(p->env.nset + 1, sizeof(*v->set));
	for (size_t i = 0; i < p->env.nset; i++) {
		v->set[i] = p->env.set[i];
		v->set[i].value = resolve(p->env.set[i].value, ctx, false);
	}
}

static void view_free(struct view *v)
{
	for (size_t i = 0; i < v->nrules; i++)
		free(v->rules[i].pat.text);
	for (size_t i = 0; i < v->nprotect; i++)
		free(v->protect[i].pat.text);
	for (size_t i = 0; i < v->nset; i++)
		free(v->set[i].value);
	free(v->rules);
	free(v->protect);
	free(v->set);
}

/* ---- text ---------------------------------------------------------------- */

static void quote_text(struct strbuf *sb, const char *text)
{
	sb_addc(sb, '"');
	for (const char *p = text; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == IR_VAR_OPEN)
			sb_adds(sb, "${");
		else if (c == IR_VAR_CLOSE)
			sb_addc(sb, '}');
		else if (c == '$')
			sb_adds(sb, "\\$");
		else if (c == '"' || c == '\\')
			sb_addf(sb, "\\%c", c);
		else if (c == '\n')
			sb_adds(sb, "\\n");
		else if (c == '\t')
			sb_adds(sb, "\\t");
		else
			sb_addc(sb, (char)c);
	}
	sb_addc(sb, '"');
}

static void regex_text(struct strbuf *sb, const char *re)
{
	sb_addc(sb, '/');
	for (const char *p = re; *p; p++) {
		if (*p == '/')
			sb_addc(sb, '\\');
		sb_addc(sb, *p);
	}
	sb_addc(sb, '/');
}

static void pattern_text(struct strbuf *sb, const struct ir_pattern *p)
{
	if (p->kind == IR_PAT_OPAQUE) {
		sb_adds(sb, "opaque");
		return;
	}
	if (p->kind == IR_PAT_EXACT)
		sb_adds(sb, "exact ");
	if (p->text)
		quote_text(sb, p->text);
	if (p->text && p->regex)
		sb_addc(sb, ' ');
	if (p->regex)
		regex_text(sb, p->regex);
}

void ir_pattern_print(struct strbuf *sb, const struct ir_pattern *p)
{
	pattern_text(sb, p);
}

static void origin_text(struct strbuf *sb, const struct srcmgr *sm, struct loc loc, int flags)
{
	char where[512];
	if (flags & CORDON_DUMP_NO_ORIGINS)
		return;
	srcmgr_format_loc(sm, loc, where, sizeof(where));
	sb_addf(sb, "  @ %s", where);
}

/* limit KEY VALUE [best_effort]  from "preset"  @ origin, in key order. */
static void limits_text(struct strbuf *sb, const struct srcmgr *sm, const struct ir_preset *p,
			int flags)
{
	for (int k = 0; k < IR_LIMIT_COUNT; k++) {
		const struct ir_limit_value *l = &p->limits[k];
		if (!l->set)
			continue;
		sb_addf(sb, "  limit %s ", ir_limit_names[k]);
		ir_limit_print(sb, (enum ir_limit)k, l);
		if (l->best_effort)
			sb_adds(sb, " best_effort");
		sb_adds(sb, "  from ");
		quote_text(sb, l->from);
		origin_text(sb, sm, l->origin, flags);
		sb_addc(sb, '\n');
	}
}


char *ir_dump_text(const struct srcmgr *sm, const struct ir_preset *p,
		   const struct ir_context *ctx, int flags)
{
	struct strbuf sb;
	struct view v;
	sb_init(&sb);
	view_build(&v, p, ctx);

	sb_adds(&sb, "preset ");
	quote_text(&sb, p->name);
	sb_addc(&sb, '\n');
	if (p->parent) {
		sb_adds(&sb, "  extends ");
		quote_text(&sb, p->parent);
		sb_addc(&sb, '\n');
	}
	if (p->description) {
		sb_adds(&sb, "  description ");
		quote_text(&sb, p->description);
		sb_addc(&sb, '\n');
	}
	if (p->approval == IR_APPROVAL_CONSOLE)
		sb_addf(&sb, "  approval console %us\n", p->approval_timeout);
	else
		sb_addf(&sb, "  approval %s\n", ir_approval_names[p->approval]);
	sb_addf(&sb, "  sandbox %s\n", ir_sandbox_names[p->sandbox]);
	for (size_t i = 0; i < v.nprotect; i++) {
		sb_adds(&sb, "  protect ");
		pattern_text(&sb, &v.protect[i].pat);
		origin_text(&sb, sm, v.protect[i].origin, flags);
		sb_addc(&sb, '\n');
	}
	for (size_t i = 0; i < p->env.nkeep; i++) {
		sb_adds(&sb, "  env keep ");
		quote_text(&sb, p->env.keep[i]);
		sb_addc(&sb, '\n');
	}
	for (size_t i = 0; i < v.nset; i++) {
		sb_addf(&sb, "  env set %s = ", v.set[i].name);
		quote_text(&sb, v.set[i].value);
		origin_text(&sb, sm, v.set[i].origin, flags);
		sb_addc(&sb, '\n');
	}
	for (size_t i = 0; i < p->env.ndrop; i++) {
		sb_adds(&sb, "  env drop ");
		pattern_text(&sb, &p->env.drop[i]);
		sb_addc(&sb, '\n');
	}
	for (size_t i = 0; i < p->env.nsecret; i++) {
		sb_adds(&sb, "  env secret ");
		pattern_text(&sb, &p->env.secret[i]);
		sb_addc(&sb, '\n');
	}
	for (size_t i = 0; i < p->env.ncode; i++) {
		sb_adds(&sb, "  env code ");
		pattern_text(&sb, &p->env.code[i]);
		sb_addc(&sb, '\n');
	}
	limits_text(&sb, sm, p, flags);
	for (size_t i = 0; i < v.nrules; i++) {
		const struct ir_rule *r = &v.rules[i];
		sb_addf(&sb, "  %s ", ir_op_names[r->op]);
		pattern_text(&sb, &r->pat);
		sb_addf(&sb, " %s", ir_effect_names[r->effect]);
		if (r->reason) {
			sb_addc(&sb, ' ');
			quote_text(&sb, r->reason);
		}
		if (r->from) {
			sb_adds(&sb, "  from ");
			quote_text(&sb, r->from);
		} else {
			sb_adds(&sb, "  from top level");
		}
		origin_text(&sb, sm, r->origin, flags);
		sb_addc(&sb, '\n');
	}
	sb_adds(&sb, "end\n");
	view_free(&v);
	return sb_steal(&sb);
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *text_json(const char *text)
{
	struct strbuf sb;
	json_t *j;
	if (!text)
		return json_null();
	sb_init(&sb);
	ir_text_print(&sb, text);
	j = json_string(sb.buf);
	sb_free(&sb);
	return j ? j : json_null();
}

static const char *const kind_text[] = { "literal", "glob", "regex", "opaque", "exact" };
_Static_assert(sizeof(kind_text) / sizeof(*kind_text) == IR_PAT_EXACT + 1,
	       "a name for every pattern kind");

static json_t *pattern_json(const struct ir_pattern *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "kind", json_string(kind_text[p->kind]));
	json_object_set_new(o, "pattern", text_json(p->text));
	json_object_set_new(o, "regex", p->regex ? json_string(p->regex) : json_null());
	return o;
}

static void origin_json(json_t *o, const struct srcmgr *sm, struct loc loc, int flags)
{
	char where[512];
	if (flags & CORDON_DUMP_NO_ORIGINS)
		return;
	srcmgr_format_loc(sm, loc, where, sizeof(where));
	json_object_set_new(o, "origin", json_string(where));
}

/* The same limits as an array: the value in its unit (count, bytes or
 * seconds; null when unlimited) and as written. */
static json_t *limits_json(const struct srcmgr *sm, const struct ir_preset *p, int flags)
{
	static const char *const unit_names[] = { "count", "bytes", "seconds" };
	json_t *arr = json_array();
	for (int k = 0; k < IR_LIMIT_COUNT; k++) {
		const struct ir_limit_value *l = &p->limits[k];
		struct strbuf text;
		if (!l->set)
			continue;
		json_t *o = json_object();
		sb_init(&text);
		ir_limit_print(&text, (enum ir_limit)k, l);
		json_object_set_new(o, "limit", json_string(ir_limit_names[k]));
		json_object_set_new(o, "value", l->unlimited ? json_null()
							     : json_integer((json_int_t)l->value));
		json_object_set_new(o, "unit", json_string(unit_names[ir_limit_units[k]]));
		json_object_set_new(o, "text", json_string(text.buf));
		json_object_set_new(o, "best_effort", json_boolean(l->best_effort));
		json_object_set_new(o, "from", json_string(l->from));
		origin_json(o, sm, l->origin, flags);
		json_array_append_new(arr, o);
		sb_free(&text);
	}
	return arr;
}

char *ir_dump_json(const struct srcmgr *sm, const struct ir_preset *p,
		   const struct ir_context *ctx, int flags)
{
	json_t *root = json_object(), *arr, *env;
	struct view v;
	char *out, *copy;
	view_build(&v, p, ctx);

	json_object_set_new(root, "preset", json_string(p->name));
	json_object_set_new(root, "extends", p->parent ? json_string(p->parent) : json_null());
	json_object_set_new(root, "description",
			    p->description ? json_string(p->description) : json_null());
	json_object_set_new(root, "approval", json_string(ir_approval_names[p->approval]));
	if (p->approval == IR_APPROVAL_CONSOLE)
		json_object_set_new(root, "approval_timeout", json_integer(p->approval_timeout));
	json_object_set_new(root, "sandbox", json_string(ir_sandbox_names[p->sandbox]));

	arr = json_array();
	for (size_t i = 0; i < v.nprotect; i++) {
		json_t *o = pattern_json(&v.protect[i].pat);
		origin_json(o, sm, v.protect[i].origin, flags);
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "protect", arr);

	env = json_object();
	arr = json_array();
	for (size_t i = 0; i < p->env.nkeep; i++)
		json_array_append_new(arr, json_string(p->env.keep[i]));
	json_object_set_new(env, "keep", arr);
	arr = json_array();
	for (size_t i = 0; i < v.nset; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(v.set[i].name));
		json_object_set_new(o, "value", text_json(v.set[i].value));
		origin_json(o, sm, v.set[i].origin, flags);
		json_array_append_new(arr, o);
	}
	json_object_set_new(env, "set", arr);
	arr = json_array();
	for (size_t i = 0; i < p->env.ndrop; i++)
		json_array_append_new(arr, pattern_json(&p->env.drop[i]));
	json_object_set_new(env, "drop", arr);
	arr = json_array();
	for (size_t i = 0; i < p->env.nsecret; i++)
		json_array_append_new(arr, pattern_json(&p->env.secret[i]));
	json_object_set_new(env, "secret", arr);
	arr = json_array();
	for (size_t i = 0; i < p->env.ncode; i++)
		json_array_append_new(arr, pattern_json(&p->env.code[i]));
	json_object_set_new(env, "code", arr);
	json_object_set_new(root, "env", env);
	json_object_set_new(root, "limits", limits_json(sm, p, flags));

	arr = json_array();
	for (size_t i = 0; i < v.nrules; i++) {
		const struct ir_rule *r = &v.rules[i];
		json_t *o = json_object();
		json_object_set_new(o, "op", json_string(ir_op_names[r->op]));
		json_t *pat = pattern_json(&r->pat);
		json_object_update(o, pat);
		json_decref(pat);
		json_object_set_new(o, "effect", json_string(ir_effect_names[r->effect]));
		json_object_set_new(o, "reason", r->reason ? json_string(r->reason) : json_null());
		json_object_set_new(o, "from", r->from ? json_string(r->from) : json_null());
		origin_json(o, sm, r->origin, flags);
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "rules", arr);

	out = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	json_decref(root);
	view_free(&v);
	copy = xasprintf("%s\n", out ? out : "null");
	free(out);
	return copy;
}
