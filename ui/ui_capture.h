/* ui_capture.h — a capture with its progress on screen, for ui.c.
 *
 * Contract: ui_capture() captures pid with the viewer's options
 * (u->opts), keeping raw text and memory as the viewer needs them (it
 * releases the memory view of the snapshot on screen first, and clears
 * u->keep_raw once used), and shows its progress: a box, or the frame's
 * status line when a frame is on screen. With u->pre (the layout from
 * maps, preview.h) the frame on screen is filled as the counters are
 * read, drawn again with draw at most every 50 ms. Esc or q cancels
 * (*cancelled set, NULL returned); a signal that ends the viewer stops it
 * too (NULL, *cancelled false: the caller asks ui_term_signal()). Every
 * other key typed meanwhile is kept, in order (at most 64; not the key
 * that ends a VMSCOPE_FILL_PAUSE wait), for ui_capture_typed(). Returns
 * the new snapshot (the caller's), or NULL with *err.
 */
#ifndef VMS_UI_CAPTURE_H
#define VMS_UI_CAPTURE_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/error.h"

struct ui;
struct vms_snapshot;

struct vms_snapshot *ui_capture(struct ui *u, pid_t pid,
				void (*draw)(struct ui *u), bool *cancelled,
				struct vms_error *err);

/* The oldest key typed during a capture not yet taken, or ERR (curses'). */
int ui_capture_typed(void);

#endif
