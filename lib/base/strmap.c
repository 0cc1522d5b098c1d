#include "config.h"

#include "strmap.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Eight bytes a step: the evaluator hashes every ancestor of every path
 * it decides, so this is on the path of each decision. */
static uint64_t hash(const char *s, size_t n)
{
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	uint64_t h = 0xcbf29ce484222325ull ^ (n * k);
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * k;
		h ^= h >> 32;
		s += 8;
		n -= 8;
	}
	uint64_t w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * k;
	/* murmur3's finaliser: every input bit reaches the low bits used. */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

void strmap_init(struct strmap *m)
{
	m->slots = NULL;
	m->nslots = m->used = 0;
}

void strmap_free(struct strmap *m)
{
	for (size_t i = 0; i < m->nslots; i++) {
		free(m->slots[i].key);
		free(m->slots[i].items);
	}
	free(m->slots);
	strmap_init(m);
}

static struct strmap_entry *find_slot(struct strmap_entry *slots, size_t nslots, const char *key,
				      size_t keylen)
{
	size_t i = hash(key, keylen) & (nslots - 1);
	for (;;) {
		struct strmap_entry *e = &slots[i];
		if (!e->key || (e->keylen == keylen && memcmp(e->key, key, keylen) == 0))
			return e;
		i = (i + 1) & (nslots - 1);
	}
}

static void rehash(struct strmap *m)
{
	size_t n = m->nslots ? m->nslots * 2 : 16;
	struct strmap_entry *slots = xcalloc(n, sizeof(*slots));
	for (size_t i = 0; i < m->nslots; i++) {
		struct strmap_entry *e = &m->slots[i];
		if (e->key)
			*find_slot(slots, n, e->key, e->keylen) = *e;
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
