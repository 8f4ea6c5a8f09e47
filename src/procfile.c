/* procfile.c — opening the file behind a mapping. See procfile.h. */
#include "procfile.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Opens path only if it is a regular file, without blocking and without
 * side effects: a device node (a GPU, a frame buffer) is never opened, and a
 * FIFO put at a mapped path meanwhile cannot make vmscope wait. */
static int open_regular(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Opened by its path: only if it is the very file the region maps (the
 * device and inode maps shows), not another file that has that name in
 * vmscope's view or was put there since. */
static int open_same(const char *path, const struct vms_region *r)
{
	struct stat st;
	int fd = open_regular(path);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_ino != r->inode ||
	    major(st.st_dev) != r->dev_major ||
	    minor(st.st_dev) != r->dev_minor) {
		close(fd);
		return -1;
	}
	return fd;
}

static void map_files_path(char *path, size_t n, pid_t pid,
			   const struct vms_region *r)
{
	snprintf(path, n, "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)r->start, (unsigned long long)r->end);
}

int procfile_open(pid_t pid, const struct vms_region *r)
{
	char path[4200];
	int fd;

	if (!r->path || r->path[0] != '/')
		return -1;
	if (r->vmflags_mask & (VMS_VF_IO | VMS_VF_PF))
		return -1; /* device memory: nothing to read there */
	if (pid > 0) {
		map_files_path(path, sizeof(path), pid, r);
		fd = open_regular(path);
		if (fd >= 0)
			return fd;
		if (!(r->flags & VMS_RF_DELETED)) {
			snprintf(path, sizeof(path), "/proc/%d/root%s",
				 (int)pid, r->path);
			fd = open_same(path, r);
			if (fd >= 0)
				return fd;
		}
	}
	if (r->flags & VMS_RF_DELETED)
		return -1;
	return pid > 0 ? open_same(r->path, r) : open_regular(r->path);
}

long procfile_fs_magic(pid_t pid, const struct vms_region *r)
{
	char path[4200];
	struct statfs sf;

	if (!r->path || r->path[0] != '/')
		return 0;
	if (pid <= 0)
		return statfs(r->path, &sf) == 0 ? (long)sf.f_type : 0;
	map_files_path(path, sizeof(path), pid, r);
	if (statfs(path, &sf) == 0)
		return (long)sf.f_type;
	if (r->flags & VMS_RF_DELETED)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, r->path);
	return statfs(path, &sf) == 0 ? (long)sf.f_type : 0;
}
