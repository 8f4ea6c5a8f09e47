/* fuzz_hsperf.c — libFuzzer harness for the hsperfdata parser (hsperf.h):
 * the input is a file, given as an exact-size copy so that a read past its
 * end is caught; the heap size is asked of whatever it made. Seeds:
 * tests/fixtures/*.hsperf.
 *
 *   make fuzz [FUZZ_SECONDS=60]
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/runtimes/hsperf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	struct hsperf h;
	struct vms_error err;
	uint64_t sum, largest;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (hsperf_parse(buf, size, &h, &err) == 0)
		hsperf_heap_max(&h, 4096, &sum, &largest);
	free(buf);
	return 0;
}
