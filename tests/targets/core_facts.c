/* core_facts.c — a target for tests/live/test_core_facts.py: what a core
 * cannot say and what it says of the process's name.
 *
 *   core_facts TITLE
 *
 * Retitles itself as servers do (redis's setproctitle): TITLE, longer
 * than 16 bytes, is written over its command line (argv[0]'s memory and
 * what follows, the rest cleared), so that /proc/PID/cmdline and a core's
 * psargs say TITLE while its name (comm) stays the executable's. Then it
 * maps 64 MiB MAP_NORESERVE (not charged to the commit limit: its
 * Committed is what is resident, as jemalloc and mimalloc map where the
 * system overcommits) and writes into its first 1 MiB, mallocs 4 MiB in
 * 4 KiB blocks (the brk heap: accountable) and prints "ready START END"
 * (the MAP_NORESERVE mapping, hex), then waits in pause().
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NORESERVE_BYTES (64u << 20)
#define TOUCHED (1u << 20)

int main(int argc, char **argv)
{
	static void *keep[1024];
	char *end, *m;
	size_t i, room;

	if (argc < 2)
		return 2;
	/* argv's strings lie one after the other: the room is up to the
	 * end of the last */
	end = argv[argc - 1] + strlen(argv[argc - 1]);
	room = (size_t)(end - argv[0]);
	if (strlen(argv[1]) > room)
		return 2;
	{
		char title[256];

		snprintf(title, sizeof(title), "%s", argv[1]);
		memset(argv[0], 0, room);
		memcpy(argv[0], title, strlen(title));
	}
	m = mmap(NULL, NORESERVE_BYTES, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	memset(m, 1, TOUCHED);
	for (i = 0; i < 1024; i++) {
		keep[i] = malloc(4096);
		if (!keep[i])
			return 1;
		memset(keep[i], 2, 4096);
	}
	printf("ready %lx %lx\n", (unsigned long)m,
	       (unsigned long)(m + NORESERVE_BYTES));
	fflush(stdout);
	for (;;)
		pause();
}
