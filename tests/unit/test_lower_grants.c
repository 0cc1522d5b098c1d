/* The plan of an approved call (lower_input_build_granted): each approved
 * file or tree is a write root in the bwrap plan and in the Landlock
 * ruleset alike, the ask it answers is not taken back, the protections and
 * denies inside a tree are, and nothing else changes. */
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

static bool has_path(const struct lower_input *in, const char *path, enum lower_why why)
{
	for (size_t i = 0; i < in->npaths; i++)
		if (in->paths[i].why == why && strcmp(in->paths[i].path, path) == 0)
			return true;
	return false;
}

static bool landlock_has(const struct lower_input *in, const char *path)
{
	size_t n = 0;
	const char **roots = lower_landlock_roots(in, &n);
	bool found = false;
	for (size_t i = 0; i < n; i++)
		found = found || strcmp(roots[i], path) == 0;
	free(roots);
	return found;
}

/* Does the NUL-separated bwrap argument list hold "--bind P P"? */
static bool binds(const struct lower_input *in, const char *path)
{
	size_t len = 0;
	char *err = NULL, *args = lower_bwrap_args(in, &len, &err);
	bool found = false;
	for (size_t i = 0; args && i < len; i += strlen(args + i) + 1) {
		const char *a = args + i, *b = a + strlen(a) + 1, *c;
		if (strcmp(a, "--bind") != 0 || b >= args + len)
			continue;
		c = b + strlen(b) + 1;
		found = found || (c < args + len && strcmp(b, path) == 0 && strcmp(c, path) == 0);
	}
	free(args);
	free(err);
	return found;
}

static const char policy_fmt[] =
	"cordon 1;\n"
	"protect \"%s/tree/keep\";\n"
	"preset \"p\" {\n"
	"  sandbox required;\n"
	"  read  \"/**\" allow;\n"
	"  write \"${workspace}\" allow;\n"
	"  write \"${tmp}\" allow;\n"
	"  write \"/**\" ask;\n"
	"  write \"%s/out/f\" ask;\n"
	"  write \"%s/tree/no\" deny;\n"
	"  exec  \"*\" allow;\n"
	"}\n";

int main(void)
{
	char tmpl[] = "/tmp/cordon-grants-XXXXXX", real[PATH_MAX], *err = NULL, policy[2048];
	if (!mkdtemp(tmpl) || !realpath(tmpl, real) || strlen(real) >= sizeof(root))
		return 99;
	strcpy(root, real);
	const char *dirs[] = { "ws", "tmp", "out", "tree", "tree/keep", "tree/no" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++)
		mkdir(at(dirs[i]), 0755);
	FILE *f = fopen(at("out/f"), "w");
	if (f)
		fclose(f);
	f = fopen(at("out/g"), "w");
	if (f)
		fclose(f);
	snprintf(policy, sizeof(policy), policy_fmt, root, root, root);
	cordon_policy *pol = cordon_policy_load_string("grants.cordon", NULL, policy, strlen(policy));
	cordon_context *ctx = cordon_context_new();
	cordon_context_set(ctx, "workspace", at("ws"), &err);
	cordon_context_set(ctx, "cwd", at("ws"), &err);
	cordon_context_set(ctx, "home", at("ws"), &err);
	cordon_context_set(ctx, "tmp", at("tmp"), &err);
	cordon_evaluator *ev = cordon_evaluator_new(pol, "p", ctx, &err);
	ok(ev != NULL, "the policy compiles (%s)", err ? err : "");
	if (!ev)
		return tap_done();

	struct lower_input in;
	ok(lower_input_build(ev, &in, &err) == 0, "the plan without grants builds");
	lower_host_read(&in);
	ok(!has_path(&in, at("out/f"), LOWER_WRITE_ROOT) && !binds(&in, at("out/f")) &&
		   !landlock_has(&in, at("out/f")),
	   "without an approval, out/f is writable in neither bwrap nor Landlock");
	ok(!binds(&in, at("tree")) && !landlock_has(&in, at("tree")), "nor is tree");
	lower_input_free(&in);

	char f_path[512], tree_path[512];
	snprintf(f_path, sizeof(f_path), "%s", at("out/f"));
	snprintf(tree_path, sizeof(tree_path), "%s", at("tree"));
	struct cordon_path_grant grants[] = {
		{ f_path, false, "approval test" },
		{ tree_path, true, "approval test" },
	};
	ok(lower_input_build_granted(ev, grants, 2, &in, &err) == 0, "the plan with grants builds");
	lower_host_read(&in);
	ok(has_path(&in, f_path, LOWER_WRITE_ROOT) && binds(&in, f_path) && landlock_has(&in, f_path),
	   "an approved file is writable in the bwrap plan and the Landlock ruleset");
	ok(!has_path(&in, f_path, LOWER_READ_ONLY),
	   "the ask rule on exactly that file is the one the approval answered: not bound back");
	ok(has_path(&in, tree_path, LOWER_WRITE_ROOT) && binds(&in, tree_path) &&
		   landlock_has(&in, tree_path),
	   "an approved tree is writable in both");
	ok(has_path(&in, at("tree/keep"), LOWER_READ_ONLY),
	   "a protection inside the tree is bound read-only again");
	ok(has_path(&in, at("tree/no"), LOWER_READ_ONLY),
	   "a deny inside the tree is bound read-only again");
	ok(!binds(&in, at("out/g")) && !landlock_has(&in, at("out/g")) &&
		   !landlock_has(&in, at("out")),
	   "the approved file's sibling and directory stay read-only");
	lower_input_free(&in);

	cordon_evaluator_free(ev);
	cordon_context_free(ctx);
	cordon_policy_free(pol);
	free(err);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		return 99;
	return tap_done();
}
