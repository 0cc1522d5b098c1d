/* The environment a simple command uses that only a sandbox bounds. */
#ifndef CORDON_COMMAND_ENV_H
#define CORDON_COMMAND_ENV_H

#include <stddef.h>

#include "shell/shell.h"

/* Why c needs the sandbox's environment (it expands a secret-named
 * variable, prints the environment, or sets a variable that changes which
 * code runs), written into buf; NULL when it does none of these. */
const char *cmd_env_caution(const struct shell_cmd *c, char *buf, size_t size);

#endif
