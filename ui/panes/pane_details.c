/* pane_details.c — the details pane's rows: one per allocation (VMMap's
 * unit: an image's mappings, a thread's guard and stack, a glibc arena's
 * segments; alloc.h) or, in the region list ('a'), one per region; the
 * free gaps when Free is selected or asked for ('f'); filtered by type,
 * sorted by a column. An expanded allocation is followed by its regions,
 * an expanded region by its children (ELF sections, stack parts, heap
 * segments). What a row stands for: pane_details_row.c; the top rows,
 * in address order and sorted: pane_details_tops.c; drawing:
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
	free(d->rows_own);
	free(d->gaps);
	free(d->expanded);
	free(d->allocs);
	free(d->alloc_of);
	free(d->type_of);
	details_keys_free(d);
	details_find_free(d);
	free(d->tops);
	free(d->addr_tops);
	free(d->alt_tops);
	free(d->alt_addr_tops);
	free(d->scratch);
	free(d->text_sorted);
	free(d->text_sorted_rank);
	d->text_sorted = NULL;
	d->text_sorted_rank = NULL;
	d->ntext_sorted = 0;
	d->rows = d->rows_own = NULL;
	d->gaps = NULL;
	d->expanded = NULL;
	d->allocs = NULL;
	d->alloc_of = NULL;
	d->type_of = NULL;
	d->text_rank = NULL;
	d->tops = NULL;
	d->addr_tops = NULL;
	d->naddr_tops = d->addr_tops_cap = 0;
	d->alt_tops = d->alt_addr_tops = NULL;
	d->nalt_tops = d->alt_tops_cap = 0;
	d->nalt_addr_tops = d->alt_addr_tops_cap = 0;
	d->scratch = NULL;
	d->nrows = d->cap = d->ngaps = d->nallocs = d->ntops = d->tops_cap = 0;
	d->scratch_cap = 0;
	details_tops_stale(d);
}

void details_tops_stale(struct details *d)
{
	d->tops_for.valid = false;
	d->addr_for.valid = false;
	d->alt_tops_for.valid = false;
	d->alt_addr_for.valid = false;
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
		struct drow *n = realloc(d->rows_own, cap * sizeof(*n));

		if (!n)
			return -1;
		d->rows = d->rows_own = n;
		d->cap = cap;
	}
	d->rows[d->nrows++] = r;
	return 0;
}

/* Calls fn with top and what is open under it, in the order shown
 * (pane_find.c's meet_top walks them so with every row open). Stops
 * when fn returns < 0. Returns the rows given to fn. */
static size_t details_emit(const struct ui *u, const struct drow *top,
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
		if (!(d->expanded[first] & DEXP_ALLOC))
			return out;
		depth = 1;
	}
	for (k = 0; k < n; k++) {
		const struct vms_region *g = &s->regions[first + k];

		if (depth && fn(ctx, (struct drow){ first + k, DROW_REGION,
						    depth, 0 }) < 0)
			return out;
		out += depth;
		if (!(d->expanded[first + k] & DEXP_REGION))
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

/* The rows of the top rows, each followed by what is open under it. */
static void rows_of_tops(struct ui *u)
{
	struct details *d = det_of(u);
	size_t i;

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
			details_emit(u, &d->tops[i], push_cb, d);
	}
}

/* Whether any region or allocation is open (d->expanded not all 0): a
 * read of a byte a region, in words, where the rows' own look-ups read
 * them at random. */
static bool any_expanded(const struct details *d, size_t n)
{
	uint64_t any = 0, w;
	size_t i = 0;

	if (!d->expanded)
		return false;
	for (; i + 8 <= n; i += 8) {
		memcpy(&w, d->expanded + i, 8);
		any |= w;
	}
	for (; i < n; i++)
		any |= d->expanded[i];
	return any != 0;
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
	if (!details_make_tops(u)) {
		/* out of memory: rows of their own stay on screen; rows
		 * that were the top rows go with them */
		if (d->rows != d->rows_own) {
			d->rows = d->rows_own;
			d->nrows = 0;
			d->lv.cur = 0;
			listview_show(&d->lv, 0);
		}
		return;
	}
	d->nrows = 0;
	if (!any_expanded(d, s->nregions + 1)) {
		/* nothing open: each top row is its one row, the rows the top
		 * rows themselves (rows_of_tops reads a byte a row at random
		 * to tell; a copy of a million rows took 0.4 ms, but 3-8 ms
		 * after a few keys that did not sort: memory written again
		 * after a pause comes slowly on this project's VM) */
		d->rows = d->tops;
		d->nrows = d->ntops;
	} else {
		/* a row per top row and room for what is open: sized once,
		 * not doubled past a million rows */
		if (d->cap < d->ntops) {
			size_t cap = d->ntops + d->ntops / 16 + 1024;
			struct drow *n =
				vms_big_realloc(d->rows_own, cap * sizeof(*n));

			if (n) {
				/* the rows are written through now */
				vms_big_populate(n + d->cap,
						 (cap - d->cap) * sizeof(*n));
				d->rows_own = n;
				d->cap = cap;
			}
		}
		d->rows = d->rows_own;
		rows_of_tops(u);
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

bool details_cursor_to(struct ui *u, uint64_t addr, const char *child)
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
	return best < d->nrows;
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

	/* the list shown and its sort stay when it has a row holding addr
	 * (x and back: the region x was on); else the all view, in its own
	 * sort; a gap, the free list */
	bool found = details_cursor_to(u, addr, NULL);

	if (!found && d->filter != -1) {
		details_set_filter(d, -1);
		details_rebuild(u);
		found = details_cursor_to(u, addr, NULL);
	}
	/* a free gap the all view does not list (f hides them): the free
	 * list has every one */
	if (!found && gap_at(d, addr) >= 0) {
		details_set_filter(d, VMS_T_FREE);
		details_rebuild(u);
		found = details_cursor_to(u, addr, NULL);
		if (found)
			ui_message(
				u, false,
				"a free gap: shown in the Free list (f shows "
				"the gaps in the all view)");
	}
	if (!found)
		ui_message(u, false,
			   "%016llx is free, outside every gap between two "
			   "regions: no list has it",
			   (unsigned long long)addr);
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
