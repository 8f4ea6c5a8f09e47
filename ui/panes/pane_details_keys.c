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
 * read (perf). 4 MB a column are read instead. All of them are one block,
 * in huge pages: a column's 3.8 MiB alone is below bigmem.h's threshold,
 * and in 4 KiB pages the first sort by each column read its keys in 10-17
 * ms against 2-4 in the next round (a million allocations, live).
 *
 * A figure that is not whole pages (a file's Pss, SwapPss) or is 16 TiB or
 * more is kept as KEY_RECORD: the sort reads that one from its record. A
 * column with such regions for half of them or more is dropped (its array
 * would save little), and is not made again for that snapshot. Columns
 * not shown are not kept (the block is made again when the columns shown
 * change), nor is anything under --watch (each tick's snapshot frees
 * them). Everything here is let go by details_free(), as the snapshot
 * changes. VMSCOPE_SORT_RECORDS=1 keeps nothing: every sort reads the
 * records, the tests' way to that path (a sort before the first idle
 * moment takes it).
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

bool details_keep_nothing(void)
{
	static int v = -1;

	if (v < 0) {
		const char *e = getenv("VMSCOPE_SORT_RECORDS");

		v = e && !strcmp(e, "1");
	}
	return v == 1;
}

/* The figure columns to keep for u's columns shown now, one bit each. */
static unsigned wanted(const struct ui *u, const struct details *d)
{
	unsigned want = 0;
	int f;

	for (f = 0; f < VMS_NCOLS; f++)
		if (u->conf.shown[f] && !d->fig_key_none[f] &&
		    vms_column_has((enum vms_col)f, VMS_COLF_REGION) &&
		    vms_column_has((enum vms_col)f, VMS_COLF_DETAILS) &&
		    !vms_column_has((enum vms_col)f, VMS_COLF_COUNT))
			want |= 1u << f;
	return want;
}

/* The arrays let go (not which columns were dropped: those stay). */
static void arrays_free(struct details *d)
{
	int f;

	free(d->keys_block);
	d->keys_block = NULL;
	d->keys_cols = 0;
	d->perm_of = NULL;
	for (f = 0; f < VMS_NCOLS; f++)
		d->fig_key[f] = NULL;
}

void details_keys_warm(struct ui *u)
{
	struct details *d = det_of(u);
	const struct vms_snapshot *s = u->snap;
	uint32_t *key[VMS_NCOLS];
	uint64_t (*fig[VMS_NCOLS])(const struct vms_region *);
	size_t odd[VMS_NCOLS] = { 0 }, n, i;
	int col[VMS_NCOLS], nc = 0, f, c;
	unsigned want;

	if (!s || u->watching || !s->nregions || details_keep_nothing())
		return;
	want = wanted(u, d);
	if (d->keys_block && want == d->keys_cols)
		return; /* made for these columns */
	arrays_free(d);
	n = s->nregions;
	for (f = 0; f < VMS_NCOLS; f++)
		if (want & (1u << f))
			col[nc++] = f;
	/* out of memory: the sorts read the records, as before */
	d->keys_block = vms_big_malloc((size_t)nc * n * sizeof(uint32_t) + n);
	if (!d->keys_block)
		return;
	for (c = 0; c < nc; c++) {
		key[c] = d->fig_key[col[c]] = d->keys_block + (size_t)c * n;
		fig[c] = vms_columns[col[c]].region;
	}
	d->perm_of = (uint8_t *)(d->keys_block + (size_t)nc * n);
	/* one read of every record for all of them */
	for (i = 0; i < n; i++) {
		const struct vms_region *g = &s->regions[i];

		if (i + PREFETCH_RECORDS < n)
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
		d->perm_of[i] = (uint8_t)(g->perms & 15);
	}
	d->keys_cols = want;
	for (c = 0; c < nc; c++)
		if (odd[c] >= n / 2) { /* its room stays until made again */
			d->fig_key[col[c]] = NULL;
			d->fig_key_none[col[c]] = true;
			d->keys_cols &= ~(1u << col[c]);
		}
}

void details_keys_free(struct details *d)
{
	arrays_free(d);
	memset(d->fig_key_none, 0, sizeof(d->fig_key_none));
}
