/* procfile.c — opening the file behind a mapping. See procfile.h. */
#include "linux/procfile.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "linux/procfs.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* How a path is opened first: O_PATH opens nothing (no device is opened,
 * no FIFO waited on, no terminal taken), it only names the file, so the
 * file can be checked before it is opened for reading. */
#define PATH_FLAGS (O_PATH | O_CLOEXEC)

/* Is the file of stat st the one r maps (a regular file, r's inode and
 * device)? */
static bool is_mapped_stat(const struct stat *st, const struct vms_region *r)
{
	return S_ISREG(st->st_mode) && st->st_ino == r->inode &&
	       major(st->st_dev) == r->dev_major &&
	       minor(st->st_dev) == r->dev_minor;
}

/* Is the file named by the O_PATH descriptor pfd the one r maps? *st is
 * its fstat. With check_id false (no process behind the region, and the
 * region has no inode), only that it is a regular file. */
static bool is_mapped_file(int pfd, const struct vms_region *r, bool check_id,
			   struct stat *st)
{
	if (fstat(pfd, st) < 0 || !S_ISREG(st->st_mode))
		return false;
	return !check_id || is_mapped_stat(st, r);
}

/* Opens for reading the very file the O_PATH descriptor names (through
 * /proc/self/fd, which reopens that inode, not a path that may have
 * changed since), and checks it is still that file: *st is the stat of
 * the descriptor returned, the one that check made. Closes pfd. */
static int reopen(int pfd, struct stat *st)
{
	char path[64];
	dev_t dev = st->st_dev;
	ino_t ino = st->st_ino;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	close(pfd);
	if (fd >= 0 &&
	    (fstat(fd, st) < 0 || st->st_ino != ino || st->st_dev != dev)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Where a process's files are looked up: held descriptors (procfile_hold)
 * or, with none held, its pid. */
struct at {
	pid_t pid;
	bool held, own_view;
	/* held: descriptors; proc -1: map_files and the root are not tried;
	 * root -1: the root is found through proc when it is needed */
	int proc, root;
};

/* Whether the process whose /proc directory is proc (or, with proc -1,
 * /proc/pid) shares vmscope's mount namespace: its maps then name files
 * as vmscope sees them (the kernel writes a mapped file's path from the
 * reader's root, and from the root of the file's own mount namespace
 * when it is another). Unknown: false. */
static struct stat own_ns;
static bool own_ns_known;
static pthread_once_t own_ns_once = PTHREAD_ONCE_INIT;

/* vmscope's own mount namespace, once a run: it never changes it (no
 * setns, no unshare), and --all asks for every process. */
static void own_ns_read(void)
{
	own_ns_known = stat("/proc/self/ns/mnt", &own_ns) == 0;
}

static bool same_mnt_ns(int proc, pid_t pid)
{
	struct stat it;
	char path[64];
	int rc;

	pthread_once(&own_ns_once, own_ns_read);
	if (!own_ns_known)
		return false;
	if (proc >= 0) {
		rc = fstatat(proc, "ns/mnt", &it, 0);
	} else {
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
		rc = stat(path, &it);
	}
	return rc == 0 && own_ns.st_ino == it.st_ino &&
	       own_ns.st_dev == it.st_dev;
}

static int openat2_path(int dirfd, const char *path, unsigned long long how_r)
{
	struct open_how how = { 0 };

	how.flags = PATH_FLAGS;
	how.resolve = how_r;
	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

/* r->path under the target's root, resolved as the target would: absolute
 * symlinks and ".." stay inside that root (RESOLVE_IN_ROOT), and /proc's
 * magic links are not followed. The root is the one held at the capture
 * (a chroot or an exit since does not move it), else /proc/PID/root now.
 * An O_PATH descriptor, or -1. Kernels before 5.6 have no openat2: then
 * nothing is opened this way. */
static int open_in_root(const struct at *a, const char *path)
{
	char root[64];
	int dirfd, fd;
	bool own = false; /* dirfd is opened here, closed here */

	if (a->held && a->root >= 0) {
		dirfd = a->root;
	} else if (a->held) {
		/* the root let go after the steps: the same process's now */
		dirfd = a->proc < 0 ? -1
				    : openat(a->proc, "root",
					     O_PATH | O_DIRECTORY | O_CLOEXEC);
		own = true;
	} else {
		snprintf(root, sizeof(root), "/proc/%d/root", (int)a->pid);
		dirfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		own = true;
	}
	if (dirfd < 0)
		return -1;
	fd = openat2_path(dirfd, path, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
	if (own)
		close(dirfd);
	return fd;
}

/* /proc/PID/map_files/START-END, through the held /proc/PID directory
 * (which names that process only, never a later one with its pid). */
static int open_map_file(const struct at *a, const struct vms_region *r)
{
	char name[96], path[128];

	snprintf(name, sizeof(name), "map_files/%llx-%llx",
		 (unsigned long long)r->start, (unsigned long long)r->end);
	if (a->held)
		return a->proc < 0 ? -1 : openat(a->proc, name, PATH_FLAGS);
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)a->pid, name);
	return open(path, PATH_FLAGS);
}

/* The O_PATH descriptor of the file r maps, checked; -1 if none. */
static int open_checked_path(const struct at *a, const struct vms_region *r,
			     struct stat *st)
{
	int pfd;

	if (!r->path || r->path[0] != '/')
		return -1;
	if (r->vmflags_mask & (VMS_VF_IO | VMS_VF_PF))
		return -1; /* device memory: nothing to read there */
	if (a->pid <= 0 && !a->held) {
		/* No process: the path as it is (fixtures, tests); checked
		 * against the region's inode when it has one. */
		if (r->flags & VMS_RF_DELETED)
			return -1;
		pfd = open(r->path, PATH_FLAGS);
		if (pfd >= 0 && !is_mapped_file(pfd, r, r->inode != 0, st)) {
			close(pfd);
			pfd = -1;
		}
		return pfd;
	}
	/* The mapped file itself (deleted files, other mount namespaces;
	 * needs CAP_SYS_ADMIN). Still checked: the region may have been
	 * unmapped and something else mapped there since maps was read. */
	pfd = open_map_file(a, r);
	if (pfd >= 0 && is_mapped_file(pfd, r, true, st))
		return pfd;
	if (pfd >= 0)
		close(pfd);
	if (r->flags & VMS_RF_DELETED)
		return -1;
	/* In vmscope's own mount namespace the path is as vmscope sees it
	 * (a chrooted target's /lib/x.so shows as ROOT/lib/x.so): opened
	 * from vmscope's root, following no symbolic link (the kernel's
	 * path has none: one met was planted since). */
	if (a->held ? a->own_view : same_mnt_ns(-1, a->pid)) {
		pfd = openat2_path(AT_FDCWD, r->path,
				   RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (pfd >= 0 && is_mapped_file(pfd, r, true, st))
			return pfd;
		if (pfd >= 0)
			close(pfd);
	}
	pfd = open_in_root(a, r->path);
	if (pfd >= 0 && is_mapped_file(pfd, r, true, st))
		return pfd;
	if (pfd >= 0)
		close(pfd);
	return -1;
}

static void at_pid(struct at *a, pid_t pid)
{
	memset(a, 0, sizeof(*a));
	a->pid = pid;
	a->proc = a->root = -1;
}

static void at_source(struct at *a, struct vms_snapshot *s)
{
	struct vms_source_files *f = &s->src.files;

	if (f->later > 0) { /* procfile_hold_later: now */
		pid_t pid = f->later;

		f->later = 0;
		procfile_hold(s, pid);
		if (procfs_pidfd_reaped(f->later_pidfd))
			procfile_drop(s);
	}
	at_pid(a, s->src.pid);
	if (s->src.files.held) {
		a->held = true;
		a->own_view = s->src.files.own_view;
		a->proc = s->src.files.proc_dir;
		a->root = s->src.files.root_dir;
	}
}

/* The file r maps, open for reading; *st its stat. */
static int open_at(const struct at *a, const struct vms_region *r,
		   struct stat *st)
{
	int pfd = open_checked_path(a, r, st);

	return pfd < 0 ? -1 : reopen(pfd, st);
}

static long fs_magic_at(const struct at *a, const struct vms_region *r)
{
	struct statfs sf;
	struct stat st;
	int pfd = open_checked_path(a, r, &st);
	long magic = 0;

	if (pfd < 0)
		return 0;
	if (fstatfs(pfd, &sf) == 0)
		magic = (long)sf.f_type;
	close(pfd);
	return magic;
}

int procfile_open(pid_t pid, const struct vms_region *r)
{
	struct stat st;
	struct at a;

	at_pid(&a, pid);
	return open_at(&a, r, &st);
}

long procfile_fs_magic(pid_t pid, const struct vms_region *r)
{
	struct at a;

	at_pid(&a, pid);
	return fs_magic_at(&a, r);
}

void procfile_hold(struct vms_snapshot *s, pid_t pid)
{
	struct vms_source_files *f = &s->src.files;
	char path[64];

	if (f->held || pid <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	f->proc_dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	f->root_dir = f->proc_dir < 0
			      ? -1
			      : openat(f->proc_dir, "root",
				       O_PATH | O_DIRECTORY | O_CLOEXEC);
	f->own_view = f->proc_dir >= 0 && same_mnt_ns(f->proc_dir, pid);
	f->held = true;
}

void procfile_hold_later(struct vms_snapshot *s, pid_t pid, int pidfd)
{
	struct vms_source_files *f = &s->src.files;

	if (f->held || pid <= 0)
		return;
	f->later = pid;
	f->later_pidfd = pidfd;
}

void procfile_let_root_go(struct vms_snapshot *s)
{
	struct vms_source_files *f = &s->src.files;

	if (f->later > 0) { /* never needed: none opened from now on */
		f->later = 0;
		procfile_drop(s);
		return;
	}

	if (f->held && f->root_dir >= 0) {
		close(f->root_dir);
		f->root_dir = -1;
	}
}

void procfile_drop(struct vms_snapshot *s)
{
	struct vms_source_files *f = &s->src.files;

	if (f->held && f->proc_dir >= 0)
		close(f->proc_dir);
	if (f->held && f->root_dir >= 0)
		close(f->root_dir);
	f->proc_dir = f->root_dir = -1;
	f->own_view = false;
	f->held = true;
}

int vms_source_proc_open(struct vms_snapshot *s, const struct vms_region *r,
			 struct stat *st)
{
	struct stat mine;
	struct at a;

	at_source(&a, s);
	return open_at(&a, r, st ? st : &mine);
}

long vms_source_proc_fs_magic(struct vms_snapshot *s,
			      const struct vms_region *r)
{
	struct at a;

	at_source(&a, s);
	return fs_magic_at(&a, r);
}

const struct vms_source_ops vms_source_paths = {
	.name = "paths",
	.open_file = vms_source_proc_open,
	.fs_magic = vms_source_proc_fs_magic,
};

int vms_source_proc_stat(struct vms_snapshot *s, const struct vms_region *r,
			 struct stat *st)
{
	struct at a;
	char name[96];
	int pfd;

	at_source(&a, s);
	/* The mapped file itself, in one call where map_files can be
	 * followed (CAP_SYS_ADMIN); checked as open_checked_path checks. */
	if (a.held && a.proc >= 0 && r->path && r->path[0] == '/' &&
	    !(r->vmflags_mask & (VMS_VF_IO | VMS_VF_PF))) {
		snprintf(name, sizeof(name), "map_files/%llx-%llx",
			 (unsigned long long)r->start,
			 (unsigned long long)r->end);
		if (fstatat(a.proc, name, st, 0) == 0 && is_mapped_stat(st, r))
			return 0;
	}
	pfd = open_checked_path(&a, r, st);
	if (pfd < 0)
		return -1;
	close(pfd);
	return 0;
}
