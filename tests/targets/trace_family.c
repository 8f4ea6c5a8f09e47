/* trace_family — every call the tracer interposes, each from its own
 * function with known sizes, for tests/live/test_trace_family.py.
 *
 *   trace_family malloc   the malloc family: each function below calls its
 *                         allocator N times with one size and frees some
 *                         (the table `family` says N, the size and how many
 *                         are freed: the test reads the same figures from
 *                         the line this prints); realloc grows, shrinks,
 *                         realloc(NULL, n) and realloc(p, 0) of blocks
 *                         base_alloc() made. Each call has a marker
 *                         comment "MARK:name" on the line before it (the
 *                         test's file:line check).
 *                         Prints one line per function, "fn N SIZE
 *                         FREED", and "realloc0 -> (nil)".
 *   trace_family mmap     the mmap family: map_whole() 3 maps of 4 pages
 *                         kept; map_reserve() 8 pages of which unmap_tail()
 *                         unmaps the last 6 (a part) and grow_inplace()
 *                         mremaps the first 2 to 4 without MREMAP_MAYMOVE
 *                         (in place, in the hole just made), kept;
 *                         map_partial() 10 pages, unmap_middle() unmaps 3
 *                         in the middle (7 kept); map_for_move() 3 pages,
 *                         remap_move() mremaps its first page to 4 pages
 *                         (it must move: the rest of the map follows it),
 *                         kept, and free_rest() unmaps the 2 pages left;
 *                         sbrk_grow() sbrk(+16 pages) then sbrk_shrink()
 *                         sbrk(-16 pages), 3 times; brk_keep() sbrk(+2
 *                         pages), kept. Prints what it saw: "inplace=1
 *                         moved=1 brk_back=1 sum=N" (N: the bytes read back
 *                         from what it keeps).
 *   trace_family errno    sets errno to a known value before each of
 *                         malloc, free, calloc, realloc, posix_memalign,
 *                         mmap, munmap (all succeeding) and a failing
 *                         malloc and mmap, in the main thread and in a new
 *                         thread (whose first call is its first to the
 *                         tracer), and prints errno after each: the test
 *                         compares the traced run's line with the
 *                         untraced one's.
 *   trace_family drops    300 threads (64 KiB stacks) each malloc 4321
 *                         bytes once in thread_block() and keep it, all
 *                         alive at once (a barrier), more threads than the
 *                         tracer has rings (TW_SLOTS, 256). Prints
 *                         "drops: threads=300 blocks=300".
 *   trace_family stall    prints "ready", waits for a line on stdin,
 *                         then stall_loop() mallocs 100 bytes and frees
 *                         them 200,000 times (a ring fills within some
 *                         10,000 pairs when vmscope does not read: the
 *                         test stops vmscope first), then stall_brk()
 *                         moves the break up 16 pages and back (the
 *                         tracer passes through by then), and prints
 *                         "stall: 200000 pairs brk_back=1".
 * Exits 0; 1 when a call fails that must not (said on stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NOINL __attribute__((noinline, noclone))

void *volatile kept[64];
static int nkept;

static void keep(void *p)
{
	if (nkept < 64)
		kept[nkept++] = p;
}

/* ---- the malloc family ---- */

NOINL void *base_alloc(size_t n)
{
	/* MARK:base_alloc */
	void *p = malloc(n);

	if (p)
		memset(p, 1, n);
	return p;
}

NOINL int do_calloc(void **out, int n)
{
	int i;

	for (i = 0; i < n; i++)
		/* MARK:do_calloc */
		out[i] = calloc(4, 25);
	return 100;
}

NOINL int realloc_grow(void **out, int n)
{
	int i;

	for (i = 0; i < n; i++)
		/* MARK:realloc_grow */
		out[i] = realloc(base_alloc(64), 200);
	return 200;
}

NOINL int realloc_shrink(void **out, int n)
{
	int i;

	for (i = 0; i < n; i++)
		/* MARK:realloc_shrink */
		out[i] = realloc(base_alloc(1000), 300);
	return 300;
}

NOINL int realloc_null(void **out, int n)
{
	int i;

	for (i = 0; i < n; i++)
		/* MARK:realloc_null */
		out[i] = realloc(NULL, 333);
	return 333;
}

NOINL int do_reallocarray(void **out, int n)
{
	int i;

	for (i = 0; i < n; i++)
		/* MARK:do_reallocarray */
		out[i] = reallocarray(NULL, 10, 12);
	return 120;
}

NOINL int reallocarray_grow(void **out, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		void *p = base_alloc(50);

		/* MARK:reallocarray_grow */
		out[i] = reallocarray(p, 20, 12);
	}
	return 240;
}

NOINL int do_posix_memalign(void **out, int n)
{
	int i;

	for (i = 0; i < n; i++)
		/* MARK:do_posix_memalign */
		if (posix_memalign(&out[i], 64, 200))
			out[i] = NULL;
	return 200;
}

NOINL int do_aligned_alloc(void **out, int n)
{
	int i;

	for (i = 0; i < n; i++)
		/* MARK:do_aligned_alloc */
		out[i] = aligned_alloc(128, 256);
	return 256;
}

NOINL int do_memalign(void **out, int n)
{
	int i;

	for (i = 0; i < n; i++)
		/* MARK:do_memalign */
		out[i] = memalign(256, 300);
	return 300;
}

NOINL int do_valloc(void **out, int n)
{
	int i;

	for (i = 0; i < n; i++)
		/* MARK:do_valloc */
		out[i] = valloc(5000);
	return 5000;
}

NOINL int do_pvalloc(void **out, int n)
{
	int i;

	for (i = 0; i < n; i++)
		/* MARK:do_pvalloc */
		out[i] = pvalloc(100);
	return 100;
}

/* realloc(p, 0) of 3 blocks of 77 bytes: glibc frees p, returns NULL */
NOINL void *realloc_zero(void)
{
	void *last = NULL;
	int i;

	for (i = 0; i < 3; i++)
		last = realloc(base_alloc(77), 0);
	return last;
}

static const struct {
	const char *name;
	int (*fn)(void **, int);
	int n, freed;
} family[] = {
	{ "do_calloc", do_calloc, 10, 3 },
	{ "realloc_grow", realloc_grow, 6, 0 },
	{ "realloc_shrink", realloc_shrink, 5, 2 },
	{ "realloc_null", realloc_null, 4, 1 },
	{ "do_reallocarray", do_reallocarray, 5, 0 },
	{ "reallocarray_grow", reallocarray_grow, 2, 1 },
	{ "do_posix_memalign", do_posix_memalign, 8, 2 },
	{ "do_aligned_alloc", do_aligned_alloc, 6, 1 },
	{ "do_memalign", do_memalign, 5, 0 },
	{ "do_valloc", do_valloc, 4, 2 },
	{ "do_pvalloc", do_pvalloc, 3, 1 },
};

static void *blocks[sizeof(family) / sizeof(family[0])][16];

static int malloc_family(void)
{
	size_t f;
	int i;
	void *z;

	for (f = 0; f < sizeof(family) / sizeof(family[0]); f++) {
		int size = family[f].fn(blocks[f], family[f].n);

		for (i = 0; i < family[f].n; i++)
			if (!blocks[f][i]) {
				fprintf(stderr, "%s: call %d failed\n",
					family[f].name, i);
				return 1;
			}
		for (i = 0; i < family[f].freed; i++) {
			free(blocks[f][i]);
			blocks[f][i] = NULL;
		}
		printf("%s %d %d %d\n", family[f].name, family[f].n, size,
		       family[f].freed);
	}
	z = realloc_zero();
	printf("realloc0 -> %s\n", z ? "a block" : "(nil)");
	return 0;
}

/* ---- the mmap family ---- */

static long pg;

#define RW PROT_READ | PROT_WRITE
#define ANON MAP_PRIVATE | MAP_ANONYMOUS

NOINL int map_whole(void)
{
	int i;

	for (i = 0; i < 3; i++) {
		char *p = mmap(NULL, 4 * pg, RW, ANON, -1, 0);

		if (p == MAP_FAILED)
			return -1;
		memset(p, 0x11, 4 * pg);
		keep(p);
	}
	return 0;
}

NOINL char *map_reserve(void)
{
	return mmap(NULL, 8 * pg, RW, ANON, -1, 0);
}

NOINL int unmap_tail(char *p)
{
	return munmap(p + 2 * pg, 6 * pg);
}

NOINL char *grow_inplace(char *p)
{
	return mremap(p, 2 * pg, 4 * pg, 0);
}

NOINL char *map_partial(void)
{
	return mmap(NULL, 10 * pg, RW, ANON, -1, 0);
}

NOINL int unmap_middle(char *p)
{
	return munmap(p + 4 * pg, 3 * pg);
}

NOINL char *map_for_move(void)
{
	return mmap(NULL, 3 * pg, RW, ANON, -1, 0);
}

NOINL char *remap_move(char *p)
{
	return mremap(p, pg, 4 * pg, MREMAP_MAYMOVE);
}

NOINL int free_rest(char *p)
{
	return munmap(p + pg, 2 * pg);
}

NOINL void *sbrk_grow(void)
{
	return sbrk(16 * pg);
}

NOINL void *sbrk_shrink(void)
{
	return sbrk(-16 * pg);
}

NOINL void *brk_keep(void)
{
	return sbrk(2 * pg);
}

static int mmap_family(void)
{
	unsigned long long sum = 0;
	char *r, *g, *q, *m, *mv, *b0, *b1;
	int i, brk_back = 1;
	long j;

	pg = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IONBF, 0); /* no buffer allocated later */
	if (map_whole() < 0)
		return 1;
	r = map_reserve();
	if (r == MAP_FAILED || unmap_tail(r) < 0)
		return 1;
	g = grow_inplace(r); /* no other map is made in between */
	if (g == MAP_FAILED)
		return 1;
	memset(g, 0x22, 4 * pg);
	q = map_partial();
	if (q == MAP_FAILED)
		return 1;
	memset(q, 0x33, 4 * pg);
	memset(q + 7 * pg, 0x33, 3 * pg);
	if (unmap_middle(q) < 0)
		return 1;
	m = map_for_move();
	if (m == MAP_FAILED)
		return 1;
	m[0] = 0x44;
	mv = remap_move(m);
	if (mv == MAP_FAILED || free_rest(m) < 0)
		return 1;
	memset(mv + pg, 0x44, 3 * pg);
	/* no malloc between a growth of the break and its shrink: glibc's
	 * heap may be at the break */
	for (i = 0; i < 3; i++) {
		b0 = sbrk_grow();
		if (b0 == (void *)-1)
			return 1;
		b0[16 * pg - 1] = 1;
		b1 = sbrk_shrink();
		if (b1 != b0 + 16 * pg || sbrk(0) != b0)
			brk_back = 0;
	}
	b0 = brk_keep();
	if (b0 == (void *)-1)
		return 1;
	memset(b0, 0x55, 2 * pg);
	for (i = 0; i < nkept; i++)
		for (j = 0; j < 4 * pg; j++)
			sum += ((unsigned char *)kept[i])[j];
	for (j = 0; j < 4 * pg; j++)
		sum += (unsigned char)g[j] + (unsigned char)mv[j];
	for (j = 0; j < 10 * pg; j++)
		if (j < 4 * pg || j >= 7 * pg)
			sum += (unsigned char)q[j];
	for (j = 0; j < 2 * pg; j++)
		sum += (unsigned char)b0[j];
	printf("inplace=%d moved=%d brk_back=%d sum=%llu\n", g == r, mv != m,
	       brk_back, sum);
	return 0;
}

/* ---- errno across calls ---- */

void *volatile sink; /* a failed malloc the compiler may not drop */

static void errno_calls(char *out, size_t len, const char *who)
{
	size_t o = 0;
	void *p, *q;
	int e[10], rc;

#define CALL(i, expr)                                                          \
	do {                                                                   \
		errno = 1000 + (i);                                            \
		expr;                                                          \
		e[i] = errno;                                                  \
	} while (0)
	CALL(0, p = malloc(100));
	CALL(1, free(p));
	CALL(2, p = calloc(3, 40));
	CALL(3, p = realloc(p, 5000));
	CALL(4, free(p));
	CALL(5, rc = posix_memalign(&q, 64, 96));
	CALL(6, free(rc ? NULL : q));
	CALL(7, p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	CALL(8, munmap(p, 4096));
	CALL(9, sink = malloc(SIZE_MAX / 2)); /* fails: ENOMEM */
	o += (size_t)snprintf(out + o, len - o, "%s:", who);
	for (rc = 0; rc < 10; rc++)
		o += (size_t)snprintf(out + o, len - o, " %d", e[rc]);
	errno = 1234;
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, -1, 0); /* EBADF */
	snprintf(out + o, len - o, " %d%s", errno,
		 p == MAP_FAILED ? "" : "(mapped?)");
}

static char thread_line[256];

static void *errno_thread(void *arg)
{
	(void)arg;
	errno_calls(thread_line, sizeof(thread_line), "thread");
	return NULL;
}

static int errno_family(void)
{
	char line[256];
	pthread_t t;

	errno_calls(line, sizeof(line), "main");
	if (pthread_create(&t, NULL, errno_thread, NULL) ||
	    pthread_join(t, NULL))
		return 1;
	printf("%s\n%s\n", line, thread_line);
	return 0;
}

/* ---- more threads than rings ---- */

#define NTHREADS 300

static pthread_barrier_t all_alive;
static void *tblocks[NTHREADS];

NOINL void *thread_block(void *arg)
{
	uintptr_t i = (uintptr_t)arg;

	tblocks[i] = malloc(4321);
	if (tblocks[i])
		memset(tblocks[i], 9, 8);
	pthread_barrier_wait(&all_alive);
	return NULL;
}

static int drops(void)
{
	pthread_t t[NTHREADS];
	pthread_attr_t attr;
	int i, n = 0;

	pthread_barrier_init(&all_alive, NULL, NTHREADS);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], &attr, thread_block,
				   (void *)(uintptr_t)i)) {
			fprintf(stderr, "thread %d: not started\n", i);
			return 1; /* the others wait at the barrier: ended
				   * by exit */
		}
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < NTHREADS; i++)
		n += tblocks[i] != NULL;
	printf("drops: threads=%d blocks=%d\n", NTHREADS, n);
	return 0;
}

/* ---- a stalled reader ---- */

#define STALL 200000

NOINL void stall_loop(void)
{
	int i;

	for (i = 0; i < STALL; i++) {
		sink = malloc(100);
		free(sink);
	}
}

/* 1: the break came back to where it was */
NOINL int stall_brk(void)
{
	long n = 16 * sysconf(_SC_PAGESIZE);
	char *b0 = sbrk(n);

	return b0 != (void *)-1 && sbrk(-n) == b0 + n && sbrk(0) == b0;
}

static int stall(void)
{
	char line[64];
	int back;

	setvbuf(stdout, NULL, _IONBF, 0);
	printf("ready\n");
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	stall_loop();
	back = stall_brk();
	printf("stall: %d pairs brk_back=%d\n", STALL, back);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "malloc";

	if (strcmp(mode, "mmap") == 0)
		return mmap_family();
	if (strcmp(mode, "errno") == 0)
		return errno_family();
	if (strcmp(mode, "drops") == 0)
		return drops();
	if (strcmp(mode, "stall") == 0)
		return stall();
	return malloc_family();
}
