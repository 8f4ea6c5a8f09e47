/* glibc_place.c — where an arena's free chunks lie: how many of their
 * bytes are in pages present in RAM (free_resident), and the arena's
 * fragmentation strip (free and top bytes in GLIBC_STRIP cells laid over
 * its segments end to end). For glibc_walk.c, after an arena's segments
 * are known and sorted (walk_place_init), then once per free chunk it
 * counts (walk_place_free): top, bins, fastbins, as mallinfo2 counts
 * free. A chunk outside every segment (garbage) is counted in neither.
 */
#include <stdlib.h>

#include "analyze/heaps/glibc_walk_int.h"

/* The segment holding p (a->segs sorted by start), or -1. */
static ptrdiff_t seg_of(const struct glibc_arena *a, uint64_t p)
{
	size_t lo = 0, hi = a->nsegs;

	while (lo < hi) { /* the last segment starting at or before p */
		size_t mid = lo + (hi - lo) / 2;

		if (a->segs[mid].start <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || p >= a->segs[lo - 1].end)
		return -1;
	return (ptrdiff_t)(lo - 1);
}

/* Which pages of the segments are in RAM, into w->present, segment after
 * segment (w->segoff[i]: segment i's first page there); a->resident_known
 * false when the source cannot tell. */
static int load_present(struct walk *w, struct glibc_arena *a)
{
	uint64_t pg = w->in->page_size, n = 0;
	size_t i;

	a->resident_known = false;
	if (!w->mem->present || !pg || (pg & (pg - 1)) || !a->nsegs)
		return 0;
	for (i = 0; i < a->nsegs; i++) {
		const struct glibc_seg *s = &a->segs[i];

		if (s->end <= s->start || s->end > UINT64_MAX - pg)
			return 0;
		n += ((s->end + pg - 1) & ~(pg - 1)) / pg - s->start / pg;
	}
	if (n > (1ull << 28)) /* past 1 TiB of 4 KiB pages: not a heap */
		return 0;
	if (n > w->cappresent) {
		unsigned char *np = realloc(w->present, (size_t)n);

		if (!np)
			return -1;
		w->present = np;
		w->cappresent = (size_t)n;
	}
	for (n = 0, i = 0; i < a->nsegs; i++) {
		const struct glibc_seg *s = &a->segs[i];
		uint64_t base = s->start & ~(pg - 1);
		uint64_t cnt = ((s->end + pg - 1) & ~(pg - 1)) / pg - base / pg;

		w->segoff[i] = n;
		if (w->mem->present(w->mem->ctx, base, (size_t)cnt,
				    w->present + n) < 0)
			return 0;
		n += cnt;
	}
	a->resident_known = true;
	return 0;
}

int walk_place_init(struct walk *w, struct glibc_arena *a)
{
	uint64_t sum = 0;
	size_t i;

	free(w->segoff);
	free(w->segbytes);
	w->segoff = calloc(a->nsegs + 1, sizeof(*w->segoff));
	w->segbytes = calloc(a->nsegs + 1, sizeof(*w->segbytes));
	if (!w->segoff || !w->segbytes)
		return -1;
	for (i = 0; i < a->nsegs; i++) {
		w->segbytes[i] = sum;
		if (a->segs[i].end > a->segs[i].start)
			sum += a->segs[i].end - a->segs[i].start;
	}
	a->strip_bytes = sum;
	return load_present(w, a);
}

/* Bytes of [p, end) (inside segment i) in present pages. */
static uint64_t resident(const struct walk *w, const struct glibc_seg *s,
			 size_t i, uint64_t p, uint64_t end)
{
	uint64_t pg = w->in->page_size, at, sum = 0;
	const unsigned char *m = w->present + w->segoff[i];

	for (at = p; at < end;) {
		uint64_t next = (at & ~(pg - 1)) + pg;

		if (next > end)
			next = end;
		if (m[at / pg - s->start / pg])
			sum += next - at;
		at = next;
	}
	return sum;
}

/* Adds [off, end) (offsets into the segments end to end) to the cells. */
static void strip_add(struct glibc_arena *a, uint64_t off, uint64_t end,
		      bool top)
{
	uint64_t total = a->strip_bytes;
	uint64_t c, c0, c1;

	if (!total || end <= off || end > total)
		return;
	c0 = (uint64_t)((unsigned __int128)off * GLIBC_STRIP / total);
	c1 = (uint64_t)((unsigned __int128)(end - 1) * GLIBC_STRIP / total);
	for (c = c0; c <= c1 && c < GLIBC_STRIP; c++) {
		uint64_t lo =
			(uint64_t)((unsigned __int128)c * total / GLIBC_STRIP);
		uint64_t hi = (uint64_t)((unsigned __int128)(c + 1) * total /
					 GLIBC_STRIP);
		uint64_t n = (end < hi ? end : hi) - (off > lo ? off : lo);

		if (top)
			a->strip_top[c] += n;
		else
			a->strip_free[c] += n;
	}
}

void walk_place_free(struct walk *w, struct glibc_arena *a, uint64_t p,
		     uint64_t sz, bool top)
{
	ptrdiff_t i = seg_of(a, p);
	const struct glibc_seg *s;
	uint64_t end;

	if (i < 0 || !w->segbytes)
		return;
	s = &a->segs[i];
	end = sz > s->end - p ? s->end : p + sz;
	if (a->resident_known)
		a->free_resident += resident(w, s, (size_t)i, p, end);
	strip_add(a, w->segbytes[i] + (p - s->start),
		  w->segbytes[i] + (end - s->start), top);
}
