/* screen_diff.c — two snapshots side by side: A | B | Δ per type (Size,
 * Committed, Total WS, and Private on a wide terminal), then one row per
 * change (diff.h: a group of regions matched across the two), marked and
 * highlighted by what happened to it (added, removed, grown, shrunk,
 * changed); the rows are allocations, as the viewer's (diff_groups.h: an
 * image, a stack, an arena one row), or with `a` the groups of regions
 * the diff matched. Each row has A's, B's and the change's Committed,
 * then Total WS, Private and Size as the width allows (the types' order), each figure's
 * three columns under its name. `c` shows the unchanged rows too, or only
 * the changes; Enter on a type shows only its changes; Enter, Right or
 * `+` on a row opens it into its regions of both sides (each figure in
 * its side's column, its protection and path under Details), Left or `-`
 * closes it.
 *
 * Contract: compares u->hist.mark[0] (A) with mark[1] (B) on enter, with
 * vms_diff_make; the diff points into both, so when either leaves the
 * history (snapshot_changed) it is let go and the screen goes back to
 * the timeline. Every string drawn goes through put_str (escaped).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/draw.h"
#include "core/listview.h"
#include "core/ui_priv.h"
#include "export/export_util.h"
#include "model/diff.h"
#include "screens/diff_groups.h"

/* A row of the screen: an allocation's changes (or its unchanged
 * groups, when everything is shown; diff_groups.h), or, under an open
 * one, one of its regions. */
struct dfrow {
	uint32_t ch; /* index into diffview.gr.g */
	int32_t side; /* -1: the row itself; 0: A's region, 1: B's */
	uint32_t m; /* the region's group: gr.members[first + m] */
	uint32_t k; /* the region's place in that side's idx */
};

/* The screen's own state (u->data[SCR_DIFF]). */
struct diffview {
	const struct vms_snapshot *a, *b; /* the diff below is of these */
	struct vms_diff d;
	bool made;
	/* The rows: by allocation (by_region: by group of regions), in
	 * address order; only_changes shows those that changed alone. */
	struct dgroups gr;
	bool by_region;
	uint8_t *open; /* per row of gr */
	bool only_changes;
	int type_filter; /* -1 all, else a type */
	struct dfrow *rows;
	size_t nrows, cap;
	int focus; /* 0: the types, 1: the changes */
	int tcur; /* the types' cursor: a type, or VMS_NTYPES for Total */
	struct listview lv; /* the changes' */
	int ty; /* the types' first line */
};

static struct diffview *dv_of(const struct ui *u)
{
	return u->data[SCR_DIFF];
}

/* The types shown (Free is not a change), then Page Table and Total. */
enum { DT_PAGE_TABLE = VMS_T_PAGE_TABLE, DT_TOTAL = VMS_NTYPES };

/* The element a change (or an unchanged group) is drawn in. */
static attr_t change_attr(int ch)
{
	switch (ch) {
	case VMS_CH_ADDED:
		return theme_attr(EL_DIFF_ADDED);
	case VMS_CH_REMOVED:
		return theme_attr(EL_DIFF_REMOVED);
	case VMS_NCHANGES:
		return theme_attr(EL_NORMAL);
	default:
		return theme_attr(EL_DIFF_CHANGED);
	}
}

/* ---- the rows ---- */

static int push_row(struct diffview *v, struct dfrow r)
{
	if (v->nrows == v->cap) {
		size_t ncap = v->cap ? v->cap * 2 : 256;
		struct dfrow *n = realloc(v->rows, ncap * sizeof(*n));

		if (!n)
			return -1;
		v->rows = n;
		v->cap = ncap;
	}
	v->rows[v->nrows++] = r;
	return 0;
}

/* The rows again from the filter and what is open; the cursor stays on
 * its row. */
static void rebuild(struct diffview *v)
{
	uint32_t keep = v->nrows && v->lv.cur < v->nrows ? v->rows[v->lv.cur].ch
							 : UINT32_MAX;
	size_t i, k, m;
	int side;

	v->nrows = 0;
	v->lv.cur = 0;
	for (i = 0; i < v->gr.n; i++) {
		const struct dgroup *g = &v->gr.g[i];

		if (v->only_changes && g->change == VMS_NCHANGES)
			continue;
		if (v->type_filter >= 0 && g->type != v->type_filter)
			continue;
		if (i == keep)
			v->lv.cur = v->nrows;
		if (push_row(v, (struct dfrow){ (uint32_t)i, -1, 0, 0 }) < 0)
			return;
		if (!v->open[i])
			continue;
		/* A's regions, then B's */
		for (side = 0; side < 2; side++)
			for (m = 0; m < g->n; m++) {
				const struct vms_diff_change *c =
					v->gr.members[g->first + m];
				size_t n = side ? c->b.n : c->a.n;

				for (k = 0; k < n; k++)
					if (push_row(v,
						     (struct dfrow){
							     (uint32_t)i, side,
							     (uint32_t)m,
							     (uint32_t)k }) < 0)
						return;
			}
	}
}

/* The rows of the diff again, by allocation or by group (every row
 * closed, the cursor at the top). -1 on out of memory. */
static int regroup(struct diffview *v)
{
	dgroups_free(&v->gr);
	free(v->open);
	v->open = NULL;
	v->nrows = 0;
	if (dgroups_make(&v->d, v->by_region, &v->gr) < 0)
		return -1;
	v->open = calloc(v->gr.n ? v->gr.n : 1, 1);
	if (!v->open)
		return -1;
	v->lv.cur = v->lv.top = 0;
	rebuild(v);
	return 0;
}

static void forget(struct diffview *v)
{
	if (v->made)
		vms_diff_fini(&v->d);
	dgroups_free(&v->gr);
	free(v->open);
	v->open = NULL;
	v->nrows = 0;
	v->made = false;
	v->a = v->b = NULL;
}

/* The diff of a and b and its rows. -1 on out of memory. */
static int make(struct diffview *v, const struct vms_snapshot *a,
		const struct vms_snapshot *b)
{
	struct vms_error err = { 0 };

	forget(v);
	if (vms_diff_make(a, b, &v->d, &err) < 0)
		return -1;
	v->made = true;
	v->a = a;
	v->b = b;
	v->type_filter = -1;
	v->tcur = DT_TOTAL;
	if (regroup(v) < 0) {
		forget(v);
		return -1;
	}
	return 0;
}

/* ---- drawing ---- */

static bool wide(void)
{
	return COLS >= 120;
}

/* A side's line: the file it was loaded from (one that is not tells a
 * live capture), its process, time and command line. */
static void side_line(const struct ui *u, int y, const char *label,
		      const struct vms_snapshot *s)
{
	const char *file = ui_file_of(u, s, true);
	char when[40];

	export_taken_at(s, when, sizeof(when));
	put_fmt(y, 0, COLS, theme_attr(EL_NORMAL),
		" %s %s%s%s%s  pid %d  %s  %s", label, file ? "file " : "",
		file ? file : "", file ? "  " : "",
		s->proc.name ? s->proc.name : "?", (int)s->proc.pid, when,
		s->proc.cmdline ? s->proc.cmdline : "");
}

/* A type's (or Total's, or Page Table's) figure of one side. */
static uint64_t type_fig(const struct vms_snapshot *s, int t, enum vms_col c)
{
	if (t == DT_TOTAL)
		return vms_column_type(&s->total, c);
	if (t == DT_PAGE_TABLE)
		return c == VMS_COL_BLOCKS ? 0 : s->page_table;
	return vms_column_type(&s->types[t], c);
}

/* Whether s knows type row t's figure of column c (columns.h: a core's
 * Rss, or Committed of a row with its anonymous memory, is not). */
static bool type_known(const struct vms_snapshot *s, int t, enum vms_col c)
{
	if (t == DT_TOTAL)
		return vms_row_known(s, &s->total, NULL, c, false);
	return vms_row_known(s, &s->types[t], NULL, c, t == DT_PAGE_TABLE);
}

/* Three fields, A B Δ, of w columns each from x; returns the next x. A
 * side's figure "-" where it is not known (ka, kb: a core's Rss), and the
 * change unless both are, as -d A B -s prints them. */
static int abd(int y, int x, int w, attr_t at, uint64_t a, uint64_t b, bool ka,
	       bool kb)
{
	char s1[16], s2[16], s3[16];

	put_fmt(y, x, 3 * w, at, "%*s%*s%*s", w,
		ka ? fmt_size(a, s1, sizeof(s1)) : "-", w,
		kb ? fmt_size(b, s2, sizeof(s2)) : "-", w,
		ka && kb ? fmt_size_delta((int64_t)(b - a), s3, sizeof(s3))
			 : "-");
	return x + 3 * w;
}

static const enum vms_col type_cols[] = { VMS_COL_COMMITTED, VMS_COL_WS,
					  VMS_COL_PRIVATE, VMS_COL_SIZE };
static const char *const type_heads[] = { "Committed", "Total WS", "Private",
					  "Size" };

static int ncols(void)
{
	return COLS >= 160 ? 4 : wide() ? 3 : 2;
}

static void draw_types(struct ui *u, int y)
{
	const struct diffview *v = dv_of(u);
	int t, x, k, w = 8, nc = ncols();

	put_blank(y, 0, COLS, theme_attr(EL_COLUMN));
	put_blank(y + 1, 0, COLS, theme_attr(EL_COLUMN));
	put_str(y + 1, 0, 14, theme_attr(EL_COLUMN), " Type", 1);
	for (k = 0, x = 14; k < nc; k++, x += 3 * w + 2) {
		put_fmt(y, x, 3 * w, theme_attr(EL_COLUMN), "%*s", 2 * w,
			type_heads[k]);
		put_fmt(y + 1, x, 3 * w, theme_attr(EL_COLUMN), "%*s%*s%*s", w,
			"A", w, "B", w, "change");
	}
	for (t = 0; t <= DT_TOTAL; t++) {
		int row = y + 2 + (t > VMS_T_FREE ? t - 1 : t);
		bool sel = v->tcur == t;
		attr_t at =
			sel ? theme_attr(v->focus == 0 ? EL_SELECTION
						       : EL_SELECTION_IDLE)
			    : theme_attr(t == DT_TOTAL ? EL_TOTAL : EL_NORMAL);
		bool moved = false;

		if (t == VMS_T_FREE)
			continue;
		for (k = 0; k < nc; k++)
			moved |= type_fig(v->a, t, type_cols[k]) !=
					 type_fig(v->b, t, type_cols[k]) &&
				 type_known(v->a, t, type_cols[k]) &&
				 type_known(v->b, t, type_cols[k]);
		put_blank(row, 0, COLS, at);
		put_str(row, 0, 1, at, v->type_filter == t ? ">" : " ", 0);
		put_str(row, 1, 13,
			sel ? at
			    : theme_attr(t == DT_TOTAL ? EL_TOTAL
						       : theme_type(t)),
			t == DT_TOTAL ? "Total" : vms_type_info[t].label, 1);
		for (k = 0, x = 14; k < nc; k++, x += 3 * w + 2) {
			abd(row, x, w, at | (moved && !sel ? A_BOLD : 0),
			    type_fig(v->a, t, type_cols[k]),
			    type_fig(v->b, t, type_cols[k]),
			    type_known(v->a, t, type_cols[k]),
			    type_known(v->b, t, type_cols[k]));
		}
	}
}

static void perms_str(uint16_t p, char out[5])
{
	out[0] = p & VMS_PERM_R ? 'r' : '-';
	out[1] = p & VMS_PERM_W ? 'w' : '-';
	out[2] = p & VMS_PERM_X ? 'x' : '-';
	out[3] = p & VMS_PERM_SHARED ? 's' : 'p';
	out[4] = '\0';
}

/* The rows' columns: what changed, the address and the type (to X_FIGS),
 * then a group of three (A, B, change) per figure as far as the width
 * allows, Committed first, then Details. */
enum { X_FIGS = 41, FIG_W = 8, DETAILS_MIN = 14 };
static const enum vms_col row_cols[] = { VMS_COL_COMMITTED, VMS_COL_WS,
					 VMS_COL_PRIVATE, VMS_COL_SIZE };
static const char *const row_heads[] = { "Committed", "Total WS", "Private",
					 "Size" };

static int row_ncols(void)
{
	int n = 1;

	while (n < (int)(sizeof(row_cols) / sizeof(row_cols[0])) &&
	       X_FIGS + (n + 1) * (3 * FIG_W + 1) + DETAILS_MIN <= COLS)
		n++;
	return n;
}

static int details_x(void)
{
	return X_FIGS + row_ncols() * (3 * FIG_W + 1);
}

/* The two heading lines of the rows, from line y. */
static void draw_row_heads(int y)
{
	attr_t a = theme_attr(EL_COLUMN);
	int k, x, n = row_ncols();

	put_blank(y, 0, COLS, a);
	put_fmt(y + 1, 0, COLS, a, "  %-9s %-16s %-12s", "Change", "Address",
		"Type");
	for (k = 0, x = X_FIGS; k < n; k++, x += 3 * FIG_W + 1) {
		/* the figure's name over its three columns */
		put_fmt(y, x, 3 * FIG_W, a, "%*s", 3 * FIG_W - 2, row_heads[k]);
		put_fmt(y + 1, x, 3 * FIG_W, a, "%*s%*s%*s", FIG_W, "A", FIG_W,
			"B", FIG_W, "change");
	}
	if (details_x() < COLS)
		put_str(y + 1, details_x() + 1, COLS - details_x() - 1, a,
			"Details", 1);
}

/* One region of a side under its row: its figures in that side's
 * columns, its protection and text under Details. */
static void draw_region(int y, attr_t at, const struct vms_snapshot *s,
			const struct vms_region *g, int side)
{
	char p[5], buf[16], text[600];
	int k, x, n = row_ncols();

	put_fmt(y, 0, X_FIGS, at, "    %s %016llx-%016llx", side ? "B" : "A",
		(unsigned long long)g->start, (unsigned long long)g->end);
	for (k = 0, x = X_FIGS; k < n; k++, x += 3 * FIG_W + 1)
		put_fmt(y, x + (side ? FIG_W : 0), FIG_W, at, "%*s", FIG_W,
			vms_row_known(s, NULL, g, row_cols[k], false)
				? fmt_size(vms_column_region(g, row_cols[k]),
					   buf, sizeof(buf))
				: "-");
	perms_str(g->perms, p);
	snprintf(text, sizeof(text), "%s %s", p,
		 g->detail && *g->detail ? g->detail
		 : g->path		 ? g->path
					 : "");
	if (details_x() < COLS)
		put_str(y, details_x() + 1, COLS - details_x() - 1, at, text,
			1);
}

static void draw_change(void *ctx, int y, size_t i, bool sel)
{
	struct ui *u = ctx;
	const struct diffview *v = dv_of(u);
	const struct dfrow *r = &v->rows[i];
	const struct dgroup *g = &v->gr.g[r->ch];
	attr_t at = sel ? theme_attr(v->focus == 1 ? EL_SELECTION
						   : EL_SELECTION_IDLE)
			: change_attr(g->change);
	char name[12];
	int x, k, n = row_ncols();

	put_blank(y, 0, COLS, at);
	if (r->side < 0) {
		snprintf(name, sizeof(name), "%s",
			 g->change < VMS_NCHANGES ? vms_change_names[g->change]
						  : "same");
		put_fmt(y, 0, 29, at, "%c %-9s %016llx",
			v->open[r->ch] ? '-' : '+', name,
			(unsigned long long)g->start);
		put_str(y, 29, 12, at, vms_type_info[g->type].label, 1);
		for (k = 0, x = X_FIGS; k < n; k++)
			x = abd(y, x, FIG_W, at, g->a[row_cols[k]],
				g->b[row_cols[k]],
				vms_mask_has(g->known_a, row_cols[k]),
				vms_mask_has(g->known_b, row_cols[k])) +
			    1;
		if (details_x() < COLS)
			put_str(y, details_x() + 1, COLS - details_x() - 1, at,
				g->text, 1);
	} else {
		const struct vms_diff_change *c =
			v->gr.members[g->first + r->m];
		const struct vms_snapshot *s = r->side ? v->b : v->a;
		const struct vms_diff_side *sd = r->side ? &c->b : &c->a;

		draw_region(y, at, s, &s->regions[sd->idx[r->k]], r->side);
	}
}

static void diff_draw(struct ui *u)
{
	struct diffview *v = dv_of(u);
	char right[96], title[256];
	int th, ty, cy;

	if (!v->made) {
		put_str(0, 0, COLS, theme_attr(EL_TITLE), " vmscope  diff", 1);
		ui_status(u, " Esc back  q quit", NULL);
		return;
	}
	snprintf(title, sizeof(title),
		 "vmscope  diff  %zu change%s: %zu added, %zu removed, %zu "
		 "grown, %zu shrunk, %zu changed%s",
		 v->d.n, v->d.n == 1 ? "" : "s", v->d.count[VMS_CH_ADDED],
		 v->d.count[VMS_CH_REMOVED], v->d.count[VMS_CH_GROWN],
		 v->d.count[VMS_CH_SHRUNK], v->d.count[VMS_CH_CHANGED],
		 v->d.other_run ? "  (two runs: matched for ASLR)" : "");
	/* wrapped onto a second line where it does not fit (80 columns,
	 * two runs), not cut */
	th = text_cols(title) + 1 > COLS ? 2 : 1;
	put_blank(0, 0, 1, theme_attr(EL_TITLE));
	put_blank(th - 1, 0, 1, theme_attr(EL_TITLE));
	put_wrapped(0, 1, COLS - 1, th, theme_attr(EL_TITLE), title);
	ty = th + 1;
	if (LINES >= 30) {
		side_line(u, th, "A", v->a);
		side_line(u, th + 1, "B", v->b);
		ty = th + 2;
	} else { /* one line for both */
		const char *fa = ui_file_of(u, v->a, true),
			   *fb = ui_file_of(u, v->b, true);
		char wa[40], wb[40];

		export_taken_at(v->a, wa, sizeof(wa));
		export_taken_at(v->b, wb, sizeof(wb));
		put_fmt(th, 0, COLS, theme_attr(EL_NORMAL),
			" A %s%spid %d %s   B %s%spid %d %s", fa ? fa : "",
			fa ? " " : "", (int)v->a->proc.pid, wa, fb ? fb : "",
			fb ? " " : "", (int)v->b->proc.pid, wb);
	}
	v->ty = ty;
	draw_types(u, ty);
	cy = ty + 2 + VMS_NTYPES; /* the heading, 8 types + Page Table, Total */
	draw_row_heads(cy);
	listview_draw(&v->lv, cy + 2, LINES - 1 - (cy + 2), v->nrows,
		      draw_change, u);
	snprintf(right, sizeof(right), "%s%s%s%s | %zu/%zu",
		 v->by_region ? "regions: " : "",
		 v->only_changes ? "changes" : "all",
		 v->type_filter >= 0 ? " of type " : "",
		 v->type_filter >= 0 ? vms_type_info[v->type_filter].label : "",
		 v->nrows ? v->lv.cur + 1 : 0, v->nrows);
	ui_status(u,
		  " Tab pane  Enter filter/open  c changes/all  a allocations/"
		  "regions  Esc back  q quit",
		  right);
}

/* ---- actions ---- */

static int act_tab(struct ui *u)
{
	struct diffview *v = dv_of(u);

	v->focus = !v->focus;
	return UI_DRAW;
}

static int set_open(struct ui *u, int how) /* 1 open, 0 close, -1 toggle */
{
	struct diffview *v = dv_of(u);
	const struct dfrow *r;

	if (v->focus == 0 || v->lv.cur >= v->nrows)
		return 0;
	r = &v->rows[v->lv.cur];
	if (how == 0 && r->side >= 0) { /* Left on a region: to its change */
		while (v->lv.cur > 0 && v->rows[v->lv.cur].side >= 0)
			v->lv.cur--;
	}
	v->open[r->ch] = how < 0 ? !v->open[r->ch] : (uint8_t)how;
	rebuild(v);
	return UI_DRAW;
}

static int act_enter(struct ui *u)
{
	struct diffview *v = dv_of(u);

	if (v->focus == 1)
		return set_open(u, -1);
	v->type_filter =
		v->tcur == DT_TOTAL || v->type_filter == v->tcur ? -1 : v->tcur;
	v->lv.cur = v->lv.top = 0;
	v->nrows = 0;
	rebuild(v);
	return UI_DRAW;
}

static int act_open(struct ui *u)
{
	return set_open(u, 1);
}

static int act_close(struct ui *u)
{
	return set_open(u, 0);
}

static int act_changes(struct ui *u)
{
	struct diffview *v = dv_of(u);

	v->only_changes = !v->only_changes;
	rebuild(v);
	return UI_DRAW;
}

/* Allocations (an image, a stack, an arena one row) or the groups of
 * regions the diff matched. */
static int act_view(struct ui *u)
{
	struct diffview *v = dv_of(u);

	v->by_region = !v->by_region;
	if (v->made && regroup(v) < 0) {
		forget(v);
		ui_message(u, true, "%s", "out of memory for the diff's rows");
	}
	return UI_DRAW;
}

static int act_back(struct ui *u)
{
	struct diffview *v = dv_of(u);

	if (v->type_filter >= 0) {
		v->type_filter = -1;
		rebuild(v);
		return UI_DRAW;
	}
	u->next = SCR_TIMELINE;
	return UI_SWITCH | UI_DRAW;
}

static int act_timeline(struct ui *u)
{
	u->next = SCR_TIMELINE;
	return UI_SWITCH | UI_DRAW;
}

static const struct key_action diff_keys[] = {
	{ '\t', "Tab", "switch between the types and the changes", act_tab },
	{ '\r', "Enter",
	  "types: only that type's changes (Total: all); changes: open or "
	  "close",
	  act_enter },
	{ '\n', NULL, NULL, act_enter },
	{ KEY_ENTER, NULL, NULL, act_enter },
	{ KEY_RIGHT, "Right +", "open a change into its regions of A and B",
	  act_open },
	{ '+', NULL, NULL, act_open },
	{ KEY_LEFT, "Left -", "close it", act_close },
	{ '-', NULL, NULL, act_close },
	{ 'c', "c", "only the changes, or every row", act_changes },
	{ 'a', "a",
	  "allocations (an image, a thread's stack, an arena: one row, as "
	  "the viewer lists them) or the groups of regions the diff matched",
	  act_view },
	{ 't', "t", "next colour theme", ui_next_theme },
	{ 'T', "T", "the timeline", act_timeline },
	{ 27, "Esc", "clear the type filter; back to the timeline", act_back },
	{ 'q', "q F10", "quit", ui_quit },
	{ KEY_F(10), NULL, NULL, ui_quit },
	{ 0, NULL, NULL, NULL },
};

static int diff_key(struct ui *u, int key)
{
	struct diffview *v = dv_of(u);
	enum move mv;
	int r = key_dispatch(u, diff_keys, key);

	if (r >= 0)
		return r;
	mv = key_move(key);
	if (mv == MV_NONE)
		return 0;
	if (v->focus == 0) {
		size_t c = v->tcur > VMS_T_FREE ? (size_t)v->tcur - 1
						: (size_t)v->tcur,
		       top = 0;

		cursor_apply(&c, &top, VMS_NTYPES, VMS_NTYPES, mv);
		v->tcur = (int)(c >= VMS_T_FREE ? c + 1 : c);
	} else {
		listview_move(&v->lv, v->nrows, mv);
	}
	return UI_DRAW;
}

static int diff_mouse(struct ui *u, int y, int x, mmask_t b)
{
	struct diffview *v = dv_of(u);

	size_t row;

	(void)x;
	if (listview_mouse(&v->lv, v->nrows, y, b, 0, &row) != LV_ROW)
		return 0;
	v->focus = 1;
	v->lv.cur = row;
	return UI_DRAW;
}

/* ---- the screen ---- */

static void diff_init(struct ui *u)
{
	struct diffview *v = dv_of(u);

	v->only_changes = true;
	v->type_filter = -1;
	v->focus = 1;
	v->tcur = DT_TOTAL;
}

static void diff_free(struct ui *u)
{
	struct diffview *v = dv_of(u);

	forget(v);
	free(v->rows);
	v->rows = NULL;
	v->cap = 0;
}

/* Compares the two marked snapshots (A, B) unless that is shown already. */
static int diff_enter(struct ui *u)
{
	struct diffview *v = dv_of(u);
	const struct vms_snapshot *a = u->hist.mark[0], *b = u->hist.mark[1];

	if (!a || !b)
		return -1;
	if (v->made && v->a == a && v->b == b)
		return 0;
	return make(v, a, b);
}

/* A or B left the history: the diff pointing into it goes. */
static void diff_snapshot_changed(struct ui *u, const struct vms_snapshot *old,
				  bool new_process)
{
	struct diffview *v = dv_of(u);

	(void)old;
	(void)new_process;
	if (v->made && (u->hist.mark[0] != v->a || u->hist.mark[1] != v->b))
		forget(v);
}

const struct ui_screen screen_diff = {
	.name = "diff",
	.title = "Diff (Enter in the timeline; vmscope -d A B)",
	.keys = diff_keys,
	.data_size = sizeof(struct diffview),
	.init = diff_init,
	.free = diff_free,
	.enter = diff_enter,
	.snapshot_changed = diff_snapshot_changed,
	.draw = diff_draw,
	.key = diff_key,
	.mouse = diff_mouse,
};
