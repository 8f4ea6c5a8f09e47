/* alloc_tcmalloc.h — what the two files of gperftools tcmalloc's
 * recogniser share (alloc_tcmalloc.c: the walk of its page map and its
 * figures; alloc_tcmalloc_root.c: steps 1 and 2 of alloc_tcmalloc.c's
 * account, the spans its .bss lists link to and the root of the page
 * map found through them). Private to those two files.
 */
#ifndef VMS_ALLOC_TCMALLOC_H
#define VMS_ALLOC_TCMALLOC_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/rtheap.h"
#include "analyze/rtscan.h"
#include "model/snapshot.h"

/* Bytes of the library's writable memory read at most (2.10: 1.7 MB). */
#define MAX_IMAGE_RW (64u << 20)
/* Spans from the lists used to place the root. */
#define MAX_LISTED 64
/* Distinct spans walked at most (2^22: a 32 GiB heap of 8 KiB spans). */
#define MAX_SPANS (1u << 22)

/* Size classes at most (kClassSizesMax: 128 in 2.10). */
#define TC_MAX_CLASSES 128

struct tc_walk {
	struct vms_snapshot *s;
	uint64_t lo, hi; /* the image's writable memory */
	uint64_t *w; /* its words (absent pages zeros): rw.w */
	struct rtscan_rw rw;
	struct rtheap_tc_span listed[MAX_LISTED];
	uint64_t listed_at[MAX_LISTED];
	size_t nlisted;
	unsigned shift, leaf_bits; /* the map found */
	uint64_t root; /* its address */
	/* its size classes' object sizes (SizeMap's class_to_size_), nclass
	 * of them (0: not found) */
	uint32_t class_size[TC_MAX_CLASSES];
	size_t nclass;
	uint64_t class_size_at;
	/* the central free lists' bytes: free objects and what their spans
	 * cannot use, summed over the small spans in use */
	uint64_t central;
	bool central_bad;
};

/* The region holding [a, a + len) whole when it is readable memory of
 * no file (anonymous, [heap]); NULL otherwise. */
const struct vms_region *tc_anon_holding(struct vms_snapshot *s, uint64_t a,
					 uint64_t len);

/* The word at a of the image's writable memory (t->lo <= a < t->hi). */
static inline uint64_t tc_word(const struct tc_walk *t, uint64_t a)
{
	return t->w[(a - t->lo) / 8];
}

/* 1: the spans the .bss lists link to, into t->listed. */
void tc_listed_spans(struct tc_walk *t);

/* 2: the root of the page map, set in t (shift, leaf_bits, root): 1
 * found, 0 not (*why), -1 on out of memory. */
int tc_find_root(struct tc_walk *t, const char **why);

#endif
