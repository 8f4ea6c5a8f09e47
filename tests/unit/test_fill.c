/* test_fill — the counters arriving as they are read (pipeline.h,
 * vms_preview_fill) on the recorded kinds fixture: the layout (kinds.maps,
 * no counters, finished by the pipeline) takes the counters of the full
 * capture (kinds.smaps, finished) in two hand-overs; halfway its total has
 * the first half's figures exactly, at the end every summary column of
 * its total and of each type's row equals the capture's, computed by
 * totals_compute() on the capture itself; a region whose bounds changed
 * between the two reads is left as it was; the capture is not changed. */
#include <string.h>

#include "../fixtures/fixture.h"
#include "columns.h"
#include "pipeline.h"
#include "tap.h"
#include "totals_check.h"

int main(void)
{
	struct vms_snapshot *pre = fixture_snapshot("kinds.maps");
	struct vms_snapshot *full = fixture_snapshot("kinds.smaps");
	struct vms_fill st = { 0 };
	struct vms_error err;
	struct vms_totals before, half = { 0 };
	char a[600], b[600];
	size_t n, i, h, filled;
	int t, same = 0;

	if (!pre || !full || vms_snapshot_finish(pre, NULL, &err) < 0 ||
	    vms_snapshot_finish(full, NULL, &err) < 0) {
		ok(0, "the kinds fixtures load and finish");
		return tap_done();
	}
	n = full->nregions;
	ok(pre->nregions == n && pre->total.ws == 0 && full->total.ws > 0,
	   "the layout has the capture's %zu regions and no counters", n);
	before = full->total;

	h = n / 2;
	filled = vms_preview_fill(pre, &st, full, h);
	for (i = 0; i < h; i++) {
		half.ws += full->regions[i].c.rss;
		half.pss += full->regions[i].c.pss;
		half.swap += full->regions[i].c.swap;
	}
	ok(filled == h && pre->total.ws == half.ws &&
		   pre->total.pss == half.pss && pre->total.swap == half.swap,
	   "halfway: %zu regions filled, the total has their figures (WS "
	   "%llu of %llu)",
	   filled, (unsigned long long)pre->total.ws,
	   (unsigned long long)full->total.ws);
	ok(pre->total.ws < full->total.ws && pre->cap.partial,
	   "halfway the total is partial, and says so");
	ok(vms_preview_fill(pre, &st, full, h) == 0,
	   "regions handed over again are not filled twice");

	filled = vms_preview_fill(pre, &st, full, n);
	row_text(&pre->total, a, sizeof(a));
	row_text(&full->total, b, sizeof(b));
	ok(filled == n - h && strcmp(a, b) == 0,
	   "at the end the total equals the capture's (%s)", a);
	/* each type's row: the capture's regions summed by the layout's
	 * types (from maps alone a region may be typed otherwise: the
	 * capture's snapshot, not this, is shown in the end) */
	for (t = 0; t < VMS_NTYPES; t++) {
		struct vms_totals want;

		if (t == VMS_T_FREE || t == VMS_T_PAGE_TABLE)
			continue;
		sum_by_type(pre, full, t, &want);
		row_text(&pre->types[t], a, sizeof(a));
		row_text(&want, b, sizeof(b));
		same += strcmp(a, b) == 0;
	}
	ok(same == VMS_NTYPES - 2,
	   "each type's row is the sum of its regions' figures (%d of %d)",
	   same, VMS_NTYPES - 2);
	for (i = 0, same = 0; i < n; i++)
		same += vms_region_committed(&pre->regions[i]) ==
				vms_region_committed(&full->regions[i]) &&
			vms_region_private_ws(&pre->regions[i]) ==
				vms_region_private_ws(&full->regions[i]) &&
			(pre->regions[i].flags & VMS_RF_RESERVED) ==
				(full->regions[i].flags & VMS_RF_RESERVED);
	ok((size_t)same == n,
	   "each region's derived figures and reserved flag are the capture's");
	row_text(&before, a, sizeof(a));
	row_text(&full->total, b, sizeof(b));
	ok(strcmp(a, b) == 0, "the capture itself is not changed");
	vms_snapshot_free(pre);

	/* a region that changed between maps and smaps: left alone */
	pre = fixture_snapshot("kinds.maps");
	vms_snapshot_finish(pre, NULL, &err);
	pre->regions[2].end -= 4096;
	memset(&st, 0, sizeof(st));
	filled = vms_preview_fill(pre, &st, full, n);
	ok(filled == n - 1 && pre->regions[2].c.rss == 0 &&
		   pre->regions[3].c.rss == full->regions[3].c.rss,
	   "a region whose bounds changed keeps its (no) counters; the next "
	   "is filled (%zu of %zu)",
	   filled, n);
	vms_snapshot_free(pre);
	vms_snapshot_free(full);
	return tap_done();
}
