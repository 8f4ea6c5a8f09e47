/* preview.c — the layout of /proc/PID/maps as a snapshot. See preview.h. */
#include "preview.h"

#include <stdlib.h>
#include <time.h>

#include "../src/capture.h"
#include "../src/procfs.h"
#include "../src/proclist.h"
#include "../src/smaps.h"

struct vms_snapshot *preview_layout(pid_t pid)
{
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_error err = { 0 };
	struct timespec ts;
	char *buf = NULL;
	size_t len = 0;

	if (!s)
		return NULL;
	if (procfs_read_pid(pid, "maps", &buf, &len) < 0 ||
	    smaps_parse_buffer(s, buf, len, &err) < 0 || s->nregions == 0 ||
	    proclist_identity(pid, &s->arena, &s->proc, &err) < 0)
		goto fail;
	clock_gettime(CLOCK_REALTIME, &ts);
	s->cap.backend = "maps";
	s->cap.taken_at_sec = ts.tv_sec;
	s->cap.taken_at_nsec = ts.tv_nsec;
	s->cap.partial = "layout from /proc/PID/maps only; counters not read";
	if (vms_snapshot_finish(s, pid, false, &err) < 0)
		goto fail;
	free(buf);
	return s;
fail:
	free(buf);
	vms_snapshot_free(s);
	return NULL;
}
