/* calls_marks.h — which snapshot is which mark of a live allocation trace
 * (screen_calls.c keeps them; tracer_mark gives the numbers). A snapshot
 * is known by its address and the time it was taken (cap.monotonic_ns):
 * a snapshot freed and another allocated at its address is not taken for
 * it. The newest CALLS_MARKS_MAX are kept; forgetting drops the marks of
 * snapshots the viewer holds no more.
 */
#ifndef VMS_UI_CALLS_MARKS_H
#define VMS_UI_CALLS_MARKS_H

#include <stddef.h>

#include "core/ui_priv.h"

#define CALLS_MARKS_MAX (HIST_MAX * 4)

struct calls_marks {
	const struct vms_snapshot *snap[CALLS_MARKS_MAX];
	uint64_t taken[CALLS_MARKS_MAX];
	unsigned mark[CALLS_MARKS_MAX];
	size_t n;
};

/* s's mark, or 0: not one (not taken while tracing, or NULL). */
unsigned calls_mark_of(const struct calls_marks *m,
		       const struct vms_snapshot *s);

/* s is mark `mark` (the oldest dropped when full). */
void calls_mark_add(struct calls_marks *m, const struct vms_snapshot *s,
		    unsigned mark);

/* Drops the marks of snapshots u neither shows nor holds in its history
 * (freed: a new snapshot may come at the same address). */
void calls_marks_forget(struct calls_marks *m, const struct ui *u);

#endif
