/* The explain record (explain.h): its building blocks, and the one
 * printer of `cordon explain`.  Nothing internal is printed as it is: a
 * region's ordinary child is shown as <child>, and a control byte in any
 * text but a newline as \xNN. */
#include "config.h"

#include "command.h"
#include "eval.h"
#include "explain.h"

#include <stdlib.h>
#include <string.h>

/* ---- building ------------------------------------------------------------ */

struct xp_step *xp_step_add(struct explain *x, enum xp_kind kind)
{
	if (!x)
		return NULL;
	struct xp_step s = { .kind = kind };
	VEC_PUSH(x->steps, x->nsteps, x->steps_cap, s);
	return &x->steps[x->nsteps - 1];
}

struct xp_judgment *xp_judgment_add(struct explain *x)
{
	struct xp_step *s = xp_step_add(x, XP_OP);
	return s ? &s->j : NULL;
}

void xp_refused(struct explain *x, enum xp_kind kind, enum ir_op op, const char *target,
		const char *why)
{
	struct xp_step *s = xp_step_add(x, kind);
	if (!s)
		return;
	s->j.op = op;
	s->j.target = xstrdup(target);
	s->why = why ? xstrdup(why) : NULL;
}

void xp_rule_push(struct xp_rules *l, const struct ev_rule *r, bool matched, bool by_name)
{
	struct xp_rule e = { r, matched, by_name };
	VEC_PUSH(l->v, l->n, l->cap, e);
}

void xp_rank_push(struct xp_judgment *j, enum xp_rel rel, const struct ev_rule *other,
		  const struct ev_rule *by)
{
	struct xp_rank e = { rel, other, by };
	VEC_PUSH(j->ranks, j->nranks, j->ranks_cap, e);
}

void xp_parse(struct explain *x, const struct shell_script *sc, const char *text,
	      const struct cmd_ops *ops)
{
	struct xp_step *s = xp_step_add(x, XP_PARSE);
	if (!s)
		return;
	s->ncmds = shell_cmd_count(sc);
	s->cmds = xcalloc(s->ncmds + 1, sizeof(*s->cmds));
	for (size_t i = 0; i < s->ncmds; i++) {
		const struct shell_cmd *c = shell_cmd_get(sc, i);
		struct xp_cmd *xc = &s->cmds[i];
		xc->text = xstrndup(text + c->start, c->end - c->start);
		xc->nwrappers = c->nwrappers;
		xc->wrappers = xcalloc(c->nwrappers + 1, sizeof(*xc->wrappers));
		for (size_t w = 0; w < c->nwrappers; w++)
			xc->wrappers[w] = xstrdup(c->wrappers[w].name);
		xc->cwd = c->cwd ? xstrdup(c->cwd) : NULL;
		if (c->flags & SHELL_CMD_OPAQUE)
			xc->opaque = xstrdup(c->reason ? c->reason : "yes");
		for (size_t k = 0; k < ops->n; k++) {
			const struct cmd_op *o = &ops->v[k];
			if (o->cmd != c)
				continue;
			struct xp_cmd_op e = {
				o->op, xstrdup(o->op == IR_EXEC ? o->target : o->shown ? o->shown : o->target),
				xstrdup(o->detail)
			};
			VEC_PUSH(xc->ops, xc->nops, xc->ops_cap, e);
		}
	}
}

static void judgment_free(struct xp_judgment *j)
{
	free(j->target);
	free(j->prot.v);
	free(j->cand.v);
	free(j->ranks);
	free(j->grant_actor);
	free(j->grant_time);
}

void xp_free(struct explain *x)
{
	for (size_t i = 0; i < x->nsteps; i++) {
		struct xp_step *s = &x->steps[i];
		judgment_free(&s->j);
		free(s->shown);
		free(s->root);
		free(s->pattern);
		free(s->why);
		for (size_t k = 0; k < s->nreached; k++)
			free(s->reached[k].what);
		free(s->reached);
		for (size_t c = 0; c < s->ncmds; c++) {
			struct xp_cmd *xc = &s->cmds[c];
			free(xc->text);
			for (size_t w = 0; w < xc->nwrappers; w++)
				free(xc->wrappers[w]);
			free(xc->wrappers);
			free(xc->cwd);
			free(xc->opaque);
			for (size_t k = 0; k < xc->nops; k++) {
				free(xc->ops[k].target);
				free(xc->ops[k].detail);
			}
			free(xc->ops);
		}
		free(s->cmds);
	}
	free(x->steps);
	memset(x, 0, sizeof(*x));
}

/* ---- printing ------------------------------------------------------------ */

/* Text as a person reads it: a control byte but a newline is escaped. */
static void show(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c < 0x20 && c != '\n') || c == 0x7f)
			sb_addf(sb, "\\x%02x", c);
		else
			sb_addc(sb, (char)c);
	}
}

static void show_target(struct strbuf *sb, const struct xp_judgment *j)
{
	if (!j->child) {
		show(sb, j->target);
		return;
	}
	if (strcmp(j->target, "/") != 0)
		show(sb, j->target);
	sb_adds(sb, "/<child>");
}

static void show_regex(struct strbuf *sb, const char *re)
{
	sb_addc(sb, '/');
	for (const char *c = re; *c; c++) {
		char one[2] = { *c, '\0' };
		if (*c == '/')
			sb_addc(sb, '\\');
		show(sb, one);
	}
	sb_addc(sb, '/');
}

/* A rule among the candidates: its pattern, effect, place and origin. */
static void show_candidate(struct strbuf *sb, const struct xp_rule *e)
{
	const struct ev_rule *r = e->r;
	sb_addf(sb, "    %-8s %s ", e->matched ? "match" : "no match", ir_op_names[r->op]);
	if (r->m.kind == IR_PAT_EXACT)
		sb_adds(sb, "exact ");
	if (r->m.text)
		sb_add_quoted(sb, r->m.text);
	if (r->m.text && r->m.regex)
		sb_addc(sb, ' ');
	if (r->m.regex)
		show_regex(sb, r->m.regex);
	if (r->m.kind == IR_PAT_OPAQUE)
		sb_adds(sb, "opaque");
	if (e->by_name)
		sb_adds(sb, " (by the program's name: the command runs it by a path)");
	if (r->resolved_from) {
		sb_adds(sb, " (what ");
		sb_add_quoted(sb, r->resolved_from);
		sb_adds(sb, " resolves to)");
	}
	if (r->m.alias) {
		sb_adds(sb, " (written under ");
		show(sb, r->m.alias->path);
		sb_adds(sb, ", which is ");
		show(sb, r->m.alias->target);
		sb_adds(sb, " here)");
	}
	sb_addf(sb, " %s  [%s]  ", ir_effect_names[r->effect],
		r->from ? (r->tier == 0 ? "own" : "inherited") : "top level");
	show(sb, r->origin);
	sb_addc(sb, '\n');
}

/* A rule in a rank note: its op, pattern, effect and origin. */
static void show_rule(struct strbuf *sb, const struct ev_rule *r)
{
	sb_addf(sb, "%s ", ir_op_names[r->op]);
	if (r->m.kind == IR_PAT_EXACT)
		sb_adds(sb, "exact ");
	if (r->m.text)
		sb_add_quoted(sb, r->m.text);
	if (r->m.text && r->m.regex)
		sb_addc(sb, ' ');
	if (r->m.regex) {
		sb_addc(sb, '/');
		show(sb, r->m.regex);
		sb_addc(sb, '/');
	}
	if (r->m.kind == IR_PAT_OPAQUE)
		sb_adds(sb, "opaque");
	sb_addf(sb, " %s (", ir_effect_names[r->effect]);
	show(sb, r->origin);
	sb_addc(sb, ')');
}

static void show_rank(struct strbuf *sb, const struct xp_rank *k)
{
	sb_adds(sb, "     ");
	switch (k->rel) {
	case XP_REL_MORE_SPECIFIC:
		sb_adds(sb, "more specific than ");
		show_rule(sb, k->other);
		break;
	case XP_REL_SAME_OWN:
	case XP_REL_SAME_PRESET:
	case XP_REL_SAME_SEVERE:
	case XP_REL_SAME_EFFECT:
		sb_adds(sb, "matches what ");
		show_rule(sb, k->other);
		sb_adds(sb, " matches, and ");
		sb_adds(sb, k->rel == XP_REL_SAME_OWN	   ? "a preset's own rule beats an inherited one"
			    : k->rel == XP_REL_SAME_PRESET ? "a preset's rule beats a top-level one"
			    : k->rel == XP_REL_SAME_SEVERE ? "the more severe wins"
							   : "decides the same");
		break;
	case XP_REL_BEATEN:
		show_rule(sb, k->other);
		sb_adds(sb, " is beaten by ");
		if (k->by)
			show_rule(sb, k->by);
		else
			sb_adds(sb, "a more specific rule");
		break;
	case XP_REL_INCOMPARABLE:
	case XP_REL_INCOMPARABLE_SEVERE:
		sb_adds(sb, "incomparable with ");
		show_rule(sb, k->other);
		sb_adds(sb, k->rel == XP_REL_INCOMPARABLE ? ", the same effect"
							  : ", the more severe wins");
		break;
	}
	sb_addc(sb, '\n');
}

static const char *const why_names[] = {
	[XP_ONLY_MATCH] = "the only match",
	[XP_MOST_SPECIFIC] = "the most specific match",
	[XP_MOST_SEVERE] = "the most severe of the most specific matches",
};

static void show_judgment(struct strbuf *sb, const struct xp_judgment *j)
{
	sb_addf(sb, "  %s ", ir_op_names[j->op]);
	show_target(sb, j);
	sb_addc(sb, '\n');
	if (j->protections)
		sb_adds(sb, "  protections:\n");
	for (size_t i = 0; i < j->prot.n; i++)
		show_candidate(sb, &j->prot.v[i]);
	if (j->why == XP_PROTECTED) {
		sb_adds(sb, "  -> deny: protected by ");
		show(sb, j->winner->origin);
		sb_addc(sb, '\n');
		return;
	}
	sb_adds(sb, "  candidates:\n");
	for (size_t i = 0; i < j->cand.n; i++)
		show_candidate(sb, &j->cand.v[i]);
	if (j->why == XP_NO_RULE) {
		sb_adds(sb, "  -> deny: no rule matches\n");
		return;
	}
	if (j->grant_actor) {
		sb_adds(sb, "  session grant: by ");
		show(sb, j->grant_actor);
		sb_adds(sb, " at ");
		show(sb, j->grant_time);
		sb_adds(sb, " turns ask into allow\n");
	}
	const struct ev_rule *w = j->winner;
	sb_addf(sb, "  -> %s: ", ir_effect_names[j->effect]);
	show(sb, w->origin);
	sb_addf(sb, " wins (%s%s)\n", why_names[j->why],
		!w->from ? ", a top-level rule" : w->tier ? ", inherited" : ", the preset's own");
	for (size_t i = 0; i < j->nranks; i++)
		show_rank(sb, &j->ranks[i]);
}

static void show_parse(struct strbuf *sb, const struct xp_step *s)
{
	sb_addf(sb, "parse: %zu command%s\n", s->ncmds, s->ncmds == 1 ? "" : "s");
	for (size_t i = 0; i < s->ncmds; i++) {
		const struct xp_cmd *c = &s->cmds[i];
		sb_addf(sb, "  [%zu] ", i + 1);
		show(sb, c->text);
		sb_addc(sb, '\n');
		if (c->nwrappers) {
			sb_adds(sb, "      behind:");
			for (size_t w = 0; w < c->nwrappers; w++) {
				sb_addc(sb, ' ');
				show(sb, c->wrappers[w]);
			}
			sb_addc(sb, '\n');
		}
		sb_adds(sb, "      cwd: ");
		show(sb, c->cwd ? c->cwd : "(unknown)");
		if (c->opaque) {
			sb_adds(sb, "; opaque: ");
			show(sb, c->opaque);
		}
		sb_addc(sb, '\n');
		for (size_t k = 0; k < c->nops; k++) {
			sb_addf(sb, "      %s ", ir_op_names[c->ops[k].op]);
			show(sb, c->ops[k].target);
			sb_adds(sb, ": ");
			show(sb, c->ops[k].detail);
			sb_addc(sb, '\n');
		}
	}
}

static void show_step(struct strbuf *sb, const struct xp_step *s)
{
	switch (s->kind) {
	case XP_OP:
		if (s->region) {
			struct xp_judgment child = { .target = s->root, .child = true };
			sb_adds(sb, "  region ");
			show(sb, s->shown);
			sb_adds(sb, ": paths below ");
			show(sb, s->root);
			sb_adds(sb, " matching /");
			show(sb, s->pattern);
			sb_adds(sb, "/; an ordinary child first, shown as ");
			show_target(sb, &child);
			sb_addc(sb, '\n');
		}
		show_judgment(sb, &s->j);
		for (size_t i = 0; i < s->nreached; i++) {
			const struct xp_reach *h = &s->reached[i];
			sb_addf(sb, "    %s ", h->sure ? "reaches" : "may reach");
			show(sb, h->what);
			sb_addf(sb, " -> %s (", ir_effect_names[h->effect]);
			show(sb, h->origin);
			sb_adds(sb, ")\n");
		}
		break;
	case XP_UNRESOLVED:
	case XP_NOT_CANONICAL:
		sb_addf(sb, "  %s ", ir_op_names[s->j.op]);
		show(sb, s->j.target);
		if (s->kind == XP_UNRESOLVED) {
			sb_adds(sb, ": cannot resolve: ");
			show(sb, s->why);
		} else {
			sb_adds(sb, ": marked canonical but not spelled as a canonical path");
		}
		sb_adds(sb, "\n  -> deny\n");
		break;
	case XP_PARSE: show_parse(sb, s); break;
	case XP_PARSE_ERROR:
		sb_addf(sb, "parse: error at byte %zu: ", s->offset);
		show(sb, s->why);
		sb_adds(sb, "\n  -> at least ask\n");
		break;
	case XP_ARGV:
		sb_addf(sb, "argv: %zu word%s, as the line exec rules match: ", s->offset,
			s->offset == 1 ? "" : "s");
		show(sb, s->why);
		sb_addc(sb, '\n');
		break;
	case XP_ARGV_ERROR:
		sb_adds(sb, "argv: ");
		show(sb, s->why);
		sb_adds(sb, "\n  -> deny\n");
		break;
	}
}

char *xp_render(const struct explain *x)
{
	struct strbuf sb;
	sb_init(&sb);
	sb_adds(&sb, "preset \"");
	show(&sb, x->preset);
	sb_addf(&sb, "\" (approval %s, sandbox ", x->approval_never ? "never" : "ask");
	show(&sb, x->sandbox);
	sb_adds(&sb, ")\n");
	if (x->layer)
		sb_addf(&sb, "layer: %s (the stricter of the managed layer's decision and the "
			     "lower layer's)\n", x->layer);
	for (size_t i = 0; i < x->nsteps; i++)
		show_step(&sb, &x->steps[i]);
	if (x->escalated)
		sb_addf(&sb, "  escalation -> %s\n", ir_effect_names[x->effect]);
	if (x->decided)
		sb_addf(&sb, "decision: %s\n", ir_effect_names[x->effect]);
	sb_adds(&sb, "reason: ");
	show(&sb, x->reason ? x->reason : "");
	sb_addc(&sb, '\n');
	if (x->rule) {
		sb_adds(&sb, "rule: ");
		show(&sb, x->rule);
		sb_addc(&sb, '\n');
	}
	return sb_steal(&sb);
}
