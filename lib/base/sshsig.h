/* SSH signatures: the armored signatures `ssh-keygen -Y sign` writes
 * (OpenSSH's PROTOCOL.sshsig), read and verified with nettle, and the
 * public keys of an allowed-signers file.  Every byte read here comes from
 * a file anyone may have written: each length is checked against what is
 * left before it is used, and nothing is trusted until sshsig_verify says
 * so.  Keys: ssh-ed25519, and ssh-rsa of 2048 bits or more signing with
 * rsa-sha2-256 or rsa-sha2-512. */
#ifndef CORDON_SSHSIG_H
#define CORDON_SSHSIG_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes an armored signature or a decoded key may have: an RSA
 * key of 16384 bits is some 2 KiB. */
#define SSHSIG_MAX_ARMORED (64u << 10)

/* A parsed signature blob.  Every pointer points into the blob it was
 * parsed from, which must outlive it. */
struct sshsig {
	uint32_t version;
	const uint8_t *pubkey; /* the signer's public key, in SSH wire form */
	size_t pubkey_len;
	const uint8_t *ns; /* the namespace, not NUL-terminated */
	size_t ns_len;
	const uint8_t *hashalg;
	size_t hashalg_len;
	const uint8_t *signature; /* the SSH signature: its algorithm and bytes */
	size_t signature_len;
};

/* The blob inside an armored signature (BEGIN SSH SIGNATURE ... END SSH
 * SIGNATURE).  Returns 0 with *blob malloc'd, or -1 with *err (malloc'd). */
int sshsig_dearmor(const char *text, size_t len, uint8_t **blob, size_t *blob_len, char **err);
/* Parse a blob (magic, version 1, five strings, nothing after them).
 * Returns 0, or -1 with *err (malloc'd). */
int sshsig_parse(const uint8_t *blob, size_t len, struct sshsig *out, char **err);
/* What sshsig_verify returns for a well-formed signature that does not
 * verify: the message is not what the key signed. */
#define SSHSIG_BAD_SIGNATURE (-2)
/* Does the signature say `ns` and sign message with its own public key?
 * Returns 0; SSHSIG_BAD_SIGNATURE with *err (malloc'd) when it does not
 * verify; or -1 with *err saying what else is wrong: another namespace,
 * an unsupported key or algorithm, a malformed key or signature. */
int sshsig_verify(const struct sshsig *sig, const char *ns, const void *message, size_t len,
		  char **err);

/* Standard base64 (as in an allowed-signers line), whitespace refused.
 * Returns 0 with *out malloc'd, or -1. */
int sshsig_base64_decode(const char *text, size_t len, uint8_t **out, size_t *out_len);
/* The key's type from its wire form ("ssh-ed25519"), malloc'd, or NULL
 * when the blob does not start with a string. */
char *sshsig_key_type(const uint8_t *key, size_t len);
/* "SHA256:..." as ssh-keygen -l prints it, malloc'd. */
char *sshsig_fingerprint(const uint8_t *key, size_t len);

#endif
