/* viewer_save.h — the viewer's save and export (issue 31 item 4): w saves
 * the snapshot on screen as a snapshot file (-l opens it), e writes it in
 * a format chosen from the exporters; each asks for a file name in the
 * status line, a default name offered. Only for the viewer
 * (screen_viewer.c), whose state (struct viewer, panes.h) holds the
 * prompt.
 *
 * Contract: writes the file named and nothing else, as -o writes
 * (outbuf.h: a regular file replaced whole or not at all); says what it
 * wrote, or why not, in the status line. A live snapshot captured without
 * the kernel's text a snapshot file holds is taken again keeping it (the
 * screen then shows, and saves, that one; the status line says so).
 */
#ifndef VMS_UI_VIEWER_SAVE_H
#define VMS_UI_VIEWER_SAVE_H

#include <stdbool.h>

#include "core/ui_priv.h"

/* The w and e keys. */
int vsave_save(struct ui *u);
int vsave_export(struct ui *u);
/* Whether a prompt or the format menu is open; then every key goes to
 * vsave_key. */
bool vsave_open(const struct ui *u);
int vsave_key(struct ui *u, int key);
/* Draws the prompt (the status line) or the format menu, over the
 * viewer; after the rest. */
void vsave_draw(struct ui *u);
/* A new snapshot is on screen: the save that asked for it goes on. */
void vsave_snapshot_changed(struct ui *u);

#endif
