/* fork_preflight.h — the fork sampler's checks of the system around a
 * target, kept apart from /proc and /sys paths so they can be tested on
 * made-up trees and texts.
 *
 * Contract: pure functions over the texts given (and, for cgroups, the
 * files under the sysfs root given); they never print, never fail hard:
 * anything missing or unreadable reads as "no limit".
 */
#ifndef VMS_FORK_PREFLIGHT_H
#define VMS_FORK_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* cgroup_text: the contents of /proc/PID/cgroup (modified in place).
 * Walks the process's memory cgroup (v2 "0::/path" with memory.max and
 * memory.current; v1 "N:...memory...:/path" under sysfs/memory with
 * memory.limit_in_bytes and memory.usage_in_bytes) from the leaf up to,
 * not including, the root, and returns the smallest limit - usage in *room
 * and that cgroup's directory in cg. false when no level has a limit. */
bool fork_cgroup_headroom(char *cgroup_text, const char *sysfs, uint64_t *room,
			  char *cg, size_t cgsz);

/* overcommit: the contents of /proc/sys/vm/overcommit_memory; meminfo:
 * /proc/meminfo. Under strict overcommit (2), CommitLimit - Committed_AS
 * (0 if negative) in *room and true; false otherwise. */
bool fork_commit_room(const char *overcommit, const char *meminfo,
		      size_t meminfo_len, uint64_t *room);

#endif
