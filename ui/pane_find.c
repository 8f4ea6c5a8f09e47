/* pane_find.c — find in the details pane: every node of the view in the
 * order shown, collapsed ones too (an allocation's regions, sections,
 * stack parts, segments; thread ids and names, arenas and runtimes
 * through the regions' details). A hit's allocation and region are opened
 * and the cursor moves to it; the status line says which match of how
 * many.
 *
 * Contract: reads u->find; changes the expansion, the cursor and the
 * status message only. A region of an allocation is a match only for what
 * its allocation row does not already show (so /libc stops once per
 * library, not once per mapping).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "panes.h"

static bool region_matches(const struct vms_region *g, const char *needle)
{
	char hex[32];

	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)g->start);
	return contains_ci(g->path, needle) || contains_ci(g->detail, needle) ||
	       contains_ci(vms_type_info[g->type].label, needle) ||
	       contains_ci(hex, needle);
}

static bool node_matches(const struct ui *u, const struct drow *r,
			 const char *needle)
{
	const struct vms_region *g;

	if (r->kind == DROW_GAP)
		return contains_ci("free", needle);
	if (r->kind == DROW_ALLOC)
		return region_matches(details_node_region(u, r), needle);
	g = &u->snap->regions[r->idx];
	if (r->kind == DROW_CHILD)
		return contains_ci(g->children[r->child].name, needle);
	if (r->depth) {
		const struct vms_alloc *a = details_alloc_of(&u->det, r->idx);

		if (a && region_matches(&u->snap->regions[a->main], needle))
			return false;
	}
	return region_matches(g, needle);
}

struct order {
	struct drow *v;
	size_t n, cap;
};

static int add(void *ctx, struct drow r)
{
	struct order *o = ctx;

	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 1024;
		struct drow *m = realloc(o->v, cap * sizeof(*m));

		if (!m)
			return -1;
		o->v = m;
		o->cap = cap;
	}
	o->v[o->n++] = r;
	return 0;
}

/* Every node of the view in the order it is shown, as if every row were
 * open: the top rows in their sort order, each followed by all it holds.
 * Malloc'd into *out; the count. */
static size_t full_order(const struct ui *u, struct drow **out)
{
	const struct details *d = &u->det;
	struct order o = { NULL, 0, 0 };
	size_t i;

	for (i = 0; i < d->nrows; i++)
		if (d->rows[i].depth == 0)
			details_emit(u, &d->rows[i], true, add, &o);
	*out = o.v;
	return o.n;
}

/* Makes node r a row (what holds it opened) and puts the cursor on it. */
static void show_node(struct ui *u, const struct drow *r)
{
	struct details *d = &u->det;
	size_t i;

	details_open_path(u, r);
	details_rebuild(u);
	for (i = 0; i < d->nrows; i++)
		if (details_same_node(&d->rows[i], r)) {
			d->cur = i;
			break;
		}
	cursor_show(d->cur, &d->top, d->nrows, d->h);
}

int details_find(struct ui *u, bool backwards)
{
	struct details *d = &u->det;
	char needle[sizeof(u->find)];
	struct drow *v, hit = { 0, 0, 0, 0 };
	size_t i, k, n, pos = 0, nhits = 0, hitno = 0;
	bool found = false;

	for (i = 0; u->find[i]; i++)
		needle[i] = (char)(u->find[i] >= 'A' && u->find[i] <= 'Z'
					   ? u->find[i] + 32
					   : u->find[i]);
	needle[i] = '\0';
	if (!*needle || !d->nrows)
		return 0;
	n = full_order(u, &v);
	for (i = 0; i < n; i++)
		if (d->cur < d->nrows &&
		    details_same_node(&v[i], &d->rows[d->cur]))
			pos = i;
	/* the first match after the cursor (before it: backwards), and how
	 * many there are, collapsed rows included */
	for (k = 1; k <= n; k++) {
		i = backwards ? (pos + n - k) % n : (pos + k) % n;
		if (!node_matches(u, &v[i], needle))
			continue;
		nhits++;
		if (!found) {
			found = true;
			hit = v[i];
		}
	}
	if (found) /* its number, counted in the order shown */
		for (i = 0; i < n; i++) {
			if (node_matches(u, &v[i], needle))
				hitno++;
			if (details_same_node(&v[i], &hit))
				break;
		}
	free(v);
	if (!found) {
		ui_message(u, true, "not found: %s", u->find);
		return UI_DRAW;
	}
	show_node(u, &hit);
	u->focus = 1;
	ui_message(u, false, "match %zu of %zu for \"%s\" (n next, N previous)",
		   hitno, nhits, u->find);
	return UI_DRAW;
}
