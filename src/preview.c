/* preview.c — the first frame of a live process: the layout from maps,
 * filled in as the full capture reads it. See preview.h.
 */
#include "preview.h"

#include <errno.h>
#include <stdlib.h>

#include "pipeline.h"

struct vms_preview {
	struct vms_snapshot *layout; /* ours; lent to the capture while it runs */
	struct vms_fill fill;
	/* the caller's hook, while vms_preview_capture runs */
	vms_preview_fn *fn;
	void *ctx;
};

struct vms_preview *vms_preview_open(pid_t pid, struct vms_error *err)
{
	struct vms_capture_opts mo = { .pid = pid, .no_memory = true };
	struct vms_preview *p = calloc(1, sizeof(*p));

	if (!p) {
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
		return NULL;
	}
	p->layout = vms_capture(&vms_sampler_maps, &mo, err);
	if (!p->layout) {
		free(p);
		return NULL;
	}
	return p;
}

int vms_preview_rss(struct vms_preview *p, struct vms_error *err)
{
	return vms_layout_rss(p->layout, err);
}

struct vms_snapshot *vms_preview_frame(const struct vms_preview *p)
{
	return p->layout;
}

size_t vms_preview_filled(const struct vms_preview *p)
{
	return p->fill.filled;
}

/* The capture's regions_read: the regions read into the layout's totals,
 * then the caller's hook. */
static int on_regions(void *ctx, const struct vms_snapshot *part, size_t done)
{
	struct vms_preview *p = ctx;
	size_t n = vms_layout_fill(p->layout, &p->fill, part, done);

	return p->fn ? p->fn(p->ctx, p, n) : 0;
}

struct vms_snapshot *vms_preview_capture(struct vms_preview *p,
					 const struct vms_sampler *smp,
					 const struct vms_capture_opts *o,
					 vms_preview_fn *fn, void *ctx,
					 struct vms_error *err)
{
	struct vms_capture_opts co = *o;
	struct vms_snapshot *s;

	co.pid = p->layout->proc.pid;
	co.expect_regions = p->layout->nregions;
	co.regions_read = on_regions;
	co.regions_ctx = p;
	co.layout = p->layout;
	p->fn = fn;
	p->ctx = ctx;
	p->fill = (struct vms_fill){ 0 };
	s = vms_capture(smp, &co, err);
	p->fn = NULL;
	p->ctx = NULL;
	return s;
}

struct vms_snapshot *vms_preview_end(struct vms_preview *p)
{
	struct vms_snapshot *s = p->layout;

	free(p);
	return s;
}

void vms_preview_free(struct vms_preview *p)
{
	if (!p)
		return;
	vms_snapshot_free(p->layout);
	free(p);
}
