/* allocs.c — a target for tests/live/test_allocators.py: allocates
 * MIB MiB (argv[1], default 16) in 256-byte blocks through malloc, writes
 * into every block, prints its own view of what it holds and waits in
 * pause(). Run with an allocator preloaded (LD_PRELOAD=libjemalloc.so.2,
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
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 16;
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
	/* stdout's buffer first, so that the figures below include it */
	setvbuf(stdout, NULL, _IOFBF, 4096);
	printf("%s", "");
	usable = malloc_usable_size(keep);
	for (i = 0; i < n; i++)
		usable += malloc_usable_size(keep[i]);
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
	return keep[n - 1][0] == 0;
}
