/* export_trace.h — a trace report (model/trace.h) written out: the JSON
 * "trace" object of DESIGN.md's contract (the value only: the caller
 * writes its key), and a text report of the call sites by impacting size,
 * each stack innermost first, up to max_frames frames. Strings from the
 * program (function, file and module names) are escaped (outbuf.h).
 */
#ifndef VMS_EXPORT_TRACE_H
#define VMS_EXPORT_TRACE_H

#include "base/outbuf.h"
#include "model/trace.h"

void export_trace_json(struct outbuf *o, const struct vms_trace_report *r);
/* The traced process's end as the "process" object's members
 * "exit_status" (its exit status, null when it has not exited) and
 * "signal" (the signal that killed it, or null), no comma after. */
void export_trace_exit_json(struct outbuf *o, const struct vms_trace_report *r);
/* The "Ended:" line of the text report: the traced process's exit status,
 * the signal that killed it, or that it runs on. */
void export_trace_end_text(struct outbuf *o, const struct vms_trace_report *r);
void export_trace_text(struct outbuf *o, const struct vms_trace_report *r,
		       unsigned max_frames);

/* A trace that followed children (--trace-children): the "trace" object
 * of the launched process's report r with, last, "children" (how many
 * followed, not followed, the limit) and "processes" (each process: pid,
 * ppid, how, command, ended, its outstanding and transient sums, and its
 * own "trace" object, null for the launched one: r); and the text of the
 * children after the launched one's: a line of the counts, then each
 * child's process lines and report. */
void export_trace_procs_json(struct outbuf *o, const struct vms_trace_report *r,
			     const struct vms_trace_procs *ps);
void export_trace_procs_text(struct outbuf *o, const struct vms_trace_procs *ps,
			     unsigned max_frames);

/* Two reports compared (trace.h, vms_trace_diff): the JSON value of a
 * diff's "trace" (each side's trace-wide fields and window, the counts,
 * then each site that changed with its frames, a's and b's figures and
 * their delta), and text: the sites that changed most, up to max_sites
 * (0: all), each as deltas (B - A). */
void export_trace_diff_json(struct outbuf *o, const struct vms_trace_report *a,
			    const struct vms_trace_report *b,
			    const struct vms_trace_diff *d);
void export_trace_diff_text(struct outbuf *o, const struct vms_trace_report *a,
			    const struct vms_trace_report *b,
			    const struct vms_trace_diff *d, size_t max_sites,
			    unsigned max_frames);

#endif
