/* cordon eval and cordon explain: decide one request, or a JSONL stream. */
#include "config.h"

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <unistd.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct eval_opts {
	const char *policy_path, *preset, *escalate, *audit_path, *actor;
	bool json, stdin_mode;
	cordon_context *ctx;
	cordon_audit *audit;
};

/* One audit record a decision; a record that cannot be written is said on
 * stderr and does not change the decision. */
static void audit_decision(const struct eval_opts *o, const cordon_decision *d,
			   const struct cordon_request *req, const char *actor)
{
	struct cordon_audit_record rec = { .actor = actor ? actor : o->actor, .outcome = "decided" };
	const char *args[1] = { req->justification };
	char *err = NULL;
	if (!o->audit)
		return;
	cordon_audit_record_decision(&rec, d);
	if (req->escalate) {
		rec.args = args;
		rec.nargs = 1;
	}
	if (cordon_audit_append(o->audit, &rec, &err) != 0) {
		fprintf(stderr, "cordon: %s\n", err);
		free(err);
	}
}

/* Options shared by eval and explain; returns EXIT_OK or a status, and
 * the index of the first operand in *first. */
static int parse_opts(const char *verb, int argc, char **argv, struct eval_opts *o, int *first)
{
	enum { OPT_PRESET = 256, OPT_CONTEXT, OPT_JSON, OPT_STDIN, OPT_ESCALATE, OPT_AUDIT,
	       OPT_ACTOR };
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "policy", required_argument, NULL, 'p' },
		{ "preset", required_argument, NULL, OPT_PRESET },
		{ "context", required_argument, NULL, OPT_CONTEXT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "stdin", no_argument, NULL, OPT_STDIN },
		{ "escalate", required_argument, NULL, OPT_ESCALATE },
		{ "audit", required_argument, NULL, OPT_AUDIT },
		{ "actor", required_argument, NULL, OPT_ACTOR },
		{ NULL, 0, NULL, 0 },
	};
	bool is_eval = strcmp(verb, "eval") == 0;
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+hp:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help(verb);
			return -1;
		case 'p':
			o->policy_path = optarg;
			break;
		case OPT_PRESET:
			o->preset = optarg;
			break;
		case OPT_CONTEXT:
			if ((rc = cli_context_arg(o->ctx, verb, optarg)) != EXIT_OK)
				return rc;
			break;
		case OPT_JSON:
			if (!is_eval)
				return cli_usage_error(verb, "--json belongs to 'cordon eval'");
			o->json = true;
			break;
		case OPT_STDIN:
			if (!is_eval)
				return cli_usage_error(verb, "--stdin belongs to 'cordon eval'");
			o->stdin_mode = true;
			break;
		case OPT_ESCALATE:
			o->escalate = optarg;
			break;
		case OPT_AUDIT:
		case OPT_ACTOR:
			if (!is_eval)
				return cli_usage_error(verb, "--%s belongs to 'cordon eval'",
						       c == OPT_AUDIT ? "audit" : "actor");
			*(c == OPT_AUDIT ? &o->audit_path : &o->actor) = optarg;
			break;
		default:
			return cli_usage_error(verb, "unknown option");
		}
	}
	*first = optind;
	if (o->stdin_mode && optind != argc)
		return cli_usage_error(verb, "--stdin takes no OP TARGET operands");
	/* exec --argv [--] WORD...: the request is the words, not a string. */
	if (!o->stdin_mode && argc - optind >= 2 && strcmp(argv[optind + 1], "--argv") == 0) {
		if (strcmp(argv[optind], "exec") != 0)
			return cli_usage_error(verb, "--argv belongs to exec requests, not '%s'",
					       argv[optind]);
		int words = optind + 2 < argc && strcmp(argv[optind + 2], "--") == 0 ? optind + 3
										   : optind + 2;
		if (words >= argc)
			return cli_usage_error(verb, "exec --argv expects the command's words "
						     "(e.g. 'exec --argv -- git push -f')");
	} else if (!o->stdin_mode && argc - optind != 2) {
		return cli_usage_error(verb, "expected OP TARGET (e.g. 'write ./out.txt') or "
					     "exec --argv -- WORD...");
	}
	cli_context_defaults(o->ctx);
	if (!o->actor)
		o->actor = getenv("USER");
	return EXIT_OK;
}

/* OP TARGET, or exec --argv [--] WORD... (parse_opts checked the shape). */
static int request_from_args(const char *verb, char **operands, int count, const char *escalate,
			     struct cordon_request *req)
{
	int op = cordon_op_from_name(operands[0]);
	if (op < 0)
		return cli_usage_error(verb, "unknown operation '%s' (read, write, exec, net or tool)",
				       operands[0]);
	memset(req, 0, sizeof(*req));
	req->op = (enum cordon_op)op;
	if (strcmp(operands[1], "--argv") == 0) {
		int words = count > 2 && strcmp(operands[2], "--") == 0 ? 3 : 2;
		req->argv = (const char *const *)operands + words;
		req->argc = (size_t)(count - words);
	} else {
		req->target = operands[1];
	}
	req->escalate = escalate != NULL;
	req->justification = escalate;
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

#define CACHE_SIZE 8

struct stream {
	const cordon_policy *policy;
	const struct eval_opts *o;
	struct {
		char *key;
		cordon_evaluator *ev;
	} cache[CACHE_SIZE];
	unsigned next;
};

static void print_error(size_t line, const char *msg)
{
	json_t *o = json_pack("{s:s, s:I}", "error", msg, "line", (json_int_t)line);
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	puts(s ? s : "{\"error\":\"out of memory\"}");
	free(s);
	json_decref(o);
}

/* The evaluator for a preset and a context object, built once and kept. */
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
	for (unsigned i = 0; i < CACHE_SIZE; i++) {
		if (st->cache[i].key && strcmp(st->cache[i].key, key) == 0) {
			free(key);
			return st->cache[i].ev;
		}
	}
	cordon_context *ctx = cordon_context_new();
	const char *name;
	json_t *value;
	cordon_evaluator *ev = NULL;
	for (int v = 0; v < 7; v++) {
		static const char *const names[] = { "workspace", "cwd",	  "home", "tmp",
						     "agent_dir", "session_dir", "user" };
		const char *given = cordon_context_get(st->o->ctx, names[v]);
		if (given && cordon_context_set(ctx, names[v], given, err) != 0)
			goto out;
	}
	if (context) {
		json_object_foreach(context, name, value) {
			if (!json_is_string(value)) {
				*err = strdup("context values are strings");
				goto out;
			}
			if (cordon_context_set(ctx, name, json_string_value(value), err) != 0)
				goto out;
		}
	}
	ev = cordon_evaluator_new(st->policy, preset, ctx, err);
	if (ev) {
		unsigned slot = st->next++ % CACHE_SIZE;
		free(st->cache[slot].key);
		cordon_evaluator_free(st->cache[slot].ev);
		st->cache[slot].key = key;
		st->cache[slot].ev = ev;
		key = NULL;
	}
out:
	free(key);
	cordon_context_free(ctx);
	return ev;
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

static void stream_line(struct stream *st, const char *line, size_t len, size_t lineno)
{
	json_error_t jerr;
	json_t *req = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	json_t *op, *target, *preset, *context, *escalate, *just;
	struct cordon_request r = { 0 };
	char *err = NULL, msg[256];
	cordon_decision *d;
	cordon_evaluator *ev;
	int opn;

	if (!req || !json_is_object(req)) {
		snprintf(msg, sizeof(msg), "line %zu is not a JSON object%s%s", lineno,
			 req ? "" : ": ", req ? "" : jerr.text);
		print_error(lineno, msg);
		json_decref(req);
		return;
	}
	op = json_object_get(req, "op");
	target = json_object_get(req, "target");
	preset = json_object_get(req, "preset");
	context = json_object_get(req, "context");
	escalate = json_object_get(req, "escalate");
	just = json_object_get(req, "justification");
	json_t *canonical = json_object_get(req, "canonical");
	json_t *actor = json_object_get(req, "actor");
	json_t *argv = json_object_get(req, "argv");
	const char **words = NULL;
	if (!json_is_string(op) || (opn = cordon_op_from_name(json_string_value(op))) < 0) {
		print_error(lineno, "\"op\" must be one of read, write, exec, net, tool");
	} else if (argv && (target || opn != CORDON_EXEC)) {
		print_error(lineno, "\"argv\" belongs to exec requests, in place of \"target\"");
	} else if (argv && !(words = stream_argv(argv))) {
		print_error(lineno, "\"argv\" must be an array of strings without NUL bytes");
	} else if (!argv && !json_is_string(target)) {
		print_error(lineno, "\"target\" must be a string");
	} else if ((preset && !json_is_string(preset)) || (context && !json_is_object(context)) ||
		   (escalate && !json_is_boolean(escalate)) || (just && !json_is_string(just)) ||
		   (canonical && !json_is_boolean(canonical)) || (actor && !json_is_string(actor))) {
		print_error(lineno, "\"preset\" is a string, \"context\" an object, \"escalate\" a "
				    "boolean, \"justification\" and \"actor\" strings");
	} else if (!preset && !st->o->preset) {
		print_error(lineno, "no preset: give \"preset\" or --preset");
	} else if (!(ev = stream_evaluator(st, preset ? json_string_value(preset) : st->o->preset,
					   context, &err))) {
		print_error(lineno, err);
	} else {
		r.op = (enum cordon_op)opn;
		if (words) {
			r.argv = words;
			r.argc = json_array_size(argv);
		} else {
			r.target = json_string_value(target);
			r.target_len = json_string_length(target);
			if (r.target_len == 0)
				r.target = "";
		}
		r.escalate = escalate && json_is_true(escalate);
		r.justification = just ? json_string_value(just) : NULL;
		r.canonical = canonical && json_is_true(canonical);
		if (!(d = cordon_evaluate(ev, &r, &err))) {
			print_error(lineno, err);
		} else {
			char *s = cordon_decision_json(d);
			puts(s);
			free(s);
			audit_decision(st->o, d, &r, actor ? json_string_value(actor) : NULL);
			cordon_decision_free(d);
		}
	}
	free(words);
	free(err);
	json_decref(req);
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

static int run_stream(const cordon_policy *policy, const struct eval_opts *o)
{
	struct stream st = { .policy = policy, .o = o };
	char *buf = NULL;
	size_t cap = 0, len = 0, lineno = 0;
	bool eof = false;
	while (!eof || len) {
		char *nl = memchr(buf ? buf : "", '\n', len);
		if (!nl && !eof) {
			flush_if_idle();
			if (len + 65536 > cap) {
				cap = (len + 65536) * 2;
				buf = realloc(buf, cap);
				if (!buf)
					abort();
			}
			ssize_t r = read(0, buf + len, cap - len);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				eof = true;
			else
				len += (size_t)r;
			continue;
		}
		size_t n = nl ? (size_t)(nl - buf) : len, used = nl ? n + 1 : len;
		lineno++;
		while (n > 0 && buf[n - 1] == '\r')
			n--;
		if (n > 0)
			stream_line(&st, buf, n, lineno);
		memmove(buf, buf + used, len - used);
		len -= used;
	}
	fflush(stdout);
	free(buf);
	for (unsigned i = 0; i < CACHE_SIZE; i++) {
		free(st.cache[i].key);
		cordon_evaluator_free(st.cache[i].ev);
	}
	return EXIT_OK;
}

static int run(const char *verb, int argc, char **argv)
{
	struct eval_opts o = { .ctx = cordon_context_new() };
	cordon_policy *policy = NULL;
	cordon_evaluator *ev = NULL;
	struct cordon_request req;
	char *err = NULL;
	int first = 0, status;

	status = parse_opts(verb, argc, argv, &o, &first);
	if (status != EXIT_OK)
		goto out;
	if (!(policy = cli_load_policy(o.policy_path, &status)))
		goto out;
	if (!o.preset)
		o.preset = cordon_policy_default_preset(policy);
	if (strcmp(verb, "eval") == 0 &&
	    (status = cli_audit_open(verb, o.audit_path, policy, &o.audit)) != EXIT_OK)
		goto out;
	if (o.stdin_mode) {
		status = run_stream(policy, &o);
		goto out;
	}
	if (!o.preset) {
		status = cli_usage_error(verb, "the policy names no default preset; give --preset");
		goto out;
	}
	if ((status = request_from_args(verb, argv + first, argc - first, o.escalate, &req)) !=
	    EXIT_OK)
		goto out;
	if (!(ev = cordon_evaluator_new(policy, o.preset, o.ctx, &err))) {
		status = cli_usage_error(NULL, "%s", err);
		goto out;
	}
	if (strcmp(verb, "explain") == 0) {
		char *trace = cordon_explain(ev, &req, &err);
		if (!trace) {
			status = cli_usage_error(NULL, "%s", err);
			goto out;
		}
		fputs(trace, stdout);
		free(trace);
	} else {
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
	}
out:
	if (status < 0)
		status = EXIT_OK; /* --help */
	free(err);
	cordon_evaluator_free(ev);
	cordon_audit_close(o.audit);
	cordon_policy_free(policy);
	cordon_context_free(o.ctx);
	return status;
}

int cmd_eval(int argc, char **argv)
{
	return run("eval", argc, argv);
}

int cmd_explain(int argc, char **argv)
{
	return run("explain", argc, argv);
}
