/* cordon diff OLD NEW: what a policy change widens or narrows. */
#include "config.h"

#include "cli.h"
#include "tools/diff.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A fixed context, so a diff reads the same on every machine. */
static const char *const default_context[][2] = {
	{ "workspace", "/ws" },
	{ "cwd", "/ws" },
	{ "home", "/home/u" },
	{ "tmp", "/tmp/t" },
	{ "agent_dir", "/home/u/.cordon" },
	{ "session_dir", "/home/u/.cordon/s" },
	{ "user", "u" },
};

static const char *const status_names[] = {
	[DIFF_SAME] = "unchanged",
	[DIFF_MODIFIED] = "changed",
	[DIFF_ADDED] = "added",
	[DIFF_REMOVED] = "removed",
};

static void print_change_text(const struct diff_change *c)
{
	const char *cls = diff_class_names[c->cls];
	switch (c->kind) {
	case DIFF_PRESET:
		break;
	case DIFF_DECISION:
		break; /* print_decisions groups them */
	case DIFF_SETTING:
		printf("  %s: %s -> %s  (%s)\n", c->subject, c->old_value ? c->old_value : "(none)",
		       c->new_value ? c->new_value : "(none)", cls);
		break;
	case DIFF_ENV:
		if (c->old_value && c->new_value && strcmp(c->old_value, "present") != 0)
			printf("  env %s: \"%s\" -> \"%s\"  (%s)\n", c->subject, c->old_value,
			       c->new_value, cls);
		else if (c->new_value && strcmp(c->new_value, "present") != 0)
			printf("  env %s = \"%s\": added  (%s)\n", c->subject, c->new_value, cls);
		else if (c->old_value && strcmp(c->old_value, "present") != 0)
			printf("  env %s = \"%s\": removed  (%s)\n", c->subject, c->old_value, cls);
		else
			printf("  env %s: %s  (%s)\n", c->subject, c->new_value ? "added" : "removed",
			       cls);
		break;
	case DIFF_PROTECT:
		printf("  protect %s: %s  (%s)\n", c->subject, c->new_value ? "added" : "removed", cls);
		break;
	case DIFF_PLAN:
		printf("  plan %c %s  (%s)\n", c->new_value ? '+' : '-', c->subject, cls);
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

static void print_decisions(const struct diff_preset *p)
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
		printf("  %s %s: %s -> %s  (%s; was %s, now %s)\n", ir_op_names[c->op], region,
		       c->old_value, c->new_value, diff_class_names[c->cls],
		       c->old_rule ? c->old_rule : "no rule", c->new_rule ? c->new_rule : "no rule");
		if (count > 1)
			for (size_t j = i; j < p->n; j++)
				if (in_group[j])
					printf("      %s\n", p->changes[j].subject);
		free(region);
	}
	free(done);
	free(in_group);
}

static void print_text(const struct diff_result *r)
{
	for (size_t j = 0; j < r->policy.n; j++) {
		const struct diff_change *c = &r->policy.changes[j];
		printf("%s: %s -> %s  (%s)\n", c->subject, c->old_value ? c->old_value : "(none)",
		       c->new_value ? c->new_value : "(none)", diff_class_names[c->cls]);
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct diff_preset *p = &r->presets[i];
		if (p->status == DIFF_ADDED || p->status == DIFF_REMOVED) {
			printf("preset \"%s\": %s  (%s)\n", p->name, status_names[p->status],
			       diff_class_names[p->changes[0].cls]);
			continue;
		}
		if (p->status == DIFF_SAME) {
			printf("preset \"%s\": no change\n", p->name);
			continue;
		}
		printf("preset \"%s\":\n", p->name);
		print_decisions(p);
		for (size_t j = 0; j < p->n; j++)
			print_change_text(&p->changes[j]);
	}
	printf("%zu widened, %zu narrowed, %zu changed (%zu requests compared)\n",
	       r->count[DIFF_WIDENED], r->count[DIFF_NARROWED], r->count[DIFF_CHANGED], r->probes);
}

/* One line on stderr for --fail-on-widen, which a job whose stdout goes
 * elsewhere still shows: how much widened, and the first change. */
static void report_widening(const struct diff_result *r)
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
	struct strbuf sb;
	sb_init(&sb);
	if (where && where != &r->policy)
		sb_addf(&sb, "preset \"%s\": ", where->name);
	if (first && first->kind == DIFF_DECISION)
		sb_addf(&sb, "%s %s: %s -> %s", ir_op_names[first->op], first->subject,
			first->old_value ? first->old_value : "(none)",
			first->new_value ? first->new_value : "(none)");
	else if (first && first->kind == DIFF_PRESET)
		sb_adds(&sb, "added");
	else if (first)
		sb_addf(&sb, "%s %s: %s -> %s", diff_kind_names[first->kind], first->subject,
			first->old_value ? first->old_value : "(none)",
			first->new_value ? first->new_value : "(none)");
	fprintf(stderr, "cordon: the change widens what the policy grants (%zu widened; first, %s)\n",
		r->count[DIFF_WIDENED], sb.buf ? sb.buf : "");
	sb_free(&sb);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static void print_json(const struct diff_result *r, const char *old_path, const char *new_path,
		       const cordon_context *ctx)
{
	json_t *root = json_object(), *presets = json_array(), *jctx = json_object();
	for (size_t i = 0; i < ARRAY_SIZE(default_context); i++)
		json_object_set_new(jctx, default_context[i][0],
				    json_string(cordon_context_get(ctx, default_context[i][0])));
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
	json_object_set_new(root, "old", json_string(old_path));
	json_object_set_new(root, "new", json_string(new_path));
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
	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(root);
}

int cmd_diff(int argc, char **argv)
{
	enum { OPT_PRESET = 256, OPT_ALL, OPT_FORMAT, OPT_FAIL_ON_WIDEN, OPT_CONTEXT };
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "preset", required_argument, NULL, OPT_PRESET },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "fail-on-widen", no_argument, NULL, OPT_FAIL_ON_WIDEN },
		{ "context", required_argument, NULL, OPT_CONTEXT },
		{ NULL, 0, NULL, 0 },
	};
	const char *preset = NULL;
	bool all = false, json = false, fail_on_widen = false;
	cordon_context *ctx = cordon_context_new();
	cordon_policy *old_p = NULL, *new_p = NULL;
	struct diff_result res = { 0 };
	int c, status = EXIT_OK, st_old = EXIT_OK, st_new = EXIT_OK;
	char *err = NULL;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cordon_context_free(ctx);
			return cli_help("diff");
		case OPT_PRESET:
			preset = optarg;
			break;
		case OPT_ALL:
			all = true;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "json") == 0) {
				json = true;
			} else if (strcmp(optarg, "text") != 0) {
				status = cli_usage_error("diff", "unknown format '%s': use text or json",
							 optarg);
				goto out;
			}
			break;
		case OPT_FAIL_ON_WIDEN:
			fail_on_widen = true;
			break;
		case OPT_CONTEXT:
			if ((status = cli_context_arg(ctx, "diff", optarg)) != EXIT_OK)
				goto out;
			break;
		default:
			status = cli_usage_error("diff", "unknown option");
			goto out;
		}
	}
	if (argc - optind != 2) {
		status = cli_usage_error("diff", argc - optind < 2 ? "give two policy files, OLD and NEW"
								   : "unexpected argument '%s'",
					 argv[optind + 2 < argc ? optind + 2 : optind]);
		goto out;
	}
	if (all && preset) {
		status = cli_usage_error("diff", "--all and --preset exclude each other");
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(default_context); i++)
		if (!cordon_context_get(ctx, default_context[i][0]) &&
		    cordon_context_set(ctx, default_context[i][0], default_context[i][1], &err) != 0)
			abort(); /* the defaults are valid */
	/* Both files are checked, so one run reports the errors of both. */
	old_p = cli_load_policy(argv[optind], &st_old);
	new_p = cli_load_policy(argv[optind + 1], &st_new);
	if (!old_p || !new_p) {
		status = st_old == EXIT_USAGE || st_new == EXIT_USAGE ? EXIT_USAGE : EXIT_POLICY;
		goto out;
	}
	if (diff_policies(old_p, new_p, preset, ctx, &res, &err) != 0) {
		status = cli_usage_error(NULL, "%s", err);
		goto out;
	}
	if (json)
		print_json(&res, argv[optind], argv[optind + 1], ctx);
	else
		print_text(&res);
	if (fail_on_widen && res.count[DIFF_WIDENED]) {
		report_widening(&res);
		status = EXIT_POLICY;
	}
out:
	free(err);
	diff_result_free(&res);
	cordon_policy_free(old_p);
	cordon_policy_free(new_p);
	cordon_context_free(ctx);
	return status;
}
