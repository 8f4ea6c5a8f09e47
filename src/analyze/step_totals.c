/* step_totals.c — the last step: the figures of totals.h over the
 * classified snapshot. A snapshot whose sampler or loader set no user
 * address range (an old file, a core) gets the x86-64 defaults, never this
 * machine's: a file from another machine must not get our figures. */
#include "analyze/steps.h"
#include "model/totals.h"

static int step_totals_run(struct vms_snapshot *s, unsigned have,
			   struct vms_error *err)
{
	(void)have;
	(void)err;
	if (!s->user_end)
		totals_set_user_range(s, TOTALS_USER_START, TOTALS_USER_END);
	totals_compute(s);
	return 0;
}

const struct vms_step vms_step_totals = {
	.name = "totals",
	.doing = "adding up",
	.essential = true,
	.run = step_totals_run,
};
