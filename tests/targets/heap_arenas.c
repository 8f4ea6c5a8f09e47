/* heap_arenas — a multi-threaded, multi-arena malloc target that records
 * its own mallinfo2() at the instant it is captured, for the glibc heap
 * walker's tests (tests/live/test_heap.py) and bench.
 *
 * Usage: heap_arenas [MODE [THREADS [MB]]]
 *   MODE  normal   every kind of chunk: in use, tcache'd, in fastbins, in
 *                  the unsorted, small and large bins, top, mmapped
 *         corrupt  the same, then chunk headers overwritten (a size field
 *                  in the main heap, a bin's list made a loop in a thread
 *                  arena) after the figures are printed
 *         small    fewer and smaller chunks, whose contents are left
 *                  zero but for 8 bytes: a memory image of it is a small
 *                  fixture (tests/fixtures/record_heap.py)
 *         big      MB megabytes of small chunks in the main heap (bench)
 *         many     100 more mmapped chunks of 200 KiB, and 256 KiB of its
 *                  own below the lowest (as normal mode's, below)
 *   THREADS  worker threads, each with its own arena (default 4)
 *
 * In normal mode it also maps 256 KiB of anonymous memory of its own just
 * below the second mmapped chunk's mapping, and writes it: the kernel may
 * merge the two (a region that chunk covers in part), or not.
 *
 * Once every thread has allocated and freed its share and is parked (in
 * pthread_barrier_wait, then pause(): none inside malloc), the main thread
 * computes mallinfo2() and prints
 *   ready arena=N ordblks=N smblks=N hblks=N hblkhd=N usmblks=N fsmblks=N
 *         uordblks=N fordblks=N keepcost=N
 * then blocks in read() on stdin: from then on nothing calls malloc (the
 * line was formatted into stdio's buffer, allocated by an earlier printf),
 * so the heap stays as mallinfo2 saw it. "q" on stdin, or EOF, exits;
 * "w" walks the main heap in the process itself (self_walk, the bench's
 * floor) and prints "selfwalk US CHUNKS ENDED".
 *
 * With HEAP_ARENAS_INFO=FILE in the environment it also writes glibc's
 * malloc_info() (each arena's own figures, as XML) to FILE just before
 * the ready line: the FILE is opened, with a buffer of its own, before any
 * chunk is made, and never closed (fclose would free into the heap).
 */
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static pthread_barrier_t parked;
static int corrupt, small;
static void *keep[64];
static void *loop_victim; /* a chunk in a bin of a thread arena */
static char info_buf[1 << 16];

/* Allocates a mix, frees some into each kind of list. */
/* 256 KiB of anonymous memory written, right below the mapping of the
 * mmapped chunk whose memory is at mem (where nothing is mapped). */
static void neighbour(void *mem)
{
	size_t len = 256 << 10;
	char *at = (char *)mem - 16 - len;
	char *m = mmap(at, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (m == at)
		memset(m, 7, len);
	else if (m != MAP_FAILED)
		munmap(m, len);
}

static void churn(unsigned seed, int is_main)
{
	int N = small ? 120 : 600;
	void **p = calloc((size_t)N, sizeof(*p));
	int i;

	for (i = 0; i < N; i++) {
		size_t sz;

		seed = seed * 1103515245u + 12345u;
		switch (i % 6) {
		case 0:
		case 1:
			sz = 16 + seed % 100; /* fastbin / tcache sizes */
			break;
		case 2:
			sz = 200 + seed % 800; /* tcache, small bins */
			break;
		case 3:
			sz = 1100 + seed % 3000; /* small bins */
			break;
		case 4:
			sz = 2000 + seed % (small ? 4000 : 60000); /* large */
			break;
		default:
			sz = 24;
		}
		p[i] = malloc(sz);
		memset(p[i], 0x5a, small ? 8 : sz);
	}
	/* Every other chunk: neighbours stay in use, so the freed ones stay
	 * apart (bins) or fill tcache and then the fastbins. */
	for (i = 0; i < N; i += 2)
		free(p[i]);
	/* A few freed last go to the tcache. */
	for (i = 1; i < 40; i += 6)
		free(p[i]);
	if (!is_main)
		loop_victim = p[4]; /* freed, large: in a bin */
	free(p); /* calloc'd array: a free chunk too */
}

static void *worker(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;

	churn(id * 7919u + 1, 0);
	pthread_barrier_wait(&parked);
	for (;;)
		pause();
	return NULL;
}

/* "w" on stdin (make bench): the main heap walked here, by each chunk's
 * size alone, at memory speed: the least any walk that visits every
 * chunk costs. Prints "selfwalk US CHUNKS ENDED" (ENDED 1: it reached the
 * heap's end; "selfwalk -1 0 0": no heap found); no malloc: stdio's
 * buffer is had already. */
static void self_walk(void)
{
	static char maps[1 << 16];
	unsigned long lo = 0, hi = 0;
	ssize_t n, got = 0;
	char *h = NULL;
	int fd = open("/proc/self/maps", O_RDONLY);
	struct timespec t0, t1;
	size_t chunks = 0;
	unsigned char *p;

	if (fd >= 0) {
		while (got < (ssize_t)sizeof(maps) - 1 &&
		       (n = read(fd, maps + got,
				 sizeof(maps) - 1 - (size_t)got)) > 0)
			got += n;
		close(fd);
		maps[got] = '\0';
		h = strstr(maps, "[heap]");
	}
	while (h && h > maps && h[-1] != '\n')
		h--;
	if (!h || sscanf(h, "%lx-%lx", &lo, &hi) != 2) {
		printf("selfwalk -1 0 0\n"); /* the bench says so */
		fflush(stdout);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (p = (unsigned char *)lo; p + 16 <= (unsigned char *)hi; chunks++) {
		size_t size = ((size_t *)(void *)p)[1] & ~(size_t)7;

		if (!size || size > (size_t)((unsigned char *)hi - p))
			break;
		p += size;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* the last field: whether the walk ended at the heap's end (top) */
	printf("selfwalk %ld %zu %d\n",
	       (long)((t1.tv_sec - t0.tv_sec) * 1000000 +
		      (t1.tv_nsec - t0.tv_nsec) / 1000),
	       chunks, p == (unsigned char *)hi);
	fflush(stdout);
}

static void big(size_t mb)
{
	size_t n = mb * 1024 * 1024 / 96, i;
	void **v = malloc(n * sizeof(*v));

	for (i = 0; i < n; i++) {
		v[i] = malloc(40 + i % 80);
		memset(v[i], 1, 8);
	}
	for (i = 0; i < n; i += 3)
		free(v[i]);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "normal";
	int nthreads = argc > 2 ? atoi(argv[2]) : 4, i;
	pthread_t t;
	struct mallinfo2 m;
	char line[16];
	const char *info_path = getenv("HEAP_ARENAS_INFO");
	FILE *info = info_path ? fopen(info_path, "w") : NULL;

	corrupt = strcmp(mode, "corrupt") == 0;
	small = strcmp(mode, "small") == 0;
	if (nthreads < 0 || nthreads > 60)
		nthreads = 4;
	/* stdio's buffer first: printing later must not malloc. */
	printf("starting %s %d\n", mode, nthreads);
	fflush(stdout);
	if (info)
		setvbuf(info, info_buf, _IOFBF, sizeof(info_buf));
	pthread_barrier_init(&parked, NULL, (unsigned)nthreads + 1);
	for (i = 0; i < nthreads; i++)
		pthread_create(&t, NULL, worker, (void *)(uintptr_t)i);
	churn(12345, 1);
	keep[0] = malloc(small ? 200 << 10 : 1 << 20); /* mmapped */
	keep[1] = malloc(small ? 256 << 10 : 3 << 20); /* mmapped */
	memset(keep[0], 1, 4096);
	if (strcmp(mode, "normal") == 0)
		neighbour(keep[1]);
	keep[2] = malloc(5000); /* in use, mid-heap (corrupt) */
	keep[3] = malloc(100);
	if (strcmp(mode, "many") == 0) {
		char *low = keep[1];

		for (i = 0; i < 100; i++) {
			char *c = malloc(200 << 10);

			c[100] = 1;
			low = c < low ? c : low;
		}
		neighbour(low);
	}
	if (strcmp(mode, "big") == 0)
		big(argc > 3 ? (size_t)atol(argv[3]) : 256);
	pthread_barrier_wait(&parked);
	m = mallinfo2();
	if (info) {
		malloc_info(0, info);
		fflush(info);
	}
	printf("ready arena=%zu ordblks=%zu smblks=%zu hblks=%zu hblkhd=%zu "
	       "usmblks=%zu fsmblks=%zu uordblks=%zu fordblks=%zu "
	       "keepcost=%zu\n",
	       m.arena, m.ordblks, m.smblks, m.hblks, m.hblkhd, m.usmblks,
	       m.fsmblks, m.uordblks, m.fordblks, m.keepcost);
	fflush(stdout);
	if (corrupt) {
		/* an in-use chunk's size field in the main heap: past the
		 * end of the heap */
		((size_t *)keep[2])[-1] = ~(size_t)0xf | 1;
		/* a binned chunk of a thread arena whose bk is itself */
		if (loop_victim) {
			size_t *c = (size_t *)loop_victim - 2;

			c[3] = (size_t)c;
		}
	}
	while (read(0, line, sizeof(line)) > 0) {
		if (line[0] == 'q')
			break;
		if (line[0] == 'w')
			self_walk();
	}
	return 0;
}
