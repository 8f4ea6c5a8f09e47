/* screen_viewer.c — the viewer: a header (viewer_header.c), the summary
 * pane and the details pane below it, the sort menu, and the viewer's
 * keys. ! opens the notes (screen_notes.c).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/draw.h"
#include "core/ui_priv.h"
#include "panes/panes.h"
#include "pipeline.h"
#include "screens/viewer_copy.h"
#include "screens/viewer_ews.h"
#include "screens/viewer_header.h"
#include "screens/viewer_save.h"

/* The sort menu (htop's F6): every sort offered, the current one marked
 * with its direction, over the details at their heading. */
static void draw_sort_menu(struct ui *u)
{
	struct viewer *v = viewer_of(u);
	int seq[DS_COUNT], n = details_sorts(u, seq), k, w = 24;
	int y = details_heading_y(u), x = 2;
	attr_t a = theme_attr(EL_TITLE);

	if (y + n + 2 >= LINES - 1)
		y = LINES - 1 - n - 2;
	if (y < 0)
		y = 0;
	v->menu_y = y + 1;
	v->menu_x = x;
	v->menu_w = w;
	v->menu_n = n;
	put_box(y, x, w, n + 2 < LINES - 1 - y ? n + 2 : LINES - 1 - y, a);
	put_fmt(y, x, w, a | A_BOLD, " Sort by%*s", w - 8, "");
	for (k = 0; k < n && y + 1 + k < LINES - 1; k++) {
		bool cur = seq[k] == v->det.sort;
		attr_t ka = k == v->menu_cur ? theme_attr(EL_SELECTION) : a;

		put_fmt(y + 1 + k, x, w, ka, " %s %s",
			cur ? details_sort_arrow(&v->det) : " ",
			dsort_name(seq[k]));
	}
	if (y + 1 + n < LINES - 1)
		put_fmt(y + 1 + n, x, w, a, " %s", "Enter sorts, Esc closes");
}

static void viewer_draw(struct ui *u)
{
	struct viewer *v = viewer_of(u);
	char right[128], since[40];
	const struct details *d = &v->det;

	int hh = viewer_header_h(u), sh;

	viewer_header_draw(u, hh);
	/* the details get at least half the lines; the summary folds */
	sh = summary_layout(u, LINES - 1 - hh - LINES / 2);
	summary_draw(u, hh);
	details_draw(u, hh + sh, LINES - 1 - hh - sh);
	if (v->menu)
		draw_sort_menu(u);
	since[0] = '\0';
	if (v->chg_show && v->chg_valid) {
		/* D: the figures are how much they moved since then */
		time_t t = (time_t)v->chg.a->cap.taken_at_sec;
		struct tm tm;

		gmtime_r(&t, &tm);
		snprintf(since, sizeof(since),
			 "changes since %02d:%02d:%02d | ", tm.tm_hour,
			 tm.tm_min, tm.tm_sec);
	}
	/* a sort by a column not on screen (hidden in the setup, or by the
	 * terminal's width) stays, and says so */
	snprintf(right, sizeof(right), "%s%s%s | sort %s %s%s | %zu/%zu", since,
		 d->by_region ? "regions: " : "",
		 d->filter >= 0 ? vms_type_info[d->filter].label
		 : d->show_free ? "all+free"
				: "all",
		 dsort_name(d->sort), details_sort_arrow(d),
		 details_sort_shown(u) ? "" : " (hidden)",
		 d->nrows ? d->lv.cur + 1 : 0, d->nrows);
	/* too long for the status line (which then drops it all): the
	 * summary's heading says since when, the state stays */
	if (since[0] && (int)strlen(right) + 20 > COLS)
		memmove(right, right + strlen(since),
			strlen(right) - strlen(since) + 1);
	ui_status(u,
		  " F1 help  Tab pane  Enter filter/open  / find  s sort "
		  " m map  r refresh  q quit",
		  right);
	vsave_draw(u);
	vews_draw(u);
	vcopy_draw(u);
}

/* ---- actions ---- */

static int act_tab(struct ui *u)
{
	struct viewer *v = viewer_of(u);

	v->focus = !v->focus;
	return UI_DRAW;
}

static int set_filter(struct ui *u, int row)
{
	struct viewer *v = viewer_of(u);

	v->sum_cur = row;
	details_set_filter(&v->det, summary_row_filter(row));
	v->det.lv.cur = v->det.lv.top = 0;
	v->det.nrows = 0;
	details_rebuild(u);
	return UI_DRAW;
}

static int act_enter(struct ui *u)
{
	struct viewer *v = viewer_of(u);

	if (v->focus == 0)
		return set_filter(u, v->sum_cur);
	return details_toggle(u);
}

static int act_expand(struct ui *u)
{
	struct viewer *v = viewer_of(u);

	if (v->focus == 0)
		return 0;
	return details_expand(u, true);
}

static int act_collapse(struct ui *u)
{
	struct viewer *v = viewer_of(u);

	if (v->focus == 0)
		return 0;
	return details_expand(u, false);
}

static int act_find(struct ui *u)
{
	u->finding = true;
	u->find[0] = '\0';
	return UI_DRAW;
}

static int act_next(struct ui *u)
{
	return details_find(u, false);
}

static int act_prev(struct ui *u)
{
	return details_find(u, true);
}

/* Where a sort comes in the order s steps through: Address, the setup's
 * columns in its order, Type. */
static int sort_rank(const struct ui *u, int sort)
{
	int k;

	if (sort == DS_ADDRESS)
		return -1;
	for (k = 0; k < u->conf.n; k++)
		if (sort == DS_COL + u->conf.order[k])
			return k;
	return u->conf.n;
}

/* The next sort: Address, each column on screen (in the setup's order),
 * Type, and around; from a sort by a column no longer on screen, the
 * next one after it in that order. */
static int act_sort(struct ui *u)
{
	struct viewer *v = viewer_of(u);
	int seq[DS_COUNT], n = details_sorts(u, seq), k, at = -1;

	for (k = 0; k < n; k++)
		if (seq[k] == v->det.sort)
			at = k;
	for (k = 0; at < 0 && k < n; k++)
		if (sort_rank(u, seq[k]) > sort_rank(u, v->det.sort))
			at = k - 1;
	v->det.sort = seq[(at + 1) % n];
	v->det.reverse = false;
	details_rebuild(u);
	details_sorts_to_config(&v->det, &u->conf);
	return UI_DRAW;
}

/* The sort menu, its cursor on the sort now. */
static int act_sort_menu(struct ui *u)
{
	struct viewer *v = viewer_of(u);
	int seq[DS_COUNT], n = details_sorts(u, seq), k;

	v->menu = true;
	v->menu_cur = 0;
	for (k = 0; k < n; k++)
		if (seq[k] == v->det.sort)
			v->menu_cur = k;
	return UI_DRAW;
}

/* A key while the sort menu is open: it takes every key. */
static int menu_key(struct ui *u, int key)
{
	struct viewer *v = viewer_of(u);
	int seq[DS_COUNT], n = details_sorts(u, seq);
	size_t cur = (size_t)v->menu_cur, top = 0;
	enum move mv;

	switch (key) {
	case 27:
	case KEY_F(6):
	case 'o':
		v->menu = false;
		return UI_DRAW;
	case '\r':
	case '\n':
	case KEY_ENTER:
		v->menu = false;
		if (v->menu_cur >= 0 && v->menu_cur < n)
			details_sort_by(u, seq[v->menu_cur]);
		return UI_DRAW;
	case 'q':
	case KEY_F(10):
		return UI_QUIT;
	}
	mv = key_move(key);
	if (mv == MV_NONE)
		return 0;
	cursor_apply(&cur, &top, (size_t)n, n, mv);
	v->menu_cur = (int)cur;
	return UI_DRAW;
}

static int act_reverse(struct ui *u)
{
	struct viewer *v = viewer_of(u);

	v->det.reverse = !v->det.reverse;
	details_rebuild(u);
	details_sorts_to_config(&v->det, &u->conf);
	return UI_DRAW;
}

/* The free gaps beside the regions of the all view (they are always
 * listed when Free is selected). */
static int act_free(struct ui *u)
{
	struct viewer *v = viewer_of(u);

	v->det.show_free = !v->det.show_free;
	details_rebuild(u);
	return UI_DRAW;
}

/* Allocations (an image, a stack, an arena one row) or the region list. */
static int act_view(struct ui *u)
{
	struct viewer *v = viewer_of(u);

	v->det.by_region = !v->det.by_region;
	details_rebuild(u);
	return UI_DRAW;
}

/* Inside the heaps, on the arena holding the cursor's region (if any). */
static int act_heaps(struct ui *u)
{
	struct viewer *v = viewer_of(u);
	const struct vms_region *r =
		v->focus == 1 ? details_region(u, v->det.lv.cur) : NULL;

	u->goto_set = r != NULL;
	u->goto_addr = r ? r->start : 0;
	u->next = SCR_HEAPS;
	return UI_SWITCH | UI_DRAW;
}

/* The contents of the cursor's region: strings, hex, find in memory. */
static int act_contents(struct ui *u)
{
	struct viewer *v = viewer_of(u);
	const struct vms_region *r = details_region(u, v->det.lv.cur);

	if (!r) {
		ui_message(u, true, "no region under the cursor (a free gap)");
		return UI_DRAW;
	}
	u->goto_set = true;
	u->goto_addr = r->start;
	u->next = SCR_CONTENTS;
	return UI_SWITCH | UI_DRAW;
}

/* The notes in full; on a marked row (a summary row a note touches, a
 * region whose addresses one is about), on its note. */
static int open_note(struct ui *u, int note)
{
	u->goto_set = note >= 0;
	u->goto_addr = note >= 0 ? (uint64_t)note : 0;
	u->next = SCR_NOTES;
	return UI_SWITCH | UI_DRAW;
}

static int act_notes(struct ui *u)
{
	struct viewer *v = viewer_of(u);
	const struct ui_note *notes;
	size_t nn = viewer_notes_kept(viewer_notes(u, &notes));
	int note = -1;

	if (v->focus == 0 && v->sum_cur != SUM_FREE) {
		note = ui_note_of_type(notes, nn,
				       summary_row_filter(v->sum_cur));
	} else if (v->focus == 1 && v->det.nrows) {
		uint64_t a, b;

		details_row_span(u, &v->det.rows[v->det.lv.cur], &a, &b);
		note = ui_note_of_span(notes, nn, a, b);
	}
	return open_note(u, note);
}

static int act_refresh(struct ui *u)
{
	(void)u;
	return UI_RESAMPLE;
}

static int act_escape(struct ui *u)
{
	struct viewer *v = viewer_of(u);

	if (v->det.filter != -1)
		return set_filter(u, SUM_TOTAL);
	if (u->from_picker) {
		u->next = SCR_PICKER;
		return UI_SWITCH | UI_DRAW | UI_CLEAR;
	}
	return 0;
}

static const struct key_action viewer_keys[] = {
	{ '\t', "Tab", "switch between the summary and the details", act_tab },
	{ '\r', "Enter",
	  "summary: show only that type (Total: all); "
	  "details: expand or collapse",
	  act_enter },
	{ '\n', NULL, NULL, act_enter },
	{ KEY_ENTER, NULL, NULL, act_enter },
	{ KEY_RIGHT, "Right +", "expand a region into its children",
	  act_expand },
	{ '+', NULL, NULL, act_expand },
	{ KEY_LEFT, "Left -", "collapse it again", act_collapse },
	{ '-', NULL, NULL, act_collapse },
	{ '/', "/",
	  "find in every row, collapsed ones too (type text, Enter jumps "
	  "to the next match and opens the rows above it)",
	  act_find },
	{ 'n', "n N", "next / previous match", act_next },
	{ 'N', NULL, NULL, act_prev },
	{ 's', "s", "next sort column of the details", act_sort },
	{ 'S', "S", "reverse the sort", act_reverse },
	{ KEY_F(6), "F6 o",
	  "the sort menu: pick the column the details sort by (a click on "
	  "a heading sorts by it, again reverses)",
	  act_sort_menu },
	{ 'o', NULL, NULL, act_sort_menu },
	{ 'f', "f", "show or hide the free gaps in the all view", act_free },
	{ 'a', "a",
	  "allocations (an image, a thread's stack, an arena: one row) or "
	  "the region list",
	  act_view },
	{ 'x', "x",
	  "contents of the cursor's region: strings (ASCII, UTF-16), hex, "
	  "find bytes or text in memory",
	  act_contents },
	{ 'H', "H",
	  "inside the heaps: arenas, segments, each arena's figures, strip "
	  "and histogram (on the arena of the cursor's region)",
	  act_heaps },
	{ '!', "!",
	  "the capture's notes in full: what it could not do or found odd "
	  "(on a row marked !, its note)",
	  act_notes },
	{ 'w', "w",
	  "save the snapshot on screen to a file (vmscope -l opens it; a "
	  "prompt offers a name)",
	  vsave_save },
	{ 'e', "e",
	  "export the snapshot on screen: a format (text, csv, json, ...), "
	  "then a file",
	  vsave_export },
	{ 'y', "y",
	  "copy the cursor row's address, path or whole row to the "
	  "terminal's clipboard (OSC 52, where the terminal allows it): a "
	  "menu, a p r picks",
	  vcopy_menu },
	{ 'E', "E",
	  "Empty Working Set: after a confirmation naming the process, the "
	  "kernel pages out its private memory (process_madvise, Linux "
	  "5.10); a new snapshot says how much Rss went down",
	  vews_ask },
	{ 'D', "D",
	  "show changes: every figure shows how much it moved since the "
	  "snapshot before (or the one marked A in the timeline); again, "
	  "the figures (the rows that changed are marked either way; the "
	  "setup's Change shows each change beside its figure)",
	  changes_toggle },
	{ KEY_F(5), "F5 r", "take a new snapshot", act_refresh },
	{ 'r', NULL, NULL, act_refresh },
	{ 't', "t", "next colour theme", ui_next_theme },
	{ 27, "Esc", "clear the type filter; back to the picker", act_escape },
	{ 'q', "q F10", "quit", ui_quit },
	{ KEY_F(10), NULL, NULL, ui_quit },
	{ 0, NULL, NULL, NULL },
};

static int find_key(struct ui *u, int key)
{
	switch (key) {
	case 27:
		u->finding = false;
		return UI_DRAW;
	case '\r':
	case '\n':
	case KEY_ENTER:
		u->finding = false;
		return details_find(u, false) | UI_DRAW;
	default:
		ui_edit_line(u->find, sizeof(u->find), key);
		return UI_DRAW;
	}
}

static int viewer_key(struct ui *u, int key)
{
	struct viewer *v = viewer_of(u);
	enum move mv;
	int r;

	if (u->finding)
		return find_key(u, key);
	if (v->menu)
		return menu_key(u, key);
	if (vsave_open(u))
		return vsave_key(u, key);
	if (vews_open(u))
		return vews_key(u, key);
	if (vcopy_open(u))
		return vcopy_key(u, key);
	r = key_dispatch(u, viewer_keys, key);
	if (r >= 0)
		return r;
	mv = key_move(key);
	if (mv == MV_NONE)
		return 0;
	if (v->focus == 0)
		summary_move(u, mv);
	else
		listview_move(&v->det.lv, v->det.nrows, mv);
	return UI_DRAW;
}

static int viewer_mouse(struct ui *u, int y, int x, mmask_t b)
{
	struct viewer *v = viewer_of(u);
	struct details *d = &v->det;
	size_t row;
	int note;

	/* a click is acted on when pressed (ui_term.c: no wait for a click
	 * to resolve; a release read on its own is not asked for). A press
	 * and its release read together (both waiting in the input, as when
	 * the viewer is slow to read) come as one click (ncurses resolves
	 * them), which stands for the press. */
	if (b & BUTTON1_CLICKED)
		b |= BUTTON1_PRESSED;
	if (!(b & (BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED |
		   BUTTON5_PRESSED)))
		return 0;
	/* a click answers no to Empty Working Set's question */
	if (vews_open(u))
		return vews_key(u, 0);
	/* a click closes the copy menu */
	if (vcopy_open(u)) {
		v->cp_open = false;
		return UI_DRAW;
	}
	/* the sort menu: a click on a sort picks it, elsewhere closes */
	if (v->menu) {
		v->menu = false;
		if (!(b & (BUTTON4_PRESSED | BUTTON5_PRESSED)) &&
		    y >= v->menu_y && y < v->menu_y + v->menu_n &&
		    x >= v->menu_x && x < v->menu_x + v->menu_w) {
			int seq[DS_COUNT], n = details_sorts(u, seq);

			if (y - v->menu_y < n)
				details_sort_by(u, seq[y - v->menu_y]);
		}
		return UI_DRAW;
	}
	/* a heading sorts by its column; again, the other way */
	if ((b & BUTTON1_PRESSED) && y == details_heading_y(u) &&
	    details_heading_sort_at(u, x) >= 0) {
		details_sort_by(u, details_heading_sort_at(u, x));
		return UI_DRAW;
	}
	/* the wheel scrolls the details, three rows a notch, wherever it
	 * is */
	if (b & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		listview_mouse(&d->lv, d->nrows, y, b, 3, &row);
		return UI_DRAW;
	}
	/* the line of notes, or a ! beside a figure: the notes */
	if (y == viewer_notes_line(u))
		return open_note(u, -1);
	if ((note = summary_note_at(u, y, x)) >= 0)
		return open_note(u, note);
	if (summary_row_at(u, y) >= 0) {
		v->focus = 0;
		return set_filter(u, summary_row_at(u, y));
	}
	if (!listview_row_at(&d->lv, d->nrows, y, &row))
		return 0;
	v->focus = 1;
	if (x == 1) {
		const struct ui_note *notes;
		size_t nn = viewer_notes_kept(viewer_notes(u, &notes));
		uint64_t a, e;

		details_row_span(u, &d->rows[row], &a, &e);
		if ((note = ui_note_of_span(notes, nn, a, e)) >= 0) {
			d->lv.cur = row;
			return open_note(u, note);
		}
	}
	if (row == d->lv.cur && (b & BUTTON1_DOUBLE_CLICKED))
		return act_enter(u);
	d->lv.cur = row;
	return UI_DRAW;
}

/* ---- the screen ---- */

static void viewer_init(struct ui *u)
{
	struct viewer *v = viewer_of(u);

	v->det.filter = -1;
	v->sum_cur = SUM_TOTAL;
	details_sort_defaults(&v->det);
	details_sorts_from_config(&v->det, &u->conf);
}

static void viewer_free(struct ui *u)
{
	struct viewer *v = viewer_of(u);

	details_free(&v->det);
	changes_free(u);
}

/* The map's Enter asks for an address: every region, the cursor on it. */
/* The rows made again for the snapshot shown (the cursor and expansions
 * kept; old: the one they were made for), then the changes against the
 * one before it (prev), the removed rows among them. */
static void rows_and_changes(struct ui *u, const struct vms_snapshot *old,
			     const struct vms_snapshot *prev)
{
	struct viewer *v = viewer_of(u);

	changes_hide_removed(u);
	details_reset(u, old);
	changes_update(u, prev);
	if (v->det.nremoved) {
		details_tops_stale(&v->det);
		details_rebuild(u);
	}
}

static int viewer_enter(struct ui *u)
{
	struct viewer *v = viewer_of(u);

	/* A marked, moved or taken off in the timeline: the changes are
	 * against it (or the one before) at once, not from the next r */
	if (u->snap && changes_base_moved(u))
		rows_and_changes(u, u->snap, v->chg_prev);
	if (u->goto_set) {
		int filter = v->det.filter;

		u->goto_set = false;
		details_goto_addr(u, u->goto_addr);
		if (v->det.filter != filter)
			v->sum_cur = summary_filter_row(v->det.filter);
	}
	return 0;
}

/* The rows again, the cursor and the expansions kept (details_reset). */
static void viewer_snapshot_changed(struct ui *u,
				    const struct vms_snapshot *old,
				    bool new_process)
{
	struct viewer *v = viewer_of(u);

	v->notes_for = NULL; /* made again for it */
	if (new_process) {
		v->focus = 0;
		v->sum_cur = SUM_TOTAL;
		details_set_filter(&v->det, -1);
	}
	/* the rows of the new snapshot, then what it lacks of the one
	 * compared with (the removed rows: made with the changes) */
	rows_and_changes(u, old, new_process ? NULL : old);
	if (v->chg_valid && v->chg.n && u->scr == SCR_VIEWER) {
		/* what changed, counted (the rows say which) */
		static const int order[] = { VMS_CH_ADDED, VMS_CH_GROWN,
					     VMS_CH_SHRUNK, VMS_CH_CHANGED,
					     VMS_CH_REMOVED };
		char what[160] = "";
		size_t k, n = 0;

		for (k = 0; k < sizeof(order) / sizeof(order[0]); k++)
			if (v->chg_count[order[k]] && n < sizeof(what))
				n += (size_t)snprintf(
					what + n, sizeof(what) - n, "%s%zu %s",
					n ? ", " : "", v->chg_count[order[k]],
					vms_change_names[order[k]]);
		ui_message(u, false,
			   "new snapshot: %zu regions; %s", /* since the last */
			   u->snap->nregions, what);
	}
	vsave_snapshot_changed(u);
	vews_snapshot_changed(u, old);
}

/* While nobody types: what a first sort of a million rows would take
 * long to make (the regions' keys, the texts' ranks, the rows in address
 * order). */
static void viewer_idle(struct ui *u)
{
	details_keys_warm(u);
	details_sort_warm(u);
	details_tops_warm(u);
	details_find_warm(u);
}

const struct ui_screen screen_viewer = {
	.name = "viewer",
	.title = "Viewer",
	.keys = viewer_keys,
	.data_size = sizeof(struct viewer),
	.init = viewer_init,
	.free = viewer_free,
	.enter = viewer_enter,
	.snapshot_changed = viewer_snapshot_changed,
	.draw = viewer_draw,
	.key = viewer_key,
	.mouse = viewer_mouse,
	.idle = viewer_idle,
};
