/* Lint checks over the rules of each flattened preset: rules that never
 * decide (shadowed, duplicate, conflicting), grants that remove a fence,
 * asks that can only deny, and what the evaluator and the bwrap lowering
 * say about sensitive paths (lint_sandbox.c: what the mount plan holds). */
#include "config.h"

#include "lint_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- patterns ------------------------------------------------------------------ */

static bool same_pattern(const struct ir_rule *a, const struct ir_rule *b)
{
	return a->op == b->op && a->pat.kind == b->pat.kind &&
	       strcmp(a->pat.text ? a->pat.text : "", b->pat.text ? b->pat.text : "") == 0 &&
	       strcmp(a->pat.regex ? a->pat.regex : "", b->pat.regex ? b->pat.regex : "") == 0 &&
	       (a->pat.text != NULL) == (b->pat.text != NULL);
}

static bool is_path_op(enum ir_op op)
{
	return op == IR_READ || op == IR_WRITE;
}

/* A pattern that matches every request of its operation: the root glob
 * and "/" for paths, "*" elsewhere. */
static bool matches_everything(enum ir_op op, const struct ir_pattern *p)
{
	if (!p->text || p->regex)
		return false;
	if (is_path_op(op))
		return strcmp(p->text, "/**") == 0 || strcmp(p->text, "/") == 0;
	return strcmp(p->text, "*") == 0;
}

static bool loc_before(struct loc a, struct loc b)
{
	return a.file != b.file ? a.file < b.file : a.start < b.start;
}

static bool same_loc(struct loc a, struct loc b)
{
	return a.file == b.file && a.start == b.start;
}

/* ---- glob coverage -----------------------------------------------------------------
 *
 * Does every target that glob B matches also match A?  Both are cut into
 * tokens and B is covered segment by segment: a token of A covers a run of
 * B's tokens when every string that run can produce is one A's token
 * produces.  This proves coverage or gives up; it never claims it wrongly. */

enum gtok_kind {
	G_CHAR,  /* a literal byte (never '/' in a path) */
	G_SLASH,
	G_VAR,   /* a context value: an absolute path, so it starts with '/' */
	G_ONE,   /* '?' */
	G_SET,   /* [...] */
	G_STAR,  /* '*' within a component */
	G_ANY,   /* '**' inside a component, '*' outside paths: anything */
	G_TREE,  /* a trailing or inner "/" "**" component, or the subtree below a
		  * literal: "" or "/" followed by anything */
};

struct gtok {
	enum gtok_kind k;
	const char *s;
	size_t n;
};

struct gseq {
	struct gtok *t;
	size_t n, cap;
};

static void gpush(struct gseq *q, enum gtok_kind k, const char *s, size_t n)
{
	struct gtok t = { k, s, n };
	VEC_PUSH(q->t, q->n, q->cap, t);
}

/* Tokens of an IR pattern text, read the way match.c compiles globs. */
static void gtokenize(struct gseq *q, const char *text, bool path, bool literal)
{
	size_t len = strlen(text);
	memset(q, 0, sizeof(*q));
	if (path && literal && strcmp(text, "/") == 0) {
		gpush(q, G_SLASH, text, 1);
		gpush(q, G_ANY, text, 0);
		return;
	}
	for (size_t i = 0; i < len; i++) {
		const char *c = text + i;
		if (*c == IR_VAR_OPEN) {
			const char *end = strchr(c, IR_VAR_CLOSE);
			gpush(q, G_VAR, c, (size_t)(end - c) + 1);
			i = (size_t)(end - text);
		} else if (literal) {
			gpush(q, path && *c == '/' ? G_SLASH : G_CHAR, c, 1);
		} else if (path && *c == '/' && c[1] == '*' && c[2] == '*' && (c[3] == '\0' || c[3] == '/')) {
			gpush(q, G_TREE, c, 3);
			i += 2;
		} else if (*c == '*' && c[1] == '*') {
			gpush(q, G_ANY, c, 2);
			i++;
		} else if (*c == '*') {
			gpush(q, path ? G_STAR : G_ANY, c, 1);
		} else if (*c == '?') {
			gpush(q, G_ONE, c, 1);
		} else if (*c == '[' && strchr(c + 1 + (c[1] == ']'), ']')) {
			const char *close = strchr(c + 1 + (c[1] == ']'), ']');
			gpush(q, G_SET, c, (size_t)(close - c) + 1);
			i = (size_t)(close - text);
		} else {
			gpush(q, path && *c == '/' ? G_SLASH : G_CHAR, c, 1);
		}
	}
	if (literal && path)
		gpush(q, G_TREE, text + len, 0); /* a literal path covers its subtree */
}

/* A set of plain characters, no negation, range or class: [abc]. */
static bool set_plain(const struct gtok *t)
{
	if (t->s[1] == '!' || t->s[1] == '^')
		return false;
	for (size_t i = 1; i + 1 < t->n; i++)
		if (t->s[i] == '-' || t->s[i] == '\\' || t->s[i] == '[' || t->s[i] == '/')
			return false;
	return true;
}

/* One token of B that yields a single byte other than '/'. */
static bool one_byte(const struct gtok *t)
{
	return t->k == G_CHAR || t->k == G_ONE || (t->k == G_SET && set_plain(t));
}

static bool tok_equal(const struct gtok *a, const struct gtok *b)
{
	return a->k == b->k && a->n == b->n && memcmp(a->s, b->s, a->n) == 0;
}

struct cover {
	const struct gseq *a, *b;
	signed char *memo; /* (i, j, mode) -> -1 unknown, 0, 1 */
};

/* COV_IN_TREE: A[i] is a G_TREE that has taken its '/' and now matches
 * anything. */
enum cov_mode { COV_TOKEN, COV_IN_TREE, COV_MODES };

static bool cov(struct cover *c, size_t i, size_t j, enum cov_mode mode);

static bool cov_memo(struct cover *c, size_t i, size_t j, enum cov_mode mode)
{
	size_t k = ((i * (c->b->n + 1)) + j) * COV_MODES + (size_t)mode;
	if (c->memo[k] < 0)
		c->memo[k] = cov(c, i, j, mode);
	return c->memo[k];
}

/* A[i..] covers B[j..] where A[i] is a set (a): B[j] (b, NULL past the
 * end) must be that set or one of its plain bytes.  Apart from cov, whose
 * switch stays one line a kind of token. */
static bool cov_set(struct cover *c, size_t i, size_t j, const struct gtok *a,
		    const struct gtok *b)
{
	if (!b)
		return false;
	if (tok_equal(a, b) || (b->k == G_CHAR && set_plain(a) && memchr(a->s + 1, b->s[0], a->n - 2)))
		return cov_memo(c, i + 1, j + 1, COV_TOKEN);
	return false;
}

/* A[i..] covers B[j..] where A[i] is "**": it matches nothing, B's own
 * "**", or enters B's tree at a separator or variable.  Apart from cov, as
 * cov_set is. */
static bool cov_tree(struct cover *c, size_t i, size_t j, const struct gtok *b)
{
	if (cov_memo(c, i + 1, j, COV_TOKEN))
		return true;
	if (b && b->k == G_TREE)
		return cov_memo(c, i + 1, j + 1, COV_TOKEN);
	if (b && (b->k == G_SLASH || b->k == G_VAR))
		return cov_memo(c, i, j + 1, COV_IN_TREE);
	return false;
}

/* A[i..] covers B[j..] (in mode). */
static bool cov(struct cover *c, size_t i, size_t j, enum cov_mode mode)
{
	const struct gseq *A = c->a, *B = c->b;
	if (i == A->n)
		return j == B->n;
	const struct gtok *a = &A->t[i], *b = j < B->n ? &B->t[j] : NULL;
	if (mode == COV_IN_TREE)
		return cov_memo(c, i + 1, j, COV_TOKEN) ||
		       (b && cov_memo(c, i, j + 1, COV_IN_TREE));
	switch (a->k) {
	case G_CHAR:
	case G_SLASH:
	case G_VAR:
		return b && tok_equal(a, b) && cov_memo(c, i + 1, j + 1, COV_TOKEN);
	case G_ONE:
		return b && one_byte(b) && cov_memo(c, i + 1, j + 1, COV_TOKEN);
	case G_SET:
		return cov_set(c, i, j, a, b);
	case G_STAR:
		return cov_memo(c, i + 1, j, COV_TOKEN) ||
		       (b && (one_byte(b) || b->k == G_STAR) && cov_memo(c, i, j + 1, COV_TOKEN));
	case G_ANY:
		return cov_memo(c, i + 1, j, COV_TOKEN) ||
		       (b && cov_memo(c, i, j + 1, COV_TOKEN));
	case G_TREE:
		return cov_tree(c, i, j, b);
	}
	return false;
}

/* Does pattern A match every target pattern B matches?  Exact for the
 * cases it accepts; false when it cannot tell. */
static bool glob_covers(enum ir_op op, const struct ir_pattern *a, const struct ir_pattern *b)
{
	bool path = is_path_op(op);
	if (op != IR_READ && op != IR_WRITE && op != IR_TOOL)
		return false;
	if (!a->text || a->regex || !b->text || b->regex || a->kind == IR_PAT_OPAQUE ||
	    b->kind == IR_PAT_OPAQUE)
		return false;
	/* an exact path tokenizes as a glob without wildcards: no subtree */
	struct gseq A, B;
	gtokenize(&A, a->text, path, a->kind == IR_PAT_LITERAL);
	gtokenize(&B, b->text, path, b->kind == IR_PAT_LITERAL);
	bool ok = false;
	size_t cells = (A.n + 1) * (B.n + 1) * COV_MODES;
	if (cells <= (1u << 20)) {
		struct cover c = { &A, &B, xmalloc(cells) };
		memset(c.memo, -1, cells);
		ok = cov(&c, 0, 0, COV_TOKEN);
		free(c.memo);
	}
	free(A.t);
	free(B.t);
	return ok;
}

/* ---- rules that never decide ------------------------------------------------------ */

enum shadow_kind {
	SHADOW_OVERRIDE,  /* the same requests, from a nearer place */
	SHADOW_REDUNDANT, /* the same requests, decided the same */
};

static void report_shadow(struct linter *l, const struct ir_rule *b, const struct ir_rule *a,
			  enum shadow_kind kind)
{
	char *bt = lint_rule_text(b), *at = lint_rule_text(a);
	char *key = xasprintf("%s|%u:%u", bt, a->origin.file, a->origin.start);
	struct diag *f;
	if (kind == SHADOW_OVERRIDE) {
		f = lint_report(l, &b->origin, key,
				"'%s' never decides in preset '%s', which overrides it with '%s'", bt,
				a->from ? a->from : "?", at);
		diag_hint(f, "if the override is meant, say so with '# cordon: ignore[shadowed-rule] "
			     "REASON' on the line above this rule");
	} else {
		f = lint_report(l, &b->origin, key,
				"'%s' never changes a decision: '%s' matches every request it matches, "
				"with the same effect",
				bt, at);
		diag_hint(f, "remove the rule that adds nothing");
	}
	diag_note(f, a->origin, "the rule that decides instead");
	free(key);
	free(bt);
	free(at);
}

/* Identical patterns sit next to each other in the canonical order, the
 * winner (nearest tier, most severe) first. */
static size_t group_end(const struct ir_preset *p, size_t i)
{
	size_t j = i + 1;
	while (j < p->nrules && same_pattern(&p->rules[i], &p->rules[j]))
		j++;
	return j;
}

static void shadow_identical(struct linter *l, const struct ir_preset *p, size_t from, size_t to)
{
	const struct ir_rule *w = &p->rules[from];
	for (size_t i = from + 1; i < to; i++) {
		const struct ir_rule *r = &p->rules[i];
		if (r->tier != w->tier && r->effect != w->effect)
			report_shadow(l, r, w, SHADOW_OVERRIDE);
	}
}

static void shadow_found(struct linter *l, const struct ir_rule *loser, const struct ir_rule *winner,
			 bool override)
{
	report_shadow(l, loser, winner, override ? SHADOW_OVERRIDE : SHADOW_REDUNDANT);
}

/* A write that a protection of the preset always refuses. */
static void shadow_protected(struct linter *l, const struct ir_preset *p, const struct ir_rule *r)
{
	if (r->op != IR_WRITE || r->effect == IR_DENY)
		return;
	for (size_t i = 0; i < p->nprotect; i++) {
		const struct ir_protect *pr = &p->protect[i];
		if (!glob_covers(IR_WRITE, &pr->pat, &r->pat))
			continue;
		char *rt = lint_rule_text(r);
		struct strbuf shown;
		sb_init(&shown);
		lint_show_pattern(&shown, &pr->pat);
		char *key = xasprintf("%s|protect %u:%u", rt, pr->origin.file, pr->origin.start);
		struct diag *f = lint_report(
			l, &r->origin, key,
			"'%s' never decides in preset '%s': every path it matches is protected by "
			"protect %s, which refuses every write",
			rt, p->name, shown.buf);
		diag_note(f, pr->origin, "the protection");
		diag_hint(f, "remove the rule, or unprotect the path in this preset if the agent "
			     "must write there");
		free(key);
		free(rt);
		sb_free(&shown);
		return;
	}
}

void lint_shadowed_rule(struct linter *l)
{
	for (size_t k = 0; k < l->ir->npresets; k++) {
		size_t pi = l->order[k];
		const struct ir_preset *p = &l->ir->presets[pi];
		for (size_t i = 0; i < p->nrules;) {
			size_t end = group_end(p, i);
			shadow_identical(l, p, i, end);
			i = end;
		}
		lint_shadow_equal(l, k, shadow_found);
		for (size_t i = 0; i < p->nrules; i++)
			shadow_protected(l, p, &p->rules[i]);
	}
}

/* The same rule written twice in one tier: twice in one list, or in two
 * statements (reported at the later one).  t: the rule's text. */
static void report_written_twice(struct linter *l, const struct ir_rule *a,
				 const struct ir_rule *b, const char *t)
{
	struct loc first = a->origin, later = b->origin;
	if (loc_before(later, first)) {
		first = b->origin;
		later = a->origin;
	}
	struct diag *f;
	if (same_loc(first, later)) {
		f = lint_report(l, &later, t,
				"rule '%s' comes twice from this "
				"statement: a list gives the pattern twice",
				t);
		diag_hint(f, "remove the repeated list element");
	} else {
		f = lint_report(l, &later, t, "rule '%s' is written twice", t);
		diag_note(f, first, "first written here");
		diag_hint(f, "remove one of them");
	}
}

/* Rule a, earlier in its group, repeats b with the same effect: written
 * twice in one tier, or nearer than the inherited or top-level b. */
static void report_duplicate(struct linter *l, const struct ir_rule *a, const struct ir_rule *b)
{
	char *t = lint_rule_text(a);
	if (a->tier == b->tier) {
		report_written_twice(l, a, b, t);
	} else {
		/* a is nearer: it repeats the inherited or top-level b. */
		struct diag *f = lint_report(l, &a->origin, t,
					     "rule '%s' repeats %s rule with the same effect", t,
					     b->from ? "an inherited" : "a top-level");
		diag_note(f, b->origin, "the rule it repeats");
		diag_hint(f, "remove it: the %s rule already decides the same way",
			  b->from ? "inherited" : "top-level");
	}
	free(t);
}

/* The first rule of rules[g..j) with the effect of rules[j], or NULL:
 * the rules of a group have the same pattern, so that one repeats it. */
static const struct ir_rule *same_effect_before(const struct ir_preset *p, size_t g, size_t j)
{
	for (size_t i = g; i < j; i++)
		if (p->rules[i].effect == p->rules[j].effect)
			return &p->rules[i];
	return NULL;
}

void lint_duplicate_rule(struct linter *l)
{
	for (size_t k = 0; k < l->ir->npresets; k++) {
		const struct ir_preset *p = &l->ir->presets[l->order[k]];
		for (size_t g = 0; g < p->nrules;) {
			size_t end = group_end(p, g);
			for (size_t j = g + 1; j < end; j++) {
				const struct ir_rule *a = same_effect_before(p, g, j);
				if (a)
					report_duplicate(l, a, &p->rules[j]);
			}
			g = end;
		}
	}
}

void lint_conflicting_rules(struct linter *l)
{
	for (size_t k = 0; k < l->ir->npresets; k++) {
		size_t pi = l->order[k];
		const struct ir_preset *p = &l->ir->presets[pi];
		for (size_t g = 0; g < p->nrules;) {
			size_t end = group_end(p, g);
			for (size_t j = g + 1; j < end; j++) {
				const struct ir_rule *b = &p->rules[j];
				for (size_t i = g; i < j; i++) {
					const struct ir_rule *a = &p->rules[i];
					if (a->tier != b->tier || a->effect == b->effect)
						continue;
					char *bt = lint_rule_text(b), *at = lint_rule_text(a);
					char *key = xasprintf("%s|%s", bt, at);
					struct diag *f = lint_report(
						l, &b->origin, key,
						"'%s' conflicts with '%s': the same pattern with another "
						"effect, and %s always wins, so this rule never decides",
						bt, at, ir_effect_names[a->effect]);
					diag_note(f, a->origin, "the rule that wins");
					diag_hint(f, "keep one effect for the pattern");
					free(key);
					free(bt);
					free(at);
					break;
				}
			}
			g = end;
		}
	}
}

/* ---- grants ------------------------------------------------------------------------- */

/* Programs that run whatever code they are given. */
static const char *const interpreters[] = {
	"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "busybox",
	"python", "python2", "python3", "perl", "ruby", "node", "nodejs", "deno", "bun",
	"php", "lua", "luajit", "tclsh", "pwsh", "powershell", "osascript", "Rscript", "julia",
	"env", "sudo", "su", "eval", "exec", "xargs",
};

/* "*", an interpreter alone, or an interpreter with its run-this-code flag. */
static bool runs_anything(const char *cmd)
{
	static const char *const code_flags[] = { "-c", "-e", "-E", "-r", "--eval", "-x" };
	char word[64];
	size_t n = strcspn(cmd, " ");
	if (strcmp(cmd, "*") == 0)
		return true;
	if (n == 0 || n >= sizeof(word))
		return false;
	memcpy(word, cmd, n);
	word[n] = '\0';
	/* python3.12 is python3 */
	char *dot = strchr(word, '.');
	if (dot && dot != word && strspn(dot + 1, "0123456789") == strlen(dot + 1))
		*dot = '\0';
	bool interp = false;
	for (size_t i = 0; i < ARRAY_SIZE(interpreters) && !interp; i++)
		interp = strcmp(word, interpreters[i]) == 0;
	if (!interp)
		return false;
	if (!cmd[n])
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(code_flags); i++)
		if (strcmp(cmd + n + 1, code_flags[i]) == 0)
			return true;
	return false;
}

void lint_broad_grant(struct linter *l)
{
	for (size_t k = 0; k < l->ir->npresets; k++) {
		size_t pi = l->order[k];
		const struct ir_preset *p = &l->ir->presets[pi];
		bool restricted = p->sandbox == IR_SANDBOX_REQUIRED;
		for (size_t i = 0; i < p->nrules; i++) {
			const struct ir_rule *r = &p->rules[i];
			if (r->effect != IR_ALLOW || !r->pat.text || r->pat.regex)
				continue;
			char *t = lint_rule_text(r);
			struct diag *f = NULL;
			if (restricted && r->op == IR_WRITE && matches_everything(r->op, &r->pat)) {
				f = lint_report(l, &r->origin, t,
						"'%s' lets commands in the sandbox of restricted preset "
						"'%s' write everywhere the user can",
						t, p->name);
				diag_hint(f, "allow the places the work needs: write \"${workspace}\" "
					     "allow; write \"${tmp}\" allow;");
			} else if (restricted && r->op == IR_NET && strcmp(r->pat.text, "*") == 0) {
				f = lint_report(l, &r->origin, t,
						"'%s' lets the sandbox of restricted preset '%s' reach "
						"every host through the egress proxy (local and private "
						"addresses stay refused): anything read can be sent "
						"anywhere",
						t, p->name);
				diag_hint(f, "allow the hosts the work needs, e.g. net "
					     "\"registry.npmjs.org:443\" allow;");
			} else if (!restricted && r->op == IR_EXEC && runs_anything(r->pat.text)) {
				f = lint_report(l, &r->origin, t,
						"'%s' runs %s without a sandbox in preset '%s': any "
						"program can run with the user's full rights",
						t, strcmp(r->pat.text, "*") == 0 ? "every command" : "a shell or interpreter",
						p->name);
				diag_hint(f, "allow the programs the work needs, or make the preset "
					     "'sandbox required'");
			}
			free(t);
		}
	}
}

void lint_ask_under_never(struct linter *l)
{
	for (size_t k = 0; k < l->ir->npresets; k++) {
		size_t pi = l->order[k];
		const struct ir_preset *p = &l->ir->presets[pi];
		if (p->approval != IR_APPROVAL_NEVER)
			continue;
		for (size_t i = 0; i < p->nrules; i++) {
			const struct ir_rule *r = &p->rules[i];
			if (r->effect != IR_ASK || r->tier != 0)
				continue;
			char *t = lint_rule_text(r);
			struct diag *f = lint_report(
				l, &r->origin, t,
				"'%s' asks, but preset '%s' has approval never: nobody can approve, "
				"so it denies",
				t, p->name);
			diag_hint(f, "write deny (with a reason) to say what happens");
			free(t);
		}
	}
}

/* Why a net pattern's host can match no contact, or NULL.  A contact is a
 * DNS name (letters, digits, '-', '_', '.'), an IPv4 address, or an IPv6
 * address (bare or in brackets); "unix" names local sockets, which have no
 * port. */
static const char *net_never_why(const char *text)
{
	const char *colon = strchr(text, ':');
	size_t n = strlen(text);
	if (text[0] == '[') {
		const char *close = strchr(text, ']');
		size_t k = strspn(text + 1, "0123456789abcdef:.*?");
		return close && text + 1 + k == close ? NULL
						      : "an IPv6 address has only hex digits, ':' "
							"and '.' inside its brackets";
	}
	if (colon && strchr(colon + 1, ':'))
		return strspn(text, "0123456789abcdef:.*?") == n
			       ? NULL
			       : "with more than one ':' it reads as an IPv6 address, which has only "
				 "hex digits, ':' and '.' (write host:port with one ':', an IPv6 address "
				 "with a port in brackets)";
	size_t hl = colon ? (size_t)(colon - text) : n;
	if (strspn(text, "abcdefghijklmnopqrstuvwxyz0123456789-_.*?") < hl)
		return "a host name has only letters, digits, '-', '_' and '.'";
	if (colon && hl == 4 && strncmp(text, "unix", 4) == 0)
		return "\"unix\" names local sockets, which have no port";
	return NULL;
}

void lint_net_never_matches(struct linter *l)
{
	for (size_t k = 0; k < l->ir->npresets; k++) {
		const struct ir_preset *p = LINT_PRESET(l, k);
		for (size_t i = 0; i < p->nrules; i++) {
			const struct ir_rule *r = &p->rules[i];
			const char *why;
			if (r->op != IR_NET || !r->pat.text || r->pat.regex ||
			    !(why = net_never_why(r->pat.text)))
				continue;
			char *t = lint_rule_text(r);
			struct diag *f =
				lint_report(l, &r->origin, t, "'%s' can never match: %s", t, why);
			diag_hint(f, "one host a rule, as the contact names it: net \"registry.npmjs.org:443\" "
				     "allow; net \"*.pythonhosted.org\" allow;");
			free(t);
		}
	}
}

/* ---- what the evaluator decides ----------------------------------------------------- */

struct probe {
	const char *shown;   /* as the policy would write it */
	const char *target;  /* in the representative context (lint.c) */
};

struct finding_group {
	struct loc at;
	struct strbuf list;
	const char *first;
};

/* Ask the evaluator of each preset about each target; group the targets an
 * allow decides by the rule that allowed them, and report each group. */
static void probe_allowed(struct linter *l, enum ir_op op, const struct probe *probes, size_t n,
			  void (*report)(struct linter *l, const struct ir_preset *p,
					 const struct ir_rule *rule, const struct finding_group *g))
{
	for (size_t k = 0; k < l->ir->npresets; k++) {
		size_t pi = l->order[k];
		const struct ir_preset *p = &l->ir->presets[pi];
		const cordon_evaluator *ev = lint_evaluator(l, pi);
		struct finding_group *groups = NULL;
		size_t ngroups = 0, cap = 0;
		if (!ev)
			continue;
		for (size_t i = 0; i < n; i++) {
			struct cordon_request req = { .op = (enum cordon_op)op, .target = probes[i].target };
			char *err = NULL;
			cordon_decision *d = cordon_evaluate(ev, &req, &err);
			free(err);
			struct loc at;
			if (d && cordon_decision_effect(d) == CORDON_ALLOW &&
			    lint_origin_loc(l, p, cordon_decision_rule(d), &at)) {
				size_t g;
				for (g = 0; g < ngroups && !same_loc(groups[g].at, at); g++)
					;
				if (g == ngroups) {
					struct finding_group ng = { .at = at, .first = probes[i].shown };
					sb_init(&ng.list);
					VEC_PUSH(groups, ngroups, cap, ng);
				}
				sb_addf(&groups[g].list, "%s%s", groups[g].list.len ? ", " : "",
					probes[i].shown);
			}
			cordon_decision_free(d);
		}
		for (size_t g = 0; g < ngroups; g++) {
			const struct ir_rule *rule = NULL;
			for (size_t i = 0; i < p->nrules && !rule; i++)
				if (same_loc(p->rules[i].origin, groups[g].at) && p->rules[i].op == op &&
				    p->rules[i].effect == IR_ALLOW)
					rule = &p->rules[i];
			if (rule)
				report(l, p, rule, &groups[g]);
			sb_free(&groups[g].list);
		}
		free(groups);
	}
}

static const struct probe sensitive_writes[] = {
	{ "${workspace}/.git/hooks", "/ws/.git/hooks/pre-commit" },
	{ "${workspace}/.git/config", "/ws/.git/config" },
	{ "~/.bashrc", "/home/u/.bashrc" },
	{ "~/.bash_profile", "/home/u/.bash_profile" },
	{ "~/.profile", "/home/u/.profile" },
	{ "~/.zshrc", "/home/u/.zshrc" },
	{ "~/.ssh", "/home/u/.ssh/authorized_keys" },
	{ "${agent_dir}", "/ws/.cordon/state.json" },
	{ "${session_dir}", "/ws/.cordon/sessions/lint/log.jsonl" },
};

static void report_sensitive(struct linter *l, const struct ir_preset *p,
			     const struct ir_rule *rule, const struct finding_group *g)
{
	char *t = lint_rule_text(rule);
	char *key = xasprintf("%s|%s", t, g->list.buf);
	struct diag *f = lint_report(
		l, &g->at, key, "in preset '%s', '%s' makes writable what runs code or holds keys: %s",
		p->name, t, g->list.buf);
	diag_hint(f, "protect them, e.g. protect \"%s\"; (the agent's storage is shown inside "
		     "the workspace, as some hosts keep it)",
		  g->first);
	free(key);
	free(t);
}

void lint_unprotected_sensitive(struct linter *l)
{
	probe_allowed(l, IR_WRITE, sensitive_writes, ARRAY_SIZE(sensitive_writes), report_sensitive);
}

static const struct probe secret_reads[] = {
	{ "~/.ssh", "/home/u/.ssh/id_ed25519" },
	{ "~/.aws", "/home/u/.aws/credentials" },
	{ "~/.gnupg", "/home/u/.gnupg/private-keys-v1.d/key.key" },
	{ ".env files", "/ws/.env" },
};

static void report_readable(struct linter *l, const struct ir_preset *p,
			    const struct ir_rule *rule, const struct finding_group *g)
{
	char *t = lint_rule_text(rule);
	char *key = xasprintf("%s|%s", t, g->list.buf);
	struct diag *f = lint_report(l, &g->at, key,
				     "in preset '%s', '%s' lets the agent read credentials: %s",
				     p->name, t, g->list.buf);
	diag_hint(f, "deny them, e.g. read \"~/.ssh\", \"~/.aws\", \"~/.gnupg\" deny; read "
		     "\"${workspace}/**/.env\" deny;");
	free(key);
	free(t);
}

void lint_readable_secret(struct linter *l)
{
	probe_allowed(l, IR_READ, secret_reads, ARRAY_SIZE(secret_reads), report_readable);
}

/* Where common tools keep tokens and passwords, in the representative
 * context; rules/default.cordon denies each (its credential_stores and
 * env_files lets). */
static const struct probe credential_stores[] = {
	{ "~/.config/gh/hosts.yml", "/home/u/.config/gh/hosts.yml" },
	{ "~/.git-credentials", "/home/u/.git-credentials" },
	{ "~/.config/git/credentials", "/home/u/.config/git/credentials" },
	{ "~/.npmrc", "/home/u/.npmrc" },
	{ "~/.yarnrc.yml", "/home/u/.yarnrc.yml" },
	{ "~/.pypirc", "/home/u/.pypirc" },
	{ "~/.cargo/credentials.toml", "/home/u/.cargo/credentials.toml" },
	{ "~/.gem/credentials", "/home/u/.gem/credentials" },
	{ "~/.vault-token", "/home/u/.vault-token" },
	{ "~/.docker/config.json", "/home/u/.docker/config.json" },
	{ "~/.kube/config", "/home/u/.kube/config" },
	{ "~/.config/gcloud", "/home/u/.config/gcloud/credentials.db" },
	{ "~/.azure", "/home/u/.azure/msal_token_cache.json" },
	{ "~/.terraform.d/credentials.tfrc.json", "/home/u/.terraform.d/credentials.tfrc.json" },
	{ "~/.bash_history", "/home/u/.bash_history" },
	{ "~/.zsh_history", "/home/u/.zsh_history" },
	{ "~/.python_history", "/home/u/.python_history" },
	{ "~/.psql_history", "/home/u/.psql_history" },
	{ "~/.mysql_history", "/home/u/.mysql_history" },
	{ "/etc/shadow", "/etc/shadow" },
	{ "/etc/gshadow", "/etc/gshadow" },
	{ "~/.claude/.credentials.json", "/home/u/.claude/.credentials.json" },
	{ "~/.codex/auth.json", "/home/u/.codex/auth.json" },
	{ "~/.gemini/oauth_creds.json", "/home/u/.gemini/oauth_creds.json" },
	{ "~/.pgpass", "/home/u/.pgpass" },
	{ "~/.my.cnf", "/home/u/.my.cnf" },
	{ "~/.config/containers/auth.json", "/home/u/.config/containers/auth.json" },
	{ "~/.cache/huggingface/token", "/home/u/.cache/huggingface/token" },
	{ "${workspace}/**/.env.*", "/ws/app/.env.local" },
	{ "${workspace}/**/.envrc", "/ws/.envrc" },
};

static void report_credential(struct linter *l, const struct ir_preset *p,
			      const struct ir_rule *rule, const struct finding_group *g)
{
	char *t = lint_rule_text(rule);
	char *key = xasprintf("%s|%s", t, g->list.buf);
	struct diag *f = lint_report(
		l, &g->at, key, "in preset '%s', '%s' leaves credential stores readable: %s", p->name,
		t, g->list.buf);
	diag_hint(f, "deny them, e.g. let stores = [\"%s\"]; read $stores deny; (the default "
		     "policy's credential_stores lists common ones)",
		  g->first);
	free(key);
	free(t);
}

void lint_credential_readable(struct linter *l)
{
	probe_allowed(l, IR_READ, credential_stores, ARRAY_SIZE(credential_stores),
		      report_credential);
}

/* Whether the write the evaluator of preset p decided in d was refused by
 * one of p's protections (not merely by a rule, which a lower layer or an
 * edit of the preset can outrank). */
static bool denied_by_protection(struct linter *l, const struct ir_preset *p,
				 const cordon_decision *d)
{
	struct loc at;
	if (!d || cordon_decision_effect(d) != CORDON_DENY ||
	    !lint_origin_loc(l, p, cordon_decision_rule(d), &at))
		return false;
	for (size_t i = 0; i < p->nprotect; i++)
		if (same_loc(p->protect[i].origin, at))
			return true;
	return false;
}

void lint_console_spool_writable(struct linter *l)
{
	static const char answer[] = "/ws/.cordon/console/answers/0123456789abcdef.json";
	for (size_t k = 0; k < l->ir->npresets; k++) {
		size_t pi = l->order[k];
		const struct ir_preset *p = &l->ir->presets[pi];
		const cordon_evaluator *ev = p->approval == IR_APPROVAL_CONSOLE
						     ? lint_evaluator(l, pi)
						     : NULL;
		if (!ev)
			continue;
		struct cordon_request req = { .op = CORDON_WRITE, .target = answer };
		char *err = NULL;
		cordon_decision *d = cordon_evaluate(ev, &req, &err);
		free(err);
		if (!denied_by_protection(l, p, d)) {
			struct diag *f = lint_report(
				l, &p->loc, p->name,
				"preset '%s' sends its asks to the approval console, but the console's "
				"spool in ${agent_dir} is not protected there: the agent could write "
				"answers to its own asks (%s: %s)",
				p->name, answer, d ? cordon_effect_name(cordon_decision_effect(d)) : "?");
			diag_hint(f, "protect \"${agent_dir}\"; at the top level or in the preset");
		}
		cordon_decision_free(d);
	}
}
