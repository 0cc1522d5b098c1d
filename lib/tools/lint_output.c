/* The forms a lint result is written in: GCC-style text with the source
 * line and a caret (as `cordon check` prints), a JSON array of findings,
 * and a SARIF 2.1.0 log for code-scanning services. */
#include "config.h"

#include "lang/embedded.h"
#include "lint_int.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* ---- text ------------------------------------------------------------------------------ */

void lint_print_text(FILE *out, const struct lint_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		diag_print_record(out, &r->policy->sm, &r->items[i]);
}

void lint_print_summary(FILE *out, struct lint_result *const *rs, size_t n)
{
	size_t count[DIAG_SEVERITY_COUNT] = { 0 }, suppressed = 0;
	static const char *const plural[DIAG_SEVERITY_COUNT][2] = {
		{ "error", "errors" }, { "warning", "warnings" }, { "info", "info" },
	};
	for (size_t i = 0; i < n; i++) {
		for (int l = 0; l < DIAG_SEVERITY_COUNT; l++)
			count[l] += rs[i]->count[l];
		suppressed += rs[i]->suppressed;
	}
	bool any = false;
	for (int l = 0; l < DIAG_SEVERITY_COUNT; l++) {
		if (!count[l])
			continue;
		fprintf(out, "%s%zu %s", any ? ", " : "", count[l], plural[l][count[l] != 1]);
		any = true;
	}
	if (suppressed)
		fprintf(out, "%s%zu suppressed", any ? ", " : "", suppressed);
	if (any || suppressed)
		fputc('\n', out);
}

/* ---- JSON ------------------------------------------------------------------------------ */

/* A JSON string even for text that is not UTF-8 (shown as '?'). */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s);
	if (j)
		return j;
	char *copy = xstrdup(s);
	size_t len = strlen(copy), at;
	while ((at = utf8_invalid_at((const unsigned char *)copy, len)) < len)
		copy[at] = '?';
	j = json_string(copy);
	free(copy);
	return j ? j : json_string("");
}

static void set_new(json_t *obj, const char *key, json_t *value)
{
	json_object_set_new(obj, key, value);
}

/* 1-based line and column of an offset, the column in bytes or, with
 * code_points, in Unicode code points. */
static void position(const struct srcmgr *sm, uint32_t file, uint32_t off, bool code_points,
		     unsigned *line, unsigned *col)
{
	const struct src_file *f = srcmgr_file(sm, file);
	srcmgr_linecol(sm, file, off, line, col);
	if (!code_points || !f)
		return;
	size_t start, len;
	srcmgr_line(sm, file, *line, &start, &len);
	unsigned cp = 1;
	for (size_t i = start; i < off && i < f->len; i++)
		if (((unsigned char)f->text[i] & 0xc0) != 0x80)
			cp++;
	*col = cp;
}

static json_t *finding_json(const struct lint_result *r, const struct diag *f)
{
	const struct srcmgr *sm = &r->policy->sm;
	json_t *o = json_object();
	unsigned line, col;
	set_new(o, "id", jstr(f->id));
	set_new(o, "level", json_string(diag_severity_names[f->severity]));
	if (f->has_loc && srcmgr_file(sm, f->loc.file)) {
		set_new(o, "file", jstr(srcmgr_file(sm, f->loc.file)->name));
		position(sm, f->loc.file, f->loc.start, false, &line, &col);
		set_new(o, "line", json_integer(line));
		set_new(o, "column", json_integer(col));
		position(sm, f->loc.file, f->loc.end > f->loc.start ? f->loc.end : f->loc.start + 1,
			 false, &line, &col);
		set_new(o, "end_line", json_integer(line));
		set_new(o, "end_column", json_integer(col));
	} else {
		set_new(o, "file", jstr(cordon_policy_name(r->policy)));
	}
	set_new(o, "message", jstr(f->message));
	if (f->hint)
		set_new(o, "hint", jstr(f->hint));
	if (f->note) {
		json_t *n = json_object();
		if (f->has_note && srcmgr_file(sm, f->note_loc.file)) {
			set_new(n, "file", jstr(srcmgr_file(sm, f->note_loc.file)->name));
			position(sm, f->note_loc.file, f->note_loc.start, false, &line, &col);
			set_new(n, "line", json_integer(line));
			set_new(n, "column", json_integer(col));
		}
		set_new(n, "message", jstr(f->note));
		set_new(o, "note", n);
	}
	return o;
}

static void dump(FILE *out, json_t *j)
{
	json_dumpf(j, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(j);
}

void lint_print_json(FILE *out, struct lint_result *const *rs, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < rs[i]->n; k++)
			json_array_append_new(arr, finding_json(rs[i], &rs[i]->items[k]));
	dump(out, arr);
}

/* ---- SARIF 2.1.0 ----------------------------------------------------------------------- */

static const char *const sarif_level[DIAG_SEVERITY_COUNT] = { "error", "warning", "note" };

/* A file name as a URI reference: relative names stay relative, absolute
 * ones become file:// URIs; bytes outside the unreserved set are escaped. */
static json_t *file_uri(const char *name)
{
	struct strbuf sb;
	sb_init(&sb);
	if (name[0] == '/')
		sb_adds(&sb, "file://");
	for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
		if ((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
		    strchr("-._~/", *c))
			sb_addc(&sb, (char)*c);
		else
			sb_addf(&sb, "%%%02X", *c);
	}
	json_t *j = json_string(sb.buf);
	sb_free(&sb);
	return j;
}

static json_t *text_object(const char *text)
{
	json_t *o = json_object();
	set_new(o, "text", jstr(text));
	return o;
}

/* The base of the shipped policies in a SARIF log: where `make install`
 * put them, for a file cordon read from its own copy. */
#define SARIF_SHIPPED_BASE "CORDON_SHIPPED"

static json_t *artifact_location(const struct src_file *f)
{
	json_t *art = json_object();
	if (embedded_included(f)) {
		/* Not a file of the user's tree: name it below the installed copy. */
		const char *base = strncmp(f->name, "rules/", 6) == 0 ? f->name + 6 : f->name;
		set_new(art, "uri", file_uri(base));
		set_new(art, "uriBaseId", json_string(SARIF_SHIPPED_BASE));
	} else {
		set_new(art, "uri", file_uri(f->name));
	}
	return art;
}

static json_t *physical_location(const struct srcmgr *sm, struct loc at)
{
	json_t *phys = json_object(), *art = artifact_location(srcmgr_file(sm, at.file));
	json_t *region = json_object();
	unsigned line, col;
	set_new(phys, "artifactLocation", art);
	position(sm, at.file, at.start, true, &line, &col);
	set_new(region, "startLine", json_integer(line));
	set_new(region, "startColumn", json_integer(col));
	position(sm, at.file, at.end > at.start ? at.end : at.start + 1, true, &line, &col);
	set_new(region, "endLine", json_integer(line));
	set_new(region, "endColumn", json_integer(col));
	set_new(phys, "region", region);
	return phys;
}

static json_t *rule_json(const char *id, const char *summary, const char *description,
			 const char *level)
{
	json_t *rule = json_object(), *config = json_object();
	set_new(rule, "id", json_string(id));
	set_new(rule, "shortDescription", text_object(summary));
	set_new(rule, "fullDescription", text_object(description));
	set_new(config, "level", json_string(level));
	set_new(rule, "defaultConfiguration", config);
	return rule;
}

/* The index of a rule id in the driver's rules, adding an entry for a
 * `cordon check` error id the first time it is seen. */
static size_t rule_index(json_t *rules, const char *id)
{
	size_t i;
	json_t *rule;
	json_array_foreach(rules, i, rule)
	{
		if (strcmp(json_string_value(json_object_get(rule, "id")), id) == 0)
			return i;
	}
	char *desc = xasprintf("The policy does not compile: %s (reported by cordon check).", id);
	json_array_append_new(rules, rule_json(id, "a policy error", desc, "error"));
	free(desc);
	return json_array_size(rules) - 1;
}

static json_t *result_json(const struct lint_result *r, const struct diag *f,
			   json_t *rules)
{
	const struct srcmgr *sm = &r->policy->sm;
	json_t *res = json_object();
	set_new(res, "ruleId", jstr(f->id));
	set_new(res, "ruleIndex", json_integer((json_int_t)rule_index(rules, f->id)));
	set_new(res, "level", json_string(sarif_level[f->severity]));
	set_new(res, "message", text_object(f->message));
	json_t *locs = json_array();
	if (f->has_loc && srcmgr_file(sm, f->loc.file)) {
		json_t *loc = json_object();
		set_new(loc, "physicalLocation", physical_location(sm, f->loc));
		json_array_append_new(locs, loc);
	} else {
		json_t *loc = json_object(), *phys = json_object(), *art = json_object();
		set_new(art, "uri", file_uri(cordon_policy_name(r->policy)));
		set_new(phys, "artifactLocation", art);
		set_new(loc, "physicalLocation", phys);
		json_array_append_new(locs, loc);
	}
	set_new(res, "locations", locs);
	if (f->has_note && srcmgr_file(sm, f->note_loc.file)) {
		json_t *rel = json_array(), *loc = json_object();
		set_new(loc, "id", json_integer(0));
		set_new(loc, "physicalLocation", physical_location(sm, f->note_loc));
		set_new(loc, "message", text_object(f->note));
		json_array_append_new(rel, loc);
		set_new(res, "relatedLocations", rel);
	}
	if (f->hint) {
		json_t *props = json_object();
		set_new(props, "hint", jstr(f->hint));
		set_new(res, "properties", props);
	}
	return res;
}

/* Does a finding or its note lie in a shipped file read from cordon's copy? */
static bool names_shipped(struct lint_result *const *rs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct srcmgr *sm = &rs[i]->policy->sm;
		for (size_t k = 0; k < rs[i]->n; k++) {
			const struct diag *f = &rs[i]->items[k];
			if ((f->has_loc && embedded_included(srcmgr_file(sm, f->loc.file))) ||
			    (f->has_note && embedded_included(srcmgr_file(sm, f->note_loc.file))))
				return true;
		}
	}
	return false;
}

void lint_print_sarif(FILE *out, struct lint_result *const *rs, size_t n)
{
	json_t *log = json_object(), *runs = json_array(), *run = json_object();
	json_t *tool = json_object(), *driver = json_object(), *rules = json_array();
	json_t *results = json_array();

	for (size_t i = 0; i < lint_ncheck; i++)
		json_array_append_new(rules, rule_json(lint_checks[i].id, lint_checks[i].summary,
						       lint_checks[i].description,
						       sarif_level[lint_checks[i].level]));
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < rs[i]->n; k++)
			json_array_append_new(results, result_json(rs[i], &rs[i]->items[k], rules));

	set_new(log, "$schema", json_string("https://json.schemastore.org/sarif-2.1.0.json"));
	set_new(log, "version", json_string("2.1.0"));
	set_new(driver, "name", json_string("cordon"));
	set_new(driver, "version", json_string(cordon_version()));
	set_new(driver, "rules", rules);
	set_new(tool, "driver", driver);
	set_new(run, "tool", tool);
	set_new(run, "columnKind", json_string("unicodeCodePoints"));
	if (names_shipped(rs, n)) {
		json_t *bases = json_object(), *shipped = json_object();
		char *dir = xasprintf("file://%s/", PKGDATADIR);
		set_new(shipped, "uri", json_string(dir));
		set_new(shipped, "description", text_object("the policies shipped with cordon"));
		set_new(bases, SARIF_SHIPPED_BASE, shipped);
		set_new(run, "originalUriBaseIds", bases);
		free(dir);
	}
	set_new(run, "results", results);
	json_array_append_new(runs, run);
	set_new(log, "runs", runs);
	dump(out, log);
}
