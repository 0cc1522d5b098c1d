#include "config.h"

#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct verb verbs[] = {
	{ "check", "parse and check policy files",
	  "usage: cordon check FILE...\n"
	  "\n"
	  "Parse and check each policy file and the files it includes, and prove its\n"
	  "'assert never' statements over its presets. Every error is reported, GCC\n"
	  "style, with the source line and a caret.\n"
	  "\n"
	  "Exit status: 0 when every file is valid, 1 when a policy has errors,\n"
	  "2 on a usage or I/O error (a file that cannot be read).\n",
	  cmd_check },
	{ "lint", "find mistakes and risks in policy files",
	  "usage: cordon lint [--format text|json|sarif] [--werror] [--disable ID,...]\n"
	  "                   [--enable ID,...] [--include-shipped] [--list-checks] FILE...\n"
	  "\n"
	  "Report every error `cordon check` finds, and the warnings and notes of the\n"
	  "lint checks: rules that never decide, broad grants, credentials within\n"
	  "reach, start-up hooks in the environment, denies the sandbox cannot\n"
	  "enforce, regexes that backtrack, definitions nothing uses.  Each finding\n"
	  "has a stable id; '# cordon: ignore[ID] reason' on the line above silences it.\n"
	  "\n"
	  "  --format F           text (GCC style, the default), json (an array of\n"
	  "                       findings) or sarif (SARIF 2.1.0)\n"
	  "  --werror             exit 1 on any finding, not only on errors\n"
	  "  --disable ID,...     skip these checks ('all' for every one)\n"
	  "  --enable ID,...      run these checks again after --disable\n"
	  "  --include-shipped    also report findings in the policies shipped with\n"
	  "                       cordon that a file includes (default.cordon, ...)\n"
	  "  --list-checks        print the checks: id, level, summary\n"
	  "\n"
	  "Exit status: 0 when no finding is an error (with --werror: no finding),\n"
	  "1 otherwise, 2 on a usage or I/O error.\n",
	  cmd_lint },
	{ "fmt", "format policy files in the canonical layout",
	  "usage: cordon fmt [--check | --diff | -w] [FILE...]\n"
	  "\n"
	  "Print each policy file in the one canonical layout: two spaces a block,\n"
	  "one statement a line, rules in columns, lists longer than 80 columns one\n"
	  "element a line; comments and the blank lines between statements kept.\n"
	  "Without FILE, or with '-', read standard input.  A file that does not\n"
	  "parse is never formatted: its errors are printed as `cordon check` does.\n"
	  "\n"
	  "  --check              print nothing; name each file that is not formatted\n"
	  "  --diff               print a unified diff of what formatting would change\n"
	  "  -w, --write          rewrite files in place (atomically, mode kept); a\n"
	  "                       formatted file is left untouched\n"
	  "\n"
	  "Exit status: 0 when every file parsed (and, with --check or --diff, was\n"
	  "formatted already), 1 otherwise, 2 on a usage or I/O error.\n",
	  cmd_fmt },
	{ "compile", "show what a preset compiles to",
	  "usage: cordon compile [-p FILE] [--preset P | --all] --emit KIND\n"
	  "                      [--context k=v]... [--host linux|macos] [--no-origins]\n"
	  "\n"
	  "Print the checked intermediate representation of one preset: inheritance\n"
	  "resolved, top-level rules merged, rules in canonical order (most specific\n"
	  "first), each with the preset it came from and its origin file:line:col.\n"
	  "\n"
	  "  -p, --policy FILE    the policy (default: the installed or embedded one)\n"
	  "  --preset P           the preset (default: the policy's default preset)\n"
	  "  --all                every preset, in name order\n"
	  "  --emit KIND          ir: the human-readable dump; json: the same as JSON;\n"
	  "                       bwrap: the bubblewrap mount plan (JSON, with origins);\n"
	  "                       bwrap-args: its options, NUL-separated, for bwrap --args;\n"
	  "                       landlock, seccomp: the in-sandbox layers, for auditors;\n"
	  "                       seccomp-bpf: the filter program bwrap --seccomp loads;\n"
	  "                       sbpl: the macOS Seatbelt profile; sbpl-argv: its command;\n"
	  "                       facts: the host facts the paths were resolved with\n"
	  "  --context k=v        substitute a context variable (workspace, cwd, home,\n"
	  "                       tmp, agent_dir, session_dir, user); repeatable\n"
	  "  --host linux|macos   resolve paths as on that host (on macOS /etc, /tmp and\n"
	  "                       /var are symlinks into /private); default: this\n"
	  "                       machine, but macos for sbpl and sbpl-argv\n"
	  "  --no-origins         leave out origins, to compare two spellings\n",
	  cmd_compile },
	{ "eval", "decide requests: allow, ask or deny",
	  "usage: cordon eval [-p FILE] [--preset P] [--context k=v]... [--json] [--sandboxed]\n"
	  "                   [--escalate JUSTIFICATION] OP TARGET | exec --argv [--] WORD...\n"
	  "       cordon eval [-p FILE] [--preset P] [--context k=v]... [--sandboxed] --stdin\n"
	  "\n"
	  "Decide one request (OP is read, write, exec, net or tool) and print the\n"
	  "decision, its reason and the deciding rule; --json prints it as one JSON\n"
	  "object.  exec TARGET is a shell string; exec --argv decides the words as\n"
	  "the argv they are.  A path's ~ and ~user are home directories; a relative\n"
	  "path is under cwd.  With --stdin, read JSON requests one a line, e.g.\n"
	  "  {\"id\":1,\"op\":\"write\",\"target\":\"a.c\",\"preset\":\"...\",\"context\":{...}}\n"
	  "  {\"op\":\"exec\",\"argv\":[\"git\",\"push\"]}\n"
	  "and write one answer a line, in order, each with its request's id: the\n"
	  "decision, or {\"error\":...,\"line\":N} for a line that cannot be decided\n"
	  "(an empty line too); the stream goes on.\n"
	  "\n"
	  "  --escalate WHY       an exec that asks to run outside the sandbox\n"
	  "  --host linux|macos   decide as on that host (default: this machine)\n"
	  "  --sandboxed          the command will run under cordon run, in the preset's\n"
	  "                       sandbox: what the sandbox refuses by itself needs no\n"
	  "                       person (a stream line's \"sandboxed\" overrides it)\n"
	  "  --audit LOG          append one JSON record a decision to LOG (default:\n"
	  "                       $CORDON_AUDIT_LOG); secrets in it are redacted\n"
	  "  --actor NAME         who asks, for the audit record (default: $USER)\n"
	  "Context defaults: cwd and workspace = the current directory, home = $HOME,\n"
	  "user, agent_dir = ~/.cordon, session_dir = ~/.cordon/sessions/default.\n",
	  cmd_eval },
	{ "explain", "show how a request is decided",
	  "usage: cordon explain [-p FILE] [--preset P] [--context k=v]... [--host H]\n"
	  "                      [--sandboxed]"
	  "                      [--escalate JUSTIFICATION] OP TARGET | exec --argv [--] WORD...\n"
	  "\n"
	  "Print the trace of one decision: the canonical target, every candidate\n"
	  "rule with its specificity and whether it matched, and the winner.\n",
	  cmd_explain },
	{ "test", "run a policy's test blocks (TAP)",
	  "usage: cordon test [--coverage [--threshold N]] [--include-shipped] [--host H]\n"
	  "                   FILE...\n"
	  "\n"
	  "Run the test blocks of each policy and print TAP: one line for each\n"
	  "expectation, with its location and the actual decision on failure.\n"
	  "\n"
	  "  --coverage           after the plan, report (as TAP comments) how many\n"
	  "                       rules decided at least one expectation, per file and\n"
	  "                       in total, and list the rules none did\n"
	  "  --threshold N        exit 1 when total coverage is below N percent\n"
	  "  --include-shipped    also run the tests, and count the rules, of the\n"
	  "                       shipped policies a file includes (default.cordon, ...)\n"
	  "  --host linux|macos   decide the expectations as on that host (default: this\n"
	  "                       machine): a policy's tests hold on a Mac too\n"
	  "\n"
	  "Exit status: 0 when every expectation holds (and coverage reaches the\n"
	  "threshold), 1 otherwise, 2 on a usage or I/O error.\n",
	  cmd_test },
	{ "diff", "show what a policy change widens or narrows",
	  "usage: cordon diff [--preset P | --all] [--format text|json] [--fail-on-widen]\n"
	  "                   [--context k=v]... OLD NEW\n"
	  "\n"
	  "Compare what two versions of a policy grant.  Both are asked the same\n"
	  "requests (every path, host, command and tool their rules name, children\n"
	  "of each, and well-known places such as credentials and /etc); a request\n"
	  "whose decision changed is shown with both deciding rules.  Settings,\n"
	  "protections, the environment and the bubblewrap plan are compared too.\n"
	  "Each change is widened, narrowed or changed.\n"
	  "\n"
	  "  --preset P           one preset (default: every preset of either file)\n"
	  "  --all                every preset (the default)\n"
	  "  --format F           text (the default) or json\n"
	  "  --fail-on-widen      exit 1 when anything widened\n"
	  "  --context k=v        override the fixed context: workspace=/ws, cwd=/ws,\n"
	  "                       home=/home/u, tmp=/tmp/t, agent_dir=/home/u/.cordon,\n"
	  "                       session_dir=/home/u/.cordon/s, user=u\n"
	  "\n"
	  "Exit status: 0 when the diff was made (with --fail-on-widen: and nothing\n"
	  "widened), 1 when a policy has errors or, with --fail-on-widen, something\n"
	  "widened, 2 on a usage or I/O error.\n",
	  cmd_diff },
	{ "run", "run a command under a preset's sandbox",
	  "usage: cordon run [-p FILE] [--preset P] [--workspace DIR] [--cwd DIR]\n"
	  "                  [--context k=v]... [--timeout SECONDS] [--max-output BYTES]\n"
	  "                  [--output-file PATH] [--approval ID | --approved [--preview D]]\n"
	  "                  [--redact] [--audit LOG] [--actor NAME] [--check-links]\n"
	  "                  [--egress-hosts FILE] -- CMD [ARG...]\n"
	  "       cordon run [OPTIONS] --shell 'COMMAND'\n"
	  "\n"
	  "Decide the command (CMD ARG... as the argv it is, word for word; the\n"
	  "COMMAND of --shell as a shell string), then run it inside the preset's\n"
	  "sandbox: bwrap with the lowered mount plan, the seccomp filter, and\n"
	  "Landlock applied inside; a private temp dir (TMPDIR) made for the call\n"
	  "and removed after it; the environment cleared to the preset's allowlist.\n"
	  "Nothing falls back to an unsandboxed run.\n"
	  "\n"
	  "  --timeout S          kill the command's whole process tree after S seconds\n"
	  "  --max-output BYTES   pass at most BYTES of output through; keep all of it\n"
	  "                       in --output-file (0600), or in a file named on stderr\n"
	  "  --approval ID        consume an approval from 'cordon approve exec': the\n"
	  "                       command runs only if it is exactly what was approved\n"
	  "                       (see docs/approvals.md), and only the operations the\n"
	  "                       approval named widen, for this call\n"
	  "  --approved           the host has shown this call's preview to a person who\n"
	  "                       approved it: approve it now, bound as --approval is\n"
	  "  --preview DIGEST     with --approved: run only if this call's preview is\n"
	  "                       the one shown (cordon_decision_preview_digest)\n"
	  "  --redact             replace secrets in the output passed through with\n"
	  "                       [REDACTED:name] (the policy's redact patterns); the\n"
	  "                       output is passed on when the command ends, stdout\n"
	  "                       first; --output-file keeps the original\n"
	  "  --audit LOG          append a JSON record of the call to LOG (default:\n"
	  "                       $CORDON_AUDIT_LOG)\n"
	  "  --actor NAME         who asks, for the audit record (default: $USER)\n"
	  "  --check-links        refuse (125) when a file the sandbox may write has a\n"
	  "                       hard link that may lie outside the writable roots\n"
	  "  --egress-hosts FILE  the egress proxy resolves names from this hosts(5)\n"
	  "                       file alone, never from DNS (for tests and pinned\n"
	  "                       mirrors)\n"
	  "\n"
	  "A preset that allows some host keeps its own network namespace; HTTP,\n"
	  "CONNECT and SOCKS5 contacts go through the call's egress proxy, which\n"
	  "decides and audits each one (HTTP_PROXY and ALL_PROXY are set inside).\n"
	  "\n"
	  "Exit status: the command's; 124 on timeout; 125 when the sandbox is\n"
	  "unavailable or the runner failed (SANDBOX_UNAVAILABLE); 126 when the\n"
	  "policy denies the command or it needs approval; 2 on a usage error.\n",
	  cmd_run },
	{ "probe", "report which sandbox layers work here",
	  "usage: cordon probe [--json]\n"
	  "\n"
	  "Check each layer a restricted preset needs: bwrap (path and version),\n"
	  "user namespaces, the Landlock ABI, seccomp, and the cordon-exec helper.\n"
	  "Exit status 0 when all work, 125 otherwise.\n",
	  cmd_probe },
	{ "hook", "answer a coding agent's pre-tool-use hook",
	  "usage: cordon hook AGENT [-p FILE] [--preset P] [--context k=v]... [--no-rewrite]\n"
	  "                   [--timeout S] [--audit LOG] [--actor NAME] < EVENT\n"
	  "       cordon hook install AGENT [--scope user|project] [--dir DIR] [-p FILE]\n"
	  "                   [--preset P] [--dry-run]\n"
	  "       cordon hook uninstall AGENT [--scope user|project] [--dir DIR]\n"
	  "       cordon hook doctor AGENT [--scope user|project] [--dir DIR]\n"
	  "\n"
	  "AGENT is claude (Claude Code, PreToolUse), codex (Codex, PreToolUse and\n"
	  "PermissionRequest) or gemini (Gemini CLI, BeforeTool).  Read the agent's hook\n"
	  "event on stdin, decide the tool call with the policy, and answer in the\n"
	  "agent's protocol, with every operation and its decision as the reason.  A\n"
	  "shell command is rewritten to run under `cordon run` with the same policy\n"
	  "where the agent allows it (Claude Code, Gemini CLI); elsewhere it is decided\n"
	  "as running without cordon's sandbox.  Any failure (a bad event, an unknown\n"
	  "event, a policy that does not compile, a timeout) blocks the call: the reason\n"
	  "on stderr and exit 2.\n"
	  "\n"
	  "  --no-rewrite         decide shell commands as running without the sandbox\n"
	  "  --timeout S          block when no decision is made in S seconds (20)\n"
	  "  install              merge the hook into the agent's configuration (the\n"
	  "                       old file kept as FILE.cordon-backup-TIME)\n"
	  "  uninstall            remove cordon's entries from it\n"
	  "  doctor               check the installed hook end to end\n"
	  "  --scope S            user (~/.AGENT/...) or project (./.AGENT/...)\n",
	  cmd_hook },
	{ "write", "write a file through the policy",
	  "usage: cordon write [-p FILE] [--preset P] [--context k=v]... [--approval ID] PATH < CONTENT\n"
	  "\n"
	  "Decide a write of PATH (its canonical form: symlinks resolved), then replace\n"
	  "it with standard input safely: the directory is opened without following\n"
	  "symlinks, the content goes to a temp file beside the target and is renamed\n"
	  "over it after a recheck.  New files are 0600; a replaced file keeps its\n"
	  "permission bits.  See docs/mutation.md.\n"
	  "\n"
	  "  --approval ID        an approval from 'cordon approve write', used once\n"
	  "\n"
	  "Exit status: 0 written; 1 denied, the approval void, or the target changed\n"
	  "during the write; 3 the write needs approval; 2 on a usage or I/O error.\n",
	  cmd_write },
	{ "edit", "replace exact text in a file through the policy",
	  "usage: cordon edit [-p FILE] [--preset P] [--context k=v]... [--approval ID]\n"
	  "                   PATH --old STRING --new STRING [--all]\n"
	  "\n"
	  "Replace the bytes of --old with --new in PATH, decided and written as\n"
	  "'cordon write' does.  --old must occur exactly once, or at least once with\n"
	  "--all (every occurrence is replaced); otherwise nothing changes.\n"
	  "\n"
	  "Exit status: 0 edited; 1 denied, no or an ambiguous match, the approval void,\n"
	  "or the file changed meanwhile; 3 the edit needs approval; 2 on a usage or\n"
	  "I/O error.\n",
	  cmd_edit },
	{ "approve", "approve one write or edit, or grant a tool for the session",
	  "usage: cordon approve [-p FILE] [--preset P] [--context k=v]... [--ttl SECONDS]\n"
	  "                      write PATH < CONTENT\n"
	  "       cordon approve [OPTIONS] edit PATH --old STRING --new STRING [--all]\n"
	  "       cordon approve --session [-p FILE] [--preset P] [--context k=v]...\n"
	  "                      [--actor NAME] [--audit LOG] tool NAME\n"
	  "       cordon approve exec [-p FILE] [--preset P] [--workspace DIR] [--cwd DIR]\n"
	  "                      [--context k=v]... [--ttl SECONDS] [--actor NAME]\n"
	  "                      [--audit LOG] [--] 'COMMAND' | --argv -- CMD [ARG...]\n"
	  "\n"
	  "When the policy asks about this write, issue an approval for exactly it: the\n"
	  "canonical target, the arguments, the SHA-256 of the content, the preset and\n"
	  "the identities of the target and its directory.  The approval id is printed\n"
	  "on the last line; 'cordon write --approval ID' uses it once.  It is kept in\n"
	  "SESSION_DIR/approvals and expires after --ttl seconds (default 600).\n"
	  "\n"
	  "\n"
	  "With exec, approve one command that asks, decided as 'cordon run' decides\n"
	  "it: print the preview (every operation, its decision and rule, and what\n"
	  "approving it grants), then the approval id on the last line.  The\n"
	  "approval binds the command, the preset and its digest, the context, the\n"
	  "preview's ask operations and the SHA-256 of the files the command runs;\n"
	  "'cordon run --approval ID' consumes it.  See docs/approvals.md.\n"
	  "\n"
	  "With --session, record a grant for exactly the tool NAME in the session dir,\n"
	  "so that `tool NAME` requests of that session decide allow where the preset\n"
	  "asks.  Grants never cover read, write, exec or net, never turn a deny into\n"
	  "allow, and do nothing in presets with `approval never`.\n"
	  "\n"
	  "Exit status: 0 issued or granted, or no approval needed (the write is\n"
	  "allowed; nothing on standard output); 1 denied (a deny or a protected path\n"
	  "is never approvable, a denied tool is never granted); 2 on a usage or I/O\n"
	  "error.\n",
	  cmd_approve },
	{ "audit", "summarise an audit log",
	  "usage: cordon audit LOG [--since T] [--decision allow|ask|deny] [--format text|json]\n"
	  "\n"
	  "Count the records of an audit log (written by --audit or $CORDON_AUDIT_LOG)\n"
	  "by decision, preset and operation, name the most denied targets, and list\n"
	  "the matching records.  A line that is not a whole record (a partial last\n"
	  "line after a crash) is skipped with a warning naming the file and line.\n"
	  "\n"
	  "  --since T            records at or after T: RFC 3339 (2026-01-02T03:04:05Z)\n"
	  "                       or a duration back from now (30s, 10m, 2h, 1d)\n"
	  "  --decision D         only records that decided D\n"
	  "  --format F           text (the default) or json (one object)\n",
	  cmd_audit },
	{ "revoke", "remove session grants",
	  "usage: cordon revoke --session [--context k=v]... [--audit LOG] (tool NAME | --all)\n"
	  "\n"
	  "Remove the session's grant for the tool NAME, or every grant with --all.\n",
	  cmd_revoke },
};

static void usage(FILE *out)
{
	fputs("usage: cordon VERB [OPTIONS] [ARGS]\n"
	      "\n"
	      "Policy-as-data enforcement for coding agents.\n"
	      "\n"
	      "Verbs:\n",
	      out);
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(out, "  %-10s %s\n", verbs[i].name, verbs[i].summary);
	fputs("\n"
	      "Run 'cordon VERB --help' for a verb's options.\n"
	      "Without -p, cordon uses " SYSCONFDIR "/cordon/policy.cordon when present,\n"
	      "otherwise its embedded default policy.\n",
	      out);
}

static const struct verb *find_verb(const char *name)
{
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (strcmp(verbs[i].name, name) == 0)
			return &verbs[i];
	return NULL;
}

int cli_help(const char *name)
{
	const struct verb *v = find_verb(name);
	if (v)
		fputs(v->usage, stdout);
	return EXIT_OK;
}

int cli_usage_error(const char *verb, const char *fmt, ...)
{
	va_list ap;
	fputs("cordon: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (verb)
		fprintf(stderr, "Try 'cordon %s --help'.\n", verb);
	return EXIT_USAGE;
}

cordon_policy *cli_load_policy(const char *path, int *status)
{
	static const char system_policy[] = SYSCONFDIR "/cordon/policy.cordon";
	struct stat st;
	cordon_policy *p;

	if (path)
		p = cordon_policy_load_file(path);
	else if (stat(system_policy, &st) == 0)
		p = cordon_policy_load_file(system_policy);
	else
		p = cordon_policy_load_embedded();
	if (cordon_policy_error_count(p)) {
		cordon_policy_print_diagnostics(p, stderr);
		*status = cordon_policy_io_failed(p) ? EXIT_USAGE : EXIT_POLICY;
		cordon_policy_free(p);
		return NULL;
	}
	return p;
}

int cli_host_arg(cordon_context *ctx, const char *verb, const char *arg)
{
	char *err = NULL;
	if (cordon_context_set_host(ctx, arg, &err) != 0) {
		int rc = cli_usage_error(verb, "--host: %s", err);
		free(err);
		return rc;
	}
	return EXIT_OK;
}

int cli_context_arg(cordon_context *ctx, const char *verb, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *name, *err = NULL;
	int rc;
	if (!eq || eq == arg)
		return cli_usage_error(verb, "--context expects NAME=VALUE, not '%s'", arg);
	name = strndup(arg, (size_t)(eq - arg));
	if (!name)
		abort();
	rc = cordon_context_set(ctx, name, eq + 1, &err);
	free(name);
	if (rc != 0) {
		rc = cli_usage_error(verb, "%s", err);
		free(err);
		return rc;
	}
	return EXIT_OK;
}

static void set_default(cordon_context *ctx, const char *name, const char *value)
{
	char *err = NULL;
	if (!value || cordon_context_get(ctx, name))
		return;
	/* An unusable environment value (a relative $HOME) is left unset. */
	if (cordon_context_set(ctx, name, value, &err) != 0)
		free(err);
}

void cli_context_defaults(cordon_context *ctx)
{
	char cwd[PATH_MAX];
	const char *home = getenv("HOME");
	struct passwd *pw = getpwuid(getuid());
	if (getcwd(cwd, sizeof(cwd))) {
		set_default(ctx, "cwd", cwd);
		set_default(ctx, "workspace", cwd);
	}
	if ((!home || home[0] != '/') && pw)
		home = pw->pw_dir;
	set_default(ctx, "home", home);
	set_default(ctx, "user", pw ? pw->pw_name : getenv("USER"));
	home = cordon_context_get(ctx, "home");
	if (home) {
		char *agent = malloc(strlen(home) + 64);
		if (!agent)
			abort();
		sprintf(agent, "%s/.cordon", home);
		set_default(ctx, "agent_dir", agent);
		sprintf(agent, "%s/.cordon/sessions/default", home);
		set_default(ctx, "session_dir", agent);
		free(agent);
	}
}

int main(int argc, char **argv)
{
	const struct verb *v;
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc > 2 && find_verb(argv[2]))
			return cli_help(argv[2]);
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		printf("cordon %s (language version 1)\n", cordon_version());
		return EXIT_OK;
	}
	v = find_verb(argv[1]);
	if (!v) {
		fprintf(stderr, "cordon: unknown verb '%s'\n", argv[1]);
		usage(stderr);
		return EXIT_USAGE;
	}
	return v->run(argc - 1, argv + 1);
}
