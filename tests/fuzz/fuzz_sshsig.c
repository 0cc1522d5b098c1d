/* libFuzzer target for what reads SSH signatures and trusted keys
 * (lib/base/sshsig.c, lib/tools/bundle_keys.c): every input is read as an
 * armored signature, as a raw signature blob and as an allowed-signers
 * file, and each must be refused or accepted without reading past its
 * end, leaking, or crashing.
 *
 *   make fuzz-sshsig
 *   FUZZ_BIN=tests/fuzz/fuzz_sshsig FUZZ_CORPUS=tests/fuzz/sshsig/corpus sh tests/fuzz/run.sh
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/sshsig.h"
#include "tools/bundle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char message[] = "cordon-bundle 1\n";

/* Parse and verify a blob; with a parsed signature, read the input as a
 * keys file that may or may not trust it. */
static void try_blob(const uint8_t *blob, size_t len, const uint8_t *keys, size_t keys_len)
{
	struct sshsig sig;
	char *err = NULL, *who = NULL;
	if (sshsig_parse(blob, len, &sig, &err) == 0) {
		free(err);
		err = NULL;
		sshsig_verify(&sig, CORDON_BUNDLE_NAMESPACE, message, strlen(message), &err);
		free(err);
		err = NULL;
		free(sshsig_fingerprint(sig.pubkey, sig.pubkey_len));
		free(sshsig_key_type(sig.pubkey, sig.pubkey_len));
		if (bundle_keys_trust("fuzz", (const char *)keys, keys_len, &sig, &who, &err) == 0)
			free(who);
	}
	free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *blob = NULL;
	size_t len = 0;
	char *err = NULL;
	if (sshsig_dearmor((const char *)data, size, &blob, &len, &err) == 0) {
		try_blob(blob, len, data, size);
		free(blob);
	}
	free(err);
	try_blob(data, size, data, size);
	return 0;
}
