/* pmscan.c — Rss and Swap per region through PAGEMAP_SCAN (pmscan.h). */
#include "pmscan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "procfs.h"

/* linux/fs.h of Linux 6.7; Debian 12's headers (6.1) lack it. */
struct pmscan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask,
		return_mask;
};
#define PMSCAN_IOCTL _IOWR('f', 16, struct pmscan_arg)

void pmscan_add(const struct vms_region *r, size_t n, struct pmscan_fig *out,
		struct pmscan_cursor *cur, const struct pmscan_run *v,
		size_t nv)
{
	size_t i, k;

	for (i = 0; i < nv; i++) {
		uint64_t c = v[i].categories, end = v[i].end;
		uint64_t start =
			v[i].start > cur->done ? v[i].start : cur->done;
		/* the zero page is mapped, not resident: neither */
		bool rss = (c & PMSCAN_PRESENT) && !(c & PMSCAN_PFNZERO);
		bool swap = !(c & PMSCAN_PRESENT) && (c & PMSCAN_SWAPPED);

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
		size_t len, uint64_t *walk_end)
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
	a.return_mask = PMSCAN_PRESENT | PMSCAN_SWAPPED | PMSCAN_PFNZERO;
	n = ioctl(fd, PMSCAN_IOCTL, &a);
	*walk_end = a.walk_end;
	return n;
}

int pmscan_open(pid_t pid)
{
	char path[128];
	struct pmscan_run one;
	uint64_t walk_end;
	int fd, e;

	procfs_mm_path(pid, "pagemap", path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* An empty range: 0 where the ioctl exists, ENOTTY where not. */
	if (scan(fd, 0, 0, &one, 1, &walk_end) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int pmscan_regions(int fd, const struct vms_region *r, size_t n,
		   struct pmscan_fig *out, struct vms_error *err)
{
	return pmscan_regions_by(fd, r, n, out, PMSCAN_VEC, err);
}

int pmscan_regions_by(int fd, const struct vms_region *r, size_t n,
		      struct pmscan_fig *out, size_t len, struct vms_error *err)
{
	struct pmscan_run *vec;
	struct pmscan_cursor cur = { 0, 0 };
	uint64_t at, end;

	memset(out, 0, n * sizeof(*out));
	if (n == 0)
		return 0;
	vec = malloc((len ? len : 1) * sizeof(*vec));
	if (!vec)
		return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
				     "out of memory");
	at = r[0].start;
	end = r[n - 1].end;
	while (at < end) {
		uint64_t walk_end = 0;
		int got = scan(fd, at, end, vec, len, &walk_end);

		if (got < 0) {
			int e = errno;

			free(vec);
			return vms_error_set(err, VMS_ERR_CAPTURE, e,
					     "PAGEMAP_SCAN failed: %s",
					     strerror(e));
		}
		pmscan_add(r, n, out, &cur, vec, (size_t)got);
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
