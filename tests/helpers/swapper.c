/* swapper A B SECONDS MICROS: exchange the directory entries A and B
 * (renameat2 RENAME_EXCHANGE) every MICROS microseconds for SECONDS, as a
 * process beside a sandboxed command could, so that whoever looks at A
 * sees one or the other.  Prints how many exchanges it made; one that
 * fails is tried again. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: swapper A B SECONDS MICROS\n");
		return 2;
	}
	time_t end = time(NULL) + atoi(argv[3]);
	useconds_t pause = (useconds_t)atoi(argv[4]);
	unsigned long n = 0, failed = 0;
	while (time(NULL) < end) {
		if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) !=
		    0) {
			/* Keep on (a call may hold one of them busy for a moment):
			 * giving up would leave the race in one state for good. */
			if (!failed++)
				perror("renameat2");
			usleep(1000);
			continue;
		}
		n++;
		if (pause)
			usleep(pause);
	}
	printf("%lu\n", n);
	if (failed)
		fprintf(stderr, "swapper: %lu exchanges failed\n", failed);
	return n ? 0 : 1;
}
