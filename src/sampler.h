/* sampler.h — the backends that take a snapshot, behind one const vtable.
 *
 * Contract: a sampler fills the raw part of a snapshot — process identity,
 * regions with their smaps counters (sorted, exactly /proc/PID/maps), the
 * threads with their stack pointers, VmPTE, capture info — and nothing else:
 * classification, drill-down and totals are done afterwards by capture.c on
 * whatever sampler made the snapshot. Nothing outside a sampler knows which
 * one ran, except through snap->cap.backend and snap->cap.frozen_us.
 *
 * Callbacks:
 *  capture(opts, snap, err)   called once on an empty snapshot. Returns 0, or
 *                             -1 with *err set. On return the target runs
 *                             (never left stopped or traced), whatever the
 *                             outcome. It may set snap->sampler_priv.
 *  read_mem(snap, addr, buf, len, err)
 *                             copies target memory as of the snapshot into
 *                             buf. Returns the number of bytes copied (short
 *                             or 0 where memory is not present or not
 *                             readable: pages never touched are not read, so
 *                             reading builds no page tables in the target),
 *                             or -1 with *err set. May be NULL: no memory.
 *  release(snap)              frees sampler_priv (and for fork, kills the
 *                             clone). Called by vms_snapshot_free(); idempotent.
 *  hold(snap, on, err)        optional: with on, keep the memory still for a
 *                             batch of read_mem calls (pss --freeze: one
 *                             stop for all of them instead of one each);
 *                             with off, let go. The stop is added to
 *                             snap->cap.frozen_us. Returns 0 or -1 (then
 *                             reads go on without the hold).
 */
#ifndef VMS_SAMPLER_H
#define VMS_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "error.h"
#include "snapshot.h"

struct vms_capture_opts {
	pid_t pid;
	bool freeze; /* pss: stop the target while its counters are read */
	bool no_memory; /* never read target memory (classify by shape only) */
	/* Keep the snapshot's memory readable after vms_capture() returns
	 * (for a heap walker, content views). Without it the memory is let go
	 * as soon as classification has read what it needs: the fork
	 * sampler's clone, which costs the target a copy of every page it
	 * writes, lives only that long. */
	bool keep_memory;
	/* Optional: called from the capture every few thousand regions with
	 * the count so far. Returning non-zero cancels the capture, which then
	 * fails with VMS_ERR_CAPTURE "cancelled" (the target is let go as on
	 * any failure). */
	int (*progress)(void *ctx, size_t regions);
	void *progress_ctx;
};

struct vms_sampler {
	const char *name;
	int (*capture)(const struct vms_capture_opts *o, struct vms_snapshot *s,
		       struct vms_error *err);
	ssize_t (*read_mem)(struct vms_snapshot *s, uint64_t addr, void *buf,
			    size_t len, struct vms_error *err);
	void (*release)(struct vms_snapshot *s);
	int (*hold)(struct vms_snapshot *s, bool on, struct vms_error *err);
};

extern const struct vms_sampler vms_sampler_pss;
extern const struct vms_sampler vms_sampler_fork;

/* The sampler named name ("pss", "fork"), or NULL. */
const struct vms_sampler *vms_sampler_by_name(const char *name);

/* Holds the memory still for a batch of reads (see hold above); a no-op
 * for samplers whose memory is still anyway. */
void vms_snapshot_hold(struct vms_snapshot *s, bool on);

/* Reads snapshot memory through its sampler; 0 bytes when the snapshot has
 * no memory (loaded from a file, or the sampler cannot read). */
ssize_t vms_snapshot_read(struct vms_snapshot *s, uint64_t addr, void *buf,
			  size_t len, struct vms_error *err);

#endif
