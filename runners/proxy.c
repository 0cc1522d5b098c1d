/* The egress proxy process (see proxy.h): one poll loop over the control
 * socketpair and a bounded table of connections, each a small state machine
 * (request head, upstream connect, relay), every state with a deadline. */
#include "config.h"

#ifdef __linux__

#include "proxy.h"
#include "egress_relay.h"
#include "run_util.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HEAD_MAX 8192
#define BUF_SIZE 65536

enum conn_state {
	C_HEAD,       /* reading the request (HTTP head or SOCKS greeting/request) */
	C_RESOLVING,  /* a resolver process looks the name up (ufd: its pipe) */
	C_CONNECTING, /* upstream connect in progress */
	C_RELAY,      /* bytes both ways */
	C_REFUSING,   /* sending a refusal, then closing */
};

/* K_TRANSPARENT: a connection the command made to an address of the
 * sandbox's DNS stub, whose name and port cordon-exec's relay sent with
 * it: no request to read, nothing to answer, the bytes as they are. */
enum conn_kind { K_UNKNOWN, K_HTTP, K_CONNECT, K_SOCKS, K_TRANSPARENT };

struct pipebuf {
	char *data;
	size_t off, len;
	bool eof; /* the reading side ended; shut the writing side once drained */
};

struct conn {
	int cfd, ufd;
	enum conn_state state;
	enum conn_kind kind;
	bool socks_greeted;
	char head[HEAD_MAX];
	size_t head_len;
	char host[256];
	int port;
	struct proxy_addrs addrs;
	size_t next_addr;
	char *rule, *reason; /* of the allow, kept for what follows the lookup */
	const char *decision;
	const char *approval; /* the approval that let an ask through, or NULL */
	pid_t resolver;
	char *forward;    /* the rewritten HTTP head and what followed it */
	long long body_left; /* of the request's body, still to forward; -1: chunked */
	struct proxy_chunks chunks; /* a chunked body's end, found as it streams by */
	bool body_bad;       /* a chunked body that is not well formed */
	size_t forward_len;
	struct pipebuf up, down; /* client->upstream, upstream->client */
	double deadline;
	double started;
};

struct proxy_loop {
	const struct proxy_opts *o;
	struct proxy_refusals refusals; /* told to the runner (proxy_refusal.c) */
	struct proxy_hosts hosts;
	bool have_hosts;
	struct conn **conns;
	size_t nconns, max;
	double head_timeout, connect_timeout, idle_timeout;
};

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void audit(struct proxy_loop *pl, const char *approval, const char *target,
		  const char *decision, const char *rule, const char *reason, const char *outcome,
		  int err)
{
	if (!pl->o->audit)
		return;
	struct cordon_audit_record rec = {
		.preset = cordon_evaluator_preset(pl->o->ev),
		.op = "net",
		.target = target,
		.decision = decision,
		.rule = rule,
		.reason = reason,
		.actor = pl->o->actor,
		.approval = approval,
		.outcome = outcome,
		.err = err,
	};
	char *aerr = NULL;
	if (cordon_audit_append(pl->o->audit, &rec, &aerr) != 0) {
		fprintf(stderr, "cordon: egress: %s\n", aerr);
		free(aerr);
	}
}

static void conn_free(struct conn *c)
{
	if (c->cfd >= 0)
		close(c->cfd);
	if (c->ufd >= 0)
		close(c->ufd);
	free(c->up.data);
	free(c->down.data);
	free(c->forward);
	free(c->rule);
	free(c->reason);
	if (c->resolver > 0)
		kill(c->resolver, SIGKILL);
	free(c);
}

static void buf_put(struct pipebuf *b, const void *data, size_t n)
{
	if (b->len + n > BUF_SIZE)
		n = BUF_SIZE - b->len;
	memcpy(b->data + b->len, data, n);
	b->len += n;
}

/* ---- refusals and replies ------------------------------------------------ */

static void http_reply(struct conn *c, int code, const char *status, const char *body)
{
	char head[512];
	int n = snprintf(head, sizeof(head),
			 "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
			 "Connection: close\r\nX-Cordon-Decision: %s\r\n\r\n",
			 code, status, strlen(body) + 1, code == 403 ? "deny" : "error");
	buf_put(&c->down, head, (size_t)n);
	buf_put(&c->down, body, strlen(body));
	buf_put(&c->down, "\n", 1);
}

/* SOCKS5 reply codes. */
enum { SOCKS_OK = 0, SOCKS_FAIL = 1, SOCKS_RULESET = 2, SOCKS_HOST = 4, SOCKS_REFUSED = 5,
       SOCKS_CMD = 7, SOCKS_ATYP = 8 };

static void socks_reply(struct conn *c, int code)
{
	const unsigned char r[10] = { 5, (unsigned char)code, 0, 1, 0, 0, 0, 0, 0, 0 };
	buf_put(&c->down, r, sizeof(r));
}

/* Refuse the contact: code for HTTP, scode for SOCKS, the text for HTTP. */
static void refuse(struct proxy_loop *pl, struct conn *c, int code, const char *status,
		   int scode, const char *text)
{
	if (c->kind == K_SOCKS)
		socks_reply(c, scode);
	else if (c->kind != K_TRANSPARENT) /* that one is closed: the report says why */
		http_reply(c, code, status, text);
	c->down.eof = true; /* nothing more: close once sent */
	c->state = C_REFUSING;
	c->deadline = mono() + pl->head_timeout;
}

/* ---- deciding ------------------------------------------------------------ */

/* Decide c->host:c->port; on allow, resolve and start connecting. */
static void start_connect(struct proxy_loop *pl, struct conn *c);
static void begin_resolve(struct proxy_loop *pl, struct conn *c);

/* The contact as the evaluator and the audit log name it: host:port, an
 * IPv6 address in brackets. */
static void conn_target(const struct conn *c, char *buf, size_t size)
{
	snprintf(buf, size, strchr(c->host, ':') ? "[%s]:%d" : "%s:%d", c->host, c->port);
}

/* Refuse a contact a rule (or the lack of one) refused: told to the
 * runner first, then the 403 with msg and the change that would allow it
 * (msg holds size bytes). */
static void refuse_rule(struct proxy_loop *pl, struct conn *c, enum proxy_refusal_kind kind,
			enum cordon_effect e, const char *rule, const char *reason, char *msg,
			size_t size)
{
	char target[300];
	conn_target(c, target, sizeof(target));
	int w = proxy_refusals_widens(&pl->refusals, target, c->host, kind == PROXY_REFUSED_ADDRESS);
	proxy_refusals_send(&pl->refusals, kind, e, c->host, c->port, rule, reason, w);
	size_t len = strlen(msg);
	proxy_refusals_fix(&pl->refusals, e, target, rule, w, msg + len, size - len);
	refuse(pl, c, 403, "Forbidden", SOCKS_RULESET, msg);
}

/* What a resolver process sends back: one write, under PIPE_BUF. */
struct resolve_reply {
	int rc;
	char why[120];
	struct proxy_addrs addrs;
};
_Static_assert(sizeof(struct resolve_reply) <= 4096, "a resolver's reply is one atomic write");

/* The name is looked up (or failed to be): judge its addresses, connect. */
static void resolved(struct proxy_loop *pl, struct conn *c, int rc, const char *why)
{
	char target[300], msg[2048];
	conn_target(c, target, sizeof(target));
	if (rc != 0) {
		snprintf(msg, sizeof(msg), "cordon: net %s: cannot resolve %s: %s", target, c->host,
			 why);
		audit(pl, c->approval, target, c->decision, c->rule, why, "unresolved", 0);
		refuse(pl, c, 502, "Bad Gateway", SOCKS_HOST, msg);
		return;
	}
	/* Every address the name has is judged: one internal address among
	 * public ones is how a rebinding name reaches inside.  A literal rule
	 * that names the host itself means its internal address is meant. */
	bool named = cordon_evaluator_rule_names_host(pl->o->ev, c->rule, c->host);
	for (size_t i = 0; i < c->addrs.n && !named; i++) {
		const char *inner = proxy_addr_internal((struct sockaddr *)&c->addrs.addr[i]);
		if (!inner)
			continue;
		char a[64];
		proxy_addr_text((struct sockaddr *)&c->addrs.addr[i], a, sizeof(a));
		snprintf(msg, sizeof(msg),
			 "cordon: net %s: %s resolves to %s, %s, which only a rule naming the host "
			 "exactly may allow",
			 target, c->host, a, inner);
		audit(pl, c->approval, target, "deny", c->rule, msg + 8, "refused", 0);
		refuse_rule(pl, c, PROXY_REFUSED_ADDRESS, CORDON_DENY, c->rule, msg + 8, msg,
			    sizeof(msg));
		return;
	}
	audit(pl, c->approval, target, c->decision, c->rule, c->reason, "connecting", 0);
	c->next_addr = 0;
	start_connect(pl, c);
}

/* From the hosts file, or for an address, at once; a name for DNS in a
 * process of its own, so that a slow lookup holds up no other connection. */
static void begin_resolve(struct proxy_loop *pl, struct conn *c)
{
	const char *why = NULL;
	struct sockaddr_storage ss;
	socklen_t len;
	if (pl->have_hosts || proxy_numeric(c->host, &ss, &len)) {
		int rc = proxy_resolve(pl->have_hosts ? &pl->hosts : NULL, c->host, c->port, &c->addrs,
				       &why);
		resolved(pl, c, rc, why);
		return;
	}
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		resolved(pl, c, -1, strerror(errno));
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		struct resolve_reply r = { 0 };
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		r.rc = proxy_resolve(NULL, c->host, c->port, &r.addrs, &why);
		if (r.rc != 0)
			snprintf(r.why, sizeof(r.why), "%s", why);
		(void)!write(fds[1], &r, sizeof(r));
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		resolved(pl, c, -1, strerror(errno));
		return;
	}
	c->resolver = pid;
	c->ufd = fds[0];
	c->state = C_RESOLVING;
	c->deadline = mono() + pl->connect_timeout;
}

/* The resolver answered (or died). */
static void on_resolved(struct proxy_loop *pl, struct conn *c)
{
	struct resolve_reply r;
	ssize_t n = read(c->ufd, &r, sizeof(r));
	close(c->ufd);
	c->ufd = -1;
	c->resolver = -1;
	if (n != (ssize_t)sizeof(r)) {
		resolved(pl, c, -1, "the lookup failed");
		return;
	}
	r.why[sizeof(r.why) - 1] = '\0';
	c->addrs = r.addrs;
	if (c->addrs.n > PROXY_ADDRS_MAX)
		c->addrs.n = 0;
	resolved(pl, c, r.rc != 0 || c->addrs.n == 0 ? -1 : 0, r.rc ? r.why : "no address");
}

static void decide(struct proxy_loop *pl, struct conn *c)
{
	char target[300], msg[2048];
	conn_target(c, target, sizeof(target));
	struct cordon_request req = { .op = CORDON_NET, .target = target, .sandboxed = true };
	char *err = NULL;
	cordon_decision *d = cordon_evaluate(pl->o->ev, &req, &err);
	enum cordon_effect e = d ? cordon_decision_effect(d) : CORDON_DENY;
	const char *rule = d ? cordon_decision_rule(d) : NULL;
	const char *reason = d ? cordon_decision_reason(d) : err;
	const char *decision = cordon_effect_name(e);
	/* Only an ask is approvable: a deny stays a deny whatever the
	 * approval names. */
	if (e == CORDON_ASK && pl->o->approve &&
	    pl->o->approve(pl->o->approve_arg, c->host, c->port)) {
		e = CORDON_ALLOW;
		c->approval = pl->o->approval;
		snprintf(msg, sizeof(msg), "allowed for this call by approval %s",
			 c->approval ? c->approval : "?");
		audit(pl, c->approval, target, "ask", rule, msg, "approved", 0);
	} else if (e == CORDON_ALLOW && pl->o->approved_only) {
		/* The preset allows no host (an allow here is a rule that
		 * names no host, `net "unix"`): the proxy is there for the
		 * approved hosts and nothing else. */
		snprintf(msg, sizeof(msg),
			 "cordon: net %s: the preset allows no host; this call reaches only the "
			 "hosts approval %s grants",
			 target, pl->o->approval ? pl->o->approval : "?");
		audit(pl, NULL, target, decision, rule, msg + 8, "refused", 0);
		refuse_rule(pl, c, PROXY_REFUSED_APPROVED_ONLY, CORDON_DENY, rule, msg + 8, msg,
			    sizeof(msg));
		goto done;
	}
	if (e != CORDON_ALLOW) {
		bool shown = reason && rule && strstr(reason, rule);
		snprintf(msg, sizeof(msg), "cordon: net %s: %s%s%s%s%s", target,
			 e == CORDON_ASK ? "needs approval, which this call does not have: " : "",
			 reason ? reason : "denied", rule && !shown ? " (" : "",
			 rule && !shown ? rule : "", rule && !shown ? ")" : "");
		audit(pl, c->approval, target, decision, rule, reason, "refused", 0);
		refuse_rule(pl, c, PROXY_REFUSED_RULE, e, rule, reason, msg, sizeof(msg));
		goto done;
	}
	c->rule = rule ? xstrdup(rule) : NULL;
	c->reason = reason ? xstrdup(reason) : NULL;
	c->decision = e == CORDON_ALLOW && d && cordon_decision_effect(d) == CORDON_ASK ? "ask"
											  : "allow";
	begin_resolve(pl, c);
done:
	cordon_decision_free(d);
	free(err);
}

static void start_connect(struct proxy_loop *pl, struct conn *c)
{
	while (c->next_addr < c->addrs.n) {
		size_t i = c->next_addr++;
		struct sockaddr *sa = (struct sockaddr *)&c->addrs.addr[i];
		int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (connect(fd, sa, c->addrs.len[i]) == 0 || errno == EINPROGRESS) {
			c->ufd = fd;
			c->state = C_CONNECTING;
			c->deadline = mono() + pl->connect_timeout;
			return;
		}
		close(fd);
	}
	char msg[512];
	char target[300];
	conn_target(c, target, sizeof(target));
	snprintf(msg, sizeof(msg), "cordon: net %s: no address of the host accepts a connection",
		 target);
	audit(pl, c->approval, target, "allow", NULL, msg + 8, "unreachable", 0);
	refuse(pl, c, 502, "Bad Gateway", SOCKS_REFUSED, msg);
}

/* The upstream connection is up: say so to the client, or send it the
 * request. */
static void connected(struct proxy_loop *pl, struct conn *c)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	if (c->kind == K_CONNECT)
		buf_put(&c->down, ok, sizeof(ok) - 1);
	else if (c->kind == K_SOCKS)
		socks_reply(c, SOCKS_OK);
	if (c->forward) {
		buf_put(&c->up, c->forward, c->forward_len);
		free(c->forward);
		c->forward = NULL;
	}
	c->state = C_RELAY;
	c->deadline = mono() + pl->idle_timeout;
}

/* ---- reading requests ---------------------------------------------------- */

/* "host[:port]" or "[v6][:port]" into c->host, c->port (default dport). */
static bool parse_authority(struct conn *c, const char *s, size_t n, int dport)
{
	return proxy_authority_parse(s, n, dport, c->host, sizeof(c->host), &c->port);
}

/* What the client sent after the head, in the same reads. */
struct after_head {
	char *data;
	size_t len;
};

/* Of the n bytes of the request's body at data, how many go on: at most
 * what the head announced (c->body_left), or for a chunked body (-1) up
 * to its last chunk and trailer.  What follows is dropped: with
 * Connection: close it could only be a second request, which no decision
 * saw.  A chunked body that is not well formed sets c->body_bad. */
static size_t body_part(struct conn *c, const char *data, size_t n)
{
	if (c->body_left < 0) {
		long k = c->body_bad ? 0 : proxy_chunks_feed(&c->chunks, data, n);
		if (k < 0)
			c->body_bad = true;
		return k < 0 ? 0 : (size_t)k;
	}
	if ((unsigned long long)c->body_left < n)
		n = (size_t)c->body_left;
	c->body_left -= (long long)n;
	return n;
}

/* An absolute-URI request becomes an origin-form one, one request a
 * connection (Connection: close), without the proxy's own headers and
 * with the Host the URI names (RFC 9112 3.2.2: a proxy replaces the Host
 * of an absolute-form request), followed by no more of the body than the
 * head announced: so neither a later request on the connection nor one
 * hidden after the body can reach another host unseen. */
static void rewrite_http(struct conn *c, const char *method, size_t mlen, const char *path,
			 size_t plen, const char *authority, size_t alen, const char *version,
			 const struct after_head *after)
{
	struct strbuf sb;
	sb_init(&sb);
	sb_addf(&sb, "%.*s %.*s %.8s\r\nHost: %.*s\r\n", (int)mlen, method, (int)plen, path,
		version, (int)alen, authority);
	for (const char *p = strstr(c->head, "\r\n"); p; p = strstr(p + 2, "\r\n")) {
		const char *line = p + 2, *e = strstr(line, "\r\n");
		if (!e || e == line)
			break;
		if (strncasecmp(line, "Proxy-", 6) == 0 || strncasecmp(line, "Connection:", 11) == 0 ||
		    strncasecmp(line, "Keep-Alive:", 11) == 0 || strncasecmp(line, "Host:", 5) == 0)
			continue;
		sb_add(&sb, line, (size_t)(e - line) + 2);
	}
	sb_adds(&sb, "Connection: close\r\n\r\n");
	sb_add(&sb, after->data, body_part(c, after->data, after->len));
	c->forward_len = sb.len;
	c->forward = sb_steal(&sb);
}

/* A head refused before any decision: 400 with the reason, audited with
 * the host the request names when it names one. */
static void refuse_head(struct proxy_loop *pl, struct conn *c, int code, const char *status,
			const char *why)
{
	char target[300], msg[512];
	if (c->host[0])
		conn_target(c, target, sizeof(target));
	else
		snprintf(target, sizeof(target), "(an unreadable request)");
	snprintf(msg, sizeof(msg), "cordon: the proxy refuses an ambiguous request: %s", why);
	audit(pl, NULL, target, "deny", NULL, msg + 8, "refused", 0);
	proxy_refusals_send(&pl->refusals, PROXY_REFUSED_REQUEST, CORDON_DENY, c->host, c->port, NULL,
			    msg + 8, -1);
	refuse(pl, c, code, status, 0, msg);
}

/* The request line's three parts (proxy_http_check made sure they are
 * separated by one space each). */
struct request_line {
	const char *method, *target, *version;
	size_t mlen, tlen;
};

static void split_request_line(const char *head, struct request_line *r)
{
	const char *sp1 = strchr(head, ' '), *sp2 = strchr(sp1 + 1, ' ');
	r->method = head;
	r->mlen = (size_t)(sp1 - head);
	r->target = sp1 + 1;
	r->tlen = (size_t)(sp2 - r->target);
	r->version = sp2 + 1;
}

static void read_connect(struct proxy_loop *pl, struct conn *c, const struct request_line *r,
			 const struct after_head *after)
{
	long long body;
	const char *why;
	struct proxy_http_target t = { .absolute = false };
	c->kind = K_CONNECT;
	if (!parse_authority(c, r->target, r->tlen, -1) || c->port < 0) {
		refuse_head(pl, c, 400, "Bad Request", "CONNECT needs host:port");
		return;
	}
	why = proxy_http_check(c->head, &t, &body);
	if (why) {
		refuse_head(pl, c, 400, "Bad Request", why);
		return;
	}
	c->body_left = -1; /* a tunnel: its bytes are not HTTP's */
	if (after->len) {
		c->forward = xmalloc(after->len);
		memcpy(c->forward, after->data, after->len);
		c->forward_len = after->len;
	}
	decide(pl, c);
}

static void read_absolute(struct proxy_loop *pl, struct conn *c, const struct request_line *r,
			  const struct after_head *after)
{
	c->kind = K_HTTP;
	if (r->tlen < 7 || strncasecmp(r->target, "http://", 7) != 0) {
		refuse_head(pl, c, 400, "Bad Request",
			    "the proxy takes absolute http:// URIs and CONNECT (https goes through "
			    "CONNECT)");
		return;
	}
	const char *auth = r->target + 7, *tend = r->target + r->tlen;
	const char *slash = memchr(auth, '/', (size_t)(tend - auth));
	size_t alen = (size_t)((slash ? slash : tend) - auth);
	if (memchr(auth, '@', alen) || memchr(auth, '?', alen) || memchr(auth, '#', alen) ||
	    !parse_authority(c, auth, alen, 80)) {
		refuse_head(pl, c, 400, "Bad Request", "the URI names no host the proxy reads");
		return;
	}
	struct proxy_http_target t = { .absolute = true, .host = c->host, .port = c->port,
				       .default_port = 80 };
	long long body;
	const char *why = proxy_http_check(c->head, &t, &body);
	if (why) {
		refuse_head(pl, c, 400, "Bad Request", why);
		return;
	}
	c->body_left = body;
	rewrite_http(c, r->method, r->mlen, slash ? slash : "/", slash ? (size_t)(tend - slash) : 1,
		     auth, alen, r->version, after);
	if (c->body_bad) {
		refuse_head(pl, c, 400, "Bad Request", "the chunked body is not well formed");
		return;
	}
	decide(pl, c);
}

static void read_http(struct proxy_loop *pl, struct conn *c)
{
	/* Only the head is text: the body read with it (a push's pack) may
	 * hold any byte. */
	char *end = memmem(c->head, c->head_len, "\r\n\r\n", 4);
	if (memchr(c->head, '\0', end ? (size_t)(end - c->head) : c->head_len)) {
		refuse_head(pl, c, 400, "Bad Request", "the head holds a NUL byte");
		return;
	}
	c->head[c->head_len] = '\0';
	if (!end) {
		if (proxy_http_bare_eol(c->head, c->head_len))
			refuse_head(pl, c, 400, "Bad Request", PROXY_BARE_EOL_WHY);
		else if (c->head_len >= HEAD_MAX - 1)
			refuse(pl, c, 431, "Request Header Fields Too Large", 0,
			       "cordon: the request head is longer than the proxy reads");
		return;
	}
	end += 4;
	/* What came after the head is kept aside; the head alone stays a
	 * string. */
	struct after_head after = { .len = c->head_len - (size_t)(end - c->head) };
	after.data = xmalloc(after.len + 1);
	memcpy(after.data, end, after.len);
	*end = '\0';
	/* Checked once without a target so the request line can be split
	 * safely, then again against the host it names. */
	struct request_line r;
	long long body;
	struct proxy_http_target none = { .absolute = false };
	const char *why = proxy_http_check(c->head, &none, &body);
	if (why)
		refuse_head(pl, c, 400, "Bad Request", why);
	else {
		split_request_line(c->head, &r);
		if (r.mlen == 7 && strncmp(r.method, "CONNECT", 7) == 0)
			read_connect(pl, c, &r, &after);
		else
			read_absolute(pl, c, &r, &after);
	}
	free(after.data);
}

static void read_socks(struct proxy_loop *pl, struct conn *c)
{
	const unsigned char *b = (const unsigned char *)c->head;
	size_t n = c->head_len;
	c->kind = K_SOCKS;
	if (!c->socks_greeted) {
		if (n < 2 || n < 2u + b[1])
			return;
		if (!memchr(b + 2, 0, b[1])) {
			const unsigned char no[2] = { 5, 0xff };
			buf_put(&c->down, no, 2);
			c->down.eof = true;
			c->state = C_REFUSING;
			return;
		}
		const unsigned char yes[2] = { 5, 0 };
		buf_put(&c->down, yes, 2);
		size_t used = 2u + b[1];
		memmove(c->head, c->head + used, n - used);
		c->head_len -= used;
		c->socks_greeted = true;
		b = (const unsigned char *)c->head;
		n = c->head_len;
	}
	if (n < 5)
		return;
	size_t need;
	if (b[3] == 1)
		need = 10;
	else if (b[3] == 4)
		need = 22;
	else if (b[3] == 3)
		need = 7u + b[4];
	else {
		refuse(pl, c, 0, NULL, SOCKS_ATYP, NULL);
		return;
	}
	if (n < need)
		return;
	if (b[0] != 5 || b[1] != 1) {
		refuse(pl, c, 0, NULL, SOCKS_CMD, NULL);
		return;
	}
	c->port = b[need - 2] << 8 | b[need - 1];
	if (b[3] == 3) {
		memcpy(c->host, b + 5, b[4]);
		c->host[b[4]] = '\0';
		for (char *p = c->host; *p; p++)
			*p = (char)tolower((unsigned char)*p);
	} else {
		if (!inet_ntop(b[3] == 1 ? AF_INET : AF_INET6, b + 4, c->host, sizeof(c->host)))
			c->host[0] = '\0';
	}
	if (!proxy_valid_host(c->host) || c->port == 0) {
		proxy_refusals_send(&pl->refusals, PROXY_REFUSED_REQUEST, CORDON_DENY, c->host,
				    c->port, NULL, "the proxy refuses a SOCKS name it does not read", -1);
		refuse(pl, c, 0, NULL, SOCKS_HOST, NULL);
		return;
	}
	if (n > need) {
		c->forward_len = n - need;
		c->forward = xmalloc(c->forward_len);
		memcpy(c->forward, c->head + need, c->forward_len);
	}
	decide(pl, c);
}

static void on_head(struct proxy_loop *pl, struct conn *c)
{
	ssize_t r = read(c->cfd, c->head + c->head_len, HEAD_MAX - 1 - c->head_len);
	if (r <= 0) {
		if (r == 0 || (errno != EAGAIN && errno != EINTR))
			c->state = C_REFUSING, c->down.eof = true, c->up.eof = true;
		return;
	}
	c->head_len += (size_t)r;
	if (c->head[0] == 5)
		read_socks(pl, c);
	else
		read_http(pl, c);
}

/* ---- relaying ------------------------------------------------------------ */

/* Read into b what from has; the bytes read (an end counts as one), or
 * -1 on an error. */
static ssize_t pump_in(int from, struct pipebuf *b)
{
	if (b->eof || b->len >= BUF_SIZE)
		return 0;
	ssize_t r = read(from, b->data + b->len, BUF_SIZE - b->len);
	if (r > 0)
		b->len += (size_t)r;
	else if (r == 0)
		b->eof = true;
	else
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	return r ? r : 1;
}

/* pump_in from the client, keeping of an HTTP request's body no more than
 * its head announced or its chunks make (body_part): the rest is read and
 * dropped, so that the client's end is still seen. */
static ssize_t pump_body(struct conn *c)
{
	size_t before = c->up.len;
	ssize_t r = pump_in(c->cfd, &c->up);
	if (r > 0 && c->kind == K_HTTP)
		c->up.len = before + body_part(c, c->up.data + before, c->up.len - before);
	/* A malformed chunked body ends the connection: what the server
	 * would make of it is what this proxy cannot tell. */
	return c->body_bad ? -1 : r;
}

/* Send what b holds to to; the bytes sent, or -1 on an error. */
static ssize_t pump_out(int to, struct pipebuf *b)
{
	ssize_t w = 0;
	if (b->off < b->len) {
		w = send(to, b->data + b->off, b->len - b->off, MSG_NOSIGNAL);
		if (w > 0)
			b->off += (size_t)w;
		else if (w < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
	}
	if (b->off == b->len)
		b->off = b->len = 0;
	return w;
}

/* ---- the loop ------------------------------------------------------------ */

static struct conn *add_conn(struct proxy_loop *pl, int fd)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) {
		close(fd);
		return NULL;
	}
	if (pl->nconns >= pl->max) {
		/* Full: the oldest connection still sending its request makes
		 * room (a slow client cannot hold the table), else the new one
		 * is turned away. */
		size_t old = pl->nconns;
		for (size_t i = 0; i < pl->nconns; i++)
			if (pl->conns[i]->state == C_HEAD &&
			    (old == pl->nconns || pl->conns[i]->started < pl->conns[old]->started))
				old = i;
		if (old == pl->nconns) {
			close(fd);
			return NULL;
		}
		conn_free(pl->conns[old]);
		pl->conns[old] = pl->conns[--pl->nconns];
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	struct conn *c = xcalloc(1, sizeof(*c));
	c->cfd = fd;
	c->ufd = -1;
	c->up.data = xmalloc(BUF_SIZE);
	c->down.data = xmalloc(BUF_SIZE);
	c->started = mono();
	c->deadline = c->started + pl->head_timeout;
	pl->conns[pl->nconns++] = c;
	return c;
}

/* A transparent connection to host:port (egress_msg): decided now, as a
 * proxied request for the same target would be. */
static void add_transparent(struct proxy_loop *pl, int fd, const struct egress_msg *m, size_t n)
{
	size_t hl = n > offsetof(struct egress_msg, host)
			    ? strnlen(m->host, n - offsetof(struct egress_msg, host))
			    : 0;
	int port = m->port[0] << 8 | m->port[1];
	if (hl == 0 || hl >= n - offsetof(struct egress_msg, host) || hl >= sizeof(m->host) ||
	    port == 0) {
		close(fd); /* not what cordon-exec sends */
		return;
	}
	struct conn *c = add_conn(pl, fd);
	if (!c)
		return;
	c->kind = K_TRANSPARENT;
	memcpy(c->host, m->host, hl + 1);
	c->port = port;
	if (!proxy_valid_host(c->host)) {
		proxy_refusals_send(&pl->refusals, PROXY_REFUSED_REQUEST, CORDON_DENY, c->host,
				    c->port, NULL, "the proxy refuses a name it does not read", -1);
		refuse(pl, c, 0, NULL, 0, NULL);
		return;
	}
	decide(pl, c);
}

/* One fd passed by cordon-exec; false when the control socket ended. */
static bool take_fd(int ctl, struct proxy_loop *pl)
{
	struct egress_msg m = { 0 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct iovec iov = { &m, sizeof(m) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf,
			      .msg_controllen = sizeof(cm.buf) };
	ssize_t r = recvmsg(ctl, &msg, MSG_CMSG_CLOEXEC);
	if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
		return false;
	for (struct cmsghdr *h = CMSG_FIRSTHDR(&msg); r > 0 && h; h = CMSG_NXTHDR(&msg, h)) {
		if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
			continue;
		size_t nfd = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfd; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof(int));
			if (i == 0 && m.kind == 't')
				add_transparent(pl, fd, &m, (size_t)r);
			else
				add_conn(pl, fd);
		}
	}
	return true;
}

/* The tail of step for a relaying or refusing c, apart so that step reads
 * as its states: flush what is queued, pass each side's end on; false when
 * c is done. */
static bool flush_halves(struct conn *c)
{
	if (c->ufd >= 0 && pump_out(c->ufd, &c->up) < 0)
		return false;
	if (pump_out(c->cfd, &c->down) < 0)
		return false;
	if (c->state == C_REFUSING)
		return c->down.len > 0;
	if (c->up.eof && c->up.len == 0)
		shutdown(c->ufd, SHUT_WR);
	if (c->down.eof && c->down.len == 0)
		shutdown(c->cfd, SHUT_WR);
	if (c->up.eof && c->down.eof && !c->up.len && !c->down.len)
		return false;
	return true;
}

/* Advance c after poll; false when it is done. */
static bool step(struct proxy_loop *pl, struct conn *c, short cev, short uev)
{
	if (c->state == C_HEAD && (cev & (POLLIN | POLLHUP | POLLERR)))
		on_head(pl, c);
	if (c->state == C_HEAD && c->down.len && pump_out(c->cfd, &c->down) < 0)
		return false; /* the SOCKS greeting's answer */
	if (c->state == C_RESOLVING && uev)
		on_resolved(pl, c);
	if (c->state == C_CONNECTING && uev) {
		int e = 0;
		socklen_t el = sizeof(e);
		getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &e, &el);
		if (e == 0) {
			connected(pl, c);
		} else {
			close(c->ufd);
			c->ufd = -1;
			start_connect(pl, c);
		}
	} else if (c->state == C_RELAY && (cev | uev)) {
		/* Move while the sockets take it, a bounded number of rounds
		 * so that one connection cannot starve the others. */
		for (int k = 0; k < 16; k++) {
			ssize_t a = pump_body(c), b = pump_in(c->ufd, &c->down);
			ssize_t x = pump_out(c->ufd, &c->up), y = pump_out(c->cfd, &c->down);
			if (a < 0 || b < 0 || x < 0 || y < 0)
				return false;
			if (a + b + x + y == 0)
				break;
		}
		c->deadline = mono() + pl->idle_timeout;
	}
	if (c->state == C_RELAY || c->state == C_REFUSING)
		return flush_halves(c);
	return true;
}

static short want_client(const struct conn *c)
{
	short ev = 0;
	if (c->state == C_HEAD)
		ev |= POLLIN | (c->down.len ? POLLOUT : 0);
	if (c->state == C_RELAY && !c->up.eof && c->up.len < BUF_SIZE)
		ev |= POLLIN;
	if ((c->state == C_RELAY || c->state == C_REFUSING) && c->down.len)
		ev |= POLLOUT;
	return ev;
}

static short want_upstream(const struct conn *c)
{
	short ev = 0;
	if (c->state == C_CONNECTING)
		ev |= POLLOUT;
	if (c->state == C_RESOLVING)
		ev |= POLLIN;
	if (c->state == C_RELAY) {
		if (!c->down.eof && c->down.len < BUF_SIZE)
			ev |= POLLIN;
		if (c->up.len)
			ev |= POLLOUT;
	}
	return ev;
}

static void timed_out(struct proxy_loop *pl, struct conn *c)
{
	if (c->state == C_RESOLVING) {
		kill(c->resolver, SIGKILL);
		c->resolver = -1;
		close(c->ufd);
		c->ufd = -1;
		resolved(pl, c, -1, "the lookup timed out");
		return;
	}
	if (c->state == C_CONNECTING) {
		char msg[512];
		char target[300];
		conn_target(c, target, sizeof(target));
		snprintf(msg, sizeof(msg), "cordon: net %s: the connection timed out", target);
		audit(pl, c->approval, target, "allow", NULL, msg + 8, "unreachable", ETIMEDOUT);
		close(c->ufd);
		c->ufd = -1;
		refuse(pl, c, 504, "Gateway Timeout", SOCKS_HOST, msg);
	}
}

static void loop_run(int ctl, struct proxy_loop *pl)
{
	struct pollfd *p = xcalloc(1 + 2 * pl->max, sizeof(*p));
	for (;;) {
		size_t n = 0;
		double t = mono(), next = t + 3600;
		p[n++] = (struct pollfd){ ctl, POLLIN, 0 };
		for (size_t i = 0; i < pl->nconns; i++) {
			struct conn *c = pl->conns[i];
			p[n++] = (struct pollfd){ c->cfd, want_client(c), 0 };
			p[n++] = (struct pollfd){ c->ufd, want_upstream(c), 0 };
			if (c->deadline < next)
				next = c->deadline;
		}
		int ms = next > t ? (int)((next - t) * 1000) + 1 : 0;
		if (poll(p, n, ms) < 0 && errno != EINTR)
			break;
		t = mono();
		/* Connections first: the table may change when a new one comes.
		 * From the end, so that the last one, moved into a freed slot,
		 * has been looked at already. */
		for (size_t i = pl->nconns; i-- > 0;) {
			struct conn *c = pl->conns[i];
			short cev = p[1 + 2 * i].revents, uev = p[2 + 2 * i].revents;
			bool keep = step(pl, c, cev, uev);
			/* A head trickled a byte at a time still has its deadline;
			 * a relay that moves pushes its own forward (step). */
			if (keep && t >= c->deadline) {
				timed_out(pl, c);
				keep = c->state == C_REFUSING && c->deadline > t;
			}
			if (!keep) {
				conn_free(c);
				pl->conns[i] = pl->conns[--pl->nconns];
			}
		}
		if (p[0].revents && !take_fd(ctl, pl))
			break; /* the sandbox is gone: so is the call */
	}
	free(p);
}

void proxy_serve(int ctl, const struct proxy_opts *o, const struct proxy_hosts *hosts,
		 const struct proxy_refusals *refusals)
{
	struct proxy_loop pl = { .o = o, .refusals = *refusals };
	if (hosts) {
		pl.hosts = *hosts;
		pl.have_hosts = true;
	}
	pl.max = o->max_conns ? o->max_conns : PROXY_MAX_CONNS;
	pl.head_timeout = o->head_timeout > 0 ? o->head_timeout : 10;
	pl.connect_timeout = o->connect_timeout > 0 ? o->connect_timeout : 10;
	pl.idle_timeout = o->idle_timeout > 0 ? o->idle_timeout : 300;
	pl.conns = xcalloc(pl.max, sizeof(*pl.conns));
	loop_run(ctl, &pl);
}
#endif
