/* cordon edit: replace exact text in a file through the policy (cli/mutation.c). */
#include "config.h"

#include "cli.h"

int cmd_edit(int argc, char **argv)
{
	struct cli_mutation m = { .kind = CORDON_MUTATE_EDIT };
	struct cli_args a;
	const char *arg;
	int id, status;

	cli_args_init(&a, "edit", argc, argv);
	while ((id = cli_args_next(&a, &arg)) > 0) {
		switch (id) {
		case OPT_APPROVAL:
			m.approval = arg;
			break;
		case OPT_OLD:
			m.old_text = arg;
			break;
		case OPT_NEW:
			m.new_text = arg;
			break;
		case OPT_ALL:
			m.all = true;
			break;
		}
	}
	if (id < 0)
		status = a.status;
	else if (a.noperands != 1)
		status = cli_usage_error("edit", "expected one PATH");
	else {
		m.path = a.operands[0];
		status = cli_mutation_run(&a, &m);
	}
	cli_args_free(&a);
	return status;
}
