/* pane_details_keys.c — the regions' sort keys kept small: for each
 * figure column shown, a region's figure in 4 KiB pages (4 bytes a
 * region), and each region's Prot (a byte a region), made while nobody
 * types and read by a sort in place of the regions' records. Contract:
 * panes.h (details_keys_*).
 *
 * Why: a sort read its keys from the records, two lines of 176 bytes a
 * region, 128 MB of a million. On this project's VM memory not touched for
 * a while comes back slower (docs/benchmarks.md, "Writes to huge pages
 * after a pause"): a viewer's first sort by Size of a million regions took
 * 20-38 ms against 13-15 for the same sort later, 60% of it the keys'
 * read (perf). 4 MB a column are read instead, in huge pages.
 *
 * A figure that is not whole pages (a file's Pss, SwapPss) or is 16 TiB or
 * more is kept as KEY_RECORD: the sort reads that one from its record. A
 * column with such regions for half of them or more is not kept (its
 * array would save little); nor are columns not shown (freed when hidden),
 * nor anything under --watch (each tick's snapshot frees them). Everything
 * here is let go by details_free(), as the snapshot changes.
 * VMSCOPE_SORT_RECORDS=1 keeps nothing: every sort reads the records, the
 * tests' way to that path (a sort before the first idle moment takes it).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "model/columns.h"
#include "panes/panes.h"

enum { PREFETCH_RECORDS = 16 }; /* records asked for ahead of the one read */

static bool from_records(void)
{
	static int v = -1;

	if (v < 0) {
		const char *e = getenv("VMSCOPE_SORT_RECORDS");

		v = e && !strcmp(e, "1");
	}
	return v == 1;
}

/* Whether column f is one kept here for u's columns shown now. */
static bool wanted(const struct ui *u, int f)
{
	return u->conf.shown[f] &&
	       vms_column_has((enum vms_col)f, VMS_COLF_REGION) &&
	       vms_column_has((enum vms_col)f, VMS_COLF_DETAILS);
}

void details_keys_warm(struct ui *u)
{
	struct details *d = det_of(u);
	const struct vms_snapshot *s = u->snap;
	uint32_t *key[VMS_NCOLS];
	uint64_t (*fig[VMS_NCOLS])(const struct vms_region *);
	size_t odd[VMS_NCOLS] = { 0 }, i;
	int col[VMS_NCOLS], nc = 0, f, c;
	bool perms;

	if (!s || u->watching || !s->nregions || from_records())
		return;
	for (f = 0; f < VMS_NCOLS; f++) {
		if (!wanted(u, f)) {
			free(d->fig_key[f]); /* hidden: its memory back */
			d->fig_key[f] = NULL;
			continue;
		}
		if (d->fig_key[f] || d->fig_key_none[f])
			continue;
		/* out of memory: the sort reads the records, as before */
		d->fig_key[f] = vms_big_malloc(s->nregions * sizeof(uint32_t));
		if (!d->fig_key[f])
			continue;
		key[nc] = d->fig_key[f];
		fig[nc] = vms_columns[f].region;
		col[nc++] = f;
	}
	perms = !d->perm_of && (d->perm_of = malloc(s->nregions)) != NULL;
	if (!nc && !perms)
		return;
	/* one read of every record for all of them */
	for (i = 0; i < s->nregions; i++) {
		const struct vms_region *g = &s->regions[i];

		if (i + PREFETCH_RECORDS < s->nregions)
			__builtin_prefetch(&s->regions[i + PREFETCH_RECORDS]);
		for (c = 0; c < nc; c++) {
			uint64_t v = fig[c](g);

			if ((v & (DETAILS_KEY_PAGE - 1)) ||
			    v / DETAILS_KEY_PAGE >= DETAILS_KEY_RECORD) {
				key[c][i] = DETAILS_KEY_RECORD;
				odd[c]++;
			} else {
				key[c][i] = (uint32_t)(v / DETAILS_KEY_PAGE);
			}
		}
		if (perms)
			d->perm_of[i] = (uint8_t)(g->perms & 15);
	}
	for (c = 0; c < nc; c++)
		if (odd[c] >= s->nregions / 2) {
			free(d->fig_key[col[c]]);
			d->fig_key[col[c]] = NULL;
			d->fig_key_none[col[c]] = true;
		}
}

void details_keys_free(struct details *d)
{
	int f;

	for (f = 0; f < VMS_NCOLS; f++) {
		free(d->fig_key[f]);
		d->fig_key[f] = NULL;
		d->fig_key_none[f] = false;
	}
	free(d->perm_of);
	d->perm_of = NULL;
}
