/* Policy files compiled into the binary (generated from rules/). */
#ifndef CORDON_EMBEDDED_H
#define CORDON_EMBEDDED_H

#include <stddef.h>

struct embedded_file {
	const char *name; /* e.g. "rules/default.cordon" */
	const char *text;
	size_t len;
};

extern const struct embedded_file embedded_files[];
extern const size_t embedded_file_count;

const struct embedded_file *embedded_find(const char *name);

#endif
