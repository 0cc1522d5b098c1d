/* The tools of the public API (cordon_tools.h), through that header alone:
 * formatting, the line diff, lint, the policy diff, the managed layer and
 * tests with coverage, each with its error paths (NULL and invalid arguments, files
 * that cannot be read). */
#include "config.h"

#include "cordon_tools.h"
#include "tap.h"
#include "xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[PATH_MAX];

/* A file of the test's directory holding text; its path, malloc'd. */
static char *write_file(const char *name, const char *text)
{
	char *path = xfmt("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		xalloc_die();
	fputs(text, f);
	fclose(f);
	return path;
}

/* What a printer wrote to a stream, malloc'd and NUL-terminated. */
static char *captured(FILE *f)
{
	long n = ftell(f);
	char *s = calloc(1, (size_t)n + 1);
	rewind(f);
	if (fread(s, 1, (size_t)n, f) != (size_t)n)
		s[0] = '\0';
	fclose(f);
	return s;
}

/* Check that err was set to a message containing want, and free it. */
static void err_has(char **err, const char *want, const char *what)
{
	ok(*err && strstr(*err, want), "%s: the error says '%s' (%s)", what, want,
	   *err ? *err : "no error");
	free(*err);
	*err = NULL;
}

static cordon_policy *policy_of(const char *name, const char *text)
{
	return cordon_policy_load_string(name, NULL, text, strlen(text));
}

/* ---- fmt --------------------------------------------------------------------- */

static const char messy[] = "cordon 1;\npreset \"p\" {\nread \"/a\" allow;\n}\n";

static void test_format(void)
{
	char *err = NULL;
	size_t len, slen;

	cordon_formatted *f = cordon_format_string("m.cordon", messy, strlen(messy), &err);
	ok(f && !err, "cordon_format_string formats a text");
	is_str(cordon_formatted_name(f), "m.cordon", "the name is the one given");
	ok(cordon_formatted_error_count(f) == 0, "a text that parses has no errors");
	ok(cordon_formatted_changed(f), "a text out of layout is changed");
	const char *out = cordon_formatted_text(f, &len);
	ok(out && strstr(out, "\n  read \"/a\" allow;\n") && strlen(out) == len,
	   "the layout indents the rule, and *len is its length");
	const char *src = cordon_formatted_source(f, &slen);
	ok(slen == strlen(messy) && memcmp(src, messy, slen) == 0, "the source is the text given");

	cordon_formatted *again = cordon_format_string("m.cordon", out, len, &err);
	ok(again && !cordon_formatted_changed(again), "the layout is a fixed point of the formatter");
	cordon_formatted_free(again);
	cordon_formatted_free(f);

	static const char broken[] = "cordon 1;\npreset \"p\" {\nread \"/a\" allow\n}\n";
	f = cordon_format_string("b.cordon", broken, strlen(broken), &err);
	ok(f && !err, "a text that does not parse still gives an object");
	ok(cordon_formatted_error_count(f) > 0, "with its errors counted");
	ok(cordon_formatted_text(f, &len) == NULL && len == 0, "and no layout");
	ok(!cordon_formatted_changed(f), "a text with errors is not changed");
	FILE *m = tmpfile();
	cordon_formatted_print_diagnostics(f, m);
	char *diags = captured(m);
	ok(strstr(diags, "b.cordon:3:16: error: expected ';'") != NULL, "the errors print with their place");
	free(diags);
	cordon_formatted_free(f);

	ok(cordon_format_string(NULL, messy, 3, &err) == NULL, "a NULL name is refused");
	err_has(&err, "no name", "cordon_format_string(NULL name)");
	ok(cordon_format_string("x", NULL, 3, &err) == NULL, "a NULL text with a length is refused");
	err_has(&err, "no text", "cordon_format_string(NULL text)");
	f = cordon_format_string("empty", NULL, 0, &err);
	ok(f && !err && cordon_formatted_error_count(f) == 0, "an empty text (NULL, 0) formats");
	cordon_formatted_free(f);
	ok(cordon_format_string(NULL, messy, 3, NULL) == NULL, "err may be NULL");

	char *path = write_file("messy.cordon", messy);
	f = cordon_format_file(path, &err);
	ok(f && !err && cordon_formatted_changed(f), "cordon_format_file reads and formats a file");
	is_str(cordon_formatted_name(f), path, "named by its path");
	cordon_formatted_free(f);

	char *missing = write_file("gone.cordon", "");
	unlink(missing);
	ok(cordon_format_file(missing, &err) == NULL, "a missing file is refused");
	char *want = xfmt("cannot read '%s': %s", missing, strerror(ENOENT));
	is_str(err, want, "with the file and the reason");
	free(err);
	err = NULL;
	free(want);
	ok(cordon_format_file(dir, &err) == NULL, "a directory is refused");
	err_has(&err, strerror(EISDIR), "cordon_format_file(directory)");
	ok(cordon_format_file(NULL, &err) == NULL, "a NULL path is refused");
	err_has(&err, "no path", "cordon_format_file(NULL)");
	if (geteuid() != 0) {
		chmod(path, 0);
		ok(cordon_format_file(path, &err) == NULL, "an unreadable file is refused");
		err_has(&err, strerror(EACCES), "cordon_format_file(mode 0)");
		chmod(path, 0644);
	} else {
		printf("ok %d # SKIP root reads a file of mode 0\n", ++tap_n);
		printf("ok %d # SKIP root reads a file of mode 0\n", ++tap_n);
	}

	int fds[2];
	if (pipe(fds) != 0)
		abort();
	if (write(fds[1], messy, strlen(messy)) != (ssize_t)strlen(messy))
		abort();
	close(fds[1]);
	f = cordon_format_fd("<stdin>", fds[0], &err);
	ok(f && !err && cordon_formatted_changed(f), "cordon_format_fd formats what a pipe holds");
	is_str(cordon_formatted_name(f), "<stdin>", "under the name given");
	cordon_formatted_free(f);
	close(fds[0]);
	ok(cordon_format_fd("<closed>", fds[0], &err) == NULL, "a closed fd is refused");
	err_has(&err, "cannot read '<closed>'", "cordon_format_fd(closed)");
	ok(cordon_format_fd(NULL, 0, &err) == NULL, "a NULL name is refused");
	err_has(&err, "no name", "cordon_format_fd(NULL name)");

	free(missing);
	unlink(path);
	free(path);
	cordon_formatted_free(NULL);
}

/* ---- the line diff --------------------------------------------------------------- */

static void test_line_diff(void)
{
	char *err = NULL, *d;
	size_t len = 99;

	d = cordon_line_diff("a/x", "a\nb\n", 4, "b/x", "a\nc\n", 4, &len, &err);
	is_str(d, "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n", "a changed line is one hunk");
	ok(d && len == strlen(d), "*len is the diff's length");
	free(d);
	d = cordon_line_diff("a", "same\n", 5, "b", "same\n", 5, &len, &err);
	ok(d && d[0] == '\0' && len == 0, "equal texts give \"\"");
	free(d);
	d = cordon_line_diff("a", "x", 1, "b", "x\n", 2, NULL, &err);
	ok(d && strstr(d, "\\ No newline at end of file"), "a missing last newline is marked");
	free(d);
	d = cordon_line_diff("a", NULL, 0, "b", "new\n", 4, NULL, &err);
	is_str(d, "--- a\n+++ b\n@@ -0,0 +1 @@\n+new\n", "an empty old text (NULL, 0) is a creation");
	free(d);
	ok(cordon_line_diff(NULL, "a", 1, "b", "b", 1, NULL, &err) == NULL, "a NULL name is refused");
	err_has(&err, "no name", "cordon_line_diff(NULL name)");
	ok(cordon_line_diff("a", NULL, 1, "b", "b", 1, NULL, &err) == NULL,
	   "a NULL text with a length is refused");
	err_has(&err, "no text", "cordon_line_diff(NULL text)");
}

/* ---- lint --------------------------------------------------------------------------- */

static bool has_finding(const cordon_lint *l, const char *want)
{
	const char *id;
	for (size_t i = 0; cordon_lint_finding(l, i, &id, NULL, NULL); i++)
		if (strcmp(id, want) == 0)
			return true;
	return false;
}

static void test_lint(void)
{
	char *err = NULL;
	const char *id, *summary, *desc;
	enum cordon_lint_level level;

	ok(cordon_lint_check_count() > 10, "the lint checks are listed (%zu)",
	   cordon_lint_check_count());
	ok(cordon_lint_check(0, &id, &level, &summary, &desc) && id && summary && desc,
	   "each check has an id, a summary and a description");
	ok(cordon_lint_check_find(id) == 0, "a check is found by its id");
	ok(!cordon_lint_check(cordon_lint_check_count(), &id, NULL, NULL, NULL),
	   "no check past the end");
	ok(cordon_lint_check_find("no-such-check") == -1 && cordon_lint_check_find(NULL) == -1,
	   "an unknown or NULL id is not found");
	is_str(cordon_lint_check_closest("duplicate-rul"), "duplicate-rule",
	       "a misspelt id has a nearest one");
	ok(cordon_lint_check_closest("qqqqqqqqqqqqqqqq") == NULL && !cordon_lint_check_closest(NULL),
	   "nothing is near a word unlike every id");
	is_str(cordon_lint_level_name(CORDON_LINT_WARNING), "warning", "level names");
	ok(cordon_lint_level_name((enum cordon_lint_level)7) == NULL, "no name outside the enum");

	cordon_lint_options *opts = cordon_lint_options_new();
	ok(cordon_lint_options_enable(opts, "duplicat-rule", false, &err) == -1,
	   "an unknown check cannot be disabled");
	is_str(err, "unknown check 'duplicat-rule'; did you mean 'duplicate-rule'?",
	       "the error suggests the nearest id");
	free(err);
	err = NULL;
	ok(cordon_lint_options_enable(opts, "qqqqqqqqqqqqqqqq", true, &err) == -1, "nor enabled");
	is_str(err, "unknown check 'qqqqqqqqqqqqqqqq'", "with no suggestion when none is near");
	free(err);
	err = NULL;
	ok(cordon_lint_options_enable(NULL, "all", true, &err) == -1, "NULL options are refused");
	err_has(&err, "no options", "cordon_lint_options_enable(NULL)");
	ok(cordon_lint_options_enable(opts, NULL, true, &err) == -1, "a NULL id is refused");
	err_has(&err, "no id", "cordon_lint_options_enable(NULL id)");

	char *path = write_file("dup.cordon", "cordon 1;\n"
					      "preset \"p\" {\n"
					      "  read \"/a\" allow;\n"
					      "  read \"/a\" allow;\n"
					      "  write \"/b\" deny;\n"
					      "  # cordon: ignore[duplicate-rule]\n"
					      "  write \"/b\" deny;\n"
					      "}\n");
	cordon_lint *l = cordon_lint_file(path, NULL, &err);
	ok(l && !err && !cordon_lint_io_failed(l), "cordon_lint_file lints a file (default options)");
	ok(has_finding(l, "duplicate-rule"), "the duplicate rule is found");
	ok(cordon_lint_count(l, CORDON_LINT_WARNING) >= 1 && cordon_lint_count(l, CORDON_LINT_ERROR) == 0,
	   "and counted as a warning");
	ok(cordon_lint_suppressed(l) == 1, "the silenced duplicate is counted as suppressed");
	size_t total = cordon_lint_count(l, CORDON_LINT_ERROR) + cordon_lint_count(l, CORDON_LINT_WARNING) +
		       cordon_lint_count(l, CORDON_LINT_INFO);
	ok(total == cordon_lint_finding_count(l), "the counts by level add up to the findings");
	ok(cordon_lint_count(l, (enum cordon_lint_level)9) == 0, "no count outside the enum");
	const char *msg;
	ok(cordon_lint_finding(l, 0, &id, &level, &msg) && msg && cordon_lint_level_name(level),
	   "a finding has an id, a level and a message");
	ok(!cordon_lint_finding(l, cordon_lint_finding_count(l), NULL, NULL, NULL),
	   "no finding past the end");

	static const struct {
		enum cordon_lint_format format;
		const char *name, *want;
	} forms[] = {
		{ CORDON_LINT_TEXT, "text", "dup.cordon:4:3: warning: rule 'read \"/a\" allow' is written twice "
				    "[duplicate-rule]" },
		{ CORDON_LINT_SUMMARY, "summary", " warnings, 2 info, 1 suppressed\n" },
		{ CORDON_LINT_JSON, "JSON", "\"id\": \"duplicate-rule\"" },
		{ CORDON_LINT_SARIF, "SARIF", "\"version\": \"2.1.0\"" },
	};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		FILE *m = tmpfile();
		int rc = cordon_lint_print(&l, 1, forms[i].format, m, &err);
		char *got = captured(m);
		ok(rc == 0 && strstr(got, forms[i].want), "the %s form holds what it should",
		   forms[i].name);
		if (!strstr(got, forms[i].want))
			printf("#   got: %s\n", got);
		free(got);
	}
	ok(cordon_lint_print(&l, 1, (enum cordon_lint_format)17, stdout, &err) == -1,
	   "a format outside the enum is refused");
	err_has(&err, "unknown format", "cordon_lint_print(17)");
	ok(cordon_lint_print(&l, 1, CORDON_LINT_TEXT, NULL, &err) == -1, "a NULL stream is refused");
	err_has(&err, "no output", "cordon_lint_print(NULL out)");
	cordon_lint *holes[2] = { l, NULL };
	ok(cordon_lint_print(holes, 2, CORDON_LINT_JSON, stdout, &err) == -1,
	   "a NULL result is refused");
	err_has(&err, "NULL", "cordon_lint_print(NULL result)");
	cordon_lint_free(l);

	ok(cordon_lint_options_enable(opts, "duplicate-rule", false, &err) == 0 && !err,
	   "a check is disabled by its id");
	l = cordon_lint_file(path, opts, &err);
	ok(!has_finding(l, "duplicate-rule") && cordon_lint_finding_count(l) > 0,
	   "a disabled check finds nothing; the others still run");
	cordon_lint_free(l);
	ok(cordon_lint_options_enable(opts, "all", false, &err) == 0, "\"all\" names every check");
	l = cordon_lint_file(path, opts, &err);
	ok(cordon_lint_finding_count(l) == 0, "with every check disabled, a clean policy has none");
	cordon_lint_free(l);
	cordon_lint_options_include_shipped(opts, true);

	char *broken = write_file("broken.cordon", "cordon 1;\npreset \"p\" { read \"/a\" allwo; }\n");
	l = cordon_lint_file(broken, opts, &err);
	ok(cordon_lint_count(l, CORDON_LINT_ERROR) > 0 && !cordon_lint_io_failed(l),
	   "the errors of check are findings even with every check disabled");
	cordon_lint_free(l);

	unlink(broken);
	l = cordon_lint_file(broken, opts, &err);
	ok(l && !err && cordon_lint_io_failed(l), "a file that cannot be read is an I/O failure");
	ok(has_finding(l, "io") && cordon_lint_count(l, CORDON_LINT_ERROR) == 1,
	   "whose one finding says so");
	cordon_lint_free(l);
	ok(cordon_lint_file(NULL, opts, &err) == NULL, "a NULL path is refused");
	err_has(&err, "no path", "cordon_lint_file(NULL)");

	cordon_lint_options_free(opts);
	cordon_lint_free(NULL);
	cordon_lint_options_free(NULL);
	unlink(path);
	free(path);
	free(broken);
}

/* ---- the policy diff ------------------------------------------------------------- */

static const char old_text[] = "cordon 1;\n"
			       "preset \"p\" {\n"
			       "  read \"/**\" allow;\n"
			       "  write \"${workspace}/src\" deny;\n"
			       "}\n";
static const char new_text[] = "cordon 1;\n"
			       "preset \"p\" {\n"
			       "  read \"/**\" allow;\n"
			       "  write \"${workspace}/src\" allow;\n"
			       "}\n";

static void test_diff(void)
{
	cordon_policy *a = policy_of("old.cordon", old_text), *b = policy_of("new.cordon", new_text);
	char *err = NULL;
	struct cordon_diff_change c;
	const char *name;
	enum cordon_preset_status status;

	cordon_diff *d = cordon_diff_new(a, b, NULL, NULL, &err);
	ok(d && !err, "cordon_diff_new diffs two policies (ctx NULL)");
	ok(cordon_diff_count(d, CORDON_DIFF_WIDENED) >= 1, "the write that became allowed widens");
	ok(cordon_diff_count(d, CORDON_DIFF_NARROWED) == 0, "nothing narrowed");
	ok(cordon_diff_count(d, (enum cordon_diff_class)5) == 0, "no count outside the enum");
	ok(cordon_diff_requests(d) > 0, "requests were compared (%zu)", cordon_diff_requests(d));
	ok(cordon_diff_preset_count(d) == 1 && cordon_diff_preset(d, 0, &name, &status) &&
		   strcmp(name, "p") == 0 && status == CORDON_PRESET_CHANGED,
	   "the one preset is listed as changed");
	ok(!cordon_diff_preset(d, 1, &name, &status), "no preset past the end");
	bool found = false;
	for (size_t j = 0; cordon_diff_change(d, 0, j, &c); j++)
		found = found || (c.kind == CORDON_CHANGE_DECISION && c.op == CORDON_WRITE &&
				  strcmp(c.subject, "/ws/src") == 0 && strcmp(c.old_value, "deny") == 0 &&
				  strcmp(c.new_value, "allow") == 0 && c.cls == CORDON_DIFF_WIDENED &&
				  c.old_rule && strstr(c.old_rule, "old.cordon:4:") && c.new_rule &&
				  strstr(c.new_rule, "new.cordon:4:"));
	ok(found, "the change of write /ws/src is enumerated with both rules");
	ok(cordon_diff_change_count(d, CORDON_DIFF_POLICY) == 0, "the default did not change");
	ok(!cordon_diff_change(d, 0, cordon_diff_change_count(d, 0), &c) &&
		   !cordon_diff_change(d, 3, 0, &c) && cordon_diff_change_count(d, 3) == 0,
	   "no change past the end, nor of a preset past the end");
	is_str(cordon_diff_context(d, "workspace"), "/ws", "an unset context variable takes /ws");
	ok(cordon_diff_context(d, "nope") == NULL && cordon_diff_context(d, NULL) == NULL,
	   "an unknown context name has no value");

	char *first = cordon_diff_first_widening(d);
	is_str(first, "preset \"p\": write /ws/src: deny -> allow", "the first widening in words");
	free(first);

	FILE *m = tmpfile();
	ok(cordon_diff_print(d, CORDON_DIFF_TEXT, m, &err) == 0, "the diff prints as text");
	char *text = captured(m);
	ok(strstr(text, "preset \"p\":\n  write /ws/src/...: deny -> allow  (widened; was "
			"old.cordon:4:3, now new.cordon:4:3)\n      /ws/src\n") != NULL,
	   "the text names the change and its rules");
	free(text);
	m = tmpfile();
	ok(cordon_diff_print(d, CORDON_DIFF_JSON, m, &err) == 0, "and as JSON");
	text = captured(m);
	ok(strstr(text, "\"old\": \"old.cordon\"") && strstr(text, "\"workspace\": \"/ws\"") &&
		   strstr(text, "\"subject\": \"/ws/src\""),
	   "the JSON names the policies, the context and the change");
	free(text);
	ok(cordon_diff_print(d, (enum cordon_diff_format)4, stdout, &err) == -1,
	   "a format outside the enum is refused");
	err_has(&err, "unknown format", "cordon_diff_print(4)");
	ok(cordon_diff_print(d, CORDON_DIFF_TEXT, NULL, &err) == -1, "a NULL stream is refused");
	err_has(&err, "no output", "cordon_diff_print(NULL out)");
	ok(cordon_diff_print(NULL, CORDON_DIFF_TEXT, stdout, &err) == -1, "a NULL diff is refused");
	err_has(&err, "no diff", "cordon_diff_print(NULL diff)");
	cordon_diff_free(d);

	cordon_context *ctx = cordon_context_new();
	cordon_context_set(ctx, "workspace", "/srv/w", &err);
	d = cordon_diff_new(b, a, "p", ctx, &err);
	cordon_context_free(ctx);
	ok(d && cordon_diff_count(d, CORDON_DIFF_NARROWED) >= 1 &&
		   cordon_diff_count(d, CORDON_DIFF_WIDENED) == 0,
	   "the other way round, with one preset, it narrows");
	is_str(cordon_diff_context(d, "workspace"), "/srv/w", "a context value given is kept");
	is_str(cordon_diff_context(d, "home"), "/home/u", "the others are the fixed ones");
	first = cordon_diff_first_widening(d);
	ok(first == NULL, "nothing widened: no first widening");
	cordon_diff_free(d);

	d = cordon_diff_new(a, a, NULL, NULL, &err);
	ok(d && cordon_diff_preset(d, 0, NULL, &status) && status == CORDON_PRESET_UNCHANGED &&
		   cordon_diff_change_count(d, 0) == 0,
	   "a policy against itself is unchanged");
	cordon_diff_free(d);

	ok(cordon_diff_new(a, b, "nope", NULL, &err) == NULL, "an unknown preset is refused");
	is_str(err, "neither old.cordon nor new.cordon has a preset 'nope'",
	       "the error names both policies");
	free(err);
	err = NULL;
	ok(cordon_diff_new(NULL, b, NULL, NULL, &err) == NULL, "a NULL policy is refused");
	err_has(&err, "NULL", "cordon_diff_new(NULL)");
	cordon_policy *bad = policy_of("bad.cordon", "cordon 1;\npreset \"p\" { read \"/a\" allwo; }\n");
	ok(cordon_diff_new(a, bad, NULL, NULL, &err) == NULL, "a policy with errors is refused");
	is_str(err, "bad.cordon: the policy has errors", "the error names it");
	free(err);
	err = NULL;
	cordon_policy_free(bad);
	cordon_policy_free(a);
	cordon_policy_free(b);
	cordon_diff_free(NULL);
}

/* ---- tests and coverage ---------------------------------------------------------- */

static const char tested[] = "cordon 1;\n"
			     "preset \"p\" {\n"
			     "  read \"/**\" allow;\n"
			     "  write \"/ws/**\" allow;\n"
			     "  write \"/**\" deny;\n"
			     "  net \"*\" deny;\n"
			     "}\n"
			     "test \"t\" {\n"
			     "  preset \"p\";\n"
			     "  expect allow write \"/ws/a\";\n"
			     "  expect allow write \"/etc/hosts\";\n"
			     "}\n";

static void test_tests(void)
{
	cordon_policy *p = policy_of("tested.cordon", tested);
	cordon_coverage *cov = cordon_coverage_new(false);
	struct cordon_test_options opts = { .coverage = cov };
	size_t count = 10, failed = 1;
	char *err = NULL;

	FILE *m = tmpfile();
	ok(cordon_test_run(p, &opts, m, &count, &failed, &err) == 0 && !err,
	   "cordon_test_run runs a policy's tests");
	char *tap = captured(m);
	ok(count == 12 && failed == 2, "two expectations, numbered on from *count, one failed more");
	ok(strstr(tap, "ok 11 - t: expect allow write /ws/a\n") &&
		   strstr(tap, "not ok 12 - t: expect allow write /etc/hosts\n"),
	   "as TAP lines");
	free(tap);

	double pct = cordon_coverage_finish(cov);
	ok(cordon_coverage_rule_count(cov) == 4, "the coverage holds the policy's four rules");
	ok(pct > 49.9 && pct < 50.1, "two of them decided an expectation: 50%% (%.1f)", pct);
	const char *origin, *text, *preset;
	bool covered;
	ok(cordon_coverage_rule(cov, 0, &origin, &text, &preset, &covered) &&
		   strcmp(origin, "tested.cordon:3:3") == 0 && strcmp(text, "read \"/**\" allow") == 0 &&
		   strcmp(preset, "p") == 0 && !covered,
	   "the first rule is the uncovered read");
	ok(cordon_coverage_rule(cov, 1, NULL, NULL, NULL, &covered) && covered,
	   "the second, which decided, is covered");
	ok(!cordon_coverage_rule(cov, 4, &origin, NULL, NULL, NULL), "no rule past the end");
	m = tmpfile();
	cordon_coverage_print(cov, m);
	tap = captured(m);
	ok(strstr(tap, "# tested.cordon: 2/4 rules (50.0%)\n") &&
		   strstr(tap, "# uncovered: tested.cordon:6:3: net \"*\" deny  (preset \"p\")\n"),
	   "the coverage prints per file, with the rules left uncovered");
	free(tap);

	count = 0;
	m = tmpfile();
	ok(cordon_test_run(p, NULL, m, &count, NULL, &err) == 0 && count == 2,
	   "options and *failed may be NULL");
	fclose(m);

	count = 5;
	failed = 0;
	opts.host = "plan9";
	ok(cordon_test_run(p, &opts, stdout, &count, &failed, &err) == -1,
	   "an unknown host is refused");
	ok(count == 5 && failed == 0, "before any test runs");
	err_has(&err, "plan9", "cordon_test_run(host plan9)");
	opts.host = "macos";
	m = tmpfile();
	ok(cordon_test_run(p, &opts, m, &count, &failed, &err) == 0 && count == 7,
	   "a known host runs them");
	fclose(m);

	cordon_policy *bad = policy_of("bad.cordon", "cordon 1;\npreset \"p\" { read \"/a\" allwo; }\n");
	ok(cordon_test_run(bad, NULL, stdout, &count, &failed, &err) == -1,
	   "a policy with errors is refused");
	is_str(err, "bad.cordon: the policy has errors", "the error names it");
	free(err);
	err = NULL;
	cordon_policy_free(bad);
	ok(cordon_test_run(NULL, NULL, stdout, &count, &failed, &err) == -1,
	   "a NULL policy is refused");
	err_has(&err, "no policy", "cordon_test_run(NULL)");
	ok(cordon_test_run(p, NULL, NULL, &count, &failed, &err) == -1, "a NULL stream is refused");
	err_has(&err, "no output", "cordon_test_run(NULL out)");

	cordon_coverage_free(cov);
	cordon_coverage_free(NULL);
	cordon_policy_free(p);
}

/* ---- the managed layer ----------------------------------------------------------- */

static const char managed_text[] = "cordon 1;\n"
				   "preset \"p\" {\n"
				   "  read \"/**\" allow;\n"
				   "  read /^.*[.]key$/ deny;\n"
				   "  write \"/**\" ask;\n"
				   "}\n"
				   "default \"p\";\n";
static const char narrower_text[] = "cordon 1;\n"
				    "preset \"p\" {\n"
				    "  read \"/**\" allow;\n"
				    "  read \"/home\" deny;\n"
				    "  write \"/**\" ask;\n"
				    "}\n";

/* The effect and layer of reading path under policy's preset "p". */
static enum cordon_effect read_by(const cordon_policy *policy, const char *path,
				  const char **layer)
{
	char *err = NULL;
	cordon_evaluator *ev = cordon_evaluator_new(policy, "p", NULL, &err);
	struct cordon_request req = { .op = CORDON_READ, .target = path, .canonical = true };
	cordon_decision *d = ev ? cordon_evaluate(ev, &req, &err) : NULL;
	enum cordon_effect e = d ? cordon_decision_effect(d) : CORDON_EFFECT_COUNT;
	if (layer)
		*layer = d && cordon_decision_layer(d) ? (cordon_decision_layer(d)[0] == 'm'
								? "managed" : "user")
						 : NULL;
	free(err);
	cordon_decision_free(d);
	cordon_evaluator_free(ev);
	return e;
}

static void test_layer(void)
{
	const char *layer = NULL;
	cordon_policy *p = cordon_policy_layer(policy_of("managed.cordon", managed_text),
					       policy_of("narrower.cordon", narrower_text));
	ok(cordon_policy_error_count(p) == 0, "a lower layer that only narrows is no error");
	ok(cordon_policy_managed_name(p) && strcmp(cordon_policy_managed_name(p),
						   "managed.cordon") == 0,
	   "the policy names its managed layer");
	ok(read_by(p, "/home/u/a", &layer) == CORDON_DENY && layer && strcmp(layer, "user") == 0,
	   "the lower layer's deny narrows, and its layer decided");
	ok(read_by(p, "/srv/id.key", &layer) == CORDON_DENY && layer &&
		   strcmp(layer, "managed") == 0,
	   "a managed deny the lower layer lacks holds (the check has no probe for a regex)");
	ok(read_by(p, "/srv/a", &layer) == CORDON_ALLOW, "what both allow is allowed");
	ok(cordon_policy_default_preset(p) && strcmp(cordon_policy_default_preset(p), "p") == 0,
	   "the default is the managed layer's");
	cordon_policy_free(p);

	p = cordon_policy_layer(policy_of("managed.cordon", managed_text),
				policy_of("wider.cordon", new_text));
	ok(cordon_policy_error_count(p) > 0, "a lower layer that widens is an error");
	FILE *f = tmpfile();
	cordon_policy_print_diagnostics(p, f);
	char *text = captured(f);
	ok(strstr(text, "wider.cordon:4:3: error: preset 'p' widens the managed layer") &&
		   strstr(text, "managed.cordon:5:3: note: the managed layer's rule"),
	   "the error names both rules");
	free(text);
	ok(read_by(p, "/srv/a", NULL) == CORDON_EFFECT_COUNT, "and no evaluator is built of it");
	cordon_policy_free(p);

	p = cordon_policy_layer(policy_of("alone.cordon", managed_text), NULL);
	ok(cordon_policy_error_count(p) == 0 && !cordon_policy_managed_name(p),
	   "without a lower layer the managed layer stands alone");
	cordon_policy_free(p);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/cordon-test-tools-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_format();
	test_line_diff();
	test_lint();
	test_diff();
	test_layer();
	test_tests();
	rmdir(dir);
	return tap_done();
}
