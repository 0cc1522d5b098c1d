#include "config.h"

#include "checker.h"
#include "lang/literal.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

/* The settings of a preset; protect is also one of the top level. */
enum setting { SET_DESCRIPTION, SET_APPROVAL, SET_SANDBOX, SET_PROTECT, SET_UNPROTECT, SET_COUNT };
static const char *const setting_names[SET_COUNT] = {
	[SET_DESCRIPTION] = "description", [SET_APPROVAL] = "approval",
	[SET_SANDBOX] = "sandbox",	   [SET_PROTECT] = "protect",
	[SET_UNPROTECT] = "unprotect",
};


int ck_lookup(const char *word, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(word, names[i]) == 0)
			return (int)i;
	return -1;
}

void ck_hint_closest(struct diag *d, const char *word, const char *const *names, size_t n)
{
	const char *best = closest_word(word, names, n);
	if (best)
		diag_hint(d, "did you mean '%s'?", best);
}

struct let_var *ck_let_find(struct checker *c, const char *name, size_t len)
{
	for (size_t i = 0; i < c->nlets; i++)
		if (strlen(c->lets[i].name) == len && memcmp(c->lets[i].name, name, len) == 0)
			return &c->lets[i];
	return NULL;
}

void ck_hint_variable(struct checker *c, struct diag *d, const char *name)
{
	const char **names = xcalloc(c->nlets + CTX_COUNT, sizeof(*names));
	size_t n = 0;
	for (size_t i = 0; i < c->nlets; i++)
		names[n++] = c->lets[i].name;
	for (size_t i = 0; i < CTX_COUNT; i++)
		names[n++] = ir_ctx_var_names[i];
	ck_hint_closest(d, name, names, n);
	free(names);
}

static void scope_free(struct scope *s);

/* ---- items -------------------------------------------------------------- */

struct rule_sink_arg {
	struct scope *scope;
	enum ir_op op;
	enum ir_effect effect;
	const char *reason;
	struct loc origin;
	bool exact;      /* `read exact "/p"`: each pattern names one path */
};

/* A pattern of `exact`: a literal path, which then means itself alone. */
static bool make_exact(struct checker *c, struct ir_pattern *pat, struct loc at)
{
	if (pat->kind == IR_PAT_LITERAL) {
		pat->kind = IR_PAT_EXACT;
		return true;
	}
	struct diag *d;
	if (pat->text) {
		struct strbuf shown;
		sb_init(&shown);
		ir_text_print(&shown, pat->text);
		d = ERR(c, &at, "bad-value", "an exact path has no wildcards: '%s' is a glob",
			shown.buf);
		diag_hint(d, "a glob matches only the paths it names already: drop 'exact'");
		sb_free(&shown);
	} else {
		d = ERR(c, &at, "bad-value", "an exact path is a string, not a regex");
		diag_hint(d, "write the one path as a string: exact \"/path/to/file\"");
	}
	free(pat->text);
	free(pat->regex);
	return false;
}

static void add_rule(struct checker *c, void *varg, struct ir_pattern pat, struct loc at)
{
	struct rule_sink_arg *arg = varg;
	struct scope *s = arg->scope;
	if (arg->exact && !make_exact(c, &pat, at))
		return;
	struct ir_rule r = {
		.op = arg->op,
		.pat = pat,
		.effect = arg->effect,
		.reason = arg->reason ? xstrdup(arg->reason) : NULL,
		.origin = arg->origin,
		.from = s->name ? xstrdup(s->name) : NULL,
		.tier = s->name ? 0 : GLOBAL_TIER,
	};
	VEC_PUSH(s->rules, s->nrules, s->rules_cap, r);
}

static void add_protect(struct checker *c, void *varg, struct ir_pattern pat, struct loc at)
{
	struct scope *s = varg;
	struct ir_protect p = { pat, at, s->name ? xstrdup(s->name) : NULL };
	(void)c;
	VEC_PUSH(s->protect, s->nprotect, s->protect_cap, p);
}

static void add_unprotect(struct checker *c, void *varg, struct ir_pattern pat, struct loc at)
{
	struct scope *s = varg;
	struct ir_protect p = { pat, at, NULL };
	(void)c;
	VEC_PUSH(s->unprotect, s->nunprotect, s->unprotect_cap, p);
}

static bool setting_once(struct checker *c, const struct ast *item, bool *seen,
			 struct loc *first)
{
	if (*seen) {
		struct diag *d = ERR(c, &item->loc, "duplicate-setting", "'%s' is set twice in this preset",
				     item->u.item.name->u.tok.text);
		diag_note(d, *first, "first set here");
		return false;
	}
	*seen = true;
	*first = item->loc;
	return true;
}

/* A hint naming the effects, from their one table: "WHAT allow, ask or
 * deny". */
static void hint_effects(struct diag *d, const char *what)
{
	struct strbuf effects;
	sb_init(&effects);
	sb_add_words(&effects, ir_effect_names, IR_EFFECT_COUNT, " or ");
	diag_hint(d, "%s %s", what, effects.buf);
	sb_free(&effects);
}

static void check_rule(struct checker *c, struct scope *s, const struct ast *item,
		       enum ir_op op)
{
	const struct ast *word = item->u.item.word;
	struct rule_sink_arg arg = { .scope = s, .op = op, .origin = item->loc };
	char *reason = NULL;
	int effect;

	if (!item->u.item.patterns.n) {
		ERR(c, &item->loc, "syntax", "a %s rule needs a pattern and an effect",
		    ir_op_names[op]);
		return;
	}
	if (item->u.item.mod) {
		const struct ast *mod = item->u.item.mod;
		static const char *const mods[] = { "exact" };
		if (strcmp(mod->u.tok.text, mods[0]) != 0) {
			struct diag *d = ERR(c, &mod->loc, "syntax",
					     "'%s' is not a word that modifies a pattern",
					     mod->u.tok.text);
			ck_hint_closest(d, mod->u.tok.text, mods, ARRAY_SIZE(mods));
			if (d && !d->hint)
				diag_hint(d, "name one path with exact: %s exact \"/path\" allow;",
					  ir_op_names[op]);
			return;
		}
		if (!ir_op_on_paths(op)) {
			ERR(c, &mod->loc, "syntax", "'exact' names one path: it belongs to read and "
						    "write rules, not to %s",
			    ir_op_names[op]);
			return;
		}
		arg.exact = true;
	}
	if (!word) {
		struct loc at = { item->loc.file, item->loc.end - 1, item->loc.end };
		struct diag *d = ERR(c, &at, "unknown-effect", "a %s rule needs an effect", ir_op_names[op]);
		hint_effects(d, "end the rule with");
		return;
	}
	effect = ck_lookup(word->u.tok.text, ir_effect_names, IR_EFFECT_COUNT);
	if (effect < 0) {
		struct diag *d = ERR(c, &word->loc, "unknown-effect", "unknown effect '%s'",
				     word->u.tok.text);
		ck_hint_closest(d, word->u.tok.text, ir_effect_names, IR_EFFECT_COUNT);
		if (d && !d->hint)
			hint_effects(d, "an effect is");
	}
	if (item->u.item.reason)
		reason = ck_decode_string(c, item->u.item.reason, true);
	if (effect < 0) {
		/* Still check the patterns, into a scope that is thrown away. */
		struct scope discard = { .name = s->name };
		arg.scope = &discard;
		for (const struct ast *p = item->u.item.patterns.head; p; p = p->next)
			ck_lower_pattern(c, op, p, add_rule, &arg);
		discard.name = NULL;
		scope_free(&discard);
		free(reason);
		return;
	}
	arg.effect = effect;
	arg.reason = reason;
	for (const struct ast *p = item->u.item.patterns.head; p; p = p->next)
		ck_lower_pattern(c, op, p, add_rule, &arg);
	free(reason);
}

static bool only_word(struct checker *c, const struct ast *item, const char *what)
{
	if (item->u.item.patterns.n || item->u.item.reason || !item->u.item.word) {
		ERR(c, &item->loc, "syntax", "write '%s' followed by one value, as in '%s'",
		    item->u.item.name->u.tok.text, what);
		return false;
	}
	return true;
}

/* The setting's word among values: its index, or -1 after reporting. */
static int setting_value(struct checker *c, const struct ast *item, const char *const *values,
			 size_t n)
{
	const struct ast *word = item->u.item.word;
	const char *name = item->u.item.name->u.tok.text;
	int v = ck_lookup(word->u.tok.text, values, n);
	if (v >= 0)
		return v;
	struct diag *d = ERR(c, &word->loc, "bad-value", "'%s' is not a valid %s value",
			     word->u.tok.text, name);
	ck_hint_closest(d, word->u.tok.text, values, n);
	if (d && !d->hint) {
		if (n == 2)
			diag_hint(d, "%s is %s or %s", name, values[0], values[1]);
		else
			diag_hint(d, "%s is %s, %s or %s", name, values[0], values[1], values[2]);
	}
	return -1;
}

/* The time of `approval console 2m;`: whole seconds with s, m or h (a bare
 * number is seconds), from 1 s to IR_CONSOLE_TIMEOUT_MAX.  0 after
 * reporting why not. */
static unsigned console_timeout(struct checker *c, const struct ast *tok)
{
	const char *text = tok->u.tok.text;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	unsigned long long scale = !*end || !strcmp(end, "s") ? 1
				   : !strcmp(end, "m")	      ? 60
				   : !strcmp(end, "h")	      ? 3600
							      : 0;
	if (errno || end == text || !scale || v == 0 ||
	    v > IR_CONSOLE_TIMEOUT_MAX / scale) {
		struct diag *d = ERR(c, &tok->loc, "bad-value",
				     "'%s' is not a time the console may be waited for", text);
		diag_hint(d, "whole seconds with s, m or h, from 1s to %ds, as in 2m",
			  IR_CONSOLE_TIMEOUT_MAX);
		return 0;
	}
	return (unsigned)(v * scale);
}

/* approval ask;  approval never;  approval console;  approval console 2m; */
static void check_approval(struct checker *c, struct scope *s, const struct ast *item)
{
	_Static_assert(IR_APPROVAL_COUNT == 3, "the hint names three values");
	if (!only_word(c, item, "approval ask;"))
		return;
	int v = setting_value(c, item, ir_approval_names, IR_APPROVAL_COUNT);
	if (v < 0)
		return;
	const struct ast *value = item->u.item.value;
	unsigned timeout = IR_CONSOLE_TIMEOUT_DEFAULT;
	if (value && v != IR_APPROVAL_CONSOLE) {
		ERR(c, &value->loc, "syntax", "only 'approval console' takes a time, not 'approval %s'",
		    ir_approval_names[v]);
		return;
	}
	if (value && !(timeout = console_timeout(c, value)))
		return;
	if (!setting_once(c, item, &s->has_approval, &s->approval_loc))
		return;
	s->approval = (enum ir_approval)v;
	s->approval_timeout = v == IR_APPROVAL_CONSOLE ? timeout : 0;
}

static void check_setting(struct checker *c, struct scope *s, const struct ast *item,
			  enum setting which)
{
	const char *name = setting_names[which];
	const struct ast *word = item->u.item.word;

	if (!s->name && which != SET_PROTECT) {
		ERR(c, &item->loc, "syntax", "'%s' belongs inside a preset", name);
		return;
	}
	switch (which) {
	case SET_DESCRIPTION:
		if (item->u.item.patterns.n != 1 || word ||
		    item->u.item.patterns.head->u.seq.n != 1 ||
		    item->u.item.patterns.head->u.seq.head->kind != AST_STRING) {
			ERR(c, &item->loc, "syntax", "write 'description \"text\";'");
			return;
		}
		if (!setting_once(c, item, &s->has_description, &s->description_loc))
			return;
		s->description = ck_decode_string(c, item->u.item.patterns.head->u.seq.head, true);
		return;
	case SET_APPROVAL:
		check_approval(c, s, item);
		return;
	case SET_SANDBOX: {
		_Static_assert(IR_SANDBOX_COUNT == 2, "the hint below names two values");
		if (!only_word(c, item, "sandbox required;"))
			return;
		int v = setting_value(c, item, ir_sandbox_names, IR_SANDBOX_COUNT);
		if (v >= 0 && setting_once(c, item, &s->has_sandbox, &s->sandbox_loc))
			s->sandbox = (enum ir_sandbox)v;
		return;
	}
	case SET_PROTECT:
		if (!item->u.item.patterns.n || word) {
			ERR(c, &item->loc, "syntax", "write 'protect \"/path\", ...;'");
			return;
		}
		for (const struct ast *p = item->u.item.patterns.head; p; p = p->next)
			ck_lower_pattern(c, IR_PROTECT, p, add_protect, s);
		return;
	case SET_UNPROTECT:
		if (word) {
			ERR(c, &item->loc, "syntax", "write 'unprotect;' or 'unprotect \"/path\";'");
			return;
		}
		if (!item->u.item.patterns.n)
			s->unprotect_all = true;
		for (const struct ast *p = item->u.item.patterns.head; p; p = p->next)
			ck_lower_pattern(c, IR_PROTECT, p, add_unprotect, s);
		return;
	case SET_COUNT:
		break;
	}
}

/* redact "name" /regex/;  -- top level only; a later one of the same name
 * replaces the earlier in place, so an administrator can tighten a shipped
 * pattern without reordering. */
static void check_redact(struct checker *c, struct scope *s, const struct ast *item)
{
	const struct ast *pat = item->u.item.patterns.head;
	const struct ast *name_tok, *re_tok;
	char *name, *re;

	if (s->name) {
		ERR(c, &item->loc, "syntax", "'redact' belongs at the top level, not inside a preset");
		return;
	}
	if (item->u.item.patterns.n != 1 || item->u.item.word || pat->u.seq.n != 2 ||
	    pat->u.seq.head->kind != AST_STRING || pat->u.seq.head->next->kind != AST_REGEX) {
		struct diag *d = ERR(c, &item->loc, "syntax", "write 'redact \"name\" /regex/;'");
		diag_hint(d, "a redaction is a name and one regex; its matches become [REDACTED:name]");
		return;
	}
	name_tok = pat->u.seq.head;
	re_tok = name_tok->next;
	name = ck_decode_string(c, name_tok, false);
	re = ck_decode_regex(c, re_tok);
	if (name && (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyz"
					   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != strlen(name))) {
		ERR(c, &name_tok->loc, "bad-value",
		    "redaction name '%s' must be letters, digits, '-', '_' or '.'", name);
		free(name);
		name = NULL;
	}
	if (!name || !re) {
		free(name);
		free(re);
		return;
	}
	for (size_t i = 0; i < c->ir->nredacts; i++) {
		struct ir_redact *r = &c->ir->redacts[i];
		if (strcmp(r->name, name) == 0) {
			free(r->regex);
			r->regex = re;
			r->origin = item->loc;
			free(name);
			return;
		}
	}
	struct ir_redact r = { name, re, item->loc };
	VEC_PUSH(c->ir->redacts, c->ir->nredacts, c->ir->redacts_cap, r);
}

/* lower_layers allow|deny;  -- top level only: whether a policy may be
 * layered under this one when it is the managed layer (docs/fleet.md). */
static void check_lower_layers(struct checker *c, struct scope *s, const struct ast *item)
{
	const struct ast *word = item->u.item.word;
	if (s->name) {
		ERR(c, &item->loc, "syntax",
		    "'lower_layers' belongs at the top level, not inside a preset");
		return;
	}
	if (item->u.item.patterns.n || !word ||
	    (strcmp(word->u.tok.text, "allow") != 0 && strcmp(word->u.tok.text, "deny") != 0)) {
		struct diag *d = ERR(c, &item->loc, "syntax", "write 'lower_layers allow;' or "
							       "'lower_layers deny;'");
		diag_hint(d, "deny: no policy may be layered under this one when it is the "
			     "managed layer");
		return;
	}
	if (c->ir->lower_layers_set) {
		struct diag *d = ERR(c, &item->loc, "duplicate-setting",
				     "'lower_layers' is set twice");
		diag_note(d, c->ir->lower_layers_loc, "first set here");
		return;
	}
	c->ir->lower_layers_set = true;
	c->ir->lower_layers_denied = strcmp(word->u.tok.text, "deny") == 0;
	c->ir->lower_layers_loc = item->loc;
}

static void check_item(struct checker *c, struct scope *s, const struct ast *item)
{
	const char *name = item->u.item.name->u.tok.text;
	int op = ck_lookup(name, ir_op_names, IR_OP_COUNT);
	int setting = ck_lookup(name, setting_names, ARRAY_SIZE(setting_names));
	if (item->u.item.mod && op < 0 && (setting >= 0 || strcmp(name, "redact") == 0)) {
		ERR(c, &item->u.item.mod->loc, "syntax",
		    "'%s' modifies the path of a read or write rule, not '%s'",
		    item->u.item.mod->u.tok.text, name);
		return;
	}
	if (item->u.item.value && setting != SET_APPROVAL) {
		ERR(c, &item->u.item.value->loc, "syntax",
		    "only 'approval console' takes a time, not '%s'", name);
		return;
	}
	if (op >= 0) {
		check_rule(c, s, item, (enum ir_op)op);
	} else if (setting >= 0) {
		check_setting(c, s, item, (enum setting)setting);
	} else if (strcmp(name, "redact") == 0) {
		check_redact(c, s, item);
	} else if (strcmp(name, "lower_layers") == 0) {
		check_lower_layers(c, s, item);
	} else {
		static const char *const statements[] = {
			"include", "let", "preset", "test", "default", "env", "cordon", "redact",
			"lower_layers",
		};
		const char *words[IR_OP_COUNT + SET_COUNT + ARRAY_SIZE(statements)];
		size_t n = 0;
		for (size_t i = 0; i < IR_OP_COUNT; i++)
			words[n++] = ir_op_names[i];
		for (size_t i = 0; i < SET_COUNT; i++)
			words[n++] = setting_names[i];
		for (size_t i = 0; i < ARRAY_SIZE(statements); i++)
			words[n++] = statements[i];
		struct diag *d = ERR(c, &item->u.item.name->loc, "unknown-operation",
				     "unknown operation or setting '%s'", name);
		ck_hint_closest(d, name, words, n);
		if (d && !d->hint) {
			struct strbuf ops;
			sb_init(&ops);
			sb_add_words(&ops, ir_op_names, IR_OP_COUNT, " and ");
			diag_hint(d, "operations are %s", ops.buf);
			sb_free(&ops);
		}
	}
}

/* ---- env ---------------------------------------------------------------- */

static bool valid_env_name(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '*' || *s == '?'))
			return false;
	return true;
}

static char *env_name(struct checker *c, const struct ast *n)
{
	char *s = n->kind == AST_STRING ? ck_decode_string(c, n, false) : xstrdup(n->u.tok.text);
	if (s && !valid_env_name(s)) {
		ERR(c, &n->loc, "bad-value", "'%s' is not an environment variable name or glob", s);
		free(s);
		return NULL;
	}
	return s;
}

/* Does file a include file b, directly or through other files? */
static bool file_includes(const struct srcmgr *sm, uint32_t a, uint32_t b)
{
	const struct src_file *f = srcmgr_file(sm, b);
	for (size_t depth = 0; f && f->has_include && depth <= sm->n; depth++) {
		if (f->include_loc.file == a)
			return true;
		f = srcmgr_file(sm, f->include_loc.file);
	}
	return false;
}

/* A name, glob or regex on variable names (drop, secret, code). */
static bool env_pattern(struct checker *c, const struct ast *n, struct ir_pattern *p)
{
	memset(p, 0, sizeof(*p));
	if (n->kind == AST_REGEX) {
		p->kind = IR_PAT_REGEX;
		p->regex = ck_decode_regex(c, n);
	} else {
		p->text = env_name(c, n);
		p->kind = p->text && ck_has_wildcard(p->text) ? IR_PAT_GLOB : IR_PAT_LITERAL;
	}
	return p->text || p->regex;
}

/* `secret /TOKEN|KEY/, NAME;` and `code PATH, LD_PRELOAD;`: the names the
 * shell analysis judges (command_env.c). */
static void check_env_list(struct checker *c, struct ir_env *e, const struct ast *it)
{
	static const char *const words[] = { "secret", "code" };
	const char *w = it->u.item.name->u.tok.text;
	bool secret = strcmp(w, words[0]) == 0;
	if (!secret && strcmp(w, words[1]) != 0) {
		struct diag *d = ERR(c, &it->u.item.name->loc, "unknown-operation",
				     "unknown item '%s' in an env block", w);
		const char *best = closest_word(w, words, 2);
		diag_hint(d, best ? "did you mean '%s'?" : "%s",
			  best ? best : "items: keep, set, drop, secret, code");
		return;
	}
	for (const struct ast *n = it->u.item.patterns.head; n; n = n->next) {
		struct ir_pattern p;
		if (!env_pattern(c, n, &p))
			continue;
		if (secret)
			VEC_PUSH(e->secret, e->nsecret, e->secret_cap, p);
		else
			VEC_PUSH(e->code, e->ncode, e->code_cap, p);
	}
}

static void check_env(struct checker *c, struct scope *s, const struct ast *env)
{
	struct ir_env *e = &s->env;
	for (const struct ast *it = env->u.seq.head; it; it = it->next) {
		if (it->kind == AST_ENV_LIST) {
			check_env_list(c, e, it);
			continue;
		}
		for (const struct ast *n = it->u.seq.head; n; n = n->next) {
			if (it->kind == AST_ENV_KEEP) {
				char *name;
				if (n->kind == AST_REGEX) {
					ERR(c, &n->loc, "bad-value", "'keep' takes names or globs; regexes belong to 'drop'");
					continue;
				}
				if ((name = env_name(c, n)))
					VEC_PUSH(e->keep, e->nkeep, e->keep_cap, name);
			} else if (it->kind == AST_ENV_DROP) {
				struct ir_pattern p;
				if (env_pattern(c, n, &p))
					VEC_PUSH(e->drop, e->ndrop, e->drop_cap, p);
			} else {
				const char *name = n->u.bind.name->u.tok.text;
				const struct ast *v = n->u.bind.value;
				char *value;
				bool dup = false;
				struct ir_env_set *replaced = NULL;
				for (size_t i = 0; i < e->nset; i++) {
					if (strcmp(e->set[i].name, name) != 0)
						continue;
					/* The including file's value wins over an included one's. */
					if (file_includes(c->sm, n->loc.file, e->set[i].origin.file)) {
						replaced = &e->set[i];
					} else if (file_includes(c->sm, e->set[i].origin.file, n->loc.file)) {
						dup = true;
					} else {
						struct diag *d = ERR(c, &n->loc, "duplicate-setting",
								     "'%s' is set twice", name);
						diag_note(d, e->set[i].origin, "first set here");
						dup = true;
					}
				}
				if (dup)
					continue;
				if (v->kind == AST_VAR) {
					int ctx = ir_ctx_var_lookup(v->u.tok.text, v->u.tok.len);
					struct let_var *lv = ck_let_find(c, v->u.tok.text, v->u.tok.len);
					if (lv)
						lv->used = true;
					if (lv && !lv->is_list) {
						if (!lv->n)
							continue; /* its own error was reported */
						value = xstrdup(lv->values[0]);
					} else if (ctx >= 0) {
						value = xasprintf("%c%s%c", IR_VAR_OPEN, v->u.tok.text, IR_VAR_CLOSE);
					} else {
						struct diag *d = ERR(c, &v->loc, lv ? "bad-value" : "undefined-variable",
								     lv ? "list variable '%s' cannot be an environment value" : "undefined variable '%s'",
								     v->u.tok.text);
						if (!lv)
							ck_hint_variable(c, d, v->u.tok.text);
						continue;
					}
				} else if (!(value = ck_decode_string(c, v, true))) {
					continue;
				}
				if (replaced) {
					free(replaced->value);
					replaced->value = value;
					replaced->origin = n->loc;
					continue;
				}
				struct ir_env_set set = { xstrdup(name), value, n->loc };
				VEC_PUSH(e->set, e->nset, e->set_cap, set);
			}
		}
	}
}

/* ---- statements --------------------------------------------------------- */

static void check_let(struct checker *c, const struct ast *let)
{
	const struct ast *name = let->u.bind.name, *value = let->u.bind.value;
	struct let_var *prev = ck_let_find(c, name->u.tok.text, name->u.tok.len);
	struct let_var lv = { .name = name->u.tok.text, .loc = name->loc };

	if (ir_ctx_var_lookup(name->u.tok.text, name->u.tok.len) >= 0) {
		ERR(c, &name->loc, "redefined-variable",
		    "'%s' is a context variable; a let cannot redefine it", name->u.tok.text);
		return;
	}
	if (prev) {
		struct diag *d = ERR(c, &name->loc, "redefined-variable",
				     "variable '%s' is already defined", name->u.tok.text);
		diag_note(d, prev->loc, "first defined here");
		return;
	}
	lv.is_list = value->kind == AST_LIST;
	const struct ast *first = lv.is_list ? value->u.seq.head : value;
	for (const struct ast *s = first; s; s = lv.is_list ? s->next : NULL) {
		char *text = ck_decode_string(c, s, true);
		if (!text)
			continue;
		VEC_PUSH(lv.values, lv.n, lv.cap, text);
	}
	VEC_PUSH(c->lets, c->nlets, c->lets_cap, lv);
}

struct scope *ck_find_scope(struct checker *c, const char *name)
{
	for (size_t i = 0; i < c->npresets; i++)
		if (strcmp(c->presets[i]->name, name) == 0)
			return c->presets[i];
	return NULL;
}

static void check_preset(struct checker *c, struct ast *node)
{
	char *name = ck_decode_string(c, node->u.block.name, false);
	struct scope *prev;
	if (!name)
		return;
	if (!*name) {
		ERR(c, &node->u.block.name->loc, "bad-value", "a preset needs a name");
		free(name);
		return;
	}
	if ((prev = ck_find_scope(c, name))) {
		struct diag *d = ERR(c, &node->u.block.name->loc, "duplicate-preset",
				     "preset '%s' is defined twice", name);
		diag_note(d, prev->node->u.block.name->loc, "first defined here");
		free(name);
		return;
	}
	struct scope *s = xcalloc(1, sizeof(*s));
	s->name = name;
	s->node = node;
	if (node->u.block.parent) {
		s->parent = ck_decode_string(c, node->u.block.parent, false);
		s->parent_loc = node->u.block.parent->loc;
	}
	VEC_PUSH(c->presets, c->npresets, c->presets_cap, s);
	for (const struct ast *it = node->u.block.body.head; it; it = it->next) {
		if (it->kind == AST_ENV)
			check_env(c, s, it);
		else if (it->kind == AST_LIMITS)
			check_limits(c->d, it, true, s->limits);
		else
			check_item(c, s, it);
	}
}

/* Walk the statements of one file and of what it includes. */
static void walk_lets(struct checker *c, const struct ast *file)
{
	for (const struct ast *s = file->u.seq.head; s; s = s->next) {
		if (s->kind == AST_LET)
			check_let(c, s);
		else if (s->kind == AST_INCLUDE && s->u.one.included)
			walk_lets(c, s->u.one.included);
	}
}

static void check_version(struct checker *c, const struct ast *file)
{
	const struct ast *first = file->u.seq.head;
	bool seen = false;
	const struct src_file *src = srcmgr_file(c->sm, file->loc.file);
	if (src && src->rejected)
		return;
	for (const struct ast *s = first; s; s = s->next) {
		if (s->kind != AST_VERSION)
			continue;
		const char *num = s->u.one.value->u.tok.text;
		if (s != first) {
			ERR(c, &s->loc, "version", "'cordon %s;' must be the first statement of the file", num);
		} else if (strcmp(num, "1") != 0) {
			struct diag *d = ERR(c, &s->u.one.value->loc, "version",
					     "unsupported language version %s", num);
			diag_hint(d, "this cordon reads version %d", CORDON_LANGUAGE_VERSION);
		}
		seen = true;
	}
	if (!seen) {
		struct loc at = { file->loc.file, 0, 0 };
		const struct src_file *f = srcmgr_file(c->sm, file->loc.file);
		if (first)
			at.start = at.end = first->loc.start;
		else if (f && f->len)
			at.end = 1;
		struct diag *d = ERR(c, &at, "version", "missing language version");
		diag_hint(d, "a policy file starts with 'cordon %d;'", CORDON_LANGUAGE_VERSION);
	}
}

/* Check a file's statements and, in place, those of the files it includes.
 * Returns the `default` statement that holds for the file: its own, which
 * overrides any of the files it includes, or else the one its includes
 * agree on (two included files that each set one are an error). */
static struct ast *walk_statements(struct checker *c, const struct ast *file)
{
	struct ast *own = NULL, *included = NULL;
	check_version(c, file);
	for (struct ast *s = file->u.seq.head; s; s = s->next) {
		switch (s->kind) {
		case AST_INCLUDE: {
			struct ast *d = s->u.one.included ? walk_statements(c, s->u.one.included) : NULL;
			if (d && included) {
				struct diag *e = ERR(c, &s->loc, "duplicate-setting",
						     "two included files set the default preset");
				diag_note(e, included->loc, "the other is set here");
				diag_hint(e, "set 'default' in this file: it overrides the included ones");
			} else if (d) {
				included = d;
			}
			break;
		}
		case AST_ITEM:
			check_item(c, &c->global, s);
			break;
		case AST_ENV:
			check_env(c, &c->global, s);
			break;
		case AST_LIMITS:
			check_limits(c->d, s, false, c->global.limits);
			break;
		case AST_PRESET:
			check_preset(c, s);
			break;
		case AST_TEST:
			VEC_PUSH(c->tests, c->ntests, c->tests_cap, s);
			break;
		case AST_ASSERT:
			VEC_PUSH(c->asserts, c->nasserts, c->asserts_cap, s);
			break;
		case AST_PROGRAM:
			check_program(c->d, c->ir, s);
			break;
		case AST_DEFAULT:
			if (own) {
				struct diag *d = ERR(c, &s->loc, "duplicate-setting",
						     "the default preset is set twice");
				diag_note(d, own->loc, "first set here");
			} else {
				own = s;
			}
			break;
		default:
			break;
		}
	}
	return own ? own : included;
}

static void scope_free(struct scope *s)
{
	for (size_t i = 0; i < s->nrules; i++) {
		free(s->rules[i].pat.text);
		free(s->rules[i].pat.regex);
		free(s->rules[i].reason);
		free(s->rules[i].from);
	}
	free(s->rules);
	for (size_t i = 0; i < s->nprotect; i++) {
		free(s->protect[i].pat.text);
		free(s->protect[i].pat.regex);
		free(s->protect[i].from);
	}
	free(s->protect);
	for (size_t i = 0; i < s->nunprotect; i++) {
		free(s->unprotect[i].pat.text);
		free(s->unprotect[i].pat.regex);
	}
	free(s->unprotect);
	ir_env_free(&s->env);
	free(s->description);
	free((char *)s->parent);
}

size_t check_policy(struct srcmgr *sm, struct diag_list *diags, struct ast *root,
		    struct ir_policy *ir)
{
	struct checker c = { .sm = sm, .d = diags, .ir = ir };
	size_t before = diags->nerrors;

	memset(ir, 0, sizeof(*ir));
	walk_lets(&c, root);
	c.default_node = walk_statements(&c, root);
	check_programs_done(ir);

	/* Presets: ck_flatten each, then add the top-level rules. */
	ir->presets = xcalloc(c.npresets ? c.npresets : 1, sizeof(*ir->presets));
	ir->npresets = ir->presets_cap = c.npresets;
	for (size_t i = 0; i < c.npresets; i++)
		c.presets[i]->out = &ir->presets[i];
	struct scope **chain = xcalloc(c.npresets + 1, sizeof(*chain));
	for (size_t i = 0; i < c.npresets; i++)
		ck_flatten(&c, c.presets[i], chain, 0);
	free(chain);
	for (size_t i = 0; i < c.npresets; i++) {
		struct ir_preset *p = &ir->presets[i];
		if (!p->name) /* part of a cycle */
			p->name = xstrdup(c.presets[i]->name);
		ck_append_rules(p, c.global.rules, c.global.nrules, 0);
		ck_canonicalize(p);
	}
	for (size_t i = 0; i < c.ntests; i++)
		ck_test_block(&c, c.tests[i]);
	if (c.default_node) {
		ck_preset_ref(&c, c.default_node->u.one.value, "default", &ir->default_preset);
		ir->default_loc = c.default_node->loc;
	}
	sort_items(ir->presets, ir->npresets, sizeof(*ir->presets), ck_preset_cmp);

	/* Assertions hold over the finished presets; a policy with errors has
	 * no finished presets to hold them over. */
	struct check_assert *asserts = xcalloc(c.nasserts + 1, sizeof(*asserts));
	size_t nasserts = 0;
	bool sound = diags->nerrors == before;
	for (size_t i = 0; i < c.nasserts; i++)
		if (ck_assert_node(&c, c.asserts[i], &asserts[nasserts]))
			nasserts++;
		else
			check_assert_free(&asserts[nasserts]);
	if (sound && diags->nerrors == before)
		check_asserts(diags, ir, asserts, nasserts);
	for (size_t i = 0; i < nasserts; i++)
		check_assert_free(&asserts[i]);
	free(asserts);
	free(c.asserts);

	for (size_t i = 0; i < c.npresets; i++) {
		scope_free(c.presets[i]);
		free((char *)c.presets[i]->name);
		free(c.presets[i]);
	}
	free(c.presets);
	c.global.name = NULL;
	scope_free(&c.global);
	for (size_t i = 0; i < c.nlets; i++) {
		struct ir_let l = { xstrdup(c.lets[i].name), c.lets[i].loc, c.lets[i].used };
		VEC_PUSH(ir->lets, ir->nlets, ir->lets_cap, l);
		for (size_t j = 0; j < c.lets[i].n; j++)
			free(c.lets[i].values[j]);
		free(c.lets[i].values);
	}
	free(c.lets);
	free(c.tests);
	return diags->nerrors - before;
}
