/* cordon hook AGENT: answer a coding agent's pre-tool-use hook in that
 * agent's own protocol.  The event (JSON on stdin) becomes cordon requests,
 * the policy decides them, and the answer goes back on stdout.  These
 * agents read a crashing or silent hook as "no objection", so every way
 * this can go wrong ends in the protocol's blocking form: the reason on
 * stderr and exit 2. */
#include "config.h"

#include "cli.h"
#include "hook.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ---- failing closed ---------------------------------------------------------- */

static const char *blocking_agent = "agent";

_Noreturn void hook_block(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "cordon hook %s: ", blocking_agent);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("; the tool call is blocked\n", stderr);
	fflush(stderr);
	_exit(2);
}

/* A timeout or a crash: the same blocking answer, with nothing but
 * async-signal-safe calls. */
static void on_fatal_signal(int sig)
{
	static const char timeout_msg[] = "cordon hook: no decision in time; the tool call is blocked\n";
	static const char crash_msg[] = "cordon hook: internal error; the tool call is blocked\n";
	if (sig == SIGALRM)
		(void)!write(STDERR_FILENO, timeout_msg, sizeof(timeout_msg) - 1);
	else
		(void)!write(STDERR_FILENO, crash_msg, sizeof(crash_msg) - 1);
	_exit(2);
}

static void fail_closed_on_signals(unsigned timeout)
{
	static const int sigs[] = { SIGALRM, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
				    SIGTERM, SIGHUP, SIGINT, SIGPIPE };
	struct sigaction sa = { .sa_handler = on_fatal_signal };
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	if (timeout)
		alarm(timeout);
}

/* ---- the event ---------------------------------------------------------------- */

enum { MAX_EVENT = 16 << 20, MAX_REQUESTS = 256 };

static char *read_event(size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	if (!buf)
		hook_block("out of memory");
	for (;;) {
		if (n == cap) {
			if (cap >= MAX_EVENT)
				hook_block("the event is larger than %d bytes", MAX_EVENT);
			cap *= 2;
			char *nb = realloc(buf, cap);
			if (!nb)
				hook_block("out of memory");
			buf = nb;
		}
		ssize_t r = read(STDIN_FILENO, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			hook_block("cannot read the event from standard input: %s", strerror(errno));
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*len = n;
	return buf;
}

struct hreq {
	enum cordon_op op;
	char *target;
};

struct hreqs {
	struct hreq v[MAX_REQUESTS];
	size_t n;
	const char *cwd;
};

static void add_req(struct hreqs *r, enum cordon_op op, const char *target)
{
	if (!target || !*target)
		hook_block("the tool input names an empty %s target", cordon_op_name(op));
	if (r->n == MAX_REQUESTS)
		hook_block("the tool call names more than %d targets", MAX_REQUESTS);
	char *t;
	/* A relative path is the agent's cwd's, as the tool will read it. */
	if ((op == CORDON_READ || op == CORDON_WRITE) && target[0] != '/' && target[0] != '~') {
		if (asprintf(&t, "%s/%s", r->cwd, target) < 0)
			hook_block("out of memory");
	} else if (!(t = strdup(target))) {
		hook_block("out of memory");
	}
	r->v[r->n].op = op;
	r->v[r->n].target = t;
	r->n++;
}

static const char *str_member(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The first of several spellings of a path argument that is present. */
static const char *path_member(json_t *in, const char *const *keys)
{
	for (; *keys; keys++)
		if (str_member(in, *keys))
			return str_member(in, *keys);
	return NULL;
}

/* host[:port] of a URL: scheme://[userinfo@]host[:port][/...] */
static void add_url(struct hreqs *r, const char *url)
{
	const char *p = strstr(url, "://");
	if (!p)
		hook_block("'%s' is not a URL", url);
	p += 3;
	size_t end = strcspn(p, "/?#");
	char *auth = strndup(p, end);
	if (!auth)
		hook_block("out of memory");
	char *at = strrchr(auth, '@');
	const char *host = at ? at + 1 : auth;
	if (!*host)
		hook_block("the URL '%s' has no host", url);
	/* The port the fetch will contact: the URL's, else its scheme's, so that
	 * a rule on github.com:443 decides https://github.com/x. */
	const char *close = host[0] == '[' ? strchr(host, ']') : NULL;
	bool has_port = strchr(close ? close : host, ':') != NULL;
	const char *port = !strncasecmp(url, "https://", 8) ? "443"
			   : !strncasecmp(url, "http://", 7) ? "80" : NULL;
	if (has_port || !port) {
		add_req(r, CORDON_NET, host);
	} else {
		char *hp;
		if (asprintf(&hp, "%s:%s", host, port) < 0)
			hook_block("out of memory");
		add_req(r, CORDON_NET, hp);
		free(hp);
	}
	free(auth);
}

/* The URLs written in a text (Gemini's web_fetch takes them in its prompt). */
static void add_urls_in(struct hreqs *r, const char *text)
{
	size_t before = r->n;
	for (const char *p = text; (p = strstr(p, "http")) != NULL; p++) {
		if (strncmp(p, "http://", 7) != 0 && strncmp(p, "https://", 8) != 0)
			continue;
		size_t len = strcspn(p, " \t\r\n\"'<>)]}");
		char *url = strndup(p, len);
		if (!url)
			hook_block("out of memory");
		add_url(r, url);
		free(url);
		p += len - 1;
	}
	if (r->n == before)
		hook_block("the fetch names no http(s) URL cordon can decide");
}

/* The files a patch in the apply_patch format creates, changes, moves or deletes. */
static void add_patch_files(struct hreqs *r, const char *patch)
{
	static const char *const heads[] = { "*** Add File: ", "*** Update File: ",
					     "*** Delete File: ", "*** Move to: " };
	size_t before = r->n;
	for (const char *line = patch; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
			size_t hl = strlen(heads[i]);
			if (len > hl && strncmp(line, heads[i], hl) == 0) {
				char *path = strndup(line + hl, len - hl);
				if (!path)
					hook_block("out of memory");
				path[strcspn(path, "\r")] = '\0';
				add_req(r, CORDON_WRITE, path);
				free(path);
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	if (r->n == before)
		hook_block("the patch names no file cordon can decide");
}

/* A command given as an argv array, as the one shell string that runs it. */
static char *argv_as_shell(json_t *arr)
{
	size_t i, n = json_array_size(arr), len = 0;
	json_t *w;
	char *out = NULL;
	if (n == 0)
		hook_block("the command is an empty array");
	json_array_foreach(arr, i, w) {
		if (!json_is_string(w))
			hook_block("the command array holds a word that is not a string");
		char *q = hook_shell_quote(json_string_value(w));
		size_t ql = strlen(q);
		char *no = realloc(out, len + ql + 2);
		if (!no)
			hook_block("out of memory");
		out = no;
		if (len)
			out[len++] = ' ';
		memcpy(out + len, q, ql + 1);
		len += ql;
		free(q);
	}
	return out;
}

/* "mcp__server__tool" -> "mcp:server/tool"; other tools "AGENT:NAME", which
 * the policy decides like any named tool (no rule: deny). */
static void add_tool(struct hreqs *r, const struct hook_proto *p, const char *name)
{
	char *t;
	const char *sep;
	if (strncmp(name, "mcp__", 5) == 0 && (sep = strstr(name + 5, "__")) && sep > name + 5 &&
	    sep[2]) {
		if (asprintf(&t, "mcp:%.*s/%s", (int)(sep - name - 5), name + 5, sep + 2) < 0)
			hook_block("out of memory");
	} else if (asprintf(&t, "%s:%s", p->name, name) < 0) {
		hook_block("out of memory");
	}
	add_req(r, CORDON_TOOL, t);
	free(t);
}

/* The shell command of a shell tool call, malloc'd. */
static char *shell_command(json_t *in)
{
	json_t *c = json_object_get(in, "command");
	if (json_is_string(c) && json_string_length(c))
		return strdup(json_string_value(c));
	if (json_is_array(c))
		return argv_as_shell(c);
	hook_block("the shell tool's input has no command");
}

/* The spellings of a file's path and of a directory's in the agents' inputs. */
static const char *const file_keys[] = { "file_path", "absolute_path", "notebook_path", "path",
					 NULL };
static const char *const dir_keys[] = { "path", "dir_path", "directory", NULL };

/* Claude Code's own tools, by name; one it adds later is a named tool. */
static void claude_requests(const struct hook_proto *p, const char *tool, json_t *in,
			    struct hreqs *r)
{
	const char *path;
	if (!strcmp(tool, "Read")) {
		add_req(r, CORDON_READ, path_member(in, file_keys));
	} else if (!strcmp(tool, "Write") || !strcmp(tool, "Edit") ||
		   !strcmp(tool, "MultiEdit") || !strcmp(tool, "NotebookEdit")) {
		add_req(r, CORDON_WRITE, path_member(in, file_keys));
	} else if (!strcmp(tool, "Glob") || !strcmp(tool, "Grep") || !strcmp(tool, "LS")) {
		path = path_member(in, dir_keys);
		add_req(r, CORDON_READ, path ? path : r->cwd);
	} else if (!strcmp(tool, "WebFetch")) {
		if (!str_member(in, "url"))
			hook_block("WebFetch's input has no url");
		add_url(r, str_member(in, "url"));
	} else if (!strcmp(tool, "WebSearch")) {
		add_req(r, CORDON_NET, "web-search");
	} else {
		add_tool(r, p, tool);
	}
}

/* Codex's own tools: apply_patch writes the files its patch names. */
static void codex_requests(const struct hook_proto *p, const char *tool, json_t *in,
			   struct hreqs *r)
{
	if (!strcmp(tool, "apply_patch")) {
		const char *patch = str_member(in, "command") ? str_member(in, "command")
							      : str_member(in, "input");
		if (!patch)
			hook_block("apply_patch's input has no patch");
		add_patch_files(r, patch);
	} else {
		add_tool(r, p, tool);
	}
}

/* Gemini CLI's own tools, by name; one it adds later is a named tool. */
static void gemini_requests(const struct hook_proto *p, const char *tool, json_t *in,
			    struct hreqs *r)
{
	const char *path;
	if (!strcmp(tool, "read_file") || !strcmp(tool, "list_directory") ||
	    !strcmp(tool, "glob") || !strcmp(tool, "search_file_content") ||
	    !strcmp(tool, "grep_search")) {
		path = path_member(in, file_keys);
		if (!path)
			path = path_member(in, dir_keys);
		add_req(r, CORDON_READ, path ? path : r->cwd);
	} else if (!strcmp(tool, "read_many_files")) {
		json_t *paths = json_object_get(in, "paths"), *v;
		size_t i;
		if (!json_is_array(paths) || !json_array_size(paths))
			hook_block("read_many_files's input has no paths");
		json_array_foreach(paths, i, v) {
			if (!json_is_string(v))
				hook_block("read_many_files names a path that is not a string");
			add_req(r, CORDON_READ, json_string_value(v));
		}
	} else if (!strcmp(tool, "write_file") || !strcmp(tool, "replace")) {
		add_req(r, CORDON_WRITE, path_member(in, file_keys));
	} else if (!strcmp(tool, "web_fetch")) {
		if (str_member(in, "url"))
			add_url(r, str_member(in, "url"));
		else if (str_member(in, "prompt"))
			add_urls_in(r, str_member(in, "prompt"));
		else
			hook_block("web_fetch's input names no URL");
	} else if (!strcmp(tool, "google_web_search")) {
		add_req(r, CORDON_NET, "web-search");
	} else {
		add_tool(r, p, tool);
	}
}

/* The requests of a tool call: the shell tool's command and MCP tools are
 * the same for every agent, the rest is each agent's own. */
static void requests_of(const struct hook_proto *p, const char *tool, json_t *in,
			struct hreqs *r, char **command)
{
	if (strcmp(tool, p->shell_tool) == 0) {
		*command = shell_command(in);
		add_req(r, CORDON_EXEC, *command);
		return;
	}
	if (strncmp(tool, "mcp__", 5) == 0) {
		add_tool(r, p, tool);
		return;
	}
	switch (p - hook_protos) {
	case HOOK_CLAUDE:
		claude_requests(p, tool, in, r);
		return;
	case HOOK_CODEX:
		codex_requests(p, tool, in, r);
		return;
	case HOOK_GEMINI:
		gemini_requests(p, tool, in, r);
		return;
	}
}

/* ---- deciding ------------------------------------------------------------------- */

struct hook_opts {
	const char *policy_path, *preset, *audit_path, *syslog, *actor;
	bool no_rewrite;
	bool no_ask;  /* no person answers: an ask is a deny */
	unsigned timeout;
	cordon_context *ctx;
};

/* Session ids become a directory name: anything but [A-Za-z0-9._-] is
 * replaced, and a name that could climb out is refused. */
static char *session_dir_for(const char *home, const struct hook_proto *p, const char *sid)
{
	char *safe = strdup(sid), *dir;
	if (!safe)
		hook_block("out of memory");
	for (char *s = safe; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			*s = '_';
	if (!*safe || safe[0] == '.' || strlen(safe) > 128)
		hook_block("the session id '%s' cannot name a session directory", sid);
	if (asprintf(&dir, "%s/.cordon/sessions/%s-%s", home, p->name, safe) < 0)
		hook_block("out of memory");
	free(safe);
	return dir;
}

static void set_ctx(cordon_context *ctx, const char *name, const char *value)
{
	char *err = NULL;
	if (cordon_context_set(ctx, name, value, &err) != 0)
		hook_block("context %s: %s", name, err ? err : "refused");
}

/* The session's project root, the workspace: the agent's own variable
 * where it sets one (Claude Code, Gemini CLI), else the directory the agent
 * started the hook in.  Codex starts every hook in the session's directory
 * and puts a tool call's `workdir` in the event's cwd, so the event's cwd
 * is never the workspace: a tool call cannot choose its own authority. */
static const char *session_root(const struct hook_proto *p, char *buf, size_t size)
{
	const char *env = p->project_env ? getenv(p->project_env) : NULL;
	if (env && env[0] == '/')
		return env;
	if (!getcwd(buf, size))
		hook_block("cannot tell the session's project directory: %s", strerror(errno));
	return buf;
}

/* The directory the tool call runs in: the event's cwd (Codex: the call's
 * workdir), or for Gemini CLI's shell tool its dir_path, which is relative
 * to that.  Resolved, so that the decision and the rewritten command's
 * `--cwd` name the same directory; a missing one blocks. */
static char *call_dir(const struct hook_proto *p, json_t *ev)
{
	const char *cwd = str_member(ev, "cwd");
	json_t *in = json_object_get(ev, "tool_input");
	const char *tool = str_member(ev, "tool_name");
	const char *sub = p == &hook_protos[HOOK_GEMINI] && tool && !strcmp(tool, p->shell_tool)
				  ? str_member(in, "dir_path")
				  : NULL;
	char *joined = NULL, real[PATH_MAX];
	if (!cwd || cwd[0] != '/')
		hook_block("the event has no absolute cwd");
	if (!sub || !*sub)
		joined = strdup(cwd);
	else if (sub[0] == '/')
		joined = strdup(sub);
	else if (asprintf(&joined, "%s/%s", cwd, sub) < 0)
		joined = NULL;
	if (!joined)
		hook_block("out of memory");
	if (!realpath(joined, real))
		hook_block("the tool call's directory %s cannot be resolved: %s", joined, strerror(errno));
	free(joined);
	return strdup(real);
}

/* cwd, workspace and session_dir from the event, unless --context set them. */
static void context_of(const struct hook_proto *p, json_t *ev, struct hook_opts *o,
		       const char **cwd_out)
{
	const char *sid = str_member(ev, "session_id");
	char real[PATH_MAX], here[PATH_MAX];
	if (!cordon_context_get(o->ctx, "cwd")) {
		char *dir = call_dir(p, ev);
		set_ctx(o->ctx, "cwd", dir);
		free(dir);
	}
	if (!cordon_context_get(o->ctx, "workspace")) {
		const char *ws = session_root(p, here, sizeof(here));
		if (!realpath(ws, real))
			hook_block("the workspace %s cannot be resolved: %s", ws, strerror(errno));
		set_ctx(o->ctx, "workspace", real);
	}
	cli_context_defaults(o->ctx);
	if (sid && *sid) {
		char *dir = session_dir_for(cordon_context_get(o->ctx, "home"), p, sid);
		/* --context session_dir=... given on the command line wins. */
		if (strstr(cordon_context_get(o->ctx, "session_dir"), "/.cordon/sessions/default"))
			set_ctx(o->ctx, "session_dir", dir);
		free(dir);
	}
	*cwd_out = cordon_context_get(o->ctx, "cwd");
}

static const char *effect_word(enum cordon_effect e)
{
	return e == CORDON_DENY ? "deny" : e == CORDON_ASK ? "needs approval" : "allow";
}

struct verdict {
	enum cordon_effect effect;
	char *preview;  /* every operation with its decision, for the person */
	size_t len, cap;
	char *digest;   /* of what approving the command grants (a rewritten one), or NULL */
	cordon_decision **ds; /* every decision of the call, for the approval console */
	size_t nds;
};

static void vput(struct verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void vput(struct verdict *v, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		hook_block("out of memory");
	if (v->len + (size_t)n + 1 > v->cap) {
		v->cap = (v->len + (size_t)n + 1) * 2;
		char *np = realloc(v->preview, v->cap);
		if (!np)
			hook_block("out of memory");
		v->preview = np;
	}
	memcpy(v->preview + v->len, s, (size_t)n + 1);
	v->len += (size_t)n;
	free(s);
}

static void audit_one(cordon_audit *log, const cordon_decision *d, const struct hook_opts *o,
		      const struct hook_proto *p, const char *tool, const char *sid)
{
	char a0[64], *a1 = NULL, *a2 = NULL;
	char *err = NULL;
	snprintf(a0, sizeof(a0), "agent=%s", p->name);
	if (asprintf(&a1, "tool=%s", tool) < 0 || asprintf(&a2, "session=%s", sid ? sid : "") < 0)
		hook_block("out of memory");
	const char *args[3] = { a0, a1, a2 };
	struct cordon_audit_record rec = { .actor = o->actor, .outcome = "decided", .args = args,
					   .nargs = 3 };
	cordon_audit_record_decision(&rec, d);
	if (cordon_audit_append(log, &rec, &err) != 0)
		hook_block("the audit log: %s", err ? err : "cannot be written");
	free(a1);
	free(a2);
}

static void decide_all(const struct hook_proto *p, const cordon_evaluator *ev,
		       const struct hreqs *r, bool sandboxed, struct verdict *v,
		       cordon_audit *log, const struct hook_opts *o, const char *tool,
		       const char *sid)
{
	v->effect = CORDON_ALLOW;
	for (size_t i = 0; i < r->n; i++) {
		/* A rewritten command is decided as `cordon run` will decide it. */
		struct cordon_request req = { .op = r->v[i].op, .target = r->v[i].target,
					      .sandboxed = sandboxed && r->v[i].op == CORDON_EXEC };
		char *err = NULL;
		cordon_decision *d = cordon_evaluate(ev, &req, &err);
		if (!d)
			hook_block("%s", err ? err : "the request cannot be decided");
		if (log)
			audit_one(log, d, o, p, tool, sid);
		if (req.sandboxed && !v->digest)
			v->digest = cordon_decision_preview_digest(d);
		/* What cordon cannot see (no program spec, code on the command
		 * line) asks in the decision itself when no sandbox bounds it. */
		enum cordon_effect e = cordon_decision_effect(d);
		if (e > v->effect)
			v->effect = e;
		for (size_t k = 0; k < cordon_decision_operation_count(d); k++) {
			enum cordon_op op;
			enum cordon_effect oe;
			const char *target, *reason, *rule;
			const char *detail = cordon_decision_operation_detail(d, k);
			cordon_decision_operation(d, k, &op, &target, &oe, &reason, &rule);
			if (v->len < 6000)
				vput(v, "\n  %s %s%s%s%s: %s%s%s%s%s", cordon_op_name(op), target,
				     detail ? " [" : "", detail ? detail : "", detail ? "]" : "",
				     effect_word(oe), rule ? " by " : "", rule ? rule : "",
				     oe != CORDON_ALLOW && reason ? ": " : "",
				     oe != CORDON_ALLOW && reason ? reason : "");
		}
		if (v->len >= 6000 && i + 1 < r->n)
			vput(v, "\n  ...");
		if (!(v->ds = realloc(v->ds, (v->nds + 1) * sizeof(*v->ds))))
			hook_block("out of memory");
		v->ds[v->nds++] = d;
	}
}

/* ---- answering --------------------------------------------------------------------- */

/* The shell command the agent runs instead: the same command inside
 * `cordon run` with the same policy, preset and context. */
static char *wrapped_command(const struct hook_opts *o, const char *command, bool approved,
			     const char *digest, const char *approval)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		hook_block("cannot find the cordon binary to run the command under");
	self[n] = '\0';
	const char *words[32];
	char *owned[32];
	size_t nw = 0, no = 0;
	char pol[PATH_MAX];
#define OWN(expr) (owned[no++] = (expr))
	words[nw++] = OWN(hook_shell_quote(self));
	words[nw++] = "run";
	if (o->policy_path) {
		if (!realpath(o->policy_path, pol))
			hook_block("the policy %s cannot be resolved: %s", o->policy_path, strerror(errno));
		words[nw++] = "-p";
		words[nw++] = OWN(hook_shell_quote(pol));
	}
	if (o->preset) {
		words[nw++] = "--preset";
		words[nw++] = OWN(hook_shell_quote(o->preset));
	}
	words[nw++] = "--workspace";
	words[nw++] = OWN(hook_shell_quote(cordon_context_get(o->ctx, "workspace")));
	/* The directory the agent asked for (a Gemini dir_path, a Codex workdir),
	 * as it was decided; cordon run would otherwise start at the workspace. */
	words[nw++] = "--cwd";
	words[nw++] = OWN(hook_shell_quote(cordon_context_get(o->ctx, "cwd")));
	static const char *const passed[] = { "home", "agent_dir", "session_dir" };
	for (size_t i = 0; i < 3; i++) {
		char *kv;
		if (asprintf(&kv, "%s=%s", passed[i], cordon_context_get(o->ctx, passed[i])) < 0)
			hook_block("out of memory");
		words[nw++] = "--context";
		words[nw++] = OWN(hook_shell_quote(kv));
		free(kv);
	}
	const char *logs[][2] = { { "--audit", o->audit_path }, { "--syslog", o->syslog } };
	for (size_t i = 0; i < 2; i++)
		if (logs[i][1]) {
			words[nw++] = logs[i][0];
			words[nw++] = OWN(hook_shell_quote(logs[i][1]));
		}
	if (approval) {
		/* The single-use approval the console's yes minted for it. */
		words[nw++] = "--approval";
		words[nw++] = approval;
	} else if (approved) {
		/* Granted only if the run's preview is the one the person saw. */
		words[nw++] = "--approved";
		if (digest) {
			words[nw++] = "--preview";
			words[nw++] = digest;
		}
	}
	words[nw++] = "--";
	words[nw++] = "bash";
	words[nw++] = "-c";
	words[nw++] = OWN(hook_shell_quote(command));
#undef OWN
	size_t len = 0;
	for (size_t i = 0; i < nw; i++)
		len += strlen(words[i]) + 1;
	char *out = malloc(len), *w = out;
	if (!out)
		hook_block("out of memory");
	for (size_t i = 0; i < nw; i++) {
		size_t l = strlen(words[i]);
		memcpy(w, words[i], l);
		w += l;
		*w++ = i + 1 < nw ? ' ' : '\0';
	}
	for (size_t i = 0; i < no; i++)
		free(owned[i]);
	return out;
}

/* The answer on stdout, then exit 0; a failed write blocks. */
static _Noreturn void answer(json_t *out)
{
	if (out) {
		char *s = json_dumps(out, JSON_COMPACT);
		if (!s || printf("%s\n", s) < 0)
			hook_block("cannot write the answer");
		free(s);
		json_decref(out);
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		hook_block("cannot write the answer");
	exit(EXIT_OK);
}

/* hook install | uninstall | doctor AGENT: the agent's configuration. */
static int hook_config(struct cli_args *a, const struct install_opts *io)
{
	const char *what = a->operands[0];
	const struct hook_proto *p = a->noperands > 1 ? hook_proto_find(a->operands[1]) : NULL;
	int status;
	if (!p)
		status = cli_usage_error("hook", "%s expects AGENT: claude, codex or gemini", what);
	else if (a->noperands > 2)
		status = cli_usage_error("hook", "unexpected operand '%s'", a->operands[2]);
	else if (cli_args_form(a, what) != EXIT_OK)
		status = cli_usage_error("hook", "%s", a->message);
	else if (!strcmp(what, "install"))
		status = cmd_hook_install(p, io);
	else if (!strcmp(what, "uninstall"))
		status = cmd_hook_uninstall(p, io);
	else
		status = cmd_hook_doctor(p, io);
	cli_args_free(a);
	return status;
}

static bool is_config_verb(const char *word)
{
	return !strcmp(word, "install") || !strcmp(word, "uninstall") || !strcmp(word, "doctor");
}

/* The options into the hook's and the installer's settings; the last id,
 * negative when the loop stopped early (--help, a bad option). */
static int parse_hook_options(struct cli_args *a, struct hook_opts *o, struct install_opts *io)
{
	const char *arg;
	char *end;
	int id;
	while ((id = cli_args_next(a, &arg)) > 0) {
		switch (id) {
		case OPT_NO_REWRITE:
			o->no_rewrite = true;
			break;
		case OPT_NO_ASK:
			o->no_ask = io->no_ask = true;
			break;
		case OPT_TIMEOUT: {
			unsigned long t = strtoul(arg, &end, 10);
			if (*end || !*arg || t == 0 || t > 3600) {
				snprintf(a->message, sizeof(a->message),
					 "--timeout expects seconds from 1 to 3600, not '%s'", arg);
				a->status = EXIT_USAGE;
				id = -1;
			}
			o->timeout = (unsigned)t;
			break;
		}
		case OPT_SCOPE:
			io->scope = arg;
			break;
		case OPT_DIR:
			io->dir = arg;
			break;
		case OPT_DRY_RUN:
			io->dry_run = true;
			break;
		}
		if (id < 0)
			break;
	}
	return id;
}

/* One event's call, from reading it to answering: what the steps share. */
struct hook_call {
	const struct hook_proto *p;
	struct hook_opts *o;
	json_t *ev, *in;          /* the event and its tool_input */
	const char *event, *tool, *preset, *cwd; /* the event's name, the tool's, ... */
	char policy_real[PATH_MAX];
	cordon_policy *pol;
	cordon_evaluator *evl;
	cordon_audit *log;
	struct hreqs *r;
	char *command;            /* the shell command, or NULL */
	bool rewrite;             /* it runs inside `cordon run` */
	struct verdict v;         /* its effect is the answer's */
	char *approval;           /* minted by the console's yes, or NULL */
};

/* The event from stdin, refused unless it is the agent's pre-tool event
 * with a tool and its input. */
static void read_call(struct hook_call *c)
{
	const struct hook_proto *p = c->p;
	size_t len;
	char *text = read_event(&len);
	json_error_t jerr;
	c->ev = json_loadb(text, len, 0, &jerr);
	free(text);
	if (!json_is_object(c->ev))
		hook_block("the event is not a JSON object (%s, line %d)", jerr.text, jerr.line);
	const char *event = c->event = str_member(c->ev, "hook_event_name");
	if (!event || (strcmp(event, p->event) != 0 && !(p->event2 && !strcmp(event, p->event2))))
		hook_block("cannot answer the event '%s' (cordon answers %s%s%s)",
		      event ? event : "(none)", p->event, p->event2 ? " and " : "",
		      p->event2 ? p->event2 : "");
	c->tool = str_member(c->ev, "tool_name");
	c->in = json_object_get(c->ev, "tool_input");
	if (!c->tool || !*c->tool)
		hook_block("the event names no tool");
	if (!json_is_object(c->in))
		hook_block("the event's tool_input is not an object");
}

/* The policy, its preset under the event's context, and the audit log:
 * what decides the call and what records it. */
static void load_evaluator(struct hook_call *c)
{
	struct hook_opts *o = c->o;
	int status = 0;
	/* Loaded by the path the rewritten command names, so that the rules'
	 * origins, and with them the preview's digest, are the same in both. */
	if (o->policy_path) {
		if (!realpath(o->policy_path, c->policy_real))
			hook_block("the policy cannot be used: %s: %s", o->policy_path, strerror(errno));
		o->policy_path = c->policy_real;
	}
	c->pol = cli_load_policy_one_shot(o->policy_path, &status);
	if (!c->pol)
		hook_block("the policy cannot be used");
	c->preset = o->preset ? o->preset : cordon_policy_default_preset(c->pol);
	if (!c->preset)
		hook_block("the policy names no default preset: give --preset");
	context_of(c->p, c->ev, o, &c->cwd);
	char *err = NULL;
	c->evl = cordon_evaluator_new(c->pol, c->preset, o->ctx, &err);
	if (!c->evl)
		hook_block("%s", err ? err : "the preset cannot be used");
	if (cli_audit_new(o->audit_path, o->syslog, c->pol, &c->log, &err) != 0)
		hook_block("%s", err);
}

/* An ask put to the approval console, which answers it in the person's
 * stead (and may mint a single-use approval for the rewritten command). */
static void ask_console(struct hook_call *c)
{
	const char *command = c->command;
	struct hook_console_call call = {
		.preset = c->preset, .op = command ? "exec" : cordon_op_name(c->r->v[0].op),
		.request = command ? command : c->r->n ? c->r->v[0].target : c->tool,
		.command = c->rewrite ? command : NULL, .digest = c->v.digest,
		.session_dir = cordon_context_get(c->o->ctx, "session_dir"),
		.hook_timeout = c->o->timeout,
		.decisions = (const cordon_decision *const *)c->v.ds, .ndecisions = c->v.nds,
	};
	call.ask = (struct cordon_console_ask){ .agent = c->p->name,
		.session = str_member(c->ev, "session_id"), .tool = c->tool,
		.request = call.request, .diff = NULL, .policy_file = c->o->policy_path,
		.decisions = call.decisions,
		.ndecisions = c->v.nds, .in_sandbox = call.command != NULL };
	char *diff = hook_write_diff(c->in), *cwhy = NULL;
	call.ask.diff = diff;
	c->v.effect = hook_console(c->evl, &call, c->log, &c->approval, &cwhy);
	vput(&c->v, "\napproval console: %s", cwhy ? cwhy : "no answer");
	free(cwhy);
	free(diff);
}

/* The reason the agent shows; an ask nobody can answer becomes a deny,
 * and the reason says why. */
static char *reason_for(struct hook_call *c)
{
	const struct hook_proto *p = c->p;
	struct verdict *v = &c->v;
	bool asks = strcmp(c->event, "PermissionRequest") == 0 || (p->can_ask && !c->o->no_ask);
	if (v->effect == CORDON_ASK && !asks && c->o->no_ask)
		vput(v, "\nno person answers %s's calls here (--no-ask), so cordon refuses what "
			"needs approval; run it yourself, or change the policy",
		     p->title);
	else if (v->effect == CORDON_ASK && !asks)
		vput(v, "\n%s's hook cannot ask a person, so cordon refuses what needs approval; "
			"run it yourself, or change the policy",
		     p->title);
	char *why;
	if (asprintf(&why, "cordon (%s): %s%s%s", c->preset, effect_word(v->effect),
		     c->rewrite && v->effect != CORDON_DENY ? ", runs inside cordon's sandbox" : "",
		     v->preview ? v->preview : "") < 0)
		hook_block("out of memory");
	if (v->effect == CORDON_ASK && !asks)
		v->effect = CORDON_DENY;
	return why;
}

/* An event's hook once its options are read: the event, the policy, the
 * requests, their decisions, the console and the answer, in that order. */
static _Noreturn void answer_event(const struct hook_proto *p, struct hook_opts *o,
				   struct cli_args *a)
{
	struct hook_call c = { .p = p, .o = o };
	read_call(&c);
	load_evaluator(&c);
	if (!(c.r = calloc(1, sizeof(*c.r))))
		hook_block("out of memory");
	c.r->cwd = c.cwd;
	/* Codex asks for network approvals with a PermissionRequest whose
	 * description names the domain. */
	const char *desc = str_member(c.in, "description");
	if (p == &hook_protos[HOOK_CODEX] && !strcmp(c.event, "PermissionRequest") && desc &&
	    !strncmp(desc, "network-access ", 15))
		add_req(c.r, CORDON_NET, desc + 15);
	else
		requests_of(p, c.tool, c.in, c.r, &c.command);
	/* A shell command runs inside cordon's sandbox when the agent lets the
	 * hook rewrite it (its pre-tool event; Codex's PermissionRequest cannot);
	 * otherwise it is decided as running without one. */
	c.rewrite = c.command && p->can_rewrite && !o->no_rewrite && !strcmp(c.event, p->event);
	decide_all(p, c.evl, c.r, c.rewrite, &c.v, c.log, o, c.tool, str_member(c.ev, "session_id"));
	/* With --no-ask no person is there: a console is not waited on. */
	if (c.v.effect == CORDON_ASK && !o->no_ask && cordon_evaluator_console_timeout(c.evl))
		ask_console(&c);
	char *why = reason_for(&c);
	enum cordon_effect e = c.v.effect;
	char *rewritten = c.rewrite && e != CORDON_DENY ? wrapped_command(o, c.command, e == CORDON_ASK,
									 c.v.digest, c.approval)
							: NULL;
	if (c.log)
		cordon_audit_close(c.log);
	json_t *out;
	if (p == &hook_protos[HOOK_CLAUDE])
		out = hook_answer_claude(c.event, e, why, c.in, rewritten);
	else if (p == &hook_protos[HOOK_CODEX])
		out = hook_answer_codex(c.event, e, why, c.in, rewritten);
	else
		out = hook_answer_gemini(e, why, c.in, rewritten);
	/* The answer holds copies of what it needs. */
	for (size_t i = 0; i < c.r->n; i++)
		free(c.r->v[i].target);
	free(c.r);
	free(c.command);
	free(rewritten);
	free(why);
	free(c.v.preview);
	free(c.approval);
	for (size_t i = 0; i < c.v.nds; i++)
		cordon_decision_free(c.v.ds[i]);
	free(c.v.ds);
	json_decref(c.ev);
	cli_evaluator_done(c.evl);
	cli_policy_done(c.pol);
	cli_args_free(a);
	answer(out);
}

int cmd_hook(int argc, char **argv)
{
	struct install_opts io = { .scope = "user" };
	struct hook_opts o = { .timeout = 20 };
	struct cli_args a;

	if (argc < 2) {
		fputs("cordon hook: expected AGENT (claude, codex or gemini), or install, "
		      "uninstall or doctor\n", stderr);
		return 2;
	}
	/* Usage errors of an event's hook block the call; they are said here. */
	cli_args_init(&a, "hook", argc, argv);
	a.quiet = true;
	int id = parse_hook_options(&a, &o, &io);
	bool config = a.noperands > 0 && is_config_verb(a.operands[0]);
	const struct hook_proto *p = a.noperands > 0 ? hook_proto_find(a.operands[0]) : NULL;
	if (p)
		blocking_agent = p->name;
	if (id < 0 && a.status == EXIT_OK) {
		cli_args_free(&a); /* --help */
		return EXIT_OK;
	}
	if (id < 0 && config) {
		cli_usage_error("hook", "%s", a.message);
		cli_args_free(&a);
		return EXIT_USAGE;
	}
	if (id < 0)
		hook_block("%s", a.message[0] ? a.message : "bad option (see cordon hook --help)");
	if (config) {
		io.policy = a.policy_path;
		io.preset = a.preset;
		return hook_config(&a, &io);
	}

	/* From here on every failure blocks the tool call. */
	if (!p)
		hook_block("unknown agent '%s' (claude, codex or gemini)",
		      a.noperands ? a.operands[0] : "");
	if (a.noperands > 1)
		hook_block("unexpected operand '%s'", a.operands[1]);
	if (cli_args_form(&a, "AGENT") != EXIT_OK)
		hook_block("%s", a.message);
	o.policy_path = a.policy_path;
	o.preset = a.preset;
	o.audit_path = cli_audit_path(a.audit_path);
	o.syslog = cli_syslog_where(a.syslog);
	o.actor = a.actor;
	o.ctx = a.ctx;
	fail_closed_on_signals(o.timeout);
	if (!o.actor)
		o.actor = getenv("USER");
	answer_event(p, &o, &a);
}
