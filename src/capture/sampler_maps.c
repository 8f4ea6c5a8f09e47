/* sampler_maps.c — the "maps" input: a process's layout from
 * /proc/PID/maps, every counter 0. It is the viewer's first frame, shown
 * while a full capture reads the counters: /proc/PID/maps costs a tenth of
 * smaps. It never stops the target and reads none of its memory; the files
 * behind its mappings can be opened (images get their sections).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/sampler.h"
#include "capture/sampler_common.h"
#include "linux/procfile.h"
#include "linux/procfs.h"
#include "linux/proclist.h"
#include "linux/smaps.h"

static const struct vms_source_ops maps_source = {
	.name = "maps",
	.open_file = vms_source_proc_open,
	.stat_file = vms_source_proc_stat,
	.fs_magic = vms_source_proc_fs_magic,
};

static int maps_capture(const struct vms_capture_opts *o,
			struct vms_snapshot *s, struct vms_error *err)
{
	int pidfd = procfs_pidfd_open(o->pid), rc = 0;

	s->src.ops = &maps_source;
	s->src.pid = procfs_mm_pid(o->pid); /* its map_files: see pss */
	s->src.caps = VMS_SRC_FILES;
	s->src.no_memory = "the layout only: no memory is read";
	/* Streamed through the parser on the reader thread (sampler_common.h)
	 * into an array sized once (by vm.max_map_count without a hint):
	 * slurping the text first cost its own buffer's page faults (14 MB on
	 * 200,000 regions) and a count. */
	if (sampler_read_maps(s, o->pid, o, err) < 0 ||
	    proclist_identity(o->pid, &s->arena, &s->proc, err) < 0)
		rc = -1;
	/* Its files, held for the images step (procfile.h); let go if the
	 * process was reaped meanwhile (they may be another's). */
	if (rc == 0) {
		procfile_hold(s, s->src.pid);
		if (procfs_pidfd_reaped(pidfd))
			procfile_drop(s);
		s->cap.partial = "layout from /proc/PID/maps only; counters "
				 "not read";
	}
	if (pidfd >= 0)
		close(pidfd);
	return rc;
}

const struct vms_sampler vms_sampler_maps = {
	.name = "maps",
	.capture = maps_capture,
};
