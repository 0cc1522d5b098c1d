/* What the scanner and the parser share: the per-parse state passed through
 * %parse-param and yyextra (there is no global state), and the entry point. */
#ifndef CORDON_PARSE_H
#define CORDON_PARSE_H

#include "ast.h"
#include "base/diag.h"
#include "base/source.h"

/* Where a file's comments are, in order: the parser drops them, the
 * formatter needs them back. */
struct comment_list {
	struct loc *items;
	size_t n, cap;
};

struct parse_state {
	struct srcmgr *sm;
	struct diag_list *diags;
	struct arena *arena;
	uint32_t file;
	const char *text;     /* the file's bytes */
	size_t len;
	uint32_t offset;      /* scanner position */
	uint32_t prev_end;    /* end of the token before the current one */
	uint32_t cur_end;
	struct ast *root;
	struct ast_seq partial; /* statements so far, kept if the parse aborts */
	unsigned lex_errors;
	bool lex_error_pending; /* a lexical error since the last token */
	uint32_t lex_error_at;
	struct comment_list *comments; /* NULL unless the caller keeps comments */
	/* parse_range_kept: the scanner's bytes are the kept ranges, one
	 * blank between each two; gaps[i] is the place of the i-th blank in
	 * them and the offset of the range after it (pos: the scanner's). */
	const uint32_t (*gaps)[2];
	size_t ngaps, gap;
	uint32_t pos;
};

#define CORDON_YYLTYPE struct loc
#define CORDON_YYLTYPE_IS_DECLARED 1

/* Parse file `file` of sm; always returns an AST_FILE (possibly partial).
 * Errors go to diags. */
struct ast *parse_file(struct srcmgr *sm, uint32_t file, struct arena *arena,
		       struct diag_list *diags);
/* The same, also recording every comment in *comments when it is not NULL
 * (the caller frees comments->items). */
struct ast *parse_file_comments(struct srcmgr *sm, uint32_t file, struct arena *arena,
				struct diag_list *diags, struct comment_list *comments);

/* Parse bytes [start, end) of text, the text of file `file`, on their own:
 * locations are offsets into the whole text, as a parse of it gives.  The
 * scanner reads only those bytes (a program spec read when it is first
 * looked up, load.h). */
struct ast *parse_range(uint32_t file, const char *text, uint32_t start, uint32_t end,
			struct arena *arena, struct diag_list *diags);
/* The same, with only the nkeep ranges [keep[i][0], keep[i][1]) of those
 * bytes kept, ascending and within them: what lies between two reads as
 * one blank, and what is kept is parsed at its own offsets (a spec's
 * subcommand read when it is first looked up, load_defer_subcommands). */
struct ast *parse_range_kept(uint32_t file, const char *text, uint32_t start, uint32_t end,
			     const uint32_t (*keep)[2], size_t nkeep, struct arena *arena,
			     struct diag_list *diags);

#endif
