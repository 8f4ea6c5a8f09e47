/* sampler.h — the inputs that take a snapshot of a live process.
 *
 * Contract: a sampler fills the raw part of a snapshot — process identity,
 * regions with their smaps counters (sorted, exactly /proc/PID/maps), the
 * threads with their stack pointers, VmPTE, capture info — and sets its
 * source (source.h: memory, files, hold) in s->src; nothing else.
 * Classification, drill-down and totals are the pipeline's steps
 * (pipeline.h), run afterwards on whatever made the snapshot.
 *
 * capture(opts, snap, err) is called once on an empty snapshot whose
 * capture info (time, kernel, page size, backend) is filled. Returns 0, or
 * -1 with *err set. On return the target runs (never left stopped or
 * traced), whatever the outcome; s->src is set even on failure when there
 * is something to release.
 *
 * The samplers: "pss" (smaps, optionally frozen), "fork" (a copy-on-write
 * clone), "maps" (the layout of /proc/PID/maps only, every counter 0: the
 * viewer's first frame).
 */
#ifndef VMS_SAMPLER_H
#define VMS_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"
#include "model/snapshot.h"
#include "model/source.h"

struct readahead;

/* What the caller of a lean capture read of the process before it, in
 * this order: a pidfd of it (procfs_pidfd_open; -1 where the kernel has
 * none), then its /proc/PID/stat, which found a process with memory (no
 * kernel thread, no zombie without a thread that runs): its main thread's
 * state and its name (procfs_stat_state); then, optionally, the start of
 * its smaps: the task whose files show the address space
 * (procfs_mm_pid_in of that state) and an inline reader of that task's
 * smaps, its first chunk read (readahead_prime). The capture's first
 * read of smaps takes its text from that reader (only with mm given: the
 * reader is that task's; never with a freeze, which the chunk was read
 * outside of); a second read (a text that overlapped itself) opens
 * smaps again. Everything here stays the
 * caller's: the capture closes and frees none of it. */
struct vms_proc_seen {
	int pidfd;
	char state;
	const char *comm;
	pid_t mm; /* 0: the capture finds it */
	struct readahead *smaps; /* NULL: the capture opens smaps */
};

struct vms_capture_opts {
	pid_t pid;
	/* Optional, with lean: what the caller read (above); the capture
	 * reads none of it again (the main thread's stat, stat, comm) nor
	 * opens a pidfd of its own. NULL: it does. */
	const struct vms_proc_seen *seen;
	/* Optional: a cache of the mapped ELF files shared by the captures
	 * of one run (vmscope --all: elf/elfcache.h), outliving them. */
	struct elfcache *elfcache;
	/* One of a run of many captures whose output is the figures alone
	 * (vmscope --all): smaps read on this thread (a thread a process
	 * costs more than a small process's smaps), no smaps_rollup read
	 * beside it (a check of the figures, s->rollup left invalid), no
	 * reservation of the region array for vm.max_map_count (it grows as
	 * it fills), no note of the files vmscope maps too (observer.h); the
	 * task whose files show the address space found once
	 * (procfs_mm_path_of); the identity without libproc2, its command
	 * line left "" (proclist_identity_lean); threads without names; and
	 * the steps that settle (steps.h: the glibc heap walk) read the
	 * running target twice, keeping what both reads agree on
	 * (VMS_SRC_SETTLE). */
	bool lean;
	/* Optional: the steps to run after the capture (pipeline.h,
	 * vms_finish_opts.steps), NULL-ended; NULL: all of them. */
	const char *const *steps;
	/* Optional: vm.mmap_min_addr, read once for a run of many captures
	 * (vmscope --all); 0: the capture reads it. */
	uint64_t mmap_min_addr;
	bool freeze; /* pss: stop the target while its counters are read */
	bool no_memory; /* never read target memory (classify by shape only) */
	/* fork: every counter read inside the freeze (smaps), never the
	 * fast freeze (fastfreeze.h), which is used where the kernel has
	 * PAGEMAP_SCAN and keep_raw is off */
	bool exact;
	/* Keep the snapshot's memory readable after vms_capture() returns
	 * (for a heap walker, content views). Without it the memory is let go
	 * as soon as the pipeline has read what it needs: the fork sampler's
	 * clone, which costs the target a copy of every page it writes, lives
	 * only that long. */
	bool keep_memory;
	/* Keep what the kernel said (smaps and status text, as read) in
	 * s->raw, for saving the snapshot to a file (snapfile.h). */
	bool keep_raw;
	/* Optional: progress of the capture and of every step after it
	 * (regions read, step names). Returning non-zero cancels: the capture
	 * fails with VMS_ERR_CAPTURE "cancelled" (the target is let go as on
	 * any failure). */
	vms_progress_fn progress;
	void *progress_ctx;
	/* Optional: every block the heap walk of step "malloc" finds held by
	 * the program (source.h, vms_block_fn: the blocks alive when an
	 * attached trace begins). */
	vms_block_fn heap_block;
	void *heap_block_ctx;
	/* Optional: the regions as their counters are read. smaps gives
	 * them in address order, each finished when the next one begins:
	 * called with the snapshot being filled (raw: counters, no types
	 * yet) and how many of its first regions are final, each time a
	 * chunk of smaps finished more, and once with all of them. The
	 * snapshot is the sampler's: read only those regions, only during
	 * the call. Non-zero cancels, as progress does. The pss and fork
	 * samplers call it; the maps sampler has no counters. */
	vms_regions_fn regions_read;
	void *regions_ctx;
	/* Optional: about how many regions the process has (the viewer's
	 * layout from maps), so the snapshot's array is sized once, not
	 * doubled past it while smaps is read. 0: unknown. */
	size_t expect_regions;
	/* Optional, with regions_read: the layout on screen (a finished
	 * "maps" snapshot of the same process, its array reserved larger
	 * than it needs). The capture writes its regions over the layout's,
	 * in place, as they are read, instead of into an array of its own:
	 * the viewer holds one region array, not two (pipeline.h:
	 * vms_layout_fill). On success the array is the capture's and the
	 * layout may only be freed; on failure the layout has it back, with
	 * the regions read so far. */
	struct vms_snapshot *layout;
};

struct vms_sampler {
	const char *name;
	int (*capture)(const struct vms_capture_opts *o, struct vms_snapshot *s,
		       struct vms_error *err);
};

extern const struct vms_sampler vms_sampler_pss;
extern const struct vms_sampler vms_sampler_fork;
extern const struct vms_sampler vms_sampler_maps;

#endif
