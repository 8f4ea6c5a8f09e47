/* totals_check.h — the summary rows of snapshots compared in the tests of
 * the streaming fill (test_fill, test_fill_inplace). Header-only: each
 * unit test is built alone. */
#ifndef VMS_TEST_TOTALS_CHECK_H
#define VMS_TEST_TOTALS_CHECK_H

#include <stdio.h>
#include <string.h>

#include "columns.h"
#include "snapshot.h"

/* The summed columns of a row, as text, for a message and a compare. */
static inline void row_text(const struct vms_totals *t, char *out, size_t n)
{
	size_t len = 0;
	int c;

	out[0] = '\0';
	for (c = 0; c < VMS_NCOLS && len < n; c++)
		if (vms_column_has(c, VMS_COLF_REGION) &&
		    vms_column_has(c, VMS_COLF_TYPE))
			len += (size_t)snprintf(
				out + len, n - len, "%s=%llu ",
				vms_columns[c].key,
				(unsigned long long)vms_column_type(t, c));
}

/* The row of type t as the figures of figs's regions make it, each region
 * counted under the type typed gives it (the same index in both). */
static inline void sum_by_type(const struct vms_snapshot *typed,
			       const struct vms_snapshot *figs, int t,
			       struct vms_totals *want)
{
	size_t i;
	int c;

	memset(want, 0, sizeof(*want));
	for (i = 0; i < typed->nregions && i < figs->nregions; i++) {
		if (typed->regions[i].type != t)
			continue;
		for (c = 0; c < VMS_NCOLS; c++) {
			uint64_t v;

			if (!vms_column_has(c, VMS_COLF_REGION) ||
			    !vms_column_has(c, VMS_COLF_TYPE))
				continue;
			memcpy(&v, (char *)want + vms_columns[c].offset,
			       sizeof(v));
			v += vms_column_region(&figs->regions[i], c);
			memcpy((char *)want + vms_columns[c].offset, &v,
			       sizeof(v));
		}
	}
}

#endif
