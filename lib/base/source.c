#include "config.h"

#include "source.h"
#include "once.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void srcmgr_init(struct srcmgr *sm)
{
	sm->files = NULL;
	sm->n = sm->cap = 0;
}

void srcmgr_free(struct srcmgr *sm)
{
	for (size_t i = 0; i < sm->n; i++) {
		struct src_file *f = sm->files[i];
		free(f->name);
		free(f->path);
		if (!f->borrowed)
			free(f->text);
		free(f->line_starts);
		free(f);
	}
	free(sm->files);
	srcmgr_init(sm);
}

static void build_line_map(void *arg)
{
	struct src_file *f = arg;
	size_t cap = 0;
	f->line_starts = NULL;
	f->nlines = 0;
	VEC_PUSH(f->line_starts, f->nlines, cap, 0);
	for (const char *p = f->text, *end = f->text + f->len;
	     (p = memchr(p, '\n', (size_t)(end - p))) && ++p < end;)
		VEC_PUSH(f->line_starts, f->nlines, cap, (uint32_t)(p - f->text));
}

uint32_t srcmgr_add(struct srcmgr *sm, const char *name, const char *path, char *text,
		    size_t len, const struct loc *included_from)
{
	struct src_file *f = xcalloc(1, sizeof(*f));
	f->name = xstrdup(name);
	f->path = path ? xstrdup(path) : NULL;
	f->text = text;
	f->len = len;
	if (included_from) {
		f->has_include = true;
		f->include_loc = *included_from;
	}
	VEC_PUSH(sm->files, sm->n, sm->cap, f);
	return (uint32_t)(sm->n - 1);
}

uint32_t srcmgr_add_static(struct srcmgr *sm, const char *name, const char *text, size_t len,
			   const struct loc *included_from)
{
	uint32_t file = srcmgr_add(sm, name, NULL, (char *)text, len, included_from);
	sm->files[file]->borrowed = true;
	return file;
}

const struct src_file *srcmgr_file(const struct srcmgr *sm, uint32_t file)
{
	return file < sm->n ? sm->files[file] : NULL;
}

/* The file with its line map made. */
static const struct src_file *lined(const struct srcmgr *sm, uint32_t file)
{
	struct src_file *f = file < sm->n ? sm->files[file] : NULL;
	if (f)
		once_build(&f->lines_built, build_line_map, f);
	return f;
}

size_t srcmgr_nlines(const struct srcmgr *sm, uint32_t file)
{
	const struct src_file *f = lined(sm, file);
	return f ? f->nlines : 0;
}

void srcmgr_linecol(const struct srcmgr *sm, uint32_t file, uint32_t off, unsigned *line,
		    unsigned *col)
{
	const struct src_file *f = lined(sm, file);
	size_t lo = 0, hi;
	if (!f) {
		*line = *col = 0;
		return;
	}
	hi = f->nlines;
	/* The last line start <= off. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->line_starts[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	*line = (unsigned)lo + 1;
	*col = (unsigned)(off - f->line_starts[lo]) + 1;
}

void srcmgr_line(const struct srcmgr *sm, uint32_t file, unsigned line, size_t *start,
		 size_t *len)
{
	const struct src_file *f = lined(sm, file);
	size_t s, e;
	if (!f || line == 0 || line > f->nlines) {
		*start = *len = 0;
		return;
	}
	s = f->line_starts[line - 1];
	e = s;
	while (e < f->len && f->text[e] != '\n')
		e++;
	if (e > s && f->text[e - 1] == '\r')
		e--;
	*start = s;
	*len = e - s;
}

void srcmgr_format_loc(const struct srcmgr *sm, struct loc loc, char *buf, size_t size)
{
	const struct src_file *f = srcmgr_file(sm, loc.file);
	unsigned line, col;
	if (!f) {
		snprintf(buf, size, "<builtin>");
		return;
	}
	srcmgr_linecol(sm, loc.file, loc.start, &line, &col);
	/* "%s:%u:%u" by hand: an evaluator names the place of every rule, and
	 * snprintf was half of that */
	char nums[2 * 12 + 2], *p = nums + sizeof(nums);
	*--p = '\0';
	do
		*--p = (char)('0' + col % 10);
	while (col /= 10);
	*--p = ':';
	do
		*--p = (char)('0' + line % 10);
	while (line /= 10);
	*--p = ':';
	size_t name = strlen(f->name), rest = (size_t)(nums + sizeof(nums) - p);
	if (size == 0)
		return;
	if (name + rest > size) {
		snprintf(buf, size, "%s%s", f->name, p); /* truncated as snprintf would */
		return;
	}
	memcpy(buf, f->name, name);
	memcpy(buf + name, p, rest);
}
