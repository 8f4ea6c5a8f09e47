/* alloc_jemalloc.c — jemalloc 5's heap (alloc_heap.h): its base blocks
 * (2 MiB-aligned metadata blocks, rtheap.h) are found at the 2 MiB
 * boundaries of unclaimed anonymous memory; the extent records inside
 * them point at the extents it has mapped (active, dirty, muzzy and
 * retained: with opt.retain, Linux's default, it never unmaps one). The
 * blocks and extents are their own bounds (m->exact): a region wholly
 * one or the other is typed heap whole; one the kernel merged from a
 * block and extents, or with other memory, is split into typed parts
 * (model/parts.h, alloc_type): each block a heap part named as its
 * metadata, each stretch of extents a heap part named so, the rest of
 * the region what it was.
 *
 * Its own figures: what mallctl("stats.*") returns is its ctl_stats, a
 * record it allocates in a base block at its first mallctl call and
 * fills at each "epoch" refresh (allocated, active, metadata,
 * metadata_thp, resident, mapped, retained: 5.x), pointed to by a static
 * of the library's .bss. Found without symbols: the word of the
 * library's writable memory that points into a base block's used bytes
 * at a record whose figures are sane (rtheap_je_stats()); read, never
 * computed, so they are those of the program's last refresh, as mallctl
 * would give them. The heap entry: in use stats.allocated, free
 * stats.active - stats.allocated (free bytes in the pages it has in use),
 * chunks its allocations in use as it counts them (mallctl's
 * stats.arenas.<all>.small and .large nmalloc less ndalloc: its thread
 * caches' too, as stats.allocated), from ctl's merged arena record the
 * same refresh filled (rtheap_je_arena(): 5.3.0's layout, each figure
 * tied to ctl_stats'; another layout: null, and figures_note says so).
 */
#include <stdlib.h>

#include "analyze/heaps/alloc_heap.h"
#include "analyze/rtheap.h"
#include "model/source.h"

/* Metadata read at most: a base block holds some 1% of the heap. */
#define JE_MAX_META (256ull << 20)
#define JE_CHUNK 65536

enum { JE_EXTENT = 1, JE_BASE = 2 };

static bool je_in_anon(void *ctx, uint64_t a, uint64_t size)
{
	struct alloc_marks *m = ctx;

	return rtscan_run_of(m->runs, m->nruns, a, size) != NULL;
}

static int je_extent(void *ctx, uint64_t a, uint64_t size)
{
	alloc_mark(ctx, a, size, JE_EXTENT);
	return 0;
}

/* Bytes of a base block read at once (the source's read of pages: one
 * read of the page tables for them, one a run of pages in RAM). */
#define JE_WINDOW (4 * JE_CHUNK)

/* The bytes of [at, at + n) in RAM from at on, as ok[] (a byte a page
 * from wo) says. */
static size_t je_present(const unsigned char *ok, uint64_t wo, uint64_t at,
			 size_t n, uint64_t page)
{
	size_t got = 0;

	while (got < n && ok[(at + got - wo) / page])
		got += (size_t)page;
	return got < n ? got : n;
}

/* One base block: its used bytes, scanned in chunks. An absent page ends
 * a chunk (a block's pages are touched as it is carved: a large zeroed
 * piece, an rtree's leaves, leaves pages untouched between records):
 * what came is scanned and the next chunk starts after that page, not a
 * chunk on, which would pass over the records in the rest of this one.
 * The chunks are read a window at a time (buf, JE_WINDOW bytes), which
 * tells the absent pages too (a read a page, when the block's tail was
 * never touched: 512 for a 2 MiB block); a chunk that would end past the
 * window starts the next. */
static uint64_t je_block(struct alloc_marks *m, uint64_t a,
			 const struct rtheap_je_base *b, unsigned char *buf,
			 uint64_t budget)
{
	uint64_t page = m->s->cap.page_size ? m->s->cap.page_size : 4096;
	uint64_t off = 0, used = b->used_end - a, wo = 0, wend = 0;
	unsigned char ok[JE_WINDOW / 4096];
	bool paged = false;

	alloc_mark(m, a, b->size, JE_BASE);
	if (used > budget)
		used = budget;
	while (off < used) {
		size_t n =
			used - off < JE_CHUNK ? (size_t)(used - off) : JE_CHUNK;
		size_t got;
		struct vms_error e;

		if (off + n > wend) { /* (off is page-aligned: blocks are) */
			uint64_t len =
				used - off < JE_WINDOW ? used - off : JE_WINDOW;

			wo = off;
			wend = off + len;
			paged = page >= 4096 && JE_WINDOW % page == 0 &&
				vms_source_read_pages(
					m->s, a + off, buf,
					(size_t)((len + page - 1) / page), ok,
					&e) >= 0;
		}
		if (paged) {
			got = je_present(ok, wo, off, n, page);
		} else { /* this chunk alone, as the source reads it */
			ssize_t r = vms_source_read(m->s, a + off,
						    buf + (off - wo), n, &e);

			got = r > 0 ? (size_t)r : 0;
		}
		if (got)
			rtheap_je_extents(buf + (off - wo), got, a + off,
					  je_in_anon, je_extent, m);
		if (got == n) {
			off += n;
			continue;
		}
		/* past the page that was not read (a + off is page-aligned
		 * from here on: blocks are) */
		off += got;
		off = (off / page + 1) * page;
	}
	return used;
}

/* The base blocks' used bytes [start, end), as found. */
struct je_blocks {
	struct vms_heap_seg *v;
	size_t n, cap;
};

static void je_keep(struct je_blocks *bl, uint64_t a, uint64_t end)
{
	if (bl->n == bl->cap) {
		size_t nc = bl->cap ? bl->cap * 2 : 16;
		struct vms_heap_seg *nv = realloc(bl->v, nc * sizeof(*nv));

		if (!nv)
			return; /* a block fewer to look for the stats in */
		bl->v = nv;
		bl->cap = nc;
	}
	bl->v[bl->n++] = (struct vms_heap_seg){ a, end };
}

static uint64_t je_scan_runs(struct alloc_marks *m, unsigned char *buf,
			     struct je_blocks *bl)
{
	uint64_t meta = 0;
	size_t i;

	for (i = 0; i < m->nruns; i++) {
		const struct rtscan_run *run = &m->runs[i];
		uint64_t a = (run->start + RTHEAP_JE_ALIGN - 1) &
			     ~(uint64_t)(RTHEAP_JE_ALIGN - 1);

		/* cancelled: the pipeline stops at the next step */
		if (vms_source_progress(m->s, "finding jemalloc's heap", i,
					m->nruns))
			break;

		while (a < run->end) {
			unsigned char hdr[RTHEAP_JE_HDR];
			struct rtheap_je_base b;
			uint64_t step = RTHEAP_JE_ALIGN;

			if (rtscan_read(m->s, a, hdr, sizeof(hdr)) &&
			    rtheap_je_base(hdr, sizeof(hdr), a, run->end, &b)) {
				meta += je_block(m, a, &b, buf,
						 JE_MAX_META - meta);
				je_keep(bl, a, b.used_end);
				step = (b.size + RTHEAP_JE_ALIGN - 1) &
				       ~(uint64_t)(RTHEAP_JE_ALIGN - 1);
			}
			if (step > UINT64_MAX - a)
				break;
			a += step;
		}
	}
	return meta;
}

/* Bytes of the library's writable memory read at most (5.3: some 2 MiB
 * of .bss). */
#define JE_MAX_RW (64u << 20)

/* [a, a + len) in one block's used bytes (bl in address order, as found:
 * a binary search). */
static bool je_in_blocks(const struct je_blocks *bl, uint64_t a, uint64_t len)
{
	size_t lo = 0, hi = bl->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (bl->v[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < bl->n && a >= bl->v[lo].start && a < bl->v[lo].end &&
	       len <= bl->v[lo].end - a;
}

/* Its ctl_stats through the library's writable memory rw: 1 found
 * (*out), 0 none, 2 more than one record reads so. */
static int je_stats_in(struct alloc_marks *m, const struct je_blocks *bl,
		       const struct rtscan_rw *rw, struct rtheap_je_stats *out)
{
	uint64_t at = 0;
	size_t k, end;
	int found = 0;

	for (k = 0; rtscan_rw_next(rw, &k, &end);)
		for (; k < end; k++) {
			uint64_t v = rw->w[k];
			unsigned char rec[RTHEAP_JE_STATS];
			struct rtheap_je_stats st;

			if (!v || v == at || v % 16 ||
			    !je_in_blocks(bl, v, sizeof(rec)) ||
			    !rtscan_read(m->s, v, rec, sizeof(rec)) ||
			    !rtheap_je_stats(rec, sizeof(rec), &st))
				continue;
			if (found)
				return 2;
			found = 1;
			at = v;
			*out = st;
		}
	return found;
}

/* Counts a real jemalloc can have: no class frees more than it gave, and
 * every block in use holds 8 bytes at least of `allocated` (a target's
 * counters are not taken on trust: they would wrap to a count past
 * INT64_MAX, negative in the report). */
static bool je_plausible(const struct rtheap_je_counts *c, uint64_t allocated)
{
	uint64_t small, large;

	if (c->ndalloc_small > c->nmalloc_small ||
	    c->ndalloc_large > c->nmalloc_large)
		return false;
	small = c->nmalloc_small - c->ndalloc_small;
	large = c->nmalloc_large - c->ndalloc_large;
	return small <= allocated / 8 && large <= allocated / 8 - small;
}

/* Its allocations in use as its merged arena statistics count them
 * (ctl_arenas, a static of the library's .bss pointing at a record in a
 * base block whose fourth word is the merged arena's record:
 * rtheap_je_arena), refreshed with st: true, *n, where exactly one
 * record reads so. */
static bool je_count_in(struct alloc_marks *m, const struct je_blocks *bl,
			const struct rtscan_rw *rw,
			const struct rtheap_je_stats *st, uint64_t *n)
{
	uint64_t at = 0;
	size_t k, end;
	int found = 0;

	for (k = 0; rtscan_rw_next(rw, &k, &end);)
		for (; k < end; k++) {
			uint64_t v = rw->w[k], rec[4];
			unsigned char head[RTHEAP_JE_ARENA_HDR],
				small[RTHEAP_JE_SMALL];
			struct rtheap_je_counts c;

			if (!v || v % 8 || !je_in_blocks(bl, v, sizeof(rec)) ||
			    !rtscan_read(m->s, v, rec, sizeof(rec)) ||
			    !rec[3] || rec[3] == at ||
			    !je_in_blocks(bl, rec[3],
					  RTHEAP_JE_SMALL_AT +
						  RTHEAP_JE_SMALL) ||
			    !rtscan_read(m->s, rec[3], head, sizeof(head)) ||
			    !rtheap_je_arena(head, sizeof(head), rec[3], st,
					     &c) ||
			    !rtscan_read(m->s, rec[3] + RTHEAP_JE_SMALL_AT,
					 small, sizeof(small)) ||
			    !rtheap_je_small(small, sizeof(small), st, &c) ||
			    !je_plausible(&c, st->allocated))
				continue;
			if (found++)
				return false;
			at = rec[3];
			*n = c.nmalloc_small - c.ndalloc_small +
			     c.nmalloc_large - c.ndalloc_large;
		}
	return found == 1;
}

/* Its own figures into al and the heap entry h (may be NULL). */
static int je_figures(struct alloc_marks *m, struct vms_allocator *al,
		      const struct vms_image *im, const struct je_blocks *bl,
		      struct vms_heap *h)
{
	struct rtheap_je_stats st;
	struct rtscan_rw rw;
	uint64_t lo, hi, n = 0;
	bool counted;
	int got;

	if (!im || !rtscan_image_rw(m->s, im, JE_MAX_RW, &lo, &hi)) {
		al->figures_note = "its own figures were not read: the "
				   "library's writable memory was not found";
		return 0;
	}
	/* the pages in RAM alone (5.3: some 40 KB of its 2.2 MB) */
	if (rtscan_rw_read(m->s, lo, hi, &rw) < 0)
		return -1;
	got = je_stats_in(m, bl, &rw, &st);
	counted = got == 1 && je_count_in(m, bl, &rw, &st, &n);
	rtscan_rw_fini(&rw);
	if (got != 1) {
		al->figures_note =
			got == 2
				? "its own figures were not read: more than "
				  "one record in its memory reads as its "
				  "statistics"
				: "its own figures are not known: the program "
				  "has not asked jemalloc for them (no mallctl "
				  "call, so jemalloc has not computed them); "
				  "metadata is its base blocks' bytes alone";
		return 0;
	}
	al->allocated = (int64_t)st.allocated;
	al->active = (int64_t)st.active;
	al->metadata = (int64_t)st.metadata;
	al->resident = (int64_t)st.resident;
	al->mapped = (int64_t)st.mapped;
	al->retained = (int64_t)st.retained;
	al->figures_note =
		counted ? "its statistics as of the program's last refresh "
			  "(mallctl \"epoch\"), as mallctl(\"stats.*\") gives "
			  "them; chunks: its allocations in use, as "
			  "stats.allocated counts them (its merged arenas' "
			  "small and large nmalloc less ndalloc: those in its "
			  "thread caches too)"
			: "its statistics as of the program's last refresh "
			  "(mallctl \"epoch\"), as mallctl(\"stats.*\") gives "
			  "them; chunks unknown: its merged arena statistics "
			  "(their count of allocations) were not found in the "
			  "layout this vmscope reads (5.3.0)";
	if (h) {
		h->in_use = (int64_t)st.allocated;
		h->free = (int64_t)(st.active - st.allocated);
		if (counted)
			h->chunks = (int64_t)n;
	}
	return 0;
}

int alloc_jemalloc(struct alloc_marks *m, struct vms_allocator *al,
		   const struct vms_image *im)
{
	static const char *const details[] = {
		"jemalloc extents", "jemalloc metadata (base block)"
	};
	unsigned char *buf = malloc(JE_WINDOW);
	struct je_blocks bl = { NULL, 0, 0 };
	struct vms_heap *h;
	int rc = -1;

	if (!buf)
		return -1;
	m->exact = true; /* a block, an extent: its own bounds */
	al->metadata = (int64_t)je_scan_runs(m, buf, &bl);
	free(buf);
	if (alloc_type(m, al, "jemalloc", details, &h) < 0)
		goto out;
	if (!h)
		al->partial = "no jemalloc base block found in anonymous "
			      "memory (not jemalloc 5, or not yet used)";
	rc = je_figures(m, al, im, &bl, h);
out:
	free(bl.v);
	return rc;
}

/* ---- the row (allocators.h) ---- */

static int je_find(struct alloc_marks *m, struct vms_allocator *al,
		   const struct vms_image *im, const void *facts)
{
	(void)facts;
	return alloc_jemalloc(m, al, im);
}

/* mallctl, also under the prefixes of copies linked in (je_: Redis's;
 * _rjem_: Rust's tikv-jemallocator). */
static const char *const je_syms[] = { "mallctl", "je_mallctl", "_rjem_mallctl",
				       NULL };

const struct alloc_kind alloc_kind_jemalloc = {
	.name = "jemalloc",
	.syms = je_syms,
	.how = "regions found from its base blocks' extent records; its own "
	       "figures (mallctl's stats.*) read from its statistics record; "
	       "in use: stats.allocated, free: stats.active less that, "
	       "chunks: its allocations in use (nmalloc less ndalloc)",
	.find = je_find,
};
