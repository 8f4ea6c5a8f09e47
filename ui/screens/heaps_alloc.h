/* heaps_alloc.h — the heaps screen's other allocator (heaps_alloc.c): a
 * heading row for the allocator behind malloc when it is not glibc's, or
 * one the process carries beside it (s->allocator: jemalloc, tcmalloc,
 * mimalloc), over the heaps it was found to have (s->heaps entries whose
 * kind is not glibc's), each opening into its segments as glibc's arenas
 * do; and the detail of those rows. Only for the heaps screen.
 */
#ifndef VMS_UI_HEAPS_ALLOC_H
#define VMS_UI_HEAPS_ALLOC_H

#include <stdint.h>

#include "screens/heaps_managed.h"

/* The name and figures (System, In use, Free, Resident, Chunks; -1
 * unknown) of the allocator's heading row (HR_ATOP) or one of its heaps
 * (HR_ARENA). */
void ha_row(const struct ui *u, const struct hrow *r, char *name, size_t n,
	    int64_t v[5]);
/* The detail of such a row, or of a segment of its heaps, in [y, ymax). */
void ha_detail(struct ui *u, int y, int ymax, const struct hrow *r);

#endif
