/* Signed policy bundles (docs/fleet.md, "Signed bundles"): what bundle.c,
 * bundle_keys.c and bundle_install.c share.  The public side is in
 * cordon_tools.h. */
#ifndef CORDON_TOOLS_BUNDLE_H
#define CORDON_TOOLS_BUNDLE_H

#include "cordon_tools.h"
#include "base/digest.h"
#include "base/sshsig.h"
#include "base/util.h"

#include <stdbool.h>
#include <stddef.h>

/* The most a manifest may hold, and the most sources. */
#define BUNDLE_MAX_MANIFEST (1u << 20)
#define BUNDLE_MAX_SOURCES 256
#define BUNDLE_MANIFEST "manifest"
#define BUNDLE_SIGNATURE "manifest.sig"
/* Under confdir (SYSCONFDIR/cordon). */
#define BUNDLE_KEYS "allowed_signers"
#define BUNDLE_LINK "bundle"
#define BUNDLE_STORE "bundles"
#define BUNDLE_STATE "bundle.version"

struct bundle_source {
	char *name;
	char digest[DIGEST_HEX_LEN + 1]; /* as the manifest says */
	char *text;                      /* the bytes read and checked */
	size_t len;
};

struct cordon_bundle {
	char *dir;
	char *manifest; /* its bytes, as signed */
	size_t manifest_len;
	char *sig; /* manifest.sig, NULL when not read */
	size_t sig_len;
	unsigned long long version;
	long long expires; /* 0: none */
	struct bundle_source *src;
	size_t nsrc;
	char *signer; /* the trusted line's principals */
	char *key;    /* "ssh-ed25519 SHA256:..." */
};

/* Which line of an allowed-signers text (named `name` in messages)
 * trusts the key of sig for CORDON_BUNDLE_NAMESPACE now: 0 with its
 * principals in *principals (malloc'd), or -1 with *err saying why none
 * does, or which line is malformed (name:LINE). */
int bundle_keys_trust(const char *name, const char *text, size_t len, const struct sshsig *sig,
		      char **principals, char **err);

/* Verify the bundle in dir as cordon_bundle_verify does, the keys given as
 * text (NULL: the signature is not read). */
cordon_bundle *bundle_verify_keys(const char *dir, const char *keys_name, const char *keys,
				  size_t keys_len, unsigned long long min_version, char **err);

/* Parse b->manifest into b's version, expiry and sources (their names
 * and digests).  0, or -1 with *err naming the line. */
int bundle_manifest_parse(struct cordon_bundle *b, char **err);
/* Write dir/name anew (O_EXCL, 0644) and sync it.  0, or -1 with *err. */
int bundle_write_file(const char *dir, const char *name, const char *text, size_t len,
		      char **err);

/* A whole small file: at most max bytes, else EFBIG.  0 or an errno. */
int bundle_read(const char *path, size_t max, char **text, size_t *len);

#endif
