#include "config.h"

#include "ir.h"
#include "cordon.h"
#include "match.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The public API's operations and effects are these, value by value: the
 * evaluator hands one to the other by a cast.  Each entry of IR_OPS and
 * IR_EFFECTS must have its CORDON_ twin at the same value. */
#define IR_OP_SAME(id, name, paths) CORDON_##id == (int)IR_##id &&
_Static_assert(IR_OPS(IR_OP_SAME) CORDON_OP_COUNT == (int)IR_OP_COUNT,
	       "enum cordon_op and enum ir_op differ");
#undef IR_OP_SAME
#define IR_EFFECT_SAME(id, name) CORDON_##id == (int)IR_##id &&
_Static_assert(IR_EFFECTS(IR_EFFECT_SAME) CORDON_EFFECT_COUNT == (int)IR_EFFECT_COUNT,
	       "enum cordon_effect and enum ir_effect differ");
#undef IR_EFFECT_SAME

#define IR_OP_NAME(id, name, paths) [IR_##id] = name,
const char *const ir_op_names[IR_OP_COUNT] = { IR_OPS(IR_OP_NAME) };
#undef IR_OP_NAME
#define IR_OP_PATHS(id, name, paths) [IR_##id] = paths,
const bool ir_op_paths[IR_OP_COUNT] = { IR_OPS(IR_OP_PATHS) };
#undef IR_OP_PATHS
#define IR_EFFECT_NAME(id, name) [IR_##id] = name,
const char *const ir_effect_names[IR_EFFECT_COUNT] = { IR_EFFECTS(IR_EFFECT_NAME) };
#undef IR_EFFECT_NAME
const char *const ir_approval_names[IR_APPROVAL_COUNT] = {
	[IR_APPROVAL_ASK] = "ask", [IR_APPROVAL_NEVER] = "never",
	[IR_APPROVAL_CONSOLE] = "console",
};
const char *const ir_sandbox_names[IR_SANDBOX_COUNT] = {
	[IR_SANDBOX_REQUIRED] = "required", [IR_SANDBOX_NONE] = "none",
};
const char *const ir_ctx_var_names[CTX_COUNT] = {
	"workspace", "cwd", "home", "tmp", "agent_dir", "session_dir", "user",
};

int ir_ctx_var_lookup(const char *name, size_t len)
{
	for (int i = 0; i < CTX_COUNT; i++)
		if (strlen(ir_ctx_var_names[i]) == len && memcmp(ir_ctx_var_names[i], name, len) == 0)
			return i;
	return -1;
}

bool ir_ctx_var_is_path(enum ir_ctx_var var)
{
	return var != CTX_USER;
}

const struct ir_preset *ir_preset_find(const struct ir_policy *ir, const char *name)
{
	for (size_t i = 0; i < ir->npresets; i++)
		if (strcmp(ir->presets[i].name, name) == 0)
			return &ir->presets[i];
	return NULL;
}

static void pattern_free(struct ir_pattern *p)
{
	free(p->text);
	free(p->regex);
}

void ir_env_free(struct ir_env *env)
{
	for (size_t i = 0; i < env->nkeep; i++)
		free(env->keep[i]);
	free(env->keep);
	for (size_t i = 0; i < env->nset; i++) {
		free(env->set[i].name);
		free(env->set[i].value);
	}
	free(env->set);
	for (size_t i = 0; i < env->ndrop; i++)
		pattern_free(&env->drop[i]);
	free(env->drop);
	for (size_t i = 0; i < env->nsecret; i++)
		pattern_free(&env->secret[i]);
	free(env->secret);
	for (size_t i = 0; i < env->ncode; i++)
		pattern_free(&env->code[i]);
	free(env->code);
}

void ir_policy_free(struct ir_policy *ir)
{
	for (size_t i = 0; i < ir->npresets; i++) {
		struct ir_preset *p = &ir->presets[i];
		free(p->name);
		free(p->parent);
		free(p->description);
		for (size_t j = 0; j < p->nrules; j++) {
			pattern_free(&p->rules[j].pat);
			free(p->rules[j].reason);
			free(p->rules[j].from);
		}
		free(p->rules);
		for (size_t j = 0; j < p->nprotect; j++) {
			pattern_free(&p->protect[j].pat);
			free(p->protect[j].from);
		}
		free(p->protect);
		ir_env_free(&p->env);
		for (int k = 0; k < IR_LIMIT_COUNT; k++)
			free(p->limits[k].from);
	}
	free(ir->presets);
	for (size_t i = 0; i < ir->nredacts; i++) {
		free(ir->redacts[i].name);
		free(ir->redacts[i].regex);
	}
	free(ir->redacts);
	for (size_t i = 0; i < ir->ntests; i++) {
		struct ir_test *t = &ir->tests[i];
		free(t->name);
		free(t->preset);
		for (size_t j = 0; j < t->ncontext; j++)
			free(t->context[j].value);
		free(t->context);
		for (size_t j = 0; j < t->nexpects; j++) {
			free(t->expects[j].target);
			for (size_t k = 0; k < t->expects[j].argc; k++)
				free(t->expects[j].argv[k]);
			free(t->expects[j].argv);
		}
		free(t->expects);
	}
	free(ir->tests);
	free(ir->default_preset);
	for (size_t i = 0; i < ir->nlets; i++)
		free(ir->lets[i].name);
	free(ir->lets);
	for (size_t i = 0; i < ir->nprograms; i++)
		ir_spec_free(&ir->programs[i]);
	free(ir->programs);
	if (ir->spec_names)
		strmap_free(ir->spec_names);
	free(ir->spec_names);
	memset(ir, 0, sizeof(*ir));
}

char *ir_text_subst(const char *text, const struct ir_context *ctx, bool require_all,
		    int *missing)
{
	struct strbuf sb;
	sb_init(&sb);
	for (const char *p = text; *p; p++) {
		if (*p != IR_VAR_OPEN) {
			sb_addc(&sb, *p);
			continue;
		}
		const char *end = strchr(p, IR_VAR_CLOSE);
		int var = ir_ctx_var_lookup(p + 1, (size_t)(end - p - 1));
		const char *value = ctx && var >= 0 ? ctx->value[var] : NULL;
		if (value) {
			sb_adds(&sb, value);
		} else if (require_all) {
			if (missing)
				*missing = var;
			sb_free(&sb);
			return NULL;
		} else {
			sb_add(&sb, p, (size_t)(end - p + 1));
		}
		p = end;
	}
	return sb_steal(&sb);
}

void ir_text_print(struct strbuf *sb, const char *text)
{
	for (const char *p = text; *p; p++) {
		if (*p == IR_VAR_OPEN) {
			sb_adds(sb, "${");
		} else if (*p == IR_VAR_CLOSE) {
			sb_addc(sb, '}');
		} else if (*p == '$') {
			sb_adds(sb, "\\$");
		} else if (*p == '\\') {
			sb_adds(sb, "\\\\");
		} else {
			sb_addc(sb, *p);
		}
	}
}

/* The literal start of an anchored regex ("^/home/[^/]+" -> "/home/"), or
 * NULL when the regex may match anywhere or alternates at the top. */
char *ir_regex_prefix(const char *re)
{
	struct strbuf sb;
	int depth = 0;
	bool in_class = false;
	if (re[0] != '^')
		return NULL;
	/* An alternation at the top level ("^/a|/b") leaves no common prefix;
	 * one inside a group after the prefix does not matter. */
	for (const char *p = re; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
		} else if (in_class) {
			in_class = *p != ']';
		} else if (*p == '[') {
			in_class = true;
			if (p[1] == ']' || (p[1] == '^' && p[2] == ']'))
				p += p[1] == ']' ? 1 : 2;
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')') {
			depth--;
		} else if (*p == '|' && depth == 0) {
			return NULL;
		}
	}
	sb_init(&sb);
	for (const char *p = re + 1; *p; p++) {
		if (*p == '\\' && p[1] && !isalnum((unsigned char)p[1])) {
			sb_addc(&sb, p[1]);
			p++;
		} else if (strchr("?*+{", *p)) {
			if (sb.len)
				sb.buf[--sb.len] = '\0'; /* the last character is optional */
			break;
		} else if (strchr("\\^$.|()[]", *p)) {
			break;
		} else {
			sb_addc(&sb, *p);
		}
	}
	return sb_steal(&sb);
}

struct ir_specificity ir_pattern_specificity(enum ir_op op, const struct ir_pattern *p)
{
	struct ir_specificity s = { 0, 0 };
	bool in_literal = true;
	if (p->kind == IR_PAT_REGEX && !p->text) {
		/* A regex counts one wildcard and its anchored literal prefix. */
		char *prefix = ir_regex_prefix(p->regex);
		s.literal = prefix ? (unsigned)strlen(prefix) : 0;
		s.wildcards = 1;
		free(prefix);
		return s;
	}
	if (p->kind == IR_PAT_OPAQUE) {
		/* More specific than "*", which also covers opaque parts. */
		s.literal = 1;
		return s;
	}
	if (op == IR_NET)
		return ir_host_specificity(p->text);
	for (const char *c = p->text; c && *c; c++) {
		if (*c == '*' || *c == '?' || *c == '[') {
			in_literal = false;
			s.wildcards++;
			if (*c == '[') {
				const char *close = strchr(c + 1, ']');
				if (close)
					c = close;
			}
		} else if (in_literal) {
			s.literal++;
		}
	}
	/* A regex condition narrows an exec prefix: count it as more specific
	 * than the bare prefix. */
	if (p->text && p->regex)
		s.literal++;
	/* An exact path is narrower than the same path with its subtree. */
	if (p->kind == IR_PAT_EXACT)
		s.literal++;
	return s;
}

struct ir_specificity ir_host_specificity(const char *text)
{
	/* Hosts narrow from the right: every literal character of the host
	 * counts ("*.example.com" beats "*"), and naming a port adds one. */
	struct ir_specificity s = { 0, 0 };
	const char *end = text + strlen(text);
	if (text[0] == '[') {
		const char *close = strchr(text, ']');
		end = close ? close + 1 : end;
	} else {
		const char *colon = strchr(text, ':');
		if (colon && !strchr(colon + 1, ':'))
			end = colon;
	}
	for (const char *c = text; c < end; c++) {
		if (*c == '*' || *c == '?')
			s.wildcards++;
		else
			s.literal++;
	}
	if (*end == ':' || (end[0] == ']' && end[1] == ':'))
		s.literal++;
	if (end > text && *end == ':' && strcmp(end, ":*") == 0)
		s.literal--;
	return s;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

int ir_rule_cmp(const void *pa, const void *pb)
{
	const struct ir_rule *a = pa, *b = pb;
	struct ir_specificity sa = a->spec, sb = b->spec;
	int r;
	if (a->op != b->op)
		return a->op < b->op ? -1 : 1;
	if (sa.literal != sb.literal)
		return sa.literal > sb.literal ? -1 : 1;
	if (sa.wildcards != sb.wildcards)
		return sa.wildcards < sb.wildcards ? -1 : 1;
	if ((r = cmp_str(a->pat.text, b->pat.text)) != 0)
		return r;
	if ((r = cmp_str(a->pat.regex, b->pat.regex)) != 0)
		return r;
	if (a->pat.kind != b->pat.kind)
		return a->pat.kind < b->pat.kind ? -1 : 1;
	if (a->tier != b->tier)
		return a->tier < b->tier ? -1 : 1;
	if (a->effect != b->effect)
		return a->effect > b->effect ? -1 : 1;
	if ((r = cmp_str(a->reason, b->reason)) != 0)
		return r;
	if (a->origin.file != b->origin.file)
		return a->origin.file < b->origin.file ? -1 : 1;
	return a->origin.start < b->origin.start ? -1 : a->origin.start > b->origin.start;
}


char *ir_text_resolve(const char *text, const struct ir_context *ctx, bool is_path)
{
	char *s = ir_text_subst(text, ctx, false, NULL);
	size_t w = 0;
	if (!is_path)
		return s;
	/* A substituted directory may end in '/' or repeat one. */
	for (size_t r = 0; s[r]; r++) {
		if (s[r] == '/' && w > 0 && s[w - 1] == '/')
			continue;
		s[w++] = s[r];
	}
	if (w > 1 && s[w - 1] == '/')
		w--;
	s[w] = '\0';
	return s;
}

#define IR_ROLE_NAME(id, name, operand, option, arg) [ROLE_##id] = name,
const char *const ir_role_names[ROLE_COUNT] = { IR_ROLES(IR_ROLE_NAME) };
#undef IR_ROLE_NAME
#define IR_ROLE_OPERAND(id, name, operand, option, arg) [ROLE_##id] = operand,
const bool ir_role_operand[ROLE_COUNT] = { IR_ROLES(IR_ROLE_OPERAND) };
#undef IR_ROLE_OPERAND
#define IR_ROLE_OPTION(id, name, operand, option, arg) [ROLE_##id] = option,
const bool ir_role_option[ROLE_COUNT] = { IR_ROLES(IR_ROLE_OPTION) };
#undef IR_ROLE_OPTION
#define IR_ROLE_ARG(id, name, operand, option, arg) [ROLE_##id] = arg,
const bool ir_role_takes_arg[ROLE_COUNT] = { IR_ROLES(IR_ROLE_ARG) };
#undef IR_ROLE_ARG

void ir_spec_free(struct ir_spec *s)
{
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	for (size_t i = 0; i < s->noptions; i++) {
		for (size_t j = 0; j < s->options[i].nnames; j++)
			free(s->options[i].names[j]);
		free(s->options[i].names);
		free(s->options[i].path);
	}
	free(s->options);
	for (size_t i = 0; i < s->nenvs; i++) {
		for (size_t j = 0; j < s->envs[i].nnames; j++)
			free(s->envs[i].names[j]);
		free(s->envs[i].names);
		free(s->envs[i].path);
	}
	free(s->envs);
	for (size_t i = 0; i < s->nconfigkeys; i++) {
		for (size_t j = 0; j < s->configkeys[i].nnames; j++)
			free(s->configkeys[i].names[j]);
		free(s->configkeys[i].names);
		free(s->configkeys[i].path);
	}
	free(s->configkeys);
	for (size_t i = 0; i < s->nsubs; i++)
		ir_spec_free(&s->subs[i]);
	free(s->subs);
	ir_spec_index_free(&s->index);
	free(s->deferred);
	for (size_t i = 0; i < s->nhosts; i++)
		free(s->hosts[i]);
	free(s->hosts);
	for (size_t i = 0; i < s->nreads; i++)
		free(s->reads[i]);
	free(s->reads);
	for (size_t i = 0; i < s->nwrites; i++)
		free(s->writes[i]);
	free(s->writes);
	for (size_t i = 0; i < s->ndeletes; i++)
		free(s->deletes[i]);
	free(s->deletes);
	for (size_t i = 0; i < s->nchanges; i++)
		free(s->changes[i]);
	free(s->changes);
	free(s->bare);
	free(s->implied);
	free(s->upstream);
	for (size_t i = 0; i < s->nconfigs; i++)
		free(s->configs[i]);
	free(s->configs);
	free(s->config_unless);
	free(s->extracts_dir);
	memset(s, 0, sizeof(*s));
}

const struct ir_spec *ir_program_find(const struct ir_policy *ir, const char *name)
{
	for (size_t i = 0; i < ir->nprograms; i++)
		for (size_t j = 0; j < ir->programs[i].nnames; j++)
			if (strcmp(ir->programs[i].names[j], name) == 0)
				return ir_spec_ready(&ir->programs[i]);
	return NULL;
}
