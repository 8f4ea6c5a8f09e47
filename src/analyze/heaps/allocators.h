/* allocators.h — the allocators the "allocator" step recognises, one row
 * each: the name it is shown by, the signatures that tell an image has it,
 * what is read of its file before the target is held, how its heap is
 * found in memory, and how its figures were found (what the viewer says).
 *
 * A new allocator is a file (alloc_NAME.c, defining const struct
 * alloc_kind alloc_kind_NAME and its find, on alloc_heap.h) and a row
 * X(NAME) in VMS_ALLOCATORS (step_allocator.c): the step, the snapshot
 * file (s->allocator is kept by name), the exports and the viewer follow
 * from the row.
 *
 * Contract: rows are const and live as long as the program; their strings
 * are literals. The table is in the order its signatures are looked for:
 * where an image has two, the first row's wins.
 */
#ifndef VMS_ALLOCATORS_H
#define VMS_ALLOCATORS_H

#include "model/snapshot.h"

struct alloc_marks; /* alloc_heap.h */

struct alloc_kind {
	const char *name; /* s->allocator->name: "jemalloc" */
	/* Dynamic symbols any of which an image defines when it has this
	 * allocator (under a prefix too: je_mallctl), NULL-ended. */
	const char *const *syms;
	/* How its heap was found and its figures read, for a person (the
	 * viewer's heaps screen). */
	const char *how;
	/* What its image's file says, read before the target is held (a file
	 * is not the target's memory): into facts, facts_size bytes the step
	 * gives zeroed. NULL: nothing to read. */
	void (*facts)(struct vms_snapshot *s, const struct vms_image *im,
		      void *facts);
	size_t facts_size;
	/* Its heap in s's memory (the target held; m's runs and marks set
	 * up), in image im, with the facts read before: marks and types its
	 * regions (alloc_heap.h), sets al's figures and al->partial. -1
	 * only on out of memory. NULL: its heap is not this step's (the C
	 * library's malloc: the "malloc" step walks it) and it is never an
	 * allocator record. */
	int (*find)(struct alloc_marks *m, struct vms_allocator *al,
		    const struct vms_image *im, const void *facts);
};

/* The rows, NULL-ended, in the order above. */
extern const struct alloc_kind *const alloc_kinds[];

/* The row named name (s->allocator->name, from a capture or a file), or
 * NULL (a name this vmscope does not know: a file of another one). */
const struct alloc_kind *alloc_kind_find(const char *name);

#endif
