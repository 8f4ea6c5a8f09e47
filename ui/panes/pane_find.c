/* pane_find.c — find in the details pane: every node of the view in the
 * order shown, collapsed ones too (an allocation's regions, sections,
 * stack parts, segments; thread ids and names, arenas and runtimes
 * through the regions' details). A hit's allocation and region are opened
 * and the cursor moves to it; the status line says which match of how
 * many.
 *
 * Contract: reads u->find; changes the expansion, the cursor and the
 * status message only: the nodes are matched as they are walked, in one
 * pass, none kept. A region of an allocation is a match only for what
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

/* One pass over every node of the view in the order it is shown, as if
 * every row were open (the top rows in their sort order, each followed
 * by all it holds), each node matched as it comes: where the cursor's
 * node is (pos, its index) and the matches around it. Nothing is kept
 * but these: the nodes are neither listed nor read twice. */
struct pass {
	const struct ui *u;
	struct matcher *m;
	struct drow cur; /* the cursor's row */
	bool have_cur, found; /* found: the cursor's node passed */
	size_t i, pos, nhits, lt_pos;
	bool at_pos; /* the cursor's node matches */
	/* matches: the first two, the last before the cursor's node, the
	 * first after it, the last */
	struct drow first, second, before, after, last;
	bool has_second, has_before, has_after;
	bool first_at0; /* the first match is the first node */
};

static int visit(void *ctx, struct drow r)
{
	struct pass *p = ctx;
	size_t i = p->i++;

	if (p->have_cur && !p->found && details_same_node(&r, &p->cur)) {
		p->found = true;
		p->pos = i;
	}
	if (!node_matches(p->u, &r, p->m))
		return 0;
	if (!p->nhits) {
		p->first = r;
		p->first_at0 = i == 0;
	} else if (!p->has_second) {
		p->second = r;
		p->has_second = true;
	}
	p->nhits++;
	if (!p->found) { /* before the cursor's node */
		p->lt_pos++;
		p->before = r;
		p->has_before = true;
	} else if (i == p->pos) {
		p->at_pos = true;
	} else if (!p->has_after) {
		p->after = r;
		p->has_after = true;
	}
	p->last = r;
	return 0;
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
	struct drow hit = { 0, 0, 0, 0 };
	struct matcher m;
	struct pass p;
	size_t i, le_pos, hitno;

	for (i = 0; u->find[i]; i++)
		needle[i] = (char)(u->find[i] >= 'A' && u->find[i] <= 'Z'
					   ? u->find[i] + 32
					   : u->find[i]);
	needle[i] = '\0';
	if (!*needle || !d->nrows)
		return 0;
	matcher_init(&m, needle);
	memset(&p, 0, sizeof(p));
	p.u = u;
	p.m = &m;
	p.have_cur = d->lv.cur < d->nrows;
	if (p.have_cur)
		p.cur = d->rows[d->lv.cur];
	/* one pass in the order shown; the hit is the first match after
	 * the cursor's node (before it: backwards), round the end if none,
	 * and its number is counted in the order shown */
	for (i = 0; i < d->nrows; i++)
		if (d->rows[i].depth == 0)
			details_emit(u, &d->rows[i], true, visit, &p);
	if (!p.nhits) {
		ui_message(u, true, "not found: %s", u->find);
		return UI_DRAW;
	}
	if (!p.found) {
		/* no cursor's node: as if on the first node (index 0) */
		p.at_pos = p.first_at0;
		p.lt_pos = 0;
		p.has_before = false;
		p.has_after = p.at_pos ? p.has_second : true;
		p.after = p.at_pos ? p.second : p.first;
	}
	le_pos = p.lt_pos + p.at_pos;
	if (!backwards) {
		hit = p.has_after ? p.after : p.first;
		hitno = p.has_after ? le_pos + 1 : 1;
	} else {
		hit = p.has_before ? p.before : p.last;
		hitno = p.has_before ? p.lt_pos : p.nhits;
	}
	show_node(u, &hit);
	viewer_of(u)->focus = 1;
	ui_message(u, false, "match %zu of %zu for \"%s\" (n next, N previous)",
		   hitno, p.nhits, u->find);
	return UI_DRAW;
}
