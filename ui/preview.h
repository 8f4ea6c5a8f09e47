/* preview.h — the first frame: a process's layout from /proc/PID/maps,
 * shown while the full capture reads the counters.
 *
 * Contract: preview_layout() builds, with the engine's own parser,
 * classifier and totals, a snapshot of the regions of /proc/PID/maps with
 * every counter 0 and cap.partial saying so; it reads no memory of the
 * target and never stops it. NULL when it cannot (the full capture then
 * reports why). The caller frees it with vms_snapshot_free().
 */
#ifndef VMS_UI_PREVIEW_H
#define VMS_UI_PREVIEW_H

#include <sys/types.h>

#include "../src/snapshot.h"

struct vms_snapshot *preview_layout(pid_t pid);

#endif
