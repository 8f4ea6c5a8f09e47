/* diff.h — two snapshots compared (-d A B): what changed between them,
 * region by region, and per type.
 *
 * Contract: vms_diff_make() only reads the two finished snapshots (they
 * must outlive the diff: changes point into them) and lists every change
 * in address order of the side that has it (B, else A):
 *
 *  - Regions are matched by backing object and address. A region of A and
 *    one of B are the same memory when their ranges overlap and their
 *    backing agrees (both anonymous, or both the same file: device and
 *    inode); matching is transitive, so a region that split, merged, grew
 *    or shrank in place is one group, hence one change, not noise. A file
 *    mapping left alone on one side then matches one of the same object
 *    and file offset (device, inode, offset) elsewhere: a library mapped
 *    at another address (another run of the program) is the same.
 *  - A group with only B is added; only A, removed. Otherwise: changed
 *    when protection, type or backing differ; else grown or shrunk by
 *    size, or by committed bytes when the size is the same; a group whose
 *    regions and committed bytes are the same is no change. Resident and
 *    shared figures moving alone (pages touched, evicted, shared) are not
 *    a change of the region; they are in the per-type deltas.
 *  - Each side of a change has the column table's figures (columns.h)
 *    summed over its regions (blocks: how many; largest: the largest),
 *    and which of them it knows: a figure one of its regions does not
 *    know (a core's Rss, its anonymous memory's Committed) is not known
 *    for the side, nor is its delta; a change is never grown or shrunk
 *    by a figure not known on both sides.
 *
 *  - Between two runs of one program (vms_diff_other_run: ASLR moved
 *    every anonymous region), the anonymous regions still alone on each
 *    side are then matched by their order within their kind (type,
 *    protection and name: [heap], [stack], [anon:x] or none), aligned
 *    by size: the longest run of equal sizes in order on both sides
 *    pairs first, and what lies between two such pairs pairs in order,
 *    so a region only one run has is added or removed where it is, not
 *    shifting every pair after it (beyond 2^20 pairs of one kind, plain
 *    order). A group is then the same when its regions lie alike within it
 *    (from its first region's start), wherever ASLR put it.
 *
 *  - Two snapshots saved with their traces: their call sites compared as
 *    trace.h says (vms_trace_diff), per site what changed; and when both
 *    are of one traced run, the report of the window between them
 *    (vms_trace_window).
 *
 * A snapshot diffed with itself has no changes, and two runs of a
 * program in the same state have none either (but for what really
 * differs between the runs).
 */
#ifndef VMS_DIFF_H
#define VMS_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/columns.h"
#include "model/snapshot.h"

enum vms_change {
	VMS_CH_ADDED,
	VMS_CH_REMOVED,
	VMS_CH_GROWN,
	VMS_CH_SHRUNK,
	VMS_CH_CHANGED,
	VMS_NCHANGES
};

/* "added", "removed", "grown", "shrunk", "changed" */
extern const char *const vms_change_names[VMS_NCHANGES];

/* One side of a change: its regions (s->regions[first..first+n) need not
 * be contiguous: idx lists them) and their figures. */
struct vms_diff_side {
	size_t n; /* 0: the side does not have it */
	const size_t *idx; /* region indices, ascending */
	uint64_t v[VMS_NCOLS]; /* summed by the column table */
	/* which of v are known (columns.h, vms_row_known_mask): those
	 * every region of the side knows; all when the side has none */
	uint32_t known;
};

struct vms_diff_change {
	enum vms_change change;
	uint64_t start, end; /* the span on B (on A when removed) */
	uint8_t type; /* enum vms_type, of B (of A when removed) */
	const char *path; /* the first path of B's (A's) regions, or NULL */
	struct vms_diff_side a, b;
};

/* A group that did not change: its regions, d->idx[first..first+na) of
 * A's then nb of B's (both at least one), B's first starting at start.
 * No figures: at a million regions they would be most of a diff's memory
 * (a change record is some 290 bytes); vms_diff_same_change sums them. */
struct vms_diff_same {
	uint64_t start;
	size_t first, na, nb;
};

struct vms_diff {
	const struct vms_snapshot *a, *b;
	struct vms_diff_change *v;
	size_t n;
	/* The groups that did not change, in address order: the viewer
	 * shows them beside the changes. */
	struct vms_diff_same *same;
	size_t nsame;
	size_t count[VMS_NCHANGES];
	size_t *idx; /* the sides' region indices, one allocation */
	bool other_run; /* vms_diff_other_run(a, b): matched for ASLR */
	/* Both sides saved with their traces (snapshot.h, trace): their call
	 * sites compared (trace.h); else traced is false. */
	bool traced;
	struct vms_trace_diff trace;
	/* Both taken while one run was traced, A before B, B's file with
	 * its cells (trace.h, vms_trace_windowable): the report of the
	 * window between them (its sites malloc'd, its frames B's); else
	 * windowed is false. */
	bool windowed;
	struct vms_trace_report window;
	/* What the user named each side (a file, a PID), for the text forms'
	 * "A:" and "B:" lines; NULL: not said. Set by the caller. */
	const char *name_a, *name_b;
};

/* Whether a and b are two different processes (pids) of one program:
 * the same build id of the executable's image when both have one, else
 * the same executable path. */
bool vms_diff_other_run(const struct vms_snapshot *a,
			const struct vms_snapshot *b);

/* Compares a with b into *d. -1 with *err (out of memory only). */
int vms_diff_make(const struct vms_snapshot *a, const struct vms_snapshot *b,
		  struct vms_diff *d, struct vms_error *err);
void vms_diff_fini(struct vms_diff *d);

/* d->same[k] as a change record (change: VMS_NCHANGES), its figures
 * summed now from its regions. */
void vms_diff_same_change(const struct vms_diff *d, size_t k,
			  struct vms_diff_change *c);

/* Whether a change's column col is known on both sides, and so its
 * delta (a core's Rss against a live one's is not: printed as unknown,
 * never as a change from 0). */
static inline bool vms_diff_known(const struct vms_diff_change *c,
				  enum vms_col col)
{
	return vms_mask_has(c->a.known & c->b.known, col);
}

/* b's figure less a's, of a change's column c (signed; meaningless
 * where !vms_diff_known). */
static inline int64_t vms_diff_delta(const struct vms_diff_change *c,
				     enum vms_col col)
{
	return (int64_t)(c->b.v[col] - c->a.v[col]);
}

/* The indices of d's changes, the largest first by how much their
 * committed bytes moved (then their size), up to n of them, into out;
 * returns how many. */
size_t vms_diff_largest(const struct vms_diff *d, size_t *out, size_t n);

#endif
