/* The head of an HTTP/1 request as the egress proxy reads it: the
 * authority it names, and whether two HTTP parsers could read it
 * differently (RFC 9110, RFC 9112).  The proxy decides one host and the
 * server behind it must read the same one request for that host: a second
 * Host, a Host that is not the URI's, or a body whose end two parsers
 * place apart (a second request hidden in it) would each let a request
 * reach what the decision never saw.  So every head that a lenient parser
 * and a strict one could read differently is refused, not repaired. */
#include "config.h"

#include "proxy.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool proxy_valid_host(const char *h)
{
	if (!*h)
		return false;
	for (const char *p = h; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr(".-_:[]", *p))
			return false;
	return true;
}

/* Digits only, 1 to 5 of them, 1 to 65535. */
static int port_of(const char *s, size_t n)
{
	int v = 0;
	if (n == 0 || n > 5)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v >= 1 && v <= 65535 ? v : -1;
}

bool proxy_authority_parse(const char *s, size_t n, int dport, char *host, size_t size, int *port)
{
	const char *colon = NULL, *hs = s;
	size_t hl = n;
	if (n && s[0] == '[') {
		const char *close = memchr(s, ']', n);
		if (!close)
			return false;
		hs = s + 1;
		hl = (size_t)(close - s) - 1;
		if ((size_t)(close - s) + 1 < n) {
			if (close[1] != ':')
				return false;
			colon = close + 1;
		}
	} else {
		colon = memchr(s, ':', n);
		if (colon)
			hl = (size_t)(colon - s);
	}
	if (hl == 0 || hl >= size)
		return false;
	memcpy(host, hs, hl);
	host[hl] = '\0';
	for (char *p = host; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	*port = dport;
	if (colon) {
		*port = port_of(colon + 1, n - (size_t)(colon - s) - 1);
		if (*port < 0)
			return false;
	}
	return proxy_valid_host(host);
}

/* RFC 9110 5.6.2: tchar. */
static bool is_tchar(unsigned char ch)
{
	return isalnum(ch) || strchr("!#$%&'*+-.^_`|~", ch);
}

/* A header line of the head, split: name and value (without the blanks
 * around it). */
struct field {
	const char *name, *value;
	size_t name_len, value_len;
};

static bool named(const struct field *f, const char *name)
{
	return f->name_len == strlen(name) && strncasecmp(f->name, name, f->name_len) == 0;
}

/* What the request line may hold: METHOD SP TARGET SP HTTP/1.0|HTTP/1.1,
 * one space each, nothing else.  Sets *http10. */
static const char *check_request_line(const char *line, size_t len, bool *http10)
{
	const char *sp1 = memchr(line, ' ', len);
	const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', len - (size_t)(sp1 + 1 - line)) : NULL;
	if (!sp1 || sp1 == line || !sp2 || sp2 == sp1 + 1)
		return "the request line is not METHOD SP TARGET SP VERSION";
	for (const char *p = line; p < sp1; p++)
		if (!is_tchar((unsigned char)*p))
			return "the method is not a token";
	for (const char *p = sp1 + 1; p < sp2; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return "the request target holds a blank or a control character";
	size_t vl = len - (size_t)(sp2 + 1 - line);
	if (vl == 8 && strncmp(sp2 + 1, "HTTP/1.1", 8) == 0)
		*http10 = false;
	else if (vl == 8 && strncmp(sp2 + 1, "HTTP/1.0", 8) == 0)
		*http10 = true;
	else
		return "the version is not HTTP/1.0 or HTTP/1.1";
	return NULL;
}

/* One header line into f; why it is not a field line, or NULL. */
static const char *split_field(const char *line, size_t len, struct field *f)
{
	if (line[0] == ' ' || line[0] == '\t')
		return "a header line is folded onto the one before it (obs-fold)";
	const char *colon = memchr(line, ':', len);
	if (!colon || colon == line)
		return "a header line has no field name";
	for (const char *p = line; p < colon; p++)
		if (!is_tchar((unsigned char)*p))
			return "a field name holds a character that is not a token's (a blank before "
			       "the colon?)";
	f->name = line;
	f->name_len = (size_t)(colon - line);
	const char *v = colon + 1, *end = line + len;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	for (const char *p = v; p < end; p++)
		if (((unsigned char)*p < ' ' && *p != '\t') || *p == 0x7f)
			return "a field value holds a control character";
	f->value = v;
	f->value_len = (size_t)(end - v);
	return NULL;
}

/* Content-Length: 1*DIGIT, nothing else (no list, no sign). */
static const char *content_length(const struct field *f, long long *n)
{
	if (f->value_len == 0 || f->value_len > 15)
		return "Content-Length is not a number of at most 15 digits";
	long long v = 0;
	for (size_t i = 0; i < f->value_len; i++) {
		if (!isdigit((unsigned char)f->value[i]))
			return "Content-Length is not a single number";
		v = v * 10 + (f->value[i] - '0');
	}
	*n = v;
	return NULL;
}

/* What the fields say, counted. */
struct fields_seen {
	unsigned host, length, coding;
	struct field host_field;
	long long length_value;
	bool chunked;
};

static const char *note_field(const struct field *f, struct fields_seen *s)
{
	if (named(f, "Host")) {
		if (++s->host > 1)
			return "the request has more than one Host header";
		s->host_field = *f;
	} else if (named(f, "Content-Length")) {
		if (++s->length > 1)
			return "the request has more than one Content-Length header";
		return content_length(f, &s->length_value);
	} else if (named(f, "Transfer-Encoding")) {
		if (++s->coding > 1)
			return "the request has more than one Transfer-Encoding header";
		/* chunked alone: a coding before it is a body no server here
		 * has to read, and any other final coding leaves the body's
		 * end to the connection's (RFC 9112 6.3). */
		if (f->value_len != 7 || strncasecmp(f->value, "chunked", 7) != 0)
			return "Transfer-Encoding is not \"chunked\" alone";
		s->chunked = true;
	}
	return NULL;
}

/* The Host header against the URI's authority: the same host and port
 * (the port left out is the scheme's default). */
static const char *host_matches(const struct field *h, const char *host, int port, int dport)
{
	char hhost[256];
	int hport;
	if (h->value_len == 0 ||
	    !proxy_authority_parse(h->value, h->value_len, dport, hhost, sizeof(hhost), &hport))
		return "the Host header is not a host the proxy reads";
	if (strcmp(hhost, host) != 0 || hport != port)
		return "the Host header names another host than the URI";
	return NULL;
}

bool proxy_http_bare_eol(const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n' && (i == 0 || buf[i - 1] != '\r'))
			return true;
		if (buf[i] == '\r' && i + 1 < n && buf[i + 1] != '\n')
			return true;
	}
	return false;
}

const char *proxy_http_check(const char *head, const struct proxy_http_target *t,
			     long long *body)
{
	struct fields_seen seen = { 0 };
	bool http10 = false;
	const char *why = NULL;
	const char *line = head, *eol;
	size_t len = strlen(head);
	if (proxy_http_bare_eol(head, len) || (len && head[len - 1] == '\r'))
		return PROXY_BARE_EOL_WHY;
	eol = strstr(line, "\r\n");
	if (!eol)
		return "the head does not end";
	why = check_request_line(line, (size_t)(eol - line), &http10);
	for (line = eol + 2; !why && (eol = strstr(line, "\r\n")) && eol != line; line = eol + 2) {
		struct field f;
		why = split_field(line, (size_t)(eol - line), &f);
		if (!why)
			why = note_field(&f, &seen);
	}
	if (why)
		return why;
	if (seen.coding && seen.length)
		return "the request has both Transfer-Encoding and Content-Length";
	if (seen.coding && http10)
		return "an HTTP/1.0 request has a Transfer-Encoding header";
	if (t->absolute && seen.host) {
		why = host_matches(&seen.host_field, t->host, t->port, t->default_port);
		if (why)
			return why;
	}
	*body = seen.chunked ? -1 : seen.length ? seen.length_value : 0;
	return NULL;
}

/* ---- a chunked body (RFC 9112 7.1), read as it streams by ---------------- */

enum {
	CH_SIZE,       /* hex digits of a chunk's size */
	CH_EXT,        /* ";" and an extension, up to CR */
	CH_SIZE_LF,    /* the LF after the size line's CR */
	CH_DATA,       /* the chunk's bytes */
	CH_DATA_CR,    /* the CR after them */
	CH_DATA_LF,    /* and its LF */
	CH_LINE_START, /* after the last chunk: a trailer field, or CR for the end */
	CH_TRAILER,    /* a trailer field, up to CR */
	CH_TRAILER_LF, /* the LF after it */
	CH_END_LF,     /* the LF of the empty line that ends the body */
	CH_DONE,
};

/* One byte; false when it cannot be there. */
static bool chunk_step(struct proxy_chunks *c, unsigned char b)
{
	switch (c->state) {
	case CH_SIZE:
		if (isxdigit(b) && c->digits < 15) {
			c->left = c->left * 16 + (unsigned)(isdigit(b) ? b - '0' : tolower(b) - 'a' + 10);
			c->digits++;
			return true;
		}
		if (c->digits == 0)
			return false;
		if (b == ';') {
			c->state = CH_EXT;
			return true;
		}
		if (b != '\r')
			return false;
		c->state = CH_SIZE_LF;
		return true;
	case CH_EXT:
		if (b == '\r')
			c->state = CH_SIZE_LF;
		return b == '\r' || b == '\t' || (b >= ' ' && b != 0x7f);
	case CH_SIZE_LF:
		if (b != '\n')
			return false;
		c->state = c->left ? CH_DATA : CH_LINE_START;
		return true;
	case CH_DATA:
		if (--c->left == 0)
			c->state = CH_DATA_CR;
		return true;
	case CH_DATA_CR:
		c->state = CH_DATA_LF;
		return b == '\r';
	case CH_DATA_LF:
		c->state = CH_SIZE;
		c->digits = 0;
		return b == '\n';
	case CH_LINE_START:
		c->state = b == '\r' ? CH_END_LF : CH_TRAILER;
		return b == '\r' || is_tchar(b);
	case CH_TRAILER:
		if (b == '\r')
			c->state = CH_TRAILER_LF;
		return b == '\r' || b == '\t' || (b >= ' ' && b != 0x7f);
	case CH_TRAILER_LF:
		c->state = CH_LINE_START;
		return b == '\n';
	case CH_END_LF:
		c->state = CH_DONE;
		return b == '\n';
	}
	return false;
}

long proxy_chunks_feed(struct proxy_chunks *c, const char *buf, size_t n)
{
	size_t i = 0;
	for (; i < n && c->state != CH_DONE; i++)
		if (!chunk_step(c, (unsigned char)buf[i]))
			return -1;
	return (long)i;
}

bool proxy_chunks_done(const struct proxy_chunks *c)
{
	return c->state == CH_DONE;
}
