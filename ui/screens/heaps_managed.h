/* heaps_managed.h — the heaps screen's rows (screen_heaps.c) and its
 * managed heaps (heaps_managed.c): a heading row over the runtimes'
 * managed heaps (s->managed), each opening into its parts as its runtime
 * counts them (a JVM's eden, survivor, old, metaspace, class space), in
 * the columns Capacity, Used, Max (a heap: committed, used, reserved).
 * Only for the heaps screen.
 */
#ifndef VMS_UI_HEAPS_MANAGED_H
#define VMS_UI_HEAPS_MANAGED_H

#include <stdint.h>

#include "screens/heaps.h"

/* A row of the tree: the heap (idx -1), an arena (heap index), a segment
 * of one (seg), a note; the other allocator's heading (heaps_alloc.h, its
 * heaps are arenas too); the managed heaps' heading, a managed heap (heap:
 * its s->managed index), one of its parts (seg: the part). */
struct hrow {
	int kind; /* HR_* */
	size_t heap;
	uint32_t seg;
};
enum {
	HR_TOP,
	HR_ARENA,
	HR_SEG,
	HR_NOTE,
	HR_ATOP,
	HR_MTOP,
	HR_MANAGED,
	HR_PART
};

/* Whether managed heap i is open. */
bool hm_open(const struct heapview *hv, size_t i);
/* The row's name and its figures for the columns (Capacity, Used, Max,
 * then two that are "-"): -1 unknown. */
void hm_row(const struct ui *u, const struct hrow *r, char *name, size_t n,
	    int64_t v[5]);
/* The detail of the row's managed heap or part in lines [y, ymax). */
void hm_detail(struct ui *u, int y, int ymax, const struct hrow *r);
/* The managed heap holding addr (its s->managed index), or -1. */
ptrdiff_t hm_find(const struct vms_snapshot *s, uint64_t addr);

#endif
