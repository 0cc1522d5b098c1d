/* landlock_probe ROOT OUTSIDE: apply cordon_landlock_apply() with ROOT and
 * /dev as the write roots (TCP denied), then try writes inside and outside and
 * print one line each, "what ok" or "what ERRNO-NAME".  Exits 77 when the
 * kernel has no Landlock, 1 when applying fails. */
#include "config.h"

#include "cordon/landlock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *errno_name(int e)
{
	switch (e) {
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EXDEV: return "EXDEV";
	case ENOENT: return "ENOENT";
	case EEXIST: return "EEXIST";
	case ECONNREFUSED: return "ECONNREFUSED";
	default: return "E?";
	}
}

static void report(const char *what, int r)
{
	if (r < 0)
		printf("%s %s\n", what, errno_name(errno));
	else
		printf("%s ok\n", what);
}

static int create(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	int r = write(fd, "x\n", 2) == 2 ? 0 : -1;
	close(fd);
	return r;
}

static int at(const char *dir, const char *name, char *buf, size_t size)
{
	return snprintf(buf, size, "%s/%s", dir, name);
}

int main(int argc, char **argv)
{
	char a[4096], b[4096];
	char *err = NULL;
	if (argc != 3) {
		fprintf(stderr, "usage: landlock_probe ROOT OUTSIDE\n");
		return 2;
	}
	const char *root = argv[1], *outside = argv[2];

	/* Before: a listener to connect to, and a file outside to try later. */
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t slen = sizeof(sin);
	int have_listener = lfd >= 0 && bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
			    listen(lfd, 1) == 0 &&
			    getsockname(lfd, (struct sockaddr *)&sin, &slen) == 0;
	at(outside, "existing", a, sizeof(a));
	int fd = open(a, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);

	const char *const roots[] = { root, "/dev" };
	int rc = cordon_landlock_apply(roots, 2, CORDON_LANDLOCK_DENY_TCP, &err);
	if (rc == 1) {
		printf("unsupported: %s\n", err);
		free(err);
		return 77;
	}
	if (rc != 0) {
		fprintf(stderr, "landlock_probe: %s\n", err);
		free(err);
		return 1;
	}
	printf("abi %d\n", cordon_landlock_abi());

	report("create-inside", create(root, "new"));
	report("create-outside", create(outside, "new"));
	at(root, "dir", a, sizeof(a));
	report("mkdir-inside", mkdir(a, 0700));
	at(outside, "dir", a, sizeof(a));
	report("mkdir-outside", mkdir(a, 0700));
	at(outside, "existing", a, sizeof(a));
	report("read-outside", open(a, O_RDONLY | O_CLOEXEC));
	report("write-outside", open(a, O_WRONLY | O_CLOEXEC));
	report("truncate-outside", truncate(a, 0));
	report("unlink-outside", unlink(a));
	at(root, "new", a, sizeof(a));
	at(outside, "moved", b, sizeof(b));
	report("rename-out", rename(a, b));
	at(root, "renamed", b, sizeof(b));
	report("rename-inside", rename(a, b));
	report("write-devnull", open("/dev/null", O_WRONLY | O_CLOEXEC));
	if (have_listener) {
		int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		report("tcp-connect", c < 0 ? -1 : connect(c, (struct sockaddr *)&sin, sizeof(sin)));
	}
	return 0;
}
