/* panes.h — the two panes the viewer is made of: the summary (one row per
 * type) and the details (one row per region, child or free gap).
 *
 * Contract: a pane draws into the rows it is given and keeps its state in
 * struct ui (sum_cur and focus; det); it calls no screen. The details rows
 * point into u->snap: details_reset() must follow every change of it.
 */
#ifndef VMS_UI_PANES_H
#define VMS_UI_PANES_H

#include <stdbool.h>
#include <stdint.h>

#include "ui_priv.h"

/* pane_summary.c */
enum { SUM_ROWS = 10, SUM_TOTAL = 8, SUM_FREE = 9, SUM_HEIGHT = 12 };
/* Chooses the rows to show in at most max lines (headings included): all
 * ten when they fit, else those that are not zero (Total, Free and the
 * cursor's row always), scrolled to the cursor. Returns the lines the
 * pane takes. */
int summary_layout(struct ui *u, int max);
/* Draws the rows summary_layout chose, from line y. */
void summary_draw(struct ui *u, int y);
/* The summary row drawn on screen line y, or -1. */
int summary_row_at(const struct ui *u, int y);
/* Moves the summary's cursor over the rows shown. */
void summary_move(struct ui *u, enum move mv);
/* The details filter a summary row stands for. */
int summary_row_filter(int row);

/* pane_details.c */
/* A new snapshot (u->snap; old: the one before, still alive, or NULL):
 * rows rebuilt with the filter, sort and free toggle kept, the cursor on
 * the row it was on (by address, and by name on a child) at the same
 * place on screen; a snapshot of the same process keeps the expanded
 * regions too. */
void details_reset(struct ui *u, const struct vms_snapshot *old);
void details_free(struct details *d);
void details_rebuild(struct ui *u); /* filter, sort or expansion changed */
void details_draw(struct ui *u, int y, int h);
int details_expand(struct ui *u, bool open);
int details_find(struct ui *u, bool backwards);
/* Every region in address order, the cursor on the one holding addr. */
int details_goto_addr(struct ui *u, uint64_t addr);
const char *dsort_name(int s);
/* "^" (smallest first) or "v": the direction of d's sort as shown. */
const char *details_sort_arrow(const struct details *d);
/* Shared by the details' files (pane_details*.c): the addresses a row
 * spans; what the Details column says of a region (its detail, else its
 * path). */
void details_row_span(const struct ui *u, const struct drow *r, uint64_t *a,
		      uint64_t *b);
const char *details_region_text(const struct vms_region *r);
/* Region of the current row, or NULL (a gap). */
const struct vms_region *details_region(const struct ui *u, size_t row);

#endif
