/* The sandbox's DNS stub (runners/dns_stub.c): an A query gets a loopback
 * address of the name's own, the same one each time; AAAA gets none; and
 * every malformed query (short, a pointer in the question, a label past
 * the end, more than one question, an answer section, a response, a name
 * over 253 characters, a byte a host name has not) gets FORMERR, REFUSED
 * or nothing, never an address and never a read past its end. */
#include "config.h"

#include "dns_stub.h"
#include "tap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct dns_names names;

/* A query for name (dotted) of qtype, with the header's counts. */
static size_t query(unsigned char *q, const char *name, unsigned qtype, unsigned qd, unsigned an)
{
	memset(q, 0, 12);
	q[0] = 0x12, q[1] = 0x34, q[2] = 0x01; /* id, RD */
	q[5] = (unsigned char)qd, q[7] = (unsigned char)an;
	size_t n = 12;
	while (*name) {
		const char *dot = strchr(name, '.');
		size_t l = dot ? (size_t)(dot - name) : strlen(name);
		q[n++] = (unsigned char)l;
		memcpy(q + n, name, l);
		n += l;
		name += l + (dot ? 1 : 0);
	}
	q[n++] = 0;
	q[n++] = 0, q[n++] = (unsigned char)qtype, q[n++] = 0, q[n++] = 1;
	return n;
}

static unsigned rcode(const unsigned char *r)
{
	return r[3] & 0xf;
}

static unsigned ancount(const unsigned char *r)
{
	return (unsigned)r[6] << 8 | r[7];
}

/* The address of an answer with one A record, host order; 0 for none. */
static uint32_t answer_a(const unsigned char *r, size_t n)
{
	if (n < 16 || ancount(r) != 1)
		return 0;
	const unsigned char *a = r + n - 4;
	return (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
}

static void malformed(void)
{
	unsigned char q[600], r[DNS_MSG_MAX];
	size_t n = query(q, "ok.test", 1, 1, 0);
	for (size_t cut = 0; cut < n; cut++) {
		size_t m = dns_answer(&names, q, cut, r);
		if (m != 0 && (rcode(r) != 1 || ancount(r) != 0)) {
			ok(0, "a query cut at %zu bytes gets FORMERR or nothing", cut);
			return;
		}
	}
	ok(1, "a query cut anywhere gets FORMERR or nothing, never an answer");
	n = query(q, "ok.test", 1, 2, 0);
	ok(dns_answer(&names, q, n, r) && rcode(r) == 1, "two questions: FORMERR");
	n = query(q, "ok.test", 1, 1, 1);
	ok(dns_answer(&names, q, n, r) && rcode(r) == 1, "an answer in a query: FORMERR");
	n = query(q, "ok.test", 1, 1, 0);
	q[2] |= 0x80;
	ok(dns_answer(&names, q, n, r) == 0, "a response is never answered (no loops)");
	n = query(q, "ok.test", 1, 1, 0);
	q[12] = 0xc0, q[13] = 12;
	ok(dns_answer(&names, q, n, r) && rcode(r) == 1, "a compression pointer in the question: FORMERR");
	n = query(q, "ok.test", 1, 1, 0);
	q[12] = 63;
	ok(dns_answer(&names, q, n, r) && rcode(r) == 1, "a label longer than the message: FORMERR");
	n = query(q, "o/k.test", 1, 1, 0);
	ok(dns_answer(&names, q, n, r) && rcode(r) == 1, "a byte no host name has: FORMERR");
	n = query(q, "", 1, 1, 0);
	ok(dns_answer(&names, q, n, r) && rcode(r) == 1, "the root name: FORMERR");
	char longname[300];
	for (int i = 0; i < 5; i++)
		memset(longname + i * 60, i == 4 ? 'b' : 'a', 60), longname[i * 60 + 59] = '.';
	longname[299] = '\0';
	n = query(q, longname, 1, 1, 0);
	ok(dns_answer(&names, q, n, r) && rcode(r) == 1, "a name over 253 characters: FORMERR");
	n = query(q, "ok.test", 1, 1, 0);
	q[n - 1] = 3; /* class CH */
	ok(dns_answer(&names, q, n, r) && rcode(r) == 5 && ancount(r) == 0, "class CH: REFUSED");
	n = query(q, "ok.test", 1, 1, 0);
	q[2] = 0x10; /* opcode STATUS */
	ok(dns_answer(&names, q, n, r) && rcode(r) == 4, "an opcode other than QUERY: NOTIMP");
	/* Random bytes: whatever comes back is at most a header and question. */
	srand(7);
	int fine = 1;
	for (int k = 0; k < 20000 && fine; k++) {
		size_t len = (size_t)(rand() % 80);
		for (size_t i = 0; i < len; i++)
			q[i] = (unsigned char)rand();
		size_t m = dns_answer(&names, q, len, r);
		fine = m <= DNS_MSG_MAX && (m == 0 || m >= 12);
	}
	ok(fine, "20000 random messages: no reply over the bound");
}

int main(void)
{
	unsigned char q[600], r[DNS_MSG_MAX];
	size_t n = query(q, "Good.Test", 1, 1, 0), m = dns_answer(&names, q, n, r);
	uint32_t a = answer_a(r, m);
	ok(m && rcode(r) == 0 && r[0] == 0x12 && r[1] == 0x34 && (r[2] & 0x80),
	   "an A query is answered, with its id");
	ok(a == DNS_ADDR_BASE, "the first name gets 127.1.0.1 (got %08x)", a);
	is_str(dns_name_of(&names, a), "good.test", "the address names the name, lowercased");
	n = query(q, "other.test", 1, 1, 0);
	m = dns_answer(&names, q, n, r);
	ok(answer_a(r, m) == DNS_ADDR_BASE + 1, "another name, another address");
	n = query(q, "good.test", 1, 1, 0);
	m = dns_answer(&names, q, n, r);
	ok(answer_a(r, m) == DNS_ADDR_BASE, "the same name, the same address");
	n = query(q, "good.test", 28, 1, 0);
	m = dns_answer(&names, q, n, r);
	ok(m && rcode(r) == 0 && ancount(r) == 0, "AAAA: NOERROR with no address");
	n = query(q, "good.test", 1, 1, 0);
	q[11] = 1; /* an OPT record counted, EDNS's */
	m = dns_answer(&names, q, n, r);
	ok(answer_a(r, m) == DNS_ADDR_BASE, "a query with an additional record is answered");
	ok(dns_name_of(&names, 0x7f000001) == NULL && dns_name_of(&names, DNS_ADDR_BASE + 2) == NULL,
	   "an address never given out names nothing");
	malformed();
	char name[32];
	for (int i = 0; names.n < DNS_NAMES_MAX; i++) {
		snprintf(name, sizeof(name), "n%d.test", i);
		n = query(q, name, 1, 1, 0);
		dns_answer(&names, q, n, r);
	}
	n = query(q, "one-more.test", 1, 1, 0);
	m = dns_answer(&names, q, n, r);
	ok(m && rcode(r) == 5 && ancount(r) == 0, "past %d names: REFUSED", DNS_NAMES_MAX);
	n = query(q, "good.test", 1, 1, 0);
	m = dns_answer(&names, q, n, r);
	ok(answer_a(r, m) == DNS_ADDR_BASE, "a name it has is still answered");
	dns_names_free(&names);
	return tap_done();
}
