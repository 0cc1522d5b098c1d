/* cordon eval: decide one request, or a JSONL stream. */
#include "config.h"

#include "cli.h"

#include <errno.h>
#include <poll.h>
#include <unistd.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct eval_opts {
	const char *policy_path, *preset, *escalate, *audit_path, *syslog, *actor;
	bool json, stdin_mode, sandboxed;
	cordon_context *ctx;
	cordon_audit *audit;
};

/* One audit record a decision; a record that cannot be written is said on
 * stderr and does not change the decision. */
static void audit_decision_as(const struct eval_opts *o, const cordon_decision *d,
			      const struct cordon_request *req, const char *actor,
			      const char *outcome, const char *approval)
{
	struct cordon_audit_record rec = { .actor = actor ? actor : o->actor, .outcome = outcome,
					   .approval = approval };
	const char *args[1] = { req->justification };
	if (!o->audit)
		return;
	cordon_audit_record_decision(&rec, d);
	if (req->escalate) {
		rec.args = args;
		rec.nargs = 1;
	}
	cli_audit_append(o->audit, &rec);
}

static void audit_decision(const struct eval_opts *o, const cordon_decision *d,
			   const struct cordon_request *req, const char *actor)
{
	audit_decision_as(o, d, req, actor, "decided", NULL);
}

static int parse_opts(struct cli_args *a, int argc, char **argv, struct eval_opts *o)
{
	const char *arg;
	int id;
	cli_args_init(a, "eval", argc, argv);
	while ((id = cli_args_next(a, &arg)) > 0) {
		switch (id) {
		case OPT_STDIN:
			o->stdin_mode = true;
			break;
		case OPT_ESCALATE:
			o->escalate = arg;
			break;
		case OPT_SANDBOXED:
			o->sandboxed = true;
			break;
		}
	}
	if (id < 0)
		return a->status == EXIT_OK ? -1 : a->status; /* -1: --help */
	o->policy_path = a->policy_path;
	o->preset = a->preset;
	o->audit_path = a->audit_path;
	o->syslog = a->syslog;
	o->actor = a->actor;
	o->json = a->json;
	o->ctx = a->ctx;
	if (o->stdin_mode && (a->noperands || a->rest >= 0))
		return cli_usage_error("eval", "--stdin takes no OP TARGET operands");
	cli_context_defaults(o->ctx);
	if (!o->actor)
		o->actor = getenv("USER");
	return EXIT_OK;
}

static void print_text(const cordon_decision *d)
{
	printf("%s: %s\n", cordon_effect_name(cordon_decision_effect(d)),
	       cordon_decision_reason(d) ? cordon_decision_reason(d) : "");
	if (cordon_decision_rule(d))
		printf("  rule: %s\n", cordon_decision_rule(d));
	printf("  preset: %s (sandbox: %s)\n", cordon_decision_preset(d), cordon_decision_sandbox(d));
	if (cordon_decision_analysed(d))
		printf("  analysed: %s\n", cordon_decision_analysed(d));
	for (size_t i = 0; i < cordon_decision_operation_count(d); i++) {
		enum cordon_op op;
		enum cordon_effect e;
		const char *target, *rule;
		cordon_decision_operation(d, i, &op, &target, &e, NULL, &rule);
		const char *detail = cordon_decision_operation_detail(d, i);
		printf("  %s %s%s%s%s: %s%s%s\n", cordon_op_name(op), target, detail ? " [" : "",
		       detail ? detail : "", detail ? "]" : "", cordon_effect_name(e),
		       rule ? " by " : "", rule ? rule : "");
	}
}

/* ---- the JSONL stream ------------------------------------------------------ */

/* Evaluators kept, least recently used out first.  A host with one
 * session per agent sends lines of many contexts in turn: with 8 kept,
 * a ninth context made every line build its evaluator again (1,000
 * decisions over 9 contexts took 14 times as long as over 8; see
 * bench/stream-contexts.sh).  An evaluator of the default policy holds
 * about 400 KB, so 64 of them bound the stream near 30 MB. */
#define CACHE_SIZE 64
#define READ_CHUNK 65536
/* A longer line is answered with one error, read to its end first. */
#define STREAM_LINE_MAX (16u << 20)

struct stream {
	const cordon_policy *policy;
	const struct eval_opts *o;
	struct {
		char *key;
		unsigned long hash;     /* of key, compared before the key */
		unsigned long long used; /* the tick of its last use; 0: empty */
		cordon_evaluator *ev;
	} cache[CACHE_SIZE];
	unsigned long long tick;
};

/* One request line, read.  The pointers borrow from the line's JSON. */
struct stream_request {
	json_t *id;           /* echoed in the answer; NULL when absent */
	struct cordon_request req;
	const char *preset;   /* NULL: --preset */
	json_t *context;      /* this line's context object, or NULL */
	const char *actor;    /* NULL: --actor */
	const char **words;   /* an exec's "argv" (malloc'd, the strings borrowed), or NULL */
	bool approve;         /* exec: issue an approval for `cordon run --approval` */
	bool has_sandboxed;   /* the line says "sandboxed"; otherwise --sandboxed decides */
};

/* An answer line: obj with "id" first when the request had one. */
static void print_answer(json_t *id, const char *decision_json, json_t *obj)
{
	char *s = obj ? json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	const char *body = obj ? s : decision_json;
	if (!body)
		body = "{\"error\":\"out of memory\"}";
	if (id) {
		char *ids = json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY);
		printf("{\"id\":%s%s%s\n", ids ? ids : "null", body[1] == '}' ? "" : ",", body + 1);
		free(ids);
	} else {
		puts(body);
	}
	free(s);
}

static void print_error(size_t line, json_t *id, const char *msg)
{
	json_t *o = json_pack("{s:s, s:I}", "error", msg, "line", (json_int_t)line);
	if (!o) /* not UTF-8: the answer must still name its line */
		o = json_pack("{s:s, s:I}", "error", "the error message is not UTF-8 text", "line",
			      (json_int_t)line);
	print_answer(id, NULL, o);
	json_decref(o);
}

/* The words of an "argv" member, borrowed from it; NULL unless it is an
 * array of strings without NUL bytes. */
static const char **stream_argv(json_t *argv)
{
	size_t i;
	json_t *w;
	if (!json_is_array(argv))
		return NULL;
	const char **words = calloc(json_array_size(argv) + 1, sizeof(*words));
	if (!words)
		abort();
	json_array_foreach(argv, i, w) {
		if (!json_is_string(w) || strlen(json_string_value(w)) != json_string_length(w)) {
			free(words);
			return NULL;
		}
		words[i] = json_string_value(w);
	}
	return words;
}

enum field_kind { FIELD_STRING, FIELD_BOOL, FIELD_OBJECT, FIELD_ID, FIELD_ARGV };

/* The keys a request may have. */
static const struct {
	const char *key;
	enum field_kind kind;
} request_fields[] = {
	{ "id", FIELD_ID },	      { "op", FIELD_STRING },	      { "target", FIELD_STRING },
	{ "preset", FIELD_STRING },   { "context", FIELD_OBJECT },    { "escalate", FIELD_BOOL },
	{ "justification", FIELD_STRING }, { "canonical", FIELD_BOOL }, { "actor", FIELD_STRING },
	{ "argv", FIELD_ARGV },       { "approve", FIELD_BOOL },
	{ "sandboxed", FIELD_BOOL },
};

/* What each kind of field must be, for the message that says so. */
static const char *const kind_names[] = {
	[FIELD_STRING] = "a string", [FIELD_BOOL] = "a boolean",
	[FIELD_OBJECT] = "an object", [FIELD_ID] = "a string or an integer",
	[FIELD_ARGV] = "an array of strings without NUL bytes",
};

#define NFIELDS (sizeof(request_fields) / sizeof(*request_fields))

/* "unknown key" in msg: at most 64 bytes of the key, not cutting a UTF-8
 * sequence, and the keys a request may have. */
static void unknown_key(const char *key, char *msg, size_t size)
{
	int shown = (int)strnlen(key, 64);
	while (shown > 0 && key[shown] && ((unsigned char)key[shown] & 0xc0) == 0x80)
		shown--;
	int w = snprintf(msg, size, "unknown key \"%.*s\" in the request (known:", shown, key);
	for (size_t i = 0; i < NFIELDS && w > 0 && (size_t)w < size; i++)
		w += snprintf(msg + w, size - (size_t)w, "%s %s", i ? "," : "",
			      request_fields[i].key);
	if (w > 0 && (size_t)w < size)
		snprintf(msg + w, size - (size_t)w, ")");
}

/* Is value of the JSON type a field of kind k holds?  (The id is checked
 * on its own, first.) */
static bool field_type_ok(enum field_kind k, json_t *value)
{
	switch (k) {
	case FIELD_STRING:
		return json_is_string(value);
	case FIELD_BOOL:
		return json_is_boolean(value);
	case FIELD_OBJECT:
		return json_is_object(value);
	case FIELD_ARGV:
		return json_is_array(value);
	default:
		return true;
	}
}

/* Every key of obj one a request may have, of its type; false with the
 * reason in msg. */
static bool request_keys_ok(json_t *obj, char *msg, size_t size)
{
	const char *key;
	json_t *value;
	json_object_foreach(obj, key, value) {
		size_t i = 0;
		while (i < NFIELDS && strcmp(request_fields[i].key, key) != 0)
			i++;
		if (i == NFIELDS) {
			unknown_key(key, msg, size);
			return false;
		}
		if (!field_type_ok(request_fields[i].kind, value)) {
			snprintf(msg, size, "\"%s\" must be %s", key, kind_names[request_fields[i].kind]);
			return false;
		}
	}
	return true;
}

/* The request's operation and its target, or for exec its argv in place
 * of one; false with the reason in msg. */
static bool request_target(json_t *obj, struct stream_request *out, char *msg, size_t size)
{
	json_t *op = json_object_get(obj, "op"), *target = json_object_get(obj, "target");
	int opn;
	if (!op || (opn = cordon_op_from_name(json_string_value(op))) < 0) {
		char ops[80];
		cli_op_names(ops, sizeof(ops), ", ");
		snprintf(msg, size, "\"op\" must be one of %s", ops);
		return false;
	}
	json_t *argv = json_object_get(obj, "argv");
	if (argv && (target || opn != CORDON_EXEC)) {
		snprintf(msg, size, "\"argv\" belongs to exec requests, in place of \"target\"");
		return false;
	}
	if (!target && !argv) {
		snprintf(msg, size, "the request has no \"target\"");
		return false;
	}
	if (argv && !(out->words = stream_argv(argv))) {
		snprintf(msg, size, "\"argv\" must be %s", kind_names[FIELD_ARGV]);
		return false;
	}
	out->req.op = (enum cordon_op)opn;
	if (argv) {
		out->req.argv = out->words;
		out->req.argc = json_array_size(argv);
	} else {
		out->req.target = json_string_value(target);
		out->req.target_len = json_string_length(target);
	}
	return true;
}

/* The members that qualify the request: flags, preset, context, actor. */
static void request_members(json_t *obj, struct stream_request *out)
{
	json_t *b;
	if ((b = json_object_get(obj, "escalate")))
		out->req.escalate = json_is_true(b);
	if ((b = json_object_get(obj, "canonical")))
		out->req.canonical = json_is_true(b);
	if ((b = json_object_get(obj, "sandboxed"))) {
		out->has_sandboxed = true;
		out->req.sandboxed = json_is_true(b);
	}
	out->req.justification = json_string_value(json_object_get(obj, "justification"));
	out->preset = json_string_value(json_object_get(obj, "preset"));
	out->context = json_object_get(obj, "context");
	out->actor = json_string_value(json_object_get(obj, "actor"));
	out->approve = json_is_true(json_object_get(obj, "approve"));
}

/* Read one request object into out; false with the reason in msg.  The id
 * is read first, so that an error about the rest can still name it. */
static bool stream_request_parse(json_t *obj, struct stream_request *out, char *msg, size_t size)
{
	json_t *value;
	memset(out, 0, sizeof(*out));
	if ((value = json_object_get(obj, "id"))) {
		if (!json_is_string(value) && !json_is_integer(value)) {
			snprintf(msg, size, "\"id\" must be a string or an integer");
			return false;
		}
		out->id = value;
	}
	if (!request_keys_ok(obj, msg, size) || !request_target(obj, out, msg, size))
		return false;
	request_members(obj, out);
	if (out->approve && out->req.op != CORDON_EXEC) {
		snprintf(msg, size, "\"approve\" belongs to exec requests");
		return false;
	}
	if (out->approve && out->req.escalate) {
		snprintf(msg, size, "\"approve\" is for commands `cordon run` runs, not escalated ones");
		return false;
	}
	/* Approved for `cordon run`, so decided as it decides. */
	if (out->approve) {
		out->req.sandboxed = true;
		out->has_sandboxed = true;
	}
	return true;
}

/* A line's context names another session: what it leaves out follows from
 * what it gives, as the command line's defaults do -- cwd from workspace,
 * agent_dir and session_dir from home -- not from another session's. */
static int derive_line_defaults(cordon_context *ctx, json_t *context, char **err)
{
	static const struct {
		const char *from, *name, *suffix;
	} derived[] = {
		{ "workspace", "cwd", "" },
		{ "home", "agent_dir", "/.cordon" },
		{ "home", "session_dir", "/.cordon/sessions/default" },
	};
	for (size_t i = 0; i < sizeof(derived) / sizeof(*derived); i++) {
		json_t *from = json_object_get(context, derived[i].from);
		if (!from || json_object_get(context, derived[i].name))
			continue;
		char *value;
		if (asprintf(&value, "%s%s", json_string_value(from), derived[i].suffix) < 0)
			abort();
		int rc = cordon_context_set(ctx, derived[i].name, value, err);
		free(value);
		if (rc != 0)
			return -1;
	}
	return 0;
}

static unsigned long key_hash(const char *s)
{
	unsigned long h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

/* The kept evaluator for key, marked as used now; NULL when none. */
static cordon_evaluator *cache_find(struct stream *st, const char *key, unsigned long hash)
{
	for (unsigned i = 0; i < CACHE_SIZE; i++) {
		if (st->cache[i].used && st->cache[i].hash == hash &&
		    strcmp(st->cache[i].key, key) == 0) {
			st->cache[i].used = ++st->tick;
			return st->cache[i].ev;
		}
	}
	return NULL;
}

/* Keep ev under key (taken), in an empty slot or the least recently used. */
static void cache_keep(struct stream *st, char *key, unsigned long hash, cordon_evaluator *ev)
{
	unsigned slot = 0;
	for (unsigned i = 0; i < CACHE_SIZE; i++) {
		if (st->cache[i].used < st->cache[slot].used)
			slot = i;
		if (!st->cache[slot].used)
			break;
	}
	free(st->cache[slot].key);
	cordon_evaluator_free(st->cache[slot].ev);
	st->cache[slot].key = key;
	st->cache[slot].hash = hash;
	st->cache[slot].ev = ev;
	st->cache[slot].used = ++st->tick;
}

/* The evaluator for a preset and a line's context, built once and kept.
 * The line's values replace those of the command line. */
static cordon_evaluator *stream_evaluator(struct stream *st, const char *preset, json_t *context,
					  char **err)
{
	char *ctxkey = context ? json_dumps(context, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	size_t klen = strlen(preset) + (ctxkey ? strlen(ctxkey) : 0) + 2;
	char *key = malloc(klen);
	if (!key)
		abort();
	snprintf(key, klen, "%s\n%s", preset, ctxkey ? ctxkey : "");
	free(ctxkey);
	unsigned long hash = key_hash(key);
	cordon_evaluator *kept = cache_find(st, key, hash);
	if (kept) {
		free(key);
		return kept;
	}
	cordon_context *ctx = cordon_context_new();
	const char *name, *host = cordon_context_get_host(st->o->ctx);
	json_t *value;
	cordon_evaluator *ev = NULL;
	if (host && cordon_context_set_host(ctx, host, err) != 0)
		goto out;
	for (size_t v = 0; (name = cordon_context_name(v)); v++) {
		const char *given = cordon_context_get(st->o->ctx, name);
		if (given && cordon_context_set(ctx, name, given, err) != 0)
			goto out;
	}
	if (context) {
		json_object_foreach(context, name, value) {
			if (!json_is_string(value)) {
				if (asprintf(err, "context value \"%s\" must be a string", name) < 0)
					abort();
				goto out;
			}
			if (cordon_context_set(ctx, name, json_string_value(value), err) != 0)
				goto out;
		}
		if (derive_line_defaults(ctx, context, err) != 0)
			goto out;
	}
	ev = cordon_evaluator_new(st->policy, preset, ctx, err);
	if (ev) {
		cache_keep(st, key, hash, ev);
		key = NULL;
	}
out:
	free(key);
	cordon_context_free(ctx);
	return ev;
}

static bool blank(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			return false;
	return true;
}

/* An exec request with "approve": its decision (the preview), and the id
 * of an approval for it under "approval" (null when none is needed or it
 * cannot be given, with the reason under "approval_error"). */
static void stream_approve(struct stream *st, const cordon_evaluator *ev,
			   const struct stream_request *sr, const cordon_decision *d)
{
	enum cordon_effect effect;
	char *err = NULL, *s = cordon_decision_json(d);
	const char *actor = sr->actor ? sr->actor : st->o->actor;
	char *id = cordon_approve_exec(ev, &sr->req, 0, actor, &effect, NULL, &err);
	json_t *o = json_loads(s, 0, NULL);
	if (o) {
		json_t *ops = json_object_get(o, "operations");
		for (size_t i = 0; i < json_array_size(ops); i++) {
			const char *why, *g = cordon_decision_operation_grant(d, i, &why);
			if (!g)
				continue;
			json_object_set_new(json_array_get(ops, i), "grant", json_string(g));
			json_object_set_new(json_array_get(ops, i), "grant_reason", json_string(why));
		}
		json_object_set_new(o, "approval", id ? json_string(id) : json_null());
		if (err)
			json_object_set_new(o, "approval_error", json_string(err));
	}
	print_answer(sr->id, s, o);
	audit_decision_as(st->o, d, &sr->req, actor, id ? "approval-issued" : "decided", id);
	json_decref(o);
	free(id);
	free(err);
	free(s);
}

/* Answer one line, whatever it holds: exactly one line goes out. */
static void stream_line(struct stream *st, const char *line, size_t len, size_t lineno)
{
	json_error_t jerr;
	json_t *obj;
	struct stream_request sr;
	char *err = NULL, msg[256];
	cordon_decision *d;
	cordon_evaluator *ev;

	if (memchr(line, '\0', len)) {
		print_error(lineno, NULL, "the line contains a NUL byte");
		return;
	}
	if (blank(line, len)) {
		print_error(lineno, NULL, "the line is empty; every line is one JSON request");
		return;
	}
	obj = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!obj || !json_is_object(obj)) {
		if (!obj && json_error_code(&jerr) == json_error_null_character)
			snprintf(msg, sizeof(msg), "a string on the line contains a NUL character "
						   "(\\u0000)");
		else
			snprintf(msg, sizeof(msg), "line %zu is not a JSON object%s%s", lineno,
				 obj ? "" : ": ", obj ? "" : jerr.text);
		print_error(lineno, NULL, msg);
		json_decref(obj);
		return;
	}
	bool parsed = stream_request_parse(obj, &sr, msg, sizeof(msg));
	if (parsed && !sr.has_sandboxed)
		sr.req.sandboxed = st->o->sandboxed;
	if (!parsed) {
		print_error(lineno, sr.id, msg);
	} else if (!sr.preset && !st->o->preset) {
		print_error(lineno, sr.id, "no preset: give \"preset\" or --preset");
	} else if (!(ev = stream_evaluator(st, sr.preset ? sr.preset : st->o->preset, sr.context,
					   &err))) {
		print_error(lineno, sr.id, err);
	} else if (!(d = cordon_evaluate(ev, &sr.req, &err))) {
		print_error(lineno, sr.id, err);
	} else if (sr.approve) {
		stream_approve(st, ev, &sr, d);
		cordon_decision_free(d);
	} else {
		char *s = cordon_decision_json(d);
		print_answer(sr.id, s, NULL);
		free(s);
		audit_decision(st->o, d, &sr.req, sr.actor);
		cordon_decision_free(d);
	}
	free(sr.words);
	free(err);
	json_decref(obj);
}

/* Decisions go out as soon as no further request is waiting: a host that
 * sends one request and waits gets its answer at once, and a batch is
 * written in blocks. */
static void flush_if_idle(void)
{
	struct pollfd p = { 0, POLLIN, 0 };
	if (poll(&p, 1, 0) <= 0 || !(p.revents & POLLIN))
		fflush(stdout);
}

/* Lines of standard input of any length, read in chunks: buf[start, end)
 * is not yet consumed, and [start, scanned) holds no newline. */
struct line_reader {
	char *buf;
	size_t cap, start, end, scanned;
	bool eof, too_long;
};

/* The next line without its newline; false at the end of the input.
 * *too_long: the line was longer than STREAM_LINE_MAX, and was skipped
 * to its end rather than kept. */
static bool line_next(struct line_reader *lr, const char **line, size_t *len, bool *too_long)
{
	for (;;) {
		char *nl = memchr(lr->buf + lr->scanned, '\n', lr->end - lr->scanned);
		if (nl || (lr->eof && (lr->end > lr->start || lr->too_long))) {
			size_t n = nl ? (size_t)(nl - (lr->buf + lr->start)) : lr->end - lr->start;
			*line = lr->buf + lr->start;
			*len = n;
			*too_long = lr->too_long || n > STREAM_LINE_MAX;
			lr->too_long = false;
			lr->start += n + (nl != NULL);
			lr->scanned = lr->start;
			return true;
		}
		if (lr->eof)
			return false;
		lr->scanned = lr->end;
		if (lr->end - lr->start > STREAM_LINE_MAX) {
			lr->too_long = true;
			lr->start = lr->scanned = lr->end;
		}
		flush_if_idle();
		if (lr->start > 0) {
			memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
			lr->end -= lr->start;
			lr->scanned -= lr->start;
			lr->start = 0;
		}
		if (lr->end == 0 && lr->cap > 16 * READ_CHUNK) {
			/* A long line has been answered: give its memory back. */
			free(lr->buf);
			lr->cap = READ_CHUNK;
			if (!(lr->buf = malloc(lr->cap)))
				abort();
		}
		if (lr->cap - lr->end < READ_CHUNK) {
			lr->cap = lr->cap * 2 > lr->end + READ_CHUNK ? lr->cap * 2 : lr->end + READ_CHUNK;
			if (!(lr->buf = realloc(lr->buf, lr->cap)))
				abort();
		}
		ssize_t r = read(0, lr->buf + lr->end, lr->cap - lr->end);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			lr->eof = true; /* a read error ends the stream like its end */
		else
			lr->end += (size_t)r;
	}
}

static int run_stream(const cordon_policy *policy, const struct eval_opts *o)
{
	struct stream st = { .policy = policy, .o = o };
	struct line_reader lr = { .buf = malloc(READ_CHUNK), .cap = READ_CHUNK };
	const char *line;
	size_t len, lineno = 0;
	bool too_long;
	char msg[128];
	if (!lr.buf)
		abort();
	while (line_next(&lr, &line, &len, &too_long)) {
		lineno++;
		if (too_long) {
			snprintf(msg, sizeof(msg), "the line is longer than %u bytes",
				 STREAM_LINE_MAX);
			print_error(lineno, NULL, msg);
			continue;
		}
		if (len > 0 && line[len - 1] == '\r')
			len--; /* CRLF */
		stream_line(&st, line, len, lineno);
	}
	fflush(stdout);
	free(lr.buf);
	for (unsigned i = 0; i < CACHE_SIZE; i++) {
		free(st.cache[i].key);
		cordon_evaluator_free(st.cache[i].ev);
	}
	return EXIT_OK;
}

int cmd_eval(int argc, char **argv)
{
	struct eval_opts o = { 0 };
	struct cli_args a;
	cordon_policy *policy = NULL;
	cordon_evaluator *ev = NULL;
	struct cordon_request req;
	char *err = NULL;
	int status;

	status = parse_opts(&a, argc, argv, &o);
	if (status != EXIT_OK)
		goto out;
	if (!o.stdin_mode && (status = cli_request_from_args(&a, o.escalate, &req)) != EXIT_OK)
		goto out;
	if (!o.stdin_mode)
		cli_one_shot_heap();
	if (!(policy = cli_load_policy(o.policy_path, &status)))
		goto out;
	if (!o.preset)
		o.preset = cordon_policy_default_preset(policy);
	if ((status = cli_audit_open("eval", o.audit_path, o.syslog, policy, &o.audit)) != EXIT_OK)
		goto out;
	if (o.stdin_mode) {
		status = run_stream(policy, &o);
		goto out;
	}
	if (!o.preset) {
		status = cli_usage_error("eval", "the policy names no default preset; give --preset");
		goto out;
	}
	req.sandboxed = o.sandboxed;
	if (!(ev = cordon_evaluator_new(policy, o.preset, o.ctx, &err))) {
		status = cli_usage_error(NULL, "%s", err);
		goto out;
	}
	cordon_decision *d = cordon_evaluate(ev, &req, &err);
	if (!d) {
		status = cli_usage_error(NULL, "%s", err);
		goto out;
	}
	if (o.json) {
		char *s = cordon_decision_json(d);
		puts(s);
		free(s);
	} else {
		print_text(d);
	}
	audit_decision(&o, d, &req, NULL);
	cordon_decision_free(d);
out:
	if (status < 0)
		status = EXIT_OK; /* --help */
	free(err);
	cli_evaluator_done(ev);
	cordon_audit_close(o.audit);
	cli_policy_done(policy);
	cli_args_free(&a);
	return status;
}
