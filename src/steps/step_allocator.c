/* step_allocator.c — the "allocator" step: which allocator the process's
 * malloc is, from the dynamic symbols of its images (the executable first,
 * as the dynamic linker looks): the image that defines malloc, and what
 * else it exports (mallctl: jemalloc; MallocExtension_*: gperftools
 * tcmalloc; mi_malloc: mimalloc; gnu_get_libc_version: glibc). A jemalloc
 * linked in under a prefix (je_mallctl, as Redis's own copy) is reported
 * too, without providing malloc. Fills s->allocator, or leaves it NULL
 * when the process has only glibc's malloc.
 *
 * jemalloc's heap (5.x), with memory: its base blocks (2 MiB-aligned
 * metadata blocks, rtheap.h) are found at the 2 MiB boundaries of
 * unclaimed anonymous memory; the extent records inside them point at
 * the extents it has mapped. Every region they point into, and the blocks
 * themselves, become heap. tcmalloc's and mimalloc's regions are not
 * recognised (their layout cannot be read without symbols): said in
 * s->allocator->partial. See steps.h.
 */
#include <stdlib.h>
#include <string.h>

#include "rtheap.h"
#include "rtscan.h"
#include "source.h"
#include "steps.h"

/* Metadata read at most: a base block holds some 1% of the heap. */
#define JE_MAX_META (256ull << 20)
#define JE_CHUNK 65536

static const struct {
	const char *sym, *name;
} sigs[] = {
	{ "mallctl", "jemalloc" },
	{ "je_mallctl", "jemalloc" },
	{ "_rjem_mallctl", "jemalloc" },
	{ "MallocExtension_GetNumericProperty", "tcmalloc" },
	{ "tc_malloc", "tcmalloc" },
	{ "mi_malloc", "mimalloc" },
	{ "gnu_get_libc_version", "glibc" },
};
#define NSIGS (sizeof(sigs) / sizeof(sigs[0]))

struct je_scan {
	struct vms_snapshot *s;
	const struct rtscan_run *runs;
	size_t nruns;
	uint8_t *mark; /* per region: 1 extent, 2 base block */
	size_t extents;
};

static void mark_range(struct je_scan *j, uint64_t a, uint64_t len, uint8_t how)
{
	const struct rtscan_run *run = rtscan_run_of(j->runs, j->nruns, a, len);
	size_t i;

	if (!run)
		return;
	for (i = run->first; i <= run->last; i++) {
		const struct vms_region *r = &j->s->regions[i];

		if (r->start < a + len && a < r->end && j->mark[i] < how)
			j->mark[i] = how;
	}
}

static bool je_in_anon(void *ctx, uint64_t a, uint64_t size)
{
	struct je_scan *j = ctx;

	return rtscan_run_of(j->runs, j->nruns, a, size) != NULL;
}

static int je_extent(void *ctx, uint64_t a, uint64_t size)
{
	struct je_scan *j = ctx;

	j->extents++;
	mark_range(j, a, size, 1);
	return 0;
}

/* One base block: its used bytes, read in chunks (absent pages give short
 * reads: what came is scanned). */
static uint64_t je_block(struct je_scan *j, uint64_t a,
			 const struct rtheap_je_base *b, unsigned char *buf,
			 uint64_t budget)
{
	uint64_t off, used = b->used_end - a;

	mark_range(j, a, b->size, 2);
	if (used > budget)
		used = budget;
	for (off = 0; off < used; off += JE_CHUNK) {
		size_t n =
			used - off < JE_CHUNK ? (size_t)(used - off) : JE_CHUNK;
		struct vms_error e;
		ssize_t got = vms_source_read(j->s, a + off, buf, n, &e);

		if (got > 0)
			rtheap_je_extents(buf, (size_t)got, je_in_anon,
					  je_extent, j);
	}
	return used;
}

static uint64_t je_scan_runs(struct je_scan *j, unsigned char *buf)
{
	uint64_t meta = 0;
	size_t i;

	for (i = 0; i < j->nruns; i++) {
		const struct rtscan_run *run = &j->runs[i];
		uint64_t a = (run->start + RTHEAP_JE_ALIGN - 1) &
			     ~(uint64_t)(RTHEAP_JE_ALIGN - 1);

		/* cancelled: the pipeline stops at the next step */
		if (vms_source_progress(j->s, "finding jemalloc's heap", i,
					j->nruns))
			break;

		while (a < run->end) {
			unsigned char hdr[RTHEAP_JE_HDR];
			struct rtheap_je_base b;
			uint64_t step = RTHEAP_JE_ALIGN;

			if (rtscan_read(j->s, a, hdr, sizeof(hdr)) &&
			    rtheap_je_base(hdr, sizeof(hdr), a, run->end, &b)) {
				meta += je_block(j, a, &b, buf,
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

/* The marked regions become heap, one s->heaps entry "jemalloc" with
 * them as segments (adjacent ones joined). */
static int je_type(struct je_scan *j, struct vms_allocator *al)
{
	struct vms_snapshot *s = j->s;
	struct vms_heap *nh, *h;
	size_t i, nseg = 0;

	for (i = 0; i < s->nregions; i++)
		nseg += j->mark[i] != 0;
	if (!nseg)
		return 0;
	nh = arena_alloc(&s->arena, (s->nheaps + 1) * sizeof(*nh));
	if (!nh)
		return -1;
	if (s->nheaps)
		memcpy(nh, s->heaps, s->nheaps * sizeof(*nh));
	h = &nh[s->nheaps];
	memset(h, 0, sizeof(*h));
	h->kind = "jemalloc";
	h->in_use = h->free = h->chunks = h->free_chunks = h->top = h->mmapped =
		-1;
	h->segs = arena_alloc(&s->arena, nseg * sizeof(*h->segs));
	if (!h->segs)
		return -1;
	for (i = 0; i < s->nregions; i++) {
		struct vms_region *r = &s->regions[i];

		if (!j->mark[i])
			continue;
		r->type = VMS_T_HEAP;
		r->detail = j->mark[i] == 2 ? "jemalloc metadata (base block)"
					    : "jemalloc extents";
		al->heap += vms_region_size(r);
		al->nregions++;
		if (h->nsegs && h->segs[h->nsegs - 1].end == r->start) {
			h->segs[h->nsegs - 1].end = r->end;
			continue;
		}
		h->segs[h->nsegs++] = (struct vms_heap_seg){ r->start, r->end };
	}
	h->id = h->segs[0].start;
	s->heaps = nh;
	s->nheaps++;
	return 0;
}

static int je_heap(struct vms_snapshot *s, struct vms_allocator *al)
{
	struct je_scan j = { s, NULL, 0, NULL, 0 };
	unsigned char *buf = malloc(JE_CHUNK);
	bool oom;
	int rc = -1;

	j.runs = rtscan_runs(s, &j.nruns, &oom);
	j.mark = calloc(s->nregions ? s->nregions : 1, 1);
	if (oom || !buf || !j.mark)
		goto out;
	vms_source_hold(s, true);
	al->metadata = (int64_t)je_scan_runs(&j, buf);
	rc = je_type(&j, al);
	if (rc == 0 && !al->nregions)
		al->partial = "no jemalloc base block found in anonymous "
			      "memory (not jemalloc 5, or not yet used)";
out:
	free(buf);
	free(j.mark);
	return rc;
}

/* The allocator im has (any image when im is NULL; glibc left out). */
static const char *sig_of(struct vms_snapshot *s, const struct vms_image *im,
			  const char **found_by, const struct vms_image **at)
{
	const char *names[NSIGS + 1];
	size_t k, n = 0, w;

	for (k = 0; k < NSIGS; k++)
		if (im || strcmp(sigs[k].name, "glibc") != 0)
			names[n++] = sigs[k].sym;
	names[n] = NULL;
	if (im ? !rtscan_image_defines(s, im, names, &w)
	       : !(im = rtscan_defines(s, names, &w)))
		return NULL;
	*at = im;
	*found_by = names[w];
	for (k = 0; strcmp(sigs[k].sym, names[w]) != 0; k++)
		;
	return sigs[k].name;
}

/* The image whose malloc the process calls: the executable's own, else
 * the one of a library with a known allocator, else (NULL) libc's. The
 * dynamic linker takes the executable, then preloads and libraries
 * breadth first; libc comes after the allocator a program links. */
static const struct vms_image *malloc_image(struct vms_snapshot *s,
					    const char **name,
					    const char **found_by,
					    const struct vms_image **at)
{
	static const char *const mal[] = { "malloc", NULL };
	size_t pass, i, w;

	*name = NULL;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < s->nimages; i++) {
			const struct vms_image *im = &s->images[i];
			bool exe = s->proc.exe && im->path &&
				   strcmp(im->path, s->proc.exe) == 0;

			if (exe != (pass == 0) ||
			    !rtscan_image_defines(s, im, mal, &w))
				continue;
			*name = sig_of(s, im, found_by, at);
			if (exe || (*name && strcmp(*name, "glibc") != 0))
				return im;
		}
	*name = NULL;
	return NULL;
}

int step_allocator_run(struct vms_snapshot *s, unsigned have,
		       struct vms_error *err)
{
	const struct vms_image *prov, *at = NULL;
	struct vms_allocator *al;
	const char *name, *found_by = NULL;

	s->allocator = NULL;
	if (!(have & VMS_SRC_MEMORY)) {
		/* a snapshot file kept what was found with memory */
		int k = vms_source_restore(s, "allocator", err);

		if (k != 0)
			return k < 0 ? -1 : 0;
	}
	prov = malloc_image(s, &name, &found_by, &at);
	if (!name || strcmp(name, "glibc") == 0) {
		/* glibc's malloc; a jemalloc under a prefix beside it? */
		name = sig_of(s, NULL, &found_by, &at);
		if (!name)
			return 0;
		prov = NULL;
	}
	al = arena_alloc(&s->arena, sizeof(*al));
	if (!al)
		return step_nomem(err, "allocator");
	memset(al, 0, sizeof(*al));
	al->name = name;
	al->found_by = found_by;
	al->provides_malloc = prov != NULL;
	al->metadata = -1;
	al->image = at->path;
	s->allocator = al;
	if (strcmp(name, "jemalloc") != 0) {
		al->partial = "its regions are not recognised without symbols";
		return 0;
	}
	if (!(have & VMS_SRC_MEMORY)) {
		al->partial = "its heap was not looked for: no memory to read";
		return 0;
	}
	if (je_heap(s, al) < 0) {
		vms_source_hold(s, false);
		return step_nomem(err, "allocator");
	}
	vms_source_hold(s, false);
	return 0;
}
