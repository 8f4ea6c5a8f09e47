/* pane_details_draw.c — drawing the details pane: the heading (the sort
 * column marked) and the visible rows, each in its type's colour, with the
 * columns chosen in the setup (u->conf, config.h), in its order, as many
 * as fit the terminal (pane_details.c makes the rows); with the setup's
 * Change and a snapshot to compare with, each figure's change beside it
 * (headed "+/-") where it fits after the figures.
 *
 * Contract: draws only the visible rows (the details' listview, placed
 * here); reads the rows and the snapshot, changes nothing but the
 * listview's placing (its top keeps the cursor visible).
 */
#include <stdio.h>
#include <string.h>

#include "core/draw.h"
#include "export/export_util.h"
#include "model/columns.h"
#include "panes/panes.h"

enum {
	X_MARK = 0,
	X_NOTE = 1,
	X_ADDR = 2,
	X_TYPE = 19,
	X_COLS = 32,
	MIN_DETAILS = 20,
	/* what Details keeps on the narrowest terminal (60 columns), for
	 * Size and WS: its heading and a file name's start (details_least) */
	MIN_DETAILS_NARROW = 10,
	DELTA_W = 8 /* a change: a sign and fmt_size's 6 ("+9999 K") */
};

/* A column on screen: its id (config.h), where and how wide; delta: the
 * change of figure id beside it. */
struct dcol {
	int id, x, w;
	bool delta;
};

/* The columns shown, left to right, from Size's place on. */
struct dlayout {
	struct dcol c[2 * VMS_CONFIG_MAX];
	int n;
};

/* The width of a column's field (its heading or the widest figure). */
static int col_width(int id)
{
	int w = (int)strlen(vms_config_name(id));

	if (id == VMS_DCOL_PROT)
		return 4;
	if (id == VMS_COL_WS)
		w = 2; /* headed "WS" */
	if (id == VMS_COL_BLOCKS)
		return w;
	return w > 8 ? w : 8; /* fmt_size is at most 7, and a mark */
}

static const char *col_head(int id)
{
	return id == VMS_COL_WS ? "WS" : vms_config_name(id);
}

/* The least Details keeps beside the figures: MIN_DETAILS_NARROW on the
 * narrowest terminal, a column more for each column wider, MIN_DETAILS
 * from 10 columns wider on; so the room left for the figures never
 * shrinks as the terminal widens (from 60 to 70 columns it is 18: Size
 * and WS). */
static int details_least(int cols)
{
	int m = cols - UI_MIN_COLS + MIN_DETAILS_NARROW;

	return m < MIN_DETAILS_NARROW ? MIN_DETAILS_NARROW
	       : m > MIN_DETAILS      ? MIN_DETAILS
				      : m;
}

/* The columns chosen in the setup (u->conf), in their order, as many as
 * fit: Details (if shown) keeps details_least() columns and takes what
 * is left; the figures are taken in order, each that fits in the rest (a
 * wide one that does not is left out, a narrower one after it may still
 * fit), each followed by its change where beside (changes_beside) and it
 * still fits (at 80 columns Size, its change and Committed). Prot gives
 * way first: it is shown only when every figure chosen (and its change)
 * is, and beside the whole MIN_DETAILS (the figures a VMMap user watches
 * stay before it: at 60 to 70 columns Size and WS, at 80 Size, Committed
 * and WS). The room never shrinks as the terminal widens, so neither
 * does the number of columns shown (test_columns_width.py, 60 to 80). */
static struct dlayout layout_for(const struct ui *u, int cols)
{
	const struct vms_config *cf = &u->conf;
	struct dlayout l;
	bool fit[VMS_CONFIG_MAX] = { false }, dfit[VMS_CONFIG_MAX] = { false };
	bool details = false, all = true, beside = changes_beside(u);
	int room = cols - X_COLS, used = 0, k, x = X_COLS;

	for (k = 0; k < cf->n; k++)
		if (cf->order[k] == VMS_DCOL_DETAILS &&
		    cf->shown[VMS_DCOL_DETAILS])
			details = true;
	if (details)
		room -= details_least(cols);
	for (k = 0; k < cf->n; k++) {
		int id = cf->order[k];

		if (!cf->shown[id] || id == VMS_DCOL_DETAILS ||
		    id == VMS_DCOL_CHANGE || id == VMS_DCOL_PROT)
			continue;
		if (used + col_width(id) + 1 <= room) {
			fit[k] = true;
			used += col_width(id) + 1;
		}
		if (fit[k] && beside && id < VMS_NCOLS) {
			if (used + DELTA_W + 1 <= room) {
				dfit[k] = true;
				used += DELTA_W + 1;
			} else {
				all = false;
			}
		}
		all = all && fit[k];
	}
	room = cols - X_COLS - (details ? MIN_DETAILS : 0);
	for (k = 0; k < cf->n && all; k++)
		if (cf->order[k] == VMS_DCOL_PROT && cf->shown[VMS_DCOL_PROT] &&
		    used + col_width(VMS_DCOL_PROT) + 1 <= room) {
			fit[k] = true;
			used += col_width(VMS_DCOL_PROT) + 1;
		}
	l.n = 0;
	for (k = 0; k < cf->n; k++) {
		int id = cf->order[k];
		struct dcol *c = &l.c[l.n];

		if (id == VMS_DCOL_DETAILS && details) {
			c->w = cols - X_COLS - used;
		} else if (fit[k]) {
			c->w = col_width(id);
		} else {
			continue;
		}
		c->id = id;
		c->x = x;
		c->delta = false;
		x += c->w + 1;
		l.n++;
		if (dfit[k]) {
			c = &l.c[l.n++];
			c->id = id;
			c->x = x;
			c->w = DELTA_W;
			c->delta = true;
			x += c->w + 1;
		}
	}
	return l;
}

/* A heading shorter by a few letters, for the sort's mark inside a
 * field its name fills. */
static const char *short_head(const char *name)
{
	static const char *const abbr[][2] = {
		{ "Committed", "Commit" },    { "Private WS", "Priv WS" },
		{ "Shareable WS", "Shr WS" }, { "Shared WS", "Shrd WS" },
		{ "Locked WS", "Lock WS" },   { "Swap PSS", "SwPSS" },
		{ "Blocks", "Blks" },	      { "Private", "Priv" },
		{ "Details", "Det" },
	};
	size_t i;

	for (i = 0; i < sizeof(abbr) / sizeof(abbr[0]); i++)
		if (strcmp(name, abbr[i][0]) == 0)
			return abbr[i][1];
	return name;
}

/* A column's heading in w columns at x (right: right-aligned, as its
 * figures); the sort column is underlined and marked with its direction
 * beside the name, inside the field (issue 31: never in the blank between
 * two): a name that leaves no room for the mark is shortened. */
static void draw_head(const struct details *d, int y, int x, int w, bool right,
		      const char *name, int sort)
{
	attr_t a = theme_attr(EL_COLUMN);
	char buf[64];

	if (d->sort != sort) {
		if (right)
			put_right(y, x, w, a, name);
		else
			put_str(y, x, w, a, name, 1);
		return;
	}
	a |= A_BOLD | A_UNDERLINE;
	if (text_cols(name) + 2 > w)
		name = short_head(name);
	if (text_cols(name) + 2 > w) {
		/* still too long: the mark alone, as much of the name as
		 * fits after it */
		snprintf(buf, sizeof(buf), "%s%s", details_sort_arrow(d), name);
	} else if (right) {
		snprintf(buf, sizeof(buf), "%s %s", details_sort_arrow(d),
			 name);
	} else {
		snprintf(buf, sizeof(buf), "%s %s", name,
			 details_sort_arrow(d));
	}
	if (right && text_cols(buf) <= w)
		put_right(y, x, w, a, buf);
	else
		put_str(y, x, w, a, buf, 1);
}

static bool col_right(int id)
{
	return id < VMS_NCOLS;
}

int details_heading_y(const struct ui *u)
{
	return det_of(u)->lv.y - 1;
}

int details_heading_sort_at(const struct ui *u, int x)
{
	struct dlayout l = layout_for(u, COLS);
	int k;

	if (x >= X_ADDR && x < X_ADDR + 16)
		return DS_ADDRESS;
	if (x >= X_TYPE && x < X_TYPE + 12)
		return DS_TYPE;
	for (k = 0; k < l.n; k++)
		if (x >= l.c[k].x && x < l.c[k].x + l.c[k].w)
			return l.c[k].delta ? -1 /* a change: no sort */
					    : DS_COL + l.c[k].id;
	return -1;
}

int details_sorts(const struct ui *u, int *out)
{
	struct dlayout l = layout_for(u, COLS);
	int n = 0, k;

	out[n++] = DS_ADDRESS;
	for (k = 0; k < l.n; k++)
		if (!l.c[k].delta)
			out[n++] = DS_COL + l.c[k].id;
	out[n++] = DS_TYPE;
	return n;
}

bool details_sort_shown(const struct ui *u)
{
	int seq[DS_COUNT], n = details_sorts(u, seq), k;

	for (k = 0; k < n; k++)
		if (seq[k] == det_of(u)->sort)
			return true;
	return false;
}

static void draw_heading(const struct details *d, int y,
			 const struct dlayout *l)
{
	int k;

	put_blank(y, 0, COLS, theme_attr(EL_COLUMN));
	draw_head(d, y, X_ADDR, 16, false, "Address", DS_ADDRESS);
	draw_head(d, y, X_TYPE, 12, false, "Type", DS_TYPE);
	for (k = 0; k < l->n; k++)
		if (l->c[k].delta)
			put_right(y, l->c[k].x, l->c[k].w,
				  theme_attr(EL_COLUMN), "+/-");
		else
			draw_head(d, y, l->c[k].x, l->c[k].w,
				  col_right(l->c[k].id), col_head(l->c[k].id),
				  DS_COL + l->c[k].id);
}

/* What the Details column shows in w columns: text and the state words
 * as they are when they fit; a path that does not fit is shown by its
 * file name first, then its directory shortened in the middle
 * ("libc.so.6  /usr/li...-linux-gnu"), so a narrow terminal still tells
 * one library from another. */
static void details_text(const char *t, const char *words, int w, char *out,
			 size_t n)
{
	const char *slash = strrchr(t, '/');
	char dir[512];
	int room, dl, head;

	snprintf(out, n, "%s%s", t, words);
	if (text_cols(out) <= w || *t != '/' || !slash || !slash[1])
		return;
	snprintf(out, n, "%s%s", slash + 1, words);
	room = w - text_cols(out) - 2;
	dl = (int)(slash - t);
	if (room < 8 || dl <= 0)
		return;
	if (dl > (int)sizeof(dir) - 1)
		dl = (int)sizeof(dir) - 1;
	memcpy(dir, t, (size_t)dl);
	dir[dl] = '\0';
	if (text_cols(dir) > room) {
		head = (room - 3) / 2;
		snprintf(out, n, "%s%s  %.*s...%s", slash + 1, words, head, dir,
			 dir + dl - (room - 3 - head));
		return;
	}
	snprintf(out, n, "%s%s  %s", slash + 1, words, dir);
}

/* Whether a row has nothing committed (drawn as reserved). */
static bool row_reserved(const struct ui *u, const struct drow *r)
{
	struct viewer *v = viewer_of(u);
	const struct vms_alloc *a;
	uint32_t k;

	if (r->kind != DROW_ALLOC)
		return u->snap->regions[r->idx].flags & VMS_RF_RESERVED;
	a = &v->det.allocs[r->idx];
	for (k = 0; k < a->n; k++)
		if (!(u->snap->regions[a->first + k].flags & VMS_RF_RESERVED))
			return false;
	return true;
}

/* '+' closed, '-' open, ' ' nothing to open. */
static const char *row_mark(const struct ui *u, const struct drow *r)
{
	struct viewer *v = viewer_of(u);
	const struct details *d = &v->det;

	if (r->kind == DROW_ALLOC)
		return d->expanded[d->allocs[r->idx].first] & DEXP_ALLOC ? "-"
									 : "+";
	if (!u->snap->regions[r->idx].nchildren)
		return " ";
	return d->expanded[r->idx] & DEXP_REGION ? "-" : "+";
}

/* The Details of a row drawn at depth: text, indented. */
static void put_details(int y, const struct dcol *c, attr_t a, int depth,
			const char *text)
{
	put_fmt(y, c->x, c->w, a, "%*s%s", 2 * depth, "", text);
}

static void draw_child(struct ui *u, int y, const struct drow *r,
		       const struct dlayout *l)
{
	static const char *const kind[VMS_NTYPES] = {
		[VMS_T_IMAGE] = "section",
		[VMS_T_STACK] = "part",
		[VMS_T_HEAP] = "segment",
	};
	const struct vms_child *c =
		&u->snap->regions[r->idx].children[r->child];
	const char *k = kind[u->snap->regions[r->idx].type];
	attr_t base = theme_attr(EL_CHILD);
	char buf[32];
	int i;

	put_blank(y, 0, COLS, base);
	put_fmt(y, X_ADDR, 16, base, "%016llx", (unsigned long long)c->start);
	/* a typed part (model/parts.h): its type and its own figures */
	if (c->part)
		k = vms_type_info[c->part->type].label;
	/* a label that the indent would cut ("Managed Heap") is not
	 * indented */
	put_fmt(y, X_TYPE, 12, base, "%*s%s",
		k && strlen(k) + 2u * (unsigned)r->depth > 12 ? 0
							      : 2 * r->depth,
		"", k ? k : "");
	for (i = 0; i < l->n; i++) {
		const struct dcol *dc = &l->c[i];

		/* D: a child's own figures are not deltas: not shown; nor a
		 * change beside them (a part is not matched) */
		if ((viewer_of(u)->chg_show && dc->id != VMS_DCOL_DETAILS) ||
		    dc->delta)
			continue;
		if (c->part && dc->id != VMS_DCOL_DETAILS &&
		    dc->id < VMS_NCOLS &&
		    vms_column_has((enum vms_col)dc->id, VMS_COLF_REGION) &&
		    vms_row_known(u->snap, NULL, c->part, (enum vms_col)dc->id,
				  false))
			put_right(
				y, dc->x, dc->w, base,
				fmt_size(vms_column_region(
						 c->part, (enum vms_col)dc->id),
					 buf, sizeof(buf)));
		else if (dc->id == VMS_COL_SIZE)
			put_right(
				y, dc->x, dc->w, base,
				fmt_size(c->end - c->start, buf, sizeof(buf)));
		else if (dc->id == VMS_DCOL_DETAILS)
			put_details(y, dc, base, r->depth, c->name);
	}
}

/* The state words of a region (" [deleted, locked]"), or "". A path the
 * kernel already ends with " (deleted)" (a memfd's, a file removed) is
 * not said deleted twice. */
static void state_words(const struct vms_region *g, char *words, size_t n)
{
	static const char del[] = " (deleted)";
	const char *w[8], *text = details_region_text(g);
	size_t nw = export_state_words(g, w, 8), k, kept = 0, tl;
	int len = 0;

	tl = text ? strlen(text) : 0;
	for (k = 0; k < nw; k++)
		if (!(strcmp(w[k], "deleted") == 0 && tl >= sizeof(del) - 1 &&
		      strcmp(text + tl - (sizeof(del) - 1), del) == 0))
			w[kept++] = w[k];
	nw = kept;
	words[0] = '\0';
	for (k = 0; k < nw && len < (int)n - 40; k++)
		len += snprintf(words + len, n - (size_t)len, "%s%s%s",
				k ? ", " : " [", w[k], k + 1 == nw ? "]" : "");
}

/* A figure column of a region's row; "?" where the snapshot has no such
 * figures (a core's counters). */
static void put_figure(struct ui *u, int y, const struct dcol *c, attr_t a,
		       const struct drow *r)
{
	char buf[32];
	uint64_t v;

	/* a region's Committed a core does not know too */
	if (!vms_row_known(u->snap, NULL,
			   r->kind == DROW_REGION ? &u->snap->regions[r->idx]
						  : NULL,
			   (enum vms_col)c->id, false)) {
		put_right(y, c->x, c->w, a, "-");
		return;
	}
	if (viewer_of(u)->chg_show || c->delta) {
		int64_t d;
		bool known;

		if (!changes_figure_delta(u, r, (enum vms_col)c->id, &d,
					  &known))
			put_blank(y, c->x, c->w, a);
		else if (!known) /* against a core's Rss */
			put_right(y, c->x, c->w, a, "-");
		else
			put_right(y, c->x, c->w, a,
				  changes_delta_text(
					  d,
					  vms_column_has((enum vms_col)c->id,
							 VMS_COLF_COUNT),
					  buf, sizeof(buf)));
		return;
	}
	v = details_figure(u, r, (enum vms_col)c->id);
	if (vms_column_has((enum vms_col)c->id, VMS_COLF_COUNT))
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	else
		fmt_size(v, buf, sizeof(buf));
	put_right(y, c->x, c->w, a, buf);
}

/* An allocation or a region: its figures (an allocation's summed). */
static void draw_region(struct ui *u, int y, const struct drow *r,
			const struct dlayout *l)
{
	const struct vms_region *g = details_node_region(u, r);
	attr_t base = theme_attr(EL_NORMAL), ta;
	char buf[32], text[600], words[160], chg[40];
	const struct ui_note *notes;
	size_t nn = viewer_notes_kept(viewer_notes(u, &notes));
	uint64_t a, b;
	int i;

	details_row_span(u, r, &a, &b);
	if (row_reserved(u, r))
		base = ta = theme_attr(EL_RESERVED);
	else
		ta = theme_attr(theme_type(g->type));
	put_blank(y, 0, COLS, base);
	put_str(y, X_MARK, 1, base, row_mark(u, r), 1);
	/* a note is about these addresses: ! leads to it */
	if (nn && ui_note_of_span(notes, nn, a, b) >= 0)
		put_str(y, X_NOTE, 1, theme_attr(EL_ERROR) | A_BOLD, "!", 0);
	put_fmt(y, X_ADDR, 16, base, "%016llx", (unsigned long long)a);
	put_fmt(y, X_TYPE, 12, ta, "%*s%s", 2 * r->depth, "",
		vms_type_info[g->type].label);
	for (i = 0; i < l->n; i++) {
		const struct dcol *c = &l->c[i];

		if (c->id == VMS_COL_SIZE && !viewer_of(u)->chg_show &&
		    !c->delta) {
			put_right(y, c->x, c->w, base,
				  fmt_size(b - a, buf, sizeof(buf)));
		} else if (c->id == VMS_DCOL_PROT) {
			put_str(y, c->x, c->w, base,
				details_row_perms(u, r, buf), 1);
		} else if (c->id == VMS_DCOL_DETAILS) {
			/* what changed since the snapshot before, first */
			const char *ch =
				changes_row_text(u, r, chg, sizeof(chg));
			struct dcol rest = *c;

			if (ch) {
				int cw = text_cols(ch);

				put_fmt(y, c->x, c->w,
					theme_attr(EL_FIND) | A_BOLD, "%*s%s",
					2 * r->depth, "", ch);
				rest.x += 2 * r->depth + cw;
				rest.w -= 2 * r->depth + cw;
			}
			state_words(g, words, sizeof(words));
			if (r->kind == DROW_REGION) { /* its commit stack */
				char cw[96];
				size_t len = strlen(words);

				trace_commit_words(u, a, b, cw, sizeof(cw));
				snprintf(words + len, sizeof(words) - len, "%s",
					 cw);
			}
			details_text(details_region_text(g), words,
				     rest.w - (ch ? 0 : 2 * r->depth), text,
				     sizeof(text));
			if (rest.w > 0)
				put_details(y, &rest, base, ch ? 0 : r->depth,
					    text);
		} else {
			put_figure(u, y, c, base, r);
		}
	}
}

/* What the snapshot compared with had and this one has not: its start,
 * type and figures then (with D, how much went), "[removed]" and its
 * text, in the theme's diff.removed. */
static void draw_removed(struct ui *u, int y, const struct drow *r,
			 const struct dlayout *l)
{
	const struct details *d = det_of(u);
	const struct vms_diff_change *c = changes_removed(d, r);
	const struct vms_region *g = changes_removed_region(d, r);
	attr_t base = theme_attr(EL_DIFF_REMOVED);
	char buf[32], text[600];
	int i;

	put_blank(y, 0, COLS, base);
	put_fmt(y, X_ADDR, 16, base, "%016llx", (unsigned long long)c->start);
	put_str(y, X_TYPE, 12, base, vms_type_info[c->type].label, 1);
	for (i = 0; i < l->n; i++) {
		const struct dcol *dc = &l->c[i];

		if (dc->id == VMS_DCOL_PROT) {
			put_str(y, dc->x, dc->w, base,
				details_row_perms(u, r, buf), 1);
		} else if (dc->id == VMS_DCOL_DETAILS) {
			snprintf(text, sizeof(text), "[removed] %s",
				 details_region_text(g));
			put_details(y, dc, base, 0, text);
		} else if ((viewer_of(u)->chg_show || dc->delta) &&
			   !vms_diff_known(c, (enum vms_col)dc->id)) {
			put_right(y, dc->x, dc->w, base, "-");
		} else if (viewer_of(u)->chg_show || dc->delta) {
			put_right(
				y, dc->x, dc->w, base,
				changes_delta_text(
					vms_diff_delta(c, (enum vms_col)dc->id),
					vms_column_has((enum vms_col)dc->id,
						       VMS_COLF_COUNT),
					buf, sizeof(buf)));
		} else if (vms_column_has((enum vms_col)dc->id,
					  VMS_COLF_COUNT)) {
			put_fmt(y, dc->x, dc->w, base, "%*llu", dc->w,
				(unsigned long long)c->a.v[dc->id]);
		} else {
			put_right(y, dc->x, dc->w, base,
				  fmt_size(c->a.v[dc->id], buf, sizeof(buf)));
		}
	}
}

/* What a row is drawn with (listview_draw's ctx). */
struct row_ctx {
	struct ui *u;
	const struct dlayout *l;
};

static void draw_row(void *ctx, int y, size_t i, bool sel)
{
	struct ui *u = ((struct row_ctx *)ctx)->u;
	const struct dlayout *l = ((struct row_ctx *)ctx)->l;
	struct viewer *v = viewer_of(u);
	const struct drow *r = &v->det.rows[i];
	uint64_t a, b;
	int k;

	if (r->kind == DROW_GAP) {
		attr_t base = theme_attr(EL_FREE);

		details_row_span(u, r, &a, &b);
		put_blank(y, 0, COLS, base);
		put_fmt(y, X_ADDR, 16, base, "%016llx", (unsigned long long)a);
		put_str(y, X_TYPE, 12, base, "Free", 1);
		for (k = 0; k < l->n; k++)
			if ((l->c[k].id == VMS_COL_SIZE ||
			     l->c[k].id == VMS_COL_BLOCKS) &&
			    !l->c[k].delta)
				put_figure(u, y, &l->c[k], base, r);
	} else if (r->kind == DROW_CHILD) {
		draw_child(u, y, r, l);
	} else if (r->kind == DROW_REMOVED) {
		draw_removed(u, y, r, l);
	} else {
		draw_region(u, y, r, l);
	}
	if (sel) {
		attr_t sa = theme_attr(v->focus == 1 ? EL_SELECTION
						     : EL_SELECTION_IDLE);

		mvchgat(y, 0, COLS, sa & ~A_COLOR, (short)PAIR_NUMBER(sa),
			NULL);
	}
}

void details_draw(struct ui *u, int y, int h)
{
	struct details *d = det_of(u);
	struct dlayout l = layout_for(u, COLS);
	struct row_ctx rc = { u, &l };

	draw_heading(d, y, &l);
	listview_draw(&d->lv, y + 1, h - 1, d->nrows, draw_row, &rc);
	if (!d->nrows)
		put_str(d->lv.y, X_ADDR, COLS - X_ADDR, theme_attr(EL_DIM),
			d->filter == VMS_T_PAGE_TABLE
				? "(the page table is kernel memory: it has "
				  "no regions)"
				: "(no regions of this type)",
			1);
}
