/* pane_find.c — find in the details pane: every node of the view in the
 * order shown, collapsed ones too (an allocation's regions, sections,
 * stack parts, segments; thread ids and names, arenas and runtimes
 * through the regions' details). A hit's allocation and region are opened
 * and the cursor moves to it; the status line says which match of how
 * many.
 *
 * Contract: reads u->find; changes the expansion, the cursor and the
 * status message only. Two passes: every region matched first in address
 * order (from the classes kept, pane_find_classes.c, where they are),
 * into bits a region and an allocation, freed before it returns; then
 * the top rows in the order shown, where only those holding a match (and
 * the cursor's) are walked node by node as if open, none kept. A region
 * of an allocation is a match only for what its allocation row does not
 * already show (so /libc stops once per library, not once per mapping).
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
	size_t len;
	bool hex; /* could match an address (hex digits, 16 at most) */
	uint64_t hex_value, hex_mask; /* its digits' value; as many ones */
	bool label[VMS_NTYPES]; /* whether each type's label matches */
	const char *path, *detail; /* the last ones looked at */
	bool path_hit, detail_hit;
};

static void matcher_init(struct matcher *m, const char *needle)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	m->needle = needle;
	m->len = strlen(needle);
	m->hex = m->len <= 16 && strspn(needle, "0123456789abcdef") == m->len;
	if (m->hex && m->len) {
		m->hex_value = strtoull(needle, NULL, 16);
		m->hex_mask = ~(uint64_t)0 >> (64 - 4 * m->len);
	}
	for (i = 0; i < VMS_NTYPES; i++)
		m->label[i] = contains_ci(vms_type_info[i].label, needle);
	m->path = m->detail = (const char *)m; /* no text's address */
}

/* Whether the address's 16 hex digits ("%016llx") hold the needle
 * (m->hex): its digits as a number, compared with each run of as many
 * digits of the address (not snprintf and a search: a find in hex digits
 * of a million regions took 248 ms so, 2026-11-30). */
static bool hex_matches(const struct matcher *m, uint64_t addr)
{
	unsigned sh;

	for (sh = 0; sh + 4 * m->len <= 64; sh += 4)
		if ((addr >> sh & m->hex_mask) == m->hex_value)
			return true;
	return false;
}

static bool region_matches(struct matcher *m, const struct vms_region *g)
{
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
	return m->hex && hex_matches(m, g->start);
}

/* What a first pass over every region found (first_pass): for each
 * region (a bit by its index), whether it matches (region_matches),
 * whether one of its children does, and those children, in address and
 * child order; and for each allocation, how many of its nodes match. The pass in the order shown then walks only the
 * top rows that hold a match (and the cursor's), where walking every
 * node of a million read each one's record, at random when sorted
 * (bench_find.py: 124 ms a find sorted by Size, 2026-11-29; 23 with the
 * hits, still 48% of it the walk, 2026-11-30). */
struct hits {
	uint64_t *self, *kids, *any; /* bitmaps */
	/* per allocation, how many of its nodes match (as meet_top meets
	 * them), up to UINT8_MAX: that many or more, counted again from its
	 * regions where needed; NULL without d->alloc_of */
	uint8_t *alloc_n;
	struct kid {
		uint32_t region;
		uint16_t child;
	} * kid;
	size_t nkid, cap;
	bool gap; /* whether a free gap matches */
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
	free(h->any);
	free(h->alloc_n);
	free(h->kid);
	memset(h, 0, sizeof(*h));
}

/* Region i's matching children into h; false: out of memory. */
static bool kid_hits(const struct ui *u, const struct matcher *m,
		     struct hits *h, uint32_t i)
{
	const struct vms_region *g = &u->snap->regions[i];
	uint32_t c;

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

/* How many of region g's children match (the first pass's). */
static uint32_t kids_count(const struct hits *h, uint32_t g)
{
	size_t k, n = 0;

	if (!bit(h->kids, g))
		return 0;
	for (k = kids_of(h, g); k < h->nkid && h->kid[k].region == g; k++)
		n++;
	return (uint32_t)n;
}

/* What each class of find_classes holds: 1 a match, 2 children. */
static uint8_t *class_hits(const struct details *d, struct matcher *m)
{
	uint8_t *ch = malloc(d->nfind_classes + 1);
	size_t c;

	for (c = 0; ch && c < d->nfind_classes; c++) {
		const struct find_class *k = &d->find_classes[c];

		ch[c] = (uint8_t)((contains_ci(k->path, m->needle) ||
				   contains_ci(k->detail, m->needle) ||
				   m->label[k->type]) |
				  (k->kids ? 2 : 0));
	}
	return ch;
}

/* The first pass, over every region in address order: from the classes
 * kept (pane_find_classes.c) where they are, else from the records.
 * false: out of memory (h freed). */
static bool first_pass(const struct ui *u, struct matcher *m, struct hits *h)
{
	const struct details *d = det_of(u);
	const struct vms_snapshot *s = u->snap;
	size_t words = s->nregions / 64 + 1, i, w;
	uint8_t *ch = d->find_cls ? class_hits(d, m) : NULL;

	memset(h, 0, sizeof(*h));
	h->gap = contains_ci("free", m->needle);
	h->self = calloc(words, sizeof(*h->self));
	h->kids = calloc(words, sizeof(*h->kids));
	h->any = calloc(words, sizeof(*h->any));
	if (!h->self || !h->kids || !h->any || (d->find_cls && !ch))
		goto fail;
	/* a word of bits at a time, each written once */
	for (w = 0; w < words; w++) {
		size_t end =
			w * 64 + 64 < s->nregions ? w * 64 + 64 : s->nregions;
		uint64_t self = 0;

		for (i = w * 64; i < end; i++) {
			uint16_t c = ch ? d->find_cls[i] : FIND_CLASS_RECORD;
			bool hit, kids;

			if (c == FIND_CLASS_RECORD) {
				hit = region_matches(m, &s->regions[i]);
				kids = s->regions[i].nchildren > 0;
			} else {
				hit = (ch[c] & 1) ||
				      (m->hex &&
				       hex_matches(m, s->regions[i].start));
				kids = ch[c] & 2;
			}
			self |= (uint64_t)hit << (i % 64);
			if (kids && !kid_hits(u, m, h, (uint32_t)i))
				goto fail;
		}
		h->self[w] = self;
		h->any[w] = self | h->kids[w];
	}
	free(ch);
	ch = NULL;
	/* the allocations' matches: from the regions that hold one, in
	 * address order, as their allocations are */
	if (!d->alloc_of || d->by_region)
		return true; /* counted from each allocation's regions; or
			      * no allocation rows */
	h->alloc_n = calloc(d->nallocs + 1, sizeof(*h->alloc_n));
	if (!h->alloc_n)
		goto fail;
	for (w = 0; w < words; w++) {
		uint64_t b = h->any[w];

		while (b) {
			uint32_t r = (uint32_t)(w * 64) +
				     (uint32_t)__builtin_ctzll(b);
			uint32_t ai = d->alloc_of[r], main = d->allocs[ai].main;
			/* the main region's match is its allocation row's; a
			 * region's is its own only where that row has none */
			uint32_t n = (r == main || !bit(h->self, main)) &&
				     bit(h->self, r);

			n += h->alloc_n[ai];
			if (h->kids[w] >> (r % 64) & 1)
				n += kids_count(h, r);
			h->alloc_n[ai] =
				(uint8_t)(n < UINT8_MAX ? n : UINT8_MAX);
			b &= b - 1;
		}
	}
	return true;
fail:
	free(ch);
	hits_free(h);
	return false;
}

/* Whether node r (not a child, a gap or a removed group) matches. */
static bool region_node_matches(const struct ui *u, const struct drow *r,
				const struct hits *h)
{
	struct viewer *v = viewer_of(u);
	uint32_t g =
		r->kind == DROW_ALLOC ? v->det.allocs[r->idx].main : r->idx;

	if (r->kind == DROW_REGION && r->depth) {
		const struct vms_alloc *a = details_alloc_of(&v->det, r->idx);

		/* what its allocation row shows already */
		if (a && bit(h->self, a->main))
			return false;
	}
	return bit(h->self, g);
}

/* Whether node r (not a child) matches. */
static bool node_matches(const struct ui *u, const struct drow *r,
			 struct matcher *m, const struct hits *h)
{
	struct viewer *v = viewer_of(u);

	if (r->kind == DROW_GAP)
		return h->gap;
	if (r->kind == DROW_REMOVED)
		return contains_ci("removed", m->needle) ||
		       region_matches(m, changes_removed_region(&v->det, r));
	return region_node_matches(u, r, h);
}

/* One pass over every node of the view in the order it is shown, as if
 * every row were open (the top rows in their sort order, each followed
 * by all it holds): where the cursor's node is and the matches around
 * it. Nothing is kept but these. A top row that holds no match (the
 * first pass's hits) is passed over whole (but for the cursor's), a
 * child that does not match is not met at all (but for the cursor's). */
struct pass {
	const struct ui *u;
	struct matcher *m;
	const struct hits *h;
	struct drow cur; /* the cursor's row */
	bool have_cur, found; /* found: the cursor's node passed */
	bool met; /* a node was met (the first node is a top row) */
	size_t nhits, lt_pos;
	bool at_pos; /* the cursor's node matches */
	/* matches: the first two, the last before the cursor's node, the
	 * first after it, the last */
	struct drow first, second, before, after, last;
	/* and the row index of each one's top row (show_node's hint) */
	size_t first_i, second_i, before_i, after_i, last_i, top_i;
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
		p->first_i = p->top_i;
		p->first_at0 = first_node;
	} else if (!p->has_second) {
		p->second = r;
		p->second_i = p->top_i;
		p->has_second = true;
	}
	p->nhits++;
	if (!p->found) { /* before the cursor's node */
		p->lt_pos++;
		p->before = r;
		p->before_i = p->top_i;
		p->has_before = true;
	} else if (is_cur) {
		p->at_pos = true;
	} else if (!p->has_after) {
		p->after = r;
		p->after_i = p->top_i;
		p->has_after = true;
	}
	p->last = r;
	p->last_i = p->top_i;
}

/* Region g's children at depth that match, and the cursor's among them. */
static void meet_children(struct pass *p, uint32_t g, uint8_t depth)
{
	bool cur_here = p->have_cur && !p->found && p->cur.kind == DROW_CHILD &&
			p->cur.idx == g;
	size_t k;

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

	p->top_i = (size_t)(top - d->rows);
	if (top->kind == DROW_CHILD) { /* not a top row: as a child */
		meet(p, *top,
		     contains_ci(p->u->snap->regions[top->idx]
					 .children[top->child]
					 .name,
				 p->m->needle));
		return;
	}
	meet(p, *top, node_matches(p->u, top, p->m, p->h));
	if (top->kind == DROW_GAP || top->kind == DROW_REMOVED)
		return;
	if (top->kind == DROW_ALLOC) {
		first = d->allocs[top->idx].first;
		n = d->allocs[top->idx].n;
		depth = 1;
	}
	for (k = 0; k < n; k++) {
		if (depth) {
			struct drow r = { first + k, DROW_REGION, depth, 0 };

			meet(p, r, region_node_matches(p->u, &r, p->h));
		}
		meet_children(p, first + k, (uint8_t)(depth + 1));
	}
}

/* How many of top row r's nodes match, as meet_top would meet them;
 * UINT32_MAX where it is not counted so (a removed group, a child): then
 * it is met. */
static uint32_t top_count(const struct details *d, const struct hits *h,
			  const struct drow *r)
{
	const struct vms_alloc *a;
	uint32_t n, k;
	bool main_hit;

	switch (r->kind) {
	case DROW_REGION:
		return bit(h->any, r->idx)
			       ? bit(h->self, r->idx) + kids_count(h, r->idx)
			       : 0;
	case DROW_GAP:
		return h->gap;
	case DROW_ALLOC:
		if (h->alloc_n && h->alloc_n[r->idx] < UINT8_MAX)
			return h->alloc_n[r->idx];
		a = &d->allocs[r->idx];
		main_hit = bit(h->self, a->main);
		n = main_hit;
		/* a region matches for what its allocation row does not show
		 * (region_node_matches) */
		if (!details_alloc_of(d, a->first))
			main_hit = false;
		for (k = 0; k < a->n; k++)
			n += (!main_hit && bit(h->self, a->first + k)) +
			     kids_count(h, a->first + k);
		return n;
	default:
		return UINT32_MAX;
	}
}

/* The walk in the order shown. A top row holding matches is met node by
 * node where its matches may be one the find needs (the first two, the
 * last before the cursor's node, the first after it, the last) or it
 * holds the cursor; the others' matches are only counted (a find of a
 * text every region has met every node of a million, 24-30 ms, 2026-11-30):
 * the last top row with matches is kept back (pending) until a later
 * one shows it is neither the last before the cursor's nor the last. */
static void walk(struct pass *p, size_t cur_top)
{
	const struct details *d = det_of(p->u);
	size_t i, pending = SIZE_MAX, counted = 0, counted_before = 0;
	uint32_t pending_n = 0;

	for (i = 0; i < d->nrows; i++) {
		const struct drow *r = &d->rows[i];
		uint32_t n;

		if (r->depth)
			continue;
		n = i == cur_top ? UINT32_MAX : top_count(d, p->h, r);
		if (!n) {
			p->met = true; /* nothing under it matches */
			continue;
		}
		/* (matches counted join p's at the end: they come after
		 * its first two, and only its nhits decides) */
		if (n != UINT32_MAX && p->nhits >= 2 &&
		    (!p->found || p->has_after)) {
			if (pending != SIZE_MAX) { /* not one needed: counted */
				counted += pending_n;
				if (!p->found)
					counted_before += pending_n;
			}
			pending = i;
			pending_n = n;
			p->met = true;
			continue;
		}
		if (pending != SIZE_MAX) /* the last before this one */
			meet_top(p, &d->rows[pending]);
		pending = SIZE_MAX;
		meet_top(p, r);
	}
	if (pending != SIZE_MAX) /* the last */
		meet_top(p, &d->rows[pending]);
	p->nhits += counted;
	p->lt_pos += counted_before;
}

/* Makes node r a row (what holds it opened) and puts the cursor on it;
 * at: the row index of its top row, where it is looked for first (the
 * rows above it stay as they are: only what holds r is opened). */
static void show_node(struct ui *u, const struct drow *r, size_t at)
{
	struct details *d = det_of(u);
	size_t i;

	details_open_path(u, r);
	details_rebuild(u);
	for (i = at; i < d->nrows && (i == at || d->rows[i].depth); i++)
		if (details_same_node(&d->rows[i], r))
			break;
	if (i >= d->nrows || !details_same_node(&d->rows[i], r))
		for (i = 0; i < d->nrows; i++)
			if (details_same_node(&d->rows[i], r))
				break;
	if (i < d->nrows)
		d->lv.cur = i;
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
	size_t i, le_pos, hitno, at, cur_top = SIZE_MAX;

	for (i = 0; u->find[i]; i++)
		needle[i] = (char)(u->find[i] >= 'A' && u->find[i] <= 'Z'
					   ? u->find[i] + 32
					   : u->find[i]);
	needle[i] = '\0';
	if (!*needle || !d->nrows)
		return 0;
	matcher_init(&m, needle);
	if (!first_pass(u, &m, &h)) {
		ui_message(u, true, "find: out of memory");
		return UI_DRAW;
	}
	memset(&p, 0, sizeof(p));
	p.u = u;
	p.m = &m;
	p.h = &h;
	p.have_cur = d->lv.cur < d->nrows;
	if (p.have_cur) {
		p.cur = d->rows[d->lv.cur];
		for (cur_top = d->lv.cur; cur_top && d->rows[cur_top].depth;
		     cur_top--)
			;
	}
	/* one pass in the order shown; the hit is the first match after
	 * the cursor's node (before it: backwards), round the end if none,
	 * and its number is counted in the order shown */
	walk(&p, cur_top);
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
		p.after_i = p.at_pos ? p.second_i : p.first_i;
	}
	le_pos = p.lt_pos + p.at_pos;
	if (!backwards) {
		hit = p.has_after ? p.after : p.first;
		at = p.has_after ? p.after_i : p.first_i;
		hitno = p.has_after ? le_pos + 1 : 1;
	} else {
		hit = p.has_before ? p.before : p.last;
		at = p.has_before ? p.before_i : p.last_i;
		hitno = p.has_before ? p.lt_pos : p.nhits;
	}
	show_node(u, &hit, at);
	viewer_of(u)->focus = 1;
	ui_message(u, false, "match %zu of %zu for \"%s\" (n next, N previous)",
		   hitno, p.nhits, u->find);
	return UI_DRAW;
}
