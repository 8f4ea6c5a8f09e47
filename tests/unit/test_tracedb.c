/* test_tracedb — the trace's aggregation (src/trace/tracedb.h) on events
 * fed by hand: WPA's impacting types of a window between marks, exact
 * counts and bytes; an address given out again, a free of nothing known,
 * an allocation at a live block's address; mmap ranges unmapped in part
 * and replaced; commits of reserved pages (mprotect), and a region's
 * commit stack; sampled weights; sites folded by their names; the blocks
 * alive before the trace (an attach's heap walk), per heap; a report kept
 * up to a mark (its cells) and the window between two such reports
 * (model/trace.h, vms_trace_window) equal to the live window's; what a
 * snapshot file keeps for the viewer up to a mark.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "trace/tracedb.h"

static const struct vms_trace_site *site_of(const struct vms_trace_report *r,
					    enum vms_trace_kind kind)
{
	size_t i;

	for (i = 0; i < r->nsites; i++)
		if (r->sites[i].kind == kind)
			return &r->sites[i];
	return NULL;
}

static struct vms_trace_count by(const struct vms_trace_report *r,
				 enum vms_trace_kind kind,
				 enum vms_trace_impact k)
{
	const struct vms_trace_site *s = site_of(r, kind);

	return s ? s->by[k] : (struct vms_trace_count){ 0, 0 };
}

#define EQ(c, n, b) ((c).count == (n) && (c).bytes == (b))

static void windows(void)
{
	struct tracedb *db = tracedb_new();
	uint64_t f[2] = { 0x401000, 0x402000 };
	int64_t st = tracedb_stack(db, f, 2);
	struct vms_trace_report r;
	struct arena a;

	/* epoch 0: A 100 (kept), B 200 (freed in 0), C 300 (freed in 1) */
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)st, 0xa0, 100, 1);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)st, 0xb0, 200, 2);
	tracedb_free_heap(db, 0xb0, 3);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)st, 0xc0, 300, 4);
	ok(tracedb_mark(db, 10) == 1, "the first mark is 1");
	/* epoch 1: C freed, D 400 kept, E 500 freed */
	tracedb_free_heap(db, 0xc0, 11);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)st, 0xd0, 400, 12);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)st, 0xe0, 500, 13);
	tracedb_free_heap(db, 0xe0, 14);

	arena_init(&a);
	ok(tracedb_report(db, 0, 2, 20, NULL, &a, &r) == 0 && r.nsites == 1,
	   "the whole trace: one site");
	ok(EQ(by(&r, VMS_TRACE_HEAP, VMS_TRACE_transient), 3, 1000) &&
		   EQ(by(&r, VMS_TRACE_HEAP, VMS_TRACE_outstanding), 2, 500) &&
		   site_of(&r, VMS_TRACE_HEAP)->impacting_bytes == 500,
	   "the whole trace: B, C, E transient (1000), A, D outstanding "
	   "(500)");
	ok(tracedb_report(db, 1, 2, 20, NULL, &a, &r) == 0 &&
		   EQ(by(&r, VMS_TRACE_HEAP, VMS_TRACE_transient), 1, 500) &&
		   EQ(by(&r, VMS_TRACE_HEAP, VMS_TRACE_outstanding), 1, 400) &&
		   EQ(by(&r, VMS_TRACE_HEAP, VMS_TRACE_released), 1, 300) &&
		   EQ(by(&r, VMS_TRACE_HEAP, VMS_TRACE_lasting), 1, 100) &&
		   site_of(&r, VMS_TRACE_HEAP)->impacting_bytes == 100,
	   "since mark 1: E transient, D outstanding, C released, A "
	   "lasting; impacting 400 - 300");
	ok(tracedb_report(db, 0, 1, 20, NULL, &a, &r) == 0 &&
		   EQ(by(&r, VMS_TRACE_HEAP, VMS_TRACE_transient), 1, 200) &&
		   EQ(by(&r, VMS_TRACE_HEAP, VMS_TRACE_outstanding), 2, 400) &&
		   r.to_ns == 10,
	   "up to mark 1: B transient, A and C outstanding (alive at the "
	   "mark), the window ends at the mark's time");
	arena_fini(&a);
	tracedb_free(db);
}

static void unmatched(void)
{
	struct tracedb *db = tracedb_new();
	uint64_t f[1] = { 0x401000 };
	int64_t st = tracedb_stack(db, f, 1);
	struct vms_trace_report r;
	struct arena a;

	/* X allocated, freed, allocated again at its address (another
	 * thread's malloc, read after the free: the rings are merged in
	 * order) */
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)st, 0x20, 32, 6);
	tracedb_free_heap(db, 0x20, 7);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)st, 0x20, 48, 8);
	arena_init(&a);
	ok(tracedb_report(db, 0, 1, 20, NULL, &a, &r) == 0 &&
		   EQ(by(&r, VMS_TRACE_HEAP, VMS_TRACE_transient), 1, 32) &&
		   EQ(by(&r, VMS_TRACE_HEAP, VMS_TRACE_outstanding), 1, 48) &&
		   r.unknown_frees == 0,
	   "an address freed and given out again: the first block transient, "
	   "the second outstanding");

	/* a free of nothing known, and a block whose free was not recorded */
	tracedb_free_heap(db, 0x30, 21);
	ok(tracedb_report(db, 0, 1, 30, NULL, &a, &r) == 0 &&
		   r.unknown_frees == 1,
	   "a free of nothing known is counted at once");
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)st, 0x40, 16, 22);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)st, 0x40, 24, 23);
	ok(tracedb_report(db, 0, 1, 30, NULL, &a, &r) == 0 &&
		   r.unknown_frees == 1 &&
		   EQ(by(&r, VMS_TRACE_HEAP, VMS_TRACE_transient), 2, 48) &&
		   EQ(by(&r, VMS_TRACE_HEAP, VMS_TRACE_outstanding), 2, 72),
	   "an allocation at a live block's address ends that block (its "
	   "free went unseen)");
	tracedb_free_heap(db, 0x40, 24);
	ok(tracedb_report(db, 0, 1, 30, NULL, &a, &r) == 0 &&
		   EQ(by(&r, VMS_TRACE_HEAP, VMS_TRACE_transient), 3, 72) &&
		   EQ(by(&r, VMS_TRACE_HEAP, VMS_TRACE_outstanding), 1, 48),
	   "... and the next free of the address frees the newer block");
	arena_fini(&a);
	tracedb_free(db);
}

static void maps(void)
{
	struct tracedb *db = tracedb_new();
	uint64_t f[1] = { 0x401000 };
	int64_t st = tracedb_stack(db, f, 1);
	struct vms_trace_report r;
	struct arena a;

	tracedb_alloc(db, VMS_TRACE_MMAP, (uint32_t)st, 0x100000, 0x10000, 1);
	tracedb_unmap(db, 0x104000, 0x4000, 2); /* a hole in the middle */
	tracedb_unmap(db, 0x100000, 0x1000, 3); /* its head */
	arena_init(&a);
	ok(tracedb_report(db, 0, 1, 10, NULL, &a, &r) == 0 &&
		   EQ(by(&r, VMS_TRACE_MMAP, VMS_TRACE_outstanding), 1,
		      0xb000) &&
		   EQ(by(&r, VMS_TRACE_MMAP, VMS_TRACE_transient), 0, 0x5000),
	   "a map unmapped in part: one allocation, its bytes left "
	   "outstanding, the rest freed");
	tracedb_unmap(db, 0x100000, 0x10000, 4);
	ok(tracedb_report(db, 0, 1, 10, NULL, &a, &r) == 0 &&
		   EQ(by(&r, VMS_TRACE_MMAP, VMS_TRACE_outstanding), 0, 0) &&
		   EQ(by(&r, VMS_TRACE_MMAP, VMS_TRACE_transient), 1, 0x10000),
	   "unmapped whole: one transient map of all its bytes");
	tracedb_alloc(db, VMS_TRACE_MMAP, (uint32_t)st, 0x200000, 0x2000, 5);
	tracedb_alloc(db, VMS_TRACE_MMAP, (uint32_t)st, 0x201000, 0x2000, 6);
	ok(tracedb_report(db, 0, 1, 10, NULL, &a, &r) == 0 &&
		   EQ(by(&r, VMS_TRACE_MMAP, VMS_TRACE_outstanding), 2,
		      0x3000),
	   "a map over part of another (MAP_FIXED) replaces that part");
	arena_fini(&a);
	tracedb_free(db);
}

/* A reservation (PROT_NONE) committed by mprotect in part, decommitted
 * in part, committed again, then unmapped. */
static void commits(void)
{
	struct tracedb *db = tracedb_new();
	uint64_t f[1] = { 0x401000 }, g[1] = { 0x402000 };
	int64_t sm = tracedb_stack(db, f, 1), sc = tracedb_stack(db, g, 1);
	const struct vms_trace_site *c = NULL;
	struct vms_trace_report r;
	struct arena a;
	uint32_t cid;

	tracedb_alloc(db, VMS_TRACE_MMAP, (uint32_t)sm, 0x300000, 0x10000, 1);
	tracedb_reserved(db, 0x300000, 0x10000, true);
	ok(tracedb_reserved_in(db, 0x30f000, 0x1000) &&
		   !tracedb_reserved_in(db, 0x310000, 0x1000),
	   "a PROT_NONE map's pages are reserved, none past it");
	tracedb_protect(db, (uint32_t)sc, 0x2ff000, 0x5000, false, 2);
	tracedb_protect(db, (uint32_t)sc, 0x300000, 0x2000, false, 3);
	arena_init(&a);
	ok(tracedb_report(db, 0, 1, 10, NULL, &a, &r) == 0 &&
		   (c = site_of(&r, VMS_TRACE_COMMIT)) &&
		   EQ(c->by[VMS_TRACE_outstanding], 1, 0x4000) &&
		   EQ(by(&r, VMS_TRACE_MMAP, VMS_TRACE_outstanding), 1,
		      0x10000),
	   "mprotect to access: the reserved pages in it committed (one "
	   "commit of 4 pages, not the page before the map, not again where "
	   "committed already); the map keeps its 16 pages");
	cid = c ? c->id : UINT32_MAX;
	ok(tracedb_map_at(db, 0x301000, 0x302000) == cid &&
		   tracedb_map_at(db, 0x308000, 0x309000) != cid &&
		   tracedb_map_at(db, 0x308000, 0x309000) != UINT32_MAX,
	   "a region's commit stack: the commit's where committed, else the "
	   "map's");
	tracedb_protect(db, 0, 0x300000, 0x1000, true, 4);
	ok(tracedb_report(db, 0, 1, 10, NULL, &a, &r) == 0 &&
		   EQ(by(&r, VMS_TRACE_COMMIT, VMS_TRACE_outstanding), 1,
		      0x3000) &&
		   EQ(by(&r, VMS_TRACE_COMMIT, VMS_TRACE_transient), 0,
		      0x1000) &&
		   tracedb_reserved_in(db, 0x300000, 0x1000),
	   "mprotect to PROT_NONE: that page decommitted (its bytes freed, "
	   "the commit alive by its others) and reserved again");
	tracedb_protect(db, (uint32_t)sc, 0x300000, 0x1000, false, 5);
	ok(tracedb_report(db, 0, 1, 10, NULL, &a, &r) == 0 &&
		   EQ(by(&r, VMS_TRACE_COMMIT, VMS_TRACE_outstanding), 2,
		      0x4000),
	   "committed again: a second commit");
	tracedb_unmap(db, 0x300000, 0x10000, 6);
	ok(tracedb_report(db, 0, 1, 10, NULL, &a, &r) == 0 &&
		   EQ(by(&r, VMS_TRACE_COMMIT, VMS_TRACE_outstanding), 0, 0) &&
		   EQ(by(&r, VMS_TRACE_COMMIT, VMS_TRACE_transient), 2,
		      0x4000 + 0x1000) &&
		   EQ(by(&r, VMS_TRACE_MMAP, VMS_TRACE_transient), 1,
		      0x10000) &&
		   !tracedb_reserved_in(db, 0x300000, 0x10000),
	   "unmapped: the map and its commits freed, nothing reserved");
	arena_fini(&a);
	tracedb_free(db);
}

/* mremap: a reservation moved stays reserved where it went, and where it
 * was with MREMAP_DONTUNMAP (keep_old); an accessible map moved is none. */
static void remaps(void)
{
	struct tracedb *db = tracedb_new();
	uint64_t f[1] = { 0x401000 };
	int64_t st = tracedb_stack(db, f, 1);
	struct vms_trace_report r;
	struct arena a;

	tracedb_alloc(db, VMS_TRACE_MMAP, (uint32_t)st, 0x300000, 0x4000, 1);
	tracedb_reserved(db, 0x300000, 0x4000, true);
	tracedb_remap(db, (uint32_t)st, 0x300000, 0x4000, false, 0x500000,
		      0x8000, 0x8000, 2);
	ok(tracedb_reserved_in(db, 0x507000, 0x1000) &&
		   !tracedb_reserved_in(db, 0x300000, 0x4000),
	   "a reservation moved and grown: its new pages reserved, its old "
	   "ones unmapped");
	tracedb_remap(db, (uint32_t)st, 0x500000, 0x8000, true, 0x600000,
		      0x8000, 0x8000, 3);
	ok(tracedb_reserved_in(db, 0x500000, 0x8000) &&
		   tracedb_reserved_in(db, 0x600000, 0x8000),
	   "moved with MREMAP_DONTUNMAP: reserved at both places");
	arena_init(&a);
	ok(tracedb_report(db, 0, 1, 10, NULL, &a, &r) == 0 &&
		   EQ(by(&r, VMS_TRACE_MMAP, VMS_TRACE_outstanding), 2,
		      0x10000) &&
		   EQ(by(&r, VMS_TRACE_MMAP, VMS_TRACE_transient), 1, 0x4000),
	   "the maps: the first freed by its move, the kept one and the "
	   "last one outstanding");
	tracedb_alloc(db, VMS_TRACE_MMAP, (uint32_t)st, 0x700000, 0x2000, 4);
	tracedb_reserved(db, 0x700000, 0x2000, false);
	tracedb_remap(db, (uint32_t)st, 0x700000, 0x2000, false, 0x800000,
		      0x3000, 0x3000, 5);
	ok(!tracedb_reserved_in(db, 0x800000, 0x3000),
	   "an accessible map moved: nothing reserved");
	arena_fini(&a);
	tracedb_free(db);
}

static void weighed(void)
{
	struct tracedb *db = tracedb_new();
	uint64_t f[1] = { 0x401000 };
	int64_t st = tracedb_stack(db, f, 1);
	struct vms_trace_report r;
	struct arena a;

	/* a sampled block standing for 2.5 blocks, 100 bytes; then freed */
	tracedb_alloc_weighed(db, VMS_TRACE_HEAP, (uint32_t)st, 0x10, 40,
			      2560, 100, 1);
	tracedb_alloc_weighed(db, VMS_TRACE_HEAP, (uint32_t)st, 0x20, 40,
			      2560, 100, 1);
	tracedb_free_heap(db, 0x20, 2);
	arena_init(&a);
	ok(tracedb_report(db, 0, 1, 10, NULL, &a, &r) == 0 &&
		   by(&r, VMS_TRACE_HEAP, VMS_TRACE_outstanding).bytes == 100 &&
		   by(&r, VMS_TRACE_HEAP, VMS_TRACE_transient).bytes == 100 &&
		   by(&r, VMS_TRACE_HEAP, VMS_TRACE_outstanding).count == 3,
	   "sampled blocks weigh what they stand for; a free takes the "
	   "weight (2.5 blocks rounds to 3)");
	arena_fini(&a);
	tracedb_free(db);
}

static void folded(void)
{
	struct tracedb *db = tracedb_new();
	uint64_t f1[2] = { 0x401000, 0x402000 }, f2[2] = { 0x401008, 0x402000 };
	int64_t s1 = tracedb_stack(db, f1, 2), s2 = tracedb_stack(db, f2, 2);
	struct vms_trace_report r;
	struct arena a;

	ok(s1 >= 0 && s2 >= 0 && s1 != s2 && tracedb_stack(db, f1, 2) == s1,
	   "stacks interned: the same frames, the same number");
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)s1, 0x10, 8, 1);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)s2, 0x20, 8, 1);
	arena_init(&a);
	/* without names the two return addresses are two sites */
	ok(tracedb_report(db, 0, 1, 10, NULL, &a, &r) == 0 && r.nsites == 2,
	   "unnamed frames at other addresses: two sites");
	arena_fini(&a);
	tracedb_free(db);
}

/* A site's outstanding and lasting in the report of [lo, hi). */
static void in_range(void)
{
	struct tracedb *db = tracedb_new();
	uint64_t f1[1] = { 0x401000 }, f2[1] = { 0x402000 };
	int64_t s1 = tracedb_stack(db, f1, 1), s2 = tracedb_stack(db, f2, 1);
	struct vms_trace_report r;
	struct arena a;

	/* a map of 64 KiB (s2) with blocks inside it (s1), one block outside
	 * it, one inside freed, then a mark and one more inside */
	tracedb_alloc(db, VMS_TRACE_MMAP, (uint32_t)s2, 0x100000, 0x10000, 1);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)s1, 0x100010, 100, 2);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)s1, 0x100100, 200, 3);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)s1, 0x200000, 400, 4);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)s1, 0x100400, 800, 5);
	tracedb_free_heap(db, 0x100400, 6);
	tracedb_mark(db, 10);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)s1, 0x100800, 1600, 11);
	arena_init(&a);
	ok(tracedb_report_in(db, 0, 2, 0x100000, 0x110000, 20, NULL, &a,
			     &r) == 0 &&
		   r.nsites == 2 &&
		   EQ(by(&r, VMS_TRACE_HEAP, VMS_TRACE_outstanding), 3, 1900) &&
		   EQ(by(&r, VMS_TRACE_HEAP, VMS_TRACE_transient), 0, 0) &&
		   EQ(by(&r, VMS_TRACE_MMAP, VMS_TRACE_outstanding), 1,
		      0x10000),
	   "in a map's range: its own commit site and the three blocks alive "
	   "in it, not the one outside nor the one freed");
	ok(tracedb_report_in(db, 1, 2, 0x100000, 0x110000, 20, NULL, &a,
			     &r) == 0 &&
		   EQ(by(&r, VMS_TRACE_HEAP, VMS_TRACE_outstanding), 1, 1600) &&
		   EQ(by(&r, VMS_TRACE_HEAP, VMS_TRACE_lasting), 2, 300) &&
		   EQ(by(&r, VMS_TRACE_MMAP, VMS_TRACE_lasting), 1, 0x10000),
	   "since the mark: the block made after it outstanding, the rest "
	   "lasting");
	ok(tracedb_report_in(db, 0, 2, 0x108000, 0x10c000, 20, NULL, &a,
			     &r) == 0 &&
		   r.nsites == 1 &&
		   EQ(by(&r, VMS_TRACE_MMAP, VMS_TRACE_outstanding), 1, 0x4000),
	   "part of a map: the bytes of it inside, and no block");
	arena_fini(&a);
	tracedb_free(db);
}

/* The log (newest kept, filtered), the blocks of a range, a site. */
static void listed(void)
{
	struct tracedb *db = tracedb_new();
	uint64_t f1[2] = { 0x401000, 0x402000 }, f2[1] = { 0x403000 };
	int64_t s1 = tracedb_stack(db, f1, 2), s2 = tracedb_stack(db, f2, 1);
	struct vms_trace_event ev[8];
	struct vms_trace_block bl[8];
	struct vms_trace_site site;
	struct vms_trace_filter only_frees = { .ops = 1u << VMS_TRACE_OP_FREE,
					     .site = UINT32_MAX };
	struct vms_trace_filter big = { .min_size = 1000, .site = UINT32_MAX };
	struct vms_trace_filter t7 = { .tid = 7, .site = UINT32_MAX };
	struct arena a;
	size_t n, i;

	tracedb_thread(db, 7);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)s1, 0x3000, 100, 1);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)s1, 0x1000, 2000, 2);
	tracedb_thread(db, 8);
	tracedb_free_heap(db, 0x3000, 3);
	tracedb_free_heap(db, 0x9000, 4); /* nothing known */
	tracedb_alloc(db, VMS_TRACE_MMAP, (uint32_t)s2, 0x100000, 0x2000, 5);
	tracedb_unmap(db, 0x101000, 0x1000, 6);
	n = tracedb_log(db, NULL, ev, 8);
	ok(n == 6 && tracedb_logged(db) == 6 &&
		   ev[0].op == VMS_TRACE_OP_ALLOC && ev[0].tid == 7 &&
		   ev[0].size == 100 && ev[2].op == VMS_TRACE_OP_FREE &&
		   ev[2].tid == 8 && ev[2].size == 100 &&
		   ev[2].site == ev[0].site && ev[3].site == UINT32_MAX &&
		   ev[4].op == VMS_TRACE_OP_MAP &&
		   ev[5].op == VMS_TRACE_OP_UNMAP && ev[5].site == ev[4].site,
	   "the log: every event in order, its thread, a free with its "
	   "block's size and site, an unmap with its map's site");
	ok(tracedb_log(db, &only_frees, ev, 8) == 2 &&
		   tracedb_log(db, &big, ev, 8) == 3 &&
		   tracedb_log(db, &t7, ev, 8) == 2 &&
		   tracedb_log(db, NULL, ev, 3) == 3,
	   "filtered by operation, size and thread; at most max");
	for (i = 0; i < VMS_TRACE_LOG; i++)
		tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)s1,
			      0x10000000 + i * 16, 8, 10 + i);
	n = tracedb_log(db, &big, ev, 8);
	ok(n == 0 && tracedb_logged(db) == VMS_TRACE_LOG + 6,
	   "the log keeps the newest: the first events gone");
	n = tracedb_blocks_in(db, 0, 0x200000, bl, 8);
	ok(n == 2 && bl[0].addr == 0x1000 && bl[0].size == 2000 &&
		   bl[1].addr == 0x100000 && bl[1].size == 0x1000,
	   "the blocks alive in a range, in address order (a map's piece "
	   "left)");
	arena_init(&a);
	ok(tracedb_site(db, bl[0].site, NULL, &a, &site) == 1 &&
		   site.nframes == 2 && site.frames[1].ip == 0x402000 &&
		   site.kind == VMS_TRACE_HEAP &&
		   tracedb_site(db, 999999, NULL, &a, &site) == 0,
	   "a block's call site and its frames; no such site: 0");
	arena_fini(&a);
	tracedb_free(db);
}

/* Allocated before the trace (an attach's heap walk): per heap, freed
 * by address inside a window or before it, or ended by an allocation at
 * the address. */
static void before(void)
{
	struct tracedb *db = tracedb_new();
	uint64_t f[1] = { 0x401000 };
	int64_t st = tracedb_stack(db, f, 1);
	struct vms_trace_report r;
	struct arena a;
	bool walked;

	arena_init(&a);
	ok(tracedb_report(db, 0, 1, 10, NULL, &a, &r) == 0 &&
		   !r.before_walked && !r.before && !r.nbefore,
	   "no walk: no bucket");
	/* heap 0xa000: 0x100 (24), 0x200 (40), 0x300 (40, then found in a
	 * tcache: not the program's); heap 0xb000: 0x900 (1000) */
	walked = tracedb_before_block(db, 0xa000, 0x100, 24, true) == 0 &&
		 tracedb_before_block(db, 0xa000, 0x200, 40, true) == 0 &&
		 tracedb_before_block(db, 0xa000, 0x300, 40, true) == 0 &&
		 tracedb_before_block(db, 0xb000, 0x900, 1000, true) == 0 &&
		 tracedb_before_block(db, 0, 0x300, 40, false) == 0 &&
		 tracedb_before_block(db, 0, 0x777, 40, false) == 0;
	tracedb_before_heap(db, 0xa000, "glibc-main");
	tracedb_before_done(db, NULL);
	/* epoch 0: 0x100 freed; mark; epoch 1: 0x200's address given out
	 * again (its free unseen), 0x900 freed, 0x900 freed again (not
	 * known any more) */
	tracedb_free_heap(db, 0x100, 1);
	tracedb_mark(db, 2);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)st, 0x200, 8, 3);
	tracedb_free_heap(db, 0x900, 4);
	tracedb_free_heap(db, 0x900, 5);
	ok(walked && tracedb_report(db, 0, 2, 10, NULL, &a, &r) == 0 &&
		   r.before_walked && !r.before_partial && r.nbefore == 2 &&
		   strcmp(r.before[0].kind, "glibc-main") == 0 &&
		   r.before[0].id == 0xa000 &&
		   EQ(r.before[0].at_start, 2, 64) &&
		   EQ(r.before[0].released, 2, 64) &&
		   EQ(r.before[0].lasting, 0, 0) &&
		   r.before[0].impacting_bytes == -64 &&
		   strcmp(r.before[1].kind, "heap") == 0 &&
		   EQ(r.before[1].at_start, 1, 1000) &&
		   EQ(r.before[1].released, 1, 1000) &&
		   r.unknown_frees == 3,
	   "the whole trace: both heaps' blocks alive at its start released "
	   "(freed, or their address given out again), a cached one not "
	   "counted; every free of them also an unknown free");
	ok(tracedb_report(db, 1, 2, 10, NULL, &a, &r) == 0 &&
		   EQ(r.before[0].at_start, 2, 64) &&
		   EQ(r.before[0].released, 1, 40) &&
		   EQ(r.before[0].lasting, 0, 0) &&
		   EQ(r.before[1].released, 1, 1000),
	   "the window after the mark: what was freed before it is neither "
	   "released nor lasting");
	ok(tracedb_report(db, 0, 1, 10, NULL, &a, &r) == 0 &&
		   EQ(r.before[0].released, 1, 24) &&
		   EQ(r.before[0].lasting, 1, 40) &&
		   EQ(r.before[1].lasting, 1, 1000),
	   "the window before the mark: one released, the others lasting");
	ok(tracedb_report_in(db, 0, 2, 0x100, 0x1000, 10, NULL, &a, &r) == 0 &&
		   !r.before_walked && !r.nbefore,
	   "a range's report has no bucket");
	arena_fini(&a);
	tracedb_free(db);
}

/* the window between two kept reports is the live one's */
static void kept(void)
{
	struct tracedb *db = tracedb_new();
	uint64_t f[2] = { 0x401000, 0x402000 };
	int64_t st = tracedb_stack(db, f, 2);
	struct vms_trace_report ka, kb, w, live, reversed;
	struct arena a;
	int k;
	bool same = true;

	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)st, 0xa0, 100, 1);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)st, 0xc0, 300, 4);
	tracedb_mark(db, 10);
	tracedb_free_heap(db, 0xc0, 11);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)st, 0xd0, 400, 12);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)st, 0xe0, 500, 13);
	tracedb_free_heap(db, 0xe0, 14);
	tracedb_mark(db, 20);
	/* after mark 2: D freed, F made; neither is in a report up to it */
	tracedb_free_heap(db, 0xd0, 21);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)st, 0xf0, 600, 22);

	arena_init(&a);
	ok(tracedb_report_kept(db, 1, 30, NULL, &a, &ka) == 0 &&
		   tracedb_report_kept(db, 2, 30, NULL, &a, &kb) == 0 &&
		   ka.mark == 1 && kb.mark == 2 && kb.nsites == 1 &&
		   kb.sites[0].ncells > 0,
	   "reports kept up to marks 1 and 2: their marks and cells");
	ka.run = kb.run = 7;
	ok(vms_trace_windowable(&ka, &kb) && !vms_trace_windowable(&kb, &ka),
	   "one run, A's mark before B's: windowable; the other way, not");
	kb.run = 8;
	ok(!vms_trace_windowable(&ka, &kb), "two runs: not windowable");
	kb.run = 7;
	ok(tracedb_report(db, 1, 2, 30, NULL, &a, &live) == 0 &&
		   vms_trace_window(&ka, &kb, &w) == 0 && w.nsites == 1,
	   "the window from mark 1 to 2, from B's cells");
	for (k = 0; k < VMS_TRACE_NIMPACTS; k++)
		same = same && w.sites[0].by[k].count ==
				       live.sites[0].by[k].count &&
		       w.sites[0].by[k].bytes == live.sites[0].by[k].bytes;
	ok(same && EQ(w.sites[0].by[VMS_TRACE_transient], 1, 500) &&
		   EQ(w.sites[0].by[VMS_TRACE_outstanding], 1, 400) &&
		   EQ(w.sites[0].by[VMS_TRACE_released], 1, 300) &&
		   EQ(w.sites[0].by[VMS_TRACE_lasting], 1, 100) &&
		   w.sites[0].impacting_bytes == 100 && w.from_ns == 10 &&
		   w.to_ns == 20,
	   "it is the live window's: E transient, D outstanding (freed "
	   "after B), C released, A lasting; from A's time to B's");
	ok(EQ(kb.sites[0].by[VMS_TRACE_outstanding], 2, 500),
	   "B's own report: A and D alive at its mark, F not yet made");
	free(w.sites);
	reversed = ka;
	reversed.mark = 0;
	ok(!vms_trace_windowable(&reversed, &kb),
	   "a report at the trace's end (mark 0) is not a window's start");
	arena_fini(&a);
	tracedb_free(db);
}

/* What a file keeps for the viewer up to a mark (tracedb_kept_live): the
 * blocks alive made before it, by the order events were read, not by
 * their times (the tracer's coarse clock may stamp an event read after
 * the mark with a time before it); the log up to it. */
static void kept_for_viewer(void)
{
	struct tracedb *db = tracedb_new();
	uint64_t f[1] = { 0x401000 };
	int64_t st = tracedb_stack(db, f, 1);
	struct vms_trace_live lv;
	struct arena a;
	uint32_t *ids = NULL;
	size_t nids = 0;

	arena_init(&a);
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)st, 0x1000, 100, 10);
	tracedb_alloc(db, VMS_TRACE_MMAP, (uint32_t)st, 0x100000, 0x2000, 20);
	tracedb_mark(db, 30);
	/* read after the mark, its time before it */
	tracedb_alloc(db, VMS_TRACE_HEAP, (uint32_t)st, 0x3000, 300, 25);
	tracedb_free_heap(db, 0x1000, 40);
	ok(tracedb_kept_live(db, 1, &a, &lv, &ids, &nids) == 0 &&
		   lv.nblocks == 1 && lv.blocks_alive == 1 &&
		   lv.blocks[0].addr == 0x100000 &&
		   lv.blocks[0].size == 0x2000 &&
		   lv.blocks[0].count == VMS_TRACE_ONE && lv.nlog == 2 &&
		   lv.logged == 2 && lv.log[1].op == VMS_TRACE_OP_MAP &&
		   nids == 2,
	   "kept up to mark 1: the map alone (the block made after it is "
	   "left out though its time is earlier; the one freed since is no "
	   "longer known), the 2 events before it, two sites named");
	free(ids);
	ok(tracedb_kept_live(db, 2, &a, &lv, &ids, &nids) == 0 &&
		   lv.nblocks == 2 && lv.blocks[0].addr == 0x3000 &&
		   lv.blocks[1].addr == 0x100000 && lv.nlog == 4 &&
		   lv.logged == 4 && lv.log[3].op == VMS_TRACE_OP_FREE,
	   "kept up to the end: both alive, in address order; every event");
	free(ids);
	arena_fini(&a);
	tracedb_free(db);
}

int main(void)
{
	windows();
	kept();
	kept_for_viewer();
	before();
	listed();
	in_range();
	unmatched();
	maps();
	commits();
	remaps();
	weighed();
	folded();
	return tap_failed;
}
