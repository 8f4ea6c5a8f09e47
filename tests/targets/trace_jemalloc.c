/* trace_jemalloc — which allocator served its blocks, by the allocator's
 * own account, for tests/live/test_trace_family.py (built plain by the
 * Makefile, and linked with libjemalloc by the test).
 *
 * je_blocks() mallocs 10 blocks of 100,000 bytes (above jemalloc's thread
 * cache: counted in its statistics at once) and frees 4. When jemalloc
 * serves malloc (its mallctl found with dlsym), prints
 *   "jemalloc allocated+=G usable=U"
 * G: the growth of mallctl("stats.allocated") across je_blocks(), U: the
 * sum of malloc_usable_size of the 6 blocks kept (jemalloc's size
 * classes: 6 * 114,688); without jemalloc prints "allocator: not jemalloc".
 * Exits 0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);

static void *volatile blocks[10];

__attribute__((noinline, noclone)) void je_blocks(void)
{
	int i;

	for (i = 0; i < 10; i++) {
		blocks[i] = malloc(100000);
		if (blocks[i])
			memset(blocks[i], i, 64);
	}
	for (i = 0; i < 4; i++) {
		free(blocks[i]);
		blocks[i] = NULL;
	}
}

static size_t allocated(mallctl_fn ctl)
{
	uint64_t epoch = 1;
	size_t v = 0, n = sizeof(v), en = sizeof(epoch);

	/* the statistics are a copy refreshed when the epoch is written */
	if (ctl("epoch", &epoch, &en, &epoch, en) ||
	    ctl("stats.allocated", &v, &n, NULL, 0))
		return 0;
	return v;
}

int main(void)
{
	mallctl_fn ctl = (mallctl_fn)dlsym(RTLD_DEFAULT, "mallctl");
	size_t before, after, usable = 0;
	int i;

	if (!ctl) {
		je_blocks();
		printf("allocator: not jemalloc\n");
		return 0;
	}
	before = allocated(ctl);
	je_blocks();
	after = allocated(ctl);
	for (i = 4; i < 10; i++)
		usable += malloc_usable_size(blocks[i]);
	printf("jemalloc allocated+=%zu usable=%zu\n", after - before, usable);
	return 0;
}
