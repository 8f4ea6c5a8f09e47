/* core_diff — an idle process whose core differs from its live map only
 * in what a core cannot hold, for tests/live/test_core_diff.py.
 *
 *   core_diff FILE
 *
 * Maps FILE shared and read-only (r--s: a core says shared of /dev/zero
 * and SysV memory alone), reserves 1 MiB PROT_NONE (gcore
 * writes it r--), touches its [vdso] (clock_gettime: its Rss, which a core
 * does not hold), prints
 *   ready shared=0x.. none=0x..
 * and sleeps until killed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec ts;
	int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
	void *sh, *none;

	if (fd < 0)
		return 1;
	sh = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	none = mmap(NULL, 1 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
	if (sh == MAP_FAILED || none == MAP_FAILED)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("ready shared=%p none=%p\n", sh, none);
	fflush(stdout);
	for (;;)
		pause();
}
