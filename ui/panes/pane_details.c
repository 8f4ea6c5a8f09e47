/* pane_details.c — the details pane's rows: one per allocation (VMMap's
 * unit: an image's mappings, a thread's guard and stack, a glibc arena's
 * segments; alloc.h) or, in the region list ('a'), one per region; the
 * free gaps when Free is selected or asked for ('f'); filtered by type,
 * sorted by a column. An expanded allocation is followed by its regions,
 * an expanded region by its children (ELF sections, stack parts, heap
 * segments). What a row stands for: pane_details_row.c; drawing:
 * pane_details_draw.c; sorting: pane_details_sort.c; find: pane_find.c.
 *
 * The rows are a flat array rebuilt only when the filter, the sort, the
 * view or an expansion changes; moving the cursor touches nothing but the
 * visible rows, so 65,000 regions cost no more per key than 40.
 * Expansion is kept per region (d->expanded, DEXP_* bits: an allocation's
 * at its first region), so it survives a change of sort, filter or view,
 * and a new snapshot of the same process (by address).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "core/draw.h"
#include "model/columns.h"
#include "panes/panes.h"

void details_free(struct details *d)
{
	free(d->rows);
	free(d->gaps);
	free(d->expanded);
	free(d->allocs);
	free(d->alloc_of);
	free(d->type_of);
	free(d->tops);
	free(d->addr_tops);
	free(d->scratch);
	free(d->text_sorted);
	free(d->text_sorted_rank);
	d->text_sorted = NULL;
	d->text_sorted_rank = NULL;
	d->ntext_sorted = 0;
	d->rows = NULL;
	d->gaps = NULL;
	d->expanded = NULL;
	d->allocs = NULL;
	d->alloc_of = NULL;
	d->type_of = NULL;
	d->text_rank = NULL;
	d->tops = NULL;
	d->addr_tops = NULL;
	d->naddr_tops = d->addr_tops_cap = 0;
	d->scratch = NULL;
	d->nrows = d->cap = d->ngaps = d->nallocs = d->ntops = d->tops_cap = 0;
	d->scratch_cap = 0;
	details_tops_stale(d);
}

void details_tops_stale(struct details *d)
{
	d->tops_for.valid = false;
	d->addr_for.valid = false;
}

/* The free gaps inside the user address range, as the totals count them
 * (the engine's one gap iterator), each with the region it comes before. */
static void find_gaps(struct details *d, const struct vms_snapshot *s)
{
	struct vms_gap_iter it = vms_gaps(s);
	uint64_t a, b;
	size_t n = 0;

	/* counted first: a process has far fewer gaps than regions */
	while (vms_gap_next(&it, &a, &b))
		n++;
	it = vms_gaps(s);
	d->gaps = calloc(n + 1, sizeof(*d->gaps));
	if (!d->gaps)
		return;
	while (d->ngaps < n && vms_gap_next(&it, &a, &b)) {
		struct dgap *g = &d->gaps[d->ngaps++];

		g->start = a;
		g->end = b;
		/* the region that ended it, or the first past the range */
		g->next = (uint32_t)(it.done ? it.i : it.i - 1);
	}
}

/* The allocations and, for each region, the one it is in. */
static void find_allocs(struct details *d, const struct vms_snapshot *s)
{
	size_t i;
	uint32_t k;

	if (vms_allocs(s, &d->allocs, &d->nallocs) < 0)
		return;
	d->alloc_of = vms_big_malloc((s->nregions + 1) * sizeof(*d->alloc_of));
	if (!d->alloc_of) {
		free(d->allocs);
		d->allocs = NULL;
		d->nallocs = 0;
		return;
	}
	vms_big_populate(d->alloc_of, (s->nregions + 1) * sizeof(*d->alloc_of));
	for (i = 0; i < d->nallocs; i++)
		for (k = 0; k < d->allocs[i].n; k++)
			d->alloc_of[d->allocs[i].first + k] = (uint32_t)i;
}

static int push(struct details *d, struct drow r)
{
	if (d->nrows == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 1024;
		struct drow *n = realloc(d->rows, cap * sizeof(*n));

		if (!n)
			return -1;
		d->rows = n;
		d->cap = cap;
	}
	d->rows[d->nrows++] = r;
	return 0;
}

size_t details_emit(const struct ui *u, const struct drow *top, bool all,
		    int (*fn)(void *ctx, struct drow r), void *ctx)
{
	const struct details *d = det_of(u);
	const struct vms_snapshot *s = u->snap;
	uint32_t first = top->idx, n = 1, k, c;
	uint8_t depth = 0;
	size_t out = 0;

	if (fn(ctx, *top) < 0)
		return 0;
	out++;
	if (top->kind == DROW_GAP || top->kind == DROW_CHILD ||
	    top->kind == DROW_REMOVED)
		return out;
	if (top->kind == DROW_ALLOC) {
		first = d->allocs[top->idx].first;
		n = d->allocs[top->idx].n;
		if (!all && !(d->expanded[first] & DEXP_ALLOC))
			return out;
		depth = 1;
	}
	for (k = 0; k < n; k++) {
		const struct vms_region *g = &s->regions[first + k];

		if (depth && fn(ctx, (struct drow){ first + k, DROW_REGION,
						    depth, 0 }) < 0)
			return out;
		out += depth;
		if (!all && !(d->expanded[first + k] & DEXP_REGION))
			continue;
		for (c = 0; c < g->nchildren && c < UINT16_MAX; c++, out++)
			if (fn(ctx, (struct drow){ first + k, DROW_CHILD,
						   (uint8_t)(depth + 1),
						   (uint16_t)c }) < 0)
				return out;
	}
	return out;
}

static int push_cb(void *ctx, struct drow r)
{
	return push(ctx, r);
}

/* The top row of region i in the view (its allocation, or itself). */
static inline struct drow top_of(const struct details *d, uint32_t i)
{
	if (!d->by_region && d->alloc_of) {
		uint32_t a = d->alloc_of[i];

		if (d->allocs[a].n > 1)
			return (struct drow){ a, DROW_ALLOC, 0, 0 };
	}
	return (struct drow){ i, DROW_REGION, 0, 0 };
}

/* Each region's type, for the filter: made once, then the filter reads
 * a byte a region instead of a region (176 bytes) a row. The low four
 * bits are the region's type; the high four, one more than the type of
 * its typed parts (model/parts.h) where that is another, else 0: a
 * region shows under its parts' type too (a Python region holding
 * obmalloc arenas under Managed Heap). */
static const uint8_t *types(struct details *d, const struct vms_snapshot *s)
{
	size_t i;

	if (d->type_of || !(d->type_of = malloc(s->nregions + 1)))
		return d->type_of;
	for (i = 0; i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];
		uint32_t k;

		d->type_of[i] = r->type;
		for (k = 0; k < r->nchildren && r->children[k].part; k++)
			if (r->children[k].part->type != r->type) {
				d->type_of[i] |=
					(uint8_t)((r->children[k].part->type +
						   1)
						  << 4);
				break;
			}
	}
	return d->type_of;
}

/* Whether a region's types() byte is of type t. */
static bool type_is(uint8_t b, int t)
{
	return (b & 15) == t || (b >> 4) == t + 1;
}

/* The index of the first region that starts above a (s->nregions if
 * none): where a removed group that starts at a comes among them. */
static size_t regions_above(const struct vms_snapshot *s, uint64_t a)
{
	size_t i = vms_snapshot_index_from(s, a);

	return i + (i < s->nregions && s->regions[i].start <= a);
}

/* The region index before which removed group ri comes, SIZE_MAX past
 * the last. */
static size_t removed_at(const struct details *d, const struct vms_snapshot *s,
			 size_t ri)
{
	return ri < d->nremoved ? regions_above(s, d->removed[ri]->start)
				: SIZE_MAX;
}

/* The top rows in address order, filtered: allocations (or regions) and
 * the gaps asked for. Reads the allocations and gaps, and a filter the
 * regions' types (types()), not the regions themselves: where a removed
 * group goes among the regions is found by a binary search (a removed
 * group near the top of the address space had each region's start read
 * on the way, a pass over a million records every sort). */
static size_t tops_of(struct ui *u, struct drow *tops)
{
	struct details *d = det_of(u);
	const struct vms_snapshot *s = u->snap;
	const uint8_t *type = d->filter >= 0 ? types(d, s) : NULL;
	bool gaps =
		d->filter == VMS_T_FREE || (d->filter == -1 && d->show_free);
	size_t i = 0, gi = 0, n = 0, ri = 0, rat = removed_at(d, s, 0);

	if (d->filter == VMS_T_FREE) {
		for (gi = 0; gi < d->ngaps; gi++)
			tops[n++] =
				(struct drow){ (uint32_t)gi, DROW_GAP, 0, 0 };
		return n;
	}
	for (;;) {
		struct drow t;
		uint32_t g;

		/* the gaps before region i, and what the snapshot compared
		 * with had there (removed), merged by their starts: a
		 * removed region may start before a gap that comes after a
		 * region now at its start */
		for (;;) {
			bool gap =
				gaps && gi < d->ngaps && d->gaps[gi].next <= i;
			bool rem = ri < d->nremoved && i >= rat;

			if (gap && (!rem || d->gaps[gi].start <=
						    d->removed[ri]->start)) {
				tops[n++] = (struct drow){ (uint32_t)gi++,
							   DROW_GAP, 0, 0 };
				continue;
			}
			if (!rem)
				break;
			if (d->filter == -1 ||
			    d->removed[ri]->type == d->filter)
				tops[n++] = (struct drow){ (uint32_t)ri,
							   DROW_REMOVED, 0, 0 };
			rat = removed_at(d, s, ++ri);
		}
		if (i >= s->nregions)
			break;
		t = top_of(d, (uint32_t)i);
		g = t.kind == DROW_ALLOC ? d->allocs[t.idx].main : t.idx;
		if (d->filter == -1 || (type ? type_is(type[g], d->filter)
					     : s->regions[g].type == d->filter))
			tops[n++] = t;
		i += t.kind == DROW_ALLOC ? d->allocs[t.idx].n : 1;
	}
	return n;
}

/* Whether d->addr_tops are of the view, filter and free gaps now. */
static bool addr_current(const struct details *d)
{
	return d->addr_for.valid && d->addr_for.filter == d->filter &&
	       d->addr_for.by_region == d->by_region &&
	       d->addr_for.show_free == d->show_free;
}

/* d->addr_tops room for cap rows (populated: written through now, not
 * by a key); false if there is no memory for them. */
static bool addr_room(struct details *d, size_t cap)
{
	if (d->addr_tops_cap >= cap)
		return true;
	free(d->addr_tops);
	d->addr_tops = vms_big_malloc(cap * sizeof(*d->addr_tops));
	d->addr_tops_cap = d->addr_tops ? cap : 0;
	d->addr_for.valid = false;
	if (d->addr_tops)
		vms_big_populate(d->addr_tops, cap * sizeof(*d->addr_tops));
	return d->addr_tops != NULL;
}

/* d->addr_tops hold n rows of the view, filter and free gaps now. */
static void addr_made(struct details *d, size_t n)
{
	d->naddr_tops = n;
	d->addr_for.filter = d->filter;
	d->addr_for.by_region = d->by_region;
	d->addr_for.show_free = d->show_free;
	d->addr_for.valid = true;
}

/* tops_of into tops (room for every region, gap and removed group), or
 * a copy of what it gave before for the same view, filter and free gaps;
 * what it gives is kept when the rows are to be sorted (no copy for the
 * address order, nor under --watch, nor if there is no memory for it). */
static size_t tops_in_address_order(struct ui *u, struct drow *tops)
{
	struct details *d = det_of(u);
	size_t n;

	if (addr_current(d)) {
		memcpy(tops, d->addr_tops, d->naddr_tops * sizeof(*tops));
		return d->naddr_tops;
	}
	n = tops_of(u, tops);
	/* not under --watch: each tick's snapshot would let it go */
	if ((d->sort != DS_ADDRESS || d->reverse) && !u->watching &&
	    addr_room(d, d->tops_cap)) {
		memcpy(d->addr_tops, tops, n * sizeof(*tops));
		addr_made(d, n);
	}
	return n;
}

void details_tops_warm(struct ui *u)
{
	struct details *d = det_of(u);

	if (!u->snap || u->watching || addr_current(d) ||
	    !addr_room(d, details_rows_max(u)))
		return;
	addr_made(d, tops_of(u, d->addr_tops));
}

/* Whether d->tops were made for the view, filter, gaps and sort now. */
static bool tops_current(const struct details *d)
{
	return d->tops_for.valid && d->tops_for.filter == d->filter &&
	       d->tops_for.sort == d->sort &&
	       d->tops_for.by_region == d->by_region &&
	       d->tops_for.show_free == d->show_free &&
	       d->tops_for.reverse == d->reverse;
}

/* The top rows for the view, filter, gaps and sort now, in d->tops;
 * false if out of memory for them (the rows on screen stay). */
static bool make_tops(struct ui *u)
{
	struct details *d = det_of(u);

	if (tops_current(d))
		return true;
	d->tops_for.valid = false;
	if (d->tops && d->tops_cap < details_rows_max(u)) {
		free(d->tops); /* the removed rows came after */
		d->tops = NULL;
	}
	if (!d->tops) { /* every region, gap and removed at most: sized once */
		size_t bytes = details_rows_max(u) * sizeof(*d->tops);

		d->tops = vms_big_malloc(bytes);
		if (!d->tops)
			return false;
		vms_big_populate(d->tops, bytes); /* written through now */
		d->tops_cap = bytes / sizeof(*d->tops);
	}
	d->ntops = tops_in_address_order(u, d->tops);
	if ((d->sort != DS_ADDRESS || d->reverse) &&
	    !details_sort_tops(u, d->tops, d->ntops))
		return true; /* out of memory: in address order, made again */
	d->tops_for.filter = d->filter;
	d->tops_for.sort = d->sort;
	d->tops_for.by_region = d->by_region;
	d->tops_for.show_free = d->show_free;
	d->tops_for.reverse = d->reverse;
	d->tops_for.valid = true;
	return true;
}

void details_rebuild(struct ui *u)
{
	struct details *d = det_of(u);
	const struct vms_snapshot *s = u->snap;
	struct drow keep = { 0, 0, 0, 0 };
	bool had = d->lv.cur < d->nrows;
	size_t i;
	uint64_t ka = 0, kb;

	if (had) {
		keep = d->rows[d->lv.cur];
		details_span_in(d, s, &keep, &ka, &kb);
	}
	if (!make_tops(u))
		return;
	/* a row per top row and room for what is open: sized once, not
	 * doubled past a million rows */
	if (d->cap < d->ntops) {
		size_t cap = d->ntops + d->ntops / 16 + 1024;
		struct drow *n = vms_big_realloc(d->rows, cap * sizeof(*n));

		if (n) {
			/* the rows are written through now */
			vms_big_populate(n + d->cap,
					 (cap - d->cap) * sizeof(*n));
			d->rows = n;
			d->cap = cap;
		}
	}
	d->nrows = 0;
	for (i = 0; i < d->ntops; i++) {
		/* a top row with nothing open is its one row (what
		 * details_emit gives it, without the call) */
		struct drow t = d->tops[i];
		bool closed = t.kind == DROW_REGION
				      ? !(d->expanded[t.idx] & DEXP_REGION)
			      : t.kind == DROW_ALLOC
				      ? !(d->expanded[d->allocs[t.idx].first] &
					  DEXP_ALLOC)
				      : t.kind != DROW_CHILD;

		if (closed && d->nrows < d->cap)
			d->rows[d->nrows++] = t;
		else
			details_emit(u, &d->tops[i], false, push_cb, d);
	}
	/* the cursor stays on its row, or on the row now holding it (as
	 * details_same_node compares them, inline) */
	if (had) {
		for (i = 0; i < d->nrows; i++)
			if (d->rows[i].idx == keep.idx &&
			    d->rows[i].kind == keep.kind &&
			    (keep.kind != DROW_CHILD ||
			     d->rows[i].child == keep.child))
				break;
		if (i < d->nrows)
			d->lv.cur = i;
		else
			details_cursor_to(u, ka, NULL);
	}
	if (d->lv.cur >= d->nrows)
		d->lv.cur = d->nrows ? d->nrows - 1 : 0;
	listview_show(&d->lv, d->nrows);
}

/* ---- the cursor by address, and what a new snapshot keeps ---- */

/* The gap holding addr, or -1. */
static ptrdiff_t gap_at(const struct details *d, uint64_t addr)
{
	size_t lo = 0, hi = d->ngaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->gaps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->ngaps && d->gaps[lo].start <= addr ? (ptrdiff_t)lo : -1;
}

/* The allocation that may hold addr (in a region or a hole between
 * its regions: the caller checks its span); NULL in the region list. */
static const struct vms_alloc *alloc_at(const struct details *d,
					const struct vms_snapshot *s,
					uint64_t addr)
{
	size_t lo = 0, hi = s->nregions;

	if (d->by_region || !d->alloc_of)
		return NULL;
	while (lo < hi) { /* the first region starting past addr */
		size_t mid = lo + (hi - lo) / 2;

		if (s->regions[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the allocation of the last region starting at or below addr */
	return lo ? details_alloc_of(d, (uint32_t)(lo - 1)) : NULL;
}

void details_cursor_to(struct ui *u, uint64_t addr, const char *child)
{
	struct details *d = det_of(u);
	ptrdiff_t ri = vms_snapshot_find_index(u->snap, addr);
	ptrdiff_t gi = ri < 0 ? gap_at(d, addr) : -1;
	const struct vms_alloc *a = alloc_at(d, u->snap, addr);
	size_t i, best = d->nrows;

	if (a && (a->n < 2 || addr < u->snap->regions[a->first].start ||
		  addr >= u->snap->regions[a->first + a->n - 1].end))
		a = NULL; /* a region alone, or not holding addr */

	/* the deepest row holding addr (the region rather than its
	 * allocation), then its child named child: the rows are compared,
	 * the regions not read */
	for (i = 0; i < d->nrows; i++) {
		const struct drow *r = &d->rows[i];

		if (ri >= 0 && r->kind == DROW_REGION && r->idx == ri) {
			best = i;
			break;
		}
		if (a && r->kind == DROW_ALLOC && &d->allocs[r->idx] == a)
			best = i;
		if (gi >= 0 && r->kind == DROW_GAP && r->idx == gi) {
			best = i;
			break;
		}
	}
	for (i = best + 1;
	     child && best < d->nrows && d->rows[best].kind == DROW_REGION &&
	     i < d->nrows && d->rows[i].kind == DROW_CHILD &&
	     d->rows[i].idx == d->rows[best].idx;
	     i++)
		if (strcmp(u->snap->regions[ri].children[d->rows[i].child].name,
			   child) == 0) {
			best = i;
			break;
		}
	if (best < d->nrows)
		d->lv.cur = best;
	listview_show(&d->lv, d->nrows);
}

/* What a new snapshot of the same process keeps of the details: the
 * expanded rows (by start address), the cursor's row (its address, and
 * its child's name if on a child) and where on screen it was. */
struct dcarry {
	uint64_t *starts;
	uint8_t *bits;
	size_t nexpanded;
	uint64_t cur_addr;
	const char *cur_child; /* in the old snapshot, alive during reset */
	bool has_cur;
	size_t cur_row; /* cur - top */
};

static void carry_take(struct dcarry *k, const struct details *d,
		       const struct vms_snapshot *old, bool same_process)
{
	const struct drow *r;
	size_t i, n = 0;
	uint64_t b;

	memset(k, 0, sizeof(*k));
	if (!old || d->lv.cur >= d->nrows)
		return;
	r = &d->rows[d->lv.cur];
	if (r->kind == DROW_REMOVED) /* gone with the changes before */
		return;
	/* old may be a layout the capture wrote over (pipeline.h,
	 * vms_lend_begin): its rows are its own, its regions the capture's,
	 * perhaps fewer, with other children */
	if (r->kind == DROW_ALLOC
		    ? d->allocs[r->idx].first + d->allocs[r->idx].n >
			      old->nregions
		    : r->kind != DROW_GAP && r->idx >= old->nregions)
		return;
	details_span_in(d, old, r, &k->cur_addr, &b);
	if (r->kind == DROW_CHILD && r->child < old->regions[r->idx].nchildren)
		k->cur_child = old->regions[r->idx].children[r->child].name;
	k->has_cur = true;
	k->cur_row = d->lv.cur - d->lv.top;
	if (!same_process || !d->expanded)
		return;
	for (i = 0; i < old->nregions; i++)
		n += d->expanded[i] != 0;
	k->starts = n ? malloc(n * sizeof(*k->starts)) : NULL;
	k->bits = n ? malloc(n) : NULL;
	if (!k->starts || !k->bits)
		return;
	for (i = 0; i < old->nregions; i++)
		if (d->expanded[i]) {
			k->starts[k->nexpanded] = old->regions[i].start;
			k->bits[k->nexpanded++] = d->expanded[i];
		}
}

void details_reset(struct ui *u, const struct vms_snapshot *old)
{
	struct details *d = det_of(u);
	struct dcarry k;
	size_t i;

	carry_take(&k, d, old,
		   old && u->snap && old->proc.pid == u->snap->proc.pid);
	details_free(d);
	d->lv.cur = d->lv.top = 0;
	if (!u->snap)
		goto free_carry;
	d->expanded = calloc(u->snap->nregions + 1, 1);
	find_gaps(d, u->snap);
	find_allocs(d, u->snap);
	for (i = 0; d->expanded && i < k.nexpanded; i++) {
		ptrdiff_t at = vms_snapshot_find_index(u->snap, k.starts[i]);

		if (at >= 0 && u->snap->regions[at].start == k.starts[i])
			d->expanded[at] = k.bits[i];
	}
	details_rebuild(u);
	if (k.has_cur) {
		details_cursor_to(u, k.cur_addr, k.cur_child);
		/* the cursor where it was on screen, if the rows allow */
		d->lv.top = d->lv.cur >= k.cur_row ? d->lv.cur - k.cur_row : 0;
		listview_show(&d->lv, d->nrows);
	}
free_carry:
	free(k.starts);
	free(k.bits);
}

/* ---- expanding ---- */

void details_open_path(struct ui *u, const struct drow *r)
{
	struct details *d = det_of(u);
	const struct vms_alloc *a;

	if (r->kind == DROW_GAP || r->kind == DROW_ALLOC ||
	    r->kind == DROW_REMOVED)
		return;
	if (r->kind == DROW_CHILD)
		d->expanded[r->idx] |= DEXP_REGION;
	a = d->by_region ? NULL : details_alloc_of(d, r->idx);
	if (a && a->n > 1)
		d->expanded[a->first] |= DEXP_ALLOC;
}

/* Opens an allocation into its regions, and the regions with code into
 * their children (all of them when none has code): Right on an image
 * shows its mappings and its .text at once, on an 80x24 screen too. */
static int open_alloc(struct ui *u, const struct vms_alloc *a, bool open)
{
	struct details *d = det_of(u);
	unsigned want = 0;
	uint32_t k;

	for (k = 0; k < a->n; k++)
		if (u->snap->regions[a->first + k].nchildren)
			want |= u->snap->regions[a->first + k].perms &
				VMS_PERM_X;

	if (!open) {
		if (!(d->expanded[a->first] & DEXP_ALLOC))
			return 0;
		d->expanded[a->first] &= (uint8_t)~DEXP_ALLOC;
	} else {
		d->expanded[a->first] |= DEXP_ALLOC;
		for (k = 0; k < a->n; k++) {
			const struct vms_region *g =
				&u->snap->regions[a->first + k];

			if (g->nchildren && (g->perms & VMS_PERM_X) == want)
				d->expanded[a->first + k] |= DEXP_REGION;
		}
	}
	details_rebuild(u);
	return UI_DRAW;
}

int details_expand(struct ui *u, bool open)
{
	struct details *d = det_of(u);
	struct drow r;
	const struct vms_region *g;
	size_t shown;

	if (d->lv.cur >= d->nrows)
		return 0;
	r = d->rows[d->lv.cur];
	if (r.kind == DROW_GAP || r.kind == DROW_REMOVED)
		return 0;
	if (r.kind == DROW_ALLOC) {
		int f = open_alloc(u, &d->allocs[r.idx], open);

		shown = d->allocs[r.idx].n;
		if (!open || !f)
			return f;
		goto bring_into_view;
	}
	g = &u->snap->regions[r.idx];
	if (open && r.kind == DROW_REGION && !g->nchildren) {
		ui_message(u, false, "this region has nothing to expand into");
		return UI_DRAW;
	}
	if (!open && !(d->expanded[r.idx] & DEXP_REGION)) {
		/* Left on a region of an allocation: back to it, closed */
		const struct vms_alloc *a = r.depth && r.kind == DROW_REGION
						    ? details_alloc_of(d, r.idx)
						    : NULL;

		return a ? open_alloc(u, a, false) : 0;
	}
	if (open && r.kind == DROW_CHILD)
		return 0;
	if (open)
		d->expanded[r.idx] |= DEXP_REGION;
	else
		d->expanded[r.idx] &= (uint8_t)~DEXP_REGION;
	details_rebuild(u);
	if (!open)
		return UI_DRAW;
	shown = g->nchildren;
bring_into_view:
	/* the children into view, the row opened staying on top */
	if (shown && d->lv.h > 0) {
		size_t last = d->lv.cur, hh = (size_t)d->lv.h;

		while (last + 1 < d->nrows &&
		       d->rows[last + 1].depth > d->rows[d->lv.cur].depth)
			last++;
		if (last >= d->lv.top + hh)
			d->lv.top = last - hh + 1 > d->lv.cur ? d->lv.cur
							      : last - hh + 1;
	}
	return UI_DRAW;
}

int details_toggle(struct ui *u)
{
	const struct drow *r;
	const struct details *d = det_of(u);

	if (d->lv.cur >= d->nrows)
		return 0;
	r = &d->rows[d->lv.cur];
	if (r->kind == DROW_ALLOC)
		return details_expand(
			u,
			!(d->expanded[d->allocs[r->idx].first] & DEXP_ALLOC));
	if (r->kind != DROW_REGION)
		return 0;
	return details_expand(u, !(d->expanded[r->idx] & DEXP_REGION));
}

int details_goto_addr(struct ui *u, uint64_t addr)
{
	struct viewer *v = viewer_of(u);
	struct details *d = det_of(u);

	if (d->filter != -1 || d->sort != DS_ADDRESS || d->reverse) {
		details_set_filter(d, -1);
		d->sort = DS_ADDRESS;
		d->reverse = false;
		details_rebuild(u);
	}
	details_cursor_to(u, addr, NULL);
	v->focus = 1;
	return UI_DRAW;
}

/* The sort chosen (pane_details_sort.c keeps the sorts; the rows are
 * this file's). */
void details_sort_by(struct ui *u, int sort)
{
	struct details *d = det_of(u);

	if (d->sort == sort) {
		d->reverse = !d->reverse;
	} else {
		d->sort = sort;
		d->reverse = false;
	}
	details_rebuild(u);
	details_sorts_to_config(d, &u->conf);
}
