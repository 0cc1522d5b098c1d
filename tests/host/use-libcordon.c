/* A program of an agent host, built against the installed cordon.h and
 * libcordon through cordon.pc: it loads a policy, decides one request and
 * prints the decision as JSON, as `cordon eval --json` does.
 *
 *   use-libcordon POLICY PRESET OP TARGET [NAME=VALUE]... */
#include <cordon.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	cordon_policy *policy;
	cordon_context *ctx;
	cordon_evaluator *ev;
	cordon_decision *d;
	char *err = NULL, *json;
	int op;

	if (argc < 5) {
		fputs("usage: use-libcordon POLICY PRESET OP TARGET [NAME=VALUE]...\n", stderr);
		return 2;
	}
	policy = cordon_policy_load_file(argv[1]);
	if (cordon_policy_error_count(policy)) {
		cordon_policy_print_diagnostics(policy, stderr);
		cordon_policy_free(policy);
		return 1;
	}
	op = cordon_op_from_name(argv[3]);
	if (op < 0) {
		fprintf(stderr, "use-libcordon: unknown operation '%s'\n", argv[3]);
		cordon_policy_free(policy);
		return 2;
	}
	ctx = cordon_context_new();
	for (int i = 5; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq) {
			fprintf(stderr, "use-libcordon: expected NAME=VALUE, not '%s'\n", argv[i]);
			goto fail;
		}
		*eq = '\0';
		if (cordon_context_set(ctx, argv[i], eq + 1, &err) != 0)
			goto fail;
	}
	ev = cordon_evaluator_new(policy, argv[2], ctx, &err);
	if (!ev)
		goto fail;
	struct cordon_request req = { .op = (enum cordon_op)op, .target = argv[4] };
	d = cordon_evaluate(ev, &req, &err);
	if (!d) {
		cordon_evaluator_free(ev);
		goto fail;
	}
	json = cordon_decision_json(d);
	printf("%s\n", json);
	free(json);
	cordon_decision_free(d);
	cordon_evaluator_free(ev);
	cordon_context_free(ctx);
	cordon_policy_free(policy);
	printf("libcordon %s\n", cordon_version());
	return 0;
fail:
	if (err)
		fprintf(stderr, "use-libcordon: %s\n", err);
	free(err);
	cordon_context_free(ctx);
	cordon_policy_free(policy);
	return 1;
}
