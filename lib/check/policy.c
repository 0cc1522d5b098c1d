/* The library's front door: load -> parse -> check, and the queries on a
 * checked policy.  Phases stop at the first one that reported errors. */
#include "config.h"

#include "check.h"
#include "lang/embedded.h"
#include "base/host_facts.h"
#include "lang/load.h"
#include "policy.h"

#include <stdlib.h>
#include <string.h>

/* CORDON_FAST_LOAD=0 (fast_load()): every spec of the policy files built
 * into cordon read at load, as a policy on disk is (load_defer_programs),
 * and their test blocks read by cordon_policy_load_embedded_to_decide too:
 * decisions are the same either way, and a difference is a bug to
 * report. */

static cordon_policy *policy_new(const char *name)
{
	cordon_policy *p = xcalloc(1, sizeof(*p));
	p->name = xstrdup(name);
	srcmgr_init(&p->sm);
	diag_init(&p->diags);
	arena_init(&p->arena);
	return p;
}

static void policy_check(cordon_policy *p, struct ast *root)
{
	if (!root)
		return;
	check_policy(&p->sm, &p->diags, root, &p->ir);
	diag_sort(&p->diags);
	/* The trees are needed no longer: the IR holds what was decided. */
	arena_free(&p->arena);
}

cordon_policy *cordon_policy_load_file(const char *path)
{
	cordon_policy *p = policy_new(path);
	struct load_ctx lc = { &p->sm, &p->diags, &p->arena, false, fast_load(), false };
	struct ast *root = load_file(&lc, path);
	p->io_failed = lc.io_error;
	policy_check(p, root);
	return p;
}

cordon_policy *cordon_policy_load_string(const char *name, const char *base_dir,
					 const char *text, size_t len)
{
	cordon_policy *p = policy_new(name);
	struct load_ctx lc = { &p->sm, &p->diags, &p->arena, false, fast_load(), false };
	policy_check(p, load_text(&lc, name, base_dir, text, len));
	return p;
}

/* The built-in policy, read in place; tests: its test blocks too. */
static cordon_policy *load_builtin_policy(bool tests)
{
	const struct embedded_file *f = embedded_find("rules/default.cordon");
	cordon_policy *p = policy_new(f->name);
	bool fast = fast_load();
	struct load_ctx lc = { &p->sm, &p->diags, &p->arena, false, fast, fast && !tests };
	policy_check(p, load_builtin(&lc, f->name, f->text, f->len));
	return p;
}

cordon_policy *cordon_policy_load_embedded(void)
{
	return load_builtin_policy(true);
}

cordon_policy *cordon_policy_load_embedded_to_decide(void)
{
	return load_builtin_policy(false);
}

void cordon_policy_free(cordon_policy *p)
{
	if (!p)
		return;
	cordon_policy_free(p->managed);
	ir_policy_free(&p->ir);
	arena_free(&p->arena);
	diag_free(&p->diags);
	srcmgr_free(&p->sm);
	free(p->name);
	free(p);
}

size_t cordon_policy_error_count(const cordon_policy *p)
{
	return p->diags.nerrors;
}

size_t cordon_policy_warning_count(const cordon_policy *p)
{
	return p->diags.nwarnings;
}

bool cordon_policy_io_failed(const cordon_policy *p)
{
	return p->io_failed;
}

void cordon_policy_print_diagnostics(const cordon_policy *p, FILE *out)
{
	diag_print(out, &p->sm, &p->diags);
}

/* Under a managed layer, the presets there are are the managed layer's. */
size_t cordon_policy_preset_count(const cordon_policy *p)
{
	if (p->diags.nerrors)
		return 0;
	return p->managed ? cordon_policy_preset_count(p->managed) : p->ir.npresets;
}

const char *cordon_policy_preset_name(const cordon_policy *p, size_t index)
{
	if (p->managed && !p->diags.nerrors)
		return cordon_policy_preset_name(p->managed, index);
	return index < cordon_policy_preset_count(p) ? p->ir.presets[index].name : NULL;
}

bool cordon_policy_has_preset(const cordon_policy *p, const char *name)
{
	if (p->managed && !p->diags.nerrors)
		return cordon_policy_has_preset(p->managed, name);
	return !p->diags.nerrors && ir_preset_find(&p->ir, name) != NULL;
}

/* Under a managed layer: its default when it sets one (a lower layer
 * cannot move it), else the lower layer's when the managed layer offers
 * that preset. */
const char *cordon_policy_default_preset(const cordon_policy *p)
{
	if (p->diags.nerrors)
		return NULL;
	if (p->managed) {
		const char *own = p->managed->ir.default_preset;
		if (own)
			return own;
		own = p->ir.default_preset;
		return own && cordon_policy_has_preset(p->managed, own) ? own : NULL;
	}
	return p->ir.default_preset;
}

bool cordon_policy_forbids_lower_layers(const cordon_policy *p)
{
	return p->ir.lower_layers_denied;
}

const char *cordon_policy_managed_name(const cordon_policy *p)
{
	return p->managed ? p->managed->name : NULL;
}

const char *cordon_policy_name(const cordon_policy *p)
{
	return p->name;
}

cordon_context *cordon_context_new(void)
{
	return xcalloc(1, sizeof(cordon_context));
}

void cordon_context_free(cordon_context *ctx)
{
	if (!ctx)
		return;
	for (int i = 0; i < CTX_COUNT; i++)
		free(ctx->owned[i]);
	free(ctx);
}

int cordon_context_set(cordon_context *ctx, const char *name, const char *value, char **err)
{
	int var = ir_ctx_var_lookup(name, strlen(name));
	if (var < 0) {
		const char *best = closest_word(name, ir_ctx_var_names, CTX_COUNT);
		*err = best ? xasprintf("unknown context variable '%s'; did you mean '%s'?", name, best)
			    : xasprintf("unknown context variable '%s'", name);
		return -1;
	}
	if (!*value) {
		*err = xasprintf("context variable '%s' is empty", name);
		return -1;
	}
	if (utf8_invalid_at((const unsigned char *)value, strlen(value)) != strlen(value)) {
		/* Every target under it would be refused: say so once, here. */
		*err = xasprintf("context variable '%s' is not valid UTF-8 text", name);
		return -1;
	}
	if (ir_ctx_var_is_path(var) && value[0] != '/') {
		*err = xasprintf("context variable '%s' must be an absolute path, not '%s'", name, value);
		return -1;
	}
	if (strchr(value, IR_VAR_OPEN) || strchr(value, IR_VAR_CLOSE)) {
		*err = xasprintf("context variable '%s' contains a control character", name);
		return -1;
	}
	free(ctx->owned[var]);
	ctx->owned[var] = xstrdup(value);
	ctx->vars.value[var] = ctx->owned[var];
	return 0;
}

const char *cordon_context_get(const cordon_context *ctx, const char *name)
{
	int var = ir_ctx_var_lookup(name, strlen(name));
	return var >= 0 ? ctx->vars.value[var] : NULL;
}

const char *cordon_context_name(size_t i)
{
	return i < CTX_COUNT ? ir_ctx_var_names[i] : NULL;
}

int cordon_context_set_host(cordon_context *ctx, const char *host, char **err)
{
	const struct host_facts *h = host_facts_find(host);
	if (!h) {
		*err = xasprintf("unknown host '%s' (expected one of: %s)", host, host_facts_names());
		return -1;
	}
	ctx->host = h;
	return 0;
}

const char *cordon_context_get_host(const cordon_context *ctx)
{
	return ctx->host ? ctx->host->name : NULL;
}

const char *cordon_host_native(void)
{
	return host_facts_native()->name;
}

char *cordon_policy_dump(const cordon_policy *p, const char *preset, const cordon_context *ctx,
			 enum cordon_dump_format format, int flags, char **err)
{
	const struct ir_preset *ip;
	if (p->diags.nerrors) {
		*err = xasprintf("%s has errors", p->name);
		return NULL;
	}
	/* Under a managed layer, a preset the lower layer leaves to it. */
	if (p->managed && !ir_preset_find(&p->ir, preset))
		return cordon_policy_dump(p->managed, preset, ctx, format, flags, err);
	ip = ir_preset_find(&p->ir, preset);
	if (!ip) {
		const char **names = xcalloc(p->ir.npresets + 1, sizeof(*names));
		for (size_t i = 0; i < p->ir.npresets; i++)
			names[i] = p->ir.presets[i].name;
		const char *best = closest_word(preset, names, p->ir.npresets);
		*err = best ? xasprintf("unknown preset '%s'; did you mean '%s'?", preset, best)
			    : xasprintf("unknown preset '%s'", preset);
		free(names);
		return NULL;
	}
	const struct ir_context *vars = ctx ? &ctx->vars : NULL;
	return format == CORDON_DUMP_JSON ? ir_dump_json(&p->sm, ip, vars, flags)
					  : ir_dump_text(&p->sm, ip, vars, flags);
}

const char *cordon_version(void)
{
	return PACKAGE_VERSION;
}
