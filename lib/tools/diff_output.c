/* The forms a policy diff is written in: text for a person (decisions that
 * changed the same way grouped into regions, then the other changes, then
 * the counts) and JSON for a program; and the one line that names the first
 * widening change. */
#include "config.h"

#include "diff.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {
	[DIFF_SAME] = "unchanged",
	[DIFF_MODIFIED] = "changed",
	[DIFF_ADDED] = "added",
	[DIFF_REMOVED] = "removed",
};

/* ---- text ------------------------------------------------------------------ */

static void print_change_text(FILE *out, const struct diff_change *c)
{
	const char *cls = diff_class_names[c->cls];
	switch (c->kind) {
	case DIFF_PRESET:
		break;
	case DIFF_DECISION:
		break; /* print_decisions groups them */
	case DIFF_SETTING:
		fprintf(out, "  %s: %s -> %s  (%s)\n", c->subject,
			c->old_value ? c->old_value : "(none)", c->new_value ? c->new_value : "(none)",
			cls);
		break;
	case DIFF_ENV:
		if (c->old_value && c->new_value && strcmp(c->old_value, "present") != 0)
			fprintf(out, "  env %s: \"%s\" -> \"%s\"  (%s)\n", c->subject, c->old_value,
				c->new_value, cls);
		else if (c->new_value && strcmp(c->new_value, "present") != 0)
			fprintf(out, "  env %s = \"%s\": added  (%s)\n", c->subject, c->new_value, cls);
		else if (c->old_value && strcmp(c->old_value, "present") != 0)
			fprintf(out, "  env %s = \"%s\": removed  (%s)\n", c->subject, c->old_value, cls);
		else
			fprintf(out, "  env %s: %s  (%s)\n", c->subject, c->new_value ? "added" : "removed",
				cls);
		break;
	case DIFF_PROTECT:
		fprintf(out, "  protect %s: %s  (%s)\n", c->subject, c->new_value ? "added" : "removed",
			cls);
		break;
	case DIFF_PLAN:
		fprintf(out, "  plan %c %s  (%s)\n", c->new_value ? '+' : '-', c->subject, cls);
		break;
	case DIFF_KIND_COUNT:
		break;
	}
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Two decision changes belong to one region when they changed the same
 * way between the same rules. */
static bool same_region(const struct diff_change *a, const struct diff_change *b)
{
	return a->kind == DIFF_DECISION && b->kind == DIFF_DECISION && a->op == b->op &&
	       same_str(a->old_value, b->old_value) && same_str(a->new_value, b->new_value) &&
	       same_str(a->old_rule, b->old_rule) && same_str(a->new_rule, b->new_rule);
}

/* The name of a region of paths: the one path, or the deepest directory
 * holding them all, as DIR/... */
static char *region_name(const struct diff_preset *p, size_t first, const bool *in_group)
{
	const char *base = p->changes[first].subject;
	size_t n = strlen(base), count = 0;
	enum ir_op op = p->changes[first].op;
	for (size_t j = first; j < p->n; j++) {
		const char *t = p->changes[j].subject;
		size_t k = 0;
		if (!in_group[j])
			continue;
		count++;
		while (k < n && t[k] == base[k])
			k++;
		n = k;
	}
	if (count == 1)
		return xstrdup(base);
	if (op != IR_READ && op != IR_WRITE) {
		/* Commands share whole words. */
		if (op == IR_EXEC)
			for (size_t j = first; j < p->n && n > 0; j++)
				if (in_group[j] && p->changes[j].subject[n] != '\0' &&
				    p->changes[j].subject[n] != ' ')
					while (n > 0 && base[n - 1] != ' ')
						n--;
		while (n > 0 && base[n - 1] == ' ')
			n--;
		return n ? xasprintf("%.*s%s...", (int)n, base, op == IR_EXEC ? " " : "")
			 : xasprintf("%zu requests", count);
	}
	/* Back to a whole component: "/ws/.git" and "/ws/.gitignore" share "/ws". */
	bool whole = true;
	for (size_t j = first; j < p->n && whole; j++)
		if (in_group[j])
			whole = p->changes[j].subject[n] == '\0' || p->changes[j].subject[n] == '/';
	if (!whole)
		while (n > 0 && base[n - 1] != '/')
			n--;
	while (n > 1 && base[n - 1] == '/')
		n--;
	return n <= 1 ? xstrdup("/...") : xasprintf("%.*s/...", (int)n, base);
}

static void print_decisions(FILE *out, const struct diff_preset *p)
{
	bool *done = xcalloc(p->n + 1, sizeof(*done));
	bool *in_group = xcalloc(p->n + 1, sizeof(*in_group));
	for (size_t i = 0; i < p->n; i++) {
		const struct diff_change *c = &p->changes[i];
		size_t count = 0;
		if (c->kind != DIFF_DECISION || done[i])
			continue;
		for (size_t j = i; j < p->n; j++) {
			in_group[j] = !done[j] && same_region(c, &p->changes[j]);
			done[j] = done[j] || in_group[j];
			count += in_group[j];
		}
		char *region = region_name(p, i, in_group);
		fprintf(out, "  %s %s: %s -> %s  (%s; was %s, now %s)\n", ir_op_names[c->op], region,
			c->old_value, c->new_value, diff_class_names[c->cls],
			c->old_rule ? c->old_rule : "no rule", c->new_rule ? c->new_rule : "no rule");
		if (count > 1)
			for (size_t j = i; j < p->n; j++)
				if (in_group[j])
					fprintf(out, "      %s\n", p->changes[j].subject);
		free(region);
	}
	free(done);
	free(in_group);
}

void diff_print_text(FILE *out, const struct diff_result *r)
{
	for (size_t j = 0; j < r->policy.n; j++) {
		const struct diff_change *c = &r->policy.changes[j];
		fprintf(out, "%s: %s -> %s  (%s)\n", c->subject, c->old_value ? c->old_value : "(none)",
			c->new_value ? c->new_value : "(none)", diff_class_names[c->cls]);
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct diff_preset *p = &r->presets[i];
		if (p->status == DIFF_ADDED || p->status == DIFF_REMOVED) {
			fprintf(out, "preset \"%s\": %s  (%s)\n", p->name, status_names[p->status],
				diff_class_names[p->changes[0].cls]);
			continue;
		}
		if (p->status == DIFF_SAME) {
			fprintf(out, "preset \"%s\": no change\n", p->name);
			continue;
		}
		fprintf(out, "preset \"%s\":\n", p->name);
		print_decisions(out, p);
		for (size_t j = 0; j < p->n; j++)
			print_change_text(out, &p->changes[j]);
	}
	fprintf(out, "%zu widened, %zu narrowed, %zu changed (%zu requests compared)\n",
		r->count[DIFF_WIDENED], r->count[DIFF_NARROWED], r->count[DIFF_CHANGED], r->probes);
}

char *diff_first_widening(const struct diff_result *r)
{
	const struct diff_preset *where = NULL;
	const struct diff_change *first = NULL;
	for (size_t i = 0; i < r->policy.n && !first; i++)
		if (r->policy.changes[i].cls == DIFF_WIDENED)
			where = &r->policy, first = &r->policy.changes[i];
	for (size_t i = 0; i < r->n && !first; i++)
		for (size_t k = 0; k < r->presets[i].n && !first; k++)
			if (r->presets[i].changes[k].cls == DIFF_WIDENED)
				where = &r->presets[i], first = &r->presets[i].changes[k];
	if (!first)
		return NULL;
	char *words = diff_change_words(first), *line;
	if (where == &r->policy)
		return words;
	line = xasprintf("preset \"%s\": %s", where->name, words);
	free(words);
	return line;
}

char *diff_change_words(const struct diff_change *c)
{
	struct strbuf sb;
	sb_init(&sb);
	if (c->kind == DIFF_DECISION)
		sb_addf(&sb, "%s %s: %s -> %s", ir_op_names[c->op], c->subject,
			c->old_value ? c->old_value : "(none)", c->new_value ? c->new_value : "(none)");
	else if (c->kind == DIFF_PRESET)
		sb_adds(&sb, c->new_value ? "added" : "removed");
	else
		sb_addf(&sb, "%s %s: %s -> %s", diff_kind_names[c->kind], c->subject,
			c->old_value ? c->old_value : "(none)", c->new_value ? c->new_value : "(none)");
	return sb_steal(&sb);
}

/* ---- JSON ------------------------------------------------------------------ */

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

void diff_print_json(FILE *out, const struct diff_result *r, const char *old_name,
		     const char *new_name, const struct ir_context *ctx)
{
	json_t *root = json_object(), *presets = json_array(), *jctx = json_object();
	for (size_t i = 0; i < CTX_COUNT; i++)
		json_object_set_new(jctx, ir_ctx_var_names[i], str_or_null(ctx->value[i]));
	for (size_t i = 0; i < r->n; i++) {
		const struct diff_preset *p = &r->presets[i];
		json_t *jp = json_object(), *changes = json_array();
		json_object_set_new(jp, "preset", json_string(p->name));
		json_object_set_new(jp, "status", json_string(status_names[p->status]));
		for (size_t j = 0; j < p->n; j++) {
			const struct diff_change *c = &p->changes[j];
			json_t *jc = json_object();
			json_object_set_new(jc, "kind", json_string(diff_kind_names[c->kind]));
			if (c->kind == DIFF_DECISION)
				json_object_set_new(jc, "op", json_string(ir_op_names[c->op]));
			json_object_set_new(jc, "subject", json_string(c->subject));
			json_object_set_new(jc, "old", str_or_null(c->old_value));
			json_object_set_new(jc, "new", str_or_null(c->new_value));
			json_object_set_new(jc, "class", json_string(diff_class_names[c->cls]));
			if (c->kind == DIFF_DECISION) {
				json_object_set_new(jc, "old_rule", str_or_null(c->old_rule));
				json_object_set_new(jc, "new_rule", str_or_null(c->new_rule));
			}
			json_array_append_new(changes, jc);
		}
		json_object_set_new(jp, "changes", changes);
		json_array_append_new(presets, jp);
	}
	json_object_set_new(root, "old", json_string(old_name));
	json_object_set_new(root, "new", json_string(new_name));
	json_object_set_new(root, "context", jctx);
	for (size_t j = 0; j < r->policy.n; j++) {
		const struct diff_change *c = &r->policy.changes[j];
		json_t *jc = json_object();
		json_object_set_new(jc, "old", str_or_null(c->old_value));
		json_object_set_new(jc, "new", str_or_null(c->new_value));
		json_object_set_new(jc, "class", json_string(diff_class_names[c->cls]));
		json_object_set_new(root, c->subject, jc);
	}
	json_object_set_new(root, "presets", presets);
	json_object_set_new(root, "widened", json_integer((json_int_t)r->count[DIFF_WIDENED]));
	json_object_set_new(root, "narrowed", json_integer((json_int_t)r->count[DIFF_NARROWED]));
	json_object_set_new(root, "changed", json_integer((json_int_t)r->count[DIFF_CHANGED]));
	json_object_set_new(root, "requests", json_integer((json_int_t)r->probes));
	json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(root);
}
