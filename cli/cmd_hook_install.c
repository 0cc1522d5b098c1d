/* cordon hook install | uninstall | doctor AGENT: the agent's hook
 * configuration.  Install merges one entry into the agent's file and never
 * clobbers it: the file must parse, the old one is kept as a backup, and
 * the new one replaces it by rename.  The entry's command ends in
 * `|| exit 2`, so a cordon binary that is missing or fails blocks the tool
 * call instead of letting it through. */
#include "config.h"

#include "cli.h"
#include "hook.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The agent's configuration file: under --dir, else home (user scope) or
 * the current directory (project scope). */
static char *config_path(const struct hook_proto *p, const struct install_opts *o)
{
	char cwd[PATH_MAX], *path;
	const char *base = o->dir;
	if (!base && !strcmp(o->scope, "user"))
		base = getenv("HOME");
	if (!base && getcwd(cwd, sizeof(cwd)))
		base = cwd;
	if (!base || asprintf(&path, "%s/%s/%s", base, p->dir, p->file) < 0)
		return NULL;
	return path;
}

/* The file as JSON: an empty object when it does not exist, NULL (with a
 * message) when it cannot be read or is not a JSON object. */
static json_t *load_config(const char *path, bool *existed)
{
	json_error_t jerr;
	struct stat st;
	*existed = stat(path, &st) == 0;
	if (!*existed) {
		if (errno != ENOENT) {
			fprintf(stderr, "cordon: %s: %s\n", path, strerror(errno));
			return NULL;
		}
		return json_object();
	}
	json_t *cfg = json_load_file(path, 0, &jerr);
	if (!json_is_object(cfg)) {
		fprintf(stderr, "cordon: %s:%d:%d: %s; not changing it\n", path, jerr.line,
			jerr.column, cfg ? "the file is not a JSON object" : jerr.text);
		json_decref(cfg);
		return NULL;
	}
	return cfg;
}

/* Write cfg to path through a temp file in the same directory and a rename,
 * keeping the old file as PATH.cordon-backup-TIME. */
static int save_config(const char *path, json_t *cfg, bool existed)
{
	char *tmp = NULL, *dir = strdup(path), *slash;
	int rc = EXIT_USAGE, fd = -1;
	mode_t mode = 0600;
	struct stat st;
	if (!dir)
		abort();
	slash = strrchr(dir, '/');
	*slash = '\0';
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		fprintf(stderr, "cordon: %s: %s\n", dir, strerror(errno));
		goto out;
	}
	if (existed && stat(path, &st) == 0) {
		char *bak;
		mode = st.st_mode & 07777;
		if (asprintf(&bak, "%s.cordon-backup-%lld", path, (long long)time(NULL)) < 0)
			abort();
		json_t *old = json_load_file(path, 0, NULL);
		int brc = old ? json_dump_file(old, bak, JSON_INDENT(2)) : -1;
		json_decref(old);
		if (brc != 0 || chmod(bak, mode) != 0) {
			fprintf(stderr, "cordon: cannot keep a backup as %s; not changing %s\n", bak,
				path);
			free(bak);
			goto out;
		}
		printf("kept the old file as %s\n", bak);
		free(bak);
	}
	if (asprintf(&tmp, "%s.cordon-XXXXXX", path) < 0)
		abort();
	if ((fd = mkstemp(tmp)) < 0) {
		fprintf(stderr, "cordon: %s: %s\n", tmp, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	char *text = json_dumps(cfg, JSON_INDENT(2));
	size_t len = text ? strlen(text) : 0;
	bool ok = text && write(fd, text, len) == (ssize_t)len && write(fd, "\n", 1) == 1 &&
		  fchmod(fd, mode) == 0 && fsync(fd) == 0;
	free(text);
	if (close(fd) != 0 || !ok || rename(tmp, path) != 0) {
		fprintf(stderr, "cordon: cannot write %s: %s\n", path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = EXIT_OK;
out:
	free(tmp);
	free(dir);
	return rc;
}

/* The command the agent runs: this binary by its absolute path, with the
 * policy and preset, and `|| exit 2` so that any failure blocks. */
static char *hook_command(const struct hook_proto *p, const struct install_opts *o)
{
	char self[PATH_MAX], pol[PATH_MAX], *cmd;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return NULL;
	self[n] = '\0';
	char *qs = hook_shell_quote(self), *qp = NULL, *qr = NULL;
	if (o->policy) {
		if (!realpath(o->policy, pol)) {
			fprintf(stderr, "cordon: %s: %s\n", o->policy, strerror(errno));
			free(qs);
			return NULL;
		}
		qp = hook_shell_quote(pol);
	}
	if (o->preset)
		qr = hook_shell_quote(o->preset);
	if (asprintf(&cmd, "%s hook %s%s%s%s%s || exit 2", qs, p->name, qp ? " -p " : "",
		     qp ? qp : "", qr ? " --preset " : "", qr ? qr : "") < 0)
		abort();
	free(qs);
	free(qp);
	free(qr);
	return cmd;
}

/* Is this hook entry cordon's own for this agent? */
static bool is_ours(const struct hook_proto *p, json_t *hook)
{
	const char *cmd = json_string_value(json_object_get(hook, "command"));
	char needle[64];
	snprintf(needle, sizeof(needle), " hook %s", p->name);
	return cmd && strstr(cmd, "cordon") && strstr(cmd, needle);
}

/* Remove cordon's entries for this agent from one event's groups; returns
 * how many were removed. */
static size_t remove_ours(const struct hook_proto *p, json_t *groups)
{
	size_t removed = 0;
	for (size_t g = json_array_size(groups); g-- > 0;) {
		json_t *group = json_array_get(groups, g);
		json_t *hooks = json_object_get(group, "hooks");
		for (size_t h = json_array_size(hooks); h-- > 0;) {
			if (is_ours(p, json_array_get(hooks, h))) {
				json_array_remove(hooks, h);
				removed++;
			}
		}
		if (json_is_array(hooks) && json_array_size(hooks) == 0)
			json_array_remove(groups, g);
	}
	return removed;
}

static const char *const *events_of(const struct hook_proto *p, const char *ev[3])
{
	ev[0] = p->event;
	ev[1] = p->event2;
	ev[2] = NULL;
	return ev;
}

int cmd_hook_install(const struct hook_proto *p, const struct install_opts *opts)
{
	struct install_opts o = *opts;
	int rc;
	if (o.policy || o.preset) {
		/* Refuse to install a hook that would block everything. */
		int status = 0;
		cordon_policy *pol = cli_load_policy(o.policy, &status);
		if (!pol)
			return status;
		bool known = !o.preset || cordon_policy_has_preset(pol, o.preset);
		cordon_policy_free(pol);
		if (!known)
			return cli_usage_error("hook", "the policy has no preset '%s'", o.preset);
	}
	char *path = config_path(p, &o), *cmd = hook_command(p, &o);
	bool existed;
	json_t *cfg = path && cmd ? load_config(path, &existed) : NULL;
	if (!cfg) {
		free(path);
		free(cmd);
		return EXIT_USAGE;
	}
	json_t *hooks = json_object_get(cfg, "hooks");
	if (!hooks) {
		hooks = json_object();
		json_object_set_new(cfg, "hooks", hooks);
	}
	if (!json_is_object(hooks)) {
		fprintf(stderr, "cordon: %s: \"hooks\" is not an object; not changing it\n", path);
		rc = EXIT_USAGE;
		goto out;
	}
	const char *evs[3];
	for (const char *const *e = events_of(p, evs); *e; e++) {
		json_t *groups = json_object_get(hooks, *e);
		if (!groups) {
			groups = json_array();
			json_object_set_new(hooks, *e, groups);
		}
		if (!json_is_array(groups)) {
			fprintf(stderr, "cordon: %s: \"hooks.%s\" is not an array; not changing it\n",
				path, *e);
			rc = EXIT_USAGE;
			goto out;
		}
		remove_ours(p, groups); /* installing again replaces, never duplicates */
		json_t *group = json_object();
		if (p->matcher)
			json_object_set_new(group, "matcher", json_string(p->matcher));
		json_object_set_new(group, "hooks",
				    json_pack("[{s:s, s:s, s:i}]", "type", "command", "command", cmd,
					      "timeout", p->timeout));
		json_array_append_new(groups, group);
	}
	if (o.dry_run) {
		char *text = json_dumps(cfg, JSON_INDENT(2));
		printf("%s\n", text);
		free(text);
		rc = EXIT_OK;
		goto out;
	}
	rc = save_config(path, cfg, existed);
	if (rc == EXIT_OK)
		printf("installed cordon's %s hook for %s in %s\n", p->event, p->title, path);
out:
	json_decref(cfg);
	free(path);
	free(cmd);
	return rc;
}

int cmd_hook_uninstall(const struct hook_proto *p, const struct install_opts *opts)
{
	struct install_opts o = *opts;
	int rc;
	char *path = config_path(p, &o);
	bool existed;
	json_t *cfg = path ? load_config(path, &existed) : NULL;
	size_t removed = 0;
	if (!cfg) {
		free(path);
		return EXIT_USAGE;
	}
	json_t *hooks = json_object_get(cfg, "hooks");
	const char *evs[3];
	for (const char *const *e = events_of(p, evs); *e && json_is_object(hooks); e++) {
		json_t *groups = json_object_get(hooks, *e);
		if (!json_is_array(groups))
			continue;
		removed += remove_ours(p, groups);
		if (json_array_size(groups) == 0)
			json_object_del(hooks, *e);
	}
	if (json_is_object(hooks) && json_object_size(hooks) == 0)
		json_object_del(cfg, "hooks");
	if (!removed) {
		printf("no cordon hook for %s in %s\n", p->title, path);
		rc = EXIT_OK;
	} else if ((rc = save_config(path, cfg, existed)) == EXIT_OK) {
		printf("removed cordon's hook for %s from %s\n", p->title, path);
	}
	json_decref(cfg);
	free(path);
	return rc;
}

/* ---- doctor: the installed hook, end to end ----------------------------------------- */

static int checks_failed;

static void report(bool ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	checks_failed += !ok;
}

/* Run the installed command as the agent would (sh -c, the event on stdin);
 * its exit status, and its stdout in *out (malloc'd). */
static int run_hook(const char *cmd, const char *event, char **out)
{
	int in[2], outp[2];
	if (pipe(in) != 0 || pipe(outp) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(outp[1], 1);
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 2);
		close(in[1]);
		close(outp[0]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(outp[1]);
	(void)!write(in[1], event, strlen(event));
	close(in[1]);
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t r;
	while (buf && (r = read(outp[0], buf + len, cap - len - 1)) > 0) {
		len += (size_t)r;
		if (len + 1 == cap && !(buf = realloc(buf, cap *= 2)))
			break;
	}
	close(outp[0]);
	if (buf)
		buf[len] = '\0';
	*out = buf;
	int status;
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A sample event of this agent's protocol for a tool call. */
static char *sample_event(const struct hook_proto *p, const char *tool, const char *key,
			  const char *value)
{
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd)))
		strcpy(cwd, "/");
	json_t *ev = json_pack("{s:s, s:s, s:s, s:s, s:{s:s}}", "hook_event_name", p->event,
			       "session_id", "cordon-doctor", "cwd", cwd, "tool_name", tool,
			       "tool_input", key, value);
	char *s = json_dumps(ev, JSON_COMPACT);
	json_decref(ev);
	return s;
}

/* Does the hook's answer block the call? */
static bool blocks(const struct hook_proto *p, int status, const char *out)
{
	if (status == 2)
		return true;
	if (status != 0 || !out)
		return false;
	json_t *a = json_loads(out, 0, NULL);
	const char *d = json_string_value(json_object_get(a, "decision"));
	json_t *h = json_object_get(a, "hookSpecificOutput");
	const char *pd = json_string_value(json_object_get(h, "permissionDecision"));
	bool b = (pd && !strcmp(pd, "deny")) || (d && (!strcmp(d, "deny") || !strcmp(d, "block")));
	json_decref(a);
	(void)p;
	return b;
}

int cmd_hook_doctor(const struct hook_proto *p, const struct install_opts *opts)
{
	struct install_opts o = *opts;
	char *path = config_path(p, &o), *what;
	bool existed;
	json_t *cfg = path ? load_config(path, &existed) : NULL;
	if (!cfg) {
		free(path);
		return EXIT_POLICY;
	}
	checks_failed = 0;
	if (asprintf(&what, "%s exists and parses", path) < 0)
		abort();
	report(existed, what);
	free(what);
	const char *cmd = NULL;
	json_t *groups = json_object_get(json_object_get(cfg, "hooks"), p->event);
	for (size_t g = 0; g < json_array_size(groups) && !cmd; g++) {
		json_t *hooks = json_object_get(json_array_get(groups, g), "hooks");
		for (size_t h = 0; h < json_array_size(hooks) && !cmd; h++)
			if (is_ours(p, json_array_get(hooks, h)))
				cmd = json_string_value(json_object_get(json_array_get(hooks, h),
									"command"));
	}
	if (asprintf(&what, "a cordon hook is installed for %s's %s event", p->title, p->event) < 0)
		abort();
	report(cmd != NULL, what);
	free(what);
	if (cmd) {
		const char *tail = cmd + strlen(cmd) - strlen(" || exit 2");
		report(strlen(cmd) > 10 && !strcmp(tail, " || exit 2"),
		       "its command blocks when cordon is missing or fails (|| exit 2)");
		char *out = NULL;
		int st = run_hook(cmd, "this is not an event", &out);
		report(blocks(p, st, out), "a malformed event is blocked");
		free(out);
		char *home = getenv("HOME");
		char *key_path;
		if (asprintf(&key_path, "%s/.ssh/id_ed25519", home ? home : "") < 0)
			abort();
		const char *read_tool = p == &hook_protos[HOOK_GEMINI] ? "read_file" : "Read";
		if (p == &hook_protos[HOOK_CODEX]) {
			char *ev = sample_event(p, "Bash", "command", "cat ~/.ssh/id_ed25519");
			st = run_hook(cmd, ev, &out);
			free(ev);
		} else {
			char *ev = sample_event(p, read_tool, "file_path", key_path);
			st = run_hook(cmd, ev, &out);
			free(ev);
		}
		if (asprintf(&what, "a read of %s is answered (status %d)", key_path, st) < 0)
			abort();
		report(st == 0 || st == 2, what);
		free(what);
		printf("     the policy %s it\n", blocks(p, st, out) ? "blocks" : "lets through");
		free(out);
		free(key_path);
	}
	printf("%s\n", checks_failed ? "the hook is not working as installed"
				     : "the hook works as installed");
	json_decref(cfg);
	free(path);
	return checks_failed ? EXIT_POLICY : EXIT_OK;
}
