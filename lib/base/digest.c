#include "config.h"

#include "digest.h"

#include <stdint.h>

void hex_encode(const void *data, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = data;
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

void digest_init(struct digest *d)
{
	sha256_init(&d->ctx);
}

void digest_update(struct digest *d, const void *data, size_t len)
{
	sha256_update(&d->ctx, len, (const uint8_t *)data);
}

void digest_final_hex(struct digest *d, char out[DIGEST_HEX_LEN + 1])
{
	uint8_t sum[SHA256_DIGEST_SIZE];
	sha256_digest(&d->ctx, sizeof(sum), sum);
	hex_encode(sum, sizeof(sum), out);
}

void digest_hex(const void *data, size_t len, char out[DIGEST_HEX_LEN + 1])
{
	struct digest d;
	digest_init(&d);
	digest_update(&d, data, len);
	digest_final_hex(&d, out);
}
