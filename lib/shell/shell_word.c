/* The word builder: the parts of a word being lexed and the bytes of its
 * literal parts, put in the arena as one block when the word is done. */
#include "config.h"

#include "shell_int.h"

#include <string.h>

static void wb_grow_parts(struct parser *p, struct wb *w)
{
	struct shell_part *v = arena_alloc(p->a, 2 * w->cap * sizeof(*v));
	memcpy(v, w->parts, w->n * sizeof(*v));
	w->parts = v;
	w->cap *= 2;
}

/* A new part at the end of w, all zero. */
struct shell_part *shell_wb_new_part(struct parser *p, struct wb *w)
{
	if (w->n == w->cap)
		wb_grow_parts(p, w);
	struct shell_part *part = &w->parts[w->n++];
	*part = (struct shell_part){ 0 };
	return part;
}

static void wb_grow_bytes(struct parser *p, struct wb *w, size_t n)
{
	size_t cap = w->bcap * 2;
	while (cap < w->blen + n)
		cap *= 2;
	char *b = arena_alloc(p->a, cap);
	memcpy(b, w->bytes, w->blen);
	w->bytes = b;
	w->bcap = cap;
}

static inline void wb_add_bytes(struct parser *p, struct wb *w, const char *s, size_t n)
{
	if (w->blen + n > w->bcap)
		wb_grow_bytes(p, w, n);
	if (n == 1)
		w->bytes[w->blen] = *s;
	else
		memcpy(w->bytes + w->blen, s, n);
	w->blen += n;
}

void shell_wb_flush(struct parser *p, struct wb *w, size_t end)
{
	if (!w->inlit)
		return;
	wb_add_bytes(p, w, "", 1);
	struct shell_part *part = shell_wb_new_part(p, w);
	part->kind = SHELL_PART_LIT;
	part->quoted = w->lquoted;
	/* Until wb_finish gives the bytes their final place, ninner says where
	 * they start in w->bytes. */
	part->ninner = w->lbyte;
	part->start = map_start(p, w->lstart);
	part->end = map_end(p, end);
	w->inlit = false;
}

void shell_wb_lit(struct parser *p, struct wb *w, const char *s, size_t n, bool quoted, size_t off)
{
	if (w->inlit && w->lquoted != quoted)
		shell_wb_flush(p, w, off);
	if (!w->inlit) {
		w->inlit = true;
		w->lquoted = quoted;
		w->lstart = off;
		w->lbyte = w->blen;
	}
	wb_add_bytes(p, w, s, n);
}

/* Add a dynamic part whose source text is [start, end). */
struct shell_part *shell_wb_push(struct parser *p, struct wb *w, enum shell_part_kind kind,
				  bool quoted, size_t start, size_t end)
{
	shell_wb_flush(p, w, start);
	struct shell_part *part = shell_wb_new_part(p, w);
	part->kind = kind;
	part->quoted = quoted;
	part->text = arena_strndup(p->a, p->s + start, end - start);
	part->start = map_start(p, start);
	part->end = map_end(p, end);
	return part;
}

/* The dynamic parts of a scratch word, for a part's inner list. */
void shell_wb_take_inner(struct parser *p, struct wb *in, struct shell_part *part)
{
	size_t n = 0;
	for (size_t i = 0; i < in->n; i++)
		n += in->parts[i].kind != SHELL_PART_LIT;
	if (!n)
		return;
	struct shell_part *v = arena_alloc(p->a, n * sizeof(*v));
	n = 0;
	for (size_t i = 0; i < in->n; i++)
		if (in->parts[i].kind != SHELL_PART_LIT)
			v[n++] = in->parts[i];
	part->inner = v;
	part->ninner = n;
}

static const char *parts_literal(struct arena *a, const struct shell_part *parts, size_t n)
{
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		if (parts[i].kind != SHELL_PART_LIT)
			return NULL;
		len += strlen(parts[i].text);
	}
	if (n == 1)
		return parts[0].text;
	char *s = arena_alloc(a, len + 1), *q = s;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(parts[i].text);
		memcpy(q, parts[i].text, l);
		q += l;
	}
	*q = '\0';
	return s;
}

struct shell_word *shell_make_word(struct parser *p, struct shell_part *parts, size_t n,
				    size_t start, size_t end)
{
	struct shell_word *word = arena_alloc0(p->a, sizeof(*word));
	word->parts = parts;
	word->nparts = n;
	word->lit = parts_literal(p->a, parts, n);
	word->start = map_start(p, start);
	word->end = map_end(p, end);
	return word;
}

/* A word of the one part given, in one arena block with, for a literal
 * part, its n bytes and a NUL. */
struct shell_word *shell_one_part_word(struct parser *p, const struct shell_part *part,
					const char *bytes, size_t n, size_t start, size_t end)
{
	bool lit = part->kind == SHELL_PART_LIT;
	size_t size = sizeof(struct shell_word) + sizeof(struct shell_part) + (lit ? n + 1 : 0);
	struct shell_word *word = arena_alloc(p->a, size);
	struct shell_part *wp = (struct shell_part *)(word + 1);
	*wp = *part;
	word->parts = wp;
	word->nparts = 1;
	word->lit = NULL;
	if (lit) {
		char *b = (char *)(wp + 1);
		memcpy(b, bytes, n);
		b[n] = '\0';
		wp->text = b;
		wp->ninner = 0;
		word->lit = b;
	}
	word->start = map_start(p, start);
	word->end = map_end(p, end);
	return word;
}

struct shell_word *shell_wb_finish(struct parser *p, struct wb *w, size_t start, size_t end)
{
	if (!w->inlit && !w->n)
		shell_wb_lit(p, w, "", 0, false, end);
	shell_wb_flush(p, w, end);
	if (w->n == 1 && w->bytes == w->ib)
		return shell_one_part_word(p, &w->parts[0], w->bytes, w->blen ? w->blen - 1 : 0, start,
				     end);
	/* Empty literals ("" next to something else) say nothing. */
	size_t k = 0;
	bool all_lit = true;
	for (size_t i = 0; i < w->n; i++) {
		if (w->parts[i].kind != SHELL_PART_LIT)
			all_lit = false, k++;
		else if (w->bytes[w->parts[i].ninner] || w->n == 1)
			k++;
	}
	bool none = !k; /* only empty literals: keep the first */
	if (none)
		k = 1;
	/* The word, its parts, the bytes of the literal parts (unless they are
	 * in the arena already) and, for a static word of several parts, its
	 * value. */
	bool copy = w->bytes == w->ib;
	bool join = all_lit && k > 1;
	size_t size = sizeof(struct shell_word) + k * sizeof(struct shell_part) +
		      (copy ? w->blen : 0) + (join ? w->blen : 0);
	struct shell_word *word = arena_alloc(p->a, size);
	struct shell_part *parts = (struct shell_part *)(word + 1);
	char *bytes = (char *)(parts + k);
	char *joined = bytes + (copy ? w->blen : 0);
	if (copy)
		memcpy(bytes, w->bytes, w->blen);
	else
		bytes = w->bytes;
	k = 0;
	for (size_t i = 0; i < w->n; i++) {
		const struct shell_part *part = &w->parts[i];
		if (part->kind == SHELL_PART_LIT) {
			if (!bytes[part->ninner] && w->n > 1 && !(none && i == 0))
				continue;
			parts[k] = *part;
			parts[k].text = bytes + part->ninner;
			parts[k].ninner = 0;
		} else {
			parts[k] = *part;
		}
		k++;
	}
	word->parts = parts;
	word->nparts = k;
	word->lit = NULL;
	if (join) {
		char *q = joined;
		for (size_t i = 0; i < k; i++) {
			size_t l = strlen(parts[i].text);
			memcpy(q, parts[i].text, l);
			q += l;
		}
		*q = '\0';
		word->lit = joined;
	} else if (all_lit) {
		word->lit = parts[0].text;
	}
	word->start = map_start(p, start);
	word->end = map_end(p, end);
	return word;
}

/* A word holding one literal part; offsets [start, end) in p's buffer. */
struct shell_word *shell_lit_word(struct parser *p, const char *s, size_t n, size_t start,
				   size_t end)
{
	struct wb w;
	shell_wb_init(&w);
	shell_wb_lit(p, &w, s, n, true, start);
	return shell_wb_finish(p, &w, start, end);
}

