/* step_parts.c — the "parts" step: a runtime's heap found by what it is,
 * not by the region it sits in. Where the managed entries of a runtime
 * whose pieces share their regions with other memory (CPython's obmalloc
 * arenas: the kernel merges each arena's mapping with its anonymous
 * neighbours) cover a private data region in part, the region is split
 * into typed parts (model/parts.h): each run of adjacent entries in it is
 * a part of type managed heap, its size and committed bytes the arenas'
 * (obmalloc maps each whole), its Rss the pages of its range present in
 * RAM, its Swap the pages in swap, its private resident bytes those
 * present pages the process alone maps (the source's page tables:
 * /proc/PID/pagemap as of the snapshot; the fork clone shares every page
 * with the target, and does not tell that), the rest of its figures the
 * region's in proportion (parts.h). A region the entries cover whole is
 * typed managed heap itself. Runs after the runtimes' steps, before the
 * totals, which count by parts.
 *
 * Each entry's resident bytes (its record's "resident") are measured here
 * while the source has memory and its pages can be told, and kept with
 * the entries (a snapshot file puts them back: the parts of a loaded file
 * are those of the capture); -1 where not measured, and for the runtimes
 * not in the table. Reads a pagemap entry per page of the entries, in
 * the hold the steps before took. See steps.h.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/steps.h"
#include "model/parts.h"
#include "model/source.h"

/* The runtimes whose entries make parts, and the name of their part. */
static const struct {
	const char *runtime, *part;
} part_runtimes[] = {
	{ "cpython", "cpython obmalloc arenas" },
};
#define NPART_RT (sizeof(part_runtimes) / sizeof(part_runtimes[0]))

static const char *part_name(const struct vms_managed *m)
{
	size_t k;

	for (k = 0; k < NPART_RT; k++)
		if (strcmp(m->runtime, part_runtimes[k].runtime) == 0)
			return part_runtimes[k].part;
	return NULL;
}

static int by_start(const void *a, const void *b)
{
	const struct vms_managed *x = *(const struct vms_managed *const *)a;
	const struct vms_managed *y = *(const struct vms_managed *const *)b;

	return (x->start > y->start) - (x->start < y->start);
}

/* The entries that make parts, by address; *n of them (malloc'd). */
static const struct vms_managed **part_entries(struct vms_snapshot *s,
					       size_t *n)
{
	const struct vms_managed **v;
	size_t i;

	*n = 0;
	v = malloc((s->nmanaged ? s->nmanaged : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < s->nmanaged; i++)
		if (part_name(&s->managed[i]) &&
		    s->managed[i].end > s->managed[i].start)
			v[(*n)++] = &s->managed[i];
	qsort(v, *n, sizeof(*v), by_start);
	return v;
}

/* The bytes of m's resident that lie in [lo, hi) (a file's parts: the
 * entries' figures kept): all of them when m is inside, else by size, in
 * whole pages; -1 unknown. */
static int64_t piece_rss(const struct vms_managed *m, uint64_t lo, uint64_t hi,
			 uint64_t page)
{
	uint64_t len = m->end - m->start, v;

	if (m->resident < 0)
		return -1;
	if (lo <= m->start && hi >= m->end)
		return m->resident;
	v = (uint64_t)((unsigned __int128)(uint64_t)m->resident * (hi - lo) /
		       len);
	return (int64_t)(v - v % page);
}

/* What split() needs to measure a part (buf NULL: from the entries). */
struct meas {
	unsigned char *buf;
	size_t cap;
	uint64_t page;
};

/* The parts of region r from entries v[first...] (by address); 0, -1 on
 * out of memory. */
static int split(struct vms_snapshot *s, struct vms_region *r,
		 const struct vms_managed **v, size_t nv, size_t first,
		 struct vms_part_spec *sp, const struct meas *me)
{
	size_t i, n = 0;
	uint64_t covered = 0;
	int rc;

	for (i = first; i < nv && v[i]->start < r->end; i++) {
		uint64_t lo = v[i]->start > r->start ? v[i]->start : r->start;
		uint64_t hi = v[i]->end < r->end ? v[i]->end : r->end;
		int64_t rss;

		if (lo >= hi)
			continue;
		if (n && lo < sp[n - 1].end)
			lo = sp[n - 1].end; /* overlapping entries: once */
		if (lo >= hi)
			continue;
		rss = piece_rss(v[i], lo, hi, me->page);
		covered += hi - lo;
		if (n && sp[n - 1].end == lo) {
			sp[n - 1].end = hi;
			sp[n - 1].rss = sp[n - 1].rss < 0 || rss < 0
						? -1
						: sp[n - 1].rss + rss;
			continue;
		}
		sp[n++] = (struct vms_part_spec){
			.name = part_name(v[i]),
			.start = lo,
			.end = hi,
			.type = VMS_T_MANAGED_HEAP,
			.rss = rss,
			.swap = -1,
			.priv = -1,
			.commit_whole = true,
		};
	}
	if (!n)
		return 0;
	/* measured whole, where the pages can be told: an entry that
	 * overlaps its neighbour or its region's end is not cut by size */
	for (i = 0; me->buf && i < n; i++) {
		struct vms_part_fig f;

		if (!vms_parts_measure(s, sp[i].start, sp[i].end, me->buf,
				       me->cap, &f))
			continue;
		sp[i].rss = f.rss;
		sp[i].swap = f.swap;
		sp[i].priv = f.priv;
	}
	if (covered == vms_region_size(r)) {
		r->type = VMS_T_MANAGED_HEAP;
		r->detail = sp[0].name;
		return 0;
	}
	rc = vms_parts_set(s, r, sp, n);
	if (rc == 0) {
		/* what the region holds, for its row */
		r->detail =
			arena_printf(&s->arena, "holds %s (%llu K)", sp[0].name,
				     (unsigned long long)(covered >> 10));
		if (!r->detail)
			return -1;
	}
	return rc == -1 ? -1 : 0;
}

static int step_parts_run(struct vms_snapshot *s, unsigned have,
			  struct vms_error *err)
{
	const struct vms_managed **v;
	struct vms_part_spec *sp = NULL;
	struct meas me = { NULL, 4096, 0 };
	size_t nv, i, at = 0;
	bool held = false;
	int rc = 0;

	v = part_entries(s, &nv);
	if (!v)
		return step_nomem(err, "parts");
	for (i = 0; i < s->nmanaged; i++)
		if (!part_name(&s->managed[i]))
			s->managed[i].resident = -1;
	if (!nv)
		goto out;
	sp = malloc(nv * sizeof(*sp));
	if (!sp)
		goto oom;
	me.page = s->cap.page_size ? s->cap.page_size : 4096;
	if (have & VMS_SRC_MEMORY) {
		me.buf = malloc(me.cap);
		if (!me.buf)
			goto oom;
		vms_source_hold(s, true);
		held = true;
		for (i = 0; i < nv; i++) {
			struct vms_managed *m = (struct vms_managed *)v[i];
			struct vms_part_fig f;

			m->resident = vms_parts_measure(s, m->start, m->end,
							me.buf, me.cap, &f)
					      ? f.rss
					      : -1;
		}
		/* a source whose pages cannot be told: from the entries */
		if (nv && v[0]->resident < 0) {
			free(me.buf);
			me.buf = NULL;
		}
	}
	for (i = 0; i < s->nregions && at < nv; i++) {
		struct vms_region *r = &s->regions[i];

		while (at < nv && v[at]->end <= r->start)
			at++;
		if (at == nv || v[at]->start >= r->end ||
		    r->type != VMS_T_PRIVATE_DATA || r->nchildren ||
		    !vms_region_is_anon(r))
			continue;
		if (split(s, r, v, nv, at, sp, &me) < 0)
			goto oom;
	}
	goto out;
oom:
	rc = step_nomem(err, "parts");
out:
	if (held)
		vms_source_hold(s, false);
	free(me.buf);
	free(sp);
	free(v);
	return rc;
}

const struct vms_step vms_step_parts = {
	.name = "parts",
	.doing = "splitting regions into heaps' parts",
	.run = step_parts_run,
};
