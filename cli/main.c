#include "config.h"

#include "cli.h"
#include "cordon_tools.h"

#include <errno.h>
#include <fcntl.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct verb verbs[] = {
	{ VERB_CHECK, "check", "parse and check policy files",
	  "usage: cordon check FILE...\n"
	  "\n"
	  "Parse and check each policy file and the files it includes, and prove its\n"
	  "'assert never' statements over its presets. Every error is reported, GCC\n"
	  "style, with the source line and a caret.\n",
	  "Exit status: 0 when every file is valid, 1 when a policy has errors,\n"
	  "2 on a usage or I/O error (a file that cannot be read).\n",
	  false, cmd_check },
	{ VERB_LINT, "lint", "find mistakes and risks in policy files",
	  "usage: cordon lint [--format text|json|sarif] [--werror] [--disable ID,...]\n"
	  "                   [--enable ID,...] [--include-shipped] [--list-checks] FILE...\n"
	  "\n"
	  "Report every error `cordon check` finds, and the warnings and notes of the\n"
	  "lint checks: rules that never decide, broad grants, credentials within\n"
	  "reach, start-up hooks in the environment, denies the sandbox cannot\n"
	  "enforce, regexes that backtrack, definitions nothing uses.  Each finding\n"
	  "has a stable id; '# cordon: ignore[ID] reason' on the line above silences it.\n",
	  "Exit status: 0 when no finding is an error (with --werror: no finding),\n"
	  "1 otherwise, 2 on a usage or I/O error.\n",
	  false, cmd_lint },
	{ VERB_FMT, "fmt", "format policy files in the canonical layout",
	  "usage: cordon fmt [--check | --diff | -w] [FILE...]\n"
	  "\n"
	  "Print each policy file in the one canonical layout: two spaces a block,\n"
	  "one statement a line, rules in columns, lists longer than 80 columns one\n"
	  "element a line; comments and the blank lines between statements kept.\n"
	  "Without FILE, or with '-', read standard input.  A file that does not\n"
	  "parse is never formatted: its errors are printed as `cordon check` does.\n",
	  "Exit status: 0 when every file parsed (and, with --check or --diff, was\n"
	  "formatted already), 1 otherwise, 2 on a usage or I/O error.\n",
	  false, cmd_fmt },
	{ VERB_COMPILE, "compile", "show what a preset compiles to",
	  "usage: cordon compile [-p FILE] [--preset P | --all] --emit KIND\n"
	  "                      [--context k=v]... [--host linux|macos] [--no-origins]\n"
	  "\n"
	  "Print the checked intermediate representation of one preset: inheritance\n"
	  "resolved, top-level rules merged, rules in canonical order (most specific\n"
	  "first), each with the preset it came from and its origin file:line:col.\n",
	  NULL, false, cmd_compile },
	{ VERB_EVAL, "eval", "decide requests: allow, ask or deny",
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
	  "(an empty line too); the stream goes on.  Options may come before or\n"
	  "after OP TARGET.\n",
	  "Context defaults: cwd and workspace = the current directory, home = $HOME,\n"
	  "user, agent_dir = ~/.cordon, session_dir = ~/.cordon/sessions/default.\n",
	  false, cmd_eval },
	{ VERB_EXPLAIN, "explain", "show how a request is decided",
	  "usage: cordon explain [-p FILE] [--preset P] [--context k=v]... [--host H]\n"
	  "                      [--sandboxed] [--escalate JUSTIFICATION]\n"
	  "                      OP TARGET | exec --argv [--] WORD...\n"
	  "\n"
	  "Print the trace of one decision: the canonical target, every candidate\n"
	  "rule with its specificity and whether it matched, and the winner.\n",
	  NULL, false, cmd_explain },
	{ VERB_TEST, "test", "run a policy's test blocks (TAP)",
	  "usage: cordon test [--coverage [--threshold N]] [--include-shipped] [--host H]\n"
	  "                   FILE...\n"
	  "\n"
	  "Run the test blocks of each policy and print TAP: one line for each\n"
	  "expectation, with its location and the actual decision on failure.\n",
	  "Exit status: 0 when every expectation holds (and coverage reaches the\n"
	  "threshold), 1 otherwise, 2 on a usage or I/O error.\n",
	  false, cmd_test },
	{ VERB_DIFF, "diff", "show what a policy change widens or narrows",
	  "usage: cordon diff [--preset P | --all] [--format text|json] [--fail-on-widen]\n"
	  "                   [--context k=v]... OLD NEW\n"
	  "\n"
	  "Compare what two versions of a policy grant.  Both are asked the same\n"
	  "requests (every path, host, command and tool their rules name, children\n"
	  "of each, and well-known places such as credentials and /etc); a request\n"
	  "whose decision changed is shown with both deciding rules.  Settings,\n"
	  "protections, the environment and the bubblewrap plan are compared too.\n"
	  "Each change is widened, narrowed or changed.\n",
	  "Exit status: 0 when the diff was made (with --fail-on-widen: and nothing\n"
	  "widened), 1 when a policy has errors or, with --fail-on-widen, something\n"
	  "widened, 2 on a usage or I/O error.\n",
	  false, cmd_diff },
	{ VERB_RUN, "run", "run a command under a preset's sandbox",
	  "usage: cordon run [-p FILE] [--preset P] [--workspace DIR] [--cwd DIR]\n"
	  "                  [--context k=v]... [--timeout SECONDS] [--max-output BYTES]\n"
	  "                  [--output-file PATH] [--approval ID | --approved [--preview D]]\n"
	  "                  [--redact] [--audit LOG] [--actor NAME] [--check-links]\n"
	  "                  [--egress-hosts FILE] [--] CMD [ARG...]\n"
	  "       cordon run [OPTIONS] --shell 'COMMAND'\n"
	  "\n"
	  "Decide the command (CMD ARG... as the argv it is, word for word; the\n"
	  "COMMAND of --shell as a shell string), then run it inside the preset's\n"
	  "sandbox: bwrap with the lowered mount plan, the seccomp filter, and\n"
	  "Landlock applied inside; a private temp dir (TMPDIR) made for the call\n"
	  "and removed after it; the environment cleared to the preset's allowlist.\n"
	  "Nothing falls back to an unsandboxed run.  The options end at CMD (or\n"
	  "at --): every word from there on is the command's.\n",
	  "A preset that allows some host keeps its own network namespace; HTTP,\n"
	  "CONNECT and SOCKS5 contacts go through the call's egress proxy, which\n"
	  "decides and audits each one (HTTP_PROXY and ALL_PROXY are set inside).\n"
	  "\n"
	  "Exit status: the command's; 121 when the policy denies the command; 122\n"
	  "when it needs an approval it was not given or its approval is void; 124\n"
	  "on timeout; 125 when the sandbox is unavailable or the runner failed\n"
	  "(SANDBOX_UNAVAILABLE); 2 on a usage error.\n",
	  true, cmd_run },
	{ VERB_PROBE, "probe", "report which sandbox layers work here",
	  "usage: cordon probe [--json]\n"
	  "\n"
	  "Check each layer a restricted preset needs: bwrap (path and version),\n"
	  "user namespaces, the Landlock ABI, seccomp, and the cordon-exec helper.\n",
	  "Exit status 0 when all work, 125 otherwise.\n",
	  false, cmd_probe },
	{ VERB_HOOK, "hook", "answer a coding agent's pre-tool-use hook",
	  "usage: cordon hook AGENT [-p FILE] [--preset P] [--context k=v]... [--no-rewrite]\n"
	  "                   [--no-ask] [--timeout S] [--audit LOG] [--actor NAME] < EVENT\n"
	  "       cordon hook install AGENT [--scope user|project] [--dir DIR] [-p FILE]\n"
	  "                   [--preset P] [--no-ask] [--dry-run]\n"
	  "       cordon hook uninstall AGENT [--scope user|project] [--dir DIR]\n"
	  "       cordon hook doctor AGENT [--scope user|project] [--dir DIR]\n"
	  "\n"
	  "AGENT is claude (Claude Code, PreToolUse), codex (Codex, PreToolUse and\n"
	  "PermissionRequest) or gemini (Gemini CLI, BeforeTool).  Read the agent's hook\n"
	  "event on stdin, decide the tool call with the policy, and answer in the\n"
	  "agent's protocol, with every operation and its decision as the reason.  A\n"
	  "shell command is rewritten to run under `cordon run` with the same policy\n"
	  "(Claude Code, Codex, Gemini CLI; with --no-rewrite it is decided as running\n"
	  "without cordon's sandbox).  Any failure (a bad event, an unknown event, a\n"
	  "policy that does not compile, a timeout) blocks the call: the reason on\n"
	  "stderr and exit 2.\n"
	  "\n"
	  "install merges the hook into the agent's configuration (the old file kept\n"
	  "as FILE.cordon-backup-TIME) and, for Codex, records it as trusted in\n"
	  "config.toml; uninstall removes cordon's entries from it; doctor checks the\n"
	  "installed hook end to end and exits 1 when the agent would not run it or\n"
	  "it would block every call.\n",
	  NULL, false, cmd_hook },
	{ VERB_WRITE, "write", "write a file through the policy",
	  "usage: cordon write [-p FILE] [--preset P] [--context k=v]... [--approval ID] PATH < CONTENT\n"
	  "\n"
	  "Decide a write of PATH (its canonical form: symlinks resolved), then replace\n"
	  "it with standard input safely: the directory is opened without following\n"
	  "symlinks, the content goes to a temp file beside the target and is renamed\n"
	  "over it after a recheck.  New files are 0600; a replaced file keeps its\n"
	  "permission bits.  See docs/mutation.md.\n",
	  "Exit status: 0 written; 1 denied, the approval void, or the target changed\n"
	  "during the write; 3 the write needs approval; 2 on a usage or I/O error.\n",
	  false, cmd_write },
	{ VERB_EDIT, "edit", "replace exact text in a file through the policy",
	  "usage: cordon edit [-p FILE] [--preset P] [--context k=v]... [--approval ID]\n"
	  "                   PATH --old STRING --new STRING [--all]\n"
	  "\n"
	  "Replace the bytes of --old with --new in PATH, decided and written as\n"
	  "'cordon write' does.  --old must occur exactly once, or at least once with\n"
	  "--all (every occurrence is replaced); otherwise nothing changes.\n",
	  "Exit status: 0 edited; 1 denied, no or an ambiguous match, the approval void,\n"
	  "or the file changed meanwhile; 3 the edit needs approval; 2 on a usage or\n"
	  "I/O error.\n",
	  false, cmd_edit },
	{ VERB_APPROVE, "approve", "approve one write, edit or command, or grant a tool for the session",
	  "usage: cordon approve [-p FILE] [--preset P] [--context k=v]... [--ttl SECONDS]\n"
	  "                      write PATH < CONTENT\n"
	  "       cordon approve [OPTIONS] edit PATH --old STRING --new STRING [--all]\n"
	  "       cordon approve exec [-p FILE] [--preset P] [--workspace DIR] [--cwd DIR]\n"
	  "                      [--context k=v]... [--ttl SECONDS] [--actor NAME]\n"
	  "                      [--audit LOG] [--] 'COMMAND' | --argv [--] CMD [ARG...]\n"
	  "       cordon approve --session [-p FILE] [--preset P] [--context k=v]...\n"
	  "                      [--actor NAME] [--audit LOG] tool NAME\n"
	  "\n"
	  "When the policy asks about this write, issue an approval for exactly it: the\n"
	  "canonical target, the arguments, the SHA-256 of the content, the preset and\n"
	  "the identities of the target and its directory.  The approval id is printed\n"
	  "on the last line; 'cordon write --approval ID' uses it once.  It is kept in\n"
	  "SESSION_DIR/approvals and expires after --ttl seconds (default 600).\n"
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
	  "allow, and do nothing in presets with `approval never`.\n",
	  "Exit status: 0 issued or granted, or no approval needed (the write is\n"
	  "allowed; nothing on standard output); 1 denied (a deny or a protected path\n"
	  "is never approvable, a denied tool is never granted); 2 on a usage or I/O\n"
	  "error.\n",
	  false, cmd_approve },
	{ VERB_AUDIT, "audit", "summarise an audit log",
	  "usage: cordon audit LOG [--since T] [--decision allow|ask|deny] [--format text|json]\n"
	  "\n"
	  "Count the records of an audit log (written by --audit or $CORDON_AUDIT_LOG)\n"
	  "by decision, preset and operation, name the most denied targets, and list\n"
	  "the matching records.  A line that is not a whole record (a partial last\n"
	  "line after a crash) is skipped with a warning naming the file and line.\n",
	  NULL, false, cmd_audit },
	{ VERB_REVOKE, "revoke", "remove session grants",
	  "usage: cordon revoke --session [--context k=v]... [--audit LOG] (tool NAME | --all)\n"
	  "\n"
	  "Remove the session's grant for the tool NAME, or every grant with --all.\n",
	  NULL, false, cmd_revoke },
	{ VERB_BUNDLE, "bundle", "make, verify and install signed policy bundles",
	  "usage: cordon bundle create -o DIR --version N [--expires DATE] POLICY [FILE...]\n"
	  "       cordon bundle verify [--keys FILE] DIR\n"
	  "       cordon bundle install DIR\n"
	  "\n"
	  "create writes a bundle: POLICY and the files it includes, and a manifest\n"
	  "with each one's SHA-256, the version and the expiry, which an\n"
	  "administrator signs with their SSH key:\n"
	  "    ssh-keygen -Y sign -n cordon-policy -f KEY DIR/manifest\n"
	  "verify checks the signature against the trusted keys, every digest, the\n"
	  "expiry and the version against the highest installed here, then the\n"
	  "policy.  install verifies against the installed keys and replaces the\n"
	  "installed bundle at once, keeping the one before.  Where " SYSCONFDIR "/cordon/\n"
	  "allowed_signers exists, the installed bundle is the managed layer and\n"
	  "every verb that loads a policy verifies it first (docs/fleet.md).\n",
	  "Exit status: 0 made, verified or installed; 1 the bundle fails\n"
	  "verification, its policy has errors or it cannot be installed; 2 on a\n"
	  "usage error, or a bundle that cannot be written.\n",
	  false, cmd_bundle },
	{ VERB_PROXY, "proxy", "serve the egress proxy alone, for containers and Pods",
	  "usage: cordon proxy [-p FILE] [--preset P] [--context k=v]... --listen ADDR:PORT\n"
	  "                    [--egress-hosts FILE] [--audit LOG]\n"
	  "\n"
	  "Serve cordon run's egress proxy as a process of its own: HTTP, CONNECT and\n"
	  "SOCKS5 on ADDR:PORT, every host decided by the preset's net rules, loopback,\n"
	  "metadata and private addresses refused unless a rule names the host, each\n"
	  "contact audited; an ask is refused.  What it refuses is told on stderr.\n",
	  "Exit status: 2 on a usage error, 125 when it cannot listen or its proxy\n"
	  "process ends; it serves until it is killed.\n",
	  false, cmd_proxy },
	{ VERB_SERVE, "serve", "the approval console, in a browser on loopback",
	  "usage: cordon serve [--listen 127.0.0.1:PORT] [--context agent_dir=DIR]\n"
	  "\n"
	  "Serve the approval console on 127.0.0.1 for this user: the asks that hooks\n"
	  "and 'cordon run' send it under a preset's 'approval console' setting, each\n"
	  "with its preview (every operation, its decision and rule, and what\n"
	  "approving it grants) and the diff of a file write, to approve once, deny,\n"
	  "or approve for the session.  The first line of output is the console's\n"
	  "URL with its token, also kept in AGENT_DIR/console/url (0600).  Every\n"
	  "request must carry the token, name 127.0.0.1:PORT as its Host and, where\n"
	  "it has one, as its Origin; an answer is a POST with the token in a\n"
	  "header.  See docs/approvals.md, \"The console\".\n",
	  "Exit status: 0 when stopped (SIGINT, SIGTERM); 2 on a usage error, a port\n"
	  "that cannot be bound, or another console already running.\n",
	  false, cmd_serve },
	{ VERB_GRANTS, "grants", "list the grants of a session",
	  "usage: cordon grants [--context session_dir=DIR]\n"
	  "\n"
	  "List the session's grants, one a line, sorted: 'tool NAME' for a tool granted\n"
	  "with 'cordon approve --session', and the effects a yes for the session in the\n"
	  "approval console granted ('write-under DIR', 'net HOST:PORT', ...), each\n"
	  "with who granted it and when, tab-separated.  'cordon revoke --session --all'\n"
	  "removes them.\n",
	  "Exit status: 0 listed (nothing for no grants); 2 on a usage or I/O error.\n",
	  false, cmd_grants },
};

const struct verb *cli_verb_by_id(enum cli_verb id)
{
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (verbs[i].id == id)
			return &verbs[i];
	return NULL;
}

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
	      "otherwise its embedded default policy.  When " SYSCONFDIR "/cordon/managed.cordon\n"
	      "is installed, it is the managed layer: the policy in use (-p FILE, or the\n"
	      "system policy) is layered under it and can only narrow it (docs/fleet.md).\n"
	      "Where " SYSCONFDIR "/cordon/allowed_signers is installed, the managed layer is\n"
	      "the signed bundle 'cordon bundle install' installed, verified on every load.\n",
	      out);
}

const struct verb *cli_verb_find(const char *name)
{
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (strcmp(verbs[i].name, name) == 0)
			return &verbs[i];
	return NULL;
}

int cli_help(const char *name)
{
	const struct verb *v = cli_verb_find(name);
	if (v)
		cli_print_help(v, stdout);
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

void cli_op_names(char *buf, size_t size, const char *last)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int op = 0; op < CORDON_OP_COUNT && n < size; op++) {
		const char *sep = op == 0 ? "" : op + 1 == CORDON_OP_COUNT ? last : ", ";
		int w = snprintf(buf + n, size - n, "%s%s", sep, cordon_op_name((enum cordon_op)op));
		if (w < 0)
			break;
		n += (size_t)w;
	}
}

#define CONFDIR SYSCONFDIR "/cordon"

/* The managed layer's file (docs/fleet.md): the installed one whenever it
 * exists, or cannot be told not to exist (a directory closed to this user:
 * loading it then fails, and nothing runs); only when there is none,
 * $CORDON_MANAGED.  The variable can therefore add a managed layer where
 * an administrator installed none, which only narrows, and can never
 * replace or remove an installed one.  NULL: no managed layer. */
static const char *managed_path(void)
{
	static const char installed[] = CONFDIR "/managed.cordon";
	const char *env = getenv("CORDON_MANAGED");
	struct stat st;
	if (lstat(installed, &st) == 0 || errno != ENOENT) {
		if (env && *env && strcmp(env, installed) != 0)
			fprintf(stderr, "cordon: warning: CORDON_MANAGED is ignored: the managed "
					"layer %s is installed\n",
				installed);
		return installed;
	}
	return env && *env ? env : NULL;
}

static cordon_policy *usable(cordon_policy *p, int *status)
{
	if (cordon_policy_error_count(p)) {
		cordon_policy_print_diagnostics(p, stderr);
		*status = cordon_policy_io_failed(p) ? EXIT_USAGE : EXIT_POLICY;
		cordon_policy_free(p);
		return NULL;
	}
	return p;
}

cordon_policy *cli_load_policy_file(const char *path, int *status)
{
	return usable(cordon_policy_load_file(path), status);
}

static bool bundle_refused;

bool cli_policy_bundle_refused(void)
{
	return bundle_refused;
}

/* Where signed bundles are required (CONFDIR/allowed_signers exists), the
 * managed layer is the installed bundle, verified: nothing else stands in
 * for it, neither CORDON_MANAGED nor a managed.cordon beside it. */
static cordon_policy *managed_bundle(int *status)
{
	char *err = NULL;
	const char *env = getenv("CORDON_MANAGED");
	cordon_policy *p;
	if (env && *env)
		fprintf(stderr, "cordon: warning: CORDON_MANAGED is ignored: signed bundles are "
				"required here (%s/allowed_signers)\n",
			CONFDIR);
	if (!(p = cordon_bundle_load_installed(CONFDIR, &err))) {
		int fd = open(CONFDIR "/allowed_signers", O_RDONLY | O_CLOEXEC);
		fprintf(stderr, "cordon: POLICY BUNDLE REFUSED: %s\n", err);
		free(err);
		bundle_refused = true;
		/* Keys that cannot be read are an I/O error, as a managed
		 * layer that cannot be read is. */
		*status = fd < 0 ? EXIT_USAGE : EXIT_POLICY;
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!(p = usable(p, status)))
		bundle_refused = true;
	return p;
}

static const char system_policy[] = CONFDIR "/policy.cordon";

cordon_policy *cli_load_managed(bool *none, int *status)
{
	bool signed_only = cordon_bundle_required(CONFDIR);
	const char *mpath = signed_only ? NULL : managed_path();
	*none = !signed_only && !mpath;
	if (*none)
		return NULL;
	/* A managed layer that cannot be read, has errors or (a bundle)
	 * fails verification stops every verb: nothing stands in for it. */
	return signed_only ? managed_bundle(status) : usable(cordon_policy_load_file(mpath), status);
}

bool cli_admin_file(const char *real)
{
	const char *const files[] = { system_policy, CONFDIR "/managed.cordon",
				      getenv("CORDON_MANAGED") };
	char r[PATH_MAX];
	if (!strncmp(real, CONFDIR "/", sizeof(CONFDIR)))
		return true; /* the administrator's directory, a bundle's files included */
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		if (files[i] && *files[i] && realpath(files[i], r) && !strcmp(r, real))
			return true;
	return false;
}

cordon_policy *cli_load_policy(const char *path, int *status)
{
	cordon_policy *managed = NULL, *lower = NULL;
	bool none;
	struct stat st;

	managed = cli_load_managed(&none, status);
	if (!none) {
		if (!managed)
			return NULL;
		if (path)
			lower = cordon_policy_load_file(path);
		else if (!cordon_policy_forbids_lower_layers(managed) &&
			 stat(system_policy, &st) == 0)
			lower = cordon_policy_load_file(system_policy);
		/* Without a lower layer the managed layer stands alone: the
		 * embedded default is what holds where no administrator wrote
		 * a policy, and the managed layer is one. */
		return usable(cordon_policy_layer(managed, lower), status);
	}
	if (path)
		return usable(cordon_policy_load_file(path), status);
	if (stat(system_policy, &st) == 0)
		return usable(cordon_policy_load_file(system_policy), status);
	return usable(cordon_policy_load_embedded_to_decide(), status);
}

/* The policy of a command that ends the process when it returns (eval,
 * run, hook), left to the exit: freeing its tens of thousands of blocks
 * one at a time is a tenth of such a call, and the kernel takes the pages
 * back at once.  Kept reachable, so that leak checkers see it in use. */
void cli_policy_done(cordon_policy *p)
{
	static cordon_policy *kept[4];
	for (size_t i = 0; p && i < ARRAY_SIZE(kept); i++)
		if (!kept[i]) {
			kept[i] = p;
			return;
		}
	cordon_policy_free(p);
}

void cli_one_shot_heap(void)
{
#if defined(__GLIBC__)
	/* A policy's syntax tree is freed once it is checked, and the
	 * evaluator built next is as large.  By default glibc gives the tree's
	 * chunks (mmap'd, or at the heap's top) back to the kernel, and the
	 * evaluator faults in fresh pages: a quarter of the page faults of
	 * loading 10,000 rules.  A process that exits after one decision keeps
	 * them instead. */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

cordon_policy *cli_load_policy_one_shot(const char *path, int *status)
{
	cli_one_shot_heap();
	return cli_load_policy(path, status);
}

/* An evaluator of a one-shot verb, likewise: a policy's evaluator holds
 * a matcher for each rule, and freeing them costs as much as a tenth of
 * building them. */
void cli_evaluator_done(cordon_evaluator *ev)
{
	static cordon_evaluator *kept[4];
	for (size_t i = 0; ev && i < ARRAY_SIZE(kept); i++)
		if (!kept[i]) {
			kept[i] = ev;
			return;
		}
	cordon_evaluator_free(ev);
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

int cli_dir_context_arg(cordon_context *ctx, const char *verb, const char *name,
			const char *value)
{
	/* A relative directory is joined to the current one, not resolved: a
	 * workspace reached through a symlink must be refused by the
	 * evaluator, not quietly followed. */
	char here[PATH_MAX], *kv;
	int status;
	if (value[0] == '/') {
		kv = malloc(strlen(name) + strlen(value) + 2);
		if (kv)
			sprintf(kv, "%s=%s", name, value);
	} else if (getcwd(here, sizeof(here))) {
		kv = malloc(strlen(name) + strlen(here) + strlen(value) + 3);
		if (kv)
			sprintf(kv, "%s=%s/%s", name, here, value);
	} else {
		return cli_usage_error(verb, "cannot tell the current directory");
	}
	if (!kv)
		abort();
	status = cli_context_arg(ctx, verb, kv);
	free(kv);
	return status;
}

void cli_run_context_defaults(cordon_context *ctx)
{
	/* The workspace defaults to the cwd, the cwd to the workspace. */
	if (!cordon_context_get(ctx, "cwd") && cordon_context_get(ctx, "workspace")) {
		char *err = NULL;
		cordon_context_set(ctx, "cwd", cordon_context_get(ctx, "workspace"), &err);
		free(err);
	}
	cli_context_defaults(ctx);
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
		if (argc > 2 && cli_verb_find(argv[2]))
			return cli_help(argv[2]);
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		printf("cordon %s (language version 1)\n", cordon_version());
		return EXIT_OK;
	}
	v = cli_verb_find(argv[1]);
	if (!v) {
		fprintf(stderr, "cordon: unknown verb '%s'\n", argv[1]);
		usage(stderr);
		return EXIT_USAGE;
	}
	return v->run(argc - 1, argv + 1);
}
