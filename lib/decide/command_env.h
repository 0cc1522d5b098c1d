/* The environment a simple command uses that only a sandbox bounds. */
#ifndef CORDON_COMMAND_ENV_H
#define CORDON_COMMAND_ENV_H

#include <stddef.h>

#include "ir/ir.h"
#include "shell/shell.h"

/* Why c needs the sandbox's environment (it expands a variable whose name
 * e's `secret` list matches, prints the environment as its spec says, or
 * sets a variable of e's `code` list), written into buf; NULL when it does
 * none of these.  e and spec may be NULL. */
const char *cmd_env_caution(const struct ir_env *e, const struct shell_cmd *c,
			    const struct ir_spec *spec, char *buf, size_t size);

#endif
