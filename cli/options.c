/* The option table of every verb, the parser built from it, and the option
 * lists of --help. */
#include "config.h"

#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IN(v) (1u << VERB_##v)
/* The verbs that decide with a policy and a preset. */
#define DECIDING (IN(COMPILE) | IN(EVAL) | IN(EXPLAIN) | IN(RUN) | IN(HOOK) | IN(WRITE) | \
		  IN(EDIT) | IN(APPROVE) | IN(REVOKE) | IN(PROXY))
#define AUDITED (IN(EVAL) | IN(RUN) | IN(HOOK) | IN(WRITE) | IN(EDIT) | IN(APPROVE) | IN(REVOKE) | \
		 IN(PROXY))

/* A row leaves its forms, values and flags out when it has none. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
/* In --help, each family in this order, the verb's own first; within a
 * family, in the order of the table. */
const struct cli_option cli_options[] = {
	/* ---- policy ---- */
	{ DECIDING, "policy", 'p', "FILE", CLI_POLICY, OPT_POLICY,
	  "the policy (default: the installed or embedded one)" },
	{ DECIDING, "preset", 0, "P", CLI_POLICY, OPT_PRESET,
	  "the preset (default: the policy's default preset)" },
	{ IN(DIFF), "preset", 0, "P", CLI_POLICY, OPT_PRESET,
	  "one preset (default: every preset of either file)" },
	{ DECIDING & ~IN(HOOK), "context", 0, "k=v", CLI_POLICY, OPT_CONTEXT,
	  "substitute a context variable (workspace, cwd, home,\n"
	  "tmp, agent_dir, session_dir, user); repeatable" },
	{ IN(HOOK), "context", 0, "k=v", CLI_POLICY, OPT_CONTEXT,
	  "a context variable the event does not give; repeatable", "AGENT" },
	{ IN(GRANTS), "context", 0, "k=v", CLI_POLICY, OPT_CONTEXT,
	  "session_dir=DIR: whose grants to list (default\n"
	  "~/.cordon/sessions/default)" },
	{ IN(SERVE), "context", 0, "k=v", CLI_POLICY, OPT_CONTEXT,
	  "agent_dir=DIR: whose asks the console shows (default\n"
	  "~/.cordon, as the hook and cordon run use)" },
	{ IN(DIFF), "context", 0, "k=v", CLI_POLICY, OPT_CONTEXT,
	  "override the fixed context: workspace=/ws, cwd=/ws,\n"
	  "home=/home/u, tmp=/tmp/t, agent_dir=/home/u/.cordon,\n"
	  "session_dir=/home/u/.cordon/s, user=u" },
	{ IN(RUN) | IN(APPROVE), "workspace", 0, "DIR", CLI_POLICY, OPT_WORKSPACE,
	  "the workspace (default: the --cwd directory, or the\n"
	  "current directory)", "exec" },
	{ IN(RUN) | IN(APPROVE), "cwd", 0, "DIR", CLI_POLICY, OPT_CWD,
	  "the directory the command starts in (default: the\n"
	  "workspace, or the current directory)", "exec" },
	{ IN(COMPILE), "host", 0, "linux|macos", CLI_POLICY, OPT_HOST,
	  "resolve paths as on that host (on macOS /etc, /tmp and\n"
	  "/var are symlinks into /private); default: this\n"
	  "machine, but macos for sbpl and sbpl-argv" },
	{ IN(EVAL) | IN(EXPLAIN), "host", 0, "linux|macos", CLI_POLICY, OPT_HOST,
	  "decide as on that host (default: this machine)" },
	{ IN(TEST), "host", 0, "linux|macos", CLI_POLICY, OPT_HOST,
	  "decide the expectations as on that host (default: this\n"
	  "machine): a policy's tests hold on a Mac too" },

	/* ---- audit ---- */
	{ IN(EVAL), "audit", 0, "LOG", CLI_AUDIT, OPT_AUDIT,
	  "append one JSON record a decision to LOG (default:\n"
	  "$CORDON_AUDIT_LOG); secrets in it are redacted" },
	{ IN(RUN), "audit", 0, "LOG", CLI_AUDIT, OPT_AUDIT,
	  "append a JSON record of the call to LOG (default:\n"
	  "$CORDON_AUDIT_LOG)" },
	{ IN(PROXY), "audit", 0, "LOG", CLI_AUDIT, OPT_AUDIT,
	  "append a JSON record of each contact to LOG (default:\n"
	  "$CORDON_AUDIT_LOG)" },
	{ IN(HOOK), "audit", 0, "LOG", CLI_AUDIT, OPT_AUDIT,
	  "append a JSON record of each decision to LOG (default:\n"
	  "$CORDON_AUDIT_LOG)", "AGENT" },
	{ IN(WRITE) | IN(EDIT) | IN(APPROVE) | IN(REVOKE), "audit", 0, "LOG", CLI_AUDIT, OPT_AUDIT,
	  "append a JSON record of what was done to LOG (default:\n"
	  "$CORDON_AUDIT_LOG)" },
	{ AUDITED & ~IN(HOOK), "syslog", 0, "WHERE", CLI_AUDIT, OPT_SYSLOG,
	  "send each record to the system log too (default:\n"
	  "$CORDON_SYSLOG): auto (the journal, else /dev/log),\n"
	  "journal, syslog, a syslog socket's path, or off" },
	{ IN(HOOK), "syslog", 0, "WHERE", CLI_AUDIT, OPT_SYSLOG,
	  "send each record to the system log too (default:\n"
	  "$CORDON_SYSLOG): auto (the journal, else /dev/log),\n"
	  "journal, syslog, a syslog socket's path, or off", "AGENT" },
	{ AUDITED & ~IN(HOOK), "actor", 0, "NAME", CLI_AUDIT, OPT_ACTOR,
	  "who asks, for the audit record (default: $USER)" },
	{ IN(HOOK), "actor", 0, "NAME", CLI_AUDIT, OPT_ACTOR,
	  "who asks, for the audit record (default: $USER)", "AGENT" },

	/* ---- output ---- */
	{ IN(EVAL), "json", 0, NULL, CLI_OUTPUT, OPT_JSON, "print the decision as one JSON object" },
	{ IN(PROBE), "json", 0, NULL, CLI_OUTPUT, OPT_JSON, "print the report as one JSON object" },
	{ IN(LINT), "format", 0, "F", CLI_OUTPUT, OPT_FORMAT,
	  "text (GCC style, the default), json (an array of\n"
	  "findings) or sarif (SARIF 2.1.0)",
	  .values = "text json sarif" },
	{ IN(DIFF), "format", 0, "F", CLI_OUTPUT, OPT_FORMAT, "text (the default) or json",
	  .values = "text json" },
	{ IN(AUDIT), "format", 0, "F", CLI_OUTPUT, OPT_FORMAT,
	  "text (the default) or json (one object)", .values = "text json" },

	/* ---- lint ---- */
	{ IN(LINT), "werror", 0, NULL, CLI_OWN, OPT_WERROR,
	  "exit 1 on any finding, not only on errors" },
	{ IN(LINT), "disable", 0, "ID,...", CLI_OWN, OPT_DISABLE,
	  "skip these checks ('all' for every one)" },
	{ IN(LINT), "enable", 0, "ID,...", CLI_OWN, OPT_ENABLE,
	  "run these checks again after --disable" },
	{ IN(LINT), "include-shipped", 0, NULL, CLI_OWN, OPT_INCLUDE_SHIPPED,
	  "also report findings in the policies shipped with\n"
	  "cordon that a file includes (default.cordon, ...)" },
	{ IN(LINT), "list-checks", 0, NULL, CLI_OWN, OPT_LIST_CHECKS,
	  "print the checks: id, level, summary" },

	/* ---- fmt ---- */
	{ IN(FMT), "check", 0, NULL, CLI_OWN, OPT_CHECK,
	  "print nothing; name each file that is not formatted" },
	{ IN(FMT), "diff", 0, NULL, CLI_OWN, OPT_DIFF,
	  "print a unified diff of what formatting would change" },
	{ IN(FMT), "write", 'w', NULL, CLI_OWN, OPT_WRITE,
	  "rewrite files in place (atomically, mode kept); a\n"
	  "formatted file is left untouched" },

	/* ---- compile ---- */
	{ IN(COMPILE), "all", 0, NULL, CLI_OWN, OPT_ALL, "every preset, in name order" },
	{ IN(COMPILE), "emit", 0, "KIND", CLI_OWN, OPT_EMIT,
	  "ir: the human-readable dump; json: the same as JSON;\n"
	  "bwrap: the bubblewrap mount plan (JSON, with origins);\n"
	  "bwrap-args: its options, NUL-separated, for bwrap --args;\n"
	  "landlock, seccomp: the in-sandbox layers, for auditors;\n"
	  "seccomp-bpf: the filter program bwrap --seccomp loads;\n"
	  "sbpl: the macOS Seatbelt profile; sbpl-argv: its command;\n"
	  "oci: an OCI runtime config.json (crun, runc, podman);\n"
	  "k8s: a Pod and a NetworkPolicy; k8s-seccomp: the Pod's\n"
	  "localhost seccomp profile (the OCI config's linux.seccomp);\n"
	  "facts: the host facts the paths were resolved with" },
	{ IN(COMPILE), "no-origins", 0, NULL, CLI_OWN, OPT_NO_ORIGINS,
	  "leave out origins, to compare two spellings" },

	/* ---- eval, explain ---- */
	{ IN(EVAL), "stdin", 0, NULL, CLI_OWN, OPT_STDIN,
	  "read JSON requests from standard input, one a line" },
	{ IN(EVAL) | IN(EXPLAIN), "escalate", 0, "WHY", CLI_OWN, OPT_ESCALATE,
	  "an exec that asks to run outside the sandbox" },
	{ IN(EVAL) | IN(EXPLAIN), "sandboxed", 0, NULL, CLI_OWN, OPT_SANDBOXED,
	  "the command will run under cordon run, in the preset's\n"
	  "sandbox: what the sandbox refuses by itself needs no\n"
	  "person (a stream line's \"sandboxed\" overrides it)" },
	{ IN(EVAL) | IN(EXPLAIN), "argv", 0, NULL, CLI_OWN, OPT_ARGV,
	  "after exec: the rest of the command line (after one\n"
	  "--) are the command's words, decided as that argv",
	  .flags = CLI_REST },
	{ IN(APPROVE), "argv", 0, NULL, CLI_OWN, OPT_ARGV,
	  "after exec: the rest of the command line (after one\n"
	  "--) are the command's words",
	  "exec", .flags = CLI_REST },

	/* ---- test ---- */
	{ IN(TEST), "coverage", 0, NULL, CLI_OWN, OPT_COVERAGE,
	  "after the plan, report (as TAP comments) how many\n"
	  "rules decided at least one expectation, per file and\n"
	  "in total, and list the rules none did" },
	{ IN(TEST), "threshold", 0, "N", CLI_OWN, OPT_THRESHOLD,
	  "exit 1 when total coverage is below N percent" },
	{ IN(TEST), "include-shipped", 0, NULL, CLI_OWN, OPT_INCLUDE_SHIPPED,
	  "also run the tests, and count the rules, of the\n"
	  "shipped policies a file includes (default.cordon, ...)" },

	/* ---- diff ---- */
	{ IN(DIFF), "all", 0, NULL, CLI_OWN, OPT_ALL, "every preset (the default)" },
	{ IN(DIFF), "fail-on-widen", 0, NULL, CLI_OWN, OPT_FAIL_ON_WIDEN,
	  "exit 1 when anything widened" },

	/* ---- run ---- */
	{ IN(RUN), "shell", 0, "COMMAND", CLI_OWN, OPT_SHELL,
	  "run COMMAND with /bin/sh -c, after deciding the whole\n"
	  "command line" },
	{ IN(RUN), "timeout", 0, "S", CLI_OWN, OPT_TIMEOUT,
	  "kill the command's whole process tree after S seconds" },
	{ IN(RUN), "max-output", 0, "BYTES", CLI_OWN, OPT_MAX_OUTPUT,
	  "pass at most BYTES of output through; keep all of it\n"
	  "in --output-file (0600), or in a file named on stderr" },
	{ IN(RUN), "output-file", 0, "PATH", CLI_OWN, OPT_OUTPUT_FILE,
	  "where the whole output is kept" },
	{ IN(RUN), "approval", 0, "ID", CLI_OWN, OPT_APPROVAL,
	  "consume an approval from 'cordon approve exec': the\n"
	  "command runs only if it is exactly what was approved\n"
	  "(see docs/approvals.md), and only the operations the\n"
	  "approval named widen, for this call" },
	{ IN(RUN), "approved", 0, NULL, CLI_OWN, OPT_APPROVED,
	  "the host has shown this call's preview to a person who\n"
	  "approved it: approve it now, bound as --approval is" },
	{ IN(RUN), "preview", 0, "DIGEST", CLI_OWN, OPT_PREVIEW,
	  "with --approved: run only if this call's preview is\n"
	  "the one shown (cordon_decision_preview_digest)" },
	{ IN(RUN), "redact", 0, NULL, CLI_OWN, OPT_REDACT,
	  "replace secrets in the output passed through with\n"
	  "[REDACTED:name] (the policy's redact patterns); the\n"
	  "output is passed on when the command ends, stdout\n"
	  "first; --output-file keeps the original" },
	{ IN(RUN), "check-links", 0, NULL, CLI_OWN, OPT_CHECK_LINKS,
	  "refuse (125) when a file the sandbox may write has a\n"
	  "hard link that may lie outside the writable roots" },
	{ IN(PROXY), "listen", 0, "ADDR:PORT", CLI_OWN, OPT_LISTEN,
	  "listen there (an address literal; [v6]:PORT; port 0:\n"
	  "any free one, said on stderr); fd:N: serve the\n"
	  "listening TCP socket handed down as descriptor N" },
	{ IN(RUN) | IN(PROXY), "egress-hosts", 0, "FILE", CLI_OWN, OPT_EGRESS_HOSTS,
	  "the egress proxy resolves names from this hosts(5)\n"
	  "file alone, never from DNS (for tests and pinned\n"
	  "mirrors)" },
	{ IN(RUN), "status-fd", 0, "FD", CLI_OWN, OPT_STATUS_FD,
	  "when the call ends, write one JSON line to FD (3 or\n"
	  "more; not passed to the command): {\"status\":N,\n"
	  "\"ran\":true|false,\"outcome\":\"...\",\"refusals\":[...]};\n"
	  "ran is true only when N is the command's own status;\n"
	  "refusals: each host the egress proxy refused and\n"
	  "each path the sandbox refused a write to" },
	{ IN(RUN), "quiet-refusals", 0, NULL, CLI_OWN, OPT_QUIET_REFUSALS,
	  "do not list on stderr, after the command, the hosts\n"
	  "the egress proxy refused (--status-fd still has them)" },
	{ IN(RUN), "no-watch-writes", 0, NULL, CLI_OWN, OPT_NO_WATCH_WRITES,
	  "do not watch for the file-system writes the sandbox\n"
	  "refuses (no seccomp notification; none reported)" },

	/* ---- hook ---- */
	{ IN(HOOK), "no-rewrite", 0, NULL, CLI_OWN, OPT_NO_REWRITE,
	  "decide shell commands as running without the sandbox", "AGENT" },
	{ IN(HOOK), "no-ask", 0, NULL, CLI_OWN, OPT_NO_ASK,
	  "no person answers (a headless agent): a call that\n"
	  "needs approval is denied, saying so",
	  "AGENT install" },
	{ IN(HOOK), "timeout", 0, "S", CLI_OWN, OPT_TIMEOUT,
	  "block when no decision is made in S seconds (20)", "AGENT" },
	{ IN(HOOK), "scope", 0, "S", CLI_OWN, OPT_SCOPE,
	  "install, uninstall, doctor: user (~/.AGENT/...) or\n"
	  "project (./.AGENT/...)",
	  "install uninstall doctor", "user project" },
	{ IN(HOOK), "dir", 0, "DIR", CLI_OWN, OPT_DIR,
	  "install, uninstall, doctor: the agent's file under DIR\n"
	  "instead",
	  "install uninstall doctor" },
	{ IN(HOOK), "dry-run", 0, NULL, CLI_OWN, OPT_DRY_RUN,
	  "install: print the merged file; change nothing", "install uninstall doctor" },

	/* ---- write, edit, approve ---- */
	{ IN(WRITE) | IN(EDIT), "approval", 0, "ID", CLI_OWN, OPT_APPROVAL,
	  "an approval from 'cordon approve write' (or edit),\n"
	  "used once" },
	{ IN(EDIT) | IN(APPROVE), "old", 0, "STRING", CLI_OWN, OPT_OLD,
	  "the exact text to replace", "edit" },
	{ IN(EDIT) | IN(APPROVE), "new", 0, "STRING", CLI_OWN, OPT_NEW,
	  "what replaces it", "edit" },
	{ IN(EDIT) | IN(APPROVE), "all", 0, NULL, CLI_OWN, OPT_ALL,
	  "replace every occurrence of --old (without it, --old\n"
	  "must occur exactly once)",
	  "edit" },
	{ IN(APPROVE), "ttl", 0, "SECONDS", CLI_OWN, OPT_TTL,
	  "how long the approval is valid (default 600)", "write edit exec" },
	{ IN(APPROVE), "session", 0, NULL, CLI_OWN, OPT_SESSION,
	  "tool NAME: grant the tool for the session", "tool" },

	/* ---- audit ---- */
	{ IN(AUDIT), "since", 0, "T", CLI_OWN, OPT_SINCE,
	  "records at or after T: RFC 3339 (2026-01-02T03:04:05Z)\n"
	  "or a duration back from now (30s, 10m, 2h, 1d)" },
	{ IN(AUDIT), "decision", 0, "D", CLI_OWN, OPT_DECISION,
	  "only records that decided D (allow, ask or deny)", .values = "allow ask deny" },

	/* ---- revoke ---- */
	{ IN(REVOKE), "session", 0, NULL, CLI_OWN, OPT_SESSION,
	  "the grants of the session (required)" },
	{ IN(REVOKE), "all", 0, NULL, CLI_OWN, OPT_ALL, "every grant of the session" },

	/* ---- bundle ---- */
	{ IN(BUNDLE), "output", 'o', "DIR", CLI_OWN, OPT_OUTPUT,
	  "create: the bundle's directory (it must not exist)", "create" },
	{ IN(BUNDLE), "version", 0, "N", CLI_OWN, OPT_BUNDLE_VERSION,
	  "create: the bundle's version, from 1; a machine never\n"
	  "takes a lower one than it has installed",
	  "create" },
	{ IN(BUNDLE), "expires", 0, "DATE", CLI_OWN, OPT_EXPIRES,
	  "create: when the bundle stops being valid:\n"
	  "YYYY-MM-DD (midnight UTC) or YYYY-MM-DDTHH:MM:SSZ",
	  "create" },
	{ IN(BUNDLE), "keys", 0, "FILE", CLI_OWN, OPT_KEYS,
	  "verify: the trusted keys, an allowed-signers file\n"
	  "(default: " SYSCONFDIR "/cordon/allowed_signers)",
	  "verify" },
	/* ---- serve ---- */
	{ IN(SERVE), "listen", 0, "127.0.0.1:PORT", CLI_OWN, OPT_LISTEN,
	  "the loopback address and port to listen on (default\n"
	  "127.0.0.1 and a port the system picks)" },

	/* ---- every verb ---- */
	{ ~0u, "help", 'h', NULL, CLI_OWN, OPT_HELP, "print this help" },
};
#pragma GCC diagnostic pop

const unsigned cli_noptions = sizeof(cli_options) / sizeof(cli_options[0]);

/* getopt_long's value for a row: its letter, or a value past every char. */
static int row_value(const struct cli_option *o)
{
	return o->letter ? o->letter : 256 + (int)o->id;
}

static bool word_in(const char *word, size_t len, const char *list)
{
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, " ");
		if (n == len && strncmp(p, word, len) == 0)
			return true;
		p += n;
		p += *p == ' ';
	}
	return false;
}

void cli_args_init(struct cli_args *a, const char *verb, int argc, char **argv)
{
	memset(a, 0, sizeof(*a));
	a->verb = cli_verb_find(verb);
	if (!a->verb)
		abort(); /* every caller is a verb of the table */
	a->argc = argc;
	a->argv = argv;
	a->rest = -1;
	a->ctx = cordon_context_new();
	a->operands = calloc((size_t)argc + 1, sizeof(*a->operands));
	a->rows = calloc(cli_noptions, sizeof(*a->rows));
	a->longopts = calloc(cli_noptions + 1, sizeof(*a->longopts));
	/* "-": operands come back in order (value 1), so that the options may
	 * stand before and after them and "--" ends them; ":": a missing
	 * argument is told apart from an unknown option. */
	a->shortopts = calloc(2 * cli_noptions + 3, 1);
	if (!a->operands || !a->rows || !a->longopts || !a->shortopts)
		abort();
	strcpy(a->shortopts, "-:");
	unsigned bit = 1u << a->verb->id;
	for (unsigned i = 0; i < cli_noptions; i++) {
		const struct cli_option *o = &cli_options[i];
		if (!(o->verbs & bit))
			continue;
		for (int k = 0; k < a->nrows; k++)
			if (strcmp(a->rows[k]->name, o->name) == 0 ||
			    (o->letter && a->rows[k]->letter == o->letter)) {
				fprintf(stderr, "cordon: the option table gives %s --%s twice\n", verb,
					o->name);
				abort();
			}
		a->longopts[a->nrows] = (struct option){ o->name, o->arg ? required_argument
									 : no_argument,
							  NULL, row_value(o) };
		if (o->letter) {
			size_t n = strlen(a->shortopts);
			a->shortopts[n] = o->letter;
			if (o->arg)
				a->shortopts[n + 1] = ':';
		}
		a->rows[a->nrows++] = o;
	}
#ifdef __GLIBC__
	optind = 0; /* start afresh */
#else
	optreset = 1;
	optind = 1;
#endif
	opterr = 0;
}

void cli_args_free(struct cli_args *a)
{
	cordon_context_free(a->ctx);
	free(a->operands);
	free(a->rows);
	free(a->longopts);
	free(a->shortopts);
	a->ctx = NULL;
	a->operands = NULL;
	a->rows = NULL;
	a->longopts = NULL;
	a->shortopts = NULL;
}

/* Stop with a usage error; printed unless a->quiet. */
static int fail(struct cli_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct cli_args *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->message, sizeof(a->message), fmt, ap);
	va_end(ap);
	a->status = EXIT_USAGE;
	a->done = true;
	if (!a->quiet)
		cli_usage_error(a->verb->name, "%s", a->message);
	return -1;
}

/* A usage error a helper has printed already: the message names the
 * option and its value. */
static int failed(struct cli_args *a, int status, const struct cli_option *o)
{
	snprintf(a->message, sizeof(a->message), "bad --%s '%s'", o->name, optarg);
	a->status = status;
	a->done = true;
	return -1;
}

/* The verbs other than this one that have an option of this long name, for
 * the message about an unknown option: "edit, approve". */
static void other_verbs(const struct cli_args *a, const char *name, size_t len, char *out,
			size_t size)
{
	unsigned done = 1u << a->verb->id;
	size_t w = 0;
	out[0] = '\0';
	for (unsigned i = 0; i < cli_noptions; i++) {
		const struct cli_option *o = &cli_options[i];
		if (strlen(o->name) != len || strncmp(o->name, name, len) != 0)
			continue;
		for (int v = 0; v < VERB_COUNT; v++) {
			const struct verb *vb = cli_verb_by_id((enum cli_verb)v);
			if (!(o->verbs & ~done & (1u << v)) || !vb)
				continue;
			done |= 1u << v;
			if (w + strlen(vb->name) + 3 < size)
				w += (size_t)snprintf(out + w, size - w, "%s%s", w ? ", " : "",
						      vb->name);
		}
	}
}

static int unknown_option(struct cli_args *a)
{
	const char *word = a->argv[optind - 1];
	char others[256];
	if (optopt >= 256) {
		const struct cli_option *o = NULL;
		for (int k = 0; k < a->nrows && !o; k++)
			if (row_value(a->rows[k]) == optopt)
				o = a->rows[k];
		return fail(a, "option '--%s' takes no argument", o ? o->name : "?");
	}
	if (optopt) /* a short letter this verb does not know */
		return fail(a, "unknown option '-%c'", optopt);
	if (strncmp(word, "--", 2) != 0)
		return fail(a, "unknown option '%s'", word);
	size_t len = strcspn(word + 2, "=");
	/* getopt_long takes a unique abbreviation; a shared one is ambiguous. */
	char matches[256] = "";
	size_t w = 0, n = 0;
	for (int k = 0; k < a->nrows; k++)
		if (strncmp(a->rows[k]->name, word + 2, len) == 0 && w + 40 < sizeof(matches)) {
			w += (size_t)snprintf(matches + w, sizeof(matches) - w, "%s--%s", n ? ", " : "",
					      a->rows[k]->name);
			n++;
		}
	if (n > 1)
		return fail(a, "option '--%.*s' is ambiguous (%s)", (int)len, word + 2, matches);
	other_verbs(a, word + 2, len, others, sizeof(others));
	if (others[0])
		return fail(a, "unknown option '--%.*s' for 'cordon %s' (an option of %s)", (int)len,
			    word + 2, a->verb->name, others);
	return fail(a, "unknown option '--%.*s'", (int)len, word + 2);
}

static int missing_argument(struct cli_args *a)
{
	for (int k = 0; k < a->nrows; k++) {
		const struct cli_option *o = a->rows[k];
		if (row_value(o) != optopt)
			continue;
		if (optopt < 256)
			return fail(a, "option '-%c' needs an argument (-%c %s)", o->letter, o->letter,
				    o->arg);
		return fail(a, "option '--%s' needs an argument (--%s %s)", o->name, o->name, o->arg);
	}
	return fail(a, "an option needs an argument");
}

/* The values a row takes, for a message: "text, json or sarif". */
static void values_text(const char *values, char *out, size_t size)
{
	size_t w = 0, count = 0, i = 0;
	for (const char *p = values; *p; p += strcspn(p, " "), p += *p == ' ')
		count++;
	for (const char *p = values; *p && w < size; i++) {
		size_t len = strcspn(p, " ");
		w += (size_t)snprintf(out + w, size - w, "%s%.*s",
				      i == 0 ? "" : i + 1 == count ? " or " : ", ", (int)len, p);
		p += len;
		p += *p == ' ';
	}
}

static void add_operand(struct cli_args *a, char *word)
{
	a->operands[a->noperands++] = word;
}

/* The rest of the command line, from index i, as operands. */
static void add_rest(struct cli_args *a, int i)
{
	for (; i < a->argc; i++)
		add_operand(a, a->argv[i]);
	a->done = true;
}

/* The row of what getopt_long returned: it returns only the rows' values
 * (and the errors, taken before), so a miss is a bug of the tables. */
static const struct cli_option *row_of(const struct cli_args *a, int c)
{
	const struct cli_option *o = NULL;
	for (int k = 0; k < a->nrows && !o; k++)
		if (row_value(a->rows[k]) == c)
			o = a->rows[k];
	if (!o)
		abort();
	return o;
}

/* One option with its value (optarg) into the arguments: 0 when the
 * parser takes it (the options every verb shares), else what
 * cli_args_next returns: -1 after --help or an error, or the id of one
 * of the verb's own options, with its value in *arg. */
static int take_option(struct cli_args *a, const struct cli_option *o, const char **arg)
{
	int rc;
	switch (o->id) {
	case OPT_HELP:
		cli_print_help(a->verb, stdout);
		a->status = EXIT_OK;
		a->done = true;
		return -1;
	case OPT_POLICY:
		a->policy_path = optarg;
		break;
	case OPT_PRESET:
		a->preset = optarg;
		break;
	case OPT_CONTEXT:
		if ((rc = cli_context_arg(a->ctx, a->verb->name, optarg)) != EXIT_OK)
			return failed(a, rc, o);
		break;
	case OPT_HOST:
		if ((rc = cli_host_arg(a->ctx, a->verb->name, optarg)) != EXIT_OK)
			return failed(a, rc, o);
		a->host = optarg;
		break;
	case OPT_WORKSPACE:
	case OPT_CWD:
		rc = cli_dir_context_arg(a->ctx, a->verb->name,
					 o->id == OPT_WORKSPACE ? "workspace" : "cwd", optarg);
		if (rc != EXIT_OK)
			return failed(a, rc, o);
		break;
	case OPT_AUDIT:
		a->audit_path = optarg;
		break;
	case OPT_SYSLOG:
		a->syslog = optarg;
		break;
	case OPT_ACTOR:
		a->actor = optarg;
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_FORMAT:
		a->format = optarg;
		break;
	default:
		*arg = optarg;
		return (int)o->id;
	}
	return 0;
}

int cli_args_next(struct cli_args *a, const char **arg)
{
	int rc;
	*arg = NULL;
	while (!a->done) {
		int c = getopt_long(a->argc, a->argv, a->shortopts, a->longopts, NULL);
		if (c == -1) {
			/* The end, or "--": what follows are operands. */
			add_rest(a, optind);
			break;
		}
		if (c == 1) {
			add_operand(a, optarg);
			if (a->verb->command_operand)
				add_rest(a, optind);
			continue;
		}
		if (c == ':')
			return missing_argument(a);
		if (c == '?')
			return unknown_option(a);
		const struct cli_option *o = row_of(a, c);
		a->seen[o->id] = o;
		if (o->values && !word_in(optarg, strlen(optarg), o->values)) {
			char values[128];
			values_text(o->values, values, sizeof(values));
			return fail(a, "unknown %s '%s': use %s", o->name, optarg, values);
		}
		if (o->flags & CLI_REST) {
			a->rest = a->noperands;
			add_rest(a, optind < a->argc && strcmp(a->argv[optind], "--") == 0 ? optind + 1
											  : optind);
			break;
		}
		if ((rc = take_option(a, o, arg)) != 0)
			return rc;
	}
	return 0;
}

int cli_args_form(struct cli_args *a, const char *form)
{
	for (int id = 0; id < OPT_COUNT; id++) {
		const struct cli_option *o = a->seen[id];
		if (!o || !o->forms || word_in(form, strlen(form), o->forms))
			continue;
		char forms[128];
		values_text(o->forms, forms, sizeof(forms));
		fail(a, "--%s is not an option of 'cordon %s %s' (it belongs to %s)", o->name,
		     a->verb->name, form, forms);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* ---- --help ------------------------------------------------------------------- */

#define HELP_COLUMN 23

static void print_row(const struct cli_option *o, FILE *out)
{
	char head[64];
	int n;
	if (o->letter)
		n = snprintf(head, sizeof(head), "  -%c, --%s", o->letter, o->name);
	else
		n = snprintf(head, sizeof(head), "  --%s", o->name);
	if (o->arg)
		n += snprintf(head + n, sizeof(head) - (size_t)n, " %s", o->arg);
	fputs(head, out);
	/* The help starts in its column, or on the next line when the option
	 * leaves no blank before it. */
	if (n > HELP_COLUMN - 2)
		fprintf(out, "\n%*s", HELP_COLUMN, "");
	else
		fprintf(out, "%*s", HELP_COLUMN - n, "");
	for (const char *p = o->help; *p;) {
		size_t len = strcspn(p, "\n");
		fwrite(p, 1, len, out);
		fputc('\n', out);
		p += len;
		if (*p == '\n' && *++p)
			fprintf(out, "%*s", HELP_COLUMN, "");
	}
}

void cli_print_help(const struct verb *v, FILE *out)
{
	static const char *const headings[CLI_FAMILY_COUNT] = {
		[CLI_OWN] = "Options:",
		[CLI_POLICY] = "Policy and context:",
		[CLI_AUDIT] = "Audit:",
		[CLI_OUTPUT] = "Output:",
	};
	unsigned bit = 1u << v->id;
	fputs(v->usage, out);
	for (int f = 0; f < CLI_FAMILY_COUNT; f++) {
		bool first = true;
		for (unsigned i = 0; i < cli_noptions; i++) {
			const struct cli_option *o = &cli_options[i];
			if (!(o->verbs & bit) || (int)o->family != f)
				continue;
			if (first)
				fprintf(out, "\n%s\n", headings[f]);
			first = false;
			print_row(o, out);
		}
	}
	if (v->epilogue)
		fprintf(out, "\n%s", v->epilogue);
}
