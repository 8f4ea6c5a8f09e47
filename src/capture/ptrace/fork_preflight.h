/* fork_preflight.h — the fork sampler's checks of the system around a
 * target, kept apart from /proc and /sys paths so they can be tested on
 * made-up trees and texts.
 *
 * Contract: pure functions over the texts given (and, for cgroups, the
 * files under the sysfs root given); they never print, never fail hard:
 * anything missing or unreadable reads as "no limit".
 *
 * Where an injected fork can wait in a way PTRACE_INTERRUPT cannot end
 * (the kernel's fork path, copy_process() and dup_mmap(), Linux 6.18), and
 * what the fork sampler does about each:
 *  - dup_userfaultfd()/dup_userfaultfd_complete(): a region registered
 *    with a userfaultfd whose context asked for UFFD_FEATURE_EVENT_FORK
 *    makes the fork queue an event and wait (killable only) until the
 *    monitor reads it. A monitor thread of the target is frozen: it never
 *    does. Refused: the target's userfaultfd descriptors are listed in
 *    /proc/PID/fd, their features read from fdinfo ("API:\tAPI:FEATURES:
 *    IOCTLS", fork_uffd_features()); a region registered with a
 *    userfaultfd (VmFlags um, uw, ui) while the target holds none (its
 *    monitor is another process, whose features cannot be read, and which
 *    would be told of the clone) is refused too.
 *  - a vfork parent waits (uninterruptibly) for its child: the freeze
 *    refuses a thread in D state (freeze.h).
 *  - dup_mmap() takes the target's mmap_lock for writing (killable only):
 *    every thread of the target is stopped outside the kernel, so only
 *    another process holds it (a reader of its smaps, process_vm_readv,
 *    GUP from a driver), each for a bounded time.
 *  - uprobe_dup_mmap() (dup_mmap_sem), cgroup_can_fork() and the cgroup
 *    threadgroup rwsem (a cgroup migration), memory cgroup charges (page
 *    tables; reclaim, or an OOM kill, never an unbounded wait: the cgroup's
 *    headroom is checked, fork_cgroup_headroom()): bounded waits on other
 *    processes.
 * Whatever the reason, a call that does not return within its bound is
 * never abandoned: the keeper lets the target's other threads go (a
 * monitor among them can then answer), keeps the borrowed thread until
 * the call returns, puts back its registers and signal mask, and kills the
 * clone if one was made (inject.h, fork_clone.h).
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

/* The features of a userfaultfd, from the text of its /proc/PID/fdinfo/N
 * (the line "API:\t%llx:%llx:%llx": API, features, ioctls). false when
 * the line is missing or malformed. */
bool fork_uffd_features(const char *fdinfo, size_t n, uint64_t *features);
/* UFFD_FEATURE_EVENT_FORK (linux/userfaultfd.h). */
#define FORK_UFFD_EVENT_FORK 0x2ull

#endif
