/* fuzz_smaps.c — libFuzzer harness for the smaps parser and what follows it.
 *
 * The input is parsed in one piece and again in chunks whose sizes come from
 * its first byte (the unconsumed tail carried as the sampler does); both
 * must agree on the number of regions. An accepted snapshot is classified
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

#include "capture.h"
#include "export.h"
#include "outbuf.h"
#include "smaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int parse_chunked(struct vms_snapshot *s, const char *buf, size_t len,
			 size_t chunk)
{
	struct smaps_parser p;
	struct vms_error err;
	char *pend = malloc(len + 1);
	size_t plen = 0, off = 0;
	int rc = -1;

	if (!pend)
		return -1;
	smaps_parser_init(&p, s);
	for (;;) {
		size_t n = len - off < chunk ? len - off : chunk;
		ssize_t used;

		memcpy(pend + plen, buf + off, n);
		plen += n;
		off += n;
		used = smaps_parse(&p, pend, plen, off == len, &err);
		if (used < 0 || (size_t)used > plen)
			abort(); /* only out of memory may fail */
		memmove(pend, pend + used, plen - (size_t)used);
		plen -= (size_t)used;
		if (off == len)
			break;
	}
	if (plen)
		abort(); /* at eof every byte is consumed */
	rc = smaps_finish(&p, &err);
	free(pend);
	return rc;
}

static void export_all(const struct vms_snapshot *s)
{
	static const enum export_format f[] = { EXPORT_SUMMARY, EXPORT_TEXT,
						EXPORT_CSV, EXPORT_JSON };
	struct outbuf o;
	struct vms_error err;
	size_t i;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (outbuf_open_fd(&o, fd, &err) == 0) {
		for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
			export_write(s, f[i], &o);
		outbuf_close(&o, &err);
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vms_snapshot *a = vms_snapshot_new(), *b = vms_snapshot_new();
	struct vms_error err;
	size_t chunk = size ? 1 + data[0] % 64 : 1;
	int ra, rb;

	if (!a || !b)
		abort();
	ra = smaps_parse_buffer(a, (const char *)data, size, &err);
	rb = parse_chunked(b, (const char *)data, size, chunk);
	if (ra != rb || a->nregions != b->nregions)
		abort(); /* chunking changed the result */
	if (ra == 0 && vms_snapshot_finish(a, 0, false, &err) == 0)
		export_all(a);
	vms_snapshot_free(a);
	vms_snapshot_free(b);
	return 0;
}
