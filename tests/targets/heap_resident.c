/* heap_resident — a glibc arena whose free chunks' residency the target
 * controls and measures itself, for the "free bytes still resident"
 * figure of the heap walker (tests/live/test_heap_resident.py).
 *
 * A thread's first malloc gives it an arena of its own. In it the thread
 * allocates three 96 KiB chunks, each followed by a small chunk it keeps
 * (so the big ones stay apart once freed, and apart from top):
 *   A  written whole, freed: resident but for nothing;
 *   B  written whole, freed, then the middle half of its pages dropped
 *      (madvise MADV_DONTNEED): about half resident;
 *   C  never written, freed: only the pages its headers touch.
 * Then it parks (pthread_barrier_wait, pause: never inside malloc). The
 * main thread reads the arena's free chunks from their headers (A, B, C
 * and top, which follows the last small chunk: nothing else in this arena
 * is free) and asks mincore() which of their pages are in RAM, and prints
 *   ready arena=0xADDR free=N resident=N dropped=N
 * arena: the arena's malloc_state (heap_info->ar_ptr, at the 64 MiB
 * boundary below the chunks); free: the bytes of the free chunks, top
 * included (mallinfo2's fordblks for this arena); resident: those bytes
 * lying in pages present in RAM; dropped: the bytes madvise dropped.
 * Then it blocks in read() on stdin ("q" or EOF exits).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define BIG (96u << 10)
#define HEAP_MAX (64ul << 20) /* glibc's HEAP_MAX_SIZE on LP64 */

static pthread_barrier_t parked;
static unsigned char *big[3];
static unsigned char *small[3];
static size_t dropped;

static size_t chunksize(const void *mem)
{
	return ((const size_t *)mem)[-1] & ~(size_t)7;
}

static void *worker(void *arg)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t lo, hi;
	int i;

	(void)arg;
	for (i = 0; i < 3; i++) {
		big[i] = malloc(BIG);
		small[i] = malloc(48);
		if (!big[i] || !small[i])
			abort();
		memset(small[i], 0x11, 48);
	}
	memset(big[0], 0x5a, BIG);
	memset(big[1], 0x5a, BIG);
	/* the writes happen: a compiler may drop stores into memory that is
	 * freed next */
	__asm__ volatile("" : : "r"(big[0]), "r"(big[1]) : "memory");
	for (i = 0; i < 3; i++)
		free(big[i]);
	/* B's middle half, in whole pages */
	lo = ((uintptr_t)big[1] + BIG / 4 + (uintptr_t)pg - 1) &
	     ~((uintptr_t)pg - 1);
	hi = ((uintptr_t)big[1] + 3 * BIG / 4) & ~((uintptr_t)pg - 1);
	if (madvise((void *)lo, hi - lo, MADV_DONTNEED) != 0)
		abort();
	dropped = hi - lo;
	pthread_barrier_wait(&parked);
	for (;;)
		pause();
	return NULL;
}

/* Bytes of [p, p + n) in pages mincore() says are resident. */
static size_t resident(uintptr_t p, size_t n)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t at = p, end = p + n;
	size_t sum = 0;

	while (at < end) {
		uintptr_t page = at & ~((uintptr_t)pg - 1);
		uintptr_t next = page + (uintptr_t)pg;
		unsigned char v = 0;

		if (next > end)
			next = end;
		if (mincore((void *)page, (size_t)pg, &v) != 0)
			abort();
		if (v & 1)
			sum += next - at;
		at = next;
	}
	return sum;
}

int main(void)
{
	pthread_t t;
	uintptr_t arena, top;
	size_t free_bytes = 0, res = 0, topsz;
	char line[16];
	int i;

	printf("starting\n"); /* stdio's buffer before anything is measured */
	fflush(stdout);
	pthread_barrier_init(&parked, NULL, 2);
	pthread_create(&t, NULL, worker, NULL);
	pthread_barrier_wait(&parked);
	arena = *(const uintptr_t *)((uintptr_t)big[0] & ~(HEAP_MAX - 1));
	for (i = 0; i < 3; i++) {
		uintptr_t c = (uintptr_t)big[i] - 16;

		free_bytes += chunksize(big[i]);
		res += resident(c, chunksize(big[i]));
	}
	top = (uintptr_t)small[2] - 16 + chunksize(small[2]);
	topsz = ((const size_t *)top)[1] & ~(size_t)7;
	free_bytes += topsz;
	res += resident(top, topsz);
	printf("ready arena=0x%lx free=%zu resident=%zu dropped=%zu\n",
	       (unsigned long)arena, free_bytes, res, dropped);
	fflush(stdout);
	while (read(0, line, sizeof(line)) > 0)
		if (line[0] == 'q')
			break;
	return 0;
}
