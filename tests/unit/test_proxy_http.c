/* The egress proxy's reading of an HTTP/1 request head: every head two
 * HTTP parsers could read differently is refused with its reason, and the
 * plain ones a client sends pass with the length of their body. */
#include "config.h"

#include "proxy.h"
#include "tap.h"

static const struct proxy_http_target good = { .absolute = true, .host = "good.test",
					       .port = 8080, .default_port = 80 };

/* Why the head (request line + fields, "\r\n\r\n" added) is refused. */
static const char *why(const char *fields)
{
	static char head[4096];
	long long body;
	snprintf(head, sizeof(head), "%s\r\n\r\n", fields);
	return proxy_http_check(head, &good, &body);
}

static long long body_of(const char *fields)
{
	char head[4096];
	long long body = -2;
	snprintf(head, sizeof(head), "%s\r\n\r\n", fields);
	return proxy_http_check(head, &good, &body) ? -2 : body;
}

#define GET "GET http://good.test:8080/x HTTP/1.1\r\n"
#define POST "POST http://good.test:8080/x HTTP/1.1\r\nHost: good.test:8080\r\n"

static const struct {
	const char *head, *reason;
} refused[] = {
	{ GET "Host: good.test:8080\r\nHost: bad.test", "more than one Host header" },
	{ GET "Host: good.test:8080\r\nhost:good.test:8080", "more than one Host header" },
	{ GET "Host: bad.test:8080", "another host than the URI" },
	{ GET "Host: good.test:8081", "another host than the URI" },
	{ GET "Host: good.test", "another host than the URI" },
	{ GET "Host: ", "not a host the proxy reads" },
	{ GET "Host: good.test:8080 bad.test", "not a host the proxy reads" },
	{ GET "Host : bad.test", "not a token's" },
	{ GET "Host\t: bad.test", "not a token's" },
	{ GET "Host: good.test:8080\r\n Host: bad.test", "obs-fold" },
	{ GET "Host: good.test:8080\r\nX: a\r\n\tb", "obs-fold" },
	{ GET "Host: good.test:8080\nHost: bad.test", "a CR or LF that does not end a line" },
	{ GET "Host: good.test:8080\rX: y", "a CR or LF that does not end a line" },
	{ GET "X: a\x01", "control character" },
	{ GET "X: a\x7f", "control character" },
	{ GET ": nameless", "no field name" },
	{ GET "no colon", "no field name" },
	{ POST "Content-Length: 5\r\nContent-Length: 6", "more than one Content-Length" },
	{ POST "Content-Length: 5\r\nContent-Length: 5", "more than one Content-Length" },
	{ POST "Content-Length: 5, 5", "not a single number" },
	{ POST "Content-Length: +5", "not a single number" },
	{ POST "Content-Length: 0x5", "not a single number" },
	{ POST "Content-Length: ", "at most 15 digits" },
	{ POST "Content-Length: 1234567890123456", "at most 15 digits" },
	{ POST "Transfer-Encoding: chunked\r\nContent-Length: 5", "both Transfer-Encoding and" },
	{ POST "Content-Length: 5\r\nTransfer-Encoding: chunked", "both Transfer-Encoding and" },
	{ POST "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked", "more than one Transfer" },
	{ POST "Transfer-Encoding: gzip, chunked", "not \"chunked\" alone" },
	{ POST "Transfer-Encoding: chunked, identity", "not \"chunked\" alone" },
	{ POST "Transfer-Encoding: xchunked", "not \"chunked\" alone" },
	{ POST "Transfer-Encoding : chunked", "not a token's" },
	{ "POST http://good.test:8080/x HTTP/1.0\r\nTransfer-Encoding: chunked", "HTTP/1.0 request" },
	{ "GET  http://good.test:8080/x HTTP/1.1", "not METHOD SP TARGET SP VERSION" },
	{ "GET http://good.test:8080/x  HTTP/1.1", "the version is not" },
	{ "GET\thttp://good.test:8080/x HTTP/1.1", "not METHOD SP TARGET SP VERSION" },
	{ "GET http://good.test:8080/x HTTP/1.1 ", "the version is not" },
	{ "GET http://good.test:8080/x HTTP/2.0", "the version is not" },
	{ "GET http://good.test:8080/x http/1.1", "the version is not" },
	{ "G@T http://good.test:8080/x HTTP/1.1", "the method is not a token" },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
		const char *w = why(refused[i].head);
		ok(w && strstr(w, refused[i].reason), "refused, %s: %s", refused[i].reason,
		   w ? w : "(passed)");
	}
	ok(body_of(GET "Host: good.test:8080\r\nUser-Agent: curl/8") == 0,
	   "a GET with its Host passes, without a body");
	ok(body_of(GET "hOsT:\tGOOD.test:8080 ") == 0, "a Host differing in case and blanks passes");
	ok(body_of(GET "Accept: */*") == 0, "a GET without a Host passes (the proxy writes one)");
	ok(body_of(POST "Content-Length: 12") == 12, "a POST passes with its Content-Length");
	ok(body_of(POST "Transfer-Encoding: Chunked") == -1, "a chunked POST passes, unbounded");
	ok(body_of("GET http://good.test:8080/x HTTP/1.0\r\nX: y") == 0, "HTTP/1.0 passes");
	{
		struct proxy_http_target dflt = { .absolute = true, .host = "good.test", .port = 80,
						  .default_port = 80 };
		long long body;
		ok(!proxy_http_check("GET http://good.test/ HTTP/1.1\r\nHost: good.test:80\r\n\r\n",
				     &dflt, &body) &&
			   !proxy_http_check("GET http://good.test/ HTTP/1.1\r\nHost: good.test\r\n\r\n",
					     &dflt, &body),
		   "the scheme's port may be left out or named");
		struct proxy_http_target v6 = { .absolute = true, .host = "::1", .port = 80,
						.default_port = 80 };
		ok(!proxy_http_check("GET http://[::1]/ HTTP/1.1\r\nHost: [::1]\r\n\r\n", &v6, &body),
		   "an IPv6 Host in brackets is the URI's");
		struct proxy_http_target tunnel = { .absolute = false };
		ok(!proxy_http_check("CONNECT good.test:443 HTTP/1.1\r\nHost: good.test:443\r\n\r\n",
				     &tunnel, &body),
		   "a CONNECT head passes");
		const char *w = proxy_http_check(
			"CONNECT good.test:443 HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", &tunnel, &body);
		ok(w && strstr(w, "more than one Host"), "a CONNECT with two Host headers is refused");
	}
	ok(proxy_http_bare_eol("GET / HTTP/1.1\r\nHost: a\n\r\n", 26) &&
		   proxy_http_bare_eol("GET / HTTP/1.1\r\nHost: a\rX", 25) &&
		   !proxy_http_bare_eol("GET / HTTP/1.1\r\nHost: a\r", 24),
	   "a bare LF or CR is seen before the head ends; a CR the next read may end is not");
	{
		static const char body[] = "5;x=y\r\nhello\r\n0\r\nX-T: 1\r\n\r\nGET / HTTP/1.1\r\n\r\n";
		struct proxy_chunks ch = { 0 };
		long k = 0;
		/* Fed a byte at a time, as a slow client sends it. */
		for (size_t i = 0; i + 1 < sizeof(body); i++)
			k += proxy_chunks_feed(&ch, body + i, 1);
		ok(proxy_chunks_done(&ch) && k == (long)strlen("5;x=y\r\nhello\r\n0\r\nX-T: 1\r\n\r\n"),
		   "a chunked body ends after its last chunk and trailer; what follows is not its (%ld)",
		   k);
		static const char *const bad[] = { "5\nhello\r\n0\r\n\r\n", "5\r\nhello\n0\r\n\r\n",
						   " 5\r\nhello\r\n", "+5\r\n", "\r\n",
						   "1234567890abcdef0\r\n", "5 \r\n", "5;a\x01\r\n",
						   "0\r\nX\n\r\n" };
		for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
			struct proxy_chunks b = { 0 };
			ok(proxy_chunks_feed(&b, bad[i], strlen(bad[i])) < 0,
			   "a malformed chunked body is refused (case %zu)", i);
		}
	}
	char host[256];
	int port;
	ok(proxy_authority_parse("Good.Test:81", 12, 80, host, sizeof(host), &port) &&
		   strcmp(host, "good.test") == 0 && port == 81,
	   "an authority is lowercased, its port read");
	ok(!proxy_authority_parse("good.test:+81", 13, 80, host, sizeof(host), &port) &&
		   !proxy_authority_parse("good.test:", 10, 80, host, sizeof(host), &port) &&
		   !proxy_authority_parse("good.test:65536", 15, 80, host, sizeof(host), &port),
	   "a port with a sign, an empty one or one past 65535 is refused");
	return tap_done();
}
