/* "Remember for the project", the approval console's fourth answer: the
 * rules of the effects a pending ask would approve, written into the
 * policy file the asking hook was given (-p FILE, the layer under the
 * managed one), as a change the person reviews first.
 *
 * The preview and the write compute the same change from the same inputs
 * (the ask as it is pending, the file as it is now): the rules come from
 * the effects a session grant would cover (cordon_effect_rule), they go at
 * the end of the ask's preset in that file, and the whole file is laid out
 * by cordon fmt.  The change is refused, and nothing is written, unless
 * the result parses and checks, does not widen the managed layer, and
 * changes no decision but an ask into an allow (a deny, a protection, a
 * setting: never).  Its digest binds the ask, the file's name and both
 * texts: a confirm that names another digest, because the file, the ask
 * or the change differs from what was shown, writes nothing.  The file is
 * replaced whole by rename; the administrator's files are never written. */
#include "config.h"

#include "cli.h"
#include "console_remember.h"
#include "cordon_tools.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <nettle/sha2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A policy file larger than this is not one to rewrite from a browser. */
#define POLICY_MAX (1024 * 1024)

static int fail(int *code, int c, char **err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(int *code, int c, char **err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(err, fmt, ap) < 0)
		abort();
	va_end(ap);
	*code = c;
	return -1;
}

void console_remember_free(struct console_remember *r)
{
	free(r->file);
	free(r->old_text);
	free(r->new_text);
	free(r->diff);
	free(r->session_dir);
	json_decref(r->rules);
	memset(r, 0, sizeof(*r));
}

/* The file as it is: a regular file of this user, whole, with its mode. */
static char *read_policy(const char *file, mode_t *mode, int *code, char **err)
{
	struct stat st;
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fail(code, 409, err, "cannot read %s: %s", file, strerror(errno));
		return NULL;
	}
	char *text = NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_size >= POLICY_MAX)
		fail(code, 409, err, "%s is not a policy file of this user's to change", file);
	else if (!(text = malloc((size_t)st.st_size + 1)))
		abort();
	size_t got = 0;
	for (ssize_t n; text && got < (size_t)st.st_size; got += (size_t)n)
		if ((n = read(fd, text + got, (size_t)st.st_size - got)) <= 0)
			break;
	close(fd);
	if (text && got != (size_t)st.st_size) {
		free(text);
		fail(code, 409, err, "cannot read %s whole", file);
		return NULL;
	}
	if (text)
		text[got] = '\0';
	*mode = st.st_mode & 07777;
	return text;
}

/* The rules of the ask's effects, each once, as a JSON array of strings. */
static json_t *rules_of(json_t *ask, int *code, char **err)
{
	json_t *rules = json_array(), *op;
	size_t i;
	json_array_foreach (json_object_get(ask, "ops"), i, op) {
		const char *word = json_string_value(json_object_get(op, "decision"));
		const char *name = json_string_value(json_object_get(op, "op"));
		const char *target = json_string_value(json_object_get(op, "target"));
		int o = name ? cordon_op_from_name(name) : -1;
		if (!word || strcmp(word, "ask") != 0)
			continue;
		char *rule = o < 0 ? NULL : cordon_effect_rule((enum cordon_op)o, target, err);
		if (!rule) {
			if (!*err && asprintf(err, "the ask's operation %s is not one cordon knows",
					      name ? name : "") < 0)
				abort();
			*code = 422;
			json_decref(rules);
			return NULL;
		}
		bool seen = false;
		json_t *r;
		size_t k;
		json_array_foreach (rules, k, r)
			seen = seen || !strcmp(json_string_value(r), rule);
		if (!seen)
			json_array_append_new(rules, json_string(rule));
		free(rule);
	}
	if (!json_array_size(rules)) {
		json_decref(rules);
		fail(code, 422, err, "%s", "the ask has no operation that asks: nothing to remember");
		return NULL;
	}
	return rules;
}

/* The canonical text with the rules added at the end of preset's block:
 * in the layout of cordon fmt a preset's header starts its line and its
 * block ends with a line "}" (or the header ends in "{}"). */
static char *insert_rules(const char *text, const char *preset, json_t *rules)
{
	char *head = NULL;
	if (asprintf(&head, "preset \"%s\"", preset) < 0)
		abort();
	size_t hl = strlen(head);
	const char *p = text, *at = NULL;
	bool empty = false;
	for (; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		const char *eol = strchrnul(p, '\n');
		if (!at && !strncmp(p, head, hl) && (p[hl] == ' ' || p[hl] == '{')) {
			empty = eol - p >= 2 && !strncmp(eol - 2, "{}", 2);
			if (empty) {
				at = eol - 1;
				break;
			}
			at = p;
		} else if (at && eol - p == 1 && *p == '}') {
			at = p;
			break;
		}
	}
	free(head);
	if (!at || (!empty && *p != '}'))
		return NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	fwrite(text, 1, (size_t)(at - text), f);
	fputs(empty ? "\n" : "", f);
	json_t *r;
	size_t i;
	json_array_foreach (rules, i, r)
		fprintf(f, "  %s\n", json_string_value(r));
	fputs(at, f);
	fclose(f);
	return buf;
}

/* The canonical layout of text, or NULL with *err saying why not. */
static char *formatted(const char *file, const char *text, char **err)
{
	cordon_formatted *f = cordon_format_string(file, text, strlen(text), err);
	const char *out = f ? cordon_formatted_text(f, NULL) : NULL;
	char *s = out ? strdup(out) : NULL;
	if (f && !out && !*err && asprintf(err, "%s does not parse", file) < 0)
		abort();
	cordon_formatted_free(f);
	return s;
}

/* A policy's diagnostics as text, for the console to show. */
static char *diagnostics(const cordon_policy *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	cordon_policy_print_diagnostics(p, f);
	fclose(f);
	return buf;
}

/* The context of the ask, for the diff: its workspace, cwd and session
 * dir, and this user's home, tmp and agent dir. */
static cordon_context *ask_context(json_t *ask, const char *agent_dir)
{
	static const char *const names[] = { "workspace", "cwd", "session_dir" };
	cordon_context *ctx = cordon_context_new();
	char *e = NULL;
	for (size_t i = 0; i < 3; i++) {
		const char *v = json_string_value(json_object_get(ask, names[i]));
		if (v && cordon_context_set(ctx, names[i], v, &e) != 0) {
			free(e);
			e = NULL;
		}
	}
	if (cordon_context_set(ctx, "agent_dir", agent_dir, &e) != 0)
		free(e);
	cli_context_defaults(ctx);
	return ctx;
}

/* Every change of the file's own policy is an ask that became an allow
 * (and the sandbox plan that goes with it); 0, or -1 with *err naming the
 * first that is not. */
static int only_asks_allowed(const cordon_policy *old, const cordon_policy *new,
			     const cordon_context *ctx, char **err)
{
	cordon_diff *d = cordon_diff_new(old, new, NULL, ctx, err);
	if (!d)
		return -1;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < cordon_diff_preset_count(d); i++) {
		const char *preset;
		cordon_diff_preset(d, i, &preset, NULL);
		struct cordon_diff_change c;
		for (size_t j = 0; rc == 0 && cordon_diff_change(d, i, j, &c); j++) {
			bool ok = c.kind == CORDON_CHANGE_PLAN ||
				  (c.kind == CORDON_CHANGE_DECISION && c.old_value && c.new_value &&
				   !strcmp(c.old_value, "ask") && !strcmp(c.new_value, "allow"));
			if (!ok && asprintf(err, "preset \"%s\" would change %s%s%s: %s -> %s; only "
						 "what asks may become an allow",
					    preset, c.kind == CORDON_CHANGE_DECISION ? cordon_op_name(c.op) : "",
					    c.kind == CORDON_CHANGE_DECISION ? " " : "", c.subject,
					    c.old_value ? c.old_value : "(none)",
					    c.new_value ? c.new_value : "(none)") >= 0)
				rc = -1;
		}
	}
	cordon_diff_free(d);
	return rc;
}

/* The new text parses and checks, stays under the managed layer, and
 * changes no decision but asks into allows. */
static int check_change(const struct console_remember *r, json_t *ask, const char *agent_dir,
			int *code, char **err)
{
	char *dir = strdup(r->file);
	if (!dir)
		abort();
	const char *base = dirname(dir);
	cordon_policy *old = cordon_policy_load_string(r->file, base, r->old_text,
						       strlen(r->old_text));
	cordon_policy *new = cordon_policy_load_string(r->file, base, r->new_text,
						       strlen(r->new_text));
	free(dir);
	int rc = 0, status = 0;
	bool none;
	char *why = NULL;
	if (cordon_policy_error_count(old))
		rc = fail(code, 422, err, "%s has errors now: %s", r->file, why = diagnostics(old));
	else if (cordon_policy_error_count(new))
		rc = fail(code, 422, err, "the change does not check: %s", why = diagnostics(new));
	if (rc == 0) {
		cordon_context *ctx = ask_context(ask, agent_dir);
		if (only_asks_allowed(old, new, ctx, err) != 0) {
			*code = 422;
			rc = -1;
		}
		cordon_context_free(ctx);
	}
	cordon_policy_free(old);
	cordon_policy *managed = rc ? NULL : cli_load_managed(&none, &status);
	if (rc == 0 && !none && !managed)
		rc = fail(code, 422, err, "%s", "the managed layer cannot be used");
	if (managed) {
		new = cordon_policy_layer(managed, new);
		if (cordon_policy_error_count(new))
			rc = fail(code, 422, err, "the change would widen the managed layer: %s",
				  why = diagnostics(new));
	}
	free(why);
	cordon_policy_free(new);
	return rc;
}

/* SHA-256 of the ask's id, the file's name and both texts, in hex. */
static void change_digest(const char *id, const struct console_remember *r,
			  char out[CONSOLE_CHANGE_LEN + 1])
{
	struct sha256_ctx c;
	uint8_t d[SHA256_DIGEST_SIZE];
	const char *parts[] = { id, r->file, r->old_text, r->new_text };
	sha256_init(&c);
	for (size_t i = 0; i < 4; i++)
		sha256_update(&c, strlen(parts[i]) + 1, (const uint8_t *)parts[i]);
	sha256_digest(&c, sizeof(d), d);
	for (size_t i = 0; i < sizeof(d); i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* The file the ask's hook was given, if it is one to write into. */
static int target_file(json_t *ask, struct console_remember *r, int *code, char **err)
{
	const char *file = json_string_value(json_object_get(ask, "policy"));
	char real[PATH_MAX];
	if (!file)
		return fail(code, 409, err, "%s",
			    "the call was decided without a policy file of its own (-p FILE): "
			    "there is no project layer to write into, and the administrator's "
			    "policy is never written from here");
	if (!realpath(file, real))
		return fail(code, 409, err, "cannot resolve %s: %s", file, strerror(errno));
	if (cli_admin_file(real))
		return fail(code, 403, err, "%s is the administrator's policy: it is never written "
					    "from the console", real);
	if (!(r->file = strdup(real)))
		abort();
	return 0;
}

/* The change's texts, once the ask and its file are known. */
static int compute_texts(json_t *ask, struct console_remember *r, int *code, char **err)
{
	const char *preset = json_string_value(json_object_get(ask, "preset"));
	if (!(r->old_text = read_policy(r->file, &r->mode, code, err)))
		return -1;
	if (!(r->rules = rules_of(ask, code, err)))
		return -1;
	char *e = NULL, *canon = formatted(r->file, r->old_text, &e);
	if (!canon) {
		fail(code, 422, err, "%s cannot be laid out: %s", r->file, e ? e : "errors");
		free(e);
		return -1;
	}
	char *added = preset ? insert_rules(canon, preset, r->rules) : NULL;
	free(canon);
	if (!added)
		return fail(code, 422, err, "%s does not define preset \"%s\" itself: add an empty "
					    "`preset \"%s\" extends ... {}` there first",
			    r->file, preset ? preset : "", preset ? preset : "");
	r->new_text = formatted(r->file, added, &e);
	free(added);
	if (!r->new_text) {
		fail(code, 422, err, "the change does not parse: %s", e ? e : "errors");
		free(e);
		return -1;
	}
	return 0;
}

int console_remember_plan(const char *agent_dir, const char *id, const char *digest,
			  struct console_remember *r, int *code, char **err)
{
	memset(r, 0, sizeof(*r));
	*code = 500;
	char *text = cordon_console_pending_ask(agent_dir, id, digest, code, err);
	json_t *ask = text ? json_loads(text, 0, NULL) : NULL;
	free(text);
	if (!ask)
		return *err ? -1 : fail(code, 500, err, "%s", "the ask cannot be read");
	const char *sd = json_string_value(json_object_get(ask, "session_dir"));
	int rc = target_file(ask, r, code, err);
	if (rc == 0)
		rc = compute_texts(ask, r, code, err);
	if (rc == 0)
		rc = check_change(r, ask, agent_dir, code, err);
	if (rc == 0 && !(r->diff = cordon_line_diff(r->file, r->old_text, strlen(r->old_text),
						     r->file, r->new_text, strlen(r->new_text), NULL,
						     err)))
		rc = fail(code, 500, err, "%s", "cannot make the diff");
	if (rc == 0) {
		change_digest(id, r, r->change);
		if (sd && !(r->session_dir = strdup(sd)))
			abort();
	}
	json_decref(ask);
	if (rc)
		console_remember_free(r);
	return rc;
}

/* The new text in place of the file, whole or not at all, if the file is
 * still what the change was made from. */
static int replace_file(const struct console_remember *r, int *code, char **err)
{
	char *dir = strdup(r->file), *name = strdup(r->file), *tmp = NULL;
	if (!dir || !name)
		abort();
	int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = -1;
	if (asprintf(&tmp, ".%s.cordon-%ld", basename(name), (long)getpid()) < 0)
		abort();
	int fd = dfd < 0 ? -1
			 : openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				  r->mode);
	size_t len = strlen(r->new_text);
	mode_t mode;
	char *e = NULL, *now = NULL;
	/* The file's own mode, whatever the umask takes off at the open. */
	bool ok = fd >= 0 && fchmod(fd, r->mode) == 0 &&
		  write(fd, r->new_text, len) == (ssize_t)len && fsync(fd) == 0;
	if (fd >= 0 && close(fd) != 0)
		ok = false;
	if (!ok)
		fail(code, 500, err, "cannot write beside %s: %s", r->file, strerror(errno));
	else if (!(now = read_policy(r->file, &mode, code, &e)) || strcmp(now, r->old_text) != 0)
		fail(code, 412, err, "%s changed while the change was written: nothing written",
		     r->file);
	else if (renameat(dfd, tmp, dfd, basename(name)) != 0)
		fail(code, 500, err, "cannot replace %s: %s", r->file, strerror(errno));
	else
		rc = 0;
	if (rc == 0)
		fsync(dfd); /* the rename is done; a failed sync of it changes nothing */
	if (rc != 0 && dfd >= 0)
		unlinkat(dfd, tmp, 0);
	if (dfd >= 0)
		close(dfd);
	free(e);
	free(now);
	free(tmp);
	free(dir);
	free(name);
	return rc;
}

int console_remember_write(const char *agent_dir, const char *id, const char *digest,
			   const char *change, const char *actor, char **file, int *code,
			   char **err)
{
	struct console_remember r;
	if (console_remember_plan(agent_dir, id, digest, &r, code, err) != 0)
		return -1;
	int rc = 0;
	if (!change || strcmp(change, r.change) != 0)
		rc = fail(code, 412, err, "the change is not the one shown (the file, the ask or "
					  "the change differs): nothing written; preview it again");
	if (rc == 0)
		rc = replace_file(&r, code, err);
	if (rc == 0 && r.session_dir) {
		json_t *rule;
		size_t i;
		char *e = NULL;
		json_array_foreach (r.rules, i, rule) {
			if (cordon_grant_note_remembered(r.session_dir, r.file, json_string_value(rule),
							 actor, &e) != 0)
				fprintf(stderr, "cordon: serve: %s\n", e);
			free(e);
			e = NULL;
		}
	}
	if (rc == 0 &&
	    cordon_console_answer(agent_dir, id, digest, CORDON_CONSOLE_PROJECT, actor, code, err) != 0) {
		char *why = *err;
		if (asprintf(err, "the rules were written into %s, but the call was not answered: %s",
			     r.file, why) < 0)
			abort();
		free(why);
		rc = -1;
	}
	if (rc == 0 && !(*file = strdup(r.file)))
		abort();
	console_remember_free(&r);
	return rc;
}
