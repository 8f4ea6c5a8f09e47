/* screen_events.c — the trace view (L in the viewer, with --trace): the
 * newest events of the allocation trace in the order they happened
 * (tracer_log: the last VMS_TRACE_LOG are kept), one row each: time,
 * thread, operation, address, size, call site; the stack of the one under
 * the cursor below the list. Filters, as WPA's: o cycles the operation
 * (all, alloc, free, map, unmap), z the smallest size (any, 1 K, 64 K,
 * 1 M), T keeps only the thread of the event under the cursor, c only its
 * call site (each again: off).
 *
 * The list follows the trace once a second while shown, the cursor kept
 * on the newest event when it was there (as tail -f). A snapshot file
 * saved with its trace (-l FILE) keeps the newest events up to its
 * snapshot (model/trace.h, struct vms_trace_live): without a tracer the
 * screen lists those, the header saying how many of all.
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

#define STACK_LINES 8

static const uint64_t min_sizes[] = { 0, 1 << 10, 64 << 10, 1 << 20 };
#define NSIZES (sizeof(min_sizes) / sizeof(min_sizes[0]))

/* The screen's own state (u->data[SCR_EVENTS]). */
struct events {
	struct listview lv;
	struct vms_trace_event *ev; /* VMS_TRACE_LOG of them */
	size_t n;
	int op; /* -1: every operation */
	unsigned size_i; /* into min_sizes */
	struct vms_trace_filter f;
	double built_us;
	struct stack_cache stack; /* the stack under the cursor */
};

static struct events *es_of(const struct ui *u)
{
	return u->data[SCR_EVENTS];
}

/* The events again with the filters; the cursor on the newest when it was
 * there, else at the same place from the end. */
static void rebuild(struct ui *u, struct events *c)
{
	size_t from_end = c->n ? c->n - 1 - c->lv.cur : 0;

	c->built_us = ui_clock_us();
	if (!c->ev && !(c->ev = malloc(VMS_TRACE_LOG * sizeof(*c->ev)))) {
		ui_message(u, true, "%s", "out of memory for the trace view");
		c->n = 0;
		return;
	}
	c->f.ops = c->op < 0 ? 0 : 1u << c->op;
	c->f.min_size = min_sizes[c->size_i];
	c->n = trace_events(u, &c->f, c->ev, VMS_TRACE_LOG);
	c->lv.cur = c->n ? (from_end < c->n ? c->n - 1 - from_end : 0) : 0;
}

/* ---- drawing ---- */

static void draw_row(void *ctx, int y, size_t i, bool sel)
{
	struct ui *u = ctx;
	const struct vms_trace_event *e = &es_of(u)->ev[i];
	char fn[512] = "";

	trace_site_text(u, e->site, fn, sizeof(fn));
	put_fmt(y, 0, COLS, theme_attr(sel ? EL_SELECTION : EL_NORMAL),
		" %10.3f %7d %-5s %016llx %11llu  %s", (double)e->t_ns / 1e9,
		(int)e->tid, vms_trace_op_names[e->op],
		(unsigned long long)e->addr, (unsigned long long)e->size,
		e->site == UINT32_MAX ? "(not traced)" : fn);
}

static void events_draw(struct ui *u)
{
	struct events *c = es_of(u);
	const struct vms_trace_report *k = trace_kept(u);
	char right[48], size[16], what[256], kept[96];
	int top, list_h;

	put_fmt(0, 0, COLS, theme_attr(EL_TITLE),
		" vmscope  trace view  %s  pid %d",
		u->snap && u->snap->proc.name ? u->snap->proc.name : "?",
		u->snap ? (int)u->snap->proc.pid : 0);
	if (k && k->live->nlog < k->live->logged) /* the log was cut */
		snprintf(kept, sizeof(kept),
			 "(the newest %zu of %llu up to the snapshot kept)",
			 k->live->nlog, (unsigned long long)k->live->logged);
	else if (k)
		snprintf(kept, sizeof(kept),
			 "(all %zu up to the snapshot kept)", k->live->nlog);
	else
		snprintf(kept, sizeof(kept), "(the newest %u kept)",
			 VMS_TRACE_LOG);
	snprintf(what, sizeof(what),
		 "%zu events %s  operation %s  size >= %s"
		 "%s%s",
		 c->n, kept, c->op < 0 ? "any" : vms_trace_op_names[c->op],
		 fmt_size(min_sizes[c->size_i], size, sizeof(size)),
		 c->f.tid ? "  one thread" : "",
		 c->f.site != UINT32_MAX ? "  one call site" : "");
	/* the filters on a second line where they do not fit (80
	 * columns, both a thread and a call site), not cut */
	put_blank(1, 0, 1, theme_attr(EL_LABEL));
	put_blank(2, 0, 1, theme_attr(EL_LABEL));
	top = 2 + put_wrapped(1, 1, COLS - 1,
			      text_cols(what) + 1 > COLS ? 2 : 1,
			      theme_attr(EL_LABEL), what);
	list_h = LINES - top - 2 - STACK_LINES;
	if (list_h < 3)
		list_h = 3;
	put_fmt(top - 1, 0, COLS, theme_attr(EL_COLUMN),
		"   Time (s)  Thread Op    Address          Size (bytes)  "
		"Call site (innermost)");
	listview_draw(&c->lv, top, list_h, c->n, draw_row, u);
	trace_stack_draw(
		stack_cache_get(&c->stack, u,
				c->n ? c->ev[c->lv.cur].site : UINT32_MAX),
		"Stack of the event", top + list_h, LINES - 1 - top - list_h);
	snprintf(right, sizeof(right), "%zu/%zu", c->n ? c->lv.cur + 1 : 0,
		 c->n);
	ui_status(u, " o op  z size  T thread  c call site  Esc back", right);
}

/* ---- actions ---- */

static int act_op(struct ui *u)
{
	struct events *c = es_of(u);

	c->op = c->op + 1 < VMS_TRACE_NOPS ? c->op + 1 : -1;
	rebuild(u, c);
	return UI_DRAW;
}

static int act_size(struct ui *u)
{
	struct events *c = es_of(u);

	c->size_i = (c->size_i + 1) % NSIZES;
	rebuild(u, c);
	return UI_DRAW;
}

static int act_thread(struct ui *u)
{
	struct events *c = es_of(u);

	if (c->f.tid)
		c->f.tid = 0;
	else if (c->n)
		c->f.tid = c->ev[c->lv.cur].tid;
	rebuild(u, c);
	return UI_DRAW;
}

static int act_site(struct ui *u)
{
	struct events *c = es_of(u);

	if (c->f.site != UINT32_MAX)
		c->f.site = UINT32_MAX;
	else if (c->n)
		c->f.site = c->ev[c->lv.cur].site;
	rebuild(u, c);
	return UI_DRAW;
}

static int act_back(struct ui *u)
{
	u->next = SCR_VIEWER;
	return UI_SWITCH | UI_DRAW;
}

static const struct key_action events_keys[] = {
	{ 'o', "o", "the operation shown: any, alloc, free, map, unmap",
	  act_op },
	{ 'z', "z", "the smallest size shown: any, 1 K, 64 K, 1 M", act_size },
	{ 'T', "T", "only the thread of the event under the cursor; again: all",
	  act_thread },
	{ 'c', "c",
	  "only the call site of the event under the cursor; again: all",
	  act_site },
	{ 't', "t", "next colour theme", ui_next_theme },
	{ 27, "Esc L", "back to the viewer", act_back },
	{ 'L', NULL, NULL, act_back },
	{ 'q', "q F10", "quit", ui_quit },
	{ KEY_F(10), NULL, NULL, ui_quit },
	{ 0, NULL, NULL, NULL },
};

static int events_key(struct ui *u, int key)
{
	struct events *c = es_of(u);
	int r = key_dispatch(u, events_keys, key);

	if (r >= 0)
		return r;
	return listview_key(&c->lv, c->n, key) ? UI_DRAW : 0;
}

static int events_mouse(struct ui *u, int y, int x, mmask_t b)
{
	struct events *c = es_of(u);

	(void)x;
	return listview_pick(&c->lv, c->n, y, b, 3) ? UI_DRAW : 0;
}

static void events_init(struct ui *u)
{
	struct events *c = es_of(u);

	c->op = -1;
	c->f.site = UINT32_MAX;
}

static int events_enter(struct ui *u)
{
	struct events *c = es_of(u);

	if (!trace_have(u))
		return -1;
	c->n = 0; /* the cursor on the newest */
	rebuild(u, c);
	return 0;
}

static int events_tick(struct ui *u)
{
	struct events *c = es_of(u);

	if (!u->tracer || u->scr != SCR_EVENTS ||
	    ui_clock_us() - c->built_us < 1e6)
		return 0;
	rebuild(u, c);
	return UI_DRAW;
}

static void events_free(struct ui *u)
{
	stack_cache_drop(&es_of(u)->stack);
	free(es_of(u)->ev);
}

/* The key of the viewer that opens this screen (ui_priv.h: from_keys). */
static int act_enter_from_viewer(struct ui *u)
{
	if (!trace_have(u)) /* said why; the viewer stays */
		return UI_DRAW;
	u->next = SCR_EVENTS;
	return UI_SWITCH | UI_DRAW;
}

static const struct key_action from_viewer[] = {
	{ 'L', "L",
	  "the trace view: the newest events of the allocation "
	  "trace (--trace -- CMD, or a file saved with its trace)",
	  act_enter_from_viewer },
	{ 0, NULL, NULL, NULL },
};

const struct ui_screen screen_events = {
	.name = "events",
	.title = "Trace view (L in the viewer, with --trace)",
	.keys = events_keys,
	.data_size = sizeof(struct events),
	.init = events_init,
	.free = events_free,
	.enter = events_enter,
	.draw = events_draw,
	.key = events_key,
	.mouse = events_mouse,
	.tick = events_tick,
	.from = SCR_VIEWER,
	.from_keys = from_viewer,
};
