/* pane_details.c — the details pane: one row per region (and per free gap),
 * filtered by type, sorted by a column, with expanded regions followed by
 * their children (ELF sections, stack parts, heap segments).
 *
 * The rows are a flat array rebuilt only when the filter, the sort or an
 * expansion changes; moving the cursor touches nothing but the visible
 * rows, so 65,000 regions cost no more per key than 40.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "draw.h"
#include "export_util.h"
#include "panes.h"

/* The sort keys that are figures: columns of the one table (columns.h),
 * which gives their name, their value and their direction. */
static const int sort_column[DS_COUNT] = {
	[DS_ADDRESS] = -1,
	[DS_SIZE] = VMS_COL_SIZE,
	[DS_COMMITTED] = VMS_COL_COMMITTED,
	[DS_WS] = VMS_COL_WS,
	[DS_PRIVATE_WS] = VMS_COL_PRIVATE_WS,
	[DS_TYPE] = -1,
	[DS_DETAILS] = -1,
};

const char *dsort_name(int s)
{
	if (sort_column[s] >= 0)
		return vms_columns[sort_column[s]].name;
	return s == DS_ADDRESS ? "Address" : s == DS_TYPE ? "Type" : "Details";
}

void details_free(struct details *d)
{
	free(d->rows);
	free(d->gaps);
	free(d->expanded);
	d->rows = NULL;
	d->gaps = NULL;
	d->expanded = NULL;
	d->nrows = d->cap = d->ngaps = 0;
}

/* The free gaps inside the user address range, as the totals count them
 * (the engine's one gap iterator). */
static void find_gaps(struct details *d, const struct vms_snapshot *s)
{
	struct vms_gap_iter it = vms_gaps(s);
	uint64_t a, b;

	d->gaps = calloc(s->nregions + 1, sizeof(*d->gaps));
	if (!d->gaps)
		return;
	while (vms_gap_next(&it, &a, &b)) {
		d->gaps[d->ngaps].start = a;
		d->gaps[d->ngaps++].end = b;
	}
}

/* The addresses a row spans (its gap's, or its region's in s). */
static void span_of(const struct details *d, const struct vms_snapshot *s,
		    const struct drow *r, uint64_t *a, uint64_t *b)
{
	if (r->kind == DROW_GAP) {
		*a = d->gaps[r->idx].start;
		*b = d->gaps[r->idx].end;
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

/* What a new snapshot of the same process keeps of the details: the
 * expanded regions (by start address), the cursor's row (its address, and
 * its child's name if on a child) and where on screen it was. */
struct dcarry {
	uint64_t *expanded;
	size_t nexpanded;
	uint64_t cur_addr;
	const char *cur_child; /* in the old snapshot, alive during reset */
	bool on_gap;
	size_t cur_row; /* cur - top */
};

static void carry_take(struct dcarry *k, const struct details *d,
		       const struct vms_snapshot *old, bool same_process)
{
	size_t i, n = 0;

	memset(k, 0, sizeof(*k));
	if (!old || d->cur >= d->nrows)
		return;
	{
		const struct drow *r = &d->rows[d->cur];
		uint64_t b;

		span_of(d, old, r, &k->cur_addr, &b);
		k->on_gap = r->kind == DROW_GAP;
		if (r->kind == DROW_CHILD)
			k->cur_child =
				old->regions[r->idx].children[r->child].name;
		k->cur_row = d->cur - d->top;
	}
	if (!same_process || !d->expanded)
		return;
	for (i = 0; i < old->nregions; i++)
		n += d->expanded[i] != 0;
	k->expanded = n ? malloc(n * sizeof(*k->expanded)) : NULL;
	if (!k->expanded)
		return;
	for (i = 0; i < old->nregions; i++)
		if (d->expanded[i])
			k->expanded[k->nexpanded++] = old->regions[i].start;
}

/* The cursor to the row of the region or gap holding addr (to its child
 * named child, if it has one). */
static void cursor_to(struct ui *u, uint64_t addr, const char *child)
{
	struct details *d = &u->det;
	size_t i;

	for (i = 0; i < d->nrows; i++) {
		const struct drow *r = &d->rows[i];
		uint64_t a, b;

		if (r->kind == DROW_CHILD)
			continue;
		details_row_span(u, r, &a, &b);
		if (addr < a || addr >= b)
			continue;
		d->cur = i;
		if (child && r->kind == DROW_REGION) {
			size_t j;

			for (j = i + 1;
			     j < d->nrows && d->rows[j].kind == DROW_CHILD &&
			     d->rows[j].idx == r->idx;
			     j++) {
				const struct vms_region *g =
					&u->snap->regions[r->idx];

				if (strcmp(g->children[d->rows[j].child].name,
					   child) == 0) {
					d->cur = j;
					break;
				}
			}
		}
		cursor_show(d->cur, &d->top, d->nrows, d->h);
		return;
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
	for (i = 0; d->expanded && i < k.nexpanded; i++) {
		ptrdiff_t at = vms_snapshot_find_index(u->snap, k.expanded[i]);

		if (at >= 0 && u->snap->regions[at].start == k.expanded[i])
			d->expanded[at] = 1;
	}
	details_rebuild(u);
	if (k.cur_addr || k.on_gap) {
		cursor_to(u, k.cur_addr, k.cur_child);
		/* the cursor where it was on screen, if the rows allow */
		d->top = d->cur >= k.cur_row ? d->cur - k.cur_row : 0;
		cursor_show(d->cur, &d->top, d->nrows, d->h);
	}
free_carry:
	free(k.expanded);
}

const struct vms_region *details_region(const struct ui *u, size_t row)
{
	const struct drow *r;

	if (row >= u->det.nrows)
		return NULL;
	r = &u->det.rows[row];
	return r->kind == DROW_GAP ? NULL : &u->snap->regions[r->idx];
}

const char *details_region_text(const struct vms_region *r)
{
	if (r->detail && *r->detail)
		return r->detail;
	return r->path ? r->path : "";
}

struct sortctx {
	const struct ui *u;
};

static uint64_t row_key(const struct ui *u, const struct drow *r, int sort)
{
	const struct vms_region *g;

	if (r->kind == DROW_GAP) {
		const struct dgap *gp = &u->det.gaps[r->idx];

		return sort == DS_SIZE	 ? gp->end - gp->start
		       : sort == DS_TYPE ? VMS_T_FREE
					 : 0;
	}
	g = &u->snap->regions[r->idx];
	if (sort_column[sort] >= 0)
		return vms_column_region(g, (enum vms_col)sort_column[sort]);
	return sort == DS_TYPE ? g->type : 0;
}

static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
	const struct ui *u = ctx;
	const struct drow *a = pa, *b = pb;
	int sort = u->det.sort, c = 0;
	uint64_t as, ae, bs, be;

	details_row_span(u, a, &as, &ae);
	details_row_span(u, b, &bs, &be);
	if (sort == DS_DETAILS) {
		c = strcmp(a->kind == DROW_GAP
				   ? ""
				   : details_region_text(
					     &u->snap->regions[a->idx]),
			   b->kind == DROW_GAP
				   ? ""
				   : details_region_text(
					     &u->snap->regions[b->idx]));
	} else if (sort != DS_ADDRESS) {
		uint64_t ka = row_key(u, a, sort), kb = row_key(u, b, sort);

		c = ka < kb ? -1 : ka > kb;
		/* figures: largest first unless the column says otherwise */
		if (sort_column[sort] >= 0 &&
		    !vms_column_has((enum vms_col)sort_column[sort],
				    VMS_COLF_ASCENDING))
			c = -c;
	}
	if (u->det.reverse)
		c = -c;
	if (c == 0)
		c = as < bs ? -1 : as > bs;
	return c;
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

void details_rebuild(struct ui *u)
{
	struct details *d = &u->det;
	const struct vms_snapshot *s = u->snap;
	struct drow keep = { 0, 0, 0 }, *tops;
	bool had = d->cur < d->nrows;
	size_t i, ntops = 0, pos = 0, gi = 0;

	if (had)
		keep = d->rows[d->cur];
	tops = malloc((s->nregions + d->ngaps + 1) * sizeof(*tops));
	if (!tops)
		return;
	/* regions and gaps in address order, filtered */
	for (i = 0; i <= s->nregions; i++) {
		uint64_t at =
			i < s->nregions ? s->regions[i].start : UINT64_MAX;

		for (; gi < d->ngaps && d->gaps[gi].start <= at; gi++)
			if (d->filter == VMS_T_FREE ||
			    (d->filter == -1 && d->show_free))
				tops[ntops++] = (struct drow){ (uint32_t)gi,
							       DROW_GAP, 0 };
		if (i < s->nregions &&
		    (d->filter == -1 || d->filter == s->regions[i].type))
			tops[ntops++] =
				(struct drow){ (uint32_t)i, DROW_REGION, 0 };
	}
	if (d->sort != DS_ADDRESS || d->reverse)
		qsort_r(tops, ntops, sizeof(*tops), cmp_rows, u);
	d->nrows = 0;
	for (i = 0; i < ntops; i++) {
		const struct vms_region *r;
		uint32_t c;

		if (push(d, tops[i]) < 0)
			break;
		if (tops[i].kind != DROW_REGION || !d->expanded[tops[i].idx])
			continue;
		r = &s->regions[tops[i].idx];
		for (c = 0; c < r->nchildren && c < UINT16_MAX; c++)
			push(d, (struct drow){ tops[i].idx, DROW_CHILD,
					       (uint16_t)c });
	}
	free(tops);
	/* the cursor stays on its row, or on the region a child was of */
	if (had) {
		for (i = 0; i < d->nrows; i++) {
			const struct drow *r = &d->rows[i];

			if (r->kind == keep.kind && r->idx == keep.idx &&
			    r->child == keep.child)
				break;
			if (keep.kind == DROW_CHILD && r->kind == DROW_REGION &&
			    r->idx == keep.idx)
				pos = i;
		}
		d->cur = i < d->nrows ? i : pos;
	}
	if (d->cur >= d->nrows)
		d->cur = d->nrows ? d->nrows - 1 : 0;
	cursor_show(d->cur, &d->top, d->nrows, d->h);
}

int details_expand(struct ui *u, bool open)
{
	struct details *d = &u->det;
	const struct drow *r;
	const struct vms_region *g;

	if (d->cur >= d->nrows)
		return 0;
	r = &d->rows[d->cur];
	if (r->kind == DROW_GAP)
		return 0;
	g = &u->snap->regions[r->idx];
	if (open && !g->nchildren) {
		ui_message(u, false, "this region has nothing to expand into");
		return UI_DRAW;
	}
	if (!open && !d->expanded[r->idx])
		return 0;
	d->expanded[r->idx] = open;
	details_rebuild(u);
	if (open && d->h > 0) {
		/* bring the children into view, the region staying on top */
		size_t last = d->cur + g->nchildren, hh = (size_t)d->h;

		if (last >= d->top + hh)
			d->top =
				last - hh + 1 > d->cur ? d->cur : last - hh + 1;
	}
	return UI_DRAW;
}

static bool node_matches(const struct ui *u, const struct drow *r,
			 const char *needle)
{
	const struct vms_region *g;
	char hex[32];

	if (r->kind == DROW_GAP)
		return contains_ci("free", needle);
	g = &u->snap->regions[r->idx];
	if (r->kind == DROW_CHILD)
		return contains_ci(g->children[r->child].name, needle);
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)g->start);
	return contains_ci(g->path, needle) || contains_ci(g->detail, needle) ||
	       contains_ci(vms_type_info[g->type].label, needle) ||
	       contains_ci(hex, needle);
}

static bool same_node(const struct drow *a, const struct drow *b)
{
	return a->kind == b->kind && a->idx == b->idx &&
	       (a->kind != DROW_CHILD || a->child == b->child);
}

/* Every node of the view in the order it is shown, as if every row were
 * expanded: the top rows in their sort order, each followed by all it
 * holds. Malloc'd into *out; the count, or 0. */
static size_t full_order(const struct ui *u, struct drow **out)
{
	const struct details *d = &u->det;
	size_t i, n = 0, cap = d->nrows + 64;
	struct drow *v = malloc(cap * sizeof(*v));

	for (i = 0; v && i < d->nrows; i++) {
		const struct drow *r = &d->rows[i];
		uint32_t c, nc;

		if (r->kind == DROW_CHILD)
			continue;
		nc = r->kind == DROW_REGION ? u->snap->regions[r->idx].nchildren
					    : 0;
		if (nc > UINT16_MAX)
			nc = UINT16_MAX;
		if (n + 1 + nc > cap) {
			struct drow *m;

			cap = (n + 1 + nc) * 2;
			m = realloc(v, cap * sizeof(*v));
			if (!m)
				break;
			v = m;
		}
		v[n++] = *r;
		for (c = 0; c < nc; c++)
			v[n++] = (struct drow){ r->idx, DROW_CHILD,
						(uint16_t)c };
	}
	*out = v;
	return v ? n : 0;
}

/* Makes node r a row (its region expanded if it is a child) and puts the
 * cursor on it. */
static void show_node(struct ui *u, const struct drow *r)
{
	struct details *d = &u->det;
	size_t i;

	if (r->kind == DROW_CHILD && !d->expanded[r->idx]) {
		d->expanded[r->idx] = 1;
		details_rebuild(u);
	}
	for (i = 0; i < d->nrows; i++)
		if (same_node(&d->rows[i], r)) {
			d->cur = i;
			break;
		}
	cursor_show(d->cur, &d->top, d->nrows, d->h);
}

int details_find(struct ui *u, bool backwards)
{
	struct details *d = &u->det;
	char needle[sizeof(u->find)];
	struct drow *v, hit = { 0, 0, 0 };
	size_t i, k, n, pos = 0, nhits = 0, hitno = 0;
	bool found = false;

	for (i = 0; u->find[i]; i++)
		needle[i] = (char)(u->find[i] >= 'A' && u->find[i] <= 'Z'
					   ? u->find[i] + 32
					   : u->find[i]);
	needle[i] = '\0';
	if (!*needle || !d->nrows)
		return 0;
	n = full_order(u, &v);
	for (i = 0; i < n; i++)
		if (d->cur < d->nrows && same_node(&v[i], &d->rows[d->cur]))
			pos = i;
	/* the first match after the cursor (before it: backwards), and how
	 * many there are, collapsed rows included */
	for (k = 1; k <= n; k++) {
		i = backwards ? (pos + n - k) % n : (pos + k) % n;
		if (!node_matches(u, &v[i], needle))
			continue;
		nhits++;
		if (!found) {
			found = true;
			hit = v[i];
		}
	}
	if (found) /* its number, counted in the order shown */
		for (i = 0; i < n; i++) {
			if (node_matches(u, &v[i], needle))
				hitno++;
			if (same_node(&v[i], &hit))
				break;
		}
	free(v);
	if (!found) {
		ui_message(u, true, "not found: %s", u->find);
		return UI_DRAW;
	}
	show_node(u, &hit);
	u->focus = 1;
	ui_message(u, false, "match %zu of %zu for \"%s\" (n next, N previous)",
		   hitno, nhits, u->find);
	return UI_DRAW;
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
	cursor_to(u, addr, NULL);
	u->focus = 1;
	return UI_DRAW;
}

const char *details_sort_arrow(const struct details *d)
{
	bool up = d->sort == DS_ADDRESS || d->sort == DS_TYPE ||
		  d->sort == DS_DETAILS ||
		  (sort_column[d->sort] >= 0 &&
		   vms_column_has((enum vms_col)sort_column[d->sort],
				  VMS_COLF_ASCENDING));

	return up != d->reverse ? "^" : "v";
}
