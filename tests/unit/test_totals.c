/* test_totals.c — DESIGN.md's column table, region by region, and the
 * per-type rows, total and free gaps of totals_compute(). Each expectation
 * is the table's rule applied to the region's own counters. */
#include <string.h>

#include "model/snapshot.h"
#include "tap.h"
#include "model/totals.h"

#define KIB 1024ull
#define MIB (1024ull * 1024)

static struct vms_region *add(struct vms_snapshot *s, uint64_t start,
			      uint64_t size, const char *perms,
			      const char *path, uint64_t inode,
			      uint32_t vmflags, enum vms_type type)
{
	struct vms_region *r = vms_snapshot_add_region(s);

	r->start = start;
	r->end = start + size;
	r->perms = (uint16_t)((perms[0] == 'r' ? VMS_PERM_R : 0) |
			      (perms[1] == 'w' ? VMS_PERM_W : 0) |
			      (perms[2] == 'x' ? VMS_PERM_X : 0) |
			      (perms[3] == 's' ? VMS_PERM_SHARED : 0));
	r->path = path;
	r->inode = inode;
	r->vmflags = "";
	r->vmflags_mask = vmflags;
	r->type = (uint8_t)type;
	return r;
}

static void counters(struct vms_region *r, uint64_t rss, uint64_t swap,
		     uint64_t pclean, uint64_t pdirty, uint64_t sclean,
		     uint64_t sdirty)
{
	r->c.rss = rss;
	r->c.pss = pclean + pdirty + (sclean + sdirty) / 2;
	r->c.swap = swap;
	r->c.private_clean = pclean;
	r->c.private_dirty = pdirty;
	r->c.shared_clean = sclean;
	r->c.shared_dirty = sdirty;
	r->c.locked = pdirty / 2;
}

static void test_regions(void)
{
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_region *lib, *shf, *ac, *nr, *none, *shanon, *heap, *stack;
	uint64_t sz;

	/* file-backed, private: committed Size, private = Private_Dirty */
	lib = add(s, 0x400000, 64 * KIB, "rw-p", "/usr/lib/libx.so", 5,
		  VMS_VF_AC, VMS_T_IMAGE);
	counters(lib, 40 * KIB, 0, 4 * KIB, 12 * KIB, 24 * KIB, 0);
	/* file-backed, shared */
	shf = add(s, 0x500000, 128 * KIB, "rw-s", "/data/db", 6,
		  VMS_VF_SH | VMS_VF_MS, VMS_T_MAPPED_FILE);
	counters(shf, 32 * KIB, 0, 0, 8 * KIB, 16 * KIB, 8 * KIB);
	/* private anonymous, accountable: Size */
	ac = add(s, 0x600000, 1 * MIB, "rw-p", NULL, 0, VMS_VF_AC,
		 VMS_T_PRIVATE_DATA);
	counters(ac, 100 * KIB, 8 * KIB, 0, 100 * KIB, 0, 0);
	/* MAP_NORESERVE: Rss + Swap */
	nr = add(s, 0x800000, 4 * MIB, "rw-p", NULL, 0, VMS_VF_NR, VMS_T_HEAP);
	counters(nr, 300 * KIB, 20 * KIB, 0, 300 * KIB, 0, 0);
	/* PROT_NONE reservation: nothing committed */
	none = add(s, 0xc00000, 60 * MIB, "---p", NULL, 0, 0, VMS_T_HEAP);
	/* shared anonymous: shared, so Size, nothing private */
	shanon = add(s, 0x5000000, 12 * KIB, "rw-s", "/dev/zero (deleted)",
		     1025, VMS_VF_SH | VMS_VF_MS, VMS_T_SHAREABLE);
	counters(shanon, 8 * KIB, 0, 0, 0, 0, 8 * KIB);
	heap = add(s, 0x6000000, 132 * KIB, "rw-p", "[heap]", 0, VMS_VF_AC,
		   VMS_T_HEAP);
	counters(heap, 20 * KIB, 0, 0, 20 * KIB, 0, 0);
	stack = add(s, 0x7ff000000000ull, 132 * KIB, "rw-p", "[stack]", 0,
		    VMS_VF_AC | VMS_VF_GD, VMS_T_STACK);
	counters(stack, 16 * KIB, 4 * KIB, 0, 16 * KIB, 0, 0);
	s->user_start = 0x10000;
	s->user_end = 0x7ffffffff000ull;
	s->page_table = 48 * KIB;
	totals_compute(s);

	sz = vms_region_size(lib);
	ok(vms_region_committed(lib) == sz &&
		   vms_region_private(lib) == lib->c.private_dirty &&
		   vms_region_private_ws(lib) == lib->c.private_dirty,
	   "file private: committed = size, private = private_ws = "
	   "Private_Dirty");
	ok(vms_region_committed(shf) == vms_region_size(shf) &&
		   vms_region_private(shf) == 0 &&
		   vms_region_private_ws(shf) == 0,
	   "file shared: committed = size, nothing private");
	ok(vms_region_committed(ac) == vms_region_size(ac) &&
		   vms_region_private(ac) == vms_region_committed(ac) &&
		   vms_region_private_ws(ac) ==
			   ac->c.private_clean + ac->c.private_dirty,
	   "anon ac: committed = private = size, private_ws = Private_*");
	ok(vms_region_committed(nr) == nr->c.rss + nr->c.swap &&
		   vms_region_private(nr) == vms_region_committed(nr) &&
		   vms_region_private_ws(nr) ==
			   nr->c.private_clean + nr->c.private_dirty,
	   "anon nr: committed = private = Rss + Swap");
	ok(vms_region_committed(none) == 0 && (none->flags & VMS_RF_RESERVED) &&
		   !(nr->flags & VMS_RF_RESERVED) &&
		   !(ac->flags & VMS_RF_RESERVED),
	   "PROT_NONE: nothing committed, flagged reserved (others not)");
	ok(vms_region_committed(shanon) == vms_region_size(shanon) &&
		   vms_region_private(shanon) == 0 &&
		   vms_region_private_ws(shanon) == 0,
	   "shared anonymous: committed = size, nothing private");
	ok(vms_region_committed(heap) == vms_region_size(heap) &&
		   vms_region_committed(stack) == vms_region_size(stack) &&
		   vms_region_private_ws(stack) == stack->c.private_dirty,
	   "[heap] and [stack] are anonymous: committed = size");

	/* Totals: the sums of the per-region figures. */
	{
		struct vms_totals want;
		struct vms_totals rows;
		size_t i;
		int t;

		memset(&want, 0, sizeof(want));
		memset(&rows, 0, sizeof(rows));
		for (i = 0; i < s->nregions; i++) {
			const struct vms_region *r = &s->regions[i];

			want.size += vms_region_size(r);
			want.committed += vms_region_committed(r);
			want.private_bytes += vms_region_private(r);
			want.ws += r->c.rss;
			want.private_ws += vms_region_private_ws(r);
			want.shareable_ws +=
				r->c.rss - vms_region_private_ws(r);
			want.shared_ws += r->c.shared_clean + r->c.shared_dirty;
			want.locked_ws += r->c.locked;
			want.pss += r->c.pss;
			want.uss += r->c.private_clean + r->c.private_dirty;
			want.swap += r->c.swap;
			want.blocks++;
			if (vms_region_size(r) > want.largest)
				want.largest = vms_region_size(r);
		}
		ok(memcmp(&want, &s->total, sizeof(want)) == 0,
		   "total: every column is the sum over regions");
		for (t = 0; t < VMS_T_PAGE_TABLE; t++) {
			rows.size += s->types[t].size;
			rows.committed += s->types[t].committed;
			rows.ws += s->types[t].ws;
			rows.blocks += s->types[t].blocks;
		}
		ok(rows.size == want.size && rows.committed == want.committed &&
			   rows.ws == want.ws && rows.blocks == want.blocks,
		   "type rows add up to the total");
		ok(s->types[VMS_T_HEAP].blocks == 3 &&
			   s->types[VMS_T_HEAP].largest ==
				   vms_region_size(none),
		   "heap row: 3 blocks, largest is the reservation");
		ok(s->types[VMS_T_PAGE_TABLE].committed == s->page_table &&
			   s->types[VMS_T_PAGE_TABLE].ws == s->page_table &&
			   s->total.ws == want.ws,
		   "page table: its own row, not added into the total");
	}
	vms_snapshot_free(s);
}

/* Free: gaps between regions inside [user_start, user_end), regions above
 * user_end (vsyscall) ignored. */
static void test_free(void)
{
	struct vms_snapshot *s = vms_snapshot_new();
	uint64_t starts[] = { 0x100000, 0x300000, 0x380000, 0x7f0000000000ull };
	uint64_t sizes[] = { 0x10000, 0x20000, 0x8000, 0x21000 };
	uint64_t prev, gap, largest = 0, total = 0, blocks = 0;
	size_t i;

	for (i = 0; i < 4; i++)
		add(s, starts[i], sizes[i], "rw-p", NULL, 0, VMS_VF_AC,
		    VMS_T_PRIVATE_DATA);
	add(s, 0xffffffffff600000ull, 0x1000, "--xp", "[vsyscall]", 0, 0,
	    VMS_T_IMAGE);
	s->user_start = 0x10000;
	s->user_end = 0x7ffffffff000ull;
	totals_compute(s);
	prev = s->user_start;
	for (i = 0; i <= 4; i++) {
		uint64_t next = i < 4 ? starts[i] : s->user_end;

		gap = next - prev;
		total += gap;
		blocks++;
		if (gap > largest)
			largest = gap;
		if (i < 4)
			prev = starts[i] + sizes[i];
	}
	ok(s->largest_free == largest &&
		   s->types[VMS_T_FREE].largest == largest,
	   "free: largest gap 0x%llx, between regions and to user_end",
	   (unsigned long long)largest);
	ok(s->types[VMS_T_FREE].size == total &&
		   s->types[VMS_T_FREE].blocks == blocks,
	   "free: size and blocks of all gaps in the user range");
	ok(s->types[VMS_T_FREE].size + s->total.size - 0x1000 ==
		   s->user_end - s->user_start,
	   "free + regions (without vsyscall) = the user range");
	vms_snapshot_free(s);
}

/* Cases with figures written out by hand from the definitions (vmscope.1,
 * COLUMNS), not recomputed with the code's formulas. */
static void test_rules(void)
{
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_region *cow, *vdso, *gap;

	/* A parent's anonymous memory after fork(): 100 K resident, 60 K of
	 * it still shared copy-on-write with the child. */
	cow = add(s, 0x600000, 256 * KIB, "rw-p", NULL, 0, VMS_VF_AC,
		  VMS_T_PRIVATE_DATA);
	counters(cow, 100 * KIB, 0, 0, 40 * KIB, 0, 60 * KIB);
	/* The vDSO: the kernel's pages, mapped by every process. */
	vdso = add(s, 0x7ff000000000ull, 8 * KIB, "r-xp", "[vdso]", 0, 0,
		   VMS_T_IMAGE);
	counters(vdso, 8 * KIB, 0, 0, 0, 8 * KIB, 0);
	/* The PROT_NONE gap ld.so leaves inside a library's mapping. */
	gap = add(s, 0x7ff000100000ull, 2 * MIB, "---p", "/usr/lib/liby.so", 9,
		  0, VMS_T_IMAGE);
	s->user_start = 0x10000;
	s->user_end = 0x7ffffffff000ull;
	totals_compute(s);

	ok(vms_region_committed(cow) == 256 * KIB &&
		   vms_region_private(cow) == 256 * KIB,
	   "copy-on-write shared anon: committed and private are its size");
	ok(vms_region_private_ws(cow) == 40 * KIB,
	   "copy-on-write shared anon: Private WS is the 40 K mapped here only");
	ok(s->total.shareable_ws == 60 * KIB + 8 * KIB &&
		   s->total.shared_ws <= s->total.shareable_ws,
	   "shared WS never exceeds shareable WS");
	ok(vms_region_private(vdso) == 0 && vms_region_private_ws(vdso) == 0 &&
		   vms_region_committed(vdso) == 8 * KIB,
	   "[vdso]: nothing private, committed what is there");
	ok(vms_region_committed(gap) == 0 && (gap->flags & VMS_RF_RESERVED) &&
		   vms_region_private(gap) == 0,
	   "PROT_NONE file gap: reserved, nothing committed");
	vms_snapshot_free(s);
}

/* The user range a sampler sets: widened to 56 bits by a region above
 * the 47-bit end (5-level paging), never by the vsyscall page above
 * everything. */
static void test_user_range(void)
{
	struct vms_snapshot *s = vms_snapshot_new();
	uint64_t end47 = 0x7ffffffff000ull, end56 = 0x00fffffffffff000ull;

	add(s, 0x400000, 0x1000, "r--p", NULL, 0, 0, VMS_T_PRIVATE_DATA);
	add(s, 0x7ffd00000000ull, 0x21000, "rw-p", "[stack]", 0, 0,
	    VMS_T_STACK);
	add(s, 0xffffffffff600000ull, 0x1000, "--xp", "[vsyscall]", 0, 0,
	    VMS_T_IMAGE);
	totals_set_user_range(s, 0x10000, end47);
	ok(s->user_start == 0x10000 && s->user_end == end47,
	   "user range: as given; the vsyscall page above it widens nothing");
	vms_snapshot_free(s);

	s = vms_snapshot_new();
	add(s, 0x400000, 0x1000, "r--p", NULL, 0, 0, VMS_T_PRIVATE_DATA);
	add(s, 0x10000000000000ull, 0x1000, "rw-p", NULL, 0, VMS_VF_AC,
	    VMS_T_PRIVATE_DATA);
	add(s, 0x10000000001000ull, 0x1000, "r--p", NULL, 0, 0,
	    VMS_T_PRIVATE_DATA);
	add(s, 0xffffffffff600000ull, 0x1000, "--xp", "[vsyscall]", 0, 0,
	    VMS_T_IMAGE);
	totals_set_user_range(s, 0x10000, end47);
	ok(s->user_end == end56,
	   "user range: 56-bit with regions above the 47-bit end");
	vms_snapshot_free(s);

	s = vms_snapshot_new();
	totals_set_user_range(s, 0x10000, end47);
	ok(s->user_end == end47, "user range: no regions, as given");
	vms_snapshot_free(s);
}

/* totals_check_rollup: Rss and Swap exact; sharing that moved (another
 * process mapped or unmapped a shared page) agrees with a reason; more
 * than the shared total, or Rss itself, disagrees. */
static void test_rollup_check(void)
{
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_region *a, *b;
	char why[200];

	ok(totals_check_rollup(s, why, sizeof(why)) == -1,
	   "rollup check: no rollup, nothing to compare (-1)");
	a = add(s, 0x400000, 64 * KIB, "r-xp", "/usr/lib/liba.so", 5, 0,
		VMS_T_IMAGE);
	counters(a, 40 * KIB, 0, 8 * KIB, 0, 32 * KIB, 0);
	b = add(s, 0x500000, 64 * KIB, "rw-p", NULL, 0, VMS_VF_AC,
		VMS_T_PRIVATE_DATA);
	counters(b, 16 * KIB, 4 * KIB, 0, 16 * KIB, 0, 0);
	s->rollup.valid = true;
	s->rollup.rss = 56 * KIB;
	s->rollup.swap = 4 * KIB;
	s->rollup.private_clean = 8 * KIB;
	s->rollup.private_dirty = 16 * KIB;
	s->rollup.shared_clean = 32 * KIB;
	s->rollup.pss = a->c.pss + b->c.pss + 1000; /* under 1 K a region */
	ok(totals_check_rollup(s, why, sizeof(why)) == 1 &&
	       !strcmp(why, "agrees"),
	   "rollup check: the same figures agree (%s)", why);
	/* the library's other mapper exited: half of its shared pages are
	 * now the target's alone, its Pss rose by their other half */
	s->rollup.private_clean += 16 * KIB;
	s->rollup.shared_clean -= 16 * KIB;
	s->rollup.pss += 8 * KIB;
	ok(totals_check_rollup(s, why, sizeof(why)) == 1 &&
	       strstr(why, "the sharing moved"),
	   "rollup check: moved sharing agrees, and says so (%s)", why);
	/* Private off by more than all that is shared: not sharing */
	s->rollup.private_clean += 64 * KIB;
	ok(totals_check_rollup(s, why, sizeof(why)) == 0 &&
	       !strncmp(why, "Private: ", 9),
	   "rollup check: Private off by more than all that is shared (%s)",
	   why);
	s->rollup.private_clean -= 64 * KIB;
	s->rollup.pss = a->c.pss + b->c.pss + 40 * KIB;
	ok(totals_check_rollup(s, why, sizeof(why)) == 0 &&
	       !strncmp(why, "Pss: ", 5),
	   "rollup check: Pss off by more than all that is shared (%s)", why);
	s->rollup.pss = a->c.pss + b->c.pss;
	s->rollup.rss += 4 * KIB;
	ok(totals_check_rollup(s, why, sizeof(why)) == 0 &&
	       !strncmp(why, "Rss: ", 5),
	   "rollup check: Rss differs: the process changed (%s)", why);
	s->rollup.rss -= 4 * KIB;
	s->rollup.swap = 0;
	ok(totals_check_rollup(s, why, sizeof(why)) == 0 &&
	       !strncmp(why, "Swap: ", 6),
	   "rollup check: Swap differs (%s)", why);
	vms_snapshot_free(s);
}

int main(void)
{
	test_rules();
	test_rollup_check();
	test_regions();
	test_free();
	test_user_range();
	return tap_done();
}
