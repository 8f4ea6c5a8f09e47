/* memread.h — reading another process's memory without disturbing it.
 *
 * Contract: a memread reads /proc/PID/mem of one process (the live target
 * for the pss sampler, the stopped clone for fork) and reads only pages that
 * /proc/PID/pagemap says are present in RAM: reading untouched memory
 * through /proc/PID/mem would make the kernel build page tables (and zero
 * pages) in that process. Pages not present read as missing: the result is
 * the number of leading bytes copied, so a caller sees a short read exactly
 * where the first absent page starts.
 *
 * pagemap_present() is the pure part: it decodes pagemap entries (bit 63:
 * present in RAM), for tests. A swapped-out page (bit 62) is not read: the
 * read would swap it back in, changing the very Rss and Swap being
 * measured and costing the target I/O.
 */
#ifndef VMS_MEMREAD_H
#define VMS_MEMREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"

struct memread {
	pid_t pid;
	int mem_fd, pagemap_fd;
	uint64_t page_size;
};

int memread_open(struct memread *m, pid_t pid, struct vms_error *err);
/* What memread_pages() does once a run, when first called (this
 * machine's zero page frames, from its own pagemap), done now: before a
 * freeze or a fork clone, so that the hold pays none of it. */
void memread_prepare(void);
/* The same, the files of mm (procfs_mm_path_of: 0 finds it). */
int memread_open_of(struct memread *m, pid_t pid, pid_t mm,
		    struct vms_error *err);
void memread_close(struct memread *m);
/* Bytes copied (short where memory is absent), or -1 with *err. */
ssize_t memread_read(struct memread *m, uint64_t addr, void *buf, size_t len,
		     struct vms_error *err);

/* Reads npages pages from addr (page-aligned) into buf, the present ones
 * only: one read of pagemap, one of mem for each run of present pages.
 * ok[i] = 1 for page i read, else 0 (its bytes left as they were, or
 * zeros where a read stopped inside it). The bytes read, or -1 with
 * *err. */
ssize_t memread_read_pages(struct memread *m, uint64_t addr, void *buf,
			   size_t npages, unsigned char *ok,
			   struct vms_error *err);

/* Reads len bytes at each of addr[0, n) (ascending) into buf + i * len,
 * as memread_read of each would (present pages only): ok[i] = 1 when all
 * of piece i came, else 0. One read of pagemap for the pieces within 512
 * pages, one of mem a present piece (not process_vm_readv(2): its pin of
 * a page shared copy-on-write with a child makes the kernel copy it, in
 * the target). 0, or -1 with *err. */
int memread_read_each(struct memread *m, const uint64_t *addr, size_t n,
		      size_t len, void *buf, unsigned char *ok,
		      struct vms_error *err);

/* out[i] = 1 when page i from addr (page-aligned) is present in RAM,
 * else 0, for npages pages (past the address space: 0). 0, or -1 with
 * *err. */
int memread_present(struct memread *m, uint64_t addr, size_t npages,
		    unsigned char *out, struct vms_error *err);

/* out[i]: VMS_PG_PRESENT, VMS_PG_SWAP and VMS_PG_EXCL (model/source.h)
 * of page i from addr, as pagemap says, but a mapping of the zero page
 * (or the huge zero page) not present, as smaps' Rss has it, where the
 * frames can be read (CAP_SYS_ADMIN); otherwise as memread_present. */
int memread_pages(struct memread *m, uint64_t addr, size_t npages,
		  unsigned char *out, struct vms_error *err);

static inline bool pagemap_present(uint64_t entry)
{
	return (entry >> 63) & 1;
}

/* An entry's VMS_PG_* bits: 63 present, 62 swapped, 56 exclusively
 * mapped (a present page's mapcount is 1). */
static inline unsigned char pagemap_bits(uint64_t entry)
{
	return (unsigned char)(((entry >> 63) & 1) |
			       (((entry >> 62) & 1) << 1) |
			       ((((entry >> 63) & (entry >> 56)) & 1) << 2));
}

#endif
