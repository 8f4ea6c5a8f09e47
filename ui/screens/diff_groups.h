/* diff_groups.h — the diff screen's rows (screen_diff.c): the changes
 * and unchanged groups of a diff (model/diff.h) gathered by allocation
 * (model/alloc.h), as the viewer's details show them: an image, a
 * thread's stack, an arena, a managed heap one row, its figures the sums
 * of its groups'; or, asked for, one row per group of regions the diff
 * matched.
 *
 * Contract: reads the diff and its two snapshots (they outlive the
 * groups); each group of the diff is in exactly one row, a row's groups
 * in address order. A row is of B's allocation holding its groups' first
 * regions of B, or, for groups B does not have (removed), of A's. Its
 * change: added when all its groups were added, removed when all were
 * removed, the same when none changed; else grown or shrunk by its size,
 * else by its committed bytes, else changed (as pane_changes.c marks the
 * viewer's rows).
 */
#ifndef VMS_UI_DIFF_GROUPS_H
#define VMS_UI_DIFF_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/columns.h"
#include "model/diff.h"

struct dgroup {
	uint8_t change; /* enum vms_change; VMS_NCHANGES: the same */
	uint8_t type; /* its main region's (B's, else A's) */
	uint64_t start; /* its first address (B's, else A's) */
	const char *text; /* its main region's detail, else path, or "" */
	uint64_t a[VMS_NCOLS], b[VMS_NCOLS]; /* summed over its groups */
	/* the columns every group of it knows on A's side, on B's, and on
	 * both (model/diff.h: vms_diff_known; a core's Rss is not), bits of
	 * VMS_COLS_ALL */
	uint32_t known_a, known_b, known;
	size_t first, n; /* its groups: members[first, first + n) */
};

struct dgroups {
	struct dgroup *g;
	size_t n;
	const struct vms_diff_change **members;
	size_t nmembers;
	/* d's unchanged groups as change records (vms_diff_same_change):
	 * members point at them too */
	struct vms_diff_change *same;
};

/* The rows of d (its changes and its unchanged groups): by allocation,
 * or (by_region) one per group. -1 on out of memory (*out empty). */
int dgroups_make(const struct vms_diff *d, bool by_region, struct dgroups *out);
void dgroups_free(struct dgroups *g);

#endif
