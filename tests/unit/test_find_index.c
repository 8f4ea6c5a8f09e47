/* test_find_index.c — the binary searches of model/snapshot.c over a
 * snapshot's regions: vms_snapshot_index_from (the region holding an
 * address, else the first above it) and vms_snapshot_find_index (the
 * region holding it, or -1), at each edge of a few regions with holes
 * between them, then against a walk of every region over random ones
 * (the seed printed). */
#include "model/snapshot.h"
#include "tap.h"

#include <stdint.h>
#include <stdlib.h>

static void add(struct vms_snapshot *s, uint64_t start, uint64_t end)
{
	struct vms_region *r = vms_snapshot_add_region(s);

	r->start = start;
	r->end = end;
	r->vmflags = "";
}

/* What the searches should say, by walking every region. */
static size_t walk_from(const struct vms_snapshot *s, uint64_t a)
{
	size_t i;

	for (i = 0; i < s->nregions && s->regions[i].end <= a; i++)
		;
	return i;
}

static ptrdiff_t walk_find(const struct vms_snapshot *s, uint64_t a)
{
	size_t i;

	for (i = 0; i < s->nregions; i++)
		if (s->regions[i].start <= a && a < s->regions[i].end)
			return (ptrdiff_t)i;
	return -1;
}

int main(void)
{
	struct vms_snapshot *s = vms_snapshot_new(), *r = vms_snapshot_new();
	unsigned seed = tap_seed(20261129);
	size_t i, bad_from = 0, bad_find = 0;
	uint64_t at = 0x10000;

	ok(vms_snapshot_index_from(s, 0x1000) == 0 &&
		   vms_snapshot_find_index(s, 0x1000) == -1,
	   "no regions: 0, and no region holds it");
	add(s, 0x1000, 0x3000);
	add(s, 0x3000, 0x4000); /* adjacent */
	add(s, 0x8000, 0x9000); /* after a hole */
	add(s, 0xffffffffff600000ull, 0xffffffffff601000ull);
	ok(vms_snapshot_index_from(s, 0) == 0 &&
		   vms_snapshot_find_index(s, 0) == -1,
	   "below the first: its index, held by none");
	ok(vms_snapshot_index_from(s, 0x1000) == 0 &&
		   vms_snapshot_find_index(s, 0x1000) == 0,
	   "a region's start: that region");
	ok(vms_snapshot_index_from(s, 0x2fff) == 0 &&
		   vms_snapshot_find_index(s, 0x2fff) == 0,
	   "its last byte: that region");
	ok(vms_snapshot_index_from(s, 0x3000) == 1 &&
		   vms_snapshot_find_index(s, 0x3000) == 1,
	   "its end, the next one's start: the next one");
	ok(vms_snapshot_index_from(s, 0x4000) == 2 &&
		   vms_snapshot_find_index(s, 0x4000) == -1,
	   "a hole: the first region above it, held by none");
	ok(vms_snapshot_index_from(s, 0xffffffffff600fffull) == 3 &&
		   vms_snapshot_find_index(s, 0xffffffffff600fffull) == 3,
	   "the top of the address space ([vsyscall]'s page)");
	ok(vms_snapshot_index_from(s, 0xffffffffff601000ull) == 4 &&
		   vms_snapshot_find_index(s, 0xffffffffff601000ull) == -1,
	   "above the last: nregions, held by none");

	/* random regions, each a few pages after a hole of 0-2 pages */
	srand(seed);
	for (i = 0; i < 2000; i++) {
		uint64_t start = at + (uint64_t)(rand() % 3) * 0x1000;
		uint64_t end = start + (uint64_t)(1 + rand() % 4) * 0x1000;

		add(r, start, end);
		at = end;
	}
	for (i = 0; i < 20000; i++) {
		uint64_t a = 0xf000 + (uint64_t)rand() % (at - 0xe000);

		bad_from += vms_snapshot_index_from(r, a) != walk_from(r, a);
		bad_find += vms_snapshot_find_index(r, a) != walk_find(r, a);
	}
	ok(bad_from == 0 && bad_find == 0,
	   "20000 random addresses over 2000 regions: as a walk of every "
	   "region says (%zu and %zu differ)",
	   bad_from, bad_find);
	vms_snapshot_free(s);
	vms_snapshot_free(r);
	return tap_done();
}
