/* SSH signatures (lib/base/sshsig.c) on real signatures made by
 * `ssh-keygen -Y sign -n cordon-policy` (an ed25519 key and an RSA key of
 * 2048 bits, over the message "cordon\n"), and on malformed ones: the
 * armor cut, a blob cut at every length, the wrong magic and versions,
 * lengths of 4 GiB in each field, bytes after the end, keys and
 * signatures of the wrong shape.  Each must be refused with a message,
 * never read past its end (ASan and valgrind run this too). */
#include "config.h"

#include "base/sshsig.h"
#include "tap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char message[] = "cordon\n";

static const char ed25519_sig[] =
	"-----BEGIN SSH SIGNATURE-----\n"
	"U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAgQdQ/B7gbpucj7sSuy7+7d2k7Xl\n"
	"6UFl/wUWxxTwfdSaUAAAANY29yZG9uLXBvbGljeQAAAAAAAAAGc2hhNTEyAAAAUwAAAAtz\n"
	"c2gtZWQyNTUxOQAAAEAcs3XfDXCgSFeNhk8bpgQ3/7PD1Ylkt4jzItoMUGZ1UlZtvQthHT\n"
	"38oP5F46/I/EGgprrm5wnEea9fjHqg9IMA\n"
	"-----END SSH SIGNATURE-----\n";
static const char ed25519_pub[] =
	"AAAAC3NzaC1lZDI1NTE5AAAAIEHUPwe4G6bnI+7Ersu/u3dpO15elBZf8FFscU8H3Uml";

static const char rsa_sig[] =
	"-----BEGIN SSH SIGNATURE-----\n"
	"U1NIU0lHAAAAAQAAARcAAAAHc3NoLXJzYQAAAAMBAAEAAAEBAPb2GB1OkScWXlcL9S7YpB\n"
	"Wgl7/vmOTRw1FUzM56Q/LGBIQWnlspOXEYBWUOAg9siyo/O2KvgYPqM16mPmB1Jk8VOQD6\n"
	"9WVnKy/VC5bdWWnS+Z9hwtKRufFYPJvsb+ahiH+34veVvOpuwdoRSvkvlNPHMf7az3vAi8\n"
	"FU42qZyKxbKUkFTJLcKRL+oqyRazZmWg3Ghb/nkX+W3LNKgodqyk1Bbw3M9KHPDovM4fcV\n"
	"YCXFWTWxFEZ/KbkXTHuYPJ5b3NdFc27Yu7ZMe1Vtsfx2mRw3/Tl45ZNrP9HCq5RwwMI0kR\n"
	"DPK+WyRfjTN8Lo7IFSM/xsYKV90JWXPA3IIOcXrEsAAAANY29yZG9uLXBvbGljeQAAAAAA\n"
	"AAAGc2hhNTEyAAABFAAAAAxyc2Etc2hhMi01MTIAAAEAa/atIRfh5yQw79JNxj1TS3LC+M\n"
	"TMz31Ou0sfzCtBt2VymC0mdcCTnf6HpHyizcn5sKtEwqTRsUDvkV+7EXPGtl1OKYmqmcF9\n"
	"yZsaNiysO4tRCTuhcKABP7mP5O1viOdOPw7/KVB+aHjjdTTcRsmk7lzI06gi5HEaNaGWLS\n"
	"VK8DEyBxCVJnF0xAZf2gLKWeObvBUoL3aWZfzziz+XVTTB/IDZqAlBjlJmnW9yBU4upGhU\n"
	"Rtsbb6Qi4Pnm8selYdOCCkizEG9gvjSIn1IylLwJBRWYKgEL+nJp2/btuQtMh6XHgA/his\n"
	"YNy0l2VGb17JRaSP3gUMQ5r76TuhDvtbJzAQ==\n"
	"-----END SSH SIGNATURE-----\n";

/* The blob of an armored signature; aborts the test when it does not
 * decode (the vectors above always do). */
static uint8_t *blob_of(const char *armored, size_t *len)
{
	uint8_t *blob = NULL;
	char *err = NULL;
	if (sshsig_dearmor(armored, strlen(armored), &blob, len, &err) != 0) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	return blob;
}

/* Parse then verify: 0, or what sshsig returned, with the message in
 * *why (malloc'd; NULL on success). */
static int check(const uint8_t *blob, size_t len, const char *ns, const char *msg, char **why)
{
	struct sshsig sig;
	int rc;
	*why = NULL;
	if ((rc = sshsig_parse(blob, len, &sig, why)) != 0)
		return rc;
	return sshsig_verify(&sig, ns, msg, strlen(msg), why);
}

/* Does the check fail with a message holding want? */
static int fails_with(const uint8_t *blob, size_t len, const char *msg, const char *want)
{
	char *why = NULL;
	int rc = check(blob, len, "cordon-policy", msg, &why);
	int right = rc != 0 && why && strstr(why, want);
	if (!right)
		printf("#   rc %d, message: %s\n", rc, why ? why : "(none)");
	free(why);
	return right;
}

static void test_good(void)
{
	size_t len, klen;
	uint8_t *blob = blob_of(ed25519_sig, &len), *key = NULL;
	char *why = NULL, *fp;
	struct sshsig sig;
	ok(check(blob, len, "cordon-policy", message, &why) == 0, "an ed25519 signature verifies");
	free(why);
	ok(check(blob, len, "cordon-policy", "cordon!\n", &why) == SSHSIG_BAD_SIGNATURE,
	   "... and not over another message (SSHSIG_BAD_SIGNATURE)");
	free(why);
	ok(check(blob, len, "file", message, &why) == -1 && strstr(why, "namespace 'cordon-policy'"),
	   "... and another namespace is refused, naming both");
	free(why);
	ok(sshsig_parse(blob, len, &sig, &why) == 0 &&
		   sshsig_base64_decode(ed25519_pub, strlen(ed25519_pub), &key, &klen) == 0 &&
		   klen == sig.pubkey_len && memcmp(key, sig.pubkey, klen) == 0,
	   "the signature carries the key of the allowed-signers line");
	fp = sshsig_fingerprint(sig.pubkey, sig.pubkey_len);
	is_str(fp, "SHA256:Dz+hMKUXRcwtvFnUIJ6bSALIweMGO+WeAuwCa376qx4",
	       "its fingerprint is ssh-keygen -l's");
	free(fp);
	free(key);
	free(blob);

	blob = blob_of(rsa_sig, &len);
	ok(check(blob, len, "cordon-policy", message, &why) == 0,
	   "an rsa-sha2-512 signature of a 2048-bit key verifies");
	free(why);
	ok(check(blob, len, "cordon-policy", "other\n", &why) == SSHSIG_BAD_SIGNATURE,
	   "... and not over another message");
	free(why);
	/* One bit of the RSA signature's last byte flipped. */
	blob[len - 1] ^= 1;
	ok(fails_with(blob, len, message, "does not verify"), "... nor with one bit changed");
	free(blob);
}

static void test_armor(void)
{
	static const struct {
		const char *text, *want, *what;
	} cases[] = {
		{ "", "does not start with", "empty" },
		{ "-----BEGIN SSH SIGNATURE-----", "no line break", "the header alone" },
		{ "-----BEGIN SSH SIGNATURE-----\nU1NI\n", "does not end", "no footer" },
		{ "-----BEGIN SSH SIGNATURE-----\nU1NI\n-----END SSH SIGNATURE-----\nx",
		  "text after", "text after the footer" },
		{ "-----BEGIN SSH SIGNATURE-----\nU1N*\n-----END SSH SIGNATURE-----\n", "not base64",
		  "a byte outside base64" },
		{ "-----BEGIN SSH SIGNATURE-----\n\n-----END SSH SIGNATURE-----\n", "not base64",
		  "no body" },
		{ "-----BEGIN SSH SIGNATURE-----\nU1 NI\n-----END SSH SIGNATURE-----\n", "not base64",
		  "a blank inside the body" },
		{ "-----BEGIN PGP SIGNATURE-----\n", "does not start with", "another armor" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t *blob = NULL;
		size_t len = 0;
		char *err = NULL;
		int rc = sshsig_dearmor(cases[i].text, strlen(cases[i].text), &blob, &len, &err);
		ok(rc == -1 && !blob && err && strstr(err, cases[i].want), "armor: %s is refused",
		   cases[i].what);
		free(err);
		free(blob);
	}
	size_t big = SSHSIG_MAX_ARMORED + 1;
	char *text = malloc(big);
	char *err = NULL;
	uint8_t *blob = NULL;
	size_t len;
	memset(text, 'A', big);
	memcpy(text, "-----BEGIN SSH SIGNATURE-----\n", 30);
	ok(sshsig_dearmor(text, big, &blob, &len, &err) == -1 && strstr(err, "larger than"),
	   "armor: a signature over 64 KiB is refused before it is read");
	free(err);
	free(text);
	/* CRLF line ends, as a file edited on Windows has them. */
	char crlf[2048];
	size_t o = 0;
	for (const char *s = ed25519_sig; *s; s++) {
		if (*s == '\n')
			crlf[o++] = '\r';
		crlf[o++] = *s;
	}
	ok(sshsig_dearmor(crlf, o, &blob, &len, &err) == 0,
	   "armor: CRLF line ends are read");
	free(blob);
}

/* A valid blob with its uint32 at offset `at` replaced by v. */
static uint8_t *with_u32(const uint8_t *blob, size_t len, size_t at, uint32_t v)
{
	uint8_t *b = malloc(len);
	memcpy(b, blob, len);
	b[at] = (uint8_t)(v >> 24), b[at + 1] = (uint8_t)(v >> 16);
	b[at + 2] = (uint8_t)(v >> 8), b[at + 3] = (uint8_t)v;
	return b;
}

/* The offsets of the length fields of a blob: version at 6, then the
 * public key, namespace, reserved, hash and signature lengths. */
static size_t field_offsets(const uint8_t *blob, size_t at[5])
{
	size_t p = 10;
	for (int i = 0; i < 5; i++) {
		at[i] = p;
		p += 4 + ((size_t)blob[p] << 24 | (size_t)blob[p + 1] << 16 |
			  (size_t)blob[p + 2] << 8 | blob[p + 3]);
	}
	return p;
}

static void test_blob(void)
{
	size_t len, at[5], cut_ok = 0;
	uint8_t *blob = blob_of(ed25519_sig, &len), *b;
	char *why;
	ok(field_offsets(blob, at) == len, "the vector's fields add up to its length");
	for (size_t n = 0; n < len; n++) {
		b = malloc(n ? n : 1);
		memcpy(b, blob, n);
		struct sshsig sig;
		why = NULL;
		cut_ok += sshsig_parse(b, n, &sig, &why) == -1 && why;
		free(why);
		free(b);
	}
	ok(cut_ok == len, "a blob cut at each of its %zu lengths is refused", len);

	b = malloc(len);
	memcpy(b, blob, len);
	b[0] = 'X';
	ok(fails_with(b, len, message, "does not start with 'SSHSIG'"), "the wrong magic");
	free(b);
	b = with_u32(blob, len, 6, 2);
	ok(fails_with(b, len, message, "version 2 is not supported"), "version 2");
	free(b);
	b = with_u32(blob, len, 6, 0);
	ok(fails_with(b, len, message, "version 0 is not supported"), "version 0");
	free(b);
	for (int i = 0; i < 5; i++) {
		b = with_u32(blob, len, at[i], 0xffffffffu);
		ok(fails_with(b, len, message, "runs past its end"), "a length of 4 GiB in field %d",
		   i + 1);
		free(b);
		b = with_u32(blob, len, at[i], 0x7fffffffu);
		ok(fails_with(b, len, message, "runs past its end"), "a length of 2 GiB in field %d",
		   i + 1);
		free(b);
	}
	b = malloc(len + 1);
	memcpy(b, blob, len);
	b[len] = 0;
	ok(fails_with(b, len + 1, message, "bytes after the end"), "a byte after the signature");
	free(b);
	free(blob);
}

/* A blob made of its parts: magic, version 1, five strings. */
static uint8_t *make_blob(const char *const part[5], const size_t plen[5], size_t *len)
{
	size_t n = 10;
	for (int i = 0; i < 5; i++)
		n += 4 + plen[i];
	uint8_t *b = malloc(n), *p = b;
	memcpy(p, "SSHSIG\0\0\0\1", 10);
	p += 10;
	for (int i = 0; i < 5; i++) {
		*p++ = (uint8_t)(plen[i] >> 24), *p++ = (uint8_t)(plen[i] >> 16);
		*p++ = (uint8_t)(plen[i] >> 8), *p++ = (uint8_t)plen[i];
		memcpy(p, part[i], plen[i]);
		p += plen[i];
	}
	*len = n;
	return b;
}

static void test_shapes(void)
{
	static const struct {
		const char *key;
		size_t key_len;
		const char *ns, *hash, *sig;
		size_t sig_len;
		const char *want, *what;
	} cases[] = {
		{ "\0\0\0\013ssh-ed25519\0\0\0\04abcd", 23, "cordon-policy", "sha512",
		  "\0\0\0\013ssh-ed25519\0\0\0\0", 19, "public key is malformed",
		  "an ed25519 key of 4 bytes" },
		{ "\0\0\0\007ssh-dss", 11, "cordon-policy", "sha512", "", 0, "not supported",
		  "a DSA key" },
		{ "\0\0\0\013ssh-ed25519", 15, "cordon-policy", "md5", "", 0,
		  "hash algorithm 'md5' is not supported", "an MD5 hash" },
		{ "", 0, "cordon-policy", "sha512", "", 0, "public key is malformed", "no key at all" },
		{ "\0\0\0\007ssh-rsa\0\0\0\01\03\0\0\0\01\01", 21, "cordon-policy", "sha512", "", 0,
		  "ssh-rsa public key is malformed", "an RSA key of one byte" },
		{ "\0\0\0\007ssh-rsa\0\0\0\01\203\0\0\0\01\01", 21, "cordon-policy", "sha512", "", 0,
		  "ssh-rsa public key is malformed", "a negative RSA exponent" },
		{ "", 0, "", "sha512", "", 0, "namespace is empty", "an empty namespace" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *part[5] = { cases[i].key, cases[i].ns, "", cases[i].hash, cases[i].sig };
		size_t plen[5] = { cases[i].key_len, strlen(cases[i].ns), 0, strlen(cases[i].hash),
				   cases[i].sig_len };
		size_t len;
		uint8_t *b = make_blob(part, plen, &len);
		ok(fails_with(b, len, message, cases[i].want), "refused: %s", cases[i].what);
		free(b);
	}
	/* An RSA key of 1024 bits: e = 65537, n = 0xc0 0x01... (128 bytes). */
	char small[4 + 7 + 4 + 3 + 4 + 129];
	memcpy(small, "\0\0\0\007ssh-rsa\0\0\0\03\01\0\01\0\0\0\201\0\300", 24);
	memset(small + 24, 1, sizeof(small) - 24);
	const char *part[5] = { small, "cordon-policy", "", "sha512", "" };
	size_t plen[5] = { sizeof(small), 13, 0, 6, 0 }, blen;
	uint8_t *b = make_blob(part, plen, &blen);
	ok(fails_with(b, blen, message, "has 1024 bits; cordon needs 2048"),
	   "refused: an RSA key of 1024 bits");
	free(b);
	char *t = sshsig_key_type((const uint8_t *)"\0\0\0\377x", 5);
	ok(t == NULL, "a key type whose length runs past the key is none");
	t = sshsig_key_type((const uint8_t *)"\0\0\0\02\033[", 6);
	is_str(t, "?[", "a key type is shown without its control bytes");
	free(t);
	uint8_t *out = NULL;
	size_t n;
	ok(sshsig_base64_decode("QUJD\n", 5, &out, &n) == -1 && !out,
	   "base64 of an allowed-signers line holds no blanks");
	ok(sshsig_base64_decode("QUJD", 4, &out, &n) == 0 && n == 3 && memcmp(out, "ABC", 3) == 0,
	   "... and decodes");
	free(out);
}

int main(void)
{
	test_good();
	test_armor();
	test_blob();
	test_shapes();
	return tap_done();
}
