/* Unit tests of the library's building blocks. */
#include "config.h"

#include "base/diag.h"
#include "ir/ir.h"
#include "base/source.h"
#include "base/strmap.h"
#include "base/util.h"
#include "lang/literal.h"
#include "cordon.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

static void test_edit_distance(void)
{
	ok(edit_distance("workspace", "workspce") == 1, "one deletion");
	ok(edit_distance("", "abc") == 3, "from empty");
	ok(edit_distance("allow", "allow") == 0, "identical");
	static const char *const effects[] = { "allow", "ask", "deny" };
	is_str(closest_word("alow", effects, 3), "allow", "closest to alow");
	is_str(closest_word("frobnicate", effects, 3), NULL, "nothing close");
}

static void test_path_under(void)
{
	ok(path_under("/a/b", "/a"), "/a/b is under /a");
	ok(path_under("/a", "/a"), "a directory is under itself");
	ok(!path_under("/ab", "/a"), "/ab is not under /a: a whole component");
	ok(!path_under("/a", "/a/b"), "a parent is not under its child");
	ok(path_under("/etc/passwd", "/"), "the root holds every path");
	ok(path_under("/", "/"), "the root is under itself");
	ok(path_under("/x", ""), "the empty directory is the root");
	ok(!path_under("/dev", "/dev/null"), "a path is not under a longer one");

	struct strbuf sb;
	const char *p = "//a/./bc//", *seg;
	size_t n;
	sb_init(&sb);
	while ((seg = path_next_component(&p, &n)))
		sb_addf(&sb, "[%.*s]", (int)n, seg);
	is_str(sb.buf, "[a][.][bc]", "the components of //a/./bc// (got %s)", sb.buf);
	sb_free(&sb);
	sb_init(&sb);
	sb_adds(&sb, "/a/b");
	path_pop_component(&sb);
	is_str(sb.buf, "/a", "/a/b less its last component");
	path_pop_component(&sb);
	path_pop_component(&sb);
	is_str(sb.buf, "/", "the root has none to drop");
	sb_free(&sb);
}

/* A string token as the lexer hands it over: the text between the quotes,
 * at offset 10 of file 0 (the opening quote). */
static struct ast *token(struct arena *a, enum ast_kind kind, const char *text)
{
	struct loc at = { 0, 10, 10 + (uint32_t)strlen(text) + 2 };
	return ast_token(a, kind, at, text, strlen(text));
}

static bool keep_var(void *arg, struct strbuf *out, const char *name, size_t len, struct loc at)
{
	(void)arg;
	(void)at;
	sb_addf(out, "<%.*s>", (int)len, name);
	return true;
}

static void test_literals(void)
{
	struct arena a;
	struct diag_list d;
	arena_init(&a);
	diag_init(&d);
	char *t = lit_string(&d, token(&a, AST_STRING, "a\\\"b\\n\\t\\\\\\$"), NULL, NULL);
	is_str(t, "a\"b\n\t\\$", "the five escapes of a string");
	free(t);
	t = lit_string(&d, token(&a, AST_STRING, "${x}/\\${y}"), keep_var, NULL);
	is_str(t, "<x>/${y}", "${name} goes to the variable callback, \\$ does not");
	free(t);
	t = lit_string(&d, token(&a, AST_STRING, "${x}"), NULL, NULL);
	is_str(t, "${x}", "without variables, $ is literal");
	free(t);
	ok(d.n == 0, "no diagnostic so far");
	t = lit_string(&d, token(&a, AST_STRING, "x\\qy"), NULL, NULL);
	ok(t == NULL && d.nerrors == 1 && d.items[0].loc.start == 12 && d.items[0].loc.end == 14,
	   "an unknown escape is an error at its two bytes");
	t = lit_string(&d, token(&a, AST_STRING, "x\001"), NULL, NULL);
	ok(t == NULL && d.nerrors == 2, "a control character is an error");
	t = lit_string(NULL, token(&a, AST_STRING, "\\q"), NULL, NULL);
	ok(t == NULL && d.nerrors == 2, "without a list, nothing is reported");
	size_t map[16];
	t = lit_regex(token(&a, AST_REGEX, "^\\/a\\d\\\\"), map);
	is_str(t, "^/a\\d\\\\", "a regex: \\/ is a slash, PCRE2's escapes stay");
	ok(map[1] == 1 && map[2] == 3 && map[4] == 5 && map[5] == 6 && map[7] == 8,
	   "each byte of the pattern maps to its place in the token");
	free(t);
	diag_free(&d);
	arena_free(&a);
}

/* Each enum's name table goes both ways. */
static void test_names(void)
{
	bool both = true;
	for (int i = 0; i < CORDON_OP_COUNT; i++)
		both = both && cordon_op_from_name(cordon_op_name((enum cordon_op)i)) == i;
	ok(both, "every operation's name is read back as that operation");
	both = true;
	for (int i = 0; i < CORDON_EFFECT_COUNT; i++)
		both = both && cordon_effect_from_name(cordon_effect_name((enum cordon_effect)i)) == i;
	ok(both, "every effect's name is read back as that effect");
	is_str(cordon_op_name(CORDON_OP_COUNT), "?", "a value past the table has no name");
	is_str(ir_approval_names[IR_APPROVAL_NEVER], "never", "approval never");
	is_str(ir_sandbox_names[IR_SANDBOX_NONE], "none", "sandbox none");
	size_t n = 0;
	while (cordon_context_name(n))
		n++;
	ok(n == CTX_COUNT && strcmp(cordon_context_name(CTX_HOME), "home") == 0,
	   "the public list of context variables is the IR's (%zu names)", n);
}

static void test_line_map(void)
{
	struct srcmgr sm;
	unsigned line, col;
	size_t start, len;
	srcmgr_init(&sm);
	uint32_t f = srcmgr_add(&sm, "t", NULL, xstrdup("ab\ncd\r\n\nxyz"), 11, NULL);
	srcmgr_linecol(&sm, f, 0, &line, &col);
	ok(line == 1 && col == 1, "offset 0 is 1:1");
	srcmgr_linecol(&sm, f, 4, &line, &col);
	ok(line == 2 && col == 2, "offset 4 is 2:2 (got %u:%u)", line, col);
	srcmgr_linecol(&sm, f, 9, &line, &col);
	ok(line == 4 && col == 2, "offset 9 is 4:2 (got %u:%u)", line, col);
	srcmgr_line(&sm, f, 2, &start, &len);
	ok(start == 3 && len == 2, "line 2 without its CR");
	srcmgr_free(&sm);
}

static void test_subst(void)
{
	struct ir_context ctx = { { 0 } };
	char text[] = "\x01workspace\x02/src";
	ctx.value[CTX_WORKSPACE] = "/ws/";
	char *s = ir_text_resolve(text, &ctx, true);
	is_str(s, "/ws/src", "substituted and normalised");
	free(s);
	s = ir_text_resolve(text, NULL, true);
	struct strbuf sb;
	sb_init(&sb);
	ir_text_print(&sb, s);
	is_str(sb.buf, "${workspace}/src", "unset stays symbolic");
	sb_free(&sb);
	free(s);
	int missing = -1;
	ok(ir_text_subst(text, NULL, true, &missing) == NULL && missing == CTX_WORKSPACE,
	   "require_all names the missing variable");
}

static void test_specificity(void)
{
	struct ir_pattern a = { IR_PAT_LITERAL, (char *)"/home/u/.ssh", NULL };
	struct ir_pattern b = { IR_PAT_GLOB, (char *)"/**", NULL };
	struct ir_pattern c = { IR_PAT_GLOB, (char *)"/home/*/x", NULL };
	struct ir_specificity sa = ir_pattern_specificity(IR_READ, &a), sb = ir_pattern_specificity(IR_READ, &b),
			      sc = ir_pattern_specificity(IR_READ, &c);
	ok(sa.literal == 12 && sa.wildcards == 0, "literal path");
	ok(sb.literal == 1 && sb.wildcards == 2, "/** has two wildcards");
	ok(sc.literal == 6 && sc.wildcards == 1, "prefix stops at the first wildcard");
	struct ir_pattern h = { IR_PAT_GLOB, (char *)"*.example.com", NULL };
	struct ir_pattern any = { IR_PAT_GLOB, (char *)"*", NULL };
	ok(ir_pattern_specificity(IR_NET, &h).literal > ir_pattern_specificity(IR_NET, &any).literal,
	   "a host suffix is more specific than *");
	ok(edit_distance("wirte", "write") == 1, "a swap counts once");
}

static void test_api(void)
{
	static const char text[] = "cordon 1;\npreset \"p\" { read \"/\" allow; }\ndefault \"p\";\n";
	cordon_policy *p = cordon_policy_load_string("mem.cordon", NULL, text, sizeof(text) - 1);
	char *err = NULL;
	ok(cordon_policy_error_count(p) == 0, "string policy loads");
	is_str(cordon_policy_default_preset(p), "p", "default preset");
	ok(cordon_policy_preset_count(p) == 1, "one preset");
	char *dump = cordon_policy_dump(p, "nope", NULL, CORDON_DUMP_IR, 0, &err);
	ok(dump == NULL && err != NULL, "unknown preset refused: %s", err ? err : "");
	free(err);
	cordon_policy_free(p);

	p = cordon_policy_load_embedded();
	ok(cordon_policy_error_count(p) == 0, "embedded default policy is valid");
	ok(cordon_policy_has_preset(p, "workspace-write"), "embedded policy has workspace-write");
	cordon_policy_free(p);

	cordon_context *ctx = cordon_context_new();
	ok(cordon_context_set(ctx, "workspace", "relative", &err) == -1, "relative workspace refused");
	free(err);
	ok(cordon_context_set(ctx, "wrkspace", "/x", &err) == -1 && strstr(err, "workspace"),
	   "unknown name gets a hint");
	free(err);
	ok(cordon_context_set(ctx, "user", "alice", &err) == 0, "user is not a path");
	is_str(cordon_context_get(ctx, "user"), "alice", "value kept");
	cordon_context_free(ctx);
}

/* In a child: descriptors 40 and 90 open, close_fds_from(50) (with
 * close_range refused as on an old kernel when fallback is set); exit 0 when
 * exactly 90 is gone. */
static int close_fds_in_child(int fallback)
{
	fflush(stdout); /* the child's copy of the buffer is never written */
	pid_t pid = fork();
	if (pid == 0) {
		if (dup2(1, 40) != 40 || dup2(1, 90) != 90)
			_exit(3);
		if (fallback) {
			scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
			if (!ctx ||
			    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
					     seccomp_syscall_resolve_name("close_range"), 0) != 0 ||
			    seccomp_load(ctx) != 0)
				_exit(4);
			seccomp_release(ctx);
		}
		if (close_fds_from(50) != 0)
			_exit(5);
		_exit(fcntl(40, F_GETFD) >= 0 && fcntl(90, F_GETFD) < 0 && errno == EBADF ? 0 : 6);
	}
	int status = -1;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void test_close_fds(void)
{
	int st = close_fds_in_child(0);
	ok(st == 0, "close_fds_from closes the descriptors from its bound up, not below (%d)", st);
	st = close_fds_in_child(1);
	ok(st == 0, "and does without close_range, through /proc/self/fd (%d)", st);
}

/* The effect and deciding rule's line of an exec request, as "deny@4". */
static const char *exec_decision(const cordon_evaluator *ev, const char *shell,
				 const char *const *argv, size_t argc, char *buf, size_t size)
{
	struct cordon_request req = { .op = CORDON_EXEC, .target = shell, .argv = argv,
				      .argc = argc };
	char *err = NULL;
	cordon_decision *d = cordon_evaluate(ev, &req, &err);
	if (!d) {
		snprintf(buf, size, "error: %s", err);
		free(err);
		return buf;
	}
	const char *rule = cordon_decision_rule(d), *colon = rule ? strchr(rule, ':') : NULL;
	snprintf(buf, size, "%s@%.*s %s", cordon_effect_name(cordon_decision_effect(d)),
		 colon ? (int)strcspn(colon + 1, ":") : 1, colon ? colon + 1 : "-",
		 cordon_decision_analysed(d));
	cordon_decision_free(d);
	return buf;
}

static void test_argv_requests(void)
{
	static const char text[] =
		"cordon 1;\n"
		"preset \"p\" { approval ask; sandbox none; exec \"*\" allow;\n"
		"  exec \"git status\" ask; exec \"git status\" /^git status( --short)?$/ allow; }\n"
		"exec \"git push\" /(^|\\s)(--force|-f)(\\s|$)/ deny \"force\";\n"
		"exec \"git rebase\" /(^|\\s)--exec(=|\\s|$)/ deny \"exec\";\n"
		"default \"p\";\n";
	cordon_policy *p = cordon_policy_load_string("argv.cordon", NULL, text, sizeof(text) - 1);
	char *err = NULL, buf[256];
	cordon_evaluator *ev = cordon_evaluator_new(p, "p", NULL, &err);
	ok(ev != NULL, "the argv test policy compiles (%s)", err ? err : "");
	free(err);
	err = NULL;
	if (!ev) {
		cordon_policy_free(p);
		return;
	}
#define ARGV(...) (const char *const[]){ __VA_ARGS__ }, ARRAY_SIZE(((const char *const[]){ __VA_ARGS__ }))
	const struct {
		const char *const *argv;
		size_t argc;
		const char *want;
	} cases[] = {
		{ ARGV("git", "push", "-f"), "deny@4 argv" },
		{ ARGV("git", "push", "origin", "--force"), "deny@4 argv" },
		{ ARGV("git", "push", "origin", "main"), "allow@2 argv" },
		/* one word that only looks like two: git gets no --force */
		{ ARGV("git", "push", "HEAD:main --force"), "allow@2 argv" },
		/* wrappers are looked through, sh -c is shell */
		{ ARGV("env", "A='", "sh", "-c", "git push --force x #'"), "deny@4 argv" },
		{ ARGV("env", "A=1", "git", "push", "-f"), "deny@4 argv" },
		{ ARGV("sudo", "-u", "bob", "timeout", "5", "nice", "git", "push", "-f"), "deny@4 argv" },
		{ ARGV("bash", "-c", "git push \"--force\""), "deny@4 argv" },
		{ ARGV("xargs", "git", "push", "-f"), "deny@4 argv" },
		/* a flag whose value has spaces still starts the word */
		{ ARGV("git", "rebase", "--exec=rm -rf /", "HEAD~3"), "deny@5 argv" },
		/* an allow regex cannot be met by a space inside a word */
		{ ARGV("git", "status", "--short"), "allow@3 argv" },
		/* not the word status: neither git status rule applies */
		{ ARGV("git", "status --short"), "allow@2 argv" },
		{ ARGV("git", "status", " --short"), "ask@3 argv" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf shown;
		sb_init(&shown);
		for (size_t k = 0; k < cases[i].argc; k++)
			sb_addf(&shown, "%s[%s]", k ? " " : "", cases[i].argv[k]);
		is_str(exec_decision(ev, NULL, cases[i].argv, cases[i].argc, buf, sizeof(buf)),
		       cases[i].want, "argv %s", shown.buf);
		sb_free(&shown);
	}
	/* The same commands as shell strings: quoting hides nothing either. */
	static const struct {
		const char *shell, *want;
	} shells[] = {
		{ "git push \"--force\"", "deny@4 shell" },
		{ "git push '-f' origin", "deny@4 shell" },
		{ "g\"\"it pu\\sh $'--force'", "deny@4 shell" },
		{ "git push -\\f", "deny@4 shell" },
		{ "env A=1 sh -c 'git push --force x'", "deny@4 shell" },
		{ "git rebase \"--exec=rm -rf /\" HEAD~3", "deny@5 shell" },
		/* the string as written is judged too, and it does not match */
		{ "git status \"--short\"", "ask@3 shell" },
		{ "git status ' --short'", "ask@3 shell" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(shells); i++)
		is_str(exec_decision(ev, shells[i].shell, NULL, 0, buf, sizeof(buf)), shells[i].want,
		       "shell %s", shells[i].shell);

	is_str(exec_decision(ev, NULL, (const char *const[]){ "x" }, 0, buf, sizeof(buf)), "deny@- argv",
	       "an empty argv is denied");
	ok(strncmp(exec_decision(ev, "ls", ARGV("ls"), buf, sizeof(buf)), "error: ", 7) == 0,
	   "a target and an argv at once are refused: %s", buf);
	struct cordon_request rd = { .op = CORDON_READ, .argv = ARGV("/etc/hosts") };
	cordon_decision *d = cordon_evaluate(ev, &rd, &err);
	ok(!d && err && strstr(err, "only an exec request"), "an argv on a read is refused: %s",
	   err ? err : "");
	free(err);
	cordon_decision_free(d);
	err = NULL;
	const char *holey[] = { "ls", NULL };
	struct cordon_request hr = { .op = CORDON_EXEC, .argv = holey, .argc = 2 };
	d = cordon_evaluate(ev, &hr, &err);
	ok(!d && err && strstr(err, "argv[1]"), "a NULL word is refused: %s", err ? err : "");
	free(err);
	cordon_decision_free(d);
	err = NULL;

	struct cordon_request jr = { .op = CORDON_EXEC, .argv = ARGV("printf", "%s\n", "x y") };
	d = cordon_evaluate(ev, &jr, &err);
	char *json = d ? cordon_decision_json(d) : NULL;
	ok(json && strstr(json, "\"analysed\":\"argv\"") &&
		   strstr(json, "\"target\":\"printf %s$'\\\\n' x$'\\\\x20y'\""),
	   "the decision says it analysed the argv, and the line it judged: %s", json ? json : "");
	free(json);
	cordon_decision_free(d);
	struct cordon_request tr = { .op = CORDON_TOOL, .target = "t" };
	d = cordon_evaluate(ev, &tr, &err);
	ok(d && !cordon_decision_analysed(d), "a request other than exec analyses no command");
	cordon_decision_free(d);
#undef ARGV
	cordon_evaluator_free(ev);
	cordon_policy_free(p);
}

/* Targets as a host means them, through the C API: "~", "~user", relative
 * to cwd; refused with an error when they hold a NUL or are not UTF-8. */
static void test_targets(void)
{
	cordon_policy *p = cordon_policy_load_embedded();
	cordon_context *ctx = cordon_context_new();
	cordon_evaluator *ev;
	cordon_decision *d;
	char *err = NULL;
	const char *target;
	struct cordon_request req = { .op = CORDON_READ };
	static const char *const vars[][2] = {
		{ "workspace", "/nonexistent-cordon/ws" }, { "cwd", "/nonexistent-cordon/ws/src" },
		{ "home", "/nonexistent-cordon/home" },    { "agent_dir", "/nonexistent-cordon/a" },
		{ "session_dir", "/nonexistent-cordon/a/s" },
	};
	for (size_t i = 0; i < sizeof(vars) / sizeof(*vars); i++)
		cordon_context_set(ctx, vars[i][0], vars[i][1], &err);
	ev = cordon_evaluator_new(p, "read-only", ctx, &err);
	ok(ev != NULL, "an evaluator for the target cases");

	req.target = "~/.ssh/id_rsa";
	d = cordon_evaluate(ev, &req, &err);
	cordon_decision_operation(d, 0, NULL, &target, NULL, NULL, NULL);
	is_str(target, "/nonexistent-cordon/home/.ssh/id_rsa", "'~/' is the home context variable");
	ok(cordon_decision_effect(d) == CORDON_DENY, "  ... and ~/.ssh is denied");
	cordon_decision_free(d);

	req.target = "~root";
	d = cordon_evaluate(ev, &req, &err);
	cordon_decision_operation(d, 0, NULL, &target, NULL, NULL, NULL);
	struct passwd *pw = getpwnam("root");
	is_str(target, pw ? pw->pw_dir : "/root", "'~root' is root's home directory");
	cordon_decision_free(d);

	req.target = "~no-such-user-cordon/x";
	d = cordon_evaluate(ev, &req, &err);
	ok(cordon_decision_effect(d) == CORDON_DENY &&
		   strstr(cordon_decision_reason(d), "no such user"),
	   "'~user' for an unknown user denies: %s", cordon_decision_reason(d));
	cordon_decision_free(d);

	req.target = "../main.c";
	d = cordon_evaluate(ev, &req, &err);
	cordon_decision_operation(d, 0, NULL, &target, NULL, NULL, NULL);
	is_str(target, "/nonexistent-cordon/ws/main.c", "a relative target is under the cwd");
	cordon_decision_free(d);

	req.target = "/etc/hosts\0/x";
	req.target_len = 13;
	d = cordon_evaluate(ev, &req, &err);
	ok(!d && err && strstr(err, "NUL byte (at offset 10)"), "a NUL in the target is refused: %s",
	   err ? err : "(decided)");
	cordon_decision_free(d);
	free(err);
	err = NULL;

	req.target = "/tmp/\xc3(";
	req.target_len = 0;
	d = cordon_evaluate(ev, &req, &err);
	ok(!d && err && strstr(err, "not valid UTF-8"), "a path that is not UTF-8 is refused: %s",
	   err ? err : "(decided)");
	cordon_decision_free(d);
	free(err);
	err = NULL;

	req.op = CORDON_NET;
	req.target = "\xff" "example.com";
	d = cordon_evaluate(ev, &req, &err);
	ok(!d && err, "a host that is not UTF-8 is refused too");
	cordon_decision_free(d);
	free(err);
	err = NULL;

	ok(cordon_context_set(ctx, "cwd", "/tmp/\xff", &err) == -1 && strstr(err, "UTF-8"),
	   "a context value that is not UTF-8 is refused");
	free(err);
	err = NULL;

	/* A path marked canonical is taken only as a canonical path is
	 * spelled: every other spelling is refused with the same reason. */
	static const struct {
		const char *path;
		bool spelled;
	} spellings[] = {
		{ "/", true },        { "/a", true },     { "/.a", true },     { "/..a", true },
		{ "/a/b.", true },    { "/a/...", true }, { "//", false },     { "/a/", false },
		{ "/a//b", false },   { "/a/./b", false }, { "/a/../b", false }, { "/a/.", false },
		{ "/a/..", false },   { "/.", false },    { "/..", false },    { "a", false },
		{ "./a", false },     { "", false },
	};
	size_t right = 0;
	for (size_t i = 0; i < sizeof(spellings) / sizeof(*spellings); i++) {
		struct cordon_request c = { .op = CORDON_READ, .target = spellings[i].path,
					    .target_len = strlen(spellings[i].path), .canonical = true };
		d = cordon_evaluate(ev, &c, &err);
		const char *why = d ? cordon_decision_reason(d) : "";
		bool refused = d && strcmp(why, "the path is marked canonical but is not spelled "
						 "as one") == 0;
		right += d && refused != spellings[i].spelled;
		cordon_decision_free(d);
	}
	ok(right == sizeof(spellings) / sizeof(*spellings),
	   "a canonical-marked path is refused exactly when it is not spelled as one");

	/* Without a home, '~' cannot be placed: deny, never a guess. */
	cordon_evaluator_free(ev);
	cordon_context_free(ctx);
	cordon_policy_free(p);
	static const char text[] = "cordon 1;\npreset \"p\" { read \"/**\" allow; }\n";
	p = cordon_policy_load_string("mem.cordon", NULL, text, sizeof(text) - 1);
	ctx = cordon_context_new();
	cordon_context_set(ctx, "cwd", "/nonexistent-cordon", &err);
	ev = cordon_evaluator_new(p, "p", ctx, &err);
	req.op = CORDON_READ;
	req.target = "~/.ssh/id_rsa";
	d = ev ? cordon_evaluate(ev, &req, &err) : NULL;
	ok(d && cordon_decision_effect(d) == CORDON_DENY &&
		   strstr(cordon_decision_reason(d), "home context variable"),
	   "'~' without a home denies: %s", d ? cordon_decision_reason(d) : err);
	cordon_decision_free(d);
	free(err);
	cordon_evaluator_free(ev);
	cordon_context_free(ctx);
	cordon_policy_free(p);
}

/* A path glob's literal tail is checked before its regex runs: that check
 * must turn away only what the regex would, for tails after '*', '?', a
 * class, a class holding the wildcard '*', and one holding ']'. */
static void test_glob_tails(void)
{
	static const char text[] =
		"cordon 1;\npreset \"p\" {\n  read \"/**\" ask;\n"
		"  read \"/g/**/*.pem\", \"/g/a?.key\", \"/g/[xy]z.txt\", \"/g/q[*].md\",\n"
		"    \"/g/[]x]y\", \"/g/**/.env\", \"/g/**/tail\" deny;\n}\n";
	static const struct {
		const char *path;
		bool denied;
	} cases[] = {
		{ "/g/a.pem", true },     { "/g/d/e/k.pem", true }, { "/g/a.pemx", false },
		{ "/g/a.pe", false },     { "/g/ab.key", true },    { "/g/abc.key", false },
		{ "/g/xz.txt", true },    { "/g/zz.txt", false },   { "/g/q*.md", true },
		{ "/g/qa.md", false },    { "/g/]y", true },        { "/g/xy", true },
		{ "/g/zy", false },       { "/g/.env", true },      { "/g/d/.env", true },
		{ "/g/d.env", false },    { "/g/tail", true },      { "/g/a/tail", true },
		{ "/g/atail", false },    { "/g/tail/x", false },   { "/h/a.pem", false },
	};
	cordon_policy *p = cordon_policy_load_string("tails", NULL, text, sizeof(text) - 1);
	char *err = NULL;
	cordon_evaluator *ev = cordon_policy_error_count(p) ? NULL
							    : cordon_evaluator_new(p, "p", NULL, &err);
	ok(ev != NULL, "an evaluator for the glob tails: %s", err ? err : "built");
	size_t right = 0, n = sizeof(cases) / sizeof(*cases);
	for (size_t i = 0; ev && i < n; i++) {
		struct cordon_request req = { .op = CORDON_READ, .target = cases[i].path,
					      .canonical = true };
		cordon_decision *d = cordon_evaluate(ev, &req, &err);
		bool denied = d && cordon_decision_effect(d) == CORDON_DENY;
		if (d && denied == cases[i].denied)
			right++;
		else
			printf("# %s: %s\n", cases[i].path, d ? cordon_decision_reason(d) : err);
		cordon_decision_free(d);
	}
	ok(right == n, "globs with a literal tail match what their regexes match (%zu of %zu)",
	   right, n);
	free(err);
	cordon_evaluator_free(ev);
	cordon_policy_free(p);
}

/* Arenas: alloc0 zeroes even a reused chunk that carries another arena's
 * bytes; a freed arena's small chunk serves the next arena of the thread;
 * allocations stay aligned and intact across chunks. */
static void test_arena(void)
{
	struct arena a, b;
	arena_init(&a);
	unsigned char *p = arena_alloc(&a, 1000);
	memset(p, 0xaa, 1000);
	uintptr_t first = (uintptr_t)p;
	arena_free(&a);
	arena_init(&b);
	unsigned char *q = arena_alloc0(&b, 1000);
	ok((uintptr_t)q == first, "a freed arena's chunk serves the next arena");
	size_t nonzero = 0;
	for (size_t i = 0; i < 1000; i++)
		nonzero += q[i] != 0;
	ok(nonzero == 0, "arena_alloc0 zeroes a reused chunk");
	arena_free(&b);

	arena_init(&a);
	char *strs[400];
	bool aligned = true;
	for (int i = 0; i < 400; i++) {
		char buf[32];
		snprintf(buf, sizeof(buf), "word-%d", i);
		strs[i] = arena_strdup(&a, buf);
		aligned &= (uintptr_t)strs[i] % _Alignof(max_align_t) == 0;
	}
	char *big = arena_alloc0(&a, 100 * 1000);
	bool intact = big[0] == 0 && big[100 * 1000 - 1] == 0;
	for (int i = 0; i < 400; i++) {
		char buf[32];
		snprintf(buf, sizeof(buf), "word-%d", i);
		intact &= strcmp(strs[i], buf) == 0;
	}
	ok(aligned, "arena allocations are aligned for any type");
	ok(intact, "strings stay intact across chunks and a large allocation");
	arena_free(&a);
}

/* A lookup of prefixes in one pass finds what a lookup of each finds:
 * every length, across the 8-byte steps of the hash, in maps of one key
 * and of many. */
static void test_strmap_prefix(void)
{
	static const char path[] = "/nonexistent-cordon-bench/ws/projects/p0003/src/generated/x.c";
	size_t len = sizeof(path) - 1;
	struct strmap m;
	strmap_init(&m);
	for (size_t i = 1; i <= len; i += 3)
		strmap_add(&m, path, i, (uint32_t)i);
	size_t agree = 0, hits = 0;
	struct strmap_prefix pre;
	strmap_prefix_init(&pre);
	for (size_t i = 1; i <= len; i++) {
		const struct strmap_entry *e = strmap_get_prefix(&m, &pre, path, i);
		agree += e == strmap_get(&m, path, i);
		hits += e && e->nitems == 1 && e->items[0] == i;
	}
	ok(agree == len, "strmap_get_prefix finds what strmap_get finds, every prefix");
	ok(hits == (len + 2) / 3, "strmap_get_prefix finds every key that is a prefix, none else");
	strmap_free(&m);
	struct strmap empty;
	strmap_init(&empty);
	strmap_prefix_init(&pre);
	ok(strmap_get_prefix(&empty, &pre, path, 9) == NULL &&
		   strmap_get_prefix(&empty, &pre, path, len) == NULL,
	   "strmap_get_prefix on an empty map finds nothing");
}

/* The first byte that is not UTF-8 text, wherever it falls against the
 * eight-byte steps over ASCII: every offset up to 40, each sequence valid
 * or not, with ASCII after it and at the very end. */
static void test_utf8_invalid(void)
{
	static const struct {
		const char *bytes;
		bool valid;
	} seqs[] = {
		{ "\xc3\xa9", true },	       { "\xe2\x82\xac", true },    { "\xf0\x9d\x84\x9e", true },
		{ "\x80", false },	       { "\xc0\x80", false },	    { "\xed\xa0\x80", false },
		{ "\xf4\x90\x80\x80", false }, { "\xe2\x82", false },	    { "\xff", false },
		{ "\xe0\x80\xaf", false },     { "\xc3\x41", false },
	};
	size_t wrong = 0, cases = 0;
	char buf[64];
	for (size_t si = 0; si < sizeof(seqs) / sizeof(*seqs); si++) {
		size_t n = strlen(seqs[si].bytes);
		for (size_t k = 0; k <= 40; k++) {
			for (size_t tail = 0; tail <= 9; tail += 9) {
				memset(buf, 'a', k);
				memcpy(buf + k, seqs[si].bytes, n);
				memset(buf + k + n, 'b', tail);
				size_t len = k + n + tail;
				size_t want = seqs[si].valid ? len : k;
				wrong += utf8_invalid_at((const unsigned char *)buf, len) != want;
				cases++;
			}
		}
	}
	ok(wrong == 0, "utf8_invalid_at finds the first bad byte at every offset (%zu cases)", cases);
	memset(buf, 'x', 63);
	ok(utf8_invalid_at((const unsigned char *)buf, 63) == 63 &&
		   utf8_invalid_at((const unsigned char *)buf, 0) == 0,
	   "utf8_invalid_at passes all-ASCII text of any length");
}

int main(void)
{
	test_edit_distance();
	test_path_under();
	test_literals();
	test_names();
	test_line_map();
	test_subst();
	test_specificity();
	test_api();
	test_close_fds();
	test_argv_requests();
	test_targets();
	test_arena();
	test_strmap_prefix();
	test_glob_tails();
	test_utf8_invalid();
	return tap_done();
}
