/* rtscan.h — what the recognisers of runtime and allocator heaps share
 * (steps "allocator", "v8", "cpython"): which mapped image defines a
 * symbol, the runs of unclaimed anonymous memory they look into.
 *
 * Contract: the symbol look-ups open the images' files through the source
 * (nothing when it has none); the runs are made of regions the steps
 * before left private data, anonymous, private and readable, adjacent to
 * one another; reads of memory go through the source. Errors: -1 only on
 * out of memory.
 */
#ifndef VMS_RTSCAN_H
#define VMS_RTSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snapshot.h"

/* A descriptor of image im's file, for reading: the run's cache's
 * (elfcache_fd: *own false, the caller must not close it), else opened
 * now (*own true); -1 when it cannot be. */
int rtscan_image_fd(struct vms_snapshot *s, const struct vms_image *im,
		    bool *own);

/* The first image, the executable first and then by address, that
 * defines one of the dynamic symbols in names[] (NULL-terminated). Returns it, *which the name's
 * index; NULL when none does. */
const struct vms_image *rtscan_defines(struct vms_snapshot *s,
				       const char *const *names, size_t *which);

/* The same for one image: true when it defines one of names[]. */
bool rtscan_image_defines(struct vms_snapshot *s, const struct vms_image *im,
			  const char *const *names, size_t *which);

/* A runtime step's gate: 1 when an image defines one of names[] and the
 * source has memory (the step looks); 0 when none does, or when there is
 * no memory (what the source kept of the step is put back, else a note of
 * step's says that what was not looked for); -1 on out of memory. */
int rtscan_gate(struct vms_snapshot *s, unsigned have, const char *step,
		const char *const *names, const char *what);

/* A run of adjacent unclaimed anonymous regions: s->regions[first, last]. */
struct rtscan_run {
	size_t first, last;
	uint64_t start, end;
};

/* The runs in address order: *n of them, in s->arena; NULL with *n 0 when
 * there are none, or on out of memory (*oom set). */
struct rtscan_run *rtscan_runs(struct vms_snapshot *s, size_t *n, bool *oom);

/* The run holding [addr, addr + len), or NULL (binary search). */
const struct rtscan_run *rtscan_run_of(const struct rtscan_run *runs, size_t n,
				       uint64_t addr, uint64_t len);

/* Reads len bytes at addr through the source: true only when all came. */
bool rtscan_read(struct vms_snapshot *s, uint64_t addr, void *buf, size_t len);

/* The same, with the pages the source has not (never written, or swapped
 * out) read as zeros: true when the first page came. A parser of what
 * this reads must reject what zeros would make up. */
bool rtscan_read_zeros(struct vms_snapshot *s, uint64_t addr, void *buf,
		       size_t len);

/* The same, with any page the source says is not present read as zeros
 * (a read that fails otherwise fails) where the whole of
 * [addr, addr + len) lies in one private anonymous region (or [heap],
 * [stack]), readable, with nothing in
 * swap (its counters say): anonymous memory leaves RAM only for swap, so
 * such a page was never written. False where that cannot be told (a
 * region with swap, a file, a source without counters: a core). */
bool rtscan_read_unswapped(struct vms_snapshot *s, uint64_t addr, void *buf,
			   size_t len);

/* An image's writable memory as read (rtscan_rw_read): its words, w[k]
 * at lo + 8k, and which of its pages the source had. Most of a library's
 * .bss was never written, so is not in RAM (libjemalloc 5.3: 40 KB of
 * its 2.2 MB): such a page is zeros in w, which the read never touches
 * (a mapping of its own: the kernel's zero page until written, where a
 * memset of zeros faulted in a page of memory for each). A scanner of every word,
 * where a word of zeros is one it passes over, goes over the stretches
 * read alone (rtscan_rw_next); a look-up of one word may read w[k]
 * anywhere (zero where not read). The allocator and runtime steps read an image's
 * writable memory through this alone. */
struct rtscan_rw {
	uint64_t lo, hi;
	uint64_t *w; /* nw words: (hi - lo) / 8 */
	size_t nw;
	unsigned char *ok; /* ok[i]: words [i * step, (i + 1) * step) read */
	size_t nok, step;
};

/* Reads [lo, hi) (an image's writable memory as rtscan_image_rw gives
 * it, or a part of it) into rw, w and ok allocated: 1 read, the pages
 * the source has not left zeros; 0 when its first page did not come
 * (then rw holds nothing read: all zeros, no stretch); -1 on out of
 * memory (rw empty). After 1 and 0 alike rtscan_rw_fini frees them
 * (never free()). As rtscan_read_zeros: a parser must reject what zeros
 * would make up. */
int rtscan_rw_read(struct vms_snapshot *s, uint64_t lo, uint64_t hi,
		   struct rtscan_rw *rw);

/* The next stretch of words read at or after w[*k]: [*k, *end), true;
 * false when none is left. A scan of every word read:
 *	for (k = 0; rtscan_rw_next(rw, &k, &end); )
 *		for (; k < end; k++) ... rw->w[k] ...
 */
bool rtscan_rw_next(const struct rtscan_rw *rw, size_t *k, size_t *end);

/* Frees w and ok (rw then has no stretch); safe on a zeroed struct. */
void rtscan_rw_fini(struct rtscan_rw *rw);

/* An image's writable memory [*lo, *hi): the rw mappings of its file
 * from its first region on (a PROT_NONE gap splits a library's loads: the
 * images step's entry may be the first load only) and the anonymous .bss
 * tail right after them. False when there is none, or it is over max
 * bytes. */
bool rtscan_image_rw(const struct vms_snapshot *s, const struct vms_image *im,
		     uint64_t max, uint64_t *lo, uint64_t *hi);

#endif
