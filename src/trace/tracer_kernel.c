/* tracer_kernel.c — tracer.h's kernel's trace of the mmap family beside
 * the library of an attach (bpfmaps.h): loaded and attached unarmed before
 * the injection, armed with the library's flag between its start and its
 * redirection of the GOT entries, switched with the library by the shared
 * file's kernel_maps, drained after the rings, its figures in the reports
 * (its close, which drains the rings, is tracer.c's).
 */
#include <errno.h>
#include <string.h>

#include "trace/bpfmaps.h"
#include "trace/tracer.h"
#include "trace/tracer_priv.h"

int tracer_kernel_load(struct tracer *tr, const char *library,
		       struct vms_error *err)
{
	struct bpfmaps_opts o = { .db = tr->p.db,
				  .sym = tr->p.sym,
				  .skip_path = library,
				  .start_ns = tr->p.hdr->start_ns,
				  .unarmed = true };

	if (!tr->attached || tr->kernel || tr->kernel_done)
		return vms_error_set(err, VMS_ERR_CAPTURE, EINVAL,
				     "the kernel's trace beside the library "
				     "needs a process attached");
	return bpfmaps_open_opts(&tr->kernel, tr->p.pid, &o, err);
}

int tracer_kernel_arm(struct tracer *tr, struct vms_error *err)
{
	int64_t off = __atomic_load_n(&tr->p.hdr->inside_off, __ATOMIC_ACQUIRE);

	if (!off)
		return vms_error_set(err, VMS_ERR_CAPTURE, EINVAL,
				     "the tracer library did not say where "
				     "its flag is: the kernel's trace would "
				     "count the allocator's own maps");
	if (!tr->kernel)
		return vms_error_set(err, VMS_ERR_CAPTURE, EINVAL,
				     "the kernel's trace is not loaded");
	bpfmaps_arm(tr->kernel, true, off);
	/* the kernel sees every call from now on: the library's mmap
	 * family stops recording (its calls until now were its own, left
	 * out by the kernel's as made inside it) */
	__atomic_store_n(&tr->p.hdr->kernel_maps, 1, __ATOMIC_RELEASE);
	return 0;
}

int tracer_kernel_from(struct tracer *tr, struct vms_error *err)
{
	if (!tr->kernel)
		return vms_error_set(err, VMS_ERR_CAPTURE, EINVAL,
				     "the kernel's trace is not loaded");
	/* armed where the library started (tracer_kernel_arm, perhaps in
	 * the injecting child): kernel_maps says so in the shared header */
	if (__atomic_load_n(&tr->p.hdr->kernel_maps, __ATOMIC_ACQUIRE) != 1) {
		bpfmaps_free(tr->kernel);
		tr->kernel = NULL;
		return vms_error_set(err, VMS_ERR_CAPTURE, EINVAL,
				     "the tracer library did not say where "
				     "its flag is: the kernel's trace would "
				     "count the allocator's own maps");
	}
	tr->kernel_on = true;
	bpfmaps_from(tr->kernel, __atomic_load_n(&tr->p.hdr->trace_from_ns,
						 __ATOMIC_ACQUIRE));
	return 0;
}

bool tracer_kernel(const struct tracer *tr)
{
	return tr->kernel_on || tr->kernel_done;
}

long tracer_kernel_drain(struct tracer *tr, struct vms_error *err)
{
	if (!tr->kernel || !tr->kernel_on)
		return 0;
	return bpfmaps_drain(tr->kernel, 0, err);
}

void tracer_kernel_figures(const struct tracer *tr,
			   struct vms_trace_report *out)
{
	if (tr->kernel && tr->kernel_on) {
		bpfmaps_figures(tr->kernel, out);
	} else if (tr->kernel_done) {
		out->dropped += tr->kernel_fig.dropped;
		out->dropped_bytes += tr->kernel_fig.dropped_bytes;
		out->madvise_traced = true;
		out->madvised = tr->kernel_fig.madvised;
		out->madvised_bytes = tr->kernel_fig.madvised_bytes;
		out->kernel_maps = true;
		out->allocator_maps = tr->kernel_fig.allocator_maps;
	}
}
