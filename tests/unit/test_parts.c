/* test_parts.c — regions split into typed parts (model/parts.h): what a
 * part's counters are made of, that the parts and the rest of their
 * region add up to the region exactly in every column, that the summary
 * counts each part in its own type's row (totals.h), and the pagemap
 * bits a part is measured by (linux/memread.h), and the parts step's
 * pieces from glibc's mmapped chunks (a part a chunk, in a region of no
 * detail only) and a Java heap's region reaching past it. Randomised: the seed is
 * printed, VMSCOPE_SEED replays it. */
#include <string.h>

#include "analyze/steps.h"
#include "linux/memread.h"
#include "model/columns.h"
#include "model/parts.h"
#include "model/snapshot.h"
#include "model/totals.h"
#include "tap.h"

#define PG 4096ull

extern const struct vms_step vms_step_parts; /* src/analyze/step_parts.c */

static struct vms_region *anon(struct vms_snapshot *s, uint64_t start,
			       uint64_t pages)
{
	struct vms_region *r = vms_snapshot_add_region(s);

	r->start = start;
	r->end = start + pages * PG;
	r->perms = VMS_PERM_R | VMS_PERM_W;
	r->vmflags = "";
	r->vmflags_mask = VMS_VF_AC;
	r->type = VMS_T_PRIVATE_DATA;
	return r;
}

static uint64_t pick(unsigned *seed, uint64_t n)
{
	return n ? (uint64_t)rand_r(seed) % (n + 1) : 0;
}

/* Pages of a region: resident ones split private/shared, clean/dirty. */
static void fill(unsigned *seed, struct vms_region *r)
{
	uint64_t pages = vms_region_size(r) / PG;
	uint64_t rss = pick(seed, pages), priv = pick(seed, rss);
	uint64_t pd = pick(seed, priv), sd = pick(seed, rss - priv);

	r->c.rss = rss * PG;
	r->c.private_dirty = pd * PG;
	r->c.private_clean = (priv - pd) * PG;
	r->c.shared_dirty = sd * PG;
	r->c.shared_clean = (rss - priv - sd) * PG;
	r->c.pss = priv * PG + (rss - priv) * PG / 2;
	r->c.swap = pick(seed, pages - rss) * PG;
	r->c.swap_pss = r->c.swap / 2;
	r->c.locked = pick(seed, rss) * PG;
	r->c.anon_huge = 0;
}

static uint64_t column_sum(const struct vms_snapshot *s, enum vms_col c)
{
	uint64_t v = 0;
	int t;

	for (t = 0; t < VMS_NTYPES; t++)
		if (t != VMS_T_PAGE_TABLE && t != VMS_T_FREE)
			v += vms_column_type(&s->types[t], c);
	return v;
}

static void test_random(unsigned seed)
{
	struct vms_snapshot *s = vms_snapshot_new();
	uint64_t want[VMS_NCOLS] = { 0 }, mh_size = 0, mh_blocks = 0;
	size_t i, n = 0, bad_sum = 0, bad_le = 0, bad_meas = 0;
	int c;

	for (i = 0; i < 200; i++) {
		struct vms_region *r = anon(s, 0x10000000ull + i * 0x1000000ull,
					    1 + pick(&seed, 1000));
		struct vms_part_spec sp[4];
		uint64_t pages = vms_region_size(r) / PG, at = 0;
		size_t k, np = 0;

		fill(&seed, r);
		totals_region_derive(r); /* its accounting: anonymous, ac */
		for (c = 0; c < VMS_NCOLS; c++)
			if (vms_column_has((enum vms_col)c, VMS_COLF_TYPE) &&
			    vms_column_has((enum vms_col)c, VMS_COLF_REGION))
				want[c] += vms_column_region(r, (enum vms_col)c);
		for (k = 0; k < 4 && at < pages; k++) {
			uint64_t a = at + pick(&seed, (pages - at) / 2);
			uint64_t b = a + 1 + pick(&seed, (pages - a - 1) / 2);
			uint64_t len = (b - a) * PG;
			int64_t rss = (int64_t)(pick(&seed, b - a) * PG);

			sp[np++] = (struct vms_part_spec){
				"part", r->start + a * PG, r->start + b * PG,
				VMS_T_MANAGED_HEAP,
				rand_r(&seed) % 4 ? rss : -1,
				rand_r(&seed) % 4 ? (int64_t)pick(&seed, len / PG) * (int64_t)PG : -1,
				rand_r(&seed) % 3 ? (int64_t)pick(&seed, (uint64_t)(rss < 0 ? 0 : rss) / PG) * (int64_t)PG : -1,
				NULL, false
			};
			at = b;
		}
		if (!np || vms_parts_set(s, r, sp, np) != 0)
			continue;
		n++;
		for (k = 0; k < np; k++) {
			const struct vms_region *p = r->children[k].part;

#define LE(m, key) bad_le += p->c.m > r->c.m;
			VMS_COUNTER_FIELDS(LE)
#undef LE
			/* measured and within what the region has: as said */
			if (sp[k].rss >= 0 && k == 0 &&
			    p->c.rss != (uint64_t)sp[k].rss &&
			    (uint64_t)sp[k].rss <= r->c.rss)
				bad_meas++;
			mh_size += vms_region_size(p);
			mh_blocks++;
		}
		{
			struct vms_region rest;
			struct vms_counters sum;

			vms_parts_rest(r, &rest);
			sum = rest.c;
			for (k = 0; k < np; k++) {
#define ADD(m, key) sum.m += r->children[k].part->c.m;
				VMS_COUNTER_FIELDS(ADD)
#undef ADD
			}
			bad_sum += memcmp(&sum, &r->c, sizeof(sum)) != 0;
		}
	}
	totals_set_user_range(s, 0x10000, 0x7ffffffff000ull);
	totals_compute(s);
	ok(n > 100, "random: %zu regions split", n);
	ok(!bad_sum, "random: each region's parts and rest add up to its "
		     "counters exactly (%zu do not)",
	   bad_sum);
	ok(!bad_le, "random: no part's counter is over its region's (%zu)",
	   bad_le);
	ok(!bad_meas, "random: a first part's measured Rss is kept (%zu)",
	   bad_meas);
	for (c = 0; c < VMS_NCOLS; c++) {
		if (!vms_column_has((enum vms_col)c, VMS_COLF_TYPE) ||
		    !vms_column_has((enum vms_col)c, VMS_COLF_REGION))
			continue;
		/* Shareable WS is Rss less Private WS, clamped per block */
		if (c == VMS_COL_SHAREABLE_WS)
			continue;
		ok(column_sum(s, (enum vms_col)c) == want[c] &&
			   vms_column_type(&s->total, (enum vms_col)c) ==
				   want[c],
		   "random: %s: the types and the total are the regions'",
		   vms_columns[c].key);
	}
	ok(s->types[VMS_T_MANAGED_HEAP].size == mh_size &&
		   s->types[VMS_T_MANAGED_HEAP].blocks == mh_blocks,
	   "random: the Managed Heap row is the parts (%llu bytes, %llu "
	   "blocks)",
	   (unsigned long long)mh_size, (unsigned long long)mh_blocks);
	vms_snapshot_free(s);
}

/* A region of 100 pages, 60 resident (40 private, 20 shared), and one
 * part of 30 pages measured: 20 present, 12 of them the process's own. */
static void test_measured(void)
{
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_region *r = anon(s, 0x20000000ull, 100);
	struct vms_part_spec sp = { "arenas", r->start + 10 * PG,
				    r->start + 40 * PG, VMS_T_MANAGED_HEAP,
				    (int64_t)(20 * PG), 0, (int64_t)(12 * PG),
				    NULL, false };
	const struct vms_region *p;
	struct vms_region rest;

	r->c.rss = 60 * PG;
	r->c.private_dirty = 40 * PG;
	r->c.shared_clean = 20 * PG;
	r->c.pss = 50 * PG; /* shared pages counted half */
	ok(vms_parts_set(s, r, &sp, 1) == 0, "measured: split");
	p = r->children[0].part;
	ok(p->c.rss == 20 * PG && p->c.private_dirty == 12 * PG &&
		   p->c.private_clean == 0 && p->c.shared_clean == 8 * PG &&
		   p->c.shared_dirty == 0,
	   "measured: Rss 20 pages, 12 private, 8 shared");
	ok(p->c.pss == 16 * PG, "measured: Pss the private pages and the "
				"shared at the region's rate (16 pages)");
	ok(p->type == VMS_T_MANAGED_HEAP && r->type == VMS_T_PRIVATE_DATA &&
		   r->c.rss == 60 * PG,
	   "measured: the part is typed, the region stays the kernel's");
	vms_parts_rest(r, &rest);
	ok(vms_region_size(&rest) == 70 * PG && rest.c.rss == 40 * PG &&
		   rest.c.private_dirty == 28 * PG,
	   "measured: the rest is 70 pages, 40 resident, 28 private");
	totals_set_user_range(s, 0x10000, 0x7ffffffff000ull);
	totals_compute(s);
	ok(s->types[VMS_T_MANAGED_HEAP].ws == 20 * PG &&
		   s->types[VMS_T_PRIVATE_DATA].ws == 40 * PG &&
		   s->types[VMS_T_MANAGED_HEAP].committed == 30 * PG &&
		   s->total.blocks == 3 &&
		   s->types[VMS_T_PRIVATE_DATA].blocks == 2 &&
		   s->types[VMS_T_PRIVATE_DATA].largest == 60 * PG &&
		   s->types[VMS_T_PRIVATE_DATA].size == 70 * PG,
	   "measured: the summary counts the part and the rest, the rest's "
	   "blocks the two stretches around the part (the largest 60 pages)");
	sp.start = r->end - PG;
	sp.end = r->end + PG;
	ok(vms_parts_set(s, r, &sp, 1) == -2, "a part past its region: -2");
	vms_snapshot_free(s);
}

/* A core's region (no counters): its Committed is not known, but a part
 * its runtime maps whole and charged is its Size. */
static void test_core(void)
{
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_region *r = anon(s, 0x30000000ull, 64);
	struct vms_part_spec sp = { "arenas", r->start, r->start + 16 * PG,
				    VMS_T_MANAGED_HEAP, -1, -1, -1, NULL,
				    true };

	r->vmflags_mask = 0; /* a core says no VmFlags */
	r->flags = VMS_RF_NO_COUNTERS;
	ok(vms_parts_set(s, r, &sp, 1) == 0, "core: split");
	totals_set_user_range(s, 0x10000, 0x7ffffffff000ull);
	totals_compute(s);
	ok((r->acct & VMS_ACCT_COMMIT_UNKNOWN) &&
		   !(r->children[0].part->acct & VMS_ACCT_COMMIT_UNKNOWN) &&
		   vms_region_committed(r->children[0].part) == 16 * PG,
	   "core: the region's Committed unknown, the whole-mapped part's "
	   "its Size");
	ok(s->types[VMS_T_MANAGED_HEAP].committed == 16 * PG &&
		   s->types[VMS_T_MANAGED_HEAP].committed_unknown == 0 &&
		   s->types[VMS_T_PRIVATE_DATA].committed_unknown == 1,
	   "core: the Managed Heap row's Committed is known, Private Data's "
	   "not");
	vms_snapshot_free(s);
}

/* The parts step on glibc's mmapped chunks without memory (a snapshot
 * file, a core: no page tables to tell a chunk's pages): a part's figures
 * would be its size's share of the region's, a guess, so the regions stay
 * whole, as captured (test_heap.py splits them live, measured). */
static void test_step_glibc(void)
{
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_region *r = anon(s, 0x40000000ull, 100), *named;
	struct vms_heap_seg chunks[3];
	struct vms_malloc g;
	struct vms_error err;

	r->c.rss = r->c.private_dirty = r->c.pss = 100 * PG;
	named = anon(s, 0x40100000ull, 8);
	named->detail = "somebody's";
	r = &s->regions[0]; /* add_region may move the array */
	chunks[0] = (struct vms_heap_seg){ r->start + 10 * PG,
					   r->start + 30 * PG };
	chunks[1] = (struct vms_heap_seg){ r->start + 30 * PG,
					   r->start + 35 * PG };
	chunks[2] = (struct vms_heap_seg){ named->start, named->end };
	memset(&g, 0, sizeof(g));
	g.mmapped = chunks;
	g.nmmapped = 3;
	s->glibc = &g;
	ok(vms_step_parts.run(s, 0, &err) == 0, "parts step: glibc's chunks");
	ok(r->nchildren == 0 && r->type == VMS_T_PRIVATE_DATA &&
		   r->c.rss == 100 * PG,
	   "parts step: without memory a region holding chunks stays whole, "
	   "its figures as read");
	ok(named->nchildren == 0 && named->type == VMS_T_PRIVATE_DATA &&
		   strcmp(named->detail, "somebody's") == 0,
	   "parts step: a chunk in a region something named leaves it be");
	totals_set_user_range(s, 0x10000, 0x7ffffffff000ull);
	totals_compute(s);
	ok(s->types[VMS_T_HEAP].size == 0,
	   "parts step: no Heap row made of guesses");
	s->glibc = NULL;
	vms_snapshot_free(s);
}

/* A source whose page tables say every page present and the process's
 * own (the parts step measures its parts with it). */
static ssize_t fake_read(struct vms_snapshot *s, uint64_t addr, void *buf,
			 size_t len, struct vms_error *err)
{
	(void)s;
	(void)addr;
	(void)err;
	memset(buf, 0, len);
	return (ssize_t)len;
}

static int fake_pages(struct vms_snapshot *s, uint64_t addr, size_t npages,
		      unsigned char *out, struct vms_error *err)
{
	(void)s;
	(void)addr;
	(void)err;
	memset(out, VMS_PG_PRESENT | VMS_PG_EXCL | VMS_PG_EXCL_KNOWN, npages);
	return 0;
}

static const struct vms_source_ops fake_ops = {
	.name = "fake",
	.read_mem = fake_read,
	.pages = fake_pages,
};

/* A Java heap whose first region the kernel merged with a glibc mmapped
 * chunk mapped right below it (step_jvm.c: the managed entry is the
 * reservation, the region reaches past it): the parts step makes the
 * heap's share of it a managed heap part named as the heap's regions,
 * the chunk a heap part, and the summary counts the whole heap as
 * Managed Heap. */
static void test_step_jvm(void)
{
	struct vms_snapshot *s = vms_snapshot_new();
	uint64_t heap = 0x7f0000400000ull, chunk = 514 * PG;
	struct vms_region *r = anon(s, heap - chunk, 514 + 1024), *in;
	struct vms_heap_seg ch = { heap - chunk, heap };
	struct vms_managed m = { .runtime = "jvm",
				 .start = heap,
				 .end = heap + 4096 * PG,
				 .reserved = 4096 * PG,
				 .committed = 1024 * PG,
				 .used = -1,
				 .resident = -1 };
	struct vms_malloc g;
	struct vms_error err;

	r->c.rss = r->c.private_dirty = r->c.pss = (514 + 1024) * PG;
	in = anon(s, heap + 1024 * PG, 3072);
	in->perms = 0;
	in->type = VMS_T_MANAGED_HEAP;
	in->detail = "Java heap (GarbageFirst)";
	r = &s->regions[0]; /* add_region may move the array */
	memset(&g, 0, sizeof(g));
	g.mmapped = &ch;
	g.nmmapped = 1;
	s->glibc = &g;
	s->src.ops = &fake_ops;
	s->src.caps = VMS_SRC_MEMORY;
	ok(vms_managed_add(s, &m) == 0, "jvm: its managed entry");
	ok(vms_step_parts.run(s, VMS_SRC_MEMORY, &err) == 0,
	   "parts step: a Java heap's region reaching past it");
	ok(r->nchildren == 2 && r->type == VMS_T_PRIVATE_DATA &&
		   r->children[0].part->type == VMS_T_HEAP &&
		   r->children[0].start == heap - chunk &&
		   r->children[0].end == heap &&
		   r->children[1].part->type == VMS_T_MANAGED_HEAP &&
		   r->children[1].start == heap &&
		   r->children[1].end == r->end &&
		   strcmp(r->children[1].name, "Java heap (GarbageFirst)") == 0,
	   "parts step: the chunk a heap part, the heap's share a managed "
	   "heap part named as its regions");
	ok(r->detail && strstr(r->detail, "glibc malloc (mmapped chunk), "
					  "Java heap (GarbageFirst)"),
	   "parts step: the region says it holds both (%s)",
	   r->detail ? r->detail : "(none)");
	ok(s->managed[0].resident == -1,
	   "parts step: the Java heap's resident is not measured");
	totals_set_user_range(s, 0x10000, 0x7ffffffff000ull);
	totals_compute(s);
	ok(s->types[VMS_T_MANAGED_HEAP].size == 4096 * PG &&
		   s->types[VMS_T_HEAP].size == chunk &&
		   s->types[VMS_T_PRIVATE_DATA].size == 0,
	   "parts step: the Managed Heap row is the whole reservation, Heap "
	   "the chunk, nothing left Private Data");
	s->glibc = NULL;
	s->src.ops = NULL;
	vms_snapshot_free(s);
}

static void test_pagemap_bits(void)
{
	uint64_t present = 1ull << 63, swapped = 1ull << 62,
		 excl = 1ull << 56;

	ok(pagemap_bits(present) == VMS_PG_PRESENT &&
		   pagemap_bits(present | excl) ==
			   (VMS_PG_PRESENT | VMS_PG_EXCL) &&
		   pagemap_bits(swapped | excl) == VMS_PG_SWAP &&
		   pagemap_bits(0) == 0,
	   "pagemap bits: present, exclusive only when present, swapped");
}

int main(void)
{
	test_measured();
	test_pagemap_bits();
	test_core();
	test_step_glibc();
	test_step_jvm();
	test_random(tap_seed(28));
	return tap_done();
}
