/* The host facts (lib/base/host_facts.c): how a path and a regex are
 * resolved on the built-in macOS facts, from any machine. */
#include "config.h"

#include "base/host_facts.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static const struct host_facts *mac;

static void resolves(const char *path, const char *cwd, const char *want)
{
	char *err = NULL;
	char *got = host_resolve(mac, path, strlen(path), cwd, NULL, &err);
	is_str(got, want, "macos resolves '%s'%s%s to '%s'", path, cwd ? " in " : "",
	       cwd ? cwd : "", want ? want : "(an error)");
	free(got);
	free(err);
}

static void regex_moves(const char *re, const char *want)
{
	char *got = host_alias_regex(mac, re, NULL);
	is_str(got, want, "macos regex /%s/ %s%s", re, want ? "anchors at " : "stays as written",
	       want ? want : "");
	free(got);
}

int main(void)
{
	mac = host_facts_find("macos");
	ok(mac && strcmp(mac->sandbox, "seatbelt") == 0, "the macOS facts run under seatbelt");
	ok(host_facts_find("linux") && !host_facts_find("windows"), "linux is known, windows is not");
	ok(host_facts_native() && host_facts_native()->live, "this machine's facts read its file system");

	/* The /private symlinks, followed as the kernel walks them. */
	resolves("/etc", NULL, "/private/etc");
	resolves("/etc/hosts", NULL, "/private/etc/hosts");
	resolves("/tmp/x/../y", NULL, "/private/tmp/y");
	resolves("/etc/../x", NULL, "/private/x");
	resolves("/var/../../etc/hosts", NULL, "/private/etc/hosts");
	resolves("/private/etc/hosts", NULL, "/private/etc/hosts");
	resolves("/etcetera/x", NULL, "/etcetera/x");
	resolves("//var///db/./x", NULL, "/private/var/db/x");
	resolves("hosts", "/etc", "/private/etc/hosts");
	resolves("../tmp/a", "/etc", "/private/tmp/a");
	resolves("hosts", NULL, NULL);
	resolves("", NULL, NULL);
	/* A firmlink's second name is the usual one. */
	resolves("/System/Volumes/Data/Users/u/.ssh", NULL, "/Users/u/.ssh");
	resolves("/System/Volumes/Data/private/var/db", NULL, "/private/var/db");
	resolves("/System/Volumes/Data/usr/local/bin", NULL, "/usr/local/bin");
	resolves("/System/Volumes/Data/usr/bin", NULL, "/System/Volumes/Data/usr/bin");
	resolves("/Users/u", NULL, "/Users/u");

	/* Rules' paths: a whole leading alias. */
	char *a = host_alias_apply(mac, "/tmp/build");
	is_str(a, "/private/tmp/build", "an alias's path is replaced by its target");
	free(a);
	a = host_alias_apply(mac, "/tmpfoo/build");
	is_str(a, "/tmpfoo/build", "a component that only starts like an alias is kept");
	free(a);
	ok(host_alias_of(mac, "/etc*", 5) == NULL, "a wildcard in the alias's component is no alias");

	/* Regexes anchored at an alias. */
	regex_moves("^/etc/ssl/", "^/private/etc/ssl/");
	regex_moves("^\\/var\\/db\\/.*\\.db$", "^/private/var\\/db\\/.*\\.db$");
	regex_moves("^/tmp$", "^/private/tmp$");
	regex_moves("^/etc", NULL);
	regex_moves("^/etc.*", NULL);
	regex_moves("^/e?tc/", NULL);
	regex_moves("^/etc?/", NULL);
	regex_moves("/etc/", NULL);
	regex_moves("\\.pem$", NULL);
	regex_moves("^/etcx/", NULL);
	ok(host_alias_regex(host_facts_find("linux"), "^/etc/", NULL) == NULL,
	   "Linux has no alias to anchor at");
	return tap_done();
}
