/* The policy files compiled into the binary; the data is generated from
 * rules/ at build time (build-aux/embed.sh). */
#include "config.h"

#include "embedded.h"
#include "base/source.h"

#include <string.h>

const struct embedded_file embedded_files[] = {
#include "embedded-data.inc"
};

const size_t embedded_file_count = sizeof(embedded_files) / sizeof(embedded_files[0]);

const struct embedded_file *embedded_find(const char *name)
{
	for (size_t i = 0; i < embedded_file_count; i++)
		if (strcmp(embedded_files[i].name, name) == 0)
			return &embedded_files[i];
	return NULL;
}

bool embedded_included(const struct src_file *f)
{
	return f && !f->path && f->has_include && embedded_find(f->name);
}
