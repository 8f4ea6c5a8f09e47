/* pageout.h — Empty Working Set (VMMap's): the kernel asked to page out a
 * live process's private memory (issue 31 item 7).
 *
 * Contract: vms_pageout() acts on the process a live snapshot was captured
 * from, and on nothing else: the pid is taken as a pidfd, then the /proc
 * directory the capture held (procfile.h) is read; while it answers, the
 * process it names has not been reaped, so the pidfd opened before is that
 * process's, never another's given its pid since. The pidfd asks
 * process_madvise(2) (Linux 5.10) for MADV_PAGEOUT over the snapshot's
 * private writable regions (not shared; the kernel refuses mlocked,
 * hugetlb and PFN maps, which are left out and counted), at most 512
 * ranges and 1 GiB a call (the kernel caps a vector at 1,024 ranges and
 * under 2 GiB). A range the target unmapped since the snapshot is passed
 * over and counted; the rest goes on. The process is never stopped;
 * nothing but the advice changes it: the pages reclaimed come back on its
 * next touch (from swap, or its file), as after memory pressure. Without
 * swap only clean pages (a private file mapping's, not written) can go.
 * The kernel reclaims a file's page-cache folio whole: a page of another
 * mapping of the same folio (a read-only one beside, not asked) may go
 * with it.
 *
 * Rss is the kernel's (smaps_rollup, through the held directory) just
 * before the first call and just after the last: what the advice freed,
 * as far as nothing else changed the process meanwhile.
 *
 * Refused, with a message a person can act on (errors as values): a
 * snapshot without a live process behind it (loaded from a file, a core
 * dump), one whose /proc directory was not held, a process that has
 * exited, no permission (EPERM: process_madvise needs ptrace access and
 * CAP_SYS_NICE over the target), a kernel without pidfd_open or
 * process_madvise (ENOSYS) or without MADV_PAGEOUT there (EINVAL).
 */
#ifndef VMS_PAGEOUT_H
#define VMS_PAGEOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "model/snapshot.h"

struct vms_pageout {
	size_t regions; /* private writable regions asked */
	size_t refused; /* left out (mlocked, hugetlb, PFN or I/O maps) */
	size_t gone; /* ranges the kernel no longer had (unmapped since) */
	uint64_t asked; /* bytes asked */
	uint64_t advised; /* bytes the kernel took the advice for */
	/* smaps_rollup's figures (bytes), just before and just after */
	uint64_t rss_before, rss_after;
	uint64_t anon_before, anon_after; /* Anonymous */
	bool no_swap; /* the machine has no swap: anonymous pages stay */
};

/* The refusals known before anything is asked (no live process behind s,
 * its /proc directory not held): 0, or -1 with *err as vms_pageout's. */
int vms_pageout_check(const struct vms_snapshot *s, struct vms_error *err);

/* s: a live snapshot (vms_snapshot_refreshable). 0 with *out filled, or -1
 * with *err (VMS_ERR_USAGE: not a live snapshot, or the kernel lacks it;
 * VMS_ERR_PERM: not permitted; VMS_ERR_NOPROC: the process is gone). */
int vms_pageout(const struct vms_snapshot *s, struct vms_pageout *out,
		struct vms_error *err);

#endif
