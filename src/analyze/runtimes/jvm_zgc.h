/* jvm_zgc.h — where ZGC keeps the Java heap (the jvm step's, for a JVM
 * whose VMStructs give no heap range: CollectedHeap::_reserved is empty
 * under ZGC, JDK 15-20, the collector that is not generational).
 *
 * ZGC backs its heap with a memfd it names "java_heap"
 * (ZPhysicalMemoryBacking) and maps it shared three times, at the same
 * offsets in three views of the address space, each view a metadata bit
 * above the heap's offsets: marked0 at 1 << S, marked1 at 2 << S and
 * remapped at 4 << S, S the number of offset bits (42 at least: 4, 8 and
 * 16 TiB). In each view the address space it may use is reserved
 * PROT_NONE around the mapped pages (16 times the maximum heap). The
 * three views are one heap: the same pages, read through three addresses
 * (an object's colour picks the view).
 *
 * Contract: jvm_zgc_find() reads only s's regions (their paths, flags
 * and addresses; no memory). 1: no "java_heap" memfd is mapped (not
 * ZGC). 0: the remapped view is the heap, regions [*first, *end) (its
 * mapped pages and the reservation around them, in that view only); the
 * regions of the marked0 and marked1 views get the detail `alias`
 * (their type unchanged: shared mappings of the heap's pages, counted
 * once as the heap). -1 with *why (a static string): "java_heap" regions
 * that are not laid out as ZGC's three views.
 */
#ifndef VMS_JVM_ZGC_H
#define VMS_JVM_ZGC_H

#include <stddef.h>

#include "model/snapshot.h"

int jvm_zgc_find(struct vms_snapshot *s, const char *alias, size_t *first,
		 size_t *end, const char **why);

#endif
