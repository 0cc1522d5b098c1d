/* limitprobe OP ARGS: resource use for tests/run-limits.sh, bounded, so that
 * a limit that does not hold still ends.  Prints what happened on stdout.
 *
 *   spawn N SECONDS     fork up to N children that each live SECONDS;
 *                       prints "started=K failed=F"
 *   open N              open /dev/null up to N times; prints "opened=K"
 *   write PATH BYTES    write BYTES to PATH (SIGXFSZ ignored); prints "ok"
 *                       or the errno name and the bytes written
 *   sparse PATH BYTES   create PATH and ftruncate it to BYTES; "ok" or errno
 *   spin SECONDS        burn CPU for SECONDS of wall-clock time, then "done"
 *   alloc BYTES         malloc and touch BYTES; "ok" or "ENOMEM" */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *errno_name(int e)
{
	switch (e) {
	case EFBIG: return "EFBIG";
	case EAGAIN: return "EAGAIN";
	case EMFILE: return "EMFILE";
	case ENOMEM: return "ENOMEM";
	case ENOSPC: return "ENOSPC";
	case EACCES: return "EACCES";
	case EROFS: return "EROFS";
	default: return strerror(e);
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";
	if (strcmp(op, "spawn") == 0 && argc == 4) {
		long n = atol(argv[2]), started = 0, failed = 0;
		unsigned secs = (unsigned)atoi(argv[3]);
		for (long i = 0; i < n; i++) {
			pid_t pid = fork();
			if (pid == 0) {
				sleep(secs);
				_exit(0);
			}
			if (pid < 0)
				failed++;
			else
				started++;
		}
		printf("started=%ld failed=%ld\n", started, failed);
		fflush(stdout);
		while (wait(NULL) > 0 || errno == EINTR)
			;
		return 0;
	}
	if (strcmp(op, "open") == 0 && argc == 3) {
		long n = atol(argv[2]), opened = 0;
		for (long i = 0; i < n; i++)
			if (open("/dev/null", O_RDONLY) >= 0)
				opened++;
		printf("opened=%ld\n", opened);
		return 0;
	}
	if (strcmp(op, "write") == 0 && argc == 4) {
		static char buf[1 << 16];
		long long want = atoll(argv[3]), done = 0;
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		signal(SIGXFSZ, SIG_IGN);
		if (fd < 0) {
			printf("%s\n", errno_name(errno));
			return 1;
		}
		while (done < want) {
			size_t chunk = want - done < (long long)sizeof(buf) ? (size_t)(want - done) : sizeof(buf);
			ssize_t w = write(fd, buf, chunk);
			if (w < 0) {
				printf("%s after %lld bytes\n", errno_name(errno), done);
				return 1;
			}
			done += w;
		}
		printf("ok\n");
		return 0;
	}
	if (strcmp(op, "sparse") == 0 && argc == 4) {
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		signal(SIGXFSZ, SIG_IGN);
		if (fd < 0 || ftruncate(fd, (off_t)atoll(argv[3])) != 0) {
			printf("%s\n", errno_name(errno));
			return 1;
		}
		printf("ok\n");
		return 0;
	}
	if (strcmp(op, "spin") == 0 && argc == 3) {
		double end = now() + atof(argv[2]);
		volatile unsigned long x = 0;
		while (now() < end)
			for (int i = 0; i < 100000; i++)
				x++;
		printf("done\n");
		return 0;
	}
	if (strcmp(op, "alloc") == 0 && argc == 3) {
		size_t n = (size_t)atoll(argv[2]);
		char *p = malloc(n);
		if (!p) {
			printf("ENOMEM\n");
			return 1;
		}
		for (size_t i = 0; i < n; i += 4096)
			p[i] = 1;
		printf("ok\n");
		free(p);
		return 0;
	}
	fprintf(stderr, "usage: limitprobe OP ARGS (see the source)\n");
	return 2;
}
