/* fastfreeze.h — the fork sampler's counters with a freeze hardly longer
 * than the target's own fork().
 *
 * Both a smaps read and fork() need the target's mmap lock, so they cannot
 * overlap; reading smaps inside the freeze makes it last the page-by-page
 * accounting of smaps plus the fork (44.6 ms against a 28.2 ms fork on a
 * 1 GiB target of 4 KiB pages). Instead:
 *   1. before the freeze, smaps is read as the pss sampler reads it (the
 *      target runs): every counter of every region;
 *   2. inside it, fastfreeze_counters() reads /proc/PID/maps and checks
 *      that the layout is the one smaps gave (smaps_same_layout), then
 *      each region's Rss and Swap from the page tables in one pass
 *      (pmscan.h), and reconciles: a region whose Rss or Swap moved gets
 *      the freeze's Rss and Swap, its split and Pss adjusted to add up
 *      (fastfreeze_reconcile) and the flag VMS_RF_APPROX.
 * Rss and Swap are then of the fork's instant. The large regions of
 * anonymous private memory (fastfreeze_after_fork) are left out of that
 * scan when a fork follows, and scanned in the clone once the target runs
 * again (fastfreeze_clone_counters): fork copies every page-table entry
 * of such a region that has pages (a present page, a swap entry), so the
 * clone's page tables hold the target's of the fork's instant, and the
 * freeze does not walk them (1.3-2.3 ms of a 1 GiB target of 4 KiB pages,
 * a tenth of its freeze; 19.7-19.9 ms at 8 GiB). The split (private/shared,
 * clean/dirty), Pss, Locked and VmFlags are of the read before: what moves
 * them without moving Rss (a page dirtied, a copy-on-write broken, another
 * process mapping a page, an madvise or mlock of a whole region) is not
 * seen, for the milliseconds between the two reads; the summary says the
 * counters were had so. When the layout moved between the two reads, or
 * the scan fails, the caller reads smaps again inside the freeze (the
 * exact path).
 *
 * Regions whose figures the scan cannot give keep smaps's: hugetlb (smaps
 * counts its pages apart from Rss), PFN, I/O and mixed maps (special
 * entries the scan calls present), userfaultfd write-protected ones (their
 * markers look swapped), a region whose record was cut, and the kernel's
 * [vsyscall] (outside the user range the ioctl takes). Swap of a file or
 * shared mapping is smaps's unless the page tables show more (shmem swap
 * is the object's, not the page tables').
 */
#ifndef VMS_FASTFREEZE_H
#define VMS_FASTFREEZE_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/error.h"
#include "linux/pmscan.h"
#include "model/snapshot.h"

/* The figures of r (smaps's, read before the freeze) made to agree with
 * f (the page tables' in it). Returns true when they moved (r then
 * carries VMS_RF_APPROX): Rss grown counts as private dirty (pages the
 * target touched meanwhile), Rss shrunk is taken from clean pages first,
 * Pss follows. A parser: no pid. */
bool fastfreeze_reconcile(struct vms_region *r, const struct pmscan_fig *f);

/* Inside the freeze; s holds the regions and counters smaps gave just
 * before it, pmfd and how are pmscan_open(pid)'s. fork_next: the target
 * is forked in this freeze, and the regions fastfreeze_after_fork()
 * takes are left to fastfreeze_clone_counters() (unchanged until then).
 * Returns 1 when done (s->cap's freeze_counters and approx_regions set),
 * 0 when the layout moved or the scan failed (s untouched: read smaps
 * again), -1 with *err (out of memory, or maps unreadable). */
int fastfreeze_counters(struct vms_snapshot *s, pid_t pid, int pmfd,
			const struct pmscan_how *how, bool fork_next,
			struct vms_error *err);

/* Whether r's Rss and Swap are read in the clone after the fork: a
 * region fork copies as it is, whose figures smaps gave whole (VmFlags
 * known): anonymous (no file: no path, [heap], [stack], [anon:NAME];
 * not the kernel's special mappings), private, neither left out of the
 * clone (dc) nor emptied in it (wf), none of the kinds the scan cannot
 * count, and at least FASTFREEZE_AFTER_MIN bytes (walking a small one in
 * the freeze costs less than a call of its own). A parser: no pid. */
#define FASTFREEZE_AFTER_MIN (2u << 20)
bool fastfreeze_after_fork(const struct vms_region *r);

/* After fastfreeze_counters(.., fork_next) returned 1 and the fork was
 * made: the regions it left are read from the clone's page tables
 * (clone: its pid here; how: the target's pmscan_how) and reconciled as
 * the others were, before anything reads the clone's memory (a read of
 * an absent page would fault one in). By then the clone has run only the
 * injected close_range (fork_clone.h); on its way back to user mode the
 * kernel may write its rseq area, a copy of a present page (of a page in
 * swap, were the borrowed thread's TLS swapped out: 4 KiB from Swap to
 * Rss), which adds no entry and takes none away otherwise. What the clone does not have as
 * the target had it is not taken: a region marked dc or wf in VmFlags
 * just before the freeze. An madvise(MADV_DONTFORK or MADV_WIPEONFORK)
 * of a whole region in the milliseconds between that read and the
 * freeze is not seen, and its Rss reads as 0, marked approximate when
 * smaps had more. 0, or -1 with *err (the clone's page tables could not
 * be read: the capture fails). */
int fastfreeze_clone_counters(struct vms_snapshot *s, pid_t clone,
			      const struct pmscan_how *how,
			      struct vms_error *err);

#endif
