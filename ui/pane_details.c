/* pane_details.c — the details pane's rows: one per allocation (VMMap's
 * unit: an image's mappings, a thread's guard and stack, a glibc arena's
 * segments; alloc.h) or, in the region list ('a'), one per region; the
 * free gaps when Free is selected or asked for ('f'); filtered by type,
 * sorted by a column. An expanded allocation is followed by its regions,
 * an expanded region by its children (ELF sections, stack parts, heap
 * segments). Drawing: pane_details_draw.c; find: pane_find.c.
 *
 * The rows are a flat array rebuilt only when the filter, the sort, the
 * view or an expansion changes; moving the cursor touches nothing but the
 * visible rows, so 65,000 regions cost no more per key than 40.
 * Expansion is kept per region (d->expanded, DEXP_* bits: an allocation's
 * at its first region), so it survives a change of sort, filter or view,
 * and a new snapshot of the same process (by address).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "draw.h"
#include "export_util.h"
#include "panes.h"

/* The figure column a sort is by, or -1 (address, type, Prot, Details). */
static int sort_figure(int sort)
{
	return sort >= DS_COL && sort - DS_COL < VMS_NCOLS ? sort - DS_COL : -1;
}

const char *dsort_name(int s)
{
	if (s >= DS_COL)
		return vms_config_name(s - DS_COL);
	return s == DS_ADDRESS ? "Address" : "Type";
}

const char *details_sort_arrow(const struct details *d)
{
	int f = sort_figure(d->sort);
	bool up = f < 0 || vms_column_has((enum vms_col)f, VMS_COLF_ASCENDING);

	return up != d->reverse ? "^" : "v";
}

void details_free(struct details *d)
{
	free(d->rows);
	free(d->gaps);
	free(d->expanded);
	free(d->allocs);
	free(d->alloc_of);
	d->rows = NULL;
	d->gaps = NULL;
	d->expanded = NULL;
	d->allocs = NULL;
	d->alloc_of = NULL;
	d->nrows = d->cap = d->ngaps = d->nallocs = 0;
}

/* The free gaps inside the user address range, as the totals count them
 * (the engine's one gap iterator). */
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
		d->gaps[d->ngaps].start = a;
		d->gaps[d->ngaps++].end = b;
	}
}

/* The allocations and, for each region, the one it is in. */
static void find_allocs(struct details *d, const struct vms_snapshot *s)
{
	size_t i;
	uint32_t k;

	if (vms_allocs(s, &d->allocs, &d->nallocs) < 0)
		return;
	d->alloc_of = malloc((s->nregions + 1) * sizeof(*d->alloc_of));
	if (!d->alloc_of) {
		free(d->allocs);
		d->allocs = NULL;
		d->nallocs = 0;
		return;
	}
	for (i = 0; i < d->nallocs; i++)
		for (k = 0; k < d->allocs[i].n; k++)
			d->alloc_of[d->allocs[i].first + k] = (uint32_t)i;
}

const struct vms_alloc *details_alloc_of(const struct details *d,
					 uint32_t region)
{
	return d->alloc_of ? &d->allocs[d->alloc_of[region]] : NULL;
}

/* The addresses a row spans in s. */
static void span_of(const struct details *d, const struct vms_snapshot *s,
		    const struct drow *r, uint64_t *a, uint64_t *b)
{
	if (r->kind == DROW_GAP) {
		*a = d->gaps[r->idx].start;
		*b = d->gaps[r->idx].end;
	} else if (r->kind == DROW_ALLOC) {
		const struct vms_alloc *al = &d->allocs[r->idx];

		*a = s->regions[al->first].start;
		*b = s->regions[al->first + al->n - 1].end;
	} else {
		*a = s->regions[r->idx].start;
		*b = s->regions[r->idx].end;
	}
}

void details_row_span(const struct ui *u, const struct drow *r, uint64_t *a,
		      uint64_t *b)
{
	span_of(&u->det, u->snap, r, a, b);
}

const char *details_region_text(const struct vms_region *r)
{
	if (r->detail && *r->detail)
		return r->detail;
	return r->path ? r->path : "";
}

/* The region that stands for a row (an allocation's main one), or NULL
 * for a gap. */
const struct vms_region *details_node_region(const struct ui *u,
					     const struct drow *r)
{
	if (r->kind == DROW_GAP)
		return NULL;
	if (r->kind == DROW_ALLOC)
		return &u->snap->regions[u->det.allocs[r->idx].main];
	return &u->snap->regions[r->idx];
}

const struct vms_region *details_region(const struct ui *u, size_t row)
{
	return row < u->det.nrows ? details_node_region(u, &u->det.rows[row])
				  : NULL;
}

uint64_t details_figure(const struct ui *u, const struct drow *r,
			enum vms_col c)
{
	if (c == VMS_COL_BLOCKS) /* the regions a row stands for */
		return r->kind == DROW_ALLOC   ? u->det.allocs[r->idx].n
		       : r->kind == DROW_CHILD ? 0
					       : 1;
	if (r->kind == DROW_ALLOC)
		return vms_alloc_figure(u->snap, &u->det.allocs[r->idx], c);
	if (r->kind == DROW_GAP)
		return c == VMS_COL_SIZE ? u->det.gaps[r->idx].end -
						   u->det.gaps[r->idx].start
					 : 0;
	return vms_column_region(&u->snap->regions[r->idx], c);
}

/* The text a row sorts by in the Details column. */
static const char *row_text(const struct ui *u, const struct drow *r)
{
	const struct vms_region *g = details_node_region(u, r);

	return g ? details_region_text(g) : "";
}

/* A row with what it sorts by, read once before the sort: the
 * comparisons then touch neither the snapshot nor the allocations (with
 * a million rows, reading them in every comparison was most of a sort). */
struct sort_key {
	uint64_t k; /* the figure, type, or Prot's letters (big-endian) */
	uint64_t start; /* ties: by address */
	const char *text; /* Details: its text; else NULL */
	struct drow r;
};

static void sort_key_of(const struct ui *u, const struct drow *r,
			struct sort_key *o)
{
	int sort = u->det.sort, f = sort_figure(sort);
	uint64_t end;

	memset(o, 0, sizeof(*o));
	o->r = *r;
	details_row_span(u, r, &o->start, &end);
	if (f >= 0) {
		o->k = details_figure(u, r, (enum vms_col)f);
	} else if (sort == DS_TYPE) {
		const struct vms_region *g = details_node_region(u, r);

		o->k = g ? g->type : VMS_T_FREE;
	} else if (sort == DS_COL + VMS_DCOL_PROT) {
		char b[8] = { 0 };
		int i;

		details_row_perms(u, r, b);
		for (i = 0; i < 8; i++) /* strcmp's order as a number */
			o->k = o->k << 8 | (unsigned char)b[i];
	} else if (sort == DS_ADDRESS) {
		o->k = o->start;
	} else {
		o->text = row_text(u, r);
	}
}

/* ctx: an int, -1 to put the larger first, else 1 */
static int cmp_keys(const void *pa, const void *pb, void *ctx)
{
	const struct sort_key *a = pa, *b = pb;
	int c;

	if (a->text)
		c = strcmp(a->text, b->text);
	else
		c = a->k < b->k ? -1 : a->k > b->k;
	c *= *(const int *)ctx;
	if (c == 0)
		c = a->start < b->start ? -1 : a->start > b->start;
	return c;
}

/* A row and its figure, for the radix sort. */
struct rkey {
	uint64_t k;
	struct drow r;
};

/* Stable LSD radix sort by k, a byte a pass; a pass whose byte is the
 * same in every key is skipped (a figure's top bytes mostly are). O(n):
 * a million rows sort in some ten passes over 16 MB, where qsort's
 * twenty million comparisons took 0.5 s. false: out of memory. */
static bool radix_sort(struct rkey *a, size_t n)
{
	struct rkey *tmp = malloc(n * sizeof(*tmp)), *from = a, *to = tmp;
	unsigned shift;

	if (!tmp)
		return false;
	for (shift = 0; shift < 64; shift += 8) {
		size_t count[256] = { 0 }, i, at = 0;
		unsigned b;

		for (i = 0; i < n; i++)
			count[(from[i].k >> shift) & 0xff]++;
		if (count[(from[0].k >> shift) & 0xff] == n)
			continue;
		for (b = 0; b < 256; b++) {
			size_t c = count[b];

			count[b] = at;
			at += c;
		}
		for (i = 0; i < n; i++)
			to[count[(from[i].k >> shift) & 0xff]++] = from[i];
		from = to;
		to = from == a ? tmp : a;
	}
	if (from != a)
		memcpy(a, from, n * sizeof(*a));
	free(tmp);
	return true;
}

/* Sorts the top rows by the details' sort column: figures largest first
 * unless the column says otherwise, S reverses; ties by address. A figure,
 * the type or Prot sorts by its number with a stable radix sort of the
 * rows, which come in address order; the Details text with qsort. */
static void sort_tops(const struct ui *u, struct drow *tops, size_t n)
{
	int f = sort_figure(u->det.sort), sign = 1;
	struct sort_key *k;
	size_t i;

	if (f >= 0 && !vms_column_has((enum vms_col)f, VMS_COLF_ASCENDING))
		sign = -sign;
	if (u->det.reverse)
		sign = -sign;
	if (n > 1 &&
	    (f >= 0 || u->det.sort == DS_TYPE || u->det.sort == DS_ADDRESS ||
	     u->det.sort == DS_COL + VMS_DCOL_PROT)) {
		struct rkey *rk = malloc(n * sizeof(*rk));
		struct sort_key one;

		if (!rk)
			return; /* out of memory: left in address order */
		for (i = 0; i < n; i++) {
			sort_key_of(u, &tops[i], &one);
			rk[i].k = sign < 0 ? ~one.k : one.k;
			rk[i].r = tops[i];
		}
		if (radix_sort(rk, n))
			for (i = 0; i < n; i++)
				tops[i] = rk[i].r;
		free(rk);
		return;
	}
	k = malloc(n * sizeof(*k));
	if (!k)
		return; /* out of memory: left in address order */
	for (i = 0; i < n; i++)
		sort_key_of(u, &tops[i], &k[i]);
	qsort_r(k, n, sizeof(*k), cmp_keys, &sign);
	for (i = 0; i < n; i++)
		tops[i] = k[i].r;
	free(k);
}

const char *details_row_perms(const struct ui *u, const struct drow *r,
			      char *buf)
{
	const struct vms_region *g = details_node_region(u, r);
	const struct vms_alloc *a;
	unsigned p = 0;
	uint32_t k;

	if (!g) {
		buf[0] = '\0';
		return buf;
	}
	if (r->kind != DROW_ALLOC)
		return export_perms(g, buf);
	/* every permission one of its regions has ("r-xp" and "rw-p" read
	 * "rwxp"), shared or private as its main */
	a = &u->det.allocs[r->idx];
	for (k = 0; k < a->n; k++)
		p |= u->snap->regions[a->first + k].perms;
	buf[0] = p & VMS_PERM_R ? 'r' : '-';
	buf[1] = p & VMS_PERM_W ? 'w' : '-';
	buf[2] = p & VMS_PERM_X ? 'x' : '-';
	buf[3] = g->perms & VMS_PERM_SHARED ? 's' : 'p';
	buf[4] = '\0';
	return buf;
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

bool details_same_node(const struct drow *a, const struct drow *b)
{
	return a->kind == b->kind && a->idx == b->idx &&
	       (a->kind != DROW_CHILD || a->child == b->child);
}

size_t details_emit(const struct ui *u, const struct drow *top, bool all,
		    int (*fn)(void *ctx, struct drow r), void *ctx)
{
	const struct details *d = &u->det;
	const struct vms_snapshot *s = u->snap;
	uint32_t first = top->idx, n = 1, k, c;
	uint8_t depth = 0;
	size_t out = 0;

	if (fn(ctx, *top) < 0)
		return 0;
	out++;
	if (top->kind == DROW_GAP || top->kind == DROW_CHILD)
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
static struct drow top_of(const struct details *d, uint32_t i)
{
	const struct vms_alloc *a =
		d->by_region ? NULL : details_alloc_of(d, i);

	if (a && a->n > 1)
		return (struct drow){ d->alloc_of[i], DROW_ALLOC, 0, 0 };
	return (struct drow){ i, DROW_REGION, 0, 0 };
}

/* The top rows in address order, filtered: allocations (or regions) and
 * the gaps asked for. */
static size_t tops_of(const struct ui *u, struct drow *tops)
{
	const struct details *d = &u->det;
	const struct vms_snapshot *s = u->snap;
	size_t i = 0, gi = 0, n = 0;

	for (;;) {
		uint64_t at =
			i < s->nregions ? s->regions[i].start : UINT64_MAX;
		struct drow t;

		for (; gi < d->ngaps && d->gaps[gi].start <= at; gi++)
			if (d->filter == VMS_T_FREE ||
			    (d->filter == -1 && d->show_free))
				tops[n++] = (struct drow){ (uint32_t)gi,
							   DROW_GAP, 0, 0 };
		if (i >= s->nregions)
			break;
		t = top_of(d, (uint32_t)i);
		if (d->filter == -1 ||
		    d->filter == details_node_region(u, &t)->type)
			tops[n++] = t;
		i += t.kind == DROW_ALLOC ? d->allocs[t.idx].n : 1;
	}
	return n;
}

void details_rebuild(struct ui *u)
{
	struct details *d = &u->det;
	const struct vms_snapshot *s = u->snap;
	struct drow keep = { 0, 0, 0, 0 }, *tops;
	bool had = d->cur < d->nrows;
	size_t i, ntops;
	uint64_t ka = 0, kb;

	if (had) {
		keep = d->rows[d->cur];
		span_of(d, s, &keep, &ka, &kb);
	}
	tops = malloc((s->nregions + d->ngaps + 1) * sizeof(*tops));
	if (!tops)
		return;
	ntops = tops_of(u, tops);
	if (d->sort != DS_ADDRESS || d->reverse)
		sort_tops(u, tops, ntops);
	/* a row per top row and room for what is open: sized once, not
	 * doubled past a million rows */
	if (d->cap < ntops) {
		size_t cap = ntops + ntops / 16 + 1024;
		struct drow *n = realloc(d->rows, cap * sizeof(*n));

		if (n) {
			d->rows = n;
			d->cap = cap;
		}
	}
	d->nrows = 0;
	for (i = 0; i < ntops; i++)
		details_emit(u, &tops[i], false, push_cb, d);
	free(tops);
	/* the cursor stays on its row, or on the row now holding it */
	if (had) {
		for (i = 0; i < d->nrows; i++)
			if (details_same_node(&d->rows[i], &keep))
				break;
		if (i < d->nrows)
			d->cur = i;
		else
			details_cursor_to(u, ka, NULL);
	}
	if (d->cur >= d->nrows)
		d->cur = d->nrows ? d->nrows - 1 : 0;
	cursor_show(d->cur, &d->top, d->nrows, d->h);
}

/* ---- the cursor by address, and what a new snapshot keeps ---- */

void details_cursor_to(struct ui *u, uint64_t addr, const char *child)
{
	struct details *d = &u->det;
	size_t i, best = d->nrows;

	/* the deepest row holding addr (the region rather than its
	 * allocation), then its child named child */
	for (i = 0; i < d->nrows; i++) {
		const struct drow *r = &d->rows[i];
		uint64_t a, b;

		if (r->kind == DROW_CHILD) {
			if (child && best < d->nrows &&
			    d->rows[best].kind == DROW_REGION &&
			    r->idx == d->rows[best].idx &&
			    strcmp(u->snap->regions[r->idx]
					   .children[r->child]
					   .name,
				   child) == 0) {
				best = i;
				break;
			}
			continue;
		}
		details_row_span(u, r, &a, &b);
		if (addr >= a && addr < b)
			best = i;
	}
	if (best < d->nrows)
		d->cur = best;
	cursor_show(d->cur, &d->top, d->nrows, d->h);
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
	if (!old || d->cur >= d->nrows)
		return;
	r = &d->rows[d->cur];
	/* old may be a layout the capture wrote over (pipeline.h,
	 * vms_lend_begin): its rows are its own, its regions the capture's,
	 * perhaps fewer, with other children */
	if (r->kind == DROW_ALLOC
		    ? d->allocs[r->idx].first + d->allocs[r->idx].n >
			      old->nregions
		    : r->kind != DROW_GAP && r->idx >= old->nregions)
		return;
	span_of(d, old, r, &k->cur_addr, &b);
	if (r->kind == DROW_CHILD && r->child < old->regions[r->idx].nchildren)
		k->cur_child = old->regions[r->idx].children[r->child].name;
	k->has_cur = true;
	k->cur_row = d->cur - d->top;
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
	struct details *d = &u->det;
	struct dcarry k;
	size_t i;

	carry_take(&k, d, old,
		   old && u->snap && old->proc.pid == u->snap->proc.pid);
	details_free(d);
	d->cur = d->top = 0;
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
		d->top = d->cur >= k.cur_row ? d->cur - k.cur_row : 0;
		cursor_show(d->cur, &d->top, d->nrows, d->h);
	}
free_carry:
	free(k.starts);
	free(k.bits);
}

/* ---- expanding ---- */

void details_open_path(struct ui *u, const struct drow *r)
{
	struct details *d = &u->det;
	const struct vms_alloc *a;

	if (r->kind == DROW_GAP || r->kind == DROW_ALLOC)
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
	struct details *d = &u->det;
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
	struct details *d = &u->det;
	struct drow r;
	const struct vms_region *g;
	size_t shown;

	if (d->cur >= d->nrows)
		return 0;
	r = d->rows[d->cur];
	if (r.kind == DROW_GAP)
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
	if (shown && d->h > 0) {
		size_t last = d->cur, hh = (size_t)d->h;

		while (last + 1 < d->nrows &&
		       d->rows[last + 1].depth > d->rows[d->cur].depth)
			last++;
		if (last >= d->top + hh)
			d->top =
				last - hh + 1 > d->cur ? d->cur : last - hh + 1;
	}
	return UI_DRAW;
}

int details_toggle(struct ui *u)
{
	const struct drow *r;
	const struct details *d = &u->det;

	if (d->cur >= d->nrows)
		return 0;
	r = &d->rows[d->cur];
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
	struct details *d = &u->det;

	if (d->filter != -1 || d->sort != DS_ADDRESS || d->reverse) {
		d->filter = -1;
		d->sort = DS_ADDRESS;
		d->reverse = false;
		details_rebuild(u);
	}
	details_cursor_to(u, addr, NULL);
	u->focus = 1;
	return UI_DRAW;
}
