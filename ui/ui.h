/* ui.h — the curses front end's one entry point.
 *
 * Contract: ui_run() owns the terminal from start to end: it initialises
 * curses, runs the picker (when o->pid is 0 and no snapshot is given) or the
 * viewer, and always restores the terminal before it returns, on errors and
 * on SIGINT/SIGTERM too. It captures snapshots through pipeline.h with the
 * sampler and options given, and frees every snapshot it made. Returns 0,
 * or -1 with *err set (main turns that into the exit status).
 */
#ifndef VMS_UI_H
#define VMS_UI_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/error.h"
#include "capture/sampler.h"
#include "model/snapshot.h"

struct tracer;

struct ui_opts {
	const struct vms_sampler *sampler;
	struct vms_capture_opts copts; /* copts.pid 0: the picker */
	const char *theme; /* name or path, NULL for the default */
	struct vms_snapshot *snap; /* optional: show this one first */
	/* the file snap was loaded from (-l FILE), or NULL: w saves a copy */
	const char *snap_path;
	/* optional, with snap: open the diff screen of snap (A) against
	 * snap_b (B); both stay the caller's; snap_path_b: the file snap_b
	 * was loaded from, or NULL */
	struct vms_snapshot *snap_b;
	const char *snap_path_b;
	/* --watch: a snapshot every watch_s seconds (0: none), count of
	 * them in all (0: no end) */
	double watch_s;
	long count;
	/* --trace -- CMD: the trace of the command shown (its pid in
	 * copts.pid); the caller's, read and marked by the calls screen */
	struct tracer *tracer;
};

int ui_run(const struct ui_opts *o, struct vms_error *err);

#endif
