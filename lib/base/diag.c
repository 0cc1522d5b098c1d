#include "config.h"

#include "diag.h"

#include <stdlib.h>
#include <string.h>

void diag_init(struct diag_list *dl)
{
	memset(dl, 0, sizeof(*dl));
	dl->limit = 100;
}

void diag_free(struct diag_list *dl)
{
	for (size_t i = 0; i < dl->n; i++)
		diag_record_free(&dl->items[i]);
	free(dl->items);
	diag_init(dl);
}

void diag_record_free(struct diag *d)
{
	free(d->message);
	free(d->hint);
	free(d->note);
	free(d->key);
}

struct diag *diag_add(struct diag_list *dl, enum diag_severity sev, const struct loc *loc,
		      const char *id, const char *fmt, ...)
{
	struct diag d = { .severity = sev, .id = id };
	struct strbuf sb;
	va_list ap;

	if (sev == DIAG_ERROR) {
		if (dl->nerrors >= dl->limit) {
			dl->truncated = true;
			dl->nerrors++;
			return NULL;
		}
		dl->nerrors++;
	} else if (sev == DIAG_WARNING) {
		dl->nwarnings++;
	}
	if (loc) {
		d.has_loc = true;
		d.loc = *loc;
	}
	sb_init(&sb);
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	d.message = sb_steal(&sb);
	grow_array((void **)&dl->items, &dl->cap, dl->n + 1, sizeof(d));
	dl->items[dl->n] = d;
	return &dl->items[dl->n++];
}

void diag_hint(struct diag *d, const char *fmt, ...)
{
	struct strbuf sb;
	va_list ap;
	if (!d)
		return;
	sb_init(&sb);
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(d->hint);
	d->hint = sb_steal(&sb);
}

void diag_note(struct diag *d, struct loc loc, const char *fmt, ...)
{
	struct strbuf sb;
	va_list ap;
	if (!d)
		return;
	sb_init(&sb);
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(d->note);
	d->note = sb_steal(&sb);
	d->has_note = true;
	d->note_loc = loc;
}

static int diag_cmp(const void *pa, const void *pb)
{
	const struct diag *a = pa, *b = pb;
	if (a->has_loc != b->has_loc)
		return a->has_loc ? 1 : -1;
	if (a->has_loc) {
		if (a->loc.file != b->loc.file)
			return a->loc.file < b->loc.file ? -1 : 1;
		if (a->loc.start != b->loc.start)
			return a->loc.start < b->loc.start ? -1 : 1;
	}
	return 0;
}

void diag_sort(struct diag_list *dl)
{
	/* Stable: insertion sort keeps discovery order among equal keys and
	 * the lists are short (the error limit bounds them). */
	for (size_t i = 1; i < dl->n; i++) {
		struct diag d = dl->items[i];
		size_t j = i;
		while (j > 0 && diag_cmp(&dl->items[j - 1], &d) > 0) {
			dl->items[j] = dl->items[j - 1];
			j--;
		}
		dl->items[j] = d;
	}
}

const char *const diag_severity_names[DIAG_SEVERITY_COUNT] = {
	[DIAG_ERROR] = "error",
	[DIAG_WARNING] = "warning",
	[DIAG_INFO] = "info",
};

void diag_print_include_chain(FILE *out, const struct srcmgr *sm, uint32_t file)
{
	const struct src_file *f = srcmgr_file(sm, file);
	bool first = true;
	char where[512];
	while (f && f->has_include) {
		srcmgr_format_loc(sm, f->include_loc, where, sizeof(where));
		fprintf(out, "%s %s", first ? "In file included from" : ",\n                 from",
			where);
		first = false;
		f = srcmgr_file(sm, f->include_loc.file);
	}
	if (!first)
		fputs(":\n", out);
}

void diag_print_excerpt(FILE *out, const struct srcmgr *sm, struct loc loc)
{
	const struct src_file *f = srcmgr_file(sm, loc.file);
	unsigned line, col;
	size_t start, len;
	if (!f)
		return;
	srcmgr_linecol(sm, loc.file, loc.start, &line, &col);
	srcmgr_line(sm, loc.file, line, &start, &len);
	/* Keep the excerpt printable: binary input shows as '?'. */
	bool utf8 = utf8_invalid_at((const unsigned char *)f->text + start, len) == len;
	fprintf(out, "%5u | ", line);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)f->text[start + i];
		bool shown = c == '\t' || (c >= 0x20 && c != 0x7f && (c < 0x80 || utf8));
		fputc(shown ? c : '?', out);
	}
	fputs("\n      | ", out);
	for (size_t i = 0; i + 1 < col && i < len; i++)
		fputc(f->text[start + i] == '\t' ? '\t' : ' ', out);
	fputc('^', out);
	size_t span_end = loc.end > loc.start ? loc.end : loc.start + 1;
	size_t line_end = start + len;
	for (size_t off = (size_t)loc.start + 1; off < span_end && off < line_end; off++)
		fputc('~', out);
	fputc('\n', out);
}

void diag_print_record(FILE *out, const struct srcmgr *sm, const struct diag *d)
{
	char where[512];
	if (d->has_loc && srcmgr_file(sm, d->loc.file)) {
		diag_print_include_chain(out, sm, d->loc.file);
		srcmgr_format_loc(sm, d->loc, where, sizeof(where));
		fprintf(out, "%s: ", where);
	} else {
		fputs("cordon: ", out);
	}
	fprintf(out, "%s: %s", diag_severity_names[d->severity], d->message);
	if (d->id)
		fprintf(out, " [%s]", d->id);
	fputc('\n', out);
	if (d->has_loc)
		diag_print_excerpt(out, sm, d->loc);
	if (d->hint)
		fprintf(out, "      = hint: %s\n", d->hint);
	if (d->has_note && srcmgr_file(sm, d->note_loc.file)) {
		srcmgr_format_loc(sm, d->note_loc, where, sizeof(where));
		fprintf(out, "%s: note: %s\n", where, d->note);
		diag_print_excerpt(out, sm, d->note_loc);
	} else if (d->note) {
		fprintf(out, "cordon: note: %s\n", d->note);
	}
}

void diag_print(FILE *out, const struct srcmgr *sm, const struct diag_list *dl)
{
	for (size_t i = 0; i < dl->n; i++)
		diag_print_record(out, sm, &dl->items[i]);
	if (dl->truncated)
		fprintf(out, "cordon: note: too many errors; stopped after %zu\n", dl->limit);
	if (dl->nerrors)
		fprintf(out, "%zu error%s\n", dl->nerrors, dl->nerrors == 1 ? "" : "s");
}
