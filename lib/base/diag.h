/* Diagnostics: queued records printed once, GCC style, with the source line,
 * a caret under the primary span and '~' under the rest of it.  The errors
 * of `cordon check` and the findings of `cordon lint` are both records of
 * this one kind, printed by diag_print_record. */
#ifndef CORDON_DIAG_H
#define CORDON_DIAG_H

#include <stdbool.h>
#include <stdio.h>

#include "source.h"
#include "util.h"

enum diag_severity { DIAG_ERROR, DIAG_WARNING, DIAG_INFO, DIAG_SEVERITY_COUNT };

/* "error", "warning", "info". */
extern const char *const diag_severity_names[DIAG_SEVERITY_COUNT];

struct diag {
	enum diag_severity severity;
	bool has_loc;
	struct loc loc;
	const char *id;  /* stable identifier, e.g. "undefined-variable" */
	char *message;
	char *hint;      /* optional, e.g. "did you mean 'workspace'?" */
	bool has_note;
	struct loc note_loc; /* optional secondary location ("first defined here") */
	char *note;
	char *key;       /* lint: what makes two findings at one place the same; or NULL */
};

struct diag_list {
	struct diag *items;
	size_t n, cap;
	size_t nerrors, nwarnings;
	size_t limit;        /* stop recording errors after this many */
	bool truncated;
};

void diag_init(struct diag_list *dl);
void diag_free(struct diag_list *dl);
/* Queue a diagnostic; returns it so a hint or note can be attached, or NULL
 * when the error limit was reached. loc may be NULL. */
struct diag *diag_add(struct diag_list *dl, enum diag_severity sev, const struct loc *loc,
		      const char *id, const char *fmt, ...) PRINTF_LIKE(5, 6);
void diag_hint(struct diag *d, const char *fmt, ...) PRINTF_LIKE(2, 3);
void diag_note(struct diag *d, struct loc loc, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Free what one record owns (not the record). */
void diag_record_free(struct diag *d);
/* Print one record: "file:line:col: SEVERITY: message [id]", the include
 * chain before it, the source line with its caret, the hint and the note. */
void diag_print_record(FILE *out, const struct srcmgr *sm, const struct diag *d);
/* Print every queued record and, when there were errors, the "N errors" line. */
void diag_print(FILE *out, const struct srcmgr *sm, const struct diag_list *dl);
/* The pieces of a printed record, for other reports in the same style:
 * "In file included from ..." lines, and the source line with its caret. */
void diag_print_include_chain(FILE *out, const struct srcmgr *sm, uint32_t file);
void diag_print_excerpt(FILE *out, const struct srcmgr *sm, struct loc loc);
/* Order records by file and offset, keeping insertion order for ties. */
void diag_sort(struct diag_list *dl);

#endif
