/* screen_calls.h — what the calls screen (screen_calls.c), which keeps
 * the marks of a live trace, gives the screens that save: a snapshot file
 * of a snapshot taken while tracing holds the report of the trace up to
 * it, with its sites' cells (model/trace.h), so that -l shows it and
 * -d EARLIER LATER of two of them gives the window between them.
 */
#ifndef VMS_UI_SCREEN_CALLS_H
#define VMS_UI_SCREEN_CALLS_H

#include <stddef.h>

#include "core/ui_priv.h"

/* The bytes of s's snapshot file (vms_snapshot_save), with the trace up
 * to it when s is a mark of the live trace. -1 with *err. */
int calls_save(struct ui *u, const struct vms_snapshot *s, void **buf,
	       size_t *len, struct vms_error *err);

#endif
