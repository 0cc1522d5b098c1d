/* A string -> index-list hash map (open addressing, FNV-1a), for indexing
 * rules by their literal anchor.  Built once, then only read. */
#ifndef CORDON_STRMAP_H
#define CORDON_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_entry {
	char *key;
	size_t keylen;
	uint32_t *items;
	size_t nitems, cap;
};

struct strmap {
	struct strmap_entry *slots;
	size_t nslots, used;
};

void strmap_init(struct strmap *m);
void strmap_free(struct strmap *m);
void strmap_add(struct strmap *m, const char *key, size_t keylen, uint32_t item);
/* The entry for key, or NULL. */
const struct strmap_entry *strmap_get(const struct strmap *m, const char *key, size_t keylen);

#endif
