/* memkinds — one region of each kind of memory the kernel can give a
 * process, named on the command line, for tests/live/test_memkinds.py.
 *
 *   memkinds DIR KIND...
 *
 * Each KIND makes its region(s) and writes part of it, so that a region
 * has present pages and pages it has not (figures that differ between
 * Size, Committed and Rss). Every region sits between two pages of
 * nothing (unmapped), so that it never merges with a neighbour. Files are
 * made in DIR (and removed at exit by SIGTERM or SIGINT; a SIGKILLed
 * target's are the test's to remove: it owns DIR). KINDs:
 *
 *   htlb_priv htlb_shared  MAP_HUGETLB anonymous, private / shared
 *   htlb_noreserve         MAP_HUGETLB | MAP_NORESERVE, private
 *   htlb_forked            MAP_HUGETLB shared, and mapped by a child too
 *   htlb_file              a file on the hugetlbfs mount DIR/htlb (the test
 *                          mounts it), mapped shared
 *   htlb_shm               SysV SHM_HUGETLB (removed at once: IPC_RMID)
 *   htlb_memfd             memfd_create(MFD_HUGETLB), mapped shared
 *   thp_anon               private anonymous, MADV_HUGEPAGE, 2 MiB aligned
 *   thp_shmem              a memfd, MADV_HUGEPAGE (huge where the test set
 *                          shmem_enabled to advise)
 *   sysv sysv_rmid         SysV shared memory; the second removed
 *                          (IPC_RMID) while attached, the first kept (it
 *                          outlives the target: the test removes it by
 *                          the sysv_id printed)
 *   posix                  POSIX shm (shm_open: /dev/shm/memkinds-PID)
 *   memfd memfd_sealed     a memfd, shared; one written, sealed
 *                          (F_SEAL_WRITE...) and mapped read-only
 *   shanon                 MAP_SHARED | MAP_ANONYMOUS
 *   zero_shared zero_priv  /dev/zero mapped shared / private
 *   mlock maplocked onfault
 *                          mlock(), MAP_LOCKED, mlock2(MLOCK_ONFAULT)
 *   mlockall               mlockall(MCL_CURRENT | MCL_FUTURE) first
 *   ksm                    two copies of the same pages, MADV_MERGEABLE
 *   cow                    a file mapped private, writable, half written
 *   trunc                  a file mapped private, read, then truncated to
 *                          one page (the rest: SIGBUS)
 *   deleted                a file mapped shared, written, then unlinked
 *   noreserve              MAP_NORESERVE read-write, a quarter written
 *   protnone               a PROT_NONE reservation
 *   guard                  written, then a guard page (MADV_GUARD_INSTALL)
 *   growsdown              MAP_GROWSDOWN, its top page written
 *   mremap_grow mremap_move
 *                          mremap()ed larger in place / moved elsewhere
 *   lazyfree               written, then MADV_FREE
 *   dontneed               written, then half MADV_DONTNEED
 *   uffd                   registered with userfaultfd (missing mode)
 *   secret                 memfd_secret, written
 *   pkey                   written, then tagged with a protection key
 *   io_uring               an io_uring's rings mapped
 *   perf                   a perf_event ring buffer (software event)
 *   swap                   4 MiB private written and 4 MiB shared
 *                          written, paged out (MADV_PAGEOUT: where the
 *                          machine has swap), then shared with a child
 *                          (fork: the child holds both)
 *
 * Prints one line: "ready pid=N KIND=0x.. KIND_size=N ..." (a kind with
 * more than one region: KIND_2=0x.. too; a kind it cannot make:
 * KIND_skip=WHY, WHY without spaces), then waits until killed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MIB (1ul << 20)
#define HPAGE (2 * MIB)

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif
static char line[8192];
static size_t len;
static long pg;
static char dir[4096];
static char files[8][4200];
static int nfiles;
static char shm_name[64];

__attribute__((format(printf, 1, 2))) static void add(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < sizeof(line) - len)
		len += (size_t)n;
}

static void on_term(int sig)
{
	int i;

	(void)sig;
	for (i = 0; i < nfiles; i++)
		unlink(files[i]);
	if (shm_name[0])
		shm_unlink(shm_name);
	_exit(0);
}

static void skip(const char *kind, const char *why)
{
	add(" %s_skip=%s", kind, why);
}

static void show(const char *kind, const void *p, size_t n)
{
	add(" %s=%p %s_size=%zu", kind, p, kind, n);
}

/* n bytes of address space with a free page each side: where a region
 * of n bytes (aligned to align) goes, so that it merges with nothing. */
static char *spot(size_t n, size_t align)
{
	size_t all = n + align + 2 * (size_t)pg;
	char *p = mmap(NULL, all, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *q;

	if (p == MAP_FAILED)
		return NULL;
	q = p + pg;
	if (align > (size_t)pg)
		q = (char *)(((uintptr_t)q + align - 1) &
			     ~(uintptr_t)(align - 1));
	munmap(p, all);
	return q;
}

/* mmap at a spot of its own (MAP_FIXED_NOREPLACE there: nothing else
 * maps between the two calls in this single-threaded program). */
static void *map_at(size_t n, size_t align, int prot, int flags, int fd,
		    off_t off)
{
	char *at = spot(n, align);
	void *p;

	if (!at)
		return NULL;
	p = mmap(at, n, prot, flags | MAP_FIXED_NOREPLACE, fd, off);
	return p == MAP_FAILED ? NULL : p;
}

/* Private anonymous read-write memory, aligned so. */
static void *anon_rw(size_t n, size_t align)
{
	return map_at(n, align, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static void writes(void *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i += (size_t)pg)
		((volatile char *)p)[i] = (char)(1 + (i / (size_t)pg) % 251);
}

static void reads(const void *p, size_t n)
{
	volatile char sum = 0;
	size_t i;

	for (i = 0; i < n; i += (size_t)pg)
		sum += ((const volatile char *)p)[i];
	(void)sum;
}

/* A file of n bytes in DIR (written with 'f'), open read-write. */
static int make_file(const char *name, size_t n, int keep)
{
	char buf[4096];
	size_t i;
	int fd;

	if (nfiles >= 8)
		return -1;
	snprintf(files[nfiles], sizeof(files[0]), "%s/%s", dir, name);
	fd = open(files[nfiles], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	if (keep)
		nfiles++;
	memset(buf, 'f', sizeof(buf));
	for (i = 0; i < n; i += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return -1;
	fsync(fd); /* clean in the page cache: its pages stay as they are */
	return fd;
}

static void sysv(const char *kind)
{
	int huge = strcmp(kind, "htlb_shm") == 0;
	size_t n = huge ? 4 * MIB : MIB;
	int flags = huge ? SHM_HUGETLB : 0, rmid = strcmp(kind, "sysv") != 0;
	int id = shmget(IPC_PRIVATE, n, IPC_CREAT | 0600 | flags);
	void *at;
	char *where;

	if (id < 0) {
		skip(kind, errno == ENOMEM ? "no_huge_pages" : "shmget_failed");
		return;
	}
	where = spot(n, flags ? HPAGE : (size_t)pg);
	at = shmat(id, where, 0);
	if (at == (void *)-1) {
		shmctl(id, IPC_RMID, NULL);
		skip(kind, "shmat_failed");
		return;
	}
	writes(at, n / 2);
	if (rmid)
		shmctl(id, IPC_RMID, NULL);
	show(kind, at, n);
	add(" %s_id=%d", kind, id);
}

/* A child that maps p too (it reads its n bytes) and stays until this
 * process ends. Returns its pid, 0 when it could not be made. */
static pid_t share_with_child(const void *p, size_t n)
{
	pid_t child;
	int fds[2];
	char c;

	if (pipe(fds) < 0)
		return 0;
	child = fork();
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(0);
		close(fds[0]);
		if (p)
			reads(p, n);
		if (write(fds[1], "r", 1) < 0)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	if (child < 0 || read(fds[0], &c, 1) != 1)
		child = 0;
	close(fds[0]);
	return child;
}

static void hugetlb(const char *kind)
{
	int shared = strcmp(kind, "htlb_shared") == 0 ||
		     strcmp(kind, "htlb_forked") == 0;
	int noreserve = strcmp(kind, "htlb_noreserve") == 0;
	void *p = map_at(4 * MIB, HPAGE, PROT_READ | PROT_WRITE,
			 (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS |
				 MAP_HUGETLB | (noreserve ? MAP_NORESERVE : 0),
			 -1, 0);

	if (!p) {
		skip(kind, "no_huge_pages");
		return;
	}
	writes(p, HPAGE);
	if (strcmp(kind, "htlb_forked") == 0 && !share_with_child(p, HPAGE)) {
		skip(kind, "fork_failed");
		return;
	}
	show(kind, p, 4 * MIB);
}

static void hugetlb_file(const char *kind)
{
	char path[4200];
	int fd;
	void *p;

	snprintf(path, sizeof(path), "%s/htlb/memkinds-%d", dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		skip("htlb_file", "no_hugetlbfs_mount");
		return;
	}
	snprintf(files[nfiles++], sizeof(files[0]), "%s", path);
	if (ftruncate(fd, (off_t)(4 * MIB)) < 0 ||
	    !(p = map_at(4 * MIB, HPAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 0))) {
		skip("htlb_file", "no_huge_pages");
		close(fd);
		return;
	}
	close(fd);
	writes(p, HPAGE);
	show("htlb_file", p, 4 * MIB);
}

static void memfd(const char *kind)
{
	unsigned flags = strcmp(kind, "htlb_memfd") == 0 ? MFD_HUGETLB : 0;
	size_t n = flags || strcmp(kind, "thp_shmem") == 0 ? 4 * MIB : MIB;
	int seal = strcmp(kind, "memfd_sealed") == 0;
	int fd = memfd_create(kind, MFD_CLOEXEC | MFD_ALLOW_SEALING | flags);
	void *p;

	if (fd < 0) {
		skip(kind, "memfd_create_failed");
		return;
	}
	if (seal) {
		char buf[4096];
		size_t i;

		memset(buf, 's', sizeof(buf));
		for (i = 0; i < n / 2; i += sizeof(buf))
			if (write(fd, buf, sizeof(buf)) < 0)
				break;
	}
	if (ftruncate(fd, (off_t)n) < 0) {
		skip(kind, flags ? "no_huge_pages" : "ftruncate_failed");
		close(fd);
		return;
	}
	if (seal && fcntl(fd, F_ADD_SEALS,
			  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE |
				  F_SEAL_SEAL) < 0) {
		skip(kind, "sealing_failed");
		close(fd);
		return;
	}
	p = map_at(
		n, flags || strcmp(kind, "thp_shmem") == 0 ? HPAGE : (size_t)pg,
		seal ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (!p) {
		skip(kind, flags ? "no_huge_pages" : "mmap_failed");
		return;
	}
	if (seal)
		reads(p, n / 2);
	else {
		if (strcmp(kind, "thp_shmem") == 0)
			madvise(p, n, MADV_HUGEPAGE);
		writes(p, n / 2);
	}
	show(kind, p, n);
}

static void locked(const char *kind)
{
	size_t n = 4 * MIB;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;
	char *p;

	if (strcmp(kind, "maplocked") == 0)
		flags |= MAP_LOCKED;
	p = map_at(n, (size_t)pg, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (!p) {
		skip(kind, "mmap_failed");
		return;
	}
	madvise(p, n, MADV_NOHUGEPAGE);
	if (strcmp(kind, "mlock") == 0 && mlock(p, n) < 0) {
		skip(kind, "mlock_failed");
		return;
	}
	if (strcmp(kind, "onfault") == 0) {
		if (syscall(SYS_mlock2, p, n, MLOCK_ONFAULT) < 0) {
			skip(kind, "mlock2_failed");
			return;
		}
		writes(p, n / 4);
	}
	show(kind, p, n);
}

static void ksm(const char *kind)
{
	size_t n = 2 * MIB;
	char *a = anon_rw(n, (size_t)pg);
	char *b = anon_rw(n, (size_t)pg);

	if (!a || !b) {
		skip("ksm", "mmap_failed");
		return;
	}
	madvise(a, n, MADV_NOHUGEPAGE);
	madvise(b, n, MADV_NOHUGEPAGE);
	memset(a, 'k', n);
	memset(b, 'k', n);
	if (madvise(a, n, MADV_MERGEABLE) < 0 ||
	    madvise(b, n, MADV_MERGEABLE) < 0) {
		skip("ksm", "madv_mergeable_failed");
		return;
	}
	show("ksm", a, n);
	add(" ksm_2=%p", (void *)b);
}

static void file_kinds(const char *kind)
{
	size_t n = 1 * MIB;
	int fd = make_file(kind, n, 1);
	char *p;

	if (fd < 0) {
		skip(kind, "file_failed");
		return;
	}
	if (strcmp(kind, "cow") == 0) {
		p = map_at(n, (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			   fd, 0);
		if (p) {
			reads(p, n);
			writes(p, n / 2);
		}
	} else if (strcmp(kind, "trunc") == 0) {
		p = map_at(n, (size_t)pg, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p) {
			reads(p, n);
			if (ftruncate(fd, pg) < 0)
				p = NULL;
		}
	} else {
		p = map_at(n, (size_t)pg, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, 0);
		if (p) {
			writes(p, n / 2);
			unlink(files[--nfiles]);
		}
	}
	close(fd);
	if (!p) {
		skip(kind, "mmap_failed");
		return;
	}
	show(kind, p, n);
}

static void anon_kinds(const char *kind)
{
	size_t n = 4 * MIB;
	int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS;
	char *p;

	if (strcmp(kind, "noreserve") == 0)
		flags |= MAP_NORESERVE;
	if (strcmp(kind, "protnone") == 0)
		prot = PROT_NONE;
	if (strcmp(kind, "growsdown") == 0)
		flags |= MAP_GROWSDOWN;
	p = map_at(n, (size_t)pg, prot, flags, -1, 0);
	if (!p) {
		skip(kind, "mmap_failed");
		return;
	}
	if (prot != PROT_NONE)
		madvise(p, n, MADV_NOHUGEPAGE);
	if (strcmp(kind, "noreserve") == 0)
		writes(p, n / 4);
	else if (strcmp(kind, "growsdown") == 0)
		writes(p + n - pg, (size_t)pg);
	else if (strcmp(kind, "guard") == 0) {
		writes(p, n);
		if (madvise(p + n / 2, 4 * (size_t)pg, MADV_GUARD_INSTALL) <
		    0) {
			skip(kind, "no_madv_guard_install");
			return;
		}
	} else if (strcmp(kind, "lazyfree") == 0) {
		writes(p, n);
		if (madvise(p, n / 2, MADV_FREE) < 0) {
			skip(kind, "no_madv_free");
			return;
		}
	} else if (strcmp(kind, "dontneed") == 0) {
		writes(p, n);
		madvise(p, n / 2, MADV_DONTNEED);
	} else if (strcmp(kind, "pkey") == 0) {
		int key = (int)syscall(SYS_pkey_alloc, 0, 0);

		writes(p, n);
		if (key < 0 ||
		    syscall(SYS_pkey_mprotect, p, n, prot, key) < 0) {
			skip(kind, "no_protection_keys");
			return;
		}
	}
	show(kind, p, n);
}

static void remapped(const char *kind)
{
	size_t n = 1 * MIB;
	char *p = anon_rw(2 * n, (size_t)pg),
	     *q;

	if (!p) {
		skip(kind, "mmap_failed");
		return;
	}
	madvise(p, 2 * n, MADV_NOHUGEPAGE);
	munmap(p + n, n);
	writes(p, n);
	if (strcmp(kind, "mremap_grow") == 0) {
		q = mremap(p, n, 2 * n, 0); /* in place: its tail is free */
		if (q != MAP_FAILED)
			writes(q + n, n / 2);
	} else {
		char *to = spot(n, (size_t)pg);

		q = to ? mremap(p, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, to)
		       : MAP_FAILED;
	}
	if (q == MAP_FAILED) {
		skip(kind, "mremap_failed");
		return;
	}
	show(kind, q, strcmp(kind, "mremap_grow") == 0 ? 2 * n : n);
}

static void uffd(const char *kind)
{
	struct {
		uint64_t api, features, ioctls;
	} api = { 0xAA, 0, 0 };
	struct {
		uint64_t start, len, mode, ioctls;
	} reg;
	size_t n = 2 * MIB;
	char *p = anon_rw(n, (size_t)pg);
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (!p || fd < 0) {
		skip("uffd", "no_userfaultfd");
		return;
	}
	madvise(p, n, MADV_NOHUGEPAGE);
	writes(p, n / 2); /* present before registration: no fault */
	/* UFFDIO_API, UFFDIO_REGISTER (linux/userfaultfd.h) */
	if (ioctl(fd, 0xc018aa3f, &api) < 0) {
		skip("uffd", "uffdio_api_failed");
		return;
	}
	reg.start = (uint64_t)(uintptr_t)p;
	reg.len = n;
	reg.mode = 1; /* UFFDIO_REGISTER_MODE_MISSING */
	if (ioctl(fd, 0xc020aa00, &reg) < 0) {
		skip("uffd", "uffdio_register_failed");
		return;
	}
	show("uffd", p, n);
}

static void secret(const char *kind)
{
	size_t n = 1 * MIB;
	int fd = (int)syscall(447 /* memfd_secret */, 0);
	char *p;

	if (fd < 0) {
		skip("secret", errno == ENOSYS ? "no_memfd_secret"
					       : "memfd_secret_failed");
		return;
	}
	if (ftruncate(fd, (off_t)n) < 0 ||
	    !(p = map_at(n, (size_t)pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 0))) {
		skip("secret", "memfd_secret_not_mappable");
		close(fd);
		return;
	}
	close(fd);
	writes(p, n / 2);
	show("secret", p, n);
}

static void io_uring(const char *kind)
{
	/* struct io_uring_params (linux/io_uring.h), laid out by hand so
	 * that the target builds without the header */
	struct {
		uint32_t sq_entries, cq_entries, flags, sq_thread_cpu,
			sq_thread_idle, features, wq_fd, resv[3];
		uint32_t sq_off[10];
		uint32_t cq_off[10];
	} prm;
	int fd;
	size_t sqsz, cqsz;
	void *sq, *cq, *sqes;

	memset(&prm, 0, sizeof(prm));
	fd = (int)syscall(425 /* io_uring_setup */, 8, &prm);
	if (fd < 0) {
		skip("io_uring", "io_uring_setup_failed");
		return;
	}
	/* sq_off.array at [6], cq_off.cqes at [5] */
	sqsz = prm.sq_off[6] + prm.sq_entries * 4u;
	cqsz = prm.cq_off[5] + prm.cq_entries * 16u;
	sq = mmap(NULL, sqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  fd, 0);
	cq = (prm.features & 1) /* IORING_FEAT_SINGLE_MMAP */
		     ? sq
		     : mmap(NULL, cqsz, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_POPULATE, fd, 0x8000000);
	sqes = mmap(NULL, prm.sq_entries * 64u, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, fd, 0x10000000);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
		skip("io_uring", "io_uring_mmap_failed");
		return;
	}
	show("io_uring", sq, sqsz);
	add(" io_uring_2=%p", sqes);
}

static void perf(const char *kind)
{
	struct perf_event_attr a;
	size_t n = (1 + 8) * (size_t)pg;
	int fd;
	void *p;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_DUMMY;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		skip("perf", "perf_event_open_failed");
		return;
	}
	p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		skip("perf", "perf_mmap_failed");
		return;
	}
	show("perf", p, n);
}

static void swap(const char *kind)
{
	size_t n = 4 * MIB;
	char *a = anon_rw(n, (size_t)pg);
	char *s = map_at(n, (size_t)pg, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t child;

	if (!a || !s) {
		skip("swap", "mmap_failed");
		return;
	}
	madvise(a, n, MADV_NOHUGEPAGE);
	writes(a, n);
	writes(s, n);
	/* paged out first (MADV_PAGEOUT leaves a page another process maps
	 * where it is), then forked: the child holds the same swap entries */
	if (madvise(a, n, MADV_PAGEOUT) < 0 ||
	    madvise(s, n, MADV_PAGEOUT) < 0) {
		skip("swap", "no_madv_pageout");
		return;
	}
	child = share_with_child(NULL, 0);
	if (!child) {
		skip("swap", "fork_failed");
		return;
	}
	show("swap", a, n);
	add(" swap_2=%p swap_child=%d", (void *)s, (int)child);
}

static void thp_anon(const char *kind)
{
	char *p = anon_rw(4 * MIB, HPAGE);

	if (!p || madvise(p, 4 * MIB, MADV_HUGEPAGE) < 0) {
		skip(kind, "no_thp");
		return;
	}
	writes(p, 4 * MIB);
	show(kind, p, 4 * MIB);
}

static void posix(const char *kind)
{
	void *p = NULL;
	int fd;

	snprintf(shm_name, sizeof(shm_name), "/memkinds-%d", (int)getpid());
	fd = shm_open(shm_name, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)MIB) < 0 ||
	    !(p = map_at(MIB, (size_t)pg, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, 0))) {
		skip(kind, "shm_open_failed");
		return;
	}
	close(fd);
	writes(p, MIB / 2);
	show(kind, p, MIB);
}

/* shanon, zero_shared, zero_priv */
static void zero(const char *kind)
{
	int fd = -1, flags = MAP_ANONYMOUS | MAP_SHARED;
	void *p;

	if (kind[0] == 'z') {
		fd = open("/dev/zero", O_RDWR);
		flags = kind[5] == 's' ? MAP_SHARED : MAP_PRIVATE;
	}
	p = map_at(MIB, (size_t)pg, PROT_READ | PROT_WRITE, flags, fd, 0);
	if (fd >= 0)
		close(fd);
	if (!p) {
		skip(kind, "mmap_failed");
		return;
	}
	madvise(p, MIB, MADV_NOHUGEPAGE);
	writes(p, MIB / 2);
	show(kind, p, MIB);
}

static void mlocked_all(const char *kind)
{
	(void)kind; /* done first, in main */
	add(" mlockall=1");
}

static const struct {
	const char *name;
	void (*make)(const char *kind);
} kinds[] = {
	/* clang-format off */
	{ "htlb_priv", hugetlb },	{ "htlb_noreserve", hugetlb },
	{ "htlb_shared", hugetlb },	{ "htlb_forked", hugetlb },
	{ "htlb_file", hugetlb_file },	{ "htlb_shm", sysv },
	{ "htlb_memfd", memfd },	{ "thp_anon", thp_anon },
	{ "thp_shmem", memfd },		{ "sysv", sysv },
	{ "sysv_rmid", sysv },		{ "posix", posix },
	{ "memfd", memfd },		{ "memfd_sealed", memfd },
	{ "shanon", zero },		{ "zero_shared", zero },
	{ "zero_priv", zero },		{ "mlock", locked },
	{ "maplocked", locked },	{ "onfault", locked },
	{ "mlockall", mlocked_all },	{ "ksm", ksm },
	{ "cow", file_kinds },		{ "trunc", file_kinds },
	{ "deleted", file_kinds },	{ "noreserve", anon_kinds },
	{ "protnone", anon_kinds },	{ "guard", anon_kinds },
	{ "growsdown", anon_kinds },	{ "lazyfree", anon_kinds },
	{ "dontneed", anon_kinds },	{ "pkey", anon_kinds },
	{ "mremap_grow", remapped },	{ "mremap_move", remapped },
	{ "uffd", uffd },		{ "secret", secret },
	{ "io_uring", io_uring },	{ "perf", perf },
	{ "swap", swap },
	/* clang-format on */
};

int main(int argc, char **argv)
{
	struct sigaction sa;
	int i;

	pg = sysconf(_SC_PAGESIZE);
	if (argc < 3)
		return 2;
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (i = 2; i < argc; i++)
		if (strcmp(argv[i], "mlockall") == 0 &&
		    mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
			skip("mlockall", "mlockall_failed");
	add("ready pid=%d", (int)getpid());
	for (i = 2; i < argc; i++) {
		size_t k;

		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (strcmp(argv[i], kinds[k].name) == 0)
				break;
		if (k < sizeof(kinds) / sizeof(kinds[0]))
			kinds[k].make(argv[i]);
		else
			skip(argv[i], "unknown_kind");
	}
	printf("%s\n", line);
	fflush(stdout);
	for (;;)
		pause();
}
