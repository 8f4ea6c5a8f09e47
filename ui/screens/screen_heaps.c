/* screen_heaps.c — inside the heaps: the process's malloc as a tree (the
 * heap, opening into its arenas, each opening into its segments) above a
 * detail of the arena under the cursor: its figures as mallinfo2 counts
 * them (system, in use, free, tcache, overhead, chunks, free chunks, the
 * largest free chunk, top, fragmentation), the free bytes still resident,
 * a fragmentation strip (its segments end to end: in use / free / top)
 * and the free-chunk size histogram. Where the walk was not done, it says
 * why (the snapshot's notes of the malloc step). Below them the other
 * allocator (jemalloc, tcmalloc, mimalloc) and its heaps
 * (heaps_alloc.h), then the runtimes' managed heaps, each opening into its
 * parts (heaps_managed.h).
 *
 * The glibc detail is drawn by heaps_glibc.c. Reads only the finished
 * snapshot (s->heaps, s->glibc, s->allocator, s->managed,
 * s->notes). The viewer's H opens it on the arena or managed heap holding
 * the region under its cursor (u->goto_addr); Enter on a segment or a
 * managed heap without parts shows it in the viewer. Its state is
 * its own (heaps.h): which rows are open, the list.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/draw.h"
#include "core/listview.h"
#include "core/ui_priv.h"
#include "screens/heaps.h"
#include "screens/heaps_alloc.h"
#include "screens/heaps_glibc.h"
#include "screens/heaps_managed.h"

/* The detail below the list: its lines at most. */
enum { DETAIL_MIN = 6 };

static bool arena_open(const struct heapview *hv, size_t i)
{
	return i < hv->nopen && hv->open[i];
}

/* The rows as shown (rows NULL: only counted). The notes of a malloc step
 * that did not walk follow the heap row. */
static size_t build_rows(const struct ui *u, struct hrow *rows)
{
	const struct vms_snapshot *s = u->snap;
	const struct heapview *hv = heaps_of(u);
	size_t n = 0, i;
	uint32_t g;

#define ADD(k, h, sg)                                                          \
	do {                                                                   \
		if (rows)                                                      \
			rows[n] = (struct hrow){ (k), (h), (sg) };             \
		n++;                                                           \
	} while (0)
	ADD(HR_TOP, 0, 0);
	for (i = 0; i < s->nnotes; i++)
		if (strcmp(s->notes[i].step, "malloc") == 0)
			ADD(HR_NOTE, i, 0);
	/* glibc's arenas, then the other allocator's heaps */
	for (i = 0; i < 2 * s->nheaps; i++) {
		size_t k = i % s->nheaps;
		bool glibc = vms_heap_is_glibc(&s->heaps[k]);

		if (i == s->nheaps && s->allocator)
			ADD(HR_ATOP, 0, 0);
		if (glibc != (i < s->nheaps) ||
		    (glibc ? hv->closed : hv->aclosed))
			continue;
		ADD(HR_ARENA, k, 0);
		if (!arena_open(hv, k))
			continue;
		for (g = 0; g < s->heaps[k].nsegs; g++)
			ADD(HR_SEG, k, g);
	}
	if (!s->nheaps && s->allocator)
		ADD(HR_ATOP, 0, 0);
	if (s->nmanaged)
		ADD(HR_MTOP, 0, 0);
	for (i = 0; !hv->mclosed && i < s->nmanaged; i++) {
		ADD(HR_MANAGED, i, 0);
		for (g = 0; hm_open(hv, i) && g < s->managed[i].nparts; g++)
			ADD(HR_PART, i, g);
	}
#undef ADD
	return n;
}

/* Free bytes still resident over the arenas (-1: unknown anywhere). */
static int64_t resident_sum(const struct vms_snapshot *s)
{
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < s->nheaps; i++) {
		const struct vms_heap_glibc *g = s->heaps[i].glibc;

		if (!vms_heap_glibc_walked(g))
			continue;
		if (g->free_resident < 0)
			return -1;
		sum += g->free_resident;
	}
	return sum;
}

/* The figure columns: their width (exact bytes need more), how many fit
 * (Chunks only on a wide terminal), where the first starts. */
static int col_w(const struct ui *u)
{
	struct heapview *hv = heaps_of(u);

	return hv->bytes ? 12 : 9;
}

static int col_n(const struct ui *u)
{
	return COLS >= 40 + 5 * col_w(u) ? 5 : 4;
}

static int col_x(const struct ui *u)
{
	return COLS - col_n(u) * col_w(u) - 1;
}

/* Name, then System, In use, Free, Resident, Chunks, in columns that fit;
 * sizes as people read them, or exact bytes (heaps.h: bytes). */
static void draw_figures(const struct ui *u, int y, attr_t a, int indent,
			 const char *name, const int64_t v[5])
{
	struct heapview *hv = heaps_of(u);
	int w = col_w(u), ncols = col_n(u), namew = col_x(u), c;
	char b[32];

	put_blank(y, 0, COLS, a);
	put_str(y, indent, namew - indent, a, name, 1);
	for (c = 0; c < ncols; c++) {
		if (v[c] < 0)
			snprintf(b, sizeof(b), "-");
		else if (c == 4 || hv->bytes)
			snprintf(b, sizeof(b), "%lld", (long long)v[c]);
		else
			fmt_size((uint64_t)v[c], b, sizeof(b));
		put_right(y, namew + c * w, w, a, b);
	}
}

/* What a row is drawn with (listview_draw's ctx). */
struct row_ctx {
	struct ui *u;
	const struct hrow *rows;
};

static void draw_row(struct ui *u, int y, const struct hrow *r, bool sel);

static void list_row(void *ctx, int y, size_t i, bool sel)
{
	struct row_ctx *c = ctx;

	draw_row(c->u, y, &c->rows[i], sel);
}

static void draw_row(struct ui *u, int y, const struct hrow *r, bool sel)
{
	struct heapview *hv = heaps_of(u);
	const struct vms_snapshot *s = u->snap;
	attr_t a = sel ? theme_attr(EL_SELECTION) : theme_attr(EL_NORMAL);
	char name[200], b1[16];
	size_t i, arenas = 0;

	if (r->kind == HR_ATOP ||
	    (r->kind == HR_ARENA && !vms_heap_is_glibc(&s->heaps[r->heap]))) {
		int64_t v[5];

		ha_row(u, r, name, sizeof(name), v);
		draw_figures(u, y, sel ? a : theme_attr(theme_type(VMS_T_HEAP)),
			     r->kind == HR_ARENA ? 2 : 0, name, v);
		return;
	}
	if (r->kind == HR_TOP) {
		const struct vms_malloc *m = s->glibc;

		if (!m) {
			snprintf(name, sizeof(name),
				 "%s heaps: not walked (why below)",
				 hv->closed ? "+" : "-");
			draw_figures(u, y, a, 0, name,
				     (const int64_t[5]){ -1, -1, -1, -1, -1 });
			return;
		}
		for (i = 0; i < s->nheaps; i++)
			arenas += vms_heap_is_glibc(&s->heaps[i]);
		snprintf(name, sizeof(name), "%s %s malloc %s, %zu arena%s%s",
			 hv->closed ? "+" : "-", m->allocator, m->version,
			 arenas, arenas == 1 ? "" : "s",
			 m->empty     ? " (never used)"
			 : m->partial ? " (partial)"
				      : "");
		draw_figures(u, y, a, 0, name,
			     (const int64_t[5]){ (int64_t)m->arena,
						 (int64_t)m->uordblks,
						 (int64_t)m->fordblks,
						 resident_sum(s), -1 });
		return;
	}
	if (r->kind == HR_MTOP) {
		static const char *const head[] = { "Capacity", "Used", "Max" };
		attr_t h = sel ? a : theme_attr(EL_COLUMN);
		int c;

		put_blank(y, 0, COLS, h);
		put_fmt(y, 0, col_x(u), h, "%s managed heaps: %zu / part",
			hv->mclosed ? "+" : "-", s->nmanaged);
		for (c = 0; c < 3; c++)
			put_right(y, col_x(u) + c * col_w(u), col_w(u), h,
				  head[c]);
		return;
	}
	if (r->kind == HR_MANAGED || r->kind == HR_PART) {
		int64_t v[5];

		hm_row(u, r, name, sizeof(name), v);
		draw_figures(
			u, y,
			sel ? a
			: r->kind == HR_PART
				? theme_attr(EL_CHILD)
				: theme_attr(theme_type(VMS_T_MANAGED_HEAP)),
			r->kind == HR_PART ? 6 : 0, name, v);
		return;
	}
	if (r->kind == HR_NOTE) {
		put_blank(y, 0, COLS, a);
		put_fmt(y, 2, COLS - 2, sel ? a : theme_attr(EL_ERROR), "%s",
			s->notes[r->heap].why);
		return;
	}
	if (r->kind == HR_ARENA) {
		const struct vms_heap *h = &s->heaps[r->heap];
		const struct vms_heap_glibc *g = h->glibc;
		char an[64];

		snprintf(name, sizeof(name), "%s %s, %u segment%s%s",
			 arena_open(hv, r->heap) ? "-" : "+",
			 hg_arena_name(h, an, sizeof(an)), h->nsegs,
			 h->nsegs == 1 ? "" : "s",
			 g && g->busy	   ? " (busy)"
			 : g && g->unread  ? " (unread)"
			 : g && g->partial ? " (partial)"
			 : !g		   ? " (not walked)"
					   : "");
		draw_figures(u, y, sel ? a : theme_attr(theme_type(VMS_T_HEAP)),
			     2, name,
			     (const int64_t[5]){ vms_heap_glibc_walked(g)
							 ? (int64_t)g->system
							 : -1,
						 h->in_use, h->free,
						 vms_heap_glibc_walked(g)
							 ? g->free_resident
							 : -1,
						 h->chunks });
		return;
	}
	{
		const struct vms_heap_seg *sg = &s->heaps[r->heap].segs[r->seg];

		snprintf(name, sizeof(name), "0x%llx-0x%llx  %s",
			 (unsigned long long)sg->start,
			 (unsigned long long)sg->end,
			 fmt_size(sg->end - sg->start, b1, sizeof(b1)));
		put_blank(y, 0, COLS, a);
		put_str(y, 6, COLS - 6, sel ? a : theme_attr(EL_CHILD), name,
			1);
	}
}

/* The arena a row is about (a segment's, an arena's), or NULL. */
static const struct vms_heap *row_heap(const struct ui *u, const struct hrow *r)
{
	if (r->kind == HR_ARENA || r->kind == HR_SEG)
		return &u->snap->heaps[r->heap];
	return NULL;
}

static void heaps_draw(struct ui *u)
{
	struct heapview *hv = heaps_of(u);
	const struct vms_snapshot *s = u->snap;
	size_t n = build_rows(u, NULL);
	struct hrow *rows = calloc(n ? n : 1, sizeof(*rows));
	int detail = LINES / 2 > DETAIL_MIN ? LINES / 2 : DETAIL_MIN, y, h;
	struct row_ctx rc = { u, rows };

	if (!rows)
		return;
	build_rows(u, rows);
	if (hv->lv.cur >= n)
		hv->lv.cur = n ? n - 1 : 0;
	h = LINES - 1 - detail - 2;
	hv->n = n;
	put_fmt(0, 0, COLS, theme_attr(EL_TITLE), " Heaps  %s  pid %d  %s",
		s->proc.name ? s->proc.name : "?", (int)s->proc.pid,
		hv->bytes ? "(bytes)" : "");
	put_blank(1, 0, COLS, theme_attr(EL_COLUMN));
	put_str(1, 0, col_x(u), theme_attr(EL_COLUMN), "Heap / arena / segment",
		1);
	{
		static const char *const head[] = { "System", "In use", "Free",
						    "Resident", "Chunks" };
		int c;

		for (c = 0; c < col_n(u); c++)
			put_right(1, col_x(u) + c * col_w(u), col_w(u),
				  theme_attr(EL_COLUMN), head[c]);
	}
	listview_draw(&hv->lv, 2, h < 3 ? 3 : h, n, list_row, &rc);
	if (n && (rows[hv->lv.cur].kind == HR_MANAGED ||
		  rows[hv->lv.cur].kind == HR_PART)) {
		for (y = hv->lv.y + hv->lv.h; y < LINES - 1; y++)
			put_blank(y, 0, COLS, theme_attr(EL_NORMAL));
		hm_detail(u, hv->lv.y + hv->lv.h, LINES - 1, &rows[hv->lv.cur]);
	} else if (n &&
		   (rows[hv->lv.cur].kind == HR_ATOP ||
		    (row_heap(u, &rows[hv->lv.cur]) &&
		     !vms_heap_is_glibc(row_heap(u, &rows[hv->lv.cur]))))) {
		for (y = hv->lv.y + hv->lv.h; y < LINES - 1; y++)
			put_blank(y, 0, COLS, theme_attr(EL_NORMAL));
		ha_detail(u, hv->lv.y + hv->lv.h, LINES - 1, &rows[hv->lv.cur]);
	} else {
		hg_detail(u, hv->lv.y + hv->lv.h, LINES - 1,
			  n ? row_heap(u, &rows[hv->lv.cur]) : NULL);
	}
	free(rows);
	ui_status(u,
		  " Right/Left open/close  Enter region in the viewer  "
		  "Esc/H back  ? help  q quit",
		  NULL);
}

/* ---- keys ---- */

static int cursor_row(const struct ui *u, struct hrow *out)
{
	struct heapview *hv = heaps_of(u);
	size_t n = build_rows(u, NULL);
	struct hrow *rows = calloc(n ? n : 1, sizeof(*rows));

	if (!rows || hv->lv.cur >= n) {
		free(rows);
		return -1;
	}
	build_rows(u, rows);
	*out = rows[hv->lv.cur];
	free(rows);
	return 0;
}

/* Opens (open) or closes the cursor's row; Left on a segment closes its
 * arena and puts the cursor on it. */
static int expand(struct ui *u, bool open)
{
	struct heapview *hv = heaps_of(u);
	struct hrow r;

	if (cursor_row(u, &r) < 0)
		return 0;
	if (r.kind == HR_TOP || r.kind == HR_NOTE) {
		hv->closed = !open;
		if (!open)
			hv->lv.cur = 0;
		return UI_DRAW;
	}
	if (r.kind == HR_MTOP) {
		hv->mclosed = !open;
		return UI_DRAW;
	}
	if (r.kind == HR_ATOP) {
		hv->aclosed = !open;
		return UI_DRAW;
	}
	if (r.kind == HR_PART && !open) {
		hv->lv.cur -= r.seg + 1;
		hv->mopen[r.heap] = 0;
		return UI_DRAW;
	}
	if (r.kind == HR_MANAGED) {
		if (r.heap < hv->nmopen)
			hv->mopen[r.heap] = open;
		return UI_DRAW;
	}
	if (r.kind == HR_PART)
		return 0;
	if (r.heap >= hv->nopen)
		return 0;
	if (r.kind == HR_SEG && !open) {
		hv->lv.cur -= r.seg + 1;
		hv->open[r.heap] = 0;
		return UI_DRAW;
	}
	if (r.kind == HR_ARENA)
		hv->open[r.heap] = open;
	return UI_DRAW;
}

static int act_open(struct ui *u)
{
	return expand(u, true);
}

static int act_close(struct ui *u)
{
	return expand(u, false);
}

/* Enter: an arena opens or closes; a segment is shown in the viewer. */
static int act_enter(struct ui *u)
{
	struct heapview *hv = heaps_of(u);
	struct hrow r;

	if (cursor_row(u, &r) < 0)
		return 0;
	if (r.kind == HR_SEG) {
		u->goto_set = true;
		u->goto_addr = u->snap->heaps[r.heap].segs[r.seg].start;
		u->next = SCR_VIEWER;
		return UI_SWITCH | UI_DRAW;
	}
	if (r.kind == HR_ARENA)
		return expand(u, !arena_open(hv, r.heap));
	if (r.kind == HR_MTOP)
		return expand(u, hv->mclosed);
	if (r.kind == HR_ATOP)
		return expand(u, hv->aclosed);
	if (r.kind == HR_MANAGED && u->snap->managed[r.heap].nparts)
		return expand(u, !hm_open(hv, r.heap));
	if (r.kind == HR_MANAGED || r.kind == HR_PART) {
		u->goto_set = true;
		u->goto_addr = u->snap->managed[r.heap].start;
		u->next = SCR_VIEWER;
		return UI_SWITCH | UI_DRAW;
	}
	return expand(u, hv->closed);
}

/* Sizes as people read them, or exact bytes. */
static int act_bytes(struct ui *u)
{
	struct heapview *hv = heaps_of(u);

	hv->bytes = !hv->bytes;
	return UI_DRAW;
}

static int act_back(struct ui *u)
{
	u->next = SCR_VIEWER;
	return UI_SWITCH | UI_DRAW;
}

static const struct key_action heaps_keys[] = {
	{ KEY_RIGHT, "Right +",
	  "open the heap into arenas, an arena into "
	  "its segments, a managed heap into its parts",
	  act_open },
	{ '+', NULL, NULL, act_open },
	{ KEY_LEFT, "Left -", "close it again", act_close },
	{ '-', NULL, NULL, act_close },
	{ '\r', "Enter",
	  "open or close; on a segment or a managed heap without parts, "
	  "show it in the viewer",
	  act_enter },
	{ '\n', NULL, NULL, act_enter },
	{ KEY_ENTER, NULL, NULL, act_enter },
	{ 'b', "b", "exact bytes, or sizes as people read them", act_bytes },
	{ 't', "t", "next colour theme", ui_next_theme },
	{ 27, "Esc H", "back to the viewer", act_back },
	{ 'H', NULL, NULL, act_back },
	{ 'q', "q F10", "quit", ui_quit },
	{ KEY_F(10), NULL, NULL, ui_quit },
	{ 0, NULL, NULL, NULL },
};

static int heaps_key(struct ui *u, int key)
{
	struct heapview *hv = heaps_of(u);
	int r = key_dispatch(u, heaps_keys, key);

	if (r >= 0)
		return r;
	return listview_key(&hv->lv, hv->n, key) ? UI_DRAW : 0;
}

static int heaps_mouse(struct ui *u, int y, int x, mmask_t b)
{
	struct heapview *hv = heaps_of(u);
	size_t row;

	(void)x;
	switch (listview_mouse(&hv->lv, hv->n, y, b, 1, &row)) {
	case LV_WHEEL:
		return UI_DRAW;
	case LV_MISS:
		return 0;
	case LV_ROW:
		break;
	}
	hv->lv.cur = row;
	if (b & BUTTON1_DOUBLE_CLICKED)
		return act_enter(u);
	return UI_DRAW;
}

/* ---- the screen ---- */

static void heaps_free(struct ui *u)
{
	struct heapview *hv = heaps_of(u);

	free(hv->open);
	free(hv->mopen);
	memset(hv, 0, sizeof(*hv));
}

/* A new snapshot: every arena closed again (their number changes). */
static void heaps_snapshot_changed(struct ui *u, const struct vms_snapshot *old,
				   bool new_process)
{
	(void)old;
	(void)new_process;
	heaps_free(u);
}

/* The cursor on the row (kind, heap, seg), if shown. */
static void cursor_on(struct ui *u, int kind, size_t heap, uint32_t seg)
{
	struct heapview *hv = heaps_of(u);
	size_t n = build_rows(u, NULL), i;
	struct hrow *rows = calloc(n ? n : 1, sizeof(*rows));

	if (!rows)
		return;
	build_rows(u, rows);
	for (i = 0; i < n; i++)
		if (rows[i].kind == kind && rows[i].heap == heap &&
		    rows[i].seg == seg)
			hv->lv.cur = i;
	free(rows);
}

/* Entered with u->goto_addr set (the viewer's H on a heap region): that
 * arena open, the cursor on the segment holding the address; else the
 * managed heap holding it open, the cursor on it. */
static int heaps_enter(struct ui *u)
{
	const struct vms_snapshot *s = u->snap;
	struct heapview *hv = heaps_of(u);
	ptrdiff_t m;
	size_t i;

	if (!s)
		return -1;
	if (hv->nopen != s->nheaps) {
		free(hv->open);
		hv->open = calloc(s->nheaps ? s->nheaps : 1, 1);
		hv->nopen = hv->open ? s->nheaps : 0;
		hv->lv.cur = hv->lv.top = 0;
	}
	if (hv->nmopen != s->nmanaged) {
		free(hv->mopen);
		hv->mopen = calloc(s->nmanaged ? s->nmanaged : 1, 1);
		hv->nmopen = hv->mopen ? s->nmanaged : 0;
		hv->lv.cur = hv->lv.top = 0;
	}
	if (!u->goto_set)
		return 0;
	u->goto_set = false;
	for (i = 0; i < s->nheaps && i < hv->nopen; i++) {
		uint32_t g;

		for (g = 0; g < s->heaps[i].nsegs; g++)
			if (u->goto_addr >= s->heaps[i].segs[g].start &&
			    u->goto_addr < s->heaps[i].segs[g].end)
				break;
		if (g == s->heaps[i].nsegs)
			continue;
		hv->closed = hv->aclosed = false;
		hv->open[i] = 1;
		cursor_on(u, HR_SEG, i, g);
		return 0;
	}
	m = hm_find(s, u->goto_addr);
	if (m >= 0 && (size_t)m < hv->nmopen) {
		hv->mclosed = false;
		hv->mopen[m] = 1;
		cursor_on(u, HR_MANAGED, (size_t)m, 0);
	}
	return 0;
}

const struct ui_screen screen_heaps = {
	.name = "heaps",
	.title = "Heaps (H in the viewer)",
	.keys = heaps_keys,
	.data_size = sizeof(struct heapview),
	.free = heaps_free,
	.enter = heaps_enter,
	.snapshot_changed = heaps_snapshot_changed,
	.draw = heaps_draw,
	.key = heaps_key,
	.mouse = heaps_mouse,
};
