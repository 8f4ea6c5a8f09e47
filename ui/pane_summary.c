/* pane_summary.c — the summary pane: one row per type, coloured by type,
 * the Total row and Free with the largest free block; VMMap's twelve
 * columns. The cursor row is the type Enter filters the details to.
 */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "ui_priv.h"

enum { NCOLS = 12, LABEL_W = 14 };

static const char *const heads[NCOLS][2] = {
	{ "", "Size" },		  { "", "Committed" }, { "", "Private" },
	{ "Total", "WS" },	  { "Private", "WS" }, { "Shareable", "WS" },
	{ "Shared", "WS" },	  { "Locked", "WS" },  { "", "PSS" },
	{ "", "Swap" },		  { "", "Blocks" },    { "", "Largest" },
};

static void row_values(const struct vms_totals *t, uint64_t v[NCOLS])
{
	v[0] = t->size;
	v[1] = t->committed;
	v[2] = t->private_bytes;
	v[3] = t->ws;
	v[4] = t->private_ws;
	v[5] = t->shareable_ws;
	v[6] = t->shared_ws;
	v[7] = t->locked_ws;
	v[8] = t->pss;
	v[9] = t->swap;
	v[10] = t->blocks;
	v[11] = t->largest;
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

int summary_row_filter(int row)
{
	if (row == SUM_TOTAL)
		return -1;
	if (row == SUM_FREE)
		return VMS_T_FREE;
	return row;
}

static const char *cell(const uint64_t *v, int i, bool free_row, char *buf,
			size_t n)
{
	if (free_row && i != 0 && i != 10 && i != 11)
		return "";
	if (i == 10) {
		snprintf(buf, n, "%llu", (unsigned long long)v[i]);
		return buf;
	}
	return fmt_size(v[i], buf, n);
}

void summary_draw(struct ui *u, int y)
{
	const struct vms_snapshot *s = u->snap;
	int w[NCOLS], i, row, x;
	char buf[32];

	for (i = 0; i < NCOLS; i++) {
		int a = (int)strlen(heads[i][0]), b = (int)strlen(heads[i][1]);

		w[i] = a > b ? a : b;
		for (row = 0; row < SUM_ROWS; row++) {
			uint64_t v[NCOLS];
			int l;

			row_values(row_totals(s, row), v);
			l = (int)strlen(cell(v, i, row == SUM_FREE, buf,
					     sizeof(buf)));
			if (l > w[i])
				w[i] = l;
		}
	}
	for (row = 0; row < 2; row++) {
		put_str(y + row, 0, COLS, theme_attr(EL_COLUMN),
			row ? " Type" : "", 1);
		for (i = 0, x = LABEL_W; i < NCOLS && x + w[i] <= COLS;
		     x += w[i] + 1, i++)
			put_right(y + row, x, w[i], theme_attr(EL_COLUMN),
				  heads[i][row]);
	}
	for (row = 0; row < SUM_ROWS; row++) {
		int yy = y + 2 + row, filt = summary_row_filter(row);
		uint64_t v[NCOLS];
		attr_t la, va;

		row_values(row_totals(s, row), v);
		if (row == SUM_TOTAL)
			la = va = theme_attr(EL_TOTAL);
		else
			la = theme_attr((enum theme_el)filt),
			va = theme_attr(EL_NORMAL);
		if (row == u->sum_cur)
			la = va = theme_attr(u->focus == 0 ? EL_SELECTION
							   : EL_SELECTION_IDLE);
		put_blank(yy, 0, COLS, va);
		put_str(yy, 0, 1, va, u->det.filter == filt ? ">" : " ", 1);
		put_str(yy, 1, LABEL_W - 1, la,
			row == SUM_TOTAL ? "Total" : vms_type_info[filt].label,
			1);
		for (i = 0, x = LABEL_W; i < NCOLS && x + w[i] <= COLS;
		     x += w[i] + 1, i++)
			put_right(yy, x, w[i], va,
				  cell(v, i, row == SUM_FREE, buf,
				       sizeof(buf)));
	}
}
