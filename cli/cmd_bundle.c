/* cordon bundle create|verify|install: signed policy bundles
 * (docs/fleet.md, "Signed bundles"); the work is in lib/tools/bundle*.c. */
#include "config.h"

#include "cli.h"
#include "cordon_tools.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CONFDIR SYSCONFDIR "/cordon"

struct bundle_opts {
	const char *out, *keys;
	unsigned long long version;
	long long expires;
};

static int refused(const char *what, char *err)
{
	fprintf(stderr, "cordon: %s: %s\n", what, err);
	free(err);
	return EXIT_POLICY;
}

/* The bundle's policy, loaded from it and checked: EXIT_OK, or
 * EXIT_POLICY after its diagnostics. */
static int check_policy(const cordon_bundle *b)
{
	char *err = NULL;
	cordon_policy *p = cordon_bundle_load(b, &err);
	int status = EXIT_OK;
	if (!p)
		return refused("bundle refused", err);
	if (cordon_policy_error_count(p)) {
		cordon_policy_print_diagnostics(p, stderr);
		status = EXIT_POLICY;
	}
	cordon_policy_free(p);
	return status;
}

static int bundle_create(const struct bundle_opts *o, char **files, int nfiles)
{
	char *err = NULL;
	cordon_bundle *b;
	int status;
	if (!o->out || !o->version || nfiles < 1)
		return cli_usage_error("bundle", "create needs -o DIR, --version N and the policy");
	if (cordon_bundle_create(o->out, o->version, o->expires, files, (size_t)nfiles, &err) != 0) {
		refused("bundle create", err);
		return EXIT_USAGE;
	}
	if (!(b = cordon_bundle_verify(o->out, NULL, 0, &err)))
		return refused("bundle create", err);
	status = check_policy(b);
	cordon_bundle_free(b);
	if (status != EXIT_OK) {
		fprintf(stderr, "cordon: %s was written, and its policy cannot be used\n", o->out);
		return status;
	}
	printf("%s: version %llu, %d source%s; sign its manifest:\n"
	       "  ssh-keygen -Y sign -n %s -f KEY %s/manifest\n",
	       o->out, o->version, nfiles, nfiles == 1 ? "" : "s", CORDON_BUNDLE_NAMESPACE, o->out);
	return EXIT_OK;
}

static void describe(const cordon_bundle *b, const char *dir)
{
	long long exp = cordon_bundle_expires(b);
	char when[32] = "never";
	time_t t = (time_t)exp;
	struct tm tm;
	if (exp && gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	printf("%s: version %llu, expires %s, signed by %s (%s)\n", dir, cordon_bundle_version(b),
	       when, cordon_bundle_signer(b), cordon_bundle_key(b));
	for (size_t i = 0; i < cordon_bundle_source_count(b); i++)
		printf("  %s%s\n", cordon_bundle_source_name(b, i), i ? "" : " (the policy)");
}

/* Verified against keys and the version recorded here; NULL after a
 * message. */
static cordon_bundle *verified(const char *dir, const char *keys, int *status)
{
	unsigned long long floor = 0;
	char *err = NULL;
	cordon_bundle *b = NULL;
	if (cordon_bundle_recorded_version(CONFDIR, &floor, &err) == 0)
		b = cordon_bundle_verify(dir, keys, floor, &err);
	if (!b)
		*status = refused("bundle refused", err);
	else if ((*status = check_policy(b)) != EXIT_OK) {
		cordon_bundle_free(b);
		b = NULL;
	}
	return b;
}

static int bundle_verify(const struct bundle_opts *o, char **dirs, int ndirs)
{
	int status;
	cordon_bundle *b;
	if (ndirs != 1)
		return cli_usage_error("bundle", "verify takes one bundle directory");
	if (!(b = verified(dirs[0], o->keys ? o->keys : CONFDIR "/allowed_signers", &status)))
		return status;
	describe(b, dirs[0]);
	cordon_bundle_free(b);
	return EXIT_OK;
}

static int bundle_install(char **dirs, int ndirs)
{
	int status, rc;
	char *err = NULL;
	cordon_bundle *b;
	if (ndirs != 1)
		return cli_usage_error("bundle", "install takes one bundle directory");
	if (!(b = verified(dirs[0], CONFDIR "/allowed_signers", &status)))
		return status;
	rc = cordon_bundle_install(b, CONFDIR, &err);
	if (rc < 0)
		status = refused("bundle install", err);
	else
		printf("%s: version %llu %s\n", CONFDIR "/bundle", cordon_bundle_version(b),
		       rc == 1 ? "is already installed" : "installed");
	cordon_bundle_free(b);
	return status;
}

/* One option of the verb's own: EXIT_OK, or EXIT_USAGE after a message. */
static int take_option(struct bundle_opts *o, int id, const char *arg)
{
	char *end;
	switch (id) {
	case OPT_OUTPUT:
		o->out = arg;
		break;
	case OPT_KEYS:
		o->keys = arg;
		break;
	case OPT_BUNDLE_VERSION:
		errno = 0;
		o->version = strtoull(arg, &end, 10);
		if (errno || *end || arg[0] < '1' || arg[0] > '9' || strlen(arg) > 19)
			return cli_usage_error("bundle", "--version expects a number from 1, not '%s'",
					       arg);
		break;
	case OPT_EXPIRES:
		if (cordon_bundle_parse_time(arg, &o->expires) != 0)
			return cli_usage_error("bundle", "--expires expects YYYY-MM-DD or "
							 "YYYY-MM-DDTHH:MM:SSZ, not '%s'",
					       arg);
		break;
	}
	return EXIT_OK;
}

int cmd_bundle(int argc, char **argv)
{
	struct bundle_opts o = { 0 };
	struct cli_args a;
	const char *arg, *form;
	int id, status = EXIT_OK;

	cli_args_init(&a, "bundle", argc, argv);
	while (status == EXIT_OK && (id = cli_args_next(&a, &arg)) > 0)
		status = take_option(&o, id, arg);
	if (status == EXIT_OK && id < 0)
		status = a.status;
	else if (status == EXIT_OK && a.noperands == 0)
		status = cli_usage_error("bundle", "expected create, verify or install");
	else if (status == EXIT_OK && (status = cli_args_form(&a, a.operands[0])) == EXIT_OK) {
		form = a.operands[0];
		if (strcmp(form, "create") == 0)
			status = bundle_create(&o, a.operands + 1, a.noperands - 1);
		else if (strcmp(form, "verify") == 0)
			status = bundle_verify(&o, a.operands + 1, a.noperands - 1);
		else if (strcmp(form, "install") == 0)
			status = bundle_install(a.operands + 1, a.noperands - 1);
		else
			status = cli_usage_error("bundle", "expected create, verify or install, not '%s'",
						 form);
	}
	cli_args_free(&a);
	return status;
}
