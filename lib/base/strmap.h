/* A string -> index-list hash map (open addressing, a word-at-a-time hash), for indexing
 * rules by their literal anchor.  Built once, then only read. */
#ifndef CORDON_STRMAP_H
#define CORDON_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_entry {
	char *key;
	size_t keylen;
	uint32_t *items; /* &one while there is one item, then cap of them */
	size_t nitems, cap;
	uint32_t one;
};

struct strmap {
	struct strmap_entry *slots;
	size_t nslots, used;
};

void strmap_init(struct strmap *m);
/* An empty map with room for n keys before it grows. */
void strmap_init_for(struct strmap *m, size_t n);
void strmap_free(struct strmap *m);
void strmap_add(struct strmap *m, const char *key, size_t keylen, uint32_t item);
/* The entry for key, or NULL. */
const struct strmap_entry *strmap_get(const struct strmap *m, const char *key, size_t keylen);

/* Lookups of prefixes of one key, shortest first: the hash of each
 * continues from the one before.  Init p, then call strmap_get_prefix with
 * the same key and keylen never decreasing (any map: p is the key's). */
struct strmap_prefix {
	uint64_t h;   /* the hash's state over key's first `words` 8-byte words */
	size_t words;
};
void strmap_prefix_init(struct strmap_prefix *p);
const struct strmap_entry *strmap_get_prefix(const struct strmap *m, struct strmap_prefix *p,
					     const char *key, size_t keylen);

#endif
