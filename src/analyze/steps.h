/* steps.h — the steps of the pipeline (pipeline.h), one file each, and the
 * few rules they share.
 *
 * A step is a file that ends with its row, const struct vms_step
 * vms_step_NAME (below), and a row X(NAME) in pipeline.c's VMS_STEPS; a
 * step that keeps what it found in a snapshot file says so in its row
 * (.kept, model/kept.h). Nothing else names it.
 *
 * Contract of every row's run(s, have, err): works on a snapshot whose raw
 * part is filled and whose earlier steps have run; reads memory and files
 * only through the source (source.h) and only what have allows; derives
 * everything from scratch (running twice gives the same snapshot); returns
 * 0, or -1 with *err carrying its own message.
 *
 *   classify  step_classify.c  every region's type by what maps shows:
 *                              shareable, managed heaps a runtime named,
 *                              [anon:NAME], mapped files; the rest private
 *                              data (DESIGN.md "Region types")
 *   images    step_images.c    ELF executables and libraries (by their ELF
 *                              headers, never their names), their .bss
 *                              tails, their sections
 *   heaps     step_heaps.c     [heap] and glibc's non-main arena heaps
 *   malloc    step_malloc.c    glibc malloc walked without symbols:
 *                              mallinfo2 and each arena's figures
 *                              (glibc_find.h, glibc_walk.h)
 *   jvm       step_jvm.c       a HotSpot JVM's Java heap (managed heap,
 *                              runtime "jvm", where from its VMStructs:
 *                              hsstructs.h, figures from hsperfdata),
 *                              class space and code cache named
 *   go        step_go.c        a Go program's heap arenas (managed heap,
 *                              runtime "go", from the runtime's hints),
 *                              its spans from its DWARF (goheap.h)
 *   dotnet    step_dotnet.c    .NET CoreCLR's GC range by shape alone
 *                              (untested on a live .NET)
 *   stacks    step_stacks.c    each thread's stack and guard
 *   allocator step_allocator.c which allocator malloc is (jemalloc,
 *                              tcmalloc, mimalloc) and its heap
 *                              (alloc_heap.h)
 *   v8        step_v8.c        V8's heap pages (node)
 *   cpython   step_cpython.c   CPython's obmalloc arenas
 *                              (these three: rtscan.h, rtheap.h; each
 *                              reads memory only when its image is there)
 *   parts     step_parts.c     private data regions split into typed parts
 *                              where heaps' pieces cover them in part
 *                              (CPython's arenas, a JVM's Java heap,
 *                              glibc's mmapped chunks: model/parts.h)
 *   totals    step_totals.c    the figures per region, type, total
 *                              (model/totals.h; vmscope.1 COLUMNS)
 * (step_malloc, step_allocator: analyze/heaps/; step_jvm, step_go,
 * step_dotnet, step_v8, step_cpython: analyze/runtimes/; the order they
 * run in is VMS_STEPS in pipeline.c.)
 */
#ifndef VMS_STEPS_H
#define VMS_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/error.h"
#include "model/kept.h"
#include "model/snapshot.h"

struct vms_step {
	const char *name; /* "classify", "images", ... (notes, JSON) */
	const char *doing; /* "reading ELF images" (progress) */
	unsigned needs, wants; /* VMS_SRC_* (pipeline.h) */
	bool essential; /* its failure fails the snapshot */
	/* Runs where it needs memory of one instant also on a source that
	 * lets it settle (VMS_SRC_SETTLE): it then reads twice and keeps
	 * only what both reads agree on, else notes why not. Its have has
	 * VMS_SRC_CONSISTENT then; vms_source_caps() says which it is. */
	bool settles;
	/* have: what the source gives this run (VMS_SRC_*). */
	int (*run)(struct vms_snapshot *s, unsigned have,
		   struct vms_error *err);
	/* What a snapshot file keeps of its result; NULL: nothing (a file
	 * runs it again). */
	const struct vms_kept *kept;
	/* The lists of names it may ask of a process's images (rtscan.h),
	 * each handed to add; NULL: none. A run's cache of ELF files learns
	 * them before the run's first steps (elfcache_expect), so a file's
	 * string table is read once for every list. */
	void (*asks)(void (*add)(void *ctx, const char *const *names),
		     void *ctx);
};

/* The glibc heap_info check, on the first bytes of a candidate region:
 * true when they look like the header of a non-main arena heap of that
 * region, of heap_max bytes reserved (its alignment too: glibc's
 * heap_max_size()). Takes a buffer (for tests). *arena gets ar_ptr. */
bool heaps_info_ok(const void *buf, size_t len, uint64_t start,
		   uint64_t rw_size, uint64_t heap_max, uint64_t *arena);

static inline bool step_path_is(const struct vms_region *r, const char *p)
{
	return r->path && strcmp(r->path, p) == 0;
}

static inline bool step_path_starts(const struct vms_region *r, const char *p)
{
	return r->path && strncmp(r->path, p, strlen(p)) == 0;
}

/* The same out-of-memory error for every step. */
int step_nomem(struct vms_error *err, const char *step);

#endif
