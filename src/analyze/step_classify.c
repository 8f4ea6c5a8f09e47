/* step_classify.c — the "classify" step: every region's type by what
 * /proc/PID/maps shows of it. Images, heaps and stacks are found by the
 * steps after it; what none of them claims stays private data. A region
 * an allocator or runtime named ([anon:NAME]) is typed by the table of
 * known names (anon_names.h); its detail is the name. See steps.h.
 */
#include <errno.h>
#include <string.h>

#include "analyze/anon_names.h"
#include "analyze/rtscan.h"
#include "analyze/steps.h"
#include "model/managed.h"
#include "model/source.h"

int step_nomem(struct vms_error *err, const char *step)
{
	return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
			     "out of memory in the %s step", step);
}

/* Shared memory with no file of its own on disk (shmem, memfd, SysV,
 * /dev/shm, tmpfs: asked of the file system through the source). */
static bool is_shmem(struct vms_snapshot *s, const struct vms_region *r)
{
	long magic;

	if (step_path_starts(r, "[anon_shmem:"))
		return true;
	if (!r->path || r->path[0] != '/')
		return false;
	if (step_path_starts(r, "/SYSV"))
		return true;
	/* The rest is a named file. A private mapping of one, even on tmpfs
	 * or a memfd, is a file mapping like any other (a library loaded from
	 * a tmpfs /tmp or a memfd is an image): shared memory is a shared
	 * mapping.
	 * Shared anonymous memory is a shmem file named /dev/zero. */
	if (!(r->perms & VMS_PERM_SHARED))
		return false;
	if (step_path_starts(r, "/dev/shm/") ||
	    step_path_starts(r, "/dev/zero") ||
	    step_path_starts(r, "/memfd:") || step_path_starts(r, "/secretmem"))
		return true;
	if (r->dev_major != 0)
		return false;
	/* Major 0 is tmpfs, but also btrfs, NFS, FUSE, overlay...: ask the
	 * file system when it can be asked. */
	magic = vms_source_fs_magic(s, r);
	if (magic)
		return magic == 0x01021994 /* TMPFS_MAGIC */ ||
		       magic == 0x858458f6 /* RAMFS_MAGIC */ ||
		       (unsigned long)magic == 0x958458f6ul /* HUGETLBFS */ ||
		       magic == 0x5345434d /* SECRETMEM_MAGIC */;
	return true;
}

/* A kernel object's pages mapped shared: "anon_inode:[io_uring]" (the
 * rings), "anon_inode:[perf_event]" (a ring buffer), a driver's buffer:
 * memory shared between the kernel (or a device) and the process, with no
 * file of its own. */
static bool is_kernel_object(const struct vms_region *r)
{
	return (r->perms & VMS_PERM_SHARED) &&
	       step_path_starts(r, "anon_inode:");
}

/* "[anon:NAME]" / "[anon: NAME]" -> NAME, in the arena. */
static const char *anon_name(struct vms_snapshot *s, const struct vms_region *r)
{
	const char *p = r->path + 6; /* past "[anon:" */
	size_t n;

	if (*p == ' ')
		p++;
	n = strlen(p);
	if (n && p[n - 1] == ']')
		n--;
	return arena_strndup(&s->arena, p, n);
}

static int step_classify_run(struct vms_snapshot *s, unsigned have,
			     struct vms_error *err)
{
	size_t i;

	(void)have;
	s->nmanaged = 0;
	s->managed = NULL;

	for (i = 0; i < s->nregions; i++) {
		struct vms_region *r = &s->regions[i];
		const struct anon_name *known;

		r->type = VMS_T_PRIVATE_DATA;
		/* Derived state is rebuilt from scratch: classifying twice
		 * gives the same snapshot. */
		r->detail = NULL;
		r->children = NULL;
		r->nchildren = 0;
		r->build_id = NULL;
		r->flags &= (uint16_t) ~(VMS_RF_GUARD | VMS_RF_IMAGE_UNOPENED);
		if (!r->path)
			continue;
		if (is_shmem(s, r) || is_kernel_object(r)) {
			r->type = VMS_T_SHAREABLE;
			/* the rings vmscope --trace hands a traced program
			 * (src/trace/tracer.c's memfd): said, as they are
			 * the tool's, not the program's own */
			r->detail =
				step_path_starts(r, "/memfd:vmscope-trace")
					? "vmscope's allocation trace rings "
					  "(the tracer's, not the program's)"
					: r->path;
		} else if (step_path_is(r, "[vdso]") ||
			   step_path_is(r, "[vsyscall]")) {
			r->type = VMS_T_IMAGE;
			r->detail = r->path;
		} else if (step_path_starts(r, "[anon:")) {
			r->detail = anon_name(s, r);
			if (!r->detail)
				return step_nomem(err, "classify");
			known = anon_names_lookup(r->detail, strlen(r->detail));
			if (known)
				r->type = known->type;
			if (known && known->type == VMS_T_MANAGED_HEAP &&
			    !managed_extend(s, known->runtime, r->start,
					    r->end))
				return step_nomem(err, "classify");
		} else if (r->path[0] == '[' ||
			   step_path_starts(r, "anon_inode:")) {
			r->detail = r->path;
		} else if (vms_region_is_private_anon(r)) {
			/* MAP_PRIVATE | MAP_HUGETLB, a private /dev/zero:
			 * anonymous memory, its file a name only */
			r->detail = r->path;
		} else if (r->path[0] == '/') {
			r->type = VMS_T_MAPPED_FILE; /* images: see below */
			r->detail = r->path;
		}
		/* memfd_secret's pages are out of the kernel's reach by
		 * design: reading them fails */
		if ((r->vmflags_mask & (VMS_VF_IO | VMS_VF_PF)) ||
		    step_path_starts(r, "/secretmem"))
			r->flags |= VMS_RF_UNREADABLE;
	}
	return 0;
}

const struct vms_step vms_step_classify = {
	.name = "classify",
	.doing = "sorting regions into types",
	.essential = true,
	.run = step_classify_run,
};
