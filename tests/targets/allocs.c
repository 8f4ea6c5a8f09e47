/* allocs.c — a target for tests/live/test_allocators.py: allocates
 * MIB MiB (argv[1], default 16) in 256-byte blocks through malloc, writes
 * into every block, prints "ready BYTES" and waits in pause(). Run with an
 * allocator preloaded (LD_PRELOAD=libjemalloc.so.2, libtcmalloc_minimal,
 * libmimalloc) it shows which one vmscope reports as malloc's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 16;
	size_t n = mib * 1024 * 1024 / 256, i;
	char **keep = malloc(n * sizeof(*keep));

	if (!keep)
		return 1;
	for (i = 0; i < n; i++) {
		keep[i] = malloc(256);
		if (!keep[i])
			return 1;
		memset(keep[i], (int)(i & 0x7f) | 1, 256);
	}
	printf("ready %zu\n", n * 256);
	fflush(stdout);
	pause();
	return keep[n - 1][0] == 0;
}
