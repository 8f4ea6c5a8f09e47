/* heap_noncontig — a main arena that is not contiguous: the program maps a
 * page just above the break once malloc has its brk heap, so the next sbrk
 * fails and glibc goes on in mmapped memory (sysmalloc_mmap_fallback: at
 * least 1 MiB a mapping, the arena marked NONCONTIGUOUS, a double
 * fencepost ending each old segment). The main arena is then the brk heap
 * and several mappings no pointer leads to but top.
 *
 * It mallocs 4000 x 1000 B, frees every third, and prints "ready", its
 * mallinfo2 fields and the page it mapped, then waits on stdin ('q' ends
 * it). */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define N 4000

static void *keep[N];

int main(void)
{
	struct mallinfo2 m;
	char line[16];
	uintptr_t brk;
	void *block;
	int i;

	printf("starting\n"); /* stdio's buffer: malloc's brk heap */
	fflush(stdout);
	brk = ((uintptr_t)sbrk(0) + 4095) & ~(uintptr_t)4095;
	block = mmap((void *)brk, 4096, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (block != (void *)brk)
		return 1;
	for (i = 0; i < N; i++)
		memset(keep[i] = malloc(1000), 1 + i % 7, 1000);
	for (i = 0; i < N; i += 3)
		free(keep[i]);
	m = mallinfo2();
	printf("ready pid=%d arena=%zu ordblks=%zu smblks=%zu hblks=%zu "
	       "hblkhd=%zu usmblks=%zu fsmblks=%zu uordblks=%zu fordblks=%zu "
	       "keepcost=%zu block=%lx\n",
	       (int)getpid(), m.arena, m.ordblks, m.smblks, m.hblks, m.hblkhd,
	       m.usmblks, m.fsmblks, m.uordblks, m.fordblks, m.keepcost,
	       (unsigned long)brk);
	fflush(stdout);
	while (read(0, line, sizeof(line)) > 0)
		if (line[0] == 'q')
			break;
	return 0;
}
