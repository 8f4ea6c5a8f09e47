/* notes.h — what a capture could not do or found odd, gathered from a
 * snapshot for the screen (issue 31 item 1): why its figures are partial,
 * its steps' notes (a step not done, partly done, failed: the "Missing"
 * lines of -s), the kernel's totals when the regions do not add up to
 * them, and a heap walk or an allocator left partial. Each note says what
 * it touches: a row of the summary (a type, or the Total) and, when it is
 * about some regions (a heap's segments, a managed heap), their
 * addresses, so the viewer marks those rows and leads from them to it.
 *
 * Contract: reads the snapshot only and allocates nothing; a note points
 * into the snapshot (or holds its own text) and lives while the snapshot
 * does. The order is fixed (the capture's first, then the steps' in step
 * order, then the kernel's, then the heaps'), so an index names the same
 * note for as long as the snapshot is shown.
 */
#ifndef VMS_UI_NOTES_H
#define VMS_UI_NOTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snapshot.h"

/* The notes a snapshot gives at most (more are counted, not kept). */
enum { UI_NOTES_MAX = 48 };

struct ui_note {
	const char *from; /* "capture", a step's name, "kernel", "heap" */
	const char *why; /* the text in full; NULL: own[] holds it */
	char own[240];
	/* the summary row it touches: a type (VMS_T_*), or -1 the Total */
	int type;
	/* the addresses it is about: [start, end) and the ranges segs
	 * (nsegs of them), or none (start == end, nsegs 0) */
	uint64_t start, end;
	const struct vms_heap_seg *segs;
	uint32_t nsegs;
};

/* The notes of s into out (at most max); returns how many there are (may
 * be more than max). s NULL: none. */
size_t ui_notes(const struct vms_snapshot *s, struct ui_note *out, size_t max);
/* A note's text. */
const char *ui_note_text(const struct ui_note *n);
/* The first of n notes that touches the summary row of type (-1: the
 * Total), or -1. */
int ui_note_of_type(const struct ui_note *n, size_t count, int type);
/* The first of n notes whose addresses meet [start, end), or -1. */
int ui_note_of_span(const struct ui_note *n, size_t count, uint64_t start,
		    uint64_t end);

#endif
