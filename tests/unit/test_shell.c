/* The shell analyser: the data-driven cases of the .cases files in tests/shell, the word
 * helpers, the limits on depth and size, inputs built to be slow, and
 * several threads parsing at once.
 *
 * A .cases file holds cases of the form
 *
 *   === NAME
 *   INPUT (any number of lines; the last newline is not part of it)
 *   ---
 *   EXPECTED DUMP (shell_dump, or "error @OFFSET: MESSAGE")
 *
 * with '#' comment lines allowed before the first case.  On a mismatch the
 * whole file is written again, with what the analyser printed, as
 * FILE.cases.got; with CORDON_ACCEPT set (`CORDON_ACCEPT=1 make check`, the
 * switch of every golden) it replaces FILE.cases. */
#include "config.h"

#include "shell/shell.h"
#include "shell_slow_inputs.h"
#include "base/util.h"

#include <dirent.h>
#ifdef __GLIBC__
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"

static char *dump_text(const char *text, size_t len)
{
	struct shell_error err;
	struct strbuf sb;
	struct shell_script *sc = shell_parse(text, len, &err);
	sb_init(&sb);
	if (!sc) {
		sb_addf(&sb, "error @%zu: %s\n", err.offset, err.message);
	} else {
		shell_dump(sc, &sb);
		shell_free(sc);
	}
	return sb_steal(&sb);
}

/* s with control characters escaped, for a test name. */
static const char *printable(const char *s, char *buf, size_t size)
{
	size_t k = 0;
	for (; *s && k + 5 < size; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f)
			k += (size_t)snprintf(buf + k, size - k, "\\x%02x", c);
		else
			buf[k++] = (char)c;
	}
	buf[k] = '\0';
	return buf;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct strbuf sb;
	char buf[65536];
	size_t n;
	if (!f)
		return NULL;
	sb_init(&sb);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_add(&sb, buf, n);
	fclose(f);
	*len = sb.len;
	return sb_steal(&sb);
}

struct tcase {
	char *name;
	struct strbuf input, expected;
};

/* Split a .cases file; returns the number of cases, the text before the
 * first one in *preamble. */
static size_t parse_cases(char *text, struct tcase **out, struct strbuf *preamble)
{
	struct tcase *cases = NULL;
	size_t n = 0, cap = 0;
	int state = 0; /* 0 preamble, 1 input, 2 expected */
	char *line = text;
	while (*line) {
		char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (len >= 4 && !strncmp(line, "=== ", 4)) {
			struct tcase c;
			c.name = xstrndup(line + 4, len - 4);
			sb_init(&c.input);
			sb_init(&c.expected);
			VEC_PUSH(cases, n, cap, c);
			state = 1;
		} else if (state == 1 && len == 3 && !strncmp(line, "---", 3)) {
			state = 2;
		} else if (state == 0) {
			sb_add(preamble, line, len);
			sb_addc(preamble, '\n');
		} else if (state == 1) {
			sb_add(&cases[n - 1].input, line, len);
			sb_addc(&cases[n - 1].input, '\n');
		} else {
			sb_add(&cases[n - 1].expected, line, len);
			sb_addc(&cases[n - 1].expected, '\n');
		}
		line = nl ? nl + 1 : line + len;
	}
	for (size_t i = 0; i < n; i++) {
		struct strbuf *in = &cases[i].input, *ex = &cases[i].expected;
		if (in->len && in->buf[in->len - 1] == '\n')
			in->buf[--in->len] = '\0';
		while (ex->len >= 2 && ex->buf[ex->len - 1] == '\n' && ex->buf[ex->len - 2] == '\n')
			ex->buf[--ex->len] = '\0';
		if (ex->len == 1 && ex->buf[0] == '\n')
			ex->buf[--ex->len] = '\0';
	}
	*out = cases;
	return n;
}

static void show_diff(const char *got, const char *want)
{
	printf("#   --- want\n");
	for (const char *p = want; *p;) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);
		printf("#   %.*s\n", len, p);
		p += len + (nl != NULL);
	}
	printf("#   --- got\n");
	for (const char *p = got; *p;) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);
		printf("#   %.*s\n", len, p);
		p += len + (nl != NULL);
	}
}

static size_t total_cases;

static void run_file(const char *dir, const char *file)
{
	char *path = xasprintf("%s/%s", dir, file);
	size_t len;
	char *text = read_file(path, &len);
	struct strbuf preamble, regen;
	struct tcase *cases;
	bool mismatch = false;
	if (!text) {
		ok(0, "read %s", path);
		free(path);
		return;
	}
	sb_init(&preamble);
	sb_init(&regen);
	size_t n = parse_cases(text, &cases, &preamble);
	sb_add(&regen, preamble.buf, preamble.len);
	for (size_t i = 0; i < n; i++) {
		char *got = dump_text(cases[i].input.buf, cases[i].input.len);
		bool same = !strcmp(got, cases[i].expected.buf);
		ok(same, "%s: %s", file, cases[i].name);
		if (!same) {
			mismatch = true;
			show_diff(got, cases[i].expected.buf);
		}
		sb_addf(&regen, "=== %s\n%s\n---\n%s\n", cases[i].name, cases[i].input.buf, got);
		free(got);
		free(cases[i].name);
		sb_free(&cases[i].input);
		sb_free(&cases[i].expected);
	}
	total_cases += n;
	if (mismatch) {
		const char *accept = getenv("CORDON_ACCEPT");
		char *out = accept && *accept ? xstrdup(path) : xasprintf("%s.got", path);
		FILE *f = fopen(out, "wb");
		if (f) {
			/* The last case ends without the blank line. */
			if (regen.len && regen.buf[regen.len - 1] == '\n')
				regen.len--;
			fwrite(regen.buf, 1, regen.len, f);
			fclose(f);
			printf("# wrote %s\n", out);
		}
		free(out);
	}
	free(cases);
	sb_free(&preamble);
	sb_free(&regen);
	free(text);
	free(path);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_cases(void)
{
	const char *srcdir = getenv("srcdir");
	char *dir = xasprintf("%s/tests/shell", srcdir ? srcdir : ".");
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	if (!d) {
		ok(0, "open %s", dir);
		free(dir);
		return;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l > 6 && !strcmp(e->d_name + l - 6, ".cases"))
			VEC_PUSH(names, n, cap, xstrdup(e->d_name));
	}
	closedir(d);
	sort_items(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		run_file(dir, names[i]);
		free(names[i]);
	}
	ok(total_cases >= 150, "%zu data-driven cases", total_cases);
	free(names);
	free(dir);
}

/* The first argument of ": WORD". */
static const struct shell_word *arg1(struct shell_script *sc)
{
	const struct shell_cmd *c = sc ? shell_cmd_get(sc, shell_cmd_count(sc) - 1) : NULL;
	return c && c->nwords > 1 ? c->words[1] : NULL;
}

static void test_word_static(void)
{
	static const struct {
		const char *word, *value;
	} t[] = {
		{ "\"r\"m", "rm" },
		{ "r\\m", "rm" },
		{ "$'\\x72m'", "rm" },
		{ "\\rm", "rm" },
		{ "'r''m'", "rm" },
		{ "$'\\162\\155'", "rm" },
		{ "$'\\u0072m'", "rm" },
		{ "$'a\\nb\\tc\\\\d\\'e'", "a\nb\tc\\d'e" },
		{ "$'ab\\x00cd'", "ab" },
		{ "$\"rm\"", "rm" },
		{ "\"\"", "" },
		{ "''", "" },
		{ "a\\\nb", "ab" },
		{ "\"a\\$b\\\"c\\\\d\\x\"", "a$b\"c\\d\\x" },
		{ "{}", "{}" },
		{ "{a}", "{a}" },
		{ "a[", "a[" },
		{ "[", "[" },
		{ "x=~", NULL }, /* bash expands ~ after = in any word */
		{ "a~b", "a~b" },
		{ "$", "$" },
		{ "\"$\"", "$" },
		{ "$HOME", NULL },
		{ "\"$HOME\"", NULL },
		{ "*", NULL },
		{ "a?b", NULL },
		{ "[ab]", NULL },
		{ "{a,b}", NULL },
		{ "{1..3}", NULL },
		{ "~", NULL },
		{ "~/x", NULL },
		{ "$(echo rm)", NULL },
		{ "`echo rm`", NULL },
		{ "$((1))", NULL },
		{ "<(true)", NULL },
	};
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		char *text = xasprintf(": %s", t[i].word);
		struct shell_script *sc = shell_parse(text, strlen(text), NULL);
		const struct shell_word *w = arg1(sc);
		char name[64];
		printable(t[i].word, name, sizeof(name));
		ok(w != NULL, "parse %s", name);
		is_str(w ? shell_word_static(w) : "?", t[i].value, "static value of %s", name);
		shell_free(sc);
		free(text);
	}
}

static void test_word_pattern(void)
{
	static const struct {
		const char *word, *prefix;
		unsigned mask;
	} t[] = {
		{ "src/a.c", "src/a.c", 0 },
		{ "src/*.c", "src/", SHELL_PAT_UNKNOWN },
		{ "\"$HOME\"/.ssh", "", SHELL_PAT_UNKNOWN },
		{ "~/.ssh/id_rsa", "/.ssh/id_rsa", SHELL_PAT_HOME },
		{ "~", "", SHELL_PAT_HOME },
		{ "~/x/$y", "/x/", SHELL_PAT_HOME | SHELL_PAT_UNKNOWN },
		{ "~root/x", "", SHELL_PAT_UNKNOWN },
		{ "'~'/x", "~/x", 0 },
		{ "/etc/{passwd,shadow}", "/etc/", SHELL_PAT_UNKNOWN },
		{ "/tmp/$(id -u)/x", "/tmp/", SHELL_PAT_UNKNOWN },
		{ "\"/tmp/*\"", "/tmp/*", 0 },
		{ "/var/log/[ab]", "/var/log/", SHELL_PAT_UNKNOWN },
	};
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		char *text = xasprintf(": %s", t[i].word);
		struct shell_script *sc = shell_parse(text, strlen(text), NULL);
		const struct shell_word *w = arg1(sc);
		struct strbuf sb;
		sb_init(&sb);
		unsigned m = w ? shell_word_pattern(w, &sb) : 99;
		ok(m == t[i].mask, "pattern mask of %s (got %u)", t[i].word, m);
		is_str(sb.buf, t[i].prefix, "pattern prefix of %s", t[i].word);
		sb_free(&sb);
		shell_free(sc);
		free(text);
	}
}

static char *repeat(const char *head, const char *unit, size_t n, const char *tail, size_t *len)
{
	struct strbuf sb;
	sb_init(&sb);
	sb_adds(&sb, head);
	for (size_t i = 0; i < n; i++)
		sb_adds(&sb, unit);
	sb_adds(&sb, tail);
	*len = sb.len;
	return sb_steal(&sb);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_limits(void)
{
	static const struct {
		const char *name, *head, *unit, *close;
	} bombs[] = {
		{ "$( x1000", "echo ", "$(", ")" },
		{ "( x1000", "", "( ", " )" },
		{ "{ x1000", "", "{ ", "}" },
		{ "${x:- x1000", "echo ", "${x:-", "}" },
		{ "if x1000", "", "if ", "" },
		{ "\"$( x1000", "echo ", "\"$(", ")\"" },
		{ "$(( x1000", "echo ", "$((", "))" },
		{ "<( x1000", "cat ", "<(", ")" },
		{ "a=( x1000", "", "a=($(", ")" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bombs); i++) {
		struct strbuf sb;
		struct shell_error err;
		sb_init(&sb);
		sb_adds(&sb, bombs[i].head);
		for (int k = 0; k < 1000; k++)
			sb_adds(&sb, bombs[i].unit);
		sb_adds(&sb, "x");
		for (int k = 0; k < 1000; k++)
			sb_adds(&sb, bombs[i].close);
		struct shell_script *sc = shell_parse(sb.buf, sb.len, &err);
		ok(!sc && strstr(err.message, "nesting deeper than 64 levels"),
		   "depth bomb %s: %s @%zu", bombs[i].name, sc ? "parsed" : err.message, err.offset);
		shell_free(sc);
		sb_free(&sb);
	}

	/* 63 levels are fine. */
	size_t len;
	char *deep = repeat("echo ", "$(", 60, "x", &len);
	char *deep2 = repeat(deep, ")", 60, "", &len);
	struct shell_script *sc = shell_parse(deep2, len, NULL);
	ok(sc && shell_cmd_count(sc) == 61, "60 nested substitutions parse");
	shell_free(sc);
	free(deep);
	free(deep2);

	struct shell_error err;
	char *big = repeat("", ":;", SHELL_MAX_INPUT / 2, "", &len);
	double t0 = now();
	sc = shell_parse(big, len, &err);
	ok(sc && shell_cmd_count(sc) == SHELL_MAX_INPUT / 2, "1 MiB of commands parses");
	printf("# 1 MiB, %zu commands: %.3f s\n", sc ? shell_cmd_count(sc) : 0, now() - t0);
	shell_free(sc);
	free(big);
	big = repeat("", ":;", SHELL_MAX_INPUT / 2, ":", &len);
	sc = shell_parse(big, len, &err);
	ok(!sc && err.offset == SHELL_MAX_INPUT && !strcmp(err.message, "input larger than 1 MiB"),
	   "1 MiB + 1 byte is refused");
	free(big);

	sc = shell_parse("echo a\0b", 8, &err);
	ok(!sc && err.offset == 6 && !strcmp(err.message, "NUL byte in input"), "NUL byte");
	sc = shell_parse(NULL, 0, NULL);
	ok(sc && shell_cmd_count(sc) == 0, "no input, no commands");
	shell_free(sc);
}

/* Inputs that a careless parser takes quadratic time or deep recursion
 * over (tests/unit/shell_slow_inputs.h).  Here: 256 KiB of each parses, or
 * fails with an error inside the input.  How their time grows is measured
 * by bench/shell_bench, never asserted here. */
static void test_slow_inputs(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(shell_slow_inputs); i++) {
		const struct shell_slow_input *t = &shell_slow_inputs[i];
		size_t len, n = ((256 << 10) - strlen(t->head) - strlen(t->tail)) / strlen(t->unit);
		char *text = repeat(t->head, t->unit, n, t->tail, &len);
		struct shell_error err;
		struct shell_script *sc = shell_parse(text, len, &err);
		ok(sc || (err.offset <= len && err.message[0]), "256 KiB of %s: %s", t->name,
		   sc ? "parsed" : err.message);
		shell_free(sc);
		free(text);
	}
}

struct job {
	const char *const *inputs;
	size_t n;
	char **want;
	int failures;
};

static void *thread_main(void *arg)
{
	struct job *j = arg;
	for (int round = 0; round < 20; round++)
		for (size_t i = 0; i < j->n; i++) {
			char *got = dump_text(j->inputs[i], strlen(j->inputs[i]));
			j->failures += strcmp(got, j->want[i]) != 0;
			free(got);
		}
	return NULL;
}

static void test_threads(void)
{
	static const char *const inputs[] = {
		"sudo -u root bash -c 'cd /tmp && rm -rf x' | tee log &",
		"f() { cd /; }; for i in 1 2; do f; done; git -c core.pager=less -C a log",
		"cat <<EOF | sh\n$(id)\nEOF\nfind . -exec rm {} + -delete",
		"eval \"$(ssh-agent)\"; xargs -0 env -i A=1 nice -n 5 rm < list",
		"echo 'unterminated",
	};
	char *want[ARRAY_SIZE(inputs)];
	pthread_t th[4];
	struct job jobs[4];
	for (size_t i = 0; i < ARRAY_SIZE(inputs); i++)
		want[i] = dump_text(inputs[i], strlen(inputs[i]));
	for (int k = 0; k < 4; k++) {
		jobs[k] = (struct job){ inputs, ARRAY_SIZE(inputs), want, 0 };
		pthread_create(&th[k], NULL, thread_main, &jobs[k]);
	}
	int failures = 0;
	for (int k = 0; k < 4; k++) {
		pthread_join(th[k], NULL);
		failures += jobs[k].failures;
	}
	ok(failures == 0, "four threads agree with one (%d differences)", failures);
	for (size_t i = 0; i < ARRAY_SIZE(inputs); i++)
		free(want[i]);
}

/* An argv rendered by shell_argv parses back into exactly its words, with
 * whitespace only between them; and its commands are split as a parsed
 * script's are. */
static bool argv_round_trip(const char *const *argv, size_t argc, char *why, size_t size)
{
	struct strbuf text;
	struct shell_error err;
	bool good = false;
	sb_init(&text);
	struct shell_script *sc = shell_argv(argv, argc, &text, &err);
	struct shell_script *back = sc ? shell_parse(text.buf, text.len, &err) : NULL;
	size_t spaces = 0;
	for (size_t i = 0; i < text.len; i++)
		spaces += text.buf[i] == ' ' || text.buf[i] == '\t' || text.buf[i] == '\n';
	const struct shell_cmd *c = back ? shell_cmd_get(back, 0) : NULL;
	if (!sc || !back)
		snprintf(why, size, "%s: %s", sc ? "does not parse back" : "refused", err.message);
	else if (spaces != argc - 1)
		snprintf(why, size, "%zu whitespace bytes in %s", spaces, text.buf);
	else if (shell_cmd_count(back) < 1 || c->nassigns || c->nredirs || c->nwords != argc)
		snprintf(why, size, "not one command of %zu words: %s", argc, text.buf);
	else
		good = true;
	for (size_t i = 0; good && i < argc; i++) {
		const char *v = shell_word_static(c->words[i]);
		if (!v || strcmp(v, argv[i]) != 0) {
			snprintf(why, size, "word %zu reads back as '%s' in %s", i, v ? v : "(dynamic)",
				 text.buf);
			good = false;
		}
	}
	shell_free(back);
	shell_free(sc);
	sb_free(&text);
	return good;
}

static void test_argv(void)
{
	static const char *const words[] = {
		"", "a b", "--force", "x > /tmp/out", "print(\"hi\")", "fix: a (b); c", "'", "\\",
		"$HOME", "~", "a~b", "--prefix=~/x", "*.c", "[", "]", "{}", "#x", "a#b", "!",
		"\n", "\t-f\t", "A=1", "if", "while", "caf\xc3\xa9", "%s\\n", "`id`", "$(id)",
		"a\"b", "-c", "\x01\x7f", "HEAD~1", "x=y", "&&", "|", ";", "<", "2>&1",
	};
	char why[512];
	size_t failed = 0;
	/* Each word as the program and as an argument. */
	for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
		const char *pair[2] = { words[i], words[i] };
		if (!argv_round_trip(pair, 2, why, sizeof(why)) && failed++ < 3)
			printf("# '%s': %s\n", words[i], why);
	}
	ok(failed == 0, "every tricky word renders as one word that reads back exactly (%zu failed)",
	   failed);
	failed = 0;
	for (int b = 1; b < 256; b++) {
		char w[4] = { 'a', (char)b, 'z', 0 }, p[2] = { (char)b, 0 };
		const char *v[3] = { p, w, p };
		if (!argv_round_trip(v, 3, why, sizeof(why)) && failed++ < 3)
			printf("# byte %d: %s\n", b, why);
	}
	ok(failed == 0, "every byte, alone and inside a word, reads back exactly (%zu failed)", failed);

	struct strbuf text, dump;
	sb_init(&text);
	sb_init(&dump);
	static const char *const attack[] = { "env", "A='", "sh", "-c",
					      "git push --force ./r.git HEAD:master #'" };
	struct shell_script *sc = shell_argv(attack, ARRAY_SIZE(attack), &text, NULL);
	const struct shell_cmd *last = sc ? shell_cmd_get(sc, shell_cmd_count(sc) - 1) : NULL;
	ok(last && last->prog && strcmp(last->prog, "git") == 0 && last->nwords - last->argi == 5 &&
		   (last->flags & SHELL_CMD_IN_STRING) && last->nwrappers == 2,
	   "env \"A='\" sh -c \"git push ...#'\": the git behind env and sh -c is a command of its own");
	is_str(text.buf, "env A=$'\\'' sh -c git$'\\x20push\\x20--force\\x20./r.git\\x20HEAD:master\\x20#\\''",
	       "the line the argv renders to");
	shell_free(sc);
	sb_free(&text);
	sb_init(&text);
	static const char *const wrapped[] = { "sudo", "-u", "bob", "timeout", "5", "nice", "-n", "3",
					       "xargs", "rm", "-rf" };
	sc = shell_argv(wrapped, ARRAY_SIZE(wrapped), &text, NULL);
	last = sc ? shell_cmd_get(sc, 0) : NULL;
	ok(sc && shell_cmd_count(sc) == 1 && last->prog && strcmp(last->prog, "rm") == 0 &&
		   last->nwrappers == 4 && (last->flags & SHELL_CMD_EXTRA_ARGS),
	   "sudo -u bob timeout 5 nice -n 3 xargs rm -rf: rm behind four wrappers, with more "
	   "arguments at run time");
	shell_free(sc);
	sb_free(&text);
	sb_init(&text);
	static const char *const assign[] = { "A=1", "rm", "x" };
	sc = shell_argv(assign, ARRAY_SIZE(assign), &text, NULL);
	last = sc ? shell_cmd_get(sc, 0) : NULL;
	ok(sc && last->nassigns == 0 && last->prog && strcmp(last->prog, "A=1") == 0,
	   "an argv's first word is its program, never an assignment (%s)", text.buf);
	shell_free(sc);
	ok(!shell_argv(assign, 0, &text, NULL), "an empty argv is refused");
	sb_free(&text);
	sb_free(&dump);
}

int main(void)
{
	test_cases();
	test_word_static();
	test_word_pattern();
	test_limits();
	test_slow_inputs();
	test_threads();
	test_argv();
	return tap_done();
}
