/* capture.h — the pipeline: sample, classify, drill down, total.
 *
 * Contract: vms_capture() returns a complete, immutable snapshot of a live
 * process, or NULL with *err set. The target is never left stopped or traced
 * (the sampler guarantees it). With o->keep_memory the snapshot keeps its
 * sampler for reading memory until vms_snapshot_free(); without, memory is
 * released before vms_capture() returns (vms_snapshot_read() then reads 0
 * bytes).
 */
#ifndef VMS_CAPTURE_H
#define VMS_CAPTURE_H

#include "error.h"
#include "sampler.h"
#include "snapshot.h"

struct vms_snapshot *vms_capture(const struct vms_sampler *smp,
				 const struct vms_capture_opts *o,
				 struct vms_error *err);

/* Classifies and totals a snapshot whose raw part is filled (used by
 * vms_capture, and by tests that build a snapshot from a fixture). pid is
 * where image files are looked up (/proc/PID/map_files, /proc/PID/root), or
 * 0 to open paths as they are. */
int vms_snapshot_finish(struct vms_snapshot *s, pid_t pid, bool read_memory,
			struct vms_error *err);

#endif
