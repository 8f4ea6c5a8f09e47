/* alloc.h — allocations: the regions grouped as VMMap shows them, one row
 * for what a program asked for in one go.
 *
 * Contract: vms_allocs() reads a finished snapshot and changes nothing. An
 * allocation is a run of consecutive regions (s->regions[first, first +
 * n)), and every region is in exactly one, in address order:
 *   image  one load of a file: its mappings in a row and the anonymous
 *          .bss tail its loader maps (the images step's s->images; without
 *          them, consecutive image regions of one path);
 *   stack  a thread's guard page and its stack (the guard below it);
 *   arena  a glibc heap of a non-main arena: its regions inside one heap
 *          segment (the committed part and the reserved rest);
 *   managed a managed heap's entry (s->managed) from the region it
 *          starts at: the adjacent managed-heap regions inside its range
 *          (a Java heap's committed, reserved and CDS pieces: one row);
 *   region anything else, alone.
 * The array is malloc'd (*out, freed by the caller); -1 on out of memory,
 * *out NULL. The figures of an allocation are the sums of its regions'
 * (vms_alloc_figure); the exports keep one entry per region.
 */
#ifndef VMS_ALLOC_H
#define VMS_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "model/columns.h"
#include "model/snapshot.h"

enum vms_alloc_kind {
	VMS_A_REGION,
	VMS_A_IMAGE,
	VMS_A_STACK,
	VMS_A_ARENA,
	VMS_A_MANAGED,
};

struct vms_alloc {
	uint32_t first, n; /* s->regions[first, first + n) */
	uint32_t main; /* the region that names it (the stack, not its
			* guard; the first otherwise) */
	uint8_t kind; /* enum vms_alloc_kind */
};

int vms_allocs(const struct vms_snapshot *s, struct vms_alloc **out, size_t *n);

/* The sum of column c over the allocation's regions. */
uint64_t vms_alloc_figure(const struct vms_snapshot *s,
			  const struct vms_alloc *a, enum vms_col c);

#endif
