/* pmscan.c — Rss and Swap per region through PAGEMAP_SCAN (pmscan.h). */
#include "linux/pmscan.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "linux/procfs.h"
#include "linux/smaps.h"

/* linux/fs.h of Linux 6.7; Debian 12's headers (6.1) lack it. */
struct pmscan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask,
		return_mask;
};
#define PMSCAN_IOCTL _IOWR('f', 16, struct pmscan_arg)

void pmscan_add(const struct vms_region *r, size_t n, struct pmscan_fig *out,
		struct pmscan_cursor *cur, const struct pmscan_run *v,
		size_t nv, const struct pmscan_how *how)
{
	size_t i, k;

	for (i = 0; i < nv; i++) {
		uint64_t c = v[i].categories, end = v[i].end;
		uint64_t start =
			v[i].start > cur->done ? v[i].start : cur->done;
		/* the zero page is mapped, not resident: neither; a guard
		 * page is neither; a non-present entry without swap on is a
		 * page migrating (or device memory): Rss, as smaps has it */
		bool away = !(c & PMSCAN_PRESENT) && (c & PMSCAN_SWAPPED) &&
			    !(c & PMSCAN_GUARD);
		bool rss = ((c & PMSCAN_PRESENT) && !(c & PMSCAN_PFNZERO)) ||
			   (away && !how->swap_on);
		bool swap = away && how->swap_on;

		if (end <= start)
			continue;
		cur->done = end;
		while (cur->at < n && r[cur->at].end <= start)
			cur->at++;
		if (!rss && !swap)
			continue;
		for (k = cur->at; k < n && r[k].start < end; k++) {
			uint64_t lo = r[k].start > start ? r[k].start : start;
			uint64_t hi = r[k].end < end ? r[k].end : end;

			if (rss)
				out[k].rss += hi - lo;
			else
				out[k].swap += hi - lo;
		}
	}
}

static int scan(int fd, uint64_t start, uint64_t end, struct pmscan_run *vec,
		size_t len, bool guard, uint64_t *walk_end)
{
	struct pmscan_arg a;
	int n;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.start = start;
	a.end = end;
	a.vec = (uint64_t)(uintptr_t)vec;
	a.vec_len = len;
	a.category_anyof_mask = PMSCAN_PRESENT | PMSCAN_SWAPPED;
	a.return_mask = PMSCAN_PRESENT | PMSCAN_SWAPPED | PMSCAN_PFNZERO |
			(guard ? PMSCAN_GUARD : 0);
	n = ioctl(fd, PMSCAN_IOCTL, &a);
	*walk_end = a.walk_end;
	return n;
}

/* A swap device in /proc/swaps (a header line, then one per device). */
static bool swap_on(void)
{
	char *b, *nl;
	size_t n;
	bool on;

	if (procfs_read_file("/proc/swaps", &b, &n) < 0)
		return true; /* cannot tell: "swapped" stays swap */
	nl = memchr(b, '\n', n);
	on = nl && (size_t)(nl + 1 - b) < n;
	free(b);
	return on;
}

int pmscan_open(pid_t pid, struct pmscan_how *how)
{
	char path[128];
	struct pmscan_run one;
	uint64_t walk_end;
	int fd, e;

	procfs_mm_path(pid, "pagemap", path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* An empty range: 0 where the ioctl exists, ENOTTY where not;
	 * EINVAL for a category this kernel does not know (the guard
	 * pages: before 6.14). */
	how->guard = true;
	if (scan(fd, 0, 0, &one, 1, true, &walk_end) < 0) {
		how->guard = false;
		if (errno != EINVAL ||
		    scan(fd, 0, 0, &one, 1, false, &walk_end) < 0) {
			e = errno;
			close(fd);
			errno = e;
			return -1;
		}
	}
	how->swap_on = swap_on();
	return fd;
}

bool pmscan_zero_ok(void)
{
	static int known = -1;
	const size_t huge = 2u << 20;
	struct pmscan_how how;
	struct pmscan_run v[8];
	uint64_t walk_end, bytes = 0;
	char *m, *h, *text;
	size_t len;
	int fd, n, i;

	if (known >= 0)
		return known;
	known = 0;
	m = mmap(NULL, 2 * huge, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return known;
	h = (char *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
	madvise(h, huge, MADV_HUGEPAGE);
	(void)*(volatile char *)h; /* a read: the huge zero page, if used */
	fd = pmscan_open(getpid(), &how);
	n = fd < 0 ? -1
		   : scan(fd, (uint64_t)(uintptr_t)h,
			  (uint64_t)(uintptr_t)h + huge, v, 8, how.guard,
			  &walk_end);
	for (i = 0; i < n; i++)
		if ((v[i].categories & PMSCAN_PRESENT) &&
		    !(v[i].categories & PMSCAN_PFNZERO))
			bytes += v[i].end - v[i].start;
	if (fd >= 0)
		close(fd);
	/* What the scan calls resident must be what smaps calls Rss (the
	 * region holding h: nothing else of it was touched). */
	if (n >= 0 && procfs_read_file("/proc/self/smaps", &text, &len) == 0) {
		struct vms_snapshot *own = vms_snapshot_new();
		struct vms_error ignore;
		const struct vms_region *r;

		if (own && smaps_parse_buffer(own, text, len, &ignore) == 0 &&
		    (r = vms_snapshot_find(own, (uint64_t)(uintptr_t)h)))
			known = r->c.rss == bytes;
		if (own)
			vms_snapshot_free(own);
		free(text);
	}
	munmap(m, 2 * huge);
	return known;
}

int pmscan_regions(int fd, const struct pmscan_how *how,
		   const struct vms_region *r, size_t n, struct pmscan_fig *out,
		   struct vms_error *err)
{
	return pmscan_regions_by(fd, how, r, n, out, PMSCAN_VEC, err);
}

int pmscan_regions_by(int fd, const struct pmscan_how *how,
		      const struct vms_region *r, size_t n,
		      struct pmscan_fig *out, size_t len, struct vms_error *err)
{
	struct pmscan_run *vec;
	struct pmscan_cursor cur = { 0, 0 };
	uint64_t at, end;

	if (n)
		memset(out, 0, n * sizeof(*out));
	if (len == 0 || len > INT_MAX)
		return vms_error_set(err, VMS_ERR_USAGE, EINVAL,
				     "PAGEMAP_SCAN: %zu runs a call", len);
	if (n == 0)
		return 0;
	vec = malloc(len * sizeof(*vec));
	if (!vec)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	at = r[0].start;
	end = r[n - 1].end;
	while (at < end) {
		uint64_t walk_end = 0;
		int got = scan(fd, at, end, vec, len, how->guard, &walk_end);

		if (got < 0) {
			int e = errno;

			free(vec);
			return vms_error_set(err, VMS_ERR_CAPTURE, e,
					     "PAGEMAP_SCAN failed: %s",
					     strerror(e));
		}
		pmscan_add(r, n, out, &cur, vec, (size_t)got, how);
		if ((size_t)got < len)
			break; /* the whole range: walk_end is no guide */
		/* The buffer filled: on from where the kernel stopped, which
		 * must be forward, or this would loop. */
		if (walk_end <= at || walk_end > end) {
			free(vec);
			return vms_error_set(err, VMS_ERR_CAPTURE, EIO,
					     "PAGEMAP_SCAN did not advance "
					     "(at %#llx)",
					     (unsigned long long)at);
		}
		at = walk_end;
	}
	free(vec);
	return 0;
}

size_t pmscan_user_regions(const struct vms_region *r, size_t n)
{
	size_t k = 0;

	/* kernel addresses ([vsyscall]) sort last */
	while (k < n && r[k].start < (1ull << 63))
		k++;
	return k;
}

/* What maps tells of a region whose page tables smaps does not count as
 * Rss (without VmFlags: by its path): a device's mapping (PFN or I/O
 * maps, mixed maps; not /dev/shm, /dev/zero) and hugetlb's anonymous
 * mappings. A hugetlbfs file or a uffd-wp range cannot be told: their
 * figures stand until smaps's replace them. */
static bool layout_scannable(const struct vms_region *r)
{
	const char *p = r->path;

	if (!p)
		return true;
	if (strncmp(p, "/anon_hugepage", 14) == 0)
		return false;
	return strncmp(p, "/dev/", 5) != 0 || strncmp(p, "/dev/shm/", 9) == 0 ||
	       strncmp(p, "/dev/zero", 9) == 0;
}

int pmscan_layout(struct vms_snapshot *s, pid_t pid, struct vms_error *err)
{
	struct pmscan_how how;
	struct pmscan_fig *fig;
	size_t n = pmscan_user_regions(s->regions, s->nregions), i;
	int fd, rc = 0;

	if (!n || !pmscan_zero_ok() || (fd = pmscan_open(pid, &how)) < 0)
		return 0;
	fig = malloc(n * sizeof(*fig));
	if (!fig) {
		close(fd);
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	}
	if (pmscan_regions(fd, &how, s->regions, n, fig, err) == 0) {
		for (i = 0; i < n; i++) {
			if (!layout_scannable(&s->regions[i]))
				continue;
			s->regions[i].c.rss = fig[i].rss;
			s->regions[i].c.swap = fig[i].swap;
		}
		rc = (int)(n < INT_MAX ? n : INT_MAX);
	} else if (err->kind == VMS_ERR_NOMEM) {
		rc = -1;
	}
	free(fig);
	close(fd);
	return rc;
}
