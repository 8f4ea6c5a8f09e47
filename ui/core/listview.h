/* listview.h — the list every list screen is made of (htop's Panel, tmux's
 * mode-tree): a cursor over n rows, shown h at a time from row top on the
 * lines from y; the movement keys (arrows, j/k, PgUp/PgDn, Home/End, g/G),
 * the mouse (wheel, a click on a row) and the drawing of the visible rows
 * through a callback.
 *
 * Contract: a listview holds no rows and allocates nothing: it is embedded
 * in a screen's own state, and its owner gives the number of rows n at
 * each call (the rows stay the screen's). y and h are the lines of the
 * last listview_place (listview_draw places too): keys and clicks read
 * them, so a screen places its list on every draw, before the keys that
 * follow it. What a key or a click then does (open, toggle, a double
 * click) stays the screen's: listview_mouse says which row was hit and
 * leaves the cursor where it was.
 */
#ifndef VMS_UI_LISTVIEW_H
#define VMS_UI_LISTVIEW_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/uilib.h"

struct listview {
	size_t cur, top; /* the cursor's row; the first row shown */
	int y, h; /* the first line and the lines of the last placing */
};

/* The list on lines [y, y + h): the cursor kept in view over n rows. */
void listview_place(struct listview *lv, int y, int h, size_t n);

/* The cursor kept in view over n rows on the last placing's lines (after
 * the cursor or the rows changed between draws). */
void listview_show(struct listview *lv, size_t n);

/* Draws a row on line `line`: row i of the owner's, cur when the cursor
 * is on it. */
typedef void listview_row_fn(void *ctx, int line, size_t i, bool cur);
/* Places the list (listview_place), then draws each visible row with
 * row(ctx, ...) and blanks the lines below the last (EL_NORMAL). */
void listview_draw(struct listview *lv, int y, int h, size_t n,
		   listview_row_fn *row, void *ctx);

/* Moves the cursor by mv over n rows, kept in view (uilib.h's
 * cursor_apply on the last placing's h). */
void listview_move(struct listview *lv, size_t n, enum move mv);
/* A movement key (key_move): the cursor moved, true; else false, nothing
 * done. */
bool listview_key(struct listview *lv, size_t n, int key);

/* The row on screen line y, into *row: false when y is no row's. */
bool listview_row_at(const struct listview *lv, size_t n, int y, size_t *row);

/* What a mouse event was to the list. */
enum lv_hit {
	LV_MISS, /* not the list's: off its rows, or the wheel not taken */
	LV_WHEEL, /* the wheel: the cursor moved */
	LV_ROW, /* a click on row *row (the cursor not moved) */
};
/* The mouse event b at line y: wheel, the rows a notch of the wheel moves
 * the cursor (0: the list does not take the wheel, LV_MISS). */
enum lv_hit listview_mouse(struct listview *lv, size_t n, int y, mmask_t b,
			   int wheel, size_t *row);
/* The common use of it: the wheel moves the cursor, a click puts it on the
 * row; true when either did (redraw). */
bool listview_pick(struct listview *lv, size_t n, int y, mmask_t b, int wheel);

#endif
