/* The runner's door (cordon/lowering.h), used as a program that links
 * libcordon would, through the installed headers alone: a lowering is the
 * plan cordon_plan_build makes, it reads the host once and keeps to what
 * it read, its environment is the plan's, its limits are the preset's,
 * what an approval grants becomes writable, and an approval's hosts give
 * the call its egress proxy. */
#define _GNU_SOURCE /* nftw */
#include "cordon.h"
#include "cordon/landlock.h"
#include "cordon/lowering.h"
#include "cordon/plan.h"
#include "tap.h"

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char root[256];

static char *at(const char *rel)
{
	static char buf[8][512];
	static int k;
	k = (k + 1) % 8;
	if ((size_t)snprintf(buf[k], sizeof(buf[k]), "%s/%s", root, rel) >= sizeof(buf[k]))
		abort(); /* the test's own paths are short */
	return buf[k];
}

static bool plans_same(const struct cordon_plan *a, const struct cordon_plan *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!cordon_plan_op_same(&a->ops[i], &b->ops[i]))
			return false;
	return true;
}

static bool has_string(char **v, const char *s)
{
	for (; v && *v; v++)
		if (strcmp(*v, s) == 0)
			return true;
	return false;
}

static bool has_root(const cordon_lowering *l, const char *path)
{
	size_t n = 0;
	const char **roots = cordon_lowering_landlock_roots(l, &n);
	bool found = false;
	for (size_t i = 0; i < n && !found; i++)
		found = strcmp(roots[i], path) == 0;
	free(roots);
	return found;
}

/* The plan's network operation: its kind, and its origin into *origin. */
static int net_op(const cordon_lowering *l, const char **origin, char **err)
{
	static char held[128];
	struct cordon_plan pl = { 0 };
	int kind = -1;
	*origin = NULL;
	if (cordon_lowering_plan(l, &pl, err) != 0)
		return -1;
	for (size_t i = 0; i < pl.n; i++)
		if (pl.ops[i].kind == CORDON_PLAN_UNSHARE_NET ||
		    pl.ops[i].kind == CORDON_PLAN_UNSHARE_NET_EGRESS) {
			kind = (int)pl.ops[i].kind;
			snprintf(held, sizeof(held), "%s", pl.ops[i].origin ? pl.ops[i].origin : "");
			*origin = held;
		}
	cordon_plan_free(&pl);
	return kind;
}

/* The egress an approval's hosts open: the call gets its proxy where the
 * preset allows no host, and keeps the preset's where it allows one. */
static void approval_egress(cordon_evaluator *ev, cordon_evaluator *net_ev)
{
	char *err = NULL;
	const char *origin;
	cordon_lowering *l = cordon_lowering_new(ev, NULL, 0, &err);
	cordon_lowering_read_host(l);
	ok(net_op(l, &origin, &err) == CORDON_PLAN_UNSHARE_NET,
	   "a preset that allows no host: the network is closed without an approval");
	ok(cordon_lowering_egress_for_approval(l, "approval 1234"),
	   "an approval's hosts alone open the egress proxy");
	ok(net_op(l, &origin, &err) == CORDON_PLAN_UNSHARE_NET_EGRESS && origin &&
		   strcmp(origin, "approval 1234") == 0,
	   "the plan keeps its own network, left only through the proxy, for the approval (%s)",
	   origin ? origin : "none");
	ok(cordon_lowering_landlock_flags(l) & CORDON_LANDLOCK_EGRESS,
	   "Landlock lets the call reach only the proxy's port");
	ok(!cordon_lowering_egress_for_approval(l, "approval 5678"),
	   "asked again, it was already open");
	cordon_lowering_free(l);

	l = cordon_lowering_new(net_ev, NULL, 0, &err);
	cordon_lowering_read_host(l);
	ok(!cordon_lowering_egress_for_approval(l, "approval 1234"),
	   "a preset that allows a host has the proxy without the approval");
	ok(net_op(l, &origin, &err) == CORDON_PLAN_UNSHARE_NET_EGRESS && origin &&
		   strstr(origin, "door.cordon:"),
	   "and the plan names its rule (%s)", origin ? origin : "none");
	cordon_lowering_free(l);
	free(err);
}

static const char policy_text[] = "cordon 1;\n"
				  "env { keep CORDON_DOOR_KEPT; set CORDON_DOOR_SET = \"s\"; }\n"
				  "preset \"p\" {\n"
				  "  sandbox required;\n"
				  "  read  \"/**\" allow;\n"
				  "  write \"${workspace}\" allow;\n"
				  "  write \"${tmp}\" allow;\n"
				  "  write \"${home}/out\" ask;\n"
				  "  exec  \"*\" allow;\n"
				  "  limits { processes 64; memory 1G best_effort; }\n"
				  "}\n"
				  "preset \"net\" {\n"
				  "  sandbox required;\n"
				  "  read  \"/**\" allow;\n"
				  "  write \"${tmp}\" allow;\n"
				  "  net   \"example.com\" allow;\n"
				  "}\n";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* After a call: a nested repository whose config names a program, and
 * that changed since the call began, has its .git moved aside; one that
 * names none, the workspace's own, and every one when nothing changed
 * since, stay. */
static void nested_git(const cordon_evaluator *ev)
{
	char *err = NULL, *report = NULL;
	static const char *const dirs[] = { "ws/.git", "ws/sub", "ws/sub/.git", "ws/plain",
					    "ws/plain/.git" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++)
		mkdir(at(dirs[i]), 0755);
	write_file(at("ws/.git/config"), "[core]\n\tfsmonitor = ./top.sh\n");
	write_file(at("ws/sub/.git/config"), "[Core]\n\tFSMonitor = \"echo x\"\n");
	write_file(at("ws/plain/.git/config"), "[user]\n\tname = x\n[core]\n\tfsmonitor = false\n");
	cordon_lowering *l = cordon_lowering_new(ev, NULL, 0, &err);
	if (!l) {
		ok(0, "a lowering builds (%s)", err ? err : "");
		return;
	}
	struct timespec later = { time(NULL) + 3600, 0 }, epoch = { 0, 0 };
	ok(cordon_lowering_disarm_nested_git(l, &later, &report) == 0 && !report,
	   "nothing changed since: no nested repository is disarmed");
	ok(cordon_lowering_disarm_nested_git(l, &epoch, &report) != 0 && report &&
		   strstr(report, "sub (core.fsmonitor): its .git is now") && !strstr(report, "plain"),
	   "changed since: the one whose config names a program is disarmed and named");
	struct stat st;
	ok(stat(at("ws/sub/.git.cordon-disarmed/config"), &st) == 0 &&
		   stat(at("ws/sub/.git"), &st) != 0 && stat(at("ws/plain/.git/config"), &st) == 0 &&
		   stat(at("ws/.git/config"), &st) == 0,
	   "its .git is renamed; the one naming none and the workspace's own stay");
	free(report);
	report = NULL;
	mkdir(at("ws/sub/.git"), 0755);
	write_file(at("ws/sub/.git/config"), "[alias]\n\tx = !sh x.sh\n");
	ok(cordon_lowering_disarm_nested_git(l, &epoch, &report) != 0 && report &&
		   stat(at("ws/sub/.git.cordon-disarmed-1"), &st) == 0,
	   "a second one there is moved beside the first");
	free(report);
	cordon_lowering_free(l);
}

/* After a call: a Mercurial repository whose hgrc sets a hook, or whose
 * hgrc-not-shared includes another file, has its .hg moved aside; one
 * that names only [paths] (a value continued on an indented line) and
 * ui.username stays. */
static void nested_hg(const cordon_evaluator *ev)
{
	char *err = NULL, *report = NULL;
	static const char *const dirs[] = { "ws/h1", "ws/h1/.hg", "ws/h2", "ws/h2/.hg", "ws/h3",
					    "ws/h3/.hg" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++)
		mkdir(at(dirs[i]), 0755);
	write_file(at("ws/h1/.hg/hgrc"), "# made by the call\n[hooks]\npre-commit.x = sh x.sh\n");
	write_file(at("ws/h2/.hg/hgrc"),
		   "[paths]\ndefault = https://example.com/r\n  more\n; a comment\n[ui]\nusername = A\n");
	write_file(at("ws/h3/.hg/hgrc-not-shared"), "%include ../x.rc\n");
	cordon_lowering *l = cordon_lowering_new(ev, NULL, 0, &err);
	if (!l) {
		ok(0, "a lowering builds (%s)", err ? err : "");
		return;
	}
	struct timespec epoch = { 0, 0 };
	struct stat st;
	ok(cordon_lowering_disarm_nested_git(l, &epoch, &report) != 0 && report &&
		   strstr(report, "h1 (hooks.pre-commit.x): its .hg is now") &&
		   strstr(report, "h3 (%include): its .hg is now") && !strstr(report, "h2"),
	   "changed since: the .hg whose hgrc sets a hook, and the one that includes a file, are "
	   "named");
	ok(stat(at("ws/h1/.hg.cordon-disarmed/hgrc"), &st) == 0 && stat(at("ws/h1/.hg"), &st) != 0 &&
		   stat(at("ws/h3/.hg.cordon-disarmed"), &st) == 0 &&
		   stat(at("ws/h2/.hg/hgrc"), &st) == 0,
	   "their .hg is renamed; the one with only [paths] and ui.username stays");
	free(report);
	cordon_lowering_free(l);
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

int main(void)
{
	char tmpl[] = "/tmp/cordon-door-XXXXXX", real[PATH_MAX], *err = NULL;
	if (!mkdtemp(tmpl) || !realpath(tmpl, real) || strlen(real) >= sizeof(root))
		return 99;
	strcpy(root, real);
	mkdir(at("ws"), 0755);
	mkdir(at("tmp"), 0755);
	mkdir(at("home"), 0755);
	mkdir(at("home/out"), 0755);
	cordon_policy *pol =
		cordon_policy_load_string("door.cordon", NULL, policy_text, strlen(policy_text));
	ok(cordon_policy_error_count(pol) == 0, "the policy loads");
	cordon_context *ctx = cordon_context_new();
	cordon_context_set(ctx, "workspace", at("ws"), &err);
	cordon_context_set(ctx, "cwd", at("ws"), &err);
	cordon_context_set(ctx, "home", at("home"), &err);
	cordon_context_set(ctx, "tmp", at("tmp"), &err);
	cordon_evaluator *ev = cordon_evaluator_new(pol, "p", ctx, &err);
	ok(ev != NULL, "the evaluator builds (%s)", err ? err : "");
	if (!ev) {
		cordon_policy_print_diagnostics(pol, stdout);
		return tap_done();
	}
	is_str(cordon_evaluator_preset(ev), "p", "the evaluator names its preset");
	ok(cordon_evaluator_sandboxed(ev), "and says it runs sandboxed");

	setenv("CORDON_DOOR_KEPT", "before", 1);
	cordon_lowering *l = cordon_lowering_new(ev, NULL, 0, &err);
	ok(l != NULL, "a lowering builds (%s)", err ? err : "");
	if (!l)
		return tap_done();
	cordon_lowering_read_host(l);
	setenv("CORDON_DOOR_KEPT", "after", 1);

	is_str(cordon_lowering_cwd(l), at("ws"), "it starts in the context's cwd");
	is_str(cordon_lowering_tmp(l), at("tmp"), "its temp dir is the context's");
	char *mask = cordon_lowering_mask_file(l) ? strdup(cordon_lowering_mask_file(l)) : NULL;
	ok(mask && strncmp(mask, at("tmp"), strlen(at("tmp"))) == 0 &&
		   strcmp(mask + strlen(at("tmp")), ".mask") == 0,
	   "file masks are bound from ${tmp}.mask (%s)", mask ? mask : "none");
	free(mask);

	char **env = cordon_lowering_environ(l);
	ok(has_string(env, "CORDON_DOOR_KEPT=before"),
	   "the environment keeps the variable as the host was read, not as it is now");
	ok(has_string(env, "CORDON_DOOR_SET=s"), "and holds what the policy sets");
	for (char **e = env; e && *e; e++)
		free(*e);
	free(env);

	/* cordon_plan_build reads the host now: the same host for both. */
	struct cordon_plan mine = { 0 }, built = { 0 };
	setenv("CORDON_DOOR_KEPT", "before", 1);
	ok(cordon_lowering_plan(l, &mine, &err) == 0 && cordon_plan_build(ev, &built, &err) == 0,
	   "the lowering's plan and cordon_plan_build's both build (%s)", err ? err : "");
	ok(plans_same(&mine, &built), "they are the same plan, operation for operation (%zu)",
	   mine.n);
	cordon_plan_free(&mine);
	cordon_plan_free(&built);

	ok(has_root(l, at("ws")) && has_root(l, "/dev") && !has_root(l, at("home/out")),
	   "Landlock is given the write roots and /dev, not what asks");
	unsigned flags = cordon_lowering_landlock_flags(l);
	ok((flags & CORDON_LANDLOCK_DENY_TCP) && !(flags & CORDON_LANDLOCK_EGRESS),
	   "TCP is handled and no host is allowed: no egress");
	ok(cordon_lowering_shows(l, at("ws")), "the workspace is there to see in the sandbox");
	size_t len = 0;
	char *bpf = cordon_lowering_seccomp_bpf(l, &len, &err);
	ok(bpf && len > 0 && len % 8 == 0, "the seccomp filter is a BPF program (%zu bytes)", len);
	free(bpf);

	const struct cordon_limit *procs = cordon_lowering_limit_find(l, CORDON_LIMIT_PROCESSES);
	const struct cordon_limit *mem = cordon_lowering_limit_find(l, CORDON_LIMIT_MEMORY);
	ok(procs && procs->value == 64 && !procs->best_effort && procs->origin &&
		   strstr(procs->origin, "door.cordon:10:"),
	   "the processes limit, with its rule");
	ok(mem && mem->value == 1ULL << 30 && mem->best_effort, "the memory limit, best effort");
	ok(!cordon_lowering_limit_find(l, CORDON_LIMIT_OPEN_FILES), "an unset limit is not listed");
	ok(cordon_lowering_limit(l, 0) == procs && cordon_lowering_limit(l, 1) == mem &&
		   !cordon_lowering_limit(l, 2),
	   "the limits are listed in the order of their kinds");
	cordon_lowering *only = cordon_lowering_limits_new(ev);
	const struct cordon_limit *p2 = cordon_lowering_limit_find(only, CORDON_LIMIT_PROCESSES);
	ok(p2 && p2->value == 64 && cordon_lowering_limit(only, 1) && !cordon_lowering_limit(only, 2),
	   "a lowering of the limits alone holds the same limits");
	cordon_lowering_free(only);
	cordon_lowering_free(l);

	/* What an approval grants is writable for the call. */
	struct cordon_path_grant g = { at("home/out"), true, "approval test" };
	l = cordon_lowering_new(ev, &g, 1, &err);
	ok(l != NULL, "a lowering with a grant builds (%s)", err ? err : "");
	if (l) {
		cordon_lowering_read_host(l);
		ok(has_root(l, at("home/out")), "the granted tree is a Landlock write root");
		FILE *f = fopen(at("home/out/f"), "w");
		if (f)
			fclose(f);
		ok(cordon_lowering_check_links(l, &err) == 0,
		   "--check-links passes a granted file of one name (%s)", err ? err : "");
		free(err);
		err = NULL;
		/* Another name of it where the sandbox may not write. */
		ok(link(at("home/out/f"), at("elsewhere")) == 0, "a hard link outside is made");
		ok(cordon_lowering_check_links(l, &err) != 0 && err && strstr(err, at("home/out/f")),
		   "--check-links refuses it, naming the file");
		free(err);
		err = NULL;
		unlink(at("elsewhere"));
		unlink(at("home/out/f"));
		cordon_lowering_free(l);
	}

	nested_git(ev);
	nested_hg(ev);

	cordon_evaluator *net_ev = cordon_evaluator_new(pol, "net", ctx, &err);
	ok(net_ev != NULL, "the evaluator of a preset that allows a host builds");
	if (net_ev)
		approval_egress(ev, net_ev);
	cordon_evaluator_free(net_ev);

	cordon_evaluator_free(ev);
	cordon_context_free(ctx);
	cordon_policy_free(pol);
	/* What the nested repositories' checks left goes too. */
	nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	return tap_done();
}
