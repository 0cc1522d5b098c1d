/* Approvals of a command (approval_exec.h).
 *
 * The record is JSON in the store the file approvals use (approval.c):
 * 0600 in a 0700 directory, taken by an atomic rename so that of two
 * takers one wins, removed once taken whatever the verification finds. */
#include "config.h"

#include "approval_exec.h"
#include "base/canon.h"
#include "shell/shell.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_SCRIPT (64u << 20) /* bytes of one file a command runs */

static const char *const grant_names[] = {
	[EXEC_GRANT_NONE] = "none",   [EXEC_GRANT_FILE] = "file",
	[EXEC_GRANT_TREE] = "tree",   [EXEC_GRANT_RULE] = "rule",
	[EXEC_GRANT_SANDBOX] = "sandbox", [EXEC_GRANT_HOST] = "host",
};

const char *exec_grant_name(enum exec_grant g)
{
	return grant_names[g];
}

static int grant_from_name(const char *s)
{
	for (size_t i = 0; s && i < ARRAY_SIZE(grant_names); i++)
		if (strcmp(grant_names[i], s) == 0)
			return (int)i;
	return -1;
}

static enum exec_grant grant_of(const struct dec_op *o, const char **why);

/* A host name or address as a rule names one exactly: letters, digits,
 * '.', '-', '_', or an IPv6 address inside brackets; no glob or pattern. */
static bool exact_host(const char *h, size_t n, bool v6)
{
	if (n == 0 || (v6 && !memchr(h, ':', n)))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)h[i]) && !strchr(v6 ? ":." : ".-_", h[i]))
			return false;
	return true;
}

bool exec_grant_host(const char *target, char *host, size_t size, int *port)
{
	const char *h = target, *colon, *end;
	bool v6 = target[0] == '[';
	if (v6) {
		h = target + 1;
		if (!(end = strchr(h, ']')))
			return false;
		colon = end[1] == ':' ? end + 1 : NULL;
		if (end[1] && !colon)
			return false;
	} else {
		colon = strchr(target, ':');
		end = colon ? colon : target + strlen(target);
	}
	size_t n = (size_t)(end - h);
	if (!exact_host(h, n, v6) || n >= size)
		return false;
	for (size_t i = 0; i < n; i++)
		host[i] = (char)tolower((unsigned char)h[i]);
	host[n] = '\0';
	*port = -1;
	if (colon) {
		char *stop;
		errno = 0;
		long v = strtol(colon + 1, &stop, 10);
		if (!isdigit((unsigned char)colon[1]) || *stop || errno || v < 1 || v > 65535)
			return false;
		*port = (int)v;
	}
	return true;
}

enum exec_grant exec_grant_of(const cordon_decision *d, size_t i, const char **why)
{
	enum exec_grant g = grant_of(&d->ops[i], why);
	if (g != EXEC_GRANT_TREE)
		return g;
	/* A tree must not open what a glob or regex rule inside it keeps
	 * apart: a mount cannot express the exception. */
	for (size_t k = 0; k < d->nops; k++) {
		if (d->ops[k].op == IR_WRITE && d->ops[k].shape == DEC_SHAPE_REACHED) {
			*why = "the policy treats paths inside it apart, which a writable directory "
			       "would not keep";
			return EXEC_GRANT_SANDBOX;
		}
	}
	return g;
}

/* Does the write that detail names ("write (touch)", "write
 * (redirection >)") make a plain file where nothing is?  Then the runner
 * may make the empty file first, for the plan to bind, without changing
 * what the command does. */
static bool creates_plain_file(const char *detail)
{
	static const char *const makers[] = { "redirection", "touch", "cp", "tee", "dd",
					      "install", NULL };
	const char *open = detail ? strrchr(detail, '(') : NULL;
	if (!open || strncmp(detail, "write", 5) != 0)
		return false;
	open++;
	for (const char *const *m = makers; *m; m++) {
		size_t n = strlen(*m);
		if (strncmp(open, *m, n) == 0 && (open[n] == ')' || open[n] == ' '))
			return true;
	}
	return false;
}

/* Why a write of this shape can never widen the sandbox, or NULL. */
static const char *write_shape_refusal(const struct dec_op *o)
{
	if (o->shape == DEC_SHAPE_REGION || o->maybe)
		return "its paths are known only when it runs, so none is made writable";
	if (o->shape == DEC_SHAPE_REACHED)
		return "a path the command may reach is not made writable";
	if ((o->shape != DEC_SHAPE_FILE && o->shape != DEC_SHAPE_TREE) || o->target[0] != '/')
		return "nothing widens for it";
	if (o->shape == DEC_SHAPE_TREE && strcmp(o->target, "/") == 0)
		return "the whole file system is never made writable";
	if (o->detail && strncmp(o->detail, "delete", 6) == 0)
		return "removing a path needs its directory writable, which an approval does not "
		       "widen";
	return NULL;
}

/* Why a target that exists (lstat in *st) is not made writable, or NULL. */
static const char *existing_target_refusal(const struct dec_op *o, const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return "it is a symbolic link, which is never made writable";
	if (!S_ISDIR(st->st_mode) && st->st_nlink > 1)
		return "it has other hard links, which would change with it";
	if (S_ISDIR(st->st_mode) && o->shape == DEC_SHAPE_FILE)
		return "it is a directory, and the command writes it as a file";
	return NULL;
}

/* Why a target that does not exist is not made writable, or NULL. */
static const char *missing_target_refusal(const struct dec_op *o)
{
	struct stat st;
	/* Made beforehand it would change what the command does (cp -r
	 * copies into a directory that exists). */
	if (o->shape == DEC_SHAPE_TREE)
		return "it does not exist, and an approval makes writable only a directory that "
		       "exists";
	if (!creates_plain_file(o->detail))
		return "it does not exist, and the program may make something else than a plain "
		       "file there (only a redirection, touch, cp, tee, dd and install are known "
		       "not to)";
	char *parent = xstrdup(o->target);
	char *slash = strrchr(parent, '/');
	if (slash == parent)
		slash[1] = '\0';
	else
		*slash = '\0';
	bool dir = stat(parent, &st) == 0 && S_ISDIR(st.st_mode);
	free(parent);
	return dir ? NULL : "its directory does not exist, and an approval creates no directories";
}

static enum exec_grant grant_of_write(const struct dec_op *o, const char **why)
{
	struct stat st;
	const char *no = write_shape_refusal(o);
	if (!no)
		no = lstat(o->target, &st) == 0 ? existing_target_refusal(o, &st)
						 : missing_target_refusal(o);
	if (no) {
		*why = no;
		return EXEC_GRANT_SANDBOX;
	}
	if (o->shape == DEC_SHAPE_TREE) {
		*why = "the sandbox refuses it; approved, this directory and everything below it "
		       "become writable for this call";
		return EXEC_GRANT_TREE;
	}
	*why = "the sandbox refuses it; approved, exactly this file becomes writable for this "
	       "call";
	return EXEC_GRANT_FILE;
}

static enum exec_grant grant_of_net(const struct dec_op *o, const char **why)
{
	char host[256];
	int port;
	/* Only a host the preview names exactly is opened: one known only at
	 * run time, or a rule's pattern, could be any. */
	if (o->maybe || !exec_grant_host(o->target, host, sizeof(host), &port)) {
		*why = "the host is known only when it runs, so no host is opened for it";
		return EXEC_GRANT_SANDBOX;
	}
	*why = port < 0 ? "the egress proxy refuses it; approved, the proxy lets the command "
			  "reach this host, on any port, for this call"
			: "the egress proxy refuses it; approved, the proxy lets the command "
			  "reach exactly this host and port for this call";
	return EXEC_GRANT_HOST;
}

static enum exec_grant grant_of(const struct dec_op *o, const char **why)
{
	*why = NULL;
	if (o->effect != IR_ASK)
		return EXEC_GRANT_NONE;
	switch (o->op) {
	case IR_EXEC:
		*why = "the approval satisfies the rule; the command runs in the sandbox";
		return EXEC_GRANT_RULE;
	case IR_NET:
		return grant_of_net(o, why);
	case IR_READ:
		*why = "reads stay as the sandbox has them, approved or not";
		return EXEC_GRANT_SANDBOX;
	case IR_WRITE:
		return grant_of_write(o, why);
	default:
		*why = "nothing widens for it";
		return EXEC_GRANT_SANDBOX;
	}
}

void exec_approval_clear(struct exec_approval *a)
{
	free(a->shell);
	for (size_t i = 0; i < a->argc; i++)
		free(a->argv[i]);
	free(a->argv);
	free(a->preset);
	for (int v = 0; v < CTX_COUNT; v++)
		free(a->ctx[v]);
	for (size_t i = 0; i < a->nops; i++) {
		free(a->ops[i].target);
		free(a->ops[i].rule);
	}
	free(a->ops);
	for (size_t i = 0; i < a->nfiles; i++)
		free(a->files[i].path);
	free(a->files);
	free(a->actor);
	memset(a, 0, sizeof(*a));
}

void approval_preset_digest(const cordon_evaluator *ev, char out[DIGEST_HEX_LEN + 1])
{
	char *ir = ir_dump_text(&ev->policy->sm, ev->preset, &ev->ctx, CORDON_DUMP_NO_ORIGINS);
	digest_hex(ir, strlen(ir), out);
	free(ir);
}

/* ---- the files a command runs --------------------------------------------------- */

/* Bind the file name (in dir unless absolute) to the digest of its content;
 * a file bound already is not read again.  Whether it was new; then, with
 * content, its bytes (empty when it is no readable regular file). */
static bool add_file(struct exec_approval *a, size_t *cap, const char *dir, const char *name,
		     struct strbuf *content)
{
	while (name[0] == '.' && name[1] == '/')
		name += 2;
	char *path = name[0] == '/' ? xstrdup(name)
				    : xasprintf("%s/%s", strcmp(dir, "/") == 0 ? "" : dir, name);
	for (size_t i = 0; i < a->nfiles; i++) {
		if (strcmp(a->files[i].path, path) == 0) {
			free(path);
			return false;
		}
	}
	struct exec_approval_file f = { path, "" };
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		struct strbuf sb;
		char buf[65536];
		ssize_t n;
		sb_init(&sb);
		while ((n = read(fd, buf, sizeof(buf))) > 0 && sb.len < MAX_SCRIPT)
			sb_add(&sb, buf, (size_t)n);
		/* Unreadable or too large: a digest no content has, so the
		 * approval can never match it. */
		if (n == 0) {
			digest_hex(sb.buf ? sb.buf : "", sb.len, f.digest);
			if (content)
				sb_add(content, sb.buf ? sb.buf : "", sb.len);
		} else {
			memcpy(f.digest, "unreadable", 11);
		}
		sb_free(&sb);
	} else if (fd >= 0) {
		memcpy(f.digest, "not-a-file", 11);
	}
	if (fd >= 0)
		close(fd);
	VEC_PUSH(a->files, a->nfiles, *cap, f);
	return true;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static bool one_of(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

static const char *const shells[] = { "sh", "bash", "dash", "zsh", "ksh", NULL };

/* Whether a program file is a shell script: a #! line naming a shell
 * (directly or through env), or none at all and not ELF (execve refuses
 * it and the shell that called it runs it itself). */
static bool shell_script_file(const struct strbuf *content)
{
	const char *t = content->buf ? content->buf : "";
	if (content->len >= 4 && memcmp(t, "\177ELF", 4) == 0)
		return false;
	if (content->len < 2 || t[0] != '#' || t[1] != '!')
		return content->len > 0;
	char line[256];
	size_t n = strcspn(t + 2, "\n");
	snprintf(line, sizeof(line), "%.*s", (int)(n < 255 ? n : 255), t + 2);
	char *save = NULL, *interp = strtok_r(line, " \t\r", &save);
	if (interp && strcmp(base_name(interp), "env") == 0) {
		interp = strtok_r(NULL, " \t\r", &save);
		while (interp && interp[0] == '-') /* env -S and its kin */
			interp = strtok_r(NULL, " \t\r", &save);
	}
	return interp && one_of(base_name(interp), shells);
}

/* The directory a command runs in, absolute (malloc'd), or NULL: its cwd
 * (relative to where its script starts) against base, that start. */
static char *cmd_dir(const cordon_evaluator *ev, const struct shell_cmd *c, const char *base)
{
	const char *home = ev->values[CTX_HOME];
	if (!c->cwd)
		return NULL;
	if (c->cwd[0] == '/')
		return xstrdup(c->cwd);
	if (c->cwd[0] == '~')
		return home ? xasprintf("%s%s", home, c->cwd + 1) : NULL;
	if (!base)
		return NULL;
	return strcmp(c->cwd, ".") == 0 ? xstrdup(base) : xasprintf("%s/%s", base, c->cwd);
}

/* How deep scripts may source and run scripts for an approval to bind
 * them all. */
#define MAX_SCRIPT_DEPTH 16

struct files_walk {
	const cordon_evaluator *ev;
	struct exec_approval *a;
	size_t cap;
	int depth;
};

static char *cmd_files(struct files_walk *w, const struct shell_cmd *c, const char *base,
		       const char *in);

/* The files a shell script bound with content runs and sources, run in
 * dir: each of its commands as one of the request's.  NULL, or why they
 * cannot be known. */
static char *script_files(struct files_walk *w, const char *script, const struct strbuf *content,
			  const char *dir)
{
	struct shell_error serr;
	struct shell_script *sc;
	char *why = NULL;
	if (w->depth >= MAX_SCRIPT_DEPTH)
		return xasprintf("%s is reached through more than %d scripts, deeper than an "
				 "approval binds",
				 script, MAX_SCRIPT_DEPTH);
	const char *text = content->buf ? content->buf : "";
	sc = shell_parse(text, content->len, &serr);
	if (!sc) {
		size_t line = 1;
		for (size_t k = 0; k < serr.offset && k < content->len; k++)
			line += text[k] == '\n';
		return xasprintf("%s is a shell script cordon cannot parse (line %zu: %s), so what "
				 "it runs cannot be bound",
				 script, line, serr.message);
	}
	w->depth++;
	for (size_t i = 0; i < shell_cmd_count(sc) && !why; i++)
		why = cmd_files(w, shell_cmd_get(sc, i), dir, script);
	w->depth--;
	shell_free(sc);
	return why;
}

/* Bind one file a command runs; a shell script (shell, or a program file
 * that is one) also binds what it runs, from dir. */
static char *bind_file(struct files_walk *w, const char *dir, const char *name, int shell)
{
	struct strbuf content;
	char *why = NULL;
	sb_init(&content);
	if (add_file(w->a, &w->cap, dir, name, &content) &&
	    (shell > 0 || (shell < 0 && shell_script_file(&content)))) {
		const char *path = w->a->files[w->a->nfiles - 1].path;
		why = script_files(w, path, &content, dir);
	}
	sb_free(&content);
	return why;
}

/* The script an interpreter (or `source`, `.`) reads: the first word that
 * is no option.  NULL, or why it cannot be known. */
static char *interp_files(struct files_walk *w, const struct shell_cmd *c, const char *dir,
			  const char *in)
{
	const char *prog = c->prog;
	bool sourcing = strcmp(prog, "source") == 0 || strcmp(prog, ".") == 0;
	int shell = sourcing || one_of(base_name(prog), shells) ? 1 : 0;
	for (size_t i = c->argi + 1; i < c->nwords; i++) {
		const char *word = shell_word_static(c->words[i]);
		if (!word)
			return xasprintf("'%s'%s%s runs a script whose name is known only when it runs",
					 prog, in ? " in " : "", in ? in : "");
		if (strcmp(word, "-c") == 0 || strcmp(word, "-m") == 0 || strcmp(word, "-e") == 0 ||
		    strcmp(word, "-") == 0 || strcmp(word, "-s") == 0)
			return NULL; /* a string or a module, analysed or opaque as such */
		if (word[0] == '-' && !sourcing)
			continue;
		return bind_file(w, dir, word, shell);
	}
	return NULL;
}

/* make's makefiles: -f FILE, -C DIR, else the three it looks for. */
static char *make_files(struct files_walk *w, const struct shell_cmd *c, const char *dir)
{
	char *why = NULL;
	bool named = false;
	char *mdir = xstrdup(dir);
	for (size_t i = c->argi + 1; i < c->nwords && !why; i++) {
		const char *word = shell_word_static(c->words[i]);
		const char *f = NULL, *cd = NULL;
		if (!word) {
			continue;
		} else if ((strcmp(word, "-f") == 0 || strcmp(word, "--file") == 0 ||
			    strcmp(word, "--makefile") == 0) && i + 1 < c->nwords) {
			f = shell_word_static(c->words[++i]);
			if (!f)
				why = xstrdup("make reads a makefile whose name is known only when it "
					      "runs");
		} else if (strncmp(word, "-f", 2) == 0 && word[2]) {
			f = word + 2;
		} else if (strncmp(word, "--file=", 7) == 0 || strncmp(word, "--makefile=", 11) == 0) {
			f = strchr(word, '=') + 1;
		} else if (strcmp(word, "-C") == 0 && i + 1 < c->nwords) {
			cd = shell_word_static(c->words[++i]);
			if (!cd)
				why = xstrdup("make -C names a directory known only when it runs");
		}
		if (f) {
			add_file(w->a, &w->cap, mdir, f, NULL);
			named = true;
		}
		if (cd) {
			char *next = cd[0] == '/' ? xstrdup(cd) : xasprintf("%s/%s", mdir, cd);
			free(mdir);
			mdir = next;
		}
	}
	if (!named && !why) {
		add_file(w->a, &w->cap, mdir, "GNUmakefile", NULL);
		add_file(w->a, &w->cap, mdir, "makefile", NULL);
		add_file(w->a, &w->cap, mdir, "Makefile", NULL);
	}
	free(mdir);
	return why;
}

/* The files one command runs: its program when named by a path, the
 * script an interpreter reads, make's makefiles; and of a shell script
 * among them, what it runs and sources in turn.  base: the directory the
 * command's script starts in; in: that script, NULL for the request.
 * NULL, or why they cannot be known. */
static char *cmd_files(struct files_walk *w, const struct shell_cmd *c, const char *base,
		       const char *in)
{
	static const char *const interpreters[] = { "sh",      "bash", "dash", "zsh",  "ksh",
						    "python",  "python3", "perl", "ruby", "node",
						    NULL };
	static const char *const makes[] = { "make", "gmake", NULL };
	if (c->argi >= c->nwords)
		return NULL;
	const char *prog = c->prog;
	if (!prog)
		return NULL; /* opaque: decided as such, nothing to bind */
	bool by_path = strchr(prog, '/') != NULL;
	const char *name = base_name(prog);
	bool interp = one_of(name, interpreters) || strcmp(prog, "source") == 0 ||
		      strcmp(prog, ".") == 0;
	bool make = one_of(name, makes);
	if (!by_path && !interp && !make)
		return NULL;
	char *dir = cmd_dir(w->ev, c, base);
	if (!dir)
		return xasprintf("'%s'%s%s runs in a directory known only when it runs, so the files "
				 "it runs cannot be bound",
				 prog, in ? " in " : "", in ? in : "");
	char *why = NULL;
	if (by_path)
		why = bind_file(w, dir, prog, interp ? 0 : -1);
	if (!why && interp)
		why = interp_files(w, c, dir, in);
	if (!why && make)
		why = make_files(w, c, dir);
	free(dir);
	return why;
}

static int file_cmp(const void *pa, const void *pb)
{
	const struct exec_approval_file *a = pa, *b = pb;
	return strcmp(a->path, b->path);
}

/* The files req runs, sorted by path; NULL, or why they cannot be known. */
static char *collect_files(const cordon_evaluator *ev, const struct cordon_request *req,
			   struct exec_approval *a)
{
	struct shell_error serr;
	struct shell_script *sc;
	struct strbuf text;
	char *why = NULL;
	struct files_walk w = { .ev = ev, .a = a };
	sb_init(&text);
	sc = req->argv ? shell_argv(req->argv, req->argc, &text, &serr)
		       : shell_parse(req->target, strlen(req->target), &serr);
	sb_free(&text);
	if (!sc)
		return NULL; /* decided as unparsed; the request itself is bound */
	for (size_t i = 0; i < shell_cmd_count(sc) && !why; i++)
		why = cmd_files(&w, shell_cmd_get(sc, i), ev->values[CTX_CWD], NULL);
	shell_free(sc);
	sort_items(a->files, a->nfiles, sizeof(*a->files), file_cmp);
	return why;
}

/* ---- describing, storing, comparing ---------------------------------------------- */

static bool overlaps(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b), k = n < m ? n : m;
	return strncmp(a, b, k) == 0 && (a[k] == '/' || a[k] == '\0' || b[k] == '/' || b[k] == '\0');
}

/* An approval never makes the approvals writable, whatever the policy
 * protects: a command could plant one. */
static char *store_overlap(const cordon_evaluator *ev, const struct exec_approval *a)
{
	const char *session = ev->values[CTX_SESSION_DIR];
	if (!session)
		return NULL;
	char *store = xasprintf("%s/approvals", session);
	char *why = NULL;
	for (size_t i = 0; i < a->nops && !why; i++)
		if ((a->ops[i].grant == EXEC_GRANT_FILE || a->ops[i].grant == EXEC_GRANT_TREE) &&
		    overlaps(a->ops[i].target, store))
			why = xasprintf("'%s' is the approvals directory or in it, which approvals "
					"never cover",
					a->ops[i].target);
	free(store);
	return why;
}

char *exec_approval_describe(const cordon_evaluator *ev, const struct cordon_request *req,
			     const cordon_decision *d, struct exec_approval *a)
{
	size_t cap = 0;
	memset(a, 0, sizeof(*a));
	if (req->argv) {
		a->argv = xcalloc(req->argc + 1, sizeof(*a->argv));
		for (a->argc = 0; a->argc < req->argc; a->argc++)
			a->argv[a->argc] = xstrdup(req->argv[a->argc]);
	} else {
		a->shell = xstrdup(req->target);
	}
	a->preset = xstrdup(ev->preset->name);
	approval_preset_digest(ev, a->preset_digest);
	for (int v = 0; v < CTX_COUNT; v++)
		if (v != CTX_TMP && ev->values[v])
			a->ctx[v] = xstrdup(ev->values[v]);
	for (size_t i = 0; i < d->nops; i++) {
		const char *why;
		enum exec_grant g = exec_grant_of(d, i, &why);
		if (g == EXEC_GRANT_NONE)
			continue;
		struct exec_approval_op o = { d->ops[i].op, xstrdup(d->ops[i].target),
					      d->ops[i].rule ? xstrdup(d->ops[i].rule) : NULL, g };
		VEC_PUSH(a->ops, a->nops, cap, o);
	}
	char *why = store_overlap(ev, a);
	return why ? why : collect_files(ev, req, a);
}

int exec_approval_store(const char *session_dir, struct exec_approval *a, char **err)
{
	json_t *j = json_object(), *ctx = json_object(), *ops = json_array(), *files = json_array();
	json_object_set_new(j, "version", json_integer(1));
	json_object_set_new(j, "id", json_string(""));
	json_object_set_new(j, "op", json_string("exec"));
	if (a->argv) {
		json_t *v = json_array();
		for (size_t i = 0; i < a->argc; i++)
			json_array_append_new(v, json_string(a->argv[i]));
		json_object_set_new(j, "argv", v);
	} else {
		json_object_set_new(j, "shell", json_string(a->shell));
	}
	json_object_set_new(j, "preset", json_string(a->preset));
	json_object_set_new(j, "preset_digest", json_string(a->preset_digest));
	for (int v = 0; v < CTX_COUNT; v++)
		if (a->ctx[v])
			json_object_set_new(ctx, ir_ctx_var_names[v], json_string(a->ctx[v]));
	json_object_set_new(j, "context", ctx);
	for (size_t i = 0; i < a->nops; i++)
		json_array_append_new(ops, json_pack("{s:s, s:s?, s:s?, s:s}", "op",
						     ir_op_names[a->ops[i].op], "target",
						     a->ops[i].target, "rule", a->ops[i].rule,
						     "grant", exec_grant_name(a->ops[i].grant)));
	json_object_set_new(j, "operations", ops);
	for (size_t i = 0; i < a->nfiles; i++)
		json_array_append_new(files, json_pack("{s:s?, s:s}", "path", a->files[i].path,
						       "sha256", a->files[i].digest));
	json_object_set_new(j, "files", files);
	json_object_set_new(j, "expires", json_integer((json_int_t)a->expires));
	if (a->actor)
		json_object_set_new(j, "actor", json_string(a->actor));
	/* jansson keeps out what is not UTF-8: a record missing a member. */
	bool whole = json_array_size(ops) == a->nops && json_array_size(files) == a->nfiles &&
		     (a->argv ? json_array_size(json_object_get(j, "argv")) == a->argc
			      : json_object_get(j, "shell") != NULL);
	for (size_t i = 0; whole && i < a->nops; i++)
		whole = json_object_get(json_array_get(ops, i), "target") != NULL;
	int rc = -1;
	if (!whole)
		*err = xstrdup("cannot record the approval: the command or a path in it is not valid "
			       "UTF-8");
	else
		rc = approval_store_json(session_dir, j, a->id, err);
	json_decref(j);
	return rc;
}

static char *dup_string(json_t *j)
{
	return json_is_string(j) ? xstrdup(json_string_value(j)) : NULL;
}

static int parse_exec(json_t *j, struct exec_approval *a)
{
	json_t *argv = json_object_get(j, "argv"), *ctx = json_object_get(j, "context");
	json_t *ops = json_object_get(j, "operations"), *files = json_object_get(j, "files");
	json_t *v;
	size_t i, cap = 0;
	const char *digest = json_string_value(json_object_get(j, "preset_digest"));
	if (!json_is_object(ctx) || !json_is_array(ops) || !json_is_array(files) || !digest ||
	    strlen(digest) != DIGEST_HEX_LEN || !json_is_integer(json_object_get(j, "expires")) ||
	    !(a->preset = dup_string(json_object_get(j, "preset"))))
		return -1;
	memcpy(a->preset_digest, digest, DIGEST_HEX_LEN + 1);
	a->expires = (int64_t)json_integer_value(json_object_get(j, "expires"));
	a->actor = dup_string(json_object_get(j, "actor"));
	if (json_is_array(argv)) {
		a->argv = xcalloc(json_array_size(argv) + 1, sizeof(*a->argv));
		json_array_foreach(argv, i, v)
		{
			if (!json_is_string(v))
				return -1;
			a->argv[a->argc++] = xstrdup(json_string_value(v));
		}
	} else if (!(a->shell = dup_string(json_object_get(j, "shell")))) {
		return -1;
	}
	for (int k = 0; k < CTX_COUNT; k++)
		a->ctx[k] = dup_string(json_object_get(ctx, ir_ctx_var_names[k]));
	json_array_foreach(ops, i, v)
	{
		int op = cordon_op_from_name(json_string_value(json_object_get(v, "op")) ?: "");
		int g = grant_from_name(json_string_value(json_object_get(v, "grant")));
		json_t *target = json_object_get(v, "target");
		if (op < 0 || g <= EXEC_GRANT_NONE || !json_is_string(target))
			return -1;
		struct exec_approval_op o = { (enum ir_op)op, dup_string(target),
					      dup_string(json_object_get(v, "rule")),
					      (enum exec_grant)g };
		VEC_PUSH(a->ops, a->nops, cap, o);
	}
	cap = 0;
	json_array_foreach(files, i, v)
	{
		const char *d = json_string_value(json_object_get(v, "sha256"));
		json_t *path = json_object_get(v, "path");
		if (!d || strlen(d) > DIGEST_HEX_LEN || !json_is_string(path))
			return -1;
		struct exec_approval_file f = { dup_string(path), "" };
		memcpy(f.digest, d, strlen(d) + 1);
		VEC_PUSH(a->files, a->nfiles, cap, f);
	}
	return 0;
}

int exec_approval_take(const char *session_dir, const char *id, struct exec_approval *a,
		       char **err)
{
	json_t *j;
	const char *op;
	memset(a, 0, sizeof(*a));
	if (approval_take_json(session_dir, id, &j, err) != 0)
		return -1;
	op = json_string_value(json_object_get(j, "op"));
	if (!op || strcmp(op, "exec") != 0) {
		*err = xasprintf("approval %s was given for %s '%s', not for a command", id,
				 op ? op : "something",
				 json_string_value(json_object_get(j, "target")) ?: "?");
		json_decref(j);
		return -1;
	}
	if (parse_exec(j, a) != 0) {
		*err = xasprintf("approval %s is damaged and cannot be used", id);
		json_decref(j);
		exec_approval_clear(a);
		return -1;
	}
	memcpy(a->id, id, APPROVAL_ID_LEN + 1);
	json_decref(j);
	return 0;
}

static void show_request(struct strbuf *sb, const struct exec_approval *a)
{
	if (a->shell) {
		sb_addf(sb, "the shell command '%s'", a->shell);
		return;
	}
	sb_adds(sb, "the argv [");
	for (size_t i = 0; i < a->argc; i++) {
		sb_adds(sb, i ? ", " : "");
		sb_add_quoted(sb, a->argv[i]);
	}
	sb_addc(sb, ']');
}

static bool same_request(const struct exec_approval *x, const struct exec_approval *y)
{
	if (!x->shell != !y->shell)
		return false;
	if (x->shell)
		return strcmp(x->shell, y->shell) == 0;
	if (x->argc != y->argc)
		return false;
	for (size_t i = 0; i < x->argc; i++)
		if (strcmp(x->argv[i], y->argv[i]) != 0)
			return false;
	return true;
}

static bool same_op(const struct exec_approval_op *x, const struct exec_approval_op *y)
{
	return x->op == y->op && x->grant == y->grant && strcmp(x->target, y->target) == 0 &&
	       strcmp(x->rule ? x->rule : "", y->rule ? y->rule : "") == 0;
}

static const struct exec_approval_op *find_op(const struct exec_approval *a,
					      const struct exec_approval_op *o)
{
	for (size_t i = 0; i < a->nops; i++)
		if (same_op(&a->ops[i], o))
			return &a->ops[i];
	return NULL;
}

static char *op_changed(const struct exec_approval *ap, const struct exec_approval *now)
{
	for (size_t i = 0; i < now->nops; i++) {
		const struct exec_approval_op *o = &now->ops[i];
		if (!find_op(ap, o))
			return xasprintf("approval %s is void: the preview changed: %s %s (%s, %s) was "
					 "not in the approved preview",
					 ap->id, ir_op_names[o->op], o->target,
					 o->rule ? o->rule : "no rule", exec_grant_name(o->grant));
	}
	for (size_t i = 0; i < ap->nops; i++) {
		const struct exec_approval_op *o = &ap->ops[i];
		if (!find_op(now, o))
			return xasprintf("approval %s is void: the preview changed: %s %s (%s, %s) is "
					 "no longer what it was",
					 ap->id, ir_op_names[o->op], o->target,
					 o->rule ? o->rule : "no rule", exec_grant_name(o->grant));
	}
	if (ap->nops != now->nops)
		return xasprintf("approval %s is void: the preview changed (%zu operations need "
				 "approval now, %zu did)",
				 ap->id, now->nops, ap->nops);
	return NULL;
}

static char *file_changed(const struct exec_approval *ap, const struct exec_approval *now)
{
	for (size_t i = 0; i < now->nfiles; i++) {
		const struct exec_approval_file *f = &now->files[i], *g = NULL;
		for (size_t k = 0; k < ap->nfiles && !g; k++)
			if (strcmp(ap->files[k].path, f->path) == 0)
				g = &ap->files[k];
		if (!g)
			return xasprintf("approval %s is void: the command now runs %s, which the "
					 "approval does not cover",
					 ap->id, f->path);
		if (strcmp(f->digest, g->digest) == 0)
			continue;
		return xasprintf("approval %s is void: %s %s since it was given", ap->id, f->path,
				 !g->digest[0]  ? "was created"
				 : !f->digest[0] ? "was removed"
						 : "changed (its content, SHA-256, differs)");
	}
	if (ap->nfiles != now->nfiles)
		return xasprintf("approval %s is void: the files the command runs changed", ap->id);
	return NULL;
}

char *exec_approval_mismatch(const struct exec_approval *ap, const struct exec_approval *now,
			     int64_t now_s)
{
	if (now_s >= ap->expires)
		return xasprintf("approval %s expired %lld s ago", ap->id,
				 (long long)(now_s - ap->expires));
	if (!same_request(ap, now)) {
		struct strbuf sb;
		sb_init(&sb);
		sb_addf(&sb, "approval %s was given for ", ap->id);
		show_request(&sb, ap);
		sb_adds(&sb, ", not for ");
		show_request(&sb, now);
		return sb_steal(&sb);
	}
	if (strcmp(ap->preset, now->preset) != 0)
		return xasprintf("approval %s was given under preset '%s', not '%s'", ap->id,
				 ap->preset, now->preset);
	for (int v = 0; v < CTX_COUNT; v++) {
		const char *x = ap->ctx[v], *y = now->ctx[v];
		if (v == CTX_TMP || (!x && !y) || (x && y && strcmp(x, y) == 0))
			continue;
		return xasprintf("approval %s is void: the context variable %s was %s%s%s when it "
				 "was given, and is %s%s%s now",
				 ap->id, ir_ctx_var_names[v], x ? "'" : "", x ? x : "unset",
				 x ? "'" : "", y ? "'" : "", y ? y : "unset", y ? "'" : "");
	}
	if (strcmp(ap->preset_digest, now->preset_digest) != 0)
		return xasprintf("approval %s is void: preset '%s' changed since it was given",
				 ap->id, ap->preset);
	char *why = file_changed(ap, now);
	return why ? why : op_changed(ap, now);
}

/* ---- the preview ------------------------------------------------------------------ */

void exec_preview(const cordon_decision *d, struct strbuf *sb)
{
	size_t asks = 0, denies = 0;
	for (size_t i = 0; i < d->nops; i++) {
		const struct dec_op *o = &d->ops[i];
		const char *why = NULL;
		enum exec_grant g = exec_grant_of(d, i, &why);
		sb_addf(sb, "  %-5s %-5s %s", ir_effect_names[o->effect], ir_op_names[o->op], o->target);
		if (o->detail)
			sb_addf(sb, " [%s]", o->detail);
		if (o->rule)
			sb_addf(sb, " (%s)", o->rule);
		if (o->effect == IR_DENY) {
			sb_addf(sb, "\n        denied outright%s%s: no approval allows it",
				o->reason ? ": " : "", o->reason ? o->reason : "");
			denies++;
		} else if (g != EXEC_GRANT_NONE) {
			sb_addf(sb, "\n        needs approval%s%s; %s%s", o->reason ? ": " : "",
				o->reason ? o->reason : "",
				g == EXEC_GRANT_SANDBOX ? "approved, it runs in the same sandbox: " : "",
				why);
			asks++;
		}
		sb_addc(sb, '\n');
	}
	sb_addf(sb, "  %zu operation%s need%s approval, %zu %s denied outright\n", asks,
		asks == 1 ? "" : "s", asks == 1 ? "s" : "", denies, denies == 1 ? "is" : "are");
}

const char *cordon_decision_operation_grant(const cordon_decision *d, size_t i, const char **why)
{
	const char *w = NULL;
	enum exec_grant g = i < d->nops ? exec_grant_of(d, i, &w) : EXEC_GRANT_NONE;
	if (why)
		*why = w;
	return g == EXEC_GRANT_NONE ? NULL : exec_grant_name(g);
}

char *cordon_decision_preview_digest(const cordon_decision *d)
{
	struct strbuf sb;
	char *out = xmalloc(DIGEST_HEX_LEN + 1);
	sb_init(&sb);
	for (size_t i = 0; i < d->nops; i++) {
		const char *why;
		enum exec_grant g = exec_grant_of(d, i, &why);
		const struct dec_op *o = &d->ops[i];
		if (g == EXEC_GRANT_NONE)
			continue;
		/* Lengths first: no target can pass for two fields. */
		sb_addf(&sb, "%s %zu:%s %zu:%s %s\n", ir_op_names[o->op], strlen(o->target), o->target,
			o->rule ? strlen(o->rule) : 0, o->rule ? o->rule : "", exec_grant_name(g));
	}
	digest_hex(sb.buf ? sb.buf : "", sb.len, out);
	sb_free(&sb);
	return out;
}

/* ---- the library's entry --------------------------------------------------------- */

char *cordon_approve_exec(const cordon_evaluator *ev, const struct cordon_request *req,
			  unsigned ttl_seconds, const char *actor, enum cordon_effect *effect,
			  char **preview, char **err)
{
	struct exec_approval a;
	cordon_decision *d;
	struct strbuf sb;
	char *id = NULL, *why;

	*err = NULL;
	if (preview)
		*preview = NULL;
	if (req->op != CORDON_EXEC) {
		*err = xstrdup("cordon_approve_exec approves exec requests only");
		return NULL;
	}
	if (!(d = cordon_evaluate(ev, req, err)))
		return NULL;
	*effect = cordon_decision_effect(d);
	sb_init(&sb);
	exec_preview(d, &sb);
	if (preview)
		*preview = sb_steal(&sb);
	sb_free(&sb);
	if (*effect == CORDON_DENY) {
		*err = xasprintf("the command is denied by preset '%s': %s%s%s; no approval allows it",
				 ev->preset->name, cordon_decision_reason(d),
				 cordon_decision_rule(d) ? " at " : "",
				 cordon_decision_rule(d) ? cordon_decision_rule(d) : "");
		cordon_decision_free(d);
		return NULL;
	}
	if (*effect == CORDON_ALLOW) {
		cordon_decision_free(d); /* no approval is needed: NULL, no error */
		return NULL;
	}
	if ((why = exec_approval_describe(ev, req, d, &a))) {
		*err = xasprintf("cannot approve the command: %s", why);
		free(why);
		goto out;
	}
	a.expires = (int64_t)time(NULL) + (ttl_seconds ? ttl_seconds : 600);
	a.actor = actor ? xstrdup(actor) : NULL;
	if (exec_approval_store(ev->values[CTX_SESSION_DIR], &a, err) == 0)
		id = xstrdup(a.id);
out:
	exec_approval_clear(&a);
	cordon_decision_free(d);
	return id;
}
