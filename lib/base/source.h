/* The source manager: every file a compile reads, with its text, its line
 * map and the include that brought it in.  Locations elsewhere are byte
 * offsets into these texts; line and column are computed only for printing. */
#ifndef CORDON_SOURCE_H
#define CORDON_SOURCE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A half-open byte range [start, end) in one file. */
struct loc {
	uint32_t file;
	uint32_t start, end;
};

#define NO_FILE UINT32_MAX

struct src_file {
	char *name;      /* as shown in diagnostics */
	char *path;      /* for resolving includes; NULL for embedded text */
	char *text;      /* owned unless borrowed; NUL-terminated after len bytes */
	size_t len;
	/* The line map, made the first time lines are asked about
	 * (srcmgr_linecol, srcmgr_line, srcmgr_nlines): a hook call reads the
	 * 3,300 lines of the built-in command specs and asks where a few
	 * lines of the default policy are. */
	uint32_t *line_starts;
	size_t nlines;
	atomic_bool lines_built;
	bool has_include; /* brought in by an include statement */
	bool rejected;    /* not parsed: binary, too large */
	bool borrowed;    /* text is of static duration (built into cordon), not owned */
	/* Built into cordon and loaded only to decide: what the build's own
	 * tests establish of it is not checked again (its regexes compile,
	 * ck_decode_regex; the evaluator compiles its preset's anyway). */
	bool checked_by_build;
	struct loc include_loc;
};

struct srcmgr {
	struct src_file **files;
	size_t n, cap;
};

void srcmgr_init(struct srcmgr *sm);
void srcmgr_free(struct srcmgr *sm);
/* Takes ownership of text (len bytes plus a terminating NUL). */
uint32_t srcmgr_add(struct srcmgr *sm, const char *name, const char *path, char *text,
		    size_t len, const struct loc *included_from);
/* The same for text of static duration, which is not copied or freed. */
uint32_t srcmgr_add_static(struct srcmgr *sm, const char *name, const char *text, size_t len,
			   const struct loc *included_from);
const struct src_file *srcmgr_file(const struct srcmgr *sm, uint32_t file);
/* 1-based line and column (in bytes) of an offset. */
void srcmgr_linecol(const struct srcmgr *sm, uint32_t file, uint32_t off, unsigned *line,
		    unsigned *col);
/* The number of lines of a file; 0 for none. */
size_t srcmgr_nlines(const struct srcmgr *sm, uint32_t file);
/* Start offset and length (without the newline) of a 1-based line. */
void srcmgr_line(const struct srcmgr *sm, uint32_t file, unsigned line, size_t *start,
		 size_t *len);
/* "file:line:col" of a location, in a static-free caller buffer. */
void srcmgr_format_loc(const struct srcmgr *sm, struct loc loc, char *buf, size_t size);

#endif
