/* steps.h — the steps of the pipeline (pipeline.h), one file each, and the
 * few rules they share.
 *
 * Contract of every step_*_run(s, have, err): works on a snapshot whose raw
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
 *                              runtime "jvm", figures from hsperfdata),
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
 *   totals    step_totals.c    the figures per region, type, total
 *                              (model/totals.h; vmscope.1 COLUMNS)
 * (step_malloc, step_allocator: analyze/heaps/; step_jvm, step_go,
 * step_dotnet, step_v8, step_cpython: analyze/runtimes/; the order they
 * run in is vms_steps[] in pipeline.c.)
 */
#ifndef VMS_STEPS_H
#define VMS_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/error.h"
#include "model/snapshot.h"

int step_classify_run(struct vms_snapshot *s, unsigned have,
		      struct vms_error *err);
int step_images_run(struct vms_snapshot *s, unsigned have,
		    struct vms_error *err);
int step_heaps_run(struct vms_snapshot *s, unsigned have,
		   struct vms_error *err);
int step_malloc_run(struct vms_snapshot *s, unsigned have,
		    struct vms_error *err);
int step_jvm_run(struct vms_snapshot *s, unsigned have, struct vms_error *err);
int step_go_run(struct vms_snapshot *s, unsigned have, struct vms_error *err);
int step_dotnet_run(struct vms_snapshot *s, unsigned have,
		    struct vms_error *err);
int step_stacks_run(struct vms_snapshot *s, unsigned have,
		    struct vms_error *err);
int step_allocator_run(struct vms_snapshot *s, unsigned have,
		       struct vms_error *err);
int step_v8_run(struct vms_snapshot *s, unsigned have, struct vms_error *err);
int step_cpython_run(struct vms_snapshot *s, unsigned have,
		     struct vms_error *err);
int step_totals_run(struct vms_snapshot *s, unsigned have,
		    struct vms_error *err);

/* The glibc heap_info check, on the first bytes of a candidate region:
 * true when they look like the header of a non-main arena heap of that
 * region. Takes a buffer (for tests). *arena gets ar_ptr. */
bool heaps_info_ok(const void *buf, size_t len, uint64_t start,
		   uint64_t rw_size, uint64_t *arena);

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
