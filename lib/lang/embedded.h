/* Policy files compiled into the binary (generated from rules/). */
#ifndef CORDON_EMBEDDED_H
#define CORDON_EMBEDDED_H

#include <stdbool.h>
#include <stddef.h>

struct embedded_file {
	const char *name; /* e.g. "rules/default.cordon" */
	const char *text;
	size_t len;
};

extern const struct embedded_file embedded_files[];
extern const size_t embedded_file_count;

const struct embedded_file *embedded_find(const char *name);

struct src_file; /* source.h */
/* Was f brought in by an include that found no file beside the includer
 * and read the copy compiled into cordon?  Such a file is not in the
 * user's tree: tools name it, but do not hold the user to its findings. */
bool embedded_included(const struct src_file *f);

#endif
