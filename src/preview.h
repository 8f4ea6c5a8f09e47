/* preview.h — the first frame of a live process: what the viewer shows
 * while its capture runs, its counters filled in as they are read.
 *
 * Contract: a preview is not a snapshot. A snapshot (model/snapshot.h) is
 * built once, then only read; a preview changes while its capture runs,
 * and only these functions change it. It owns its layout (the regions of
 * /proc/PID/maps, the "maps" sampler's, its display totals made from them)
 * and the state of the fill. vms_preview_rss() gives the layout each
 * region's Rss and Swap from the page tables; vms_preview_capture() runs
 * the full capture writing its regions over the layout's, in place (one
 * region array, not two: a million regions is 200 MB of them), and puts
 * each region read back in the layout's totals with its figures before
 * it calls the caller's hook, which may draw the frame. When the capture
 * ends the preview is done with: it succeeded, and its snapshot replaces
 * the preview (vms_preview_free); or it failed or was cancelled, and
 * vms_preview_end() hands over what the preview holds as a finished
 * snapshot, only read from then on, like any other.
 *
 * Why a type of its own, not a snapshot written into: everything that
 * holds a snapshot (the history, the screens, the exporters, the diff)
 * may then keep to snapshot.h's contract, and the one object that changes
 * while it is shown says so by its type. The frame drawn from it
 * (vms_preview_frame) is the preview's: valid until the preview's next
 * call, freed with it, never kept, diffed or exported.
 */
#ifndef VMS_PREVIEW_H
#define VMS_PREVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"
#include "capture/sampler.h"
#include "model/snapshot.h"

struct vms_preview;

/* The layout of pid from /proc/PID/maps, no memory read: the first
 * frame. NULL with *err. */
struct vms_preview *vms_preview_open(pid_t pid, struct vms_error *err);

/* Each region's Rss and Swap from the page tables in one pass
 * (pipeline.h: vms_layout_rss): the second frame. Returns how many
 * regions have figures (0: the kernel cannot, nothing changed), or -1
 * with *err. */
int vms_preview_rss(struct vms_preview *p, struct vms_error *err);

/* What to draw: the layout with the figures read so far. Only the
 * preview's functions write it; valid until the next of them. */
struct vms_snapshot *vms_preview_frame(const struct vms_preview *p);

/* The layout's regions filled by the capture so far. */
size_t vms_preview_filled(const struct vms_preview *p);

/* Called as the capture reads the regions, once their figures are in
 * the layout's totals: filled, how many this call put there (0: none,
 * nothing new to draw). Non-zero cancels the capture. */
typedef int vms_preview_fn(void *ctx, const struct vms_preview *p,
			   size_t filled);

/* The full capture of the preview's process (vms_capture with o, its pid,
 * its regions written over the layout's), fn called as they are read.
 * Returns its snapshot; the preview may then only be freed. NULL with
 * *err: the preview holds what was read (vms_preview_end). Once. */
struct vms_snapshot *vms_preview_capture(struct vms_preview *p,
					 const struct vms_sampler *smp,
					 const struct vms_capture_opts *o,
					 vms_preview_fn *fn, void *ctx,
					 struct vms_error *err);

/* Hands over what the preview holds as a finished snapshot (the layout,
 * with the counters of the regions read before a capture failed): the
 * caller's, to free with vms_snapshot_free; the preview is freed. */
struct vms_snapshot *vms_preview_end(struct vms_preview *p);

/* Frees the preview and its layout (NULL: nothing). */
void vms_preview_free(struct vms_preview *p);

#endif
