/* source.c — the dispatchers of source.h. */
#include "model/source.h"

#include <string.h>

#include "model/snapshot.h"

/* A snapshot without a source: no memory, no files. */
static const struct vms_source_ops no_source = { .name = "none" };

static const struct vms_source_ops *ops_of(const struct vms_snapshot *s)
{
	return s->src.ops ? s->src.ops : &no_source;
}

unsigned vms_source_caps(const struct vms_snapshot *s)
{
	unsigned caps = s->src.ops ? s->src.caps : 0;

	if (!ops_of(s)->read_mem)
		caps &= ~(unsigned)VMS_SRC_MEMORY;
	if (caps & VMS_SRC_FILES)
		caps |= VMS_SRC_ELF; /* read from the files themselves */
	return caps;
}

ssize_t vms_source_read(struct vms_snapshot *s, uint64_t addr, void *buf,
			size_t len, struct vms_error *err)
{
	if (!(vms_source_caps(s) & VMS_SRC_MEMORY))
		return 0;
	return ops_of(s)->read_mem(s, addr, buf, len, err);
}

ssize_t vms_source_read_pages(struct vms_snapshot *s, uint64_t addr, void *buf,
			      size_t npages, unsigned char *ok,
			      struct vms_error *err)
{
	uint64_t ps = s->cap.page_size ? s->cap.page_size : 4096;
	ssize_t bytes = 0;
	size_t pg = 0, k;

	memset(ok, 0, npages);
	if (!(vms_source_caps(s) & VMS_SRC_MEMORY))
		return 0;
	if (ops_of(s)->read_pages)
		return ops_of(s)->read_pages(s, addr, buf, npages, ok, err);
	while (pg < npages) {
		/* a short read may end where a region does: on from there;
		 * a page that reads nothing is absent */
		ssize_t got = ops_of(s)->read_mem(s, addr + pg * ps,
						  (char *)buf + pg * ps,
						  (npages - pg) * ps, err);
		size_t whole = got > 0 ? (size_t)got / ps : 0;

		/* a page read in part is not read: no bytes of it kept */
		if (got > 0 && (size_t)got % ps)
			memset((char *)buf + (pg + whole) * ps, 0,
			       (size_t)got % ps);
		for (k = 0; k < whole; k++)
			ok[pg + k] = 1;
		bytes += (ssize_t)(whole * ps);
		pg += whole ? whole : 1;
	}
	return bytes;
}

int vms_source_read_each(struct vms_snapshot *s, const uint64_t *addr, size_t n,
			 size_t len, void *buf, unsigned char *ok,
			 struct vms_error *err)
{
	size_t i;

	memset(ok, 0, n);
	if (!(vms_source_caps(s) & VMS_SRC_MEMORY))
		return 0;
	if (ops_of(s)->read_each)
		return ops_of(s)->read_each(s, addr, n, len, buf, ok, err);
	for (i = 0; i < n; i++) {
		ssize_t got = ops_of(s)->read_mem(
			s, addr[i], (char *)buf + i * len, len, err);

		if (got < 0)
			return -1;
		ok[i] = (size_t)got == len;
	}
	return 0;
}

int vms_source_present(struct vms_snapshot *s, uint64_t addr, size_t npages,
		       unsigned char *out, struct vms_error *err)
{
	if (!(vms_source_caps(s) & VMS_SRC_MEMORY) || !ops_of(s)->present)
		return vms_error_set(err, VMS_ERR_CAPTURE, 0,
				     "this snapshot's source cannot tell "
				     "which pages are in RAM");
	return ops_of(s)->present(s, addr, npages, out, err);
}

int vms_source_pages(struct vms_snapshot *s, uint64_t addr, size_t npages,
		     unsigned char *out, struct vms_error *err)
{
	if (!(vms_source_caps(s) & VMS_SRC_MEMORY) || !ops_of(s)->pages)
		return vms_error_set(err, VMS_ERR_CAPTURE, 0,
				     "this snapshot's source cannot tell "
				     "what the page tables hold");
	return ops_of(s)->pages(s, addr, npages, out, err);
}

int vms_source_hold(struct vms_snapshot *s, bool on)
{
	struct vms_error ignore;
	int rc;

	if (!ops_of(s)->hold || !(vms_source_caps(s) & VMS_SRC_MEMORY))
		return 0;
	if (on) {
		if (s->src.held || s->src.hold_refused)
			return 0;
		if (ops_of(s)->hold(s, true, &ignore) == 0)
			s->src.held = true;
		else
			s->src.hold_refused = s->src.in_steps;
		return 0;
	}
	if (!s->src.held || s->src.in_steps)
		return 0;
	rc = ops_of(s)->hold(s, false, &ignore);
	s->src.held = false;
	return rc < 0 ? -1 : 0;
}

int vms_source_open_file(struct vms_snapshot *s, const struct vms_region *r,
			 struct stat *st)
{
	if (!(vms_source_caps(s) & VMS_SRC_FILES) || !ops_of(s)->open_file)
		return -1;
	return ops_of(s)->open_file(s, r, st);
}

int vms_source_stat_file(struct vms_snapshot *s, const struct vms_region *r,
			 struct stat *st)
{
	if (!(vms_source_caps(s) & VMS_SRC_FILES) || !ops_of(s)->stat_file)
		return -1;
	return ops_of(s)->stat_file(s, r, st);
}

long vms_source_fs_magic(struct vms_snapshot *s, const struct vms_region *r)
{
	return ops_of(s)->fs_magic ? ops_of(s)->fs_magic(s, r) : 0;
}

int vms_source_elf(struct vms_snapshot *s, const struct vms_region *r,
		   struct elfimage *out)
{
	if (!ops_of(s)->elf)
		return -2;
	return ops_of(s)->elf(s, r, out);
}

int vms_source_restore(struct vms_snapshot *s, const char *step,
		       struct vms_error *err)
{
	if (!ops_of(s)->restore)
		return 0;
	return ops_of(s)->restore(s, step, err);
}

void vms_source_release(struct vms_snapshot *s)
{
	if (s->src.ops && s->src.ops->release)
		s->src.ops->release(s);
	s->src.caps &= ~(unsigned)(VMS_SRC_MEMORY | VMS_SRC_CONSISTENT |
				   VMS_SRC_SETTLE);
	if (!s->src.no_memory)
		s->src.no_memory = "the snapshot's memory was let go";
}

int vms_source_progress(struct vms_snapshot *s, const char *what, size_t done,
			size_t total)
{
	if (!s->src.progress)
		return 0;
	return s->src.progress(s->src.progress_ctx, what, done, total);
}
