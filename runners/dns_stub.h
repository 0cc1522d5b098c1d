/* The sandbox's DNS stub, in cordon-exec's relay process (egress_relay.c).
 *
 * The sandbox's network namespace has loopback alone; a program that does
 * not read the proxy variables looks its host up and connects to it
 * itself.  The stub answers every A query with a loopback address of the
 * name's own (127.1.0.1 onward, a table kept for the sandbox's life) and
 * every other query with no address, so that such a program connects to
 * the relay, which takes the name back from the address and hands the
 * connection to the egress proxy: the proxy decides every host, whoever
 * looked it up.
 *
 * The queries are the sandboxed command's bytes: every length is bounded,
 * a question is one name of plain labels (no compression pointer), and
 * anything else is answered FORMERR or REFUSED, or not at all. */
#ifndef CORDON_DNS_STUB_H
#define CORDON_DNS_STUB_H

#include <stddef.h>
#include <stdint.h>

#define DNS_PORT 53
#define DNS_NAMES_MAX 4096
/* The first synthetic address, 127.1.0.1, in host byte order. */
#define DNS_ADDR_BASE 0x7f010001u
#define DNS_MSG_MAX 512 /* the reply's bound: a question and one A record fit */

struct dns_names {
	char *name[DNS_NAMES_MAX]; /* address DNS_ADDR_BASE + i names name[i] */
	size_t n;
};

/* The reply to query (n bytes) into out (at least DNS_MSG_MAX bytes): its
 * length, or 0 when nothing is to be sent (too short to answer, or itself
 * a response). */
size_t dns_answer(struct dns_names *t, const unsigned char *query, size_t n, unsigned char *out);
/* The name an address (host byte order) stands for, or NULL. */
const char *dns_name_of(const struct dns_names *t, uint32_t addr);
void dns_names_free(struct dns_names *t);

#endif
