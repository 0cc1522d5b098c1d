/* The audit API the file tools call: the exact line of a record (fixed
 * time), redaction of target, reason and arguments, text that is not
 * UTF-8, errno, and one line a record appended with a newline; a log
 * with no file, and a system log that is not there. */
#include "config.h"

#include "cordon.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[65536];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

int main(void)
{
	char dir[] = "/tmp/cordon-audit-XXXXXX", path[64], *err = NULL, *line;
	cordon_policy *p = cordon_policy_load_embedded();
	cordon_audit *log;
	struct stat st;

	if (!mkdtemp(dir))
		return 99;
	snprintf(path, sizeof(path), "%s/log", dir);
	log = cordon_audit_open(path, p, &err);
	ok(log != NULL, "open creates the log");
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "  ... 0600");

	const char *args[] = { "--old", "token=ghp_1234567890abcdefghijABCDEFGHIJ123456" };
	struct cordon_audit_record rec = {
		.time_ms = 1772359200123LL, /* 2026-03-01T10:00:00.123Z */
		.preset = "workspace-write", .op = "edit", .target = "/ws/.env",
		.decision = "allow", .rule = "rules/default.cordon:68:3",
		.reason = "allowed", .approval = "ab12cd", .actor = "ana",
		.outcome = "failed", .err = 28, .args = args, .nargs = 2,
	};
	line = cordon_audit_format(log, &rec);
	is_str(line,
	       "{\"time\":\"2026-03-01T10:00:00.123Z\",\"actor\":\"ana\",\"preset\":\"workspace-write\","
	       "\"op\":\"edit\",\"target\":\"/ws/.env\",\"decision\":\"allow\","
	       "\"rule\":\"rules/default.cordon:68:3\",\"reason\":\"allowed\",\"approval\":\"ab12cd\","
	       "\"outcome\":\"failed\",\"errno\":28,\"args\":[\"--old\",\"token=[REDACTED:github-token]\"]}",
	       "a record is one compact line, fields in order, arguments redacted");
	free(line);

	struct cordon_audit_record bare = { .time_ms = 1000, .target = "/ws/caf\xe9\xff",
					    .reason = "password=hunter22", .actor = "bo" };
	line = cordon_audit_format(log, &bare);
	is_str(line,
	       "{\"time\":\"1970-01-01T00:00:01.000Z\",\"actor\":\"bo\",\"preset\":null,\"op\":null,"
	       "\"target\":\"/ws/caf??\",\"decision\":null,\"rule\":null,"
	       "\"reason\":\"password=[REDACTED:password]\",\"approval\":null,\"outcome\":null,"
	       "\"errno\":null,\"args\":[]}",
	       "unset fields are null, bytes that are not UTF-8 become '?', the reason is redacted");
	free(line);

	ok(cordon_audit_append(log, &rec, &err) == 0 && cordon_audit_append(log, &bare, &err) == 0,
	   "two records appended");
	char *text = slurp(path);
	char *nl = strchr(text, '\n');
	ok(nl && strchr(nl + 1, '\n') && strchr(nl + 1, '\n')[1] == '\0',
	   "  ... two lines, each ending with a newline");

	/* A decision fills the record. */
	cordon_context *ctx = cordon_context_new();
	cordon_context_set(ctx, "workspace", "/ws", &err);
	cordon_context_set(ctx, "home", "/home/u", &err);
	cordon_context_set(ctx, "agent_dir", "/home/u/.cordon", &err);
	cordon_context_set(ctx, "session_dir", "/home/u/.cordon/sessions/t", &err);
	cordon_evaluator *ev = cordon_evaluator_new(p, "read-only", ctx, &err);
	if (!ev) {
		printf("# %s\n", err);
		return 1;
	}
	struct cordon_request req = { .op = CORDON_READ, .target = "/home/u/.ssh/id_rsa",
				      .canonical = true };
	cordon_decision *d = cordon_evaluate(ev, &req, &err);
	struct cordon_audit_record from = { 0 };
	cordon_audit_record_decision(&from, d);
	ok(from.preset && strcmp(from.preset, "read-only") == 0 && strcmp(from.op, "read") == 0 &&
		   strcmp(from.target, "/home/u/.ssh/id_rsa") == 0 &&
		   strcmp(from.decision, "deny") == 0 && from.rule && from.reason,
	   "a decision fills preset, op, target, decision, rule and reason");
	cordon_decision_free(d);
	cordon_evaluator_free(ev);
	cordon_context_free(ctx);

	cordon_audit_close(log);
	ok(cordon_audit_open(dir, p, &err) == NULL && err && strstr(err, dir),
	   "a directory is refused, the message names it");
	free(err);

	/* The system log alone (tests/syslog.sh sends to the real daemons). */
	char sock[96];
	err = NULL;
	log = cordon_audit_open(NULL, p, &err);
	ok(log != NULL, "a NULL path opens a log with no file, for the system log alone");
	ok(log && cordon_audit_syslog(log, "journl", &err) == -1 && err && strstr(err, "'journl'"),
	   "an unknown system log is refused, the message names it");
	free(err);
	err = NULL;
	snprintf(sock, sizeof(sock), "%s/none.sock", dir);
	ok(log && cordon_audit_syslog(log, sock, &err) == 0 &&
		   cordon_audit_append(log, &rec, &err) == 0 &&
		   cordon_audit_append(log, &bare, &err) == 0 && err == NULL,
	   "a system log with nothing listening fails no append (it is said once on stderr)");
	cordon_audit_close(log);
	unlink(path);
	rmdir(dir);
	cordon_policy_free(p);
	return tap_done();
}
