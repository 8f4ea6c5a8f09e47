/* step_v8.c — the "v8" step: V8's heap pages (node, and any program that
 * exports V8's API), found by their page header (rtheap.h) at the
 * 256 KiB-aligned addresses of anonymous memory no step before claimed.
 * A region its pages fill becomes a managed heap, its detail the
 * isolate's heap and how many pages begin there; one they cover in part
 * (the kernel merged a page's mapping with other memory, or a code
 * page's end lies in the code range's reservation) is split into typed
 * parts (model/parts.h): each stretch of pages a managed heap part with
 * its figures from the page tables of its range, counted in its
 * isolate's reserved and committed like a region. One
 * s->managed entry of runtime "v8" per isolate (the Heap its pages name;
 * the shared read-only space's pages, which name none, are counted with
 * the first isolate): [start, end) from its first region to its last,
 * reserved and committed those of its regions (totals.h: the Managed Heap
 * row's figures, so the two agree; V8's own count, heapTotal, is its
 * spaces' capacities), parts = its spaces (named as
 * getHeapSpaceStatistics() names them, rtheap_v8_space) with their pages'
 * bytes (capacity) and the bytes allocated on them (used; null where the
 * pages do not say: new space, V8 12's code and trusted space), figures
 * "V8 page headers"; a page V8 freed and has not unmapped yet is in the
 * isolate's regions but in no space (its detail counts them). Map space
 * (V8 before 11) is told from old space by its space object's id
 * (rtheap_v8_owner_id).
 * A code-space page's header (8 KiB, rw) lies apart from its body (rwx)
 * behind a guard page (---p): a page may reach past the run of readable
 * memory it starts in, over the anonymous regions adjacent to it whatever
 * their protection, and those it covers are typed with it. Needs memory;
 * reads 80 bytes per 256 KiB of unclaimed anonymous memory and 24 per
 * space, all in one hold of the target. The gate is the image that
 * exports v8::Isolate::New: no other process is looked into. Measured on
 * node 18, 20 and 22 (V8 10.2, 11.3, 12.4; no pointer compression); a
 * pointer compression cage is not recognised as such yet. Node maps its
 * pages MADV_DONTFORK: the fork sampler's clone does not have them (a note
 * says so). See steps.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/rtheap.h"
#include "analyze/rtscan.h"
#include "analyze/steps.h"
#include "model/parts.h"
#include "model/source.h"

struct v8_pages {
	struct rtheap_v8_page *p;
	uint64_t *base;
	size_t n, cap;
};

static int add_page(struct v8_pages *v, uint64_t base,
		    const struct rtheap_v8_page *p)
{
	if (v->n == v->cap) {
		size_t nc = v->cap ? v->cap * 2 : 256;
		struct rtheap_v8_page *np = realloc(v->p, nc * sizeof(*np));
		uint64_t *nb;

		if (!np)
			return -1;
		v->p = np;
		nb = realloc(v->base, nc * sizeof(*nb));
		if (!nb)
			return -1;
		v->base = nb;
		v->cap = nc;
	}
	v->p[v->n] = *p;
	v->base[v->n++] = base;
	return 0;
}

/* Where a page starting in run may end at most: the end of the private
 * anonymous regions no step claimed that follow the run, readable or not
 * (a code page's guard and body). *last gets the last of them. */
static uint64_t reach_end(const struct vms_snapshot *s,
			  const struct rtscan_run *run, size_t *last)
{
	size_t k = run->last + 1;
	uint64_t end = run->end;

	while (k < s->nregions && s->regions[k].start == end &&
	       !s->regions[k].path &&
	       !(s->regions[k].perms & VMS_PERM_SHARED) &&
	       s->regions[k].type == VMS_T_PRIVATE_DATA)
		end = s->regions[k++].end;
	*last = k - 1;
	return end;
}

static int scan_run(struct vms_snapshot *s, const struct rtscan_run *run,
		    struct v8_pages *v)
{
	size_t last;
	uint64_t reach = reach_end(s, run, &last);

	uint64_t a = (run->start + RTHEAP_V8_ALIGN - 1) &
		     ~(uint64_t)(RTHEAP_V8_ALIGN - 1);

	while (a < run->end && run->end - a >= 4096) {
		unsigned char hdr[RTHEAP_V8_HDR];
		struct rtheap_v8_page p;
		uint64_t step = RTHEAP_V8_ALIGN;

		if (rtscan_read(s, a, hdr, sizeof(hdr)) &&
		    rtheap_v8_page(hdr, sizeof(hdr), a, reach, &p)) {
			ptrdiff_t k = vms_snapshot_find_index(s, p.area_start);

			p.exec_area =
				k >= 0 && (s->regions[k].perms & VMS_PERM_X);
			if (add_page(v, a, &p) < 0)
				return -1;
			step = (p.size + RTHEAP_V8_ALIGN - 1) &
			       ~(uint64_t)(RTHEAP_V8_ALIGN - 1);
		}
		if (step > UINT64_MAX - a)
			break;
		a += step;
	}
	return 0;
}

/* One isolate's heap (its pages carry its Heap's address): the regions
 * its pages make a managed heap, and per space (rtheap_v8_spaces) the
 * bytes of its pages and the bytes allocated on them (-1: not known for
 * one of them). */
struct v8_iso {
	uint64_t heap, start, end, reserved, committed;
	size_t pages, large;
	uint64_t freed, freed_bytes; /* pages V8 freed, not yet unmapped */
	uint64_t space_bytes[RTHEAP_V8_NSPACES];
	int64_t space_used[RTHEAP_V8_NSPACES];
};

struct v8_isos {
	struct v8_iso *i;
	size_t n, cap;
};

static struct v8_iso *iso_of(struct v8_isos *v, uint64_t heap)
{
	size_t k;

	for (k = 0; k < v->n; k++)
		if (v->i[k].heap == heap)
			return &v->i[k];
	if (v->n == v->cap) {
		size_t nc = v->cap ? v->cap * 2 : 4;
		struct v8_iso *ni = realloc(v->i, nc * sizeof(*ni));

		if (!ni)
			return NULL;
		v->i = ni;
		v->cap = nc;
	}
	memset(&v->i[v->n], 0, sizeof(v->i[v->n]));
	v->i[v->n].heap = heap;
	v->i[v->n].start = UINT64_MAX;
	return &v->i[v->n++];
}

static void iso_page(struct v8_iso *iso, const struct rtheap_v8_page *p)
{
	unsigned k = rtheap_v8_space(p);
	int64_t used = rtheap_v8_used(p);

	if (rtheap_v8_freed(p)) { /* in no space: in the isolate's memory */
		iso->freed++;
		iso->freed_bytes += p->size;
		return;
	}
	/* a space's capacity: its pages whole (a code page ends in a guard
	 * inside the code range's reservation) */
	iso->space_bytes[k] += p->size;
	if (iso->space_used[k] >= 0)
		iso->space_used[k] = used < 0 ? -1 : iso->space_used[k] + used;
	iso->pages++;
	iso->large += p->size > RTHEAP_V8_ALIGN;
}

/* Pages' bytes in r; how many pages begin there; the isolate of the first
 * that says its heap (0: only read-only pages). */
struct v8_share {
	uint64_t bytes, heap;
	size_t pages;
};

static void share_of(const struct v8_pages *v, size_t from, size_t to,
		     const struct vms_region *r, struct v8_share *sh)
{
	size_t i;

	memset(sh, 0, sizeof(*sh));
	for (i = from; i < to; i++) {
		uint64_t b = v->base[i], e = b + v->p[i].size;
		uint64_t lo = b > r->start ? b : r->start;
		uint64_t hi = e < r->end ? e : r->end;

		if (lo >= hi)
			continue;
		sh->bytes += hi - lo;
		if (b < r->start)
			continue;
		if (!sh->heap)
			sh->heap = v->p[i].heap;
		sh->pages++;
	}
}

/* Types regions [first, last] (a page's pieces: its regions where no
 * page begins follow the one where it does) and adds them and the pages
 * that begin there to their isolates (each page to its own; the regions
 * to the first page's). */
static int emit(struct vms_snapshot *s, const struct v8_pages *v, size_t from,
		size_t to, size_t first, size_t last, struct v8_isos *isos)
{
	struct vms_region span = { .start = s->regions[first].start,
				   .end = s->regions[last].end };
	struct v8_share sh;
	struct v8_iso *iso;
	const char *detail;
	size_t i;

	share_of(v, from, to, &span, &sh);
	detail = arena_printf(&s->arena, "v8 heap 0x%llx: %zu page%s",
			      (unsigned long long)sh.heap, sh.pages,
			      sh.pages == 1 ? "" : "s");
	iso = iso_of(isos, sh.heap);
	if (!detail || !iso)
		return -1;
	for (i = first; i <= last; i++) {
		s->regions[i].type = VMS_T_MANAGED_HEAP;
		s->regions[i].detail = detail;
		iso->reserved += vms_region_size(&s->regions[i]);
		iso->committed += vms_region_committed(&s->regions[i]);
	}
	if (span.start < iso->start)
		iso->start = span.start;
	if (span.end > iso->end)
		iso->end = span.end;
	for (i = from; i < to; i++) {
		struct v8_iso *own;

		if (v->base[i] < span.start || v->base[i] >= span.end)
			continue;
		own = v->p[i].heap == sh.heap ? iso
					      : iso_of(isos, v->p[i].heap);
		if (!own)
			return -1;
		iso = iso_of(isos, sh.heap); /* iso_of may move the array */
		iso_page(own, &v->p[i]);
	}
	return 0;
}

/* The isolate of the page v[from, to) that holds a (0: none, or the
 * read-only space's). */
static uint64_t heap_at(const struct v8_pages *v, size_t from, size_t to,
			uint64_t a)
{
	size_t i;

	for (i = from; i < to && v->base[i] <= a; i++)
		if (a - v->base[i] < v->p[i].size)
			return v->p[i].heap;
	return 0;
}

/* Region r, which the pages v[from, to) cover in part (the kernel merged
 * V8's mappings with other memory), split into typed parts
 * (model/parts.h): each stretch of pages a managed heap part named for
 * its isolate, its figures from the page tables of its range; the
 * stretches and the pages that begin there added to their isolates (as
 * emit()). 0, or -1 on out of memory. */
static int emit_parts(struct vms_snapshot *s, const struct v8_pages *v,
		      size_t from, size_t to, struct vms_region *r,
		      struct v8_isos *isos)
{
	struct vms_part_spec *sp = malloc((to - from) * sizeof(*sp));
	unsigned char *buf = malloc(4096);
	uint64_t covered = 0;
	size_t i, n = 0, k;
	int rc = -1;

	if (!sp || !buf)
		goto out;
	for (i = from; i < to; i++) { /* pages by address */
		uint64_t b = v->base[i], e = b + v->p[i].size;
		uint64_t lo = b > r->start ? b : r->start;
		uint64_t hi = e < r->end ? e : r->end;

		if (lo >= hi)
			continue;
		if (n && lo <= sp[n - 1].end) {
			if (hi > sp[n - 1].end)
				sp[n - 1].end = hi;
			continue;
		}
		sp[n++] = (struct vms_part_spec){ .start = lo,
						  .end = hi,
						  .type = VMS_T_MANAGED_HEAP,
						  .rss = -1,
						  .swap = -1,
						  .priv = -1 };
	}
	for (k = 0; k < n; k++) {
		struct vms_region span = { .start = sp[k].start,
					   .end = sp[k].end };
		struct vms_part_fig f;
		struct v8_share sh;

		share_of(v, from, to, &span, &sh);
		sp[k].name =
			sh.pages ? arena_printf(&s->arena,
						"v8 heap 0x%llx: %zu page%s",
						(unsigned long long)sh.heap,
						sh.pages,
						sh.pages == 1 ? "" : "s")
				 : arena_printf(
					   &s->arena,
					   "v8 heap 0x%llx: a page's end",
					   (unsigned long long)heap_at(
						   v, from, to, sp[k].start));
		if (!sp[k].name)
			goto out;
		if (vms_parts_measure(s, sp[k].start, sp[k].end, buf, 4096,
				      &f)) {
			sp[k].rss = f.rss;
			sp[k].swap = f.swap;
			sp[k].priv = f.priv;
		}
		covered += sp[k].end - sp[k].start;
	}
	if (!n) {
		rc = 0;
		goto out;
	}
	if (vms_parts_set(s, r, sp, n) == -1)
		goto out;
	r->detail = arena_printf(&s->arena, "holds v8 heap pages (%llu K)",
				 (unsigned long long)(covered >> 10));
	if (!r->detail)
		goto out;
	for (k = 0; k < r->nchildren; k++) {
		const struct vms_region *p = r->children[k].part;
		struct vms_region span = { .start = p->start, .end = p->end };
		struct v8_share sh;
		struct v8_iso *iso;

		share_of(v, from, to, &span, &sh);
		iso = iso_of(isos, sh.pages ? sh.heap
					    : heap_at(v, from, to, p->start));
		if (!iso)
			goto out;
		iso->reserved += vms_region_size(p);
		iso->committed += vms_region_committed(p);
		if (p->start < iso->start)
			iso->start = p->start;
		if (p->end > iso->end)
			iso->end = p->end;
		for (i = from; i < to; i++) {
			struct v8_iso *own;

			if (v->base[i] < p->start || v->base[i] >= p->end)
				continue;
			own = iso_of(isos, v->p[i].heap);
			if (!own)
				goto out;
			iso_page(own, &v->p[i]);
		}
	}
	rc = 0;
out:
	free(sp);
	free(buf);
	return rc;
}

static int type_regions(struct vms_snapshot *s, const struct rtscan_run *run,
			const struct v8_pages *v, size_t from, size_t to,
			struct v8_isos *isos)
{
	size_t i, last, first = SIZE_MAX, prev = 0;

	(void)reach_end(s, run, &last);
	for (i = run->first; i <= last; i++) {
		struct vms_region *r = &s->regions[i];
		struct v8_share sh;
		bool mine, more;

		share_of(v, from, to, r, &sh);
		/* V8 maps each page alone, and neighbours merge: a region
		 * its pages fill is a managed heap; one they cover in part
		 * (merged with other memory) is split into parts */
		mine = sh.bytes && sh.bytes == vms_region_size(r);
		more = mine && !sh.pages && first != SIZE_MAX && prev == i - 1;
		if (first != SIZE_MAX && !more) {
			if (emit(s, v, from, to, first, prev, isos) < 0)
				return -1;
			first = SIZE_MAX;
		}
		if (sh.bytes && !mine && !r->nchildren &&
		    emit_parts(s, v, from, to, r, isos) < 0)
			return -1;
		if (!mine)
			continue;
		if (first == SIZE_MAX)
			first = i;
		prev = i;
	}
	return first != SIZE_MAX ? emit(s, v, from, to, first, prev, isos) : 0;
}

/* V8 before 11 keeps its Maps in a space of their own, whose pages are
 * otherwise old space's kind (not young, not executable): of the owners
 * of such pages in one isolate (at most V8_OWNERS are looked at), one
 * whose space object says MAP_SPACE, beside another (old space), is the
 * map space (V8 11 and later have one such owner). Reads 24 bytes per
 * owner. */
#define V8_OWNERS 8

static void map_space(struct vms_snapshot *s, struct v8_pages *v)
{
	struct {
		uint64_t owner, heap;
		int id;
	} o[V8_OWNERS];
	size_t i, j, n = 0;

	for (i = 0; i < v->n && n < V8_OWNERS; i++) {
		unsigned char buf[RTHEAP_V8_OWNER];

		if (rtheap_v8_space(&v->p[i]) != RTHEAP_V8_OLD)
			continue;
		for (j = 0; j < n && o[j].owner != v->p[i].owner; j++)
			;
		if (j < n)
			continue;
		o[n].owner = v->p[i].owner;
		o[n].heap = v->p[i].heap;
		o[n++].id = rtscan_read(s, v->p[i].owner, buf, sizeof(buf))
				    ? rtheap_v8_owner_id(buf, sizeof(buf),
							 v->p[i].heap)
				    : -1;
	}
	for (j = 0; j < n; j++) {
		bool other = false;

		for (i = 0; i < n; i++)
			other |= i != j && o[i].heap == o[j].heap &&
				 o[i].id != RTHEAP_V8_MAP_ID;
		if (o[j].id != RTHEAP_V8_MAP_ID || !other)
			continue;
		for (i = 0; i < v->n; i++)
			if (v->p[i].owner == o[j].owner &&
			    rtheap_v8_space(&v->p[i]) == RTHEAP_V8_OLD)
				v->p[i].map_space = true;
	}
}

/* ", N pages (K) freed by V8, not yet unmapped", or "" (on out of
 * memory too: the figures stand without it). */
static const char *freed_note(struct vms_snapshot *s, const struct v8_iso *iso)
{
	const char *n;

	if (!iso->freed)
		return "";
	n = arena_printf(&s->arena,
			 ", %llu page%s (%llu K) freed by V8, not yet unmapped",
			 (unsigned long long)iso->freed,
			 iso->freed == 1 ? "" : "s",
			 (unsigned long long)(iso->freed_bytes >> 10));
	return n ? n : "";
}

/* The managed entries: one per isolate, its spaces as parts with their
 * capacity (pages' bytes) and bytes in use as V8 counts them; its used
 * their sum, -1 if one is unknown (new space: a semispace page does not
 * say how full it is). The shared read-only space (pages of no isolate)
 * is counted with the first isolate found that has pages in its spaces.
 * reserved and committed are those of the regions the pages make a
 * managed heap (totals.h), so the Managed Heap row and the entries agree. A page V8 has freed and not
 * yet unmapped (rtheap_v8_freed) is in its isolate's regions, committed,
 * but in no space, as V8 counts it: the detail says how many. */
static int add_entries(struct vms_snapshot *s, struct v8_isos *isos)
{
	struct v8_iso *ro = NULL, *first = NULL;
	size_t i;
	unsigned k;

	for (i = 0; i < isos->n; i++) {
		if (!isos->i[i].heap)
			ro = &isos->i[i];
		else if (!first && isos->i[i].pages)
			first = &isos->i[i]; /* one with pages in its spaces */
	}
	if (ro && first) {
		for (k = 0; k < RTHEAP_V8_NSPACES; k++) {
			first->space_bytes[k] += ro->space_bytes[k];
			if (first->space_used[k] >= 0)
				first->space_used[k] =
					ro->space_used[k] < 0
						? -1
						: first->space_used[k] +
							  ro->space_used[k];
		}
		first->reserved += ro->reserved;
		first->committed += ro->committed;
		first->pages += ro->pages;
		first->freed += ro->freed;
		first->freed_bytes += ro->freed_bytes;
		first->start =
			ro->start < first->start ? ro->start : first->start;
		first->end = ro->end > first->end ? ro->end : first->end;
		ro->pages = 0;
		ro->freed = 0;
	}
	for (i = 0; i < isos->n; i++) {
		struct v8_iso *iso = &isos->i[i];
		struct vms_managed_part *p;
		struct vms_managed m;
		unsigned n = 0;

		if (!iso->pages && !iso->freed)
			continue;
		p = arena_alloc(&s->arena, RTHEAP_V8_NSPACES * sizeof(*p));
		if (!p)
			return -1;
		m = (struct vms_managed){ .runtime = "v8",
					  .start = iso->start,
					  .end = iso->end,
					  .reserved = iso->reserved,
					  .committed = iso->committed,
					  .used = 0,
					  .figures = "V8 page headers" };
		for (k = 0; k < RTHEAP_V8_NSPACES; k++) {
			if (!iso->space_bytes[k])
				continue;
			p[n++] = (struct vms_managed_part){
				rtheap_v8_spaces[k],
				(int64_t)iso->space_bytes[k],
				iso->space_used[k], -1, true
			};
			if (m.used >= 0)
				m.used = iso->space_used[k] < 0
						 ? -1
						 : m.used + iso->space_used[k];
		}
		m.parts = p;
		m.nparts = n;
		m.detail = arena_printf(
			&s->arena, "v8 heap 0x%llx: %zu page%s%s, %u space%s%s",
			(unsigned long long)iso->heap, iso->pages,
			iso->pages == 1 ? "" : "s",
			iso->large ? " (large ones too)" : "", n,
			n == 1 ? "" : "s", freed_note(s, iso));
		if (!m.detail || vms_managed_add(s, &m) < 0)
			return -1;
	}
	return 0;
}

static int v8_scan(struct vms_snapshot *s, struct v8_pages *v)
{
	struct rtscan_run *runs;
	size_t nruns, i, *from;
	struct v8_isos isos = { 0 };
	bool oom;
	int rc = 0;

	runs = rtscan_runs(s, &nruns, &oom);
	if (oom)
		return -1;
	from = calloc(nruns + 1, sizeof(*from));
	if (!from)
		return -1;
	vms_source_hold(s, true);
	for (i = 0; i < nruns; i++) {
		from[i] = v->n;
		/* cancelled: the pipeline stops at the next step */
		if (vms_source_progress(s, "finding V8 heap pages", i, nruns))
			break;
		if (scan_run(s, &runs[i], v) < 0) {
			rc = -1;
			break;
		}
	}
	from[i] = v->n;
	if (rc == 0 && i == nruns) {
		map_space(s, v);
		for (i = 0; rc == 0 && i < nruns; i++)
			if (from[i + 1] > from[i])
				rc = type_regions(s, &runs[i], v, from[i],
						  from[i + 1], &isos);
		if (rc == 0)
			rc = add_entries(s, &isos);
	}
	free(from);
	free(isos.i);
	return rc;
}

/* Anonymous memory the source cannot read because it was not forked. */
static bool dontfork(const struct vms_snapshot *s)
{
	size_t i;

	for (i = 0; i < s->nregions; i++)
		if (!s->regions[i].path &&
		    (s->regions[i].vmflags_mask & VMS_VF_DC) &&
		    (s->regions[i].flags & VMS_RF_UNREADABLE))
			return true;
	return false;
}

/* v8::Isolate::New(const v8::Isolate::CreateParams&): V8 is in it */
static const char *const gate[] = { "_ZN2v87Isolate3NewERKNS0_12CreateParamsE",
				    NULL };

static void step_v8_asks(void (*add)(void *ctx, const char *const *names),
			 void *ctx)
{
	add(ctx, gate);
}

static int step_v8_run(struct vms_snapshot *s, unsigned have,
		       struct vms_error *err)
{
	struct v8_pages v = { 0 };
	int rc = rtscan_gate(s, have, "v8", gate, "V8 heap pages");

	if (rc <= 0)
		return rc < 0 ? step_nomem(err, "v8") : 0;
	rc = v8_scan(s, &v);
	vms_source_hold(s, false);
	if (rc == 0 && !v.n && dontfork(s) &&
	    vms_snapshot_note(s, "v8",
			      "V8 heap pages not found: node maps them "
			      "MADV_DONTFORK, so the fork clone has none of "
			      "them (-F reads them in the target, held "
			      "still)") < 0)
		rc = -1;
	free(v.p);
	free(v.base);
	return rc < 0 ? step_nomem(err, "v8") : 0;
}

/* What a snapshot file keeps of it (model/kept.h). */
static const struct vms_kept kept = {
	.step = "v8",
	.runtime = "v8",
};

const struct vms_step vms_step_v8 = {
	.name = "v8",
	.doing = "finding V8 heap pages",
	.run = step_v8_run,
	.kept = &kept,
	.asks = step_v8_asks,
};
