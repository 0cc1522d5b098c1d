/* cordon diff: what a policy change grants, computed from decisions.
 *
 * Both versions of a preset are compiled into evaluators under the same
 * context and asked the same requests: every literal path, host, command
 * and tool of either version's rules, each glob's literal directory with a
 * child and a grandchild below it and one instance of the glob itself, and
 * a fixed set of places that matter (credentials in the home directory,
 * /etc, the workspace, the temp dir, the agent's storage).  A request whose
 * decision differs is a change.  The probe set is finite, so a change
 * confined to paths no rule names and no fixed probe reaches goes unseen;
 * every rule's own anchors are probed, so no rule is added or removed
 * without its region being asked about. */
#include "config.h"

#include "base/canon.h"
#include "diff.h"
#include "decide/eval.h"
#include "lower/lower.h"

#include <stdlib.h>
#include <string.h>

const char *const diff_class_names[DIFF_CLASS_COUNT] = { "widened", "narrowed", "changed" };
const char *const diff_kind_names[DIFF_KIND_COUNT] = {
	"preset", "decision", "setting", "protect", "env", "plan",
};

/* ---- probe sets ------------------------------------------------------------ */

struct strset {
	char **items;
	size_t n, cap;
};

static void set_add(struct strset *s, char *owned)
{
	VEC_PUSH(s->items, s->n, s->cap, owned);
}

static int strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort and drop duplicates. */
static void set_finish(struct strset *s)
{
	size_t w = 0;
	sort_items(s->items, s->n, sizeof(*s->items), strp_cmp);
	for (size_t r = 0; r < s->n; r++) {
		if (w > 0 && strcmp(s->items[w - 1], s->items[r]) == 0) {
			free(s->items[r]);
			continue;
		}
		s->items[w++] = s->items[r];
	}
	s->n = w;
}

static bool set_has(const struct strset *s, const char *x)
{
	return s->n && bsearch(&x, s->items, s->n, sizeof(*s->items), strp_cmp) != NULL;
}

static void set_free(struct strset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->items[i]);
	free(s->items);
	memset(s, 0, sizeof(*s));
}

/* A path probe, spelled canonically (the evaluator is told not to resolve
 * it, so the diff does not depend on what exists on this machine). */
static void add_path(struct strset *s, const char *path)
{
	if (path[0] != '/')
		return;
	set_add(s, canon_lexical(path));
}

static void add_path_below(struct strset *s, const char *dir)
{
	char *p;
	add_path(s, dir);
	p = xasprintf("%s/x", dir);
	add_path(s, p);
	free(p);
	p = xasprintf("%s/x/y", dir);
	add_path(s, p);
	free(p);
}

/* One string the glob matches: ** becomes x/y (paths) or x, * and ?
 * become x, a bracket class its first member. */
static char *glob_instance(const char *glob, bool path)
{
	struct strbuf sb;
	sb_init(&sb);
	for (const char *p = glob; *p; p++) {
		if (*p == '\\' && p[1]) {
			sb_addc(&sb, *++p);
		} else if (p[0] == '*' && p[1] == '*') {
			sb_adds(&sb, path ? "x/y" : "x");
			p++;
		} else if (*p == '*' || *p == '?') {
			sb_addc(&sb, 'x');
		} else if (*p == '[') {
			const char *q = p + 1;
			bool negated = *q == '!' || *q == '^';
			if (negated)
				q++;
			const char *end = strchr(q + 1, ']');
			if (!end) {
				sb_addc(&sb, *p);
				continue;
			}
			/* A negated class rarely excludes '~'. */
			sb_addc(&sb, negated ? '~' : *q);
			p = end;
		} else {
			sb_addc(&sb, *p);
		}
	}
	return sb_steal(&sb);
}

/* The directory of a glob's literal prefix: "/ws/.git/" then a wildcard gives "/ws/.git". */
static char *glob_dir(const char *glob)
{
	size_t n = strcspn(glob, "*?[\\");
	while (n > 0 && glob[n - 1] != '/')
		n--;
	if (n > 1)
		n--; /* drop the trailing slash */
	return n ? xstrndup(glob, n) : NULL;
}

static void add_path_pattern(struct strset *s, const struct ir_pattern *pat,
			     const struct ir_context *ctx)
{
	char *text = NULL, *dir = NULL;
	int missing;
	if (pat->kind == IR_PAT_REGEX) {
		char *prefix = ir_regex_prefix(pat->regex);
		if (prefix && (dir = glob_dir(prefix)))
			add_path_below(s, dir);
		free(prefix);
		free(dir);
		return;
	}
	if (!pat->text || !(text = ir_text_subst(pat->text, ctx, true, &missing)))
		return;
	if (pat->kind == IR_PAT_LITERAL || pat->kind == IR_PAT_EXACT) {
		/* an exact path and what lies below it, which it does not decide */
		add_path_below(s, text);
	} else if (pat->kind == IR_PAT_GLOB) {
		char *inst = glob_instance(text, true);
		add_path(s, inst);
		free(inst);
		if ((dir = glob_dir(text)))
			add_path_below(s, dir);
		free(dir);
	}
	free(text);
}

static void add_word_pattern(struct strset *s, enum ir_op op, const struct ir_pattern *pat,
			     const struct ir_context *ctx)
{
	char *text, *inst;
	int missing;
	if (!pat->text || pat->kind == IR_PAT_OPAQUE ||
	    !(text = ir_text_subst(pat->text, ctx, true, &missing)))
		return;
	inst = glob_instance(text, false);
	if (op == IR_EXEC) {
		size_t first = strcspn(inst, " \t");
		set_add(s, xstrndup(inst, first));
		set_add(s, xasprintf("%s x", inst));
	} else if (op == IR_NET && strchr(inst, ':')) {
		set_add(s, xstrndup(inst, (size_t)(strrchr(inst, ':') - inst)));
	}
	if (*inst)
		set_add(s, inst);
	else
		free(inst);
	free(text);
}

/* Places worth asking about whatever the rules say.  ${var} is replaced
 * from the context. */
static const char *const fixed_paths[] = {
	"/", "/etc", "/etc/passwd", "/etc/shadow", "/etc/sudoers", "/usr/bin/env", "/dev/null",
	"/proc/self/environ", "/root", "/var/run/docker.sock",
	"${home}", "${home}/.ssh/id_ed25519", "${home}/.ssh/authorized_keys",
	"${home}/.aws/credentials", "${home}/.gnupg/private-keys-v1.d", "${home}/.netrc",
	"${home}/.config/gcloud/credentials.db", "${home}/.docker/config.json",
	"${home}/.kube/config", "${home}/.bashrc", "${home}/.profile", "${home}/.gitconfig",
	"${workspace}", "${workspace}/src/main.c", "${workspace}/.git/config",
	"${workspace}/.git/hooks/pre-commit", "${workspace}/.env", "${cwd}",
	"${tmp}", "${tmp}/x", "${agent_dir}", "${agent_dir}/x", "${session_dir}",
	"${session_dir}/x",
};
static const char *const fixed_exec[] = {
	"ls", "cat /etc/passwd", "rm -rf /", "curl https://example.com", "git status",
	"git push", "git push --force", "sudo true", "eval \"$X\"", "sh -c 'echo hi'",
};
static const char *const fixed_net[] = {
	"example.com", "example.com:443", "github.com:443", "localhost", "127.0.0.1:8080",
};
static const char *const fixed_tool[] = { "x", "mcp:x/y" };

static char *expand_fixed(const char *tmpl, const struct ir_context *ctx)
{
	struct strbuf sb;
	sb_init(&sb);
	for (const char *p = tmpl; *p; p++) {
		if (p[0] == '$' && p[1] == '{') {
			const char *end = strchr(p, '}');
			int var = ir_ctx_var_lookup(p + 2, (size_t)(end - p - 2));
			if (var < 0 || !ctx->value[var]) {
				sb_free(&sb);
				return NULL;
			}
			sb_adds(&sb, ctx->value[var]);
			p = end;
		} else {
			sb_addc(&sb, *p);
		}
	}
	return sb_steal(&sb);
}

static void add_preset_probes(struct strset *probes, const struct ir_preset *p,
			      const struct ir_context *ctx)
{
	for (size_t i = 0; i < p->nrules; i++) {
		const struct ir_rule *r = &p->rules[i];
		if (r->op == IR_READ || r->op == IR_WRITE) {
			add_path_pattern(&probes[IR_READ], &r->pat, ctx);
			add_path_pattern(&probes[IR_WRITE], &r->pat, ctx);
		} else {
			add_word_pattern(&probes[r->op], r->op, &r->pat, ctx);
		}
	}
	for (size_t i = 0; i < p->nprotect; i++) {
		add_path_pattern(&probes[IR_READ], &p->protect[i].pat, ctx);
		add_path_pattern(&probes[IR_WRITE], &p->protect[i].pat, ctx);
	}
}

static void add_fixed_probes(struct strset *probes, const struct ir_context *ctx)
{
	for (size_t i = 0; i < ARRAY_SIZE(fixed_paths); i++) {
		char *path = expand_fixed(fixed_paths[i], ctx);
		if (!path)
			continue;
		add_path(&probes[IR_READ], path);
		add_path(&probes[IR_WRITE], path);
		free(path);
	}
	for (size_t i = 0; i < ARRAY_SIZE(fixed_exec); i++)
		set_add(&probes[IR_EXEC], xstrdup(fixed_exec[i]));
	for (size_t i = 0; i < ARRAY_SIZE(fixed_net); i++)
		set_add(&probes[IR_NET], xstrdup(fixed_net[i]));
	for (size_t i = 0; i < ARRAY_SIZE(fixed_tool); i++)
		set_add(&probes[IR_TOOL], xstrdup(fixed_tool[i]));
}

/* ---- changes --------------------------------------------------------------- */

static struct diff_change *change_add(struct diff_result *res, struct diff_preset *dp,
				      enum diff_kind kind, enum diff_class cls, const char *subject,
				      const char *old_value, const char *new_value)
{
	struct diff_change c = {
		.kind = kind,
		.cls = cls,
		.subject = xstrdup(subject),
		.old_value = old_value ? xstrdup(old_value) : NULL,
		.new_value = new_value ? xstrdup(new_value) : NULL,
	};
	VEC_PUSH(dp->changes, dp->n, dp->cap, c);
	res->count[cls]++;
	dp->status = DIFF_MODIFIED;
	return &dp->changes[dp->n - 1];
}

/* Less severe is wider: deny -> ask, deny -> allow, ask -> allow. */
static enum diff_class effect_class(enum cordon_effect old_e, enum cordon_effect new_e)
{
	return new_e < old_e ? DIFF_WIDENED : DIFF_NARROWED;
}

static int diff_decisions(struct diff_result *res, struct diff_preset *dp,
			  const cordon_evaluator *ev_old, const cordon_evaluator *ev_new,
			  struct strset *probes, char **err)
{
	for (int op = 0; op < IR_OP_COUNT; op++) {
		for (size_t i = 0; i < probes[op].n; i++) {
			struct cordon_request req = {
				.op = (enum cordon_op)op,
				.target = probes[op].items[i],
				.canonical = op == IR_READ || op == IR_WRITE,
				/* A command as cordon run decides it: the policy's
				 * rules, not a host's missing sandbox. */
				.sandboxed = op == IR_EXEC,
			};
			cordon_decision *a = cordon_evaluate(ev_old, &req, err);
			cordon_decision *b = a ? cordon_evaluate(ev_new, &req, err) : NULL;
			if (!b) {
				cordon_decision_free(a);
				return -1;
			}
			res->probes++;
			enum cordon_effect ea = cordon_decision_effect(a), eb = cordon_decision_effect(b);
			if (ea != eb) {
				struct diff_change *c =
					change_add(res, dp, DIFF_DECISION, effect_class(ea, eb),
						   req.target, cordon_effect_name(ea),
						   cordon_effect_name(eb));
				c->op = (enum ir_op)op;
				if (cordon_decision_rule(a))
					c->old_rule = xstrdup(cordon_decision_rule(a));
				if (cordon_decision_rule(b))
					c->new_rule = xstrdup(cordon_decision_rule(b));
			}
			cordon_decision_free(a);
			cordon_decision_free(b);
		}
	}
	return 0;
}

static void diff_text_setting(struct diff_result *res, struct diff_preset *dp, const char *name,
			      const char *a, const char *b)
{
	if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
		change_add(res, dp, DIFF_SETTING, DIFF_CHANGED, name, a, b);
}

/* A limit as the diff shows it: its value, "none" when there is none. */
static char *limit_shown(enum ir_limit k, const struct ir_limit_value *v)
{
	struct strbuf sb;
	sb_init(&sb);
	if (!v->set)
		sb_adds(&sb, "none");
	else
		ir_limit_print(&sb, k, v);
	if (v->set && v->best_effort)
		sb_adds(&sb, " best_effort");
	return sb_steal(&sb);
}

/* A higher bound, no bound, or a bound that became best_effort widens. */
static void diff_limits(struct diff_result *res, struct diff_preset *dp,
			const struct ir_preset *a, const struct ir_preset *b)
{
	for (int k = 0; k < IR_LIMIT_COUNT; k++) {
		const struct ir_limit_value *x = &a->limits[k], *y = &b->limits[k];
		unsigned long long bx = x->set && !x->unlimited ? x->value : ~0ULL;
		unsigned long long by = y->set && !y->unlimited ? y->value : ~0ULL;
		bool ex = bx != ~0ULL && x->best_effort, ey = by != ~0ULL && y->best_effort;
		if (bx == by && ex == ey)
			continue;
		char *old = limit_shown((enum ir_limit)k, x), *new = limit_shown((enum ir_limit)k, y);
		char *subject = xasprintf("limit %s", ir_limit_names[k]);
		bool wider = by > bx || (by == bx && ey);
		change_add(res, dp, DIFF_SETTING, wider ? DIFF_WIDENED : DIFF_NARROWED, subject, old,
			   new);
		free(subject);
		free(old);
		free(new);
	}
}

/* never turns every ask into deny; console asks too, but denies when no
 * console answers in time: ask is the widest. */
static const int approval_width[IR_APPROVAL_COUNT] = {
	[IR_APPROVAL_NEVER] = 0, [IR_APPROVAL_CONSOLE] = 1, [IR_APPROVAL_ASK] = 2,
};

/* The console's time: a person has longer or less long to say yes. */
static void diff_console_timeout(struct diff_result *res, struct diff_preset *dp, unsigned a,
				 unsigned b)
{
	char old[48], now[48];
	snprintf(old, sizeof(old), "console %us", a);
	snprintf(now, sizeof(now), "console %us", b);
	change_add(res, dp, DIFF_SETTING, b > a ? DIFF_WIDENED : DIFF_NARROWED, "approval", old, now);
}

static void diff_settings(struct diff_result *res, struct diff_preset *dp,
			  const struct ir_preset *a, const struct ir_preset *b)
{
	diff_text_setting(res, dp, "description", a->description, b->description);
	diff_text_setting(res, dp, "extends", a->parent, b->parent);
	if (a->approval != b->approval)
		change_add(res, dp, DIFF_SETTING,
			   approval_width[b->approval] > approval_width[a->approval] ? DIFF_WIDENED
										    : DIFF_NARROWED,
			   "approval",
			   ir_approval_names[a->approval], ir_approval_names[b->approval]);
	else if (a->approval_timeout != b->approval_timeout)
		diff_console_timeout(res, dp, a->approval_timeout, b->approval_timeout);
	if (a->sandbox != b->sandbox)
		change_add(res, dp, DIFF_SETTING,
			   b->sandbox == IR_SANDBOX_NONE ? DIFF_WIDENED : DIFF_NARROWED, "sandbox",
			   ir_sandbox_names[a->sandbox], ir_sandbox_names[b->sandbox]);
	diff_limits(res, dp, a, b);
}

static char *pattern_shown(const struct ir_pattern *pat, const struct ir_context *ctx)
{
	struct strbuf sb;
	sb_init(&sb);
	if (pat->text) {
		char *t = ir_text_resolve(pat->text, ctx, pat->kind != IR_PAT_REGEX);
		sb_adds(&sb, t);
		free(t);
	}
	if (pat->regex)
		sb_addf(&sb, "%s/%s/", pat->text ? " " : "", pat->regex);
	return sb_steal(&sb);
}

/* Entries of a and b as sets: those only in a are "removed", those only in
 * b "added", each classified by the caller's table. */
static void diff_sets(struct diff_result *res, struct diff_preset *dp, enum diff_kind kind,
		      const char *what, struct strset *a, struct strset *b, enum diff_class on_add)
{
	enum diff_class on_remove = on_add == DIFF_WIDENED	  ? DIFF_NARROWED
				    : on_add == DIFF_NARROWED ? DIFF_WIDENED
							      : DIFF_CHANGED;
	char *subject;
	set_finish(a);
	set_finish(b);
	for (size_t i = 0; i < a->n; i++)
		if (!set_has(b, a->items[i])) {
			subject = xasprintf("%s%s", what, a->items[i]);
			change_add(res, dp, kind, on_remove, subject, "present", NULL);
			free(subject);
		}
	for (size_t i = 0; i < b->n; i++)
		if (!set_has(a, b->items[i])) {
			subject = xasprintf("%s%s", what, b->items[i]);
			change_add(res, dp, kind, on_add, subject, NULL, "present");
			free(subject);
		}
}

/* One env list of patterns on names, where an added pattern narrows. */
static void diff_env_patterns(struct diff_result *res, struct diff_preset *dp, const char *what,
			      const struct ir_pattern *a, size_t na, const struct ir_pattern *b,
			      size_t nb, const struct ir_context *ctx)
{
	struct strset sa = { 0 }, sb = { 0 };
	for (size_t i = 0; i < na; i++)
		set_add(&sa, pattern_shown(&a[i], ctx));
	for (size_t i = 0; i < nb; i++)
		set_add(&sb, pattern_shown(&b[i], ctx));
	diff_sets(res, dp, DIFF_ENV, what, &sa, &sb, DIFF_NARROWED);
	set_free(&sa);
	set_free(&sb);
}

static void diff_protect_env(struct diff_result *res, struct diff_preset *dp,
			     const struct ir_preset *a, const struct ir_preset *b,
			     const struct ir_context *ctx)
{
	struct strset sa = { 0 }, sb = { 0 };

	for (size_t i = 0; i < a->nprotect; i++)
		set_add(&sa, pattern_shown(&a->protect[i].pat, ctx));
	for (size_t i = 0; i < b->nprotect; i++)
		set_add(&sb, pattern_shown(&b->protect[i].pat, ctx));
	diff_sets(res, dp, DIFF_PROTECT, "", &sa, &sb, DIFF_NARROWED);
	set_free(&sa);
	set_free(&sb);

	/* A kept variable reaches the sandbox from the host: more is wider. */
	for (size_t i = 0; i < a->env.nkeep; i++)
		set_add(&sa, xstrdup(a->env.keep[i]));
	for (size_t i = 0; i < b->env.nkeep; i++)
		set_add(&sb, xstrdup(b->env.keep[i]));
	diff_sets(res, dp, DIFF_ENV, "keep ", &sa, &sb, DIFF_WIDENED);
	set_free(&sa);
	set_free(&sb);

	/* A dropped variable stays out of the sandbox; a `secret` name is
	 * asked before a host shell expands or prints it; a `code` name is
	 * asked before one sets it.  In each list, more is narrower. */
	diff_env_patterns(res, dp, "drop ", a->env.drop, a->env.ndrop, b->env.drop,
			  b->env.ndrop, ctx);
	diff_env_patterns(res, dp, "secret ", a->env.secret, a->env.nsecret, b->env.secret,
			  b->env.nsecret, ctx);
	diff_env_patterns(res, dp, "code ", a->env.code, a->env.ncode, b->env.code,
			  b->env.ncode, ctx);

	/* A value the policy sets comes from the policy, not the host: a
	 * change is shown, neither wider nor narrower. */
	for (size_t i = 0; i < a->env.nset; i++) {
		const struct ir_env_set *x = &a->env.set[i];
		const struct ir_env_set *y = NULL;
		for (size_t j = 0; j < b->env.nset && !y; j++)
			if (strcmp(b->env.set[j].name, x->name) == 0)
				y = &b->env.set[j];
		char *va = ir_text_resolve(x->value, ctx, false);
		char *vb = y ? ir_text_resolve(y->value, ctx, false) : NULL;
		char *subject = xasprintf("set %s", x->name);
		if (!vb || strcmp(va, vb) != 0)
			change_add(res, dp, DIFF_ENV, DIFF_CHANGED, subject, va, vb);
		free(subject);
		free(va);
		free(vb);
	}
	for (size_t j = 0; j < b->env.nset; j++) {
		const struct ir_env_set *y = &b->env.set[j];
		bool found = false;
		for (size_t i = 0; i < a->env.nset && !found; i++)
			found = strcmp(a->env.set[i].name, y->name) == 0;
		if (found)
			continue;
		char *vb = ir_text_resolve(y->value, ctx, false);
		char *subject = xasprintf("set %s", y->name);
		change_add(res, dp, DIFF_ENV, DIFF_CHANGED, subject, NULL, vb);
		free(subject);
		free(vb);
	}
}

/* ---- the lowered plan ------------------------------------------------------ */

/* A plan operation the other side does not have, shown as its JSON
 * without the origin (line numbers move when a file is edited; the mount
 * does not). */
struct plan_change {
	char *subject;
	enum diff_class cls;
};

static int plan_change_cmp(const void *pa, const void *pb)
{
	const struct plan_change *a = pa, *b = pb;
	return strcmp(a->subject, b->subject);
}

static bool plan_has(const struct cordon_plan *pl, const struct cordon_plan_op *op)
{
	for (size_t i = 0; i < pl->n; i++)
		if (cordon_plan_op_same(&pl->ops[i], op))
			return true;
	return false;
}

static enum diff_class plan_class(enum cordon_plan_kind kind)
{
	switch (cordon_plan_kind_effect(kind)) {
	case CORDON_PLAN_WIDENS:
		return DIFF_WIDENED;
	case CORDON_PLAN_NARROWS:
		return DIFF_NARROWED;
	case CORDON_PLAN_NEUTRAL:
		break;
	}
	return DIFF_CHANGED;
}

/* The operations of `from` that `to` lacks, each once, in the order of
 * their text: removed ones move the other way from added ones. */
static void plan_changes(struct diff_result *res, struct diff_preset *dp,
			 const struct cordon_plan *from, const struct cordon_plan *to, bool added)
{
	struct plan_change *c = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < from->n; i++) {
		const struct cordon_plan_op *op = &from->ops[i];
		if (plan_has(to, op))
			continue;
		enum diff_class cls = plan_class(op->kind);
		if (!added)
			cls = cls == DIFF_WIDENED ? DIFF_NARROWED : cls == DIFF_NARROWED ? DIFF_WIDENED : cls;
		struct plan_change x = { cordon_plan_op_json(op, false, true), cls };
		VEC_PUSH(c, n, cap, x);
	}
	sort_items(c, n, sizeof(*c), plan_change_cmp);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(c[i - 1].subject, c[i].subject) != 0)
			change_add(res, dp, DIFF_PLAN, c[i].cls, c[i].subject, added ? NULL : "present",
				   added ? "present" : NULL);
	}
	for (size_t i = 0; i < n; i++)
		free(c[i].subject);
	free(c);
}

static void diff_plan(struct diff_result *res, struct diff_preset *dp,
		      const cordon_evaluator *ev_old, const cordon_evaluator *ev_new)
{
	struct cordon_plan a = { 0 }, b = { 0 };
	char *err = NULL;
	/* A preset without a sandbox has no plan; the sandbox setting says so. */
	if (ev_old->preset->sandbox == IR_SANDBOX_NONE || ev_new->preset->sandbox == IR_SANDBOX_NONE)
		return;
	/* A plan that cannot be built has no operations. */
	if (cordon_plan_build(ev_old, &a, &err) != 0) {
		free(err);
		err = NULL;
	}
	if (cordon_plan_build(ev_new, &b, &err) != 0)
		free(err);
	plan_changes(res, dp, &a, &b, false);
	plan_changes(res, dp, &b, &a, true);
	cordon_plan_free(&a);
	cordon_plan_free(&b);
}

char *diff_plan_widening(const cordon_evaluator *above, const cordon_evaluator *below)
{
	struct diff_result res = { 0 };
	struct diff_preset dp = { 0 };
	char *first = NULL;
	diff_plan(&res, &dp, above, below);
	for (size_t i = 0; i < dp.n && !first; i++)
		if (dp.changes[i].cls == DIFF_WIDENED)
			first = diff_change_words(&dp.changes[i]);
	VEC_PUSH(res.presets, res.n, res.cap, dp);
	diff_result_free(&res);
	return first;
}

/* ---- where each side says it ------------------------------------------------ */

/* The location of an origin "file:line:col" in p's sources. */
static bool origin_loc(const cordon_policy *p, const char *origin, struct loc *out)
{
	const char *c2, *c1;
	unsigned long line, col;
	if (!origin || !(c2 = strrchr(origin, ':')) || c2 == origin)
		return false;
	for (c1 = c2 - 1; c1 > origin && *c1 != ':'; c1--)
		;
	if (*c1 != ':')
		return false;
	line = strtoul(c1 + 1, NULL, 10);
	col = strtoul(c2 + 1, NULL, 10);
	for (size_t f = 0; f < p->sm.n && line && col; f++) {
		const struct src_file *sf = p->sm.files[f];
		size_t start, len;
		if (strlen(sf->name) != (size_t)(c1 - origin) ||
		    memcmp(sf->name, origin, (size_t)(c1 - origin)) != 0 ||
		    line > srcmgr_nlines(&p->sm, (uint32_t)f))
			continue;
		srcmgr_line(&p->sm, (uint32_t)f, (unsigned)line, &start, &len);
		if (col - 1 > len)
			return false;
		out->file = (uint32_t)f;
		out->start = (uint32_t)(start + col - 1);
		out->end = (uint32_t)(start + len > out->start ? start + len : out->start + 1);
		return true;
	}
	return false;
}

static const struct ir_protect *protect_shown(const struct ir_preset *p, const char *shown,
					      const struct ir_context *ctx)
{
	for (size_t i = 0; p && i < p->nprotect; i++) {
		char *t = pattern_shown(&p->protect[i].pat, ctx);
		bool same = strcmp(t, shown) == 0;
		free(t);
		if (same)
			return &p->protect[i];
	}
	return NULL;
}

/* Fill in where each side of the changes from `from` on says what it says:
 * the rule, protection or limit, else the preset. */
static void locate_changes(struct diff_preset *dp, size_t from, const cordon_policy *old_p,
			   const cordon_policy *new_p, const struct ir_preset *a,
			   const struct ir_preset *b, const struct ir_context *ctx)
{
	for (size_t i = from; i < dp->n; i++) {
		struct diff_change *c = &dp->changes[i];
		if (c->kind == DIFF_DECISION) {
			c->has_old_loc = origin_loc(old_p, c->old_rule, &c->old_loc);
			c->has_new_loc = origin_loc(new_p, c->new_rule, &c->new_loc);
		} else if (c->kind == DIFF_PROTECT) {
			const struct ir_protect *x = protect_shown(a, c->subject, ctx);
			const struct ir_protect *y = protect_shown(b, c->subject, ctx);
			if ((c->has_old_loc = x != NULL))
				c->old_loc = x->origin;
			if ((c->has_new_loc = y != NULL))
				c->new_loc = y->origin;
		} else if (c->kind == DIFF_ENV && strncmp(c->subject, "set ", 4) == 0) {
			for (size_t k = 0; a && k < a->env.nset && !c->has_old_loc; k++)
				if ((c->has_old_loc = strcmp(a->env.set[k].name, c->subject + 4) == 0))
					c->old_loc = a->env.set[k].origin;
			for (size_t k = 0; b && k < b->env.nset && !c->has_new_loc; k++)
				if ((c->has_new_loc = strcmp(b->env.set[k].name, c->subject + 4) == 0))
					c->new_loc = b->env.set[k].origin;
		} else if (c->kind == DIFF_SETTING && strncmp(c->subject, "limit ", 6) == 0) {
			for (int k = 0; k < IR_LIMIT_COUNT; k++) {
				if (strcmp(c->subject + 6, ir_limit_names[k]) != 0)
					continue;
				if ((c->has_old_loc = a && a->limits[k].set))
					c->old_loc = a->limits[k].origin;
				if ((c->has_new_loc = b && b->limits[k].set))
					c->new_loc = b->limits[k].origin;
			}
		}
		if (!c->has_old_loc && a) {
			c->old_loc = a->loc;
			c->has_old_loc = true;
		}
		if (!c->has_new_loc && b) {
			c->new_loc = b->loc;
			c->has_new_loc = true;
		}
	}
}

/* ---- presets --------------------------------------------------------------- */

static int diff_preset(struct diff_result *res, const cordon_policy *old_p,
		       const cordon_policy *new_p, const char *name, const cordon_context *ctx,
		       char **err)
{
	const struct ir_preset *a = ir_preset_find(&old_p->ir, name);
	const struct ir_preset *b = ir_preset_find(&new_p->ir, name);
	struct diff_preset dp = { .name = xstrdup(name), .status = DIFF_SAME };
	struct strset probes[IR_OP_COUNT] = { { 0 } };
	cordon_evaluator *ev_old = NULL, *ev_new = NULL;
	int rc = -1;
	char *why = NULL;

	if (!a || !b) {
		/* A new preset grants what it grants; a removed one nothing. */
		change_add(res, &dp, DIFF_PRESET, a ? DIFF_NARROWED : DIFF_WIDENED, name,
			   a ? "present" : NULL, b ? "present" : NULL);
		dp.status = a ? DIFF_REMOVED : DIFF_ADDED;
		locate_changes(&dp, 0, old_p, new_p, a, b, &ctx->vars);
		VEC_PUSH(res->presets, res->n, res->cap, dp);
		return 0;
	}
	if (!(ev_old = cordon_evaluator_new(old_p, name, ctx, &why)) ||
	    !(ev_new = cordon_evaluator_new(new_p, name, ctx, &why))) {
		*err = xasprintf("%s: preset '%s': %s",
				 cordon_policy_name(ev_old ? new_p : old_p), name, why);
		free(why);
		goto out;
	}
	add_preset_probes(probes, a, &ctx->vars);
	add_preset_probes(probes, b, &ctx->vars);
	add_fixed_probes(probes, &ctx->vars);
	for (int op = 0; op < IR_OP_COUNT; op++)
		set_finish(&probes[op]);
	if (diff_decisions(res, &dp, ev_old, ev_new, probes, err) != 0)
		goto out;
	diff_settings(res, &dp, a, b);
	diff_protect_env(res, &dp, a, b, &ctx->vars);
	diff_plan(res, &dp, ev_old, ev_new);
	locate_changes(&dp, 0, old_p, new_p, a, b, &ctx->vars);
	rc = 0;
out:
	for (int op = 0; op < IR_OP_COUNT; op++)
		set_free(&probes[op]);
	cordon_evaluator_free(ev_old);
	cordon_evaluator_free(ev_new);
	VEC_PUSH(res->presets, res->n, res->cap, dp);
	return rc;
}

int diff_policies(const cordon_policy *old_p, const cordon_policy *new_p, const char *preset,
		  const cordon_context *ctx, struct diff_result *out, char **err)
{
	struct strset names = { 0 };
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (preset) {
		if (!ir_preset_find(&old_p->ir, preset) && !ir_preset_find(&new_p->ir, preset)) {
			*err = xasprintf("neither %s nor %s has a preset '%s'",
					 cordon_policy_name(old_p), cordon_policy_name(new_p), preset);
			return -1;
		}
		return diff_preset(out, old_p, new_p, preset, ctx, err);
	}
	/* The preset a host gets when it names none. */
	out->policy.status = DIFF_SAME;
	diff_text_setting(out, &out->policy, "default", old_p->ir.default_preset,
			  new_p->ir.default_preset);
	for (size_t i = 0; i < out->policy.n; i++) {
		struct diff_change *c = &out->policy.changes[i];
		if ((c->has_old_loc = old_p->ir.default_preset != NULL))
			c->old_loc = old_p->ir.default_loc;
		if ((c->has_new_loc = new_p->ir.default_preset != NULL))
			c->new_loc = new_p->ir.default_loc;
	}
	for (size_t i = 0; i < old_p->ir.npresets; i++)
		set_add(&names, xstrdup(old_p->ir.presets[i].name));
	for (size_t i = 0; i < new_p->ir.npresets; i++)
		set_add(&names, xstrdup(new_p->ir.presets[i].name));
	set_finish(&names);
	for (size_t i = 0; i < names.n && rc == 0; i++)
		rc = diff_preset(out, old_p, new_p, names.items[i], ctx, err);
	set_free(&names);
	return rc;
}

static void diff_preset_free(struct diff_preset *p)
{
	for (size_t j = 0; j < p->n; j++) {
		struct diff_change *c = &p->changes[j];
		free(c->subject);
		free(c->old_value);
		free(c->new_value);
		free(c->old_rule);
		free(c->new_rule);
	}
	free(p->changes);
	free(p->name);
}

void diff_result_free(struct diff_result *r)
{
	diff_preset_free(&r->policy);
	for (size_t i = 0; i < r->n; i++)
		diff_preset_free(&r->presets[i]);
	free(r->presets);
	memset(r, 0, sizeof(*r));
}
