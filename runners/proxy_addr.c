/* Names and addresses for the egress proxy: the runner's hosts file,
 * resolution, and which addresses are internal (refused unless a rule names
 * the host exactly). */
#include "config.h"

#ifdef __linux__

#include "proxy.h"
#include "run_util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A numeric address (no brackets) into ss, or false.  IPv4 in every form
 * the C library reads as one (2130706433, 0x7f.1, 0177.0.0.1), so that an
 * address spelled oddly is judged as the address it is. */
bool proxy_numeric(const char *text, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	memset(ss, 0, sizeof(*ss));
	if (inet_aton(text, &in4->sin_addr) != 0) {
		in4->sin_family = AF_INET;
		*len = sizeof(*in4);
		return true;
	}
	if (inet_pton(AF_INET6, text, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		*len = sizeof(*in6);
		return true;
	}
	return false;
}

int proxy_hosts_load(struct proxy_hosts *h, const char *path, char **err)
{
	FILE *f = fopen(path, "re");
	char line[1024];
	unsigned lineno = 0;
	memset(h, 0, sizeof(*h));
	if (!f) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		char *hash = strchr(line, '#'), *save = NULL;
		if (hash)
			*hash = '\0';
		char *addr = strtok_r(line, " \t\r\n", &save);
		if (!addr)
			continue;
		struct proxy_host_entry e = { 0 };
		if (!proxy_numeric(addr, &e.addr, &e.len)) {
			*err = xasprintf("%s:%u: '%s' is not an IPv4 or IPv6 address", path, lineno,
					 addr);
			fclose(f);
			proxy_hosts_free(h);
			return -1;
		}
		char *name;
		bool any = false;
		while ((name = strtok_r(NULL, " \t\r\n", &save))) {
			e.name = xstrdup(name);
			VEC_PUSH(h->items, h->n, h->cap, e);
			any = true;
		}
		if (!any) {
			*err = xasprintf("%s:%u: address %s names no host", path, lineno, addr);
			fclose(f);
			proxy_hosts_free(h);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

void proxy_hosts_free(struct proxy_hosts *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->items[i].name);
	free(h->items);
	memset(h, 0, sizeof(*h));
}

static void set_port(struct sockaddr_storage *ss, int port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
}

static void add_addr(struct proxy_addrs *out, const struct sockaddr *sa, socklen_t len, int port)
{
	if (out->n >= PROXY_ADDRS_MAX || len > sizeof(out->addr[0]))
		return;
	memset(&out->addr[out->n], 0, sizeof(out->addr[0]));
	memcpy(&out->addr[out->n], sa, len);
	out->len[out->n] = len;
	set_port(&out->addr[out->n], port);
	out->n++;
}

int proxy_resolve(const struct proxy_hosts *h, const char *host, int port, struct proxy_addrs *out,
		  const char **why)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char bare[256];
	size_t n = strlen(host);
	out->n = 0;
	/* [v6] as an IPv6 literal. */
	if (n >= 2 && n < sizeof(bare) && host[0] == '[' && host[n - 1] == ']') {
		memcpy(bare, host + 1, n - 2);
		bare[n - 2] = '\0';
		host = bare;
	}
	if (proxy_numeric(host, &ss, &len)) {
		add_addr(out, (struct sockaddr *)&ss, len, port);
		return 0;
	}
	if (h) {
		for (size_t i = 0; i < h->n; i++)
			if (strcasecmp(h->items[i].name, host) == 0)
				add_addr(out, (struct sockaddr *)&h->items[i].addr, h->items[i].len,
					 port);
		if (!out->n)
			*why = "the name is not in the runner's hosts file";
		return out->n ? 0 : -1;
	}
	/* Anything getaddrinfo would read as a number (0x7f.1, 2130706433)
	 * comes out as the address it is, and is judged as that. */
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	int rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc != 0) {
		*why = gai_strerror(rc);
		return -1;
	}
	for (struct addrinfo *a = res; a; a = a->ai_next)
		add_addr(out, a->ai_addr, a->ai_addrlen, port);
	freeaddrinfo(res);
	if (!out->n)
		*why = "the name has no address";
	return out->n ? 0 : -1;
}

static const char *internal_v4(uint32_t a)
{
	static const struct {
		uint32_t net, mask;
		const char *what;
	} ranges[] = {
		{ 0x00000000, 0xff000000, "a 0.0.0.0/8 address (this host)" },
		{ 0x7f000000, 0xff000000, "a loopback address" },
		{ 0xa9fe0000, 0xffff0000,
		  "a link-local address (169.254.0.0/16, where cloud metadata services live)" },
		{ 0x0a000000, 0xff000000, "a private address (10.0.0.0/8)" },
		{ 0xac100000, 0xfff00000, "a private address (172.16.0.0/12)" },
		{ 0xc0a80000, 0xffff0000, "a private address (192.168.0.0/16)" },
		{ 0x64400000, 0xffc00000, "a shared address (100.64.0.0/10)" },
		{ 0xc0000000, 0xffffff00, "an IETF protocol address (192.0.0.0/24)" },
		{ 0xc6120000, 0xfffe0000, "a benchmarking address (198.18.0.0/15)" },
		{ 0xe0000000, 0xf0000000, "a multicast address" },
		{ 0xf0000000, 0xf0000000, "a reserved address (240.0.0.0/4)" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(ranges); i++)
		if ((a & ranges[i].mask) == ranges[i].net)
			return ranges[i].what;
	return NULL;
}

const char *proxy_addr_internal(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return internal_v4(ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr));
	if (sa->sa_family != AF_INET6)
		return "not an internet address";
	const uint8_t *b = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
	static const uint8_t zero[16];
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	static const uint8_t nat64[12] = { 0, 0x64, 0xff, 0x9b };
	uint32_t v4 = (uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 | b[15];
	if (memcmp(b, zero, 16) == 0)
		return "the unspecified address (::)";
	if (memcmp(b, zero, 15) == 0 && b[15] == 1)
		return "a loopback address";
	/* IPv4 inside IPv6: mapped (::ffff:a.b.c.d), compatible (::a.b.c.d)
	 * and the NAT64 prefix reach the IPv4 address they carry. */
	if (memcmp(b, mapped, 12) == 0 || memcmp(b, zero, 12) == 0 || memcmp(b, nat64, 12) == 0)
		return internal_v4(v4);
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
		return "a link-local address (fe80::/10)";
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0)
		return "a site-local address (fec0::/10)";
	if ((b[0] & 0xfe) == 0xfc)
		return "a private address (fc00::/7, where IPv6 cloud metadata services live)";
	if (b[0] == 0xff)
		return "a multicast address";
	if (b[0] == 0x20 && b[1] == 0x02) {
		/* 6to4 carries an IPv4 address in bits 16-47. */
		uint32_t e = (uint32_t)b[2] << 24 | (uint32_t)b[3] << 16 | (uint32_t)b[4] << 8 | b[5];
		return internal_v4(e);
	}
	return NULL;
}

void proxy_addr_text(const struct sockaddr *sa, char *buf, size_t size)
{
	const void *a = sa->sa_family == AF_INET ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
						 : (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
	if (!inet_ntop(sa->sa_family, a, buf, (socklen_t)size))
		snprintf(buf, size, "?");
}
#endif
