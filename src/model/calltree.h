/* calltree.h — a trace report's call sites as a call tree (WPA's and
 * heaptrack's): callers first (top down: the program's entry at the root,
 * the allocating function at the leaves) or callees first (bottom up: the
 * allocating functions at the root, each opening into its callers). A
 * node is a function reached by one path; frames are one function when
 * their names are equal (function, else module and offset, else address),
 * so a function called from two places of one caller is one node. Each
 * node sums the figures of every site whose stack passes through it (a
 * recursive function counts a site once per level it appears at).
 *
 * Contract: a pure function of the report; the tree lives in the arena
 * given (with the report's own strings). Children are in order of
 * impacting bytes, largest first, then outstanding plus transient bytes.
 */
#ifndef VMS_CALLTREE_H
#define VMS_CALLTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "model/trace.h"

#define VMS_CALLTREE_NONE UINT32_MAX

struct vms_calltree_node {
	const struct vms_trace_frame *frame; /* the first frame met: its
					      * name stands for the node */
	uint32_t parent; /* VMS_CALLTREE_NONE: a root */
	uint64_t path; /* a hash of the names from its root to it: the
			* same node in the tree of the next report (a viewer
			* keeps what is open by it) */
	uint32_t depth; /* 0 at a root */
	uint32_t first, nchildren; /* its children: kids[first ...] */
	struct vms_trace_count by[VMS_TRACE_NIMPACTS];
	int64_t impacting_bytes;
};

struct vms_calltree {
	struct vms_calltree_node *nodes;
	size_t nnodes;
	uint32_t *kids; /* every node's children, a run per node */
	uint32_t *roots;
	size_t nroots;
};

/* Builds the tree of report r; 0, or -1 out of memory. */
int vms_calltree_build(const struct vms_trace_report *r, bool callers_first,
		       struct arena *a, struct vms_calltree *out);

#endif
