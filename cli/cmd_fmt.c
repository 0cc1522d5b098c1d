/* cordon fmt [--check|-w|--diff] FILE...: the canonical layout of policy
 * files, printed, checked, shown as a diff or written in place. */
#include "config.h"

#include "cli.h"
#include "cordon_tools.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum fmt_mode { MODE_PRINT, MODE_CHECK, MODE_DIFF, MODE_WRITE };

static int worse(int a, int b)
{
	return a > b ? a : b;
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

/* Replace the file atomically: a temp file beside it with the same mode
 * (and owner, where permitted), synced, renamed over it.  A symlink is
 * followed, so the link stays and its target changes.  Returns 0, or -1
 * after a message naming the file. */
static int write_in_place(const char *path, const char *text, size_t len)
{
	char *real = realpath(path, NULL), *dir_copy = NULL, *tmp = NULL;
	struct stat st;
	int fd = -1, rc = -1;
	const char *step = "cannot resolve";

	if (!real || stat(real, &st) != 0)
		goto out;
	if (!(dir_copy = strdup(real)))
		goto out;
	const char *dir = dirname(dir_copy);
	if (asprintf(&tmp, "%s/.%s.fmt-XXXXXX", dir, real + strlen(dir) + (strcmp(dir, "/") != 0)) <
	    0) {
		tmp = NULL;
		goto out;
	}
	step = "cannot create a temporary file for";
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		goto out;
	step = "cannot write";
	for (size_t done = 0; done < len;) {
		ssize_t w = write(fd, text + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			goto out;
		done += (size_t)w;
	}
	/* Only root may give the file back to another owner; others keep
	 * their own files, so an EPERM here changes nothing. */
	if (fchown(fd, st.st_uid, st.st_gid) != 0 && errno != EPERM)
		goto out;
	if (fchmod(fd, st.st_mode & 07777) != 0 || fsync(fd) != 0)
		goto out;
	step = "cannot close";
	rc = close(fd);
	fd = -1;
	if (rc != 0)
		goto out;
	step = "cannot replace";
	rc = rename(tmp, real);
	if (rc != 0)
		goto out;
	free(tmp);
	tmp = NULL;
	/* The rename is durable once the directory is. */
	step = "cannot sync the directory of";
	rc = sync_dir(dir);
out:
	if (rc != 0)
		fprintf(stderr, "cordon: %s '%s': %s\n", step, path, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (tmp)
		unlink(tmp);
	free(tmp);
	free(dir_copy);
	free(real);
	return rc;
}

/* Format one file in the given mode; returns its exit status. */
static int fmt_one(const char *path, enum fmt_mode mode)
{
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	char *err = NULL;
	cordon_formatted *f = strcmp(path, "-") == 0 ? cordon_format_fd(name, STDIN_FILENO, &err)
						     : cordon_format_file(path, &err);
	const char *src, *out;
	size_t src_len, out_len;
	int status = EXIT_OK;

	if (!f) {
		fprintf(stderr, "cordon: %s\n", err);
		free(err);
		return EXIT_USAGE;
	}
	if (cordon_formatted_error_count(f)) {
		/* Never formatted, never written: the errors, as `cordon check`. */
		cordon_formatted_print_diagnostics(f, stderr);
		cordon_formatted_free(f);
		return EXIT_POLICY;
	}
	src = cordon_formatted_source(f, &src_len);
	out = cordon_formatted_text(f, &out_len);
	bool formatted = !cordon_formatted_changed(f);
	switch (mode) {
	case MODE_PRINT:
		fwrite(out, 1, out_len, stdout);
		break;
	case MODE_CHECK:
		if (!formatted) {
			fprintf(stderr, "%s: not formatted\n", name);
			status = EXIT_POLICY;
		}
		break;
	case MODE_DIFF:
		if (!formatted) {
			char *a = NULL, *b = NULL, *d;
			size_t len;
			if (asprintf(&a, "a/%s", name) < 0 || asprintf(&b, "b/%s", name) < 0 ||
			    !(d = cordon_line_diff(a, src, src_len, b, out, out_len, &len, NULL)))
				abort();
			fwrite(d, 1, len, stdout);
			free(d);
			free(a);
			free(b);
			status = EXIT_POLICY;
		}
		break;
	case MODE_WRITE:
		if (!formatted && write_in_place(path, out, out_len) != 0)
			status = EXIT_USAGE;
		break;
	}
	cordon_formatted_free(f);
	return status;
}

int cmd_fmt(int argc, char **argv)
{
	static const char *const flags[] = {
		[MODE_CHECK] = "--check", [MODE_DIFF] = "--diff", [MODE_WRITE] = "-w",
	};
	enum fmt_mode mode = MODE_PRINT;
	struct cli_args a;
	const char *arg;
	int id, status = EXIT_OK;

	cli_args_init(&a, "fmt", argc, argv);
	while ((id = cli_args_next(&a, &arg)) > 0) {
		enum fmt_mode m = id == OPT_CHECK ? MODE_CHECK : id == OPT_DIFF ? MODE_DIFF : MODE_WRITE;
		if (mode != MODE_PRINT && mode != m) {
			status = cli_usage_error("fmt", "%s and %s cannot be used together", flags[mode],
						 flags[m]);
			goto out;
		}
		mode = m;
	}
	if (id < 0) {
		status = a.status;
		goto out;
	}
	if (mode == MODE_WRITE) {
		if (a.noperands == 0) {
			status = cli_usage_error("fmt", "-w needs the files to rewrite");
			goto out;
		}
		for (int i = 0; i < a.noperands; i++)
			if (strcmp(a.operands[i], "-") == 0) {
				status = cli_usage_error("fmt", "-w cannot rewrite standard input");
				goto out;
			}
	}
	if (a.noperands == 0)
		status = fmt_one("-", mode);
	for (int i = 0; i < a.noperands; i++)
		status = worse(status, fmt_one(a.operands[i], mode));
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "cordon: cannot write the output: %s\n", strerror(errno));
		status = EXIT_USAGE;
	}
out:
	cli_args_free(&a);
	return status;
}
