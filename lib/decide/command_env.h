/* The environment a simple command uses that only a sandbox bounds. */
#ifndef CORDON_COMMAND_ENV_H
#define CORDON_COMMAND_ENV_H

#include <stddef.h>

#include "ir/ir.h"
#include "ir/match.h"
#include "shell/shell.h"

/* A preset env's `secret` and `code` names, compiled once (an
 * evaluator's). */
struct cmd_names {
	struct name_set secret, code;
};

void cmd_names_init(struct cmd_names *n, const struct ir_env *e);
void cmd_names_free(struct cmd_names *n);

/* Why c needs the sandbox's environment (it expands a variable whose name
 * e's `secret` list matches, prints the environment as its spec says, or
 * sets a variable of e's `code` list), written into buf; NULL when it does
 * none of these.  e and spec may be NULL; md is the caller's match data. */
const char *cmd_env_caution(const struct cmd_names *e, pcre2_match_data *md,
			    const struct shell_cmd *c, const struct ir_spec *spec, char *buf,
			    size_t size);

#endif
