/* viewer_header.h — the viewer's header (viewer_header.c): how many lines
 * it takes at this terminal's size, the line of the notes (a click there
 * opens them), and its drawing.
 *
 * Contract: draws only the header's lines, from line 0; reads u->snap.
 */
#ifndef VMS_VIEWER_HEADER_H
#define VMS_VIEWER_HEADER_H

#include "core/ui_priv.h"

/* The header's lines: 1 on a short terminal (under 30 lines), else the
 * title, capture line, bars and legend, and the notes' line if any. */
int viewer_header_h(struct ui *u);
/* The line the notes are on, or -1 when the header has none. */
int viewer_notes_line(struct ui *u);
/* Draws the header in its viewer_header_h lines (hh). */
void viewer_header_draw(struct ui *u, int hh);

#endif
