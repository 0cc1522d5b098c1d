/* Safe file mutation through libcordon, on real files: modes, hard links,
 * symlinks (dangling, swapped in a loop by another thread, swapped between
 * the write and the rename), and approvals through the C API. */
#include "config.h"

#include "cordon.h"
#include "host/mutate.h"
#include "tap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[64], ws[128], out[128], sess[128];
static cordon_policy *policy;
static cordon_evaluator *ev;

static const char policy_text[] =
	"cordon 1;\n"
	"protect \"${session_dir}\", \"${workspace}/.agent\";\n"
	"preset \"p\" {\n"
	"  approval ask;\n"
	"  sandbox none;\n"
	"  read \"/**\" allow;\n"
	"  write \"${workspace}\" allow;\n"
	"  write \"${workspace}/ask\" ask;\n"
	"  write \"/**\" deny \"outside the workspace\";\n"
	"}\n";

/* Per thread: the racing tests call it from several threads at once. */
static char *path(const char *dir, const char *rel)
{
	static _Thread_local char bufs[8][512];
	static _Thread_local int n;
	char *b = bufs[n++ % 8];
	snprintf(b, sizeof(bufs[0]), "%s/%s", dir, rel);
	return b;
}

static void put(const char *p, const char *text, mode_t mode)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		perror(p);
		exit(99);
	}
	fchmod(fd, mode);
	close(fd);
}

static char *get(const char *p)
{
	static char buf[4096];
	int fd = open(p, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

/* Files in dir whose name starts with prefix ("" for every entry). */
static int count_entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    strncmp(e->d_name, prefix, strlen(prefix)) == 0)
			n++;
	closedir(d);
	return n;
}

static enum cordon_mutation_outcome write_text(const char *p, const char *text, const char *approval,
					       struct cordon_mutation_result *res)
{
	struct cordon_mutation m = { .kind = CORDON_MUTATE_WRITE, .path = p, .fd = -1,
				     .data = text, .len = strlen(text), .approval = approval };
	return cordon_mutate(ev, &m, res);
}

static enum cordon_mutation_outcome write_simple(const char *p, const char *text)
{
	struct cordon_mutation_result res;
	enum cordon_mutation_outcome o = write_text(p, text, NULL, &res);
	if (o != CORDON_MUTATION_DONE)
		printf("# %s: %s\n", p, res.message ? res.message : "");
	cordon_mutation_result_clear(&res);
	return o;
}

static void test_modes(void)
{
	struct stat st;
	umask(022);
	ok(write_simple(path(ws, "new"), "one\n") == CORDON_MUTATION_DONE, "a new file is written");
	ok(stat(path(ws, "new"), &st) == 0 && (st.st_mode & 07777) == 0600, "a new file is 0600 (%o)",
	   st.st_mode & 07777);
	is_str(get(path(ws, "new")), "one\n", "with its content");

	put(path(ws, "m640"), "old\n", 0640);
	ok(write_simple(path(ws, "m640"), "new\n") == CORDON_MUTATION_DONE &&
		   stat(path(ws, "m640"), &st) == 0 && (st.st_mode & 07777) == 0640,
	   "a replaced 0640 file stays 0640");
	put(path(ws, "m755"), "#!/bin/sh\n", 0755);
	ok(write_simple(path(ws, "m755"), "#!/bin/sh\nexit 0\n") == CORDON_MUTATION_DONE &&
		   stat(path(ws, "m755"), &st) == 0 && (st.st_mode & 07777) == 0755,
	   "a replaced 0755 file stays 0755");
	ok(count_entries(ws, TEMP_PREFIX) == 0, "no temp file is left behind");
}

static void test_hard_link(void)
{
	struct stat a, b;
	put(path(ws, "linked"), "shared\n", 0644);
	link(path(ws, "linked"), path(out, "other-link"));
	ok(write_simple(path(ws, "linked"), "replaced\n") == CORDON_MUTATION_DONE,
	   "a hard-linked target is written");
	is_str(get(path(ws, "linked")), "replaced\n", "the target has the new content");
	is_str(get(path(out, "other-link")), "shared\n", "the other link keeps the old content");
	ok(stat(path(ws, "linked"), &a) == 0 && stat(path(out, "other-link"), &b) == 0 &&
		   a.st_ino != b.st_ino && b.st_nlink == 1,
	   "the target is a new inode; the old one lost a link");
}

static void test_symlinks(void)
{
	struct cordon_mutation_result res;
	struct stat st;

	/* A dangling symlink in the workspace whose destination is outside. */
	symlink(path(out, "planted"), path(ws, "dangling-out"));
	ok(write_text(path(ws, "dangling-out"), "x", NULL, &res) == CORDON_MUTATION_DENIED,
	   "a dangling symlink to outside is refused (%s)", res.message ? res.message : "");
	is_str(res.target, path(out, "planted"), "the decision was on the symlink's destination");
	cordon_mutation_result_clear(&res);
	ok(lstat(path(out, "planted"), &st) != 0, "nothing was created outside");

	/* A dangling symlink inside: the destination is written, the link stays. */
	symlink(path(ws, "dest"), path(ws, "dangling-in"));
	ok(write_simple(path(ws, "dangling-in"), "via link\n") == CORDON_MUTATION_DONE,
	   "a dangling symlink inside the workspace is resolved");
	ok(lstat(path(ws, "dangling-in"), &st) == 0 && S_ISLNK(st.st_mode) &&
		   strcmp(get(path(ws, "dest")) ?: "", "via link\n") == 0,
	   "its destination holds the content and the link is still a link");

	/* The parent directory replaced by a symlink to outside. */
	mkdir(path(ws, "par"), 0755);
	rename(path(ws, "par"), path(ws, "par.moved"));
	symlink(out, path(ws, "par"));
	ok(write_text(path(ws, "par/f"), "x", NULL, &res) == CORDON_MUTATION_DENIED,
	   "a parent replaced by a symlink to outside is decided on its destination: denied");
	cordon_mutation_result_clear(&res);
	for (int walk = 0; walk < 2; walk++) {
		mutate_force_walk = walk;
		int fd = mutate_open_dir(ws, path(ws, "par"));
		ok(fd < 0 && (errno == ELOOP || errno == ENOTDIR || errno == EXDEV),
		   "%s: opening a directory that is a symlink fails (%s)",
		   walk ? "O_NOFOLLOW walk" : "openat2", strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = mutate_open_dir(ws, path(ws, "par.moved"));
		ok(fd >= 0, "%s: a real directory opens", walk ? "O_NOFOLLOW walk" : "openat2");
		if (fd >= 0)
			close(fd);
	}
	mutate_force_walk = false;
	ok(count_entries(out, "f") == 0, "nothing landed outside");
}

/* ---- swapped between the write and the rename ------------------------------- */

static void swap_parent(void *arg)
{
	(void)arg;
	rename(path(ws, "sw"), path(ws, "sw.moved"));
	symlink(out, path(ws, "sw"));
}

static void replace_target(void *arg)
{
	(void)arg;
	unlink(path(ws, "tg"));
	put(path(ws, "tg"), "someone else's\n", 0644);
}

static void test_recheck(bool walk)
{
	struct cordon_mutation_result res;
	const char *mode = walk ? "O_NOFOLLOW walk" : "openat2";
	mutate_force_walk = walk;
	rmdir(path(ws, "sw.moved"));
	unlink(path(ws, "sw"));
	mkdir(path(ws, "sw"), 0755);
	mutate_before_recheck = swap_parent;
	ok(write_text(path(ws, "sw/f"), "x", NULL, &res) == CORDON_MUTATION_REFUSED,
	   "%s: a parent swapped for a symlink before the rename is refused (%s)", mode,
	   res.message ? res.message : "");
	cordon_mutation_result_clear(&res);
	ok(count_entries(out, "f") == 0 && count_entries(path(ws, "sw.moved"), "") == 0,
	   "%s: nothing was written anywhere, no temp file is left", mode);

	put(path(ws, "tg"), "original\n", 0644);
	mutate_before_recheck = replace_target;
	ok(write_text(path(ws, "tg"), "mine\n", NULL, &res) == CORDON_MUTATION_REFUSED,
	   "%s: a target replaced before the rename is refused (%s)", mode,
	   res.message ? res.message : "");
	cordon_mutation_result_clear(&res);
	mutate_before_recheck = NULL;
	mutate_force_walk = false;
	is_str(get(path(ws, "tg")), "someone else's\n", "%s: the other writer's file is kept", mode);
	ok(count_entries(ws, TEMP_PREFIX) == 0, "%s: no temp file is left", mode);
}

/* ---- a thread flips a component between a directory and a symlink ---------- */

static atomic_bool stop;

static void *flipper(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		rename(path(ws, "flip"), path(ws, "flip.d"));
		symlink(out, path(ws, "flip"));
		unlink(path(ws, "flip"));
		rename(path(ws, "flip.d"), path(ws, "flip"));
		/* Stay a directory for a while, so that writes get through the
		 * decision and the open and meet the flip later on. */
		for (int i = 0; i < 200; i++)
			sched_yield();
	}
	return NULL;
}

static void test_race(bool walk)
{
	pthread_t t;
	int done = 0, refused = 0, other = 0;
	mutate_force_walk = walk;
	mkdir(path(ws, "flip"), 0755);
	atomic_store(&stop, false);
	pthread_create(&t, NULL, flipper, NULL);
	for (int i = 0; i < 2000; i++) {
		struct cordon_mutation_result res;
		switch (write_text(path(ws, "flip/f"), "racing\n", NULL, &res)) {
		case CORDON_MUTATION_DONE:
			done++;
			break;
		case CORDON_MUTATION_DENIED:
		case CORDON_MUTATION_REFUSED:
		case CORDON_MUTATION_FAILED:
			refused++;
			break;
		default:
			other++;
		}
		cordon_mutation_result_clear(&res);
	}
	atomic_store(&stop, true);
	pthread_join(t, NULL);
	mutate_force_walk = false;
	printf("# %s: %d written, %d refused or failed\n", walk ? "walk" : "openat2", done, refused);
	ok(other == 0, "%s: every racing write was written, denied, refused or failed",
	   walk ? "O_NOFOLLOW walk" : "openat2");
	ok(count_entries(out, "") == 1, "%s: no racing write landed outside (only other-link is there)",
	   walk ? "O_NOFOLLOW walk" : "openat2");
	ok(count_entries(path(ws, "flip"), TEMP_PREFIX) == 0,
	   "%s: no temp file is left in the flipped directory", walk ? "O_NOFOLLOW walk" : "openat2");
}

/* ---- approvals through the API -------------------------------------------------- */

static void test_approvals(void)
{
	struct cordon_mutation m = { .kind = CORDON_MUTATE_WRITE, .fd = -1, .data = "approved\n",
				     .len = 9 };
	struct cordon_mutation_result res;
	char *id;
	mkdir(path(ws, "ask"), 0755);
	m.path = path(ws, "ask/a");
	ok(cordon_mutate(ev, &m, &res) == CORDON_MUTATION_NEEDS_APPROVAL && res.effect == CORDON_ASK,
	   "an ask without an approval is not written");
	cordon_mutation_result_clear(&res);
	id = cordon_approve(ev, &m, 0, &res);
	ok(id && strlen(id) == 32 && res.approval_id && strcmp(res.approval_id, id) == 0,
	   "an approval is issued");
	cordon_mutation_result_clear(&res);
	m.approval = id;
	ok(cordon_mutate(ev, &m, &res) == CORDON_MUTATION_DONE && res.created &&
		   strcmp(res.approval_id ?: "", id ?: "") == 0,
	   "the approved write is done, and reports its approval");
	cordon_mutation_result_clear(&res);
	is_str(get(path(ws, "ask/a")), "approved\n", "with the approved content");
	ok(cordon_mutate(ev, &m, &res) == CORDON_MUTATION_APPROVAL_VOID,
	   "the approval cannot be used again (%s)", res.message ? res.message : "");
	cordon_mutation_result_clear(&res);
	free(id);

	m.path = path(ws, "ask/a");
	m.approval = NULL;
	id = cordon_approve(ev, &m, 0, &res);
	cordon_mutation_result_clear(&res);
	m.data = "other\n";
	m.len = 6;
	m.approval = id;
	ok(cordon_mutate(ev, &m, &res) == CORDON_MUTATION_APPROVAL_VOID &&
		   strstr(res.message ?: "", "content"),
	   "other content voids the approval (%s)", res.message ? res.message : "");
	cordon_mutation_result_clear(&res);
	is_str(get(path(ws, "ask/a")), "approved\n", "and the file is unchanged");
	ok(count_entries(path(ws, "ask"), TEMP_PREFIX) == 0, "no temp file is left");
	free(id);

	m.path = path(ws, "new");
	m.approval = NULL;
	ok(cordon_approve(ev, &m, 0, &res) == NULL && res.outcome == CORDON_MUTATION_DONE &&
		   res.effect == CORDON_ALLOW,
	   "an allowed write needs no approval");
	cordon_mutation_result_clear(&res);
	m.path = path(out, "x");
	ok(cordon_approve(ev, &m, 0, &res) == NULL && res.outcome == CORDON_MUTATION_DENIED,
	   "a denied write is not approvable");
	cordon_mutation_result_clear(&res);
	mkdir(path(ws, ".agent"), 0755);
	m.path = path(ws, ".agent/state");
	ok(cordon_approve(ev, &m, 0, &res) == NULL && res.outcome == CORDON_MUTATION_DENIED &&
		   strstr(res.message ?: "", "protected"),
	   "a protected path is not approvable");
	cordon_mutation_result_clear(&res);
}

static int remove_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p) == 0 ? 0 : 0;
}

/* ---- two threads consume one approval -------------------------------------- */

struct consumer {
	const char *id;
	enum cordon_mutation_outcome got;
	char *msg;
	const char *target;
};

static void *consume(void *arg)
{
	struct consumer *c = arg;
	struct cordon_mutation_result res;
	c->got = write_text(c->target, "race\n", c->id, &res);
	c->msg = res.message ? strdup(res.message) : NULL;
	cordon_mutation_result_clear(&res);
	return NULL;
}

static void test_racing_consumers(void)
{
	struct cordon_mutation m = { .kind = CORDON_MUTATE_WRITE, .fd = -1, .data = "race\n",
				     .len = 5 };
	int exactly_one = 0, rounds = 50;
	m.path = path(ws, "ask/race");
	for (int i = 0; i < rounds; i++) {
		struct cordon_mutation_result res;
		char *id = cordon_approve(ev, &m, 0, &res);
		cordon_mutation_result_clear(&res);
		char target[512];
		snprintf(target, sizeof(target), "%s", path(ws, "ask/race"));
		struct consumer c[2] = { { id, CORDON_MUTATION_FAILED, NULL, target },
					 { id, CORDON_MUTATION_FAILED, NULL, target } };
		pthread_t t[2];
		for (int k = 0; k < 2; k++)
			pthread_create(&t[k], NULL, consume, &c[k]);
		for (int k = 0; k < 2; k++)
			pthread_join(t[k], NULL);
		if ((c[0].got == CORDON_MUTATION_DONE) + (c[1].got == CORDON_MUTATION_DONE) == 1 &&
		    (c[0].got == CORDON_MUTATION_APPROVAL_VOID ||
		     c[1].got == CORDON_MUTATION_APPROVAL_VOID))
			exactly_one++;
		else
			printf("# round %d: outcomes %d and %d (%s | %s)\n", i, (int)c[0].got,
			       (int)c[1].got, c[0].msg ? c[0].msg : "", c[1].msg ? c[1].msg : "");
		free(c[0].msg);
		free(c[1].msg);
		unlink(path(ws, "ask/race"));
		free(id);
	}
	ok(exactly_one == rounds,
	   "two threads consume one approval: exactly one writes, the other is refused (%d of %d)",
	   exactly_one, rounds);
}

int main(void)
{
	cordon_context *ctx = cordon_context_new();
	char *err = NULL;

	snprintf(base, sizeof(base), "%s/cordon-mutate.XXXXXX", "/tmp");
	if (!mkdtemp(base))
		return 99;
	/* The tree must be canonical: /tmp itself may be a symlink. */
	char *real = realpath(base, NULL);
	snprintf(ws, sizeof(ws), "%s/ws", real);
	snprintf(out, sizeof(out), "%s/out", real);
	snprintf(sess, sizeof(sess), "%s/sess", real);
	free(real);
	mkdir(ws, 0755);
	mkdir(out, 0755);
	policy = cordon_policy_load_string("mutate.cordon", NULL, policy_text, strlen(policy_text));
	cordon_context_set(ctx, "workspace", ws, &err);
	cordon_context_set(ctx, "cwd", ws, &err);
	cordon_context_set(ctx, "session_dir", sess, &err);
	ev = cordon_evaluator_new(policy, "p", ctx, &err);
	if (!ev) {
		printf("Bail out! %s\n", err ? err : "no evaluator");
		return 1;
	}

	test_modes();
	test_hard_link();
	test_symlinks();
	test_recheck(false);
	test_recheck(true);
	test_race(false);
	test_race(true);
	test_approvals();
	test_racing_consumers();

	cordon_evaluator_free(ev);
	cordon_policy_free(policy);
	cordon_context_free(ctx);
	nftw(base, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return tap_done();
}
