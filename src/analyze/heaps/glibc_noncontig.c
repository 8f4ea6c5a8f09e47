/* glibc_noncontig.c — the main arena's segments once it is not contiguous
 * (NONCONTIGUOUS_BIT: sbrk failed, a mapping above the break, and glibc
 * went on in mmapped memory).
 *
 * How glibc lays them out (malloc/malloc.c, sysmalloc and
 * sysmalloc_mmap_fallback, 2.26 to 2.42): when MORECORE fails for the
 * main arena, glibc maps at least MMAP_AS_MORECORE_SIZE (1 MiB) with mmap,
 * page-aligned, sets the arena non-contiguous, and makes the new space
 * top, its first chunk at the mapping's start; the old top is shrunk by 32
 * bytes and a double fencepost (two 16-byte chunks, 0x10|PREV_INUSE, the
 * first's PREV_INUSE cleared once the old top is freed) ends the old
 * segment exactly, the rest of it freed. From then on each extension is a
 * new segment the same way (an sbrk that succeeds again: its break,
 * aligned), and system_mem grows by each segment's bytes. Nothing points
 * to a segment but top to the last: they are found where they lie.
 *
 * So: the segment at mp_.sbrk_base (the brk heap glibc had, or the first
 * mapping when sbrk failed at once), then, page by page through the span
 * holding top and then the other anonymous read-write spans and [heap],
 * a page whose chunks (the first with prev_size 0 and PREV_INUSE, none
 * with IS_MMAPPED or NON_MAIN_ARENA, each size sane and within its span)
 * lead exactly to top, or to a double fencepost ending on a page boundary.
 * The search stops once the segments hold system_mem and top; it reads
 * each page of the spans searched once (in the walk's blocks) and at most
 * GLIBC_NC_PROBES pages. Where it falls short, a note says how much was
 * found.
 */
#include "analyze/heaps/glibc_walk_int.h"

#define PREV_INUSE 1u
#define MINSIZE 32u
#define GLIBC_NC_PROBES (1u << 20) /* pages looked at: 4 GiB */

/* Where the chunks from c end: at the end of top when they reach it
 * (*has_top), or after a double fencepost; 0 when they are not a main
 * arena segment's. lim: the end of c's span; *budget: headers still to
 * read. */
static uint64_t seg_end(struct walk *w, uint64_t c, uint64_t lim, uint64_t top,
			uint64_t topsz, bool *has_top, uint64_t *budget)
{
	uint64_t q = c, h[2];
	bool first = true;

	*has_top = false;
	while (q < lim && *budget) {
		uint64_t sz;

		--*budget;
		if (q == top) {
			if (topsz < MINSIZE || topsz > lim - q)
				return 0;
			*has_top = true;
			return q + topsz;
		}
		if (lim - q < 16 || !mcache_get(&w->blocks, q, h, 16))
			return 0;
		sz = h[1] & ~(uint64_t)7;
		if ((first && (h[0] != 0 || !(h[1] & PREV_INUSE))) ||
		    (h[1] & 6))
			return 0;
		if (sz == 16) {
			if (first || lim - q < 32 ||
			    !mcache_get(&w->blocks, q + 16, h, 16) ||
			    h[1] != (16 | PREV_INUSE))
				return 0;
			return q + 32;
		}
		if (sz < MINSIZE || (sz & 15) || sz > lim - q)
			return 0;
		q += sz;
		first = false;
	}
	return 0;
}

/* The end of the segment of a holding p, or 0. */
static uint64_t seg_holding(const struct glibc_arena *a, uint64_t p)
{
	size_t i;

	for (i = 0; i < a->nsegs; i++)
		if (p >= a->segs[i].start && p < a->segs[i].end)
			return a->segs[i].end;
	return 0;
}

struct nc_search {
	uint64_t found, budget, probes, top, topsz, page;
	bool have_top, bounded;
};

/* A segment at start (its first chunk at c) within [.., lim), kept. 1:
 * found, 0: not a segment, -1: out of memory. *end: its end. */
static int try_seg(struct walk *w, struct glibc_arena *a, struct nc_search *n,
		   uint64_t start, uint64_t c, uint64_t lim, bool aligned,
		   uint64_t *end)
{
	bool ht;
	uint64_t e = seg_end(w, c, lim, n->top, n->topsz, &ht, &n->budget);

	/* an mmapped segment ends on a page (its mapping's end), unless top
	 * ends it (top's size is what is left of it) */
	if (!e || (aligned && !ht && e % n->page))
		return 0;
	if (walk_add_seg(a, start, e) < 0)
		return -1;
	n->found += e - start;
	n->have_top |= ht;
	*end = e;
	return 1;
}

/* Page by page through span s. */
static int search_span(struct walk *w, struct glibc_arena *a,
		       struct nc_search *n, const struct glibc_span *s)
{
	uint64_t p = (s->start + n->page - 1) & ~(n->page - 1), e;

	while (p < s->end && !(n->have_top && n->found >= a->system)) {
		int rc;

		if ((e = seg_holding(a, p))) {
			p = (e + n->page - 1) & ~(n->page - 1);
			continue;
		}
		if (!n->probes || !n->budget) {
			n->bounded = true;
			return 0;
		}
		n->probes--;
		rc = try_seg(w, a, n, p, p, s->end, true, &e);
		if (rc < 0)
			return -1;
		p = rc ? (e + n->page - 1) & ~(n->page - 1) : p + n->page;
	}
	return 0;
}

int walk_main_noncontig(struct walk *w, struct glibc_arena *a, uint64_t top,
			uint64_t topsz)
{
	const struct glibc_span *ts = walk_span(w, top), *bs;
	struct nc_search n = { 0 };
	uint64_t e;
	size_t k;

	n.page = w->in->page_size ? w->in->page_size : 4096;
	n.top = top;
	n.topsz = topsz;
	n.probes = GLIBC_NC_PROBES;
	n.budget = a->system / 16 + (1u << 20);
	/* the brk heap glibc had before sbrk failed (sbrk_base may be
	 * anywhere in a page: its first chunk aligned) */
	bs = w->sbrk_base ? walk_span(w, w->sbrk_base) : NULL;
	if (bs &&
	    try_seg(w, a, &n, w->sbrk_base, (w->sbrk_base + 15) & ~(uint64_t)15,
		    bs->end, false, &e) < 0)
		return -1;
	if (ts && search_span(w, a, &n, ts) < 0)
		return -1;
	for (k = 0; k < w->in->nspans; k++) {
		const struct glibc_span *s = &w->in->spans[k];

		if (n.have_top && n.found >= a->system)
			break;
		if (s != ts && (s->anon_rw || s->heap) &&
		    search_span(w, a, &n, s) < 0)
			return -1;
	}
	if (!n.have_top || n.found != a->system)
		walk_note(a->partial, sizeof(a->partial),
			  "the main arena is not contiguous (sbrk failed): "
			  "its %zu segments found hold %llu of its %llu "
			  "bytes%s%s",
			  a->nsegs, (unsigned long long)n.found,
			  (unsigned long long)a->system,
			  n.have_top ? "" : ", not top's",
			  n.bounded ? "; the search stopped at its bound" : "");
	return 0;
}
