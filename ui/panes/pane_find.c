/* pane_find.c — find in the details pane: every node of the view in the
 * order shown, collapsed ones too (an allocation's regions, sections,
 * stack parts, segments; thread ids and names, arenas and runtimes
 * through the regions' details). A hit's allocation and region are opened
 * and the cursor moves to it; the status line says which match of how
 * many.
 *
 * Contract: reads u->find; changes the expansion, the cursor and the
 * status message only: the nodes are matched as they are walked in the
 * order shown, none kept; in a sorted view (its top rows in address
 * order kept) the regions are matched first in address order, into two
 * bits a region, freed before it returns. A region of an allocation is
 * a match only for what its allocation row does not already show (so
 * /libc stops once per library, not once per mapping).
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

/* What a first pass over the view's regions in address order found
 * (view_hits): for each region (a bit by its index), whether it matches
 * (region_matches) and whether one of its children does, and those
 * children, in address and child order. Made when the view is sorted
 * other than by address (its top rows in address order kept: the
 * sort's, details_addr_tops): the pass in the order shown then reads
 * these, not the regions' records, which in that order it read at
 * random (bench_find.py: a million regions of random sizes sorted by
 * Size, 124 ms a find so against 13 in address order, 2026-11-29). */
struct hits {
	uint64_t *self, *kids; /* bitmaps, a bit a region */
	struct kid {
		uint32_t region;
		uint16_t child;
	} * kid;
	size_t nkid, cap;
};

static bool bit(const uint64_t *b, uint32_t i)
{
	return b[i / 64] >> (i % 64) & 1;
}

static void set_bit(uint64_t *b, uint32_t i)
{
	b[i / 64] |= (uint64_t)1 << (i % 64);
}

static void hits_free(struct hits *h)
{
	free(h->self);
	free(h->kids);
	free(h->kid);
	memset(h, 0, sizeof(*h));
}

/* Region i's matches into h; false: out of memory. */
static bool region_hits(const struct ui *u, struct matcher *m, struct hits *h,
			uint32_t i)
{
	const struct vms_region *g = &u->snap->regions[i];
	uint32_t c;

	if (region_matches(m, g))
		set_bit(h->self, i);
	for (c = 0; c < g->nchildren && c < UINT16_MAX; c++) {
		if (!contains_ci(g->children[c].name, m->needle))
			continue;
		if (h->nkid == h->cap) {
			size_t cap = h->cap ? 2 * h->cap : 256;
			struct kid *k = realloc(h->kid, cap * sizeof(*k));

			if (!k)
				return false;
			h->kid = k;
			h->cap = cap;
		}
		h->kid[h->nkid++] = (struct kid){ i, (uint16_t)c };
		set_bit(h->kids, i);
	}
	return true;
}

/* The first pass: every region of the view's top rows (tops, n of
 * them, in address order). false: not made (out of memory; h freed). */
static bool view_hits(const struct ui *u, struct matcher *m, struct hits *h,
		      const struct drow *tops, size_t n)
{
	const struct details *d = det_of(u);
	size_t words = u->snap->nregions / 64 + 1, i;
	uint32_t k, first, cnt;

	memset(h, 0, sizeof(*h));
	h->self = calloc(words, sizeof(*h->self));
	h->kids = calloc(words, sizeof(*h->kids));
	if (!h->self || !h->kids)
		goto fail;
	for (i = 0; i < n; i++) {
		if (tops[i].kind == DROW_ALLOC) {
			first = d->allocs[tops[i].idx].first;
			cnt = d->allocs[tops[i].idx].n;
		} else if (tops[i].kind == DROW_REGION) {
			first = tops[i].idx;
			cnt = 1;
		} else {
			continue; /* a gap, a removed group: matched as met */
		}
		for (k = 0; k < cnt; k++)
			if (!region_hits(u, m, h, first + k))
				goto fail;
	}
	return true;
fail:
	hits_free(h);
	return false;
}

/* Whether node r (not a child, a gap or a removed group) matches. */
static bool region_node_matches(const struct ui *u, const struct drow *r,
				struct matcher *m, const struct hits *h)
{
	struct viewer *v = viewer_of(u);
	uint32_t g =
		r->kind == DROW_ALLOC ? v->det.allocs[r->idx].main : r->idx;

	if (r->kind == DROW_REGION && r->depth) {
		const struct vms_alloc *a = details_alloc_of(&v->det, r->idx);

		/* what its allocation row shows already */
		if (a && (h ? bit(h->self, a->main)
			    : region_matches(m, &u->snap->regions[a->main])))
			return false;
	}
	return h ? bit(h->self, g) : region_matches(m, &u->snap->regions[g]);
}

static bool node_matches(const struct ui *u, const struct drow *r,
			 struct matcher *m, const struct hits *h)
{
	struct viewer *v = viewer_of(u);

	if (r->kind == DROW_GAP)
		return contains_ci("free", m->needle);
	if (r->kind == DROW_REMOVED)
		return contains_ci("removed", m->needle) ||
		       region_matches(m, changes_removed_region(&v->det, r));
	if (r->kind == DROW_CHILD)
		return contains_ci(
			u->snap->regions[r->idx].children[r->child].name,
			m->needle);
	return region_node_matches(u, r, m, h);
}

/* One pass over every node of the view in the order it is shown, as if
 * every row were open (the top rows in their sort order, each followed
 * by all it holds): where the cursor's node is and the matches around
 * it. Nothing is kept but these. With the first pass's hits, a child
 * that does not match is not met at all (but for the cursor's). */
struct pass {
	const struct ui *u;
	struct matcher *m;
	const struct hits *h; /* NULL: each node matched as it comes */
	struct drow cur; /* the cursor's row */
	bool have_cur, found; /* found: the cursor's node passed */
	bool met; /* a node was met (the first node is a top row) */
	size_t nhits, lt_pos;
	bool at_pos; /* the cursor's node matches */
	/* matches: the first two, the last before the cursor's node, the
	 * first after it, the last */
	struct drow first, second, before, after, last;
	bool has_second, has_before, has_after;
	bool first_at0; /* the first match is the first node */
};

/* Node r met, matching or not. */
static void meet(struct pass *p, struct drow r, bool match)
{
	bool first_node = !p->met, is_cur = false;

	p->met = true;
	if (p->have_cur && !p->found && details_same_node(&r, &p->cur)) {
		p->found = true;
		is_cur = true;
	}
	if (!match)
		return;
	if (!p->nhits) {
		p->first = r;
		p->first_at0 = first_node;
	} else if (!p->has_second) {
		p->second = r;
		p->has_second = true;
	}
	p->nhits++;
	if (!p->found) { /* before the cursor's node */
		p->lt_pos++;
		p->before = r;
		p->has_before = true;
	} else if (is_cur) {
		p->at_pos = true;
	} else if (!p->has_after) {
		p->after = r;
		p->has_after = true;
	}
	p->last = r;
}

/* The first of the first pass's matching children of region g. */
static size_t kids_of(const struct hits *h, uint32_t g)
{
	size_t lo = 0, hi = h->nkid;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->kid[mid].region < g)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Region g's children at depth: each, or (with the hits) those that
 * match and the cursor's among them. */
static void meet_children(struct pass *p, uint32_t g, uint8_t depth)
{
	const struct vms_region *r = &p->u->snap->regions[g];
	bool cur_here = p->have_cur && !p->found && p->cur.kind == DROW_CHILD &&
			p->cur.idx == g;
	size_t k;
	uint32_t c;

	if (!p->h) {
		for (c = 0; c < r->nchildren && c < UINT16_MAX; c++) {
			struct drow n = { g, DROW_CHILD, depth, (uint16_t)c };

			meet(p, n, node_matches(p->u, &n, p->m, NULL));
		}
		return;
	}
	if (!bit(p->h->kids, g) && !cur_here)
		return;
	for (k = kids_of(p->h, g); k < p->h->nkid && p->h->kid[k].region == g;
	     k++) {
		uint16_t c16 = p->h->kid[k].child;

		if (cur_here && p->cur.child < c16) {
			meet(p, p->cur, false);
			cur_here = false;
		}
		meet(p, (struct drow){ g, DROW_CHILD, depth, c16 }, true);
	}
	if (cur_here && !p->found)
		meet(p, p->cur, false);
}

/* A top row and everything under it, as details_emit gives them with
 * every row open. */
static void meet_top(struct pass *p, const struct drow *top)
{
	const struct details *d = det_of(p->u);
	uint32_t first = top->idx, n = 1, k;
	uint8_t depth = 0;

	meet(p, *top, node_matches(p->u, top, p->m, p->h));
	if (top->kind == DROW_GAP || top->kind == DROW_CHILD ||
	    top->kind == DROW_REMOVED)
		return;
	if (top->kind == DROW_ALLOC) {
		first = d->allocs[top->idx].first;
		n = d->allocs[top->idx].n;
		depth = 1;
	}
	for (k = 0; k < n; k++) {
		if (depth) {
			struct drow r = { first + k, DROW_REGION, depth, 0 };

			meet(p, r, region_node_matches(p->u, &r, p->m, p->h));
		}
		meet_children(p, first + k, (uint8_t)(depth + 1));
	}
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
	struct hits h;
	struct pass p;
	const struct drow *at;
	size_t i, le_pos, hitno, nat;

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
	/* sorted: the regions matched first in address order (in that
	 * order the walk below reads them in order anyway) */
	at = d->sort != DS_ADDRESS || d->reverse ? details_addr_tops(d, &nat)
						 : NULL;
	if (at && view_hits(u, &m, &h, at, nat))
		p.h = &h;
	/* one pass in the order shown; the hit is the first match after
	 * the cursor's node (before it: backwards), round the end if none,
	 * and its number is counted in the order shown */
	for (i = 0; i < d->nrows; i++)
		if (d->rows[i].depth == 0)
			meet_top(&p, &d->rows[i]);
	if (p.h)
		hits_free(&h);
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
