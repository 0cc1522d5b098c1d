/* What the runners share about the call's surroundings: a program run to
 * see what it says (the probes). */
#include "config.h"

#include "run.h"
#include "run_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void run_free_argv(char **v)
{
	for (char **a = v; a && *a; a++)
		free(*a);
	free(v);
}

int run_capture(char *const argv[], char *const envp[], char **line)
{
	extern char **environ;
	int p[2], status = -1;
	char buf[512];
	ssize_t n;
	pid_t pid;
	*line = NULL;
	if (pipe(p) != 0)
		return -1;
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execve(argv[0], argv, envp ? envp : environ);
		_exit(127);
	}
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	while (read(p[0], (char[256]){ 0 }, 256) > 0)
		;
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n > 0) {
		buf[n] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		*line = xstrdup(buf);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
