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

#include "base/canon.h"
#include "base/strmap.h"
#include "command.h"
#include "eval.h"
#include "ir/region.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REACHED 32 /* records per region, the most severe first */

static enum ir_effect under_approval(const cordon_evaluator *ev, enum ir_effect e)
{
	return e == IR_ASK && ev->preset->approval == IR_APPROVAL_NEVER ? IR_DENY : e;
}

/* The record of an analysed operation: the verdict on it, shown as
 * target, with what the analysis says of it. */
static struct dec_op op_record(cordon_decision *d, const struct cmd_op *o, const char *target,
			       struct ev_verdict *v)
{
	struct dec_op rec = ev_record(d, o->op, target, v);
	rec.detail = ev_keep(d, o->detail);
	rec.maybe = o->maybe;
	return rec;
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
	/* What its records show, in the decision's arena: made when a record
	 * first needs them, then shared by every record of the region. */
	char *what, *reason, *rule;
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

/* The rules a region reaches, worked out once a decision for each region
 * and the operation's terms: a script names the same region again and
 * again (a loop body, a function called often), and matching it against
 * every rule is most of its cost.  Each hit's reason is formatted once
 * too, and copied into each record. */
struct region_hits {
	struct reached *hits; /* sorted, as decide_region makes them */
	size_t n;
};

struct region_memo {
	bool on;             /* only for scripts: a short command names a region once */
	struct strmap index; /* key -> index into v */
	struct region_hits *v;
	size_t n, cap;
	struct strbuf key;
};

static void region_memo_free(struct region_memo *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].hits);
	}
	free(m->v);
	strmap_free(&m->index);
	sb_free(&m->key);
}

/* Everything the hits of a region depend on, spelled as one key: the
 * region itself (root, pattern or exact, tree), the operation's terms
 * (op, maybe, members) and the rule that covers the region. */
static void region_key(struct strbuf *k, const struct cmd_op *o, const char *root,
		       const struct ev_rule *base, enum ir_effect base_effect)
{
	k->len = 0;
	char terms[6] = { (char)o->op, (char)o->kind, (char)o->tree, (char)o->maybe,
			  (char)(o->members != 0), (char)base_effect };
	sb_add(k, terms, sizeof(terms));
	sb_add(k, (const char *)&base, sizeof(base));
	size_t rn = strlen(root);
	sb_add(k, (const char *)&rn, sizeof(rn));
	sb_add(k, root, rn);
	if (o->kind != CMD_PATH_EXACT)
		sb_adds(k, o->pattern);
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
	return path_under(a, b) || path_under(b, a);
}

/* Does the sandbox of a sandboxed request refuse, by itself, what rule r
 * (a deny or ask, or a protection) would refuse?  What the lowering makes
 * of it (lower.c): a literal read is masked or lies outside the read roots;
 * a glob read below a directory is masked at launch; a literal write or
 * protection is read-only or outside the write roots, and so is a write
 * glob that meets no write root (the fallback, every path, is what lies
 * outside them) but literal ones that beat it wherever both match: inside
 * such a root the glob never decides (a package cache among the home
 * directory's configuration, which asks).  Regexes, glob protections, exec
 * and net rules, and write globs inside a write root are enforced by cordon
 * alone. */
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
		    (w->m.kind != IR_PAT_LITERAL || path_meets(w->m.text, r->m.anchor)) &&
		    !(w->m.kind == IR_PAT_LITERAL && ev_rule_always_beats(ev, w, r)))
			return false;
	}
	return true;
}

/* A record reached only at run time, and refused by the sandbox itself,
 * so it needs no person; it stays in the preview. */
static void contain(cordon_decision *d, struct dec_op *rec, const char *what)
{
	char *reason = xstrcat(rec->reason ? rec->reason : "",
			       "; known only at run time and contained: the sandbox refuses it "
			       "by itself (",
			       what, "), so it needs no approval", (char *)NULL);
	rec->reason = ev_keep(d, reason);
	free(reason);
	char *detail = xstrcat(rec->detail ? rec->detail : "", ", contained by the sandbox",
			       (char *)NULL);
	rec->detail = ev_keep(d, detail);
	free(detail);
	rec->effect = IR_ALLOW;
	rec->contained = true;
}

static const char *refusal(const struct ev_rule *r, bool protect)
{
	if (protect)
		return "a protected path is read-only";
	if (r->op == IR_READ)
		return "the path is masked";
	return "it lies outside the writable roots or is read-only";
}

/* Why a hit makes the region's operation stricter. */
static char *reached_reason(const struct reached *h, const char *what)
{
	/* Concatenated, not formatted: a script has thousands of these. */
	if (h->protect)
		return xstrcat(h->sure ? "reaches " : "may reach ", what,
			       ", which is protected: no write reaches it, not even an "
			       "approved one",
			       h->sure || h->contained ? "" : " (the path is known only at run time)",
			       (char *)NULL);
	return xstrcat(h->sure ? "reaches " : "may reach ", what, ", where ",
		       h->r->reason ? h->r->reason
		       : h->r->effect == IR_DENY ? "it is denied"
						 : "it needs approval",
		       h->sure || h->contained ? ""
					       : " (known only at run time, so it needs approval)",
		       h->effect == IR_DENY && h->r->effect == IR_ASK
			       ? "; approval is 'never', so it is denied"
			       : "",
		       (char *)NULL);
}

/* The rules and protections that may make o's region stricter than base,
 * its covering rule, the most severe first; NULL if the region's pattern
 * does not compile. */
static struct region_hits *region_hits_of(const cordon_evaluator *ev, const cordon_decision *d,
					  const struct cmd_op *o, const char *root,
					  const struct ev_rule *base, enum ir_effect base_effect,
					  struct region_memo *rm)
{
	if (rm->on) {
		region_key(&rm->key, o, root, base, base_effect);
		const struct strmap_entry *e = strmap_get(&rm->index, rm->key.buf, rm->key.len);
		if (e)
			return &rm->v[e->items[0]];
	}
	struct region g;
	if (region_init(&g, root, o->kind == CMD_PATH_EXACT ? NULL : o->pattern, o->tree) != 0)
		return NULL;
	struct reached *hits = NULL;
	size_t nhits = 0, cap = 0;
	if (o->op == IR_WRITE) {
		for (size_t i = 0; i < ev->nprotect; i++) {
			bool sure;
			if (!rule_reached(&ev->protect[i].m, &g, &sure))
				continue;
			struct reached h = { &ev->protect[i], IR_DENY, true,
					     sure && !o->maybe && !o->members, false, NULL, NULL, NULL };
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
		struct reached h = { r, r->effect, false, sure && !o->maybe && !o->members, false,
				     NULL, NULL, NULL };
		if (!h.sure && h.effect == IR_DENY)
			h.effect = IR_ASK;
		h.effect = under_approval(ev, h.effect);
		if (!h.sure && sandbox_refuses(ev, d, r, false))
			h.contained = true;
		if (h.effect > base_effect)
			VEC_PUSH(hits, nhits, cap, h);
	}
	region_free(&g);
	sort_items(hits, nhits, sizeof(*hits), reached_cmp);
	struct region_hits rh = { hits, nhits };
	if (rm->on)
		strmap_add(&rm->index, rm->key.buf, rm->key.len, (uint32_t)rm->n);
	VEC_PUSH(rm->v, rm->n, rm->cap, rh);
	return &rm->v[rm->n - 1];
}

static void decide_region(const cordon_evaluator *ev, cordon_decision *d, const struct cmd_op *o,
			  pcre2_match_data *md, struct canon_memo *memo, struct region_memo *rm,
			  struct explain *x)
{
	char *why = NULL;
	char *root = host_resolve(ev->host, o->target, strlen(o->target), NULL, memo, &why);
	if (!root) {
		struct ev_verdict v = ev_refused(xasprintf("cannot resolve the path: %s", why));
		struct dec_op rec = op_record(d, o, o->shown, &v);
		ev_append(d, &rec);
		free(why);
		return;
	}
	struct target t;
	struct ev_verdict v;
	struct dec_op rec;
	struct xp_step *xs = xp_step_add(x, XP_OP);
	if (o->kind == CMD_PATH_EXACT) {
		target_prepare(&t, o->op, root, strlen(root), NULL);
		v = ev_judge(ev, &t, NULL, md, xs ? &xs->j : NULL);
		target_free(&t);
		rec = op_record(d, o, root, &v);
		rec.shape = o->tree ? DEC_SHAPE_TREE : DEC_SHAPE_FILE;
	} else {
		/* An ordinary child of the region's directory: a name no
		 * pattern spells (the byte that starts a variable in the IR). */
		char *child = xasprintf("%s/\x01", strcmp(root, "/") == 0 ? "" : root);
		char *shown = xasprintf("%s (in %s)", o->shown, root);
		if (xs) {
			xs->region = true;
			xs->shown = xstrdup(o->shown);
			xs->root = xstrdup(root);
			xs->pattern = xstrdup(o->pattern);
			xs->j.target = xstrdup(root);
			xs->j.child = true;
		}
		target_prepare(&t, o->op, child, strlen(child), NULL);
		v = ev_judge(ev, &t, shown, md, xs ? &xs->j : NULL);
		target_free(&t);
		free(child);
		rec = op_record(d, o, shown, &v);
		rec.shape = DEC_SHAPE_REGION;
		free(shown);
	}
	/* A file is the whole of what the operation touches. */
	bool file = o->kind == CMD_PATH_EXACT && !o->tree;
	const struct ev_rule *base = v.by;
	enum ir_effect base_effect = rec.effect;
	if (!file && o->maybe && base_effect != IR_ALLOW && base &&
	    sandbox_refuses(ev, d, base, false)) {
		contain(d, &rec, refusal(base, false));
		base_effect = IR_ALLOW;
	}
	ev_append(d, &rec);
	if (file || base_effect == IR_DENY) {
		free(root);
		return;
	}
	struct region_hits *rh = region_hits_of(ev, d, o, root, base, base_effect, rm);
	if (!rh) {
		/* Cannot happen for the patterns command.c writes; fail closed. */
		struct ev_verdict bad =
			ev_refused(xstrdup("internal error: the path pattern does not compile"));
		rec = ev_record(d, o->op, o->shown, &bad);
		ev_append(d, &rec);
		free(root);
		return;
	}
	/* Every record of the region has the same detail: formatted once. */
	char *via = NULL;
	if (rh->n) {
		char *s = xstrcat(o->detail, ", via ", o->shown, (char *)NULL);
		via = ev_keep(d, s);
		free(s);
	}
	for (size_t i = 0; i < rh->n && i < MAX_REACHED; i++) {
		struct reached *h = &rh->hits[i];
		const char *what = h->r->m.text ? h->r->m.text : h->r->m.regex;
		if (!h->reason) {
			char *reason = reached_reason(h, what);
			h->reason = ev_keep(d, reason);
			free(reason);
			h->what = ev_keep(d, what);
			h->rule = ev_keep(d, h->r->origin);
		}
		if (xs) {
			struct xp_reach e = { h->sure, xstrdup(what), h->effect, h->r->origin };
			VEC_PUSH(xs->reached, xs->nreached, xs->reached_cap, e);
		}
		rec = (struct dec_op){ .op = o->op, .target = h->what, .effect = h->effect,
				       .reason = h->reason, .rule = h->rule, .detail = via,
				       .shape = DEC_SHAPE_REACHED };
		if (h->contained)
			contain(d, &rec, refusal(h->r, h->protect));
		ev_append(d, &rec);
	}
	free(root);
}

static void decide_net(const cordon_evaluator *ev, cordon_decision *d, const struct cmd_op *o,
		       pcre2_match_data *md, struct explain *x)
{
	struct target t;
	char *why = NULL;
	const char *host = o->maybe ? "unknown.invalid" : o->target;
	if (target_prepare(&t, IR_NET, host, strlen(host), &why) != 0) {
		struct ev_verdict v = ev_refused(why);
		struct dec_op rec = op_record(d, o, o->target, &v);
		ev_append(d, &rec);
		return;
	}
	struct ev_verdict v = ev_judge(ev, &t, NULL, md, xp_judgment_add(x));
	target_free(&t);
	const struct ev_rule *base = v.by;
	enum ir_effect base_effect = v.effect;
	struct dec_op rec = op_record(d, o, o->maybe ? "(a host known only at run time)" : o->target, &v);
	ev_append(d, &rec);
	if (!o->maybe || base_effect == IR_DENY)
		return;
	/* Any host: a rule that might win for it can make this ask. */
	for (size_t i = 0; i < ev->nrules; i++) {
		const struct ev_rule *r = &ev->rules[i];
		if (r->op != IR_NET || r == base || r->effect <= base_effect ||
		    (base && !ev_rule_may_beat(ev, r, base)))
			continue;
		struct ev_verdict may = {
			.effect = under_approval(ev, IR_ASK),
			.reason = xasprintf("the host is known only at run time and may be %s, where %s",
					    r->m.text ? r->m.text : r->m.regex,
					    r->reason ? r->reason : "the policy is stricter"),
			.rule = r->origin
		};
		rec = op_record(d, o, r->m.text ? r->m.text : "*", &may);
		ev_append(d, &rec);
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
		/* A program run by a path ending in the rule's name is that
		 * program to the rules asked about here: stricter ones, never an
		 * allow (eval.c's by_name). */
		const char *slash = i == 0 ? strrchr(o->words[0], '/') : NULL;
		const char *name = slash && slash[1] ? slash + 1 : NULL;
		if (m->word_re[i]) {
			if (pcre2_match(m->word_re[i], (PCRE2_SPTR)o->words[i], strlen(o->words[i]), 0,
					0, md, NULL) < 0 &&
			    (!name || pcre2_match(m->word_re[i], (PCRE2_SPTR)name, strlen(name), 0, 0,
						  md, NULL) < 0))
				return false;
		} else if (strcmp(m->words[i], o->words[i]) != 0 &&
			   (!name || strcmp(m->words[i], name) != 0)) {
			return false;
		}
	}
	return true;
}

/* Is o the command of the request itself, spelled as text? */
static bool is_request(const struct cmd_op *o, const char *text, size_t len)
{
	return strlen(o->target) == len && memcmp(o->target, text, len) == 0;
}

static bool has_dynamic_word(const struct cmd_op *o)
{
	for (size_t k = 0; k < o->nwords; k++)
		if (o->dyn[k])
			return true;
	return false;
}

/* The rules' verdict on the words of exec o: judged here, or a copy of
 * known when the same target was judged already. */
static struct ev_verdict judge_exec(const cordon_evaluator *ev, const struct cmd_op *o,
				    const struct ev_verdict *known, pcre2_match_data *md,
				    struct explain *x)
{
	struct ev_verdict v;
	if (known) {
		v = *known;
		v.reason = known->reason ? xstrdup(known->reason) : NULL;
		return v;
	}
	struct target t = { .op = IR_EXEC, .text = o->target, .len = strlen(o->target),
			    .port = -1, .opaque = o->opaque };
	t.words = (char **)o->words; /* read, never written */
	t.nwords = o->nwords;
	t.word_len = xcalloc(o->nwords + 1, sizeof(*t.word_len));
	for (size_t i = 0; i < o->nwords; i++)
		t.word_len[i] = strlen(o->words[i]);
	v = ev_judge(ev, &t, NULL, md, xp_judgment_add(x));
	free(t.word_len);
	return v;
}

/* Why an exec allowed without a rule that names its program (named)
 * needs approval when it runs outside the sandbox its preset requires,
 * or NULL: what the sandbox would bound is not bounded here. */
static char *unsandboxed_reason(const cordon_evaluator *ev, const cordon_decision *d,
				const struct cmd_op *o, bool named, enum ir_effect base_effect)
{
	if (base_effect != IR_ALLOW || ev->preset->sandbox != IR_SANDBOX_REQUIRED || d->sandboxed)
		return NULL;
	if ((o->opaque || o->unknown) && !named)
		/* The preset lets what it cannot see run because its sandbox
		 * bounds it; this request runs without it. */
		return xasprintf("what it does is not known (%s), and it does not run "
				 "under cordon's sandbox, which would bound it: it needs "
				 "approval",
				 o->detail);
	if (o->project && !named)
		/* Code the agent may have written runs, unseen, as unbounded as
		 * an opaque part. */
		return xasprintf("%s, and it does not run under cordon's sandbox, which "
				 "would bound it: it needs approval",
				 o->project);
	if (o->caution)
		/* Under the sandbox the environment is the preset's allowlist. */
		return xasprintf("%s, and it does not run under cordon's sandbox, whose "
				 "environment is the preset's allowlist: it needs approval",
				 o->caution);
	return NULL;
}

/* A stricter exec rule than base (base_effect) that the words of o known
 * only at run time may make match: its reason, and the rule in
 * stricter->rule; stricter->reason stays NULL when there is none. */
static void run_time_stricter(const cordon_evaluator *ev, const struct cmd_op *o,
			      const struct ev_rule *base, enum ir_effect base_effect,
			      pcre2_match_data *md, struct ev_verdict *stricter)
{
	for (size_t i = 0; i < ev->nrules; i++) {
		const struct ev_rule *r = &ev->rules[i];
		if (r->op != IR_EXEC || r == base || r->effect <= base_effect ||
		    (base && !ev_rule_may_beat(ev, r, base)) || !exec_may_match(&r->m, o, md))
			continue;
		stricter->reason = xasprintf("words known only at run time may make it match "
					     "%s%s%s",
					     r->origin, r->reason ? ": " : "", r->reason ? r->reason : "");
		stricter->rule = r->origin;
		return;
	}
}

/* The one record of an analysed exec: the rules' verdict on its words
 * (judged here, or given as known when the same target was judged
 * already), or, where what is not known of it makes it stricter, that
 * stricter judgment with its reason. */
static struct dec_op exec_record(const cordon_evaluator *ev, cordon_decision *d,
				 const struct cmd_op *o, const struct ev_verdict *known,
				 pcre2_match_data *md, struct explain *x)
{
	struct ev_verdict v = judge_exec(ev, o, known, md, x);
	const struct ev_rule *base = v.by;
	enum ir_effect base_effect = v.effect;
	struct ev_verdict stricter = { 0 };
	/* A rule that names the program is the policy's judgment of it. */
	bool named = base && base->m.kind != IR_PAT_OPAQUE && base->m.nwords >= 1 &&
		     !base->m.word_re[0];
	stricter.reason = unsandboxed_reason(ev, d, o, named, base_effect);
	if (!stricter.reason && has_dynamic_word(o) && !o->opaque && base_effect != IR_DENY)
		run_time_stricter(ev, o, base, base_effect, md, &stricter);
	if (stricter.reason) {
		free(v.reason);
		v = stricter;
		v.effect = under_approval(ev, IR_ASK);
	}
	return op_record(d, o, o->target, &v);
}

/* The records of the execs a script runs again and again (the same words
 * in a loop body or a function), made once a decision: a record depends
 * only on what exec_key spells (and on the decision), and its strings are
 * in the decision's arena, so equal records share them.  Not when
 * explaining: each judgment is a step of the explanation. */
struct exec_memo {
	struct strmap index; /* key -> index into v */
	struct dec_op *v;
	size_t n, cap;
	struct strbuf key;
};

static void exec_memo_free(struct exec_memo *m)
{
	free(m->v);
	strmap_free(&m->index);
	sb_free(&m->key);
}

static void key_string(struct strbuf *k, const char *s)
{
	size_t n = s ? strlen(s) + 1 : 0; /* 0: NULL, 1: "" */
	sb_add(k, (const char *)&n, sizeof(n));
	if (n > 1)
		sb_add(k, s, n - 1);
}

/* What exec_record reads of o. */
static void exec_key(struct strbuf *k, const struct cmd_op *o)
{
	k->len = 0;
	char flags[3] = { (char)o->opaque, (char)o->unknown, (char)o->maybe };
	sb_add(k, flags, sizeof(flags));
	key_string(k, o->target);
	key_string(k, o->detail);
	key_string(k, o->caution);
	key_string(k, o->project);
	sb_add(k, (const char *)&o->nwords, sizeof(o->nwords));
	for (size_t i = 0; i < o->nwords; i++) {
		key_string(k, o->words[i]);
		sb_addc(k, (char)o->dyn[i]);
	}
}

static struct dec_op exec_record_memo(const cordon_evaluator *ev, cordon_decision *d,
				      const struct cmd_op *o, pcre2_match_data *md,
				      struct exec_memo *em)
{
	exec_key(&em->key, o);
	const struct strmap_entry *e = strmap_get(&em->index, em->key.buf, em->key.len);
	if (e)
		return em->v[e->items[0]];
	struct dec_op rec = exec_record(ev, d, o, NULL, md, NULL);
	strmap_add(&em->index, em->key.buf, em->key.len, (uint32_t)em->n);
	VEC_PUSH(em->v, em->n, em->cap, rec);
	return rec;
}

/* Does o name exactly the target judged for the request as a whole?
 * Then the rules said of it what they said of the request. */
static bool same_target(const struct cmd_op *o, const struct target *whole)
{
	if (o->opaque || o->nwords != whole->nwords)
		return false;
	for (size_t i = 0; i < o->nwords; i++)
		if (strlen(o->words[i]) != whole->word_len[i] ||
		    memcmp(o->words[i], whole->words[i], whole->word_len[i]) != 0)
			return false;
	return true;
}

/* The request's own exec and its analysis are one operation: one record,
 * the analysis' where it is stricter, the request's with the analysis'
 * detail where it is not; the other is dropped (its strings stay in the
 * decision's arena). */
static void merge_request(struct dec_op *request, struct dec_op *analysed)
{
	if (analysed->effect > request->effect) {
		struct dec_op keep = *analysed;
		*analysed = *request;
		*request = keep;
	} else if (!request->detail) {
		request->detail = analysed->detail;
		analysed->detail = NULL;
	}
}

/* Decide every operation of a split command line; text is what the
 * script's offsets point into, the command of the request spelled
 * exactly, judged as whole with verdict v. */
static void decide_script(const cordon_evaluator *ev, cordon_decision *d,
			  const struct target *whole, struct ev_verdict *v,
			  const struct shell_script *sc, const char *text, size_t len,
			  pcre2_match_data *md, struct explain *x)
{
	struct cmd_env env = { .cwd = ev->ctx.value[CTX_CWD], .home = ev->ctx.value[CTX_HOME],
			       .ir = &ev->policy->ir, .programs = ev->policy->ir.spec_names,
			       .vars = ev->vars, .nvars = ev->nvars, .names = &ev->env_names,
			       .md = md, .sandboxed = d->sandboxed };
	struct cmd_ops ops = { 0 };
	struct canon_memo memo = { 0 };
	cmd_analyse(&env, sc, text, len, &ops);
	/* A command of a few operations names each region once: the memo
	 * would cost more than it saves. */
	struct region_memo rm = { .on = ops.n > 8 };
	struct exec_memo em = { 0 };
	strmap_init(&rm.index);
	strmap_init(&em.index);
	if (rm.on) {
		sb_init(&rm.key);
		sb_init(&em.key);
	}
	xp_parse(x, sc, text, &ops);
	/* The analysed command that is the request itself is decided into
	 * the request's record: where the analysis adds nothing, that record
	 * stays first, with its detail; where it does (words known only at
	 * run time, an opaque part), the one record stands where the
	 * analysis judged it, judged again only where its words differ from
	 * those the request was judged on. */
	const struct ev_verdict known = *v;
	struct dec_op request = ev_record(d, IR_EXEC, text, v);
	bool *done = xcalloc(ops.n + 1, sizeof(*done));
	size_t at = SIZE_MAX; /* the analysed request that judges it again */
	for (size_t i = 0; i < ops.n; i++) {
		const struct cmd_op *o = &ops.v[i];
		if (o->op != IR_EXEC || !is_request(o, text, len))
			continue;
		if (o->opaque || o->unknown || o->caution || o->project || has_dynamic_word(o)) {
			if (at == SIZE_MAX)
				at = i;
			continue;
		}
		done[i] = true;
		if (!request.detail)
			request.detail = ev_keep(d, o->detail);
	}
	if (at == SIZE_MAX)
		ev_append(d, &request);
	for (size_t i = 0; i < ops.n; i++) {
		const struct cmd_op *o = &ops.v[i];
		struct dec_op rec;
		if (done[i])
			continue;
		if (i == at) {
			struct ev_verdict same = known;
			same.reason = request.reason;
			rec = exec_record(ev, d, o, same_target(o, whole) ? &same : NULL, md, x);
			merge_request(&request, &rec);
			ev_append(d, &request);
		} else if (o->op == IR_EXEC) {
			rec = rm.on && !x ? exec_record_memo(ev, d, o, md, &em)
					  : exec_record(ev, d, o, NULL, md, x);
			ev_append(d, &rec);
		} else if (o->op == IR_NET) {
			decide_net(ev, d, o, md, x);
		} else {
			decide_region(ev, d, o, md, &memo, &rm, x);
		}
	}
	free(done);
	region_memo_free(&rm);
	exec_memo_free(&em);
	canon_memo_free(&memo);
	cmd_ops_free(&ops);
}

void ev_decide_command(const cordon_evaluator *ev, cordon_decision *d, const struct target *whole,
		       struct ev_verdict *v, pcre2_match_data *md, struct explain *x)
{
	struct shell_error err;
	const char *text = whole->text;
	size_t len = whole->len;
	struct shell_script *sc = shell_parse(text, len, &err);
	if (!sc) {
		struct xp_step *xs = xp_step_add(x, XP_PARSE_ERROR);
		if (xs) {
			xs->offset = err.offset;
			xs->why = xstrdup(err.message);
		}
		struct ev_verdict unparsed = {
			.effect = under_approval(ev, IR_ASK),
			.reason = xasprintf("the command cannot be parsed (%s, at byte %zu), so what "
					    "it would do is unknown; it needs approval",
					    err.message, err.offset)
		};
		struct dec_op request = ev_record(d, IR_EXEC, text, v);
		struct dec_op rec = ev_record(d, IR_EXEC, text, &unparsed);
		rec.detail = ev_keep(d, "unparsed");
		merge_request(&request, &rec);
		ev_append(d, &request);
		return;
	}
	decide_script(ev, d, whole, v, sc, text, len, md, x);
	shell_free(sc);
}

void ev_decide_argv(const cordon_evaluator *ev, cordon_decision *d, const char *const *argv,
		    size_t argc, pcre2_match_data *md, struct explain *x)
{
	struct shell_error err;
	struct strbuf text;
	sb_init(&text);
	struct shell_script *sc = shell_argv(argv, argc, &text, &err);
	if (!sc) {
		struct xp_step *xs = xp_step_add(x, XP_ARGV_ERROR);
		if (xs)
			xs->why = xstrdup(err.message);
		struct ev_verdict v =
			ev_refused(xasprintf("the argv cannot be analysed: %s", err.message));
		struct dec_op rec = ev_record(d, IR_EXEC, argc ? argv[0] : "", &v);
		ev_append(d, &rec);
		sb_free(&text);
		return;
	}
	struct xp_step *xs = xp_step_add(x, XP_ARGV);
	if (xs) {
		xs->offset = argc;
		xs->why = xstrdup(text.buf);
	}
	/* The command itself: its words exactly, its line for the regexes. */
	struct target t = { .op = IR_EXEC, .text = text.buf, .len = text.len, .port = -1 };
	t.words = (char **)argv;
	t.nwords = argc;
	t.word_len = xcalloc(argc, sizeof(*t.word_len));
	for (size_t i = 0; i < argc; i++)
		t.word_len[i] = strlen(argv[i]);
	struct ev_verdict v = ev_judge(ev, &t, NULL, md, xp_judgment_add(x));
	decide_script(ev, d, &t, &v, sc, text.buf, text.len, md, x);
	free(t.word_len);
	shell_free(sc);
	sb_free(&text);
}
