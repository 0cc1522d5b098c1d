/* The host an approved net ask opens: exactly the host (and port) its
 * target names, lowercased as the egress proxy reads a contact; a target
 * that names none exactly (a glob, a bad port, a host known only at run
 * time) opens nothing. */
#include "config.h"

#include "cordon/approval.h"
#include "tap.h"

#include <string.h>

int main(void)
{
	static const struct {
		const char *target, *host;
		int port;
	} exact[] = {
		{ "asked.test:8080", "asked.test", 8080 },
		{ "Asked.TEST:443", "asked.test", 443 },
		{ "asked.test", "asked.test", -1 },
		{ "10.1.2.3:22", "10.1.2.3", 22 },
		{ "[::1]:80", "::1", 80 },
		{ "[fd00::1]", "fd00::1", -1 },
		{ "a_b-c.test:65535", "a_b-c.test", 65535 },
	};
	static const char *const none[] = {
		"*",		"*.asked.test",	  "asked.test:*", "(a host known only at run time)",
		"asked.test:0", "asked.test:65536", "asked.test:", "asked.test:80x",
		"asked.test:+80", "asked.test: 80", "[::1",	  "[::1]x",
		"[::1]:",	"[a.b]:80",	  "",		  ":80",
		"a b:80",	"asked.test:80:1",
	};
	char host[256];
	int port;
	for (size_t i = 0; i < sizeof(exact) / sizeof(*exact); i++) {
		bool got = cordon_exec_approval_host(exact[i].target, host, sizeof(host), &port);
		ok(got && strcmp(host, exact[i].host) == 0 && port == exact[i].port,
		   "'%s' opens %s port %d", exact[i].target, exact[i].host, exact[i].port);
	}
	for (size_t i = 0; i < sizeof(none) / sizeof(*none); i++)
		ok(!cordon_exec_approval_host(none[i], host, sizeof(host), &port),
		   "'%s' names no host exactly: it opens nothing", none[i]);
	char big[300];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ok(!cordon_exec_approval_host(big, host, sizeof(host), &port),
	   "a host longer than the buffer opens nothing");
	return tap_done();
}
