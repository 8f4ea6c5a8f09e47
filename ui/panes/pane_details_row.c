/* pane_details_row.c — what a row of the details stands for: its region
 * (an allocation's main one), the addresses it spans, its figures, text
 * and permissions; and the details' scratch buffer.
 *
 * Contract: reads the rows' snapshot and allocations, changes nothing but
 * the scratch buffer. The bottom of the details' files: the rows, their
 * order (pane_details_sort.c), drawing and find build on it.
 */
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "export/export_util.h"
#include "model/columns.h"
#include "panes/panes.h"

void *details_scratch(struct details *d, size_t bytes, bool keep)
{
	void *p;

	bool ranks = keep && d->text_rank;

	if (bytes <= d->scratch_cap)
		return d->scratch;
	/* the ranks at its start (pane_details_sort.c): moved with it */
	d->text_rank = NULL;
	if (keep) {
		p = vms_big_realloc(d->scratch, bytes);
	} else { /* nothing to copy */
		free(d->scratch);
		d->scratch_cap = 0;
		p = vms_big_malloc(bytes);
	}
	if (!p) {
		if (!keep)
			d->scratch = NULL;
		return NULL;
	}
	if (ranks)
		d->text_rank = p;
	/* written through by the sort that asked for it */
	vms_big_populate((char *)p + d->scratch_cap, bytes - d->scratch_cap);
	d->scratch = p;
	d->scratch_cap = bytes;
	return p;
}

const struct vms_alloc *details_alloc_of(const struct details *d,
					 uint32_t region)
{
	return d->alloc_of ? &d->allocs[d->alloc_of[region]] : NULL;
}

void details_span_in(const struct details *d, const struct vms_snapshot *s,
		     const struct drow *r, uint64_t *a, uint64_t *b)
{
	if (r->kind == DROW_GAP) {
		*a = d->gaps[r->idx].start;
		*b = d->gaps[r->idx].end;
	} else if (r->kind == DROW_REMOVED) {
		*a = d->removed[r->idx]->start;
		*b = d->removed[r->idx]->end;
	} else if (r->kind == DROW_ALLOC) {
		const struct vms_alloc *al = &d->allocs[r->idx];

		*a = s->regions[al->first].start;
		*b = s->regions[al->first + al->n - 1].end;
	} else {
		*a = s->regions[r->idx].start;
		*b = s->regions[r->idx].end;
	}
}

void details_row_span(const struct ui *u, const struct drow *r, uint64_t *a,
		      uint64_t *b)
{
	const struct details *d = det_of(u);

	details_span_in(d, u->snap, r, a, b);
}

const char *details_region_text(const struct vms_region *r)
{
	if (r->detail && *r->detail)
		return r->detail;
	return r->path ? r->path : "";
}

/* The region that stands for a row (an allocation's main one), or NULL
 * for a gap or a removed row (no region of u->snap). */
const struct vms_region *details_node_region(const struct ui *u,
					     const struct drow *r)
{
	const struct details *d = det_of(u);

	if (r->kind == DROW_GAP || r->kind == DROW_REMOVED)
		return NULL;
	if (r->kind == DROW_ALLOC)
		return &u->snap->regions[d->allocs[r->idx].main];
	return &u->snap->regions[r->idx];
}

const struct vms_region *details_region(const struct ui *u, size_t row)
{
	const struct details *d = det_of(u);

	return row < d->nrows ? details_node_region(u, &d->rows[row]) : NULL;
}

uint64_t details_figure(const struct ui *u, const struct drow *r,
			enum vms_col c)
{
	const struct details *d = det_of(u);

	if (r->kind == DROW_REMOVED) /* what it had */
		return d->removed[r->idx]->a.v[c];
	if (c == VMS_COL_BLOCKS) /* the regions a row stands for */
		return r->kind == DROW_ALLOC   ? d->allocs[r->idx].n
		       : r->kind == DROW_CHILD ? 0
					       : 1;
	if (r->kind == DROW_ALLOC)
		return vms_alloc_figure(u->snap, &d->allocs[r->idx], c);
	if (r->kind == DROW_GAP)
		return c == VMS_COL_SIZE
			       ? d->gaps[r->idx].end - d->gaps[r->idx].start
			       : 0;
	return vms_column_region(&u->snap->regions[r->idx], c);
}

const char *details_row_perms(const struct ui *u, const struct drow *r,
			      char *buf)
{
	const struct details *d = det_of(u);
	const struct vms_region *g = details_node_region(u, r);
	const struct vms_alloc *a;
	unsigned p = 0;
	uint32_t k;

	if (r->kind == DROW_REMOVED)
		return export_perms(changes_removed_region(d, r), buf);
	if (!g) {
		buf[0] = '\0';
		return buf;
	}
	if (r->kind != DROW_ALLOC)
		return export_perms(g, buf);
	/* every permission one of its regions has ("r-xp" and "rw-p" read
	 * "rwxp"), shared or private as its main */
	a = &d->allocs[r->idx];
	for (k = 0; k < a->n; k++)
		p |= u->snap->regions[a->first + k].perms;
	buf[0] = p & VMS_PERM_R ? 'r' : '-';
	buf[1] = p & VMS_PERM_W ? 'w' : '-';
	buf[2] = p & VMS_PERM_X ? 'x' : '-';
	buf[3] = g->perms & VMS_PERM_SHARED ? 's' : 'p';
	buf[4] = '\0';
	return buf;
}

bool details_same_node(const struct drow *a, const struct drow *b)
{
	return a->kind == b->kind && a->idx == b->idx &&
	       (a->kind != DROW_CHILD || a->child == b->child);
}
