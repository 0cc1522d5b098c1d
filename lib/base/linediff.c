#include "config.h"

#include "cordon_tools.h"
#include "linediff.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct dline {
	const char *s;
	size_t n;      /* with its newline, when it has one */
	uint64_t hash;
};

struct side {
	struct dline *lines;
	size_t n, cap;
	bool *changed; /* deleted (old side) or inserted (new side) */
};

struct differ {
	struct side a, b;
};

static void split_lines(struct side *sd, const char *text, size_t len)
{
	size_t i = 0;
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) + 1 : len - i;
		uint64_t h = 1469598103934665603ull; /* FNV-1a */
		for (size_t k = 0; k < n; k++)
			h = (h ^ (unsigned char)text[i + k]) * 1099511628211ull;
		struct dline l = { text + i, n, h };
		VEC_PUSH(sd->lines, sd->n, sd->cap, l);
		i += n;
	}
	sd->changed = xcalloc(sd->n ? sd->n : 1, sizeof(*sd->changed));
}

static bool same(const struct differ *d, size_t i, size_t j)
{
	const struct dline *x = &d->a.lines[i], *y = &d->b.lines[j];
	return x->hash == y->hash && x->n == y->n && memcmp(x->s, y->s, x->n) == 0;
}

static void mark(struct side *sd, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		sd->changed[i] = true;
}

/* The two searches of bisect, from the start and from the end of both
 * ranges: on each diagonal k = x - y, the furthest x reached (v1
 * forward, v2 backward, at off + k), and the diagonals at each end that
 * ran off the ranges and are searched no more. */
struct search {
	const struct differ *d;
	size_t a0, b0;
	long n, m, off, vlen, delta;
	bool front; /* delta is odd: the forward search finds the meeting */
	long *v1, *v2;
	long k1start, k1end, k2start, k2end;
	size_t *xs, *ys;
};

/* Where a search on diagonal k (at v[ko]) starts in round dd: down from
 * the diagonal above, or right from the one below, whichever reached
 * further. */
static long reach(const long *v, long ko, long k, long dd)
{
	if (k == -dd || (k != dd && v[ko - 1] < v[ko + 1]))
		return v[ko + 1];
	return v[ko - 1] + 1;
}

/* Round dd of the forward search; true when it met the backward one. */
static bool forward_round(struct search *s, long dd)
{
	for (long k1 = -dd + s->k1start; k1 <= dd - s->k1end; k1 += 2) {
		long k1o = s->off + k1;
		long x1 = reach(s->v1, k1o, k1, dd), y1 = x1 - k1;
		while (x1 < s->n && y1 < s->m && same(s->d, s->a0 + (size_t)x1, s->b0 + (size_t)y1))
			x1++, y1++;
		s->v1[k1o] = x1;
		if (x1 > s->n) {
			s->k1end += 2;
		} else if (y1 > s->m) {
			s->k1start += 2;
		} else if (s->front) {
			long k2o = s->off + s->delta - k1;
			if (k2o >= 0 && k2o < s->vlen && s->v2[k2o] != -1 && x1 >= s->n - s->v2[k2o]) {
				*s->xs = s->a0 + (size_t)x1;
				*s->ys = s->b0 + (size_t)y1;
				return true;
			}
		}
	}
	return false;
}

/* Round dd of the backward search, from the ends of both ranges. */
static bool backward_round(struct search *s, long dd)
{
	for (long k2 = -dd + s->k2start; k2 <= dd - s->k2end; k2 += 2) {
		long k2o = s->off + k2;
		long x2 = reach(s->v2, k2o, k2, dd), y2 = x2 - k2;
		while (x2 < s->n && y2 < s->m &&
		       same(s->d, s->a0 + (size_t)(s->n - x2 - 1), s->b0 + (size_t)(s->m - y2 - 1)))
			x2++, y2++;
		s->v2[k2o] = x2;
		if (x2 > s->n) {
			s->k2end += 2;
		} else if (y2 > s->m) {
			s->k2start += 2;
		} else if (!s->front) {
			long k1o = s->off + s->delta - k2;
			if (k1o >= 0 && k1o < s->vlen && s->v1[k1o] != -1) {
				long x1 = s->v1[k1o], y1 = s->off + x1 - k1o;
				if (x1 >= s->n - x2) {
					*s->xs = s->a0 + (size_t)x1;
					*s->ys = s->b0 + (size_t)y1;
					return true;
				}
			}
		}
	}
	return false;
}

/* The middle of a shortest edit path from a[a0..a1) to b[b0..b1), searched
 * from both ends at once until the two searches meet.  Returns false when
 * the ranges share no line. */
static bool bisect(const struct differ *d, size_t a0, size_t a1, size_t b0, size_t b1,
		   size_t *xs, size_t *ys)
{
	struct search s = { .d = d, .a0 = a0, .b0 = b0, .xs = xs, .ys = ys };
	s.n = (long)(a1 - a0);
	s.m = (long)(b1 - b0);
	long max_d = (s.n + s.m + 1) / 2;
	s.off = max_d;
	s.vlen = 2 * max_d + 2;
	s.delta = s.n - s.m;
	s.front = s.delta % 2 != 0;
	s.v1 = xmalloc((size_t)s.vlen * sizeof(*s.v1));
	s.v2 = xmalloc((size_t)s.vlen * sizeof(*s.v2));
	for (long i = 0; i < s.vlen; i++)
		s.v1[i] = s.v2[i] = -1;
	s.v1[s.off + 1] = s.v2[s.off + 1] = 0;
	bool found = false;
	for (long dd = 0; dd < max_d && !found; dd++)
		found = forward_round(&s, dd) || backward_round(&s, dd);
	free(s.v1);
	free(s.v2);
	return found;
}

static void diff_range(struct differ *d, size_t a0, size_t a1, size_t b0, size_t b1)
{
	while (a0 < a1 && b0 < b1 && same(d, a0, b0))
		a0++, b0++;
	while (a0 < a1 && b0 < b1 && same(d, a1 - 1, b1 - 1))
		a1--, b1--;
	if (a0 == a1 || b0 == b1) {
		mark(&d->a, a0, a1);
		mark(&d->b, b0, b1);
		return;
	}
	size_t x, y;
	if (!bisect(d, a0, a1, b0, b1, &x, &y)) {
		mark(&d->a, a0, a1);
		mark(&d->b, b0, b1);
		return;
	}
	diff_range(d, a0, x, b0, y);
	diff_range(d, x, a1, y, b1);
}

enum op { OP_SAME, OP_DEL, OP_INS };

struct edit {
	enum op op;
	size_t line; /* in the old text for OP_SAME and OP_DEL, the new for OP_INS */
};

static void add_line(struct strbuf *out, char mark_char, const struct dline *l)
{
	sb_addc(out, mark_char);
	sb_add(out, l->s, l->n);
	if (!l->n || l->s[l->n - 1] != '\n')
		sb_adds(out, "\n\\ No newline at end of file\n");
}

/* "-start,count" as diff prints it: the count left out when it is 1, the
 * line before the range when it is empty. */
static void add_range(struct strbuf *out, char sign, size_t start, size_t count)
{
	if (count == 1)
		sb_addf(out, "%c%zu", sign, start + 1);
	else
		sb_addf(out, "%c%zu,%zu", sign, count ? start + 1 : start, count);
}

static void print_hunks(struct strbuf *out, const struct differ *d, const struct edit *e,
			size_t ne)
{
	size_t i = 0;
	while (i < ne) {
		if (e[i].op == OP_SAME) {
			i++;
			continue;
		}
		/* A hunk: this change, the changes within 2 * context of it,
		 * and context around them. */
		size_t start = i > LINEDIFF_CONTEXT ? i - LINEDIFF_CONTEXT : 0, end = i;
		for (;;) {
			while (end < ne && e[end].op != OP_SAME)
				end++;
			size_t same_run = end;
			while (same_run < ne && e[same_run].op == OP_SAME)
				same_run++;
			if (same_run < ne && same_run - end <= 2 * LINEDIFF_CONTEXT)
				end = same_run;
			else
				break;
		}
		size_t stop = end + LINEDIFF_CONTEXT < ne ? end + LINEDIFF_CONTEXT : ne;
		size_t old_start = 0, new_start = 0, old_n = 0, new_n = 0;
		for (size_t k = 0; k < start; k++) {
			old_start += e[k].op != OP_INS;
			new_start += e[k].op != OP_DEL;
		}
		for (size_t k = start; k < stop; k++) {
			old_n += e[k].op != OP_INS;
			new_n += e[k].op != OP_DEL;
		}
		sb_adds(out, "@@ ");
		add_range(out, '-', old_start, old_n);
		sb_addc(out, ' ');
		add_range(out, '+', new_start, new_n);
		sb_adds(out, " @@\n");
		for (size_t k = start; k < stop; k++) {
			if (e[k].op == OP_INS)
				add_line(out, '+', &d->b.lines[e[k].line]);
			else
				add_line(out, e[k].op == OP_DEL ? '-' : ' ', &d->a.lines[e[k].line]);
		}
		i = stop;
	}
}

void linediff_unified(struct strbuf *out, const char *old_name, const char *a, size_t alen,
		      const char *new_name, const char *b, size_t blen)
{
	struct differ d = { { NULL, 0, 0, NULL }, { NULL, 0, 0, NULL } };
	struct edit *e = NULL;
	size_t ne = 0, cap = 0, i = 0, j = 0;

	if (alen == blen && memcmp(a, b, alen) == 0)
		return;
	split_lines(&d.a, a, alen);
	split_lines(&d.b, b, blen);
	diff_range(&d, 0, d.a.n, 0, d.b.n);
	while (i < d.a.n || j < d.b.n) {
		struct edit x;
		if (i < d.a.n && d.a.changed[i]) {
			x = (struct edit){ OP_DEL, i++ };
		} else if (j < d.b.n && d.b.changed[j]) {
			x = (struct edit){ OP_INS, j++ };
		} else {
			x = (struct edit){ OP_SAME, i++ };
			j++;
		}
		VEC_PUSH(e, ne, cap, x);
	}
	sb_addf(out, "--- %s\n+++ %s\n", old_name, new_name);
	print_hunks(out, &d, e, ne);
	free(e);
	free(d.a.lines);
	free(d.b.lines);
	free(d.a.changed);
	free(d.b.changed);
}

char *cordon_line_diff(const char *old_name, const char *old_text, size_t old_len,
		       const char *new_name, const char *new_text, size_t new_len, size_t *len,
		       char **err)
{
	struct strbuf sb;
	if (!old_name || !new_name || (!old_text && old_len) || (!new_text && new_len)) {
		if (err)
			*err = xstrdup(!old_name || !new_name ? "cordon_line_diff: no name given"
							       : "cordon_line_diff: no text given");
		return NULL;
	}
	sb_init(&sb);
	linediff_unified(&sb, old_name, old_text ? old_text : "", old_len, new_name,
			 new_text ? new_text : "", new_len);
	if (!sb.buf)
		sb_add(&sb, "", 0);
	if (len)
		*len = sb.len;
	return sb_steal(&sb);
}
