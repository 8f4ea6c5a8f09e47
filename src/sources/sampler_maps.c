/* sampler_maps.c — the "maps" input: a process's layout from
 * /proc/PID/maps, every counter 0. It is the viewer's first frame, shown
 * while a full capture reads the counters: /proc/PID/maps costs a tenth of
 * smaps. It never stops the target and reads none of its memory; the files
 * behind its mappings can be opened (images get their sections).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "procfs.h"
#include "proclist.h"
#include "sampler.h"
#include "smaps.h"

static const struct vms_source_ops maps_source = {
	.name = "maps",
	.open_file = vms_source_proc_open,
	.fs_magic = vms_source_proc_fs_magic,
};

static size_t count_lines(const char *b, size_t len)
{
	const char *end = b + len, *nl;
	size_t n = 0;

	while (b < end && (nl = memchr(b, '\n', (size_t)(end - b)))) {
		n++;
		b = nl + 1;
	}
	return n + (b < end);
}

static int maps_capture(const struct vms_capture_opts *o,
			struct vms_snapshot *s, struct vms_error *err)
{
	char path[128], *buf = NULL;
	size_t len = 0;
	int rc = -1;

	s->src.ops = &maps_source;
	s->src.pid = procfs_mm_pid(o->pid); /* its map_files: see pss */
	s->src.caps = VMS_SRC_FILES;
	s->src.no_memory = "the layout only: no memory is read";
	procfs_mm_path(o->pid, "maps", path, sizeof(path));
	if (procfs_read_file(path, &buf, &len) < 0)
		return procfs_errno_error(err, o->pid, "maps", errno);
	/* one region a line: the array sized once, not doubled past it */
	if (vms_snapshot_reserve(s, count_lines(buf, len)) < 0) {
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
			      "out of memory for the layout of pid %d",
			      (int)o->pid);
		goto out;
	}
	if (smaps_parse_buffer(s, buf, len, err) < 0)
		goto out;
	if (s->nregions == 0) {
		vms_error_set(err, VMS_ERR_CAPTURE, 0,
			      "process %d has no address space", (int)o->pid);
		goto out;
	}
	if (proclist_identity(o->pid, &s->arena, &s->proc, err) < 0)
		goto out;
	s->cap.partial = "layout from /proc/PID/maps only; counters not read";
	rc = 0;
out:
	free(buf);
	return rc;
}

const struct vms_sampler vms_sampler_maps = {
	.name = "maps",
	.capture = maps_capture,
};
