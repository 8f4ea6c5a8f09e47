/* manyregions — a process with many regions, for the capture benchmark and
 * the rollup tests.
 *
 *   manyregions [N [MODE]]     (N default 65000)
 *
 * Maps N pages in one mapping and makes every other page read-only, so no
 * two neighbours merge: N regions besides the usual few. Every fourth page
 * is written (resident), the rest untouched. Prints "ready regions=N" and
 * sleeps until killed. N is limited by vm.max_map_count (65530 by default,
 * which leaves room for 65000 plus the process's own regions).
 *
 * MODE, for the fault tests:
 *   exit:MS   exit MS milliseconds after "ready" (a process that exits
 *             while it is being read)
 *   churn     keep unmapping and remapping pages in a loop, so regions
 *             vanish and reappear between two reads
 *   change    on SIGUSR1 (once), unmap one read-only page in 1000 and make
 *             another one in 1000 inaccessible (PROT_NONE): some removed
 *             and some changed regions for a second snapshot, none merged;
 *             prints "changed removed=K protected=K"
 *   sizes:SEED N regions of pseudo-random sizes (1 to 1000 pages, from
 *             SEED), none resident: reserved PROT_NONE, every other one
 *             made readable; a sort by Size puts them in an order
 *             nothing like their addresses' (bench_find.py)
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* The sizes:SEED mode (see above). */
static int sizes(long n, unsigned long x)
{
	long pg = sysconf(_SC_PAGESIZE), i, total = 0, *np;
	char *p, *q;

	np = malloc((size_t)n * sizeof(*np));
	if (!np)
		return 1;
	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		np[i] = 1 + (long)((x >> 33) % 1000);
		total += np[i];
	}
	p = mmap(NULL, (size_t)(total * pg), PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (i = 0, q = p; i < n; q += np[i++] * pg)
		if (i % 2 == 0 && mprotect(q, (size_t)(np[i] * pg), PROT_READ)) {
			perror("mprotect (vm.max_map_count?)");
			return 1;
		}
	printf("ready regions=%ld start=%p\n", n, (void *)p);
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 65000;
	long pg = sysconf(_SC_PAGESIZE), i;
	char *p;

	if (n < 1) {
		fprintf(stderr, "manyregions: bad N\n");
		return 1;
	}
	if (argc > 2 && strncmp(argv[2], "sizes:", 6) == 0)
		return sizes(n, strtoul(argv[2] + 6, NULL, 10));
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
	if (argc > 2 && strcmp(argv[2], "change") == 0) {
		sigset_t set; /* waited for below: blocked before "ready" */

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
	}
	printf("ready regions=%ld start=%p\n", n, (void *)p);
	fflush(stdout);
	if (argc > 2 && strcmp(argv[2], "change") == 0) {
		long removed = 0, protected = 0;
		sigset_t set;
		int sig;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		if (sigwait(&set, &sig) != 0)
			return 1;
		/* odd pages are the read-only ones; not the first or last */
		for (i = 1; i + 1 < n; i += 2) {
			if (i % 2000 == 1 && munmap(p + i * pg, (size_t)pg) == 0)
				removed++;
			else if (i % 2000 == 1001 &&
				 mprotect(p + i * pg, (size_t)pg, PROT_NONE) == 0)
				protected++;
		}
		printf("changed removed=%ld protected=%ld\n", removed,
		       protected);
		fflush(stdout);
	}
	if (argc > 2 && strncmp(argv[2], "exit:", 5) == 0) {
		long ms = strtol(argv[2] + 5, NULL, 10);
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

		nanosleep(&ts, NULL);
		_exit(0);
	}
	if (argc > 2 && strcmp(argv[2], "churn") == 0) {
		unsigned long x = 12345;

		for (;;) {
			/* a page that is not at either end */
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			i = 1 + (long)((x >> 33) % (unsigned long)(n - 2));
			munmap(p + i * pg, (size_t)pg);
			if (mmap(p + i * pg, (size_t)pg,
				 i % 2 ? PROT_READ : PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
				 0) == MAP_FAILED) {
				perror("mmap");
				return 1;
			}
		}
	}
	for (;;)
		pause();
	return 0;
}
