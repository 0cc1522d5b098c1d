/* The runner's part of the egress relay (egress_relay.h) at the launch:
 * the resolver file the sandbox reads, and the arguments bwrap and
 * cordon-exec get for the DNS stub and the transparent relay. */
#include "config.h"

#include "egress_launch.h"
#include "cordon/landlock.h"
#include "run_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the sandbox reads as /etc/resolv.conf when it has the egress proxy:
 * cordon-exec's DNS stub (dns_stub.h) on its loopback.  A file beside the
 * private temp dir, as the mask file is; NULL without one. */
char *resolv_file(const cordon_lowering *in)
{
	const char *tmp = cordon_lowering_tmp(in);
	return tmp && (cordon_lowering_landlock_flags(in) & CORDON_LANDLOCK_EGRESS)
		       ? xasprintf("%s.resolv", tmp)
		       : NULL;
}

int prepare_resolv(const cordon_lowering *in, bool *made, char **err)
{
	static const char text[] = "# cordon: the sandbox's DNS stub; the egress proxy decides "
				   "every host\nnameserver 127.0.0.1\noptions attempts:1\n";
	char *path = resolv_file(in);
	if (!path)
		return 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
	if (fd < 0 || write_all(fd, text, sizeof(text) - 1) != 0) {
		*err = xasprintf("cannot make the resolver file %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(path);
		return -1;
	}
	close(fd);
	*made = true;
	free(path);
	return 0;
}

/* Where the resolver file goes in the sandbox: /etc/resolv.conf, or the
 * file it is a link to (a bind follows the link); NULL when the host has
 * none or a dangling link, where the C library asks 127.0.0.1, the stub,
 * by itself. */
static char *resolv_dest(void)
{
	struct stat st;
	if (lstat("/etc/resolv.conf", &st) != 0)
		return NULL;
	if (!S_ISLNK(st.st_mode))
		return xstrdup("/etc/resolv.conf");
	return realpath("/etc/resolv.conf", NULL);
}

/* bwrap's arguments for the egress relay: the capabilities cordon-exec
 * needs to make the sandbox's network namespace and bind port 53 and the
 * relay's ports in it, which it drops, every one, before Landlock and the
 * command (egress_drop_caps); and the resolver file. */
void egress_bwrap_args(const cordon_lowering *in, char ***v, size_t *n, size_t *cap)
{
	static const char *const caps[] = { "CAP_SYS_ADMIN", "CAP_NET_ADMIN",
					    "CAP_NET_BIND_SERVICE", "CAP_SETPCAP" };
	for (size_t i = 0; i < ARRAY_SIZE(caps); i++) {
		VEC_PUSH(*v, *n, *cap, xstrdup("--cap-add"));
		VEC_PUSH(*v, *n, *cap, xstrdup(caps[i]));
	}
	char *file = resolv_file(in), *dest = resolv_dest();
	if (file && dest) {
		VEC_PUSH(*v, *n, *cap, xstrdup("--ro-bind"));
		VEC_PUSH(*v, *n, *cap, file);
		VEC_PUSH(*v, *n, *cap, dest);
	} else {
		free(file);
		free(dest);
	}
}

void egress_helper_args(const cordon_lowering *in, char ***v, size_t *n, size_t *cap)
{
	size_t nports = 0;
	const int *ports = cordon_lowering_relay_ports(in, &nports);
	for (size_t i = 0; i < nports; i++) {
		VEC_PUSH(*v, *n, *cap, xstrdup("--relay-port"));
		VEC_PUSH(*v, *n, *cap, xasprintf("%d", ports[i]));
	}
}

void resolv_remove(const cordon_lowering *in)
{
	char *path = resolv_file(in);
	if (path)
		unlink(path);
	free(path);
}
