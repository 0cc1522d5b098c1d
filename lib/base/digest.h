/* Digests and hex: the SHA-256 that binds an approval to what it covers,
 * and bytes written as lowercase hex digits, for every room that needs
 * them (approvals, file mutation, session grants). */
#ifndef CORDON_DIGEST_H
#define CORDON_DIGEST_H

#include <nettle/sha2.h>
#include <stddef.h>

/* A SHA-256 digest in hex, without its NUL. */
#define DIGEST_HEX_LEN (2 * SHA256_DIGEST_SIZE)

/* n bytes as 2n lowercase hex digits and a NUL: out holds 2n + 1. */
void hex_encode(const void *data, size_t n, char *out);

/* Lowercase hex SHA-256 of data. */
void digest_hex(const void *data, size_t len, char out[DIGEST_HEX_LEN + 1]);

/* The same, of data given in pieces. */
struct digest {
	struct sha256_ctx ctx;
};
void digest_init(struct digest *d);
void digest_update(struct digest *d, const void *data, size_t len);
void digest_final_hex(struct digest *d, char out[DIGEST_HEX_LEN + 1]);

#endif
