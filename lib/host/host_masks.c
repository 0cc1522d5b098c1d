/* Glob and regex read denies, made masks at launch.  A mount plan holds
 * paths, not patterns, so the paths a pattern matches are looked up on the
 * host when a call starts: the readable and writable roots are walked
 * (symlinks never followed), and each path a glob or regex read deny or ask
 * matches, and that the evaluator does not allow reading, is masked like a
 * literal one.  A path created during the call is not; docs/sandbox.md says
 * so.  The walk is bounded; a bound that is hit stops the call rather than
 * enforce the rule in part. */
#include "config.h"

#include "host_walk.h"
#include "lower/lower.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

const struct lower_mask_bounds lower_mask_default_bounds = {
	.entries = 1000000,
	.depth = 64,
	.masks = 4096,
	.seconds = 5.0,
};

static bool kernel_fs(const char *path)
{
	return path_under(path, "/dev") || path_under(path, "/proc");
}

/* The directory below which every match of the rule lies: the literal
 * components before the first wildcard; "/" for a regex. */
static char *literal_dir(const struct ev_rule *r)
{
	if (!r->m.text || r->m.regex || r->m.text[0] != '/')
		return xstrdup("/");
	size_t n = strcspn(r->m.text, "*?[");
	char *dir = xstrndup(r->m.text, n);
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = '\0';
	else if (slash)
		*slash = '\0';
	return dir;
}

static bool is_root(const struct lower_path *p)
{
	return (p->why == LOWER_READ_ROOT || p->why == LOWER_WRITE_ROOT) && !kernel_fs(p->path);
}

char **lower_mask_roots(const struct lower_input *in, const struct lower_advisory *a, size_t *n,
			bool *complete)
{
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	*complete = false;
	if (a->op != IR_READ || a->effect == IR_ALLOW || !a->rule)
		return NULL;
	char *prefix = literal_dir(a->rule);
	*complete = true;
	for (size_t i = 0; i < in->npaths; i++) {
		const struct lower_path *p = &in->paths[i];
		const char *walk = NULL;
		if (!is_root(p))
			continue;
		if (strcmp(p->path, "/") == 0 && strcmp(prefix, "/") == 0)
			*complete = false; /* matches anywhere on a readable host */
		if (path_under(prefix, p->path))
			walk = prefix; /* all its matches are readable through this root */
		else if (path_under(p->path, prefix) && strcmp(p->path, "/") != 0)
			walk = p->path; /* its matches inside this root */
		if (!walk || kernel_fs(walk))
			continue;
		/* "/" itself is never walked: the whole host is no bounded walk. */
		if (strcmp(walk, "/") == 0)
			continue;
		bool have = false;
		for (size_t k = 0; k < *n && !have; k++)
			have = path_under(walk, v[k]);
		if (have)
			continue;
		/* A root that covers ones taken before replaces them. */
		size_t keep = 0;
		for (size_t k = 0; k < *n; k++) {
			if (path_under(v[k], walk))
				free(v[k]);
			else
				v[keep++] = v[k];
		}
		*n = keep;
		VEC_PUSH(v, *n, cap, xstrdup(walk));
	}
	free(prefix);
	return v;
}

/* ---- the walk ------------------------------------------------------------------ */

struct candidate {
	const struct lower_advisory *a;
};

struct walk {
	struct lower_input *in;
	const struct lower_mask_bounds *b;
	const struct candidate *cand;
	size_t ncand;
	pcre2_match_data *md;
	struct lower_path *found;
	size_t nfound, cap;
	char *err;
	const char *root; /* being walked, for messages */
	const struct lower_advisory *rule; /* whose walk this is, for messages */
};

static void bound_hit(void *arg, const char *what)
{
	struct walk *w = arg;
	if (!w->err)
		w->err = xasprintf("%s: the sandbox cannot enforce read %s %s: looking for what it "
				   "matches under %s, %s; narrow the pattern or name the paths "
				   "literally",
				   w->rule->origin, w->rule->pattern, ir_effect_names[w->rule->effect],
				   w->root, what);
}

/* The first candidate that matches path and whose read the evaluator does
 * not allow, or NULL. */
static const struct lower_advisory *denied_by(struct walk *w, const char *path, size_t len)
{
	struct target t;
	char *terr = NULL;
	const struct lower_advisory *hit = NULL;
	if (target_prepare(&t, IR_READ, path, len, &terr) != 0) {
		free(terr);
		return NULL;
	}
	for (size_t i = 0; i < w->ncand && !hit; i++)
		if (matcher_match(&w->cand[i].a->rule->m, &t, w->md))
			hit = w->cand[i].a;
	target_free(&t);
	if (!hit)
		return NULL;
	struct cordon_request req = { .op = CORDON_READ, .target = path, .canonical = true };
	char *err = NULL;
	cordon_decision *d = cordon_evaluate(w->in->ev, &req, &err);
	bool allowed = d && cordon_decision_effect(d) == CORDON_ALLOW;
	cordon_decision_free(d);
	free(err);
	return allowed ? NULL : hit;
}

static bool masked_already(const struct walk *w, const char *path)
{
	for (size_t i = 0; i < w->in->npaths; i++)
		if (w->in->paths[i].why == LOWER_MASK && path_under(path, w->in->paths[i].path))
			return true;
	for (size_t i = 0; i < w->nfound; i++)
		if (path_under(path, w->found[i].path))
			return true;
	return false;
}

static int add_mask(struct walk *w, const char *path, const struct lower_advisory *by)
{
	if (masked_already(w, path))
		return 0;
	if (w->nfound >= w->b->masks) {
		char *what = xasprintf("more than %zu paths match", w->b->masks);
		bound_hit(w, what);
		free(what);
		return -1;
	}
	struct lower_path p = { xstrdup(path), LOWER_MASK, by->origin, false, true, false, false };
	VEC_PUSH(w->found, w->nfound, w->cap, p);
	return 0;
}

/* A symlink is read as its target, which is judged where it lies; a match
 * is masked, and a directory that is not is walked. */
static int visit(void *arg, const struct host_walk_entry *e)
{
	struct walk *w = arg;
	if (e->type == DT_LNK)
		return HOST_WALK_SKIP;
	const struct lower_advisory *by = denied_by(w, e->path, e->len);
	if (by)
		return add_mask(w, e->path, by) < 0 ? -1 : HOST_WALK_SKIP;
	return e->type == DT_DIR && !masked_already(w, e->path) ? HOST_WALK_ENTER : HOST_WALK_SKIP;
}

/* Not listable here, so not by the command either; a name it knows could
 * still be reached: hidden whole. */
static int unlistable(void *arg, const struct host_walk_entry *e)
{
	struct walk *w = arg;
	return add_mask(w, e->path, w->rule);
}

int lower_expand_masks(struct lower_input *in, const struct lower_mask_bounds *b, char **err)
{
	struct walk w = { .in = in, .b = b };
	struct candidate *cand = NULL;
	size_t ncand = 0, cap = 0;
	int rc = 0;
	if (!in->restricted)
		return 0;
	for (size_t i = 0; i < in->nadvisories; i++) {
		const struct lower_advisory *a = &in->advisories[i];
		if (a->op == IR_READ && a->effect != IR_ALLOW && a->rule) {
			struct candidate c = { a };
			VEC_PUSH(cand, ncand, cap, c);
		}
	}
	if (!ncand)
		return 0;
	w.cand = cand;
	w.ncand = ncand;
	w.md = pcre2_match_data_create(32, NULL);
	struct host_walk hw = { .max_entries = b->entries, .max_depth = b->depth,
				.seconds = b->seconds, .visit = visit, .unlistable = unlistable,
				.bound = bound_hit, .arg = &w };
	host_walk_start(&hw);
	/* One walk of each root serves every rule; the roots are gathered per
	 * rule, so that the message names the rule a bound stops. */
	char **done = NULL;
	size_t ndone = 0, done_cap = 0;
	for (size_t c = 0; c < ncand && rc == 0; c++) {
		size_t nroots = 0;
		bool complete;
		char **roots = lower_mask_roots(in, cand[c].a, &nroots, &complete);
		for (size_t r = 0; r < nroots; r++) {
			bool seen = false;
			for (size_t k = 0; k < ndone && !seen; k++)
				seen = path_under(roots[r], done[k]);
			if (seen || rc != 0) {
				free(roots[r]);
				continue;
			}
			w.root = roots[r];
			w.rule = cand[c].a;
			if (!masked_already(&w, roots[r]))
				rc = host_walk_root(&hw, roots[r]);
			VEC_PUSH(done, ndone, done_cap, roots[r]);
		}
		free(roots);
	}
	for (size_t k = 0; k < ndone; k++)
		free(done[k]);
	free(done);
	pcre2_match_data_free(w.md);
	free(cand);
	if (rc != 0) {
		*err = w.err;
		for (size_t i = 0; i < w.nfound; i++)
			free(w.found[i].path);
		free(w.found);
		return -1;
	}
	lower_input_add_masks(in, w.found, w.nfound);
	/* What a mask is, directory or file, decides the mount: the host read
	 * that found it tells the plan. */
	for (size_t i = 0; i < w.nfound; i++)
		lower_host_note(in, w.found[i].path);
	free(w.found);
	return 0;
}
