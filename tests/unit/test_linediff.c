/* The line diff behind `cordon fmt --diff`: on random pairs of texts, the
 * printed hunks turn the old text into the new one, their headers count
 * what they hold, and the edit is a shortest one (checked against the
 * longest common subsequence computed by dynamic programming). */
#include "config.h"

#include "base/linediff.h"
#include "tap.h"

#include <stdbool.h>
#include <stdlib.h>

#define MAX_LINES 40

struct text {
	const char *line[MAX_LINES + 1];
	size_t n;
	bool final_newline;
};

static unsigned long rng = 12345;

static unsigned next_rand(unsigned bound)
{
	rng = rng * 6364136223846793005ul + 1442695040888963407ul;
	return (unsigned)((rng >> 33) % bound);
}

static void random_text(struct text *t)
{
	static const char *const words[] = { "a", "b", "c", "d" };
	t->n = next_rand(MAX_LINES + 1);
	for (size_t i = 0; i < t->n; i++)
		t->line[i] = words[next_rand(4)];
	t->final_newline = next_rand(4) != 0;
}

static void render(const struct text *t, struct strbuf *sb)
{
	sb_init(sb);
	for (size_t i = 0; i < t->n; i++) {
		sb_adds(sb, t->line[i]);
		if (i + 1 < t->n || t->final_newline)
			sb_addc(sb, '\n');
	}
}

/* Lines of a and b compared with their newline, as the diff compares them. */
static bool same_line(const struct text *a, size_t i, const struct text *b, size_t j)
{
	bool nl_a = i + 1 < a->n || a->final_newline, nl_b = j + 1 < b->n || b->final_newline;
	return strcmp(a->line[i], b->line[j]) == 0 && nl_a == nl_b;
}

static size_t lcs(const struct text *a, const struct text *b)
{
	static size_t t[MAX_LINES + 1][MAX_LINES + 1];
	for (size_t i = a->n + 1; i-- > 0;)
		for (size_t j = b->n + 1; j-- > 0;) {
			if (i == a->n || j == b->n)
				t[i][j] = 0;
			else if (same_line(a, i, b, j))
				t[i][j] = t[i + 1][j + 1] + 1;
			else
				t[i][j] = t[i + 1][j] > t[i][j + 1] ? t[i + 1][j] : t[i][j + 1];
		}
	return t[0][0];
}

/* Apply the hunks of diff to old; NULL when the diff is malformed or its
 * context does not match.  *changed counts the '-' and '+' lines. */
static char *apply(const char *old, const char *diff, size_t *changed)
{
	struct strbuf out;
	const char *o = old, *d = diff;
	size_t old_line = 1;
	*changed = 0;
	sb_init(&out);
	if (strncmp(d, "--- ", 4) != 0 || !(d = strchr(d, '\n')) || strncmp(++d, "+++ ", 4) != 0 ||
	    !(d = strchr(d, '\n')))
		goto bad;
	d++;
	while (*d) {
		unsigned long os, oc = 1, ns, nc = 1, seen_old = 0, seen_new = 0;
		char *end;
		if (strncmp(d, "@@ -", 4) != 0)
			goto bad;
		os = strtoul(d + 4, &end, 10);
		if (*end == ',')
			oc = strtoul(end + 1, &end, 10);
		if (strncmp(end, " +", 2) != 0)
			goto bad;
		ns = strtoul(end + 2, &end, 10);
		if (*end == ',')
			nc = strtoul(end + 1, &end, 10);
		(void)ns;
		if (strncmp(end, " @@\n", 4) != 0)
			goto bad;
		d = end + 4;
		size_t first = oc ? os : os + 1; /* an empty range names the line before */
		while (old_line < first) {   /* unchanged lines between hunks */
			const char *nl = strchr(o, '\n');
			size_t n = nl ? (size_t)(nl - o) + 1 : strlen(o);
			if (!n)
				goto bad;
			sb_add(&out, o, n);
			o += n;
			old_line++;
		}
		while (*d == ' ' || *d == '-' || *d == '+') {
			char kind = *d++;
			const char *nl = strchr(d, '\n');
			if (!nl)
				goto bad;
			size_t n = (size_t)(nl - d) + 1;
			bool no_newline = strncmp(nl + 1, "\\ No newline at end of file\n", 28) == 0;
			size_t text_n = no_newline ? n - 1 : n;
			if (kind != '+') {
				if (strncmp(o, d, text_n) != 0)
					goto bad;
				o += text_n;
				old_line++;
				seen_old++;
			}
			if (kind != '-') {
				sb_add(&out, d, text_n);
				seen_new++;
			}
			if (kind != ' ')
				(*changed)++;
			d = nl + 1 + (no_newline ? 28 : 0);
		}
		if (seen_old != oc || seen_new != nc)
			goto bad;
	}
	sb_adds(&out, o);
	return sb_steal(&out);
bad:
	sb_free(&out);
	return NULL;
}

int main(void)
{
	unsigned applied = 0, shortest = 0, empty_when_same = 0, shown = 0;
	const unsigned rounds = 3000;

	for (unsigned r = 0; r < rounds; r++) {
		struct text a, b;
		struct strbuf ta, tb, diff;
		size_t changed;
		random_text(&a);
		if (next_rand(8) == 0) {
			b = a; /* equal texts print nothing */
		} else {
			random_text(&b);
		}
		render(&a, &ta);
		render(&b, &tb);
		sb_init(&diff);
		linediff_unified(&diff, "a/x", ta.buf, ta.len, "b/x", tb.buf, tb.len);
		if (ta.len == tb.len && memcmp(ta.buf, tb.buf, ta.len) == 0) {
			empty_when_same += diff.len == 0;
			applied++;
			shortest++;
		} else {
			char *got = apply(ta.buf, diff.buf, &changed);
			if (got && strcmp(got, tb.buf) == 0)
				applied++;
			else if (!shown++)
				printf("# round %u: the diff does not turn a into b\n%s", r, diff.buf);
			if (got && changed == a.n + b.n - 2 * lcs(&a, &b))
				shortest++;
			free(got);
		}
		sb_free(&ta);
		sb_free(&tb);
		sb_free(&diff);
	}
	ok(applied == rounds, "the hunks turn the old text into the new one (%u of %u)", applied,
	   rounds);
	ok(shortest == rounds, "the edit is a shortest one (%u of %u)", shortest, rounds);
	ok(empty_when_same > 0, "equal texts give an empty diff (%u cases)", empty_when_same);

	struct strbuf d;
	sb_init(&d);
	linediff_unified(&d, "a/f", "x\ny\n", 4, "b/f", "x\nz\n", 4);
	is_str(d.buf, "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n", "a one-line change");
	sb_free(&d);
	sb_init(&d);
	linediff_unified(&d, "a/f", "", 0, "b/f", "new\n", 4);
	is_str(d.buf, "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+new\n", "an empty old text");
	sb_free(&d);
	sb_init(&d);
	linediff_unified(&d, "a/f", "last", 4, "b/f", "last\n", 5);
	is_str(d.buf,
	       "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-last\n\\ No newline at end of file\n+last\n",
	       "a final newline added");
	sb_free(&d);
	return tap_done();
}
