/* The evaluator: a preset with its context applied, rules compiled and
 * indexed by literal anchor, and the decision for one request.
 *
 * Which rule wins: the most specific match, where a rule is more specific
 * than another when every target it matches the other matches too
 * (eval_rank.c); among matches that are incomparable the more severe; for
 * the same targets the preset's own rule, then the nearer ancestor's, then
 * top-level rules, then the more severe effect.  No match denies.  A protected path denies every write in it, whatever
 * the rules say.  A session grant (grant.c) turns the ask of exactly the
 * granted tool name into allow; `approval never` turns ask into deny. */
#include "config.h"

#include "base/canon.h"
#include "command.h"
#include "ir/match.h"
#include "check/policy.h"
#include "eval.h"
#include "eval_segments.h"
#include "explain.h"
#include "grant.h"
#include "base/strmap.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- building ------------------------------------------------------------ */

/* A path glob goes by its literal components: below a directory many
 * globs share ("/home/STAR/..."), the components after a wildcard tell
 * which can match.  Literals stay with their anchors, a lookup each. */
static void index_add(struct ev_index *ix, const struct matcher *m, enum ir_op op, uint32_t i)
{
	if (!m->floating && m->kind == IR_PAT_GLOB && seg_indexable(m, op)) {
		if (!ix->segs)
			ix->segs = seg_index_new();
		seg_index_add(ix->segs, m, i);
	} else if (m->floating)
		VEC_PUSH(ix->floating, ix->nfloating, ix->cap, i);
	else
		strmap_add(&ix->anchors, m->anchor, strlen(m->anchor), i);
}

static char *origin_text(const cordon_policy *p, struct loc loc)
{
	char buf[512];
	srcmgr_format_loc(&p->sm, loc, buf, sizeof(buf));
	return xstrdup(buf);
}

static int prepare_context(cordon_evaluator *ev, const cordon_context *ctx, char **err)
{
	for (int v = 0; v < CTX_COUNT; v++) {
		const char *value = ctx ? ctx->vars.value[v] : NULL;
		if (!value)
			continue;
		if (!ir_ctx_var_is_path(v)) {
			ev->values[v] = xstrdup(value);
			continue;
		}
		/* The host's own aliases (/tmp on macOS) are no symlink a command
		 * could retarget: a workspace under one is named by its target. */
		char *why = NULL, *plain = canon_lexical(value);
		char *lexical = host_alias_apply(ev->host, plain);
		char *real = host_resolve(ev->host, value, strlen(value), NULL, NULL, &why);
		free(plain);
		if (!real) {
			*err = xasprintf("context variable '%s' ('%s') cannot be resolved: %s",
					 ir_ctx_var_names[v], value, why);
			free(why);
			free(lexical);
			return -1;
		}
		if (v == CTX_WORKSPACE && strcmp(real, lexical) != 0) {
			*err = xasprintf("workspace '%s' is reached through a symlink (it resolves to "
					 "'%s'); give the canonical path",
					 value, real);
			free(real);
			free(lexical);
			return -1;
		}
		free(lexical);
		ev->values[v] = real;
	}
	for (int v = 0; v < CTX_COUNT; v++)
		ev->ctx.value[v] = ev->values[v];
	return 0;
}

/* What a decision by r says, formatted once here rather than in every
 * decision it makes. */
static char *rule_said(const struct ev_rule *r)
{
	if (r->reason)
		return xstrdup(r->reason);
	return xstrcat(r->effect == IR_ALLOW ? "allowed"
		       : r->effect == IR_ASK ? "needs approval"
					     : "denied",
		       " by ", r->origin, (char *)NULL);
}

static void push_rule(cordon_evaluator *ev, struct ev_rule *r, bool protect)
{
	r->said = rule_said(r);
	if (protect) {
		VEC_PUSH(ev->protect, ev->nprotect, ev->protect_cap, *r);
		index_add(&ev->protect_index, &ev->protect[ev->nprotect - 1].m, IR_WRITE,
			  (uint32_t)(ev->nprotect - 1));
	} else {
		VEC_PUSH(ev->rules, ev->nrules, ev->rules_cap, *r);
		index_add(&ev->index[r->op], &ev->rules[ev->nrules - 1].m, r->op,
			  (uint32_t)(ev->nrules - 1));
	}
}

/* A deny or a protection of a literal path holds for what the path
 * resolves to as well.  Requests are decided on canonical paths, so a rule
 * written for a symlink (~/.ssh kept by stow or home-manager) would
 * otherwise never match.  Allows and asks are not followed: a link that a
 * command retargets must not widen what the preset grants.  An exact deny
 * is followed too, and denies the whole place the link leads to: a
 * directory behind a link named exactly is denied with what is in it. */
static void push_resolved(cordon_evaluator *ev, const struct ev_rule *r, bool protect)
{
	if ((r->m.kind != IR_PAT_LITERAL && r->m.kind != IR_PAT_EXACT) || !r->m.text ||
	    (!protect && r->op != IR_READ && r->op != IR_WRITE))
		return;
	const char *real = ev_record_link(ev, r->m.text, r->origin)->real;
	if (!protect && r->effect != IR_DENY)
		return;
	/* A path that cannot be resolved (a loop) denies every request below
	 * it already: the request cannot be resolved either. */
	if (real && strcmp(real, r->m.text) != 0) {
		struct ev_rule a = *r;
		a.pat = NULL;
		a.resolved_from = r->m.text;
		matcher_build_path(&a.m, real);
		a.reason = r->reason ? xstrdup(r->reason) : NULL;
		a.origin = xstrdup(r->origin);
		push_rule(ev, &a, protect);
	}
}

static int add_rule(cordon_evaluator *ev, const struct ir_context *ctx, enum ir_op op,
		    const struct ir_pattern *pat, enum ir_effect effect, const char *reason,
		    struct loc origin, const char *from, unsigned tier, bool protect, char **err)
{
	struct ev_rule r = { .op = op, .effect = effect, .from = from, .tier = tier, .pat = pat,
			     .ctx = *ctx };
	int missing = -1;
	char *why = NULL;
	enum match_status st = matcher_build_host(&r.m, protect ? IR_PROTECT : op, pat, ctx,
						  ev->host, &missing, &why);
	if (st == MATCH_ERROR) {
		char *where = origin_text(ev->policy, origin);
		*err = xasprintf("%s: %s", where, why);
		free(where);
		free(why);
		matcher_free(&r.m);
		return -1;
	}
	if (st == MATCH_INACTIVE) {
		matcher_free(&r.m);
		if (effect == IR_DENY || protect) {
			/* Dropping a deny would widen what the preset grants. */
			char *where = origin_text(ev->policy, origin);
			*err = xasprintf("%s: %s needs context variable '%s', which has no value "
					 "(give it with --context %s=VALUE)",
					 where, protect ? "a protection" : "a deny rule",
					 ir_ctx_var_names[missing], ir_ctx_var_names[missing]);
			free(where);
			return -1;
		}
		return 0; /* an allow or ask that cannot apply */
	}
	r.reason = reason ? ir_text_resolve(reason, ctx, false) : NULL;
	r.origin = origin_text(ev->policy, origin);
	push_rule(ev, &r, protect);
	push_resolved(ev, protect ? &ev->protect[ev->nprotect - 1] : &ev->rules[ev->nrules - 1],
		      protect);
	return 0;
}

/* The variables a sandboxed command will find set, for reading its paths:
 * what the preset's env block sets to an absolute path, and HOME. */
static void known_vars(cordon_evaluator *ev)
{
	const struct ir_env *env = &ev->preset->env;
	bool home_set = false;
	ev->vars = xcalloc(env->nset + 2, sizeof(*ev->vars));
	for (size_t i = 0; i < env->nset; i++) {
		int missing;
		char *v = ir_text_subst(env->set[i].value, &ev->ctx, true, &missing);
		if (!v)
			continue;
		if (v[0] == '/') {
			ev->vars[ev->nvars].name = env->set[i].name;
			ev->vars[ev->nvars++].value = v;
			home_set = home_set || strcmp(env->set[i].name, "HOME") == 0;
		} else {
			free(v);
		}
	}
	if (!home_set && ev->ctx.value[CTX_HOME] && ev->preset->sandbox != IR_SANDBOX_NONE) {
		ev->vars[ev->nvars].name = "HOME";
		ev->vars[ev->nvars++].value = xstrdup(ev->ctx.value[CTX_HOME]);
	}
}

/* Whether root is a package cache: a directory strictly below the home
 * directory's .cache that a variable the preset sets points a program
 * into (npm_config_cache = "${workspace_caches}/npm"), which no one opens
 * as a project.  Only there: a write root elsewhere that a variable points
 * into (GOPATH inside ~/src) is a project and keeps every protection. */
static bool env_points_into(const cordon_evaluator *ev, const char *root)
{
	const struct ir_preset *p = ev->preset;
	const char *home = ev->ctx.value[CTX_HOME];
	bool found = false;
	if (!home || home[0] != '/')
		return false;
	char *cache = xasprintf("%s/.cache", strcmp(home, "/") == 0 ? "" : home);
	bool in_cache = strcmp(root, cache) != 0 && path_under(root, cache);
	free(cache);
	if (!in_cache)
		return false;
	for (size_t i = 0; i < p->env.nset && !found; i++) {
		int missing = -1;
		char *v = ir_text_subst(p->env.set[i].value, &ev->ctx, true, &missing);
		found = v && v[0] == '/' && strcmp(v, root) != 0 && path_under(v, root);
		free(v);
	}
	return found;
}

/* The roots not inside another: that one's tree has the protection in place. */
static size_t drop_inner_roots(const char **roots, size_t nroots)
{
	size_t w = 0;
	for (size_t k = 0; k < nroots; k++) {
		bool inner = false;
		for (size_t j = 0; j < nroots && !inner; j++)
			inner = strcmp(roots[k], roots[j]) != 0 && path_under(roots[k], roots[j]);
		if (!inner)
			roots[w++] = roots[k];
	}
	return w;
}

/* A protection written inside one write root (`${workspace}/.git/hooks`)
 * holds at the same place in every other one: the write roots are the
 * literal write allows that a decision confirms (but the per-call temp
 * dir, files, roots the environment points a program's cache into, and
 * roots inside another), and the protection is resolved
 * again with its leading variable set to each of them.  A persistence file matters wherever a command can
 * write, so a second root must not open it. */
static int protect_every_root(cordon_evaluator *ev, char **err)
{
	const struct ir_preset *p = ev->preset;
	const char **roots = NULL;
	size_t nroots = 0, cap = 0;
	int rc = 0;
	for (size_t i = 0; i < ev->nrules; i++) {
		const struct ev_rule *r = &ev->rules[i];
		if (r->op != IR_WRITE || r->effect != IR_ALLOW || r->m.kind != IR_PAT_LITERAL ||
		    ev_kernel_path(r->m.text))
			continue;
		struct cordon_request req = { .op = CORDON_WRITE, .target = r->m.text };
		char *e = NULL;
		cordon_decision *d = cordon_evaluate(ev, &req, &e);
		/* Nothing written to the per-call temp dir outlives the call, and
		 * nothing can be created below a file. */
		struct stat st;
		bool tmp = ev->ctx.value[CTX_TMP] && strcmp(r->m.text, ev->ctx.value[CTX_TMP]) == 0;
		bool file = lstat(r->m.text, &st) == 0 && !S_ISDIR(st.st_mode);
		if (d && d->effect == IR_ALLOW && !tmp && !file && !env_points_into(ev, r->m.text))
			VEC_PUSH(roots, nroots, cap, r->m.text);
		cordon_decision_free(d);
		free(e);
	}
	nroots = drop_inner_roots(roots, nroots);
	for (size_t i = 0; i < p->nprotect && rc == 0; i++) {
		const struct ir_protect *pr = &p->protect[i];
		const char *t = pr->pat.text, *close;
		if (!t || t[0] != IR_VAR_OPEN || !(close = strchr(t, IR_VAR_CLOSE)) || close[1] != '/')
			continue;
		int var = ir_ctx_var_lookup(t + 1, (size_t)(close - t - 1));
		const char *home_root = var >= 0 ? ev->ctx.value[var] : NULL;
		bool written_for_root = false;
		for (size_t k = 0; home_root && k < nroots; k++)
			written_for_root = written_for_root || strcmp(roots[k], home_root) == 0;
		for (size_t k = 0; written_for_root && k < nroots && rc == 0; k++) {
			if (strcmp(roots[k], home_root) == 0)
				continue;
			struct ir_context c = ev->ctx;
			c.value[var] = roots[k];
			rc = add_rule(ev, &c, IR_WRITE, &pr->pat, IR_DENY, NULL, pr->origin, pr->from, 0,
				      true, err);
		}
	}
	free(roots);
	return rc;
}

cordon_evaluator *ev_new_one(const cordon_policy *policy, const char *preset,
			      const cordon_context *ctx, char **err)
{
	struct canon_listing listed[2];
	const struct ir_preset *p;
	cordon_evaluator *ev;
	char *dump_err = NULL;

	if (cordon_policy_error_count(policy)) {
		*err = xasprintf("%s has errors", cordon_policy_name(policy));
		return NULL;
	}
	p = ir_preset_find(&policy->ir, preset);
	if (!p) {
		/* cordon_policy_dump words the "did you mean" for us. */
		free(cordon_policy_dump(policy, preset, NULL, CORDON_DUMP_IR, 0, &dump_err));
		*err = dump_err;
		return NULL;
	}
	ev = xcalloc(1, sizeof(*ev));
	ev->policy = policy;
	ev->preset = p;
	ev->host = ctx && ctx->host ? ctx->host : host_facts_native();
	if (ctx && ctx->fixed)
		ev->host = host_facts_fixed(ev->host);
	ev->spare = xcalloc(1, sizeof(*ev->spare));
	for (int i = 0; i < IR_OP_COUNT; i++)
		strmap_init(&ev->index[i].anchors);
	strmap_init(&ev->protect_index.anchors);
	strmap_init(&ev->link_index);
	cmd_names_init(&ev->env_names, &p->env);
	if (prepare_context(ev, ctx, err) != 0)
		goto fail;
	ev_list_roots(ev, listed);
	/* Two passes: the vectors must not move while the index is built. */
	ev->rules = xcalloc(p->nrules + 1, sizeof(*ev->rules));
	ev->rules_cap = p->nrules + 1;
	ev->protect = xcalloc(p->nprotect + 1, sizeof(*ev->protect));
	ev->protect_cap = p->nprotect + 1;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct ir_rule *r = &p->rules[i];
		if (add_rule(ev, &ev->ctx, r->op, &r->pat, r->effect, r->reason, r->origin, r->from,
			     r->tier, false, err) != 0)
			goto fail;
	}
	known_vars(ev);
	ev_rank_build(ev);
	for (size_t i = 0; i < p->nprotect; i++) {
		const struct ir_protect *r = &p->protect[i];
		if (add_rule(ev, &ev->ctx, IR_WRITE, &r->pat, IR_DENY, NULL, r->origin, r->from, 0,
			     true, err) != 0)
			goto fail;
	}
	if (protect_every_root(ev, err) != 0)
		goto fail;
	ev_unlist_roots(ev, listed);
	return ev;
fail:
	ev_unlist_roots(ev, listed);
	cordon_evaluator_free(ev);
	return NULL;
}

static void rules_free(struct ev_rule *rules, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		matcher_free(&rules[i].m);
		free(rules[i].beaten_by);
		free(rules[i].same);
		free(rules[i].meets);
		free(rules[i].reason);
		free(rules[i].origin);
		free(rules[i].said);
	}
	free(rules);
}

static void index_free(struct ev_index *ix)
{
	strmap_free(&ix->anchors);
	seg_index_free(ix->segs);
	free(ix->floating);
}

void cordon_evaluator_free(cordon_evaluator *ev)
{
	if (!ev)
		return;
	cordon_evaluator_free(ev->managed);
	rules_free(ev->rules, ev->nrules);
	rules_free(ev->protect, ev->nprotect);
	for (int i = 0; i < IR_OP_COUNT; i++)
		index_free(&ev->index[i]);
	index_free(&ev->protect_index);
	cmd_names_free(&ev->env_names);
	for (size_t i = 0; i < ev->nlinks; i++) {
		free(ev->links[i].path);
		free(ev->links[i].real);
	}
	free(ev->links);
	strmap_free(&ev->link_index);
	for (size_t i = 0; i < ev->nvars; i++)
		free((char *)ev->vars[i].value);
	free(ev->vars);
	for (int v = 0; v < CTX_COUNT; v++)
		free(ev->values[v]);
	if (ev->spare)
		pcre2_match_data_free(atomic_load(&ev->spare->md));
	free(ev->spare);
	free(ev);
}

pcre2_match_data *ev_md_take(const cordon_evaluator *ev)
{
	pcre2_match_data *md = atomic_exchange(&ev->spare->md, NULL);
	return md ? md : pcre2_match_data_create(1, NULL);
}

void ev_md_give(const cordon_evaluator *ev, pcre2_match_data *md)
{
	pcre2_match_data *none = NULL;
	if (!atomic_compare_exchange_strong(&ev->spare->md, &none, md))
		pcre2_match_data_free(md);
}

/* ---- matching ------------------------------------------------------------ */

/* The rules that match one target; most requests match a few, so the
 * list starts in place. */
struct matches {
	const struct ev_rule **v;
	size_t n, cap;
	const struct ev_rule *buf[16];
};

static void matches_init(struct matches *ms)
{
	ms->v = ms->buf;
	ms->n = 0;
	ms->cap = sizeof(ms->buf) / sizeof(*ms->buf);
}

static void matches_push(struct matches *ms, const struct ev_rule *r)
{
	if (ms->n == ms->cap) {
		size_t cap = ms->cap * 2;
		if (ms->v == ms->buf) {
			ms->v = xcalloc(cap, sizeof(*ms->v));
			memcpy(ms->v, ms->buf, sizeof(ms->buf));
		} else {
			ms->v = xrealloc(ms->v, cap * sizeof(*ms->v));
		}
		ms->cap = cap;
	}
	ms->v[ms->n++] = r;
}

static void matches_free(struct matches *ms)
{
	if (ms->v != ms->buf)
		free(ms->v);
	matches_init(ms);
}

/* t as its program's name: an exec whose first word is a path
 * (/usr/bin/curl, ./git) with that word cut to its last component, or
 * NULL when the first word is a bare name.  A rule that names a program
 * by name and would deny or ask also speaks for the program run by a path
 * ending in that name; an allow never does (a ./git in the workspace is
 * not the git the allow trusts). */
struct by_name {
	struct target t;
	size_t len0;
	const char *name;
};

static const struct target *by_name_init(struct by_name *b, const struct target *t)
{
	if (t->op != IR_EXEC || t->opaque || !t->nwords)
		return NULL;
	const char *w = t->words[0], *slash = memrchr(w, '/', t->word_len[0]);
	if (!slash || slash + 1 == w + t->word_len[0])
		return NULL;
	b->t = *t;
	b->name = slash + 1;
	b->len0 = t->word_len[0] - (size_t)(b->name - w);
	b->t.words = xcalloc(t->nwords, sizeof(*t->words));
	b->t.word_len = xcalloc(t->nwords, sizeof(*t->word_len));
	memcpy(b->t.words, t->words, t->nwords * sizeof(*t->words));
	memcpy(b->t.word_len, t->word_len, t->nwords * sizeof(*t->word_len));
	b->t.words[0] = (char *)b->name;
	b->t.word_len[0] = b->len0;
	return &b->t;
}

static void by_name_free(const struct target *tb, struct by_name *b)
{
	if (!tb)
		return;
	free(b->t.words);
	free(b->t.word_len);
}

static void consider(const struct ev_rule *rules, const uint32_t *items, size_t n,
		     const struct target *t, const struct target *tb, pcre2_match_data *md,
		     struct matches *ms, struct xp_rules *seen)
{
	for (size_t i = 0; i < n; i++) {
		const struct ev_rule *r = &rules[items[i]];
		bool whole = t && matcher_match(&r->m, t, md);
		bool name = !whole && tb && r->effect != IR_ALLOW && matcher_match(&r->m, tb, md);
		bool m = whole || name;
		if (seen)
			xp_rule_push(seen, r, m, name);
		if (m)
			matches_push(ms, r);
	}
}

/* The rules of an index that match a target. */
static void matching_rules(const struct ev_rule *rules, const struct ev_index *ix,
			   const struct target *t, pcre2_match_data *md, struct matches *ms,
			   struct xp_rules *seen)
{
	const struct strmap_entry *e;
	struct by_name b;
	const struct target *tb = by_name_init(&b, t);
	if (t->op == IR_READ || t->op == IR_WRITE) {
		/* Every ancestor of the path, and the path itself. */
		struct strmap_prefix pre;
		strmap_prefix_init(&pre);
		for (size_t i = 1;; i++) {
			const char *slash = i < t->len ? memchr(t->text + i, '/', t->len - i) : NULL;
			i = slash ? (size_t)(slash - t->text) : t->len;
			e = strmap_get_prefix(&ix->anchors, &pre, t->text, i);
			if (e)
				consider(rules, e->items, e->nitems, t, NULL, md, ms, seen);
			if (i == t->len)
				break;
		}
		if (t->len > 1 && (e = strmap_get(&ix->anchors, "/", 1)))
			consider(rules, e->items, e->nitems, t, NULL, md, ms, seen);
		if (ix->segs) {
			struct seg_pairs g = {0};
			seg_index_meeting(ix->segs, t->text, t->len, &g);
			consider(rules, g.ids, g.n, t, NULL, md, ms, seen);
			free(g.ids);
		}
	} else if (t->op == IR_EXEC) {
		if (t->nwords && (e = strmap_get(&ix->anchors, t->words[0], t->word_len[0])))
			consider(rules, e->items, e->nitems, t, NULL, md, ms, seen);
		if (tb && (e = strmap_get(&ix->anchors, tb->words[0], tb->word_len[0])))
			consider(rules, e->items, e->nitems, NULL, tb, md, ms, seen);
	} else if (t->op == IR_NET) {
		if ((e = strmap_get(&ix->anchors, t->host, strlen(t->host))))
			consider(rules, e->items, e->nitems, t, NULL, md, ms, seen);
	} else if ((e = strmap_get(&ix->anchors, t->text, t->len))) {
		consider(rules, e->items, e->nitems, t, NULL, md, ms, seen);
	}
	consider(rules, ix->floating, ix->nfloating, t, tb, md, ms, seen);
	by_name_free(tb, &b);
}

/* ---- deciding ------------------------------------------------------------ */

struct ev_verdict ev_refused(char *reason)
{
	return (struct ev_verdict){ .effect = IR_DENY, .reason = reason };
}

char *ev_keep(cordon_decision *d, const char *s)
{
	return s ? arena_strdup(&d->strings, s) : NULL;
}

struct dec_op ev_record(cordon_decision *d, enum ir_op op, const char *target,
			struct ev_verdict *v)
{
	struct dec_op o = { .op = op, .target = ev_keep(d, target), .effect = v->effect,
			    .reason = ev_keep(d, v->reason), .rule = ev_keep(d, v->rule) };
	free(v->reason);
	v->reason = NULL;
	return o;
}

void ev_append(cordon_decision *d, struct dec_op *o)
{
	/* Most decisions have one record: it lives in the decision. */
	if (!d->ops) {
		d->ops = &d->first;
		d->ops_cap = 1;
	} else if (d->ops == &d->first) {
		d->ops = xmalloc(4 * sizeof(*d->ops));
		d->ops[0] = d->first;
		d->ops_cap = 4;
	}
	VEC_PUSH(d->ops, d->nops, d->ops_cap, *o);
	memset(o, 0, sizeof(*o));
}

/* Decide one operation on a prepared target. */
struct ev_verdict ev_judge(const cordon_evaluator *ev, const struct target *t, const char *name,
			   pcre2_match_data *md, struct xp_judgment *j)
{
	const struct ev_rule *r;
	struct matches ms;
	enum ir_effect effect;
	char *reason;

	matches_init(&ms);
	if (j) {
		j->op = t->op;
		if (!j->target)
			j->target = xstrndup(t->text, t->len);
	}
	if (t->op == IR_WRITE) {
		if (j)
			j->protections = ev->nprotect > 0;
		matching_rules(ev->protect, &ev->protect_index, t, md, &ms, j ? &j->prot : NULL);
		r = ms.n ? ms.v[0] : NULL;
		matches_free(&ms);
		if (r) {
			if (j) {
				j->why = XP_PROTECTED;
				j->winner = r;
				j->effect = IR_DENY;
			}
			return (struct ev_verdict){
				.effect = IR_DENY,
				.reason = name ? xasprintf("'%s' is protected: no write reaches it, not "
							   "even an approved one",
							   name)
					       : xasprintf("'%.*s' is protected: no write reaches it, not "
							   "even an approved one",
							   (int)t->len, t->text),
				.rule = r->origin
			};
		}
	}
	matching_rules(ev->rules, &ev->index[t->op], t, md, &ms, j ? &j->cand : NULL);
	r = ev_pick(ev, ms.v, ms.n);
	if (!r) {
		matches_free(&ms);
		if (j) {
			j->why = XP_NO_RULE;
			j->effect = IR_DENY;
		}
		return ev_refused(xasprintf("no rule of preset '%s' matches", ev->preset->name));
	}
	effect = r->effect;
	reason = xstrdup(r->said);
	if (effect == IR_ASK && t->op == IR_TOOL && ev->preset->approval != IR_APPROVAL_NEVER &&
	    ev->ctx.value[CTX_SESSION_DIR]) {
		/* A session grant answers this tool's ask; it never reaches
		 * another operation, a deny, or a preset that never asks. */
		struct grant_info g;
		if (grant_lookup(ev->ctx.value[CTX_SESSION_DIR], t->text, t->len, &g)) {
			char *r2 = xasprintf("granted for this session by %s at %s (%s)", g.actor,
					     g.time, reason);
			free(reason);
			reason = r2;
			effect = IR_ALLOW;
			if (j) {
				j->grant_actor = xstrdup(g.actor);
				j->grant_time = xstrdup(g.time);
			}
			grant_info_free(&g);
		}
	}
	if (effect == IR_ASK && ev->preset->approval == IR_APPROVAL_NEVER) {
		char *r2 = xasprintf("%s; approval is 'never' in preset '%s', so it is denied", reason,
				     ev->preset->name);
		free(reason);
		reason = r2;
		effect = IR_DENY;
	}
	if (j) {
		j->winner = r;
		j->effect = effect;
		j->why = ms.n == 1			? XP_ONLY_MATCH
			 : ev_pick_alone(ev, r, ms.v, ms.n) ? XP_MOST_SPECIFIC
							    : XP_MOST_SEVERE;
		ev_rank_notes(ev, j, r, ms.v, ms.n);
	}
	matches_free(&ms);
	return (struct ev_verdict){ .effect = effect, .reason = reason, .rule = r->origin, .by = r };
}

/* A request refused before any rule is asked. */
static void add_refusal(cordon_decision *d, enum ir_op op, const char *target, char *reason)
{
	struct ev_verdict v = ev_refused(reason);
	struct dec_op o = ev_record(d, op, target, &v);
	ev_append(d, &o);
}

static void summarize(cordon_decision *d)
{
	size_t worst = 0;
	for (size_t i = 1; i < d->nops; i++)
		if (d->ops[i].effect > d->ops[worst].effect)
			worst = i;
	d->effect = d->ops[worst].effect;
	/* The record's strings, in the same arena: no copy. */
	d->reason = d->ops[worst].reason;
	d->rule = d->ops[worst].rule;
}

/* A target that cannot be read as text the host wrote is refused rather
 * than decided: a NUL would cut it short wherever it is used as a C
 * string, and bytes that are not UTF-8 have no one meaning. */
static bool target_refused(const char *target, size_t len, char **err)
{
	const char *nul = memchr(target, '\0', len);
	size_t bad;
	if (nul) {
		*err = xasprintf("the target contains a NUL byte (at offset %zu)",
				 (size_t)(nul - target));
		return true;
	}
	if ((bad = utf8_invalid_at((const unsigned char *)target, len)) < len) {
		*err = xasprintf("the target is not valid UTF-8 text (byte 0x%02x at offset %zu)",
				 (unsigned char)target[bad], bad);
		return true;
	}
	return false;
}

/* Whether a path is spelled as a canonical one: absolute, shorter than
 * PATH_MAX, no empty, "." or ".." component, no trailing '/' ("/" alone
 * is).  One pass; the target has no NUL (target_refused). */
static bool spelled_canonical(const char *s, size_t len)
{
	if (len == 0 || s[0] != '/' || len >= PATH_MAX)
		return false;
	const char *p = s + 1, *end = s + len;
	if (p == end)
		return true;
	for (;;) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		size_t n = (size_t)((slash ? slash : end) - p);
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!slash)
			return true;
		p = slash + 1;
	}
}

/* Why a request is malformed in itself, before any rule is asked, or NULL. */
static char *request_malformed(const struct cordon_request *req)
{
	enum ir_op op = (enum ir_op)req->op;
	if ((unsigned)req->op >= IR_OP_COUNT || (!req->target && !req->argv))
		return xstrdup("malformed request: unknown operation or no target");
	if (req->argv && (op != IR_EXEC || req->target))
		return xstrdup(op != IR_EXEC ? "malformed request: only an exec request has an argv"
					     : "malformed request: an exec request has either a target "
					       "(a shell string) or an argv, not both");
	for (size_t i = 0; req->argv && i < req->argc; i++)
		if (!req->argv[i])
			return xasprintf("malformed request: argv[%zu] is NULL", i);
	if (req->escalate && op != IR_EXEC)
		return xasprintf("only an exec request can ask to run outside the sandbox, not %s",
				 ir_op_names[op]);
	if (req->escalate && (!req->justification || !*req->justification))
		return xstrdup("an escalation to run outside the sandbox needs a nonempty justification");
	return NULL;
}

/* The target's text (*len long) prepared in *t, or NULL once d holds its refusal. */
static char *target_prepared(const cordon_evaluator *ev, const struct cordon_request *req,
			     enum ir_op op, cordon_decision *d, struct explain *x, size_t *len,
			     struct target *t)
{
	char *canonical = NULL, *why = NULL;
	if ((op == IR_READ || op == IR_WRITE) && req->canonical) {
		/* The host resolved the path: taken as it is if spelled as a canonical path is. */
		if (!spelled_canonical(req->target, *len)) {
			char *shown = xstrndup(req->target, *len);
			xp_refused(x, XP_NOT_CANONICAL, op, shown, NULL);
			add_refusal(d, op, shown,
				    xstrdup("the path is marked canonical but is not spelled as one"));
			free(shown);
			summarize(d);
			return NULL;
		}
		/* No path under one of the host's own aliases is canonical
		 * there: name it as the rules were built for. */
		char *spelled = xstrndup(req->target, *len);
		canonical = host_alias_apply(ev->host, spelled);
		free(spelled);
		*len = strlen(canonical);
	} else if (op == IR_READ || op == IR_WRITE) {
		/* "~" and "~user" first, as a shell would: not a directory named
		 * "~" under the cwd. */
		if (req->target[0] != '~') {
			canonical = host_resolve(ev->host, req->target, *len,
						 ev->ctx.value[CTX_CWD], NULL, &why);
		} else {
			char *home = canon_tilde(req->target, *len, ev->ctx.value[CTX_HOME], &why);
			if (home)
				canonical = host_resolve(ev->host, home, strlen(home), NULL, NULL, &why);
			free(home);
		}
		if (!canonical) {
			char *shown = xstrndup(req->target, *len);
			xp_refused(x, XP_UNRESOLVED, op, shown, why);
			add_refusal(d, op, shown, xasprintf("cannot resolve the path: %s", why));
			free(shown);
			free(why);
			summarize(d);
			return NULL;
		}
		*len = strlen(canonical);
	} else if (*len == 0) {
		add_refusal(d, op, "", xstrdup("the target is empty"));
		summarize(d);
		return NULL;
	} else {
		/* A copy that ends in NUL: the request's text need not. */
		canonical = xstrndup(req->target, *len);
	}
	if (target_prepare(t, op, canonical, *len, &why) != 0) {
		char *shown = xstrndup(req->target, *len);
		add_refusal(d, op, shown, why);
		free(shown);
		free(canonical);
		summarize(d);
		return NULL;
	}
	return canonical;
}

static cordon_decision *evaluate_one(const cordon_evaluator *ev,
				     const struct cordon_request *req, struct explain *x, char **err)
{
	struct target t;
	enum ir_op op = (enum ir_op)req->op;
	char *canonical, *malformed = request_malformed(req);
	if (malformed) {
		*err = malformed;
		return NULL;
	}
	size_t len = req->argv ? 0 : req->target_len ? req->target_len : strlen(req->target);
	if (!req->argv && target_refused(req->target, len, err))
		return NULL;
	cordon_decision *d = xcalloc(1, sizeof(*d));
	d->preset = ev->preset->name;
	d->layer = ev->layer;
	d->sandbox = ev->preset->sandbox == IR_SANDBOX_NONE ? "none" : ev->host->sandbox;
	if (op == IR_EXEC)
		d->analysed = req->argv ? "argv" : "shell";
	/* Whether the command will run where glob read denies are masked. */
	d->sandboxed = req->sandboxed && ev->preset->sandbox == IR_SANDBOX_REQUIRED;
	if (x) {
		x->preset = ev->preset->name;
		x->layer = ev->layer;
		x->approval_never = ev->preset->approval == IR_APPROVAL_NEVER;
		x->sandbox = d->sandbox;
	}
	if (req->argv) {
		if (!req->argc) {
			add_refusal(d, op, "", xstrdup("the argv is empty"));
		} else {
			pcre2_match_data *md = ev_md_take(ev);
			ev_decide_argv(ev, d, req->argv, req->argc, md, x);
			ev_md_give(ev, md);
		}
		summarize(d);
		goto decided;
	}
	if (!(canonical = target_prepared(ev, req, op, d, x, &len, &t)))
		return d;
	pcre2_match_data *md = ev_md_take(ev);
	struct ev_verdict v = ev_judge(ev, &t, NULL, md, xp_judgment_add(x));
	/* A shell command: the operations it will perform are decided too,
	 * each in its own record; the worst of all is the decision. */
	if (op == IR_EXEC) {
		ev_decide_command(ev, d, &t, &v, md, x);
	} else {
		struct dec_op rec = ev_record(d, op, canonical, &v);
		ev_append(d, &rec);
	}
	ev_md_give(ev, md);
	target_free(&t);
	free(canonical);
	summarize(d);
decided:
	if (req->escalate && ev->preset->sandbox != IR_SANDBOX_NONE && d->effect != IR_DENY) {
		char *reason;
		if (ev->preset->approval == IR_APPROVAL_NEVER) {
			d->effect = IR_DENY;
			reason = xasprintf("running outside the sandbox needs approval, and approval is "
					   "'never' in preset '%s' (justification: %s)",
					   ev->preset->name, req->justification);
		} else {
			d->effect = IR_ASK;
			d->unsandboxed = true;
			d->sandbox = "none";
			reason = xasprintf("would run outside the sandbox, with the host's filesystem, "
					   "network and environment (justification: %s)",
					   req->justification);
		}
		d->reason = ev_keep(d, reason);
		free(reason);
		if (x)
			x->escalated = true;
	}
	if (x)
		x->decided = true;
	return d;
}

/* A decision under a managed layer: both layers decide, and the stricter
 * decision is the one (deny > ask > allow); on a tie of denies the managed
 * layer's, otherwise the lower layer's.  Whatever a lower layer says, the
 * result is never less severe than the managed layer's own, so nothing the
 * widening check missed widens a decision.  The trace is the chosen
 * layer's. */
static cordon_decision *evaluate(const cordon_evaluator *ev, const struct cordon_request *req,
				 struct explain *x, char **err)
{
	struct explain xm = { 0 };
	cordon_decision *d, *m;
	if (!ev->managed)
		return evaluate_one(ev, req, x, err);
	if (!(d = evaluate_one(ev, req, x, err)))
		return NULL;
	if (!(m = evaluate_one(ev->managed, req, x ? &xm : NULL, err))) {
		cordon_decision_free(d);
		return NULL;
	}
	if (m->effect > d->effect || (m->effect == IR_DENY && d->effect == IR_DENY)) {
		cordon_decision_free(d);
		if (x) {
			xp_free(x);
			*x = xm;
		}
		return m;
	}
	xp_free(&xm);
	cordon_decision_free(m);
	return d;
}

cordon_decision *cordon_evaluate(const cordon_evaluator *ev, const struct cordon_request *req,
				 char **err)
{
	return evaluate(ev, req, NULL, err);
}

char *cordon_explain(const cordon_evaluator *ev, const struct cordon_request *req, char **err)
{
	struct explain x = { 0 };
	cordon_decision *d = evaluate(ev, req, &x, err);
	char *text = NULL;
	if (d) {
		x.effect = d->effect;
		x.reason = d->reason;
		x.rule = d->rule;
		text = xp_render(&x);
	}
	xp_free(&x);
	cordon_decision_free(d);
	return text;
}
