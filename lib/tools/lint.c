/* The lint driver: load and check a policy (keeping its syntax tree), run
 * the enabled checks of the table, drop what `# cordon: ignore[ID]`
 * comments silence, and order the findings. */
#include "config.h"

#include "check/check.h"
#include "lang/embedded.h"
#include "lint_int.h"
#include "lang/load.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The table: an entry for each row of lint_checks.def, in its order. */
const struct lint_check lint_checks[] = {
#define LINT_CHECK(id, level, fn, summary, description) { id, level, summary, description, fn },
#include "lint_checks.def"
#undef LINT_CHECK
};

const size_t lint_ncheck = ARRAY_SIZE(lint_checks);
_Static_assert(ARRAY_SIZE(lint_checks) <= ARRAY_SIZE(((struct lint_options *)0)->disabled),
	       "struct lint_options has a flag for every check");

int lint_check_lookup(const char *id)
{
	for (size_t i = 0; i < lint_ncheck; i++)
		if (strcmp(lint_checks[i].id, id) == 0)
			return (int)i;
	return -1;
}

/* The context every decision of the checks is made in: a home outside the
 * workspace, and the agent's storage inside it, as hosts that keep state in
 * the project have it (the case that needs protection). */
const char *const lint_context[CTX_COUNT] = {
	[CTX_WORKSPACE] = "/ws",
	[CTX_CWD] = "/ws",
	[CTX_HOME] = "/home/u",
	[CTX_TMP] = "/tmp/cordon-lint",
	[CTX_AGENT_DIR] = "/ws/.cordon",
	[CTX_SESSION_DIR] = "/ws/.cordon/sessions/lint",
	[CTX_USER] = "u",
};

/* ---- findings --------------------------------------------------------------- */

static struct diag *add_finding(struct lint_result *r, const char *id,
					enum diag_severity level, const struct loc *at, char *message,
					const char *key)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct diag *f = &r->items[i];
		if (strcmp(f->id, id) == 0 && f->has_loc == (at != NULL) &&
		    (!at || (f->loc.file == at->file && f->loc.start == at->start)) &&
		    strcmp(f->key, key ? key : message) == 0) {
			free(message);
			return NULL;
		}
	}
	struct diag f = { .id = id, .severity = level, .message = message };
	f.key = xstrdup(key ? key : message);
	if (at) {
		f.has_loc = true;
		f.loc = *at;
	}
	VEC_PUSH(r->items, r->n, r->cap, f);
	return &r->items[r->n - 1];
}

struct diag *lint_report(struct linter *l, const struct loc *at, const char *key,
				 const char *fmt, ...)
{
	struct strbuf sb;
	va_list ap;
	sb_init(&sb);
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	return add_finding(l->out, l->check->id, l->check->level, at, sb_steal(&sb), key);
}


/* ---- shared helpers ------------------------------------------------------------ */

const cordon_evaluator *lint_evaluator(struct linter *l, size_t preset)
{
	if (!l->ev_tried[preset]) {
		char *err = NULL;
		l->ev_tried[preset] = true;
		l->ev[preset] = cordon_evaluator_new(l->p, l->ir->presets[preset].name, l->ctx, &err);
		free(err);
		/* The checks read each rule's complete ranking. */
		if (l->ev[preset])
			ev_rank_complete(l->ev[preset]);
	}
	return l->ev[preset];
}

bool lint_origin_loc(const struct linter *l, const struct ir_preset *p, const char *origin,
		     struct loc *at)
{
	char buf[512];
	if (!origin)
		return false;
	for (size_t i = 0; i < p->nrules; i++) {
		srcmgr_format_loc(l->sm, p->rules[i].origin, buf, sizeof(buf));
		if (strcmp(buf, origin) == 0) {
			*at = p->rules[i].origin;
			return true;
		}
	}
	for (size_t i = 0; i < p->nprotect; i++) {
		srcmgr_format_loc(l->sm, p->protect[i].origin, buf, sizeof(buf));
		if (strcmp(buf, origin) == 0) {
			*at = p->protect[i].origin;
			return true;
		}
	}
	return false;
}

void lint_show_pattern(struct strbuf *sb, const struct ir_pattern *pat)
{
	if (pat->kind == IR_PAT_OPAQUE) {
		sb_adds(sb, "opaque");
		return;
	}
	if (pat->kind == IR_PAT_EXACT)
		sb_adds(sb, "exact ");
	if (pat->text) {
		sb_addc(sb, '"');
		for (const char *c = pat->text; *c; c++) {
			if (*c == IR_VAR_OPEN)
				sb_adds(sb, "${");
			else if (*c == IR_VAR_CLOSE)
				sb_addc(sb, '}');
			else if (*c == '"' || *c == '\\')
				sb_addf(sb, "\\%c", *c);
			else
				sb_addc(sb, *c);
		}
		sb_addc(sb, '"');
	}
	if (pat->regex) {
		sb_adds(sb, pat->text ? " /" : "/");
		for (const char *c = pat->regex; *c; c++) {
			if (*c == '/')
				sb_addc(sb, '\\');
			sb_addc(sb, *c);
		}
		sb_addc(sb, '/');
	}
}

char *lint_rule_text(const struct ir_rule *r)
{
	struct strbuf sb;
	sb_init(&sb);
	sb_addf(&sb, "%s ", ir_op_names[r->op]);
	lint_show_pattern(&sb, &r->pat);
	sb_addf(&sb, " %s", ir_effect_names[r->effect]);
	return sb_steal(&sb);
}

/* ---- suppression ------------------------------------------------------------- */

/* Does the line above `at` read `# cordon: ignore[ID,...] reason` naming id? */
static bool ignored_above(const struct srcmgr *sm, struct loc at, const char *id)
{
	const struct src_file *file = srcmgr_file(sm, at.file);
	unsigned line, col;
	size_t start, len;
	if (!file)
		return false;
	srcmgr_linecol(sm, at.file, at.start, &line, &col);
	if (line < 2)
		return false;
	srcmgr_line(sm, at.file, line - 1, &start, &len);
	const char *s = file->text + start, *end = s + len;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == end || *s++ != '#')
		return false;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	static const char tag[] = "cordon: ignore[";
	if ((size_t)(end - s) < sizeof(tag) - 1 || memcmp(s, tag, sizeof(tag) - 1) != 0)
		return false;
	s += sizeof(tag) - 1;
	const char *close = memchr(s, ']', (size_t)(end - s));
	if (!close)
		return false;
	size_t idlen = strlen(id);
	while (s < close) {
		while (s < close && (*s == ',' || *s == ' '))
			s++;
		const char *w = s;
		while (s < close && *s != ',' && *s != ' ')
			s++;
		if ((size_t)(s - w) == idlen && memcmp(w, id, idlen) == 0)
			return true;
	}
	return false;
}

/* Silenced above its line; in a shipped file, which the user cannot edit,
 * also above the include that brought the file in. */
static bool suppressed(const struct srcmgr *sm, const struct diag *f)
{
	if (!f->has_loc)
		return false;
	if (ignored_above(sm, f->loc, f->id))
		return true;
	for (const struct src_file *file = srcmgr_file(sm, f->loc.file);
	     embedded_included(file); file = srcmgr_file(sm, file->include_loc.file))
		if (ignored_above(sm, file->include_loc, f->id))
			return true;
	return false;
}

/* ---- the driver ---------------------------------------------------------------- */

static int finding_cmp(const void *pa, const void *pb)
{
	const struct diag *a = pa, *b = pb;
	if (a->has_loc != b->has_loc)
		return a->has_loc ? 1 : -1;
	if (a->has_loc && a->loc.file != b->loc.file)
		return a->loc.file < b->loc.file ? -1 : 1;
	if (a->has_loc && a->loc.start != b->loc.start)
		return a->loc.start < b->loc.start ? -1 : 1;
	if (a->severity != b->severity)
		return a->severity < b->severity ? -1 : 1;
	int c = strcmp(a->id, b->id);
	return c ? c : strcmp(a->message, b->message);
}

/* Load like cordon_policy_load_file, but keep the syntax tree: some checks
 * look at what was written (where an env name stands, what a file holds). */
static cordon_policy *load_with_tree(const char *path, const struct embedded_file *ef,
				     struct ast **root)
{
	cordon_policy *p = xcalloc(1, sizeof(*p));
	p->name = xstrdup(ef ? ef->name : path);
	srcmgr_init(&p->sm);
	diag_init(&p->diags);
	arena_init(&p->arena);
	struct load_ctx lc = { &p->sm, &p->diags, &p->arena, false, false, false };
	*root = ef ? load_text(&lc, ef->name, NULL, ef->text, ef->len) : load_file(&lc, path);
	p->io_failed = lc.io_error;
	if (*root) {
		check_policy(&p->sm, &p->diags, *root, &p->ir);
		diag_sort(&p->diags);
	}
	return p;
}

static void add_diagnostics(struct lint_result *r)
{
	const struct diag_list *dl = &r->policy->diags;
	for (size_t i = 0; i < dl->n; i++) {
		const struct diag *d = &dl->items[i];
		/* A check diagnostic is never a duplicate: no key collapses it. */
		char *key = xasprintf("%zu", i);
		struct diag *f = add_finding(r, d->id ? d->id : "error", d->severity,
					     d->has_loc ? &d->loc : NULL, xstrdup(d->message), key);
		free(key);
		if (f && d->hint)
			f->hint = xstrdup(d->hint);
		if (f && d->note) {
			f->note = xstrdup(d->note);
			f->has_note = d->has_note;
			f->note_loc = d->note_loc;
		}
	}
}

static size_t preset_depth(const struct ir_policy *ir, const struct ir_preset *p)
{
	size_t d = 0;
	while (p && p->parent && d <= ir->npresets) {
		p = ir_preset_find(ir, p->parent);
		d++;
	}
	return d;
}

struct ranked {
	size_t depth, index;
};

static int ranked_cmp(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* Preset indices, parents before their children, then by name. */
static size_t *preset_order(const struct ir_policy *ir)
{
	struct ranked *r = xcalloc(ir->npresets + 1, sizeof(*r));
	size_t *order = xcalloc(ir->npresets + 1, sizeof(*order));
	for (size_t i = 0; i < ir->npresets; i++)
		r[i] = (struct ranked){ preset_depth(ir, &ir->presets[i]), i };
	sort_items(r, ir->npresets, sizeof(*r), ranked_cmp);
	for (size_t i = 0; i < ir->npresets; i++)
		order[i] = r[i].index;
	free(r);
	return order;
}

static void run_checks(struct lint_result *r, const struct ast *root,
		       const struct lint_options *opts)
{
	struct linter l = {
		.p = r->policy,
		.ir = &r->policy->ir,
		.sm = &r->policy->sm,
		.root = root,
		.out = r,
	};
	l.ctx = cordon_context_new();
	l.ctx->fixed = true; /* lint_context names no real directory */
	for (int v = 0; v < CTX_COUNT; v++) {
		char *err = NULL;
		if (cordon_context_set(l.ctx, ir_ctx_var_names[v], lint_context[v], &err) != 0)
			free(err);
	}
	l.order = preset_order(l.ir);
	l.ev = xcalloc(l.ir->npresets + 1, sizeof(*l.ev));
	l.ev_tried = xcalloc(l.ir->npresets + 1, sizeof(*l.ev_tried));
	for (size_t i = 0; i < lint_ncheck; i++) {
		if (opts && opts->disabled[i])
			continue;
		l.check = &lint_checks[i];
		lint_checks[i].run(&l);
	}
	for (size_t i = 0; i < l.ir->npresets; i++)
		cordon_evaluator_free(l.ev[i]);
	free(l.ev);
	free(l.ev_tried);
	free(l.order);
	cordon_context_free(l.ctx);
}

/* Every finding of a file on disk (path) or a shipped one (ef), none dropped. */
static struct lint_result *lint_all(const char *path, const struct embedded_file *ef,
				    const struct lint_options *opts)
{
	struct lint_result *r = xcalloc(1, sizeof(*r));
	struct ast *root = NULL;
	r->policy = load_with_tree(path, ef, &root);
	r->io_failed = r->policy->io_failed;
	add_diagnostics(r);
	if (root && !r->policy->diags.nerrors)
		run_checks(r, root, opts);
	/* The tree is needed no longer. */
	arena_free(&r->policy->arena);
	return r;
}

/* The findings shipped files have of their own, each file linted alone. */
struct shipped_findings {
	struct lint_result **of; /* one for each shipped file met */
	size_t n, cap;
};

static bool same_finding(const struct srcmgr *sa, const struct diag *a,
			 const struct srcmgr *sb, const struct diag *b)
{
	return a->has_loc && b->has_loc && a->loc.start == b->loc.start &&
	       a->loc.end == b->loc.end && strcmp(a->id, b->id) == 0 &&
	       strcmp(a->message, b->message) == 0 &&
	       strcmp(srcmgr_file(sa, a->loc.file)->name, srcmgr_file(sb, b->loc.file)->name) == 0;
}

/* Is f, in a shipped file, one that file has without the includer?  A
 * finding the includer causes (its preset inherits a shipped rule and makes
 * it risky) is the includer's, and stays. */
static bool shipped_own(struct shipped_findings *sf, const struct srcmgr *sm,
			const struct diag *f, const struct lint_options *opts)
{
	const char *name = srcmgr_file(sm, f->loc.file)->name;
	struct lint_result *base = NULL;
	for (size_t i = 0; i < sf->n && !base; i++)
		if (strcmp(cordon_policy_name(sf->of[i]->policy), name) == 0)
			base = sf->of[i];
	if (!base) {
		base = lint_all(NULL, embedded_find(name), opts);
		VEC_PUSH(sf->of, sf->n, sf->cap, base);
	}
	for (size_t i = 0; i < base->n; i++)
		if (same_finding(&base->policy->sm, &base->items[i], sm, f))
			return true;
	return false;
}

struct lint_result *lint_file(const char *path, const struct lint_options *opts)
{
	struct lint_result *r = lint_all(path, NULL, opts);
	struct shipped_findings sf = { 0 };

	size_t w = 0;
	for (size_t i = 0; i < r->n; i++) {
		struct diag *f = &r->items[i];
		/* A shipped file's own findings are its maintainers' business,
		 * not the includer's: the user can neither edit nor silence them. */
		if (f->severity != DIAG_ERROR && f->has_loc && !opts->include_shipped &&
		    embedded_included(srcmgr_file(&r->policy->sm, f->loc.file)) &&
		    shipped_own(&sf, &r->policy->sm, f, opts)) {
			diag_record_free(f);
			continue;
		}
		if (f->severity != DIAG_ERROR && suppressed(&r->policy->sm, f)) {
			r->suppressed++;
			diag_record_free(f);
			continue;
		}
		r->count[f->severity]++;
		r->items[w++] = *f;
	}
	r->n = w;
	for (size_t i = 0; i < sf.n; i++)
		lint_result_free(sf.of[i]);
	free(sf.of);
	/* Stable: findings at one place keep a fixed order (level, id, text). */
	sort_items(r->items, r->n, sizeof(*r->items), finding_cmp);
	return r;
}

void lint_result_free(struct lint_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		diag_record_free(&r->items[i]);
	free(r->items);
	cordon_policy_free(r->policy);
	free(r);
}
