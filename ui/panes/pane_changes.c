/* pane_changes.c — the changes in the main view (issue 31 item 3, VMMap's
 * Show Changes): the snapshot shown against the one before it (the
 * timeline's, or the one marked first there), matched as -d matches
 * (model/diff.h); each row of the details that changed says how, before
 * its Details: added, grown or shrunk (by how much), changed; each type
 * row of the summary a change touched is marked (+ grown, - shrunk, ~
 * changed as much as it grew); D shows, in place of every figure, how
 * much it moved since (VMMap's Show Changes with the deltas), and the
 * setup's Change beside each figure (changes_beside): a group
 * of regions the diff matched is counted on its first region (so an
 * allocation's, and the Total row's, add up).
 *
 * Contract: the diff is made when a snapshot replaces another of the same
 * process (the viewer's snapshot_changed), only against a snapshot that
 * stays in the history (ui.c frees the others after the screens are
 * told); it points into both, and is made again, or let go, at every
 * change of u->snap. Nothing is drawn here: the details ask a row's text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/draw.h"
#include "panes/panes.h"

void changes_free(struct ui *u)
{
	struct viewer *v = viewer_of(u);

	if (v->chg_valid)
		vms_diff_fini(&v->chg);
	free(v->chg_of);
	free(v->chg_removed);
	v->chg_of = NULL;
	v->chg_removed = NULL;
	v->det.removed = NULL;
	v->det.nremoved = 0;
	v->chg_valid = false;
	memset(&v->chg_count, 0, sizeof(v->chg_count));
}

void changes_hide_removed(struct ui *u)
{
	viewer_of(u)->det.nremoved = 0;
}

const struct vms_diff_change *changes_removed(const struct details *d,
					      const struct drow *r)
{
	return d->removed[r->idx];
}

const struct vms_region *changes_removed_region(const struct details *d,
						const struct drow *r)
{
	return &d->removed_from->regions[d->removed[r->idx]->a.idx[0]];
}

static int by_start(const void *x, const void *y)
{
	const struct vms_diff_change *a =
		*(const struct vms_diff_change *const *)x;
	const struct vms_diff_change *b =
		*(const struct vms_diff_change *const *)y;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* Whether s is in the history (alive until it leaves it). */
static bool kept(const struct ui *u, const struct vms_snapshot *s)
{
	size_t i;

	for (i = 0; s && i < u->hist.n; i++)
		if (u->hist.s[i] == s)
			return true;
	return false;
}

/* What the changes are against: the snapshot marked A, else old. */
static const struct vms_snapshot *base_of(const struct ui *u,
					  const struct vms_snapshot *old)
{
	const struct vms_snapshot *base = u->hist.mark[0];

	return !base || base == u->snap ? old : base;
}

bool changes_base_moved(const struct ui *u)
{
	const struct viewer *v = viewer_of(u);

	return base_of(u, v->chg_prev) != v->chg_base;
}

void changes_update(struct ui *u, const struct vms_snapshot *old)
{
	struct viewer *v = viewer_of(u);
	const struct vms_snapshot *base = base_of(u, old);
	struct vms_error err = { 0 };
	size_t k, j;

	changes_free(u);
	v->chg_prev = old;
	v->chg_base = base;
	if (!u->snap || u->pre || !base || base == u->snap || !kept(u, base) ||
	    !kept(u, u->snap) || base->proc.pid != u->snap->proc.pid)
		return;
	v->chg_of = malloc((u->snap->nregions ? u->snap->nregions : 1) *
			   sizeof(v->chg_of[0]));
	if (!v->chg_of)
		return;
	memset(v->chg_of, 0xff, u->snap->nregions * sizeof(v->chg_of[0]));
	if (vms_diff_make(base, u->snap, &v->chg, &err) < 0) {
		free(v->chg_of);
		v->chg_of = NULL;
		return;
	}
	v->chg_valid = true;
	if (v->chg.n + v->chg.nsame >= CHG_NONE) { /* not as a uint32_t */
		changes_free(u);
		return;
	}
	/* the groups that did not change too (their figures still move:
	 * the deltas of D), then the changes */
	for (k = 0; k < v->chg.nsame; k++) {
		const struct vms_diff_same *s = &v->chg.same[k];

		for (j = 0; j < s->nb; j++)
			v->chg_of[v->chg.idx[s->first + s->na + j]] =
				(uint32_t)(v->chg.n + k);
	}
	memset(v->chg_type, 0, sizeof(v->chg_type));
	for (k = 0; k < v->chg.n; k++) {
		const struct vms_diff_change *c = &v->chg.v[k];

		for (j = 0; j < c->b.n; j++)
			v->chg_of[c->b.idx[j]] = (uint32_t)k;
		/* the types it touches, on both sides */
		for (j = 0; j < c->a.n; j++)
			v->chg_type[base->regions[c->a.idx[j]].type] = 1;
		for (j = 0; j < c->b.n; j++)
			v->chg_type[u->snap->regions[c->b.idx[j]].type] = 1;
	}
	memcpy(v->chg_count, v->chg.count, sizeof(v->chg_count));
	/* the removed, in address order: rows of the details */
	v->chg_removed = malloc((v->chg.count[VMS_CH_REMOVED] + 1) *
				sizeof(*v->chg_removed));
	if (!v->chg_removed)
		return;
	for (k = 0, j = 0; k < v->chg.n; k++)
		if (v->chg.v[k].change == VMS_CH_REMOVED)
			v->chg_removed[j++] = &v->chg.v[k];
	qsort(v->chg_removed, j, sizeof(*v->chg_removed), by_start);
	v->det.removed = v->chg_removed;
	v->det.removed_from = base;
	v->det.nremoved = j;
}

/* Region i of u->snap's change, or NULL (none, or a group the diff
 * found the same). */
static const struct vms_diff_change *change_of(const struct viewer *v,
					       uint32_t i)
{
	return v->chg_of[i] < v->chg.n ? &v->chg.v[v->chg_of[i]] : NULL;
}

/* A change's size, else its committed bytes where both sides know them
 * (a core's anonymous memory's are not), as diff.h grows them. */
static int64_t change_delta(const struct vms_diff_change *c)
{
	int64_t d = vms_diff_delta(c, VMS_COL_SIZE);

	return d || !vms_diff_known(c, VMS_COL_COMMITTED)
		       ? d
		       : vms_diff_delta(c, VMS_COL_COMMITTED);
}

/* The regions of u->snap a details row stands for: an allocation's, or
 * the row's own. */
static void row_regions(const struct viewer *v, const struct drow *r,
			uint32_t *first, uint32_t *n)
{
	if (r->kind == DROW_ALLOC) {
		*first = v->det.allocs[r->idx].first;
		*n = v->det.allocs[r->idx].n;
	} else {
		*first = r->idx;
		*n = 1;
	}
}

int changes_row(const struct ui *u, const struct drow *r, int64_t *delta)
{
	const struct viewer *v = viewer_of(u);
	const struct vms_diff_change *seen[8];
	size_t ns = 0, k;
	uint32_t first, n, i;
	bool all_added = true, any = false;
	int64_t d = 0;

	*delta = 0;
	if (!v->chg_valid || r->kind == DROW_GAP || r->kind == DROW_CHILD)
		return -1;
	if (r->kind == DROW_REMOVED) {
		*delta = change_delta(changes_removed(&v->det, r));
		return VMS_CH_REMOVED;
	}
	row_regions(v, r, &first, &n);
	/* an allocation: each change among its regions once */
	for (i = first; i < first + n; i++) {
		const struct vms_diff_change *c = change_of(v, i);

		if (!c) {
			all_added = false;
			continue;
		}
		any = true;
		for (k = 0; k < ns && seen[k] != c; k++)
			;
		if (k < ns)
			continue;
		if (ns < sizeof(seen) / sizeof(seen[0]))
			seen[ns++] = c;
		if (c->change != VMS_CH_ADDED)
			all_added = false;
		d += change_delta(c);
	}
	if (!any)
		return -1;
	*delta = d;
	if (all_added)
		return VMS_CH_ADDED;
	if (d > 0)
		return VMS_CH_GROWN;
	if (d < 0)
		return VMS_CH_SHRUNK;
	return VMS_CH_CHANGED;
}

const char *changes_row_text(const struct ui *u, const struct drow *r,
			     char *buf, size_t n)
{
	int64_t d;
	int ch = changes_row(u, r, &d);
	char sz[24];

	if (ch < 0)
		return NULL;
	if (ch == VMS_CH_GROWN || ch == VMS_CH_SHRUNK)
		snprintf(buf, n, "[%s %s] ", vms_change_names[ch],
			 fmt_size_delta(d, sz, sizeof(sz)));
	else
		snprintf(buf, n, "[%s] ", vms_change_names[ch]);
	return buf;
}

/* The summary row's types (a type; Total: all of them; Free: none). */
static bool row_touched(const struct viewer *v, int row)
{
	int t;

	if (row == SUM_FREE)
		return false;
	if (row != SUM_TOTAL)
		return row >= 0 && row < VMS_NTYPES && v->chg_type[row];
	for (t = 0; t < VMS_NTYPES; t++)
		if (v->chg_type[t])
			return true;
	return false;
}

static const struct vms_totals *row_totals(const struct vms_snapshot *s,
					   int row)
{
	if (row == SUM_TOTAL)
		return &s->total;
	if (row == SUM_FREE)
		return &s->types[VMS_T_FREE];
	return &s->types[row];
}

bool changes_type_delta(const struct ui *u, int row, enum vms_col c,
			int64_t *delta)
{
	const struct viewer *v = viewer_of(u);

	*delta = 0;
	if (!v->chg_valid)
		return false;
	*delta = (int64_t)(vms_column_type(row_totals(u->snap, row), c) -
			   vms_column_type(row_totals(v->chg.a, row), c));
	return true;
}

bool changes_type_known(const struct ui *u, int row, enum vms_col c)
{
	const struct viewer *v = viewer_of(u);

	return !v->chg_valid ||
	       vms_row_known(v->chg.a, row_totals(v->chg.a, row), NULL, c,
			     row == VMS_T_PAGE_TABLE);
}

char changes_type_mark(const struct ui *u, int row)
{
	const struct viewer *v = viewer_of(u);
	int64_t d;

	if (!v->chg_valid || !row_touched(v, row))
		return 0;
	changes_type_delta(u, row, VMS_COL_SIZE, &d);
	if (!d && changes_type_known(u, row, VMS_COL_COMMITTED))
		changes_type_delta(u, row, VMS_COL_COMMITTED, &d);
	return d > 0 ? '+' : d < 0 ? '-' : '~';
}

bool changes_figure_delta(const struct ui *u, const struct drow *r,
			  enum vms_col col, int64_t *delta, bool *known)
{
	const struct viewer *v = viewer_of(u);
	uint32_t first, n, i;
	int64_t d = 0;

	*delta = 0;
	if (known)
		*known = true;
	if (!v->chg_valid || r->kind == DROW_GAP || r->kind == DROW_CHILD)
		return false;
	if (r->kind == DROW_REMOVED) {
		*delta = vms_diff_delta(changes_removed(&v->det, r), col);
		if (known)
			*known = vms_diff_known(changes_removed(&v->det, r),
						col);
		return true;
	}
	row_regions(v, r, &first, &n);
	/* each group on its first region in u->snap: counted once */
	for (i = first; i < first + n; i++) {
		const struct vms_diff_change *c = change_of(v, i);
		struct vms_diff_change same;
		size_t k;

		if (c && c->b.n && c->b.idx[0] == i) {
			d += vms_diff_delta(c, col);
			if (known && !vms_diff_known(c, col))
				*known = false;
		}
		if (c || v->chg_of[i] == CHG_NONE)
			continue;
		k = v->chg_of[i] - v->chg.n; /* a group that did not change */
		if (v->chg.idx[v->chg.same[k].first + v->chg.same[k].na] != i)
			continue;
		vms_diff_same_change(&v->chg, k, &same);
		d += vms_diff_delta(&same, col);
		if (known && !vms_diff_known(&same, col))
			*known = false;
	}
	*delta = d;
	return true;
}

bool changes_beside(const struct ui *u)
{
	const struct viewer *v = viewer_of(u);

	return u->conf.shown[VMS_DCOL_CHANGE] && v->chg_valid && !v->chg_show;
}

int changes_toggle(struct ui *u)
{
	struct viewer *v = viewer_of(u);

	if (!v->chg_show && !v->chg_valid) {
		ui_message(u, false,
			   "no snapshot to compare with: r takes a new one "
			   "(the changes are against the one before, or the "
			   "one marked A in the timeline, T)");
		return UI_DRAW;
	}
	v->chg_show = !v->chg_show;
	return UI_DRAW;
}

const char *changes_delta_text(int64_t d, bool count, char *buf, size_t n)
{
	if (!d)
		snprintf(buf, n, "%s", "");
	else if (count)
		snprintf(buf, n, "%+lld", (long long)d);
	else
		fmt_size_delta(d, buf, n);
	return buf;
}
