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

#include "snapshot.h"

void totals_region_derive(struct vms_region *r);
void totals_compute(struct vms_snapshot *s);

#endif
