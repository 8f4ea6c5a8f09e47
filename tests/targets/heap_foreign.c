/* heap_foreign — a brk heap extended past holes: the program moves the
 * break itself (sbrk, as an old allocator or a runtime of its own would)
 * between glibc's extensions, twice, so glibc's main arena goes on above
 * each foreign part, leaving a double fencepost below it (sysmalloc's
 * "foreign sbrk"): [heap] is one line, the arena three parts with the
 * program's own data between them.
 *
 * With "first" (argv[1]) it takes 10,008 bytes by sbrk before glibc's
 * malloc ever runs: [heap] then starts with the program's bytes, glibc's
 * brk heap above them (mp_.sbrk_base inside [heap]).
 *
 * It mallocs 200 x 1000 B, takes 100,008 bytes by sbrk (filled with text),
 * mallocs 1000 x 1000 B, takes 50,000 more, mallocs 1000 x 1000 B, frees
 * every third block of the last 2000, and prints "ready" and its
 * mallinfo2 fields, then waits on stdin ('q' ends it). */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *keep[2200];

/* The program's own use of the break: text, nothing like a chunk. */
static void foreign(size_t n)
{
	char *p = sbrk((intptr_t)n);
	size_t i;

	if (p == (void *)-1)
		exit(1);
	for (i = 0; i < n; i++)
		p[i] = "the program's own bytes, not malloc's. "[i % 40];
}

int main(int argc, char **argv)
{
	struct mallinfo2 m;
	char line[16];
	int i;

	if (argc > 1 && strcmp(argv[1], "first") == 0)
		foreign(10008); /* before stdio's buffer, malloc's first */
	printf("starting\n");
	fflush(stdout);
	for (i = 0; i < 200; i++)
		memset(keep[i] = malloc(1000), 1, 1000);
	foreign(100008);
	for (i = 200; i < 1200; i++)
		memset(keep[i] = malloc(1000), 2, 1000);
	foreign(50000);
	for (i = 1200; i < 2200; i++)
		memset(keep[i] = malloc(1000), 3, 1000);
	for (i = 200; i < 2200; i += 3)
		free(keep[i]);
	m = mallinfo2();
	printf("ready pid=%d arena=%zu ordblks=%zu smblks=%zu hblks=%zu "
	       "hblkhd=%zu usmblks=%zu fsmblks=%zu uordblks=%zu fordblks=%zu "
	       "keepcost=%zu\n",
	       (int)getpid(), m.arena, m.ordblks, m.smblks, m.hblks, m.hblkhd,
	       m.usmblks, m.fsmblks, m.uordblks, m.fordblks, m.keepcost);
	fflush(stdout);
	while (read(0, line, sizeof(line)) > 0)
		if (line[0] == 'q')
			break;
	return 0;
}
