/* classify.h — sorts every region into a type and builds the drill-down.
 *
 * Contract: runs once on a freshly sampled snapshot (regions, threads and
 * counters filled, types not yet set) and sets, per region: type, detail,
 * flags (reserved, guard, image unopened), children (ELF sections, stack
 * parts), build id; per thread: its stack range; and the snapshot's heaps
 * and managed regions. Rules (DESIGN.md "Region types"):
 *
 *   image         a file that libelf confirms is an ELF executable or shared
 *                 object (not decided by name), its .bss tail, [vdso]
 *   mapped file   any other file mapping
 *   shareable     shared anonymous memory, SysV shm, memfd, /dev/shm, and
 *                 shared mappings of tmpfs/ramfs/hugetlbfs files (asked of
 *                 the file system through ops->fs_magic)
 *   heap          [heap], and glibc non-main arena heaps: 64 MiB-aligned,
 *                 MAP_NORESERVE, confirmed by their heap_info header when
 *                 memory can be read
 *   managed heap  regions a runtime named ([anon: Go: heap], dalvik-...)
 *   stack         [stack] and the region holding each thread's stack pointer,
 *                 with the PROT_NONE guard right below it
 *   private data  the rest
 *
 * Files are opened only through ops->open_image (the caller decides where
 * from: /proc/PID/map_files, /proc/PID/root, ...); an image that cannot be
 * opened is typed by what its mapping shows and flagged, never fatal.
 * Memory is read only through vms_snapshot_read() and only when
 * ops->read_memory is true.
 */
#ifndef VMS_CLASSIFY_H
#define VMS_CLASSIFY_H

#include <stdbool.h>

#include "error.h"
#include "snapshot.h"

struct classify_ops {
	/* Returns an open read-only fd for the file behind r, or -1. */
	int (*open_image)(void *ctx, const struct vms_region *r);
	void *ctx;
	bool read_memory;
	/* The file system magic (statfs f_type) of the file behind r, or 0
	 * if it cannot be told. May be NULL. */
	long (*fs_magic)(void *ctx, const struct vms_region *r);
};

int classify_snapshot(struct vms_snapshot *s, const struct classify_ops *ops,
		      struct vms_error *err);

/* The glibc heap_info check, on the first bytes of a candidate region:
 * true when they look like the header of a non-main arena heap of that
 * region. Takes a buffer (for tests). *arena gets ar_ptr. */
bool classify_heap_info_ok(const void *buf, size_t len, uint64_t start,
			   uint64_t rw_size, uint64_t *arena);

#endif
