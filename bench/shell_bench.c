/* Time the shell analyser: shell_parse() (parse and split) and shell_free()
 * on a typical agent command of about 100 bytes and on a generated script of
 * about 100 KB.
 *
 *   make bench/shell_bench
 *   bench/shell_bench [-r RUNS]
 *
 * Each input is analysed once to warm up, then RUNS times (default 201 for
 * the command, a tenth of that for the script, each run repeating the
 * command 1000 times); the median of the runs is reported. */
#include "config.h"

#include "shell.h"
#include "util.h"

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

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
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
			shell_free(shell_parse(text, len, NULL));
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
	struct strbuf script;
	sb_init(&script);
	while (script.len < 100 * 1000)
		sb_adds(&script, block);

	size_t n1, n2;
	double t1 = measure(command, strlen(command), runs, 1000, &n1);
	double t2 = measure(script.buf, script.len, runs / 10 + 1, 1, &n2);
	printf("command  %6zu bytes %5zu commands  median %8.2f us\n", strlen(command), n1,
	       t1 * 1e6);
	printf("script   %6zu bytes %5zu commands  median %8.2f ms  (%.1f MB/s)\n", script.len,
	       n2, t2 * 1e3, (double)script.len / t2 / 1e6);
	sb_free(&script);
	return 0;
}
