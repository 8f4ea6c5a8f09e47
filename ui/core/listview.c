/* listview.c — the list every list screen is made of: placing, drawing
 * the visible rows, movement keys and the mouse. See listview.h.
 */
#include "core/listview.h"

#include "core/draw.h"

void listview_place(struct listview *lv, int y, int h, size_t n)
{
	lv->y = y;
	lv->h = h;
	cursor_show(lv->cur, &lv->top, n, h);
}

void listview_show(struct listview *lv, size_t n)
{
	cursor_show(lv->cur, &lv->top, n, lv->h);
}

void listview_draw(struct listview *lv, int y, int h, size_t n,
		   listview_row_fn *row, void *ctx)
{
	size_t i;
	int k;

	listview_place(lv, y, h, n);
	for (k = 0, i = lv->top; k < lv->h; k++, i++) {
		if (i < n)
			row(ctx, lv->y + k, i, i == lv->cur);
		else
			put_blank(lv->y + k, 0, COLS, theme_attr(EL_NORMAL));
	}
}

void listview_move(struct listview *lv, size_t n, enum move mv)
{
	cursor_apply(&lv->cur, &lv->top, n, lv->h, mv);
}

bool listview_key(struct listview *lv, size_t n, int key)
{
	enum move mv = key_move(key);

	if (mv == MV_NONE)
		return false;
	listview_move(lv, n, mv);
	return true;
}

bool listview_row_at(const struct listview *lv, size_t n, int y, size_t *row)
{
	if (y < lv->y || y >= lv->y + lv->h ||
	    lv->top + (size_t)(y - lv->y) >= n)
		return false;
	*row = lv->top + (size_t)(y - lv->y);
	return true;
}

enum lv_hit listview_mouse(struct listview *lv, size_t n, int y, mmask_t b,
			   int wheel, size_t *row)
{
	if (wheel > 0 && (b & (BUTTON4_PRESSED | BUTTON5_PRESSED))) {
		int i;

		for (i = 0; i < wheel; i++)
			listview_move(lv, n,
				      b & BUTTON4_PRESSED ? MV_UP : MV_DOWN);
		return LV_WHEEL;
	}
	return listview_row_at(lv, n, y, row) ? LV_ROW : LV_MISS;
}

bool listview_pick(struct listview *lv, size_t n, int y, mmask_t b, int wheel)
{
	size_t row;

	switch (listview_mouse(lv, n, y, b, wheel, &row)) {
	case LV_WHEEL:
		return true;
	case LV_ROW:
		lv->cur = row;
		return true;
	default:
		return false;
	}
}
