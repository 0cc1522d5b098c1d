/* The typed plan (cordon/plan.h) and the host snapshot it is made from:
 * every operation has a kind, bwrap's arguments are a rendering of the
 * kinds, and the plan depends on the host only through what
 * lower_host_read read: a file or a variable that changes afterwards
 * changes nothing, and a plan without the read is refused. */
#include "config.h"

#include "lower/lower.h"
#include "tap.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static const struct cordon_plan_op *find(const struct cordon_plan *pl, enum cordon_plan_kind kind,
					 const char *path)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->ops[i].kind == kind && pl->ops[i].path && strcmp(pl->ops[i].path, path) == 0)
			return &pl->ops[i];
	return NULL;
}

/* Does the NUL-separated argument list hold these arguments in a row? */
static bool args_hold(const char *args, size_t len, const char *const *want, size_t n)
{
	for (size_t i = 0; i < len; i += strlen(args + i) + 1) {
		size_t k = 0, j = i;
		while (k < n && j < len && strcmp(args + j, want[k]) == 0) {
			j += strlen(args + j) + 1;
			k++;
		}
		if (k == n)
			return true;
	}
	return false;
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");
	if (f)
		fclose(f);
}

static const char policy_text[] = "cordon 1;\n"
				  "env { keep PATH, CORDON_PLAN_KEPT; }\n"
				  "preset \"p\" {\n"
				  "  sandbox required;\n"
				  "  read  \"/**\" allow;\n"
				  "  write \"${workspace}\" allow;\n"
				  "  write \"${tmp}\" allow;\n"
				  "  read  \"${workspace}/secret\" deny;\n"
				  "  exec  \"*\" allow;\n"
				  "}\n";

int main(void)
{
	char tmpl[] = "/tmp/cordon-plan-XXXXXX", real[PATH_MAX], *err = NULL;
	if (!mkdtemp(tmpl) || !realpath(tmpl, real) || strlen(real) >= sizeof(root))
		return 99;
	strcpy(root, real);
	mkdir(at("ws"), 0755);
	mkdir(at("tmp"), 0755);
	touch(at("ws/secret"));
	cordon_policy *pol =
		cordon_policy_load_string("plan.cordon", NULL, policy_text, strlen(policy_text));
	cordon_context *ctx = cordon_context_new();
	cordon_context_set(ctx, "workspace", at("ws"), &err);
	cordon_context_set(ctx, "cwd", at("ws"), &err);
	cordon_context_set(ctx, "home", at("ws"), &err);
	cordon_context_set(ctx, "tmp", at("tmp"), &err);
	cordon_evaluator *ev = cordon_evaluator_new(pol, "p", ctx, &err);
	ok(ev != NULL, "the evaluator builds (%s)", err ? err : "");
	if (!ev)
		return tap_done();

	struct lower_input in;
	struct cordon_plan pl;
	ok(lower_input_build(ev, &in, &err) == 0, "the lowering input builds");
	ok(lower_bwrap_plan(&in, &pl, &err) != 0 && err && strstr(err, "host facts"),
	   "without the host read there is no plan: %s", err ? err : "(no message)");
	free(err);
	err = NULL;

	setenv("CORDON_PLAN_KEPT", "before", 1);
	lower_host_read(&in);
	/* The host changes after the read: the plan must not see it. */
	setenv("CORDON_PLAN_KEPT", "after", 1);
	unlink(at("ws/secret"));
	mkdir(at("ws/secret"), 0755);
	mkdir(at("ws/late"), 0755);

	ok(lower_bwrap_plan(&in, &pl, &err) == 0, "the plan builds from the snapshot (%s)",
	   err ? err : "");
	const struct cordon_plan_op *mask = find(&pl, CORDON_PLAN_MASK_FILE, at("ws/secret"));
	ok(mask && mask->source && strcmp(mask->source, in.mask_file) == 0 && mask->origin &&
		   strstr(mask->origin, "plan.cordon:8:"),
	   "the read deny is a file mask, as the file was when the host was read, with its rule");
	ok(!find(&pl, CORDON_PLAN_MASK_DIR, at("ws/secret")),
	   "the directory made there afterwards is not seen");
	const struct cordon_plan_op *kept = find(&pl, CORDON_PLAN_SETENV, "CORDON_PLAN_KEPT");
	is_str(kept ? kept->source : NULL, "before",
	       "a kept variable has the value the host read saw");
	const struct cordon_plan_op *bind = find(&pl, CORDON_PLAN_BIND, at("ws"));
	ok(bind && bind->source && strcmp(bind->source, at("ws")) == 0,
	   "the workspace is a writable bind of itself");
	size_t clear = pl.n;
	for (size_t i = 0; i < pl.n && clear == pl.n; i++)
		if (pl.ops[i].kind == CORDON_PLAN_CLEARENV)
			clear = i;
	ok(pl.n && pl.ops[0].kind == CORDON_PLAN_UNSHARE_USER && kept && clear < (size_t)(kept - pl.ops),
	   "the plan starts with the user namespace, and clears the environment before it sets any");

	/* bwrap's arguments are a rendering of the kinds. */
	size_t len = 0;
	char *args = cordon_plan_bwrap_args(&pl, &len);
	const char *mask_args[] = { "--ro-bind", in.mask_file, at("ws/secret") };
	const char *bind_args[] = { "--bind", at("ws"), at("ws") };
	const char *env_args[] = { "--setenv", "CORDON_PLAN_KEPT", "before" };
	ok(args_hold(args, len, mask_args, 3), "a file mask is --ro-bind EMPTY PATH");
	ok(args_hold(args, len, bind_args, 3), "a bind is --bind SOURCE PATH");
	ok(args_hold(args, len, env_args, 3), "a variable is --setenv NAME VALUE");
	char *direct = lower_bwrap_args(&in, &len, &err);
	ok(direct && memcmp(direct, args, len) == 0, "the runner's arguments are the plan's");
	free(direct);
	free(args);

	/* The JSON of an operation, and the comparison the diff makes. */
	char *json = mask ? cordon_plan_op_json(mask, false, true) : NULL;
	ok(json && strncmp(json, "{\"args\":[\"--ro-bind\",", 21) == 0 && !strstr(json, "origin"),
	   "an operation as JSON, without its origin: %s", json ? json : "(none)");
	free(json);
	struct cordon_plan_op moved = *bind;
	moved.origin = (char *)"elsewhere.cordon:1:1";
	ok(cordon_plan_op_same(bind, &moved), "the same operation from another rule is the same");
	moved.kind = CORDON_PLAN_RO_BIND;
	ok(!cordon_plan_op_same(bind, &moved), "a read-only bind is not a bind");
	ok(cordon_plan_kind_effect(CORDON_PLAN_BIND) == CORDON_PLAN_WIDENS &&
		   cordon_plan_kind_effect(CORDON_PLAN_UNSHARE_NET_EGRESS) == CORDON_PLAN_WIDENS &&
		   cordon_plan_kind_effect(CORDON_PLAN_MASK_FILE) == CORDON_PLAN_NARROWS &&
		   cordon_plan_kind_effect(CORDON_PLAN_UNSHARE_NET) == CORDON_PLAN_NARROWS,
	   "binds and a way out widen; masks and namespaces narrow");
	bool options = true;
	for (int k = 0; k < CORDON_PLAN_KIND_COUNT; k++)
		options = options && (cordon_plan_kind_option(k) != NULL) == (k != CORDON_PLAN_SKIP);
	ok(options, "every kind but a skip is a bwrap option");
	/* A mount is what hides the path below it: a bind of any sort, a
	 * tmpfs, a mask, a fresh /dev or /proc; nothing else is. */
	bool mounts = true;
	for (int k = 0; k < CORDON_PLAN_KIND_COUNT; k++) {
		const char *o = cordon_plan_kind_option(k);
		bool mount = o && (strstr(o, "bind") || strcmp(o, "--tmpfs") == 0 ||
				   strcmp(o, "--dev") == 0 || strcmp(o, "--proc") == 0);
		mounts = mounts && cordon_plan_kind_mounts(k) == mount;
	}
	ok(mounts, "binds, tmpfs, masks, /dev and /proc mount at their path; no other kind does");

	/* What cordon run gives bwrap: each host path as the descriptor it
	 * checked, with no source path for bwrap to resolve again. */
	struct cordon_plan_op *ws_bind = (struct cordon_plan_op *)bind;
	struct cordon_plan_op *file_mask = (struct cordon_plan_op *)mask;
	const struct cordon_plan_op *dev = find(&pl, CORDON_PLAN_DEV, "/dev");
	ok(ws_bind && file_mask && dev && cordon_plan_binds_host(ws_bind) && cordon_plan_binds_host(file_mask) &&
		   !cordon_plan_binds_host(dev),
	   "binds and file masks mount host paths; /dev does not");
	if (ws_bind && file_mask) {
		cordon_plan_bind_fd(ws_bind, 8);
		cordon_plan_bind_fd(file_mask, 9);
		size_t fd_len = 0;
		char *fd_args = cordon_plan_bwrap_args(&pl, &fd_len);
		const char *by_fd[] = { "--bind-fd", "8", at("ws") };
		const char *mask_fd[] = { "--ro-bind-fd", "9", at("ws/secret") };
		const char *by_path[] = { "--bind", at("ws"), at("ws") };
		ok(ws_bind->kind == CORDON_PLAN_BIND_FD && file_mask->kind == CORDON_PLAN_RO_BIND_FD &&
			   args_hold(fd_args, fd_len, by_fd, 3) && args_hold(fd_args, fd_len, mask_fd, 3) &&
			   !args_hold(fd_args, fd_len, by_path, 3) &&
			   !memmem(fd_args, fd_len, in.mask_file, strlen(in.mask_file)),
		   "bound by descriptor: --bind-fd 8 and --ro-bind-fd 9, no source path left");
		ok(cordon_plan_kind_effect(CORDON_PLAN_BIND_FD) == CORDON_PLAN_WIDENS &&
			   cordon_plan_kind_effect(CORDON_PLAN_RO_BIND_FD) == CORDON_PLAN_NARROWS,
		   "a bind by descriptor widens, a read-only one narrows");
		free(fd_args);
	}
	cordon_plan_free(&pl);

	/* Read again, the host as it is now. */
	lower_host_read(&in);
	ok(lower_bwrap_plan(&in, &pl, &err) == 0 &&
		   find(&pl, CORDON_PLAN_MASK_DIR, at("ws/secret")) &&
		   (kept = find(&pl, CORDON_PLAN_SETENV, "CORDON_PLAN_KEPT")) &&
		   strcmp(kept->source, "after") == 0,
	   "a new read sees the directory and the new value");
	cordon_plan_free(&pl);

	lower_input_free(&in);
	cordon_evaluator_free(ev);
	cordon_context_free(ctx);
	cordon_policy_free(pol);
	rmdir(at("ws/secret"));
	rmdir(at("ws/late"));
	rmdir(at("ws"));
	rmdir(at("tmp"));
	rmdir(root);
	free(err);
	return tap_done();
}
