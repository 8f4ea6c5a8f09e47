#include "linux/memread.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "linux/procfs.h"
#include "model/source.h"

/* The frames of the zero page and of the huge zero page (512 frames from
 * hpfn), as this process's own pagemap shows them after a read of memory
 * never written: a target's page that is one of them is mapped but not
 * resident (no Rss in smaps: vm_normal_page has none), though pagemap
 * says present. Frame numbers read 0 without CAP_SYS_ADMIN: then nothing
 * is known and such a page counts as present (found on a kernel 6.18
 * machine: a CPython part one page over its region's Rss). Each frame is
 * kept only if /proc/kpageflags calls it a zero page: a read is not
 * always one (with transparent_hugepage/use_zero_page 0 it allocates a
 * real huge page, freed at once and soon another process's memory). */
#define PFN_MASK ((UINT64_C(1) << 55) - 1)
#define KPF_ZERO_PAGE 24
static struct {
	uint64_t pfn, hpfn;
} zero;
static pthread_once_t zero_once = PTHREAD_ONCE_INIT;

static bool is_zero_frame(uint64_t pfn)
{
	uint64_t flags = 0;
	int fd;

	if (!pfn)
		return false;
	fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (pread(fd, &flags, sizeof(flags), (off_t)(pfn * sizeof(flags))) !=
	    sizeof(flags))
		flags = 0;
	close(fd);
	return flags >> KPF_ZERO_PAGE & 1;
}

static uint64_t own_frame(const volatile char *p)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t e = 0, pfn;
	int fd;

	(void)*p; /* a read: the zero page mapped there, as a rule */
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (page <= 0 || pread(fd, &e, sizeof(e),
			       (off_t)((uintptr_t)p / (uintptr_t)page *
				       sizeof(e))) != sizeof(e))
		e = 0;
	close(fd);
	pfn = e >> 63 & 1 ? e & PFN_MASK : 0;
	return is_zero_frame(pfn) ? pfn : 0;
}

static void zero_probe(void)
{
	const size_t huge = 2u << 20;
	long page = sysconf(_SC_PAGESIZE);
	char *m, *h;

	if (page <= 0)
		return;
	m = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m != MAP_FAILED) {
		zero.pfn = own_frame(m);
		munmap(m, (size_t)page);
	}
	m = mmap(NULL, 2 * huge, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return;
	h = (char *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
	(void)madvise(h, huge, MADV_HUGEPAGE);
	zero.hpfn = own_frame(h);
	if (zero.hpfn == zero.pfn)
		zero.hpfn = 0; /* no huge zero page: the small one again */
	munmap(m, 2 * huge);
}

int memread_open(struct memread *m, pid_t pid, struct vms_error *err)
{
	return memread_open_of(m, pid, 0, err);
}

void memread_prepare(void)
{
	pthread_once(&zero_once, zero_probe);
}

int memread_open_of(struct memread *m, pid_t pid, pid_t mm,
		    struct vms_error *err)
{
	char path[128];

	memset(m, 0, sizeof(*m));
	m->pid = pid;
	m->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	/* Each file holds the address space it was opened on (the kernel
	 * takes the mm at open): a live thread's when the main thread has
	 * exited, whose own mem has none. */
	procfs_mm_path_of(pid, mm, "mem", path, sizeof(path));
	m->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (m->mem_fd < 0)
		return procfs_errno_error(err, pid, "memory", errno);
	procfs_mm_path_of(pid, mm, "pagemap", path, sizeof(path));
	m->pagemap_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (m->pagemap_fd < 0) {
		int e = errno;

		close(m->mem_fd);
		m->mem_fd = -1;
		return procfs_errno_error(err, pid, "pagemap", e);
	}
	return 0;
}

void memread_close(struct memread *m)
{
	if (m->mem_fd >= 0)
		close(m->mem_fd);
	if (m->pagemap_fd >= 0)
		close(m->pagemap_fd);
	m->mem_fd = m->pagemap_fd = -1;
}

/* pagemap_bits(), a mapping of a zero page not present. */
static unsigned char page_bits(uint64_t e)
{
	uint64_t pfn = e & PFN_MASK;

	if ((e >> 63 & 1) && pfn &&
	    (pfn == zero.pfn || (zero.hpfn && pfn - zero.hpfn < 512)))
		return (unsigned char)(((e >> 62) & 1) << 1);
	return pagemap_bits(e);
}

static int pagemap_read(struct memread *m, uint64_t addr, size_t npages,
			unsigned char *out, bool bits, struct vms_error *err)
{
	uint64_t ent[512];
	uint64_t pg = addr / m->page_size;
	size_t done = 0;

	while (done < npages) {
		size_t want = npages - done, i;
		ssize_t got;

		if (want > 512)
			want = 512;
		got = pread(m->pagemap_fd, ent, want * 8,
			    (off_t)((pg + done) * 8));
		if (got < 0)
			return vms_error_set(err, VMS_ERR_CAPTURE, errno,
					     "cannot read pagemap of %d: %s",
					     (int)m->pid, strerror(errno));
		if (got < 8)
			break;
		for (i = 0; i < (size_t)got / 8; i++)
			out[done + i] = bits ? page_bits(ent[i])
					     : pagemap_present(ent[i]);
		done += (size_t)got / 8;
	}
	memset(out + done, 0, npages - done);
	return 0;
}

int memread_present(struct memread *m, uint64_t addr, size_t npages,
		    unsigned char *out, struct vms_error *err)
{
	return pagemap_read(m, addr, npages, out, false, err);
}

int memread_pages(struct memread *m, uint64_t addr, size_t npages,
		  unsigned char *out, struct vms_error *err)
{
	/* the zero page's frames, once a run, when first asked (a run that
	 * never asks for page bits, vmscope --all, spends nothing on them);
	 * a capture that holds its target still asks before the hold,
	 * memread_prepare() */
	pthread_once(&zero_once, zero_probe);
	return pagemap_read(m, addr, npages, out, true, err);
}

/* How many bytes from addr on are in present pages (up to len). */
static ssize_t present_span(struct memread *m, uint64_t addr, size_t len,
			    struct vms_error *err)
{
	uint64_t first = addr / m->page_size;
	uint64_t last = (addr + len - 1) / m->page_size;
	unsigned char p[512];
	uint64_t pg = first;

	while (pg <= last) {
		size_t want = (size_t)(last - pg + 1), i;

		if (want > sizeof(p))
			want = sizeof(p);
		if (memread_present(m, pg * m->page_size, want, p, err) < 0)
			return -1;
		for (i = 0; i < want; i++, pg++)
			if (!p[i])
				goto stop;
	}
stop:
	if (pg <= first)
		return 0;
	if (pg > last)
		return (ssize_t)len;
	return (ssize_t)(pg * m->page_size - addr);
}

ssize_t memread_read(struct memread *m, uint64_t addr, void *buf, size_t len,
		     struct vms_error *err)
{
	ssize_t span, done = 0;

	if (len == 0)
		return 0;
	span = present_span(m, addr, len, err);
	if (span <= 0)
		return span;
	while (done < span) {
		ssize_t r = pread(m->mem_fd, (char *)buf + done,
				  (size_t)(span - done),
				  (off_t)(addr + (uint64_t)done));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EIO || errno == EFAULT)
				break; /* unmapped meanwhile, or not readable */
			return vms_error_set(err, VMS_ERR_CAPTURE, errno,
					     "cannot read memory of %d: %s",
					     (int)m->pid, strerror(errno));
		}
		if (r == 0)
			break;
		done += r;
	}
	return done;
}

/* len bytes at addr by mem, its pages known present: all came. */
static int read_piece(struct memread *m, uint64_t addr, char *buf, size_t len,
		      struct vms_error *err)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(m->mem_fd, buf + done, len - done,
				  (off_t)(addr + done));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EIO || errno == EFAULT)
				return 0; /* unmapped meanwhile */
			return vms_error_set(err, VMS_ERR_CAPTURE, errno,
					     "cannot read memory of %d: %s",
					     (int)m->pid, strerror(errno));
		}
		if (r == 0)
			return 0;
		done += (size_t)r;
	}
	return 1;
}

int memread_read_each(struct memread *m, const uint64_t *addr, size_t n,
		      size_t len, void *buf, unsigned char *ok,
		      struct vms_error *err)
{
	const uint64_t ps = m->page_size;
	unsigned char pres[512];
	size_t i = 0, j, k;

	memset(ok, 0, n);
	if (!len)
		return 0;
	while (i < n) {
		uint64_t first = addr[i] / ps, last = first, pg;

		/* the pieces whose pages lie within 512 of the first's
		 * (the table read to the highest of their ends: out of
		 * order, a piece's end may lie past the next's) */
		for (j = i; j < n && addr[j] >= addr[i] &&
			    (addr[j] + len - 1) / ps - first < 512;
		     j++)
			if ((addr[j] + len - 1) / ps > last)
				last = (addr[j] + len - 1) / ps;
		if (j == i) { /* longer than the window, or out of order */
			ssize_t got = memread_read(
				m, addr[i], (char *)buf + i * len, len, err);

			if (got < 0)
				return -1;
			ok[i++] = (size_t)got == len;
			continue;
		}
		if (memread_present(m, first * ps, (size_t)(last - first + 1),
				    pres, err) < 0)
			return -1;
		for (k = i; k < j; k++) {
			int rc = 1;

			for (pg = addr[k] / ps; pg <= (addr[k] + len - 1) / ps;
			     pg++)
				if (!pres[pg - first])
					rc = 0;
			if (rc)
				rc = read_piece(m, addr[k],
						(char *)buf + k * len, len,
						err);
			if (rc < 0)
				return -1;
			ok[k] = (unsigned char)rc;
		}
		i = j;
	}
	return 0;
}

ssize_t memread_read_pages(struct memread *m, uint64_t addr, void *buf,
			   size_t npages, unsigned char *ok,
			   struct vms_error *err)
{
	uint64_t ps = m->page_size;
	size_t i = 0, j, k;
	ssize_t bytes = 0;

	if (memread_present(m, addr, npages, ok, err) < 0)
		return -1;
	while (i < npages) {
		size_t len, done = 0;

		if (!ok[i]) {
			i++;
			continue;
		}
		for (j = i; j < npages && ok[j]; j++)
			;
		len = (j - i) * ps;
		while (done < len) {
			ssize_t r = pread(
				m->mem_fd, (char *)buf + i * ps + done,
				len - done, (off_t)(addr + i * ps + done));

			if (r < 0) {
				if (errno == EINTR)
					continue;
				if (errno == EIO || errno == EFAULT)
					break; /* unmapped meanwhile */
				return vms_error_set(
					err, VMS_ERR_CAPTURE, errno,
					"cannot read memory of %d: %s",
					(int)m->pid, strerror(errno));
			}
			if (r == 0)
				break;
			done += (size_t)r;
		}
		for (k = i + done / ps; k < j; k++)
			ok[k] = 0;
		if (done % ps) /* a page read in part: none of it kept */
			memset((char *)buf + i * ps + done / ps * ps, 0,
			       done % ps);
		bytes += (ssize_t)(done / ps * ps);
		i = j;
	}
	return bytes;
}
