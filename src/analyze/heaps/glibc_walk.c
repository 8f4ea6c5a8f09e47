/* glibc_walk.c — the arenas, their segments and chunks, their lists, and
 * mallinfo2's figures (glibc_walk.h). The tcaches and the mmapped chunks
 * are glibc_tcache.c's.
 *
 * Order of work, per arena: its malloc_state (one read); its segments (the
 * brk heap from mp_.sbrk_base to the end of top, or the heap_info chain
 * from the heap holding top); the chunk walk over them in address order,
 * in GLIBC_WALK_BLOCK reads, which keeps every free chunk it sees (address,
 * size, bk) in a sorted array; then the lists as int_mallinfo walks them:
 * top, fastbins (their chunks look in use to the walk: read by page), bins
 * (looked up in the array, read by page if missing from it).
 */
#include "analyze/heaps/glibc_walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/heaps/glibc_mcache.h"
#include "analyze/heaps/glibc_walk_int.h"

#define PREV_INUSE 1u
#define IS_MMAPPED 2u
#define NONCONTIGUOUS_BIT 2u
#define MINSIZE 32u
#define NFASTBINS 10
#define FAST_MAX 0xb0u /* the largest chunk a fastbin holds */
#define NBINS 128
#define HEAP_MAX_DEFAULT (64ull << 20)

/* ---- one arena ---- */

static uint64_t rd64(const unsigned char *ms, unsigned off)
{
	uint64_t v;

	memcpy(&v, ms + off, 8);
	return v;
}

static int cmp_seg(const void *x, const void *y)
{
	const struct glibc_seg *a = x, *b = y;

	return (a->start > b->start) - (a->start < b->start);
}

/* A first chunk: the address after p whose chunk2mem is 16-aligned. */
static uint64_t align_chunk(uint64_t p)
{
	return (p + 16) & 15 ? p + 16 - ((p + 16) & 15) : p;
}

/* The brk heap of the main arena: [sbrk_base, end of top); its segments
 * where sbrk failed. */
static int main_segs(struct walk *w, struct glibc_arena *a, uint64_t top,
		     uint64_t topsz, int flags)
{
	const struct glibc_span *hs = walk_span(w, w->sbrk_base);

	if (flags & NONCONTIGUOUS_BIT) /* glibc_noncontig.c */
		return walk_main_noncontig(w, a, top, topsz);
	/* sbrk_base is where [heap] starts, or above it when the program
	 * moved the break itself before glibc's first sbrk */
	if (!hs || !hs->heap) {
		walk_note(a->partial, sizeof(a->partial),
			  "mp_.sbrk_base 0x%llx is not in [heap]: the brk heap "
			  "is not walked",
			  (unsigned long long)w->sbrk_base);
		return 0;
	}
	if (top < w->sbrk_base || top > hs->end || topsz > hs->end - top) {
		walk_note(a->partial, sizeof(a->partial),
			  "the main arena's top 0x%llx is outside [heap]",
			  (unsigned long long)top);
		return 0;
	}
	return walk_add_seg(a, w->sbrk_base, top + topsz);
}

/* The heaps of a non-main arena: heap_info chain from the one holding top.
 * firsts[i] is where segment i's chunks start (same order as a->segs
 * before sorting: kept in the segment's start via first_of()). */
static int arena_segs(struct walk *w, struct glibc_arena *a, uint64_t top)
{
	uint64_t hmax = w->heap_max, h = top & ~(hmax - 1);
	struct brent br;
	size_t n = 0;

	brent_init(&br, h);
	while (h) {
		uint64_t hi[4]; /* ar_ptr, prev, size, mprotect_size */

		if (!walk_ptr_ok(w, h, w->in->lay.heap_info_size) ||
		    !mcache_copy(&w->pages, h, hi, sizeof(hi))) {
			walk_note(a->partial, sizeof(a->partial),
				  "heap_info at 0x%llx cannot be read",
				  (unsigned long long)h);
			return 0;
		}
		if (hi[0] != a->addr || hi[2] < w->in->lay.heap_info_size ||
		    hi[2] > hmax || !walk_ptr_ok(w, h, hi[2])) {
			walk_note(a->partial, sizeof(a->partial),
				  "heap_info at 0x%llx does not belong to "
				  "arena 0x%llx (ar_ptr 0x%llx, size 0x%llx)",
				  (unsigned long long)h,
				  (unsigned long long)a->addr,
				  (unsigned long long)hi[0],
				  (unsigned long long)hi[2]);
			return 0;
		}
		if (walk_add_seg(a, h, h + hi[2]) < 0)
			return -1;
		h = hi[1];
		if (++n > (1u << 20) || (h && (h & (hmax - 1))) ||
		    !brent_step(&br, h)) {
			walk_note(a->partial, sizeof(a->partial),
				  "arena 0x%llx: its heap list is corrupt "
				  "(loops or is misaligned at 0x%llx)",
				  (unsigned long long)a->addr,
				  (unsigned long long)h);
			return 0;
		}
	}
	return 0;
}

static uint64_t seg_first(const struct walk *w, const struct glibc_arena *a,
			  const struct glibc_seg *s)
{
	/* the main arena's: sbrk_base, a mapping, or a break, aligned */
	if (a->main)
		return align_chunk(s->start);
	/* The first heap holds the malloc_state right after heap_info. */
	if (a->addr == s->start + w->in->lay.heap_info_size)
		return align_chunk(a->addr + w->in->lay.ms_size);
	return s->start + w->in->lay.heap_info_size;
}

static int keep_free(struct walk *w, uint64_t p, uint64_t sz, uint64_t bk)
{
	if (w->nfree == w->capfree) {
		size_t cap = w->capfree ? w->capfree * 2 : 1024;
		struct walk_free *n = realloc(w->free, cap * sizeof(*n));

		if (!n)
			return -1;
		w->free = n;
		w->capfree = cap;
	}
	w->free[w->nfree++] = (struct walk_free){ p, sz, bk };
	return 0;
}

static bool in_arena(const struct glibc_arena *a, uint64_t p)
{
	size_t i;

	for (i = 0; i < a->nsegs; i++)
		if (p >= a->segs[i].start && p < a->segs[i].end)
			return true;
	return false;
}

/* Keeps a chunk of a fastbin's size whose link looks like a fastbin's:
 * following the fastbins then costs no read (their chunks lie far apart,
 * a page each). Bounded by WALK_FAST_MAX. */
static int keep_fast(struct walk *w, const struct glibc_arena *a, uint64_t p,
		     uint64_t sz, uint64_t raw_fd)
{
	uint64_t fd = walk_reveal(w, p + 16, raw_fd);

	if (fd && ((fd & 15) || !in_arena(a, fd)))
		return 0;
	if (w->nfast == w->capfast) {
		size_t cap = w->capfast ? w->capfast * 2 : 1024;
		struct walk_fast *n;

		if (w->capfast >= WALK_FAST_MAX)
			return 0;
		n = realloc(w->fast, cap * sizeof(*n));
		if (!n)
			return -1;
		w->fast = n;
		w->capfast = cap;
	}
	w->fast[w->nfast++] = (struct walk_fast){ p | sz >> 4, fd };
	return 0;
}

/* Whether the chunks from c lead exactly to top (or to the double
 * fencepost of another foreign part on the way); *budget: the headers
 * still to be read in the search. */
static bool leads_to_top(struct walk *w, uint64_t c, uint64_t top,
			 uint64_t *budget)
{
	uint64_t q = c, h[2];
	bool first = true;

	while (q < top) {
		uint64_t sz;

		if (!*budget || !mcache_get(&w->blocks, q, h, 16))
			return false;
		--*budget;
		sz = h[1] & ~(uint64_t)7;
		/* the first chunk of a part: glibc's top, made with PREV_INUSE;
		 * no chunk of the main arena has the other bits */
		if ((first && !(h[1] & PREV_INUSE)) || (h[1] & 6))
			return false;
		if (sz == 16 && !first && top - q > 32 &&
		    mcache_get(&w->blocks, q + 16, h, 16) &&
		    (h[1] & ~(uint64_t)1) == 16)
			return true; /* another pair: the next gap */
		if (sz < MINSIZE || (sz & 15) || sz > top - q)
			return false;
		q += sz;
		first = false;
	}
	return q == top;
}

/* After a double fencepost that ends the main arena's part at p below
 * top: sysmalloc found the break moved by someone else (a foreign sbrk)
 * and went on above it, at the new break aligned. Where is not written
 * anywhere: the first 16-aligned address above p from which the chunks
 * lead exactly to top (or to the next such gap). The search reads at
 * most four headers a 16 bytes of the span, and a million more. 0: not
 * found. */
static uint64_t resume_after_gap(struct walk *w, uint64_t p, uint64_t top)
{
	uint64_t budget = ((top - p) >> 4) * 4 + (1u << 20), c;

	for (c = (p + 15) & ~(uint64_t)15; c < top && budget; c += 16)
		if (leads_to_top(w, c, top, &budget))
			return c;
	return 0;
}

/* Walks the chunks of one segment, from first to top or the segment's
 * end (over the program's own parts of the brk heap, foreign sbrks,
 * between glibc's). Returns -1 on out of memory or cancel, else 0 (a corrupt header
 * stops the walk with a note). */
static int walk_seg(struct walk *w, struct glibc_arena *a,
		    const struct glibc_seg *s, uint64_t first, uint64_t top,
		    uint64_t *sum)
{
	uint64_t p = first, prev = 0, prevsz = 0, prevbk = 0, next_report;
	bool prevlinks = false; /* prev's fd and bk were read */
	unsigned fences = 0; /* fenceposts (16 bytes) in a row */

	next_report = p + (64u << 20);
	while (p < s->end) {
		uint64_t h[4] = { 0 }; /* prev_size, size, fd, bk */
		uint64_t sz;
		bool links; /* fd and bk read */

		/* a segment's last 16 bytes: a fencepost, its header alone.
		 * Links on a page not in memory: its header alone. Mostly a
		 * chunk in use whose data was never written (a free chunk's
		 * links are written, glibc's fd and bk as tcache's next and
		 * key; malloc_trim keeps them); a free one swapped out is
		 * not kept as free here (its bin reads it, and says it cannot
		 * be read) */
		links = p != top && s->end - p >= 32 &&
			mcache_get(&w->blocks, p, h, 32);
		if (!links)
			h[2] = h[3] = 0;
		if (s->end - p < 16 ||
		    (!links && !mcache_get(&w->blocks, p, h, 16))) {
			walk_note(a->partial, sizeof(a->partial),
				  "chunk header at 0x%llx %s",
				  (unsigned long long)p,
				  s->end - p < 16 ? "runs past its segment"
						  : "is not in memory");
			return 0;
		}
		if (prev && !(h[1] & PREV_INUSE) && prevlinks &&
		    keep_free(w, prev, prevsz, prevbk) < 0)
			return -1;
		if (prev && (h[1] & PREV_INUSE) &&
		    walk_block(w, a->addr, prev, prevsz - 8, true) < 0)
			return -1;
		prev = 0;
		sz = h[1] & ~(uint64_t)7;
		if (p == top) {
			a->chunks++;
			*sum += sz;
			return 0;
		}
		if (sz == 0) { /* the fencepost that ends an old heap */
			if (top >= p && top < s->end)
				walk_note(a->partial, sizeof(a->partial),
					  "a fencepost at 0x%llx before top "
					  "(a foreign sbrk?): the walk stops "
					  "there",
					  (unsigned long long)p);
			return 0;
		}
		if (sz == 16) { /* the fencepost before it, or a pair */
			p += 16;
			if (++fences == 2 && a->main && p < top &&
			    top < s->end) {
				/* a foreign sbrk: glibc went on above the
				 * program's own bytes */
				uint64_t c = resume_after_gap(w, p, top);

				if (!c) {
					walk_note(a->partial,
						  sizeof(a->partial),
						  "a foreign sbrk at 0x%llx: "
						  "where the heap goes on "
						  "above it was not found",
						  (unsigned long long)p);
					return 0;
				}
				p = c;
				fences = 0;
			}
			continue;
		}
		fences = 0;
		if (sz < MINSIZE || (sz & 15) || sz > s->end - p ||
		    (h[1] & IS_MMAPPED)) {
			walk_note(a->partial, sizeof(a->partial),
				  "corrupt chunk header at 0x%llx (size field "
				  "0x%llx): the walk stops there",
				  (unsigned long long)p,
				  (unsigned long long)h[1]);
			return 0;
		}
		if (sz == w->in->lay.tc_chunk &&
		    walk_tcache_candidate(w, p) < 0)
			return -1;
		if (links && sz <= FAST_MAX && keep_fast(w, a, p, sz, h[2]) < 0)
			return -1;
		a->chunks++;
		*sum += sz;
		prev = p;
		prevsz = sz;
		prevbk = h[3];
		prevlinks = links;
		p += sz;
		if (p >= next_report) {
			next_report = p + (64u << 20);
			if (w->in->progress &&
			    w->in->progress(w->in->progress_ctx,
					    w->done + (p - s->start), w->total))
				return -1;
		}
	}
	if (top >= s->start && top < s->end)
		walk_note(a->partial, sizeof(a->partial),
			  "the walk of 0x%llx-0x%llx missed top 0x%llx",
			  (unsigned long long)s->start,
			  (unsigned long long)s->end, (unsigned long long)top);
	return 0;
}

static int cmp_free(const void *x, const void *y)
{
	const struct walk_free *a = x, *b = y;

	return (a->addr > b->addr) - (a->addr < b->addr);
}

static const struct walk_free *find_free(const struct walk *w, uint64_t p)
{
	size_t lo = 0, hi = w->nfree;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p < w->free[mid].addr)
			hi = mid;
		else if (p > w->free[mid].addr)
			lo = mid + 1;
		else
			return &w->free[mid];
	}
	return NULL;
}

static const struct walk_fast *find_fast(struct walk *w, uint64_t p)
{
	size_t lo = 0, hi = w->nfast, k;

	/* A fastbin is mostly in address order, up or down: look beside the
	 * last one found first. */
	for (k = w->fast_hint ? w->fast_hint - 1 : 0;
	     k < w->nfast && k <= w->fast_hint + 1; k++)
		if ((w->fast[k].key & ~(uint64_t)15) == p) {
			w->fast_hint = k;
			return &w->fast[k];
		}

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t at = w->fast[mid].key & ~(uint64_t)15;

		if (p < at)
			hi = mid;
		else if (p > at)
			lo = mid + 1;
		else {
			w->fast_hint = mid;
			return &w->fast[mid];
		}
	}
	return NULL;
}

static int cmp_fast(const void *x, const void *y)
{
	const struct walk_fast *a = x, *b = y;

	return (a->key > b->key) - (a->key < b->key);
}

static bool sorted(const void *v, size_t n, size_t size,
		   int (*cmp)(const void *, const void *))
{
	const char *c = v;
	size_t i;

	for (i = 1; i < n; i++)
		if (cmp(c + (i - 1) * size, c + i * size) > 0)
			return false;
	return true;
}

static void count_free(struct glibc_arena *a, uint64_t sz)
{
	unsigned b = glibc_hist_bucket(sz);

	a->hist[b]++;
	a->hist_bytes[b] += sz;
	if (sz > a->largest_free)
		a->largest_free = sz;
}

/* fastbinsY[i]: p = REVEAL_PTR (p->fd) until NULL. */
static void walk_fastbins(struct walk *w, struct glibc_arena *a,
			  const unsigned char *ms, uint64_t cap)
{
	int i;

	for (i = 0; i < NFASTBINS; i++) {
		uint64_t p = rd64(ms, w->in->lay.ms_fastbins + 8 * i), n = 0;
		struct brent br;

		brent_init(&br, p);
		while (p) {
			const struct walk_fast *f = find_fast(w, p);
			uint64_t h[3]; /* prev_size, size, fd */
			uint64_t sz;

			if (f) {
				h[1] = (f->key & 15) << 4;
				h[2] = f->fd;
			} else if (!chunk_ptr_ok(w, p) ||
				   !mcache_copy(&w->pages, p, h, sizeof(h))) {
				walk_note(a->partial, sizeof(a->partial),
					  "fastbin %d: chunk 0x%llx cannot be "
					  "read",
					  i, (unsigned long long)p);
				return;
			}
			sz = h[1] & ~(uint64_t)7;
			if (sz < MINSIZE || (sz & 15) || sz > FAST_MAX) {
				walk_note(a->partial, sizeof(a->partial),
					  "fastbin %d: chunk 0x%llx has a "
					  "corrupt size 0x%llx",
					  i, (unsigned long long)p,
					  (unsigned long long)h[1]);
				return;
			}
			a->smblks++;
			a->fsmblks += sz;
			if (walk_block(w, a->addr, p, sz - 8, false) < 0)
				w->cancelled = true;
			count_free(a, sz);
			walk_place_free(w, a, p, sz, false);
			p = f ? f->fd : walk_reveal(w, p + 16, h[2]);
			if (++n > cap || !brent_step(&br, p)) {
				walk_note(a->partial, sizeof(a->partial),
					  "fastbin %d loops", i);
				return;
			}
		}
	}
}

/* bins 1..127: for (p = last (b); p != b; p = p->bk). */
static void walk_bins(struct walk *w, struct glibc_arena *a,
		      const unsigned char *ms, uint64_t cap)
{
	int i;

	for (i = 1; i < NBINS; i++) {
		unsigned off = w->in->lay.ms_bins + (unsigned)(i - 1) * 16;
		uint64_t b = a->addr + off - 16, p = rd64(ms, off + 8), n = 0;
		struct brent br;

		brent_init(&br, p);
		while (p != b) {
			const struct walk_free *f = find_free(w, p);
			uint64_t sz, bk;

			if (f) {
				sz = f->size;
				bk = f->bk;
			} else {
				uint64_t h[4];

				if (!chunk_ptr_ok(w, p) ||
				    !mcache_copy(&w->pages, p, h, sizeof(h))) {
					walk_note(a->partial,
						  sizeof(a->partial),
						  "bin %d: chunk 0x%llx cannot "
						  "be read",
						  i, (unsigned long long)p);
					return;
				}
				sz = h[1] & ~(uint64_t)7;
				bk = h[3];
				w->binned_unwalked++;
			}
			a->ordblks++;
			a->free += sz;
			count_free(a, sz);
			walk_place_free(w, a, p, sz, false);
			p = bk;
			if (++n > cap || !brent_step(&br, p)) {
				walk_note(a->partial, sizeof(a->partial),
					  "bin %d loops", i);
				return;
			}
		}
	}
}

/* Reads one arena: segments, chunk walk, lists. Sets *next. */
static int walk_arena(struct walk *w, struct glibc_arena *a, uint64_t *next)
{
	const struct glibc_layout *l = &w->in->lay;
	unsigned char ms[0x900];
	uint64_t top, topsz = 0, sum = 0, cap;
	int flags;
	size_t i;

	*next = 0;
	if (!walk_ptr_ok(w, a->addr, l->ms_size) ||
	    !mcache_copy(&w->pages, a->addr, ms, l->ms_size)) {
		walk_note(a->partial, sizeof(a->partial),
			  "arena 0x%llx cannot be read",
			  (unsigned long long)a->addr);
		a->unread = true;
		return 0;
	}
	*next = rd64(ms, l->ms_next);
	a->busy = ms[0] | ms[1] | ms[2] | ms[3];
	if (a->busy) {
		walk_note(a->partial, sizeof(a->partial),
			  "arena 0x%llx was locked at the snapshot (busy): "
			  "not walked",
			  (unsigned long long)a->addr);
		return 0;
	}
	memcpy(&flags, ms + 4, 4);
	top = rd64(ms, l->ms_top);
	a->system = rd64(ms, l->ms_system_mem);
	if (a->main &&
	    (top == 0 || (top >= a->addr && top < a->addr + l->ms_size))) {
		w->res->empty = true; /* malloc never ran: initial_top */
		return 0;
	}
	if (!chunk_ptr_ok(w, top) || !mcache_u64(&w->pages, top + 8, &topsz)) {
		walk_note(a->partial, sizeof(a->partial),
			  "arena 0x%llx: top 0x%llx cannot be read",
			  (unsigned long long)a->addr, (unsigned long long)top);
		a->unread = true;
		return 0;
	}
	topsz &= ~(uint64_t)7;
	a->top = topsz;
	a->ordblks = 1;
	a->free = topsz;
	if ((a->main ? main_segs(w, a, top, topsz, flags)
		     : arena_segs(w, a, top)) < 0)
		return -1;
	if (a->nsegs)
		qsort(a->segs, a->nsegs, sizeof(*a->segs), cmp_seg);
	if (walk_place_init(w, a) < 0)
		return -1;
	walk_place_free(w, a, top, topsz, true);
	w->nfree = 0;
	w->nfast = 0;
	for (i = 0; i < a->nsegs && !w->in->lists_only; i++) {
		const struct glibc_seg *s = &a->segs[i];

		if (walk_seg(w, a, s, seg_first(w, a, s), top, &sum) < 0)
			return -1;
		w->done += s->end - s->start;
	}
	/* What the chunks do not cover, when the walk covered them all. */
	if (!a->partial[0] && a->nsegs && a->system >= sum &&
	    !w->in->lists_only)
		a->overhead = a->system - sum;
	/* in address order already, unless the segments overlap (garbage) */
	if (!sorted(w->free, w->nfree, sizeof(*w->free), cmp_free))
		qsort(w->free, w->nfree, sizeof(*w->free), cmp_free);
	if (!sorted(w->fast, w->nfast, sizeof(*w->fast), cmp_fast))
		qsort(w->fast, w->nfast, sizeof(*w->fast), cmp_fast);
	cap = a->system / MINSIZE + 1;
	walk_fastbins(w, a, ms, cap);
	if (w->cancelled)
		return -1;
	a->free += a->fsmblks;
	walk_bins(w, a, ms, cap);
	a->in_use = a->system >= a->free ? a->system - a->free : 0;
	return 0;
}

/* ---- the process ---- */

static int add_arena(struct glibc_walk_res *r, size_t *cap, uint64_t addr)
{
	if (r->narenas == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		struct glibc_arena *n = realloc(r->arenas, ncap * sizeof(*n));

		if (!n)
			return -1;
		r->arenas = n;
		*cap = ncap;
	}
	memset(&r->arenas[r->narenas], 0, sizeof(r->arenas[0]));
	r->arenas[r->narenas].addr = addr;
	r->arenas[r->narenas].main = r->narenas == 0;
	r->narenas++;
	return 0;
}

static bool read_mp(struct walk *w, struct glibc_walk_res *r)
{
	const struct glibc_layout *l = &w->in->lay;
	unsigned char mp[256];
	uint64_t hp = 0;
	int32_t n_mmaps;

	if (!walk_ptr_ok(w, w->in->mp, l->mp_size) ||
	    !mcache_copy(&w->pages, w->in->mp, mp, l->mp_size))
		return false;
	memcpy(&n_mmaps, mp + l->mp_n_mmaps, 4);
	r->hblks = n_mmaps < 0 ? 0 : (uint64_t)n_mmaps;
	r->hblkhd = rd64(mp, l->mp_mmapped_mem);
	w->sbrk_base = rd64(mp, l->mp_sbrk_base);
	w->tcache_count = rd64(mp, l->mp_tcache_count);
	if (l->mp_hp_pagesize)
		hp = rd64(mp, l->mp_hp_pagesize);
	/* heap_max_size (): 4 huge pages with glibc.malloc.hugetlb */
	w->heap_max = hp && !(hp & (hp - 1)) && hp <= (1ull << 30)
			      ? hp * 4
			      : HEAP_MAX_DEFAULT;
	return true;
}

static void sum_up(struct glibc_walk_res *r)
{
	size_t i;

	for (i = 0; i < r->narenas; i++) {
		const struct glibc_arena *a = &r->arenas[i];

		r->arena += a->system;
		r->ordblks += a->ordblks;
		r->smblks += a->smblks;
		r->fsmblks += a->fsmblks;
		r->fordblks += a->free;
		r->uordblks += a->in_use;
		r->tcache += a->tcache;
		r->tcache_chunks += a->tcache_chunks;
		r->overhead += a->overhead;
	}
	if (r->narenas)
		r->keepcost = r->arenas[0].top;
}

int glibc_walk(const struct glibc_walk_in *in, const struct glibc_mem *mem,
	       struct glibc_walk_res *res)
{
	struct walk w;
	size_t cap = 0;
	uint64_t a, page = in->page_size ? in->page_size : 4096;
	struct brent br;
	struct glibc_walk_keep *keep = in->lists_only ? in->keep : NULL;
	int rc = -1;

	memset(res, 0, sizeof(*res));
	memset(&w, 0, sizeof(w));
	w.in = in;
	w.res = res;
	w.mem = mem;
	/* the chunk walk's blocks, for the lists alone too: a main arena
	 * that is not contiguous has its segments found by reading chunk
	 * headers (glibc_noncontig.c), which read through them (a cache
	 * left zeroed divided by its page size, 0: SIGFPE under --all);
	 * a block's buffer is allocated when first read */
	if (mcache_init(&w.blocks, mem, 2, GLIBC_WALK_BLOCK, in->page_size,
			false) < 0)
		goto out;
	if (walk_pages_init(&w.pages, mem, page, in->lists_only, keep) < 0)
		goto out;
	if (!read_mp(&w, res)) {
		walk_note(res->partial, sizeof(res->partial),
			  "mp_ at 0x%llx cannot be read",
			  (unsigned long long)in->mp);
		rc = 0;
		goto out;
	}
	res->heap_max = w.heap_max;
	brent_init(&br, in->main_arena);
	for (a = in->main_arena; res->narenas < GLIBC_MAX_ARENAS;) {
		uint64_t next;

		if (add_arena(res, &cap, a) < 0 ||
		    walk_arena(&w, &res->arenas[res->narenas - 1], &next) < 0)
			goto out;
		if (res->empty)
			break;
		if (next == in->main_arena)
			break;
		if (!next || (next & 7) || !brent_step(&br, next) ||
		    res->narenas == GLIBC_MAX_ARENAS) {
			walk_note(res->partial, sizeof(res->partial),
				  "the arena list does not close at "
				  "main_arena (0x%llx after 0x%llx)",
				  (unsigned long long)next,
				  (unsigned long long)a);
			break;
		}
		a = next;
	}
	/* the arenas' own reasons first: they say where the damage is */
	for (size_t i = 0; i < res->narenas; i++)
		if (res->arenas[i].partial[0])
			walk_note(res->partial, sizeof(res->partial),
				  "arena 0x%llx: %s",
				  (unsigned long long)res->arenas[i].addr,
				  res->arenas[i].partial);
	if (!res->empty) {
		if (!in->lists_only &&
		    (walk_tcaches(&w) < 0 || walk_mmapped(&w) < 0))
			goto out;
		sum_up(res);
	}
	if (!in->lists_only &&
	    (res->hblks != res->nmmapped || res->hblkhd != res->mmapped_found))
		walk_note(res->mmapped_note, sizeof(res->mmapped_note),
			  "%zu of %llu mmapped chunks located (%llu of %llu "
			  "bytes)%s",
			  res->nmmapped, (unsigned long long)res->hblks,
			  (unsigned long long)res->mmapped_found,
			  (unsigned long long)res->hblkhd,
			  w.mmapped_bound ? "; the search inside merged "
					    "regions stopped at its bound"
					  : "");
	rc = 0;
out:
	res->bytes_read = w.blocks.bytes_read + w.pages.bytes_read;
	if (w.blocks.oom || w.pages.oom)
		rc = -1;
	free(w.free);
	free(w.fast);
	free(w.tc);
	free(w.present);
	free(w.segoff);
	free(w.segbytes);
	mcache_fini(&w.blocks);
	walk_pages_done(&w.pages, rc == 0 ? keep : NULL);
	return rc;
}

void glibc_walk_fini(struct glibc_walk_res *res)
{
	size_t i;

	for (i = 0; i < res->narenas; i++)
		free(res->arenas[i].segs);
	free(res->arenas);
	free(res->mmapped);
	memset(res, 0, sizeof(*res));
}
