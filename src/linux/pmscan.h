/* pmscan.h — each region's Rss and Swap from the page tables in one pass:
 * the PAGEMAP_SCAN ioctl on /proc/PID/pagemap (Linux 6.7).
 *
 * Contract: pmscan_open() opens pid's pagemap and tries the ioctl on an
 * empty range: -1 with errno ENOTTY (or EINVAL) where the kernel lacks it,
 * so that the caller keeps reading smaps. pmscan_regions() asks the kernel
 * for the runs of pages present or swapped over [first start, last end) of
 * the regions given (in address order, not overlapping), in as many calls
 * as its buffer needs (a call that fills it goes on from the address the
 * kernel stopped at, walk_end; one that does not is the end: walk_end is
 * then not where the walk ended on Linux 6.18, which leaves it at some
 * region the walk skipped), and adds each run to the regions it covers
 * through pmscan_add(). Nothing is changed in the target: no write-protect flag is
 * ever passed, so the kernel only reads its page tables (under the mmap
 * lock, as smaps does, but without the per-page accounting of smaps).
 *
 * What is counted is what smaps counts, for ordinary mappings:
 *   rss   pages present, less those that map the shared zero page (smaps
 *         skips them: vm_normal_page() has no page for them);
 *   swap  page-table swap entries, less guard pages (asked for where the
 *         kernel knows them, Linux 6.14). The scan calls every non-present
 *         entry "swapped": a page being migrated too, which smaps counts
 *         in Rss; where the system has no swap at all (no swap device in
 *         /proc/swaps), every such entry is taken for Rss (migration,
 *         device memory), never for Swap.
 * Not the same, and left to the caller (fastfreeze.h): hugetlb pages (smaps
 * puts them in *_Hugetlb, not Rss), PFN and I/O maps (the scan skips PFN
 * maps; smaps counts no page of either), and the swap of shmem objects
 * (smaps asks the object, not the page tables).
 *
 * pmscan_add() is the parser: runs in, figures out; it takes buffers, never
 * a pid (tests, fuzz_pmscan).
 */
#ifndef VMS_PMSCAN_H
#define VMS_PMSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"
#include "model/snapshot.h"

/* The kernel's struct page_region. */
struct pmscan_run {
	uint64_t start, end, categories;
};

/* The kernel's PAGE_IS_* categories used here. */
#define PMSCAN_PRESENT (1u << 3)
#define PMSCAN_SWAPPED (1u << 4)
#define PMSCAN_PFNZERO (1u << 5)
#define PMSCAN_HUGE (1u << 6)
#define PMSCAN_GUARD (1u << 8) /* Linux 6.14: a MADV_GUARD_INSTALL page */

/* Runs asked of the kernel per call (24 bytes each). */
#define PMSCAN_VEC 4096

struct pmscan_fig {
	uint64_t rss, swap;
};

/* How to read runs: what pmscan_open() learnt of the kernel and system. */
struct pmscan_how {
	bool guard; /* the kernel marks guard pages (asked for) */
	bool swap_on; /* a swap device is in use: "swapped" may be swap */
};

/* Where pmscan_add() is, kept between its calls ({ 0, 0 } at first): the
 * first region a later run may touch, and the address below which every
 * byte has been counted (a run, or the part of one, below it counts no
 * second time). */
struct pmscan_cursor {
	size_t at;
	uint64_t done;
};

/* Adds runs v[0, nv) (in address order) to out[i] for the regions r[0, n)
 * they overlap. Runs outside every region count nowhere. */
void pmscan_add(const struct vms_region *r, size_t n, struct pmscan_fig *out,
		struct pmscan_cursor *cur, const struct pmscan_run *v,
		size_t nv, const struct pmscan_how *how);

/* pid's pagemap, the ioctl tried (with the guard category, then without),
 * *how filled: a descriptor, or -1 with errno (ENOTTY: no PAGEMAP_SCAN). */
int pmscan_open(pid_t pid, struct pmscan_how *how);

/* Whether this kernel's scan tells the huge zero page from a page, as
 * Linux 6.7 to 6.15 did not (a read-faulted huge page of zeros reported
 * present, which smaps does not count): tried once on a mapping of
 * vmscope's own (4 MiB, read-faulted, compared with /proc/self/smaps,
 * unmapped after). True also where no huge zero page is used. */
bool pmscan_zero_ok(void);

/* Fills out[0, n) (zeroed first) for regions r[0, n) from fd (pmscan_open).
 * Returns 0, or -1 with *err. */
int pmscan_regions(int fd, const struct pmscan_how *how,
		   const struct vms_region *r, size_t n, struct pmscan_fig *out,
		   struct vms_error *err);
/* The same, vec (> 0) runs at a time (the tests: a buffer that fills). */
int pmscan_regions_by(int fd, const struct pmscan_how *how,
		      const struct vms_region *r, size_t n,
		      struct pmscan_fig *out, size_t vec,
		      struct vms_error *err);

/* How many of regions r[0, n) (in address order) are user addresses,
 * which the ioctl takes: all but [vsyscall], the kernel's. */
size_t pmscan_user_regions(const struct vms_region *r, size_t n);

/* Rss and Swap of every user region of s from pid's page tables, in one
 * pass, for a layout read from /proc/PID/maps (the viewer's first frame,
 * before smaps gives the rest): each region's c.rss and c.swap are set,
 * nothing else. As smaps counts them for ordinary mappings. Left at 0:
 * what maps names as a device's mapping (/dev/..., not /dev/shm or
 * /dev/zero: PFN, I/O and mixed maps) or hugetlb's anonymous memory
 * (/anon_hugepage), which smaps counts in no Rss. Not told apart without
 * VmFlags, and so only right once smaps's figures replace them: a
 * hugetlbfs file, a uffd-wp range, a shmem object's swap. Returns how many regions
 * have figures: 0 where the kernel has no PAGEMAP_SCAN or its scan takes
 * the huge zero page for a page (pmscan_zero_ok), or the scan fails; -1
 * with *err on out of memory only. */
int pmscan_layout(struct vms_snapshot *s, pid_t pid, struct vms_error *err);

#endif
