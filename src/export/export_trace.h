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
void export_trace_text(struct outbuf *o, const struct vms_trace_report *r,
		       unsigned max_frames);

#endif
