/* pageout.c — Empty Working Set (pageout.h). */
#include "linux/pageout.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/uio.h>
#include <unistd.h>

#include "linux/procfs.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

/* A call's bounds: the kernel takes at most UIO_MAXIOV (1,024) ranges and
 * cuts a vector's total at MAX_RW_COUNT (just under 2 GiB). */
enum { BATCH = 512 };
#define CHUNK (1ull << 30)

/* EINTR and EAGAIN are tried again, a bounded number of times. */
static long sys_process_madvise(int pidfd, const struct iovec *iov, size_t n)
{
#ifdef SYS_process_madvise
	long r;
	int tries = 0;

	do
		r = syscall(SYS_process_madvise, pidfd, iov, n, MADV_PAGEOUT,
			    0);
	while (r < 0 && (errno == EINTR || errno == EAGAIN) && ++tries < 100);
	return r;
#else
	(void)pidfd;
	(void)iov;
	(void)n;
	errno = ENOSYS;
	return -1;
#endif
}

/* smaps_rollup through the held /proc directory: 0, or -1 with errno
 * (ENOENT or ESRCH once the process is reaped). */
static int read_rollup(int proc_dir, struct vms_rollup *r)
{
	char buf[4096];
	size_t n = 0;
	int fd = openat(proc_dir, "smaps_rollup", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t k = read(fd, buf + n, sizeof(buf) - 1 - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;

			close(fd);
			errno = e;
			return -1;
		}
		if (k == 0 || (n += (size_t)k) == sizeof(buf) - 1)
			break;
	}
	close(fd);
	buf[n] = '\0';
	memset(r, 0, sizeof(*r));
	procfs_rollup_parse(buf, n, r);
	if (!r->valid) {
		errno = ESRCH; /* an exiting process's is empty */
		return -1;
	}
	return 0;
}

/* Whether the kernel pages out r (madvise.c's can_madv_lru_vma, and not
 * shared: the private memory is asked for). */
static bool wanted(const struct vms_region *r)
{
	return (r->perms & VMS_PERM_W) && !(r->perms & VMS_PERM_SHARED);
}

static bool refused(const struct vms_region *r)
{
	return r->vmflags_mask &
	       (VMS_VF_LO | VMS_VF_HT | VMS_VF_PF | VMS_VF_IO);
}

/* The whole-call errors: the message for errno e, as a value. */
static int fatal(struct vms_error *err, int e, pid_t pid)
{
	switch (e) {
	case EPERM:
	case EACCES:
		return vms_error_set(
			err, VMS_ERR_PERM, e,
			"not permitted: needs CAP_SYS_NICE and "
			"ptrace access to pid %d (process_madvise; "
			"root has both)",
			(int)pid);
	case ESRCH:
		return vms_error_set(err, VMS_ERR_NOPROC, e,
				     "pid %d has exited since the snapshot",
				     (int)pid);
	case ENOSYS:
		return vms_error_set(err, VMS_ERR_USAGE, e,
				     "this kernel has no process_madvise "
				     "(Linux 5.10): nothing paged out");
	default:
		return vms_error_set(err, VMS_ERR_CAPTURE, e,
				     "process_madvise(MADV_PAGEOUT) of pid %d: "
				     "%s",
				     (int)pid, strerror(e));
	}
}

/* One range alone, its error told apart: 1 advised, 0 passed over
 * (counted), -1 with *err. */
static int one(int pidfd, const struct iovec *v, struct vms_pageout *o,
	       int *einval, pid_t pid, struct vms_error *err)
{
	long r;

	r = sys_process_madvise(pidfd, v, 1);
	if (r >= 0) {
		o->advised += (uint64_t)r;
		return 1;
	}
	if (errno == ENOMEM || errno == EFAULT) {
		o->gone++;
		return 0;
	}
	if (errno == EINVAL) {
		(*einval)++;
		o->refused++;
		return 0;
	}
	return fatal(err, errno, pid);
}

/* n ranges in one call; a range the kernel stopped at is asked again
 * alone, then the rest. */
static int batch(int pidfd, const struct iovec *v, size_t n,
		 struct vms_pageout *o, int *einval, pid_t pid,
		 struct vms_error *err)
{
	while (n) {
		long r;
		size_t k = 0;
		uint64_t sum = 0;

		r = sys_process_madvise(pidfd, v, n);
		if (r < 0 && errno != EINVAL && errno != ENOMEM &&
		    errno != EFAULT)
			return fatal(err, errno, pid);
		if (r < 0) {
			/* which range, not said (Linux before 6.1 returns
			 * the error even after some were advised): each
			 * alone */
			for (k = 0; k < n; k++)
				if (one(pidfd, &v[k], o, einval, pid, err) < 0)
					return -1;
			return 0;
		}
		/* the ranges done whole; the one at r stopped the call */
		while (k < n && sum + v[k].iov_len <= (uint64_t)r)
			sum += v[k++].iov_len;
		o->advised += sum;
		if (k == n)
			return 0;
		if (one(pidfd, &v[k], o, einval, pid, err) < 0)
			return -1;
		v += k + 1;
		n -= k + 1;
	}
	return 0;
}

int vms_pageout_check(const struct vms_snapshot *s, struct vms_error *err)
{
	if (!s->src.pid)
		return vms_error_set(
			err, VMS_ERR_USAGE, 0,
			"%s: there is no process behind it to page out",
			s->cap.backend && strcmp(s->cap.backend, "core") == 0
				? "a core dump"
				: "a saved snapshot");
	if (!s->src.files.held || s->src.files.proc_dir < 0)
		return vms_error_set(
			err, VMS_ERR_USAGE, 0,
			"pid %d's /proc directory was not held "
			"from its capture (or it exited since): it "
			"cannot be told from another process given "
			"its pid; r takes a new snapshot",
			(int)s->proc.pid);
	return 0;
}

int vms_pageout(const struct vms_snapshot *s, struct vms_pageout *out,
		struct vms_error *err)
{
	struct iovec v[BATCH];
	struct vms_rollup r;
	struct sysinfo si;
	size_t i, n = 0;
	pid_t pid = s->proc.pid;
	int pidfd, einval = 0, rc = 0;
	uint64_t total = 0, sent = 0;

	memset(out, 0, sizeof(*out));
	if (vms_pageout_check(s, err) < 0)
		return -1;
	pidfd = procfs_pidfd_open(pid);
	if (pidfd < 0)
		return errno == ENOSYS
			       ? vms_error_set(err, VMS_ERR_USAGE, ENOSYS,
					       "this kernel has no pidfd_open "
					       "(Linux 5.3): nothing paged out")
			       : fatal(err, errno, pid);
	/* the held directory answers: the process captured is alive, so
	 * the pidfd is its own */
	if (read_rollup(s->src.files.proc_dir, &r) < 0) {
		rc = fatal(err, ESRCH, pid);
		goto out;
	}
	out->rss_before = r.rss;
	out->anon_before = r.anonymous;
	for (i = 0; i < s->nregions; i++) {
		const struct vms_region *g = &s->regions[i];
		uint64_t a;

		if (!wanted(g))
			continue;
		if (refused(g)) {
			out->refused++;
			continue;
		}
		out->regions++;
		out->asked += g->end - g->start;
		for (a = g->start; a < g->end; a += CHUNK) {
			uint64_t len = g->end - a < CHUNK ? g->end - a : CHUNK;

			if (n == BATCH || total + len > CHUNK) {
				if (batch(pidfd, v, n, out, &einval, pid, err) <
				    0) {
					rc = -1;
					goto out;
				}
				n = 0;
				total = 0;
			}
			v[n].iov_base = (void *)(uintptr_t)a;
			v[n++].iov_len = (size_t)len;
			total += len;
			sent++;
		}
	}
	if (n && batch(pidfd, v, n, out, &einval, pid, err) < 0) {
		rc = -1;
		goto out;
	}
	if (!out->advised && einval && (uint64_t)einval == sent) {
		rc = vms_error_set(err, VMS_ERR_USAGE, EINVAL,
				   "this kernel refuses MADV_PAGEOUT through "
				   "process_madvise (EINVAL; Linux 5.10 has "
				   "it): nothing paged out");
		goto out;
	}
	if (read_rollup(s->src.files.proc_dir, &r) < 0) {
		rc = fatal(err, ESRCH, pid);
		goto out;
	}
	out->rss_after = r.rss;
	out->anon_after = r.anonymous;
	out->no_swap = sysinfo(&si) == 0 && si.totalswap == 0;
out:
	close(pidfd);
	return rc;
}
