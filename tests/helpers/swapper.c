/* swapper A B SECONDS MICROS: exchange the directory entries A and B
 * (renameat2 RENAME_EXCHANGE) every MICROS microseconds for SECONDS, as a
 * process beside a sandboxed command could, so that whoever looks at A
 * sees one or the other.  Prints how many exchanges it made. */
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
	unsigned long n = 0;
	while (time(NULL) < end) {
		if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) !=
		    0) {
			perror("renameat2");
			return 1;
		}
		n++;
		if (pause)
			usleep(pause);
	}
	printf("%lu\n", n);
	return 0;
}
