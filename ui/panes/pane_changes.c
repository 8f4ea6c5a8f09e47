/* pane_changes.c — the changes in the main view (issue 31 item 3, VMMap's
 * Show Changes): the snapshot shown against the one before it (the
 * timeline's, or the one marked first there), matched as -d matches
 * (model/diff.h); each row of the details that changed says how, before
 * its Details: added, grown or shrunk (by how much), changed.
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
	v->chg_of = NULL;
	v->chg_valid = false;
	memset(&v->chg_count, 0, sizeof(v->chg_count));
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

void changes_update(struct ui *u, const struct vms_snapshot *old)
{
	struct viewer *v = viewer_of(u);
	const struct vms_snapshot *base = u->hist.mark[0];
	struct vms_error err = { 0 };
	size_t k, j;

	changes_free(u);
	if (!base || base == u->snap)
		base = old;
	if (!u->snap || u->pre || !base || base == u->snap || !kept(u, base) ||
	    !kept(u, u->snap) || base->proc.pid != u->snap->proc.pid)
		return;
	v->chg_of = calloc(u->snap->nregions ? u->snap->nregions : 1,
			   sizeof(v->chg_of[0]));
	if (!v->chg_of)
		return;
	if (vms_diff_make(base, u->snap, &v->chg, &err) < 0) {
		free(v->chg_of);
		v->chg_of = NULL;
		return;
	}
	v->chg_valid = true;
	for (k = 0; k < v->chg.n; k++) {
		const struct vms_diff_change *c = &v->chg.v[k];

		for (j = 0; j < c->b.n; j++)
			v->chg_of[c->b.idx[j]] = c;
	}
	memcpy(v->chg_count, v->chg.count, sizeof(v->chg_count));
}

/* A change's size, else its committed bytes, as diff.h grows them. */
static int64_t change_delta(const struct vms_diff_change *c)
{
	int64_t d = vms_diff_delta(c, VMS_COL_SIZE);

	return d ? d : vms_diff_delta(c, VMS_COL_COMMITTED);
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
	if (r->kind == DROW_ALLOC) {
		first = v->det.allocs[r->idx].first;
		n = v->det.allocs[r->idx].n;
	} else {
		first = r->idx;
		n = 1;
	}
	/* an allocation: each change among its regions once */
	for (i = first; i < first + n; i++) {
		const struct vms_diff_change *c = v->chg_of[i];

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
