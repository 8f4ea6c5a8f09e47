/* pane_find.c — find in the details pane: every node of the view in the
 * order shown, collapsed ones too (an allocation's regions, sections,
 * stack parts, segments; thread ids and names, arenas and runtimes
 * through the regions' details). A hit's allocation and region are opened
 * and the cursor moves to it; the status line says which match of how
 * many.
 *
 * Contract: reads u->find; changes the expansion, the cursor and the
 * status message only (and grows the details' scratch buffer, where the
 * nodes are put in order). A region of an allocation is a match only for what
 * its allocation row does not already show (so /libc stops once per
 * library, not once per mapping).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/draw.h"
#include "panes/panes.h"

/* A needle and what is already known of the texts most rows share:
 * paths are interned and details repeat, so a million rows are matched
 * against a few thousand texts, each once. */
struct matcher {
	const char *needle; /* lower case */
	bool hex; /* could match an address (hex digits, 16 at most) */
	bool label[VMS_NTYPES]; /* whether each type's label matches */
	const char *path, *detail; /* the last ones looked at */
	bool path_hit, detail_hit;
};

static void matcher_init(struct matcher *m, const char *needle)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	m->needle = needle;
	m->hex = strlen(needle) <= 16 &&
		 strspn(needle, "0123456789abcdef") == strlen(needle);
	for (i = 0; i < VMS_NTYPES; i++)
		m->label[i] = contains_ci(vms_type_info[i].label, needle);
	m->path = m->detail = (const char *)m; /* no text's address */
}

static bool region_matches(struct matcher *m, const struct vms_region *g)
{
	char hex[32];

	if (g->path != m->path) {
		m->path = g->path;
		m->path_hit = contains_ci(g->path, m->needle);
	}
	if (g->detail != m->detail) {
		m->detail = g->detail;
		m->detail_hit = contains_ci(g->detail, m->needle);
	}
	if (m->path_hit || m->detail_hit || m->label[g->type])
		return true;
	if (!m->hex)
		return false;
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)g->start);
	return contains_ci(hex, m->needle);
}

static bool node_matches(const struct ui *u, const struct drow *r,
			 struct matcher *m)
{
	struct viewer *v = viewer_of(u);
	const struct vms_region *g;

	if (r->kind == DROW_GAP)
		return contains_ci("free", m->needle);
	if (r->kind == DROW_REMOVED)
		return contains_ci("removed", m->needle) ||
		       region_matches(m, changes_removed_region(&v->det, r));
	if (r->kind == DROW_ALLOC)
		return region_matches(m, details_node_region(u, r));
	g = &u->snap->regions[r->idx];
	if (r->kind == DROW_CHILD)
		return contains_ci(g->children[r->child].name, m->needle);
	if (r->depth) {
		const struct vms_alloc *a = details_alloc_of(&v->det, r->idx);

		if (a && region_matches(m, &u->snap->regions[a->main]))
			return false;
	}
	return region_matches(m, g);
}

/* The nodes in the order shown, in the details' scratch buffer (find
 * runs again with each n or N: no fresh pages each time). */
struct order {
	struct details *d;
	struct drow *v;
	size_t n, cap;
	bool failed;
};

static int add(void *ctx, struct drow r)
{
	struct order *o = ctx;

	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 4096;
		struct drow *m = details_scratch(o->d, cap * sizeof(*m), true);

		if (!m) {
			o->failed = true;
			return -1;
		}
		o->v = m;
		o->cap = cap;
	}
	o->v[o->n++] = r;
	return 0;
}

/* Every node of the view in the order it is shown, as if every row were
 * open: the top rows in their sort order, each followed by all it holds.
 * In the details' scratch buffer (*out), valid until it is asked for
 * again; the count, 0 if out of memory. */
static size_t full_order(struct ui *u, struct drow **out)
{
	struct details *d = det_of(u);
	struct order o = { d, d->scratch, 0,
			   d->scratch_cap / sizeof(struct drow), false };
	size_t i;

	for (i = 0; i < d->nrows && !o.failed; i++)
		if (d->rows[i].depth == 0)
			details_emit(u, &d->rows[i], true, add, &o);
	*out = o.v;
	return o.failed ? 0 : o.n;
}

/* Makes node r a row (what holds it opened) and puts the cursor on it. */
static void show_node(struct ui *u, const struct drow *r)
{
	struct details *d = det_of(u);
	size_t i;

	details_open_path(u, r);
	details_rebuild(u);
	for (i = 0; i < d->nrows; i++)
		if (details_same_node(&d->rows[i], r)) {
			d->lv.cur = i;
			break;
		}
	listview_show(&d->lv, d->nrows);
}

int details_find(struct ui *u, bool backwards)
{
	struct details *d = det_of(u);
	char needle[sizeof(u->find)];
	struct drow *v = NULL, hit = { 0, 0, 0, 0 };
	struct matcher m;
	/* matches: all, up to and before the cursor's node; the first
	 * after it and overall, the last before it and overall */
	size_t i, n, pos = 0, nhits = 0, le_pos = 0, lt_pos = 0, hitno;
	size_t after = SIZE_MAX, first = SIZE_MAX, before = SIZE_MAX,
	       last = SIZE_MAX, at;

	for (i = 0; u->find[i]; i++)
		needle[i] = (char)(u->find[i] >= 'A' && u->find[i] <= 'Z'
					   ? u->find[i] + 32
					   : u->find[i]);
	needle[i] = '\0';
	if (!*needle || !d->nrows)
		return 0;
	n = full_order(u, &v);
	if (!n) {
		ui_message(u, true, "%s", "out of memory: find stopped");
		return UI_DRAW;
	}
	for (i = 0; i < n; i++)
		if (d->lv.cur < d->nrows &&
		    details_same_node(&v[i], &d->rows[d->lv.cur]))
			pos = i;
	/* one pass in the order shown; the hit is the first match after
	 * the cursor (before it: backwards), round the end if none, and
	 * its number is counted in the order shown */
	matcher_init(&m, needle);
	for (i = 0; i < n; i++) {
		if (!node_matches(u, &v[i], &m))
			continue;
		nhits++;
		le_pos += i <= pos;
		lt_pos += i < pos;
		if (first == SIZE_MAX)
			first = i;
		if (i > pos && after == SIZE_MAX)
			after = i;
		if (i < pos)
			before = i;
		last = i;
	}
	if (!nhits) {
		ui_message(u, true, "not found: %s", u->find);
		return UI_DRAW;
	}
	if (!backwards) {
		at = after != SIZE_MAX ? after : first;
		hitno = after != SIZE_MAX ? le_pos + 1 : 1;
	} else {
		at = before != SIZE_MAX ? before : last;
		hitno = before != SIZE_MAX ? lt_pos : nhits;
	}
	hit = v[at];
	show_node(u, &hit);
	viewer_of(u)->focus = 1;
	ui_message(u, false, "match %zu of %zu for \"%s\" (n next, N previous)",
		   hitno, nhits, u->find);
	return UI_DRAW;
}
