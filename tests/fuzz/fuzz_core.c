/* fuzz_core.c — libFuzzer harness for the ELF core loader
 * (src/capture/file/coredump.h) and everything after it: the input is a core's
 * bytes, loaded through the loader table (vms_load_buffer: the program
 * headers, the notes, NT_FILE, then every step reading the core's memory)
 * and, when accepted, exported in every format to /dev/null. It must never
 * crash, hang or read outside the input; a refusal is fine. Inputs that
 * are not a core are skipped (fuzz_snapfile covers the other loader).
 *
 * Seed: tests/fixtures/sleep_small.core, the gcore of sleep(1) with its
 * notes whole and its segments emptied (20 KB). Paths in NT_FILE are
 * opened only when they are regular files, read-only.
 *
 *   make fuzz [FUZZ_SECONDS=60]
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "capture/file/coredump.h"
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
	struct vms_snapshot *s;

	if (!coredump_recognise(data, size))
		return -1; /* not kept in the corpus */
	s = vms_load_buffer(data, size, "fuzz", &err);
	if (s) {
		export_all(s);
		vms_snapshot_free(s);
	} else if (err.kind != VMS_ERR_FILE && err.kind != VMS_ERR_NOMEM) {
		abort(); /* a bad core is a file error, nothing else */
	}
	return 0;
}
