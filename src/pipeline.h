/* pipeline.h — from a raw snapshot to a finished one, and the live capture.
 *
 * Contract: vms_snapshot_finish() runs the steps of vms_steps[] in order
 * over a snapshot whose raw part is filled (regions with counters, threads,
 * VmPTE, capture info) by a sampler or a loader, and whose source (s->src)
 * says what can be read. Each step declares what it needs from the source
 * and what it only uses when there:
 *   needs   without it the step does not run; its part is noted missing
 *           (vms_snapshot_note) with the source's reason;
 *   wants   the step runs without it, doing less; that too is noted.
 * Where the source lacks either, it is first asked to restore what the
 * step made when the snapshot was taken (source.h: a snapshot file keeps
 * the heaps found in memory it does not hold); what it restores stands
 * in for the step, with no note.
 * A step that fails keeps its own message: an essential step (classify,
 * totals) fails the snapshot with it; any other is noted missing and the rest goes
 * on. Out of memory fails the snapshot. Progress is reported through the
 * source at each step, and a cancel there (between steps) fails the
 * snapshot with "cancelled". Running the pipeline again on the same
 * snapshot gives the same result (every step rebuilds what it derives).
 *
 * vms_capture() is a sampler's capture followed by the pipeline; unless
 * o->keep_memory, the source's memory is let go before it returns (the fork
 * sampler's clone then dies). The snapshot returned is complete and, from
 * then on, only read.
 *
 * A new step is a file (src/analyze/step_NAME.c, or under heaps/ or
 * runtimes/) ending with its row, const struct vms_step vms_step_NAME
 * (analyze/steps.h), and a row X(NAME) in pipeline.c's VMS_STEPS, in the
 * order the steps run. A step's row says what a snapshot file keeps of
 * its result (.kept, model/kept.h); the pipeline hands those declarations
 * to the file's writer and reader.
 */
#ifndef VMS_PIPELINE_H
#define VMS_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "analyze/memview.h" /* a snapshot's memory, for the viewer's contents */
#include "analyze/steps.h"
#include "base/error.h"
#include "capture/sampler.h"
#include "linux/pageout.h" /* Empty Working Set, for the viewer */
#include "model/snapshot.h"

/* In the order they run, NULL-ended. */
extern const struct vms_step *const vms_steps[];
extern const size_t vms_nsteps;

struct vms_finish_opts {
	bool no_memory; /* read no memory even if the source has it */
	/* The steps to run, by name (vms_step.name), NULL-ended; NULL: all
	 * of them. The essential ones (classify, totals) run whatever it
	 * says; one left out is neither run nor noted (its part of the
	 * snapshot is empty, as for a process without it): a capture made
	 * for one step's result (vms_capture_opts.steps). */
	const char *const *steps;
};

/* o may be NULL (defaults). Returns 0, or -1 with *err. */
int vms_snapshot_finish(struct vms_snapshot *s, const struct vms_finish_opts *o,
			struct vms_error *err);

/* The sampler named name ("pss", "fork", "maps"), or NULL. */
const struct vms_sampler *vms_sampler_by_name(const char *name);

/* The steps whose results a snapshot file keeps (their .kept), in order,
 * NULL-ended: what snapfile_encode() and snapfile_load() take. */
#define VMS_STEPS_MAX 32
struct vms_kept;
void vms_steps_kept(const struct vms_kept *out[VMS_STEPS_MAX + 1]);

/* Captures a live process: NULL with *err on failure (the target is never
 * left stopped or traced). */
struct vms_snapshot *vms_capture(const struct vms_sampler *smp,
				 const struct vms_capture_opts *o,
				 struct vms_error *err);

/* The machinery of a preview (preview.h: the type the viewer holds; these
 * are its parts, and the tests'). The counters arriving as they are read:
 * pre is a preview's layout (the "maps" sampler's, finished), shown while
 * a full capture of the same process reads smaps and writes
 * its regions over pre's (vms_capture_opts.layout, vms_lend_begin below);
 * the capture's regions_read hook (sampler.h) hands over part, the
 * capture's snapshot being filled, with its first done regions final.
 * This puts part's regions [st->done, done) back in pre's summary rows
 * and total with their new figures (derived), so pre's figures grow
 * toward the capture's; a region read again is counted once. Types and
 * children stay pre's until the capture's steps run; the capture's own
 * snapshot replaces pre when it is done. st starts zeroed, one per
 * capture. Returns how many regions of pre were filled by this call (0
 * when part does not write over pre). */
struct vms_fill {
	size_t done; /* part's regions handed over so far */
	size_t filled; /* pre's regions filled so far */
};
size_t vms_layout_fill(struct vms_snapshot *pre, struct vms_fill *st,
		       const struct vms_snapshot *part, size_t done);

/* Each region's Rss and Swap in a layout from maps (the "maps" sampler's
 * snapshot, pre), from the page tables in one pass (PAGEMAP_SCAN, Linux
 * 6.7: pmscan.h), its totals made again: the viewer's second frame, while
 * smaps is read. A figure smaps will give otherwise (hugetlb pages, a
 * shmem object's swap) is replaced when the counters come. Returns how
 * many regions have figures (0: the kernel cannot, nothing changed), or
 * -1 with *err (out of memory). */
int vms_layout_rss(struct vms_snapshot *pre, struct vms_error *err);

/* What vms_capture() does with vms_capture_opts.layout (the tests call
 * them around a parse of their own). vms_lend_begin: s, new and empty,
 * writes its regions over those of pre (finished, not lent already) from
 * now on, in place; the array is s's. Each region written over leaves
 * pre's totals and keeps pre's type, detail and children for the display
 * (the classify step clears them); vms_layout_fill(pre, .., s, done)
 * puts the finished ones back in pre's totals with their new figures.
 * -1 with *err: out of memory. vms_lend_end: the capture is over. ok: s
 * keeps the array (after its steps ran), and pre may only be freed. Not
 * ok: pre has the array back with the regions written so far (those that
 * overlap one before them, when the target mapped between the two reads,
 * left out) and s's arena (their paths and VmFlags), so that s can be
 * freed; pre's steps run again on it (types, children, totals), so its
 * rows on screen are to be made again. */
int vms_lend_begin(struct vms_snapshot *s, struct vms_snapshot *pre,
		   struct vms_error *err);
void vms_lend_end(struct vms_snapshot *s, bool ok);

/* Loads a saved snapshot or an ELF core from its bytes (name: the file,
 * for messages): the loader that recognises them fills the raw part and
 * the source (snapfile.h, coredump.h), then the pipeline runs as after a
 * capture. NULL with *err (VMS_ERR_FILE: the bytes are not a snapshot,
 * with what is wrong). buf stays the caller's: a core's memory is let go
 * before this returns (the steps have read it). */
struct vms_snapshot *vms_load_buffer(const void *buf, size_t len,
				     const char *name, struct vms_error *err);
/* The same from the file at path (read whole; a directory, an unreadable
 * or an oversized file is VMS_ERR_FILE). A core is mapped instead (no
 * size cap, no copy), and the snapshot keeps the mapping as its memory
 * until freed. */
struct vms_snapshot *vms_load_file(const char *path, struct vms_error *err);

/* Whether s was captured from a live process that a refresh captures
 * again (false for a loaded snapshot: its pid is another machine's or
 * another moment's). */
bool vms_snapshot_refreshable(const struct vms_snapshot *s);

/* A snapshot captured with keep_raw as the bytes of a snapshot file
 * (malloc'd into *buf, *len). -1 with *err. */
int vms_snapshot_save(const struct vms_snapshot *s, void **buf, size_t *len,
		      struct vms_error *err);
/* The same with trace as its trace section (model/trace.h; NULL: s's
 * own): the viewer saves a snapshot taken while tracing with the report
 * of the trace up to it, which the snapshot itself does not hold. */
int vms_snapshot_save_traced(const struct vms_snapshot *s,
			     const struct vms_trace_report *trace, void **buf,
			     size_t *len, struct vms_error *err);

#endif
