/* A program built against the installed cordon_tools.h and libcordon
 * through cordon.pc: it formats or lints one policy file as `cordon fmt`
 * and `cordon lint --format json` do.
 *
 *   use-cordon-tools fmt|lint FILE */
#include <cordon_tools.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	char *err = NULL;
	int status = 0;

	if (argc != 3 || (strcmp(argv[1], "fmt") != 0 && strcmp(argv[1], "lint") != 0)) {
		fputs("usage: use-cordon-tools fmt|lint FILE\n", stderr);
		return 2;
	}
	if (strcmp(argv[1], "fmt") == 0) {
		cordon_formatted *f = cordon_format_file(argv[2], &err);
		size_t len;
		if (!f) {
			fprintf(stderr, "use-cordon-tools: %s\n", err);
			free(err);
			return 2;
		}
		if (cordon_formatted_error_count(f)) {
			cordon_formatted_print_diagnostics(f, stderr);
			status = 1;
		} else {
			const char *text = cordon_formatted_text(f, &len);
			fwrite(text, 1, len, stdout);
		}
		cordon_formatted_free(f);
		return status;
	}
	cordon_lint *l = cordon_lint_file(argv[2], NULL, &err);
	if (!l || cordon_lint_print(&l, 1, CORDON_LINT_JSON, stdout, &err) != 0) {
		fprintf(stderr, "use-cordon-tools: %s\n", err);
		free(err);
		status = 2;
	} else if (cordon_lint_io_failed(l)) {
		status = 2;
	}
	cordon_lint_free(l);
	return status;
}
