/* The sandbox's DNS stub (dns_stub.h): RFC 1035 messages, one question
 * each, read with a bound on every length. */
#include "config.h"

#include "dns_stub.h"
#include "run_util.h"

#include <ctype.h>
#include <string.h>

enum { RC_OK = 0, RC_FORMERR = 1, RC_NOTIMP = 4, RC_REFUSED = 5 };
enum { T_A = 1, C_IN = 1 };
#define HDR 12
#define NAME_MAX_TEXT 253

static unsigned get16(const unsigned char *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

/* The question's name at q (up to end) as dotted lowercase text into
 * name: the bytes it takes, or 0 when it is not a name of plain labels
 * of letters, digits, '-' and '_' (a pointer, an empty or overlong
 * label, a name over 253 characters, one that runs past the message). */
static size_t read_name(const unsigned char *q, const unsigned char *end, char *name)
{
	size_t used = 0, len = 0;
	for (;;) {
		if (q + used >= end)
			return 0;
		unsigned l = q[used++];
		if (l == 0)
			break;
		if (l > 63 || (size_t)(end - (q + used)) < l || len + l + 1 > NAME_MAX_TEXT + 1)
			return 0; /* 0xc0 and up, a pointer, is over 63 too */
		if (len)
			name[len++] = '.';
		for (unsigned i = 0; i < l; i++) {
			unsigned char ch = q[used++];
			if (!isalnum(ch) && ch != '-' && ch != '_')
				return 0;
			name[len++] = (char)tolower(ch);
		}
	}
	if (len == 0)
		return 0; /* the root: no host */
	name[len] = '\0';
	return used;
}

/* The table's address for name, added when new; 0 when the table is full. */
static uint32_t addr_for(struct dns_names *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->name[i], name) == 0)
			return DNS_ADDR_BASE + (uint32_t)i;
	if (t->n >= DNS_NAMES_MAX)
		return 0;
	t->name[t->n] = xstrdup(name);
	return DNS_ADDR_BASE + (uint32_t)t->n++;
}

/* A header-only reply with rcode: the query's id, opcode and RD. */
static size_t reply_head(const unsigned char *query, unsigned char *out, unsigned rcode)
{
	memset(out, 0, HDR);
	out[0] = query[0];
	out[1] = query[1];
	out[2] = (unsigned char)(0x80 | (query[2] & 0x79)); /* QR, opcode, RD */
	out[3] = (unsigned char)(0x80 | rcode);             /* RA */
	return HDR;
}

size_t dns_answer(struct dns_names *t, const unsigned char *query, size_t n, unsigned char *out)
{
	if (n < HDR || (query[2] & 0x80))
		return 0; /* nothing to answer, or a response: never answered */
	if ((query[2] & 0x78) != 0)
		return reply_head(query, out, RC_NOTIMP); /* only QUERY */
	/* One question, no answer or authority; an additional record (EDNS's
	 * OPT) is allowed and not read. */
	if (get16(query + 4) != 1 || get16(query + 6) != 0 || get16(query + 8) != 0 ||
	    get16(query + 10) > 1)
		return reply_head(query, out, RC_FORMERR);
	char name[NAME_MAX_TEXT + 1];
	size_t used = read_name(query + HDR, query + n, name);
	if (used == 0 || n - HDR - used < 4)
		return reply_head(query, out, RC_FORMERR);
	const unsigned char *tail = query + HDR + used;
	unsigned qtype = get16(tail), qclass = get16(tail + 2);
	if (qclass != C_IN)
		return reply_head(query, out, RC_REFUSED);
	uint32_t a = qtype == T_A ? addr_for(t, name) : 0;
	if (qtype == T_A && a == 0)
		return reply_head(query, out, RC_REFUSED); /* the table is full */
	size_t len = reply_head(query, out, RC_OK);
	put16(out + 4, 1);
	memcpy(out + len, query + HDR, used + 4); /* the question, as it came */
	len += used + 4;
	if (qtype != T_A)
		return len; /* AAAA and the rest: no address, so clients take IPv4 */
	put16(out + 6, 1);
	const unsigned char rr[] = { 0xc0, HDR, 0, T_A, 0, C_IN, 0, 0, 0x0e, 0x10, 0, 4,
				     (unsigned char)(a >> 24), (unsigned char)(a >> 16),
				     (unsigned char)(a >> 8), (unsigned char)a };
	memcpy(out + len, rr, sizeof(rr));
	return len + sizeof(rr);
}

const char *dns_name_of(const struct dns_names *t, uint32_t addr)
{
	if (addr < DNS_ADDR_BASE || addr - DNS_ADDR_BASE >= t->n)
		return NULL;
	return t->name[addr - DNS_ADDR_BASE];
}

void dns_names_free(struct dns_names *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->name[i]);
	t->n = 0;
}
