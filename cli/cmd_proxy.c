/* cordon proxy: the egress proxy served alone (runners/proxy_listen.c). */
#include "config.h"

#include "cli.h"
#include "run.h"

#include <stdlib.h>

int cmd_proxy(int argc, char **argv)
{
	struct cli_args a;
	struct run_proxy_opts o = { 0 };
	cordon_policy *policy = NULL;
	cordon_evaluator *ev = NULL;
	const char *arg, *preset;
	char *err = NULL;
	int id, status = EXIT_OK;

	cli_args_init(&a, "proxy", argc, argv);
	while ((id = cli_args_next(&a, &arg)) > 0) {
		if (id == OPT_LISTEN)
			o.listen = arg;
		else if (id == OPT_EGRESS_HOSTS)
			o.egress_hosts = arg;
	}
	if (id < 0) {
		status = a.status;
		goto out;
	}
	if (!o.listen || a.noperands > 0) {
		status = cli_usage_error("proxy", a.noperands ? "unexpected argument" :
								"--listen ADDR:PORT is required");
		goto out;
	}
	if (!(policy = cli_load_policy(a.policy_path, &status)))
		goto out;
	if (!(preset = a.preset) && !(preset = cordon_policy_default_preset(policy))) {
		status = cli_usage_error("proxy", "the policy names no default preset; give --preset");
		goto out;
	}
	cli_run_context_defaults(a.ctx);
	if (!(ev = cordon_evaluator_new(policy, preset, a.ctx, &err))) {
		status = cli_usage_error(NULL, "%s", err);
		goto out;
	}
	if ((status = cli_audit_open("proxy", a.audit_path, a.syslog, policy, &o.audit)) != EXIT_OK)
		goto out;
	o.ev = ev;
	o.actor = a.actor;
	status = run_proxy(&o);
out:
	free(err);
	cordon_audit_close(o.audit);
	cordon_evaluator_free(ev);
	cli_policy_done(policy);
	cli_args_free(&a);
	return status;
}
