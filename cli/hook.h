/* cordon hook: what the event side (cmd_hook.c) and the configuration side
 * (cmd_hook_install.c) share about each agent's hook protocol. */
#ifndef CORDON_CLI_HOOK_H
#define CORDON_CLI_HOOK_H

#include <stdbool.h>

#include "cordon.h"

enum hook_agent { HOOK_CLAUDE, HOOK_CODEX, HOOK_GEMINI, HOOK_AGENT_COUNT };

struct hook_proto {
	const char *name;         /* on the command line: claude, codex, gemini */
	const char *title;        /* for people: Claude Code, Codex, Gemini CLI */
	const char *event;        /* the pre-tool event the hook is installed for */
	const char *event2;       /* a second event it answers, or NULL */
	const char *shell_tool;   /* the tool that runs shell commands */
	const char *dir;          /* the agent's own directory under home or project */
	const char *file;         /* its hook configuration file in that directory */
	const char *matcher;      /* the tools the installed hook is asked about */
	int timeout;              /* the installed hook's timeout, in the file's unit */
	bool can_rewrite;         /* the protocol lets a hook replace the tool input */
	bool can_ask;             /* the protocol lets a hook ask the person */
	const char *project_env;  /* the agent's variable naming the project root */
};

extern const struct hook_proto hook_protos[HOOK_AGENT_COUNT];

/* The protocol of an agent named on the command line, or NULL. */
const struct hook_proto *hook_proto_find(const char *name);
/* 'word' quoted for a POSIX shell, malloc'd. */
char *hook_shell_quote(const char *word);

/* The options of hook install, uninstall and doctor. */
struct install_opts {
	const char *scope;  /* user or project */
	const char *policy, *preset, *dir;
	bool dry_run;
	bool no_ask;  /* the installed command carries --no-ask */
};

/* Codex's hook trust (hook_codex.c): its home ($CODEX_HOME resolved, else
 * $HOME/.codex), the config.toml key of one hooks.json entry, the hash
 * Codex trusts it by ("sha256:..."), the trusted hash recorded for a key
 * in config.toml's text (or NULL), and that text with the key recorded as
 * trusted (NULL and *err when cordon cannot edit it safely); all malloc'd. */
char *codex_home(void);
char *codex_trust_key(const char *hooks_path, const char *event, size_t group);
char *codex_trust_hash(const char *event, const char *matcher, const char *command, long timeout);
char *codex_trust_read(const char *toml, const char *key);
char *codex_trust_record(const char *toml, const char *key, const char *hash, char **err);

/* Say why on stderr and exit 2: the tool call is blocked (cmd_hook.c). */
_Noreturn void hook_block(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The answer in each agent's protocol (hook_answer.c); rewritten, the
 * command inside cordon run, or NULL. */
typedef struct json_t json_t;
json_t *hook_answer_claude(const char *event, enum cordon_effect e, const char *why, json_t *in,
			   const char *rewritten);
json_t *hook_answer_codex(const char *event, enum cordon_effect e, const char *why, json_t *in,
			  const char *rewritten);
json_t *hook_answer_gemini(enum cordon_effect e, const char *why, json_t *in,
			   const char *rewritten);

/* A call that asks, put to the approval console (hook_console.c). */
struct hook_console_call {
	const char *preset, *op;
	const char *request;     /* the command, or the first target */
	const char *command;     /* the shell command rewritten to run under cordon run, or NULL */
	const char *digest;      /* its preview's digest, as the person sees it */
	const char *session_dir;
	unsigned hook_timeout;   /* the hook's --timeout: the wait ends before it */
	const cordon_decision *const *decisions;
	size_t ndecisions;
	struct cordon_console_ask ask;
};
/* CORDON_ALLOW on a yes (or a session grant that covers the call), with
 * *approval the id the rewritten command consumes (or NULL); CORDON_DENY
 * otherwise, *why saying why.  Audited in log. */
enum cordon_effect hook_console(const cordon_evaluator *ev, const struct hook_console_call *call,
				cordon_audit *log, char **approval, char **why);
/* The unified diff of a file write or edit the tool input describes
 * (Write's file_path and content, Edit's old_string and new_string), or
 * NULL. */
char *hook_write_diff(json_t *in);

int cmd_hook_install(const struct hook_proto *p, const struct install_opts *o);
int cmd_hook_uninstall(const struct hook_proto *p, const struct install_opts *o);
int cmd_hook_doctor(const struct hook_proto *p, const struct install_opts *o);

#endif
