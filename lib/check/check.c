#include "config.h"

#include "check.h"
#include "lang/literal.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#define GLOBAL_TIER 1000u

struct let_var {
	const char *name;
	struct loc loc;
	bool is_list;
	char **values;  /* IR text */
	struct loc *locs;
	size_t n, cap, locs_cap;
	bool used;
};

/* A rule, protection or environment piece before flattening. */
struct scope {
	const char *name;      /* preset name, NULL at top level */
	struct ast *node;
	const char *parent;
	struct loc parent_loc;
	bool has_description, has_approval, has_sandbox;
	struct loc description_loc, approval_loc, sandbox_loc;
	char *description;
	enum ir_approval approval;
	enum ir_sandbox sandbox;
	struct ir_rule *rules;
	size_t nrules, rules_cap;
	struct ir_protect *protect;
	size_t nprotect, protect_cap;
	bool unprotect_all;
	struct ir_protect *unprotect; /* one pattern each */
	size_t nunprotect, unprotect_cap;
	struct ir_env env;
	struct ir_limit_value limits[IR_LIMIT_COUNT];
	enum { FLAT_NEW, FLAT_IN_PROGRESS, FLAT_DONE } state; /* flattening */
	struct ir_preset *out;
};

struct checker {
	struct srcmgr *sm;
	struct diag_list *d;
	struct ir_policy *ir;
	struct let_var *lets;
	size_t nlets, lets_cap;
	struct scope global;
	struct scope **presets;
	size_t npresets, presets_cap;
	struct ast **tests;
	size_t ntests, tests_cap;
	struct ast **asserts;
	size_t nasserts, asserts_cap;
	struct ast *default_node;
};

/* The settings of a preset; protect is also one of the top level. */
enum setting { SET_DESCRIPTION, SET_APPROVAL, SET_SANDBOX, SET_PROTECT, SET_UNPROTECT, SET_COUNT };
static const char *const setting_names[SET_COUNT] = {
	[SET_DESCRIPTION] = "description", [SET_APPROVAL] = "approval",
	[SET_SANDBOX] = "sandbox",	   [SET_PROTECT] = "protect",
	[SET_UNPROTECT] = "unprotect",
};

#define ERR(c, locp, id, ...) diag_add((c)->d, DIAG_ERROR, (locp), (id), __VA_ARGS__)

static int lookup(const char *word, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(word, names[i]) == 0)
			return (int)i;
	return -1;
}

static void hint_closest(struct diag *d, const char *word, const char *const *names, size_t n)
{
	const char *best = closest_word(word, names, n);
	if (best)
		diag_hint(d, "did you mean '%s'?", best);
}

static struct let_var *let_find(struct checker *c, const char *name, size_t len)
{
	for (size_t i = 0; i < c->nlets; i++)
		if (strlen(c->lets[i].name) == len && memcmp(c->lets[i].name, name, len) == 0)
			return &c->lets[i];
	return NULL;
}

static void hint_variable(struct checker *c, struct diag *d, const char *name)
{
	const char **names = xcalloc(c->nlets + CTX_COUNT, sizeof(*names));
	size_t n = 0;
	for (size_t i = 0; i < c->nlets; i++)
		names[n++] = c->lets[i].name;
	for (size_t i = 0; i < CTX_COUNT; i++)
		names[n++] = ir_ctx_var_names[i];
	hint_closest(d, name, names, n);
	free(names);
}

static void scope_free(struct scope *s);

/* ---- strings ------------------------------------------------------------ */

/* What ${name} stands for in a string: a let string's value or a context
 * variable (kept as a reference the evaluator fills in). */
static bool string_var(void *arg, struct strbuf *sb, const char *name, size_t nlen, struct loc at)
{
	struct checker *c = arg;
	struct let_var *lv = let_find(c, name, nlen);
	if (lv)
		lv->used = true;
	int ctx = ir_ctx_var_lookup(name, nlen);
	if (lv && !lv->is_list) {
		/* A let whose own value was in error has none: that error
		 * was reported where the let is. */
		if (!lv->n)
			return false;
		sb_adds(sb, lv->values[0]);
	} else if (lv) {
		struct diag *d = ERR(c, &at, "bad-value",
				     "list variable '%.*s' cannot be used inside a string",
				     (int)nlen, name);
		diag_hint(d, "write $%.*s as a pattern of its own", (int)nlen, name);
		return false;
	} else if (ctx >= 0) {
		sb_addc(sb, IR_VAR_OPEN);
		sb_add(sb, name, nlen);
		sb_addc(sb, IR_VAR_CLOSE);
	} else {
		char *n = xstrndup(name, nlen);
		struct diag *d = ERR(c, &at, "undefined-variable", "undefined variable '%s'", n);
		hint_variable(c, d, n);
		free(n);
		return false;
	}
	return true;
}

/* Decode a string token into IR text.  With vars, ${name} refers to a let
 * string or a context variable; otherwise '$' is literal.  Returns NULL
 * after reporting an error. */
static char *decode_string(struct checker *c, const struct ast *s, bool vars)
{
	return lit_string(c->d, s, vars ? string_var : NULL, c);
}

/* ---- patterns ----------------------------------------------------------- */

/* Check a regex with pcre2; point an error at its offset in the literal. */
static char *decode_regex(struct checker *c, const struct ast *r)
{
	size_t len = r->u.tok.len;
	size_t *map = xcalloc(len + 1, sizeof(*map));
	int errcode;
	PCRE2_SIZE erroff;
	pcre2_code *code;

	if (len == 0) {
		ERR(c, &r->loc, "bad-regex", "empty regex");
		free(map);
		return NULL;
	}
	char *re = lit_regex(r, map);
	size_t relen = strlen(re);
	code = pcre2_compile((PCRE2_SPTR)re, relen, 0, &errcode, &erroff, NULL);
	if (!code) {
		PCRE2_UCHAR msg[256];
		size_t at_raw = map[erroff <= relen ? erroff : relen];
		struct loc at = lit_sub_loc(r->loc, 1 + at_raw, 2 + at_raw);
		if (at.end > r->loc.end - 1)
			at.start = at.end = r->loc.end - 1;
		pcre2_get_error_message(errcode, msg, sizeof(msg));
		ERR(c, &at, "bad-regex", "invalid regex: %s", (const char *)msg);
		free(map);
		free(re);
		return NULL;
	}
	pcre2_code_free(code);
	free(map);
	return re;
}

static bool has_wildcard(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Expand ~, require an absolute start, normalise separators.  Takes text. */
static char *normalize_path(struct checker *c, char *text, struct loc at)
{
	struct strbuf sb;
	const char *p = text;
	sb_init(&sb);
	if (p[0] == '~' && (p[1] == '\0' || p[1] == '/')) {
		sb_addc(&sb, IR_VAR_OPEN);
		sb_adds(&sb, "home");
		sb_addc(&sb, IR_VAR_CLOSE);
		p++;
	} else if (p[0] == '~') {
		ERR(c, &at, "relative-path", "'~user' paths are not supported; write the absolute path");
		goto fail;
	} else if (p[0] == IR_VAR_OPEN) {
		const char *close = strchr(p, IR_VAR_CLOSE);
		int var = ir_ctx_var_lookup(p + 1, (size_t)(close - p - 1));
		if (var < 0 || !ir_ctx_var_is_path(var)) {
			struct strbuf shown;
			sb_init(&shown);
			ir_text_print(&shown, text);
			ERR(c, &at, "relative-path",
			    "path pattern '%s' is not absolute: '${%s}' is not a directory",
			    shown.buf, var >= 0 ? ir_ctx_var_names[var] : "?");
			sb_free(&shown);
			goto fail;
		}
		sb_add(&sb, p, (size_t)(close - p + 1));
		p = close + 1;
		/* "${home}.bak": the text continues the variable's last component. */
		while (*p && *p != '/')
			sb_addc(&sb, *p++);
	} else if (p[0] != '/') {
		struct strbuf shown;
		sb_init(&shown);
		ir_text_print(&shown, text);
		struct diag *d = ERR(c, &at, "relative-path", "path pattern '%s' is not absolute",
				     shown.buf);
		diag_hint(d, "start it with '/', '~' or a directory variable such as '${workspace}'");
		sb_free(&shown);
		goto fail;
	}
	/* Components: drop empty ones, refuse '.' and '..'. */
	const char *seg;
	size_t n;
	while ((seg = path_next_component(&p, &n))) {
		if ((n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.')) {
			ERR(c, &at, "relative-path",
			    "path pattern contains a '%.*s' component; write the canonical path",
			    (int)n, seg);
			goto fail;
		}
		sb_addc(&sb, '/');
		sb_add(&sb, seg, n);
	}
	if (sb.len == 0)
		sb_addc(&sb, '/');
	free(text);
	return sb_steal(&sb);
fail:
	free(text);
	sb_free(&sb);
	return NULL;
}

static char *normalize_command(char *text)
{
	struct strbuf sb;
	sb_init(&sb);
	for (const char *p = text; *p;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		if (sb.len)
			sb_addc(&sb, ' ');
		while (*p && *p != ' ' && *p != '\t')
			sb_addc(&sb, *p++);
	}
	free(text);
	return sb_steal(&sb);
}

static bool check_host(struct checker *c, char *text, struct loc at)
{
	char *port = NULL;
	if (!*text || strpbrk(text, " \t/@")) {
		ERR(c, &at, "bad-value", "'%s' is not a host pattern (host, *.domain or host:port)",
		    text);
		return false;
	}
	for (char *p = text; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	if (text[0] == '[') {
		char *close = strchr(text, ']');
		if (!close || (close[1] && close[1] != ':')) {
			ERR(c, &at, "bad-value", "'%s' is not a host pattern: write an IPv6 address as [addr] or [addr]:port", text);
			return false;
		}
		port = close[1] ? close + 2 : NULL;
	} else {
		char *colon = strchr(text, ':');
		if (colon && !strchr(colon + 1, ':'))
			port = colon + 1; /* one colon: host:port; more: a bare IPv6 address */
	}
	if (port && strcmp(port, "*") != 0) {
		char *end;
		long n = strtol(port, &end, 10);
		if (*end || end == port || n < 1 || n > 65535) {
			ERR(c, &at, "bad-value", "'%s' is not a port (1-65535 or *)", port);
			return false;
		}
	}
	return true;
}

/* Finish one textual pattern of operation op. */
static bool finish_text(struct checker *c, enum ir_op op, char *text, struct loc at,
			struct ir_pattern *out)
{
	if (ir_op_on_paths(op)) {
		text = normalize_path(c, text, at);
		if (!text)
			return false;
	} else if (op == IR_EXEC) {
		text = normalize_command(text);
		if (!*text) {
			ERR(c, &at, "bad-value", "an exec pattern needs a command (\"*\" for any)");
			free(text);
			return false;
		}
	} else if (op == IR_NET) {
		if (!check_host(c, text, at)) {
			free(text);
			return false;
		}
	} else if (!*text || strpbrk(text, " \t")) {
		ERR(c, &at, "bad-value", "'%s' is not a tool name pattern", text);
		free(text);
		return false;
	}
	out->kind = (op == IR_NET ? strpbrk(text, "*?") != NULL : has_wildcard(text)) ? IR_PAT_GLOB
										     : IR_PAT_LITERAL;
	out->text = text;
	out->regex = NULL;
	return true;
}

typedef void (*pattern_sink)(struct checker *c, void *arg, struct ir_pattern pat, struct loc at);

/* Turn one AST pattern into IR patterns (a list variable gives several). */
static void lower_pattern(struct checker *c, enum ir_op op, const struct ast *pat,
			  pattern_sink sink, void *arg)
{
	const struct ast *a = pat->u.seq.head;
	struct ir_pattern out = { 0 };

	if (op == IR_EXEC && pat->u.seq.n == 2 && a->kind != AST_REGEX &&
	    a->next->kind == AST_REGEX) {
		/* A command prefix narrowed by a regex. */
		char *text = a->kind == AST_STRING ? decode_string(c, a, true) : NULL;
		char *re = decode_regex(c, a->next);
		if (a->kind != AST_STRING)
			ERR(c, &a->loc, "bad-value", "an exec prefix must be a string");
		if (text && re) {
			/* finish_text takes the text, whatever it decides. */
			if (finish_text(c, op, text, a->loc, &out)) {
				out.regex = re;
				sink(c, arg, out, pat->loc);
				return;
			}
		} else {
			free(text);
		}
		free(re);
		return;
	}
	if (pat->u.seq.n != 1) {
		struct diag *d = ERR(c, &pat->loc, "syntax",
				     op == IR_EXEC ? "an exec pattern is a command, a regex, or a command followed by a regex"
						   : "a pattern is one string, regex or variable");
		diag_hint(d, "separate alternatives with ','");
		return;
	}
	switch (a->kind) {
	case AST_STRING: {
		char *text = decode_string(c, a, true);
		if (text && finish_text(c, op, text, a->loc, &out))
			sink(c, arg, out, a->loc);
		break;
	}
	case AST_REGEX: {
		char *re = decode_regex(c, a);
		if (re) {
			out.kind = IR_PAT_REGEX;
			out.regex = re;
			sink(c, arg, out, a->loc);
		}
		break;
	}
	case AST_IDENT:
		if (op == IR_EXEC && strcmp(a->u.tok.text, "opaque") == 0) {
			out.kind = IR_PAT_OPAQUE;
			sink(c, arg, out, a->loc);
		} else {
			struct diag *d = ERR(c, &a->loc, "syntax", "'%s' is not a pattern", a->u.tok.text);
			diag_hint(d, op == IR_EXEC ? "write a string, a regex, or the word opaque"
						   : "write a string or a regex");
		}
		break;
	case AST_VAR: {
		const char *name = a->u.tok.text;
		struct let_var *lv = let_find(c, name, a->u.tok.len);
		if (lv)
			lv->used = true;
		int ctx = ir_ctx_var_lookup(name, a->u.tok.len);
		if (lv) {
			for (size_t i = 0; i < lv->n; i++) {
				struct ir_pattern each = { 0 };
				if (finish_text(c, op, xstrdup(lv->values[i]), a->loc, &each))
					sink(c, arg, each, a->loc);
			}
		} else if (ctx >= 0) {
			if (finish_text(c, op, xasprintf("%c%s%c", IR_VAR_OPEN, name, IR_VAR_CLOSE),
					a->loc, &out))
				sink(c, arg, out, a->loc);
		} else {
			struct diag *d = ERR(c, &a->loc, "undefined-variable",
					     "undefined variable '%s'", name);
			hint_variable(c, d, name);
		}
		break;
	}
	default:
		break;
	}
}

/* ---- items -------------------------------------------------------------- */

struct rule_sink_arg {
	struct scope *scope;
	enum ir_op op;
	enum ir_effect effect;
	const char *reason;
	struct loc origin;
};

static void add_rule(struct checker *c, void *varg, struct ir_pattern pat, struct loc at)
{
	struct rule_sink_arg *arg = varg;
	struct scope *s = arg->scope;
	struct ir_rule r = {
		.op = arg->op,
		.pat = pat,
		.effect = arg->effect,
		.reason = arg->reason ? xstrdup(arg->reason) : NULL,
		.origin = arg->origin,
		.from = s->name ? xstrdup(s->name) : NULL,
		.tier = s->name ? 0 : GLOBAL_TIER,
	};
	(void)c;
	(void)at;
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
	if (!word) {
		struct loc at = { item->loc.file, item->loc.end - 1, item->loc.end };
		struct diag *d = ERR(c, &at, "unknown-effect", "a %s rule needs an effect", ir_op_names[op]);
		diag_hint(d, "end the rule with allow, ask or deny");
		return;
	}
	effect = lookup(word->u.tok.text, ir_effect_names, IR_EFFECT_COUNT);
	if (effect < 0) {
		struct diag *d = ERR(c, &word->loc, "unknown-effect", "unknown effect '%s'",
				     word->u.tok.text);
		hint_closest(d, word->u.tok.text, ir_effect_names, IR_EFFECT_COUNT);
		if (d && !d->hint)
			diag_hint(d, "an effect is allow, ask or deny");
	}
	if (item->u.item.reason)
		reason = decode_string(c, item->u.item.reason, true);
	if (effect < 0) {
		/* Still check the patterns, into a scope that is thrown away. */
		struct scope discard = { .name = s->name };
		arg.scope = &discard;
		for (const struct ast *p = item->u.item.patterns.head; p; p = p->next)
			lower_pattern(c, op, p, add_rule, &arg);
		discard.name = NULL;
		scope_free(&discard);
		free(reason);
		return;
	}
	arg.effect = effect;
	arg.reason = reason;
	for (const struct ast *p = item->u.item.patterns.head; p; p = p->next)
		lower_pattern(c, op, p, add_rule, &arg);
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
		s->description = decode_string(c, item->u.item.patterns.head->u.seq.head, true);
		return;
	case SET_APPROVAL:
	case SET_SANDBOX: {
		bool approval = which == SET_APPROVAL;
		const char *const *values = approval ? ir_approval_names : ir_sandbox_names;
		_Static_assert(IR_APPROVAL_COUNT == 2 && IR_SANDBOX_COUNT == 2,
			       "the hint below names two values");
		if (!only_word(c, item, approval ? "approval ask;" : "sandbox required;"))
			return;
		size_t n = approval ? IR_APPROVAL_COUNT : IR_SANDBOX_COUNT;
		int v = lookup(word->u.tok.text, values, n);
		if (v < 0) {
			struct diag *d = ERR(c, &word->loc, "bad-value", "'%s' is not a valid %s value",
					     word->u.tok.text, name);
			hint_closest(d, word->u.tok.text, values, n);
			if (d && !d->hint)
				diag_hint(d, "%s is %s or %s", name, values[0], values[1]);
			return;
		}
		if (approval && setting_once(c, item, &s->has_approval, &s->approval_loc))
			s->approval = (enum ir_approval)v;
		if (!approval && setting_once(c, item, &s->has_sandbox, &s->sandbox_loc))
			s->sandbox = (enum ir_sandbox)v;
		return;
	}
	case SET_PROTECT:
		if (!item->u.item.patterns.n || word) {
			ERR(c, &item->loc, "syntax", "write 'protect \"/path\", ...;'");
			return;
		}
		for (const struct ast *p = item->u.item.patterns.head; p; p = p->next)
			lower_pattern(c, IR_PROTECT, p, add_protect, s);
		return;
	case SET_UNPROTECT:
		if (word) {
			ERR(c, &item->loc, "syntax", "write 'unprotect;' or 'unprotect \"/path\";'");
			return;
		}
		if (!item->u.item.patterns.n)
			s->unprotect_all = true;
		for (const struct ast *p = item->u.item.patterns.head; p; p = p->next)
			lower_pattern(c, IR_PROTECT, p, add_unprotect, s);
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
	name = decode_string(c, name_tok, false);
	re = decode_regex(c, re_tok);
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

static void check_item(struct checker *c, struct scope *s, const struct ast *item)
{
	const char *name = item->u.item.name->u.tok.text;
	int op = lookup(name, ir_op_names, IR_OP_COUNT);
	int setting = lookup(name, setting_names, ARRAY_SIZE(setting_names));
	if (op >= 0) {
		check_rule(c, s, item, (enum ir_op)op);
	} else if (setting >= 0) {
		check_setting(c, s, item, (enum setting)setting);
	} else if (strcmp(name, "redact") == 0) {
		check_redact(c, s, item);
	} else {
		static const char *const statements[] = {
			"include", "let", "preset", "test", "default", "env", "cordon", "redact",
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
		hint_closest(d, name, words, n);
		if (d && !d->hint)
			diag_hint(d, "operations are read, write, exec, net and tool");
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
	char *s = n->kind == AST_STRING ? decode_string(c, n, false) : xstrdup(n->u.tok.text);
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
		p->regex = decode_regex(c, n);
	} else {
		p->text = env_name(c, n);
		p->kind = p->text && has_wildcard(p->text) ? IR_PAT_GLOB : IR_PAT_LITERAL;
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
					struct let_var *lv = let_find(c, v->u.tok.text, v->u.tok.len);
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
							hint_variable(c, d, v->u.tok.text);
						continue;
					}
				} else if (!(value = decode_string(c, v, true))) {
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
	struct let_var *prev = let_find(c, name->u.tok.text, name->u.tok.len);
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
		char *text = decode_string(c, s, true);
		if (!text)
			continue;
		VEC_PUSH(lv.values, lv.n, lv.cap, text);
	}
	VEC_PUSH(c->lets, c->nlets, c->lets_cap, lv);
}

static struct scope *find_scope(struct checker *c, const char *name)
{
	for (size_t i = 0; i < c->npresets; i++)
		if (strcmp(c->presets[i]->name, name) == 0)
			return c->presets[i];
	return NULL;
}

static void check_preset(struct checker *c, struct ast *node)
{
	char *name = decode_string(c, node->u.block.name, false);
	struct scope *prev;
	if (!name)
		return;
	if (!*name) {
		ERR(c, &node->u.block.name->loc, "bad-value", "a preset needs a name");
		free(name);
		return;
	}
	if ((prev = find_scope(c, name))) {
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
		s->parent = decode_string(c, node->u.block.parent, false);
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

/* ---- flattening --------------------------------------------------------- */

static void copy_pattern(struct ir_pattern *dst, const struct ir_pattern *src)
{
	dst->kind = src->kind;
	dst->text = src->text ? xstrdup(src->text) : NULL;
	dst->regex = src->regex ? xstrdup(src->regex) : NULL;
}

static void append_rules(struct ir_preset *out, const struct ir_rule *rules, size_t n,
			 unsigned tier_shift)
{
	for (size_t i = 0; i < n; i++) {
		struct ir_rule r = rules[i];
		copy_pattern(&r.pat, &rules[i].pat);
		r.reason = rules[i].reason ? xstrdup(rules[i].reason) : NULL;
		r.from = rules[i].from ? xstrdup(rules[i].from) : NULL;
		if (r.tier != GLOBAL_TIER)
			r.tier += tier_shift;
		VEC_PUSH(out->rules, out->nrules, out->rules_cap, r);
	}
}

static bool same_pattern(const struct ir_pattern *a, const struct ir_pattern *b)
{
	return a->kind == b->kind && strcmp(a->text ? a->text : "", b->text ? b->text : "") == 0 &&
	       strcmp(a->regex ? a->regex : "", b->regex ? b->regex : "") == 0;
}

static void apply_protection(struct checker *c, struct ir_preset *out, const struct scope *s)
{
	if (s->unprotect_all) {
		for (size_t i = 0; i < out->nprotect; i++) {
			free(out->protect[i].pat.text);
			free(out->protect[i].pat.regex);
			free(out->protect[i].from);
		}
		out->nprotect = 0;
	}
	for (size_t u = 0; u < s->nunprotect; u++) {
		bool found = false;
		for (size_t i = 0; i < out->nprotect;) {
			if (!same_pattern(&out->protect[i].pat, &s->unprotect[u].pat)) {
				i++;
				continue;
			}
			free(out->protect[i].pat.text);
			free(out->protect[i].pat.regex);
			free(out->protect[i].from);
			memmove(&out->protect[i], &out->protect[i + 1],
				(out->nprotect - i - 1) * sizeof(out->protect[0]));
			out->nprotect--;
			found = true;
		}
		if (!found) {
			struct strbuf shown;
			sb_init(&shown);
			ir_text_print(&shown, s->unprotect[u].pat.text ? s->unprotect[u].pat.text : "");
			ERR(c, &s->unprotect[u].origin, "bad-value",
			    "nothing protected matches '%s'", shown.buf);
			sb_free(&shown);
		}
	}
	for (size_t i = 0; i < s->nprotect; i++) {
		struct ir_protect p = s->protect[i];
		copy_pattern(&p.pat, &s->protect[i].pat);
		p.from = s->protect[i].from ? xstrdup(s->protect[i].from) : NULL;
		VEC_PUSH(out->protect, out->nprotect, out->protect_cap, p);
	}
}

/* Add src's patterns that dst does not have yet. */
static void merge_patterns(struct ir_pattern **dst, size_t *n, size_t *cap,
			   const struct ir_pattern *src, size_t nsrc)
{
	for (size_t i = 0; i < nsrc; i++) {
		bool have = false;
		for (size_t j = 0; j < *n && !have; j++)
			have = same_pattern(&(*dst)[j], &src[i]);
		if (!have) {
			struct ir_pattern p;
			copy_pattern(&p, &src[i]);
			VEC_PUSH(*dst, *n, *cap, p);
		}
	}
}

static void merge_env(struct ir_env *dst, const struct ir_env *src)
{
	for (size_t i = 0; i < src->nkeep; i++) {
		bool have = false;
		for (size_t j = 0; j < dst->nkeep && !have; j++)
			have = strcmp(dst->keep[j], src->keep[i]) == 0;
		if (!have)
			VEC_PUSH(dst->keep, dst->nkeep, dst->keep_cap, xstrdup(src->keep[i]));
	}
	for (size_t i = 0; i < src->nset; i++) {
		struct ir_env_set set = { xstrdup(src->set[i].name), xstrdup(src->set[i].value),
					  src->set[i].origin };
		size_t j;
		for (j = 0; j < dst->nset; j++)
			if (strcmp(dst->set[j].name, set.name) == 0)
				break;
		if (j < dst->nset) {
			free(dst->set[j].name);
			free(dst->set[j].value);
			dst->set[j] = set;
		} else {
			VEC_PUSH(dst->set, dst->nset, dst->set_cap, set);
		}
	}
	merge_patterns(&dst->drop, &dst->ndrop, &dst->drop_cap, src->drop, src->ndrop);
	merge_patterns(&dst->secret, &dst->nsecret, &dst->secret_cap, src->secret, src->nsecret);
	merge_patterns(&dst->code, &dst->ncode, &dst->code_cap, src->code, src->ncode);
}

/* Per key, the preset's own value, else its parent's. */
static void inherit_limits(struct ir_preset *out, const struct scope *s,
			   const struct ir_preset *parent)
{
	for (int k = 0; k < IR_LIMIT_COUNT; k++) {
		const struct ir_limit_value *v = s->limits[k].set ? &s->limits[k]
						 : parent ? &parent->limits[k] : NULL;
		if (!v || !v->set)
			continue;
		out->limits[k] = *v;
		out->limits[k].from = xstrdup(s->limits[k].set ? s->name : v->from);
	}
}

/* Resolve s and its ancestors into s->out (without top-level rules). */
static bool flatten(struct checker *c, struct scope *s, struct scope **chain, size_t depth)
{
	struct scope *parent = NULL;
	struct ir_preset *out = s->out;

	if (s->state == FLAT_DONE)
		return true;
	if (s->state == FLAT_IN_PROGRESS) {
		struct strbuf sb;
		sb_init(&sb);
		for (size_t i = 0; i < depth; i++)
			sb_addf(&sb, "'%s' -> ", chain[i]->name);
		sb_addf(&sb, "'%s'", s->name);
		ERR(c, &chain[depth - 1]->parent_loc, "extends-cycle",
		    "preset inheritance forms a cycle: %s", sb.buf);
		sb_free(&sb);
		return false;
	}
	s->state = FLAT_IN_PROGRESS;
	chain[depth] = s;
	if (s->parent) {
		parent = find_scope(c, s->parent);
		if (!parent) {
			const char **names = xcalloc(c->npresets, sizeof(*names));
			for (size_t i = 0; i < c->npresets; i++)
				names[i] = c->presets[i]->name;
			struct diag *d = ERR(c, &s->parent_loc, "unknown-preset",
					     "preset '%s' extends unknown preset '%s'", s->name, s->parent);
			hint_closest(d, s->parent, names, c->npresets);
			free(names);
		} else if (!flatten(c, parent, chain, depth + 1)) {
			parent = NULL;
		}
	}
	out->name = xstrdup(s->name);
	out->parent = s->parent ? xstrdup(s->parent) : NULL;
	out->description = s->description ? xstrdup(s->description) : NULL;
	out->loc = s->node->loc;
	out->approval = s->has_approval ? s->approval : parent ? parent->out->approval : IR_APPROVAL_ASK;
	out->sandbox = s->has_sandbox ? s->sandbox : parent ? parent->out->sandbox : IR_SANDBOX_REQUIRED;
	append_rules(out, s->rules, s->nrules, 0);
	inherit_limits(out, s, parent ? parent->out : NULL);
	if (parent) {
		append_rules(out, parent->out->rules, parent->out->nrules, 1);
		for (size_t i = 0; i < parent->out->nprotect; i++) {
			struct ir_protect p = parent->out->protect[i];
			copy_pattern(&p.pat, &parent->out->protect[i].pat);
			p.from = p.from ? xstrdup(p.from) : NULL;
			VEC_PUSH(out->protect, out->nprotect, out->protect_cap, p);
		}
		merge_env(&out->env, &parent->out->env);
	} else {
		apply_protection(c, out, &c->global);
		merge_env(&out->env, &c->global.env);
	}
	apply_protection(c, out, s);
	merge_env(&out->env, &s->env);
	s->state = FLAT_DONE;
	return true;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int protect_cmp(const void *pa, const void *pb)
{
	const struct ir_protect *a = pa, *b = pb;
	int r = cmp_str(a->pat.text, b->pat.text);
	return r ? r : cmp_str(a->pat.regex, b->pat.regex);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int set_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ir_env_set *)a)->name, ((const struct ir_env_set *)b)->name);
}

static int drop_cmp(const void *pa, const void *pb)
{
	const struct ir_pattern *a = pa, *b = pb;
	int r = cmp_str(a->text, b->text);
	return r ? r : cmp_str(a->regex, b->regex);
}

static int preset_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ir_preset *)a)->name, ((const struct ir_preset *)b)->name);
}

static void canonicalize(struct ir_preset *p)
{
	for (size_t i = 0; i < p->nrules; i++)
		p->rules[i].spec = ir_pattern_specificity(p->rules[i].op, &p->rules[i].pat);
	sort_items(p->rules, p->nrules, sizeof(*p->rules), ir_rule_cmp);
	sort_items(p->protect, p->nprotect, sizeof(*p->protect), protect_cmp);
	/* One protection per pattern: keep the first spelling. */
	size_t w = 0;
	for (size_t i = 0; i < p->nprotect; i++) {
		if (w && same_pattern(&p->protect[w - 1].pat, &p->protect[i].pat)) {
			free(p->protect[i].pat.text);
			free(p->protect[i].pat.regex);
			free(p->protect[i].from);
			continue;
		}
		p->protect[w++] = p->protect[i];
	}
	p->nprotect = w;
	sort_items(p->env.keep, p->env.nkeep, sizeof(*p->env.keep), str_cmp);
	sort_items(p->env.set, p->env.nset, sizeof(*p->env.set), set_cmp);
	sort_items(p->env.drop, p->env.ndrop, sizeof(*p->env.drop), drop_cmp);
	sort_items(p->env.secret, p->env.nsecret, sizeof(*p->env.secret), drop_cmp);
	sort_items(p->env.code, p->env.ncode, sizeof(*p->env.code), drop_cmp);
}

/* ---- tests and default -------------------------------------------------- */

static void check_preset_ref(struct checker *c, const struct ast *str, const char *what,
			     char **out)
{
	char *name = decode_string(c, str, false);
	if (!name)
		return;
	if (!find_scope(c, name)) {
		const char **names = xcalloc(c->npresets, sizeof(*names));
		for (size_t i = 0; i < c->npresets; i++)
			names[i] = c->presets[i]->name;
		struct diag *d = ERR(c, &str->loc, "unknown-preset", "%s names unknown preset '%s'",
				     what, name);
		hint_closest(d, name, names, c->npresets);
		free(names);
		free(name);
		return;
	}
	*out = name;
}

static void add_assert_pattern(struct checker *c, void *varg, struct ir_pattern pat, struct loc at)
{
	struct check_assert *a = varg;
	(void)c;
	VEC_PUSH(a->pats, a->npats, a->pats_cap, pat);
	grow_array((void **)&a->pat_locs, &a->locs_cap, a->npats, sizeof(*a->pat_locs));
	a->pat_locs[a->npats - 1] = at;
}

/* assert never OP patterns [in "p", ...] ["why"]; into *out.  False when
 * the statement has errors (they are reported). */
static bool check_assert_node(struct checker *c, const struct ast *node, struct check_assert *out)
{
	static const char *const modes[] = { "never" };
	static const char *const clauses[] = { "in" };
	const struct ast *mode = node->u.assertion.mode, *op = node->u.assertion.op;
	const struct ast *clause = node->u.assertion.clause, *reason = NULL;
	const struct ast *last = node->u.assertion.patterns.tail;
	struct ast trimmed;
	size_t errors = c->d->nerrors;
	int o;

	memset(out, 0, sizeof(*out));
	out->loc = node->loc;
	if (lookup(mode->u.tok.text, modes, ARRAY_SIZE(modes)) < 0) {
		struct diag *d = ERR(c, &mode->loc, "syntax", "unknown assertion '%s'", mode->u.tok.text);
		diag_hint(d, "write 'assert never OP PATTERN;'");
	}
	/* No pattern ends in a second string: that string is the reason. */
	if (last->u.seq.n == 2 && last->u.seq.tail->kind == AST_STRING) {
		reason = last->u.seq.tail;
		trimmed = *last;
		trimmed.u.seq.n = 1;
		trimmed.u.seq.tail = trimmed.u.seq.head;
		trimmed.loc.end = trimmed.u.seq.head->loc.end;
		if (clause) {
			struct diag *d = ERR(c, &reason->loc, "syntax",
					     "an assertion's reason comes last, after the presets");
			diag_hint(d, "write 'assert never OP PATTERN in \"PRESET\" \"REASON\";'");
		}
	}
	o = lookup(op->u.tok.text, ir_op_names, IR_OP_COUNT);
	if (o < 0) {
		struct diag *d = ERR(c, &op->loc, "unknown-operation", "unknown operation '%s'",
				     op->u.tok.text);
		hint_closest(d, op->u.tok.text, ir_op_names, IR_OP_COUNT);
	} else {
		out->op = (enum ir_op)o;
		for (const struct ast *p = node->u.assertion.patterns.head; p; p = p->next)
			lower_pattern(c, out->op, p == last && reason ? &trimmed : p,
				      add_assert_pattern, out);
	}
	if (clause) {
		const struct ast *word = clause->u.clause.word;
		if (lookup(word->u.tok.text, clauses, ARRAY_SIZE(clauses)) < 0) {
			struct diag *d = ERR(c, &word->loc, "syntax", "unknown assertion clause '%s'",
					     word->u.tok.text);
			diag_hint(d, "name the presets with 'in \"PRESET\", ...'");
		}
		for (const struct ast *v = clause->u.clause.values.head; v; v = v->next) {
			char *name = NULL;
			check_preset_ref(c, v, "assert", &name);
			if (name)
				VEC_PUSH(out->presets, out->npresets, out->presets_cap, name);
		}
		if (clause->u.clause.reason)
			reason = clause->u.clause.reason;
	}
	if (reason)
		out->reason = decode_string(c, reason, true);
	return c->d->nerrors == errors;
}

static void check_test(struct checker *c, const struct ast *node)
{
	struct ir_test t = { .loc = node->loc };
	bool have_preset = false;
	t.name = decode_string(c, node->u.block.name, false);
	if (!t.name)
		t.name = xstrdup("");
	for (const struct ast *it = node->u.block.body.head; it; it = it->next) {
		if (it->kind == AST_TEST_PRESET) {
			if (have_preset) {
				ERR(c, &it->loc, "duplicate-setting", "a test names one preset");
				continue;
			}
			have_preset = true;
			check_preset_ref(c, it->u.one.value, "test", &t.preset);
		} else if (it->kind == AST_TEST_CONTEXT) {
			for (const struct ast *a = it->u.seq.head; a; a = a->next) {
				const struct ast *key = a->u.bind.name;
				int var = ir_ctx_var_lookup(key->u.tok.text, key->u.tok.len);
				char *value;
				if (var < 0) {
					struct diag *d = ERR(c, &key->loc, "undefined-variable",
							     "unknown context variable '%s'", key->u.tok.text);
					hint_closest(d, key->u.tok.text, ir_ctx_var_names, CTX_COUNT);
					continue;
				}
				if (a->u.bind.value->kind != AST_STRING) {
					ERR(c, &a->u.bind.value->loc, "bad-value", "a context value is a string");
					continue;
				}
				if (!(value = decode_string(c, a->u.bind.value, false)))
					continue;
				if (ir_ctx_var_is_path(var) && value[0] != '/') {
					ERR(c, &a->u.bind.value->loc, "relative-path",
					    "context value for '%s' must be an absolute path", key->u.tok.text);
					free(value);
					continue;
				}
				struct ir_binding b = { var, value, a->loc };
				VEC_PUSH(t.context, t.ncontext, t.context_cap, b);
			}
		} else if (it->kind == AST_TEST_EXPECT) {
			const struct ast *eff = it->u.expect.effect, *op = it->u.expect.op;
			const struct ast *target = it->u.expect.target;
			int e = lookup(eff->u.tok.text, ir_effect_names, IR_EFFECT_COUNT);
			int o = lookup(op->u.tok.text, ir_op_names, IR_OP_COUNT);
			char *text = NULL;
			if (e < 0) {
				struct diag *d = ERR(c, &eff->loc, "unknown-effect", "unknown effect '%s'",
						     eff->u.tok.text);
				hint_closest(d, eff->u.tok.text, ir_effect_names, IR_EFFECT_COUNT);
			}
			if (o < 0) {
				struct diag *d = ERR(c, &op->loc, "unknown-operation",
						     "unknown operation '%s'", op->u.tok.text);
				hint_closest(d, op->u.tok.text, ir_op_names, IR_OP_COUNT);
			}
			if (it->u.expect.form) {
				const struct ast *form = it->u.expect.form;
				struct ir_expect x = { e, o, NULL, NULL, 0, it->loc };
				bool good = e >= 0 && o >= 0;
				if (strcmp(form->u.tok.text, "argv") != 0) {
					ERR(c, &form->loc, "syntax",
					    "unknown form '%s' of an expectation: expect EFFECT exec "
					    "argv [\"WORD\", ...];", form->u.tok.text);
					continue;
				}
				if (o >= 0 && o != IR_EXEC) {
					ERR(c, &form->loc, "syntax",
					    "only an exec expectation takes an argv, not %s",
					    ir_op_names[o]);
					continue;
				}
				if (target->kind != AST_LIST || !target->u.seq.n) {
					ERR(c, &target->loc, "syntax",
					    "an argv expectation's target is a list of words, at least "
					    "one");
					continue;
				}
				x.argv = xcalloc(target->u.seq.n, sizeof(*x.argv));
				for (const struct ast *w = target->u.seq.head; w; w = w->next) {
					char *word = decode_string(c, w, true);
					good = good && word;
					if (word)
						x.argv[x.argc++] = word;
				}
				if (!good) {
					for (size_t k = 0; k < x.argc; k++)
						free(x.argv[k]);
					free(x.argv);
					continue;
				}
				VEC_PUSH(t.expects, t.nexpects, t.expects_cap, x);
				continue;
			}
			if (target->u.seq.n != 1 || target->u.seq.head->kind != AST_STRING) {
				ERR(c, &target->loc, "syntax", "an expectation's target is one string");
				continue;
			}
			text = decode_string(c, target->u.seq.head, true);
			if (e < 0 || o < 0 || !text) {
				free(text);
				continue;
			}
			struct ir_expect x = { e, o, text, NULL, 0, it->loc };
			VEC_PUSH(t.expects, t.nexpects, t.expects_cap, x);
		}
	}
	if (!have_preset) {
		struct diag *d = ERR(c, &node->u.block.name->loc, "unknown-preset",
				     "test '%s' names no preset", t.name);
		diag_hint(d, "add 'preset \"NAME\";' to the test");
	}
	VEC_PUSH(c->ir->tests, c->ir->ntests, c->ir->tests_cap, t);
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

	/* Presets: flatten each, then add the top-level rules. */
	ir->presets = xcalloc(c.npresets ? c.npresets : 1, sizeof(*ir->presets));
	ir->npresets = ir->presets_cap = c.npresets;
	for (size_t i = 0; i < c.npresets; i++)
		c.presets[i]->out = &ir->presets[i];
	struct scope **chain = xcalloc(c.npresets + 1, sizeof(*chain));
	for (size_t i = 0; i < c.npresets; i++)
		flatten(&c, c.presets[i], chain, 0);
	free(chain);
	for (size_t i = 0; i < c.npresets; i++) {
		struct ir_preset *p = &ir->presets[i];
		if (!p->name) /* part of a cycle */
			p->name = xstrdup(c.presets[i]->name);
		append_rules(p, c.global.rules, c.global.nrules, 0);
		canonicalize(p);
	}
	for (size_t i = 0; i < c.ntests; i++)
		check_test(&c, c.tests[i]);
	if (c.default_node)
		check_preset_ref(&c, c.default_node->u.one.value, "default", &ir->default_preset);
	sort_items(ir->presets, ir->npresets, sizeof(*ir->presets), preset_cmp);

	/* Assertions hold over the finished presets; a policy with errors has
	 * no finished presets to hold them over. */
	struct check_assert *asserts = xcalloc(c.nasserts + 1, sizeof(*asserts));
	size_t nasserts = 0;
	bool sound = diags->nerrors == before;
	for (size_t i = 0; i < c.nasserts; i++)
		if (check_assert_node(&c, c.asserts[i], &asserts[nasserts]))
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
