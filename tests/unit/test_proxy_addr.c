/* The egress proxy's judgement of addresses and its hosts file: every form
 * of an internal address is refused (IPv4-in-IPv6 ones too), public ones
 * pass, and the hosts file is the only resolver when given. */
#include "config.h"

#include "proxy.h"
#include "tap.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <unistd.h>

static const char *judge(const char *text)
{
	struct proxy_addrs a;
	const char *why = NULL;
	struct proxy_hosts none = { 0 };
	if (proxy_resolve(&none, text, 80, &a, &why) != 0 || a.n != 1)
		return "unresolved";
	const char *r = proxy_addr_internal((struct sockaddr *)&a.addr[0]);
	return r ? r : "public";
}

int main(void)
{
	static const char *const internal[] = {
		"127.0.0.1", "127.255.0.9", "0.0.0.0", "10.1.2.3", "172.16.0.1", "172.31.255.255",
		"192.168.0.1", "169.254.169.254", "100.64.0.1", "224.0.0.1", "255.255.255.255",
		"::1", "::", "[::1]", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::127.0.0.1",
		"64:ff9b::a9fe:a9fe", "2002:7f00:1::", "fe80::1", "fc00::1", "fd00:ec2::254",
		"ff02::1", "fec0::1", "2130706433", "0x7f000001", "127.1", "0177.0.0.1",
		"0xa9.0xfe.0xa9.0xfe",
	};
	static const char *const public[] = {
		"1.1.1.1", "172.32.0.1", "192.169.0.1", "100.128.0.1", "8.8.8.8",
		"2606:4700::1111", "::ffff:8.8.8.8", "2002:808:808::",
	};
	for (size_t i = 0; i < sizeof(internal) / sizeof(*internal); i++) {
		const char *r = judge(internal[i]);
		ok(strcmp(r, "public") != 0 && strcmp(r, "unresolved") != 0, "%s is internal (%s)",
		   internal[i], r);
	}
	for (size_t i = 0; i < sizeof(public) / sizeof(*public); i++)
		is_str(judge(public[i]), "public", "%s is public", public[i]);

	/* The hosts file: names resolve from it alone, case aside. */
	char path[] = "/tmp/cordon-hosts-XXXXXX";
	int fd = mkstemp(path);
	const char *text = "# test names\n127.0.0.1 Good.Test other.test\n::1 good.test\n\n";
	ok(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text), "a hosts file");
	close(fd);
	struct proxy_hosts h;
	char *err = NULL;
	ok(proxy_hosts_load(&h, path, &err) == 0, "it loads (%s)", err ? err : "");
	struct proxy_addrs a;
	const char *why = NULL;
	ok(proxy_resolve(&h, "good.test", 443, &a, &why) == 0 && a.n == 2,
	   "good.test has both of its addresses");
	char buf[64];
	proxy_addr_text((struct sockaddr *)&a.addr[0], buf, sizeof(buf));
	is_str(buf, "127.0.0.1", "the first one as written");
	ok(ntohs(((struct sockaddr_in *)&a.addr[0])->sin_port) == 443, "with the port asked for");
	ok(proxy_resolve(&h, "example.com", 443, &a, &why) != 0 && why && strstr(why, "hosts file"),
	   "a name the file lacks does not resolve, not even through DNS (%s)", why ? why : "");
	proxy_hosts_free(&h);

	FILE *f = fopen(path, "w");
	fputs("127.0.0.1 fine.test\n300.1.1.1 bad.test\n", f);
	fclose(f);
	free(err);
	err = NULL;
	ok(proxy_hosts_load(&h, path, &err) != 0 && err && strstr(err, ":2: '300.1.1.1'"),
	   "a bad address is refused with file:line (%s)", err ? err : "");
	free(err);
	err = NULL;
	f = fopen(path, "w");
	fputs("127.0.0.1\n", f);
	fclose(f);
	ok(proxy_hosts_load(&h, path, &err) != 0 && err && strstr(err, ":1: address 127.0.0.1 names no host"),
	   "an address without a name is refused (%s)", err ? err : "");
	free(err);
	unlink(path);
	return tap_done();
}
