/* step_totals.c — the last step: the figures of totals.h over the
 * classified snapshot. A snapshot whose sampler or loader set no user
 * address range (an old file, a core) gets the x86-64 defaults, never this
 * machine's: a file from another machine must not get our figures. */
#include <stdio.h>

#include "analyze/steps.h"
#include "model/totals.h"

/* Hugetlb pages are resident and never swapped, but the kernel counts
 * them in no Rss: no working-set figure has them (DESIGN.md: Total WS is
 * Rss). Said, with their bytes, where the process maps any. */
static int note_hugetlb(struct vms_snapshot *s, struct vms_error *err)
{
	uint64_t bytes = 0;
	size_t i, n = 0;
	char why[300];

	for (i = 0; i < s->nregions; i++) {
		bytes += s->regions[i].c.hugetlb;
		n += s->regions[i].c.hugetlb != 0;
	}
	if (!n)
		return 0;
	snprintf(why, sizeof(why),
		 "hugetlb pages, %llu bytes in %zu regions (their hugetlb: "
		 "smaps' Private_Hugetlb + Shared_Hugetlb), are in no "
		 "working-set figure: the kernel counts them apart from Rss "
		 "(status HugetlbPages)",
		 (unsigned long long)bytes, n);
	return vms_snapshot_note(s, "totals", why) < 0
		       ? step_nomem(err, "totals")
		       : 0;
}

static int step_totals_run(struct vms_snapshot *s, unsigned have,
			   struct vms_error *err)
{
	(void)have;
	if (!s->user_end)
		totals_set_user_range(s, TOTALS_USER_START, TOTALS_USER_END);
	totals_compute(s);
	return note_hugetlb(s, err);
}

const struct vms_step vms_step_totals = {
	.name = "totals",
	.doing = "adding up",
	.essential = true,
	.run = step_totals_run,
};
