/* trace_both.c — a process already running whose malloc family the
 * injected library traces and whose mmap family the kernel traces beside
 * it (tests/live/test_trace_attach_kernel.py). Prints "ready", then obeys
 * one command a line on stdin, each answered by one line "ok CMD N SUM"
 * (SUM: what it reads back from its memory):
 *   big N     N calls of big_block(): malloc(1 MiB), written, kept (glibc
 *             maps each with its own mmap, inside malloc)
 *   bigfree N frees the N oldest blocks big_block kept (glibc's munmap,
 *             inside free)
 *   map N     N calls of map_block(): mmap of 5 pages through the GOT,
 *             written, kept
 *   raw N     N calls of raw_block(): syscall(SYS_mmap) of 3 pages (no
 *             GOT entry sees it), written, kept
 *   sbrk N    N calls of grow_break(): sbrk(16 pages), written
 *   madv      madvise(MADV_DONTNEED) of the first block map_block kept,
 *             by the raw system call
 *   reserve N reserve_area(): mmap of N pages PROT_NONE (the reservation)
 *   commit N  commit_pages(): mprotect(PROT_READ | PROT_WRITE) of the
 *             first N pages of the area reserve_area made, written
 *   decommit N  decommit_pages(): mprotect(PROT_NONE) of the first N
 *             pages of it
 *   moved N   move_area(): mmap of N pages PROT_NONE, grown to 2N by
 *             mremap(MREMAP_MAYMOVE) (a reservation moved or grown)
 *   commitm N commit_moved(): mprotect(PROT_READ | PROT_WRITE) of the
 *             first N pages of the area move_area made, written
 *   watchraw N  starts a thread that looks at mmap's address through
 *             its GOT entry every 100 us (up to 60 s) and, as soon as it
 *             changes (an attach redirected it), makes N calls of
 *             raw_after(): syscall(SYS_mmap) of 2 pages, written, kept
 *   joinraw   waits for that thread (in read() on a pipe it writes at its
 *             end): SUM is how many raw_after made
 *   end       exits 0
 * Between commands it blocks in read().
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_KEPT 4096

static char *big[MAX_KEPT], *maps[MAX_KEPT], *raws[MAX_KEPT];
static int nbig, bigfreed, nmaps, nraws;
static char *area, *moved;
static long pg;

__attribute__((noinline, noclone)) char *big_block(void)
{
	char *p = malloc(1 << 20);

	if (p)
		memset(p, 3, 1 << 20);
	return p;
}

__attribute__((noinline, noclone)) char *map_block(void)
{
	char *p = mmap(NULL, 5 * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	p[0] = 5;
	return p;
}

/* n pages by the raw system call (no GOT entry sees it), its first byte
 * mark; inlined: the frame is its caller's */
static inline __attribute__((always_inline)) char *raw_map(long n, char mark)
{
	long p = syscall(SYS_mmap, 0L, n * pg, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1L, 0L);

	if (p < 0 && p > -4096)
		return NULL;
	((char *)p)[0] = mark;
	return (char *)p;
}

__attribute__((noinline, noclone)) char *raw_block(void)
{
	return raw_map(3, 7);
}

__attribute__((noinline, noclone)) long grow_break(void)
{
	char *p = sbrk(16 * pg);

	if (p == (void *)-1)
		return 0;
	p[0] = 9;
	return p[0];
}

__attribute__((noinline, noclone)) char *reserve_area(long n)
{
	char *p = mmap(NULL, (size_t)(n * pg), PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

__attribute__((noinline, noclone)) long commit_pages(long n)
{
	long i, s = 0;

	if (!area || mprotect(area, (size_t)(n * pg), PROT_READ | PROT_WRITE))
		return -1;
	for (i = 0; i < n; i++) {
		area[i * pg] = (char)i;
		s += area[i * pg];
	}
	return s;
}

__attribute__((noinline, noclone)) long decommit_pages(long n)
{
	if (!area || mprotect(area, (size_t)(n * pg), PROT_NONE))
		return -1;
	return n;
}

__attribute__((noinline, noclone)) char *move_area(long n)
{
	char *p = mmap(NULL, (size_t)(n * pg), PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	p = mremap(p, (size_t)(n * pg), (size_t)(2 * n * pg), MREMAP_MAYMOVE);
	return p == MAP_FAILED ? NULL : p;
}

__attribute__((noinline, noclone)) long commit_moved(long n)
{
	long i, s = 0;

	if (!moved ||
	    mprotect(moved, (size_t)(n * pg), PROT_READ | PROT_WRITE))
		return -1;
	for (i = 0; i < n; i++) {
		moved[i * pg] = (char)(i + 1);
		s += moved[i * pg];
	}
	return s;
}

/* mmap's address as the GOT holds it (a PIE takes a function's address
 * through its GLOB_DAT entry): the library's once an attach redirected it
 * (the mmap family's entries last, after the trace's start) */
__attribute__((noinline, noclone)) void *mmap_now(void)
{
	void *(*volatile f)(void *, size_t, int, int, int, off_t) = mmap;

	return (void *)f;
}

__attribute__((noinline, noclone)) char *raw_after(void)
{
	return raw_map(2, 3);
}

static pthread_t watcher;
static long nraw, raw_made;
static int done[2]; /* the watcher's end, written to a pipe: main waits
		     * in read(), where an attach may borrow it (never in
		     * pthread_join's futex) */

static void *watch(void *arg)
{
	void *was = mmap_now();
	struct timespec ts = { 0, 100000 };
	long i, looks = 0;

	(void)arg;
	while (mmap_now() == was && looks++ < 600000)
		nanosleep(&ts, NULL);
	if (mmap_now() != was)
		for (i = 0; i < nraw; i++)
			raw_made += raw_after() != NULL;
	if (write(done[1], "x", 1) != 1)
		raw_made = -1;
	return NULL;
}

int main(void)
{
	char line[256], what[32];
	long n, i, sum;

	pg = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("ready\n");
	while (fgets(line, sizeof(line), stdin)) {
		n = 0;
		what[0] = '\0';
		if (sscanf(line, "%31s %ld", what, &n) < 1)
			continue;
		sum = 0;
		if (strcmp(what, "big") == 0) {
			for (i = 0; i < n && nbig < MAX_KEPT; i++)
				if ((big[nbig] = big_block()))
					sum += big[nbig++][100];
		} else if (strcmp(what, "bigfree") == 0) {
			for (i = 0; i < n && bigfreed < nbig; i++) {
				sum += big[bigfreed][7];
				free(big[bigfreed]);
				big[bigfreed++] = NULL;
			}
		} else if (strcmp(what, "map") == 0) {
			for (i = 0; i < n && nmaps < MAX_KEPT; i++)
				if ((maps[nmaps] = map_block()))
					sum += maps[nmaps++][0];
		} else if (strcmp(what, "raw") == 0) {
			for (i = 0; i < n && nraws < MAX_KEPT; i++)
				if ((raws[nraws] = raw_block()))
					sum += raws[nraws++][0];
		} else if (strcmp(what, "sbrk") == 0) {
			for (i = 0; i < n; i++)
				sum += grow_break();
		} else if (strcmp(what, "madv") == 0) {
			if (nmaps)
				sum = syscall(SYS_madvise, maps[0], 5 * pg,
					      MADV_DONTNEED);
			sum += nmaps ? maps[0][0] : 0; /* 0: given back */
		} else if (strcmp(what, "reserve") == 0) {
			area = reserve_area(n);
			sum = area != NULL;
		} else if (strcmp(what, "commit") == 0) {
			sum = commit_pages(n);
		} else if (strcmp(what, "decommit") == 0) {
			sum = decommit_pages(n);
		} else if (strcmp(what, "moved") == 0) {
			moved = move_area(n);
			sum = moved != NULL;
		} else if (strcmp(what, "commitm") == 0) {
			sum = commit_moved(n);
		} else if (strcmp(what, "watchraw") == 0) {
			nraw = n;
			sum = pipe(done) == 0 &&
			      pthread_create(&watcher, NULL, watch, NULL) == 0;
		} else if (strcmp(what, "joinraw") == 0) {
			char c;

			while (read(done[0], &c, 1) < 0)
				;
			pthread_join(watcher, NULL);
			sum = raw_made;
		} else if (strcmp(what, "end") == 0) {
			return 0;
		}
		printf("ok %s %ld %ld\n", what, n, sum);
	}
	return 0;
}
