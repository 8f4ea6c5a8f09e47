/* allocs.c — a target for tests/live/test_allocators.py: allocates
 * MIB MiB (argv[1], default 16) in 256-byte blocks through malloc, writes
 * into every block, prints its own view of what it holds and waits in
 * pause(). With "frag" after MIB it then allocates 240 blocks of 4 KiB to
 * 600 KiB (small, medium and large to any allocator) and frees every
 * other one, so that the allocator holds free memory between used (and
 * tcmalloc's page map entries that point to spans since reused); the
 * blocks kept count in the line's sums. Run with an allocator preloaded (LD_PRELOAD=libjemalloc.so.2,
 * libtcmalloc_minimal, libmimalloc) it shows which one vmscope reports as
 * malloc's, and what that allocator says of itself.
 *
 * The line: "ready BYTES usable USABLE" — the bytes asked for, and the sum
 * of malloc_usable_size() over every block it holds (the allocator's own
 * size of each) — then, where gperftools' tcmalloc provides malloc,
 * " tcmalloc HEAP PHYSICAL UNMAPPED FREE": its MallocExtension properties
 * generic.heap_size, generic.total_physical_bytes,
 * tcmalloc.pageheap_unmapped_bytes and tcmalloc.pageheap_free_bytes, read after the line's own buffer was
 * allocated (looked up with dlsym: nothing links it). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*tc_prop_fn)(const char *name, size_t *value);

int main(int argc, char **argv)
{
	static const size_t mix[] = { 4096, 20000, 70000, 300000, 600000, 9000 };
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 16;
	int frag = argc > 2 && strcmp(argv[2], "frag") == 0;
	char *held[240] = { 0 };
	size_t n = mib * 1024 * 1024 / 256, i, usable;
	char **keep = malloc(n * sizeof(*keep));
	tc_prop_fn tc = (tc_prop_fn)dlsym(RTLD_DEFAULT,
					  "MallocExtension_GetNumericProperty");
	size_t heap = 0, phys = 0, unmapped = 0, pfree = 0;

	if (!keep)
		return 1;
	for (i = 0; i < n; i++) {
		keep[i] = malloc(256);
		if (!keep[i])
			return 1;
		memset(keep[i], (int)(i & 0x7f) | 1, 256);
	}
	for (i = 0; frag && i < 240; i++) {
		size_t sz = mix[i % (sizeof(mix) / sizeof(mix[0]))];

		held[i] = malloc(sz);
		if (!held[i])
			return 1;
		memset(held[i], 1, sz);
	}
	for (i = 1; frag && i < 240; i += 2) {
		free(held[i]);
		held[i] = NULL;
	}
	/* stdout's buffer first, so that the figures below include it */
	setvbuf(stdout, NULL, _IOFBF, 4096);
	printf("%s", "");
	usable = malloc_usable_size(keep);
	for (i = 0; i < n; i++)
		usable += malloc_usable_size(keep[i]);
	for (i = 0; i < 240; i++)
		usable += held[i] ? malloc_usable_size(held[i]) : 0;
	if (tc && (!tc("generic.heap_size", &heap) ||
		   !tc("generic.total_physical_bytes", &phys) ||
		   !tc("tcmalloc.pageheap_unmapped_bytes", &unmapped) ||
		   !tc("tcmalloc.pageheap_free_bytes", &pfree)))
		tc = NULL;
	printf("ready %zu usable %zu", n * 256, usable);
	if (tc)
		printf(" tcmalloc %zu %zu %zu %zu", heap, phys, unmapped,
		       pfree);
	printf("\n");
	fflush(stdout);
	pause();
	return keep[n - 1][0] == 0 || (held[0] && held[0][0] == 0);
}
