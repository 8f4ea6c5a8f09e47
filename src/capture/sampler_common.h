/* sampler_common.h — the reads the samplers make of the original process.
 *
 * Contract: each function fills one part of a snapshot from /proc of pid,
 * returns 0 or -1 with *err (no such process and not permitted told apart,
 * a process that exits midway reported as such). They stop nothing
 * themselves: the caller freezes the target around them when it wants
 * consistent figures.
 */
#ifndef VMS_SAMPLER_COMMON_H
#define VMS_SAMPLER_COMMON_H

#include <sys/types.h>

#include "base/error.h"
#include "capture/ptrace/freeze.h"
#include "model/snapshot.h"

struct vms_capture_opts;

/* Streams /proc/PID/smaps through the parser into s->regions, reporting
 * progress (and honouring cancel) through o->progress, and the regions as
 * they are finished through o->regions_read. Reads the kernel's
 * smaps_rollup too, into s->rollup (left invalid if unreadable: it is the
 * check that the regions add up, not a figure vmscope shows), on a thread
 * of its own while smaps is read, joined before it returns. Without
 * o->expect_regions the region array is reserved at vm.max_map_count
 * (address space only until the regions fill it). A text whose
 * records overlap (a running process mapped between two reads) is read
 * again, up to SMAPS_TRIES times, and is then an error with EAGAIN. The
 * caller then notes what vmscope itself maps of the target (observer_note),
 * out of any freeze. A lean capture (o->lean) leaves out the check that
 * the process did not exit during the read (a text then ends early,
 * looking whole): its caller must read status right after, with
 * sampler_read_status's one, which makes it (the pss sampler does). */
int sampler_read_smaps(struct vms_snapshot *s, pid_t pid,
		       const struct vms_capture_opts *o, struct vms_error *err);
/* What sampler_read_smaps() of pid's smaps needs, made now (pss -F:
 * before the freeze, so that the stop holds the kernel's reads, not the
 * reader's setup): its reader's thread with its first buffer faulted in
 * and the rollup's thread, each held until the read (readahead_start_held),
 * the region array reserved, mmap_min_addr read. Not the files: smaps is
 * opened at the read, and the rollup's path found then (a /proc file
 * opened before the stop reads the address space the process had then:
 * after an exec, the old one; a main thread exited since has none).
 * NULL where it cannot (the read then makes them itself). Of a process
 * whose main thread runs (not lean). sampler_read_smaps_prepped() is
 * sampler_read_smaps() with it, and frees it; sampler_prep_free() ends one
 * not used (its threads let go and joined). */
struct sampler_prep;
struct sampler_prep *sampler_prep_smaps(struct vms_snapshot *s, pid_t pid);
int sampler_read_smaps_prepped(struct vms_snapshot *s, pid_t pid,
			       const struct vms_capture_opts *o,
			       struct sampler_prep *p, struct vms_error *err);
void sampler_prep_free(struct sampler_prep *p);
/* The same for /proc/PID/maps: the layout alone, every counter 0 (no
 * rollup, no raw text kept). */
int sampler_read_maps(struct vms_snapshot *s, pid_t pid,
		      const struct vms_capture_opts *o, struct vms_error *err);
/* The regions sampler_read_smaps() read, what it said of them and the text
 * it kept, dropped (their strings stay in the arena), to read them again. */
void sampler_forget_regions(struct vms_snapshot *s);
/* VmPTE from /proc/PID/status into s->page_table; mm as
 * procfs_mm_path_of takes it (0: found). one, when not NULL: whether the
 * process had one thread, its main one, not exited (Threads: 1 and the
 * main thread's State, read from its own status: mm == pid); and, read
 * right after a lean sampler_read_smaps, which leaves it here, the check
 * that the address space outlived that read (Vm lines in status: else
 * "exited during capture", VMS_ERR_CAPTURE with ESRCH). */
int sampler_read_status(struct vms_snapshot *s, pid_t pid, pid_t mm, bool *one,
			struct vms_error *err);
/* Threads with names; sp from the frozen registers. */
int sampler_threads_from_freeze(struct vms_snapshot *s, const struct freeze *f,
				struct vms_error *err);
/* Threads with names; sp from /proc/PID/task/TID/syscall (blocked threads
 * only; running ones are retried, then left with sp 0). lean (a capture
 * of vmscope --all, whose output names no thread): without names, a
 * thread whose syscall file cannot be read taken as exited; and with one
 * (sampler_read_status's), the main thread alone, the task list not
 * read. */
int sampler_threads_from_proc(struct vms_snapshot *s, pid_t pid, bool lean,
			      bool one, struct vms_error *err);

#endif
