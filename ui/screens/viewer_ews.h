/* viewer_ews.h — Empty Working Set from the viewer (issue 31 item 7, as
 * VMMap has it): E asks, in the status line, to confirm with the process
 * named (pid and name); y has the kernel page out the target's private
 * memory (linux/pageout.h, through pipeline.h), then a new snapshot is
 * taken and the status line says how much Rss went down (the kernel's
 * smaps_rollup, just before and just after), and why what stayed did (no
 * swap, regions the kernel refuses). Only for the viewer
 * (screen_viewer.c), whose state (struct viewer, panes.h) holds it.
 *
 * Contract: nothing is asked of the kernel before y; any other key
 * cancels. Refused with the reason, before any confirmation, on a
 * snapshot with no live process behind it (-l FILE, a core) and while a
 * capture fills the screen; the kernel's refusals (no permission, no
 * process_madvise, the process gone) are shown as they come.
 */
#ifndef VMS_UI_VIEWER_EWS_H
#define VMS_UI_VIEWER_EWS_H

#include <stdbool.h>

#include "core/ui_priv.h"

/* The E key. */
int vews_ask(struct ui *u);
/* Whether the confirmation is open; then every key goes to vews_key. */
bool vews_open(const struct ui *u);
int vews_key(struct ui *u, int key);
/* Draws the confirmation over the status line; after the rest. */
void vews_draw(struct ui *u);
/* A new snapshot is on screen (old: the one before): when it is the
 * refresh that followed a page-out, what the page-out did is said. */
void vews_snapshot_changed(struct ui *u, const struct vms_snapshot *old);

#endif
