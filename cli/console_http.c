/* The approval console's HTTP side, on libmicrohttpd: one page and two
 * calls, for one person on this machine.
 *
 *   GET  /?token=T     the page (HTML, CSS and JavaScript embedded in cordon)
 *   GET  /api/asks     the pending asks, as JSON           (X-Cordon-Token: T)
 *   POST /api/answer   {"id","digest","answer"} -> answer  (X-Cordon-Token: T)
 *   POST /api/remember {"id","digest"} -> the change "remember for the
 *                      project" would make: {"file","diff","rules","change"}
 *   POST /api/remember/confirm {"id","digest","change"} -> that change
 *                      written, and the ask answered once (console_remember.c)
 *
 * Every request is refused unless its Host is exactly 127.0.0.1:PORT (a
 * name that resolves here, DNS rebinding, is another Host), its Origin,
 * where it has one, is http://127.0.0.1:PORT, and it carries the token,
 * compared in constant time.  An answer is a POST only, with the token in
 * a header, an Origin and a JSON body: a form or a link of another site
 * can send none of that, and nothing here answers a CORS preflight.  The
 * daemon binds 127.0.0.1 alone. */
#include "config.h"

#include "cli.h"
#include "console_http.h"
#include "console_remember.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <nettle/memops.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* An answer is a few hundred bytes; more is not an answer. */
#define BODY_MAX 4096

struct asset {
	const char *name, *text;
	size_t size;
};

static const struct asset assets[] = {
#include "console-assets.inc"
};

struct console_server {
	struct MHD_Daemon *daemon;
	char token[CONSOLE_TOKEN_LEN + 1];
	char host[32];   /* 127.0.0.1:PORT */
	char origin[48]; /* http://127.0.0.1:PORT */
	const char *agent_dir;
	unsigned port;
};

/* The body of one request as it arrives. */
struct body {
	char buf[BODY_MAX + 1];
	size_t len;
	bool too_big;
};

/* A malloc'd message; out of memory ends the process, as lib/base's
 * allocators do (the console then answers nothing, which denies). */
static char *say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *say(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	return s;
}

int console_random_hex(char *out, size_t n, char **err)
{
	unsigned char b[64];
	size_t got = 0;
	if (n > sizeof(b)) {
		*err = say("%s", "too many random bytes asked for");
		return -1;
	}
	while (got < n) {
		ssize_t r = getrandom(b + got, n - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			*err = say("cannot get random bytes: %s", strerror(errno));
			return -1;
		}
		got += (size_t)r;
	}
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	return 0;
}

static const char *asset_text(const char *name)
{
	for (size_t i = 0; i < sizeof(assets) / sizeof(assets[0]); i++)
		if (!strcmp(assets[i].name, name))
			return assets[i].text;
	return NULL;
}

/* Queue a response of text with the headers every response has. */
static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
			     const char *text, const char *csp)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text,
								 MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "Cross-Origin-Resource-Policy", "same-origin");
	MHD_add_response_header(r, "Content-Security-Policy",
				csp ? csp : "default-src 'none'; frame-ancestors 'none'");
	enum MHD_Result rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result reply_error(struct MHD_Connection *c, unsigned status, const char *msg)
{
	json_t *o = json_pack("{s:s}", "error", msg);
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	enum MHD_Result rc = reply(c, status, "application/json", s ? s : "{}", NULL);
	free(s);
	return rc;
}

/* A copy of text with every @KEY@ of keys[i][0] replaced by keys[i][1]. */
static char *fill(const char *text, const char *const keys[][2], size_t n)
{
	struct strbuf {
		char *s;
		size_t len, cap;
	} b = { 0 };
	for (const char *p = text; *p;) {
		size_t k = 0, skip = 1;
		const char *with = NULL;
		for (; k < n && !with; k++)
			if (!strncmp(p, keys[k][0], strlen(keys[k][0]))) {
				with = keys[k][1];
				skip = strlen(keys[k][0]);
			}
		size_t add = with ? strlen(with) : 1;
		if (b.len + add + 1 > b.cap)
			if (!(b.s = realloc(b.s, b.cap = 2 * (b.len + add + 1))))
				abort();
		memcpy(b.s + b.len, with ? with : p, add);
		b.len += add;
		p += skip;
	}
	if (!b.s)
		b.s = say("%s", "");
	b.s[b.len] = '\0';
	return b.s;
}

/* The page, with a nonce that lets its own style and script alone run. */
static enum MHD_Result serve_page(struct MHD_Connection *c)
{
	char nonce[33], *err = NULL;
	if (console_random_hex(nonce, 16, &err) != 0) {
		free(err);
		return reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "no randomness for a nonce");
	}
	const char *const keys[][2] = {
		{ "@NONCE@", nonce },
		{ "@CSS@", asset_text("cli/console/console.css") },
		{ "@JS@", asset_text("cli/console/console.js") },
	};
	const char *html = asset_text("cli/console/console.html");
	if (!html || !keys[1][1] || !keys[2][1])
		return reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "the page is not in this build");
	char *page = fill(html, keys, 3);
	char *csp = say("default-src 'none'; script-src 'nonce-%s'; style-src 'nonce-%s'; "
			      "connect-src 'self'; base-uri 'none'; form-action 'none'; "
			      "frame-ancestors 'none'",
			      nonce, nonce);
	enum MHD_Result rc = reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", page, csp);
	free(page);
	free(csp);
	return rc;
}

static enum MHD_Result serve_asks(struct console_server *s, struct MHD_Connection *c)
{
	char *err = NULL, *list = cordon_console_pending(s->agent_dir, &err);
	if (!list) {
		enum MHD_Result rc = reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, err);
		free(err);
		return rc;
	}
	enum MHD_Result rc = reply(c, MHD_HTTP_OK, "application/json", list, NULL);
	free(list);
	return rc;
}

static bool answer_word(const char *w, enum cordon_console_answer *a)
{
	static const char *const words[] = { "deny", "once", "session" };
	for (int i = 0; w && i < 3; i++)
		if (!strcmp(w, words[i])) {
			*a = (enum cordon_console_answer)i;
			return true;
		}
	return false;
}

static enum MHD_Result serve_answer(struct console_server *s, struct MHD_Connection *c,
				    const struct body *b)
{
	const char *type = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
	if (!type || strncmp(type, "application/json", 16) != 0)
		return reply_error(c, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE,
				   "an answer is JSON (Content-Type: application/json)");
	if (b->too_big)
		return reply_error(c, MHD_HTTP_CONTENT_TOO_LARGE, "the answer is too large");
	json_t *o = json_loadb(b->buf, b->len, 0, NULL);
	const char *id = json_string_value(json_object_get(o, "id"));
	const char *digest = json_string_value(json_object_get(o, "digest"));
	enum cordon_console_answer a;
	enum MHD_Result rc;
	if (!id || !digest || !answer_word(json_string_value(json_object_get(o, "answer")), &a)) {
		rc = reply_error(c, MHD_HTTP_BAD_REQUEST,
				 "an answer is {\"id\", \"digest\", \"answer\": once, deny or session}");
	} else {
		int code = 500;
		char *err = NULL;
		if (cordon_console_answer(s->agent_dir, id, digest, a, "console", &code, &err) == 0)
			rc = reply(c, MHD_HTTP_OK, "application/json", "{\"ok\":true}", NULL);
		else
			rc = reply_error(c, (unsigned)code, err ? err : "cannot answer");
		free(err);
	}
	json_decref(o);
	return rc;
}

/* The JSON body of a POST, or NULL with the refusal queued in *rc. */
static json_t *json_body(struct MHD_Connection *c, const struct body *b, enum MHD_Result *rc)
{
	const char *type = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
	json_t *o = NULL;
	if (!type || strncmp(type, "application/json", 16) != 0)
		*rc = reply_error(c, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE,
				  "the body is JSON (Content-Type: application/json)");
	else if (b->too_big)
		*rc = reply_error(c, MHD_HTTP_CONTENT_TOO_LARGE, "the body is too large");
	else if (!(o = json_loadb(b->buf, b->len, 0, NULL)))
		*rc = reply_error(c, MHD_HTTP_BAD_REQUEST, "the body is not JSON");
	return o;
}

/* The preview of "remember for the project", or why there is none. */
static enum MHD_Result serve_remember(struct console_server *s, struct MHD_Connection *c,
				      const struct body *b)
{
	enum MHD_Result rc;
	json_t *o = json_body(c, b, &rc);
	if (!o)
		return rc;
	const char *id = json_string_value(json_object_get(o, "id"));
	const char *digest = json_string_value(json_object_get(o, "digest"));
	struct console_remember r;
	int code = 500;
	char *err = NULL;
	if (!id || !digest)
		rc = reply_error(c, MHD_HTTP_BAD_REQUEST, "a preview is {\"id\", \"digest\"}");
	else if (console_remember_plan(s->agent_dir, id, digest, &r, &code, &err) != 0)
		rc = reply_error(c, (unsigned)code, err ? err : "cannot remember");
	else {
		json_t *out = json_pack("{s:s, s:s, s:O, s:s}", "file", r.file, "diff", r.diff,
					"rules", r.rules, "change", r.change);
		char *text = out ? json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
		rc = text ? reply(c, MHD_HTTP_OK, "application/json", text, NULL)
			  : reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "the change is not UTF-8");
		free(text);
		json_decref(out);
		console_remember_free(&r);
	}
	free(err);
	json_decref(o);
	return rc;
}

/* The change shown, written: only when its digest is the one shown. */
static enum MHD_Result serve_confirm(struct console_server *s, struct MHD_Connection *c,
				     const struct body *b)
{
	enum MHD_Result rc;
	json_t *o = json_body(c, b, &rc);
	if (!o)
		return rc;
	const char *id = json_string_value(json_object_get(o, "id"));
	const char *digest = json_string_value(json_object_get(o, "digest"));
	const char *change = json_string_value(json_object_get(o, "change"));
	int code = 500;
	char *err = NULL, *file = NULL;
	if (!id || !digest || !change)
		rc = reply_error(c, MHD_HTTP_BAD_REQUEST,
				 "a confirm is {\"id\", \"digest\", \"change\"}");
	else if (console_remember_write(s->agent_dir, id, digest, change, "console", &file, &code,
					&err) != 0)
		rc = reply_error(c, (unsigned)code, err ? err : "cannot remember");
	else {
		json_t *out = json_pack("{s:b, s:s}", "ok", 1, "file", file);
		char *text = out ? json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
		rc = reply(c, MHD_HTTP_OK, "application/json", text ? text : "{\"ok\":true}", NULL);
		free(text);
		json_decref(out);
	}
	free(file);
	free(err);
	json_decref(o);
	return rc;
}

/* The token of the request, compared in constant time. */
static bool token_ok(const struct console_server *s, struct MHD_Connection *c, bool page)
{
	const char *t = page ? MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token")
			     : MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Cordon-Token");
	return t && strlen(t) == CONSOLE_TOKEN_LEN && memeql_sec(t, s->token, CONSOLE_TOKEN_LEN);
}

/* Host, Origin and the fetch site: the request comes from the console's
 * own page or from no page at all.  NULL, or why not. */
static const char *where_refused(const struct console_server *s, struct MHD_Connection *c,
				 bool post, unsigned *status)
{
	const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
	const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
	const char *site = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Sec-Fetch-Site");
	*status = MHD_HTTP_FORBIDDEN;
	if (!host || strcmp(host, s->host) != 0) {
		*status = MHD_HTTP_MISDIRECTED_REQUEST;
		return "the Host must be the console's own address";
	}
	if (origin ? strcmp(origin, s->origin) != 0 : post)
		return "the request does not come from the console's own page (Origin)";
	if (site && strcmp(site, "same-origin") != 0 && strcmp(site, "none") != 0)
		return "the request comes from another site (Sec-Fetch-Site)";
	return NULL;
}

static enum MHD_Result route(struct console_server *s, struct MHD_Connection *c, const char *url,
			     const char *method, const struct body *b)
{
	bool get = !strcmp(method, "GET"), post = !strcmp(method, "POST");
	bool page = !strcmp(url, "/"), asks = !strcmp(url, "/api/asks");
	bool answer = !strcmp(url, "/api/answer"), remember = !strcmp(url, "/api/remember");
	bool confirm = !strcmp(url, "/api/remember/confirm");
	bool posted = answer || remember || confirm;
	unsigned status;
	const char *why = where_refused(s, c, post, &status);
	if (why)
		return reply_error(c, status, why);
	if (!page && !asks && !posted)
		return reply_error(c, MHD_HTTP_NOT_FOUND, "no such page");
	if ((posted && !post) || (!posted && !get))
		return reply_error(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				   posted ? "an answer is a POST" : "only GET here");
	if (!token_ok(s, c, page))
		return reply_error(c, MHD_HTTP_FORBIDDEN, "the console's token is missing or wrong");
	if (page)
		return serve_page(c);
	if (remember)
		return serve_remember(s, c, b);
	if (confirm)
		return serve_confirm(s, c, b);
	return asks ? serve_asks(s, c) : serve_answer(s, c, b);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	(void)version;
	struct body *b = *state;
	if (!b) {
		/* The headers: the body, if any, comes in the calls that follow. */
		*state = calloc(1, sizeof(struct body));
		return *state ? MHD_YES : MHD_NO;
	}
	if (*upload_size) {
		if (b->len + *upload_size > BODY_MAX)
			b->too_big = true;
		else
			memcpy(b->buf + b->len, upload, *upload_size);
		if (!b->too_big)
			b->len += *upload_size;
		*upload_size = 0;
		return MHD_YES;
	}
	return route(cls, c, url, method, b);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state,
			 enum MHD_RequestTerminationCode code)
{
	(void)cls, (void)c, (void)code;
	free(*state);
	*state = NULL;
}

struct console_server *console_http_start(const char *agent_dir, unsigned port,
					  const char token[CONSOLE_TOKEN_LEN + 1], char **err)
{
	struct console_server *s = calloc(1, sizeof(*s));
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (!s) {
		*err = say("%s", "out of memory");
		return NULL;
	}
	memcpy(s->token, token, CONSOLE_TOKEN_LEN + 1);
	s->agent_dir = agent_dir;
	s->daemon = MHD_start_daemon(MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG,
				     (uint16_t)port, NULL, NULL, on_request, s,
				     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
				     MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
				     MHD_OPTION_CONNECTION_LIMIT, (unsigned)32,
				     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30, MHD_OPTION_END);
	const union MHD_DaemonInfo *info =
		s->daemon ? MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT) : NULL;
	if (!info || !info->port) {
		*err = say("cannot listen on 127.0.0.1:%u: %s", port,
				 errno ? strerror(errno) : "refused");
		console_http_stop(s);
		return NULL;
	}
	s->port = info->port;
	snprintf(s->host, sizeof(s->host), "127.0.0.1:%u", s->port);
	snprintf(s->origin, sizeof(s->origin), "http://127.0.0.1:%u", s->port);
	return s;
}

unsigned console_http_port(const struct console_server *s)
{
	return s->port;
}

void console_http_stop(struct console_server *s)
{
	if (!s)
		return;
	if (s->daemon)
		MHD_stop_daemon(s->daemon);
	free(s);
}
