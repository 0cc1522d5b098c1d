/* Session grants: SESSION_DIR/grants/HEX, one 0600 file a tool name.
 *
 * The file is named by the hex spelling of the tool name's bytes, so no
 * name can traverse paths or collide with another by case; the file also
 * records the name, and a look-up compares it byte for byte.  A grant is
 * written to a temporary file and renamed, so a reader sees all of it or
 * nothing.  The session dir is a protected path in the shipped policy:
 * nothing in the sandbox can forge a grant. */
#include "config.h"

#include "cordon.h"
#include "grant.h"
#include "base/digest.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* NAME_MAX is 255: two hex digits a byte. */
#define GRANT_NAME_MAX 127
#define GRANT_FILE_MAX 8192

static int grant_file_name(const char *tool, size_t len, char out[2 * GRANT_NAME_MAX + 1],
			   char **err)
{
	if (len == 0 || memchr(tool, '\0', len)) {
		if (err)
			*err = xstrdup("a tool name for a grant must be nonempty, without NUL bytes");
		return -1;
	}
	if (len > GRANT_NAME_MAX) {
		if (err)
			*err = xasprintf("tool name '%.*s...' is longer than %d bytes; it cannot be "
					 "granted for a session",
					 40, tool, GRANT_NAME_MAX);
		return -1;
	}
	hex_encode(tool, len, out);
	return 0;
}

/* The grants directory, opened without following a symlink; with create,
 * made 0700 (the session dir too, when missing). */
int grant_dir_open(const char *session_dir, bool create, char **err)
{
	char *dir;
	int fd;
	struct stat st;

	if (!session_dir || session_dir[0] != '/') {
		if (err)
			*err = xasprintf("the session dir must be an absolute path, not '%s'",
					 session_dir ? session_dir : "");
		return -1;
	}
	dir = xasprintf("%s/grants", session_dir);
	if (create) {
		/* mkdir -p of the session dir; each new level private. */
		char *p = xstrdup(session_dir);
		for (char *s = p + 1;; s++) {
			if (*s != '/' && *s != '\0')
				continue;
			char c = *s;
			*s = '\0';
			if (mkdir(p, 0700) != 0 && errno != EEXIST) {
				if (err)
					*err = xasprintf("cannot make the session dir %s: %s", p,
							 strerror(errno));
				free(p);
				free(dir);
				return -1;
			}
			*s = c;
			if (!c)
				break;
		}
		free(p);
		if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
			if (err)
				*err = xasprintf("cannot make %s: %s", dir, strerror(errno));
			free(dir);
			return -1;
		}
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int saved = errno;
		if (err)
			*err = xasprintf("cannot open %s: %s", dir, strerror(saved));
		free(dir);
		errno = saved; /* revoking from no grants dir is no error */
		return -1;
	}
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 0022)) {
		if (err)
			*err = xasprintf("%s is not a private directory of this user", dir);
		close(fd);
		free(dir);
		return -1;
	}
	free(dir);
	return fd;
}

static void now_rfc3339(char *buf, size_t size)
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 ts.tv_nsec / 1000000);
}

int cordon_grant_tool(const char *session_dir, const char *tool, const char *actor, char **err)
{
	char name[2 * GRANT_NAME_MAX + 1], tmp[32], when[96];
	int dfd, fd = -1, rc = -1;
	json_t *o;
	char *s = NULL;

	if (grant_file_name(tool, strlen(tool), name, err) != 0)
		return -1;
	if (!actor || !*actor) {
		struct passwd *pw = getpwuid(geteuid());
		actor = getenv("USER");
		if ((!actor || !*actor) && pw)
			actor = pw->pw_name;
	}
	if ((dfd = grant_dir_open(session_dir, true, err)) < 0)
		return -1;
	now_rfc3339(when, sizeof(when));
	o = json_pack("{s:s, s:s?, s:s}", "tool", tool, "actor", actor, "time", when);
	if (!o || !(s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER))) {
		*err = xasprintf("tool name '%s' is not UTF-8 text", tool);
		goto out;
	}
	for (unsigned i = 0; fd < 0 && i < 100; i++) {
		snprintf(tmp, sizeof(tmp), "tmp.%ld.%u", (long)getpid(), i);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		*err = xasprintf("cannot write a grant in %s/grants: %s", session_dir, strerror(errno));
		goto out;
	}
	size_t len = strlen(s);
	if (write(fd, s, len) != (ssize_t)len || write(fd, "\n", 1) != 1 || fsync(fd) != 0 ||
	    close(fd) != 0) {
		*err = xasprintf("cannot write a grant in %s/grants: %s", session_dir, strerror(errno));
		fd = -1;
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	fd = -1;
	if (renameat(dfd, tmp, dfd, name) != 0) {
		*err = xasprintf("cannot record the grant in %s/grants: %s", session_dir,
				 strerror(errno));
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(s);
	json_decref(o);
	close(dfd);
	return rc;
}

bool grant_lookup(const char *session_dir, const char *tool, size_t len, struct grant_info *info)
{
	char name[2 * GRANT_NAME_MAX + 1], buf[GRANT_FILE_MAX];
	struct stat st;
	int dfd, fd;
	ssize_t n;
	bool ok = false;
	json_t *o = NULL, *t, *a, *w;

	memset(info, 0, sizeof(*info));
	if (grant_file_name(tool, len, name, NULL) != 0)
		return false;
	if ((dfd = grant_dir_open(session_dir, false, NULL)) < 0)
		return false;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	close(dfd);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 0077) || st.st_size >= GRANT_FILE_MAX ||
	    (n = read(fd, buf, sizeof(buf) - 1)) <= 0)
		goto out;
	o = json_loadb(buf, (size_t)n, 0, NULL);
	t = json_object_get(o, "tool");
	a = json_object_get(o, "actor");
	w = json_object_get(o, "time");
	if (!json_is_string(t) || json_string_length(t) != len ||
	    memcmp(json_string_value(t), tool, len) != 0)
		goto out;
	info->actor = xstrdup(json_is_string(a) ? json_string_value(a) : "an unknown user");
	info->time = xstrdup(json_is_string(w) ? json_string_value(w) : "an unknown time");
	ok = true;
out:
	json_decref(o);
	close(fd);
	return ok;
}

void grant_info_free(struct grant_info *info)
{
	free(info->actor);
	free(info->time);
	memset(info, 0, sizeof(*info));
}

int cordon_revoke_tool(const char *session_dir, const char *tool, size_t *removed, char **err)
{
	char name[2 * GRANT_NAME_MAX + 1];
	int dfd;
	if (removed)
		*removed = 0;
	if (grant_file_name(tool, strlen(tool), name, err) != 0)
		return -1;
	if ((dfd = grant_dir_open(session_dir, false, err)) < 0) {
		/* No grants dir: nothing to revoke. */
		if (errno == ENOENT) {
			free(*err);
			*err = NULL;
			return 0;
		}
		return -1;
	}
	if (unlinkat(dfd, name, 0) == 0) {
		if (removed)
			*removed = 1;
	} else if (errno != ENOENT) {
		*err = xasprintf("cannot remove the grant for '%s' in %s/grants: %s", tool,
				 session_dir, strerror(errno));
		close(dfd);
		return -1;
	}
	close(dfd);
	return 0;
}

int cordon_revoke_all(const char *session_dir, size_t *removed, char **err)
{
	int dfd, rc = 0;
	DIR *d;
	struct dirent *e;
	size_t count = 0;
	if (removed)
		*removed = 0;
	if ((dfd = grant_dir_open(session_dir, false, err)) < 0) {
		if (errno == ENOENT) {
			free(*err);
			*err = NULL;
			return 0;
		}
		return -1;
	}
	if (!(d = fdopendir(dfd))) {
		*err = xasprintf("cannot read %s/grants: %s", session_dir, strerror(errno));
		close(dfd);
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0) {
			if (strncmp(e->d_name, "tmp.", 4) != 0)
				count++;
		} else if (errno != ENOENT && rc == 0) {
			*err = xasprintf("cannot remove %s/grants/%s: %s", session_dir, e->d_name,
					 strerror(errno));
			rc = -1;
		}
	}
	closedir(d);
	if (removed)
		*removed = count;
	return rc;
}
