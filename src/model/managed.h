/* managed.h — the list of managed heaps (struct vms_managed in snapshot.h)
 * as the steps fill it: classify (runtime-named [anon:NAME] regions) and
 * the runtimes' own steps (jvm, go, ...).
 *
 * Contract: managed_add() appends an entry for [start, end) of runtime rt
 * (a static string) with its reserved and committed bytes taken from the
 * regions inside the range (committed as totals.h derives it per region),
 * used -1, no figures, no parts; the caller fills those. The list lives in
 * s->arena and grows by doubling (its capacity is the power of two at or
 * above nmanaged, so no field holds it); classify empties it first, so a
 * step that runs twice sees a fresh list. NULL on out of memory. A step
 * that finds a heap classify already listed (a runtime that names its
 * mappings) takes that entry over with managed_find() instead of adding a
 * second one.
 */
#ifndef VMS_MANAGED_H
#define VMS_MANAGED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snapshot.h"

struct vms_managed *managed_add(struct vms_snapshot *s, const char *rt,
				uint64_t start, uint64_t end);
/* Extends the last entry to end when it is of runtime rt and ends at
 * start (a runtime's adjacent named regions are one heap); else adds. */
struct vms_managed *managed_extend(struct vms_snapshot *s, const char *rt,
				   uint64_t start, uint64_t end);
/* The entry of runtime rt overlapping [start, end), or NULL. */
struct vms_managed *managed_find(struct vms_snapshot *s, const char *rt,
				 uint64_t start, uint64_t end);
/* Private anonymous memory no earlier step claimed: no path, private
 * data (the runtimes' steps look for their heaps among these). */
bool managed_plain_anon(const struct vms_region *r);
/* The end (exclusive) of the run of adjacent regions from index i that
 * piece accepts (i when region i is not one); *perms gets the OR of their
 * perms (VMS_PERM_*). */
size_t managed_run(const struct vms_snapshot *s, size_t i,
		   bool (*piece)(const struct vms_region *), unsigned *perms);
/* The committed bytes of the regions inside [start, end). */
uint64_t managed_committed(struct vms_snapshot *s, uint64_t start,
			   uint64_t end);

#endif
