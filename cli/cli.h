/* The cordon command: one verb a file, thin over libcordon. */
#ifndef CORDON_CLI_H
#define CORDON_CLI_H

#include "cordon.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* Exit statuses shared by every verb. */
enum {
	EXIT_OK = 0,
	EXIT_POLICY = 1, /* policy errors, or findings with --werror */
	EXIT_USAGE = 2,  /* usage or I/O error */
};

struct verb {
	const char *name;
	const char *summary;
	const char *usage;  /* printed by VERB --help */
	int (*run)(int argc, char **argv);
};

int cmd_check(int argc, char **argv);
int cmd_lint(int argc, char **argv);
int cmd_fmt(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_write(int argc, char **argv);
int cmd_edit(int argc, char **argv);
int cmd_approve(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_approve_session(int argc, char **argv);
int cmd_approve_exec(int argc, char **argv);
int cmd_revoke(int argc, char **argv);
int cmd_hook(int argc, char **argv);

/* Print "cordon: message" to stderr and return EXIT_USAGE. */
int cli_usage_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The help text of a verb, on stdout. */
int cli_help(const char *verb);
/* -p FILE when given; otherwise the installed system policy when present,
 * or the embedded default.  Prints diagnostics; NULL (with *status set)
 * when the policy cannot be used. */
cordon_policy *cli_load_policy(const char *path, int *status);
/* Apply one "--host NAME" argument. */
int cli_host_arg(cordon_context *ctx, const char *verb, const char *arg);
/* Apply one "--context k=v" argument. */
int cli_context_arg(cordon_context *ctx, const char *verb, const char *arg);
/* Fill what the command line left unset, so a person at a shell needs no
 * flags: cwd and workspace = the current directory, home = $HOME, user,
 * agent_dir = ~/.cordon, session_dir = ~/.cordon/sessions/default.  tmp has
 * no default: only the runner makes one. */
void cli_context_defaults(cordon_context *ctx);
/* --workspace DIR and --cwd DIR: name=DIR, a relative DIR joined to the
 * current directory (not resolved). */
int cli_dir_context_arg(cordon_context *ctx, const char *verb, const char *name,
			const char *value);
/* cli_context_defaults as `cordon run` applies them: the cwd defaults to
 * the workspace first. */
void cli_run_context_defaults(cordon_context *ctx);
/* The audit log of --audit PATH, else of $CORDON_AUDIT_LOG; *log stays NULL
 * when neither is given.  EXIT_OK, or EXIT_USAGE after a message. */
int cli_audit_open(const char *verb, const char *path, const cordon_policy *policy,
		   cordon_audit **log);

#endif
