/* Writing JSON text without building JSON objects. */
#ifndef CORDON_JSON_WRITE_H
#define CORDON_JSON_WRITE_H

#include "util.h"

/* s as a JSON string, escaped as jansson escapes it; a string that is not
 * UTF-8 is written with every byte from 0x80 up as '?'. */
void json_add_string(struct strbuf *sb, const char *s);

#endif
