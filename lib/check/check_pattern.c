/* Strings and patterns: literals decoded, paths normalised, each pattern
 * of a rule lowered into the IR. */
#include "config.h"

#include "checker.h"
#include "lang/literal.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

/* ---- strings ------------------------------------------------------------ */

/* What ${name} stands for in a string: a let string's value or a context
 * variable (kept as a reference the evaluator fills in). */
static bool string_var(void *arg, struct strbuf *sb, const char *name, size_t nlen, struct loc at)
{
	struct checker *c = arg;
	struct let_var *lv = ck_let_find(c, name, nlen);
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
		ck_hint_variable(c, d, n);
		free(n);
		return false;
	}
	return true;
}

/* Decode a string token into IR text.  With vars, ${name} refers to a let
 * string or a context variable; otherwise '$' is literal.  Returns NULL
 * after reporting an error. */
char *ck_decode_string(struct checker *c, const struct ast *s, bool vars)
{
	return lit_string(c->d, s, vars ? string_var : NULL, c);
}

/* ---- patterns ----------------------------------------------------------- */

/* Check a regex with pcre2; point an error at its offset in the literal. */
char *ck_decode_regex(struct checker *c, const struct ast *r)
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
	const struct src_file *f = srcmgr_file(c->sm, r->loc.file);
	if (f && f->checked_by_build) {
		/* 23,000 instructions a regex, a tenth of checking the built-in
		 * policy for a hook call; a regex that did not compile would
		 * fail the evaluator of its preset, and the build's tests. */
		free(map);
		return re;
	}
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

bool ck_has_wildcard(const char *s)
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
	out->kind = (op == IR_NET ? strpbrk(text, "*?") != NULL : ck_has_wildcard(text)) ? IR_PAT_GLOB
										     : IR_PAT_LITERAL;
	out->text = text;
	out->regex = NULL;
	return true;
}

/* Turn one AST pattern into IR patterns (a list variable gives several). */
void ck_lower_pattern(struct checker *c, enum ir_op op, const struct ast *pat,
			  pattern_sink sink, void *arg)
{
	const struct ast *a = pat->u.seq.head;
	struct ir_pattern out = { 0 };

	if (op == IR_EXEC && pat->u.seq.n == 2 && a->kind != AST_REGEX &&
	    a->next->kind == AST_REGEX) {
		/* A command prefix narrowed by a regex. */
		char *text = a->kind == AST_STRING ? ck_decode_string(c, a, true) : NULL;
		char *re = ck_decode_regex(c, a->next);
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
		char *text = ck_decode_string(c, a, true);
		if (text && finish_text(c, op, text, a->loc, &out))
			sink(c, arg, out, a->loc);
		break;
	}
	case AST_REGEX: {
		char *re = ck_decode_regex(c, a);
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
		struct let_var *lv = ck_let_find(c, name, a->u.tok.len);
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
			ck_hint_variable(c, d, name);
		}
		break;
	}
	default:
		break;
	}
}

