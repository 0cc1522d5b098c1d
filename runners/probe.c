/* cordon probe: which sandbox layers work on this machine. */
#ifndef __APPLE__
#include "config.h"

#include "run.h"
#include "run_idmap.h"
#include "run_util.h"

#include "build-id.h"
#include "cordon/landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef LIBEXECDIR
#define LIBEXECDIR "/usr/local/libexec"
#endif

/* The helper found and its build checked: what the probe reports, and what
 * the runner (run_linux.c) asks before each sandboxed launch. */
char *run_find_helper(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			char *p = xasprintf("%s/cordon-exec", self);
			if (access(p, X_OK) == 0)
				return p;
			free(p);
		}
	}
	char *p = xasprintf("%s/cordon/cordon-exec", LIBEXECDIR);
	if (access(p, X_OK) == 0)
		return p;
	free(p);
	return NULL;
}

bool run_helper_matches(const char *path)
{
	struct stat st;
	bool found = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			/* With its NUL: this build's identity, not one it begins. */
			found = memmem(m, (size_t)st.st_size, CORDON_BUILD_MARKER,
				       sizeof(CORDON_BUILD_MARKER)) != NULL;
			munmap(m, (size_t)st.st_size);
		}
	}
	close(fd);
	return found;
}

void run_probe(struct probe_result *r, bool launch)
{
	static const char *const paths[] = { "/usr/bin/bwrap", "/bin/bwrap" };
	struct stat st;
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		if (stat(paths[i], &st) == 0 && S_ISREG(st.st_mode) && access(paths[i], X_OK) == 0) {
			r->bwrap_path = xstrdup(paths[i]);
			break;
		}
	}
	if (r->bwrap_path && launch) {
		char *v = NULL;
		char *ver[] = { r->bwrap_path, (char *)"--version", NULL };
		if (run_capture(ver, NULL, &v) == 0)
			r->bwrap_version = v;
		else
			free(v);
		char *try[] = { r->bwrap_path, (char *)"--ro-bind", (char *)"/", (char *)"/",
				(char *)"--dev", (char *)"/dev", (char *)"--proc", (char *)"/proc",
				(char *)"--unshare-user", (char *)"--unshare-pid", (char *)"--unshare-net",
				(char *)"--disable-userns", (char *)"--", (char *)"/bin/true", NULL };
		char *why = NULL;
		r->userns = run_capture(try, NULL, &why) == 0;
		if (!r->userns)
			r->userns_error = why ? why : xstrdup("bwrap failed");
		else
			free(why);
	}
	r->landlock_abi = cordon_landlock_abi();
	r->seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
	r->helper_path = run_find_helper();
	r->helper_same_build = r->helper_path && run_helper_matches(r->helper_path);
	if (launch && geteuid() == 0) {
		r->root = true;
		r->root_why = run_idmap_probe();
		r->root_uid = r->root_why ? 0 : RUN_IDMAP_UID;
	}
}

void run_probe_free(struct probe_result *r)
{
	free(r->bwrap_path);
	free(r->bwrap_version);
	free(r->userns_error);
	free(r->helper_path);
	free(r->root_why);
	memset(r, 0, sizeof(*r));
}
#endif
