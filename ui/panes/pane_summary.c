/* pane_summary.c — the summary pane: one row per type, coloured by type,
 * the Total row and Free with the largest free block; VMMap's twelve
 * columns, each with its change beside it where the setup's Change asks
 * (changes_beside) and it fits. The cursor row is the type Enter filters
 * the details to.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/draw.h"
#include "model/columns.h"
#include "panes/panes.h"

/* The label's field: the filter's >, the label (12 at most), the note's
 * ! (X_NOTE), a blank before the figures. */
enum { NCOLS = VMS_NSUMMARY, LABEL_W = 15, X_NOTE = 13 };

/* The summary's column i (columns.h). */
static const struct vms_column *col(int i)
{
	return &vms_columns[vms_summary_columns[i]];
}

static uint64_t value(const struct vms_totals *t, int i)
{
	return vms_column_type(t, vms_summary_columns[i]);
}

static const struct vms_totals *row_totals(const struct vms_snapshot *s,
					   int row)
{
	if (row == SUM_TOTAL)
		return &s->total;
	if (row == SUM_FREE)
		return &s->types[VMS_T_FREE];
	return &s->types[row];
}

size_t viewer_notes(struct ui *u, const struct ui_note **out)
{
	struct viewer *v = viewer_of(u);

	if (v->notes_for != u->snap || u->pre) {
		v->nnotes = ui_notes(u->snap, v->notes, UI_NOTES_MAX);
		v->notes_for = u->snap;
	}
	*out = v->notes;
	return v->nnotes;
}

int summary_row_filter(int row)
{
	if (row == SUM_TOTAL)
		return -1;
	if (row == SUM_FREE)
		return VMS_T_FREE;
	return row;
}

int summary_filter_row(int filter)
{
	if (filter == -1)
		return SUM_TOTAL;
	if (filter == VMS_T_FREE)
		return SUM_FREE;
	return filter;
}

static bool row_empty(const struct vms_snapshot *s, int row)
{
	const struct vms_totals *t = row_totals(s, row);

	return row != SUM_TOTAL && row != SUM_FREE && !t->size && !t->blocks &&
	       !t->committed;
}

int summary_layout(struct ui *u, int max)
{
	struct viewer *v = viewer_of(u);
	int row, n = 0, room = max - 2, k;
	const struct ui_note *notes;
	size_t nn = viewer_notes_kept(viewer_notes(u, &notes));

	/* a row a note touches stays, empty or not (node's Managed Heap
	 * under -b fork: 0 K, and why) */
	for (row = 0; row < SUM_ROWS; row++)
		if (room >= SUM_ROWS || !row_empty(u->snap, row) ||
		    row == v->sum_cur ||
		    ui_note_of_type(notes, nn, summary_row_filter(row)) >= 0)
			v->sum_vis[n++] = row;
	/* still short: the page table (kernel memory, no regions to list)
	 * gives way before the list scrolls */
	for (k = 0; n > room && k < n; k++)
		if (v->sum_vis[k] == VMS_T_PAGE_TABLE &&
		    v->sum_cur != VMS_T_PAGE_TABLE) {
			memmove(&v->sum_vis[k], &v->sum_vis[k + 1],
				(size_t)(n - k - 1) * sizeof(v->sum_vis[0]));
			n--;
			break;
		}
	v->sum_nvis = n;
	if (room < 1)
		room = 1;
	v->sum_shown = n < room ? n : room;
	for (k = 0; k < n && v->sum_vis[k] != v->sum_cur; k++)
		;
	if (k < v->sum_top)
		v->sum_top = k;
	else if (k >= v->sum_top + v->sum_shown)
		v->sum_top = k - v->sum_shown + 1;
	if (v->sum_top > n - v->sum_shown)
		v->sum_top = n - v->sum_shown;
	if (v->sum_top < 0)
		v->sum_top = 0;
	return 2 + v->sum_shown;
}

int summary_row_at(const struct ui *u, int y)
{
	struct viewer *v = viewer_of(u);
	int k = y - v->sum_y - 2;

	if (k < 0 || k >= v->sum_shown || v->sum_top + k >= v->sum_nvis)
		return -1;
	return v->sum_vis[v->sum_top + k];
}

int summary_note_at(struct ui *u, int y, int x)
{
	const struct ui_note *notes;
	size_t nn = viewer_notes_kept(viewer_notes(u, &notes));
	int row = summary_row_at(u, y);

	if (row < 0 || row == SUM_FREE || x < X_NOTE || x >= LABEL_W)
		return -1;
	return ui_note_of_type(notes, nn, summary_row_filter(row));
}

void summary_move(struct ui *u, enum move mv)
{
	struct viewer *v = viewer_of(u);
	size_t cur = 0, top = 0;
	int k;

	for (k = 0; k < v->sum_nvis; k++)
		if (v->sum_vis[k] == v->sum_cur)
			cur = (size_t)k;
	if (!v->sum_nvis)
		return;
	cursor_apply(&cur, &top, (size_t)v->sum_nvis,
		     v->sum_shown > 0 ? v->sum_shown : 1, mv);
	v->sum_cur = v->sum_vis[cur];
}

/* The text of summary row `row`'s figure in column i, or with change its
 * move since the snapshot compared with (beside it: changes_beside; with
 * D each figure is that). Free has only a size, a count and its largest
 * block; a figure the snapshot does not know (a core's counters) is "-",
 * never 0 (its change ""). */
static const char *cell(const struct ui *u, int row, int i, bool change,
			char *buf, size_t n)
{
	const struct vms_totals *t = row_totals(u->snap, row);
	int64_t d;

	change = change || viewer_of(u)->chg_show;
	if (row == SUM_FREE && !(col(i)->flags & VMS_COLF_FREE))
		return "";
	if (!vms_row_known(u->snap, t, NULL, vms_summary_columns[i],
			   row == VMS_T_PAGE_TABLE))
		return change ? "" : "-";
	if (change && !changes_type_known(u, row, vms_summary_columns[i]))
		return "-"; /* compared with a core's Rss: not known */
	if (change && changes_type_delta(u, row, vms_summary_columns[i], &d))
		return changes_delta_text(d, col(i)->flags & VMS_COLF_COUNT,
					  buf, n);
	if (col(i)->flags & VMS_COLF_COUNT) {
		snprintf(buf, n, "%llu", (unsigned long long)value(t, i));
		return buf;
	}
	return fmt_size(value(t, i), buf, n);
}

/* Columns in the order they give way on a narrow terminal (last first):
 * what VMMap users read first stays. */
static const int keep_order[NCOLS] = { 0, 1, 3, 4, 2, 11, 10, 8, 5, 6, 9, 7 };

/* Leaves w[i] = 0 for the columns that do not fit in cols, and dw[i] = 0
 * for the changes beside them: a column's change gives way just before
 * it (at 80 columns Size and Committed keep theirs). */
static void fit_columns(int w[NCOLS], int dw[NCOLS], int cols_avail)
{
	int total = LABEL_W, k;

	for (k = 0; k < NCOLS; k++)
		total += w[k] + 1 + (dw[k] ? dw[k] + 1 : 0);
	for (k = NCOLS - 1; k > 0 && total > cols_avail; k--) {
		int i = keep_order[k];

		if (dw[i]) {
			total -= dw[i] + 1;
			dw[i] = 0;
		}
		if (total > cols_avail) {
			total -= w[i] + 1;
			w[i] = 0;
		}
	}
	if (total > cols_avail)
		dw[keep_order[0]] = 0;
}

/* The columns column i takes: its figure's, and its change's beside. */
static int width(const int w[NCOLS], const int dw[NCOLS], int i)
{
	return w[i] ? w[i] + 1 + (dw[i] ? dw[i] + 1 : 0) : 0;
}

void summary_draw(struct ui *u, int y)
{
	struct details *d = det_of(u);
	struct viewer *v = viewer_of(u);
	int w[NCOLS], dw[NCOLS], i, row, x, k;
	bool beside = changes_beside(u);
	char buf[32], mark[2] = "";
	const struct ui_note *notes;
	size_t nn = viewer_notes_kept(viewer_notes(u, &notes));

	v->sum_y = y;

	for (i = 0; i < NCOLS; i++) {
		int a = (int)strlen(col(i)->head[0]);
		int b = (int)strlen(col(i)->head[1]);

		w[i] = a > b ? a : b;
		dw[i] = beside ? 3 : 0; /* "+/-" */
		for (row = 0; row < SUM_ROWS; row++) {
			int l = (int)strlen(
				cell(u, row, i, false, buf, sizeof(buf)));

			if (l > w[i])
				w[i] = l;
			l = (int)strlen(
				cell(u, row, i, true, buf, sizeof(buf)));
			if (beside && l > dw[i])
				dw[i] = l;
		}
	}
	fit_columns(w, dw, COLS);
	for (row = 0; row < 2; row++) {
		int room = 0;

		put_str(y + row, 0, COLS, theme_attr(EL_COLUMN),
			row ? " Type" : "", 1);
		for (i = 0, x = LABEL_W; i < NCOLS; x += width(w, dw, i), i++) {
			if (!w[i])
				continue;
			put_right(y + row, x, w[i], theme_attr(EL_COLUMN),
				  col(i)->head[row]);
			if (!room && col(i)->head[row][0])
				room = x + w[i] - text_cols(col(i)->head[row]);
			if (row && dw[i])
				put_right(y + row, x + w[i] + 1, dw[i],
					  theme_attr(EL_COLUMN), "+/-");
		}
		if (!row && v->chg_show && v->chg_valid) {
			/* D: the figures below are moves since then; over
			 * the blank fields before the first heading (drawn
			 * before them it was blanked by them at 80 columns) */
			time_t t = (time_t)v->chg.a->cap.taken_at_sec;
			struct tm tm;

			gmtime_r(&t, &tm);
			put_fmt(y, 1, room ? room - 2 : COLS - 1,
				theme_attr(EL_COLUMN) | A_BOLD,
				"changes since %02d:%02d:%02d", tm.tm_hour,
				tm.tm_min, tm.tm_sec);
		}
	}
	for (k = 0; k < v->sum_shown; k++) {
		int yy = y + 2 + k, r = v->sum_vis[v->sum_top + k];
		int filt = summary_row_filter(r);
		attr_t la, va;

		row = r;
		if (row == SUM_TOTAL)
			la = va = theme_attr(EL_TOTAL);
		else
			la = theme_attr(theme_type(filt)),
			va = theme_attr(EL_NORMAL);
		if (row == v->sum_cur)
			la = va = theme_attr(v->focus == 0 ? EL_SELECTION
							   : EL_SELECTION_IDLE);
		put_blank(yy, 0, COLS, va);
		put_str(yy, 0, 1, va, d->filter == filt ? ">" : " ", 1);
		put_str(yy, 1, X_NOTE - 1, la,
			row == SUM_TOTAL ? "Total" : vms_type_info[filt].label,
			1);
		/* a note touches this row: ! leads to it; else a change
		 * since the snapshot before: + grown, - shrunk, ~ changed */
		if (row != SUM_FREE && ui_note_of_type(notes, nn, filt) >= 0) {
			put_str(yy, X_NOTE, 1,
				row == v->sum_cur
					? la
					: theme_attr(EL_ERROR) | A_BOLD,
				"!", 0);
		} else if ((mark[0] = changes_type_mark(u, row)) != 0) {
			put_str(yy, X_NOTE, 1,
				row == v->sum_cur
					? la
					: theme_attr(EL_FIND) | A_BOLD,
				mark, 0);
		}
		for (i = 0, x = LABEL_W; i < NCOLS; x += width(w, dw, i), i++) {
			if (w[i])
				put_right(yy, x, w[i], va,
					  cell(u, row, i, false, buf,
					       sizeof(buf)));
			if (w[i] && dw[i])
				put_right(yy, x + w[i] + 1, dw[i], va,
					  cell(u, row, i, true, buf,
					       sizeof(buf)));
		}
	}
}
