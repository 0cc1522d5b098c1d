/* Session grants of effects (cordon.h): what a yes "for the session" in the
 * approval console covers from then on, beside the tool grants of
 * lib/decide/grant.c in SESSION_DIR/grants.
 *
 * Each grant is one 0600 file, "effect-" and the SHA-256 of its key: the
 * operation and its scope.  A write is granted below the written file's
 * directory ("write-under"), or exactly when that directory is the root or
 * the path is not known exactly; any other operation exactly (the same
 * host and port, the same tool, the same command).  Only an operation the
 * policy decides ask is ever looked up: a deny, and so a protected path,
 * is never covered, and a call with any deny in it asks nobody. */
#include "config.h"

#include "cordon.h"
#include "base/digest.h"
#include "base/util.h"
#include "decide/grant.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EFFECT_FILE_MAX 8192

/* A path named exactly: absolute, no pattern or variable in it. */
static bool exact_path(const char *t)
{
	return t && t[0] == '/' && !strpbrk(t, "*?[$`");
}

/* The key of a grant: operation, a newline, the scope. */
static char *effect_key(const char *kind, const char *scope)
{
	return xasprintf("%s\n%s", kind, scope);
}

/* The directory below which approving a write of target covers, or NULL
 * when it covers target alone (the root's directory, a path not known
 * exactly).  One scope for a session grant and a remembered rule. */
static char *write_scope(enum cordon_op op, const char *target)
{
	if (op != CORDON_WRITE || !exact_path(target))
		return NULL;
	const char *slash = strrchr(target, '/');
	return slash == target ? NULL : xasprintf("%.*s", (int)(slash - target), target);
}

/* The key that approving operation op on target grants. */
static char *granted_key(enum cordon_op op, const char *target)
{
	char *dir = write_scope(op, target);
	if (dir) {
		char *k = effect_key("write-under", dir);
		free(dir);
		return k;
	}
	return effect_key(cordon_op_name(op), target);
}

/* Whether s may stand in a rule's string as it is: printable ASCII with
 * none of the characters a pattern or a string gives a meaning to (a
 * wildcard, a variable, a quote, an escape), and not empty. */
static bool plain_text(const char *s, const char *also_refused)
{
	if (!s || !*s)
		return false;
	for (const char *p = s; *p; p++)
		if (*p < 0x21 || *p > 0x7e || strchr("\"\\$`*?[]{}", *p) || strchr(also_refused, *p))
			return false;
	return true;
}

/* A command's words (single spaces between plain words) as a regex that
 * matches that command line and nothing longer: the rule of an exec. */
static char *exec_rule(const char *cmd)
{
	const char *p;
	for (p = cmd; *p; p++)
		if (!(*p == ' ' || (*p > 0x20 && *p < 0x7f && !strchr("\"\\$`*?[]{}'();&|<>#!~^", *p))))
			return NULL;
	if (!*cmd || *cmd == ' ' || p[-1] == ' ' || strstr(cmd, "  "))
		return NULL;
	struct strbuf re;
	sb_init(&re);
	for (p = cmd; *p; p++) {
		if (strchr(".+/", *p))
			sb_addc(&re, '\\');
		sb_addc(&re, *p);
	}
	char *rule = xasprintf("exec \"%s\" /^%s$/ allow;", cmd, re.buf);
	sb_free(&re);
	return rule;
}

char *cordon_effect_rule(enum cordon_op op, const char *target, char **err)
{
	char *dir = write_scope(op, target), *rule = NULL;
	if (dir && plain_text(dir, ""))
		rule = xasprintf("write \"%s\" allow;", dir);
	else if ((op == CORDON_WRITE || op == CORDON_READ) && exact_path(target) &&
		 plain_text(target, ""))
		rule = xasprintf("%s exact \"%s\" allow;", cordon_op_name(op), target);
	else if (op == CORDON_NET && plain_text(target, "/@") && strchr(target, ':'))
		rule = xasprintf("net \"%s\" allow;", target);
	else if (op == CORDON_TOOL && plain_text(target, ""))
		rule = xasprintf("tool \"%s\" allow;", target);
	else if (op == CORDON_EXEC && target)
		rule = exec_rule(target);
	free(dir);
	if (!rule)
		*err = xasprintf("%s %s cannot be written as a rule of its own (a pattern, a "
				 "variable, a quote or a host known only at run time in it)",
				 cordon_op_name(op), target ? target : "(unknown)");
	return rule;
}

static void effect_name(const char *key, char out[7 + DIGEST_HEX_LEN + 1])
{
	memcpy(out, "effect-", 7);
	digest_hex(key, strlen(key), out + 7);
}

/* The JSON of the grant file name in dfd, or NULL: only a regular file of
 * this user's, closed to others, and of a grant's size counts. */
static json_t *grant_read(int dfd, const char *name)
{
	char buf[EFFECT_FILE_MAX];
	struct stat st;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ssize_t n = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    !(st.st_mode & 0077) && st.st_size < EFFECT_FILE_MAX)
		n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	json_t *o = n > 0 ? json_loadb(buf, (size_t)n, 0, NULL) : NULL;
	return o;
}

/* A sound grant of exactly key in the grants dir dfd. */
static bool has_key(int dfd, const char *key)
{
	char name[7 + DIGEST_HEX_LEN + 1];
	effect_name(key, name);
	json_t *o = grant_read(dfd, name);
	const char *k = json_string_value(json_object_get(o, "effect"));
	bool ok = k && strcmp(k, key) == 0;
	json_decref(o);
	return ok;
}

/* Whether a grant of dfd covers op on target. */
static bool covered(int dfd, enum cordon_op op, const char *target)
{
	char *key = effect_key(cordon_op_name(op), target ? target : "");
	bool ok = has_key(dfd, key);
	free(key);
	if (ok || op != CORDON_WRITE || !exact_path(target))
		return ok;
	/* Below a granted directory: each directory above the target. */
	char *dir = xstrdup(target);
	for (char *slash; !ok && (slash = strrchr(dir, '/')) && slash != dir;) {
		*slash = '\0';
		key = effect_key("write-under", dir);
		ok = has_key(dfd, key);
		free(key);
	}
	free(dir);
	return ok;
}

bool cordon_effects_granted(const char *session_dir, const cordon_decision *const *decisions,
			    size_t n)
{
	int dfd = grant_dir_open(session_dir, false, NULL);
	if (dfd < 0)
		return false;
	bool asks = false, ok = true;
	for (size_t i = 0; ok && i < n; i++) {
		const cordon_decision *d = decisions[i];
		if (cordon_decision_effect(d) == CORDON_DENY)
			ok = false;
		for (size_t k = 0; ok && k < cordon_decision_operation_count(d); k++) {
			enum cordon_op op;
			enum cordon_effect e;
			const char *target, *reason, *rule;
			cordon_decision_operation(d, k, &op, &target, &e, &reason, &rule);
			if (e == CORDON_DENY)
				ok = false;
			else if (e == CORDON_ASK)
				ok = (asks = true) && covered(dfd, op, target);
		}
	}
	close(dfd);
	return ok && asks;
}

/* The grant file name in dfd, holding key member (beside the actor and
 * the time), written whole under a temporary name and renamed. */
static int write_grant(int dfd, const char *name, const char *member, const char *value,
		       const char *file, const char *actor, char **err)
{
	char tmp[64];
	snprintf(tmp, sizeof(tmp), "tmp.%ld.effect", (long)getpid());
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_t *o = json_pack("{s:s, s:s, s:s}", member, value, "actor", actor, "time", when);
	if (o && file)
		json_object_set_new(o, "file", json_string(file));
	char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	if (!s) {
		*err = xstrdup("the grant cannot be written as JSON (a target that is not UTF-8?)");
		return -1;
	}
	unlinkat(dfd, tmp, 0);
	int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	size_t len = strlen(s);
	bool ok = fd >= 0 && write(fd, s, len) == (ssize_t)len && fsync(fd) == 0;
	if (fd >= 0 && close(fd) != 0)
		ok = false;
	ok = ok && renameat(dfd, tmp, dfd, name) == 0;
	if (!ok) {
		*err = xasprintf("cannot record a session grant: %s", strerror(errno));
		unlinkat(dfd, tmp, 0);
	}
	free(s);
	return ok ? 0 : -1;
}

int cordon_grant_note_remembered(const char *session_dir, const char *file, const char *rule,
				 const char *actor, char **err)
{
	int dfd = grant_dir_open(session_dir, true, err);
	if (dfd < 0)
		return -1;
	char name[11 + DIGEST_HEX_LEN + 1], *key = xasprintf("%s\n%s", file, rule);
	memcpy(name, "remembered-", 11);
	digest_hex(key, strlen(key), name + 11);
	free(key);
	int rc = write_grant(dfd, name, "remembered", rule, file, actor ? actor : "console", err);
	close(dfd);
	return rc;
}

int cordon_grant_effects(const char *session_dir, const cordon_decision *const *decisions,
			 size_t n, const char *actor, char **err)
{
	int dfd = grant_dir_open(session_dir, true, err);
	if (dfd < 0)
		return -1;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const cordon_decision *d = decisions[i];
		for (size_t k = 0; rc == 0 && k < cordon_decision_operation_count(d); k++) {
			enum cordon_op op;
			enum cordon_effect e;
			const char *target, *reason, *rule;
			cordon_decision_operation(d, k, &op, &target, &e, &reason, &rule);
			if (e != CORDON_ASK || !target)
				continue;
			char *key = granted_key(op, target), name[7 + DIGEST_HEX_LEN + 1];
			effect_name(key, name);
			rc = write_grant(dfd, name, "effect", key, NULL, actor ? actor : "console", err);
			free(key);
		}
	}
	close(dfd);
	return rc;
}

/* One grant file of the grants dir dfd as a line, or NULL when it is not
 * a sound grant. */
static char *grant_line(int dfd, const char *name)
{
	json_t *o = grant_read(dfd, name);
	const char *tool = json_string_value(json_object_get(o, "tool"));
	const char *effect = json_string_value(json_object_get(o, "effect"));
	const char *rule = json_string_value(json_object_get(o, "remembered"));
	const char *file = json_string_value(json_object_get(o, "file"));
	const char *actor = json_string_value(json_object_get(o, "actor"));
	const char *when = json_string_value(json_object_get(o, "time"));
	const char *nl = effect ? strchr(effect, '\n') : NULL;
	char *line = NULL;
	if (tool)
		line = xasprintf("tool %s", tool);
	else if (nl)
		line = xasprintf("%.*s %s", (int)(nl - effect), effect, nl + 1);
	else if (rule && file)
		line = xasprintf("project %s (in %s)", rule, file);
	if (line) {
		char *full = xasprintf("%s\t%s\t%s\n", line, actor ? actor : "?", when ? when : "?");
		free(line);
		line = full;
	}
	json_decref(o);
	return line;
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *cordon_grants_describe(const char *session_dir, char **err)
{
	int dfd = grant_dir_open(session_dir, false, err);
	if (dfd < 0) {
		if (errno != ENOENT)
			return NULL;
		free(*err);
		*err = NULL;
		return xstrdup(""); /* no grants dir: no grants */
	}
	DIR *d = fdopendir(dfd);
	if (!d) {
		*err = xasprintf("cannot read %s/grants: %s", session_dir, strerror(errno));
		close(dfd);
		return NULL;
	}
	char **lines = NULL;
	size_t n = 0, len = 1;
	for (struct dirent *e; (e = readdir(d));) {
		char *line = e->d_name[0] == '.' || !strncmp(e->d_name, "tmp.", 4)
				     ? NULL
				     : grant_line(dirfd(d), e->d_name);
		if (!line)
			continue;
		lines = xrealloc(lines, (n + 1) * sizeof(*lines));
		lines[n++] = line;
		len += strlen(line);
	}
	closedir(d);
	if (n)
		qsort(lines, n, sizeof(*lines), by_text);
	char *out = xmalloc(len), *w = out;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(lines[i]);
		memcpy(w, lines[i], l);
		w += l;
		free(lines[i]);
	}
	*w = '\0';
	free(lines);
	return out;
}
