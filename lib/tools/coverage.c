/* Test coverage of a policy's rules: which rule statements decided at least
 * one expectation of the test blocks.  A statement with several patterns
 * (`read $secrets deny`) is one rule, since a decision names the statement
 * that decided it, not the pattern. */
#include "config.h"

#include "lang/embedded.h"
#include "policy_test.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void coverage_init(struct coverage *cov)
{
	memset(cov, 0, sizeof(*cov));
}

void coverage_free(struct coverage *cov)
{
	for (size_t i = 0; i < cov->n; i++) {
		free(cov->rules[i].file);
		free(cov->rules[i].origin);
		free(cov->rules[i].key);
		free(cov->rules[i].text);
		free(cov->rules[i].preset);
	}
	free(cov->rules);
	for (size_t i = 0; i < cov->ndecided; i++)
		free(cov->decided[i]);
	free(cov->decided);
	for (size_t i = 0; i < cov->naliases; i++) {
		free(cov->aliases[i].name);
		free(cov->aliases[i].key);
	}
	free(cov->aliases);
	coverage_init(cov);
}

static bool has_origin(const struct coverage *cov, const char *origin)
{
	for (size_t i = 0; i < cov->n; i++)
		if (strcmp(cov->rules[i].key, origin) == 0)
			return true;
	return false;
}

/* A file name with "dir/.." and "." steps removed, so that a file reached
 * by two spellings (rules/default.cordon, rules/examples/../default.cordon)
 * is one file. */
static char *normalize_name(const char *name, size_t len)
{
	const char **parts = xcalloc(len + 1, sizeof(*parts));
	size_t *lens = xcalloc(len + 1, sizeof(*lens));
	size_t n = 0, kept_up = 0; /* leading ".." of a relative name */
	const char *p = name, *end = name + len;
	bool absolute = len && name[0] == '/';
	struct strbuf sb;

	while (p < end) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		size_t k = slash ? (size_t)(slash - p) : (size_t)(end - p);
		if (k == 2 && p[0] == '.' && p[1] == '.') {
			if (n > kept_up)
				n--;
			else if (!absolute) {
				parts[n] = p;
				lens[n++] = k;
				kept_up++;
			}
		} else if (k > 0 && !(k == 1 && p[0] == '.')) {
			parts[n] = p;
			lens[n++] = k;
		}
		p += k + (slash ? 1 : 0);
	}
	sb_init(&sb);
	if (absolute)
		sb_addc(&sb, '/');
	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_addc(&sb, '/');
		sb_add(&sb, parts[i], lens[i]);
	}
	if (sb.len == 0)
		sb_addc(&sb, '.');
	free(parts);
	free(lens);
	return sb_steal(&sb);
}

/* What tells files apart: the real path where the file has one on disk,
 * its normalised name otherwise (embedded text). */
static char *file_key(const struct src_file *f)
{
	char real[PATH_MAX];
	if (f->path && realpath(f->path, real))
		return xstrdup(real);
	return normalize_name(f->name, strlen(f->name));
}

static void add_alias(struct coverage *cov, const char *name, const char *key)
{
	for (size_t i = 0; i < cov->naliases; i++)
		if (strcmp(cov->aliases[i].name, name) == 0) {
			free(cov->aliases[i].key);
			cov->aliases[i].key = xstrdup(key);
			return;
		}
	struct coverage_alias a = { xstrdup(name), xstrdup(key) };
	VEC_PUSH(cov->aliases, cov->naliases, cov->aliases_cap, a);
}

static void add_rule(struct coverage *cov, const cordon_policy *policy, struct loc at,
		     char *text, const char *from)
{
	const struct src_file *f = srcmgr_file(&policy->sm, at.file);
	struct coverage_rule r = { 0 };
	char *key;
	/* A shipped file the policy includes from cordon's copy is not the
	 * user's to test: its rules count only when asked for. */
	if (!f || (!cov->include_shipped && embedded_included(f))) {
		free(text);
		return;
	}
	srcmgr_linecol(&policy->sm, at.file, at.start, &r.line, &r.col);
	key = file_key(f);
	add_alias(cov, f->name, key);
	r.key = xasprintf("%s:%u:%u", key, r.line, r.col);
	free(key);
	if (has_origin(cov, r.key)) {
		free(r.key);
		free(text);
		return;
	}
	r.file = normalize_name(f->name, strlen(f->name));
	r.origin = xasprintf("%s:%u:%u", r.file, r.line, r.col);
	r.text = text;
	r.preset = from ? xstrdup(from) : NULL;
	VEC_PUSH(cov->rules, cov->n, cov->cap, r);
}

static bool same_loc(struct loc a, struct loc b)
{
	return a.file == b.file && a.start == b.start;
}

/* `op "a", "b" effect` from every IR rule of one statement in a preset. */
static char *rule_text(const struct ir_preset *p, size_t first)
{
	const struct ir_rule *r = &p->rules[first];
	struct strbuf sb;
	sb_init(&sb);
	sb_addf(&sb, "%s ", ir_op_names[r->op]);
	for (size_t i = first; i < p->nrules; i++) {
		if (!same_loc(p->rules[i].origin, r->origin))
			continue;
		if (i != first)
			sb_adds(&sb, ", ");
		ir_pattern_print(&sb, &p->rules[i].pat);
	}
	sb_addf(&sb, " %s", ir_effect_names[r->effect]);
	return sb_steal(&sb);
}

void coverage_add_policy(struct coverage *cov, const cordon_policy *policy)
{
	for (size_t i = 0; i < policy->ir.npresets; i++) {
		const struct ir_preset *p = &policy->ir.presets[i];
		for (size_t j = 0; j < p->nrules; j++) {
			bool seen = false;
			for (size_t k = 0; k < j && !seen; k++)
				seen = same_loc(p->rules[k].origin, p->rules[j].origin);
			if (!seen)
				add_rule(cov, policy, p->rules[j].origin, rule_text(p, j),
					 p->rules[j].from);
		}
		for (size_t j = 0; j < p->nprotect; j++) {
			struct strbuf sb;
			sb_init(&sb);
			sb_adds(&sb, "protect ");
			ir_pattern_print(&sb, &p->protect[j].pat);
			add_rule(cov, policy, p->protect[j].origin, sb_steal(&sb), p->protect[j].from);
		}
	}
}

void coverage_mark(struct coverage *cov, const char *origin)
{
	/* A decision names its rule "name:line:col"; the name's file was seen
	 * when the policy's rules were added. */
	const char *col = strrchr(origin, ':'), *line = NULL;
	for (const char *p = col; p && p > origin && !line; p--)
		if (p[-1] == ':')
			line = p - 1;
	if (!line)
		return;
	for (size_t i = 0; i < cov->naliases; i++) {
		const struct coverage_alias *a = &cov->aliases[i];
		if (strlen(a->name) == (size_t)(line - origin) &&
		    strncmp(a->name, origin, (size_t)(line - origin)) == 0) {
			VEC_PUSH(cov->decided, cov->ndecided, cov->decided_cap,
				 xasprintf("%s%s", a->key, line));
			return;
		}
	}
}

static int rule_cmp(const void *pa, const void *pb)
{
	const struct coverage_rule *a = pa, *b = pb;
	int r = strcmp(a->file, b->file);
	if (r)
		return r;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->col < b->col ? -1 : a->col > b->col;
}

static double percent(size_t covered, size_t total)
{
	return total ? 100.0 * (double)covered / (double)total : 100.0;
}

double coverage_finish(struct coverage *cov)
{
	size_t covered = 0;
	sort_items(cov->rules, cov->n, sizeof(*cov->rules), rule_cmp);
	for (size_t i = 0; i < cov->n; i++) {
		for (size_t j = 0; j < cov->ndecided && !cov->rules[i].covered; j++)
			cov->rules[i].covered = strcmp(cov->rules[i].key, cov->decided[j]) == 0;
		covered += cov->rules[i].covered;
	}
	return percent(covered, cov->n);
}

void coverage_print(FILE *out, const struct coverage *cov)
{
	size_t total_covered = 0;
	fputs("# coverage: rules that decided at least one expectation\n", out);
	for (size_t i = 0; i < cov->n;) {
		size_t j = i, covered = 0;
		for (; j < cov->n && strcmp(cov->rules[j].file, cov->rules[i].file) == 0; j++)
			covered += cov->rules[j].covered;
		fprintf(out, "# %s: %zu/%zu rules (%.1f%%)\n", cov->rules[i].file, covered, j - i,
			percent(covered, j - i));
		total_covered += covered;
		i = j;
	}
	fprintf(out, "# total: %zu/%zu rules (%.1f%%)\n", total_covered, cov->n,
		percent(total_covered, cov->n));
	for (size_t i = 0; i < cov->n; i++) {
		const struct coverage_rule *r = &cov->rules[i];
		if (r->covered)
			continue;
		fprintf(out, "# uncovered: %s: %s", r->origin, r->text);
		if (r->preset)
			fprintf(out, "  (preset \"%s\")", r->preset);
		fputc('\n', out);
	}
}
