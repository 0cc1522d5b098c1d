/* Redaction of secrets by the policy's `redact` patterns (redact.c); the
 * API is cordon_redactor_* in cordon.h. */
#ifndef CORDON_REDACT_H
#define CORDON_REDACT_H

#include <string.h>

#include "cordon.h"
#include "base/util.h"

/* cordon_redact() on a NUL-terminated string; NULL stays NULL. */
static inline char *redact_str(const cordon_redactor *r, const char *s)
{
	return s ? cordon_redact(r, s, strlen(s), NULL, NULL) : NULL;
}

#endif
