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
 * Zstd frames and JSON together: an input whose sections are all stored
 * is loaded as it is and, when its first section's first byte is odd, a
 * second time with every section but "end" compressed (one zstd frame at
 * level 1, its size said, a checksum when the second byte is odd): the
 * mutations of the JSON part and the smaps text then come through the
 * decompression and its checks (the size bounds of snapfile_int.h among
 * them), not only through the stored path.
 *
 *   make fuzz [FUZZ_SECONDS=60]
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

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

static void load(const uint8_t *data, size_t size)
{
	struct vms_error err;
	struct vms_snapshot *s = vms_load_buffer(data, size, "fuzz", &err);

	if (s) {
		export_all(s);
		vms_snapshot_free(s);
	} else if (err.kind != VMS_ERR_FILE && err.kind != VMS_ERR_NOMEM) {
		abort(); /* a bad file is a file error, nothing else */
	}
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/* The file with its stored sections compressed (see the top); NULL when
 * it is not a file of stored sections. */
static uint8_t *compressed(const uint8_t *data, size_t size, size_t *out_len)
{
	enum { HEAD = 25, SEC = 32 };
	size_t off = HEAD, cap = size * 2 + 4096, w = HEAD;
	uint8_t *out;
	int check;

	if (size < HEAD + SEC + 2 || memcmp(data, "vmscope snapshot\n", 17))
		return NULL;
	if (!(data[HEAD + SEC] & 1))
		return NULL;
	check = data[HEAD + SEC + 1] & 1;
	out = malloc(cap);
	if (!out)
		return NULL;
	memcpy(out, data, HEAD);
	while (off + SEC <= size) {
		uint64_t stored = le(data + off + 16, 8);
		const uint8_t *p = data + off + SEC;
		bool end = strncmp((const char *)data + off, "end", 12) == 0;
		size_t z;

		if (le(data + off + 12, 4) != 0 || stored > size - off - SEC ||
		    cap - w < SEC + ZSTD_compressBound((size_t)stored))
			break;
		memcpy(out + w, data + off, SEC);
		if (end) {
			memcpy(out + w + SEC, p, (size_t)stored);
			w += SEC + (size_t)stored;
			*out_len = w;
			return out;
		} else {
			static ZSTD_CCtx *c; /* one for every run */

			if (!c && !(c = ZSTD_createCCtx()))
				break;
			ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
			ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
			ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, check);
			z = ZSTD_compress2(c, out + w + SEC,
					   cap - w - SEC, p, (size_t)stored);
			if (ZSTD_isError(z))
				break;
			put_le(out + w + 12, 1, 4);
			put_le(out + w + 16, z, 8);
			w += SEC + z;
		}
		off += SEC + (size_t)stored;
	}
	free(out);
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t zlen = 0;
	uint8_t *z;

	load(data, size);
	z = compressed(data, size, &zlen);
	if (z) {
		load(z, zlen);
		free(z);
	}
	return 0;
}
