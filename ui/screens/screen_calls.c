/* screen_calls.c — the call sites of an allocation trace (vmscope --trace
 * -- CMD in the viewer): one row a call site, by impacting size, with the
 * counts and bytes of WPA's impacting types in the window chosen; Enter
 * or Right opens a site into its stack, innermost first. v shows the
 * call tree instead (model/calltree.h), callers first or callees first, a
 * node per function on its path, Enter opening it; open nodes stay open
 * as the figures follow the trace. The counts are of blocks: outstanding (allocated in the window, alive at its end),
 * transient (allocated and freed in it), released (allocated before it,
 * freed in it), lasting (allocated before it, alive at its end).
 *
 * The window (w cycles): the whole trace; since the snapshot shown (what
 * the program did after it); between the timeline's marks A and B. Each
 * snapshot taken while tracing is a mark of the trace (tracer_mark, in
 * snapshot_changed, which every screen is told of), so a window is the
 * span between two snapshots, as VMMap's and WPA's are.
 *
 * f narrows it to what is alive now in the viewer's row (the region or
 * allocation under its cursor): a map's commit stack, a heap's blocks by
 * call site (tracer_report_in); f again shows everything.
 *
 * The screen also keeps the trace read: its tick drains the rings on
 * every pass of the loop (ui.c wakes every TICK_MS while tracing), on
 * whatever screen is shown; while it is shown it redraws once a second
 * with the figures so far.
 *
 * A snapshot file saved while tracing (-l FILE) keeps its trace up to the
 * snapshot (model/snapshot.h, trace): without a tracer the screen shows
 * that report, read-only: its one window, no marks, nothing to read; f
 * narrows it to the allocations the file keeps alive at its snapshot in
 * the viewer's row (vms_trace_report_of), as a live trace's whole window
 * is narrowed.
 *
 * Contract: u->tracer is the caller's (cli); this file only reads it and
 * marks it. The report lives in the screen's arena until the next one (a
 * saved one is the snapshot's, dropped when the snapshot changes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/draw.h"
#include "core/listview.h"
#include "core/ui_priv.h"
#include "model/calltree.h"
#include "panes/panes.h"
#include "pipeline.h"
#include "screens/calls_marks.h"
#include "screens/calls_priv.h"
#include "screens/screen_calls.h"
#include "trace/tracer.h"

#define TICK_MS 10

static struct calls *cs_of(const struct ui *u)
{
	return u->data[SCR_CALLS];
}

/* Remembers which sites are open, by id, before the report goes. */
static void keep_open(struct calls *c)
{
	size_t i, n = 0;
	uint32_t *ids;

	if (!c->have)
		return;
	for (i = 0; i < c->rep.nsites; i++)
		n += c->open[i];
	ids = malloc((n ? n : 1) * sizeof(*ids));
	if (!ids)
		return;
	for (i = 0, n = 0; i < c->rep.nsites; i++)
		if (c->open[i])
			ids[n++] = c->rep.sites[i].id;
	free(c->open_ids);
	c->open_ids = ids;
	c->nopen = n;
}

static void drop_report(struct calls *c)
{
	if (c->have)
		arena_fini(&c->ar);
	c->saved = false;
	free(c->open);
	free(c->rows);
	c->open = NULL;
	c->rows = NULL;
	c->nrows = c->caprows = 0;
	c->have = false;
	memset(&c->tree, 0, sizeof(c->tree));
}

static bool add_row(struct calls *c, size_t what)
{
	if (c->nrows == c->caprows) {
		size_t cap = c->caprows ? c->caprows * 2 : 256;
		struct row *r = realloc(c->rows, cap * sizeof(*r));

		if (!r)
			return false;
		c->rows = r;
		c->caprows = cap;
	}
	c->rows[c->nrows++] = (struct row){ what, -1 };
	return true;
}

/* A node's row, and its children's when it is open. */
static bool add_node(struct calls *c, uint32_t node)
{
	const struct vms_calltree_node *n = &c->tree.nodes[node];
	uint32_t k;

	if (!add_row(c, node))
		return false;
	if (!n->nchildren || !calls_node_open(c, node))
		return true;
	for (k = 0; k < n->nchildren; k++)
		if (!add_node(c, c->tree.kids[n->first + k]))
			return false;
	return true;
}

static void build_tree_rows(struct calls *c)
{
	size_t i;

	c->nrows = 0;
	for (i = 0; i < c->tree.nroots; i++)
		if (!add_node(c, c->tree.roots[i]))
			return;
}

static void build_rows(struct calls *c)
{
	size_t i, n = 0;
	uint32_t f;

	if (c->view != V_SITES) {
		build_tree_rows(c);
		return;
	}

	for (i = 0; i < c->rep.nsites; i++)
		n += 1 + (c->open[i] ? c->rep.sites[i].nframes : 0);
	free(c->rows);
	c->rows = malloc((n ? n : 1) * sizeof(*c->rows));
	c->caprows = n ? n : 1;
	c->nrows = 0;
	if (!c->rows) {
		c->caprows = 0;
		return;
	}
	for (i = 0; i < c->rep.nsites; i++) {
		c->rows[c->nrows++] = (struct row){ i, -1 };
		if (c->open[i])
			for (f = 0; f < c->rep.sites[i].nframes; f++)
				c->rows[c->nrows++] = (struct row){ i, (int)f };
	}
}

/* The window's two marks (from, to), or false with c->why. */
static bool window_marks(struct ui *u, struct calls *c, unsigned *from,
			 unsigned *to)
{
	unsigned end = tracer_marks(u->tracer) + 1, a, b;

	*from = 0;
	*to = end;
	c->why[0] = '\0';
	switch (c->window) {
	case W_ALL:
		return true;
	case W_SINCE:
		if (!(*from = calls_mark_of(&c->marks, u->snap))) {
			snprintf(c->why, sizeof(c->why),
				 "the snapshot shown was not taken while "
				 "tracing");
			return false;
		}
		return true;
	default:
		a = calls_mark_of(&c->marks, u->hist.mark[0]);
		b = calls_mark_of(&c->marks, u->hist.mark[1]);
		if (!a || !b) {
			snprintf(c->why, sizeof(c->why),
				 "mark two snapshots taken while tracing in "
				 "the timeline (T, then a and b)");
			return false;
		}
		*from = a < b ? a : b;
		*to = a < b ? b : a;
		return true;
	}
}

/* The report of the window, again; the cursor stays on its site. */
static void calls_rebuild(struct ui *u, struct calls *c)
{
	struct vms_error err = { 0 };
	size_t keep = c->nrows ? c->rows[c->lv.cur].site : 0;
	uint32_t keep_id = c->have && c->view == V_SITES && c->rep.nsites > keep
				   ? c->rep.sites[keep].id
				   : UINT32_MAX;
	uint64_t keep_path =
		c->have && c->view != V_SITES && c->tree.nnodes > keep
			? c->tree.nodes[keep].path
			: 0;
	unsigned from = 0, to = 0;
	size_t i, k;

	keep_open(c);
	drop_report(c);
	c->built_us = ui_clock_us();
	if (!u->tracer) { /* a saved trace: the snapshot's own report */
		c->why[0] = '\0';
		if (!u->snap || !u->snap->trace) {
			snprintf(c->why, sizeof(c->why),
				 "this snapshot was not saved with a trace");
			return;
		}
		c->rep = *u->snap->trace;
		c->saved = true;
	} else if (!window_marks(u, c, &from, &to)) {
		return;
	}
	arena_init(&c->ar); /* the report's (a live one), the tree's */
	c->have = true;
	/* a saved one narrowed to the viewer's row: from its kept blocks */
	if ((c->saved && c->in_lo < c->in_hi && trace_kept(u) &&
	     vms_trace_report_of(u->snap->trace, c->in_lo, c->in_hi, &c->ar,
				 &c->rep) < 0) ||
	    (!c->saved &&
	     tracer_report_in(u->tracer, from, to, c->in_lo, c->in_hi, &c->ar,
			      &c->rep, &err) < 0) ||
	    !(c->open = calloc(c->rep.nsites + 1, sizeof(*c->open)))) {
		ui_message(u, true, "%s",
			   err.msg[0] ? err.msg : "out of memory");
		drop_report(c);
		return;
	}
	for (i = 0; i < c->rep.nsites; i++)
		for (k = 0; k < c->nopen; k++)
			if (c->rep.sites[i].id == c->open_ids[k])
				c->open[i] = true;
	if (c->view != V_SITES &&
	    vms_calltree_build(&c->rep, c->view == V_CALLERS, &c->ar,
			       &c->tree) < 0) {
		ui_message(u, true, "%s", "out of memory for the call tree");
		drop_report(c);
		return;
	}
	build_rows(c);
	c->lv.cur = 0;
	for (i = 0; i < c->nrows; i++)
		if (c->view == V_SITES
			    ? c->rows[i].frame < 0 &&
				      c->rep.sites[c->rows[i].site].id ==
					      keep_id
			    : c->tree.nodes[c->rows[i].site].path == keep_path)
			c->lv.cur = i;
}

/* ---- actions ---- */

/* Opens or closes the tree's node under the cursor (by its path). */
static int toggle_node(struct calls *c)
{
	uint32_t node = (uint32_t)c->rows[c->lv.cur].site;
	uint64_t path = c->tree.nodes[node].path;
	size_t i;

	if (!c->tree.nodes[node].nchildren)
		return 0;
	for (i = 0; i < c->ntopen && c->topen[i] != path; i++)
		;
	if (i < c->ntopen) {
		c->topen[i] = c->topen[--c->ntopen];
	} else {
		if (c->ntopen == c->captopen) {
			size_t cap = c->captopen ? c->captopen * 2 : 64;
			uint64_t *p = realloc(c->topen, cap * sizeof(*p));

			if (!p)
				return 0;
			c->topen = p;
			c->captopen = cap;
		}
		c->topen[c->ntopen++] = path;
	}
	build_rows(c);
	for (i = 0; i < c->nrows; i++)
		if (c->rows[i].site == node)
			c->lv.cur = i;
	return UI_DRAW;
}

static int act_toggle(struct ui *u)
{
	struct calls *c = cs_of(u);
	size_t site;

	if (!c->nrows)
		return 0;
	if (c->view != V_SITES)
		return toggle_node(c);
	site = c->rows[c->lv.cur].site;
	c->open[site] = !c->open[site];
	build_rows(c);
	while (c->lv.cur && (c->rows[c->lv.cur].site != site ||
			     c->rows[c->lv.cur].frame >= 0))
		c->lv.cur--;
	return UI_DRAW;
}

static int act_open(struct ui *u)
{
	struct calls *c = cs_of(u);

	if (!c->nrows ||
	    (c->view == V_SITES
		     ? c->open[c->rows[c->lv.cur].site]
		     : calls_node_open(c, (uint32_t)c->rows[c->lv.cur].site)))
		return 0;
	return act_toggle(u);
}

static int act_close(struct ui *u)
{
	struct calls *c = cs_of(u);

	if (!c->nrows ||
	    !(c->view == V_SITES
		      ? c->open[c->rows[c->lv.cur].site]
		      : calls_node_open(c, (uint32_t)c->rows[c->lv.cur].site)))
		return 0;
	return act_toggle(u);
}

static int act_view(struct ui *u)
{
	struct calls *c = cs_of(u);

	c->view = (c->view + 1) % V_COUNT;
	c->lv.cur = c->lv.top = 0;
	c->nrows = 0;
	calls_rebuild(u, c);
	return UI_DRAW;
}

static int act_window(struct ui *u)
{
	struct calls *c = cs_of(u);

	if (!u->tracer) {
		ui_message(u, false, "%s",
			   "a saved trace has one window: up to its snapshot");
		return UI_DRAW;
	}
	c->window = (c->window + 1) % W_COUNT;
	calls_rebuild(u, c);
	return UI_DRAW;
}

/* f: only what is alive in the viewer's row, or everything again. */
static int act_filter(struct ui *u)
{
	struct calls *c = cs_of(u);

	if (!u->tracer && !c->in_hi && !trace_kept(u)) {
		ui_message(u, false, "%s",
			   "this file keeps the trace's call sites only (saved "
			   "by an older vmscope), not where each block lies");
		return UI_DRAW;
	}
	if (c->in_hi)
		c->in_lo = c->in_hi = 0;
	else if (!details_cursor_span(u, &c->in_lo, &c->in_hi, c->in_what,
				      sizeof(c->in_what)))
		return UI_DRAW;
	calls_rebuild(u, c);
	return UI_DRAW;
}

static int act_back(struct ui *u)
{
	u->next = SCR_VIEWER;
	return UI_SWITCH | UI_DRAW;
}

static int act_refresh(struct ui *u)
{
	(void)u; /* a loaded snapshot: the viewer says it is not refreshed */
	return UI_RESAMPLE;
}

static const struct key_action calls_keys[] = {
	{ '\r', "Enter", "open or close a call site into its stack",
	  act_toggle },
	{ '\n', NULL, NULL, act_toggle },
	{ KEY_ENTER, NULL, NULL, act_toggle },
	{ KEY_RIGHT, "Right +", "open it", act_open },
	{ '+', NULL, NULL, act_open },
	{ KEY_LEFT, "Left -", "close it", act_close },
	{ '-', NULL, NULL, act_close },
	{ 'w', "w",
	  "the window: the whole trace, since the snapshot shown, between "
	  "the timeline's marks",
	  act_window },
	{ 'v', "v",
	  "the view: the call sites, the call tree callers first, callees "
	  "first",
	  act_view },
	{ 'f', "f",
	  "only what is alive in the viewer's row (a region's commit stack, "
	  "a heap's blocks); again: everything",
	  act_filter },
	{ KEY_F(5), "F5 r", "take a snapshot (a mark of the trace)",
	  act_refresh },
	{ 'r', NULL, NULL, act_refresh },
	{ 't', "t", "next colour theme", ui_next_theme },
	{ 27, "Esc C", "back to the viewer", act_back },
	{ 'C', NULL, NULL, act_back },
	{ 'q', "q F10", "quit", ui_quit },
	{ KEY_F(10), NULL, NULL, ui_quit },
	{ 0, NULL, NULL, NULL },
};

static int calls_key(struct ui *u, int key)
{
	struct calls *c = cs_of(u);
	int r = key_dispatch(u, calls_keys, key);

	if (r >= 0)
		return r;
	return listview_key(&c->lv, c->nrows, key) ? UI_DRAW : 0;
}

static int calls_mouse(struct ui *u, int y, int x, mmask_t b)
{
	struct calls *c = cs_of(u);

	(void)x;
	return listview_pick(&c->lv, c->nrows, y, b, 3) ? UI_DRAW : 0;
}

static int calls_enter(struct ui *u)
{
	if (!u->tracer && !(u->snap && u->snap->trace)) {
		ui_message(
			u, true, "%s",
			"no trace: vmscope --trace -- CMD traces a command's "
			"allocations (-w FILE saves them with its snapshot)");
		return -1;
	}
	calls_rebuild(u, cs_of(u));
	return 0;
}

/* Every snapshot taken while tracing is a mark of the trace. */
static void calls_snapshot_changed(struct ui *u, const struct vms_snapshot *old,
				   bool new_process)
{
	struct calls *c = cs_of(u);
	int m;

	(void)old;
	(void)new_process;
	if (!u->tracer) { /* a saved report is the old snapshot's */
		keep_open(c);
		drop_report(c);
		c->why[0] = '\0';
		return;
	}
	calls_marks_forget(&c->marks, u);
	if (!u->snap || calls_mark_of(&c->marks, u->snap) ||
	    tracer_wait(u->tracer, NULL))
		return;
	{
		struct vms_error err = { 0 };

		tracer_drain(u->tracer, &err); /* what came before it */
	}
	if ((m = tracer_mark(u->tracer)) < 0)
		return;
	calls_mark_add(&c->marks, u->snap, (unsigned)m);
	if (u->scr == SCR_CALLS)
		calls_rebuild(u, c);
}

int calls_save(struct ui *u, const struct vms_snapshot *s, void **buf,
	       size_t *len, struct vms_error *err)
{
	struct vms_trace_report rep;
	struct arena a;
	unsigned m = u->tracer ? calls_mark_of(&cs_of(u)->marks, s) : 0;
	int rc;

	if (!m)
		return vms_snapshot_save(s, buf, len, err);
	arena_init(&a);
	rc = tracer_report_kept(u->tracer, m, &a, &rep, err);
	if (rc == 0)
		rc = tracer_keep_live(u->tracer, m, &a, &rep, err);
	if (rc == 0)
		rc = vms_snapshot_save_traced(s, &rep, buf, len, err);
	arena_fini(&a);
	return rc;
}

static void calls_init(struct ui *u)
{
	if (u->tracer)
		u->tick_ms = TICK_MS;
}

/* Reads the rings; while shown, the figures so far once a second. */
static int calls_tick(struct ui *u)
{
	struct calls *c = cs_of(u);
	struct vms_error err = { 0 };
	bool ended;

	if (!u->tracer)
		return 0;
	if (tracer_drain(u->tracer, &err) < 0) {
		ui_message(u, true, "%s", err.msg);
		return UI_DRAW;
	}
	ended = tracer_wait(u->tracer, NULL);
	if (ended && !c->ended_seen) {
		c->ended_seen = true;
		ui_message(u, false, "%s",
			   "the traced program ended: C shows its call sites");
		return UI_DRAW;
	}
	if (u->scr == SCR_CALLS && !ended &&
	    ui_clock_us() - c->built_us > 1e6) {
		calls_rebuild(u, c);
		return UI_DRAW;
	}
	return 0;
}

static void calls_free(struct ui *u)
{
	drop_report(cs_of(u));
	free(cs_of(u)->open_ids);
	free(cs_of(u)->topen);
}

/* The screen's draw: the report built first where it is not (calls_draw
 * only draws). */
static void draw(struct ui *u)
{
	struct calls *c = cs_of(u);

	if (!c->have && !c->why[0])
		calls_rebuild(u, c);
	calls_draw(u);
}

/* The key of the viewer that opens the calls (ui_priv.h: from_keys). */
static int act_enter_from_viewer(struct ui *u)
{
	u->next = SCR_CALLS;
	return UI_SWITCH | UI_DRAW;
}

static const struct key_action from_viewer[] = {
	{ 'C', "C",
	  "the call sites of the allocation trace (--trace -- CMD, or a file "
	  "saved with its trace)",
	  act_enter_from_viewer },
	{ 0, NULL, NULL, NULL },
};

const struct ui_screen screen_calls = {
	.name = "calls",
	.title = "Call sites (C in the viewer, with --trace)",
	.keys = calls_keys,
	.data_size = sizeof(struct calls),
	.init = calls_init,
	.free = calls_free,
	.enter = calls_enter,
	.snapshot_changed = calls_snapshot_changed,
	.draw = draw,
	.key = calls_key,
	.mouse = calls_mouse,
	.tick = calls_tick,
	.from = SCR_VIEWER,
	.from_keys = from_viewer,
};
