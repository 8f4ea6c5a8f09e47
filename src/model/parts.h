/* parts.h — a region split into typed parts (VMMap's blocks): where a
 * heap, arena or runtime space covers part of a region the kernel merged
 * with other memory, that part is a child of the region with a type of
 * its own and its own figures, and the summary counts by parts.
 *
 * Contract: a part is a child (struct vms_child) whose part member is
 * set: a region of its own (in s->arena) with the part's bounds, type and
 * detail (its name), the parent's path, flags and accounting (acct), and
 * counters of its own: Rss and Swap as the caller measured them from the
 * page tables of the part's range (pages present, pages in swap; -1: not
 * measured, then apportioned by size); its private resident bytes
 * (Private_Clean + Private_Dirty) the present pages mapped by the process
 * alone where measured (split clean and dirty as the region's are), the
 * rest of its Rss shared (split as the region's shared is), its Pss its
 * private bytes and its shared ones at the region's rate; where not
 * measured, and for Locked and AnonHugePages, the region's in proportion
 * to the part's Rss (SwapPss: to its Swap), rounded down. Each counter is
 * at most what the region has left after the parts before it, so the
 * parts and the rest of the region (vms_parts_rest) add up to the
 * region's figures exactly. A region's
 * own type, detail and figures stay the kernel's region's; exports call
 * it a region, its parts children with a type. A region has parts or
 * other children (sections, stack parts), never both.
 */
#ifndef VMS_PARTS_H
#define VMS_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snapshot.h"

struct vms_part_spec {
	const char *name; /* its detail: "cpython obmalloc arenas" (kept) */
	uint64_t start, end; /* inside the region, in address order, apart */
	uint8_t type; /* enum vms_type */
	/* bytes measured in its range (present, in swap, present and
	 * mapped by this process alone); -1 not measured */
	int64_t rss, swap, priv;
	/* its counters as they are (a snapshot file's: what the capture
	 * made of them), each at most what the region has left; NULL: from
	 * rss, swap and priv, as above */
	const struct vms_counters *counters;
	/* the runtime maps it whole, charged to the commit limit (obmalloc's
	 * arenas): Committed is its Size even where its region's is not
	 * known (a core) */
	bool commit_whole;
};

/* What the page tables say of [start, end) as of the snapshot (the
 * source's pages callback): bytes present, in swap, and present and
 * mapped by the process alone (-1: the source cannot tell). False when
 * the source cannot tell which pages are present. buf: cap bytes of
 * room (a page each). */
struct vms_part_fig {
	int64_t rss, swap, priv;
};
bool vms_parts_measure(struct vms_snapshot *s, uint64_t start, uint64_t end,
		       unsigned char *buf, size_t cap, struct vms_part_fig *f);

/* Sets r's children to the n parts p[] (n > 0), r's counters and acct
 * set (totals_region_derive). -1 on out of memory (r unchanged), -2 when
 * a part is not inside r or they overlap (r unchanged). */
int vms_parts_set(struct vms_snapshot *s, struct vms_region *r,
		  const struct vms_part_spec *p, size_t n);

static inline bool vms_region_has_parts(const struct vms_region *r)
{
	return r->nchildren && r->children[0].part;
}

/* Re-derives the parts' accounting from their region's (after
 * totals_region_derive of the region: a part's acct and flags are its
 * region's). */
void vms_parts_derive(struct vms_region *r);

/* r less its parts, as a region of r's type for the totals: its size is
 * r's less the parts' (as [0, size)), its counters r's less theirs. */
void vms_parts_rest(const struct vms_region *r, struct vms_region *rest);

#endif
