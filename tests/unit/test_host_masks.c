/* The expansion of glob read denies at launch (host_masks.c) on a real
 * tree: where it looks, what it masks (exceptions, directories, symlinks),
 * what the plan then binds, and each bound stopping it with a message. */
#include "config.h"

#include "lower/lower.h"
#include "tap.h"

#include <limits.h>
#include <stdarg.h>
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

static void put(const char *rel)
{
	FILE *f = fopen(at(rel), "w");
	if (f) {
		fputs("secret\n", f);
		fclose(f);
	}
}

/* ROOT: the tree's directory, above the workspace. */
static const char policy_fmt[] =
	"cordon 1;\n"
	"preset \"p\" {\n"
	"  sandbox required;\n"
	"  read  \"/**\" allow;\n"
	"  read  \"${workspace}/**/*.pem\" deny;\n"
	"  read  \"${workspace}/**/public.pem\" allow;\n"
	"  read  \"${workspace}/**/secrets\" deny;\n"
	"  read  \"%s/**/*.key\" deny;\n"
	"  read  \"/**/*.crt\" deny;\n"
	"  write \"${workspace}\" allow;\n"
	"  write \"${tmp}\" allow;\n"
	"  exec  \"*\" allow;\n"
	"}\n";

static bool masked(const struct lower_input *in, const char *path)
{
	for (size_t i = 0; i < in->npaths; i++)
		if (in->paths[i].why == LOWER_MASK && in->paths[i].expanded &&
		    strcmp(in->paths[i].path, path) == 0)
			return true;
	return false;
}

static size_t nexpanded(const struct lower_input *in)
{
	size_t n = 0;
	for (size_t i = 0; i < in->npaths; i++)
		n += in->paths[i].expanded;
	return n;
}

static const struct lower_advisory *advisory(const struct lower_input *in, const char *suffix)
{
	for (size_t i = 0; i < in->nadvisories; i++) {
		size_t n = strlen(in->advisories[i].pattern), m = strlen(suffix);
		if (n >= m && strcmp(in->advisories[i].pattern + n - m, suffix) == 0)
			return &in->advisories[i];
	}
	return NULL;
}

/* Does the NUL-separated plan hold these words in a row? */
static bool plan_has(const char *plan, size_t len, const char *a, const char *b, const char *c)
{
	for (size_t i = 0; i < len; i += strlen(plan + i) + 1) {
		const char *w1 = plan + i, *w2 = w1 + strlen(w1) + 1;
		if (strcmp(w1, a) != 0 || w2 >= plan + len || strcmp(w2, b) != 0)
			continue;
		if (!c)
			return true;
		const char *w3 = w2 + strlen(w2) + 1;
		if (w3 < plan + len && strcmp(w3, c) == 0)
			return true;
	}
	return false;
}

static int expand_with(cordon_evaluator *ev, struct lower_mask_bounds b, char **err)
{
	struct lower_input in;
	if (lower_input_build(ev, &in, err) != 0)
		return -2;
	int rc = lower_expand_masks(&in, &b, err);
	lower_input_free(&in);
	return rc;
}

int main(void)
{
	char tmpl[] = "/tmp/cordon-masks-XXXXXX", real[PATH_MAX], *err = NULL;
	if (!mkdtemp(tmpl) || !realpath(tmpl, real) || strlen(real) >= sizeof(root))
		return 99;
	strcpy(root, real);
	const char *dirs[] = { "ws", "ws/a", "ws/a/b", "ws/secrets", "ws/d1", "ws/d1/d2", "tmp",
			       "home", "outside" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++)
		mkdir(at(dirs[i]), 0755);
	put("ws/server.pem");
	put("ws/a/b/key.pem");
	put("ws/a/public.pem");
	put("ws/secrets/token");
	put("ws/d1/d2/deep.key");
	put("ws/main.c");
	put("outside/x.pem");
	put("outside/x.key");
	if (symlink(at("outside/x.pem"), at("ws/link.pem")) != 0)
		return 99;

	char policy[2048];
	snprintf(policy, sizeof(policy), policy_fmt, root);
	cordon_policy *pol = cordon_policy_load_string("masks.cordon", NULL, policy, strlen(policy));
	cordon_context *ctx = cordon_context_new();
	cordon_context_set(ctx, "workspace", at("ws"), &err);
	cordon_context_set(ctx, "cwd", at("ws"), &err);
	cordon_context_set(ctx, "home", at("home"), &err);
	cordon_context_set(ctx, "tmp", at("tmp"), &err);
	cordon_evaluator *ev = cordon_evaluator_new(pol, "p", ctx, &err);
	ok(ev != NULL, "the policy compiles (%s)", err ? err : "");
	if (!ev)
		return tap_done();

	struct lower_input in;
	ok(lower_input_build(ev, &in, &err) == 0, "the lowering input builds");
	is_str(in.mask_file, at("tmp.mask"), "file masks are bound from ${tmp}.mask");

	size_t n = 0;
	bool complete = false;
	char **roots = lower_mask_roots(&in, advisory(&in, "/**/*.pem\""), &n, &complete);
	ok(n == 1 && complete && strcmp(roots[0], at("ws")) == 0,
	   "a glob below ${workspace} is looked up in the workspace alone, and whole");
	for (size_t i = 0; i < n; i++)
		free(roots[i]);
	free(roots);
	roots = lower_mask_roots(&in, advisory(&in, "\"/**/*.crt\""), &n, &complete);
	ok(n == 2 && !complete, "a glob of the whole tree is looked up in the write roots only (%zu)",
	   n);
	for (size_t i = 0; i < n; i++)
		free(roots[i]);
	free(roots);
	roots = lower_mask_roots(&in, advisory(&in, "/**/*.key\""), &n, &complete);
	ok(n == 1 && complete && strcmp(roots[0], root) == 0,
	   "a glob below a directory above the roots is looked up in that directory");
	for (size_t i = 0; i < n; i++)
		free(roots[i]);
	free(roots);

	lower_host_read(&in);
	ok(lower_expand_masks(&in, &lower_mask_default_bounds, &err) == 0, "the expansion runs (%s)",
	   err ? err : "");
	ok(masked(&in, at("ws/server.pem")) && masked(&in, at("ws/a/b/key.pem")),
	   "each file a glob deny matches is masked, at any depth");
	ok(masked(&in, at("ws/secrets")), "a matching directory is masked whole");
	ok(!masked(&in, at("ws/secrets/token")), "and nothing below it on its own");
	ok(!masked(&in, at("ws/a/public.pem")), "an allowed exception is not masked");
	ok(!masked(&in, at("ws/link.pem")), "a symlink is not masked: its target is judged");
	ok(masked(&in, at("ws/d1/d2/deep.key")) && masked(&in, at("outside/x.key")),
	   "a glob below a directory above the roots is enforced all through it");
	ok(!masked(&in, at("outside/x.pem")), "what no rule denies is not masked");
	ok(nexpanded(&in) == 5, "five masks in all (%zu)", nexpanded(&in));

	size_t len = 0;
	char *plan = lower_bwrap_args(&in, &len, &err);
	ok(plan && plan_has(plan, len, "--ro-bind", at("tmp.mask"), at("ws/server.pem")),
	   "the plan binds the mask file over a matched file");
	ok(plan && plan_has(plan, len, "--tmpfs", at("ws/secrets"), NULL) &&
		   plan_has(plan, len, "--remount-ro", at("ws/secrets"), NULL),
	   "and an empty read-only tmpfs over a matched directory");
	ok(plan && !memmem(plan, len, "/dev/null", 10), "and never /dev/null");
	free(plan);
	lower_input_free(&in);

	struct lower_mask_bounds b = lower_mask_default_bounds;
	b.depth = 1;
	free(err);
	err = NULL;
	ok(expand_with(ev, b, &err) == -1 && err && strstr(err, "deeper than 1 levels") &&
		   strstr(err, "masks.cordon:"),
	   "past the depth bound it stops, naming the rule (%s)", err ? err : "");
	free(err);
	err = NULL;
	b = lower_mask_default_bounds;
	b.entries = 3;
	ok(expand_with(ev, b, &err) == -1 && err && strstr(err, "more than 3 directory entries"),
	   "past the entry bound it stops (%s)", err ? err : "");
	free(err);
	err = NULL;
	b = lower_mask_default_bounds;
	b.masks = 1;
	ok(expand_with(ev, b, &err) == -1 && err && strstr(err, "more than 1 paths match"),
	   "past the match bound it stops (%s)", err ? err : "");
	free(err);
	err = NULL;
	/* The clock is read every 1024 entries: give it more than that. */
	mkdir(at("ws/many"), 0755);
	for (int i = 0; i < 1100; i++) {
		char name[32];
		snprintf(name, sizeof(name), "ws/many/f%d", i);
		put(name);
	}
	b = lower_mask_default_bounds;
	b.seconds = 0;
	ok(expand_with(ev, b, &err) == -1 && err && strstr(err, "more than 0 s"),
	   "past the time bound it stops (%s)", err ? err : "");
	free(err);

	cordon_evaluator_free(ev);
	cordon_context_free(ctx);
	cordon_policy_free(pol);
	char *cmd = NULL;
	if (asprintf(&cmd, "rm -rf '%s'", root) > 0)
		(void)!system(cmd);
	free(cmd);
	return tap_done();
}
