/* The lint checks about what the bubblewrap mount plan can hold: a deny
 * it cannot enforce, a write allow it does not make writable.  Each
 * lowers the preset as `cordon run` would, in the representative context. */
#include "config.h"

#include "lint_int.h"
#include "lower/lower.h"

#include <stdlib.h>
#include <string.h>

/* ---- what the sandbox cannot enforce ---------------------------------------------- */

void lint_advisory_deny(struct linter *l)
{
	for (size_t k = 0; k < l->ir->npresets; k++) {
		size_t pi = l->order[k];
		const struct ir_preset *p = &l->ir->presets[pi];
		if (p->sandbox != IR_SANDBOX_REQUIRED)
			continue;
		const cordon_evaluator *ev = lint_evaluator(l, pi);
		struct lower_input in;
		char *err = NULL;
		if (!ev || lower_input_build(ev, &in, &err) != 0) {
			free(err);
			continue;
		}
		for (size_t i = 0; i < in.nadvisories; i++) {
			const struct lower_advisory *a = &in.advisories[i];
			struct strbuf shown, walked;
			struct loc at;
			/* A read deny or ask is expanded when a call starts; one whose
			 * matches all lie below the roots walked is enforced. */
			bool complete = false;
			size_t nroots = 0;
			char **roots = lower_mask_roots(&in, a, &nroots, &complete);
			sb_init(&walked);
			for (size_t r = 0; r < nroots; r++) {
				sb_addf(&walked, "%s%s", r ? ", " : "", roots[r]);
				free(roots[r]);
			}
			free(roots);
			/* A write deny or ask of the home directory's entries is
			 * enforced by the plan's read-only home top. */
			char *home_dir = NULL;
			if (lower_home_rule(&in, a, &home_dir))
				complete = true;
			free(home_dir);
			if (complete) {
				sb_free(&walked);
				continue;
			}
			sb_init(&shown);
			/* The evaluator keeps the preset's rules and protections in
			 * order (every rule is active in the representative context),
			 * and an advisory borrows its rule's origin string. */
			bool found = false;
			for (size_t ri = 0; ri < ev->nrules && ri < p->nrules && !found; ri++) {
				if (ev->nrules == p->nrules && ev->rules[ri].origin == a->origin) {
					char *t = lint_rule_text(&p->rules[ri]);
					sb_adds(&shown, t);
					free(t);
					at = p->rules[ri].origin;
					found = true;
				}
			}
			for (size_t ri = 0; ri < ev->nprotect && ri < p->nprotect && !found; ri++) {
				if (ev->nprotect == p->nprotect && ev->protect[ri].origin == a->origin) {
					sb_adds(&shown, "protect ");
					lint_show_pattern(&shown, &p->protect[ri].pat);
					at = p->protect[ri].origin;
					found = true;
				}
			}
			if (!found && lint_origin_loc(l, p, a->origin, &at)) {
				sb_addf(&shown, "%s %s %s", ir_op_names[a->op], a->pattern,
					ir_effect_names[a->effect]);
				found = true;
			}
			if (found && a->op == IR_READ && a->effect != IR_ALLOW) {
				struct diag *f = lint_report(
					l, &at, shown.buf,
					"in restricted preset '%s', the sandbox enforces '%s' only below "
					"%s, where `cordon run` looks for its matches when a call "
					"starts: elsewhere commands inside it can still read the paths "
					"it matches",
					p->name, shown.buf, walked.len ? walked.buf : "no root");
				diag_hint(f, "start the pattern with the directory its matches lie in "
					     "(\"${workspace}/**/*.pem\" rather than \"/**/*.pem\"), so "
					     "that the whole of it is looked up");
			} else if (found) {
				bool prot = strncmp(shown.buf, "protect ", 8) == 0;
				struct diag *f = lint_report(
					l, &at, shown.buf,
					"in restricted preset '%s', the sandbox cannot enforce '%s': "
					"commands inside it can still %s the paths it matches; only "
					"requests decided by cordon are refused",
					p->name, shown.buf, prot || a->op == IR_WRITE ? "write" : "read");
				diag_hint(f, "the bubblewrap mount plan holds literal paths only; name "
					     "known paths literally, or treat this rule as advice to "
					     "the file tools");
			}
			sb_free(&shown);
			sb_free(&walked);
		}
		lower_input_free(&in);
	}
}

/* ---- write grants the mount plan cannot hold ---------------------------------------- */

/* The directory every match of glob text lies in, as the policy spells
 * it: the text before the component with the first wildcard. */
static char *glob_dir(const char *text)
{
	size_t n = strcspn(text, "*?[");
	while (n > 0 && text[n - 1] != '/')
		n--;
	return n > 1 ? xstrndup(text, n - 1) : xstrdup("/");
}

static void unmounted_write(struct linter *l, const struct ir_preset *p,
			    const struct lower_input *in, const struct ev_rule *r)
{
	struct loc at;
	/* A glob's matcher is anchored at the directory its matches lie in. */
	const char *dir = r->m.regex ? NULL : r->m.anchor;
	if ((!dir || !lower_in_write_root(in, dir)) && lint_origin_loc(l, p, r->origin, &at)) {
		struct strbuf shown;
		sb_init(&shown);
		sb_adds(&shown, "write ");
		lint_show_pattern(&shown, r->pat);
		/* The directory as the policy spells it: "${home}/.cache". */
		char *written = dir && shown.buf[6] == '"' ? glob_dir(shown.buf + 7) : NULL;
		sb_adds(&shown, " allow");
		struct diag *f = lint_report(
			l, &at, shown.buf,
			"in restricted preset '%s', '%s' makes nothing writable in the sandbox: the "
			"mount plan holds literal paths only, so commands inside it cannot write "
			"what it allows; only the file tools that ask cordon can",
			p->name, shown.buf);
		if (written)
			diag_hint(f, "name the directory: write \"%s\" allow; (everything below it "
				     "becomes writable), or keep this rule for the file tools alone",
				  written);
		else
			diag_hint(f, "name the directories literally, or keep this rule for the "
				     "file tools alone");
		free(written);
		sb_free(&shown);
	}
}

void lint_unmounted_write(struct linter *l)
{
	for (size_t k = 0; k < l->ir->npresets; k++) {
		size_t pi = l->order[k];
		const struct ir_preset *p = &l->ir->presets[pi];
		const cordon_evaluator *ev =
			p->sandbox == IR_SANDBOX_REQUIRED ? lint_evaluator(l, pi) : NULL;
		struct lower_input in;
		char *err = NULL;
		if (!ev || lower_input_build(ev, &in, &err) != 0) {
			free(err);
			continue;
		}
		for (size_t ri = 0; ri < ev->nrules; ri++) {
			const struct ev_rule *r = &ev->rules[ri];
			if (r->op == IR_WRITE && r->effect == IR_ALLOW && r->pat &&
			    (r->pat->kind == IR_PAT_GLOB || r->pat->kind == IR_PAT_REGEX))
				unmounted_write(l, p, &in, r);
		}
		lower_input_free(&in);
	}
}
