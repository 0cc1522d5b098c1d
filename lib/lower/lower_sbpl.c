/* The macOS Seatbelt profile (SBPL), run by `sandbox-exec -p PROFILE`.
 *
 * Seatbelt applies the last rule that matches, so the profile lists the
 * path rules of one operation class so that a rule comes after every rule
 * it beats (eval_rank.c: more specific, or the same targets and nearer or
 * more severe), and a deny after an allow it is incomparable with: the
 * rule that wins a decision is the last one to match in the profile.  Protections beat everything, so they come after
 * every write rule, and each write root also excludes the protected paths
 * beneath it with require-not.
 *
 * Paths are baked into the profile in canonical form rather than passed
 * as parameters (-D): the profile is self-contained, and an auditor reads
 * exactly the paths it grants and takes back.  Seatbelt matches resolved
 * paths, and on macOS /tmp, /var and /etc are symlinks into /private: an
 * evaluator on the macOS host facts (host_facts.h) has resolved every rule
 * to the place the kernel sees already; one on another host's facts gets
 * each path under a macOS alias listed with its target as well.
 *
 * Unlike a mount plan, Seatbelt matches regular expressions on paths, so
 * glob and regex denies (the advisories of lower.h) are enforced here: a
 * glob becomes an anchored regex; a pcre2 regex is translated when it
 * stays within the syntax Seatbelt's matcher has, and is otherwise listed
 * as a comment, enforced by decisions only.
 *
 * Strings are SBPL string literals ("..." with \\ and \" escaped); a path
 * with a control character or invalid UTF-8 is refused. */
#include "config.h"

#include "base/host_facts.h"
#include "lower.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sandbox_exec[] = "/usr/bin/sandbox-exec";

/* Services a shell and the usual command-line tools look up. */
static const char *const base_services[] = {
	"com.apple.system.opendirectoryd.libinfo",    /* getpwnam, getgrnam */
	"com.apple.system.opendirectoryd.membership", /* group membership */
	"com.apple.system.DirectoryService.libinfo_v1",
	"com.apple.system.logger",                    /* asl */
	"com.apple.logd",                             /* os_log */
	"com.apple.system.notification_center",       /* notify(3) */
	"com.apple.bsd.dirhelper",                    /* confstr(_CS_DARWIN_USER_TEMP_DIR) */
};

/* What name resolution and TLS need once the network is shared. */
static const char *const net_services[] = {
	"com.apple.SystemConfiguration.configd",
	"com.apple.SystemConfiguration.DNSConfiguration",
	"com.apple.networkd",
	"com.apple.trustd.agent",
	"com.apple.ocspd",
	"com.apple.SecurityServer",
};

/* ---- strings ------------------------------------------------------------- */

/* 0 when s can be baked into a profile; -1 with *err otherwise. */
static int check_text(const char *s, const char *what, const char *origin, char **err)
{
	size_t n = strlen(s), bad = n;
	const char *problem = NULL;
	char code[8];
	for (size_t i = 0; i < n && !problem; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f) {
			snprintf(code, sizeof(code), "0x%02x", c);
			problem = "contains the control character ";
			bad = i;
		}
	}
	if (!problem && (bad = utf8_invalid_at((const unsigned char *)s, n)) != n)
		problem = "is not valid UTF-8";
	if (!problem)
		return 0;
	struct strbuf shown;
	sb_init(&shown);
	sb_add_quoted(&shown, s);
	*err = xasprintf("%s%s%s %s %s%s; a Seatbelt profile cannot carry it", origin ? origin : "",
			 origin ? ": " : "", what, shown.buf, problem,
			 problem[0] == 'c' ? code : "");
	sb_free(&shown);
	return -1;
}

/* An SBPL string literal. */
static void add_string(struct strbuf *sb, const char *s)
{
	sb_addc(sb, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_addc(sb, '\\');
		sb_addc(sb, *s);
	}
	sb_addc(sb, '"');
}

/* A regex literal: raw (#"...") unless it needs a double quote. */
static void add_regex(struct strbuf *sb, const char *re)
{
	sb_adds(sb, "(regex ");
	if (strchr(re, '"')) {
		add_string(sb, re);
	} else {
		sb_adds(sb, "#\"");
		sb_adds(sb, re);
		sb_addc(sb, '"');
	}
	sb_addc(sb, ')');
}

/* Comment text: one line, whatever it holds. */
static void add_comment_text(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		sb_addc(sb, c < 0x20 || c == 0x7f ? '?' : (char)c);
	}
}

static void add_origin(struct strbuf *sb, const char *what, const char *origin)
{
	sb_adds(sb, "  ; ");
	add_comment_text(sb, what);
	if (origin) {
		sb_adds(sb, what ? ", " : "");
		add_comment_text(sb, origin);
	}
}

/* ---- paths --------------------------------------------------------------- */

/* ---- path aliases --------------------------------------------------------- */

static bool on_macos_facts(const struct lower_input *in)
{
	return in->ev && host_facts_same(in->ev->host, host_facts_find("macos"));
}

/* The place a Mac's kernel sees a path by, when the evaluator resolved it
 * on another host's facts and a macOS alias covers it (/etc/hosts:
 * /private/etc/hosts); NULL otherwise. */
static char *macos_twin(const struct lower_input *in, const char *path)
{
	if (on_macos_facts(in))
		return NULL;
	char *twin = host_alias_apply(host_facts_find("macos"), path);
	if (strcmp(twin, path) != 0)
		return twin;
	free(twin);
	return NULL;
}

/* The same for a translated regex anchored at a macOS alias. */
static char *macos_regex_twin(const struct lower_input *in, const char *ere)
{
	return on_macos_facts(in) ? NULL : host_alias_regex(host_facts_find("macos"), ere, NULL);
}

/* A regex as the evaluator's matcher on its host built it: one anchored
 * at an alias anchors at the alias's target. */
static char *regex_on_host(const cordon_evaluator *ev, const char *re)
{
	char *moved = host_alias_regex(ev->host, re, NULL);
	return moved ? moved : xstrdup(re);
}

/* (FILTER P), with its twin as a second filter: filters of a rule are
 * alternatives.  FILTER is subpath (P and below) or literal (P alone). */
static void add_filters(struct strbuf *sb, const struct lower_input *in, const char *path,
			const char *filter)
{
	char *twin = macos_twin(in, path);
	sb_addf(sb, "(%s ", filter);
	add_string(sb, path);
	sb_addc(sb, ')');
	if (twin) {
		sb_addf(sb, " (%s ", filter);
		add_string(sb, twin);
		sb_addc(sb, ')');
	}
	free(twin);
}

static void add_subpaths(struct strbuf *sb, const struct lower_input *in, const char *path)
{
	add_filters(sb, in, path, "subpath");
}

/* One filter for P and its twin. */
static void add_subpath_filter(struct strbuf *sb, const struct lower_input *in, const char *path)
{
	char *twin = macos_twin(in, path);
	if (twin)
		sb_adds(sb, "(require-any ");
	add_subpaths(sb, in, path);
	if (twin)
		sb_addc(sb, ')');
	free(twin);
}

/* ---- regexes --------------------------------------------------------------- */

/* Resolved pattern text with, per character, whether it came from a
 * context value (and so is never a wildcard), as the matcher resolves it. */
struct resolved {
	struct strbuf s;
	bool *lit;
	size_t lit_cap;
};

static void res_add(struct resolved *r, char c, bool lit)
{
	grow_array((void **)&r->lit, &r->lit_cap, r->s.len + 1, sizeof(bool));
	r->lit[r->s.len] = lit;
	sb_addc(&r->s, c);
}

static bool res_build(struct resolved *r, const char *text, const struct ir_context *ctx)
{
	memset(r, 0, sizeof(*r));
	sb_init(&r->s);
	for (const char *p = text; *p; p++) {
		if (*p != IR_VAR_OPEN) {
			res_add(r, *p, false);
			continue;
		}
		const char *end = strchr(p, IR_VAR_CLOSE);
		if (!end)
			return false;
		int var = ir_ctx_var_lookup(p + 1, (size_t)(end - p - 1));
		const char *value = var >= 0 ? ctx->value[var] : NULL;
		if (!value)
			return false;
		for (const char *v = value; *v; v++)
			res_add(r, *v, true);
		p = end;
	}
	/* Repeated slashes collapse and a trailing one goes, as for any path. */
	size_t w = 0;
	for (size_t i = 0; i < r->s.len; i++) {
		if (r->s.buf[i] == '/' && w > 0 && r->s.buf[w - 1] == '/')
			continue;
		r->s.buf[w] = r->s.buf[i];
		r->lit[w] = r->lit[i];
		w++;
	}
	if (w > 1 && r->s.buf[w - 1] == '/')
		w--;
	r->s.len = w;
	r->s.buf[w] = '\0';
	return true;
}

static void res_free(struct resolved *r)
{
	sb_free(&r->s);
	free(r->lit);
}

/* A pattern under one of the host's aliases, as the evaluator's matcher
 * built it: the alias's target, literal, in place of the alias. */
static void res_host_alias(struct resolved *r, const struct host_facts *host)
{
	const struct host_alias *alias = host_alias_of(host, r->s.buf, r->s.len);
	if (!alias)
		return;
	const char *target = alias->target;
	size_t k = strlen(alias->path);
	struct resolved a;
	memset(&a, 0, sizeof(a));
	sb_init(&a.s);
	for (const char *t = target; *t; t++)
		res_add(&a, *t, true);
	for (size_t i = k; i < r->s.len; i++)
		res_add(&a, r->s.buf[i], r->lit[i]);
	res_free(r);
	*r = a;
}

/* The IR pattern behind an evaluator rule: the evaluator keeps the
 * preset's rules in order, leaving out those whose context variables have
 * no value. */
/* A glob as an anchored extended regex, the way the evaluator matches it:
 * '*' and '?' within one component, "**" at any depth (a final "**" component also
 * matching the directory itself), bracket classes.  NULL with *why when
 * the glob uses a form this translation does not carry. */
static char *glob_to_ere(const struct resolved *r, const char **why)
{
	struct strbuf sb;
	const char *s = r->s.buf;
	size_t n = r->s.len;
	sb_init(&sb);
	sb_addc(&sb, '^');
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (r->lit[i]) {
			sbpl_ere_char(&sb, c);
			continue;
		}
		if (c == '/' && i + 2 < n && s[i + 1] == '*' && s[i + 2] == '*' && !r->lit[i + 1] &&
		    !r->lit[i + 2] && (i + 3 == n || s[i + 3] == '/')) {
			sb_adds(&sb, "(/.*)?");
			i += 2;
		} else if (c == '*' && i + 1 < n && s[i + 1] == '*' && !r->lit[i + 1]) {
			sb_adds(&sb, ".*");
			i++;
		} else if (c == '*') {
			sb_adds(&sb, "[^/]*");
		} else if (c == '?') {
			sb_adds(&sb, "[^/]");
		} else if (c == '[') {
			const char *close = strchr(s + i + 1 + (s[i + 1] == ']'), ']');
			if (!close) {
				sb_adds(&sb, "\\[");
				continue;
			}
			size_t j = i + 1, end = (size_t)(close - s);
			sb_addc(&sb, '[');
			if (s[j] == '!' || s[j] == '^') {
				sb_addc(&sb, '^');
				j++;
			}
			if (j == end || s[j] == ']') {
				*why = "a bracket class that starts with ']'";
				sb_free(&sb);
				return NULL;
			}
			for (; j < end; j++) {
				if (r->lit[j] || s[j] == '\\' || s[j] == '[' || (unsigned char)s[j] >= 0x80) {
					*why = "a bracket class with '\\', '[' or a non-ASCII character";
					sb_free(&sb);
					return NULL;
				}
				sb_addc(&sb, s[j]);
			}
			sb_addc(&sb, ']');
			i = end;
		} else {
			sbpl_ere_char(&sb, c);
		}
	}
	sb_addc(&sb, '$');
	return sb_steal(&sb);
}

/* ---- rules --------------------------------------------------------------- */

enum entry_kind { ENTRY_PATH, ENTRY_REGEX, ENTRY_UNENFORCED };

struct entry {
	enum entry_kind kind;
	bool allow;
	const char *text;         /* path (borrowed), regex (owned) */
	char *owned;
	const char *shown;        /* the policy's pattern, for regexes */
	const char *why;          /* why a pattern is not enforced */
	const char *label;
	const char *origin;
	bool exact;               /* a path that an exact rule takes back alone */
	struct ir_specificity spec;
	unsigned tier;
	enum ir_effect effect;
	size_t seq;
	const struct ev_rule *rule; /* the rule it lowers, or NULL */
};

struct chain {
	struct entry *e;
	size_t n, cap;
};

static void chain_add(struct chain *c, struct entry e)
{
	e.seq = c->n;
	VEC_PUSH(c->e, c->n, c->cap, e);
}

static void chain_free(struct chain *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->e[i].owned);
	free(c->e);
}

/* Ascending rank: the entry that beats another comes after it. */
static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	int c = spec_cmp(a->spec, b->spec);
	if (c)
		return c;
	if (a->tier != b->tier)
		return a->tier > b->tier ? -1 : 1;
	if (a->effect != b->effect)
		return a->effect < b->effect ? -1 : 1;
	if (a->kind == ENTRY_PATH && b->kind == ENTRY_PATH) {
		int r = strcmp(a->text, b->text);
		if (r)
			return r;
	}
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static const struct ev_rule *rule_by_origin(const cordon_evaluator *ev, const char *origin)
{
	for (size_t i = 0; i < ev->nrules; i++)
		if (ev->rules[i].origin == origin)
			return &ev->rules[i];
	for (size_t i = 0; i < ev->nprotect; i++)
		if (ev->protect[i].origin == origin)
			return &ev->protect[i];
	return NULL;
}

static struct entry path_entry(const cordon_evaluator *ev, const struct lower_path *p)
{
	const struct ev_rule *r = rule_by_origin(ev, p->origin);
	struct entry e = { .kind = ENTRY_PATH, .text = p->path, .origin = p->origin };
	e.allow = p->why == LOWER_READ_ROOT || p->why == LOWER_WRITE_ROOT;
	/* A rule's path resolved through a symlink ranks as the evaluator's
	 * rule for the resolved path does: by its own length. */
	bool resolved = r && r->m.kind == IR_PAT_LITERAL && strcmp(r->m.text, p->path) != 0;
	e.spec = r && !resolved ? r->m.spec : (struct ir_specificity){ (unsigned)strlen(p->path), 0 };
	/* Seatbelt can say "this path alone": an exact deny stays exact. */
	e.exact = !e.allow && r && r->m.kind == IR_PAT_EXACT && strcmp(r->m.text, p->path) == 0;
	e.tier = r ? r->tier : 0;
	e.effect = r ? r->effect : e.allow ? IR_ALLOW : IR_DENY;
	e.rule = r;
	switch (p->why) {
	case LOWER_READ_ROOT: e.label = "readable"; break;
	case LOWER_WRITE_ROOT: e.label = "writable"; break;
	case LOWER_READ_ONLY: e.label = p->protect ? "protected" : "not writable"; break;
	case LOWER_MASK: e.label = "unreadable"; break;
	}
	return e;
}

/* An exact allow that decides its path: (literal P) grants that path
 * alone, which no mount or path-beneath rule can; ranked like any other
 * rule, it comes after the denies it is inside. */
static bool exact_allow_entry(const struct lower_input *in, const struct ev_rule *r,
			      struct entry *e)
{
	if ((r->op != IR_READ && r->op != IR_WRITE) || r->effect != IR_ALLOW ||
	    r->m.kind != IR_PAT_EXACT || !r->m.text ||
	    lower_decide(in->ev, r->op, r->m.text) != IR_ALLOW)
		return false;
	memset(e, 0, sizeof(*e));
	e->kind = ENTRY_PATH;
	e->allow = true;
	e->exact = true;
	e->text = r->m.text;
	e->origin = r->origin;
	e->label = r->op == IR_READ ? "readable, this path alone" : "writable, this path alone";
	e->spec = r->m.spec;
	e->tier = r->tier;
	e->effect = r->effect;
	e->rule = r;
	return true;
}

/* A glob or regex deny, translated; or kept as a comment. */
static int advisory_entry(const cordon_evaluator *ev, const struct lower_advisory *a,
			  struct entry *e, char **err)
{
	const struct ev_rule *r = rule_by_origin(ev, a->origin);
	const struct ir_pattern *pat = r ? r->pat : NULL;
	const char *why = NULL;
	char *re = NULL;
	memset(e, 0, sizeof(*e));
	e->origin = a->origin;
	e->shown = a->pattern;
	e->effect = a->effect;
	e->label = r && r >= ev->protect && r < ev->protect + ev->nprotect
			   ? "protected"
			   : a->op == IR_READ ? "unreadable" : "not writable";
	if (!r || !pat || (pat->text == NULL) == (pat->regex == NULL)) {
		if (r && pat && pat->text && pat->regex) {
			why = "a pattern with both a glob and a regex";
		} else {
			*err = xasprintf("%s: cannot find the rule of the pattern %s", a->origin,
					 a->pattern);
			return -1;
		}
	} else if (pat->text) {
		struct resolved res;
		bool built = res_build(&res, pat->text, &r->ctx);
		if (built)
			res_host_alias(&res, ev->host);
		if (!built || strcmp(res.s.buf, r->m.text) != 0) {
			res_free(&res);
			*err = xasprintf("%s: the pattern %s does not resolve as the evaluator "
					 "resolved it",
					 a->origin, a->pattern);
			return -1;
		}
		if (check_text(res.s.buf, "pattern", a->origin, err) != 0) {
			res_free(&res);
			return -1;
		}
		re = glob_to_ere(&res, &why);
		res_free(&res);
	} else {
		char *host_re = regex_on_host(ev, pat->regex);
		bool same = r->m.regex && strcmp(host_re, r->m.regex) == 0;
		free(host_re);
		if (!same) {
			*err = xasprintf("%s: the regex %s is not the evaluator's", a->origin,
					 a->pattern);
			return -1;
		}
		if (check_text(r->m.regex, "regex", a->origin, err) != 0)
			return -1;
		re = sbpl_pcre_to_ere(r->m.regex, &why);
	}
	e->spec = r->m.spec;
	e->tier = r->tier;
	e->rule = r;
	if (!re) {
		e->kind = ENTRY_UNENFORCED;
		e->why = why;
		return 0;
	}
	e->kind = ENTRY_REGEX;
	e->text = e->owned = re;
	return 0;
}

static void emit_entry(struct strbuf *sb, const struct entry *e, const char *op,
		       const struct lower_input *in)
{
	if (e->kind == ENTRY_UNENFORCED) {
		sb_addf(sb, "; not enforced here: %s ", strcmp(op, "file-read*") == 0 ? "read" : "write");
		add_comment_text(sb, e->shown);
		sb_addf(sb, " %s uses %s, which Seatbelt's regex matcher lacks;\n; decided per request "
			    "only",
			ir_effect_names[e->effect], e->why);
		add_origin(sb, NULL, e->origin);
		sb_addc(sb, '\n');
		return;
	}
	if (e->kind == ENTRY_REGEX) {
		char *twin = macos_regex_twin(in, e->text);
		sb_addf(sb, "(%s %s ", e->allow ? "allow" : "deny", op);
		add_regex(sb, e->text);
		if (twin) {
			sb_addc(sb, ' ');
			add_regex(sb, twin);
			free(twin);
		}
		sb_addc(sb, ')');
		sb_adds(sb, "  ; ");
		add_comment_text(sb, e->label);
		sb_addc(sb, ' ');
		add_comment_text(sb, e->shown);
		sb_adds(sb, ", ");
		add_comment_text(sb, e->origin);
		sb_addc(sb, '\n');
		return;
	}
	/* A write root gives up the protected paths beneath it; a protection
	 * of an exact path is the path itself, which the protections after
	 * every write rule take back. */
	size_t nexcl = 0;
	if (e->allow && !e->exact && strcmp(op, "file-write*") == 0) {
		for (size_t i = 0; i < in->npaths; i++) {
			const struct lower_path *p = &in->paths[i];
			if (p->why == LOWER_READ_ONLY && p->protect && path_under(p->path, e->text)) {
				if (nexcl++ == 0) {
					sb_addf(sb, "(allow %s\n  (require-all ", op);
					add_subpath_filter(sb, in, e->text);
				}
				sb_adds(sb, "\n    (require-not ");
				add_subpath_filter(sb, in, p->path);
				sb_addc(sb, ')');
			}
		}
	}
	if (nexcl) {
		sb_adds(sb, "))");
	} else {
		sb_addf(sb, "(%s %s ", e->allow ? "allow" : "deny", op);
		add_filters(sb, in, e->text, e->exact ? "literal" : "subpath");
		sb_addc(sb, ')');
	}
	add_origin(sb, e->label, e->origin);
	sb_addc(sb, '\n');
}

/* Must entry y come after entry x, for the last match to decide as the
 * evaluator does where both match?  Only an allow and a deny need an order:
 * the rule that always beats the other comes last, and between rules that
 * are incomparable (or cannot both match) the deny. */
static bool after(const cordon_evaluator *ev, const struct entry *x, const struct entry *y)
{
	if (x->allow == y->allow)
		return false;
	if (x->rule && y->rule && x->rule != y->rule) {
		if (ev_rule_always_beats(ev, y->rule, x->rule))
			return true;
		if (ev_rule_always_beats(ev, x->rule, y->rule))
			return false;
		/* no path meets both: either order decides the same */
		if (x->kind == ENTRY_PATH && y->kind == ENTRY_PATH
			    ? !path_under(x->text, y->text) && !path_under(y->text, x->text)
			    : matcher_disjoint(&x->rule->m, &y->rule->m, x->rule->op))
			return false;
	}
	return !y->allow;
}

/* Entries in an order that honours `after`: a topological sort that takes
 * the earliest ready entry of the ranked order.  Should the constraints
 * form a cycle, what is left follows allows first, denies last. */
static void order_chain(struct chain *c, const cordon_evaluator *ev)
{
	size_t n = c->n;
	sort_items(c->e, n, sizeof(*c->e), entry_cmp);
	if (n < 2)
		return;
	size_t *indeg = xcalloc(n, sizeof(*indeg));
	bool *edge = xcalloc(n * n, sizeof(*edge)), *done = xcalloc(n, sizeof(*done));
	struct entry *out = xcalloc(n, sizeof(*out));
	size_t nout = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (i != j && after(ev, &c->e[i], &c->e[j])) {
				edge[i * n + j] = true;
				indeg[j]++;
			}
	for (size_t start = 0; nout < n;) {
		size_t i = start;
		while (i < n && (done[i] || indeg[i]))
			i++;
		if (i == n)
			break; /* a cycle */
		done[i] = true;
		out[nout++] = c->e[i];
		for (size_t j = 0; j < n; j++)
			if (edge[i * n + j])
				indeg[j]--;
		start = 0;
		while (start < n && done[start])
			start++;
	}
	for (int pass = 0; pass < 2 && nout < n; pass++)
		for (size_t i = 0; i < n; i++)
			if (!done[i] && c->e[i].allow == (pass == 0)) {
				done[i] = true;
				out[nout++] = c->e[i];
			}
	memcpy(c->e, out, n * sizeof(*out));
	free(out);
	free(done);
	free(edge);
	free(indeg);
}

static void emit_chain(struct strbuf *sb, struct chain *c, const char *op,
		       const struct lower_input *in, bool sort)
{
	if (sort)
		order_chain(c, in->ev);
	for (size_t i = 0; i < c->n; i++)
		emit_entry(sb, &c->e[i], op, in);
}

static void emit_services(struct strbuf *sb, const char *const *names, size_t n)
{
	sb_adds(sb, "(allow mach-lookup");
	for (size_t i = 0; i < n; i++) {
		sb_adds(sb, "\n  (global-name ");
		add_string(sb, names[i]);
		sb_addc(sb, ')');
	}
	sb_adds(sb, ")\n");
}

static void emit_base(struct strbuf *sb)
{
	sb_adds(sb,
		"\n; ---- base: what any process needs\n"
		"(allow process-exec)\n"
		"(allow process-fork)\n"
		"; signals and process information reach the sandboxed processes only\n"
		"(allow signal (target same-sandbox))\n"
		"(allow process-info* (target same-sandbox))\n"
		"(allow sysctl-read)\n");
	emit_services(sb, base_services, ARRAY_SIZE(base_services));
	sb_adds(sb,
		"; semaphores only: POSIX shared memory would carry data across the boundary\n"
		"(allow ipc-posix-sem)\n"
		"; metadata (stat, path lookup) everywhere; an unreadable path below denies it too\n"
		"(allow file-read-metadata)\n"
		"; device sinks and sources; a policy rule below can still take them back\n"
		"(allow file-read* file-write-data\n"
		"  (literal \"/dev/null\")\n"
		"  (literal \"/dev/zero\"))\n"
		"(allow file-read*\n"
		"  (literal \"/dev/random\")\n"
		"  (literal \"/dev/urandom\"))\n"
		"(allow file-read* file-write-data\n"
		"  (literal \"/dev/stdin\")\n"
		"  (literal \"/dev/stdout\")\n"
		"  (literal \"/dev/stderr\")\n"
		"  (regex #\"^/dev/fd/[0-9]+$\"))\n"
		"; terminals: the controlling tty and pseudo-terminals\n"
		"(allow pseudo-tty)\n"
		"(allow file-read* file-write* file-ioctl\n"
		"  (literal \"/dev/tty\")\n"
		"  (literal \"/dev/ptmx\")\n"
		"  (regex #\"^/dev/ttys[0-9]+$\"))\n");
}

static const char *unix_origin(const cordon_evaluator *ev)
{
	for (size_t i = 0; i < ev->nrules; i++) {
		const struct ev_rule *r = &ev->rules[i];
		if (r->op == IR_NET && r->effect == IR_ALLOW && r->m.anchor &&
		    strcmp(r->m.anchor, "unix") == 0)
			return r->origin;
	}
	return NULL;
}

/* The first net allow for a host other than "unix" (local sockets): the
 * shared input counts that one too, but it opens no host. */
static const char *host_origin(const cordon_evaluator *ev)
{
	for (size_t i = 0; i < ev->nrules; i++) {
		const struct ev_rule *r = &ev->rules[i];
		if (r->op == IR_NET && r->effect == IR_ALLOW &&
		    !(r->m.anchor && strcmp(r->m.anchor, "unix") == 0))
			return r->origin;
	}
	return NULL;
}

static void emit_network(struct strbuf *sb, const struct lower_input *in)
{
	const char *uorigin = in->unix_allowed ? unix_origin(in->ev) : NULL;
	const char *horigin = in->net_allowed ? host_origin(in->ev) : NULL;
	sb_adds(sb, "\n; ---- network\n");
	if (!horigin) {
		sb_addf(sb, "; no net rule allows a host: no network at all, loopback%s included\n"
			    "(deny network*)\n",
			in->unix_allowed ? "" : " and local sockets");
	} else {
		sb_adds(sb, "; a net rule allows some host: outbound connections are open; which hosts "
			    "is decided\n; per request, not by the sandbox\n(allow network-outbound)");
		add_origin(sb, NULL, horigin);
		sb_addc(sb, '\n');
		emit_services(sb, net_services, ARRAY_SIZE(net_services));
		if (!in->unix_allowed)
			sb_adds(sb, "; local sockets are a separate IPC surface: refused, but for the name "
				    "resolver\n(deny network-outbound (remote unix-socket))\n"
				    "(allow network-outbound (remote unix-socket (path-literal "
				    "\"/private/var/run/mDNSResponder\")))\n");
	}
	if (in->unix_allowed) {
		sb_adds(sb, "; net \"unix\" allow: local sockets may be used\n"
			    "(allow network-outbound (remote unix-socket))");
		add_origin(sb, NULL, uorigin);
		sb_adds(sb, "\n(allow network-bind (local unix-socket))");
		add_origin(sb, NULL, uorigin);
		sb_addc(sb, '\n');
	}
}

static void emit_env(struct strbuf *sb, const struct lower_input *in)
{
	sb_adds(sb, "\n; ---- environment: applied by the runner, which starts sandbox-exec with "
		    "only\n; these variables\n");
	if (in->nkeep) {
		sb_adds(sb, "; keep");
		for (size_t i = 0; i < in->nkeep; i++) {
			sb_addc(sb, ' ');
			add_comment_text(sb, in->keep[i]);
		}
		sb_addc(sb, '\n');
	}
	if (!in->nkeep && !in->nset)
		sb_adds(sb, "; none: the environment is empty\n");
	for (size_t i = 0; i < in->nset; i++) {
		sb_adds(sb, "; set ");
		add_comment_text(sb, in->set[i].name);
		sb_addc(sb, '=');
		add_comment_text(sb, in->set[i].value);
		add_origin(sb, NULL, in->set[i].origin);
		sb_addc(sb, '\n');
	}
}

/* No Seatbelt operation bounds resources: the runner sets the rlimits
 * before it starts sandbox-exec; the profile says which. */
static void emit_limits(struct strbuf *sb, const struct lower_input *in)
{
	if (!in->nlimits)
		return;
	sb_adds(sb, "\n; ---- limits: set by the runner (setrlimit) before it starts sandbox-exec;\n"
		    "; memory has no cgroup here: the call stops unless it is best_effort\n");
	for (size_t i = 0; i < in->nlimits; i++) {
		const struct cordon_limit *l = &in->limits[i];
		struct ir_limit_value v = { .set = true, .value = l->value };
		sb_addf(sb, "; %s ", ir_limit_names[l->which]);
		ir_limit_print(sb, (enum ir_limit)l->which, &v);
		if (l->best_effort)
			sb_adds(sb, " best_effort");
		add_origin(sb, NULL, l->origin);
		sb_addc(sb, '\n');
	}
}

char *lower_sbpl(const struct lower_input *in, size_t *len, char **err)
{
	struct chain reads = { 0 }, writes = { 0 }, protects = { 0 }, adv_reads = { 0 },
		     adv_writes = { 0 };
	struct strbuf sb;
	bool root_readable = false;

	if (!in->restricted) {
		*err = xasprintf("preset '%s' runs without a sandbox (sandbox none): there is no "
				 "Seatbelt profile",
				 in->preset);
		return NULL;
	}
	for (size_t i = 0; i < in->npaths; i++) {
		const struct lower_path *p = &in->paths[i];
		/* The home directory's entries are how the mount plan enforces
		 * a glob the profile states itself, as a regex. */
		if (p->entries)
			continue;
		if (check_text(p->path, "path", p->origin, err) != 0)
			goto fail;
		struct entry e = path_entry(in->ev, p);
		root_readable = root_readable || (p->why == LOWER_READ_ROOT && strcmp(p->path, "/") == 0);
		if (p->why == LOWER_READ_ROOT || p->why == LOWER_MASK)
			chain_add(&reads, e);
		else if (p->why == LOWER_READ_ONLY && p->protect)
			chain_add(&protects, e);
		else
			chain_add(&writes, e);
	}
	for (size_t i = 0; i < in->nadvisories; i++) {
		struct entry e;
		if (advisory_entry(in->ev, &in->advisories[i], &e, err) != 0)
			goto fail;
		if (strcmp(e.label, "protected") == 0)
			chain_add(&protects, e);
		else if (in->advisories[i].op == IR_READ)
			chain_add(&adv_reads, e);
		else
			chain_add(&adv_writes, e);
	}
	for (size_t i = 0; i < in->ev->nrules; i++) {
		struct entry e;
		if (exact_allow_entry(in, &in->ev->rules[i], &e)) {
			if (check_text(e.text, "path", e.origin, err) != 0)
				goto fail;
			chain_add(in->ev->rules[i].op == IR_READ ? &reads : &writes, e);
		}
	}
	/* Glob and regex denies rank among the literal rules of their operation. */
	for (size_t i = 0; i < adv_reads.n; i++)
		chain_add(&reads, adv_reads.e[i]);
	for (size_t i = 0; i < adv_writes.n; i++)
		chain_add(&writes, adv_writes.e[i]);
	free(adv_reads.e);
	free(adv_writes.e);

	sb_init(&sb);
	sb_adds(&sb, ";; cordon: Seatbelt profile of preset ");
	add_comment_text(&sb, in->preset);
	sb_adds(&sb, "\n"
		     ";; Paths are canonical and baked in: the profile is self-contained and names\n"
		     ";; every path it grants or takes back.  Seatbelt applies the last matching\n"
		     ";; rule, so path rules follow in ascending specificity, each with its origin.\n"
		     "(version 1)\n"
		     "(deny default)\n");
	emit_base(&sb);
	sb_adds(&sb, "\n; ---- reads\n");
	if (!root_readable)
		sb_adds(&sb, "; \"/\" is not readable: programs start only where /usr, /bin, /System, "
			     "/Library\n; and /private/var/db/dyld are\n");
	emit_chain(&sb, &reads, "file-read*", in, true);
	sb_adds(&sb, "\n; ---- writes\n");
	emit_chain(&sb, &writes, "file-write*", in, true);
	if (protects.n) {
		sb_adds(&sb, "\n; ---- protections: no write reaches them, whatever comes before\n");
		emit_chain(&sb, &protects, "file-write*", in, true);
	}
	emit_network(&sb, in);
	emit_env(&sb, in);
	emit_limits(&sb, in);
	chain_free(&reads);
	chain_free(&writes);
	chain_free(&protects);
	*len = sb.len;
	return sb_steal(&sb);
fail:
	chain_free(&reads);
	chain_free(&writes);
	chain_free(&protects);
	chain_free(&adv_reads);
	chain_free(&adv_writes);
	return NULL;
}

/* The runner's command line, NUL-separated; the command follows "--". */
char *lower_sbpl_argv(const struct lower_input *in, size_t *len, char **err)
{
	size_t plen;
	char *profile = lower_sbpl(in, &plen, err);
	struct strbuf sb;
	if (!profile)
		return NULL;
	sb_init(&sb);
	sb_add(&sb, sandbox_exec, sizeof(sandbox_exec));
	sb_add(&sb, "-p", 3);
	sb_add(&sb, profile, plen + 1);
	sb_add(&sb, "--", 3);
	free(profile);
	*len = sb.len;
	return sb_steal(&sb);
}
