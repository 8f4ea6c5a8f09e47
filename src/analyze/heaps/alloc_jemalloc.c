/* alloc_jemalloc.c — jemalloc 5's heap (alloc_heap.h): its base blocks
 * (2 MiB-aligned metadata blocks, rtheap.h) are found at the 2 MiB
 * boundaries of unclaimed anonymous memory; the extent records inside
 * them point at the extents it has mapped. Every region they point into,
 * and the blocks themselves, become heap.
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

/* One base block: its used bytes, read in chunks (absent pages give short
 * reads: what came is scanned). */
static uint64_t je_block(struct alloc_marks *m, uint64_t a,
			 const struct rtheap_je_base *b, unsigned char *buf,
			 uint64_t budget)
{
	uint64_t off, used = b->used_end - a;

	alloc_mark(m, a, b->size, JE_BASE);
	if (used > budget)
		used = budget;
	for (off = 0; off < used; off += JE_CHUNK) {
		size_t n =
			used - off < JE_CHUNK ? (size_t)(used - off) : JE_CHUNK;
		struct vms_error e;
		ssize_t got = vms_source_read(m->s, a + off, buf, n, &e);

		if (got > 0)
			rtheap_je_extents(buf, (size_t)got, je_in_anon,
					  je_extent, m);
	}
	return used;
}

static uint64_t je_scan_runs(struct alloc_marks *m, unsigned char *buf)
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

int alloc_jemalloc(struct alloc_marks *m, struct vms_allocator *al)
{
	static const char *const details[] = {
		"jemalloc extents", "jemalloc metadata (base block)"
	};
	unsigned char *buf = malloc(JE_CHUNK);
	struct vms_heap *h;

	if (!buf)
		return -1;
	al->metadata = (int64_t)je_scan_runs(m, buf);
	free(buf);
	if (alloc_type(m, al, "jemalloc", details, &h) < 0)
		return -1;
	if (!h)
		al->partial = "no jemalloc base block found in anonymous "
			      "memory (not jemalloc 5, or not yet used)";
	return 0;
}

/* ---- the row (allocators.h) ---- */

static int je_find(struct alloc_marks *m, struct vms_allocator *al,
		   const struct vms_image *im, const void *facts)
{
	(void)im;
	(void)facts;
	return alloc_jemalloc(m, al);
}

/* mallctl, also under the prefixes of copies linked in (je_: Redis's;
 * _rjem_: Rust's tikv-jemallocator). */
static const char *const je_syms[] = { "mallctl", "je_mallctl", "_rjem_mallctl",
				       NULL };

const struct alloc_kind alloc_kind_jemalloc = {
	.name = "jemalloc",
	.syms = je_syms,
	.how = "regions found from its base blocks' extent records; its own "
	       "figures are not read",
	.find = je_find,
};
