/* Canonicalisation (lib/base/canon.c): the kernel's proof (canon_path_fast,
 * one openat2 with RESOLVE_NO_SYMLINKS) against the per-component walk
 * (canon_path_walk) on a real tree: the same answer, or no answer from the
 * proof, for every path; and canon_path, which uses both, gives the
 * walk's answer.  The cases run as the caller, as nobody (when run as
 * root) and in processes where openat2 fails with ENOSYS, as under a
 * seccomp filter, or answers every call with ENOENT, as a broken
 * stand-in would: there the proof must stay out of it. */
#include "config.h"

#include "base/canon.h"
#include "tap.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[PATH_MAX]; /* the tree, canonical */
static bool privileged;     /* root: the 0700 directory is no obstacle */

enum proof {
	PROVES,		  /* canon_path_fast answers (when openat2 works here) */
	DEFERS,		  /* it leaves the path to the walk */
	PROVES_IF_REACHABLE, /* PROVES where the caller may search the directory */
};

struct tcase {
	const char *what, *path, *cwd; /* "%R" in path and cwd is the tree */
	const char *want;              /* "%R/..."; NULL: an error */
	enum proof proof;
	bool locked; /* below the 0700 directory: an error for nobody */
};

/* The cases, in the tree made by make_tree. */
static const struct tcase cases[] = {
	{ "a real file", "%R/real/dir/file", NULL, "%R/real/dir/file", PROVES, false },
	{ "a real directory", "%R/real/dir", NULL, "%R/real/dir", PROVES, false },
	{ "the root", "/", NULL, "/", PROVES, false },
	{ "'.', '//' and a trailing slash", "%R//real/./dir/", NULL, "%R/real/dir", PROVES,
	  false },
	{ "a trailing slash on a file", "%R/real/dir/file/", NULL, "%R/real/dir/file", PROVES,
	  false },
	{ "relative, in a cwd", "dir/file", "%R/real", "%R/real/dir/file", PROVES, false },
	{ "a missing tail below a real directory", "%R/real/dir/new/deeper", NULL,
	  "%R/real/dir/new/deeper", PROVES, false },
	{ "below a file", "%R/real/dir/file/x/y", NULL, "%R/real/dir/file/x/y", PROVES, false },
	{ "'..' between real directories", "%R/real/dir/../dir/file", NULL, "%R/real/dir/file",
	  PROVES, false },
	{ "'..' in the cwd", "file", "%R/real/dir/../dir", "%R/real/dir/file", PROVES, false },
	{ "'..' at the root", "/../..%R/real", NULL, "%R/real", PROVES, false },
	{ "'..' after a file", "%R/real/dir/file/../file", NULL, "%R/real/dir/file", DEFERS,
	  false },
	{ "'..' after a missing directory", "%R/real/missing/../dir/file", NULL,
	  "%R/real/dir/file", DEFERS, false },
	{ "'..' after a missing directory, then a symlink", "%R/real/missing/../../mid/file", NULL,
	  "%R/real/dir/file", DEFERS, false },
	{ "a symlink in the middle", "%R/mid/file", NULL, "%R/real/dir/file", DEFERS, false },
	{ "an absolute symlink in the middle", "%R/abs/file", NULL, "%R/real/dir/file", DEFERS,
	  false },
	{ "a symlink at the end", "%R/end", NULL, "%R/real/dir/file", DEFERS, false },
	{ "a symlink to a directory at the end", "%R/mid", NULL, "%R/real/dir", DEFERS, false },
	{ "a symlink in the cwd", "file", "%R/mid", "%R/real/dir/file", DEFERS, false },
	{ "two symlinks, one after the other", "%R/twice/file", NULL, "%R/real/dir/file", DEFERS,
	  false },
	{ "a symlink after a symlink's target", "%R/mid/link/x", NULL, "%R/real/other/x", DEFERS,
	  false },
	{ "a dangling symlink", "%R/dangle", NULL, "%R/real/nothing/here", DEFERS, false },
	{ "below a dangling symlink", "%R/dangle/x", NULL, "%R/real/nothing/here/x", DEFERS,
	  false },
	{ "a symlink loop", "%R/loop1/x", NULL, NULL, DEFERS, false },
	{ "a symlink to itself", "%R/self", NULL, NULL, DEFERS, false },
	{ "'..' after a symlink", "%R/mid/../other", NULL, "%R/real/other", DEFERS, false },
	{ "'..' after a symlink, back to its name's directory", "%R/mid/../../mid", NULL,
	  "%R/real/dir", DEFERS, false },
	{ "a missing tail below a symlink", "%R/mid/new/deeper", NULL, "%R/real/dir/new/deeper",
	  DEFERS, false },
	{ "a missing tail below a symlink to a credentials directory", "%R/home/.ssh/id_new",
	  NULL, "%R/real/keys/id_new", DEFERS, false },
	{ "a file below a symlinked credentials directory", "%R/home/.ssh/id_ed25519", NULL,
	  "%R/real/keys/id_ed25519", DEFERS, false },
	{ "a symlink in /proc", "/proc/self/root%R/real", NULL, "%R/real", DEFERS, false },
	{ "a missing name at the top", "%R/.codex", NULL, "%R/.codex", PROVES, false },
	{ "below a missing name at the top", "%R/.git/hooks", NULL, "%R/.git/hooks", PROVES,
	  false },
	{ "a missing name next to a symlink", "%R/home/.aws/credentials", NULL,
	  "%R/home/.aws/credentials", PROVES, false },
	{ "a directory at the top", "%R/real", NULL, "%R/real", PROVES, false },
	{ "below an empty directory", "%R/empty/x/y", NULL, "%R/empty/x/y", PROVES, false },
	{ "a 0700 directory of another user", "%R/locked", NULL, "%R/locked", PROVES, false },
	{ "a file in it", "%R/locked/secret", NULL, "%R/locked/secret", PROVES_IF_REACHABLE,
	  true },
	{ "a missing file in it", "%R/locked/none", NULL, "%R/locked/none", PROVES_IF_REACHABLE,
	  true },
	{ "a symlink into it", "%R/tolocked", NULL, "%R/locked/secret", DEFERS, true },
};

static char *subst(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(root), len = 0;
	char *out = malloc(strlen(s) * (n + 1) + 1);
	for (; *s; s++) {
		if (s[0] == '%' && s[1] == 'R') {
			memcpy(out + len, root, n);
			len += n;
			s++;
		} else {
			out[len++] = *s;
		}
	}
	out[len] = '\0';
	return out;
}

static void must(int rc, const char *what)
{
	if (rc != 0) {
		perror(what);
		exit(99);
	}
}

static void make_tree(void)
{
	char tmpl[] = "/tmp/cordon-canon.XXXXXX", p[PATH_MAX + 64];
	if (!mkdtemp(tmpl) || !realpath(tmpl, root)) {
		perror("mkdtemp");
		exit(99);
	}
	must(chmod(root, 0755), "chmod");
	static const char *dirs[] = { "real", "real/dir", "real/other", "real/keys", "home",
				      "locked", "empty" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", root, dirs[i]);
		must(mkdir(p, 0755), p);
	}
	static const char *files[] = { "real/dir/file", "real/keys/id_ed25519", "locked/secret" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", root, files[i]);
		FILE *f = fopen(p, "w");
		if (!f || fclose(f) != 0)
			must(-1, p);
	}
	static const char *links[][2] = {
		{ "mid", "real/dir" },	     { "end", "real/dir/file" },
		{ "twice", "mid" },	     { "real/dir/link", "../other" },
		{ "dangle", "real/nothing/here" },
		{ "loop1", "loop2" },	     { "loop2", "loop1" },
		{ "self", "self" },	     { "home/.ssh", "../real/keys" },
		{ "tolocked", "locked/secret" },
	};
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", root, links[i][0]);
		must(symlink(links[i][1], p), p);
	}
	snprintf(p, sizeof(p), "%s/abs", root);
	char target[PATH_MAX + 16];
	snprintf(target, sizeof(target), "%s/real/dir", root);
	must(symlink(target, p), p);
	/* Root's own 0700 directory is another user's for nobody; a caller
	 * that is not root cannot make one, and shuts its own instead. */
	snprintf(p, sizeof(p), "%s/locked", root);
	must(chmod(p, privileged ? 0700 : 0), p);
}

static void remove_tree(void)
{
	char cmd[2 * PATH_MAX + 64];
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s' && rm -rf '%s'", root, root);
	if (system(cmd) != 0)
		fprintf(stderr, "# could not remove %s\n", root);
}

/* Whether openat2 proves anything in this process. */
static bool kernel_proves(void)
{
	char *r = canon_path_fast("/", 1, NULL);
	free(r);
	return r != NULL;
}

static int report(bool tap, bool cond, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int report(bool tap, bool cond, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (tap)
		ok(cond, "%s", msg);
	else if (!cond)
		printf("#   failed: %s\n", msg);
	return !cond;
}

static bool same(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

/* Every case; TAP lines when tap, else only failures (in a child).  The
 * number of failures. */
static int run_cases(const char *who, bool tap, bool proof_expected)
{
	int failed = 0;
	/* The directories a listing may answer for; "mid" is a symlink, and
	 * its listing must not be made. */
	static const char *const listed_dirs[] = { "%R", "%R/real", "%R/home", "%R/locked",
						   "%R/mid", "%R/empty" };
	struct canon_listing ls[sizeof(listed_dirs) / sizeof(listed_dirs[0])];
	size_t nls = 0;
	for (size_t i = 0; i < sizeof(listed_dirs) / sizeof(listed_dirs[0]); i++) {
		char *d = subst(listed_dirs[i]);
		bool got = canon_listing_read(&ls[nls], d);
		bool want = proof_expected && i != 4 && (i != 3 || privileged);
		nls += got;
		failed += report(tap, got == want, "%s: %s is %slisted", who, listed_dirs[i],
				 want ? "" : "not ");
		free(d);
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct tcase *c = &cases[i];
		char *path = subst(c->path), *cwd = subst(c->cwd);
		char *want = c->locked && !privileged ? NULL : subst(c->want);
		char *e1 = NULL, *e2 = NULL;
		char *walked = canon_path_walk(path, strlen(path), cwd, NULL, &e1);
		char *got = canon_path(path, strlen(path), cwd, &e2);
		char *proven = canon_path_fast(path, strlen(path), cwd);
		failed += report(tap, same(walked, want), "%s: %s: the walk gives %s (%s)", who,
				 c->what, want ? want : "an error", walked ? walked : e1);
		failed += report(tap, same(got, walked) && (got || (e2 && strcmp(e1, e2) == 0)),
				 "%s: %s: canon_path gives the walk's answer (%s)", who, c->what,
				 got ? got : e2);
		bool proves = proof_expected && (c->proof == PROVES ||
						 (c->proof == PROVES_IF_REACHABLE && privileged));
		failed += report(tap, proves ? same(proven, walked) : proven == NULL,
				 "%s: %s: the kernel's proof %s", who, c->what,
				 proves ? "gives the same answer" : "leaves it to the walk");
		if (!c->cwd) {
			char *e3 = NULL;
			char *listed = canon_path_listed(ls, nls, path, strlen(path), &e3);
			failed += report(tap,
					 same(listed, got) && (listed || (e3 && strcmp(e2, e3) == 0)),
					 "%s: %s: the listings give canon_path's answer (%s)", who,
					 c->what, listed ? listed : e3);
			free(listed);
			free(e3);
		}
		free(path);
		free(cwd);
		free(want);
		free(walked);
		free(got);
		free(proven);
		free(e1);
		free(e2);
	}

	/* Too long for the kernel: the walk's error, from canon_path too. */
	char *lng = malloc(PATH_MAX + 64), *e1 = NULL, *e2 = NULL;
	int n = snprintf(lng, PATH_MAX + 64, "%s/real", root);
	while (n < PATH_MAX + 8)
		n += snprintf(lng + n, (size_t)(PATH_MAX + 64 - n), "/d");
	char *walked = canon_path_walk(lng, (size_t)n, NULL, NULL, &e1);
	char *got = canon_path(lng, (size_t)n, NULL, &e2);
	char *proven = canon_path_fast(lng, (size_t)n, NULL);
	failed += report(tap, !walked && !got && !proven && e1 && e2 && strcmp(e1, e2) == 0,
			 "%s: a path longer than PATH_MAX is an error (%s)", who, e2 ? e2 : "none");
	free(e1);
	free(e2);
	free(walked);
	free(got);
	free(proven);
	/* Short, but too long once made absolute in a long cwd. */
	lng[n - 12] = '\0';
	e1 = e2 = NULL;
	walked = canon_path_walk("x/../y", 6, lng, NULL, &e1);
	got = canon_path("x/../y", 6, lng, &e2);
	proven = canon_path_fast("x/../y", 6, lng);
	failed += report(tap, same(got, walked) && !proven,
			 "%s: a relative path in a cwd near PATH_MAX: the walk's answer (%s)", who,
			 got ? "a path" : e2);
	free(e1);
	free(e2);
	free(walked);
	free(got);
	free(proven);
	free(lng);
	for (size_t i = 0; i < nls; i++)
		canon_listing_free(&ls[i]);
	return failed;
}

/* A listing answers from the names it read: a symlink made after it is
 * not seen (so the listing must not outlive the work it was read for),
 * which shows that it answers at all.  File systems that may fold case
 * or whose names are not all listed are not read. */
static void listing_is_a_snapshot(void)
{
	struct canon_listing l;
	char *late = subst("%R/late"), *below = subst("%R/late/file");
	char *target = subst("%R/real/dir"), *want = subst("%R/real/dir/file"), *err = NULL;
	ok(canon_listing_read(&l, root), "the tree is listed");
	must(symlink(target, late), late);
	char *listed = canon_path_listed(&l, 1, below, strlen(below), &err);
	char *now = canon_path(below, strlen(below), NULL, &err);
	is_str(listed, below, "a name made after the listing: the listing's answer");
	is_str(now, want, "and canon_path's, which follows the new symlink");
	must(unlink(late), late);
	canon_listing_free(&l);
	ok(!canon_listing_read(&l, "/proc"), "/proc is not listed (not a file system of names)");
	ok(!canon_listing_read(&l, "/tmp/../tmp"), "a path with '..' is not listed");
	free(late);
	free(below);
	free(target);
	free(want);
	free(listed);
	free(now);
}

/* Run the cases in a child process set up by how; ok when none failed. */
static void in_child(const char *who, void (*how)(void), bool proof_expected)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(99);
	}
	if (pid == 0) {
		how();
		int failed = run_cases(who, false, proof_expected);
		fflush(stdout);
		_exit(failed > 100 ? 100 : failed);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: every case as the walk answers it",
	   who);
}

static void filter_openat2(int errnum)
{
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
	if (!f || seccomp_rule_add(f, SCMP_ACT_ERRNO(errnum), SCMP_SYS(openat2), 0) != 0 ||
	    seccomp_load(f) != 0) {
		fprintf(stderr, "cannot install the seccomp filter\n");
		_exit(99);
	}
	seccomp_release(f);
}

static void no_openat2(void)
{
	filter_openat2(ENOSYS);
	if (kernel_proves())
		_exit(98);
}

static void openat2_says_enoent(void)
{
	filter_openat2(ENOENT);
}

static void as_nobody(void)
{
	if (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 ||
	    setresuid(65534, 65534, 65534) != 0) {
		perror("setresuid");
		_exit(99);
	}
	privileged = false;
	char *secret = subst("%R/locked/secret");
	struct stat st;
	int rc = lstat(secret, &st);
	free(secret);
	if (rc == 0 || errno != EACCES)
		_exit(97); /* the test would not test what it says */
}

int main(void)
{
	privileged = geteuid() == 0;
	make_tree();

	/* First, in fresh processes, before this one asks the kernel: the
	 * first call is where the proof is tried. */
	in_child("openat2 failing with ENOSYS", no_openat2, false);
	in_child("openat2 answering ENOENT to everything", openat2_says_enoent, false);
	if (privileged)
		in_child("nobody", as_nobody, kernel_proves());

	bool proves = kernel_proves();
	if (!proves)
		printf("# openat2 proves nothing here: only the walk is tested\n");
	run_cases(privileged ? "root" : "this user", true, proves);
	if (proves)
		listing_is_a_snapshot();
	remove_tree();
	return tap_done();
}
