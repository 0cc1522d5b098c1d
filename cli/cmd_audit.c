/* cordon audit LOG: summarise an audit log, and the --audit and --syslog
 * options the deciding verbs share.  A line that is not a whole JSON
 * record (a crash mid-write leaves a partial last line) is skipped with a
 * warning naming the file and line; it never stops the reading. */
#include "config.h"

#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *cli_audit_path(const char *path)
{
	if (!path || !*path)
		path = getenv("CORDON_AUDIT_LOG");
	return path && *path ? path : NULL;
}

const char *cli_syslog_where(const char *where)
{
	if (!where || !*where)
		where = getenv("CORDON_SYSLOG");
	if (!where || !*where || strcmp(where, "off") == 0)
		return NULL;
	return where;
}

bool cli_audit_wanted(const char *path, const char *syslog)
{
	return cli_audit_path(path) || cli_syslog_where(syslog);
}

int cli_audit_new(const char *path, const char *syslog, const cordon_policy *policy,
		  cordon_audit **log, char **err)
{
	*log = NULL;
	path = cli_audit_path(path);
	syslog = cli_syslog_where(syslog);
	if (!path && !syslog)
		return 0;
	if ((*log = cordon_audit_open(path, policy, err)) &&
	    (!syslog || cordon_audit_syslog(*log, syslog, err) == 0))
		return 0;
	cordon_audit_close(*log);
	*log = NULL;
	return -1;
}

int cli_audit_open(const char *verb, const char *path, const char *syslog,
		   const cordon_policy *policy, cordon_audit **log)
{
	char *err = NULL;
	if (cli_audit_new(path, syslog, policy, log, &err) != 0) {
		int rc = cli_usage_error(verb, "%s", err);
		free(err);
		return rc;
	}
	return EXIT_OK;
}

void cli_audit_append(cordon_audit *log, const struct cordon_audit_record *rec)
{
	char *err = NULL;
	if (log && cordon_audit_append(log, rec, &err) != 0) {
		fprintf(stderr, "cordon: %s\n", err);
		free(err);
	}
}

void cli_audit_grant(cordon_audit *log, const char *preset, const char *tool,
		     const char *decision, const char *rule, const char *reason,
		     const char *actor, const char *outcome, int err)
{
	struct cordon_audit_record rec = { .preset = preset, .op = "tool", .target = tool,
					   .decision = decision, .rule = rule, .reason = reason,
					   .actor = actor, .outcome = outcome, .err = err };
	cli_audit_append(log, &rec);
}

/* ---- time ----------------------------------------------------------------- */

/* RFC 3339 (2026-01-02T03:04:05[.678](Z|+01:00)) to milliseconds since the
 * epoch; -1 when it is not one. */
static long long parse_rfc3339(const char *s)
{
	struct tm tm = { 0 };
	int y, mo, d, h, mi, sec, n = 0;
	long long ms = 0, scale = 100;
	if (sscanf(s, "%4d-%2d-%2d%*1[Tt ]%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 ||
	    n != 19 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return -1;
	s += n;
	if (*s == '.') {
		if (!(s[1] >= '0' && s[1] <= '9'))
			return -1;
		for (s++; *s >= '0' && *s <= '9'; s++, scale /= 10)
			ms += (*s - '0') * scale;
	}
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	long long t = (long long)timegm(&tm) * 1000 + ms;
	if ((*s == 'Z' || *s == 'z') && !s[1])
		return t;
	int oh, om;
	if ((*s == '+' || *s == '-') && sscanf(s + 1, "%2d:%2d%n", &oh, &om, &n) == 2 && n == 5 &&
	    !s[6] && oh <= 23 && om <= 59) {
		long long off = ((long long)oh * 60 + om) * 60000;
		return *s == '+' ? t - off : t + off;
	}
	return -1;
}

/* --since: RFC 3339, or a duration back from now (30s, 10m, 2h, 1d). */
static long long parse_since(const char *s)
{
	char *end;
	long long t = parse_rfc3339(s);
	if (t >= 0)
		return t;
	errno = 0;
	long long n = strtoll(s, &end, 10);
	if (end == s || n < 0 || errno || end[0] == '\0' || end[1] != '\0')
		return -1;
	long long unit = end[0] == 's' ? 1 : end[0] == 'm' ? 60 : end[0] == 'h' ? 3600
		       : end[0] == 'd' ? 86400 : 0;
	if (!unit || n > 100LL * 365 * 86400 / unit)
		return -1;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ((long long)ts.tv_sec - n * unit) * 1000 + ts.tv_nsec / 1000000;
}

/* ---- counting ------------------------------------------------------------- */

struct count {
	char *key;
	size_t n;
};

struct tally {
	struct count *items;
	size_t len, cap;
};

static void tally_add(struct tally *t, const char *key)
{
	if (!key)
		key = "(none)";
	for (size_t i = 0; i < t->len; i++)
		if (strcmp(t->items[i].key, key) == 0) {
			t->items[i].n++;
			return;
		}
	struct count c = { strdup(key), 1 };
	if (!c.key)
		abort();
	if (t->len == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 8;
		t->items = realloc(t->items, t->cap * sizeof(*t->items));
		if (!t->items)
			abort();
	}
	t->items[t->len++] = c;
}

/* Most first, then by name: the order is stable for golden files. */
static int count_cmp(const void *pa, const void *pb)
{
	const struct count *a = pa, *b = pb;
	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return strcmp(a->key, b->key);
}

static void tally_sort(struct tally *t)
{
	if (t->len)
		qsort(t->items, t->len, sizeof(*t->items), count_cmp);
}

static void tally_free(struct tally *t)
{
	for (size_t i = 0; i < t->len; i++)
		free(t->items[i].key);
	free(t->items);
}

#define TOP_DENIED 10

struct summary {
	size_t lines, skipped, matched;
	size_t by_decision[CORDON_EFFECT_COUNT], other_decision;
	struct tally presets, ops, denied;
	json_t *matches;
};

static const char *str_field(json_t *rec, const char *name)
{
	json_t *v = json_object_get(rec, name);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static void print_text_record(json_t *rec)
{
	const char *fields[] = { "time", "decision", "op", "target" };
	for (size_t i = 0; i < 4; i++) {
		const char *v = str_field(rec, fields[i]);
		printf(i ? "  %s" : "%s", v ? v : "-");
	}
	const char *preset = str_field(rec, "preset"), *actor = str_field(rec, "actor"),
		   *outcome = str_field(rec, "outcome"), *approval = str_field(rec, "approval");
	printf("  (preset %s, actor %s, outcome %s", preset ? preset : "-", actor ? actor : "-",
	       outcome ? outcome : "-");
	if (approval)
		printf(", approval %s", approval);
	json_t *e = json_object_get(rec, "errno");
	if (json_is_integer(e))
		printf(", errno %lld (%s)", (long long)json_integer_value(e),
		       strerror((int)json_integer_value(e)));
	printf(")\n");
}

static void print_tally_text(const char *title, const struct tally *t, size_t limit)
{
	printf("%s", title);
	if (!t->len)
		printf(" none");
	for (size_t i = 0; i < t->len && i < limit; i++)
		printf("%s %s %zu", i ? "," : "", t->items[i].key, t->items[i].n);
	printf("\n");
}

static json_t *tally_json(const struct tally *t)
{
	json_t *o = json_object();
	for (size_t i = 0; i < t->len; i++)
		json_object_set_new(o, t->items[i].key, json_integer((json_int_t)t->items[i].n));
	return o;
}

static void print_summary(const struct summary *s, const char *path, bool json)
{
	if (json) {
		json_t *o = json_object(), *dec = json_object(), *top = json_array();
		for (int i = 0; i < CORDON_EFFECT_COUNT; i++)
			json_object_set_new(dec, cordon_effect_name((enum cordon_effect)i),
					    json_integer((json_int_t)s->by_decision[i]));
		if (s->other_decision)
			json_object_set_new(dec, "none",
					    json_integer((json_int_t)s->other_decision));
		for (size_t i = 0; i < s->denied.len && i < TOP_DENIED; i++)
			json_array_append_new(top, json_pack("{s:s, s:I}", "target",
							     s->denied.items[i].key, "count",
							     (json_int_t)s->denied.items[i].n));
		json_object_set_new(o, "log", json_string(path));
		json_object_set_new(o, "records", json_integer((json_int_t)s->matched));
		json_object_set_new(o, "skipped", json_integer((json_int_t)s->skipped));
		json_object_set_new(o, "by_decision", dec);
		json_object_set_new(o, "by_preset", tally_json(&s->presets));
		json_object_set_new(o, "by_op", tally_json(&s->ops));
		json_object_set_new(o, "top_denied", top);
		json_object_set(o, "matches", s->matches);
		char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
		puts(text ? text : "{}");
		free(text);
		json_decref(o);
		return;
	}
	printf("%zu record%s match in %s (%zu line%s read, %zu skipped)\n", s->matched,
	       s->matched == 1 ? "" : "s", path, s->lines, s->lines == 1 ? "" : "s", s->skipped);
	printf("by decision: allow %zu, ask %zu, deny %zu", s->by_decision[CORDON_ALLOW],
	       s->by_decision[CORDON_ASK], s->by_decision[CORDON_DENY]);
	/* Grant revocations decide nothing. */
	if (s->other_decision)
		printf(", none %zu", s->other_decision);
	printf("\n");
	print_tally_text("by preset:", &s->presets, SIZE_MAX);
	print_tally_text("by op:", &s->ops, SIZE_MAX);
	printf("top denied targets:%s\n", s->denied.len ? "" : " none");
	for (size_t i = 0; i < s->denied.len && i < TOP_DENIED; i++)
		printf("  %6zu  %s\n", s->denied.items[i].n, s->denied.items[i].key);
	if (s->matched)
		printf("records:\n");
	size_t i;
	json_t *rec;
	json_array_foreach(s->matches, i, rec) {
		printf("  ");
		print_text_record(rec);
	}
}

static void summarise_line(struct summary *s, const char *path, size_t lineno, const char *line,
			   size_t len, long long since, const char *want)
{
	json_error_t jerr;
	json_t *rec = json_loadb(line, len, 0, &jerr);
	const char *time_s, *decision;
	long long t;

	if (!rec || !json_is_object(rec)) {
		fprintf(stderr, "cordon: warning: %s:%zu: skipping a line that is not a JSON record%s%s\n",
			path, lineno, rec ? "" : ": ", rec ? "" : jerr.text);
		s->skipped++;
		json_decref(rec);
		return;
	}
	time_s = str_field(rec, "time");
	if (!time_s || (t = parse_rfc3339(time_s)) < 0) {
		fprintf(stderr, "cordon: warning: %s:%zu: skipping a record without an RFC 3339 "
				"\"time\"\n",
			path, lineno);
		s->skipped++;
		json_decref(rec);
		return;
	}
	decision = str_field(rec, "decision");
	if (t < since || (want && (!decision || strcmp(decision, want) != 0))) {
		json_decref(rec);
		return;
	}
	s->matched++;
	int effect = decision ? cordon_effect_from_name(decision) : -1;
	if (effect >= 0)
		s->by_decision[effect]++;
	else
		s->other_decision++;
	tally_add(&s->presets, str_field(rec, "preset"));
	tally_add(&s->ops, str_field(rec, "op"));
	if (decision && strcmp(decision, "deny") == 0)
		tally_add(&s->denied, str_field(rec, "target"));
	json_array_append_new(s->matches, rec);
}

int cmd_audit(int argc, char **argv)
{
	struct summary s = { 0 };
	struct cli_args a;
	const char *want = NULL, *path, *arg;
	long long since = 0;
	bool json;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int id;

	cli_args_init(&a, "audit", argc, argv);
	while ((id = cli_args_next(&a, &arg)) > 0) {
		switch (id) {
		case OPT_SINCE:
			if ((since = parse_since(arg)) < 0) {
				cli_args_free(&a);
				return cli_usage_error("audit", "--since expects an RFC 3339 time "
								"(2026-01-02T03:04:05Z) or a duration "
								"(30s, 10m, 2h, 1d), not '%s'",
						       arg);
			}
			break;
		case OPT_DECISION:
			want = arg; /* the table knows allow, ask and deny */
			break;
		}
	}
	json = a.format && strcmp(a.format, "json") == 0;
	path = a.noperands == 1 ? a.operands[0] : NULL;
	cli_args_free(&a);
	if (id < 0)
		return a.status;
	if (!path)
		return cli_usage_error("audit", "expected one LOG file");
	if (!(f = fopen(path, "re"))) {
		fprintf(stderr, "cordon: cannot read the audit log %s: %s\n", path, strerror(errno));
		return EXIT_USAGE;
	}
	s.matches = json_array();
	while ((n = getline(&line, &cap, f)) > 0) {
		s.lines++;
		if (line[n - 1] != '\n') {
			/* Only the last line can lack its newline: a write cut short. */
			fprintf(stderr, "cordon: warning: %s:%zu: skipping a partial last line (no "
					"newline at its end)\n",
				path, s.lines);
			s.skipped++;
			break;
		}
		summarise_line(&s, path, s.lines, line, (size_t)n - 1, since, want);
	}
	bool failed = ferror(f);
	fclose(f);
	free(line);
	if (failed) {
		fprintf(stderr, "cordon: cannot read the audit log %s\n", path);
		json_decref(s.matches);
		return EXIT_USAGE;
	}
	tally_sort(&s.presets);
	tally_sort(&s.ops);
	tally_sort(&s.denied);
	print_summary(&s, path, json);
	tally_free(&s.presets);
	tally_free(&s.ops);
	tally_free(&s.denied);
	json_decref(s.matches);
	return EXIT_OK;
}
