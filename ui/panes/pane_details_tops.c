/* pane_details_tops.c — the details' top rows (an allocation, a region
 * alone, a free gap, a removed group) for the view, filter and free gaps
 * now, in address order, then sorted: d->tops, what details_rebuild()
 * makes the rows from.
 *
 * Contract: details_make_tops() makes d->tops only when what they were
 * made for changed (tops_for); the other view's ('a') are kept in
 * d->alt_tops and swapped back in while they are current. The address
 * order is kept for the next sort by another column (addr_tops, made
 * while nobody types by details_tops_warm(), not under --watch), and
 * with the other view's. All are let go by details_tops_stale() and
 * details_free(). Reads the snapshot's regions (by binary search
 * only, for the removed groups), the allocations, the gaps and the types.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "panes/panes.h"

/* The top row of region i in the view (its allocation, or itself). */
static inline struct drow top_of(const struct details *d, uint32_t i)
{
	if (!d->by_region && d->alloc_of) {
		uint32_t a = d->alloc_of[i];

		if (d->allocs[a].n > 1)
			return (struct drow){ a, DROW_ALLOC, 0, 0 };
	}
	return (struct drow){ i, DROW_REGION, 0, 0 };
}

/* Each region's type, for the filter: made once, then the filter reads
 * a byte a region instead of a region (176 bytes) a row. The low four
 * bits are the region's type; the high four, one more than the type of
 * its typed parts (model/parts.h) where that is another, else 0: a
 * region shows under its parts' type too (a Python region holding
 * obmalloc arenas under Managed Heap). */
static const uint8_t *types(struct details *d, const struct vms_snapshot *s)
{
	size_t i;

	if (d->type_of || !(d->type_of = malloc(s->nregions + 1)))
		return d->type_of;
	for (i = 0; i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];
		uint32_t k;

		d->type_of[i] = r->type;
		for (k = 0; k < r->nchildren && r->children[k].part; k++)
			if (r->children[k].part->type != r->type) {
				d->type_of[i] |=
					(uint8_t)((r->children[k].part->type +
						   1)
						  << 4);
				break;
			}
	}
	return d->type_of;
}

/* Whether a region's types() byte is of type t. */
static bool type_is(uint8_t b, int t)
{
	return (b & 15) == t || (b >> 4) == t + 1;
}

/* The index of the first region that starts above a (s->nregions if
 * none): where a removed group that starts at a comes among them. */
static size_t regions_above(const struct vms_snapshot *s, uint64_t a)
{
	size_t i = vms_snapshot_index_from(s, a);

	return i + (i < s->nregions && s->regions[i].start <= a);
}

/* The region index before which removed group ri comes, SIZE_MAX past
 * the last. */
static size_t removed_at(const struct details *d, const struct vms_snapshot *s,
			 size_t ri)
{
	return ri < d->nremoved ? regions_above(s, d->removed[ri]->start)
				: SIZE_MAX;
}

/* The top rows in address order, filtered: allocations (or regions) and
 * the gaps asked for. Reads the allocations and gaps, and a filter the
 * regions' types (types()), not the regions themselves: where a removed
 * group goes among the regions is found by a binary search (a removed
 * group near the top of the address space had each region's start read
 * on the way, a pass over a million records every sort). */
static size_t tops_of(struct ui *u, struct drow *tops)
{
	struct details *d = det_of(u);
	const struct vms_snapshot *s = u->snap;
	const uint8_t *type = d->filter >= 0 ? types(d, s) : NULL;
	bool gaps =
		d->filter == VMS_T_FREE || (d->filter == -1 && d->show_free);
	size_t i = 0, gi = 0, n = 0, ri = 0, rat = removed_at(d, s, 0);

	if (d->filter == VMS_T_FREE) {
		for (gi = 0; gi < d->ngaps; gi++)
			tops[n++] =
				(struct drow){ (uint32_t)gi, DROW_GAP, 0, 0 };
		return n;
	}
	for (;;) {
		struct drow t;
		uint32_t g;

		/* the gaps before region i, and what the snapshot compared
		 * with had there (removed), merged by their starts: a
		 * removed region may start before a gap that comes after a
		 * region now at its start */
		for (;;) {
			bool gap =
				gaps && gi < d->ngaps && d->gaps[gi].next <= i;
			bool rem = ri < d->nremoved && i >= rat;

			if (gap && (!rem || d->gaps[gi].start <=
						    d->removed[ri]->start)) {
				tops[n++] = (struct drow){ (uint32_t)gi++,
							   DROW_GAP, 0, 0 };
				continue;
			}
			if (!rem)
				break;
			if (d->filter == -1 ||
			    d->removed[ri]->type == d->filter)
				tops[n++] = (struct drow){ (uint32_t)ri,
							   DROW_REMOVED, 0, 0 };
			rat = removed_at(d, s, ++ri);
		}
		if (i >= s->nregions)
			break;
		t = top_of(d, (uint32_t)i);
		g = t.kind == DROW_ALLOC ? d->allocs[t.idx].main : t.idx;
		if (d->filter == -1 || (type ? type_is(type[g], d->filter)
					     : s->regions[g].type == d->filter))
			tops[n++] = t;
		i += t.kind == DROW_ALLOC ? d->allocs[t.idx].n : 1;
	}
	return n;
}

/* Whether d->addr_tops are of the view, filter and free gaps now. */
static bool addr_current(const struct details *d)
{
	return d->addr_for.valid && d->addr_for.filter == d->filter &&
	       d->addr_for.by_region == d->by_region &&
	       d->addr_for.show_free == d->show_free;
}

/* *rows (*have of them) room for cap rows: every region, gap and
 * removed group at most, sized once (populated: written through now,
 * not by a key); *valid false if they moved. false if there is no
 * memory for them. */
static bool rows_room(struct drow **rows, size_t *have, size_t cap, bool *valid)
{
	if (*rows && *have >= cap)
		return true;
	free(*rows); /* the removed rows came after */
	*rows = vms_big_malloc(cap * sizeof(**rows));
	*have = *rows ? cap : 0;
	*valid = false;
	if (*rows)
		vms_big_populate(*rows, cap * sizeof(**rows));
	return *rows != NULL;
}

static bool addr_room(struct details *d, size_t cap)
{
	return rows_room(&d->addr_tops, &d->addr_tops_cap, cap,
			 &d->addr_for.valid);
}

/* d->addr_tops hold n rows of the view, filter and free gaps now. */
static void addr_made(struct details *d, size_t n)
{
	d->naddr_tops = n;
	d->addr_for.filter = d->filter;
	d->addr_for.by_region = d->by_region;
	d->addr_for.show_free = d->show_free;
	d->addr_for.valid = true;
}

/* The top rows in address order, *n of them: what tops_of gave before
 * for the same view, filter and free gaps (d->addr_tops), or tops_of
 * into tops (room for every region, gap and removed group), then kept
 * when the rows are to be sorted (not for the address order, nor under
 * --watch, nor if there is no memory for it). */
static const struct drow *tops_in_address_order(struct ui *u, struct drow *tops,
						size_t *nout)
{
	struct details *d = det_of(u);
	size_t n;

	if (addr_current(d)) {
		*nout = d->naddr_tops;
		return d->addr_tops;
	}
	*nout = n = tops_of(u, tops);
	/* not under --watch: each tick's snapshot would let it go */
	if ((d->sort != DS_ADDRESS || d->reverse) && !u->watching &&
	    addr_room(d, d->tops_cap)) {
		memcpy(d->addr_tops, tops, n * sizeof(*tops));
		addr_made(d, n);
	}
	return tops;
}

const struct drow *details_addr_tops(const struct details *d, size_t *n)
{
	if (!d->addr_tops || !addr_current(d))
		return NULL;
	*n = d->naddr_tops;
	return d->addr_tops;
}

/* Whether top rows made for f are of the view, filter, gaps and sort
 * now. */
static bool made_for_now(const struct details *d, const struct dtops_for *f)
{
	return f->valid && f->filter == d->filter && f->sort == d->sort &&
	       f->by_region == d->by_region && f->show_free == d->show_free &&
	       f->reverse == d->reverse;
}

static bool tops_current(const struct details *d)
{
	return made_for_now(d, &d->tops_for);
}

/* a and b trade values */
#define SWAP(a, b)                                                             \
	do {                                                                   \
		__typeof__(a) swap_t_ = (a);                                   \
		(a) = (b);                                                     \
		(b) = swap_t_;                                                 \
	} while (0)

/* The top rows in address order and the other view's ('a') trade
 * places, each with what it was made for. */
static void swap_addr(struct details *d)
{
	SWAP(d->addr_tops, d->alt_addr_tops);
	SWAP(d->naddr_tops, d->nalt_addr_tops);
	SWAP(d->addr_tops_cap, d->alt_addr_tops_cap);
	SWAP(d->addr_for, d->alt_addr_for);
}

/* The top rows (sorted, and in address order) and the other view's
 * trade places, each with what it was made for. */
static void swap_alt(struct details *d)
{
	SWAP(d->tops, d->alt_tops);
	SWAP(d->ntops, d->nalt_tops);
	SWAP(d->tops_cap, d->alt_tops_cap);
	SWAP(d->tops_for, d->alt_tops_for);
	swap_addr(d);
}

/* The top rows in address order for the view now, made if not kept. */
static void warm_addr(struct ui *u)
{
	struct details *d = det_of(u);

	if (!addr_current(d) && addr_room(d, details_rows_max(u)))
		addr_made(d, tops_of(u, d->addr_tops));
}

void details_tops_warm(struct ui *u)
{
	struct details *d = det_of(u);

	if (!u->snap || u->watching)
		return;
	/* each region's type, for a first filter (Enter on a type): a
	 * byte a region, read from every record once */
	(void)types(d, u->snap);
	warm_addr(u);
	/* and the other view's ('a'), in its place: the first 'a' then
	 * sorts them or copies them, where walking every region again
	 * took 46 ms of a million (2026-11-29) */
	swap_addr(d);
	d->by_region = !d->by_region;
	warm_addr(u);
	d->by_region = !d->by_region;
	swap_addr(d);
	/* and room for its sorted rows: memory the kernel gives afresh
	 * took the first 'a' 26-55 ms of a million rows on this project's
	 * VM, 2-3 later */
	(void)rows_room(&d->alt_tops, &d->alt_tops_cap, details_rows_max(u),
			&d->alt_tops_for.valid);
}

/* The top rows for the view, filter, gaps and sort now, in d->tops;
 * false if out of memory for them (d->tops may then be gone). */
bool details_make_tops(struct ui *u)
{
	struct details *d = det_of(u);
	bool sort = d->sort != DS_ADDRESS || d->reverse, done;
	const struct drow *from;

	if (tops_current(d))
		return true;
	/* 'a' back: the other view's rows, if of the filter, gaps and sort
	 * now */
	if (made_for_now(d, &d->alt_tops_for)) {
		swap_alt(d);
		return true;
	}
	/* 'a': this view's rows kept for 'a' back, made anew in the other's
	 * place */
	if (d->tops_for.valid && d->tops_for.by_region != d->by_region)
		swap_alt(d);
	d->tops_for.valid = false;
	if (!rows_room(&d->tops, &d->tops_cap, details_rows_max(u),
		       &d->tops_for.valid))
		return false;
	from = tops_in_address_order(u, d->tops, &d->ntops);
	/* sorted straight from the address order kept, not a copy of it */
	done = sort && details_sort_tops(u, from, d->tops, d->ntops);
	if (!done && from != d->tops)
		memcpy(d->tops, from, d->ntops * sizeof(*d->tops));
	if (sort && !done)
		return true; /* out of memory: in address order, made again */
	d->tops_for.filter = d->filter;
	d->tops_for.sort = d->sort;
	d->tops_for.by_region = d->by_region;
	d->tops_for.show_free = d->show_free;
	d->tops_for.reverse = d->reverse;
	d->tops_for.valid = true;
	return true;
}
