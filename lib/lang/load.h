/* Reading policy text: files from disk (bounded in size, never binary),
 * embedded text, and the include graph, parsed into one tree per file. */
#ifndef CORDON_LOAD_H
#define CORDON_LOAD_H

#include <stdbool.h>
#include <sys/stat.h>

#include "ast.h"
#include "base/diag.h"
#include "base/source.h"

struct comment_list; /* parse.h */

#define LOAD_MAX_FILE_BYTES (8u << 20)
#define LOAD_MAX_INCLUDE_DEPTH 32

struct load_ctx {
	struct srcmgr *sm;
	struct diag_list *diags;
	struct arena *arena;
	bool io_error;  /* the root file itself could not be read */
	/* Read the program specs of a policy file built into cordon when
	 * each is first looked up (load_defer_programs); off for tools that
	 * show a policy as written. */
	bool defer_specs;
	/* Leave the `test` blocks of a policy file built into cordon unread:
	 * for a policy loaded to decide, which never runs them (cordon test,
	 * check and lint read every file whole). */
	bool skip_tests;
};

/* Load, parse and resolve the includes of a file on disk.  Returns the
 * root tree, or NULL when the root file could not be read. */
struct ast *load_file(struct load_ctx *lc, const char *path);
/* The same for text in memory; `name` is shown in diagnostics.  Includes
 * resolve against the embedded files (see embedded.h) when base_dir is NULL. */
struct ast *load_text(struct load_ctx *lc, const char *name, const char *base_dir,
		      const char *text, size_t len);
/* The same for a policy file built into cordon (text, len: of static
 * duration, text[len] a NUL), read in place; lc->defer_specs and
 * lc->skip_tests apply to it as to the built-in files it includes. */
struct ast *load_builtin(struct load_ctx *lc, const char *name, const char *text, size_t len);
/* Parse file `file` of lc->sm on its own, its includes unread, refusing
 * binary or oversized text as load_file does; record its comments in
 * *comments when that is not NULL. */
struct ast *load_parse(struct load_ctx *lc, uint32_t file, struct comment_list *comments);

/* All of fd, or up to one byte past LOAD_MAX_FILE_BYTES, so that load_parse
 * refuses an oversized text: *text is malloc'd and NUL-terminated.  Returns
 * 0 or an errno. */
/* A file built into cordon (text, len: its bytes, of static duration;
 * text[len] is a NUL), with each `program` statement's body left unread
 * (lc->defer_specs) and its `test` blocks left out (lc->skip_tests): the
 * tree that stands for it, or NULL when the file is not of the form read
 * so and is to be parsed whole. */
struct ast *load_defer_programs(struct load_ctx *lc, uint32_t file, const char *text, size_t len);

/* Where a subcommand statement lies in a deferred program statement:
 * [start, end), and its body's inside [open, close). */
struct load_range {
	uint32_t start, end, open, close;
};
/* The subcommand statements directly in the body of the program statement
 * at [start, end) of text, the text of a file built into cordon, so that
 * each is read when it is first looked up: their number, their places in
 * *subs (malloc'd; the caller frees it), and in *open the offset past the
 * '{' that opens the body.  0, and nothing to free, when the body is not
 * of the form read here or has no subcommands: it is read whole. */
size_t load_defer_subcommands(const char *text, uint32_t start, uint32_t end, uint32_t *open,
			      struct load_range **subs);

int load_read_fd(int fd, char **text, size_t *len);
/* The file at path, read as load_file reads it (a directory is EISDIR);
 * its fstat in *st when st is not NULL.  Returns 0 or an errno. */
int load_read_path(const char *path, char **text, size_t *len, struct stat *st);

#endif
