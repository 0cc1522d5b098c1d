/* Deciding a shell command: parse it (shell.h), list what it will do
 * (command.h), and judge every operation by the preset's rules.  Each
 * operation becomes one record of the decision -- the preview a person
 * approves -- and the worst of them is the decision.
 *
 * Analysis only adds severity: the command as a whole is still decided as
 * before, and a command that cannot be parsed is never allowed.
 *
 * A path known only in part is a region: a directory R and a pattern.  Its
 * decision is the rule that wins for an ordinary child of R, made worse by
 * every rule or protection the pattern can reach inside R that would beat
 * it.  A literal reached by a glob is reached for sure (the shell expands
 * globs against the file system); anything reached through a value known
 * only at run time ($X, an unknown cwd) or through a glob or regex rule
 * might be, and can make the decision ask but not deny. */
#include "config.h"

#include "canon.h"
#include "command.h"
#include "eval.h"
#include "region.h"

#include <stdlib.h>
#include <string.h>

#define MAX_REACHED 32 /* records per region, the most severe first */

static enum ir_effect under_approval(const cordon_evaluator *ev, enum ir_effect e)
{
	return e == IR_ASK && ev->preset->approval == IR_APPROVAL_NEVER ? IR_DENY : e;
}

static void set_last(cordon_decision *d, const struct cmd_op *o, const char *shown_target)
{
	struct dec_op *last = &d->ops[d->nops - 1];
	free(last->detail);
	last->detail = xstrdup(o->detail);
	last->maybe = o->maybe;
	if (shown_target) {
		free(last->target);
		last->target = xstrdup(shown_target);
	}
}

/* Does rule m apply somewhere in the region?  *sure: for every path the
 * region's word expands to there. */
static bool rule_reached(const struct matcher *m, struct region *g, bool *sure)
{
	*sure = false;
	if (m->kind == IR_PAT_LITERAL) {
		*sure = true;
		return region_reaches(g, m->text);
	}
	if (m->floating || !m->anchor)
		return true;
	/* A glob or regex under its anchor: reached when the region and
	 * the anchor's tree meet. */
	size_t an = strlen(m->anchor), rn = g->rn;
	const char *root = g->root;
	bool root_inside = strcmp(m->anchor, "/") == 0 ||
			   (rn >= an && memcmp(root, m->anchor, an) == 0 &&
			    (root[an] == '/' || root[an] == '\0'));
	return root_inside || region_reaches(g, m->anchor);
}

struct reached {
	const struct ev_rule *r;
	enum ir_effect effect;
	bool protect, sure, contained;
};

/* What the sandbox does not contain first, then the most severe; between equals, the stricter rule (a deny that
 * may be reached before an ask that is). */
static int reached_cmp(const void *a, const void *b)
{
	const struct reached *x = a, *y = b;
	if (x->contained != y->contained)
		return (int)x->contained - (int)y->contained;
	if (x->effect != y->effect)
		return (int)y->effect - (int)x->effect;
	return (int)y->r->effect - (int)x->r->effect;
}

/* A glob read deny or ask whose matches all lie below a directory: in the
 * sandbox, `cordon run` masks each of them when the call starts
 * (host_masks.c). */
static bool masked_at_launch(const struct ev_rule *r)
{
	if (r->op != IR_READ || r->effect == IR_ALLOW || r->m.kind != IR_PAT_GLOB || !r->m.text ||
	    r->m.regex)
		return false;
	size_t lit = strcspn(r->m.text, "*?[");
	const char *slash = memrchr(r->m.text, '/', lit);
	return slash && slash > r->m.text;
}

static bool path_meets(const char *a, const char *b)
{
	size_t an = strlen(a), bn = strlen(b), n = an < bn ? an : bn;
	if (strcmp(a, "/") == 0 || strcmp(b, "/") == 0)
		return true;
	return memcmp(a, b, n) == 0 && (a[n] == '/' || a[n] == '\0' || b[n] == '/' || b[n] == '\0');
}

/* Does the sandbox of a sandboxed request refuse, by itself, what rule r
 * (a deny or ask, or a protection) would refuse?  What the lowering makes
 * of it (lower.c): a literal read is masked or lies outside the read roots;
 * a glob read below a directory is masked at launch; a literal write or
 * protection is read-only or outside the write roots, and so is a write
 * glob that meets no write root (the fallback, every path, is what lies outside
 * them).  Regexes, glob protections, exec and net rules, and write globs
 * inside a write root are enforced by cordon alone. */
static bool sandbox_refuses(const cordon_evaluator *ev, const cordon_decision *d,
			    const struct ev_rule *r, bool protect)
{
	if (!d->sandboxed || !r || (!protect && r->effect == IR_ALLOW) || r->m.regex)
		return false;
	if (r->m.kind == IR_PAT_LITERAL)
		return r->op == IR_READ || r->op == IR_WRITE;
	if (r->op == IR_READ)
		return !protect && masked_at_launch(r);
	if (r->op != IR_WRITE || protect || r->m.kind != IR_PAT_GLOB || !r->m.text)
		return false;
	if (strcmp(r->m.text, "/**") == 0)
		return true;
	if (!r->m.anchor || r->m.floating)
		return false;
	for (size_t i = 0; i < ev->nrules; i++) {
		const struct ev_rule *w = &ev->rules[i];
		if (w->op == IR_WRITE && w->effect == IR_ALLOW &&
		    (w->m.kind != IR_PAT_LITERAL || path_meets(w->m.text, r->m.anchor)))
			return false;
	}
	return true;
}

/* The last record: reached only at run time, and refused by the sandbox
 * itself, so it needs no person; it stays in the preview. */
static void contain_last(cordon_decision *d, const char *what)
{
	struct dec_op *last = &d->ops[d->nops - 1];
	char *reason = xstrcat(last->reason ? last->reason : "",
			       "; known only at run time and contained: the sandbox refuses it "
			       "by itself (",
			       what, "), so it needs no approval", (char *)NULL);
	free(last->reason);
	last->reason = reason;
	char *detail = xstrcat(last->detail ? last->detail : "", ", contained by the sandbox",
			       (char *)NULL);
	free(last->detail);
	last->detail = detail;
	last->effect = IR_ALLOW;
	last->contained = true;
}

static const char *refusal(const struct ev_rule *r, bool protect)
{
	if (protect)
		return "a protected path is read-only";
	if (r->op == IR_READ)
		return "the path is masked";
	return "it lies outside the writable roots or is read-only";
}

static void decide_region(const cordon_evaluator *ev, cordon_decision *d, const struct cmd_op *o,
			  pcre2_match_data *md, struct canon_memo *memo, struct strbuf *trace)
{
	char *why = NULL;
	char *root = host_resolve(ev->host, o->target, strlen(o->target), NULL, memo, &why);
	if (!root) {
		ev_add_op(d, o->op, o->shown, IR_DENY, xasprintf("cannot resolve the path: %s", why),
			  NULL);
		set_last(d, o, NULL);
		free(why);
		return;
	}
	struct target t;
	const struct ev_rule *base;
	if (o->kind == CMD_PATH_EXACT) {
		target_prepare(&t, o->op, root, strlen(root), NULL);
		base = ev_decide_op(ev, d, &t, md, trace);
		target_free(&t);
		set_last(d, o, NULL);
		d->ops[d->nops - 1].shape = o->tree ? DEC_SHAPE_TREE : DEC_SHAPE_FILE;
		if (!o->tree) {
			free(root);
			return;
		}
	} else {
		/* An ordinary child of the region's directory. */
		if (trace)
			sb_addf(trace, "  region %s: paths below %s matching /%s/; an ordinary child "
				"first, shown as %s/\\x01\n",
				o->shown, root, o->pattern, strcmp(root, "/") == 0 ? "" : root);
		char *child = xasprintf("%s/\x01", strcmp(root, "/") == 0 ? "" : root);
		target_prepare(&t, o->op, child, strlen(child), NULL);
		base = ev_decide_op(ev, d, &t, md, trace);
		target_free(&t);
		free(child);
		char *shown = xasprintf("%s (in %s)", o->shown, root);
		set_last(d, o, shown);
		d->ops[d->nops - 1].shape = DEC_SHAPE_REGION;
		free(shown);
	}
	enum ir_effect base_effect = d->ops[d->nops - 1].effect;
	if (o->maybe && base_effect != IR_ALLOW && base && sandbox_refuses(ev, d, base, false)) {
		contain_last(d, refusal(base, false));
		base_effect = IR_ALLOW;
	}
	if (base_effect == IR_DENY) {
		free(root);
		return;
	}
	struct region g;
	if (region_init(&g, root, o->kind == CMD_PATH_EXACT ? NULL : o->pattern, o->tree) != 0) {
		/* Cannot happen for the patterns command.c writes; fail closed. */
		ev_add_op(d, o->op, o->shown, IR_DENY,
			  xstrdup("internal error: the path pattern does not compile"), NULL);
		free(root);
		return;
	}
	struct reached *hits = NULL;
	size_t nhits = 0, cap = 0;
	if (o->op == IR_WRITE) {
		for (size_t i = 0; i < ev->nprotect; i++) {
			bool sure;
			if (!rule_reached(&ev->protect[i].m, &g, &sure))
				continue;
			struct reached h = { &ev->protect[i], IR_DENY, true, sure && !o->maybe, false };
			if (!h.sure)
				h.effect = IR_ASK;
			if (!h.sure && sandbox_refuses(ev, d, h.r, true))
				h.contained = true;
			VEC_PUSH(hits, nhits, cap, h);
		}
	}
	for (size_t i = 0; i < ev->nrules; i++) {
		const struct ev_rule *r = &ev->rules[i];
		bool sure;
		if (r->op != o->op || r == base || r->effect <= base_effect)
			continue;
		if (base && !ev_rule_may_beat(ev, r, base))
			continue; /* never wins against the rule that covers the region */
		if (!rule_reached(&r->m, &g, &sure))
			continue;
		struct reached h = { r, r->effect, false, sure && !o->maybe, false };
		if (!h.sure && h.effect == IR_DENY)
			h.effect = IR_ASK;
		h.effect = under_approval(ev, h.effect);
		if (!h.sure && sandbox_refuses(ev, d, r, false))
			h.contained = true;
		if (h.effect > base_effect)
			VEC_PUSH(hits, nhits, cap, h);
	}
	sort_items(hits, nhits, sizeof(*hits), reached_cmp);
	/* Every record of the region has the same detail: formatted once. */
	char *via = nhits ? xstrcat(o->detail, ", via ", o->shown, (char *)NULL) : NULL;
	for (size_t i = 0; i < nhits && i < MAX_REACHED; i++) {
		const struct reached *h = &hits[i];
		const char *what = h->r->m.text ? h->r->m.text : h->r->m.regex;
		char *reason;
		/* Concatenated, not formatted: a script has thousands of these. */
		if (h->protect)
			reason = xstrcat(h->sure ? "reaches " : "may reach ", what,
					 ", which is protected: no write reaches it, not even an "
					 "approved one",
					 h->sure || h->contained ? "" : " (the path is known only at run time)",
					 (char *)NULL);
		else
			reason = xstrcat(h->sure ? "reaches " : "may reach ", what, ", where ",
					 h->r->reason ? h->r->reason
					 : h->r->effect == IR_DENY ? "it is denied"
								   : "it needs approval",
					 h->sure || h->contained
						 ? ""
						 : " (known only at run time, so it needs approval)",
					 h->effect == IR_DENY && h->r->effect == IR_ASK
						 ? "; approval is 'never', so it is denied"
						 : "",
					 (char *)NULL);
		if (trace)
			sb_addf(trace, "    %s %s -> %s (%s)\n", h->sure ? "reaches" : "may reach", what,
				ir_effect_names[h->effect], h->r->origin);
		ev_add_op(d, o->op, what, h->effect, reason, h->r->origin);
		free(d->ops[d->nops - 1].detail);
		d->ops[d->nops - 1].detail = xstrdup(via);
		d->ops[d->nops - 1].shape = DEC_SHAPE_REACHED;
		if (h->contained)
			contain_last(d, refusal(h->r, h->protect));
	}
	free(via);
	free(hits);
	region_free(&g);
	free(root);
}

static void decide_net(const cordon_evaluator *ev, cordon_decision *d, const struct cmd_op *o,
		       pcre2_match_data *md, struct strbuf *trace)
{
	struct target t;
	char *why = NULL;
	const char *host = o->maybe ? "unknown.invalid" : o->target;
	if (target_prepare(&t, IR_NET, host, strlen(host), &why) != 0) {
		ev_add_op(d, IR_NET, o->target, IR_DENY, why, NULL);
		set_last(d, o, NULL);
		return;
	}
	const struct ev_rule *base = ev_decide_op(ev, d, &t, md, trace);
	target_free(&t);
	set_last(d, o, o->maybe ? "(a host known only at run time)" : NULL);
	enum ir_effect base_effect = d->ops[d->nops - 1].effect;
	if (!o->maybe || base_effect == IR_DENY)
		return;
	/* Any host: a rule that might win for it can make this ask. */
	for (size_t i = 0; i < ev->nrules; i++) {
		const struct ev_rule *r = &ev->rules[i];
		if (r->op != IR_NET || r == base || r->effect <= base_effect ||
		    (base && !ev_rule_may_beat(ev, r, base)))
			continue;
		ev_add_op(d, IR_NET, r->m.text ? r->m.text : "*", under_approval(ev, IR_ASK),
			  xasprintf("the host is known only at run time and may be %s, where %s",
				    r->m.text ? r->m.text : r->m.regex,
				    r->reason ? r->reason : "the policy is stricter"),
			  r->origin);
		set_last(d, o, NULL);
		return;
	}
}

/* Could an exec rule match, given that some words are known only at run
 * time? */
static bool exec_may_match(const struct matcher *m, const struct cmd_op *o,
			   pcre2_match_data *md)
{
	if (m->kind == IR_PAT_OPAQUE || m->nwords > o->nwords)
		return false;
	for (size_t i = 0; i < m->nwords; i++) {
		if (o->dyn[i])
			continue;
		if (m->word_re[i]) {
			if (pcre2_match(m->word_re[i], (PCRE2_SPTR)o->words[i], strlen(o->words[i]), 0,
					0, md, NULL) < 0)
				return false;
		} else if (strcmp(m->words[i], o->words[i]) != 0) {
			return false;
		}
	}
	return true;
}

static void decide_exec(const cordon_evaluator *ev, cordon_decision *d, const struct cmd_op *o,
			pcre2_match_data *md, struct strbuf *trace)
{
	struct target t = { .op = IR_EXEC, .text = o->target, .len = strlen(o->target), .port = -1,
			    .opaque = o->opaque };
	bool dyn = false;
	t.words = o->words;
	t.nwords = o->nwords;
	t.word_len = xcalloc(o->nwords + 1, sizeof(*t.word_len));
	for (size_t i = 0; i < o->nwords; i++) {
		t.word_len[i] = strlen(o->words[i]);
		dyn = dyn || o->dyn[i];
	}
	const struct ev_rule *base = ev_decide_op(ev, d, &t, md, trace);
	free(t.word_len);
	set_last(d, o, NULL);
	enum ir_effect base_effect = d->ops[d->nops - 1].effect;
	/* A rule that names the program is the policy's judgment of it. */
	bool named = base && base->m.kind != IR_PAT_OPAQUE && base->m.nwords >= 1 &&
		     !base->m.word_re[0];
	if ((o->opaque || o->unknown) && !named && base_effect == IR_ALLOW &&
	    ev->preset->sandbox == IR_SANDBOX_REQUIRED && !d->sandboxed) {
		/* The preset lets what it cannot see run because its sandbox
		 * bounds it; this request runs without it. */
		ev_add_op(d, IR_EXEC, o->target, under_approval(ev, IR_ASK),
			  xasprintf("what it does is not known (%s), and it does not run under "
				    "cordon's sandbox, which would bound it: it needs approval",
				    o->detail),
			  NULL);
		set_last(d, o, NULL);
		return;
	}
	if (o->caution && base_effect == IR_ALLOW && ev->preset->sandbox == IR_SANDBOX_REQUIRED &&
	    !d->sandboxed) {
		/* Under the sandbox the environment is the preset's allowlist. */
		ev_add_op(d, IR_EXEC, o->target, under_approval(ev, IR_ASK),
			  xasprintf("%s, and it does not run under cordon's sandbox, whose "
				    "environment is the preset's allowlist: it needs approval",
				    o->caution),
			  NULL);
		set_last(d, o, NULL);
		return;
	}
	if (!dyn || o->opaque || base_effect == IR_DENY)
		return;
	for (size_t i = 0; i < ev->nrules; i++) {
		const struct ev_rule *r = &ev->rules[i];
		if (r->op != IR_EXEC || r == base || r->effect <= base_effect ||
		    (base && !ev_rule_may_beat(ev, r, base)) || !exec_may_match(&r->m, o, md))
			continue;
		ev_add_op(d, IR_EXEC, o->target, under_approval(ev, IR_ASK),
			  xasprintf("words known only at run time may make it match %s%s%s",
				    r->origin, r->reason ? ": " : "", r->reason ? r->reason : ""),
			  r->origin);
		set_last(d, o, NULL);
		return;
	}
}

static void trace_parse(struct strbuf *trace, const struct shell_script *sc, const char *text,
			const struct cmd_ops *ops)
{
	size_t n = shell_cmd_count(sc);
	sb_addf(trace, "parse: %zu command%s\n", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		const struct shell_cmd *c = shell_cmd_get(sc, i);
		sb_addf(trace, "  [%zu] %.*s\n", i + 1, (int)(c->end - c->start), text + c->start);
		if (c->nwrappers) {
			sb_adds(trace, "      behind:");
			for (size_t w = 0; w < c->nwrappers; w++)
				sb_addf(trace, " %s", c->wrappers[w].name);
			sb_addc(trace, '\n');
		}
		sb_addf(trace, "      cwd: %s%s%s\n", c->cwd ? c->cwd : "(unknown)",
			c->flags & SHELL_CMD_OPAQUE ? "; opaque: " : "",
			c->flags & SHELL_CMD_OPAQUE ? (c->reason ? c->reason : "yes") : "");
		for (size_t k = 0; k < ops->n; k++) {
			const struct cmd_op *o = &ops->v[k];
			if (o->cmd != c)
				continue;
			sb_addf(trace, "      %s %s: %s\n", ir_op_names[o->op],
				o->op == IR_EXEC ? o->target : o->shown ? o->shown : o->target,
				o->detail);
		}
	}
}

/* Decide every operation of a split command line; text is what the
 * script's offsets point into, and the request's own exec (already
 * decided) is the command spelled exactly as text. */
static void decide_script(const cordon_evaluator *ev, cordon_decision *d,
			  const struct shell_script *sc, const char *text, size_t len,
			  pcre2_match_data *md, struct strbuf *trace)
{
	struct cmd_env env = { .cwd = ev->ctx.value[CTX_CWD], .home = ev->ctx.value[CTX_HOME],
			       .ir = &ev->policy->ir, .programs = &ev->programs,
			       .vars = ev->vars, .nvars = ev->nvars };
	struct cmd_ops ops = { 0 };
	struct canon_memo memo = { 0 };
	cmd_analyse(&env, sc, text, len, &ops);
	if (trace)
		trace_parse(trace, sc, text, &ops);
	for (size_t i = 0; i < ops.n; i++) {
		const struct cmd_op *o = &ops.v[i];
		if (o->op == IR_EXEC) {
			/* One command spelled as the request: decided already. */
			bool dyn = false;
			for (size_t k = 0; k < o->nwords; k++)
				dyn = dyn || o->dyn[k];
			if (strlen(o->target) == len && memcmp(o->target, text, len) == 0 &&
			    !o->opaque && !o->unknown && !o->caution && !dyn) {
				if (!d->ops[0].detail)
					d->ops[0].detail = xstrdup(o->detail);
				continue;
			}
			decide_exec(ev, d, o, md, trace);
		} else if (o->op == IR_NET) {
			decide_net(ev, d, o, md, trace);
		} else {
			decide_region(ev, d, o, md, &memo, trace);
		}
	}
	canon_memo_free(&memo);
	cmd_ops_free(&ops);
}

void ev_decide_command(const cordon_evaluator *ev, cordon_decision *d, const char *text,
		       size_t len, pcre2_match_data *md, struct strbuf *trace)
{
	struct shell_error err;
	struct shell_script *sc = shell_parse(text, len, &err);
	if (!sc) {
		char *shown = xstrndup(text, len);
		if (trace)
			sb_addf(trace, "parse: error at byte %zu: %s\n  -> at least ask\n", err.offset,
				err.message);
		ev_add_op(d, IR_EXEC, shown, under_approval(ev, IR_ASK),
			  xasprintf("the command cannot be parsed (%s, at byte %zu), so what it "
				    "would do is unknown; it needs approval",
				    err.message, err.offset),
			  NULL);
		d->ops[d->nops - 1].detail = xstrdup("unparsed");
		free(shown);
		return;
	}
	decide_script(ev, d, sc, text, len, md, trace);
	shell_free(sc);
}

void ev_decide_argv(const cordon_evaluator *ev, cordon_decision *d, const char *const *argv,
		    size_t argc, pcre2_match_data *md, struct strbuf *trace)
{
	struct shell_error err;
	struct strbuf text;
	sb_init(&text);
	struct shell_script *sc = shell_argv(argv, argc, &text, &err);
	if (!sc) {
		if (trace)
			sb_addf(trace, "argv: %s\n  -> deny\n", err.message);
		ev_add_op(d, IR_EXEC, argc ? argv[0] : "", IR_DENY,
			  xasprintf("the argv cannot be analysed: %s", err.message), NULL);
		sb_free(&text);
		return;
	}
	if (trace)
		sb_addf(trace, "argv: %zu word%s, as the line exec rules match: %s\n", argc,
			argc == 1 ? "" : "s", text.buf);
	/* The command itself: its words exactly, its line for the regexes. */
	struct target t = { .op = IR_EXEC, .text = text.buf, .len = text.len, .port = -1 };
	t.words = (char **)argv;
	t.nwords = argc;
	t.word_len = xcalloc(argc, sizeof(*t.word_len));
	for (size_t i = 0; i < argc; i++)
		t.word_len[i] = strlen(argv[i]);
	ev_decide_op(ev, d, &t, md, trace);
	free(t.word_len);
	decide_script(ev, d, sc, text.buf, text.len, md, trace);
	shell_free(sc);
	sb_free(&text);
}
