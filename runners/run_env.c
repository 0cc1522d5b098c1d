/* What the runners share about the call's surroundings: the environment
 * the preset's policy lets through, and the removal of the per-call temp
 * dir with whatever the command left in it. */
#include "config.h"

#include "lower.h"
#include "run.h"
#include "util.h"

#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char **run_policy_environ(const struct lower_input *in)
{
	extern char **environ;
	char **v = NULL;
	size_t n = 0, cap = 0;
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq)
			continue;
		char *name = xstrndup(*e, (size_t)(eq - *e));
		bool keep = false, set = false;
		keep = lower_env_kept(in, name);
		for (size_t i = 0; i < in->nset; i++)
			set = set || strcmp(in->set[i].name, name) == 0;
		if (keep && !set && !lower_env_dropped(in, name))
			VEC_PUSH(v, n, cap, xstrdup(*e));
		free(name);
	}
	for (size_t i = 0; i < in->nset; i++)
		VEC_PUSH(v, n, cap, xasprintf("%s=%s", in->set[i].name, in->set[i].value));
	VEC_PUSH(v, n, cap, NULL);
	return v;
}

void run_free_argv(char **v)
{
	for (char **a = v; a && *a; a++)
		free(*a);
	free(v);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) == 0 || errno == ENOENT ? 0 : 0;
	return unlink(path) == 0 || errno == ENOENT ? 0 : 0;
}

void run_remove_tree(const char *dir)
{
	if (dir)
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
