/* alloc_tcmalloc.c — gperftools tcmalloc's page heap, found through its
 * page map (alloc_heap.h). tcmalloc exports neither: its PageHeap lies in
 * the library's .bss, and in it the page map, a two-level radix tree over
 * the 48-bit address space in pages of 8 KiB (TCMalloc_PageMap2,
 * src/pagemap.h): a root of 2^(35 - L) pointers to leaves of 2^L Span
 * pointers, one per page (every page of a span in use, the first and last
 * of a free one). L has changed between versions (18 in 2.10); page sizes
 * of 32 and 64 KiB are build options. So neither is assumed:
 *
 *  1. Spans the library's .bss links to: its span lists (the page heap's
 *     free lists, the central caches' lists) are rings through sentinel
 *     Spans in .bss, so a word of .bss that points to a Span whose prev
 *     points back to that word less 16 is a list's head, and the Span is
 *     real (start, length).
 *  2. The root: for each page size and L, the .bss word whose leaf holds
 *     such a Span at that Span's own start page, placed so the whole
 *     root lies in the library's writable memory; kept when every Span of
 *     step 1 is found through it at its start page.
 *     (Steps 1 and 2: alloc_tcmalloc_root.c; what the two files share:
 *     alloc_tcmalloc.h.)
 *  3. The walk: every leaf the root points to, its entries (pages never
 *     written read as zeros, where their region has no swap), each
 *     distinct Span read once and checked to hold the page it was found
 *     at (rtheap_tc_span()).
 *
 * What the spans cover is tcmalloc's heap: regions no earlier step
 * claimed are typed Heap; the brk heap (tc_brk below) already is.
 * Per heap entry, its spans: in use (pages handed to size classes or
 * large objects) and on the free lists, normal and returned; their sum
 * is MallocExtension's generic.heap_size.
 * The caches' free objects (central: from the spans here; transfer and
 * thread: alloc_tccache.c) are taken from in_use into free: in_use is
 * the application's bytes, generic.current_allocated_bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/heaps/alloc_heap.h"
#include "analyze/heaps/alloc_tcmalloc.h"
#include "analyze/rtheap.h"
#include "analyze/steps.h"
#include "model/source.h"

/* Its size classes' object sizes: SizeMap's class_to_size_, int32s in its
 * .bss that begin 0, 8, 16, 32, 48 ... 128 (every version and page size
 * since 2.0) and grow to the largest class; exactly one such array. */
static void tc_classes(struct tc_walk *t)
{
	static const uint32_t head[] = {
		0, 8, 16, 32, 48, 64, 80, 96, 112, 128
	};
	const uint32_t *v = (const uint32_t *)t->w;
	size_t n = (t->hi - t->lo) / 4, i, k, found = 0;

	for (i = 0; i + TC_MAX_CLASSES <= n && found < 2; i++) {
		if (memcmp(v + i, head, sizeof(head)) != 0)
			continue;
		if (found++)
			break;
		for (k = 1; k < TC_MAX_CLASSES && v[i + k] > v[i + k - 1]; k++)
			;
		memcpy(t->class_size, v + i, k * 4);
		t->nclass = k;
		t->class_size_at = t->lo + 4 * i;
	}
	if (found != 1)
		t->nclass = 0;
}

struct tc_sums {
	uint64_t in_use, free, spans, free_spans;
	uint64_t central; /* of in_use: the central free lists' */
};

/* A small span in use: what of it is the central free list's (its free
 * objects and the tail no object fits in), its objects handed out
 * (refcount) being the application's or in the thread and transfer
 * caches. */
static void tc_central(struct tc_walk *t, const struct rtheap_tc_span *sp,
		       struct tc_sums *to)
{
	uint64_t bytes = sp->length << t->shift, held;

	if (!sp->sizeclass || sp->location != 0)
		return;
	if (sp->sizeclass >= t->nclass) {
		t->central_bad = true;
		return;
	}
	held = (uint64_t)sp->refcount * t->class_size[sp->sizeclass];
	if (held > bytes)
		t->central_bad = true;
	else {
		t->central += bytes - held;
		to->central += bytes - held;
	}
}

struct found_span {
	uint64_t ptr, page;
};

static int by_ptr(const void *x, const void *y)
{
	const struct found_span *a = x, *b = y;

	if (a->ptr != b->ptr)
		return a->ptr < b->ptr ? -1 : 1;
	return (a->page > b->page) - (a->page < b->page);
}

static int push(struct found_span **v, size_t *n, size_t *cap, uint64_t ptr,
		uint64_t page)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 4096;
		struct found_span *nv = realloc(*v, nc * sizeof(*nv));

		if (!nv)
			return -1;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = (struct found_span){ ptr, page };
	return 0;
}

/* The entries of leaf for pages [p, last] (one leaf's). */
static int leaf_part(struct tc_walk *t, uint64_t leaf, uint64_t p,
		     uint64_t last, uint64_t *buf, size_t bufn,
		     struct found_span **v, size_t *n, size_t *cap,
		     uint64_t *unread)
{
	uint64_t mask = (1ull << t->leaf_bits) - 1, prev = 0;

	while (p <= last) {
		uint64_t k, cnt = last - p + 1 < bufn ? last - p + 1 : bufn;

		if (!rtscan_read_unswapped(t->s, leaf + 8 * (p & mask), buf,
					   cnt * 8)) {
			(*unread)++;
			p += cnt;
			continue;
		}
		for (k = 0; k < cnt; k++) {
			if (!buf[k] || buf[k] == prev)
				continue;
			prev = buf[k];
			if (*n == MAX_SPANS)
				return 1;
			if (push(v, n, cap, buf[k], p + k) < 0)
				return -1;
		}
		p += cnt;
	}
	return 0;
}

/* 3: the leaves' entries for the pages of anonymous memory (the heap's
 * pages are anonymous; a leaf's other entries are of pages not mapped),
 * each span once per run of pages. -1 on out of memory; *capped when
 * there were more than MAX_SPANS. */
static int leaf_entries(struct tc_walk *t, struct found_span **out, size_t *n,
			bool *capped, uint64_t *unread)
{
	const size_t bufn = 8192;
	uint64_t *buf = malloc(bufn * 8);
	struct found_span *v = NULL;
	size_t cap = 0, i;
	int rc = 0;

	*n = 0;
	*capped = false;
	if (!buf)
		return -1;
	for (i = 0; i < t->s->nregions && rc == 0; i++) {
		const struct vms_region *r = &t->s->regions[i];
		uint64_t p = r->start >> t->shift,
			 pend = (r->end - 1) >> t->shift;

		if (!tc_anon_holding(t->s, r->start, vms_region_size(r)) ||
		    (r->start >> 48))
			continue;
		while (p <= pend && rc == 0) {
			uint64_t ri = p >> t->leaf_bits;
			uint64_t last = ((ri + 1) << t->leaf_bits) - 1;
			uint64_t slot = t->root + 8 * ri, leaf;

			if (last > pend)
				last = pend;
			leaf = slot + 8 <= t->hi ? tc_word(t, slot) : 0;
			if (leaf && (leaf % 8 ||
				     !tc_anon_holding(t->s, leaf,
						      8ull << t->leaf_bits)))
				(*unread)++;
			else if (leaf)
				rc = leaf_part(t, leaf, p, last, buf, bufn, &v,
					       n, &cap, unread);
			p = last + 1;
		}
	}
	free(buf);
	if (rc < 0) {
		free(v);
		return -1;
	}
	*capped = rc > 0;
	*out = v;
	return 0;
}

struct placed {
	uint64_t start, length;
};

static int by_start(const void *x, const void *y)
{
	const struct placed *a = x, *b = y;

	return (a->start > b->start) - (a->start < b->start);
}

/* Whether one of the spans (sorted by start, not overlapping) holds page. */
static bool covered(const struct placed *p, size_t n, uint64_t page)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (page < p[mid].start)
			hi = mid;
		else if (page - p[mid].start >= p[mid].length)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/* The spans: each distinct pointer read once and kept when it holds one
 * of the pages it was found at (tcmalloc updates only the first and last
 * entries of a free or large span: the others may still point to a Span
 * since reused for other pages); regions marked; figures summed for the
 * brk heap's spans (brk) and the rest (mapped). An entry no kept span
 * holds is bad. -1 on out of memory. */
static int count_spans(struct tc_walk *t, struct alloc_marks *m,
		       struct found_span *v, size_t n, uint64_t brk_lo,
		       uint64_t brk_hi, struct tc_sums *brk,
		       struct tc_sums *mapped, uint64_t *bad)
{
	struct placed *kept = malloc((n ? n : 1) * sizeof(*kept));
	size_t i, j, k, nkept = 0;

	if (!kept)
		return -1;
	qsort(v, n, sizeof(*v), by_ptr);
	for (i = 0; i < n; i = j) {
		unsigned char b[RTHEAP_TC_SPAN];
		struct rtheap_tc_span sp;
		struct tc_sums *to;
		uint64_t a, bytes;
		bool ok = false;

		for (j = i + 1; j < n && v[j].ptr == v[i].ptr; j++)
			;
		if (v[i].ptr % 8 == 0 &&
		    tc_anon_holding(t->s, v[i].ptr, sizeof(b)) &&
		    rtscan_read(t->s, v[i].ptr, b, sizeof(b)))
			for (k = i; k < j && !ok; k++)
				ok = rtheap_tc_span(b, sizeof(b), v[k].page,
						    t->shift, &sp);
		if (!ok) {
			for (k = i; k < j; k++)
				v[k].ptr |= 1; /* looked at again below */
			continue;
		}
		kept[nkept++] = (struct placed){ sp.start, sp.length };
		a = sp.start << t->shift;
		bytes = sp.length << t->shift;
		to = a >= brk_lo && a < brk_hi ? brk : mapped;
		tc_central(t, &sp, to);
		if (sp.location == 0) {
			to->in_use += bytes;
			to->spans++;
		} else {
			to->free += bytes;
			to->free_spans++;
		}
		if (to == mapped)
			alloc_mark(m, a, bytes, 1);
	}
	qsort(kept, nkept, sizeof(*kept), by_start);
	for (i = 0; i < n; i++)
		if ((v[i].ptr & 1) && !covered(kept, nkept, v[i].page))
			(*bad)++;
	free(kept);
	return 0;
}

/* A heap entry's figures: in use, the application's bytes (its spans in
 * use less the free objects of the caches in them: cached, -1 where not
 * known), free the rest of its spans. */
static void set_figures(struct vms_heap *h, const struct tc_sums *x,
			int64_t cached)
{
	uint64_t app = x->in_use - x->central - (uint64_t)cached;

	h->in_use = cached < 0 || x->central + (uint64_t)cached > x->in_use
			    ? -1
			    : (int64_t)app;
	h->free = h->in_use < 0 ? -1 : (int64_t)(x->free + x->in_use - app);
	h->chunks = (int64_t)x->spans;
	h->free_chunks = (int64_t)x->free_spans;
}

/* The caches beyond the central free lists (alloc_tccache.c), and what
 * follows: the application's bytes, overall (al->allocated) and in each
 * heap entry (*brk_cached, *mapped_cached: the cached bytes in each, -1
 * unknown). all: every span was seen. -1 on out of memory. */
static int tc_caches(struct tc_walk *t, struct vms_allocator *al, bool all,
		     const struct tc_sums *brk, const struct tc_sums *mapped,
		     uint64_t brk_lo, uint64_t brk_hi, int64_t *brk_cached,
		     int64_t *mapped_cached, const char **why)
{
	/* where the objects lie matters only where both have spans */
	struct alloc_tc_in in = {
		.w = t->w,
		.lo = t->lo,
		.hi = t->hi,
		.class_size = t->class_size,
		.nclass = t->nclass,
		.class_size_at = t->class_size_at,
		.brk_lo = brk_lo,
		.brk_hi = brk_hi,
		.place = brk->spans && mapped->spans,
	};
	struct alloc_tc_out out;
	uint64_t cached, in_use = brk->in_use + mapped->in_use;
	bool known;

	*brk_cached = *mapped_cached = -1;
	alloc_tc_caches(t->s, &in, &out);
	if (out.oom)
		return -1;
	al->transfer_cache = out.transfer;
	al->thread_cache = out.thread;
	*why = out.why;
	known = all && al->central_cache >= 0 && out.transfer >= 0 &&
		out.thread >= 0;
	cached = (uint64_t)out.transfer + (uint64_t)out.thread;
	if (!known || cached + (uint64_t)al->central_cache > in_use) {
		if (known)
			*why = "its caches hold more than its spans in use";
		return 0;
	}
	al->allocated =
		(int64_t)(in_use - (uint64_t)al->central_cache - cached);
	if (out.placed && out.brk_cached <= cached) {
		*brk_cached = (int64_t)out.brk_cached;
		*mapped_cached = (int64_t)(cached - out.brk_cached);
	} else if (!brk->spans || !mapped->spans) {
		/* one of them has every span in use */
		*brk_cached = brk->spans ? (int64_t)cached : 0;
		*mapped_cached = brk->spans ? 0 : (int64_t)cached;
	}
	return 0;
}

int alloc_tcmalloc(struct alloc_marks *m, struct vms_allocator *al,
		   const struct vms_image *im, struct vms_heap *brk_heap,
		   const char **why)
{
	static const char *const details[] = { "tcmalloc (page heap)" };
	struct tc_walk t = { .s = m->s };
	struct found_span *v = NULL;
	struct tc_sums brk = { 0 }, mapped = { 0 };
	struct vms_heap *h = NULL;
	uint64_t brk_lo = 0, brk_hi = 0, bad = 0, unread = 0;
	int64_t brk_cached = -1, mapped_cached = -1;
	const char *caches_why = NULL;
	size_t n = 0, i;
	bool capped;
	int rc = -1;

	*why = NULL;
	if (!rtscan_image_rw(m->s, im, MAX_IMAGE_RW, &t.lo, &t.hi)) {
		*why = "the library's writable memory was not found (or "
		       "is over 64 MiB)";
		return 0;
	}
	/* (not read as a whole: zeros, as never written) */
	if (rtscan_rw_read(m->s, t.lo, t.hi, &t.rw) < 0)
		return -1;
	t.w = t.rw.w;
	{
		struct alloc_tc_in in = { .w = t.w, .lo = t.lo, .hi = t.hi };

		alloc_tc_figures(m->s, &in, al);
	}
	tc_classes(&t);
	tc_listed_spans(&t);
	switch (tc_find_root(&t, why)) {
	case -1:
		goto out;
	case 0:
		rc = 0;
		goto out;
	}
	if (leaf_entries(&t, &v, &n, &capped, &unread) < 0)
		goto out;
	for (i = 0; brk_heap && i < brk_heap->nsegs; i++) {
		if (!brk_lo || brk_heap->segs[i].start < brk_lo)
			brk_lo = brk_heap->segs[i].start;
		if (brk_heap->segs[i].end > brk_hi)
			brk_hi = brk_heap->segs[i].end;
	}
	m->exact = true; /* a span is its own bounds */
	if (count_spans(&t, m, v, n, brk_lo, brk_hi, &brk, &mapped, &bad) < 0)
		goto out;
	/* the central free lists, where every span was seen */
	if (t.nclass && !t.central_bad && !capped && !bad && !unread)
		al->central_cache = (int64_t)t.central;
	if (tc_caches(&t, al, !capped && !bad && !unread, &brk, &mapped, brk_lo,
		      brk_hi, &brk_cached, &mapped_cached, &caches_why) < 0)
		goto out;
	/* before alloc_type(), which may move s->heaps */
	/* known, none of its spans there being 0, when all was seen */
	if (brk_heap && ((!capped && !unread) || brk.spans || brk.free_spans))
		set_figures(brk_heap, &brk, brk_cached);
	if (alloc_type(m, al, "tcmalloc", details, &h) < 0)
		goto out;
	if (h)
		set_figures(h, &mapped, mapped_cached);
	if (caches_why && al->figures_note)
		al->figures_note = arena_printf(&m->s->arena, "%s; %s",
						al->figures_note, caches_why);
	if (capped)
		*why = "more spans than are walked: figures partial";
	else if (bad || unread)
		*why = arena_printf(
			&m->s->arena,
			"its page map has %llu entr%s no span holds%s",
			(unsigned long long)bad, bad == 1 ? "y" : "ies",
			unread ? " and parts that could not be read" : "");
	rc = 0;
out:
	free(v);
	rtscan_rw_fini(&t.rw);
	return rc;
}

/* ---- the row (allocators.h): gperftools tcmalloc is the brk heap where
 * glibc's malloc never ran, and what its spans cover, found through its
 * page map (above), beside its own count of the bytes it took from the
 * system (the exported TCMalloc_SystemTaken). ---- */

/* Where gperftools keeps its count of the bytes it took from the system,
 * a variable it exports (TCMalloc_SystemTaken): its runtime address, 0
 * when it has none. */
static uint64_t tc_taken_at(struct vms_snapshot *s, const struct vms_image *im)
{
	struct elfimage_sym sym;
	struct elfimage_src src;
	int fd;
	bool ok = alloc_image_symbol(s, im, "TCMalloc_SystemTaken", &sym, &fd,
				     &src) &&
		  sym.size == sizeof(uint64_t);

	if (fd >= 0)
		close(fd);
	return ok ? im->bias + sym.value : 0;
}

/* That count, read in the snapshot's memory; -1. */
static int64_t tc_system_taken(struct vms_snapshot *s, uint64_t at)
{
	uint64_t v;

	if (!at || !rtscan_read(s, at, &v, sizeof(v)) || v > INT64_MAX)
		return -1;
	return (int64_t)v;
}

/* tcmalloc takes memory with sbrk first: where glibc's malloc never ran,
 * the brk heap is tcmalloc's (*brk_heap then; else NULL). What it maps
 * besides is found through its page map (alloc_tcmalloc.c). */
static const char *tc_brk(struct vms_snapshot *s, struct vms_allocator *al,
			  struct vms_heap **brk_heap)
{
	struct vms_heap *h = NULL;
	size_t i;

	*brk_heap = NULL;
	for (i = 0; i < s->nheaps; i++)
		if (strcmp(s->heaps[i].kind, "glibc-main") == 0)
			h = &s->heaps[i];
	if (h && (!s->glibc || !s->glibc->empty))
		return "the brk heap is glibc's (or not known not to be)";
	if (!h)
		return NULL;
	h->kind = "tcmalloc";
	*brk_heap = h;
	for (i = 0; i < s->nregions; i++)
		if (step_path_is(&s->regions[i], "[heap]")) {
			s->regions[i].detail = "tcmalloc (brk heap)";
			al->heap += vms_region_size(&s->regions[i]);
			al->nregions++;
		}
	return NULL;
}

/* What is not shown of tcmalloc's memory: its own count of the bytes it
 * took from the system (TCMalloc_SystemTaken: it leaves out the bytes it
 * added to align what sbrk gave, some KiB) beside the regions typed its
 * heap, and what the page map's walk could not do. */
static const char *tc_partial(struct vms_snapshot *s,
			      const struct vms_allocator *al,
			      const char *brk_why, const char *map_why)
{
	char missing[160] = "";
	const char *taken = al->system < 0
				    ? "its count of bytes taken from the "
				      "system (TCMalloc_SystemTaken) could "
				      "not be read"
				    : "";

	if (al->system > 0 && (uint64_t)al->system > al->heap)
		snprintf(missing, sizeof(missing),
			 "%llu of the %llu bytes it took from the system are "
			 "not located",
			 (unsigned long long)((uint64_t)al->system - al->heap),
			 (unsigned long long)al->system);
	if (!*taken && !*missing && !brk_why && !map_why)
		return NULL;
	return arena_printf(&s->arena, "%s%s%s%s%s%s%s", taken,
			    *taken && *missing ? "; " : "", missing,
			    (*taken || *missing) && brk_why ? "; " : "",
			    brk_why ? brk_why : "",
			    (*taken || *missing || brk_why) && map_why ? "; "
								       : "",
			    map_why ? map_why : "");
}

/* Read from its file before the hold. */
struct tc_facts {
	uint64_t taken_at; /* TCMalloc_SystemTaken's address, 0 */
};

static void tc_facts(struct vms_snapshot *s, const struct vms_image *im,
		     void *facts)
{
	struct tc_facts *f = facts;

	f->taken_at = tc_taken_at(s, im);
}

static int tc_find(struct alloc_marks *m, struct vms_allocator *al,
		   const struct vms_image *im, const void *facts)
{
	const struct tc_facts *f = facts;
	struct vms_heap *brk_heap = NULL;
	const char *brk_why, *map_why;
	int rc;

	al->system = tc_system_taken(m->s, f->taken_at);
	brk_why = tc_brk(m->s, al, &brk_heap);
	rc = alloc_tcmalloc(m, al, im, brk_heap, &map_why);
	if (rc == 0)
		al->partial = tc_partial(m->s, al, brk_why, map_why);
	return rc;
}

static const char *const tc_syms[] = {
	"MallocExtension_GetNumericProperty",
	"tc_malloc",
	NULL,
};

const struct alloc_kind alloc_kind_tcmalloc = {
	.name = "tcmalloc",
	.syms = tc_syms,
	.how = "the brk heap (glibc's malloc never ran) and its spans "
	       "through its page map; in use: the application's bytes (spans "
	       "in use less the free objects its caches hold), free: the "
	       "rest of its spans",
	.facts = tc_facts,
	.facts_size = sizeof(struct tc_facts),
	.find = tc_find,
};
