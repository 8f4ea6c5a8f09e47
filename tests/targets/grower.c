/* grower — a process that grows when told, for the diff test
 * (tests/live/test_diff.py).
 *
 *   grower
 *
 * Prints "ready" and waits for a line on stdin. Then maps 100 MiB of
 * private anonymous memory with a hole on each side (so the kernel cannot
 * merge it with a neighbour: it is one new region), writes every page of
 * it, makes 20,000 small mallocs (16 to 512 bytes, each written) and
 * prints one line:
 *   grown map=0x.. map_size=N malloced=N
 * and sleeps until killed.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAP_SIZE (100ul << 20)
#define NMALLOC 20000

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char line[64], *p;
	size_t total = 0, i;
	static void *keep[NMALLOC];

	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	p = mmap(NULL, MAP_SIZE + 2 * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	munmap(p, pg);
	munmap(p + pg + MAP_SIZE, pg);
	p += pg;
	memset(p, 1, MAP_SIZE);
	srand(10);
	for (i = 0; i < NMALLOC; i++) {
		size_t n = 16 + (size_t)(rand() % 497);

		keep[i] = malloc(n);
		if (!keep[i])
			return 1;
		memset(keep[i], 2, n);
		total += n;
	}
	printf("grown map=%p map_size=%lu malloced=%zu\n", (void *)p, MAP_SIZE,
	       total);
	fflush(stdout);
	for (;;)
		pause();
}
