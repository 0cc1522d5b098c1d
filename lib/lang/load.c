#include "config.h"

#include "load.h"
#include "embedded.h"
#include "parse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Identity of a loaded file: device and inode on disk, name when embedded. */
struct file_id {
	dev_t dev;
	ino_t ino;
	const char *embedded;
};

struct frame {
	struct file_id id;
	uint32_t file;
	const struct frame *up;
};

struct loader {
	struct load_ctx *lc;
	struct file_id *seen;
	size_t nseen, seen_cap;
};

static bool same_id(const struct file_id *a, const struct file_id *b)
{
	if (a->embedded || b->embedded)
		return a->embedded && b->embedded && strcmp(a->embedded, b->embedded) == 0;
	return a->dev == b->dev && a->ino == b->ino;
}

int load_read_fd(int fd, char **text, size_t *len)
{
	size_t cap = 0, n = 0;
	char *buf = NULL;
	for (;;) {
		grow_array((void **)&buf, &cap, n + 65536 + 1, 1);
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > LOAD_MAX_FILE_BYTES)
			break;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

int load_read_path(const char *path, char **text, size_t *len, struct stat *st)
{
	struct stat own;
	int err, fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (!st)
		st = &own;
	if (fd < 0)
		return errno;
	if (fstat(fd, st) != 0) {
		err = errno;
		close(fd);
		return err;
	}
	if (S_ISDIR(st->st_mode)) {
		close(fd);
		return EISDIR;
	}
	err = load_read_fd(fd, text, len);
	close(fd);
	return err;
}

/* Read at most LOAD_MAX_FILE_BYTES + 1 bytes; errno-style result. */
static int read_bounded(const char *path, char **text, size_t *len, struct file_id *id)
{
	struct stat st;
	int err = load_read_path(path, text, len, &st);
	if (err)
		return err;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->embedded = NULL;
	return 0;
}

static struct ast *empty_file(struct load_ctx *lc, uint32_t file)
{
	lc->sm->files[file]->rejected = true;
	struct loc all = { file, 0, 0 };
	struct ast *root = ast_new(lc->arena, AST_FILE, all);
	ast_seq_init(&root->u.seq);
	return root;
}

static void resolve_includes(struct loader *ld, struct ast *root, const struct frame *fr);

/* Register text as a file, refuse what is not a policy, parse it. */
static struct ast *parse_text(struct loader *ld, uint32_t file)
{
	return load_parse(ld->lc, file, NULL);
}

struct ast *load_parse(struct load_ctx *lc, uint32_t file, struct comment_list *comments)
{
	const struct src_file *f = srcmgr_file(lc->sm, file);
	if (f->len > LOAD_MAX_FILE_BYTES) {
		const struct loc *at = f->has_include ? &f->include_loc : NULL;
		diag_add(lc->diags, DIAG_ERROR, at, "too-large",
			 "'%s' is too large (more than %u bytes); a policy file is at most %u MiB",
			 f->name, LOAD_MAX_FILE_BYTES, LOAD_MAX_FILE_BYTES >> 20);
		return empty_file(lc, file);
	}
	const char *nul = memchr(f->text, '\0', f->len);
	if (nul) {
		struct loc at = { file, (uint32_t)(nul - f->text), (uint32_t)(nul - f->text + 1) };
		diag_add(lc->diags, DIAG_ERROR, &at, "syntax",
			 "file contains a NUL byte; a policy is text, not binary data");
		return empty_file(lc, file);
	}
	size_t bad = utf8_invalid_at((const unsigned char *)f->text, f->len);
	if (bad < f->len) {
		struct loc at = { file, (uint32_t)bad, (uint32_t)bad + 1 };
		diag_add(lc->diags, DIAG_ERROR, &at, "syntax",
			 "byte 0x%02x at offset %zu is not UTF-8 text; a policy is text, not binary data",
			 (unsigned char)f->text[bad], bad);
		return empty_file(lc, file);
	}
	return parse_file_comments(lc->sm, file, lc->arena, lc->diags, comments);
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

static void report_cycle(struct loader *ld, const struct ast *inc, const struct frame *fr,
			 const struct frame *target)
{
	struct strbuf chain;
	const struct frame *stack[LOAD_MAX_INCLUDE_DEPTH + 2];
	size_t n = 0;
	sb_init(&chain);
	for (const struct frame *f = fr; f && n < ARRAY_SIZE(stack); f = f->up) {
		stack[n++] = f;
		if (f == target)
			break;
	}
	for (size_t i = n; i-- > 0;)
		sb_addf(&chain, "%s -> ", srcmgr_file(ld->lc->sm, stack[i]->file)->name);
	sb_adds(&chain, srcmgr_file(ld->lc->sm, target->file)->name);
	diag_add(ld->lc->diags, DIAG_ERROR, &inc->u.one.value->loc, "include-cycle",
		 "include cycle: %s", chain.buf);
	sb_free(&chain);
}

static void load_include(struct loader *ld, struct ast *inc, const struct frame *fr, int depth)
{
	struct load_ctx *lc = ld->lc;
	const struct ast *str = inc->u.one.value;
	const struct src_file *parent = srcmgr_file(lc->sm, fr->file);
	const char *rel = str->u.tok.text;
	struct file_id id = { 0 };
	const struct embedded_file *own = NULL; /* the file built in, read in place */
	char *text = NULL, *path = NULL, *name = NULL;
	size_t len = 0;
	int err = 0;

	if (rel[0] == '\0' || strpbrk(rel, "\\$")) {
		diag_add(lc->diags, DIAG_ERROR, &str->loc, "include-not-found",
			 "an include path is a plain, nonempty file name (no escapes or variables)");
		return;
	}
	if (depth >= LOAD_MAX_INCLUDE_DEPTH) {
		diag_add(lc->diags, DIAG_ERROR, &str->loc, "include-cycle",
			 "includes nest deeper than %d files", LOAD_MAX_INCLUDE_DEPTH);
		return;
	}
	if (parent->path) {
		char *dir = dir_of(parent->path);
		if (rel[0] == '/' || strcmp(dir, ".") == 0)
			path = xstrdup(rel);
		else
			path = xasprintf("%s/%s", dir, rel);
		name = xstrdup(path);
		free(dir);
		err = read_bounded(path, &text, &len, &id);
		/* A bare name not found beside the includer: a file shipped in
		 * the binary (commands.cordon, redact.cordon, ...). */
		const struct embedded_file *ef = NULL;
		if (err == ENOENT && !strchr(rel, '/')) {
			char *shipped = xasprintf("rules/%s", rel);
			ef = embedded_find(shipped);
			free(shipped);
		}
		if (ef) {
			err = 0;
			free(name);
			name = xstrdup(ef->name);
			free(path);
			path = NULL;
			own = ef;
			memset(&id, 0, sizeof(id));
			id.embedded = ef->name;
		}
	} else {
		/* Embedded text includes embedded siblings by name. */
		char *dir = dir_of(parent->name);
		if (rel[0] == '/' || strcmp(dir, ".") == 0)
			name = xstrdup(rel);
		else
			name = xasprintf("%s/%s", dir, rel);
		free(dir);
		if (!(own = embedded_find(name)))
			err = ENOENT;
		else
			id.embedded = own->name;
	}
	if (err) {
		diag_add(lc->diags, DIAG_ERROR, &str->loc, "include-not-found",
			 "cannot include '%s': %s", name, strerror(err));
		goto out;
	}
	for (const struct frame *f = fr; f; f = f->up) {
		if (same_id(&f->id, &id)) {
			report_cycle(ld, inc, fr, f);
			free(text);
			goto out;
		}
	}
	for (size_t i = 0; i < ld->nseen; i++) {
		if (same_id(&ld->seen[i], &id)) {
			/* Already read through another include: once is enough. */
			free(text);
			goto out;
		}
	}
	VEC_PUSH(ld->seen, ld->nseen, ld->seen_cap, id);
	uint32_t file = own ? srcmgr_add_static(lc->sm, name, own->text, own->len, &inc->loc)
			    : srcmgr_add(lc->sm, name, path, text, len, &inc->loc);
	lc->sm->files[file]->checked_by_build = own && lc->skip_tests;
	struct ast *root = own && (lc->defer_specs || lc->skip_tests)
				   ? load_defer_programs(lc, file, own->text, own->len)
				   : NULL;
	if (!root)
		root = parse_text(ld, file);
	struct frame child = { id, file, fr };
	inc->u.one.included = root;
	resolve_includes(ld, root, &child);
out:
	free(path);
	free(name);
}

static void resolve_includes(struct loader *ld, struct ast *root, const struct frame *fr)
{
	int depth = 0;
	for (const struct frame *f = fr; f; f = f->up)
		depth++;
	for (struct ast *s = root->u.seq.head; s; s = s->next)
		if (s->kind == AST_INCLUDE)
			load_include(ld, s, fr, depth);
}

static struct ast *load_root(struct load_ctx *lc, uint32_t file, struct file_id id, bool builtin)
{
	struct loader ld = { lc, NULL, 0, 0 };
	struct frame top = { id, file, NULL };
	struct ast *root = NULL;
	const struct src_file *f = srcmgr_file(lc->sm, file);
	VEC_PUSH(ld.seen, ld.nseen, ld.seen_cap, id);
	if (builtin && (lc->defer_specs || lc->skip_tests))
		root = load_defer_programs(lc, file, f->text, f->len);
	if (!root)
		root = parse_text(&ld, file);
	resolve_includes(&ld, root, &top);
	free(ld.seen);
	return root;
}

struct ast *load_file(struct load_ctx *lc, const char *path)
{
	struct file_id id = { 0 };
	char *text;
	size_t len;
	int err = read_bounded(path, &text, &len, &id);
	if (err) {
		diag_add(lc->diags, DIAG_ERROR, NULL, "io", "cannot read '%s': %s", path,
			 strerror(err));
		lc->io_error = true;
		return NULL;
	}
	return load_root(lc, srcmgr_add(lc->sm, path, path, text, len, NULL), id, false);
}

struct ast *load_text(struct load_ctx *lc, const char *name, const char *base_dir,
		      const char *text, size_t len)
{
	struct file_id id = { 0 };
	char *path = base_dir ? xasprintf("%s/%s", base_dir, name) : NULL;
	id.embedded = name;
	uint32_t file = srcmgr_add(lc->sm, name, path, xstrndup(text, len), len, NULL);
	free(path);
	return load_root(lc, file, id, false);
}

struct ast *load_builtin(struct load_ctx *lc, const char *name, const char *text, size_t len)
{
	struct file_id id = { 0 };
	id.embedded = name;
	uint32_t file = srcmgr_add_static(lc->sm, name, text, len, NULL);
	lc->sm->files[file]->checked_by_build = lc->skip_tests;
	return load_root(lc, file, id, true);
}
