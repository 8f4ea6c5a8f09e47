#include "capture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "classify.h"
#include "procfs.h"
#include "totals.h"

const struct vms_sampler *vms_sampler_by_name(const char *name)
{
	static const struct vms_sampler *const all[] = {
		&vms_sampler_pss,
		&vms_sampler_fork,
	};
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (strcmp(all[i]->name, name) == 0)
			return all[i];
	return NULL;
}

void vms_snapshot_hold(struct vms_snapshot *s, bool on)
{
	struct vms_error ignore;

	if (s->sampler && s->sampler->hold)
		s->sampler->hold(s, on, &ignore);
}

ssize_t vms_snapshot_read(struct vms_snapshot *s, uint64_t addr, void *buf,
			  size_t len, struct vms_error *err)
{
	if (!s->sampler || !s->sampler->read_mem)
		return 0;
	return s->sampler->read_mem(s, addr, buf, len, err);
}

struct open_ctx {
	pid_t pid;
};

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

/* The file behind a mapping, as the target sees it: through map_files
 * (the mapped file itself: works for deleted files and other mount
 * namespaces, needs CAP_SYS_ADMIN), then the target's root, then the path
 * as it is, these two only if device and inode match. */
static int open_image(void *ctx, const struct vms_region *r)
{
	const struct open_ctx *c = ctx;
	char path[4200];
	int fd;

	if (r->vmflags_mask & (VMS_VF_IO | VMS_VF_PF))
		return -1; /* device memory: nothing to read there */
	if (c->pid > 0) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx",
			 (int)c->pid, (unsigned long long)r->start,
			 (unsigned long long)r->end);
		fd = open_regular(path);
		if (fd >= 0)
			return fd;
		if (!(r->flags & VMS_RF_DELETED)) {
			snprintf(path, sizeof(path), "/proc/%d/root%s",
				 (int)c->pid, r->path);
			fd = open_same(path, r);
			if (fd >= 0)
				return fd;
		}
	}
	if (r->flags & VMS_RF_DELETED)
		return -1;
	return c->pid > 0 ? open_same(r->path, r) : open_regular(r->path);
}

/* statfs of the file behind a mapping, as the target sees it. */
static long fs_magic(void *ctx, const struct vms_region *r)
{
	const struct open_ctx *c = ctx;
	char path[4200];
	struct statfs sf;

	if (c->pid <= 0)
		return statfs(r->path, &sf) == 0 ? (long)sf.f_type : 0;
	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx",
		 (int)c->pid, (unsigned long long)r->start,
		 (unsigned long long)r->end);
	if (statfs(path, &sf) == 0)
		return (long)sf.f_type;
	if (r->flags & VMS_RF_DELETED)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)c->pid, r->path);
	return statfs(path, &sf) == 0 ? (long)sf.f_type : 0;
}

int vms_snapshot_finish(struct vms_snapshot *s, pid_t pid, bool read_memory,
			struct vms_error *err)
{
	struct open_ctx ctx = { pid };
	struct classify_ops ops = {
		.open_image = open_image,
		.fs_magic = fs_magic,
		.ctx = &ctx,
		.read_memory = read_memory,
	};

	if (!s->cap.page_size)
		s->cap.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	if (!s->user_end) {
		size_t i;

		s->user_start = procfs_mmap_min_addr();
		s->user_end = procfs_user_end();
		/* A process that opted into 5-level paging maps above 47
		 * bits: its user range is the 56-bit one. */
		for (i = 0; i < s->nregions; i++)
			if (s->regions[i].end > s->user_end &&
			    s->regions[i].start < 0xff00000000000000ull)
				s->user_end = 0x00fffffffffff000ull;
	}
	if (classify_snapshot(s, &ops, err) < 0)
		return -1;
	totals_compute(s);
	return 0;
}

static void fill_capture_info(struct vms_snapshot *s,
			      const struct vms_sampler *smp)
{
	struct utsname u;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	s->cap.backend = smp->name;
	s->cap.taken_at_sec = ts.tv_sec;
	s->cap.taken_at_nsec = ts.tv_nsec;
	s->cap.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	s->cap.kernel = uname(&u) == 0 ? arena_strdup(&s->arena, u.release)
				       : "unknown";
}

struct vms_snapshot *vms_capture(const struct vms_sampler *smp,
				 const struct vms_capture_opts *o,
				 struct vms_error *err)
{
	struct vms_snapshot *s = vms_snapshot_new();

	if (!s) {
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
		return NULL;
	}
	s->sampler = smp;
	fill_capture_info(s, smp);
	if (smp->capture(o, s, err) < 0)
		goto fail;
	if (vms_snapshot_finish(s, o->pid, !o->no_memory, err) < 0)
		goto fail;
	if (!o->keep_memory && smp->release) {
		/* Nothing reads memory after this: let the clone go now. */
		smp->release(s);
		s->sampler = NULL;
	}
	return s;
fail:
	vms_snapshot_free(s);
	return NULL;
}
