/* The approval console's spool, AGENT_DIR/console: its directories, its
 * lock, and the console's side of it (cordon.h, "the approval console").
 *
 * Every file is 0600 in a 0700 directory of this user, written whole under
 * a temporary name and then renamed or linked into place, so a reader
 * sees all of an ask or an answer or nothing.  An answer is linked in
 * exclusively: a second answer to one ask fails (409) instead of
 * replacing the first.  The agent dir is protected by the shipped policy,
 * so nothing in a sandbox writes here. */
#include "config.h"

#include "cordon.h"
#include "console.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Seconds past its expiry after which an ask is swept. */
#define CONSOLE_SWEEP_AFTER 60

static const char *const answer_words[] = {
	[CORDON_CONSOLE_DENY] = "deny",
	[CORDON_CONSOLE_ONCE] = "once",
	[CORDON_CONSOLE_SESSION] = "session",
	[CORDON_CONSOLE_PROJECT] = "project",
};

bool console_id_valid(const char *id)
{
	if (!id || strlen(id) != 32)
		return false;
	for (const char *s = id; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

/* A directory of this user that no one else may enter. */
static int private_dir(int at, const char *name, const char *shown, char **err)
{
	struct stat st;
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int saved = errno;
		*err = xasprintf("cannot open %s: %s", shown, strerror(saved));
		errno = saved;
		return -1;
	}
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 0077)) {
		*err = xasprintf("%s is not a private directory of this user (mode 0700)", shown);
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

int console_subdir(int dfd, const char *name, char **err)
{
	return private_dir(dfd, name, name, err);
}

int console_open(const char *agent_dir, bool create, char **err)
{
	if (!agent_dir || agent_dir[0] != '/') {
		*err = xasprintf("the agent dir must be an absolute path, not '%s'",
				 agent_dir ? agent_dir : "");
		return -1;
	}
	char *dir = xasprintf("%s/console", agent_dir);
	if (create && ((mkdir(agent_dir, 0700) != 0 && errno != EEXIST) ||
		       (mkdir(dir, 0700) != 0 && errno != EEXIST))) {
		*err = xasprintf("cannot make %s: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	int fd = private_dir(AT_FDCWD, dir, dir, err);
	free(dir);
	if (fd < 0 || !create)
		return fd;
	static const char *const subs[] = { "pending", "answers" };
	for (size_t i = 0; i < 2; i++)
		if (mkdirat(fd, subs[i], 0700) != 0 && errno != EEXIST) {
			*err = xasprintf("cannot make %s/console/%s: %s", agent_dir, subs[i],
					 strerror(errno));
			close(fd);
			return -1;
		}
	return fd;
}

bool console_alive(int dfd)
{
	int fd = openat(dfd, "lock", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* The console holds it exclusively: a shared lock we can take means
	 * no console runs. */
	bool alive = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	close(fd);
	return alive;
}

char *console_read(int dfd, const char *name)
{
	struct stat st;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 0077) || st.st_size >= CONSOLE_FILE_MAX) {
		close(fd);
		errno = EPERM;
		return NULL;
	}
	char *text = xmalloc((size_t)st.st_size + 1);
	size_t got = 0;
	for (ssize_t n; got < (size_t)st.st_size; got += (size_t)n)
		if ((n = read(fd, text + got, (size_t)st.st_size - got)) <= 0)
			break;
	close(fd);
	if (got != (size_t)st.st_size) {
		free(text);
		errno = EIO;
		return NULL;
	}
	text[got] = '\0';
	return text;
}

int console_write(int dfd, const char *name, const char *text, bool exclusive)
{
	char tmp[64];
	static unsigned serial;
	snprintf(tmp, sizeof(tmp), ".tmp.%ld.%u", (long)getpid(), serial++);
	int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	size_t len = strlen(text);
	bool ok = write(fd, text, len) == (ssize_t)len && fsync(fd) == 0;
	int saved = errno;
	if (close(fd) != 0 && ok) {
		ok = false;
		saved = errno;
	}
	if (ok && exclusive)
		ok = linkat(dfd, tmp, dfd, name, 0) == 0;
	else if (ok)
		ok = renameat(dfd, tmp, dfd, name) == 0;
	if (!ok)
		saved = errno;
	unlinkat(dfd, tmp, 0);
	errno = saved;
	return ok ? 0 : -1;
}

int cordon_console_claim(const char *agent_dir, char **err)
{
	int dfd = console_open(agent_dir, true, err);
	if (dfd < 0)
		return -1;
	int fd = openat(dfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	close(dfd);
	if (fd < 0) {
		*err = xasprintf("cannot open %s/console/lock: %s", agent_dir, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		*err = errno == EWOULDBLOCK
			       ? xasprintf("a console already runs for %s (see %s/console/url)",
					   agent_dir, agent_dir)
			       : xasprintf("cannot lock %s/console/lock: %s", agent_dir,
					   strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int cordon_console_publish(const char *agent_dir, const char *url, char **err)
{
	int dfd = console_open(agent_dir, true, err);
	if (dfd < 0)
		return -1;
	char *line = xasprintf("%s\n", url);
	int rc = console_write(dfd, "url", line, false);
	if (rc != 0)
		*err = xasprintf("cannot write %s/console/url: %s", agent_dir, strerror(errno));
	free(line);
	close(dfd);
	return rc;
}

/* An ask of pending/ shown in the list: sound, not expired, not answered. */
static json_t *listed_ask(int pending, int answers, const char *name, long long now)
{
	char *text = console_read(pending, name);
	json_t *ask = text ? json_loads(text, 0, NULL) : NULL;
	free(text);
	json_t *exp = json_object_get(ask, "expires");
	const char *id = json_string_value(json_object_get(ask, "id"));
	char *answered = id ? xasprintf("%s.json", id) : NULL;
	bool show = json_is_integer(exp) && json_integer_value(exp) > now &&
		    console_id_valid(id) && !strncmp(name, id, 32) &&
		    faccessat(answers, answered, F_OK, AT_SYMLINK_NOFOLLOW) != 0;
	free(answered);
	/* The ask of a hook that was killed while it waited: long past its
	 * time, nobody waits for it; the console sweeps it. */
	if (json_is_integer(exp) && json_integer_value(exp) + CONSOLE_SWEEP_AFTER < now)
		unlinkat(pending, name, 0);
	if (!show) {
		json_decref(ask);
		return NULL;
	}
	return ask;
}

static int by_created(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	json_int_t p = json_integer_value(json_object_get(x, "created"));
	json_int_t q = json_integer_value(json_object_get(y, "created"));
	return p < q ? -1 : p > q;
}

static char *list_asks(int pending, int answers, char **err)
{
	DIR *d = fdopendir(dup(pending));
	if (!d) {
		*err = xasprintf("cannot read the pending asks: %s", strerror(errno));
		return NULL;
	}
	json_t **v = NULL;
	size_t n = 0, cap = 0;
	long long now = (long long)time(NULL);
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len != 37 || strcmp(e->d_name + 32, ".json") != 0)
			continue;
		json_t *ask = listed_ask(pending, answers, e->d_name, now);
		if (!ask)
			continue;
		if (n == cap)
			v = xrealloc(v, (cap = cap ? 2 * cap : 8) * sizeof(*v));
		v[n++] = ask;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), by_created);
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, v[i]);
	free(v);
	char *s = json_dumps(arr, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(arr);
	if (!s)
		*err = xstrdup("cannot write the pending asks as JSON");
	return s;
}

char *cordon_console_pending(const char *agent_dir, char **err)
{
	int dfd = console_open(agent_dir, false, err);
	if (dfd < 0)
		return NULL;
	int pending = console_subdir(dfd, "pending", err);
	int answers = pending < 0 ? -1 : console_subdir(dfd, "answers", err);
	char *s = answers < 0 ? NULL : list_asks(pending, answers, err);
	if (pending >= 0)
		close(pending);
	if (answers >= 0)
		close(answers);
	close(dfd);
	return s;
}

static int answer_fail(int *code, int c, char **err, char *msg)
{
	*code = c;
	*err = msg;
	return -1;
}

/* The pending ask id of pending/ as the person saw it (its digest), not
 * answered in answers/ and not expired; NULL with *code and *err. */
static json_t *shown_ask(int pending, int answers, const char *id, const char *digest,
			 int *code, char **err)
{
	char name[64];
	snprintf(name, sizeof(name), "%s.json", id);
	char *text = console_read(pending, name);
	if (!text) {
		answer_fail(code, 404, err,
			    xasprintf("no pending ask %s: it was answered, withdrawn or timed out", id));
		return NULL;
	}
	json_t *ask = json_loads(text, 0, NULL);
	free(text);
	const char *want = json_string_value(json_object_get(ask, "digest"));
	json_int_t expires = json_integer_value(json_object_get(ask, "expires"));
	int rc = 0;
	if (!want || !digest || strcmp(want, digest) != 0)
		rc = answer_fail(code, 412, err,
				 xasprintf("ask %s is not the one shown (its digest differs)", id));
	else if (expires <= (json_int_t)time(NULL))
		rc = answer_fail(code, 410, err, xasprintf("ask %s has expired", id));
	else if (faccessat(answers, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		rc = answer_fail(code, 409, err, xasprintf("ask %s was already answered", id));
	if (rc) {
		json_decref(ask);
		return NULL;
	}
	return ask;
}

/* The answer, once, for a pending ask that the person saw as it is. */
static int answer_in(int pending, int answers, const char *id, const char *digest,
		     enum cordon_console_answer answer, const char *actor, int *code, char **err)
{
	char name[64];
	snprintf(name, sizeof(name), "%s.json", id);
	json_t *ask = shown_ask(pending, answers, id, digest, code, err);
	if (!ask)
		return -1;
	json_decref(ask);
	int rc = 0;
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I}", "id", id, "digest", digest, "answer",
			      answer_words[answer], "actor", actor, "time", (json_int_t)time(NULL));
	char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	if (!s)
		return answer_fail(code, 500, err, xstrdup("cannot write the answer"));
	if (console_write(answers, name, s, true) != 0)
		rc = errno == EEXIST
			     ? answer_fail(code, 409, err, xasprintf("ask %s was already answered", id))
			     : answer_fail(code, 500, err,
					   xasprintf("cannot write the answer: %s", strerror(errno)));
	else if (faccessat(pending, name, F_OK, AT_SYMLINK_NOFOLLOW) != 0 &&
		 unlinkat(answers, name, 0) == 0)
		/* The hook withdrew the ask (it took another answer, or its
		 * wait ended) after this one read it: taken back, so a "yes"
		 * after a deny is never reported as accepted.  An answer
		 * already taken cannot be unlinked: the hook has it. */
		rc = answer_fail(code, 404, err,
				 xasprintf("no pending ask %s: it was answered, withdrawn or timed out",
					   id));
	free(s);
	return rc;
}

/* The spool's pending/ and answers/ of agent_dir, opened; -1 with *err. */
static int open_both(const char *agent_dir, int *pending, int *answers, char **err)
{
	*pending = *answers = -1;
	int dfd = console_open(agent_dir, false, err);
	if (dfd < 0)
		return -1;
	*pending = console_subdir(dfd, "pending", err);
	*answers = *pending < 0 ? -1 : console_subdir(dfd, "answers", err);
	close(dfd);
	if (*answers < 0 && *pending >= 0) {
		close(*pending);
		*pending = -1;
	}
	return *answers < 0 ? -1 : 0;
}

char *cordon_console_pending_ask(const char *agent_dir, const char *id, const char *digest,
				 int *code, char **err)
{
	int pending, answers;
	*code = 500;
	if (!console_id_valid(id)) {
		answer_fail(code, 404, err, xstrdup("no such ask"));
		return NULL;
	}
	if (open_both(agent_dir, &pending, &answers, err) != 0)
		return NULL;
	json_t *ask = shown_ask(pending, answers, id, digest, code, err);
	close(pending);
	close(answers);
	char *s = ask ? json_dumps(ask, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	if (ask && !s)
		answer_fail(code, 500, err, xstrdup("cannot write the ask as JSON"));
	json_decref(ask);
	return s;
}

int cordon_console_answer(const char *agent_dir, const char *id, const char *digest,
			  enum cordon_console_answer answer, const char *actor, int *code,
			  char **err)
{
	int pending, answers;
	*code = 500;
	if (!console_id_valid(id))
		return answer_fail(code, 404, err, xstrdup("no such ask"));
	if ((unsigned)answer > CORDON_CONSOLE_PROJECT || !actor)
		return answer_fail(code, 500, err, xstrdup("not an answer"));
	if (open_both(agent_dir, &pending, &answers, err) != 0)
		return -1;
	int rc = answer_in(pending, answers, id, digest, answer, actor, code, err);
	close(pending);
	close(answers);
	return rc;
}
