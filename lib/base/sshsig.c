/* SSH signatures (OpenSSH's PROTOCOL.sshsig), verified with nettle: see
 * sshsig.h.  The wire format is RFC 4251's: a uint32 is four big-endian
 * bytes, a string a uint32 length and that many bytes, an mpint a string
 * holding a two's complement big-endian number. */
#include "config.h"

#include "sshsig.h"
#include "util.h"

#include <gmp.h>
#include <nettle/base64.h>
#include <nettle/bignum.h>
#include <nettle/eddsa.h>
#include <nettle/rsa.h>
#include <nettle/sha2.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "SSHSIG"
#define MAGIC_LEN 6
#define SIG_VERSION 1
#define ARMOR_BEGIN "-----BEGIN SSH SIGNATURE-----"
#define ARMOR_END "-----END SSH SIGNATURE-----"
/* RSA moduli cordon accepts, in bits: below 2048 is too weak to trust a
 * policy to, above 16384 no tool makes. */
#define RSA_MIN_BITS 2048
#define RSA_MAX_BITS 16384

/* A cursor over untrusted bytes: every read checks what is left first. */
struct rd {
	const uint8_t *p;
	size_t left;
};

static bool rd_u32(struct rd *r, uint32_t *v)
{
	if (r->left < 4)
		return false;
	*v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 |
	     (uint32_t)r->p[3];
	r->p += 4;
	r->left -= 4;
	return true;
}

static bool rd_string(struct rd *r, const uint8_t **s, size_t *n)
{
	uint32_t len;
	if (!rd_u32(r, &len) || len > r->left)
		return false;
	*s = r->p;
	*n = len;
	r->p += len;
	r->left -= len;
	return true;
}

static bool bytes_are(const uint8_t *s, size_t n, const char *lit)
{
	return n == strlen(lit) && memcmp(s, lit, n) == 0;
}

/* Untrusted bytes shown in a message: printable ASCII, at most 64 of them. */
static char *shown(const uint8_t *s, size_t n)
{
	size_t k = n > 64 ? 64 : n;
	char *out = xmalloc(k + 4);
	for (size_t i = 0; i < k; i++)
		out[i] = s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '?';
	strcpy(out + k, n > k ? "..." : "");
	return out;
}

static int fail(char **err, const char *fmt, ...) PRINTF_LIKE(2, 3);
static int fail(char **err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(err, fmt, ap) < 0)
		abort();
	va_end(ap);
	return -1;
}

int sshsig_base64_decode(const char *text, size_t len, uint8_t **out, size_t *out_len)
{
	struct base64_decode_ctx ctx;
	size_t n = BASE64_DECODE_LENGTH(len) + 1;
	uint8_t *buf;
	for (size_t i = 0; i < len; i++)
		if (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r' ||
		    text[i] == '\f' || text[i] == '\v')
			return -1;
	if (len == 0)
		return -1;
	buf = xmalloc(n);
	base64_decode_init(&ctx);
	if (!base64_decode_update(&ctx, &n, buf, len, text) || !base64_decode_final(&ctx)) {
		free(buf);
		return -1;
	}
	*out = buf;
	*out_len = n;
	return 0;
}

/* The first occurrence of needle in hay[0..n), or NULL. */
static const char *find(const char *hay, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; k <= n && i <= n - k; i++)
		if (memcmp(hay + i, needle, k) == 0)
			return hay + i;
	return NULL;
}

int sshsig_dearmor(const char *text, size_t len, uint8_t **blob, size_t *blob_len, char **err)
{
	const size_t blen = strlen(ARMOR_BEGIN);
	const char *body, *end, *tail;
	char *b64;
	size_t n = 0;
	int rc;

	if (len > SSHSIG_MAX_ARMORED)
		return fail(err, "the signature is larger than %u bytes", SSHSIG_MAX_ARMORED);
	if (len < blen || memcmp(text, ARMOR_BEGIN, blen) != 0)
		return fail(err, "the signature does not start with '%s'", ARMOR_BEGIN);
	body = text + blen;
	if (body < text + len && *body == '\r')
		body++;
	if (body >= text + len || *body != '\n')
		return fail(err, "no line break after '%s'", ARMOR_BEGIN);
	body++;
	end = find(body - 1, (size_t)(text + len - (body - 1)), "\n" ARMOR_END);
	if (!end)
		return fail(err, "the signature does not end with '%s'", ARMOR_END);
	for (tail = end + 1 + strlen(ARMOR_END); tail < text + len; tail++)
		if (*tail != '\n' && *tail != '\r')
			return fail(err, "text after '%s'", ARMOR_END);
	/* An empty body: the footer's newline is the header's. */
	b64 = xmalloc(end > body ? (size_t)(end - body) + 1 : 1);
	for (const char *c = body; c < end; c++)
		if (*c != '\n' && *c != '\r')
			b64[n++] = *c;
	rc = sshsig_base64_decode(b64, n, blob, blob_len);
	free(b64);
	if (rc != 0)
		return fail(err, "the signature's body is not base64");
	return 0;
}

int sshsig_parse(const uint8_t *blob, size_t len, struct sshsig *out, char **err)
{
	struct rd r = { blob, len };
	const uint8_t *reserved;
	size_t reserved_len;
	memset(out, 0, sizeof(*out));
	if (len < MAGIC_LEN || memcmp(blob, MAGIC, MAGIC_LEN) != 0)
		return fail(err, "the signature does not start with '%s'", MAGIC);
	r.p += MAGIC_LEN;
	r.left -= MAGIC_LEN;
	if (!rd_u32(&r, &out->version))
		return fail(err, "the signature ends before its version");
	if (out->version != SIG_VERSION) {
		*err = xasprintf("signature version %u is not supported (only %d)", out->version,
				 SIG_VERSION);
		return -1;
	}
	if (!rd_string(&r, &out->pubkey, &out->pubkey_len) ||
	    !rd_string(&r, &out->ns, &out->ns_len) ||
	    !rd_string(&r, &reserved, &reserved_len) ||
	    !rd_string(&r, &out->hashalg, &out->hashalg_len) ||
	    !rd_string(&r, &out->signature, &out->signature_len))
		return fail(err, "the signature is truncated or a length runs past its end");
	if (r.left)
		return fail(err, "bytes after the end of the signature");
	if (out->ns_len == 0)
		return fail(err, "the signature's namespace is empty");
	return 0;
}

/* What the key signed (PROTOCOL.sshsig, 3): the magic, the namespace,
 * an empty reserved string, the hash's name and the message's hash. */
static uint8_t *signed_data(const char *ns, const char *hashalg, const uint8_t *h, size_t hlen,
			    size_t *n)
{
	const void *part[] = { ns, "", hashalg, h };
	size_t plen[] = { strlen(ns), 0, strlen(hashalg), hlen };
	size_t total = MAGIC_LEN;
	uint8_t *buf, *p;
	for (size_t i = 0; i < 4; i++)
		total += 4 + plen[i];
	p = buf = xmalloc(total);
	memcpy(p, MAGIC, MAGIC_LEN);
	p += MAGIC_LEN;
	for (size_t i = 0; i < 4; i++) {
		uint32_t l = (uint32_t)plen[i];
		*p++ = (uint8_t)(l >> 24), *p++ = (uint8_t)(l >> 16);
		*p++ = (uint8_t)(l >> 8), *p++ = (uint8_t)l;
		memcpy(p, part[i], plen[i]);
		p += plen[i];
	}
	*n = total;
	return buf;
}

static int verify_ed25519(struct rd *key, struct rd *sig, const uint8_t *data, size_t n,
			  char **err)
{
	const uint8_t *pk, *type, *s;
	size_t pk_len, type_len, s_len;
	if (!rd_string(key, &pk, &pk_len) || pk_len != ED25519_KEY_SIZE || key->left)
		return fail(err, "the ssh-ed25519 public key is malformed");
	if (!rd_string(sig, &type, &type_len) || !bytes_are(type, type_len, "ssh-ed25519"))
		return fail(err, "an ssh-ed25519 key made a signature of another kind");
	if (!rd_string(sig, &s, &s_len) || s_len != ED25519_SIGNATURE_SIZE || sig->left)
		return fail(err, "the ssh-ed25519 signature is malformed");
	if (!ed25519_sha512_verify(pk, n, data, s))
		return fail(err, "the signature does not verify"), SSHSIG_BAD_SIGNATURE;
	return 0;
}

/* A positive mpint of at most max_bytes significant bytes into x. */
static bool read_mpint(struct rd *r, mpz_t x, size_t max_bytes)
{
	const uint8_t *s;
	size_t n;
	if (!rd_string(r, &s, &n) || n == 0 || (s[0] & 0x80))
		return false;
	while (n && s[0] == 0)
		s++, n--;
	if (n == 0 || n > max_bytes)
		return false;
	nettle_mpz_set_str_256_u(x, n, s);
	return true;
}

static int rsa_check(struct rsa_public_key *pub, struct rd *sig, const uint8_t *data, size_t n,
		     char **err)
{
	const uint8_t *type, *s;
	size_t type_len, s_len;
	bool sha512;
	mpz_t sv;
	int ok;
	if (!rd_string(sig, &type, &type_len))
		return fail(err, "the RSA signature is malformed");
	if (bytes_are(type, type_len, "rsa-sha2-512"))
		sha512 = true;
	else if (bytes_are(type, type_len, "rsa-sha2-256"))
		sha512 = false;
	else
		return fail(err, "an ssh-rsa key must sign with rsa-sha2-512 or rsa-sha2-256%s",
			    "");
	if (!rd_string(sig, &s, &s_len) || s_len == 0 || s_len > pub->size || sig->left)
		return fail(err, "the RSA signature is malformed");
	mpz_init(sv);
	nettle_mpz_set_str_256_u(sv, s_len, s);
	if (sha512) {
		struct sha512_ctx h;
		sha512_init(&h);
		sha512_update(&h, n, data);
		ok = rsa_sha512_verify(pub, &h, sv);
	} else {
		struct sha256_ctx h;
		sha256_init(&h);
		sha256_update(&h, n, data);
		ok = rsa_sha256_verify(pub, &h, sv);
	}
	mpz_clear(sv);
	return ok ? 0 : (fail(err, "the signature does not verify"), SSHSIG_BAD_SIGNATURE);
}

static int verify_rsa(struct rd *key, struct rd *sig, const uint8_t *data, size_t n, char **err)
{
	struct rsa_public_key pub;
	int rc;
	rsa_public_key_init(&pub);
	if (!read_mpint(key, pub.e, 8) || !read_mpint(key, pub.n, RSA_MAX_BITS / 8) || key->left ||
	    !rsa_public_key_prepare(&pub)) {
		rc = fail(err, "the ssh-rsa public key is malformed");
	} else if (mpz_sizeinbase(pub.n, 2) < RSA_MIN_BITS) {
		*err = xasprintf("the ssh-rsa key has %zu bits; cordon needs %d or more",
				 mpz_sizeinbase(pub.n, 2), RSA_MIN_BITS);
		rc = -1;
	} else {
		rc = rsa_check(&pub, sig, data, n, err);
	}
	rsa_public_key_clear(&pub);
	return rc;
}

/* The message's hash by the signature's algorithm: its length, or 0 for
 * an algorithm PROTOCOL.sshsig does not name. */
static size_t hash_message(const struct sshsig *sig, const void *message, size_t len,
			   uint8_t h[SHA512_DIGEST_SIZE])
{
	if (bytes_are(sig->hashalg, sig->hashalg_len, "sha512")) {
		struct sha512_ctx c;
		sha512_init(&c);
		sha512_update(&c, len, message);
		sha512_digest(&c, SHA512_DIGEST_SIZE, h);
		return SHA512_DIGEST_SIZE;
	}
	if (bytes_are(sig->hashalg, sig->hashalg_len, "sha256")) {
		struct sha256_ctx c;
		sha256_init(&c);
		sha256_update(&c, len, message);
		sha256_digest(&c, SHA256_DIGEST_SIZE, h);
		return SHA256_DIGEST_SIZE;
	}
	return 0;
}

int sshsig_verify(const struct sshsig *sig, const char *ns, const void *message, size_t len,
		  char **err)
{
	uint8_t h[SHA512_DIGEST_SIZE];
	size_t hlen, n;
	struct rd key = { sig->pubkey, sig->pubkey_len };
	struct rd s = { sig->signature, sig->signature_len };
	const uint8_t *type;
	size_t type_len;
	uint8_t *data;
	char *what;
	int rc;

	if (!bytes_are(sig->ns, sig->ns_len, ns)) {
		what = shown(sig->ns, sig->ns_len);
		*err = xasprintf("the signature is for namespace '%s', not '%s'", what, ns);
		free(what);
		return -1;
	}
	if (!(hlen = hash_message(sig, message, len, h))) {
		what = shown(sig->hashalg, sig->hashalg_len);
		rc = fail(err, "hash algorithm '%s' is not supported (sha256, sha512)", what);
		free(what);
		return rc;
	}
	if (!rd_string(&key, &type, &type_len))
		return fail(err, "the signature's public key is malformed");
	what = xstrndup((const char *)sig->hashalg, sig->hashalg_len);
	data = signed_data(ns, what, h, hlen, &n);
	free(what);
	if (bytes_are(type, type_len, "ssh-ed25519"))
		rc = verify_ed25519(&key, &s, data, n, err);
	else if (bytes_are(type, type_len, "ssh-rsa"))
		rc = verify_rsa(&key, &s, data, n, err);
	else {
		what = shown(type, type_len);
		rc = fail(err, "key type '%s' is not supported (ssh-ed25519, ssh-rsa)", what);
		free(what);
	}
	free(data);
	return rc;
}

char *sshsig_key_type(const uint8_t *key, size_t len)
{
	struct rd r = { key, len };
	const uint8_t *type;
	size_t type_len;
	if (!rd_string(&r, &type, &type_len))
		return NULL;
	return shown(type, type_len);
}

char *sshsig_fingerprint(const uint8_t *key, size_t len)
{
	uint8_t h[SHA256_DIGEST_SIZE];
	char b64[BASE64_ENCODE_RAW_LENGTH(SHA256_DIGEST_SIZE) + 1];
	struct sha256_ctx c;
	size_t n = BASE64_ENCODE_RAW_LENGTH(SHA256_DIGEST_SIZE);
	sha256_init(&c);
	sha256_update(&c, len, key);
	sha256_digest(&c, sizeof(h), h);
	base64_encode_raw(b64, sizeof(h), h);
	while (n && b64[n - 1] == '=')
		n--;
	b64[n] = '\0';
	return xasprintf("SHA256:%s", b64);
}
