/* cordon probe: which sandbox layers work on this machine. */
#include "config.h"

#include "cli.h"
#include "run.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* macOS: sandbox-exec, and whether a profile that denies by default
 * applies and starts a program. */
static int probe_seatbelt(struct probe_result *r, bool json)
{
	bool ok = r->bwrap_path && r->userns;
	if (json) {
		json_t *o = json_pack("{s:{s:s?,s:b,s:s?},s:b}", "seatbelt", "path", r->bwrap_path,
				      "profile_applies", r->userns, "error", r->userns_error,
				      "ready", ok);
		char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
		puts(s ? s : "{}");
		free(s);
		json_decref(o);
	} else {
		printf("seatbelt:  %s\n", r->bwrap_path ? r->bwrap_path : "missing (/usr/bin/sandbox-exec)");
		printf("profile:   %s%s\n", r->userns ? "a deny-default profile applies" : "refused: ",
		       r->userns ? "" : r->userns_error ? r->userns_error : "?");
		printf("sandbox:   %s\n", ok ? "ready" : "UNAVAILABLE: restricted presets will not run");
	}
	run_probe_free(r);
	return ok ? EXIT_OK : 125;
}

/* The Linux layers as one JSON object, with a ready member. */
static void print_json(const struct probe_result *r, bool ok)
{
	json_t *o = json_pack("{s:{s:s?,s:s?},s:{s:b,s:s?},s:{s:i},s:{s:b},s:s?,s:b,s:b}", "bwrap",
			      "path", r->bwrap_path, "version", r->bwrap_version, "userns", "ok",
			      r->userns, "error", r->userns_error, "landlock", "abi",
			      r->landlock_abi, "seccomp", "ok", r->seccomp, "helper", r->helper_path,
			      "helper_same_build", r->helper_same_build, "ready", ok);
	if (o && r->root)
		json_object_set_new(o, "root_command",
				    json_pack("{s:i,s:s?}", "uid", (int)r->root_uid, "why",
					      r->root_why));
	char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	puts(s ? s : "{}");
	free(s);
	json_decref(o);
}

/* The same as lines, one a layer. */
static void print_text(const struct probe_result *r, bool ok)
{
	printf("bwrap:     %s%s%s\n", r->bwrap_path ? r->bwrap_path : "missing (install bubblewrap)",
	       r->bwrap_version ? ", " : "", r->bwrap_version ? r->bwrap_version : "");
	printf("userns:    %s%s\n", r->userns ? "works" : "refused: ",
	       r->userns ? "" : r->userns_error ? r->userns_error : "bwrap is missing");
	if (r->landlock_abi >= 1)
		printf("landlock:  ABI %d\n", r->landlock_abi);
	else
		printf("landlock:  unavailable\n");
	printf("seccomp:   %s\n", r->seccomp ? "available" : "unavailable");
	printf("helper:    %s%s\n", r->helper_path ? r->helper_path : "missing (cordon-exec)",
	       r->helper_path && !r->helper_same_build
		       ? " (of another build of cordon: refused; install the two together)"
		       : "");
#ifndef __APPLE__
	printf("limits:    %s\n", run_limits_probe());
#endif
	if (r->root && !r->root_why)
		printf("as root:   commands run as uid %u (nobody), the write roots idmapped\n",
		       r->root_uid);
	else if (r->root)
		printf("as root:   commands run as uid 0, root's own files masked: %s\n",
		       r->root_why);
	printf("sandbox:   %s\n", ok ? "ready" : "UNAVAILABLE: restricted presets will not run");
}

int cmd_probe(int argc, char **argv)
{
	struct probe_result r;
	struct cli_args a;
	const char *arg;
	cli_args_init(&a, "probe", argc, argv);
	int id = cli_args_next(&a, &arg);
	bool json = a.json;
	int noperands = a.noperands;
	cli_args_free(&a);
	if (id < 0)
		return a.status;
	if (noperands > 0)
		return cli_usage_error("probe", "probe takes no operands");
	run_probe(&r, true);
	if (r.seatbelt)
		return probe_seatbelt(&r, json);
	bool ok = r.bwrap_path && r.userns && r.landlock_abi >= 1 && r.seccomp && r.helper_path &&
		  r.helper_same_build;
	if (json)
		print_json(&r, ok);
	else
		print_text(&r, ok);
	run_probe_free(&r);
	return ok ? EXIT_OK : 125;
}
