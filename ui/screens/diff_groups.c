/* diff_groups.c — the diff screen's rows by allocation (diff_groups.h). */
#include "screens/diff_groups.h"

#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"

void dgroups_free(struct dgroups *g)
{
	free(g->g);
	free(g->members);
	free(g->same);
	memset(g, 0, sizeof(*g));
}

/* Each region's allocation in s, or NULL (out of memory). */
static uint32_t *alloc_index(const struct vms_snapshot *s,
			     struct vms_alloc **allocs, size_t *n)
{
	uint32_t *of = malloc((s->nregions + 1) * sizeof(*of));
	size_t i;
	uint32_t k;

	*allocs = NULL;
	*n = 0;
	if (!of || vms_allocs(s, allocs, n) < 0) {
		free(of);
		return NULL;
	}
	for (i = 0; i < *n; i++)
		for (k = 0; k < (*allocs)[i].n; k++)
			of[(*allocs)[i].first + k] = (uint32_t)i;
	return of;
}

/* A member's key: its allocation in B (side 1) or A (side 0). */
struct keyed {
	const struct vms_diff_change *c;
	uint32_t side, alloc;
	uint64_t start;
};

/* By allocation (its side, its index), then address. */
static int by_key(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;

	if (a->side != b->side)
		return a->side < b->side ? -1 : 1;
	if (a->alloc != b->alloc)
		return a->alloc < b->alloc ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (int)a->c->change - (int)b->c->change;
}

/* Rows in address order (ctx: the members). */
static int row_by_start(const void *x, const void *y, void *ctx)
{
	const struct dgroup *a = x, *b = y;
	const struct vms_diff_change *const *m = ctx;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (int)m[a->first]->change - (int)m[b->first]->change;
}

/* The row's change from its members' (diff_groups.h). */
static uint8_t row_change(const struct dgroups *out, const struct dgroup *g)
{
	bool all_added = true, all_removed = true, any = false;
	int64_t d;
	size_t k;

	for (k = 0; k < g->n; k++) {
		int ch = out->members[g->first + k]->change;

		all_added &= ch == VMS_CH_ADDED;
		all_removed &= ch == VMS_CH_REMOVED;
		any |= ch != VMS_NCHANGES;
	}
	if (!any)
		return VMS_NCHANGES;
	if (all_added)
		return VMS_CH_ADDED;
	if (all_removed)
		return VMS_CH_REMOVED;
	d = (int64_t)(g->b[VMS_COL_SIZE] - g->a[VMS_COL_SIZE]);
	if (!d && vms_mask_has(g->known, VMS_COL_COMMITTED)) /* (a core's
							       * not) */
		d = (int64_t)(g->b[VMS_COL_COMMITTED] -
			      g->a[VMS_COL_COMMITTED]);
	return d > 0 ? VMS_CH_GROWN : d < 0 ? VMS_CH_SHRUNK : VMS_CH_CHANGED;
}

static const char *region_text(const struct vms_region *r)
{
	if (r->detail && *r->detail)
		return r->detail;
	return r->path ? r->path : "";
}

int dgroups_make(const struct vms_diff *d, bool by_region, struct dgroups *out)
{
	size_t total = d->n + d->nsame, i, k, na = 0, nb = 0;
	struct keyed *ks = malloc((total ? total : 1) * sizeof(*ks));
	struct vms_alloc *aa = NULL, *ab = NULL;
	uint32_t *of_a = NULL, *of_b = NULL;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->members = malloc((total ? total : 1) * sizeof(*out->members));
	out->g = calloc(total ? total : 1, sizeof(*out->g));
	out->same = malloc((d->nsame ? d->nsame : 1) * sizeof(*out->same));
	if (!ks || !out->members || !out->g || !out->same)
		goto done;
	for (i = 0; i < d->nsame; i++)
		vms_diff_same_change(d, i, &out->same[i]);
	if (!by_region) {
		of_a = alloc_index(d->a, &aa, &na);
		of_b = alloc_index(d->b, &ab, &nb);
		if (!of_a || !of_b)
			goto done;
	}
	for (i = 0; i < total; i++) {
		const struct vms_diff_change *c =
			i < d->n ? &d->v[i] : &out->same[i - d->n];

		ks[i].c = c;
		ks[i].side = c->b.n ? 1 : 0;
		ks[i].alloc = by_region ? (uint32_t)i
			      : c->b.n	? of_b[c->b.idx[0]]
					: of_a[c->a.idx[0]];
		ks[i].start = c->start;
	}
	qsort(ks, total, sizeof(*ks), by_key);
	/* a run of one key is a row (by_region: every key is one group) */
	for (i = 0; i < total; i = k) {
		struct dgroup *g = &out->g[out->n++];
		const struct vms_diff_change *c0 = ks[i].c;
		const struct vms_snapshot *s = c0->b.n ? d->b : d->a;
		const struct vms_alloc *al = by_region ? NULL
					     : c0->b.n ? &ab[ks[i].alloc]
						       : &aa[ks[i].alloc];
		const struct vms_region *m =
			al ? &s->regions[al->main]
			   : &s->regions[c0->b.n ? c0->b.idx[0] : c0->a.idx[0]];

		g->first = out->nmembers;
		g->known_a = g->known_b = VMS_COLS_ALL;
		for (k = i; k < total && ks[k].side == ks[i].side &&
			    ks[k].alloc == ks[i].alloc;
		     k++) {
			size_t col;

			out->members[out->nmembers++] = ks[k].c;
			g->known_a &= ks[k].c->a.known;
			g->known_b &= ks[k].c->b.known;
			for (col = 0; col < VMS_NCOLS; col++) {
				g->a[col] += ks[k].c->a.v[col];
				g->b[col] += ks[k].c->b.v[col];
			}
		}
		g->known = g->known_a & g->known_b;
		g->n = out->nmembers - g->first;
		g->start = c0->start;
		g->type = al ? m->type : c0->type;
		g->text = region_text(m);
		if (!al && c0->path && !(m->detail && *m->detail))
			g->text = c0->path;
		g->change = row_change(out, g);
	}
	qsort_r(out->g, out->n, sizeof(*out->g), row_by_start,
		(void *)out->members);
	rc = 0;
done:
	free(ks);
	free(aa);
	free(ab);
	free(of_a);
	free(of_b);
	if (rc < 0)
		dgroups_free(out);
	return rc;
}
