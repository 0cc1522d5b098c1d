/* The audit log: one compact JSON object a line, appended.
 *
 * Atomicity: each record, newline included, goes to the kernel in one
 * write(2) on a descriptor opened with O_APPEND.  For a regular file on a
 * local filesystem the kernel takes the file's lock for the whole write
 * and moves the offset to the end under it, so records of concurrent
 * writers never interleave, whatever their size (PIPE_BUF bounds only
 * pipes and FIFOs, which are refused here).  NFS does not give O_APPEND
 * this guarantee.  A crash or a full disk can still leave a partial last
 * line; readers skip it with a warning. */
#include "config.h"

#include "base/cleanup.h"
#include "check/policy.h"
#include "redact.h"
#include "shell/shell.h"
#include "syslog_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

struct cordon_audit {
	int fd;     /* -1: no file, only the system log */
	char *path;
	cordon_redactor *redactor;
	char *default_actor; /* $USER, else the user's name; looked up once */
	struct syslog_sink *syslog; /* or NULL */
	bool syslog_warned;
};

/* The actor by default and the redactor, for a log with its file or
 * without. */
static cordon_audit *audit_init(cordon_audit *log, const cordon_policy *policy, char **err)
{
	cordon_policy *own = NULL;
	if (!policy)
		policy = own = cordon_policy_load_embedded();
	const char *user = getenv("USER");
	if (!user || !*user) {
		struct passwd *pw = getpwuid(geteuid());
		user = pw ? pw->pw_name : NULL;
	}
	log->default_actor = user ? xstrdup(user) : NULL;
	log->redactor = cordon_redactor_new(policy, err);
	cordon_policy_free(own);
	if (!log->redactor) {
		cordon_audit_close(log);
		return NULL;
	}
	return log;
}

cordon_audit *cordon_audit_open(const char *path, const cordon_policy *policy, char **err)
{
	cordon_audit *log;
	struct stat st;

	if (!path) {
		log = xcalloc(1, sizeof(*log));
		log->fd = -1;
		return audit_init(log, policy, err);
	}
	if (!*path) {
		*err = xstrdup("the audit log path is empty");
		return NULL;
	}
	/* O_NONBLOCK: a FIFO without a reader fails here instead of hanging;
	 * it is refused below anyway, and means nothing for a regular file. */
	AUTO_FD int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0600);
	if (fd < 0) {
		*err = xasprintf("cannot open the audit log %s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*err = xasprintf("the audit log %s is not a regular file", path);
		return NULL;
	}
	log = xcalloc(1, sizeof(*log));
	log->fd = steal_fd(&fd);
	log->path = xstrdup(path);
	return audit_init(log, policy, err);
}

void cordon_audit_close(cordon_audit *log)
{
	if (!log)
		return;
	if (log->fd >= 0)
		close(log->fd);
	free(log->path);
	free(log->default_actor);
	cordon_redactor_free(log->redactor);
	syslog_sink_free(log->syslog);
	free(log);
}

/* Text that is not UTF-8 is shown with '?' rather than dropped, so a
 * record is never lost to its spelling; s is changed in place. */
static char *utf8_fixed(char *s)
{
	size_t len = s ? strlen(s) : 0, at;
	while (s && (at = utf8_invalid_at((const unsigned char *)s, len)) < len)
		s[at] = '?';
	return s;
}

/* A string, or JSON null. */
static json_t *text(const char *s)
{
	json_t *j;
	if (!s)
		return json_null();
	if ((j = json_string(s)))
		return j;
	AUTO_FREE char *copy = utf8_fixed(xstrdup(s));
	j = json_string(copy);
	return j ? j : json_null();
}

static char *redacted_str(const cordon_audit *log, const char *s)
{
	return redact_str(log->redactor, s);
}

static json_t *redacted(const cordon_audit *log, const char *s)
{
	AUTO_FREE char *r = redacted_str(log, s);
	return text(r);
}

/* The words of text when it is a command line shell_quote_word wrote
 * (the line of an argv request), else NULL; *n is their count. */
static const char **quoted_line_words(const struct shell_script *sc, const char *text,
				      size_t *n)
{
	const struct shell_cmd *c = sc ? shell_cmd_get(sc, 0) : NULL;
	if (!c || c->start != 0 || c->end != strlen(text) || c->nassigns || c->nredirs ||
	    !c->nwords)
		return NULL;
	const char **words = xcalloc(c->nwords, sizeof(*words));
	struct strbuf line;
	sb_init(&line);
	for (size_t i = 0; i < c->nwords && words; i++) {
		if (!(words[i] = shell_word_static(c->words[i]))) {
			free(words);
			words = NULL;
			break;
		}
		if (i)
			sb_addc(&line, ' ');
		shell_quote_word(&line, words[i], i == 0);
	}
	if (words && strcmp(line.buf, text) != 0) {
		free(words);
		words = NULL;
	}
	sb_free(&line);
	*n = c->nwords;
	return words;
}

/* An argv's line writes a word that needs quoting in $'...' (a blank as
 * \x20), where a pattern that spans blanks or quotes (authorization:
 * bearer ..., password="...") would not see it: such a word is redacted on
 * its own and quoted again, then the line as a whole is redacted, as any
 * other target is. */
static char *redacted_target_str(const cordon_audit *log, const char *s)
{
	size_t n = 0;
	struct shell_script *sc = s ? shell_parse(s, strlen(s), NULL) : NULL;
	const char **words = quoted_line_words(sc, s, &n);
	if (!words) {
		shell_free(sc);
		return redacted_str(log, s);
	}
	struct strbuf line;
	sb_init(&line);
	for (size_t i = 0; i < n; i++) {
		size_t at = line.len + (i > 0);
		if (i)
			sb_addc(&line, ' ');
		shell_quote_word(&line, words[i], i == 0);
		if (strcmp(line.buf + at, words[i]) == 0)
			continue; /* written as it is */
		char *r = redact_str(log->redactor, words[i]);
		line.len = at;
		line.buf[at] = '\0';
		shell_quote_word(&line, r, i == 0);
		free(r);
	}
	char *r = redacted_str(log, line.buf);
	sb_free(&line);
	free(words);
	shell_free(sc);
	return r;
}

static json_t *redacted_target(const cordon_audit *log, const char *s)
{
	AUTO_FREE char *r = redacted_target_str(log, s);
	return text(r);
}

static void format_time(long long ms, char *buf, size_t size)
{
	struct tm tm;
	time_t secs;
	if (ms <= 0) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	}
	secs = (time_t)(ms / 1000);
	gmtime_r(&secs, &tm);
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

char *cordon_audit_format(cordon_audit *log, const struct cordon_audit_record *rec)
{
	json_t *o = json_object(), *args = json_array();
	const char *actor = rec->actor && *rec->actor ? rec->actor : log->default_actor;
	char when[96], *s, *out;

	format_time(rec->time_ms, when, sizeof(when));
	json_object_set_new(o, "time", json_string(when));
	json_object_set_new(o, "actor", text(actor));
	json_object_set_new(o, "preset", text(rec->preset));
	json_object_set_new(o, "op", text(rec->op));
	json_object_set_new(o, "target", redacted_target(log, rec->target));
	json_object_set_new(o, "decision", text(rec->decision));
	json_object_set_new(o, "rule", text(rec->rule));
	json_object_set_new(o, "reason", redacted(log, rec->reason));
	json_object_set_new(o, "approval", text(rec->approval));
	json_object_set_new(o, "outcome", text(rec->outcome));
	json_object_set_new(o, "errno", rec->err ? json_integer(rec->err) : json_null());
	for (size_t i = 0; i < rec->nargs; i++)
		json_array_append_new(args, redacted(log, rec->args[i]));
	json_object_set_new(o, "args", args);
	s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!s)
		abort(); /* jansson fails only on memory */
	out = xstrdup(s);
	free(s);
	return out;
}

/* ---- the system log ---------------------------------------------------------- */

int cordon_audit_syslog(cordon_audit *log, const char *where, char **err)
{
	struct syslog_sink *s = syslog_sink_new(where, err);
	if (!s)
		return -1;
	syslog_sink_free(log->syslog);
	log->syslog = s;
	log->syslog_warned = false;
	return 0;
}

/* The file of a "file:line:col" origin: the policy file, or the layer
 * included into it, that holds the deciding rule. */
static char *layer_of(const char *rule)
{
	if (!rule)
		return NULL;
	char *layer = xstrdup(rule);
	for (int i = 0; i < 2; i++) {
		char *colon = strrchr(layer, ':');
		if (!colon || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1))
			break;
		*colon = '\0';
	}
	return layer;
}

/* The arguments cordon hook records, agent=A tool=T session=S in this
 * order, are fields of their own; the arguments of any other record (a
 * command's argv, an edit's texts) are each an arg. */
static bool hook_args(const struct cordon_audit_record *rec)
{
	static const char *const named[] = { "agent=", "tool=", "session=" };
	if (rec->nargs != 3)
		return false;
	for (size_t i = 0; i < 3; i++)
		if (!rec->args[i] || strncmp(rec->args[i], named[i], strlen(named[i])) != 0)
			return false;
	return true;
}

static int severity_of(const struct cordon_audit_record *rec)
{
	const char *d = rec->decision ? rec->decision : "";
	const char *o = rec->outcome ? rec->outcome : "";
	if (strcmp(d, "deny") == 0 || strncmp(o, "refused", 7) == 0 || strcmp(o, "denied") == 0 ||
	    strcmp(o, "sandbox-unavailable") == 0 || strcmp(o, "approval-void") == 0)
		return LOG_WARNING;
	if (strcmp(d, "ask") == 0)
		return LOG_NOTICE;
	return LOG_INFO;
}

/* The record as the system log's fields, redacted as the file's line is;
 * a NULL field is left out.  Failure is said once on stderr and changes
 * nothing else. */
static void audit_syslog(cordon_audit *log, const struct cordon_audit_record *rec)
{
	const char *actor = rec->actor && *rec->actor ? rec->actor : log->default_actor;
	size_t cap = 16 + rec->nargs, n = 0;
	struct syslog_field *f = xcalloc(cap, sizeof(*f));
	char **own = xcalloc(cap, sizeof(*own));
	size_t nown = 0;
	char pid[32], uid[32], err_num[32];
	char *err = NULL;

#define OWN(x) (own[nown++] = utf8_fixed(x))
#define FIELD(k, v)                                                                               \
	do {                                                                                      \
		const char *v_ = (v);                                                             \
		if (v_)                                                                           \
			f[n++] = (struct syslog_field){ (k), v_ };                                \
	} while (0)
	FIELD("decision", rec->decision);
	FIELD("outcome", rec->outcome);
	FIELD("preset", rec->preset);
	FIELD("rule", rec->rule);
	FIELD("layer", OWN(layer_of(rec->rule)));
	FIELD("op", rec->op);
	FIELD("target", OWN(redacted_target_str(log, rec->target)));
	FIELD("reason", OWN(redacted_str(log, rec->reason)));
	FIELD("approval", rec->approval);
	FIELD("actor", actor);
	if (hook_args(rec)) {
		FIELD("agent", OWN(redacted_str(log, rec->args[0] + strlen("agent="))));
		FIELD("tool", OWN(redacted_str(log, rec->args[1] + strlen("tool="))));
		FIELD("session", OWN(redacted_str(log, rec->args[2] + strlen("session="))));
	} else {
		for (size_t i = 0; i < rec->nargs; i++)
			FIELD("arg", OWN(redacted_str(log, rec->args[i])));
	}
	if (rec->err) {
		snprintf(err_num, sizeof(err_num), "%d", rec->err);
		FIELD("errno", err_num);
	}
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	snprintf(uid, sizeof(uid), "%ld", (long)getuid());
	FIELD("pid", pid);
	FIELD("uid", uid);
#undef FIELD
#undef OWN
	if (syslog_sink_send(log->syslog, severity_of(rec), f, n, &err) != 0 &&
	    !log->syslog_warned) {
		log->syslog_warned = true;
		fprintf(stderr, "cordon: warning: the system log: %s (said once)\n", err);
	}
	free(err);
	for (size_t i = 0; i < nown; i++)
		free(own[i]);
	free(own);
	free(f);
}

int cordon_audit_append(cordon_audit *log, const struct cordon_audit_record *rec, char **err)
{
	if (log->syslog)
		audit_syslog(log, rec);
	if (log->fd < 0)
		return 0;
	char *line = cordon_audit_format(log, rec);
	size_t len = strlen(line);
	ssize_t n;

	line = xrealloc(line, len + 2);
	line[len++] = '\n';
	line[len] = '\0';
	/* One call: retrying the rest of a short write would let another
	 * writer's record land inside this one. */
	do
		n = write(log->fd, line, len);
	while (n < 0 && errno == EINTR);
	free(line);
	if (n < 0 || (size_t)n != len) {
		*err = xasprintf("cannot append to the audit log %s: %s", log->path,
				 n < 0 ? strerror(errno) : "short write (disk full?)");
		return -1;
	}
	return 0;
}

void cordon_audit_record_decision(struct cordon_audit_record *rec, const cordon_decision *d)
{
	enum cordon_op op;
	const char *target = NULL;
	rec->preset = cordon_decision_preset(d);
	rec->decision = cordon_effect_name(cordon_decision_effect(d));
	rec->rule = cordon_decision_rule(d);
	rec->reason = cordon_decision_reason(d);
	if (cordon_decision_operation_count(d)) {
		/* The first operation is the request itself, canonical. */
		cordon_decision_operation(d, 0, &op, &target, NULL, NULL, NULL);
		rec->op = cordon_op_name(op);
		rec->target = target;
	}
}
