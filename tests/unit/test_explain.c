/* One way through a decision: every operation of an exec request is one
 * record, and `cordon explain` prints nothing internal.
 *
 * The corpus of tests/shell-decide (every NAME.cases) is explained under
 * the presets read-only and workspace-write of rules/default.cordon, for a
 * host that runs the command itself and under cordon's sandbox: no output
 * holds a byte below 0x20 but a newline (a region's probe child, the byte
 * that starts a variable in the IR, was printed raw).  Then single
 * requests whose command line and analysis were two records. */
#include "config.h"

#include "cordon.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static const char *const context[][2] = {
	{ "workspace", "/srv/ws" }, { "cwd", "/srv/ws" },	 { "home", "/home/u" },
	{ "tmp", "/tmp/cordon-t" }, { "user", "u" },		 { "agent_dir", "/srv/ws/.agent" },
	{ "session_dir", "/srv/ws/.agent/s1" },
};

static cordon_evaluator *evaluator(const cordon_policy *p, const char *preset)
{
	cordon_context *ctx = cordon_context_new();
	char *err = NULL;
	cordon_evaluator *ev = NULL;
	for (size_t i = 0; i < sizeof(context) / sizeof(context[0]) && !err; i++)
		cordon_context_set(ctx, context[i][0], context[i][1], &err);
	if (!err)
		ev = cordon_evaluator_new(p, preset, ctx, &err);
	if (!ev)
		printf("# %s: %s\n", preset, err);
	free(err);
	cordon_context_free(ctx);
	return ev;
}

/* The offset of the first byte below 0x20 but a newline, or -1. */
static long control_byte(const char *s)
{
	for (const char *c = s; *c; c++)
		if ((unsigned char)*c < 0x20 && *c != '\n')
			return c - s;
	return -1;
}

/* The command of a case line, or NULL for a comment: the text after the
 * expected effects (tests/shell-decide.sh says the syntax). */
static const char *case_command(char *line)
{
	char *p = line + strspn(line, " \t");
	if (!*p || *p == '#')
		return NULL;
	if (strncmp(p, "todo", 4) == 0) {
		char *close = strchr(strchr(p, '"') + 1, '"');
		p = close + 1 + strspn(close + 1, " \t");
	}
	for (int words = 0; words < 2; words++) {
		p += strcspn(p, " \t");
		p += strspn(p, " \t");
	}
	if (*p == '|') {
		for (int words = 0; words < 3; words++) {
			p += strcspn(p, " \t");
			p += strspn(p, " \t");
		}
	}
	return p;
}

static void corpus(cordon_evaluator *const ev[2], const char *const names[2], const char *dir)
{
	static const char *const files[] = { "adversarial", "deletes", "everyday", "git",
					     "judgment", "net", "packages", "wrappers" };
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char *path = NULL, line[8192];
		if (asprintf(&path, "%s/%s.cases", dir, files[f]) < 0)
			abort();
		FILE *in = fopen(path, "r");
		size_t cases = 0, bad = 0;
		ok(in != NULL, "%s opens", path);
		while (in && fgets(line, sizeof(line), in)) {
			line[strcspn(line, "\n")] = '\0';
			const char *cmd = case_command(line);
			if (!cmd)
				continue;
			cases++;
			for (int k = 0; k < 4; k++) {
				struct cordon_request req = { .op = CORDON_EXEC, .target = cmd,
							      .sandboxed = k >= 2 };
				char *err = NULL, *text = cordon_explain(ev[k % 2], &req, &err);
				long at = text ? control_byte(text) : -1;
				if (!text || at >= 0) {
					if (bad++ < 3)
						printf("# %s%s: %s: %s\n", names[k % 2],
						       k >= 2 ? ", sandboxed" : "", cmd,
						       text ? "a control byte" : err);
				}
				free(text);
				free(err);
			}
		}
		if (in)
			fclose(in);
		ok(cases > 0 && bad == 0,
		   "%s.cases: %zu commands explained four ways, %zu with a control byte or no text",
		   files[f], cases, bad);
		free(path);
	}
}

/* The records of an exec request: how many name the command itself, and
 * the one that does. */
static size_t records_of(const cordon_decision *d, const char *cmd, size_t *first)
{
	size_t n = 0;
	for (size_t i = 0; i < cordon_decision_operation_count(d); i++) {
		enum cordon_op op;
		const char *target;
		cordon_decision_operation(d, i, &op, &target, NULL, NULL, NULL);
		if (op == CORDON_EXEC && strcmp(target, cmd) == 0 && n++ == 0)
			*first = i;
	}
	return n;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* cmd decides want under ev, in one record of the command whose detail
 * starts with detail; explain judges it once. */
static void one_record(const cordon_evaluator *ev, const char *label, const char *cmd,
		       bool sandboxed, enum cordon_effect want, const char *detail)
{
	struct cordon_request req = { .op = CORDON_EXEC, .target = cmd, .sandboxed = sandboxed };
	char *err = NULL;
	cordon_decision *d = cordon_evaluate(ev, &req, &err);
	size_t at = 0, n = d ? records_of(d, cmd, &at) : 0;
	const char *got = n ? cordon_decision_operation_detail(d, at) : NULL;
	enum cordon_effect effect = CORDON_DENY;
	if (n)
		cordon_decision_operation(d, at, NULL, NULL, &effect, NULL, NULL);
	ok(n == 1, "%s: `%s` is one exec record (%zu)", label, cmd, n);
	ok(n && effect == want && got && strncmp(got, detail, strlen(detail)) == 0,
	   "%s: the record is %s, with the analysis' detail (%s, '%s')", label,
	   cordon_effect_name(want), n ? cordon_effect_name(effect) : "-", got ? got : "");
	ok(d && cordon_decision_effect(d) == want, "%s: the decision is %s", label,
	   cordon_effect_name(want));
	cordon_decision_free(d);
	free(err);
}

int main(void)
{
	const char *srcdir = getenv("srcdir");
	char *policy_path = NULL, *cases_dir = NULL;
	if (asprintf(&policy_path, "%s/rules/default.cordon", srcdir ? srcdir : ".") < 0 ||
	    asprintf(&cases_dir, "%s/tests/shell-decide", srcdir ? srcdir : ".") < 0)
		abort();
	cordon_policy *p = cordon_policy_load_file(policy_path);
	ok(p && cordon_policy_error_count(p) == 0, "%s loads", policy_path);
	const char *const names[2] = { "read-only", "workspace-write" };
	cordon_evaluator *ev[2] = { evaluator(p, names[0]), evaluator(p, names[1]) };
	ok(ev[0] && ev[1], "both presets build");
	if (!ev[0] || !ev[1])
		return tap_done();

	corpus(ev, names, cases_dir);

	/* A glob is a word known only at run time: the command line and its
	 * analysis were two identical records, and explain listed the
	 * candidates twice and printed the probe byte of the region. */
	one_record(ev[1], "glob", "rm -rf src/*.o", false, CORDON_ALLOW, "runs (spec \"rm\")");
	struct cordon_request glob = { .op = CORDON_EXEC, .target = "rm -rf src/*.o" };
	char *err = NULL, *text = cordon_explain(ev[1], &glob, &err);
	ok(text && count(text, "  exec rm -rf src/*.o\n") == 1 && count(text, "candidates:") == 2,
	   "glob: explain judges the command once, and the region's child once");
	ok(text && strstr(text, "  write /srv/ws/src/<child>\n") &&
		   strstr(text, "shown as /srv/ws/src/<child>\n") && control_byte(text) < 0,
	   "glob: the region's ordinary child is shown as <child>");
	free(text);
	free(err);

	/* Stricter than the line as a whole: the stricter record is kept. */
	one_record(ev[0], "opaque", "bash script.sh", false, CORDON_ASK, "opaque");
	one_record(ev[0], "opaque, sandboxed", "bash script.sh", true, CORDON_ALLOW, "opaque");
	one_record(ev[0], "unparsed", "echo \"unterminated", false, CORDON_ASK, "unparsed");
	/* A part of the line made stricter: one record, not its plain verdict
	 * followed by the stricter one. */
	{
		struct cordon_request req = { .op = CORDON_EXEC, .target = "ls && bash script.sh" };
		cordon_decision *d = cordon_evaluate(ev[0], &req, &err);
		size_t at = 0;
		ok(d && records_of(d, "bash script.sh", &at) == 1,
		   "part: `bash script.sh` in a longer line is one record");
		cordon_decision_free(d);
		free(err);
	}

	/* A protection that holds a region's child names the region as the
	 * record shows it, not the probe path. */
	{
		struct cordon_request req = { .op = CORDON_EXEC, .target = "cd .agent && rm -rf *" };
		cordon_decision *d = cordon_evaluate(ev[1], &req, &err);
		const char *reason = d ? cordon_decision_reason(d) : NULL;
		ok(d && cordon_decision_effect(d) == CORDON_DENY && reason &&
			   control_byte(reason) < 0 && strstr(reason, "(in /srv/ws/.agent)"),
		   "protected region: the reason names the region ('%s')", reason ? reason : "");
		cordon_decision_free(d);
		free(err);
	}

	cordon_evaluator_free(ev[0]);
	cordon_evaluator_free(ev[1]);
	cordon_policy_free(p);
	free(policy_path);
	free(cases_dir);
	return tap_done();
}
