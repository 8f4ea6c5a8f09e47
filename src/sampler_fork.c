/* sampler_fork.c — placeholder until the fork sampler lands (issue 3):
 * refuses with a clear message, never falls back to pss silently. */
#include <errno.h>

#include "sampler.h"

static int fork_capture(const struct vms_capture_opts *o,
			struct vms_snapshot *s, struct vms_error *err)
{
	(void)o;
	(void)s;
	return vms_error_set(err, VMS_ERR_USAGE, ENOSYS,
			     "the fork sampler is not available in this "
			     "build yet; use -b pss");
}

const struct vms_sampler vms_sampler_fork = {
	.name = "fork",
	.capture = fork_capture,
};
