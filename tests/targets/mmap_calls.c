/* mmap_calls — a process that calls the mmap family a known number of
 * times from known functions when told, for the attach test
 * (tests/live/test_trace_attach.py).
 *
 *   mmap_calls [LIB]
 *
 * Prints "ready" and waits for a line on stdin. Then:
 *   map_blocks()    12 mmaps of 5 pages each (private, anonymous), each
 *                   page written;
 *   unmap_blocks()  munmaps 5 of them whole;
 *   remap_block()   mremaps one of the others from 5 pages to 8
 *                   (MREMAP_MAYMOVE), its new pages written;
 *   grow_break()    4 brk growths of 16 pages each, through brk() itself
 *                   (the break then moved back down by one brk: a
 *                   shrink of 64 pages);
 *   madvise_block() madvise(MADV_DONTNEED) of one block;
 *   thread_blocks() in a thread of its own: 3 mmaps of 7 pages, kept (the
 *                   thread runs on a stack of the program's: glibc maps
 *                   none for it, nor gives its pages back with madvise
 *                   at its end).
 *   with LIB, a shared object loaded now (dlopen) whose lib_maps() is
 *                   called: it makes its own mmaps (the attach test's
 *                   makes 2 of 3 pages, kept);
 * and prints one line with what it computed from its own memory (what a
 * trace must not change):
 *   done maps=12 unmapped=5 remapped=1 brk=4 thread=3 lib=R sum=N
 * (R: what lib_maps() returned, or "none" without LIB)
 * where N sums the bytes it reads back from every block it keeps. Then it
 * waits for another line and exits 0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NMAP 12
#define NUNMAP 5
#define NBRK 4

static long pg;
static unsigned char *blocks[NMAP];

__attribute__((noinline)) static int map_blocks(void)
{
	int i;

	for (i = 0; i < NMAP; i++) {
		blocks[i] = mmap(NULL, 5 * pg, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (blocks[i] == MAP_FAILED)
			return -1;
		memset(blocks[i], i + 1, 5 * pg);
	}
	return 0;
}

__attribute__((noinline)) static int unmap_blocks(void)
{
	int i;

	for (i = 0; i < NUNMAP; i++) {
		if (munmap(blocks[i], 5 * pg) < 0)
			return -1;
		blocks[i] = NULL;
	}
	return 0;
}

__attribute__((noinline)) static int remap_block(void)
{
	unsigned char *p = mremap(blocks[NUNMAP], 5 * pg, 8 * pg,
				  MREMAP_MAYMOVE);

	if (p == MAP_FAILED)
		return -1;
	memset(p + 5 * pg, 0x7f, 3 * pg);
	blocks[NUNMAP] = p;
	return 0;
}

__attribute__((noinline)) static int grow_break(void)
{
	char *start = sbrk(0), *end = start;
	int i;

	for (i = 0; i < NBRK; i++) {
		if (brk(end + 16 * pg) < 0)
			return -1;
		end += 16 * pg;
		end[-1] = (char)i;
	}
	return brk(start);
}

__attribute__((noinline)) static int madvise_block(void)
{
	/* the zero pages it then reads are part of the sum */
	return madvise(blocks[NMAP - 1], 5 * pg, MADV_DONTNEED);
}

__attribute__((noinline)) static void *thread_blocks(void *arg)
{
	unsigned char **out = arg;
	int i;

	for (i = 0; i < 3; i++) {
		out[i] = mmap(NULL, 7 * pg, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (out[i] == MAP_FAILED)
			return NULL;
		memset(out[i], 0x30 + i, 7 * pg);
	}
	return out;
}

int main(int argc, char **argv)
{
	static unsigned char *tblocks[3];
	static char tstack[1 << 18] __attribute__((aligned(4096)));
	pthread_attr_t attr;
	unsigned long long sum = 0;
	pthread_t th;
	void *ret;
	char line[64], lib[16] = "none";
	long i, j;

	pg = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IONBF, 0); /* no buffer to allocate later */
	printf("ready\n");
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	if (map_blocks() < 0 || unmap_blocks() < 0 || remap_block() < 0 ||
	    grow_break() < 0 || madvise_block() < 0)
		return 1;
	if (pthread_attr_init(&attr) ||
	    pthread_attr_setstack(&attr, tstack, sizeof(tstack)) ||
	    pthread_create(&th, &attr, thread_blocks, tblocks) ||
	    pthread_join(th, &ret) || !ret)
		return 1;
	for (i = 0; i < 3; i++)
		for (j = 0; j < 7 * pg; j++)
			sum += tblocks[i][j];
	for (i = NUNMAP; i < NMAP; i++)
		for (j = 0; j < (i == NUNMAP ? 8 : 5) * pg; j++)
			sum += blocks[i][j];
	if (argc > 1) {
		void *h = dlopen(argv[1], RTLD_NOW);
		int (*fn)(void) = h ? (int (*)(void))dlsym(h, "lib_maps") : NULL;

		if (!fn)
			return 1;
		snprintf(lib, sizeof(lib), "%d", fn());
	}
	printf("done maps=%d unmapped=%d remapped=1 brk=%d thread=3 lib=%s "
	       "sum=%llu\n",
	       NMAP, NUNMAP, NBRK, lib, sum);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	return 0;
}
