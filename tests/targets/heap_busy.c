/* heap_busy — a glibc malloc whose main arena is locked at the snapshot,
 * for tests/live/test_heap_busy.py: the heap walker cannot walk that arena
 * (its lists may be half updated) and must not report the others' figures
 * as if they were all of the process's.
 *
 * Usage: heap_busy [MODE [MB]]
 *   MODE  busy  (default) a worker thread allocates and frees in an arena
 *               of its own and parks; then a third thread calls
 *               malloc_stats(), which locks the main arena and, holding
 *               the lock, writes to stderr: stderr is a pipe the program
 *               filled and never reads, so the write blocks for good with
 *               the main arena locked
 *         free  the same without the third thread: nothing locked
 *         gone  free, then the first page of the worker's arena (its
 *               heap_info and malloc_state) dropped with MADV_DONTNEED:
 *               not present, so a reader of present pages cannot read
 *               that arena (nothing allocates or walks the arenas after,
 *               so the program never touches the page again)
 * Both first take 2,000 chunks in the main arena and free every other
 * one (the main arena's figures are most of the process's).
 *   MB    megabytes of its own written before (a larger PSS: --top)
 *
 * Prints, by write(2),
 *   ready uordblks=N fordblks=N
 * (its mallinfo2(), taken once the worker parked, before the main arena
 * was locked: nothing allocates after it) once the third thread is seen
 * blocked in write(2) on fd 2 (/proc/self/task/TID/syscall, polled: no
 * sleep; exit 3 if it never is), then
 * blocks in read() on stdin ("q" or EOF exits; the locked thread stays
 * blocked, the process exits all the same).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_barrier_t parked;
static volatile pid_t stats_tid;
static void *volatile worker_block; /* a block of the worker's arena */

static void *worker(void *arg)
{
	void *p[400];
	int i;

	(void)arg;
	for (i = 0; i < 400; i++) {
		p[i] = malloc(64 + (size_t)i * 24);
		memset(p[i], 1, 64);
	}
	for (i = 0; i < 400; i += 2)
		free(p[i]);
	worker_block = p[1];
	pthread_barrier_wait(&parked);
	for (;;)
		pause();
	return NULL;
}

static void *stats(void *arg)
{
	(void)arg;
	stats_tid = (pid_t)syscall(SYS_gettid);
	malloc_stats(); /* blocks in write(2) holding main_arena's mutex */
	return NULL;
}

/* Whether thread tid is in write(2) on fd 2: /proc's syscall line is
 * "NR ARG1 ..." with ARG1 in hex. */
static int in_write(pid_t tid)
{
	char path[64], buf[256];
	int fd, n;
	long nr;
	unsigned long fd_arg;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return sscanf(buf, "%ld %lx", &nr, &fd_arg) == 2 &&
	       nr == SYS_write && fd_arg == 2;
}

/* stderr made a pipe of one page that is full and never read. */
static int stuff_stderr(void)
{
	int pfd[2], fl;
	char page[4096];

	if (pipe(pfd) < 0)
		return -1;
	fcntl(pfd[1], F_SETPIPE_SZ, 4096);
	fl = fcntl(pfd[1], F_GETFL);
	fcntl(pfd[1], F_SETFL, fl | O_NONBLOCK);
	memset(page, 'x', sizeof(page));
	while (write(pfd[1], page, sizeof(page)) > 0)
		;
	/* a byte at a time, until not one more fits */
	while (write(pfd[1], page, 1) > 0)
		;
	fcntl(pfd[1], F_SETFL, fl);
	return dup2(pfd[1], 2) < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "busy";
	size_t mb = argc > 2 ? (size_t)atol(argv[2]) : 0;
	pthread_t t;
	struct mallinfo2 m;
	char line[128], c;
	int n;
	long spins = 0;

	if (mb) {
		char *own = malloc(mb << 20);

		if (!own)
			return 1;
		memset(own, 3, mb << 20);
	}
	/* the main arena's share: 2,000 chunks, every other one freed */
	{
		static void *v[2000];
		int i;

		for (i = 0; i < 2000; i++) {
			v[i] = malloc(100 + (size_t)(i % 50) * 16);
			memset(v[i], 2, 16);
		}
		for (i = 0; i < 2000; i += 2)
			free(v[i]);
	}
	pthread_barrier_init(&parked, NULL, 2);
	pthread_create(&t, NULL, worker, NULL);
	pthread_barrier_wait(&parked);
	m = mallinfo2();
	if (strcmp(mode, "gone") == 0) {
		/* a non-main arena's heap is aligned to HEAP_MAX_SIZE, 64 MiB
		 * on 64-bit machines (2 x DEFAULT_MMAP_THRESHOLD_MAX) */
		uintptr_t heap = (uintptr_t)worker_block & ~(((uintptr_t)64 << 20) - 1);

		if (madvise((void *)heap, (size_t)sysconf(_SC_PAGESIZE),
			    MADV_DONTNEED) < 0)
			return 1;
	}
	if (strcmp(mode, "busy") == 0) {
		if (stuff_stderr() < 0)
			return 1;
		pthread_create(&t, NULL, stats, NULL);
		while (!stats_tid || !in_write(stats_tid))
			if (++spins > 100000000L)
				return 3; /* never blocked: say so */
			else
				sched_yield();
	}
	n = snprintf(line, sizeof(line), "ready uordblks=%zu fordblks=%zu\n",
		     m.uordblks, m.fordblks);
	if (write(1, line, (size_t)n) != n)
		return 1;
	while (read(0, &c, 1) == 1 && c != 'q')
		;
	return 0;
}
