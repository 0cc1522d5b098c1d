/* Time decisions through the C API.
 *
 *   eval_bench [-r RUNS] [-n REQUESTS] [-v] [-a ROOT] [-b ROOT]
 *              NAME POLICY PRESET REQUESTS_FILE [NAME POLICY PRESET REQUESTS_FILE ...]
 *
 * For each policy (POLICY "-" is the embedded default) it builds an
 * evaluator for PRESET and decides every request of REQUESTS_FILE (lines
 * "OP<TAB>TARGET", as bench/gen-eval.sh writes them), once to warm up and
 * then RUNS times, and reports the median time of a pass divided by the
 * number of requests: nanoseconds per decision, cordon_evaluate() and
 * cordon_decision_free() together, and the user and system CPU time of a
 * pass (getrusage) per decision.  The passes are interleaved (run 1 of
 * every policy, then run 2, ...) so that a busy machine slows all of them
 * alike and the ratios stay meaningful.
 *
 * A target starting with "@/" is put under ROOT/ws (the workspace) and one
 * starting with "~/" under ROOT/home/u.  Each ROOT is one column:
 *   -a ROOT  canonical paths, marked so (cordon_request.canonical): the
 *            evaluator checks their spelling and touches no filesystem
 *   -b ROOT  a real tree (bench/gen-eval.sh -t ROOT): every existing
 *            component is inspected and symlinks are followed
 * The context: workspace and cwd ROOT/ws, home ROOT/home/u, tmp ROOT/tmp,
 * agent_dir ROOT/home/u/.cordon, session_dir ROOT/home/u/.cordon/sessions/s1.
 *
 * -v adds the cost per operation (read, write, exec, net, tool), measured
 * by separate passes over the requests of each operation.  -n decides only
 * the first REQUESTS lines of each file.
 *
 * Each row after the first is also given as a ratio to the row before it,
 * and the last lines ("result NAME COLUMN NS") are for bench/eval.sh. */
#include "config.h"

#include "cordon.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_POLICIES 8
#define MAX_RUNS 101
#define NOPS 5

struct raw {                 /* a requests file as read */
	char *path;
	char *text;
	size_t n;
	enum cordon_op *op;
	char **target;       /* into text */
	/* the requests with each column's roots put in */
	struct cordon_request *reqs[2];
	char *block[2];
	/* -v: the requests of each operation */
	struct cordon_request *by_op[2][NOPS];
	size_t nby_op[NOPS];
};

struct column {
	char flag;
	const char *title, *root;
};

struct cell {                /* one policy in one column */
	cordon_evaluator *ev;
	cordon_context *ctx;
	double build_ms;     /* cordon_evaluator_new */
	double times[MAX_RUNS];
	double user[MAX_RUNS], sys[MAX_RUNS]; /* CPU time of the pass, per decision */
	double op_times[NOPS][MAX_RUNS];
	size_t effects[3], refused;
};

struct policy_run {
	const char *name, *file, *preset;
	cordon_policy *policy;
	struct raw *raw;
	size_t rules;
	struct cell cell[2];
};

static struct raw raws[MAX_POLICIES];
static size_t nraws;

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "eval_bench: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	double s[MAX_RUNS];
	memcpy(s, v, (size_t)n * sizeof(double));
	qsort(s, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double minimum(const double *v, int n)
{
	double m = v[0];
	for (int i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

static struct raw *load_requests(const char *path, size_t max)
{
	for (size_t i = 0; i < nraws; i++)
		if (strcmp(raws[i].path, path) == 0)
			return &raws[i];
	struct raw *r = &raws[nraws++];
	FILE *f = fopen(path, "r");
	size_t len = 0, cap = 1 << 20, n = 0;
	if (!f)
		die("cannot open %s", path);
	r->path = strdup(path);
	r->text = xmalloc(cap);
	for (;;) {
		if (len + 1 >= cap && !(r->text = realloc(r->text, cap *= 2)))
			die("out of memory reading %s", path);
		size_t got = fread(r->text + len, 1, cap - len - 1, f);
		if (got == 0)
			break;
		len += got;
	}
	fclose(f);
	r->text[len] = '\0';
	for (size_t i = 0; i < len; i++)
		n += r->text[i] == '\n';
	if (max && n > max)
		n = max;
	if (n == 0)
		die("%s has no requests", path);
	r->op = xmalloc(n * sizeof(*r->op));
	r->target = xmalloc(n * sizeof(*r->target));
	char *line = r->text;
	for (size_t i = 0; i < n; i++) {
		char *nl = strchr(line, '\n'), *tab = strchr(line, '\t');
		*nl = '\0';
		if (!tab || tab > nl)
			die("%s:%zu: expected OP<TAB>TARGET", path, i + 1);
		*tab = '\0';
		int op = cordon_op_from_name(line);
		if (op < 0)
			die("%s:%zu: unknown operation '%s'", path, i + 1, line);
		r->op[r->n] = (enum cordon_op)op;
		r->target[r->n++] = tab + 1;
		line = nl + 1;
	}
	return r;
}

/* Put a column's roots into the requests, in one block. */
static void materialize(struct raw *r, int c, const char *root, bool canonical, bool by_op)
{
	size_t rootlen = strlen(root), size = 0, k[NOPS] = { 0 };
	if (r->reqs[c])
		return;
	for (size_t i = 0; i < r->n; i++)
		size += strlen(r->target[i]) + rootlen + 16;
	char *p = r->block[c] = xmalloc(size);
	struct cordon_request *reqs = r->reqs[c] = xmalloc(r->n * sizeof(*reqs));
	for (size_t i = 0; i < r->n; i++) {
		const char *t = r->target[i];
		int n;
		if (t[0] == '@' && t[1] == '/')
			n = sprintf(p, "%s/ws%s", root, t + 1);
		else if (t[0] == '~' && t[1] == '/' && r->op[i] <= CORDON_WRITE)
			n = sprintf(p, "%s/home/u%s", root, t + 1);
		else
			n = sprintf(p, "%s", t);
		/* Column a: the host vouches for canonical paths, as a host that
		 * resolved them itself would (cordon_request.canonical). */
		reqs[i] = (struct cordon_request){
			.op = r->op[i], .target = p, .target_len = (size_t)n, .canonical = canonical,
		};
		p += n + 1;
	}
	if (!by_op)
		return;
	memset(r->nby_op, 0, sizeof(r->nby_op));
	for (size_t i = 0; i < r->n; i++)
		r->nby_op[r->op[i]]++;
	for (int o = 0; o < NOPS; o++)
		r->by_op[c][o] = xmalloc(r->nby_op[o] * sizeof(struct cordon_request));
	for (size_t i = 0; i < r->n; i++)
		r->by_op[c][r->op[i]][k[r->op[i]]++] = reqs[i];
}

static cordon_context *make_context(const char *root)
{
	static const char *const vars[][2] = {
		{ "workspace", "/ws" },     { "cwd", "/ws" },
		{ "home", "/home/u" },      { "tmp", "/tmp" },
		{ "agent_dir", "/home/u/.cordon" },
		{ "session_dir", "/home/u/.cordon/sessions/s1" },
	};
	cordon_context *ctx = cordon_context_new();
	char buf[4096], *err = NULL;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		snprintf(buf, sizeof(buf), "%s%s", root, vars[i][1]);
		if (cordon_context_set(ctx, vars[i][0], buf, &err) != 0)
			die("%s", err);
	}
	if (cordon_context_set(ctx, "user", "u", &err) != 0)
		die("%s", err);
	return ctx;
}

static double cpu_ns(const struct timeval *tv)
{
	return (double)tv->tv_sec * 1e9 + (double)tv->tv_usec * 1e3;
}

/* One pass over the requests; its time in ns per decision.  With cpu, the
 * user and system CPU time of the pass per decision too. */
static double pass(const cordon_evaluator *ev, const struct cordon_request *reqs, size_t n,
		   struct cell *count, double *user, double *sys)
{
	struct rusage r0, r1;
	getrusage(RUSAGE_SELF, &r0);
	double t0 = now_ns();
	for (size_t i = 0; i < n; i++) {
		char *err = NULL;
		cordon_decision *d = cordon_evaluate(ev, &reqs[i], &err);
		if (!d) {
			free(err);
			if (count)
				count->refused++;
			continue;
		}
		if (count)
			count->effects[cordon_decision_effect(d)]++;
		cordon_decision_free(d);
	}
	double t = now_ns() - t0;
	getrusage(RUSAGE_SELF, &r1);
	if (user && n) {
		*user = (cpu_ns(&r1.ru_utime) - cpu_ns(&r0.ru_utime)) / (double)n;
		*sys = (cpu_ns(&r1.ru_stime) - cpu_ns(&r0.ru_stime)) / (double)n;
	}
	return n ? t / (double)n : 0;
}

/* Path rules of a preset: the read and write lines of its IR dump. */
static size_t path_rules(const cordon_policy *pol, const char *preset)
{
	char *err = NULL, *dump = cordon_policy_dump(pol, preset, NULL, CORDON_DUMP_IR,
						     CORDON_DUMP_NO_ORIGINS, &err);
	size_t n = 0;
	if (!dump) {
		free(err);
		return 0;
	}
	for (char *line = dump; line; line = strchr(line, '\n')) {
		line += *line == '\n';
		n += strncmp(line, "  read ", 7) == 0 || strncmp(line, "  write ", 8) == 0;
	}
	free(dump);
	return n;
}

/* What one lstat(2) costs here: the floor under every path decision. */
static double lstat_ns(const char *path)
{
	struct stat st;
	double t0 = now_ns();
	for (int i = 0; i < 20000; i++)
		(void)lstat(path, &st);
	return (now_ns() - t0) / 20000;
}

static void usage(void)
{
	fprintf(stderr, "usage: eval_bench [-r RUNS] [-n REQUESTS] [-v] [-a ROOT] [-b ROOT]\n"
			"                  NAME POLICY PRESET REQUESTS_FILE...\n"
			"  POLICY - is the embedded default; see the comment in bench/eval_bench.c\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct column cols[2];
	struct policy_run runs_of[MAX_POLICIES];
	int ncols = 0, npol = 0, runs = 5, opt;
	bool by_op = false;
	size_t max = 0;

	while ((opt = getopt(argc, argv, "r:n:a:b:vh")) != -1) {
		switch (opt) {
		case 'r':
			runs = atoi(optarg);
			if (runs < 1 || runs > MAX_RUNS)
				die("-r wants 1 to %d, got %s", MAX_RUNS, optarg);
			break;
		case 'n':
			max = (size_t)strtoul(optarg, NULL, 10);
			break;
		case 'v':
			by_op = true;
			break;
		case 'a':
		case 'b':
			if (ncols == 2)
				usage();
			cols[ncols++] = (struct column){ (char)opt,
							 opt == 'a' ? "(a) canonical paths"
								    : "(b) real tree",
							 optarg };
			break;
		default:
			usage();
		}
	}
	if (ncols == 0 || argc == optind || (argc - optind) % 4 != 0 ||
	    (argc - optind) / 4 > MAX_POLICIES)
		usage();

	/* Load everything and build the evaluators first. */
	memset(runs_of, 0, sizeof(runs_of));
	for (int a = optind; a < argc; a += 4) {
		struct policy_run *p = &runs_of[npol++];
		p->name = argv[a];
		p->file = argv[a + 1];
		p->preset = argv[a + 2];
		p->policy = strcmp(p->file, "-") == 0 ? cordon_policy_load_embedded()
						       : cordon_policy_load_file(p->file);
		if (cordon_policy_error_count(p->policy)) {
			cordon_policy_print_diagnostics(p->policy, stderr);
			die("%s has errors", p->file);
		}
		p->rules = path_rules(p->policy, p->preset);
		p->raw = load_requests(argv[a + 3], max);
		for (int c = 0; c < ncols; c++) {
			struct cell *cell = &p->cell[c];
			char *err = NULL;
			materialize(p->raw, c, cols[c].root, cols[c].flag == 'a', by_op);
			cell->ctx = make_context(cols[c].root);
			double t0 = now_ns();
			cell->ev = cordon_evaluator_new(p->policy, p->preset, cell->ctx, &err);
			cell->build_ms = (now_ns() - t0) / 1e6;
			if (!cell->ev)
				die("%s: %s", p->name, err);
		}
	}

	/* Warm up (and count the outcomes), then the timed passes, interleaved. */
	for (int p = 0; p < npol; p++)
		for (int c = 0; c < ncols; c++)
			pass(runs_of[p].cell[c].ev, runs_of[p].raw->reqs[c], runs_of[p].raw->n,
			     &runs_of[p].cell[c], NULL, NULL);
	for (int i = 0; i < runs; i++) {
		for (int p = 0; p < npol; p++) {
			for (int c = 0; c < ncols; c++) {
				struct policy_run *r = &runs_of[p];
				struct cell *cell = &r->cell[c];
				cell->times[i] = pass(cell->ev, r->raw->reqs[c], r->raw->n, NULL,
						      &cell->user[i], &cell->sys[i]);
				if (!by_op)
					continue;
				for (int o = 0; o < NOPS; o++)
					cell->op_times[o][i] = pass(cell->ev, r->raw->by_op[c][o],
								    r->raw->nby_op[o], NULL, NULL, NULL);
			}
		}
	}

	printf("median ns per decision (cordon_evaluate + cordon_decision_free), %d runs:\n\n", runs);
	printf("%-10s %6s %8s", "policy", "path", "requests");
	for (int c = 0; c < ncols; c++)
		printf(" | %-26s", cols[c].title);
	printf("\n%-10s %6s %8s", "", "rules", "");
	for (int c = 0; c < ncols; c++)
		printf(" | %8s %8s %8s", "ns", "x prev", "fastest");
	printf("\n");
	for (int p = 0; p < npol; p++) {
		struct policy_run *r = &runs_of[p];
		printf("%-10s %6zu %8zu", r->name, r->rules, r->raw->n);
		for (int c = 0; c < ncols; c++) {
			double ns = median(r->cell[c].times, runs);
			char ratio[16] = "";
			if (p > 0)
				snprintf(ratio, sizeof(ratio), "%.2f",
					 ns / median(runs_of[p - 1].cell[c].times, runs));
			printf(" | %8.0f %8s %8.0f", ns, ratio, minimum(r->cell[c].times, runs));
		}
		printf("\n");
	}

	printf("\nof which CPU time in the process (getrusage), median ns per decision:\n");
	printf("%-10s", "policy");
	for (int c = 0; c < ncols; c++)
		printf(" | %-3c %8s %8s", cols[c].flag, "user", "system");
	printf("\n");
	for (int p = 0; p < npol; p++) {
		printf("%-10s", runs_of[p].name);
		for (int c = 0; c < ncols; c++)
			printf(" | %-3s %8.0f %8.0f", "", median(runs_of[p].cell[c].user, runs),
			       median(runs_of[p].cell[c].sys, runs));
		printf("\n");
	}
	printf("(the rest of the wall time is time the process waited for a CPU)\n");

	if (by_op) {
		printf("\nmedian ns per decision by operation:\n");
		for (int c = 0; c < ncols; c++) {
			printf("  %s\n  %-10s", cols[c].title, "policy");
			for (int o = 0; o < NOPS; o++)
				printf(" %8s", cordon_op_name((enum cordon_op)o));
			printf("\n");
			for (int p = 0; p < npol; p++) {
				printf("  %-10s", runs_of[p].name);
				for (int o = 0; o < NOPS; o++)
					printf(" %8.0f", median(runs_of[p].cell[c].op_times[o], runs));
				printf("\n");
			}
		}
	}

	printf("\nratios of the medians:\n");
	for (int p = 1; p < npol; p++) {
		printf("  %s/%s:", runs_of[p].name, runs_of[p - 1].name);
		for (int c = 0; c < ncols; c++)
			printf("  (%c) %.2f", cols[c].flag,
			       median(runs_of[p].cell[c].times, runs) /
				       median(runs_of[p - 1].cell[c].times, runs));
		printf("\n");
	}

	printf("\nevaluator build time (cordon_evaluator_new) and outcomes:\n");
	for (int p = 0; p < npol; p++) {
		for (int c = 0; c < ncols; c++) {
			struct cell *cell = &runs_of[p].cell[c];
			double pct = (double)runs_of[p].raw->n / 100;
			printf("  %-10s (%c) %8.2f ms   allow %4.1f%%  ask %4.1f%%  deny %4.1f%%"
			       "  refused %zu\n",
			       runs_of[p].name, cols[c].flag, cell->build_ms, cell->effects[0] / pct,
			       cell->effects[1] / pct, cell->effects[2] / pct, cell->refused);
		}
	}

	printf("\nfor reference, one lstat(2) here:");
	for (int c = 0; c < ncols; c++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/ws", cols[c].root);
		printf("  (%c) %s %.0f ns", cols[c].flag, path, lstat_ns(path));
	}
	printf("\n\n");

	for (int p = 0; p < npol; p++)
		for (int c = 0; c < ncols; c++)
			printf("result %s %c %.1f\n", runs_of[p].name, cols[c].flag,
			       median(runs_of[p].cell[c].times, runs));

	for (int p = 0; p < npol; p++) {
		for (int c = 0; c < ncols; c++) {
			cordon_evaluator_free(runs_of[p].cell[c].ev);
			cordon_context_free(runs_of[p].cell[c].ctx);
		}
		cordon_policy_free(runs_of[p].policy);
	}
	for (size_t i = 0; i < nraws; i++) {
		for (int c = 0; c < 2; c++) {
			free(raws[i].reqs[c]);
			free(raws[i].block[c]);
			for (int o = 0; o < NOPS; o++)
				free(raws[i].by_op[c][o]);
		}
		free(raws[i].op);
		free(raws[i].target);
		free(raws[i].text);
		free(raws[i].path);
	}
	return 0;
}
