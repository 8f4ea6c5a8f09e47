/* fuzz_snapfile.c — libFuzzer harness for the snapshot file loader
 * (src/capture/file/snapfile.h) and everything after it: the input is a file's
 * bytes, loaded through the loader table (vms_load_buffer: sections, zstd,
 * the JSON part, the smaps parser, the kept ELF summaries and heaps, then
 * every step) and, when accepted, exported in every format to /dev/null.
 * It must never crash, hang or read outside the input; a refusal is fine.
 *
 * Seeds: the .vms files of tests/fixtures. snap_stored.vms has its sections stored
 * uncompressed, so mutations reach the JSON reader and the parser (a zstd
 * frame's checksum would stop most of them); snap_v2_nocheck.vms is format
 * 2 without checksums, so they reach the parse on two threads.
 *
 *   make fuzz [FUZZ_SECONDS=60]
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "export/export.h"
#include "base/outbuf.h"
#include "pipeline.h"

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
	struct vms_error err;
	struct vms_snapshot *s = vms_load_buffer(data, size, "fuzz", &err);

	if (s) {
		export_all(s);
		vms_snapshot_free(s);
	} else if (err.kind != VMS_ERR_FILE && err.kind != VMS_ERR_NOMEM) {
		abort(); /* a bad file is a file error, nothing else */
	}
	return 0;
}
