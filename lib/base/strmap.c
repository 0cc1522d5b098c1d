#include "config.h"

#include "strmap.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Eight bytes a step: the evaluator hashes every ancestor of every path
 * it decides, so this is on the path of each decision.  The length is
 * mixed in only at the end, so the state over a key's whole words is
 * shared by all its longer prefixes (strmap_get_prefix). */
static const uint64_t hash_k = 0x9e3779b97f4a7c15ull;
static const uint64_t hash_seed = 0xcbf29ce484222325ull;

static uint64_t hash_words(uint64_t h, const char *s, size_t nwords)
{
	for (size_t i = 0; i < nwords; i++) {
		uint64_t w;
		memcpy(&w, s + 8 * i, 8);
		h = (h ^ w) * hash_k;
		h ^= h >> 32;
	}
	return h;
}

/* h: the state over the first n / 8 words of s. */
static uint64_t hash_end(uint64_t h, const char *s, size_t n)
{
	uint64_t w = 0;
	memcpy(&w, s + (n & ~(size_t)7), n & 7);
	h = (h ^ w) * hash_k;
	h ^= n * 0xc2b2ae3d27d4eb4full;
	/* murmur3's finaliser: every input bit reaches the low bits used. */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static uint64_t hash(const char *s, size_t n)
{
	return hash_end(hash_words(hash_seed, s, n / 8), s, n);
}

void strmap_init(struct strmap *m)
{
	m->slots = NULL;
	m->nslots = m->used = 0;
}

void strmap_init_for(struct strmap *m, size_t n)
{
	size_t slots = 16;
	while (n * 4 > slots * 3)
		slots *= 2;
	m->slots = xcalloc(slots, sizeof(*m->slots));
	m->nslots = slots;
	m->used = 0;
}

void strmap_free(struct strmap *m)
{
	for (size_t i = 0; i < m->nslots; i++) {
		free(m->slots[i].key);
		if (m->slots[i].cap)
			free(m->slots[i].items);
	}
	free(m->slots);
	strmap_init(m);
}

static struct strmap_entry *find_slot_h(struct strmap_entry *slots, size_t nslots, uint64_t h,
					const char *key, size_t keylen)
{
	size_t i = h & (nslots - 1);
	for (;;) {
		struct strmap_entry *e = &slots[i];
		if (!e->key || (e->keylen == keylen && memcmp(e->key, key, keylen) == 0))
			return e;
		i = (i + 1) & (nslots - 1);
	}
}

static struct strmap_entry *find_slot(struct strmap_entry *slots, size_t nslots, const char *key,
				      size_t keylen)
{
	return find_slot_h(slots, nslots, hash(key, keylen), key, keylen);
}

static void rehash(struct strmap *m)
{
	size_t n = m->nslots ? m->nslots * 2 : 16;
	struct strmap_entry *slots = xcalloc(n, sizeof(*slots));
	for (size_t i = 0; i < m->nslots; i++) {
		struct strmap_entry *e = &m->slots[i];
		if (!e->key)
			continue;
		struct strmap_entry *to = find_slot(slots, n, e->key, e->keylen);
		*to = *e;
		if (!to->cap)
			to->items = &to->one;
	}
	free(m->slots);
	m->slots = slots;
	m->nslots = n;
}

void strmap_add(struct strmap *m, const char *key, size_t keylen, uint32_t item)
{
	struct strmap_entry *e;
	if ((m->used + 1) * 4 > m->nslots * 3)
		rehash(m);
	e = find_slot(m->slots, m->nslots, key, keylen);
	if (!e->key) {
		e->key = xstrndup(key, keylen);
		e->keylen = keylen;
		m->used++;
	}
	/* Most keys have one item: it is kept in the entry. */
	if (!e->nitems) {
		e->one = item;
		e->items = &e->one;
		e->nitems = 1;
		return;
	}
	if (!e->cap) {
		e->items = NULL;
		size_t n = 0;
		VEC_PUSH(e->items, n, e->cap, e->one);
	}
	VEC_PUSH(e->items, e->nitems, e->cap, item);
}

const struct strmap_entry *strmap_get(const struct strmap *m, const char *key, size_t keylen)
{
	const struct strmap_entry *e;
	if (!m->nslots)
		return NULL;
	e = find_slot(m->slots, m->nslots, key, keylen);
	return e->key ? e : NULL;
}

void strmap_prefix_init(struct strmap_prefix *p)
{
	p->h = hash_seed;
	p->words = 0;
}

const struct strmap_entry *strmap_get_prefix(const struct strmap *m, struct strmap_prefix *p,
					     const char *key, size_t keylen)
{
	const struct strmap_entry *e;
	if (keylen / 8 > p->words) {
		p->h = hash_words(p->h, key + 8 * p->words, keylen / 8 - p->words);
		p->words = keylen / 8;
	}
	if (!m->nslots)
		return NULL;
	e = find_slot_h(m->slots, m->nslots, hash_end(p->h, key, keylen), key, keylen);
	return e->key ? e : NULL;
}
