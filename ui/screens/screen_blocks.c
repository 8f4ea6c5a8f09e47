/* screen_blocks.c — the allocations of an allocation trace alive in the
 * viewer's row (VMMap's Heap Allocations; B in the viewer, with --trace):
 * every block the malloc family gave and every traced map in the region
 * or allocation under the viewer's cursor, in address order (s: by size,
 * largest first), with its size, its age and its call site; the stack of
 * the one under the cursor below the list.
 *
 * The list follows the trace: rebuilt once a second while shown (the
 * call sites screen's tick keeps the rings read), and on r. At most
 * BLOCKS_MAX blocks are listed (the header says when there were more).
 * A snapshot file saved with its trace (-l FILE) keeps the allocations
 * alive at its snapshot (model/trace.h, struct vms_trace_live): without
 * a tracer the screen lists those, their age at the snapshot.
 *
 * Contract: u->tracer is the caller's (cli); this file only reads it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/draw.h"
#include "core/listview.h"
#include "core/ui_priv.h"
#include "panes/panes.h"
#include "trace/tracer.h"

#define BLOCKS_MAX (1u << 18)
#define STACK_LINES 8

/* The screen's own state (u->data[SCR_BLOCKS]). */
struct blocks {
	struct listview lv;
	struct vms_trace_block *b;
	size_t n;
	bool more; /* BLOCKS_MAX were listed of more */
	bool by_size;
	uint64_t lo, hi, total;
	char what[96];
	char kept[96]; /* a saved trace's: what the file keeps */
	double built_us;
	/* the stack of the block under the cursor */
	struct stack_cache stack;
};

static struct blocks *bs_of(const struct ui *u)
{
	return u->data[SCR_BLOCKS];
}

static int by_size(const void *x, const void *y)
{
	const struct vms_trace_block *a = x, *b = y;

	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return (a->addr > b->addr) - (a->addr < b->addr);
}

static int by_addr(const void *x, const void *y)
{
	const struct vms_trace_block *a = x, *b = y;

	return (a->addr > b->addr) - (a->addr < b->addr);
}

/* The blocks again, the cursor on the block it was on. */
static void rebuild(struct ui *u, struct blocks *c)
{
	uint64_t keep = c->n ? c->b[c->lv.cur].addr : 0;
	size_t i;

	c->built_us = ui_clock_us();
	if (!c->b && !(c->b = malloc(BLOCKS_MAX * sizeof(*c->b)))) {
		ui_message(u, true, "%s", "out of memory for the allocations");
		c->n = 0;
		return;
	}
	c->n = trace_blocks(u, c->lo, c->hi, c->b, BLOCKS_MAX);
	c->more = c->n == BLOCKS_MAX;
	qsort(c->b, c->n, sizeof(*c->b), c->by_size ? by_size : by_addr);
	c->total = 0;
	c->lv.cur = 0;
	for (i = 0; i < c->n; i++) {
		c->total += c->b[i].size;
		if (c->b[i].addr == keep)
			c->lv.cur = i;
	}
}

/* ---- drawing ---- */

static void draw_row(void *ctx, int y, size_t i, bool sel)
{
	struct ui *u = ctx;
	struct blocks *c = bs_of(u);
	const struct vms_trace_block *b = &c->b[i];
	char fn[512] = "(no stack)";
	uint64_t now = trace_now_ns(u);
	/* a block stamped after the snapshot (a file's time as it says) is
	 * of age 0, not of 2^64 ns */
	double age = now > b->t_ns ? (double)(now - b->t_ns) / 1e9 : 0;

	trace_site_text(u, b->site, fn, sizeof(fn));
	put_fmt(y, 0, COLS, theme_attr(sel ? EL_SELECTION : EL_NORMAL),
		" %016llx %11llu %8.1f s  %s", (unsigned long long)b->addr,
		(unsigned long long)b->size, age, fn);
}

static void blocks_draw(struct ui *u)
{
	struct blocks *c = bs_of(u);
	char right[48], tot[16];
	int list_h = LINES - 5 - STACK_LINES;

	if (list_h < 3)
		list_h = 3;
	put_fmt(0, 0, COLS, theme_attr(EL_TITLE),
		" vmscope  allocations  %s  pid %d",
		u->snap && u->snap->proc.name ? u->snap->proc.name : "?",
		u->snap ? (int)u->snap->proc.pid : 0);
	put_fmt(1, 0, COLS, theme_attr(EL_LABEL),
		" Alive in %llx-%llx: %s  %zu%s, %s%s",
		(unsigned long long)c->lo, (unsigned long long)c->hi, c->what,
		c->n, c->more ? " (more not listed)" : "",
		fmt_size(c->total, tot, sizeof(tot)), c->kept);
	put_fmt(2, 0, COLS, theme_attr(EL_COLUMN),
		" Address           Size (bytes)        Age  Call site "
		"(innermost)");
	listview_draw(&c->lv, 3, list_h, c->n, draw_row, u);
	trace_stack_draw(
		stack_cache_get(&c->stack, u,
				c->n ? c->b[c->lv.cur].site : UINT32_MAX),
		"Stack of the allocation", 3 + list_h, LINES - 4 - list_h);
	snprintf(right, sizeof(right), "%zu/%zu", c->n ? c->lv.cur + 1 : 0,
		 c->n);
	ui_status(u,
		  u->tracer ? " s by size/address  r again  Esc back  q quit"
			    : " s by size/address  Esc back  q quit",
		  right);
}

/* ---- actions ---- */

static int act_sort(struct ui *u)
{
	struct blocks *c = bs_of(u);

	c->by_size = !c->by_size;
	rebuild(u, c);
	return UI_DRAW;
}

static int act_again(struct ui *u)
{
	if (!u->tracer) {
		ui_message(u, false, "%s",
			   "a saved trace's allocations are those at its "
			   "snapshot");
		return UI_DRAW;
	}
	rebuild(u, bs_of(u));
	return UI_DRAW;
}

static int act_back(struct ui *u)
{
	u->next = SCR_VIEWER;
	return UI_SWITCH | UI_DRAW;
}

static const struct key_action blocks_keys[] = {
	{ 's', "s", "sort by size (largest first) or by address", act_sort },
	{ 'r', "r", "the allocations again, as the trace has them now",
	  act_again },
	{ 't', "t", "next colour theme", ui_next_theme },
	{ 27, "Esc B", "back to the viewer", act_back },
	{ 'B', NULL, NULL, act_back },
	{ 'q', "q F10", "quit", ui_quit },
	{ KEY_F(10), NULL, NULL, ui_quit },
	{ 0, NULL, NULL, NULL },
};

static int blocks_key(struct ui *u, int key)
{
	struct blocks *c = bs_of(u);
	int r = key_dispatch(u, blocks_keys, key);

	if (r >= 0)
		return r;
	return listview_key(&c->lv, c->n, key) ? UI_DRAW : 0;
}

static int blocks_mouse(struct ui *u, int y, int x, mmask_t b)
{
	struct blocks *c = bs_of(u);

	(void)x;
	return listview_pick(&c->lv, c->n, y, b, 3) ? UI_DRAW : 0;
}

/* B in the viewer: the allocations of its row. */
static int blocks_enter(struct ui *u)
{
	struct blocks *c = bs_of(u);

	const struct vms_trace_report *k = trace_kept(u);

	if (!trace_have(u))
		return -1;
	if (!details_cursor_span(u, &c->lo, &c->hi, c->what, sizeof(c->what)))
		return -1;
	c->kept[0] = '\0';
	if (k && k->live->nblocks < k->live->blocks_alive)
		snprintf(c->kept, sizeof(c->kept),
			 "  (the file keeps the first %zu of %llu, by address)",
			 k->live->nblocks,
			 (unsigned long long)k->live->blocks_alive);
	else if (k)
		snprintf(c->kept, sizeof(c->kept), "  (at the snapshot)");
	c->lv.cur = c->lv.top = 0;
	c->n = 0;
	rebuild(u, c);
	return 0;
}

/* While shown, the list follows the trace once a second. */
static int blocks_tick(struct ui *u)
{
	struct blocks *c = bs_of(u);

	if (!u->tracer || u->scr != SCR_BLOCKS ||
	    ui_clock_us() - c->built_us < 1e6)
		return 0;
	rebuild(u, c);
	return UI_DRAW;
}

static void blocks_free(struct ui *u)
{
	stack_cache_drop(&bs_of(u)->stack);
	free(bs_of(u)->b);
}

/* The key of the viewer that opens this screen (ui_priv.h: from_keys). */
static int act_enter_from_viewer(struct ui *u)
{
	if (!trace_have(u)) /* said why; the viewer stays */
		return UI_DRAW;
	u->next = SCR_BLOCKS;
	return UI_SWITCH | UI_DRAW;
}

static const struct key_action from_viewer[] = {
	{ 'B', "B",
	  "the allocations the trace has alive in the row (--trace -- CMD, or "
	  "a file saved with its trace)",
	  act_enter_from_viewer },
	{ 0, NULL, NULL, NULL },
};

const struct ui_screen screen_blocks = {
	.name = "blocks",
	.title = "Allocations (B in the viewer, with --trace)",
	.keys = blocks_keys,
	.data_size = sizeof(struct blocks),
	.free = blocks_free,
	.enter = blocks_enter,
	.draw = blocks_draw,
	.key = blocks_key,
	.mouse = blocks_mouse,
	.tick = blocks_tick,
	.from = SCR_VIEWER,
	.from_keys = from_viewer,
};
