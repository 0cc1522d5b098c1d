/* libFuzzer target for the cordon front end: scanner, parser, checker and
 * the IR and JSON dumps of every preset.
 *
 *   make fuzz
 *   mkdir -p tests/fuzz/corpus-run
 *   ./tests/fuzz/fuzz_parse -max_len=4096 tests/fuzz/corpus-run tests/fuzz/corpus
 *
 * The input is handed over as is, not NUL-terminated, so a read past its end
 * is caught by AddressSanitizer.  base_dir is NULL, so includes resolve
 * against the embedded files only and no input reads the file system. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cordon.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;
static cordon_context *ctx;

static void init(void)
{
	static const char *const vars[][2] = {
		{ "workspace", "/ws" },
		{ "cwd", "/ws/src" },
		{ "home", "/home/u" },
		{ "tmp", "/tmp/c" },
		{ "agent_dir", "/home/u/.cordon" },
		{ "session_dir", "/home/u/.cordon/sessions/s" },
		{ "user", "u" },
	};
	size_t i;

	devnull = fopen("/dev/null", "w");
	ctx = cordon_context_new();
	for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		char *err = NULL;
		if (cordon_context_set(ctx, vars[i][0], vars[i][1], &err) != 0) {
			fprintf(stderr, "fuzz_parse: context %s: %s\n", vars[i][0],
				err ? err : "?");
			abort();
		}
	}
}

static void dump(const cordon_policy *policy, const char *preset,
		 const cordon_context *c, enum cordon_dump_format format, int flags)
{
	char *err = NULL;
	char *out = cordon_policy_dump(policy, preset, c, format, flags, &err);

	/* A policy without errors dumps every preset it names. */
	if (!out) {
		fprintf(stderr, "fuzz_parse: dump of preset '%s' failed: %s\n", preset,
			err ? err : "(no message)");
		abort();
	}
	free(out);
	free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cordon_policy *policy;
	size_t i, n;

	if (!devnull)
		init();

	policy = cordon_policy_load_string("fuzz.cordon", NULL, (const char *)data, size);
	if (!policy)
		abort(); /* documented never to return NULL */

	/* Render the diagnostics too: excerpts and carets over arbitrary bytes. */
	if (devnull)
		cordon_policy_print_diagnostics(policy, devnull);

	if (cordon_policy_error_count(policy) == 0) {
		n = cordon_policy_preset_count(policy);
		for (i = 0; i < n; i++) {
			const char *name = cordon_policy_preset_name(policy, i);
			if (!name || !cordon_policy_has_preset(policy, name))
				abort();
			dump(policy, name, NULL, CORDON_DUMP_IR, 0);
			dump(policy, name, NULL, CORDON_DUMP_JSON, 0);
			dump(policy, name, ctx, CORDON_DUMP_IR, CORDON_DUMP_NO_ORIGINS);
		}
		(void)cordon_policy_default_preset(policy);
	}

	cordon_policy_free(policy);
	return 0;
}
