/* Time the shell analyser and the decisions made on it:
 *  - parse: shell_parse() (parse and split) and shell_free();
 *  - decide: cordon_evaluate() of an exec request through the C API, with
 *    the embedded default policy (which includes rules/commands.cordon),
 *    preset workspace-write, a fixed context: parse, read through the
 *    program specs, judge every operation;
 *  - baseline: cordon_evaluate() of one read request with the same
 *    evaluator, so that the decide figures can be read as a ratio on any
 *    machine;
 * on a typical agent command of about 100 bytes, and on generated scripts
 * of 100 KB to 1 MB (linear scaling: time per byte should stay flat); and
 * the parse of inputs a careless parser takes quadratic time over
 * (tests/unit/shell_slow_inputs.h), at 32 KiB and 256 KiB: eight times the
 * input should take about eight times as long.
 *
 *   make bench/shell_bench
 *   bench/shell_bench [-r RUNS]
 *
 * Each input is analysed once to warm up, then RUNS times (default 201 for
 * the command, a tenth of that for the scripts, each run repeating the
 * command 1000 times); the median of the runs is reported. */
#include "config.h"

#include "cordon.h"
#include "shell/shell.h"
#include "base/util.h"
#include "../tests/unit/shell_slow_inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char command[] =
	"cd /srv/repo && git status --short | head -n 20 && "
	"rg -n \"TODO\" src/ --glob '*.c' > /tmp/todo.txt";

/* One block of the generated script: the constructs agents write. */
static const char block[] =
	"#!/bin/bash\n"
	"set -euo pipefail\n"
	"build_dir=\"${BUILD_DIR:-build}\"\n"
	"log() { printf '%s %s\\n' \"$(date +%H:%M:%S)\" \"$*\" >&2; }\n"
	"if [ ! -d \"$build_dir\" ]; then\n"
	"  mkdir -p \"$build_dir\" && cd \"$build_dir\"\n"
	"fi\n"
	"for f in src/*.c; do\n"
	"  case \"$f\" in\n"
	"    *_test.c) continue ;;\n"
	"    *) gcc -c \"$f\" -o \"obj/$(basename \"$f\" .c).o\" ;;\n"
	"  esac\n"
	"done\n"
	"find . -name '*.o' -newer Makefile -exec ls -l {} + | sort -k5 -n | tail -3\n"
	"cat > config.h <<EOF\n"
	"#define VERSION \"$(git describe --tags)\"\n"
	"EOF\n"
	"sudo -u builder env -i PATH=/usr/bin make -C \"$build_dir\" -j\"$(nproc)\" all "
	"2>&1 | tee build.log\n"
	"while read -r line; do echo \"${line%%:*}\"; done < build.log\n"
	"[[ -f out/app ]] && bash -c 'cd out && ./app --selftest' || log failed\n";

/* CPU time of this thread: on a shared machine, other processes inflate
 * wall time far more than the time this thread spends. */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static const cordon_evaluator *ev; /* the decide measurements' evaluator */
static int op = -1;                 /* parse only (-1), or the request's operation */

static void one(const char *text, size_t len)
{
	if (op < 0) {
		shell_free(shell_parse(text, len, NULL));
		return;
	}
	struct cordon_request req = { .op = (enum cordon_op)op, .target = text, .target_len = len };
	char *err = NULL;
	cordon_decision *d = cordon_evaluate(ev, &req, &err);
	if (!d) {
		fprintf(stderr, "shell_bench: %s\n", err);
		exit(1);
	}
	cordon_decision_free(d);
}

/* Median seconds of one analysis of text, over runs runs of reps each. */
static double measure(const char *text, size_t len, int runs, int reps, size_t *ncmds)
{
	double *t = xcalloc((size_t)runs, sizeof(*t));
	struct shell_error err;
	struct shell_script *sc = shell_parse(text, len, &err);
	if (!sc) {
		fprintf(stderr, "shell_bench: the input does not parse: %s at %zu\n", err.message,
			err.offset);
		exit(1);
	}
	*ncmds = shell_cmd_count(sc);
	shell_free(sc);
	for (int r = 0; r < runs; r++) {
		double t0 = now();
		for (int k = 0; k < reps; k++)
			one(text, len);
		t[r] = (now() - t0) / reps;
	}
	sort_items(t, (size_t)runs, sizeof(*t), cmp_double);
	double median = t[runs / 2];
	free(t);
	return median;
}

int main(int argc, char **argv)
{
	int runs = 201;
	if (argc == 3 && !strcmp(argv[1], "-r") && atoi(argv[2]) > 0) {
		runs = atoi(argv[2]);
	} else if (argc != 1) {
		fprintf(stderr, "usage: shell_bench [-r RUNS]\n");
		return 2;
	}
	cordon_policy *pol = cordon_policy_load_embedded();
	cordon_context *ctx = cordon_context_new();
	char *err = NULL;
	static const char *const vars[][2] = {
		{ "workspace", "/srv/ws" }, { "cwd", "/srv/ws" },    { "home", "/home/u" },
		{ "tmp", "/tmp/cordon-t" }, { "user", "u" },         { "agent_dir", "/home/u/.cordon" },
		{ "session_dir", "/home/u/.cordon/s1" },
	};
	for (size_t i = 0; i < sizeof(vars) / sizeof(*vars); i++)
		cordon_context_set(ctx, vars[i][0], vars[i][1], &err);
	cordon_evaluator *e = cordon_evaluator_new(pol, "workspace-write", ctx, &err);
	if (!e) {
		fprintf(stderr, "shell_bench: %s\n", err);
		return 1;
	}
	ev = e;

	struct strbuf script;
	sb_init(&script);
	while (script.len < 1000 * 1000)
		sb_adds(&script, block);
	size_t n1, n2;
	static const char base_path[] = "/srv/ws/src/main.c";
	op = CORDON_READ;
	double tb = measure(base_path, strlen(base_path), runs, 1000, &n1);
	printf("baseline read %s               median %8.2f us\n", base_path, tb * 1e6);
	for (int pass = 0; pass < 2; pass++) {
		op = pass ? CORDON_EXEC : -1;
		const char *what = pass ? "decide" : "parse ";
		double t1 = measure(command, strlen(command), runs, 1000, &n1);
		printf("%s command %7zu bytes %5zu commands  median %8.2f us", what,
		       strlen(command), n1, t1 * 1e6);
		if (pass)
			printf("  (%.1f x baseline)", t1 / tb);
		printf("\n");
		double per_byte0 = 0;
		static const size_t sizes[] = { 100 * 1000, 250 * 1000, 500 * 1000, 1000 * 1000 };
		for (size_t k = 0; k < 4; k++) {
			/* Whole blocks, so every script parses. */
			size_t len = sizes[k] / (sizeof(block) - 1) * (sizeof(block) - 1);
			double t2 = measure(script.buf, len, k ? runs / 20 + 1 : runs / 10 + 1, 1, &n2);
			double per_byte = t2 / (double)len;
			if (!k)
				per_byte0 = per_byte;
			printf("%s script  %7zu bytes %5zu commands  median %8.2f ms  (%.1f MB/s, "
			       "per byte %.2f x the 100 KB one)\n",
			       what, len, n2, t2 * 1e3, (double)len / t2 / 1e6, per_byte / per_byte0);
		}
	}
	op = -1;
	for (size_t i = 0; i < sizeof(shell_slow_inputs) / sizeof(*shell_slow_inputs); i++) {
		const struct shell_slow_input *t = &shell_slow_inputs[i];
		double secs[2];
		for (int k = 0; k < 2; k++) {
			size_t size = k ? 256 << 10 : 32 << 10;
			struct strbuf in;
			sb_init(&in);
			sb_adds(&in, t->head);
			while (in.len + strlen(t->unit) + strlen(t->tail) <= size)
				sb_adds(&in, t->unit);
			sb_adds(&in, t->tail);
			double t0 = now();
			for (int r = 0; r < 5; r++)
				one(in.buf, in.len);
			secs[k] = (now() - t0) / 5;
			sb_free(&in);
		}
		printf("slow input %-16s 32 KiB %8.2f ms  256 KiB %8.2f ms  ratio %5.1f (linear: 8)\n",
		       t->name, secs[0] * 1e3, secs[1] * 1e3, secs[1] / secs[0]);
	}
	sb_free(&script);
	cordon_evaluator_free(e);
	cordon_context_free(ctx);
	cordon_policy_free(pol);
	return 0;
}
