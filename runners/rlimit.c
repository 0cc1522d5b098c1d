#include "config.h"

#include "rlimit.h"
#include "run_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static const struct {
	enum cordon_limit_kind which;
	int resource;
	const char *name;
} rlimits[] = {
	{ CORDON_LIMIT_PROCESSES, RLIMIT_NPROC, "NPROC" },
	{ CORDON_LIMIT_OPEN_FILES, RLIMIT_NOFILE, "NOFILE" },
	{ CORDON_LIMIT_FILE_SIZE, RLIMIT_FSIZE, "FSIZE" },
	{ CORDON_LIMIT_CPU_TIME, RLIMIT_CPU, "CPU" },
	{ CORDON_LIMIT_ADDRESS_SPACE, RLIMIT_AS, "AS" },
};

bool run_rlimit_for(enum cordon_limit_kind which, int *resource)
{
	for (size_t i = 0; i < sizeof(rlimits) / sizeof(rlimits[0]); i++)
		if (rlimits[i].which == which) {
			*resource = rlimits[i].resource;
			return true;
		}
	return false;
}

char *run_rlimit_arg(const struct run_rlimit *r)
{
	for (size_t i = 0; i < sizeof(rlimits) / sizeof(rlimits[0]); i++)
		if (rlimits[i].resource == r->resource)
			return xasprintf("%s=%llu", rlimits[i].name, r->value);
	return NULL;
}

bool run_rlimit_parse(const char *arg, struct run_rlimit *out, const char **why)
{
	const char *eq = strchr(arg, '=');
	char *end;
	if (!eq) {
		*why = "expected NAME=VALUE";
		return false;
	}
	for (size_t i = 0; i < sizeof(rlimits) / sizeof(rlimits[0]); i++) {
		if (strlen(rlimits[i].name) != (size_t)(eq - arg) ||
		    strncmp(arg, rlimits[i].name, (size_t)(eq - arg)) != 0)
			continue;
		errno = 0;
		out->value = strtoull(eq + 1, &end, 10);
		if (errno || end == eq + 1 || *end || eq[1] == '-' || out->value == 0) {
			*why = "the value is not a positive whole number";
			return false;
		}
		out->resource = rlimits[i].resource;
		return true;
	}
	*why = "unknown rlimit";
	return false;
}

int run_rlimit_apply(const struct run_rlimit *r)
{
	struct rlimit cur, want;
	if (getrlimit(r->resource, &cur) != 0)
		return -1;
	want.rlim_cur = (rlim_t)r->value;
	want.rlim_max = r->resource == RLIMIT_CPU ? (rlim_t)r->value + 1 : (rlim_t)r->value;
	if (cur.rlim_max != RLIM_INFINITY && want.rlim_max > cur.rlim_max)
		want.rlim_max = cur.rlim_max;
	if (want.rlim_cur > want.rlim_max)
		want.rlim_cur = want.rlim_max;
	return setrlimit(r->resource, &want);
}
