/* totals.h — the figures of DESIGN.md's table, per region, per type, overall.
 *
 * Contract: totals_compute() runs after classification on a snapshot whose
 * counters and types are set. It derives each region's committed, private
 * and private_ws bytes and its reserved flag, then fills s->types[] (one row
 * per type, page table and free included), s->total (the sum over regions:
 * the page table is a row of its own, not added in, so Total WS equals the
 * kernel's Rss) and s->largest_free (the largest gap in the user address
 * range [user_start, user_end)).
 */
#ifndef VMS_TOTALS_H
#define VMS_TOTALS_H

#include <stdbool.h>
#include <stddef.h>

#include "model/snapshot.h"

void totals_region_derive(struct vms_region *r);
void totals_compute(struct vms_snapshot *s);
/* Sets the user address range free space is counted in: [start, end) as
 * the sampler read it from this machine, or a loader from its file; widened
 * to the 56-bit range when a region lies above end (5-level paging).
 * Samplers and loaders call it after the regions are read; the totals step
 * gives a snapshot that has none the x86-64 defaults (TOTALS_USER_*). */
void totals_set_user_range(struct vms_snapshot *s, uint64_t start,
			   uint64_t end);
#define TOTALS_USER_START 0x10000ull /* Debian's vm.mmap_min_addr */
#define TOTALS_USER_END 0x7ffffffff000ull /* 47-bit, less the guard page */
/* Region i of a totalled snapshot leaves its type's row and the total
 * (sign -1: before it is written over) or joins them (+1: its figures
 * derived first); blocks and largest stay. The streaming fill in place
 * (pipeline.c). */
void totals_region_move(struct vms_snapshot *s, size_t i, int sign);

/* Compares the sums over regions with the kernel's smaps_rollup: Rss and
 * Swap exactly; Pss within the rounding smaps does per region (under 1 KiB
 * each) and Private and Shared exactly, or, when those moved, Pss and
 * Private each within the shared total (a shared page's Pss and its
 * private-or-shared side follow its other mappers, which change them
 * while the target is frozen).
 * Returns 1 when they agree (why is "agrees", or says how the sharing
 * moved), 0 when they do not (why says which figure and by how much: the
 * process changed while it was read; or, after a fast freeze that found
 * regions moved, that the two are not of one instant), -1 when there is no
 * rollup to compare with. */
int totals_check_rollup(const struct vms_snapshot *s, char *why, size_t n);

#endif
