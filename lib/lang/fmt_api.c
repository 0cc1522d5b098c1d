/* cordon_format_*: the formatter behind the public API.  A formatted
 * object keeps the source manager of its one file, so the errors that kept
 * it from being formatted print with their source lines. */
#include "config.h"

#include "cordon_tools.h"
#include "fmt.h"

#include <stdlib.h>
#include <string.h>

struct cordon_formatted {
	struct srcmgr sm;
	struct diag_list diags;
	uint32_t file;
	char *out; /* NULL when the text has errors */
	size_t out_len;
};

/* Takes text (len bytes plus a NUL). */
static cordon_formatted *format_owned(const char *name, const char *path, char *text,
				      size_t len)
{
	cordon_formatted *f = xcalloc(1, sizeof(*f));
	struct arena arena;
	srcmgr_init(&f->sm);
	diag_init(&f->diags);
	arena_init(&arena);
	struct load_ctx lc = { &f->sm, &f->diags, &arena, false, false, false };
	f->file = srcmgr_add(&f->sm, name, path, text, len, NULL);
	f->out = fmt_file(&lc, f->file, &f->out_len);
	arena_free(&arena);
	diag_sort(&f->diags);
	return f;
}

static cordon_formatted *read_failed(const char *name, int err, char **errp)
{
	if (errp)
		*errp = xasprintf("cannot read '%s': %s", name, strerror(err));
	return NULL;
}

cordon_formatted *cordon_format_string(const char *name, const char *text, size_t len,
				       char **err)
{
	if (!name || (!text && len)) {
		if (err)
			*err = xstrdup(!name ? "cordon_format_string: no name given"
					     : "cordon_format_string: no text given");
		return NULL;
	}
	return format_owned(name, NULL, xstrndup(text ? text : "", len), len);
}

cordon_formatted *cordon_format_file(const char *path, char **err)
{
	char *text;
	size_t len;
	int e;
	if (!path) {
		if (err)
			*err = xstrdup("cordon_format_file: no path given");
		return NULL;
	}
	if ((e = load_read_path(path, &text, &len, NULL)) != 0)
		return read_failed(path, e, err);
	return format_owned(path, path, text, len);
}

cordon_formatted *cordon_format_fd(const char *name, int fd, char **err)
{
	char *text;
	size_t len;
	int e;
	if (!name) {
		if (err)
			*err = xstrdup("cordon_format_fd: no name given");
		return NULL;
	}
	if ((e = load_read_fd(fd, &text, &len)) != 0)
		return read_failed(name, e, err);
	return format_owned(name, NULL, text, len);
}

void cordon_formatted_free(cordon_formatted *f)
{
	if (!f)
		return;
	free(f->out);
	diag_free(&f->diags);
	srcmgr_free(&f->sm);
	free(f);
}

const char *cordon_formatted_name(const cordon_formatted *f)
{
	return srcmgr_file(&f->sm, f->file)->name;
}

size_t cordon_formatted_error_count(const cordon_formatted *f)
{
	/* A text the formatter refused has errors even if the list was full. */
	return f->out ? 0 : f->diags.nerrors ? f->diags.nerrors : 1;
}

void cordon_formatted_print_diagnostics(const cordon_formatted *f, FILE *out)
{
	diag_print(out, &f->sm, &f->diags);
}

const char *cordon_formatted_source(const cordon_formatted *f, size_t *len)
{
	const struct src_file *sf = srcmgr_file(&f->sm, f->file);
	if (len)
		*len = sf->len;
	return sf->text;
}

const char *cordon_formatted_text(const cordon_formatted *f, size_t *len)
{
	if (len)
		*len = f->out ? f->out_len : 0;
	return f->out;
}

bool cordon_formatted_changed(const cordon_formatted *f)
{
	const struct src_file *sf = srcmgr_file(&f->sm, f->file);
	return f->out && (f->out_len != sf->len || memcmp(f->out, sf->text, sf->len) != 0);
}
