/* The per-call egress proxy of `cordon run`.
 *
 * A restricted preset that allows some hosts keeps its network namespace
 * private; the only way out is this proxy, a process of the runner's
 * outside the sandbox.  Inside, cordon-exec listens on the sandbox's own
 * loopback (127.0.0.1:CORDON_EGRESS_PORT) and hands every accepted
 * connection over a socketpair to the proxy (SCM_RIGHTS), which reads the
 * client's request there (HTTP CONNECT, an absolute-URI HTTP request or
 * SOCKS5), decides the host and port with the preset's evaluator, resolves
 * the name itself, refuses loopback, link-local and private addresses
 * unless the deciding rule names the host exactly, and relays.  Every
 * contact is audited.
 *
 * The socketpair is the call's own: nothing else can reach it, so two calls
 * never share a proxy, and it is gone when the call ends. */
#ifndef CORDON_PROXY_H
#define CORDON_PROXY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "cordon.h"
#include "cordon/landlock.h"

/* cordon-exec listens on 127.0.0.1:CORDON_EGRESS_PORT (cordon/landlock.h). */

/* ---- addresses (proxy_addr.c) -------------------------------------------- */

/* Names from a hosts(5) file the runner was given (--egress-hosts): when
 * one is given, it is the only resolver (no DNS). */
struct proxy_hosts {
	struct proxy_host_entry {
		char *name;
		struct sockaddr_storage addr;
		socklen_t len;
	} *items;
	size_t n, cap;
};
/* 0, or -1 with *err naming file:line. */
int proxy_hosts_load(struct proxy_hosts *h, const char *path, char **err);
void proxy_hosts_free(struct proxy_hosts *h);

/* An address literal (no brackets; IPv4 in every spelling the C library
 * reads) into ss, or false. */
bool proxy_numeric(const char *text, struct sockaddr_storage *ss, socklen_t *len);

#define PROXY_ADDRS_MAX 8
struct proxy_addrs {
	struct sockaddr_storage addr[PROXY_ADDRS_MAX];
	socklen_t len[PROXY_ADDRS_MAX];
	size_t n;
};
/* Resolve host (a name or an address literal) to the addresses of port:
 * from h alone when h is given, else getaddrinfo.  0, or -1 with *why. */
int proxy_resolve(const struct proxy_hosts *h, const char *host, int port, struct proxy_addrs *out,
		  const char **why);
/* Why an address is not a public one (loopback, link-local with the cloud
 * metadata service, private, ...), or NULL when it is; v4-mapped and other
 * IPv6 forms of an IPv4 address are judged as that address. */
const char *proxy_addr_internal(const struct sockaddr *sa);
/* The address as text, into buf. */
void proxy_addr_text(const struct sockaddr *sa, char *buf, size_t size);

/* ---- request heads (proxy_http.c) ----------------------------------------- */

/* A host as the proxy takes one: letters, digits and ".-_:[]", not empty. */
bool proxy_valid_host(const char *h);

/* "host[:port]" or "[v6][:port]": the host lowercased into host (size
 * bytes), the port (dport when none is given) into *port; false when it
 * is not one. */
bool proxy_authority_parse(const char *s, size_t n, int dport, char *host, size_t size, int *port);

/* What a request's head is checked against: for an absolute-form request
 * (absolute), the host and port its URI names and the scheme's port. */
struct proxy_http_target {
	bool absolute;
	const char *host;
	int port, default_port;
};

/* The head of an HTTP/1 request, NUL-terminated after its blank line:
 * NULL when no two HTTP parsers can read it differently, with *body the
 * length of the body that follows (-1: chunked, proxy_chunks finds its end);
 * else why it is ambiguous, for a 400 (RFC 9110, RFC 9112: more than one
 * Host, a Host that is not the URI's, more than one or a malformed
 * Content-Length, Transfer-Encoding other than "chunked" alone or beside
 * Content-Length or in HTTP/1.0, obs-fold, a bare CR or LF, a blank before
 * a field's colon, a request line of other than one space between its
 * three parts, a version other than HTTP/1.0 and HTTP/1.1). */
const char *proxy_http_check(const char *head, const struct proxy_http_target *t,
			     long long *body);
/* A chunked body as it streams by: where it ends, so that nothing after
 * it is forwarded (a second request hidden there).  Zeroed to start. */
struct proxy_chunks {
	int state;
	unsigned digits;
	unsigned long long left;
};
/* Of n bytes that follow, how many belong to the body (fewer once its
 * last chunk and trailer ended), or -1 where it is not a well-formed
 * chunked body: a size of other than 1 to 15 hex digits, a chunk not
 * followed by CRLF, a bare LF, a control character. */
long proxy_chunks_feed(struct proxy_chunks *c, const char *buf, size_t n);
bool proxy_chunks_done(const struct proxy_chunks *c);

/* Whether the first n bytes of a head hold a LF without a CR before it, or
 * a CR followed by anything but LF: a lenient parser's end of a line (or of
 * the head) where a strict one sees none, refused before the head's end. */
bool proxy_http_bare_eol(const char *buf, size_t n);
#define PROXY_BARE_EOL_WHY "the head holds a CR or LF that does not end a line"

/* ---- the proxy (proxy.c) -------------------------------------------------- */

/* Decides an `ask` the call's approval may cover (host lowercased, as the
 * request named it): true lets the contact through.  Never asked for an
 * allow or a deny.  NULL: every ask is refused. */
typedef bool (*proxy_approve_fn)(void *arg, const char *host, int port);

/* Whether `net "target" allow;` in a preset that extends the one in force
 * would let target (host:port) through; address: its name resolves to an
 * internal address, which only a rule naming host exactly may allow.  1,
 * 0, or -1 when it cannot be told.  Asked once a target. */
typedef int (*proxy_widens_fn)(void *arg, const char *target, const char *host, bool address);

struct proxy_opts {
	const cordon_evaluator *ev;
	cordon_audit *audit;       /* a record a contact, or NULL */
	const char *actor;
	const char *hosts_file;    /* --egress-hosts, or NULL */
	proxy_approve_fn approve;  /* NULL: ask is deny */
	void *approve_arg;
	proxy_widens_fn widens;    /* NULL: not told */
	void *widens_arg;
	const char *approval;      /* the id approve answers for, audited; or NULL */
	bool approved_only;        /* the approval alone opened the proxy (the preset
				    * allows no host): only what approve admits passes */
	size_t max_conns;          /* 0: PROXY_MAX_CONNS */
	double head_timeout;       /* seconds to send a request; 0: the default */
	double connect_timeout;
	double idle_timeout;
};
#define PROXY_MAX_CONNS 64

struct proxy {
	pid_t pid;       /* the proxy process, or -1 */
	int sandbox_fd;  /* the end cordon-exec gets, or -1 */
	int report_fd;   /* the runner's end of the refusal pipe (non-blocking), or -1 */
};

/* A contact the proxy refused, as it tells the runner: one write of the
 * whole record on a pipe only the two hold (never bound into the
 * sandbox), atomic as every write of at most PIPE_BUF bytes is, sent
 * before the refusal reaches the client.  The strings are as the proxy
 * read them: target and host come from the command and may hold any
 * byte; the reader escapes them before it shows them. */
enum proxy_refusal_kind {
	PROXY_REFUSED_RULE,    /* the policy decided deny or ask */
	PROXY_REFUSED_ADDRESS, /* allowed, but the name resolves to an internal address */
	PROXY_REFUSED_REQUEST, /* a request the proxy cannot read safely, before any rule */
	PROXY_REFUSED_APPROVED_ONLY, /* the call's proxy is there for its approval's hosts */
};
struct proxy_refusal {
	int kind;          /* enum proxy_refusal_kind */
	int effect;        /* the deciding rule's (enum cordon_effect) */
	int port;          /* 0 when the request named none */
	char host[256];    /* NUL-terminated, "" when the request named none */
	char rule[512];    /* file:line:col, or "" */
	char reason[1024];
	int widens;        /* whether `net "host:port" allow;` in a preset that extends
			    * the one in force lets it through: 1, 0, or -1 unknown */
};
_Static_assert(sizeof(struct proxy_refusal) <= PIPE_BUF, "a refusal is one atomic write");

/* ---- the proxy's process and its refusals (proxy_process.c) -------------- */

/* What the proxy process tells the runner of, and how. */
#define PROXY_WIDENS_KEPT 64
struct proxy_refusals {
	int fd;                 /* the pipe's write end, or -1 */
	proxy_widens_fn widens; /* NULL: not told */
	void *widens_arg;
	const char *preset;
	struct proxy_widens_seen {
		char target[300];
		bool address;
		int widens;
	} seen[PROXY_WIDENS_KEPT]; /* what widens said, once a target */
	size_t nseen;
};
/* proxy_widens_fn's answer for target, asked once a target: 1, 0, -1. */
int proxy_refusals_widens(struct proxy_refusals *pr, const char *target, const char *host,
			  bool address);
/* Tell the runner of a refusal, before the client hears of it: a command
 * that saw its 403 has its refusal in the pipe already. */
void proxy_refusals_send(struct proxy_refusals *pr, enum proxy_refusal_kind kind,
			 enum cordon_effect e, const char *host, int port, const char *rule,
			 const char *reason, int widens);
/* The change that would let target through, appended to a refusal's
 * body (buf, size bytes): for an ask, a person's approval of a call that
 * names the host; an allow in a preset that extends this one, where that
 * wins over rule (w: proxy_refusals_widens). */
void proxy_refusals_fix(const struct proxy_refusals *pr, enum cordon_effect e, const char *target,
			const char *rule, int w, char *buf, size_t size);

/* The proxy's loop (proxy.c), in the proxy process: serve the connections
 * cordon-exec passes on ctl until it ends.  hosts: --egress-hosts, or
 * NULL. */
void proxy_serve(int ctl, const struct proxy_opts *o, const struct proxy_hosts *hosts,
		 const struct proxy_refusals *refusals);

/* Fork the proxy process, and the pipe it reports its refusals on.  0 with
 * p set, or -1 with *err. */
int proxy_start(struct proxy *p, const struct proxy_opts *o, char **err);
/* Close the runner's copy of the sandbox end (after the launch). */
void proxy_launched(struct proxy *p);
/* Kill and reap the proxy. */
void proxy_stop(struct proxy *p);

#endif
