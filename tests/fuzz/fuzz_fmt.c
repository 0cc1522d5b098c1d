/* libFuzzer target for cordon fmt.  For every input that parses, the
 * formatted text must parse, format to itself, and check with the same
 * number of errors and the same IR (origins left out) as the input.
 *
 *   make fuzz-fmt
 *   mkdir -p tests/fuzz/corpus-fmt
 *   ./tests/fuzz/fuzz_fmt -max_len=4096 tests/fuzz/corpus-fmt tests/fuzz/corpus
 *
 * Includes resolve against the embedded files only, as in fuzz_parse. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cordon.h"
#include "lang/fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The formatted text of text, or NULL when it does not parse. */
static char *format(const char *text, size_t len, size_t *out_len)
{
	struct srcmgr sm;
	struct diag_list diags;
	struct arena arena;
	srcmgr_init(&sm);
	diag_init(&diags);
	arena_init(&arena);
	struct load_ctx lc = { &sm, &diags, &arena, false, false, false };
	uint32_t file = srcmgr_add(&sm, "fuzz.cordon", NULL, xstrndup(text, len), len, NULL);
	char *out = fmt_file(&lc, file, out_len);
	arena_free(&arena);
	diag_free(&diags);
	srcmgr_free(&sm);
	return out;
}

/* Every preset's IR, without origins, one after the other. */
static char *all_ir(const char *text, size_t len, size_t *errors)
{
	cordon_policy *p = cordon_policy_load_string("fuzz.cordon", NULL, text, len);
	struct strbuf sb;
	sb_init(&sb);
	*errors = cordon_policy_error_count(p);
	for (size_t i = 0; i < cordon_policy_preset_count(p); i++) {
		char *err = NULL;
		char *ir = cordon_policy_dump(p, cordon_policy_preset_name(p, i), NULL,
					      CORDON_DUMP_IR, CORDON_DUMP_NO_ORIGINS, &err);
		sb_adds(&sb, ir ? ir : err);
		free(ir);
		free(err);
	}
	cordon_policy_free(p);
	return sb_steal(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n1, n2, e1, e2;
	char *once = format((const char *)data, size, &n1);
	if (!once)
		return 0;
	char *twice = format(once, n1, &n2);
	if (!twice || n2 != n1 || memcmp(once, twice, n1) != 0) {
		fprintf(stderr, "fuzz_fmt: formatting is not a fixed point\n");
		abort();
	}
	char *ir1 = all_ir((const char *)data, size, &e1), *ir2 = all_ir(once, n1, &e2);
	if (e1 != e2 || strcmp(ir1, ir2) != 0) {
		fprintf(stderr, "fuzz_fmt: the formatted policy compiles differently\n");
		abort();
	}
	free(ir1);
	free(ir2);
	free(once);
	free(twice);
	return 0;
}
