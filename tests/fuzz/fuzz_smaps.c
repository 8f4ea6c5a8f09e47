/* fuzz_smaps.c — libFuzzer harness for the smaps parser and what follows it.
 *
 * The input is parsed in one piece and again fed in pieces of 1..64 bytes
 * seeded by its first byte, as the samplers feed it (smaps_feed,
 * tests/fixtures/fixture.h), and a third time with every line taken the
 * general way (no learned keys); all three must agree on every field of
 * every region. An accepted snapshot is classified
 * and totalled (vms_snapshot_finish: pid 0, no memory reads, so image files
 * are opened by path as the fixture names them) and exported in every format
 * to an outbuf on /dev/null. The same bytes go to procfs_rollup_parse.
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
#include "linux/procfs.h"
#include "export/export.h"
#include "base/outbuf.h"
#include "linux/smaps.h"

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

static bool same_str(const char *x, const char *y)
{
	return x == y || (x && y && strcmp(x, y) == 0);
}

/* Every region of a and b alike, field by field. */
static bool same_regions(const struct vms_snapshot *a,
			 const struct vms_snapshot *b)
{
	size_t i;

	if (a->nregions != b->nregions)
		return false;
	for (i = 0; i < a->nregions; i++) {
		const struct vms_region *x = &a->regions[i], *y = &b->regions[i];

		if (x->start != y->start || x->end != y->end ||
		    x->offset != y->offset || x->inode != y->inode ||
		    x->dev_major != y->dev_major ||
		    x->dev_minor != y->dev_minor || x->perms != y->perms ||
		    x->flags != y->flags || x->vmflags_mask != y->vmflags_mask ||
		    memcmp(&x->c, &y->c, sizeof(x->c)) != 0 ||
		    !same_str(x->path, y->path) ||
		    !same_str(x->vmflags, y->vmflags))
			return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vms_snapshot *a = vms_snapshot_new(), *b = vms_snapshot_new();
	struct vms_snapshot *c = vms_snapshot_new();
	struct smaps_parser p;
	struct vms_error err;
	unsigned seed = size ? data[0] : 0;
	size_t malformed = 0;
	int ra, rb, rc;
	struct vms_rollup roll;

	if (!a || !b || !c)
		abort();
	/* The same bytes as a smaps_rollup text: a valid one has its Rss. */
	procfs_rollup_parse((const char *)data, size, &roll);
	if (roll.valid && roll.rss > UINT64_MAX - 1023)
		abort();
	ra = smaps_parse_buffer(a, (const char *)data, size, &err);
	rb = fixture_parse_chunked(b, (const char *)data, size, 64, &seed,
				   &malformed);
	if (ra != rb || !same_regions(a, b))
		abort(); /* chunking changed the result */
	/* the general way for every line: the fast path changes nothing */
	smaps_parser_init(&p, c);
	p.slow = true;
	rc = smaps_parse(&p, (const char *)data, size, true, &err) < 0
		     ? -2
		     : smaps_finish(&p, &err);
	if (rc != ra || !same_regions(a, c))
		abort();
	vms_snapshot_free(c);
	if (ra == 0 && vms_snapshot_finish(a, NULL, &err) == 0)
		export_all(a);
	vms_snapshot_free(a);
	vms_snapshot_free(b);
	return 0;
}
