/* manyregions — a process with many regions, for the capture benchmark and
 * the rollup tests.
 *
 *   manyregions [N]     (default 65000)
 *
 * Maps N pages in one mapping and makes every other page read-only, so no
 * two neighbours merge: N regions besides the usual few. Every fourth page
 * is written (resident), the rest untouched. Prints "ready regions=N" and
 * sleeps until killed. N is limited by vm.max_map_count (65530 by default,
 * which leaves room for 65000 plus the process's own regions).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 65000;
	long pg = sysconf(_SC_PAGESIZE), i;
	char *p;

	if (n < 1) {
		fprintf(stderr, "manyregions: bad N\n");
		return 1;
	}
	p = mmap(NULL, (size_t)(n * pg), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (i = 0; i < n; i += 2)
		if (i % 4 == 0)
			p[i * pg] = 1;
	for (i = 1; i < n; i += 2)
		if (mprotect(p + i * pg, (size_t)pg, PROT_READ) < 0) {
			perror("mprotect (vm.max_map_count?)");
			return 1;
		}
	printf("ready regions=%ld start=%p\n", n, (void *)p);
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}
