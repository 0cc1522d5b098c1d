/* cordon hook: what the event side (cmd_hook.c) and the configuration side
 * (cmd_hook_install.c) share about each agent's hook protocol. */
#ifndef CORDON_CLI_HOOK_H
#define CORDON_CLI_HOOK_H

#include <stdbool.h>

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

int cmd_hook_install(const struct hook_proto *p, const struct install_opts *o);
int cmd_hook_uninstall(const struct hook_proto *p, const struct install_opts *o);
int cmd_hook_doctor(const struct hook_proto *p, const struct install_opts *o);

#endif
