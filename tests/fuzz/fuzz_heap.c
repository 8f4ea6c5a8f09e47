/* fuzz_heap.c — libFuzzer harness for the glibc heap walker
 * (glibc_walk.h) over a recorded memory image.
 *
 * The image is tests/fixtures/glibc236_small.heap (or $VMS_HEAP_FIXTURE),
 * loaded once. Each input damages a copy of it: its first byte picks the
 * glibc layout it is walked as (2.27 to 2.42) and, by its high nibble,
 * which pages read as in RAM; the rest is read as records of a 32-bit word
 * index (modulo the image's 8-byte words) and a 64-bit word written at
 * that word of the image's recorded bytes; a byte left over after the
 * records walks, by its low bit, the lists alone (lists_only: a running
 * target's walk, vmscope --all, which once divided by a zeroed cache's
 * page size on a main arena marked not contiguous). The walk must return,
 * without a sanitizer report, in a bounded number of reads; the image is
 * then restored.
 *
 *   make fuzz [FUZZ_SECONDS=60]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fixtures/heapfix.h"
#include "analyze/heaps/glibc_walk.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct heapfix fix;
static unsigned char *pristine;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("VMS_HEAP_FIXTURE");
	char alt[4200];
	unsigned char *buf;
	size_t len;

	(void)argc;
	if (!path) {
		path = "tests/fixtures/glibc236_small.heap";
		if (access(path, R_OK) != 0 && strrchr((*argv)[0], '/')) {
			/* build-fuzz/fuzz_heap -> tests/fixtures */
			snprintf(alt, sizeof(alt), "%s", (*argv)[0]);
			*strrchr(alt, '/') = '\0';
			snprintf(alt + strlen(alt), sizeof(alt) - strlen(alt),
				 "/../tests/fixtures/glibc236_small.heap");
			path = alt;
		}
	}
	if (!heapfix_read_file(path, &buf, &len) ||
	    !heapfix_load(buf, len, &fix)) {
		fprintf(stderr, "fuzz_heap: cannot load %s\n", path);
		abort();
	}
	free(buf);
	pristine = malloc(fix.bloblen);
	memcpy(pristine, fix.blob, fix.bloblen);
	return 0;
}

/* Pages in RAM: a pattern from the input's first byte (garbage segments
 * then have their free chunks counted against it too). */
static unsigned present_seed;

static int fuzz_present(void *ctx, uint64_t addr, size_t npages,
			unsigned char *out)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < npages; i++)
		out[i] = (unsigned char)((addr >> 12) + i + present_seed) & 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct glibc_mem mem = { heapfix_read, &fix, fuzz_present, NULL };
	struct glibc_walk_in in;
	struct glibc_walk_res res;
	size_t i;

	if (size < 1 || fix.bloblen < 8)
		return 0;
	fix.minor = 27 + data[0] % 16;
	present_seed = data[0] >> 4;
	if (!heapfix_input(&fix, &in))
		abort();
	for (i = 1; i + 12 <= size; i += 12) {
		uint32_t off;
		uint64_t v;

		memcpy(&off, data + i, 4);
		memcpy(&v, data + i + 4, 8);
		off = off % (uint32_t)(fix.bloblen / 8) * 8;
		memcpy(fix.blob + off, &v, 8);
	}
	in.lists_only = (size - 1) % 12 && (data[size - 1] & 1);
	fix.reads = 0;
	if (glibc_walk(&in, &mem, &res) != 0)
		abort(); /* only out of memory or a cancel may fail */
	/* bounded: the image is ~27 KB of recorded bytes in spans of a few
	 * MB; a walk that reads more than this is looping */
	if (fix.reads > 2000000)
		abort();
	glibc_walk_fini(&res);
	memcpy(fix.blob, pristine, fix.bloblen);
	fix.minor = 36;
	return 0;
}
