/* step_v8.c — the "v8" step: V8's heap pages (node, and any program that
 * exports V8's API), found by their page header (rtheap.h) at the
 * 256 KiB-aligned addresses of anonymous memory no step before claimed.
 * A region whose bytes are mostly pages becomes a managed heap of runtime
 * "v8", its detail the isolate's heap and how many pages and spaces; one
 * s->managed entry per such region, committed = the pages' bytes there
 * (what V8 counts in heapTotal), parts = the spaces of its pages (named as
 * getHeapSpaceStatistics() names them, rtheap_v8_space) with the bytes
 * allocated on the pages that begin there (used; null for new space,
 * whose pages do not say how full they are), figures "V8 page headers".
 * A code-space page's header (8 KiB, rw) lies apart from its body (rwx)
 * behind a guard page (---p): a page may reach past the run of readable
 * memory it starts in, over the anonymous regions adjacent to it whatever
 * their protection, and those it covers are typed with it. Needs memory; reads 72 bytes per 256 KiB
 * of unclaimed anonymous memory, all in one hold of the target. The gate
 * is the image that exports v8::Isolate::New: no other process is looked
 * into. Measured on node 20 (V8 11.3, no pointer compression); a pointer
 * compression cage is not recognised as such yet. Node maps its pages
 * MADV_DONTFORK: the fork sampler's clone does not have them (a note says
 * so). See steps.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/rtheap.h"
#include "analyze/rtscan.h"
#include "analyze/steps.h"
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

/* Pages' bytes in r, how many pages begin there, distinct spaces; per
 * space (rtheap_v8_spaces) the bytes of the pages that begin there, and
 * the bytes allocated on them (-1: not known for one of them). */
struct v8_share {
	uint64_t bytes, heap;
	size_t pages, spaces, large;
	uint64_t space_bytes[RTHEAP_V8_NSPACES];
	int64_t space_used[RTHEAP_V8_NSPACES];
};

static void share_of(const struct v8_pages *v, size_t from, size_t to,
		     const struct vms_region *r, struct v8_share *sh)
{
	size_t i, j;

	memset(sh, 0, sizeof(*sh));
	for (i = from; i < to; i++) {
		uint64_t b = v->base[i], e = b + v->p[i].size;
		uint64_t lo = b > r->start ? b : r->start;
		uint64_t hi = e < r->end ? e : r->end;

		unsigned k = rtheap_v8_space(&v->p[i]);
		int64_t used = rtheap_v8_used(&v->p[i]);

		if (lo >= hi)
			continue;
		sh->bytes += hi - lo;
		if (b < r->start)
			continue;
		/* a space's capacity: its pages whole (a code page ends in a
		 * guard inside the code range's reservation) */
		sh->space_bytes[k] += v->p[i].size;
		if (sh->space_used[k] >= 0)
			sh->space_used[k] =
				used < 0 ? -1 : sh->space_used[k] + used;
		if (!sh->pages || (!sh->heap && v->p[i].heap))
			sh->heap = v->p[i].heap;
		sh->pages++;
		sh->large += v->p[i].size > RTHEAP_V8_ALIGN;
		for (j = from; j < i; j++)
			if (v->base[j] >= r->start &&
			    v->p[j].owner == v->p[i].owner)
				break;
		sh->spaces += j == i;
	}
}

/* The managed entry's parts: its spaces, their bytes here (capacity) and
 * in use as V8 counts them; used is their sum, -1 if one is unknown (new
 * space: a semispace page does not say how full it is). */
static int parts_of(struct vms_snapshot *s, const struct v8_share *sh,
		    struct vms_managed *m)
{
	struct vms_managed_part *p =
		arena_alloc(&s->arena, RTHEAP_V8_NSPACES * sizeof(*p));
	unsigned k, n = 0;

	if (!p)
		return -1;
	m->used = 0;
	for (k = 0; k < RTHEAP_V8_NSPACES; k++) {
		if (!sh->space_bytes[k])
			continue;
		p[n++] = (struct vms_managed_part){ rtheap_v8_spaces[k],
						    (int64_t)sh->space_bytes[k],
						    sh->space_used[k], -1,
						    true };
		if (m->used >= 0)
			m->used = sh->space_used[k] < 0
					  ? -1
					  : m->used + sh->space_used[k];
	}
	m->parts = p;
	m->nparts = n;
	m->figures = "V8 page headers";
	return 0;
}

/* Types regions [first, last] (a page's pieces: its regions where no
 * page begins follow the one where it does) and adds their managed
 * entry. */
static int emit(struct vms_snapshot *s, const struct v8_pages *v, size_t from,
		size_t to, size_t first, size_t last)
{
	struct vms_region span = { .start = s->regions[first].start,
				   .end = s->regions[last].end };
	struct vms_managed m;
	struct v8_share sh;
	const char *detail;
	size_t i;

	share_of(v, from, to, &span, &sh);
	detail = arena_printf(
		&s->arena, "v8 heap 0x%llx: %zu page%s%s, %zu space%s",
		(unsigned long long)sh.heap, sh.pages, sh.pages == 1 ? "" : "s",
		sh.large ? " (large)" : "", sh.spaces,
		sh.spaces == 1 ? "" : "s");
	if (!detail)
		return -1;
	for (i = first; i <= last; i++) {
		s->regions[i].type = VMS_T_MANAGED_HEAP;
		s->regions[i].detail = detail;
	}
	m = (struct vms_managed){ .runtime = "v8",
				  .start = span.start,
				  .end = span.end,
				  .reserved = span.end - span.start,
				  .committed = sh.bytes,
				  .detail = detail };
	return parts_of(s, &sh, &m) < 0 || vms_managed_add(s, &m) < 0 ? -1 : 0;
}

static int type_regions(struct vms_snapshot *s, const struct rtscan_run *run,
			const struct v8_pages *v, size_t from, size_t to)
{
	size_t i, last, first = SIZE_MAX, prev = 0;

	(void)reach_end(s, run, &last);
	for (i = run->first; i <= last; i++) {
		const struct vms_region *r = &s->regions[i];
		struct v8_share sh;
		bool mine, more;

		share_of(v, from, to, r, &sh);
		/* Mostly pages: V8 maps each page alone, and neighbours
		 * merge; what is not a page is a page's trimmed slack. */
		mine = sh.bytes && sh.bytes * 2 >= vms_region_size(r);
		more = mine && !sh.pages && first != SIZE_MAX && prev == i - 1;
		if (first != SIZE_MAX && !more) {
			if (emit(s, v, from, to, first, prev) < 0)
				return -1;
			first = SIZE_MAX;
		}
		if (!mine)
			continue;
		if (first == SIZE_MAX)
			first = i;
		prev = i;
	}
	return first != SIZE_MAX ? emit(s, v, from, to, first, prev) : 0;
}

static int v8_scan(struct vms_snapshot *s, struct v8_pages *v)
{
	struct rtscan_run *runs;
	size_t nruns, i;
	bool oom;

	runs = rtscan_runs(s, &nruns, &oom);
	if (oom)
		return -1;
	vms_source_hold(s, true);
	for (i = 0; i < nruns; i++) {
		size_t from = v->n;

		/* cancelled: the pipeline stops at the next step */
		if (vms_source_progress(s, "finding V8 heap pages", i, nruns))
			break;

		if (scan_run(s, &runs[i], v) < 0 ||
		    (v->n > from &&
		     type_regions(s, &runs[i], v, from, v->n) < 0))
			return -1;
	}
	return 0;
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

static int step_v8_run(struct vms_snapshot *s, unsigned have,
		       struct vms_error *err)
{
	static const char *const gate[] = {
		"_ZN2v87Isolate3NewERKNS0_12CreateParamsE", NULL
	};
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
};
