/* fuzz_elf.c — libFuzzer harness for elfimage_parse (libelf underneath).
 *
 * The input is copied to a buffer of exactly its size, so ASan sees any
 * read past it (the contract: never outside buf[0, len)). A parsed image
 * is also asked for its bias and end, as classify does.
 *
 *   make fuzz [FUZZ_SECONDS=60]
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elfimage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	struct arena a;
	struct elfimage im;
	struct vms_error err;
	uint64_t bias;
	size_t i;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	arena_init(&a);
	if (elfimage_parse(buf, size, &a, &im, &err) == 0) {
		if (im.is_image && im.nload == 0)
			abort(); /* contract: an image has PT_LOAD segments */
		for (i = 0; i < im.nsec; i++)
			if (!im.sec[i].name)
				abort();
		if (im.build_id && strlen(im.build_id) % 2)
			abort();
		(void)elfimage_end(&im);
		(void)elfimage_bias(&im, 0x7f0000000000ull, 0, &bias);
	}
	arena_fini(&a);
	free(buf);
	return 0;
}
