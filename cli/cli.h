/* The cordon command: one verb a file, thin over libcordon. */
#ifndef CORDON_CLI_H
#define CORDON_CLI_H

#include "cordon.h"
#include "options.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* Exit statuses shared by every verb. */
enum {
	EXIT_OK = 0,
	EXIT_POLICY = 1, /* policy errors, or findings with --werror */
	EXIT_USAGE = 2,  /* usage or I/O error */
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
int cmd_revoke(int argc, char **argv);
int cmd_proxy(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_grants(int argc, char **argv);

struct run_opts;
/* Before run_command, under the preset's `approval console`: a command
 * that asks is put to the approval console (cli/run_console.c); a yes
 * makes o approved for the preview shown (*digest) by *actor (both
 * malloc'd, for the caller to free after the run).  EXIT_OK to go on,
 * RUN_ASK (122) when the command must not run. */
int run_console(struct run_opts *o, char **actor, char **digest);
int cmd_hook(int argc, char **argv);
int cmd_bundle(int argc, char **argv);

/* Print "cordon: message" to stderr and return EXIT_USAGE. */
int cli_usage_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The names of the operations, from the library's one table, as a list
 * for a message: "read, write, exec, net" then last and "tool". */
void cli_op_names(char *buf, size_t size, const char *last);
/* The help text of a verb, on stdout. */
int cli_help(const char *verb);
/* -p FILE when given; otherwise the installed system policy when present,
 * or the embedded default.  Under a managed layer (SYSCONFDIR/cordon/
 * managed.cordon, or $CORDON_MANAGED where none is installed), the policy
 * is layered under it (cordon_policy_layer), and without -p or a system
 * policy the managed layer stands alone.  Prints diagnostics; NULL (with
 * *status set) when the policy cannot be used. */
/* The managed layer alone (docs/fleet.md): NULL with *none when there is
 * none; NULL with *status when it cannot be used (its errors printed). */
cordon_policy *cli_load_managed(bool *none, int *status);
/* Whether the real path is an administrator's policy file: the system
 * policy, the managed layer, anything in SYSCONFDIR/cordon. */
bool cli_admin_file(const char *real);
cordon_policy *cli_load_policy(const char *path, int *status);
/* Did the last cli_load_policy fail because the installed signed bundle
 * was refused (docs/fleet.md, "Signed bundles")?  `cordon run` then exits
 * 125, as for a sandbox that cannot start. */
bool cli_policy_bundle_refused(void);
/* The file at path alone, never layered (cordon diff compares files). */
cordon_policy *cli_load_policy_file(const char *path, int *status);
/* For a command whose return ends the process: the policy is freed by the exit. */
void cli_policy_done(cordon_policy *p);
/* The same for its evaluator. */
void cli_evaluator_done(cordon_evaluator *ev);
/* For a process that loads a policy, decides once and exits: the heap
 * keeps what is freed rather than returning it to the kernel. */
void cli_one_shot_heap(void);
/* cli_one_shot_heap, then cli_load_policy. */
cordon_policy *cli_load_policy_one_shot(const char *path, int *status);
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
/* The audit log of --audit PATH, else of $CORDON_AUDIT_LOG, sending to the
 * system log too by --syslog WHERE, else $CORDON_SYSLOG; *log stays NULL
 * when neither is given.  EXIT_OK, or EXIT_USAGE after a message. */
int cli_audit_open(const char *verb, const char *path, const char *syslog,
		   const cordon_policy *policy, cordon_audit **log);
/* cli_audit_open's log with its error in *err (malloc'd): 0, with *log
 * NULL when neither is given, or -1. */
int cli_audit_new(const char *path, const char *syslog, const cordon_policy *policy,
		  cordon_audit **log, char **err);
/* --audit PATH, else $CORDON_AUDIT_LOG; NULL when neither is given. */
const char *cli_audit_path(const char *path);
/* --syslog WHERE, else $CORDON_SYSLOG; NULL when neither is given or it is
 * off. */
const char *cli_syslog_where(const char *where);
/* Whether cli_audit_open would open anything. */
bool cli_audit_wanted(const char *path, const char *syslog);
/* Append a record to the log when there is one; a record that cannot be
 * written is said on stderr and changes nothing else. */
void cli_audit_append(cordon_audit *log, const struct cordon_audit_record *rec);
/* The record of a session grant of a tool (approve --session, revoke). */
void cli_audit_grant(cordon_audit *log, const char *preset, const char *tool,
		     const char *decision, const char *rule, const char *reason,
		     const char *actor, const char *outcome, int err);

/* A write or an edit the command line asks for: done through the policy
 * by write and edit, approved once by approve (cli/mutation.c). */
struct cli_mutation {
	enum cordon_mutation_kind kind;
	const char *path, *approval, *old_text, *new_text;
	bool all;
	unsigned long ttl;        /* approve: seconds; 0: the default */
	const char *preset, *actor; /* filled from the parsed options */
};
/* Decide and do (or, under approve, approve) the mutation; the exit status. */
int cli_mutation_run(struct cli_args *a, struct cli_mutation *m);

/* The request of eval's and explain's operands (OP TARGET, or exec --argv
 * WORD...), with --escalate's justification.  EXIT_OK, or EXIT_USAGE after
 * a message. */
int cli_request_from_args(const struct cli_args *a, const char *escalate,
			  struct cordon_request *req);

#endif
