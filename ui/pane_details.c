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

static void row_span(const struct ui *u, const struct drow *r, uint64_t *a,
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
		row_span(u, r, &a, &b);
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

static const char *region_text(const struct vms_region *r)
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

	row_span(u, a, &as, &ae);
	row_span(u, b, &bs, &be);
	if (sort == DS_DETAILS) {
		c = strcmp(a->kind == DROW_GAP
				   ? ""
				   : region_text(&u->snap->regions[a->idx]),
			   b->kind == DROW_GAP
				   ? ""
				   : region_text(&u->snap->regions[b->idx]));
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

static bool row_matches(const struct ui *u, const struct drow *r,
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

int details_find(struct ui *u, bool backwards)
{
	struct details *d = &u->det;
	char needle[sizeof(u->find)];
	size_t i, k;

	for (i = 0; u->find[i]; i++)
		needle[i] = (char)(u->find[i] >= 'A' && u->find[i] <= 'Z'
					   ? u->find[i] + 32
					   : u->find[i]);
	needle[i] = '\0';
	if (!*needle || !d->nrows)
		return 0;
	for (k = 1; k <= d->nrows; k++) {
		i = backwards ? (d->cur + d->nrows - k) % d->nrows
			      : (d->cur + k) % d->nrows;
		if (row_matches(u, &d->rows[i], needle)) {
			d->cur = i;
			u->focus = 1;
			cursor_show(d->cur, &d->top, d->nrows, d->h);
			return UI_DRAW;
		}
	}
	ui_message(u, true, "not found: %s", u->find);
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

/* ---- drawing ---- */

enum { X_MARK = 0, X_ADDR = 2, X_TYPE = 19, X_SIZE = 32, MIN_DETAILS = 24 };

/* Where the columns after Size go; 0: not shown. On a narrow terminal
 * Private WS, then Committed, then WS give way so Details keeps room. */
struct dlayout {
	int commit, ws, pws, prot, details;
};

static struct dlayout layout_for(int cols)
{
	struct dlayout l;
	bool commit = true, ws = true, pws = true;
	int x;

	for (;;) {
		int need = X_SIZE + 9 + (commit ? 10 : 0) + (ws ? 9 : 0) +
			   (pws ? 11 : 0) + 5;

		if (cols - need >= MIN_DETAILS || !(pws || commit || ws))
			break;
		if (pws)
			pws = false;
		else if (commit)
			commit = false;
		else
			ws = false;
	}
	x = X_SIZE + 9;
	l.commit = commit ? x : 0;
	x += commit ? 10 : 0;
	l.ws = ws ? x : 0;
	x += ws ? 9 : 0;
	l.pws = pws ? x : 0;
	x += pws ? 11 : 0;
	l.prot = x;
	l.details = x + 5;
	return l;
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

/* A column's heading in w columns at x (right: right-aligned, as its
 * figures); the sort column is underlined and marked with its direction,
 * beside the name (in the blank column left of a right-aligned field). */
static void draw_head(const struct details *d, int y, int x, int w, bool right,
		      const char *name, int sort)
{
	attr_t a = theme_attr(EL_COLUMN);
	int len = text_cols(name);

	if (d->sort != sort) {
		if (right)
			put_right(y, x, w, a, name);
		else
			put_str(y, x, w, a, name, 1);
		return;
	}
	a |= A_BOLD | A_UNDERLINE;
	if (right) {
		put_right(y, x, w, a, name);
		put_str(y, x + w - len - (len + 2 <= w ? 2 : 1), 1, a,
			details_sort_arrow(d), 1);
	} else {
		put_str(y, x, w, a, name, 1);
		if (len + 2 <= w)
			put_str(y, x + len + 1, 1, a, details_sort_arrow(d), 1);
	}
}

static void draw_heading(const struct details *d, int y,
			 const struct dlayout *l)
{
	put_blank(y, 0, COLS, theme_attr(EL_COLUMN));
	draw_head(d, y, X_ADDR, 16, false, "Address", DS_ADDRESS);
	draw_head(d, y, X_TYPE, 12, false, "Type", DS_TYPE);
	draw_head(d, y, X_SIZE, 8, true, "Size", DS_SIZE);
	if (l->commit)
		draw_head(d, y, l->commit, 9, true, "Committed", DS_COMMITTED);
	if (l->ws)
		draw_head(d, y, l->ws, 8, true, "WS", DS_WS);
	if (l->pws)
		draw_head(d, y, l->pws, 10, true, "Private WS", DS_PRIVATE_WS);
	draw_head(d, y, l->prot, 4, false, "Prot", -1);
	draw_head(d, y, l->details, COLS - l->details, false, "Details",
		  DS_DETAILS);
}

static void draw_row(struct ui *u, int y, size_t i, const struct dlayout *l)
{
	const struct drow *r = &u->det.rows[i];
	bool sel = i == u->det.cur;
	attr_t base = theme_attr(EL_NORMAL), ta;
	char buf[32], text[600];
	uint64_t a, b;

	row_span(u, r, &a, &b);
	if (r->kind == DROW_GAP) {
		base = ta = theme_attr(EL_FREE);
		put_blank(y, 0, COLS, base);
		put_fmt(y, X_ADDR, 16, base, "%016llx", (unsigned long long)a);
		put_str(y, X_TYPE, 12, ta, "Free", 1);
		put_right(y, X_SIZE, 8, base,
			  fmt_size(b - a, buf, sizeof(buf)));
	} else if (r->kind == DROW_CHILD) {
		const struct vms_child *c =
			&u->snap->regions[r->idx].children[r->child];

		static const char *const kind[VMS_NTYPES] = {
			[VMS_T_IMAGE] = "  section",
			[VMS_T_STACK] = "  part",
			[VMS_T_HEAP] = "  segment",
		};
		const char *k = kind[u->snap->regions[r->idx].type];

		base = ta = theme_attr(EL_CHILD);
		put_blank(y, 0, COLS, base);
		put_fmt(y, X_ADDR, 16, base, "%016llx",
			(unsigned long long)c->start);
		put_str(y, X_TYPE, 12, base, k ? k : "", 1);
		put_right(y, X_SIZE, 8, base,
			  fmt_size(c->end - c->start, buf, sizeof(buf)));
		put_fmt(y, l->details, COLS - l->details, base, "  %s",
			c->name);
	} else {
		const struct vms_region *g = &u->snap->regions[r->idx];
		const char *w[8];
		size_t nw = export_state_words(g, w, 8), k;
		int len;

		if (g->flags & VMS_RF_RESERVED)
			base = ta = theme_attr(EL_RESERVED);
		else
			ta = theme_attr(theme_type(g->type));
		put_blank(y, 0, COLS, base);
		if (g->nchildren)
			put_str(y, X_MARK, 1, base,
				u->det.expanded[r->idx] ? "-" : "+", 1);
		put_fmt(y, X_ADDR, 16, base, "%016llx", (unsigned long long)a);
		put_str(y, X_TYPE, 12, ta, vms_type_info[g->type].label, 1);
		put_right(y, X_SIZE, 8, base,
			  fmt_size(b - a, buf, sizeof(buf)));
		if (l->commit)
			put_right(y, l->commit, 9, base,
				  fmt_size(g->committed, buf, sizeof(buf)));
		if (l->ws)
			put_right(y, l->ws, 8, base,
				  fmt_size(g->c.rss, buf, sizeof(buf)));
		if (l->pws)
			put_right(y, l->pws, 10, base,
				  fmt_size(g->private_ws, buf, sizeof(buf)));
		put_str(y, l->prot, 4, base, export_perms(g, buf), 1);
		len = snprintf(text, sizeof(text), "%s", region_text(g));
		for (k = 0; k < nw && len < (int)sizeof(text) - 40; k++)
			len += snprintf(text + len, sizeof(text) - (size_t)len,
					"%s%s%s", k ? ", " : " [", w[k],
					k + 1 == nw ? "]" : "");
		put_str(y, l->details, COLS - l->details, base, text, 1);
	}
	if (sel) {
		attr_t sa = theme_attr(u->focus == 1 ? EL_SELECTION
						     : EL_SELECTION_IDLE);

		mvchgat(y, 0, COLS, sa & ~A_COLOR, (short)PAIR_NUMBER(sa),
			NULL);
	}
}

void details_draw(struct ui *u, int y, int h)
{
	struct details *d = &u->det;
	size_t i;
	int row;

	struct dlayout l = layout_for(COLS);

	d->h = h - 1;
	d->y = y + 1;
	draw_heading(d, y, &l);
	cursor_show(d->cur, &d->top, d->nrows, d->h);
	for (row = 0, i = d->top; row < d->h; row++, i++) {
		if (i < d->nrows)
			draw_row(u, d->y + row, i, &l);
		else
			put_blank(d->y + row, 0, COLS, theme_attr(EL_NORMAL));
	}
	if (!d->nrows)
		put_str(d->y, X_ADDR, COLS - X_ADDR, theme_attr(EL_DIM),
			d->filter == VMS_T_PAGE_TABLE
				? "(the page table is kernel memory: it has "
				  "no regions)"
				: "(no regions of this type)",
			1);
}
