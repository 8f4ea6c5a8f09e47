/* procfile.c — opening the file behind a mapping. See procfile.h. */
#include "linux/procfile.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* How a path is opened first: O_PATH opens nothing (no device is opened,
 * no FIFO waited on, no terminal taken), it only names the file, so the
 * file can be checked before it is opened for reading. */
#define PATH_FLAGS (O_PATH | O_CLOEXEC)

/* Is the file named by the O_PATH descriptor pfd the one r maps? With
 * check_id false (no process behind the region, and the region has no
 * inode), only that it is a regular file. */
static bool is_mapped_file(int pfd, const struct vms_region *r, bool check_id,
			   struct stat *st)
{
	if (fstat(pfd, st) < 0 || !S_ISREG(st->st_mode))
		return false;
	return !check_id ||
	       (st->st_ino == r->inode && major(st->st_dev) == r->dev_major &&
		minor(st->st_dev) == r->dev_minor);
}

/* Opens for reading the very file the O_PATH descriptor names (through
 * /proc/self/fd, which reopens that inode, not a path that may have
 * changed since), and checks it is still that file. Closes pfd. */
static int reopen(int pfd, const struct stat *want)
{
	char path[64];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	close(pfd);
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_ino != want->st_ino ||
			st.st_dev != want->st_dev)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* r->path under the target's root, resolved as the target would: absolute
 * symlinks and ".." stay inside that root (RESOLVE_IN_ROOT), and /proc's
 * magic links are not followed. An O_PATH descriptor, or -1. Kernels
 * before 5.6 have no openat2: then nothing is opened this way. */
static int open_in_root(pid_t pid, const char *path)
{
	struct open_how how = { 0 };
	char root[64];
	int dirfd, fd;

	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	dirfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -1;
	how.flags = PATH_FLAGS;
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	close(dirfd);
	return fd;
}

static void map_files_path(char *path, size_t n, pid_t pid,
			   const struct vms_region *r)
{
	snprintf(path, n, "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)r->start, (unsigned long long)r->end);
}

/* The O_PATH descriptor of the file r maps, checked; -1 if none. */
static int open_checked_path(pid_t pid, const struct vms_region *r,
			     struct stat *st)
{
	char path[128];
	int pfd;

	if (!r->path || r->path[0] != '/')
		return -1;
	if (r->vmflags_mask & (VMS_VF_IO | VMS_VF_PF))
		return -1; /* device memory: nothing to read there */
	if (pid <= 0) {
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
	map_files_path(path, sizeof(path), pid, r);
	pfd = open(path, PATH_FLAGS);
	if (pfd >= 0 && is_mapped_file(pfd, r, true, st))
		return pfd;
	if (pfd >= 0)
		close(pfd);
	if (r->flags & VMS_RF_DELETED)
		return -1;
	pfd = open_in_root(pid, r->path);
	if (pfd >= 0 && is_mapped_file(pfd, r, true, st))
		return pfd;
	if (pfd >= 0)
		close(pfd);
	return -1;
}

int procfile_open(pid_t pid, const struct vms_region *r)
{
	struct stat st;
	int pfd = open_checked_path(pid, r, &st);

	return pfd < 0 ? -1 : reopen(pfd, &st);
}

long procfile_fs_magic(pid_t pid, const struct vms_region *r)
{
	struct statfs sf;
	struct stat st;
	int pfd = open_checked_path(pid, r, &st);
	long magic = 0;

	if (pfd < 0)
		return 0;
	if (fstatfs(pfd, &sf) == 0)
		magic = (long)sf.f_type;
	close(pfd);
	return magic;
}

int vms_source_proc_open(struct vms_snapshot *s, const struct vms_region *r)
{
	return procfile_open(s->src.pid, r);
}

long vms_source_proc_fs_magic(struct vms_snapshot *s,
			      const struct vms_region *r)
{
	return procfile_fs_magic(s->src.pid, r);
}

const struct vms_source_ops vms_source_paths = {
	.name = "paths",
	.open_file = vms_source_proc_open,
	.fs_magic = vms_source_proc_fs_magic,
};
