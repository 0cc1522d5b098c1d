/* libFuzzer target for the shell analyser: parse, split and dump any input,
 * check what comes out, and decide it as an exec request under the embedded
 * default policy (with its program specs), preset workspace-write.
 *
 *   make fuzz-shell
 *   FUZZ_BIN=tests/fuzz/fuzz_shell FUZZ_CORPUS=tests/shell/corpus \
 *       sh tests/fuzz/run.sh 120
 *
 * The input is handed over as is, not NUL-terminated, so a read past its end
 * is caught by AddressSanitizer.  Every input must either parse or give an
 * error inside the input; every offset reported must lie inside the input;
 * two parses of one input must dump the same; the decision must list at
 * least one operation, agree with its worst operation, and never allow an
 * input that does not parse; only an input that is not UTF-8 is refused
 * without a decision.  Its lines, as an argv, must render to a line that
 * parses back into them (argv_check). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cordon.h"
#include "shell/shell.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_word(const struct shell_word *w, size_t size)
{
	struct strbuf sb;
	if (!w || !w->nparts || w->start > w->end || w->end > size)
		abort();
	for (size_t i = 0; i < w->nparts; i++) {
		const struct shell_part *p = &w->parts[i];
		if (!p->text || p->start > p->end || p->end > size)
			abort();
	}
	sb_init(&sb);
	unsigned m = shell_word_pattern(w, &sb);
	/* A static word is its own pattern. */
	if (w->lit && (m != 0 || strcmp(sb.buf, w->lit) != 0))
		abort();
	sb_free(&sb);
}

static void check(const struct shell_script *sc, size_t size)
{
	for (size_t i = 0; i < shell_cmd_count(sc); i++) {
		const struct shell_cmd *c = shell_cmd_get(sc, i);
		if (c->start > c->end || c->end > size || c->argi > c->nwords)
			abort();
		if (!(c->flags & SHELL_CMD_OPAQUE) != !c->reason)
			abort();
		if (c->argi < c->nwords ? c->prog != c->words[c->argi]->lit : c->prog != NULL)
			abort();
		for (size_t k = 0; k < c->nwords; k++)
			check_word(c->words[k], size);
		for (size_t k = 0; k < c->nassigns; k++)
			check_word(c->assigns[k]->value, size);
		for (size_t k = 0; k < c->nredirs; k++) {
			check_word(c->redirs[k]->target, size);
			if (c->redirs[k]->body)
				check_word(c->redirs[k]->body, size);
		}
		for (size_t k = 0; k < c->nwrappers; k++)
			if (!c->wrappers[k].name || !c->wrappers[k].nwords)
				abort();
		if (c->cwd && !c->cwd[0])
			abort();
	}
}

static cordon_evaluator *evaluator(void)
{
	static cordon_evaluator *ev;
	if (ev)
		return ev;
	/* Built once and kept: libFuzzer's leak check ignores what is
	 * reachable from a static. */
	static cordon_policy *pol;
	static cordon_context *ctx;
	char *err = NULL;
	pol = cordon_policy_load_embedded();
	ctx = cordon_context_new();
	static const char *const vars[][2] = {
		{ "workspace", "/srv/ws" }, { "cwd", "/srv/ws" }, { "home", "/home/u" },
		{ "tmp", "/tmp/cordon-t" }, { "user", "u" },      { "agent_dir", "/srv/ws/.agent" },
		{ "session_dir", "/srv/ws/.agent/s1" },
	};
	for (size_t i = 0; i < sizeof(vars) / sizeof(*vars); i++)
		if (cordon_context_set(ctx, vars[i][0], vars[i][1], &err) != 0)
			abort();
	ev = cordon_evaluator_new(pol, "workspace-write", ctx, &err);
	if (!ev)
		abort();
	return ev;
}

static void decide(const uint8_t *data, size_t size, bool parsed)
{
	if (!size || memchr(data, '\0', size))
		return;
	struct cordon_request req = { .op = CORDON_EXEC, .target = (const char *)data,
				      .target_len = size };
	char *err = NULL;
	cordon_decision *d = cordon_evaluate(evaluator(), &req, &err);
	if (!d) {
		/* Only text that is not UTF-8 is refused rather than decided. */
		if (utf8_invalid_at(data, size) == size)
			abort();
		free(err);
		return;
	}
	size_t n = cordon_decision_operation_count(d);
	enum cordon_effect worst = CORDON_ALLOW, e;
	if (!n)
		abort();
	for (size_t i = 0; i < n; i++) {
		const char *target;
		cordon_decision_operation(d, i, NULL, &target, &e, NULL, NULL);
		if (!target)
			abort();
		if (e > worst)
			worst = e;
	}
	if (cordon_decision_effect(d) != worst)
		abort();
	if (!parsed && worst == CORDON_ALLOW)
		abort();
	free(cordon_decision_json(d));
	cordon_decision_free(d);
}

/* The input as an argv, its words split at newlines (a NUL ends it): the
 * line shell_argv renders parses back into exactly those words, the split
 * passes the same checks, and the argv request is decided like a string. */
static void argv_check(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1);
	const char *words[64];
	size_t argc = 0;
	if (!copy)
		abort();
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (char *w = copy; argc < 64;) {
		words[argc++] = w;
		char *nl = strchr(w, '\n');
		if (!nl)
			break;
		*nl = '\0';
		w = nl + 1;
	}
	struct strbuf text;
	struct shell_error err;
	sb_init(&text);
	struct shell_script *sc = shell_argv(words, argc, &text, &err);
	if (!sc)
		abort(); /* never empty, never past the limit */
	check(sc, text.len);
	struct shell_script *back = shell_parse(text.buf, text.len, &err);
	const struct shell_cmd *c = back ? shell_cmd_get(back, 0) : NULL;
	if (!c || c->nwords != argc || c->nassigns || c->nredirs)
		abort();
	for (size_t i = 0; i < argc; i++)
		if (!c->words[i]->lit || strcmp(c->words[i]->lit, words[i]) != 0)
			abort();
	struct cordon_request req = { .op = CORDON_EXEC, .argv = words, .argc = argc };
	char *e = NULL;
	cordon_decision *d = cordon_evaluate(evaluator(), &req, &e);
	if (!d || !cordon_decision_operation_count(d) ||
	    strcmp(cordon_decision_analysed(d), "argv") != 0)
		abort();
	cordon_decision_free(d);
	shell_free(back);
	shell_free(sc);
	sb_free(&text);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 65536)
		argv_check(data, size);
	struct shell_error err;
	struct shell_script *sc = shell_parse((const char *)data, size, &err);
	decide(data, size, sc != NULL);
	if (!sc) {
		if (err.offset > size || !err.message[0])
			abort();
		return 0;
	}
	check(sc, size);
	struct strbuf a, b;
	sb_init(&a);
	sb_init(&b);
	shell_dump(sc, &a);
	shell_free(sc);
	sc = shell_parse((const char *)data, size, &err);
	if (!sc)
		abort();
	shell_dump(sc, &b);
	if (strcmp(a.buf, b.buf) != 0)
		abort();
	shell_free(sc);
	sb_free(&a);
	sb_free(&b);
	return 0;
}
