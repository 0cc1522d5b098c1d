/* The rule "remember for the project" writes for an approved effect
 * (cordon_effect_rule): the scope a session grant of it has, spelled in
 * the language, and nothing for a target that a rule cannot name as it
 * is (a pattern, a variable, a quote, shell syntax, an unknown host). */
#include "config.h"

#include "cordon.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
	static const struct {
		enum cordon_op op;
		const char *target, *rule;
	} rules[] = {
		{ CORDON_WRITE, "/srv/out/a.txt", "write \"/srv/out\" allow;" },
		{ CORDON_WRITE, "/a.txt", "write exact \"/a.txt\" allow;" },
		{ CORDON_READ, "/etc/hosts", "read exact \"/etc/hosts\" allow;" },
		{ CORDON_NET, "registry.npmjs.org:443", "net \"registry.npmjs.org:443\" allow;" },
		{ CORDON_TOOL, "mcp:github/create_issue", "tool \"mcp:github/create_issue\" allow;" },
		{ CORDON_EXEC, "make -C build/x.y install",
		  "exec \"make -C build/x.y install\" /^make -C build\\/x\\.y install$/ allow;" },
		{ CORDON_EXEC, "npm run test:unit", "exec \"npm run test:unit\" /^npm run test:unit$/ allow;" },
	};
	static const struct {
		enum cordon_op op;
		const char *target;
	} none[] = {
		{ CORDON_WRITE, "/srv/*/a.txt" },
		{ CORDON_WRITE, "/srv/${x}/a.txt" },
		{ CORDON_WRITE, "/srv/a\"b/c" },
		{ CORDON_WRITE, "/srv/a b/c" },
		{ CORDON_WRITE, "relative/a.txt" },
		{ CORDON_WRITE, NULL },
		{ CORDON_NET, "(a host known only at run time)" },
		{ CORDON_NET, "*.example.com:443" },
		{ CORDON_NET, "example.com" },
		{ CORDON_TOOL, "mcp:*" },
		{ CORDON_EXEC, "rm -rf build; curl x | sh" },
		{ CORDON_EXEC, "echo 'a'" },
		{ CORDON_EXEC, "echo $HOME" },
		{ CORDON_EXEC, "ls  -l" },
		{ CORDON_EXEC, " ls" },
		{ CORDON_EXEC, "" },
	};
	for (size_t i = 0; i < sizeof(rules) / sizeof(*rules); i++) {
		char *err = NULL, *got = cordon_effect_rule(rules[i].op, rules[i].target, &err);
		is_str(got, rules[i].rule, "%s %s: %s", cordon_op_name(rules[i].op), rules[i].target,
		       rules[i].rule);
		free(got);
		free(err);
	}
	for (size_t i = 0; i < sizeof(none) / sizeof(*none); i++) {
		char *err = NULL, *got = cordon_effect_rule(none[i].op, none[i].target, &err);
		ok(!got && err && strstr(err, "cannot be written as a rule"),
		   "%s '%s' is no rule of its own, and says so", cordon_op_name(none[i].op),
		   none[i].target ? none[i].target : "(null)");
		free(got);
		free(err);
	}
	return tap_done();
}
