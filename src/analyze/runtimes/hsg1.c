/* hsg1.c — a G1 heap's used bytes from its regions. See hsg1.h. */
#include "analyze/runtimes/hsg1.h"

#include <stdlib.h>
#include <string.h>

#define TOP (1ull << 47) /* above any x86-64 user address */
#define MAX_FIELD 512 /* a HeapRegion's fields read lie below this */

/* One region's pointer and index. */
struct piece {
	uint64_t at;
	uint32_t index;
};

/* What the walk needs, checked once. */
struct walk {
	const struct hsg1_reader *rd;
	uint64_t start, grain, base, n;
	uint64_t lo, span; /* the fields read: [at + lo, at + lo + span) */
	/* the most pieces a window takes: read alone, each piece's span
	 * bytes go one after the other into buf (HSG1_WINDOW bytes) */
	size_t most;
	uint64_t off[3]; /* _bottom, _top, _end, from lo */
	uint64_t *ptrs, *addr;
	struct piece *pieces;
	unsigned char *buf, *ok;
};

/* The most HeapRegions a window holds (their three fields apart: a span
 * of 24 bytes at least); walk.most for the span the table gives. */
#define MOST (HSG1_WINDOW / 24)

static bool read_u64(const struct hsg1_reader *rd, uint64_t addr, uint64_t *v)
{
	return rd->read(rd->ctx, addr, v, sizeof(*v));
}

static int by_address(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

static uint64_t field(const unsigned char *p, uint64_t off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

/* Adds region p's used (its fields at f) to *sum: false when they are
 * not those of a region of its index. */
static bool add_region(const struct walk *w, const struct piece *p,
		       const unsigned char *f, uint64_t *sum)
{
	uint64_t bottom = field(f, w->off[0]), top = field(f, w->off[1]),
		 end = field(f, w->off[2]);

	if (bottom != w->start + p->index * w->grain ||
	    end != bottom + w->grain || top < bottom || top > end)
		return false;
	*sum += top - bottom;
	return true;
}

/* The regions pieces[0, n) (by address): windows of HSG1_WINDOW bytes,
 * each read at once, else each piece alone. */
static bool read_regions(const struct walk *w, const struct piece *pc, size_t n,
			 uint64_t *sum)
{
	size_t i = 0, j, k;

	while (i < n) {
		uint64_t from = pc[i].at + w->lo, to;

		for (j = i + 1;
		     j < n && j - i < w->most &&
		     pc[j].at + w->lo + w->span - from <= HSG1_WINDOW;
		     j++)
			;
		to = pc[j - 1].at + w->lo + w->span;
		if (w->rd->read(w->rd->ctx, from, w->buf, to - from)) {
			for (k = i; k < j; k++)
				if (!add_region(
					    w, &pc[k],
					    w->buf + (pc[k].at + w->lo - from),
					    sum))
					return false;
			i = j;
			continue;
		}
		for (k = i; k < j; k++)
			w->addr[k - i] = pc[k].at + w->lo;
		if (!w->rd->each(w->rd->ctx, w->addr, j - i, w->span, w->buf,
				 w->ok))
			return false;
		for (k = i; k < j; k++)
			if (!w->ok[k - i] ||
			    !add_region(w, &pc[k], w->buf + (k - i) * w->span,
					sum))
				return false;
		i = j;
	}
	return true;
}

/* Sums the regions: 0, or -1 with *why. */
static int walk_regions(const struct walk *w, uint64_t *sum, const char **why)
{
	uint64_t i, k;

	*sum = 0;
	for (i = 0; i < w->n; i += HSG1_CHUNK) {
		size_t c = w->n - i < HSG1_CHUNK ? (size_t)(w->n - i)
						 : HSG1_CHUNK,
		       np = 0;

		*why = "its heap's region table (G1HeapRegionTable::_base) "
		       "cannot be read";
		if (!w->rd->read(w->rd->ctx, w->base + i * 8, w->ptrs, c * 8))
			return -1;
		*why = "its heap's region table holds a pointer to no "
		       "HeapRegion";
		for (k = 0; k < c; k++) {
			if (!w->ptrs[k])
				continue; /* never committed */
			if (w->ptrs[k] % 8 || w->ptrs[k] >= TOP - MAX_FIELD)
				return -1;
			w->pieces[np++] =
				(struct piece){ w->ptrs[k], (uint32_t)(i + k) };
		}
		qsort(w->pieces, np, sizeof(*w->pieces), by_address);
		*why = "its heap's regions (HeapRegion) cannot all be read, or "
		       "one is not where its index says (its _bottom, _top "
		       "or _end)";
		if (!read_regions(w, w->pieces, np, sum))
			return -1;
	}
	return 0;
}

/* The collector's state: *active (a collection under way) and *count
 * (collections so far). */
static bool gc_state(const struct hsstructs *t, const struct hsg1_reader *rd,
		     uint64_t heap, bool *active, uint32_t *count)
{
	unsigned char a;

	if (!rd->read(rd->ctx, heap + t->at[HS_HEAP_GC_ACTIVE], &a, 1) ||
	    !rd->read(rd->ctx, heap + t->at[HS_HEAP_COLLECTIONS], count,
		      sizeof(*count)))
		return false;
	*active = a != 0;
	return true;
}

/* The walk's fixed figures from the table and the heap: 0, 1 (not G1,
 * or not told) or -1, with *why. */
static int walk_of(const struct hsstructs *t, const struct hsg1_reader *rd,
		   uint64_t heap, uint64_t start, uint64_t end, struct walk *w,
		   const char **why)
{
	/* what the walk needs, and the note where the table lacks it */
	static const struct {
		enum hsstructs_entry e;
		const char *why;
	} need[] = {
		{ HS_G1_HRM,
		  "its VMStructs table has no G1CollectedHeap::_hrm" },
		{ HS_HRM_REGIONS, "its VMStructs table has no "
				  "HeapRegionManager::_regions" },
		{ HS_TABLE_BASE, "its VMStructs table has no "
				 "G1HeapRegionTable::_base" },
		{ HS_TABLE_LENGTH, "its VMStructs table has no "
				   "G1HeapRegionTable::_length" },
		{ HS_HR_BOTTOM,
		  "its VMStructs table has no HeapRegion::_bottom" },
		{ HS_HR_TOP, "its VMStructs table has no HeapRegion::_top" },
		{ HS_HR_END, "its VMStructs table has no HeapRegion::_end" },
		{ HS_HEAP_GC_ACTIVE, "its VMStructs table has no "
				     "CollectedHeap::_is_gc_active" },
		{ HS_HEAP_COLLECTIONS, "its VMStructs table has no "
				       "CollectedHeap::_total_collections" },
	};
	uint64_t lo = ~0ull, hi = 0, table, length;
	size_t i;

	*why = "its VMStructs table has no HeapRegion::GrainBytes (a G1 heap "
	       "cannot be told)";
	if (!t->have[HS_HR_GRAIN])
		return 1;
	*why = "HeapRegion::GrainBytes cannot be read";
	if (!read_u64(rd, t->at[HS_HR_GRAIN], &w->grain))
		return 1;
	*why = "not a G1 heap (HeapRegion::GrainBytes is 0)";
	if (!w->grain)
		return 1;
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!t->have[need[i].e]) {
			*why = need[i].why;
			return -1;
		}
	*why = "its heap's region size (HeapRegion::GrainBytes) or region "
	       "table's offsets are not G1's";
	if (w->grain & (w->grain - 1) || w->grain < 4096 ||
	    w->grain > (1ull << 30) || (end - start) % w->grain ||
	    (end - start) / w->grain > HSG1_MAX_REGIONS ||
	    t->at[HS_G1_HRM] > 4096 || t->at[HS_HRM_REGIONS] > 4096 ||
	    t->at[HS_TABLE_BASE] > 256 || t->at[HS_TABLE_LENGTH] > 256 ||
	    t->at[HS_HEAP_GC_ACTIVE] > 4096 ||
	    t->at[HS_HEAP_COLLECTIONS] > 4096)
		return -1;
	for (i = 0; i < 3; i++) {
		uint64_t o = t->at[HS_HR_BOTTOM + i];

		if (o > MAX_FIELD - 8 || o % 8)
			return -1;
		lo = o < lo ? o : lo;
		hi = o + 8 > hi ? o + 8 : hi;
	}
	/* three fields apart (MOST holds) */
	if (t->at[HS_HR_BOTTOM] == t->at[HS_HR_TOP] ||
	    t->at[HS_HR_TOP] == t->at[HS_HR_END] ||
	    t->at[HS_HR_BOTTOM] == t->at[HS_HR_END])
		return -1;
	w->rd = rd;
	w->start = start;
	w->n = (end - start) / w->grain;
	w->lo = lo;
	w->span = hi - lo;
	/* HeapRegions closer than their span (a table that says they
	 * overlap) fill a window with more pieces than buf holds read
	 * alone */
	w->most = (size_t)(HSG1_WINDOW / w->span);
	for (i = 0; i < 3; i++)
		w->off[i] = t->at[HS_HR_BOTTOM + i] - lo;
	table = heap + t->at[HS_G1_HRM] + t->at[HS_HRM_REGIONS];
	*why = "its heap's region table (G1CollectedHeap::_hrm) cannot be "
	       "read";
	if (!read_u64(rd, table + t->at[HS_TABLE_BASE], &w->base) ||
	    !read_u64(rd, table + t->at[HS_TABLE_LENGTH], &length))
		return -1;
	*why = "its heap's region table (G1HeapRegionTable) is not one "
	       "pointer for each region of its reservation";
	if (length != w->n || !w->base || w->base % 8 ||
	    w->base >= TOP - w->n * 8)
		return -1;
	return 0;
}

int hsg1_used(const struct hsstructs *t, const struct hsg1_reader *rd,
	      uint64_t heap, uint64_t start, uint64_t end, bool still,
	      uint64_t *used, const char **why)
{
	struct walk w = { 0 };
	int rc = walk_of(t, rd, heap, start, end, &w, why), tries;

	if (rc != 0)
		return rc;
	w.ptrs = malloc(HSG1_CHUNK * sizeof(*w.ptrs));
	w.pieces = malloc(HSG1_CHUNK * sizeof(*w.pieces));
	w.addr = malloc(MOST * sizeof(*w.addr));
	w.buf = malloc(HSG1_WINDOW);
	w.ok = malloc(MOST);
	rc = -2;
	if (!w.ptrs || !w.pieces || !w.addr || !w.buf || !w.ok)
		goto out_free;
	rc = -1;
	for (tries = 0; tries < (still ? 1 : HSG1_TRIES); tries++) {
		uint32_t c0, c1;
		bool a0, a1;

		*why = "its collector's state (CollectedHeap::_is_gc_active, "
		       "_total_collections) cannot be read";
		if (!gc_state(t, rd, heap, &a0, &c0))
			break;
		*why = still ? "a collection was under way (its regions then "
			       "count what it copies twice)"
			     : "a collection ran or was under way each time "
			       "its regions were read";
		if (a0)
			continue;
		if (walk_regions(&w, used, why) < 0) {
			if (still)
				break;
			continue; /* running: read while it changed? */
		}
		*why = "its collector's state (CollectedHeap::_is_gc_active, "
		       "_total_collections) cannot be read";
		if (!gc_state(t, rd, heap, &a1, &c1))
			break;
		*why = "a collection ran or was under way each time its "
		       "regions were read";
		if (!a1 && c1 == c0) {
			rc = 0;
			break;
		}
	}
out_free:
	free(w.ptrs);
	free(w.pieces);
	free(w.addr);
	free(w.buf);
	free(w.ok);
	return rc;
}
