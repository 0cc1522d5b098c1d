/* sbpl-check: a well-formedness checker for Seatbelt profiles (SBPL), and a
 * small interpreter for the subset cordon emits.
 *
 *   sbpl-check PROFILE                  check; exit 0, or 1 with one
 *                                       "PROFILE:LINE:COL: message" a line
 *   sbpl-check PROFILE read|write PATH  check, then print allow or deny
 *   sbpl-check PROFILE --queries        check, then answer "read PATH" and
 *                                       "write PATH" lines from stdin with
 *                                       "allow read PATH" or "deny read PATH"
 *   sbpl-check --macos-paths PROFILE ...  the same, with each PATH first
 *                                       resolved as a Mac's kernel reports
 *                                       it: /etc, /tmp and /var are symlinks
 *                                       into /private, and a directory's
 *                                       firmlink under /System/Volumes/Data
 *                                       is reported by its usual name
 *
 * Well-formed: balanced parentheses, terminated strings ("..." with \\ and
 * \" escapes, raw #"..."), no control characters inside strings,
 * (version 1) first, then (allow|deny OPERATION... FILTER...) forms with
 * known operations and filters of the right shape, and regexes that
 * compile as POSIX extended regexes.
 *
 * Interpreter: a read is the operation file-read-data, a write
 * file-write-data.  The last rule whose operation covers it (the name
 * itself, a NAME* family, or default) and whose filters match decides.
 * Several filters of a rule are alternatives; subpath, literal, path,
 * prefix, regex, require-not, require-any and require-all are evaluated on
 * the path; any other filter does not match a path. */
#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum ntype { N_LIST, N_SYM, N_STR };

struct node {
	enum ntype type;
	char *text;          /* symbol or decoded string */
	int line, col;
	struct node **kid;
	size_t n, cap;
	regex_t *re;         /* compiled (regex "...") argument */
};

static const char *file_name;
static int nerrors;

static void error_at(int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void error_at(int line, int col, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s:%d:%d: ", file_name, line, col);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	nerrors++;
}

static void *xrealloc_(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("sbpl-check");
		exit(2);
	}
	return p;
}

static struct node *new_node(enum ntype t, int line, int col)
{
	struct node *n = xrealloc_(NULL, sizeof(*n));
	memset(n, 0, sizeof(*n));
	n->type = t;
	n->line = line;
	n->col = col;
	return n;
}

static void add_kid(struct node *list, struct node *k)
{
	if (list->n == list->cap) {
		list->cap = list->cap ? 2 * list->cap : 8;
		list->kid = xrealloc_(list->kid, list->cap * sizeof(*list->kid));
	}
	list->kid[list->n++] = k;
}

/* ---- reading ------------------------------------------------------------- */

struct reader {
	const char *s;
	size_t i, len;
	int line, col;
};

static int peek(struct reader *r)
{
	return r->i < r->len ? (unsigned char)r->s[r->i] : EOF;
}

static int next(struct reader *r)
{
	int c = peek(r);
	if (c == EOF)
		return c;
	r->i++;
	if (c == '\n') {
		r->line++;
		r->col = 1;
	} else {
		r->col++;
	}
	return c;
}

static void skip_space(struct reader *r)
{
	for (;;) {
		int c = peek(r);
		if (c == ';') {
			while (peek(r) != EOF && peek(r) != '\n')
				next(r);
		} else if (c != EOF && isspace(c)) {
			next(r);
		} else {
			return;
		}
	}
}

/* A string after its opening quote; raw strings take no escapes. */
static struct node *read_string(struct reader *r, bool raw, int line, int col)
{
	struct node *n = new_node(N_STR, line, col);
	size_t cap = 16, len = 0;
	n->text = xrealloc_(NULL, cap);
	for (;;) {
		int c = next(r);
		if (c == EOF) {
			error_at(line, col, "unterminated string");
			break;
		}
		if (c == '"')
			break;
		if (c < 0x20 || c == 0x7f) {
			error_at(r->line, r->col - 1, "control character 0x%02x inside a string", c);
			continue;
		}
		if (c == '\\' && !raw) {
			int e = next(r);
			if (e == '\\' || e == '"') {
				c = e;
			} else {
				error_at(r->line, r->col - 2, "unknown escape '\\%c' in a string",
					 e == EOF ? ' ' : e);
				if (e == EOF)
					break;
				continue;
			}
		}
		if (len + 2 > cap)
			n->text = xrealloc_(n->text, cap *= 2);
		n->text[len++] = (char)c;
	}
	n->text[len] = '\0';
	return n;
}

static struct node *read_form(struct reader *r);

static struct node *read_list(struct reader *r, int line, int col)
{
	struct node *list = new_node(N_LIST, line, col);
	for (;;) {
		skip_space(r);
		int c = peek(r);
		if (c == EOF) {
			error_at(line, col, "unbalanced '(': no closing parenthesis");
			return list;
		}
		if (c == ')') {
			next(r);
			return list;
		}
		struct node *k = read_form(r);
		if (k)
			add_kid(list, k);
	}
}

static struct node *read_form(struct reader *r)
{
	int line = r->line, col = r->col, c = next(r);
	if (c == '(')
		return read_list(r, line, col);
	if (c == ')') {
		error_at(line, col, "unbalanced ')'");
		return NULL;
	}
	if (c == '"')
		return read_string(r, false, line, col);
	if (c == '#' && peek(r) == '"') {
		next(r);
		return read_string(r, true, line, col);
	}
	struct node *n = new_node(N_SYM, line, col);
	size_t start = r->i - 1;
	while ((c = peek(r)) != EOF && !isspace(c) && c != '(' && c != ')' && c != '"' && c != ';')
		next(r);
	size_t len = r->i - start;
	n->text = xrealloc_(NULL, len + 1);
	memcpy(n->text, r->s + start, len);
	n->text[len] = '\0';
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)n->text[i] < 0x20 || n->text[i] == 0x7f || n->text[i] == '#')
			error_at(line, col, "malformed symbol '%s'", n->text);
	return n;
}

/* ---- checking ------------------------------------------------------------ */

static const char *const operations[] = {
	"default",
	"file*", "file-read*", "file-read-data", "file-read-metadata", "file-read-xattr",
	"file-write*", "file-write-data", "file-write-create", "file-write-unlink",
	"file-write-mode", "file-write-owner", "file-write-times", "file-write-xattr",
	"file-write-flags", "file-write-setugid", "file-ioctl", "file-link", "file-revoke",
	"file-chroot", "file-mknod", "file-search", "file-issue-extension",
	"process*", "process-exec", "process-exec*", "process-fork", "process-info*",
	"process-info-pidinfo", "process-info-listpids", "signal",
	"sysctl*", "sysctl-read", "sysctl-write",
	"mach*", "mach-lookup", "mach-register", "mach-priv-task-port",
	"network*", "network-outbound", "network-inbound", "network-bind", "system-socket",
	"ipc*", "ipc-posix*", "ipc-posix-shm", "ipc-posix-shm*", "ipc-posix-sem", "ipc-sysv*",
	"pseudo-tty", "user-preference-read", "user-preference-write", "iokit-open",
	"iokit-get-properties",
};

static bool known_operation(const char *s)
{
	for (size_t i = 0; i < sizeof(operations) / sizeof(*operations); i++)
		if (strcmp(operations[i], s) == 0)
			return true;
	return false;
}

static bool is_sym(const struct node *n, const char *s)
{
	return n && n->type == N_SYM && (!s || strcmp(n->text, s) == 0);
}

static const char *head(const struct node *n)
{
	return n->type == N_LIST && n->n && n->kid[0]->type == N_SYM ? n->kid[0]->text : NULL;
}

static bool want_strings(const struct node *f, size_t count)
{
	if (f->n != count + 1) {
		error_at(f->line, f->col, "(%s) takes %zu argument%s, not %zu", head(f), count,
			 count == 1 ? "" : "s", f->n - 1);
		return false;
	}
	for (size_t i = 1; i < f->n; i++) {
		if (f->kid[i]->type != N_STR) {
			error_at(f->kid[i]->line, f->kid[i]->col, "(%s) takes a string", head(f));
			return false;
		}
	}
	return true;
}

static void compile_regex(struct node *f, struct node *arg)
{
	int rc;
	f->re = xrealloc_(NULL, sizeof(*f->re));
	if ((rc = regcomp(f->re, arg->text, REG_EXTENDED | REG_NOSUB)) != 0) {
		char msg[256];
		regerror(rc, f->re, msg, sizeof(msg));
		error_at(arg->line, arg->col, "regex \"%s\" does not compile: %s", arg->text, msg);
		free(f->re);
		f->re = NULL;
	}
}

static void check_filter(struct node *f);

static void check_socket_filter(struct node *f)
{
	const char *h = head(f);
	if (f->n < 2 || f->kid[1]->type != N_SYM) {
		error_at(f->line, f->col, "(%s) needs an address family", h);
		return;
	}
	const char *fam = f->kid[1]->text;
	if (!strcmp(fam, "ip") || !strcmp(fam, "tcp") || !strcmp(fam, "udp")) {
		if (f->n != 3 || f->kid[2]->type != N_STR)
			error_at(f->line, f->col, "(%s %s) takes one \"host:port\" string", h, fam);
	} else if (!strcmp(fam, "unix-socket") || !strcmp(fam, "unix")) {
		for (size_t i = 2; i < f->n; i++) {
			struct node *k = f->kid[i];
			const char *kh = head(k);
			if (kh && (!strcmp(kh, "path-literal") || !strcmp(kh, "path-prefix")))
				want_strings(k, 1);
			else if (kh && !strcmp(kh, "path-regex") && want_strings(k, 1))
				compile_regex(k, k->kid[1]);
			else
				error_at(k->line, k->col, "(%s %s) takes path-literal, path-prefix or "
							  "path-regex",
					 h, fam);
		}
	} else {
		error_at(f->kid[1]->line, f->kid[1]->col, "unknown address family '%s'", fam);
	}
}

static void check_filter(struct node *f)
{
	const char *h = head(f);
	if (!h) {
		error_at(f->line, f->col, "a filter must be a list (NAME ARG...)");
		return;
	}
	if (!strcmp(h, "subpath") || !strcmp(h, "literal") || !strcmp(h, "path") ||
	    !strcmp(h, "prefix")) {
		if (want_strings(f, 1) && f->kid[1]->text[0] != '/')
			error_at(f->kid[1]->line, f->kid[1]->col, "(%s) needs an absolute path", h);
	} else if (!strcmp(h, "regex") || !strcmp(h, "global-name-regex") ||
		   !strcmp(h, "sysctl-name-regex")) {
		if (want_strings(f, 1))
			compile_regex(f, f->kid[1]);
	} else if (!strcmp(h, "require-not")) {
		if (f->n != 2)
			error_at(f->line, f->col, "(require-not) takes exactly one filter");
		for (size_t i = 1; i < f->n; i++)
			check_filter(f->kid[i]);
	} else if (!strcmp(h, "require-any") || !strcmp(h, "require-all")) {
		if (f->n < 2)
			error_at(f->line, f->col, "(%s) takes at least one filter", h);
		for (size_t i = 1; i < f->n; i++)
			check_filter(f->kid[i]);
	} else if (!strcmp(h, "global-name") || !strcmp(h, "local-name") ||
		   !strcmp(h, "sysctl-name") || !strcmp(h, "sysctl-name-prefix") ||
		   !strcmp(h, "extension") || !strcmp(h, "preference-domain")) {
		want_strings(f, 1);
	} else if (!strcmp(h, "target")) {
		if (f->n != 2 || !is_sym(f->kid[1], NULL) ||
		    (strcmp(f->kid[1]->text, "self") && strcmp(f->kid[1]->text, "same-sandbox") &&
		     strcmp(f->kid[1]->text, "children") && strcmp(f->kid[1]->text, "others")))
			error_at(f->line, f->col,
				 "(target) takes self, same-sandbox, children or others");
	} else if (!strcmp(h, "vnode-type") || !strcmp(h, "socket-domain") ||
		   !strcmp(h, "socket-type") || !strcmp(h, "socket-protocol")) {
		if (f->n != 2 || f->kid[1]->type != N_SYM)
			error_at(f->line, f->col, "(%s) takes one name", h);
	} else if (!strcmp(h, "remote") || !strcmp(h, "local")) {
		check_socket_filter(f);
	} else {
		error_at(f->line, f->col, "unknown filter '%s'", h);
	}
}

static void check_rule(struct node *r)
{
	size_t i = 1, nops = 0;
	bool is_default = false;
	while (i < r->n && head(r->kid[i]) && !strcmp(head(r->kid[i]), "with")) {
		struct node *w = r->kid[i++];
		if (w->n != 2 || !is_sym(w->kid[1], NULL) ||
		    (strcmp(w->kid[1]->text, "report") && strcmp(w->kid[1]->text, "no-log")))
			error_at(w->line, w->col, "(with) takes report or no-log");
	}
	for (; i < r->n && r->kid[i]->type == N_SYM; i++, nops++) {
		if (!known_operation(r->kid[i]->text))
			error_at(r->kid[i]->line, r->kid[i]->col, "unknown operation '%s'",
				 r->kid[i]->text);
		is_default = is_default || !strcmp(r->kid[i]->text, "default");
	}
	if (nops == 0)
		error_at(r->line, r->col, "(%s) names no operation", head(r));
	if (is_default && (nops > 1 || i < r->n))
		error_at(r->line, r->col, "(%s default) stands alone, without filters", head(r));
	for (; i < r->n; i++) {
		if (r->kid[i]->type == N_LIST)
			check_filter(r->kid[i]);
		else
			error_at(r->kid[i]->line, r->kid[i]->col,
				 "operations come before filters; a filter must be a list");
	}
}

static void check_profile(struct node **forms, size_t n)
{
	if (n == 0) {
		error_at(1, 1, "empty profile: (version 1) is missing");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct node *f = forms[i];
		const char *h = head(f);
		if (!h) {
			error_at(f->line, f->col, "a top-level form must be a list (allow|deny ...)");
			continue;
		}
		if (!strcmp(h, "version")) {
			if (i != 0)
				error_at(f->line, f->col, "(version) must come first, once");
			if (f->n != 2 || !is_sym(f->kid[1], "1"))
				error_at(f->line, f->col, "only (version 1) is known");
		} else if (!strcmp(h, "allow") || !strcmp(h, "deny")) {
			if (i == 0)
				error_at(f->line, f->col, "(version 1) must come first");
			check_rule(f);
		} else {
			error_at(f->line, f->col, "unknown form '%s'", h);
		}
	}
}

/* ---- interpreting -------------------------------------------------------- */

static bool op_covers(const char *rule_op, const char *op)
{
	size_t n = strlen(rule_op);
	if (!strcmp(rule_op, "default"))
		return true;
	if (n && rule_op[n - 1] == '*')
		return strncmp(rule_op, op, n - 1) == 0;
	return strcmp(rule_op, op) == 0;
}

static bool filter_matches(const struct node *f, const char *path)
{
	const char *h = head(f);
	size_t n;
	if (!h)
		return false;
	if (!strcmp(h, "subpath")) {
		const char *s = f->kid[1]->text;
		n = strlen(s);
		if (!strcmp(s, "/"))
			return path[0] == '/';
		while (n > 1 && s[n - 1] == '/')
			n--;
		return !strncmp(path, s, n) && (path[n] == '\0' || path[n] == '/');
	}
	if (!strcmp(h, "literal") || !strcmp(h, "path"))
		return !strcmp(path, f->kid[1]->text);
	if (!strcmp(h, "prefix"))
		return !strncmp(path, f->kid[1]->text, strlen(f->kid[1]->text));
	if (!strcmp(h, "regex"))
		return f->re && regexec(f->re, path, 0, NULL, 0) == 0;
	if (!strcmp(h, "require-not"))
		return !filter_matches(f->kid[1], path);
	if (!strcmp(h, "require-any")) {
		for (size_t i = 1; i < f->n; i++)
			if (filter_matches(f->kid[i], path))
				return true;
		return false;
	}
	if (!strcmp(h, "require-all")) {
		for (size_t i = 1; i < f->n; i++)
			if (!filter_matches(f->kid[i], path))
				return false;
		return true;
	}
	return false; /* not a path filter */
}

static bool rule_matches(const struct node *r, const char *op, const char *path)
{
	size_t i = 1;
	bool covered = false, any_filter = false;
	while (i < r->n && head(r->kid[i]) && !strcmp(head(r->kid[i]), "with"))
		i++;
	for (; i < r->n && r->kid[i]->type == N_SYM; i++)
		covered = covered || op_covers(r->kid[i]->text, op);
	if (!covered)
		return false;
	for (; i < r->n; i++) {
		any_filter = true;
		if (filter_matches(r->kid[i], path))
			return true;
	}
	return !any_filter;
}

static bool decide(struct node **forms, size_t n, const char *what, const char *path)
{
	const char *op = !strcmp(what, "read") ? "file-read-data" : "file-write-data";
	for (size_t i = n; i-- > 0;) {
		const char *h = head(forms[i]);
		if (h && (!strcmp(h, "allow") || !strcmp(h, "deny")) && rule_matches(forms[i], op, path))
			return !strcmp(h, "allow");
	}
	return false;
}

/* ---- macOS paths ------------------------------------------------------------ */

/* This table is kept apart from the library's on purpose: the checker is
 * the second opinion the lowering is measured against. */
static const char *const private_links[] = { "etc", "tmp", "var" };
static const char *const data_firmlinks[] = { "private", "Users", "Applications", "Library",
					      "Volumes", "opt", "usr/local", "cores" };

/* path resolved as a Mac's kernel reports it, in a static buffer. */
static const char *macos_path(const char *path)
{
	static char out[8192];
	size_t n = 0;
	const char *p = path;
	out[n++] = '/';
	out[n] = '\0';
	while (*p) {
		while (*p == '/')
			p++;
		const char *seg = p;
		while (*p && *p != '/')
			p++;
		size_t k = (size_t)(p - seg);
		if (k == 0 || (k == 1 && seg[0] == '.'))
			continue;
		if (k == 2 && seg[0] == '.' && seg[1] == '.') {
			while (n > 1 && out[n - 1] != '/')
				n--;
			if (n > 1)
				n--;
			out[n] = '\0';
			continue;
		}
		if (n + k + 2 >= sizeof(out))
			return path;
		if (n > 1)
			out[n++] = '/';
		memcpy(out + n, seg, k);
		n += k;
		out[n] = '\0';
		/* /etc, /tmp and /var are symlinks to private/NAME. */
		for (size_t i = 0; i < sizeof(private_links) / sizeof(*private_links); i++) {
			if (out[0] == '/' && !strcmp(out + 1, private_links[i])) {
				snprintf(out, sizeof(out), "/private/%s", private_links[i]);
				n = strlen(out);
			}
		}
	}
	static const char data[] = "/System/Volumes/Data/";
	if (!strncmp(out, data, sizeof(data) - 1)) {
		const char *rest = out + sizeof(data) - 2; /* from its '/' */
		for (size_t i = 0; i < sizeof(data_firmlinks) / sizeof(*data_firmlinks); i++) {
			size_t k = strlen(data_firmlinks[i]);
			if (!strncmp(rest + 1, data_firmlinks[i], k) &&
			    (rest[1 + k] == '\0' || rest[1 + k] == '/')) {
				memmove(out, rest, strlen(rest) + 1);
				break;
			}
		}
	}
	return out;
}

/* ---- main ---------------------------------------------------------------- */

static char *slurp(FILE *f, size_t *len)
{
	size_t cap = 4096, n = 0, got;
	char *buf = xrealloc_(NULL, cap);
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n < 2)
			buf = xrealloc_(buf, cap *= 2);
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static void node_free(struct node *n)
{
	for (size_t i = 0; i < n->n; i++)
		node_free(n->kid[i]);
	if (n->re) {
		regfree(n->re);
		free(n->re);
	}
	free(n->kid);
	free(n->text);
	free(n);
}

static int usage(void)
{
	fputs("usage: sbpl-check [--macos-paths] PROFILE [read|write PATH | --queries]\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	struct reader r = { 0 };
	struct node top = { 0 };
	FILE *f;
	int status = 0;
	bool mac = argc > 1 && !strcmp(argv[1], "--macos-paths");

	if (mac) {
		argv++;
		argc--;
	}
	if (argc != 2 && argc != 3 && argc != 4)
		return usage();
	if (argc == 3 && strcmp(argv[2], "--queries"))
		return usage();
	if (argc == 4 && strcmp(argv[2], "read") && strcmp(argv[2], "write"))
		return usage();
	file_name = argv[1];
	if (!(f = fopen(file_name, "rb"))) {
		fprintf(stderr, "sbpl-check: %s: %s\n", file_name, strerror(errno));
		return 2;
	}
	r.s = slurp(f, &r.len);
	fclose(f);
	if (strlen(r.s) != r.len)
		error_at(1, 1, "the profile contains a NUL byte");
	r.line = r.col = 1;
	for (;;) {
		skip_space(&r);
		if (peek(&r) == EOF)
			break;
		struct node *n = read_form(&r);
		if (n)
			add_kid(&top, n);
	}
	check_profile(top.kid, top.n);
	if (nerrors) {
		status = 1;
	} else if (argc == 4) {
		puts(decide(top.kid, top.n, argv[2], mac ? macos_path(argv[3]) : argv[3]) ? "allow"
											  : "deny");
	} else if (argc == 3) {
		char line[8192];
		while (fgets(line, sizeof(line), stdin)) {
			line[strcspn(line, "\n")] = '\0';
			char *sp = strchr(line, ' ');
			if (!sp || (strncmp(line, "read ", 5) && strncmp(line, "write ", 6))) {
				fprintf(stderr, "sbpl-check: malformed query '%s'\n", line);
				status = 2;
				continue;
			}
			*sp = '\0';
			const char *path = mac ? macos_path(sp + 1) : sp + 1;
			printf("%s %s %s\n", decide(top.kid, top.n, line, path) ? "allow" : "deny", line,
			       sp + 1);
		}
	}
	for (size_t i = 0; i < top.n; i++)
		node_free(top.kid[i]);
	free(top.kid);
	free((char *)r.s);
	return status;
}
