/* libcordon: compile cordon policies and inspect what they grant.
 *
 * Ownership rule: every object you obtain from a cordon_*_new or
 * cordon_policy_load_* call is yours and is released with the matching
 * *_free function (which accepts NULL).  Every pointer a getter returns
 * (names, messages) is owned by the object it came from and stays valid
 * until that object is freed.  Functions that return `char *` hand you a
 * malloc'd string: free() it.  A loaded policy is immutable; it holds no
 * global state and may be read from several threads at once. */
#ifndef CORDON_H
#define CORDON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cordon_policy cordon_policy;
typedef struct cordon_context cordon_context;

/* Load and check a policy.  These never return NULL: inspect the result
 * with cordon_policy_error_count() and cordon_policy_print_diagnostics(). */
cordon_policy *cordon_policy_load_file(const char *path);
/* `name` is shown in diagnostics; includes resolve against base_dir, or
 * against the embedded files when base_dir is NULL. */
cordon_policy *cordon_policy_load_string(const char *name, const char *base_dir,
					 const char *text, size_t len);
/* The policy compiled into the binary (rules/default.cordon). */
cordon_policy *cordon_policy_load_embedded(void);
/* The same, to decide with only: its test blocks are left unread, so the
 * policy has no tests to run (cordon_policy_load_embedded has them). */
cordon_policy *cordon_policy_load_embedded_to_decide(void);
void cordon_policy_free(cordon_policy *policy);

size_t cordon_policy_error_count(const cordon_policy *policy);
size_t cordon_policy_warning_count(const cordon_policy *policy);
/* True when the policy's file could not be read at all (an I/O error,
 * exit status 2 in the command line tool) rather than being invalid. */
bool cordon_policy_io_failed(const cordon_policy *policy);
void cordon_policy_print_diagnostics(const cordon_policy *policy, FILE *out);

size_t cordon_policy_preset_count(const cordon_policy *policy);
const char *cordon_policy_preset_name(const cordon_policy *policy, size_t index);
bool cordon_policy_has_preset(const cordon_policy *policy, const char *name);
/* The preset named by `default "...";`, or NULL. */
const char *cordon_policy_default_preset(const cordon_policy *policy);
const char *cordon_policy_name(const cordon_policy *policy);
/* The name of the managed layer above the policy (cordon_policy_layer in
 * cordon_tools.h, docs/fleet.md), or NULL when it has none. */
const char *cordon_policy_managed_name(const cordon_policy *policy);
/* True when the policy says `lower_layers deny;`: as the managed layer, it
 * takes no policy under it. */
bool cordon_policy_forbids_lower_layers(const cordon_policy *policy);

/* Context variables: workspace, cwd, home, tmp, agent_dir, session_dir, user. */
cordon_context *cordon_context_new(void);
void cordon_context_free(cordon_context *ctx);
/* Returns 0, or -1 with a message in *err (malloc'd) for an unknown name,
 * an empty value or one that is not UTF-8 text, or a directory variable
 * whose value is not an absolute path. */
int cordon_context_set(cordon_context *ctx, const char *name, const char *value, char **err);
const char *cordon_context_get(const cordon_context *ctx, const char *name);
/* The name of the i-th context variable ("workspace", "cwd", ...), or NULL
 * past the last. */
const char *cordon_context_name(size_t i);
/* The host whose file system the paths mean: "linux" or "macos" (the
 * standard facts of that platform built in: on macOS /etc, /tmp and /var
 * are symlinks into /private).  Without it, this machine's.  Returns 0, or
 * -1 with *err naming the platforms there are. */
int cordon_context_set_host(cordon_context *ctx, const char *host, char **err);
/* The host set with cordon_context_set_host, or NULL. */
const char *cordon_context_get_host(const cordon_context *ctx);
/* This machine's host: "linux" or "macos". */
const char *cordon_host_native(void);

enum cordon_dump_format { CORDON_DUMP_IR, CORDON_DUMP_JSON };
enum { CORDON_DUMP_NO_ORIGINS = 1 };

/* The checked IR of one preset, flattened; context values substituted
 * where given (ctx may be NULL).  NULL with *err set when the preset is
 * unknown or the policy has errors. */
char *cordon_policy_dump(const cordon_policy *policy, const char *preset,
			 const cordon_context *ctx, enum cordon_dump_format format, int flags,
			 char **err);

/* ---- decisions --------------------------------------------------------- */

typedef struct cordon_evaluator cordon_evaluator;
typedef struct cordon_decision cordon_decision;

enum cordon_op { CORDON_READ, CORDON_WRITE, CORDON_EXEC, CORDON_NET, CORDON_TOOL, CORDON_OP_COUNT };
/* Ordered by severity. */
enum cordon_effect { CORDON_ALLOW, CORDON_ASK, CORDON_DENY, CORDON_EFFECT_COUNT };

/* What `cordon run` exits with when the policy stops the command before
 * it runs: a deny (nothing can approve it), or an ask (a person's approval
 * may).  Apart from the statuses a command gives by convention, so a host
 * can tell them from the command's own: 126 and 127 of a shell, 128+N of a
 * signal, 123 of xargs, 124 and 125 of timeout(1) (cordon run's own 124 and
 * 125 too), 101 of a Rust panic, 64 to 78 of sysexits(3).  A decision's
 * JSON names them ("run_status") for an exec that asks or is denied. */
enum { CORDON_RUN_DENIED = 121, CORDON_RUN_ASK = 122 };

struct cordon_request {
	enum cordon_op op;
	const char *target;   /* path, shell command, host[:port] or tool name:
			       * UTF-8 text; a path starting with "~" or "~user"
			       * is under that home directory (the home context
			       * variable for "~"), a relative path is under the
			       * context's cwd; NULL for an exec request given as
			       * argv */
	size_t target_len;    /* 0: strlen(target); a NUL inside target is refused */
	bool escalate;        /* exec only: run outside the sandbox */
	const char *justification; /* required, nonempty, with escalate */
	bool canonical;       /* read/write: the host vouches that target is already
			       * canonical (absolute, no symlinks): it is only checked
			       * for its spelling, not resolved on the filesystem */
	bool sandboxed;       /* exec: `cordon run` runs it, in the preset's sandbox if it
			       * has one, where the files a glob read deny matches are
			       * masked when the call starts: a read that may reach one
			       * does not escalate */
	/* exec only, instead of target (which is then NULL): the command as
	 * the argv it will be run with, argv[0..argc) exactly as execve gets
	 * them.  It is analysed as those words, never as a shell string:
	 * wrappers (env, sudo, timeout, xargs, ...) are looked through and a
	 * `sh -c STRING` inside is analysed as shell.  Exec rules match the
	 * words themselves, and their regex the words joined by one space,
	 * each quoted as a shell word in which no whitespace appears (see
	 * docs/language.md).  A shell string and an argv are never converted
	 * into each other. */
	const char *const *argv;
	size_t argc;
};

/* One preset of a policy with a context applied: the rules compiled and
 * indexed.  `policy` must outlive the evaluator.  Context variables that a
 * deny rule or a protection needs but that have no value are an error;
 * allow and ask rules that need them stay inactive (they can only widen).
 * The workspace, when given, must be canonical (not reached through a
 * symlink).  An evaluator is immutable: threads may share one. */
cordon_evaluator *cordon_evaluator_new(const cordon_policy *policy, const char *preset,
				       const cordon_context *ctx, char **err);
void cordon_evaluator_free(cordon_evaluator *ev);
/* The evaluator's preset, and whether it runs its calls in a sandbox
 * (`sandbox required`) rather than without one (`sandbox none`). */
const char *cordon_evaluator_preset(const cordon_evaluator *ev);
bool cordon_evaluator_sandboxed(const cordon_evaluator *ev);
/* Whether the net rule at rule ("file:line:col", as a decision names it)
 * is a literal that names host itself (case aside): a contact the rule
 * allows by that name, not through a pattern. */
bool cordon_evaluator_rule_names_host(const cordon_evaluator *ev, const char *rule,
				      const char *host);

/* Decide a request.  A request that cannot be decided safely (a path that
 * does not resolve, "~user" for an unknown user, "~" without a home)
 * decides deny with the reason.  A `tool` request that asks decides allow
 * when the context's session_dir holds a grant for exactly that name
 * (cordon_grant_tool).  NULL with *err only for a malformed request: a
 * target with a NUL byte or that is not valid UTF-8, an escalation
 * without justification, or one on a request other than exec. */
cordon_decision *cordon_evaluate(const cordon_evaluator *ev, const struct cordon_request *req,
				 char **err);
/* The same decision with its trace: the canonical target, every candidate
 * rule and whether it matched, and why the winner won (which matches it is
 * more specific than, which it is incomparable with). */
char *cordon_explain(const cordon_evaluator *ev, const struct cordon_request *req, char **err);
void cordon_decision_free(cordon_decision *d);

enum cordon_effect cordon_decision_effect(const cordon_decision *d);
const char *cordon_decision_reason(const cordon_decision *d);
/* "file:line:col" of the deciding rule, or NULL when no rule matched. */
const char *cordon_decision_rule(const cordon_decision *d);
const char *cordon_decision_preset(const cordon_decision *d);
/* Under a managed layer, which layer's decision this is: "managed" or
 * "user" (the stricter of the two; see docs/fleet.md); NULL without one. */
const char *cordon_decision_layer(const cordon_decision *d);
/* For an exec request, what was analysed: "shell" (the target as a shell
 * string) or "argv" (the request's words); NULL for other operations. */
const char *cordon_decision_analysed(const cordon_decision *d);
/* "bwrap", "seatbelt" or "none": what the call would run under. */
const char *cordon_decision_sandbox(const cordon_decision *d);
size_t cordon_decision_operation_count(const cordon_decision *d);
/* The i-th operation the request performs; any out-parameter may be NULL. */
void cordon_decision_operation(const cordon_decision *d, size_t i, enum cordon_op *op,
			       const char **target, enum cordon_effect *effect,
			       const char **reason, const char **rule);
/* What the i-th operation is, for a shell command's parts ("delete,
 * recursive (rm)", "write (redirection >)", "runs (spec \"git\")"), or NULL. */
const char *cordon_decision_operation_detail(const cordon_decision *d, size_t i);
/* The decision as one line of JSON (no newline). */
char *cordon_decision_json(const cordon_decision *d);

const char *cordon_op_name(enum cordon_op op);
const char *cordon_effect_name(enum cordon_effect effect);
/* -1 for an unknown name. */
int cordon_op_from_name(const char *name);
int cordon_effect_from_name(const char *name);

/* ---- lowering to the OS sandbox ------------------------------------------ */

/* What an evaluator's preset compiles to for a sandbox: "bwrap" (the mount
 * plan as JSON, with origins), "bwrap-args" (the NUL-separated options that
 * `bwrap --args FD` reads), and the other kinds cordon_lower_known()
 * accepts ("sbpl", "facts": the host facts the paths were resolved with).
 * Returns malloc'd bytes with their length in *len, or NULL with *err (a
 * preset without a sandbox, a context value the profile cannot carry, a
 * Linux layer of an evaluator whose host is not linux). */
char *cordon_lower(const cordon_evaluator *ev, const char *kind, size_t *len, char **err);
bool cordon_lower_known(const char *kind);

/* ---- policy tests -------------------------------------------------------- */

/* Run the policy's test blocks, writing TAP lines to out (numbered from
 * *count + 1; *count is advanced past them); returns the number of failed
 * expectations.  The plan line is the caller's. */
size_t cordon_policy_run_tests(const cordon_policy *policy, FILE *out, size_t *count);

/* ---- safe file mutation and one-call approvals ------------------------------
 *
 * A write or an edit decided by the evaluator's preset on the canonical
 * target, then performed so that it lands exactly there: the parent is
 * opened without following any symlink, the content goes to a temp file in
 * that directory and is renamed over the target after a recheck.  See
 * docs/mutation.md for the guarantees and the limits. */

enum cordon_mutation_kind { CORDON_MUTATE_WRITE, CORDON_MUTATE_EDIT };

struct cordon_mutation {
	enum cordon_mutation_kind kind;
	const char *path;      /* as given; relative to the context's cwd */
	/* write: the new content, read from fd until end of file when fd >= 0,
	 * otherwise data[0..len) */
	int fd;
	const void *data;
	size_t len;
	/* edit: replace the exact bytes old with new; exactly one occurrence,
	 * or every occurrence (at least one) with all */
	const char *old_text;
	size_t old_len;
	const char *new_text;
	size_t new_len;
	bool all;
	/* an approval id from cordon_approve, consumed when the decision is ask */
	const char *approval;
};

enum cordon_mutation_outcome {
	CORDON_MUTATION_DONE,           /* written (cordon_approve: approval issued) */
	CORDON_MUTATION_DENIED,         /* the policy denies it */
	CORDON_MUTATION_NEEDS_APPROVAL, /* the decision is ask and no approval was given */
	CORDON_MUTATION_APPROVAL_VOID,  /* the approval is unknown, used, expired or bound
					 * to something else; it is consumed */
	CORDON_MUTATION_REFUSED,        /* the edit does not match, or the target or its
					 * parent changed while the mutation ran */
	CORDON_MUTATION_FAILED,         /* an I/O error (error holds errno) or bad arguments */
};

/* What happened, for the caller and for an audit record.  The strings are
 * malloc'd; release them with cordon_mutation_result_clear. */
struct cordon_mutation_result {
	enum cordon_mutation_outcome outcome;
	enum cordon_effect effect;  /* the policy's decision */
	char *target;               /* the canonical target, once known */
	char *message;              /* why, for every outcome but DONE */
	char *rule;                 /* the deciding rule, "file:line:col", or NULL */
	char *approval_id;          /* the approval consumed or issued, or NULL */
	int error;                  /* errno of the failing step, or 0 */
	bool created;               /* the target did not exist before */
	size_t replacements;        /* edit: occurrences replaced */
};
void cordon_mutation_result_clear(struct cordon_mutation_result *res);

/* Decide and perform one mutation; returns res->outcome.  Nothing is
 * changed unless the outcome is DONE; a failure leaves the original
 * intact and no temp file behind. */
enum cordon_mutation_outcome cordon_mutate(const cordon_evaluator *ev,
					   const struct cordon_mutation *m,
					   struct cordon_mutation_result *res);

/* When the decision on m is ask, issue a single-use approval for exactly
 * this mutation (its canonical target, arguments, content digest, the
 * preset and the identities of the target and its parent), valid for
 * ttl_seconds (0: ten minutes), kept in the session_dir context variable's
 * approvals/ directory.  Returns the approval id (malloc'd), or NULL: with
 * outcome DONE and effect allow when none is needed, otherwise with the
 * reason in res.  m->approval is ignored. */
char *cordon_approve(const cordon_evaluator *ev, const struct cordon_mutation *m,
		     unsigned ttl_seconds, struct cordon_mutation_result *res);

/* An approval of one exec request (a shell string or an argv) decided ask:
 * a single-use record in the same store, valid for ttl_seconds (0: ten
 * minutes), that binds the request, the preset and its digest, the
 * context, the ask operations of the preview (operation, target, rule and
 * what approving it grants) and the SHA-256 of the files the command runs
 * (a program named by a path, an interpreter's script, make's makefiles).
 * `cordon run --approval ID` consumes it; see docs/approvals.md for what it
 * grants.  Decide req as `cordon run` will (req->sandboxed).  Returns the
 * id (malloc'd) with *effect ask; NULL with *effect allow and *err NULL when
 * no approval is needed; NULL with *err otherwise (a deny, which no
 * approval lifts, a script that cannot be bound, a store that cannot be
 * written).  *preview (may be NULL): the preview as text, every operation
 * with its decision and rule and what an approval would do for it. */
char *cordon_approve_exec(const cordon_evaluator *ev, const struct cordon_request *req,
			  unsigned ttl_seconds, const char *actor, enum cordon_effect *effect,
			  char **preview, char **err);
/* What approving the i-th operation of an exec decision grants: "file"
 * (exactly that file becomes writable), "tree" (the directory and all below
 * it), "rule" (an exec rule is satisfied), "sandbox" (nothing widens: it
 * runs in the same sandbox), or NULL when it is not an ask.  *why (may be
 * NULL): the reason, as the preview says it. */
const char *cordon_decision_operation_grant(const cordon_decision *d, size_t i, const char **why);
/* The SHA-256 (64 hex digits, malloc'd) of what approving decision d would
 * grant: each ask operation with its target, rule and grant, in order.  A
 * host that shows the preview passes it to `cordon run --approved
 * --preview DIGEST`, which runs only if its own preview is the same. */
char *cordon_decision_preview_digest(const cordon_decision *d);

/* ---- redaction ------------------------------------------------------------ */

/* The redaction patterns of a policy, compiled once: those shipped in
 * rules/redact.cordon, with the policy's own `redact` statements added or
 * replacing them by name.  NULL with *err when the policy has errors.
 * Immutable: threads may share one. */
typedef struct cordon_redactor cordon_redactor;
cordon_redactor *cordon_redactor_new(const cordon_policy *policy, char **err);
void cordon_redactor_free(cordon_redactor *r);
size_t cordon_redactor_count(const cordon_redactor *r);
/* A malloc'd, NUL-terminated copy of buf[0..len) with every secret replaced
 * by [REDACTED:name]; its length in *out_len and the number of secrets in
 * *count (either may be NULL).  Never NULL: when matching fails the whole
 * text is withheld as [REDACTED:redaction-failed]. */
char *cordon_redact(const cordon_redactor *r, const char *buf, size_t len, size_t *out_len,
		    size_t *count);

/* ---- the audit log ----------------------------------------------------------- */

/* One JSON line a record, appended with a single write(2) to a regular file
 * opened O_APPEND (see docs/audit.md for why lines of concurrent writers do
 * not interleave).  The target, reason and arguments are redacted with the
 * policy's patterns before they reach the file. */
typedef struct cordon_audit cordon_audit;

struct cordon_audit_record {
	long long time_ms;     /* milliseconds since the epoch; 0: now */
	const char *preset;
	const char *op;        /* read, write, exec, net, tool, or a mutation (edit) */
	const char *target;    /* canonical */
	const char *decision;  /* allow, ask or deny */
	const char *rule;      /* "file:line:col" or NULL */
	const char *reason;    /* or NULL */
	const char *approval;  /* the approval id used, or NULL */
	const char *actor;     /* NULL: $USER */
	const char *outcome;   /* what happened: decided, ran, exited, written, refused ... */
	int err;               /* errno of the step that failed; 0: none */
	const char *const *args; /* arguments of the call, or NULL */
	size_t nargs;
};

/* Open (creating it 0600) the log at path; a NULL path: no file, for a log
 * that only sends to the system log (cordon_audit_syslog).  Patterns come
 * from policy (may be NULL: the embedded default's).  NULL with *err
 * naming the path. */
cordon_audit *cordon_audit_open(const char *path, const cordon_policy *policy, char **err);
/* Send every record appended from now on to the system log too, with the
 * same redaction (docs/audit.md, "The system log"): where is auto (the
 * journal when /run/systemd/journal/socket exists, else syslog on
 * /dev/log), journal, syslog, or the absolute path of a syslog socket.
 * 0, or -1 with *err for another word.  The first record connects; a
 * record the system log does not take is said once on stderr and never
 * fails the append. */
int cordon_audit_syslog(cordon_audit *log, const char *where, char **err);
/* Append one record; 0, or -1 with *err (a short write leaves a partial
 * line, which readers skip with a warning). */
int cordon_audit_append(cordon_audit *log, const struct cordon_audit_record *rec, char **err);
/* Fill preset, op, target (canonical), decision, rule and reason of rec
 * from a decision; the pointers stay owned by d. */
void cordon_audit_record_decision(struct cordon_audit_record *rec, const cordon_decision *d);
void cordon_audit_close(cordon_audit *log);
/* The record as the line it would be written as (no newline), malloc'd. */
char *cordon_audit_format(cordon_audit *log, const struct cordon_audit_record *rec);

/* ---- session grants for named tools -------------------------------------------- */

/* A grant lets `tool NAME` requests that would ask decide allow for as long
 * as the session dir keeps it: one 0600 file under SESSION_DIR/grants
 * (0700), named by the hex spelling of the exact tool name.  Grants never
 * cover read, write, exec or net, never turn deny into allow, and do not
 * apply in `approval never` presets.  actor NULL: $USER, else the current
 * user's name.  0, or -1 with *err. */
int cordon_grant_tool(const char *session_dir, const char *tool, const char *actor, char **err);
/* *removed (may be NULL) counts the grants removed; 0 or -1 with *err. */
int cordon_revoke_tool(const char *session_dir, const char *tool, size_t *removed, char **err);
int cordon_revoke_all(const char *session_dir, size_t *removed, char **err);

/* ---- the approval console ------------------------------------------------------ */

/* `cordon serve` shows the asks of hooks and runs in a browser on loopback
 * (docs/approvals.md, "The console").  They meet in a spool under
 * AGENT_DIR/console (0700; agent_dir is protected by the shipped policy):
 * pending/ID.json, one 0600 file an ask, and answers/ID.json, one 0600 file
 * the console writes once.  The console holds an exclusive lock on
 * AGENT_DIR/console/lock while it runs; an ask without it is denied. */

/* What a person answers. */
enum cordon_console_answer {
	CORDON_CONSOLE_DENY,    /* no, or anything that is not a yes */
	CORDON_CONSOLE_ONCE,    /* yes, for this one call */
	CORDON_CONSOLE_SESSION, /* yes, and the same effects for the rest of the session */
	CORDON_CONSOLE_PROJECT, /* yes once; the console wrote the rules of the same
				 * effects into the policy file (console_remember.c) */
};

/* One call that asks, as the console shows it. */
struct cordon_console_ask {
	const char *agent;       /* claude, codex, gemini, or "run" */
	const char *session;     /* the agent's session id, or NULL */
	const char *tool;        /* the agent's tool name, or NULL */
	const char *request;     /* the command or the target, as the person reads it */
	const char *diff;        /* a file write's unified diff, or NULL */
	const char *policy_file; /* the policy file the caller was given (-p FILE), where
				  * "remember for the project" writes; NULL: none */
	const cordon_decision *const *decisions; /* the call's decisions, each shown */
	size_t ndecisions;
	bool in_sandbox; /* a command cordon run runs: each ask's grant is what the
			  * approval widens in its sandbox; otherwise a yes lets the
			  * agent's one call go ahead */
};

/* Post ask to the console of agent_dir (the evaluator's context names the
 * session, workspace and preset) and wait for its answer, at most timeout
 * seconds.  0 with *answer and *actor (malloc'd: who answered, "console");
 * -1 with *err when there is no console, it closed, the time ran out, the
 * answer is not for this ask, or anything fails: the caller denies. */
int cordon_console_ask(const cordon_evaluator *ev, const struct cordon_console_ask *ask,
		       unsigned timeout, enum cordon_console_answer *answer, char **actor,
		       char **err);

/* The timeout (seconds) of the preset's `approval console` setting, or 0
 * when its asks are not sent to the console. */
unsigned cordon_evaluator_console_timeout(const cordon_evaluator *ev);

/* The console's side.  Claim the spool of agent_dir for this process: the
 * directories made private, the lock taken and held while the descriptor
 * returned stays open; -1 with *err when another console holds it. */
int cordon_console_claim(const char *agent_dir, char **err);
/* Keep url (with its token) in AGENT_DIR/console/url, 0600, so that a
 * person or a program of this user finds the console; 0 or -1 with *err. */
int cordon_console_publish(const char *agent_dir, const char *url, char **err);
/* The pending asks not yet answered nor expired, oldest first, as a JSON
 * array (malloc'd); NULL with *err. */
char *cordon_console_pending(const char *agent_dir, char **err);
/* The pending ask id as a JSON object (malloc'd), if it is pending, not
 * answered, not expired, and its digest is digest; NULL with *err and *code
 * as cordon_console_answer gives them. */
char *cordon_console_pending_ask(const char *agent_dir, const char *id, const char *digest,
				 int *code, char **err);
/* Answer the pending ask id, which the person saw with digest.  0; or -1
 * with *err and *code: 404 no such pending ask (answered and taken,
 * withdrawn or timed out), 409 already answered, 412 the digest differs
 * from the ask's, 410 expired, 500 anything else. */
int cordon_console_answer(const char *agent_dir, const char *id, const char *digest,
			  enum cordon_console_answer answer, const char *actor, int *code,
			  char **err);

/* Session grants of effects: after a yes "for the session", each ask
 * operation of decisions is granted for the session dir (a write: below
 * the written path's directory; a contact: that host and port; a tool or
 * an exec rule: that target).  0, or -1 with *err. */
int cordon_grant_effects(const char *session_dir, const cordon_decision *const *decisions,
			 size_t n, const char *actor, char **err);
/* The rule of the project layer that allows what approving op on target
 * covers, from the scope a session grant of it has: a write below its
 * directory allows writes of the glob DIR, a slash and two stars
 * (`write exact` where DIR is the root), a read `read exact`, a contact `net "HOST:PORT" allow;`, a tool
 * `tool "NAME" allow;`, a command `exec "WORDS" /^WORDS$/ allow;` (that
 * command line alone).  Malloc'd; NULL with *err for a target that is a
 * pattern, holds a quote, a variable or a wildcard, or is not known. */
char *cordon_effect_rule(enum cordon_op op, const char *target, char **err);
/* Note in session_dir's grants that rule was written into file for the
 * project, so that cordon grants lists it (the note grants nothing).  0,
 * or -1 with *err. */
int cordon_grant_note_remembered(const char *session_dir, const char *file, const char *rule,
				 const char *actor, char **err);
/* Every grant of session_dir, tools and effects, one line each, sorted:
 * "tool NAME", "write-under DIR", "net HOST:PORT", ... then a tab, who
 * granted it, a tab and when (malloc'd; "" for none).  NULL with *err. */
char *cordon_grants_describe(const char *session_dir, char **err);
/* True when every ask operation of decisions is covered by a session grant
 * of session_dir and none is a deny; false for a call with no ask, a deny,
 * or a grant that cannot be read. */
bool cordon_effects_granted(const char *session_dir, const cordon_decision *const *decisions,
			    size_t n);

const char *cordon_version(void);

#ifdef __cplusplus
}
#endif

#endif
