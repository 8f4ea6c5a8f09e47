/* pane_details_sort.c — the order of the details' top rows: by a figure,
 * the type, Prot's letters, the address or the Details text, either way
 * (S), ties by address ascending.
 *
 * Contract: details_sort_tops() takes top rows in address order and
 * sorts them in place; it reads the snapshot and the allocations once,
 * a key per row, then sorts numbers (a stable LSD radix sort), in the
 * details' scratch buffer (details_scratch: no fresh pages a key).
 */
#include <stdlib.h>
#include <string.h>

#include "model/columns.h"
#include "panes/panes.h"

/* The figure column a sort is by, or -1 (address, type, Prot, Details). */
static int sort_figure(int sort)
{
	return sort >= DS_COL && sort - DS_COL < VMS_NCOLS ? sort - DS_COL : -1;
}

const char *dsort_name(int s)
{
	if (s >= DS_COL)
		return vms_config_name(s - DS_COL);
	return s == DS_ADDRESS ? "Address" : "Type";
}

const char *details_sort_arrow(const struct details *d)
{
	int f = sort_figure(d->sort);
	bool up = f < 0 || vms_column_has((enum vms_col)f, VMS_COLF_ASCENDING);

	return up != d->reverse ? "^" : "v";
}

void details_sort_defaults(struct details *d)
{
	size_t i;

	for (i = 0; i < sizeof(d->sorts) / sizeof(d->sorts[0]); i++) {
		d->sorts[i].sort = DS_ADDRESS;
		d->sorts[i].reverse = false;
	}
	/* the free list: the largest gap first (Size runs so) */
	d->sorts[1 + VMS_T_FREE].sort = DS_COL + VMS_COL_SIZE;
	d->sort = d->sorts[1 + d->filter].sort;
	d->reverse = d->sorts[1 + d->filter].reverse;
}

void details_sorts_from_config(struct details *d, const struct vms_config *c)
{
	int k;

	for (k = 0; k < VMS_CONFIG_LISTS; k++) {
		const struct vms_config_sort *so = &c->sort[k];

		if (!so->set)
			continue;
		d->sorts[k].sort = so->by == VMS_SORT_ADDRESS ? DS_ADDRESS
				   : so->by == VMS_SORT_TYPE  ? DS_TYPE
							      : DS_COL + so->by;
		d->sorts[k].reverse = so->reverse;
	}
	d->sort = d->sorts[1 + d->filter].sort;
	d->reverse = d->sorts[1 + d->filter].reverse;
}

void details_sorts_to_config(const struct details *d, struct vms_config *c)
{
	int k;

	for (k = 0; k < VMS_CONFIG_LISTS; k++) {
		bool shown = k == 1 + d->filter;
		int sort = shown ? d->sort : d->sorts[k].sort;
		bool rev = shown ? d->reverse : d->sorts[k].reverse;
		struct vms_config_sort *so = &c->sort[k];

		/* a list the user never sorted stays unnamed */
		if (!so->set &&
		    sort == (k == 1 + VMS_T_FREE ? DS_COL + VMS_COL_SIZE
						 : DS_ADDRESS) &&
		    !rev)
			continue;
		so->set = true;
		so->by = sort == DS_ADDRESS ? VMS_SORT_ADDRESS
			 : sort == DS_TYPE  ? VMS_SORT_TYPE
					    : sort - DS_COL;
		so->reverse = rev;
	}
}

void details_set_filter(struct details *d, int filter)
{
	d->sorts[1 + d->filter].sort = d->sort;
	d->sorts[1 + d->filter].reverse = d->reverse;
	d->filter = filter;
	d->sort = d->sorts[1 + filter].sort;
	d->reverse = d->sorts[1 + filter].reverse;
}

int details_sorts(const struct ui *u, int *out)
{
	const struct vms_config *c = &u->conf;
	int n = 0, k;

	out[n++] = DS_ADDRESS;
	for (k = 0; k < c->n; k++)
		if (c->shown[c->order[k]])
			out[n++] = DS_COL + c->order[k];
	out[n++] = DS_TYPE;
	return n;
}

/* The text a row sorts by in the Details column. */
static const char *row_text(const struct ui *u, const struct drow *r)
{
	const struct vms_region *g =
		r->kind == DROW_REMOVED
			? changes_removed_region(&viewer_of(u)->det, r)
			: details_node_region(u, r);

	return g ? details_region_text(g) : "";
}

/* The number a top row sorts by: its figure, type, Prot's letters
 * (big-endian, strcmp's order) or start; read once before the sort, so
 * the sort touches neither the snapshot nor the allocations. */
static uint64_t sort_key_of(const struct ui *u, const struct drow *r)
{
	struct viewer *v = viewer_of(u);
	int sort = v->det.sort, f = sort_figure(sort);
	uint64_t start, end, k = 0;

	if (f >= 0)
		return details_figure(u, r, (enum vms_col)f);
	if (sort == DS_TYPE) {
		const struct vms_region *g = details_node_region(u, r);

		if (r->kind == DROW_REMOVED)
			return v->det.removed[r->idx]->type;
		return g ? g->type : VMS_T_FREE;
	}
	if (sort == DS_COL + VMS_DCOL_PROT) {
		char b[8] = { 0 };
		int i;

		details_row_perms(u, r, b);
		for (i = 0; i < 8; i++)
			k = k << 8 | (unsigned char)b[i];
		return k;
	}
	details_row_span(u, r, &start, &end);
	return start;
}

/* A row and its figure, for the radix sort. */
struct rkey {
	uint64_t k;
	struct drow r;
};

/* Stable LSD radix sort of a by k into a, tmp as large: a byte a pass,
 * the eight counts made in one read of the keys, a pass whose byte is
 * the same in every key skipped (a figure's top bytes mostly are). O(n):
 * a million rows sort in some four passes over 16 MB, where qsort's
 * twenty million comparisons took 0.5 s. */
static void radix_sort(struct rkey *a, struct rkey *tmp, size_t n)
{
	size_t count[8][256];
	struct rkey *from = a, *to = tmp;
	unsigned byte, b;
	size_t i;

	if (n < 2)
		return;
	memset(count, 0, sizeof(count));
	for (i = 0; i < n; i++)
		for (byte = 0; byte < 8; byte++)
			count[byte][(a[i].k >> (8 * byte)) & 0xff]++;
	for (byte = 0; byte < 8; byte++) {
		size_t *c = count[byte], at = 0;
		unsigned shift = 8 * byte;

		if (c[(a[0].k >> shift) & 0xff] == n)
			continue;
		for (b = 0; b < 256; b++) {
			size_t k = c[b];

			c[b] = at;
			at += k;
		}
		for (i = 0; i < n; i++)
			to[c[(from[i].k >> shift) & 0xff]++] = from[i];
		from = to;
		to = from == a ? tmp : a;
	}
	if (from != a)
		memcpy(a, from, n * sizeof(*a));
}

/* qsort_r: distinct texts (indexes into ctx, an array of them) by strcmp */
static int cmp_texts(const void *pa, const void *pb, void *ctx)
{
	const char *const *t = ctx;

	return strcmp(t[*(const uint32_t *)pa], t[*(const uint32_t *)pb]);
}

/* The rank of each top row's Details text among the distinct texts
 * (equal texts, equal ranks) into rk[i].k, rk[i].r the row: the
 * pointers radix-sorted to find the distinct ones, only those compared
 * by strcmp. A million rows name a few thousand texts (paths are
 * interned), so some twenty million strcmp calls became a few thousand.
 * tmp holds 16 bytes a row, ids 4. */
static void text_ranks(const struct ui *u, const struct drow *tops, size_t n,
		       struct rkey *rk, struct rkey *tmp, uint32_t *ids)
{
	const char **dt = (const char **)(void *)tmp; /* 8n bytes */
	uint32_t *order = (uint32_t *)(void *)(dt + n), *rank = order + n;
	size_t i, nd = 0;
	uint32_t r = 0;

	for (i = 0; i < n; i++) {
		rk[i].k = (uint64_t)(uintptr_t)row_text(u, &tops[i]);
		rk[i].r = (struct drow){ (uint32_t)i, 0, 0, 0 };
	}
	radix_sort(rk, tmp, n);
	for (i = 0; i < n; i++) {
		if (i == 0 || rk[i].k != rk[i - 1].k) {
			dt[nd] = (const char *)(uintptr_t)rk[i].k;
			order[nd] = (uint32_t)nd;
			nd++;
		}
		ids[rk[i].r.idx] = (uint32_t)(nd - 1);
	}
	qsort_r(order, nd, sizeof(*order), cmp_texts, dt);
	for (i = 0; i < nd; i++) {
		if (i && strcmp(dt[order[i]], dt[order[i - 1]]) != 0)
			r++;
		rank[order[i]] = r;
	}
	for (i = 0; i < n; i++) {
		rk[i].k = rank[ids[i]];
		rk[i].r = tops[i];
	}
}

/* The scratch a sort of every row asks for (details_sort_tops). */
static size_t sort_scratch_bytes(size_t n)
{
	return n * (2 * sizeof(struct rkey) + sizeof(uint32_t));
}

void details_sort_warm(struct ui *u)
{
	struct details *d = det_of(u);

	/* with --watch, each tick's snapshot frees the rows and their
	 * scratch: not taken again for a sort nobody may ask for */
	if (u->snap && !u->watching)
		(void)details_scratch(
			d, sort_scratch_bytes(u->snap->nregions + d->ngaps + 1),
			false);
}

/* Sorts the top rows (in address order) by the details' sort column:
 * figures largest first unless the column says otherwise, S reverses;
 * ties by address. Every column sorts by a number, the Details text by
 * its rank (text_ranks), with a stable radix sort. false: out of memory
 * (left in address order). */
bool details_sort_tops(struct ui *u, struct drow *tops, size_t n)
{
	struct details *d = det_of(u);
	int f = sort_figure(d->sort);
	bool down = d->reverse;
	struct rkey *rk, *tmp;
	uint32_t *ids;
	size_t i;

	if (f >= 0 && !vms_column_has((enum vms_col)f, VMS_COLF_ASCENDING))
		down = !down;
	if (n < 2)
		return true;
	rk = details_scratch(d, sort_scratch_bytes(n), false);
	if (!rk)
		return false;
	tmp = rk + n;
	ids = (uint32_t *)(void *)(tmp + n);
	if (f < 0 && d->sort != DS_TYPE && d->sort != DS_ADDRESS &&
	    d->sort != DS_COL + VMS_DCOL_PROT) {
		text_ranks(u, tops, n, rk, tmp, ids);
	} else {
		for (i = 0; i < n; i++) {
			rk[i].k = sort_key_of(u, &tops[i]);
			rk[i].r = tops[i];
		}
	}
	if (down)
		for (i = 0; i < n; i++)
			rk[i].k = ~rk[i].k;
	radix_sort(rk, tmp, n);
	for (i = 0; i < n; i++)
		tops[i] = rk[i].r;
	return true;
}
