/* test_hsg1.c — hsg1_used() on a G1 heap laid out in a buffer as JDK 17
 * has it (offsets from its VMStructs table as dumped: G1CollectedHeap::
 * _hrm 304, HeapRegionManager::_regions 96, G1HeapRegionTable::_base 16
 * and _length 24, HeapRegion::_bottom 0, _end 8, _top 16,
 * CollectedHeap::_is_gc_active 48, _total_collections 64): the used
 * bytes are the sum of the regions' top - bottom, whatever order the
 * HeapRegions lie in, over more regions than one chunk of pointers and
 * more HeapRegions than one window, a window that cannot be read whole
 * read piece by piece; every way the table, a region or the collector's
 * state can be wrong is a -1 with a reason (never a partial sum), a heap
 * not G1's (GrainBytes 0) a 1; a table whose HeapRegions overlap (their
 * pointers closer than the fields read) never has more asked of the
 * piece-by-piece reader than its buffer holds. */
#include "analyze/runtimes/hsg1.h"
#include "tap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BASE 0x100000ull /* the buffer's address in the "target" */
#define SIZE (1u << 20)
#define HEAP (BASE + 0x1000) /* the G1CollectedHeap */
#define GRAIN_AT (BASE + 0x800) /* HeapRegion::GrainBytes */
#define TABLE (BASE + 0x4000) /* the HeapRegion* array */
#define REGIONS (BASE + 0x20000) /* the HeapRegions, 64 bytes apart */
#define START 0xe0000000ull /* the reservation */
#define GRAIN 4096ull

static unsigned char mem[SIZE];
static uint64_t hole_lo, hole_hi; /* reads touching it fail */
static int bump; /* reads of the collection count that add one */
static int fix_after; /* reads of the count after which fix_at is set */
static uint64_t fix_at, fix_to;
static size_t nreads, neach;
static size_t each_over; /* each() asked for more than HSG1_WINDOW bytes */

static void put64(uint64_t addr, uint64_t v)
{
	memcpy(mem + (addr - BASE), &v, sizeof(v));
}

static bool rd(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	nreads++;
	if (addr < BASE || addr - BASE > SIZE || len > SIZE - (addr - BASE) ||
	    (addr < hole_hi && addr + len > hole_lo))
		return false;
	memcpy(buf, mem + (addr - BASE), len);
	if (addr == HEAP + 64 && bump > 0) {
		uint32_t c;

		memcpy(&c, mem + (addr - BASE), 4);
		c++;
		memcpy(mem + (addr - BASE), &c, 4);
		bump--;
	}
	if (addr == HEAP + 64 && fix_after > 0 && --fix_after == 0)
		put64(fix_at, fix_to);
	return true;
}

static bool each(void *ctx, const uint64_t *addr, size_t n, size_t len,
		 void *buf, unsigned char *okp)
{
	size_t i;

	neach++;
	if (n * len > HSG1_WINDOW) {
		each_over++; /* buf holds HSG1_WINDOW bytes: not written */
		return false;
	}
	for (i = 0; i < n; i++)
		okp[i] = rd(ctx, addr[i], (char *)buf + i * len, len);
	return true;
}

static const struct hsg1_reader R = { rd, each, NULL };
static struct hsstructs T;

static void entries(void)
{
	static const uint64_t at[HS_NENTRIES] = {
		[HS_HEAP_GC_ACTIVE] = 48, [HS_HEAP_COLLECTIONS] = 64,
		[HS_G1_HRM] = 304,	  [HS_HRM_REGIONS] = 96,
		[HS_TABLE_BASE] = 16,	  [HS_TABLE_LENGTH] = 24,
		[HS_HR_GRAIN] = GRAIN_AT, [HS_HR_BOTTOM] = 0,
		[HS_HR_END] = 8,	  [HS_HR_TOP] = 16,
	};
	int i;

	memset(&T, 0, sizeof(T));
	for (i = 0; i < HS_NENTRIES; i++)
		if (i >= HS_HEAP_GC_ACTIVE) {
			T.at[i] = at[i];
			T.have[i] = true;
		}
}

/* A heap of n regions: region i's HeapRegion at slot perm(i) (reversed
 * in pairs: not in address order), committed unless i % 7 == 3, its
 * used (i * 40 + 8) % GRAIN. Returns the sum. */
static uint64_t heap(uint64_t n)
{
	uint64_t i, sum = 0;

	memset(mem, 0, sizeof(mem));
	hole_lo = hole_hi = 0;
	bump = fix_after = 0;
	entries();
	put64(GRAIN_AT, GRAIN);
	put64(HEAP + 304 + 96 + 16, TABLE);
	put64(HEAP + 304 + 96 + 24, n);
	for (i = 0; i < n; i++) {
		uint64_t hr = REGIONS + (i ^ 1) * 64,
			 bottom = START + i * GRAIN;

		if (i % 7 == 3)
			continue;
		put64(TABLE + i * 8, hr);
		put64(hr, bottom);
		put64(hr + 8, bottom + GRAIN);
		put64(hr + 16, bottom + (i * 40 + 8) % GRAIN);
		sum += (i * 40 + 8) % GRAIN;
	}
	return sum;
}

static int used_of(uint64_t n, bool still, uint64_t *used, const char **why)
{
	return hsg1_used(&T, &R, HEAP, START, START + n * GRAIN, still, used,
			 why);
}

int main(void)
{
	const uint64_t n = 5000; /* more than HSG1_CHUNK */
	uint64_t want = heap(n), used = 0;
	const char *why = "";
	size_t reads;

	nreads = neach = 0;
	ok(used_of(n, true, &used, &why) == 0 && used == want,
	   "the regions' top - bottom summed: %llu (want %llu; %s)",
	   (unsigned long long)used, (unsigned long long)want, why);
	reads = nreads;
	ok(reads < 50 && neach == 0,
	   "... in %zu reads for %llu regions (windows, no piece alone)", reads,
	   (unsigned long long)n);
	/* a hole between two HeapRegions: their window is read piece by
	 * piece */
	heap(n);
	hole_lo = REGIONS + 102 * 64 + 24;
	hole_hi = REGIONS + 102 * 64 + 64;
	nreads = neach = 0;
	ok(used_of(n, true, &used, &why) == 0 && used == want && neach == 1,
	   "a window that cannot be read whole is read piece by piece (%zu)",
	   neach);
	/* a HeapRegion that cannot be read: no partial sum */
	hole_lo = REGIONS + 102 * 64;
	ok(used_of(n, true, &used, &why) < 0 && strstr(why, "cannot all"),
	   "a HeapRegion that cannot be read: %s", why);
	heap(n);
	put64(REGIONS + (9 ^ 1) * 64, START + 10 * GRAIN);
	ok(used_of(n, true, &used, &why) < 0 && strstr(why, "index"),
	   "a region's _bottom not its index's: %s", why);
	heap(n);
	put64(REGIONS + (9 ^ 1) * 64 + 16, START + 10 * GRAIN + 8);
	ok(used_of(n, true, &used, &why) < 0, "a region's _top past its _end: %s",
	   why);
	heap(n);
	put64(REGIONS + (9 ^ 1) * 64 + 8, START + 10 * GRAIN + 8);
	ok(used_of(n, true, &used, &why) < 0, "a region's _end not its grain's: %s",
	   why);
	heap(n);
	put64(TABLE + 9 * 8, REGIONS + 3);
	ok(used_of(n, true, &used, &why) < 0, "a misaligned HeapRegion*: %s",
	   why);
	heap(n);
	put64(HEAP + 304 + 96 + 24, n + 1);
	ok(used_of(n, true, &used, &why) < 0 && strstr(why, "one pointer"),
	   "_length not the reservation's regions: %s", why);
	heap(n);
	put64(HEAP + 304 + 96 + 16, 0);
	ok(used_of(n, true, &used, &why) < 0, "a null _base: %s", why);
	heap(n);
	put64(GRAIN_AT, 0);
	ok(used_of(n, true, &used, &why) == 1 && strstr(why, "not a G1"),
	   "GrainBytes 0: not G1's (1): %s", why);
	heap(n);
	put64(GRAIN_AT, 3 * GRAIN);
	ok(used_of(n, true, &used, &why) < 0, "GrainBytes not a power of two: %s",
	   why);
	heap(n);
	T.have[HS_HR_GRAIN] = false;
	ok(used_of(n, true, &used, &why) == 1 && strstr(why, "cannot be told"),
	   "no GrainBytes in the table: not told (1): %s", why);
	heap(n);
	T.have[HS_HR_TOP] = false;
	ok(used_of(n, true, &used, &why) < 0 &&
		   strstr(why, "HeapRegion::_top"),
	   "no HeapRegion::_top in the table: %s", why);
	heap(n);
	T.at[HS_HR_TOP] = T.at[HS_HR_BOTTOM];
	ok(used_of(n, true, &used, &why) < 0, "two fields at one offset: %s",
	   why);
	heap(n);
	T.at[HS_G1_HRM] = 1ull << 40;
	ok(used_of(n, true, &used, &why) < 0, "an offset out of bounds: %s",
	   why);
	/* the collector's state */
	heap(n);
	mem[HEAP + 48 - BASE] = 1;
	ok(used_of(n, true, &used, &why) < 0 && strstr(why, "under way"),
	   "held still in a collection: refused: %s", why);
	ok(used_of(n, false, &used, &why) < 0 && strstr(why, "each time"),
	   "running, in a collection each time: refused: %s", why);
	heap(n);
	bump = 1; /* a collection counted between the first reads */
	ok(used_of(n, false, &used, &why) == 0 && used == want,
	   "running, a collection during the first walk: the next taken");
	heap(n);
	bump = 100;
	ok(used_of(n, false, &used, &why) < 0 && strstr(why, "each time"),
	   "running, a collection during every walk: refused: %s", why);
	/* a region being added as the walk reads it (its _top not yet
	 * set): running, read again; held still, refused */
	heap(n);
	put64(REGIONS + (9 ^ 1) * 64 + 16, 0);
	fix_at = REGIONS + (9 ^ 1) * 64 + 16;
	fix_to = START + 9 * GRAIN + (9 * 40 + 8) % GRAIN;
	fix_after = 2;
	ok(used_of(n, false, &used, &why) == 0 && used == want,
	   "running, a region not yet as its index says: read again, taken");
	heap(n);
	put64(REGIONS + (9 ^ 1) * 64 + 16, 0);
	fix_after = 2;
	ok(used_of(n, true, &used, &why) < 0 && strstr(why, "index"),
	   "held still, the same: refused: %s", why);
	/* HeapRegions 8 bytes apart whose fields span 504 bytes (_end at
	 * 496: the table's offsets are the target's to choose), a window
	 * that cannot be read whole: read piece by piece, no more pieces
	 * than the window's buffer holds (it took HSG1_WINDOW / 24 of them,
	 * 504 bytes each: 1.3 MiB written into 64 KiB) */
	heap(n);
	T.at[HS_HR_END] = 496;
	for (uint64_t i = 0; i < n; i++)
		put64(TABLE + i * 8, REGIONS + i * 8);
	hole_lo = REGIONS + 600;
	hole_hi = hole_lo + 8;
	each_over = neach = 0;
	ok(used_of(n, true, &used, &why) < 0 && neach > 0 && each_over == 0,
	   "overlapping HeapRegions, read piece by piece: at most "
	   "HSG1_WINDOW bytes asked at once (%zu of %zu calls more): %s",
	   each_over, neach, why);
	/* one region, the whole heap */
	want = heap(1);
	ok(used_of(1, true, &used, &why) == 0 && used == want,
	   "a heap of one region: %llu", (unsigned long long)used);
	return tap_done();
}
