/* alloc_heap.h — inside the "allocator" step (step_allocator.c): what the
 * recognisers of one allocator's heap share, and the recognisers. Each
 * looks at the runs of unclaimed anonymous memory (rtscan.h) through the
 * source, with the target held by the caller, marks the regions its heap
 * holds, and sets the allocator's figures; alloc_type() then types the
 * marked regions heap and adds one s->heaps entry of the allocator's kind.
 *
 * Each allocator is a row (allocators.h) whose find calls its recogniser
 * here; the fuzz harness (tests/fuzz/fuzz_alloc.c) calls them directly.
 *
 * Contract: nothing here is used outside the allocator step. The
 * recognisers return -1 only on out of memory; what they could not find
 * is said in al->partial (a static or arena string).
 */
#ifndef VMS_ALLOC_HEAP_H
#define VMS_ALLOC_HEAP_H

#include <stdint.h>

#include "analyze/heaps/allocators.h"
#include "analyze/rtscan.h"
#include "elf/elfimage.h"
#include "model/snapshot.h"

/* A range alloc_mark() was given, where the recogniser asked for them
 * (exact). */
struct alloc_range {
	uint64_t start, end;
	uint8_t how;
};

struct alloc_marks {
	struct vms_snapshot *s;
	const struct rtscan_run *runs;
	size_t nruns;
	/* per region: 0 not the allocator's, else an index + 1 into the
	 * details given to alloc_type() (a higher one wins) */
	uint8_t *mark;
	/* set by a recogniser whose marks are its heap's own bounds (its
	 * spans, its segments): alloc_mark() keeps them, and alloc_type()
	 * splits a region they cover in part (alloc_marks_fini frees);
	 * cleared, the ranges dropped, past ALLOC_MAX_RANGES of them (the
	 * regions then typed whole) */
	bool exact;
	bool oom; /* a range could not be kept */
	struct alloc_range *rng;
	size_t nrng, caprng;
};

/* Marks the regions that overlap [a, a + len) in the run holding a (and
 * keeps the range, where m->exact). */
void alloc_mark(struct alloc_marks *m, uint64_t a, uint64_t len, uint8_t how);

void alloc_marks_fini(struct alloc_marks *m);

/* Types the marked regions heap with details[mark - 1], counts them in
 * al, and adds the heap (kind, adjacent regions joined into segments,
 * figures -1) to s->heaps; *out is it (NULL when nothing was marked).
 * Where m->exact, a region the ranges cover only in part (the kernel
 * merged the allocator's mappings with other memory), or whole with
 * ranges of more than one how (jemalloc's base blocks merged with its
 * extents), keeps its type and is split into typed parts
 * (model/parts.h): each stretch the ranges cover a heap part named
 * details[how - 1], its Rss, Swap and private bytes from the page tables
 * of its range; the heap's segments and al->heap are those stretches.
 * -1 on out of memory. */
int alloc_type(struct alloc_marks *m, struct vms_allocator *al,
	       const char *kind, const char *const *details,
	       struct vms_heap **out);

/* The defined dynamic symbol name of image im, its file opened through
 * the source into *fd (-1: none; the caller closes it) and src; false
 * when there is none (or no file). For the rows' facts. */
bool alloc_image_symbol(struct vms_snapshot *s, const struct vms_image *im,
			const char *name, struct elfimage_sym *sym, int *fd,
			struct elfimage_src *src);

/* jemalloc 5: its base blocks and the extents they record, and its own
 * figures from its statistics record, found through the writable memory
 * of its image im (NULL: not looked for). */
int alloc_jemalloc(struct alloc_marks *m, struct vms_allocator *al,
		   const struct vms_image *im);

/* mimalloc 2.0.9-2.1.1: its segments and their pages, and its threads'
 * own data (its cache of them in the writable memory of its image im:
 * NULL, not looked for); version is what mi_version() returns (-1
 * unknown). */
int alloc_mimalloc(struct alloc_marks *m, struct vms_allocator *al,
		   const struct vms_image *im, int version);

/* gperftools tcmalloc: its page heap through its page map (found from
 * the library im's writable memory); spans in the brk heap count in
 * brk_heap's figures (NULL: none; it must be an element of s->heaps,
 * which this may move), the rest are typed heap in a heap of their own.
 * *why: NULL, or what was not found or not sound (the page map, its
 * entries). */
int alloc_tcmalloc(struct alloc_marks *m, struct vms_allocator *al,
		   const struct vms_image *im, struct vms_heap *brk_heap,
		   const char **why);

/* gperftools tcmalloc's transfer and thread caches (alloc_tccache.c, beside
 * alloc_tcmalloc.c: one allocator, two files for their length),
 * from the library's writable memory [lo, hi) read into w (absent pages
 * zeros), its size classes' object sizes (class_size[nclass], SizeMap's
 * class_to_size_, found at class_size_at). The cached objects that lie in
 * [brk_lo, brk_hi) are counted in brk_cached when placed. */
struct alloc_tc_in {
	const uint64_t *w;
	uint64_t lo, hi;
	const uint32_t *class_size;
	size_t nclass;
	uint64_t class_size_at;
	uint64_t brk_lo, brk_hi;
	bool place; /* walk the caches' lists to place their objects */
};

struct alloc_tc_out {
	/* bytes of free objects in the transfer caches and the thread
	 * caches, as MallocExtension's tcmalloc.transfer_cache_free_bytes
	 * and thread_cache_free_bytes; -1 where not found (why says) */
	int64_t transfer, thread;
	uint64_t threads; /* thread caches found */
	/* every cached object was walked (place asked it): brk_cached of
	 * them lie in the brk range */
	bool placed;
	uint64_t brk_cached;
	bool oom;
	const char *why; /* NULL, or what was not found */
};

void alloc_tc_caches(struct vms_snapshot *s, const struct alloc_tc_in *in,
		     struct alloc_tc_out *out);

/* Its page heap's statistics and metadata count (alloc_tccache.c), from
 * in's w, lo and hi, tied by al->system (TCMalloc_SystemTaken): sets
 * al's page_heap_free, unmapped, metadata and figures_note. */
void alloc_tc_figures(struct vms_snapshot *s, const struct alloc_tc_in *in,
		      struct vms_allocator *al);

#endif
