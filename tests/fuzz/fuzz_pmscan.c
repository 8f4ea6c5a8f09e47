/* fuzz_pmscan.c — libFuzzer harness for the fast freeze's parsers
 * (pmscan.h, fastfreeze.h, smaps.h's smaps_same_layout): the input is cut
 * into regions (from its first bytes: a count, then sizes and gaps) and
 * runs of pages (the rest, as the kernel's struct page_region, any order,
 * any category), added in pieces of any length; each region's Rss plus
 * Swap must stay within its size; each region then reconciled with what
 * was added (its smaps counters made from the input too): the split must
 * add up to Rss and Rss and Swap be the scan's. The input as text is also
 * compared, as maps text, with the regions.
 *
 *   make fuzz [FUZZ_SECONDS=60]
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linux/fastfreeze.h"
#include "linux/pmscan.h"
#include "linux/smaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NREG 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vms_region r[NREG];
	struct pmscan_fig f[NREG];
	struct pmscan_cursor cur = { 0, 0 };
	struct pmscan_how how;
	const uint8_t *p = data;
	size_t n, i, nruns, left = size, piece;
	uint64_t at = 0x10000;
	struct pmscan_run *runs;

	if (size < 2)
		return 0;
	n = p[0] % NREG;
	piece = 1 + p[1] % 8;
	how.guard = p[1] & 16;
	how.swap_on = p[1] & 32;
	p += 2;
	left -= 2;
	memset(r, 0, sizeof(r));
	memset(f, 0, sizeof(f));
	for (i = 0; i < n && left >= 2; i++) {
		at += (uint64_t)p[0] << 12; /* a gap */
		r[i].start = at;
		at += ((uint64_t)p[1] + 1) << 12;
		r[i].end = at;
		r[i].inode = p[0] & 1;
		p += 2;
		left -= 2;
	}
	n = i;
	nruns = left / sizeof(*runs);
	runs = malloc((nruns ? nruns : 1) * sizeof(*runs));
	if (!runs)
		return 0;
	memcpy(runs, p, nruns * sizeof(*runs));
	for (i = 0; i < nruns; i += piece)
		pmscan_add(r, n, f, &cur, runs + i,
			   nruns - i < piece ? nruns - i : piece, &how);
	for (i = 0; i < n; i++) {
		struct vms_counters *c = &r[i].c;
		uint64_t size_i = r[i].end - r[i].start;

		if (f[i].rss > size_i || f[i].swap > size_i ||
		    f[i].rss + f[i].swap > size_i)
			abort();
		/* smaps's figures, from the input: a split that adds up */
		c->rss = (size_i >> 1) & ~(uint64_t)4095;
		c->private_clean = c->rss / 4;
		c->shared_dirty = c->rss / 8;
		c->private_dirty = c->rss - c->private_clean - c->shared_dirty;
		c->pss = c->rss - c->shared_dirty / 2;
		c->swap = (uint64_t)(data[i % size] & 3) << 12;
		c->swap_pss = c->swap;
		c->locked = data[i % size] & 4 ? c->rss : 0;
		fastfreeze_reconcile(&r[i], &f[i]);
		if (c->rss != f[i].rss ||
		    c->private_clean + c->private_dirty + c->shared_clean +
				    c->shared_dirty !=
			    c->rss ||
		    c->pss > c->rss || c->locked > c->rss ||
		    (!r[i].inode && c->swap != f[i].swap))
			abort();
	}
	smaps_same_layout(r, n, (const char *)data, size);
	free(runs);
	return 0;
}
