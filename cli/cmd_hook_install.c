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
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The directory the agent's file is in: DIR/.AGENT under --dir, else
 * under home (user scope) or the current directory (project scope).
 * Codex's own home is $CODEX_HOME when set. */
static char *config_dir(const struct hook_proto *p, const struct install_opts *o)
{
	char cwd[PATH_MAX], real[PATH_MAX], *dir;
	const char *base = o->dir;
	bool user = !base && !strcmp(o->scope, "user");
	if (user && p == &hook_protos[HOOK_CODEX])
		return codex_home();
	if (user)
		base = getenv("HOME");
	else if (!base && getcwd(cwd, sizeof(cwd)))
		base = cwd;
	/* Absolute, as the agent names it (Codex keys its trust by this path);
	 * $HOME is taken as written, as the agents take it. */
	if (base && !user && realpath(base, real))
		base = real;
	if (!base || base[0] != '/' || asprintf(&dir, "%s/%s", base, p->dir) < 0)
		return NULL;
	return dir;
}

static char *config_path(const struct hook_proto *p, const struct install_opts *o)
{
	char *dir = config_dir(p, o), *path;
	if (!dir || asprintf(&path, "%s/%s", dir, p->file) < 0)
		path = NULL;
	free(dir);
	return path;
}

/* The whole file, NUL-terminated, or NULL with errno (ENOENT: none). */
static char *read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t n = 0, cap = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 + 1 > cap && !(text = realloc(text, cap = (n + 4096 + 1) * 2)))
			abort();
		size_t r = fread(text + n, 1, cap - n - 1, f);
		n += r;
		if (r == 0)
			break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(text);
		errno = EIO;
		return NULL;
	}
	text[n] = '\0';
	if (len)
		*len = n;
	return text;
}

/* Gemini CLI reads its settings.json with // and / * * / comments: blank
 * them out (line numbers stay) so that the JSON parser reads the rest.
 * Returns whether there were any. */
static bool blank_comments(char *t, size_t len)
{
	bool in_str = false, any = false;
	for (size_t i = 0; i < len; i++) {
		if (in_str) {
			if (t[i] == '\\' && i + 1 < len)
				i++;
			else if (t[i] == '"')
				in_str = false;
		} else if (t[i] == '"') {
			in_str = true;
		} else if (t[i] == '/' && i + 1 < len && (t[i + 1] == '/' || t[i + 1] == '*')) {
			bool line = t[i + 1] == '/';
			any = true;
			for (; i < len; i++) {
				if (line && t[i] == '\n')
					break;
				if (!line && t[i] == '*' && i + 1 < len && t[i + 1] == '/') {
					t[i] = t[i + 1] = ' ';
					i++;
					break;
				}
				if (t[i] != '\n')
					t[i] = ' ';
			}
		}
	}
	return any;
}

/* The file as JSON: an empty object when it does not exist, NULL (with a
 * message) when it cannot be read or is not a JSON object.  *comments
 * says whether it had comments, which the JSON written back cannot keep. */
static json_t *load_config(const char *path, bool *existed, bool *comments)
{
	json_error_t jerr;
	size_t len;
	char *text = read_text(path, &len);
	*existed = text != NULL;
	*comments = false;
	if (!text) {
		if (errno != ENOENT) {
			fprintf(stderr, "cordon: %s: %s\n", path, strerror(errno));
			return NULL;
		}
		return json_object();
	}
	*comments = blank_comments(text, len);
	json_t *cfg = json_loadb(text, len, 0, &jerr);
	free(text);
	if (!json_is_object(cfg)) {
		fprintf(stderr, "cordon: %s:%d:%d: %s; not changing it\n", path, jerr.line,
			jerr.column, cfg ? "the file is not a JSON object" : jerr.text);
		json_decref(cfg);
		return NULL;
	}
	return cfg;
}

/* Keep the file as it is now, byte for byte, as PATH.cordon-backup-TIME
 * (same mode); the backup's name in *bak. */
static int keep_backup(const char *path, mode_t mode, char **bak)
{
	size_t len;
	char *old = read_text(path, &len);
	int fd = -1;
	bool ok = false;
	if (asprintf(bak, "%s.cordon-backup-%lld", path, (long long)time(NULL)) < 0)
		abort();
	if (old && (fd = open(*bak, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)) >= 0)
		ok = write(fd, old, len) == (ssize_t)len && fchmod(fd, mode) == 0 && fsync(fd) == 0;
	if (fd >= 0 && close(fd) != 0)
		ok = false;
	free(old);
	return ok ? 0 : -1;
}

/* Write text to path through a temp file in the same directory and a
 * rename, keeping the old file as PATH.cordon-backup-TIME. */
static int save_text(const char *path, const char *text, bool existed)
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
		if (keep_backup(path, mode, &bak) != 0) {
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
	size_t len = strlen(text);
	bool ok = write(fd, text, len) == (ssize_t)len && fchmod(fd, mode) == 0 && fsync(fd) == 0;
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

static int save_config(const char *path, json_t *cfg, bool existed, bool comments)
{
	char *text = json_dumps(cfg, JSON_INDENT(2)), *nl;
	if (!text || asprintf(&nl, "%s\n", text) < 0)
		abort();
	free(text);
	int rc = save_text(path, nl, existed);
	free(nl);
	/* JSON has no place for them; say where they are. */
	if (rc == EXIT_OK && comments)
		fprintf(stderr, "cordon: %s had comments, which the rewritten file does not keep; "
				"the backup beside it has them\n", path);
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
	if (asprintf(&cmd, "%s hook %s%s%s%s%s%s || exit 2", qs, p->name, qp ? " -p " : "",
		     qp ? qp : "", qr ? " --preset " : "", qr ? qr : "",
		     o->no_ask ? " --no-ask" : "") < 0)
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

/* The index of the first group that holds nothing but cordon's entry, or
 * the end. */
static size_t own_group(const struct hook_proto *p, json_t *groups)
{
	size_t g;
	for (g = 0; g < json_array_size(groups); g++) {
		json_t *hooks = json_object_get(json_array_get(groups, g), "hooks");
		if (json_array_size(hooks) == 1 && is_ours(p, json_array_get(hooks, 0)))
			break;
	}
	return g;
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

/* Where Codex keeps the trust of hooks_path's entries: config.toml beside
 * it, but for a project's hooks.json, whose trust the user's config.toml
 * holds. */
static char *codex_config_for(const struct install_opts *o, const char *hooks_path)
{
	char *dir = NULL, *path = NULL;
	if (!o->dir && strcmp(o->scope, "user") != 0)
		dir = codex_home();
	else if (!(dir = strdup(hooks_path)) || !strrchr(dir, '/'))
		abort();
	else
		*strrchr(dir, '/') = '\0';
	if (dir && asprintf(&path, "%s/config.toml", dir) < 0)
		path = NULL;
	free(dir);
	return path;
}

/* Record cordon's entries in hooks.json (cfg) as trusted in Codex's
 * config.toml, as Codex's /hooks screen does, saying so (a dry run prints
 * the new config.toml instead of writing it). */
static int codex_trust_install(const struct hook_proto *p, const struct install_opts *o,
			       const char *hooks_path, const size_t placed[2], const char *cmd)
{
	char *conf = codex_config_for(o, hooks_path), *err = NULL;
	bool existed;
	int rc = EXIT_OK;
	if (!conf) {
		fputs("cordon: cannot tell where Codex's config.toml is (set HOME or CODEX_HOME)\n",
		      stderr);
		return EXIT_USAGE;
	}
	char *text = read_text(conf, NULL);
	existed = text != NULL;
	if (!text && errno != ENOENT) {
		fprintf(stderr, "cordon: %s: %s\n", conf, strerror(errno));
		free(conf);
		return EXIT_USAGE;
	}
	const char *evs[] = { p->event, p->event2 };
	for (size_t i = 0; i < 2 && evs[i] && rc == EXIT_OK; i++) {
		char *key = codex_trust_key(hooks_path, evs[i], placed[i]);
		char *hash = codex_trust_hash(evs[i], p->matcher, cmd, p->timeout);
		char *next = key && hash ? codex_trust_record(text, key, hash, &err) : NULL;
		if (!next) {
			fprintf(stderr, "cordon: %s: %s; not changing it or %s (trust the hook in "
					"Codex's /hooks screen instead)\n",
				conf, err ? err : "out of memory", hooks_path);
			rc = EXIT_USAGE;
		} else {
			fprintf(stderr, "cordon: %s hook %s as trusted in %s "
					"([hooks.state.\"%s\"] trusted_hash = \"%s\"), as Codex's /hooks "
					"screen does: Codex runs it without asking\n",
				o->dry_run ? "would record" : "records", evs[i], conf, key, hash);
			free(text);
			text = next;
		}
		free(key);
		free(hash);
		free(err);
		err = NULL;
	}
	if (rc == EXIT_OK && o->dry_run)
		printf("%s", text);
	else if (rc == EXIT_OK)
		rc = save_text(conf, text, existed);
	if (rc == EXIT_OK && !o->dir && strcmp(o->scope, "user") != 0)
		fprintf(stderr, "cordon: Codex reads a project's hooks.json only when the project "
				"is trusted ([projects.\"DIR\"] trust_level = \"trusted\" in %s)\n",
			conf);
	free(text);
	free(conf);
	return rc;
}

/* Which preset the hook decides with, and what that means with no person
 * to answer: a headless agent turns every ask into a denial. */
static int say_preset(const struct install_opts *o)
{
	int status = 0;
	cordon_policy *pol = cli_load_policy(o->policy, &status);
	if (!pol)
		return status ? status : EXIT_POLICY;
	const char *def = cordon_policy_default_preset(pol);
	if (o->preset && !cordon_policy_has_preset(pol, o->preset)) {
		cli_policy_done(pol);
		return cli_usage_error("hook", "the policy has no preset '%s'", o->preset);
	}
	if (!o->preset && def)
		fprintf(stderr,
			"cordon: the hook decides with the policy's default preset '%s'.  An agent run "
			"headless (claude -p, codex exec, gemini -p) has no person to answer an ask, so "
			"every ask is a denial there; for an agent that works on its own, install with "
			"--preset workspace-write (writes in the project allowed, the rest still "
			"bounded) and --no-ask (an ask is refused at once, saying so)\n",
			def);
	cli_policy_done(pol);
	return EXIT_OK;
}

int cmd_hook_install(const struct hook_proto *p, const struct install_opts *opts)
{
	struct install_opts o = *opts;
	int rc = say_preset(&o); /* refuses a hook that would block everything */
	if (rc != EXIT_OK)
		return rc;
	char *path = config_path(p, &o), *cmd = hook_command(p, &o);
	bool existed, comments;
	json_t *cfg = path && cmd ? load_config(path, &existed, &comments) : NULL;
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
	size_t placed[2] = { 0, 0 };
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
		/* Installing again replaces, never duplicates, and in the same
		 * place: Codex keys the trust of every entry by its position. */
		size_t at = own_group(p, groups);
		remove_ours(p, groups);
		if (at > json_array_size(groups))
			at = json_array_size(groups);
		json_t *group = json_object();
		if (p->matcher)
			json_object_set_new(group, "matcher", json_string(p->matcher));
		json_object_set_new(group, "hooks",
				    json_pack("[{s:s, s:s, s:i}]", "type", "command", "command", cmd,
					      "timeout", p->timeout));
		json_array_insert_new(groups, at, group);
		placed[e - evs] = at;
	}
	/* Codex skips an untrusted entry without a word: trust first, so that
	 * a hooks.json is never left with an entry Codex would not run. */
	if (p == &hook_protos[HOOK_CODEX] && (rc = codex_trust_install(p, &o, path, placed, cmd)))
		goto out;
	if (o.dry_run) {
		char *text = json_dumps(cfg, JSON_INDENT(2));
		printf("%s\n", text);
		free(text);
		rc = EXIT_OK;
		goto out;
	}
	rc = save_config(path, cfg, existed, comments);
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
	bool existed, comments;
	json_t *cfg = path ? load_config(path, &existed, &comments) : NULL;
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
	} else if ((rc = save_config(path, cfg, existed, comments)) == EXIT_OK) {
		printf("removed cordon's hook for %s from %s\n", p->title, path);
	}
	json_decref(cfg);
	free(path);
	return rc;
}

/* ---- doctor: the installed hook, end to end ----------------------------------------- */

static int checks_failed;

static void report(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(bool ok, const char *fmt, ...)
{
	va_list ap;
	printf("%s ", ok ? "ok  " : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	checks_failed += !ok;
}

/* Read all of fd into a malloc'd string. */
static char *slurp(int fd)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t r;
	while (buf && (r = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)r;
		if (len + 1 == cap && !(buf = realloc(buf, cap *= 2)))
			return NULL;
	}
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* Run the installed command as the agent would (sh -c, the event on stdin);
 * its exit status, its stdout in *out and its stderr in *err (malloc'd). */
static int run_hook(const char *cmd, const char *event, char **out, char **err)
{
	int in[2], outp[2];
	FILE *errf = tmpfile();
	*out = *err = NULL;
	if (!errf || pipe(in) != 0 || pipe(outp) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(outp[1], 1);
		dup2(fileno(errf), 2);
		close(in[1]);
		close(outp[0]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(outp[1]);
	(void)!write(in[1], event, strlen(event));
	close(in[1]);
	*out = slurp(outp[0]);
	close(outp[0]);
	int status;
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	rewind(errf);
	*err = slurp(fileno(errf));
	fclose(errf);
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
static bool blocks(int status, const char *out)
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
	return b;
}

/* The shell words of the installed command up to `||` (cordon writes them
 * quoted with '...'; "..." and \ are read too), malloc'd, NULL-ended. */
static char **command_words(const char *cmd)
{
	size_t n = 0;
	char **w = calloc(strlen(cmd) + 2, sizeof(*w));
	const char *s = cmd;
	if (!w)
		abort();
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || (s[0] == '|' && s[1] == '|') || *s == ';')
			break;
		char *word = malloc(strlen(s) + 1), *o = word;
		if (!word)
			abort();
		while (*s && *s != ' ' && *s != '\t' && *s != ';' && *s != '|') {
			if (*s == '\'') {
				for (s++; *s && *s != '\''; s++)
					*o++ = *s;
				s += *s == '\'';
			} else if (*s == '"') {
				for (s++; *s && *s != '"'; s++)
					*o++ = *s == '\\' && s[1] ? *++s : *s;
				s += *s == '"';
			} else if (*s == '\\' && s[1]) {
				*o++ = s[1];
				s += 2;
			} else {
				*o++ = *s++;
			}
		}
		*o = '\0';
		w[n++] = word;
	}
	return w;
}

static void words_free(char **w)
{
	for (size_t i = 0; w[i]; i++)
		free(w[i]);
	free(w);
}

static const char *word_after(char **w, const char *flag)
{
	for (size_t i = 0; w[i]; i++)
		if (!strcmp(w[i], flag) && w[i + 1])
			return w[i + 1];
	return NULL;
}

/* The binary and the policy the command names: present, and compiling. */
static void check_command_parts(const char *cmd)
{
	char **w = command_words(cmd);
	const char *bin = w[0] ? w[0] : "";
	bool runs = bin[0] == '/' ? access(bin, X_OK) == 0 : bin[0] != '\0';
	report(runs, "the cordon binary it runs, %s, is there%s", bin,
	       runs ? "" : ": every tool call is blocked until it is (cordon hook install again)");
	const char *pol_path = word_after(w, "-p"), *preset = word_after(w, "--preset");
	int status = 0;
	fflush(stdout);
	cordon_policy *pol = cli_load_policy(pol_path, &status);
	bool has = pol && (!preset || cordon_policy_has_preset(pol, preset));
	report(pol != NULL, "the policy it uses, %s, compiles%s",
	       pol_path ? pol_path : "(the installed or embedded one)",
	       pol ? "" : ": every tool call is blocked until it does (cordon check names the error)");
	if (pol && preset)
		report(has, "the policy has the preset '%s'%s", preset,
		       has ? "" : ": every tool call is blocked");
	if (pol)
		cli_policy_done(pol);
	words_free(w);
}

/* The tools each agent offers at the release the hook was checked
 * against; the installed matcher must send every one of them. */
static const char *const claude_tools[] = {
	"Agent", "Task", "Bash", "CronCreate", "CronDelete", "CronList", "Edit", "EnterWorktree",
	"ExitWorktree", "NotebookEdit", "Read", "ReportFindings", "ScheduleWakeup", "SendMessage",
	"Skill", "TaskCreate", "TaskGet", "TaskList", "TaskOutput", "TaskStop", "TaskUpdate",
	"WebFetch", "WebSearch", "Workflow", "Write", "mcp__server__tool", NULL
};
static const char *const codex_tools[] = { "Bash", "apply_patch", "mcp__server__tool", NULL };
static const char *const gemini_tools[] = {
	"list_directory", "read_file", "grep_search", "glob", "replace", "write_file", "web_fetch",
	"run_shell_command", "google_web_search", "read_many_files", "invoke_agent",
	"activate_skill", "enter_plan_mode", "update_topic", "list_background_processes",
	"read_background_output", "mcp__server__tool", NULL
};

static void check_matcher(const struct hook_proto *p, const char *matcher)
{
	const char *const *tools = p == &hook_protos[HOOK_CLAUDE]  ? claude_tools
				   : p == &hook_protos[HOOK_CODEX] ? codex_tools
								   : gemini_tools;
	char missed[512] = "";
	size_t len = 0;
	if (matcher && *matcher && strcmp(matcher, "*") != 0) {
		/* Anchored: a matcher that happens to find a name inside a longer
		 * one is not counted on. */
		char *re;
		regex_t rx;
		if (asprintf(&re, "^(%s)$", matcher) < 0)
			abort();
		bool ok = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) == 0;
		for (const char *const *t = tools; *t; t++)
			if ((!ok || regexec(&rx, *t, 0, NULL, 0) != 0) && len + 64 < sizeof(missed))
				len += (size_t)snprintf(missed + len, sizeof(missed) - len, "%s%s",
							len ? ", " : "", *t);
		if (ok)
			regfree(&rx);
		free(re);
	}
	report(!len, "its matcher sends every tool %s offers to cordon%s%s", p->title,
	       len ? "; these never reach it: " : "", missed);
}

/* Settings in the same file under which the agent runs no hook, or not
 * this one: Claude Code's disableAllHooks, Gemini CLI's hooksConfig. */
static void check_hooks_on(const struct hook_proto *p, json_t *cfg, const char *cmd)
{
	json_t *hc = json_object_get(cfg, "hooksConfig"), *v;
	const char *off = NULL;
	size_t i;
	if (p == &hook_protos[HOOK_CLAUDE] && json_is_true(json_object_get(cfg, "disableAllHooks")))
		off = "\"disableAllHooks\": true";
	if (p == &hook_protos[HOOK_GEMINI] && json_is_false(json_object_get(hc, "enabled")))
		off = "\"hooksConfig\": {\"enabled\": false}";
	json_array_foreach(p == &hook_protos[HOOK_GEMINI] ? json_object_get(hc, "disabled") : NULL, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), cmd))
			off = "\"hooksConfig\": {\"disabled\"} names cordon's command";
	report(!off, "%s runs the hooks of this file%s%s%s", p->title, off ? ": " : "", off ? off : "",
	       off ? ", so no call reaches cordon" : "");
}

/* Codex runs an entry only when config.toml trusts its current hash. */
static void check_codex_trust(const struct install_opts *o, const char *hooks_path,
			      const char *event, size_t group, json_t *grp, json_t *hook)
{
	char *conf = codex_config_for(o, hooks_path);
	char *text = conf ? read_text(conf, NULL) : NULL;
	char *key = codex_trust_key(hooks_path, event, group);
	json_t *t = json_object_get(hook, "timeout");
	char *want = codex_trust_hash(event, json_string_value(json_object_get(grp, "matcher")),
				      json_string_value(json_object_get(hook, "command")),
				      json_is_integer(t) ? (long)json_integer_value(t) : -1);
	char *have = key ? codex_trust_read(text, key) : NULL;
	bool ok = have && want && !strcmp(have, want);
	report(ok, "Codex trusts its %s entry (%s in %s)%s", event, key ? key : "?",
	       conf ? conf : "config.toml",
	       ok     ? ""
	       : have ? ": the hash recorded is not the entry's (it changed since): Codex skips "
			"the hook without a word and every call goes through unchecked; run cordon "
			"hook install codex again"
		      : ": not recorded, so Codex skips the hook without a word and every call goes "
			"through unchecked; run cordon hook install codex again");
	free(conf);
	free(text);
	free(key);
	free(want);
	free(have);
}

/* cordon's entry for an event: its command, group and group index. */
static const char *find_entry(const struct hook_proto *p, json_t *cfg, const char *event,
			      size_t *group, json_t **grp, json_t **hook)
{
	json_t *groups = json_object_get(json_object_get(cfg, "hooks"), event);
	for (size_t g = 0; g < json_array_size(groups); g++) {
		json_t *hooks = json_object_get(json_array_get(groups, g), "hooks");
		for (size_t h = 0; h < json_array_size(hooks); h++) {
			if (!is_ours(p, json_array_get(hooks, h)))
				continue;
			*group = g;
			*grp = json_array_get(groups, g);
			*hook = json_array_get(hooks, h);
			return json_string_value(json_object_get(*hook, "command"));
		}
	}
	return NULL;
}

/* The installed command, run as the agent runs it. */
static void check_runs(const struct hook_proto *p, const char *cmd)
{
	char *out = NULL, *err = NULL, *ev;
	int st = run_hook(cmd, "this is not an event", &out, &err);
	report(blocks(st, out), "a malformed event is blocked");
	free(out);
	free(err);
	/* A call every policy answers: exit 0 with an answer.  Exit 2 here is
	 * the hook failing, and then it fails every call. */
	const char *tool = p == &hook_protos[HOOK_GEMINI] ? "read_file" : "Read";
	ev = p == &hook_protos[HOOK_CODEX] ? sample_event(p, "Bash", "command", "true")
					   : sample_event(p, tool, "file_path", "/dev/null");
	st = run_hook(cmd, ev, &out, &err);
	free(ev);
	char *nl = err ? strchr(err, '\n') : NULL;
	if (nl)
		*nl = '\0';
	report(st == 0, "a well-formed call is answered (status %d)%s%s", st,
	       st ? "; the hook fails, so the agent blocks every tool call: " : "",
	       st && err ? err : "");
	free(out);
	free(err);

	const char *home = getenv("HOME");
	char *key_path;
	if (asprintf(&key_path, "%s/.ssh/id_ed25519", home ? home : "") < 0)
		abort();
	if (p == &hook_protos[HOOK_CODEX])
		ev = sample_event(p, "Bash", "command", "cat ~/.ssh/id_ed25519");
	else
		ev = sample_event(p, tool, "file_path", key_path);
	st = run_hook(cmd, ev, &out, &err);
	free(ev);
	report(st == 0, "a read of %s is answered (status %d)", key_path, st);
	printf("     the policy %s it\n", blocks(st, out) ? "blocks" : "lets through");
	free(out);
	free(err);
	free(key_path);
}

int cmd_hook_doctor(const struct hook_proto *p, const struct install_opts *opts)
{
	struct install_opts o = *opts;
	char *path = config_path(p, &o);
	bool existed, comments;
	json_t *cfg = path ? load_config(path, &existed, &comments) : NULL;
	if (!cfg) {
		free(path);
		return EXIT_POLICY;
	}
	checks_failed = 0;
	report(existed, "%s exists and parses", path);
	size_t group;
	json_t *grp = NULL, *hook = NULL;
	const char *cmd = find_entry(p, cfg, p->event, &group, &grp, &hook);
	report(cmd != NULL, "a cordon hook is installed for %s's %s event", p->title, p->event);
	if (cmd) {
		const char *tail = cmd + strlen(cmd) - strlen(" || exit 2");
		report(strlen(cmd) > 10 && !strcmp(tail, " || exit 2"),
		       "its command blocks when cordon is missing or fails (|| exit 2)");
		check_command_parts(cmd);
		check_hooks_on(p, cfg, cmd);
		check_matcher(p, json_string_value(json_object_get(grp, "matcher")));
		if (p == &hook_protos[HOOK_CODEX]) {
			check_codex_trust(&o, path, p->event, group, grp, hook);
			size_t g2;
			json_t *grp2, *hook2;
			if (find_entry(p, cfg, p->event2, &g2, &grp2, &hook2))
				check_codex_trust(&o, path, p->event2, g2, grp2, hook2);
		}
		check_runs(p, cmd);
	}
	printf("%s\n", checks_failed ? "the hook is not working as installed"
				     : "the hook works as installed");
	if (checks_failed)
		fprintf(stderr, "cordon: hook doctor %s: %d check%s failed (above)\n", p->name,
			checks_failed, checks_failed == 1 ? "" : "s");
	json_decref(cfg);
	free(path);
	return checks_failed ? EXIT_POLICY : EXIT_OK;
}
