/* fuzz_smaps.c — libFuzzer harness for the smaps parser and what follows it.
 *
 * The input is parsed in one piece and again fed in pieces of 1..64 bytes
 * seeded by its first byte, as the samplers feed it (smaps_feed,
 * tests/fixtures/fixture.h); both must agree on the regions. An accepted snapshot is classified
 * and totalled (vms_snapshot_finish: pid 0, no memory reads, so image files
 * are opened by path as the fixture names them) and exported in every format
 * to an outbuf on /dev/null.
 *
 *   make fuzz [FUZZ_SECONDS=60]
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fixtures/fixture.h"
#include "pipeline.h"
#include "export.h"
#include "outbuf.h"
#include "smaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void export_all(const struct vms_snapshot *s)
{
	struct outbuf o;
	struct vms_error err;
	size_t i;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (outbuf_open_fd(&o, fd, &err) == 0) {
		for (i = 0; vms_exporters[i]; i++)
			vms_exporters[i]->write(s, &o);
		outbuf_close(&o, &err);
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vms_snapshot *a = vms_snapshot_new(), *b = vms_snapshot_new();
	struct vms_error err;
	unsigned seed = size ? data[0] : 0;
	size_t malformed = 0;
	int ra, rb;

	if (!a || !b)
		abort();
	ra = smaps_parse_buffer(a, (const char *)data, size, &err);
	rb = fixture_parse_chunked(b, (const char *)data, size, 64, &seed,
				   &malformed);
	if (ra != rb || a->nregions != b->nregions)
		abort(); /* chunking changed the result */
	if (ra == 0 && vms_snapshot_finish(a, NULL, &err) == 0)
		export_all(a);
	vms_snapshot_free(a);
	vms_snapshot_free(b);
	return 0;
}
