/* screen_calls.c — the call sites of an allocation trace (vmscope --trace
 * -- CMD in the viewer): one row a call site, by impacting size, with the
 * counts and bytes of WPA's impacting types in the window chosen; Enter
 * or Right opens a site into its stack, innermost first. The counts are
 * of blocks: outstanding (allocated in the window, alive at its end),
 * transient (allocated and freed in it), released (allocated before it,
 * freed in it), lasting (allocated before it, alive at its end).
 *
 * The window (w cycles): the whole trace; since the snapshot shown (what
 * the program did after it); between the timeline's marks A and B. Each
 * snapshot taken while tracing is a mark of the trace (tracer_mark, in
 * snapshot_changed, which every screen is told of), so a window is the
 * span between two snapshots, as VMMap's and WPA's are.
 *
 * The screen also keeps the trace read: its tick drains the rings on
 * every pass of the loop (ui.c wakes every TICK_MS while tracing), on
 * whatever screen is shown; while it is shown it redraws once a second
 * with the figures so far.
 *
 * A snapshot file saved while tracing (-l FILE) keeps its trace up to the
 * snapshot (model/snapshot.h, trace): without a tracer the screen shows
 * that report, read-only: its one window, no marks, nothing to read.
 *
 * Contract: u->tracer is the caller's (cli); this file only reads it and
 * marks it. The report lives in the screen's arena until the next one (a
 * saved one is the snapshot's, dropped when the snapshot changes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "core/draw.h"
#include "core/listview.h"
#include "core/ui_priv.h"
#include "trace/tracer.h"

#define TICK_MS 10
#define MARKS_MAX (HIST_MAX * 4)

enum window { W_ALL, W_SINCE, W_MARKS, W_COUNT };

static const char *const window_names[W_COUNT] = {
	"the whole trace",
	"since the snapshot shown",
	"between the timeline's marks A and B",
};

struct row {
	size_t site;
	int frame; /* -1: the site's own row */
};

/* The screen's own state (u->data[SCR_CALLS]). */
struct calls {
	struct listview lv;
	enum window window;
	/* the marks: which snapshot took which (the newest MARKS_MAX) */
	const struct vms_snapshot *snap[MARKS_MAX];
	unsigned mark[MARKS_MAX];
	size_t nmarks;
	struct arena ar; /* the report's */
	bool have; /* rep is built */
	bool saved; /* rep is the snapshot's own (no tracer): ar unused */
	struct vms_trace_report rep;
	bool *open; /* by site, in rep */
	uint32_t *open_ids; /* the sites open (their ids): kept across
			     * reports, as the figures follow the trace */
	size_t nopen;
	struct row *rows;
	size_t nrows;
	double built_us; /* when rep was built */
	bool ended_seen;
	char why[160]; /* why the window is empty (no marks ...) */
};

static struct calls *cs_of(const struct ui *u)
{
	return u->data[SCR_CALLS];
}

static double mono_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static unsigned mark_of(const struct calls *c, const struct vms_snapshot *s)
{
	size_t i;

	for (i = 0; s && i < c->nmarks; i++)
		if (c->snap[i] == s)
			return c->mark[i];
	return 0;
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
	if (c->have && !c->saved)
		arena_fini(&c->ar);
	c->saved = false;
	free(c->open);
	free(c->rows);
	c->open = NULL;
	c->rows = NULL;
	c->nrows = 0;
	c->have = false;
}

static void build_rows(struct calls *c)
{
	size_t i, n = 0;
	uint32_t f;

	for (i = 0; i < c->rep.nsites; i++)
		n += 1 + (c->open[i] ? c->rep.sites[i].nframes : 0);
	free(c->rows);
	c->rows = malloc((n ? n : 1) * sizeof(*c->rows));
	c->nrows = 0;
	if (!c->rows)
		return;
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
		if (!(*from = mark_of(c, u->snap))) {
			snprintf(c->why, sizeof(c->why),
				 "the snapshot shown was not taken while "
				 "tracing");
			return false;
		}
		return true;
	default:
		a = mark_of(c, u->hist.mark[0]);
		b = mark_of(c, u->hist.mark[1]);
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
static void rebuild(struct ui *u, struct calls *c)
{
	struct vms_error err = { 0 };
	size_t keep = c->nrows ? c->rows[c->lv.cur].site : 0;
	uint32_t keep_id = c->have && c->rep.nsites > keep
				   ? c->rep.sites[keep].id
				   : UINT32_MAX;
	unsigned from, to;
	size_t i, k;

	keep_open(c);
	drop_report(c);
	c->built_us = mono_us();
	if (!u->tracer) { /* a saved trace: the snapshot's own report */
		c->why[0] = '\0';
		if (!u->snap || !u->snap->trace) {
			snprintf(c->why, sizeof(c->why),
				 "this snapshot was not saved with a trace");
			return;
		}
		c->rep = *u->snap->trace;
		c->have = c->saved = true;
	} else if (!window_marks(u, c, &from, &to)) {
		return;
	} else {
		arena_init(&c->ar);
		c->have = true;
	}
	if ((!c->saved &&
	     tracer_report(u->tracer, from, to, &c->ar, &c->rep, &err) < 0) ||
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
	build_rows(c);
	c->lv.cur = 0;
	for (i = 0; i < c->nrows; i++)
		if (c->rows[i].frame < 0 &&
		    c->rep.sites[c->rows[i].site].id == keep_id)
			c->lv.cur = i;
}

/* ---- drawing ---- */

static void frame_text(const struct vms_trace_frame *f, char *buf, size_t n)
{
	const char *m = f->module ? strrchr(f->module, '/') : NULL;
	const char *file = f->file ? strrchr(f->file, '/') : NULL;

	m = m ? m + 1 : f->module;
	if (f->function && f->file)
		snprintf(buf, n, "%s (%s:%u)  %s", f->function,
			 file ? file + 1 : f->file, f->line, m ? m : "");
	else if (f->function)
		snprintf(buf, n, "%s  %s", f->function, m ? m : "");
	else if (m)
		snprintf(buf, n, "%s+0x%llx", m, (unsigned long long)f->offset);
	else
		snprintf(buf, n, "0x%llx", (unsigned long long)f->ip);
}

static void draw_row(void *ctx, int y, size_t i, bool sel)
{
	struct calls *c = ctx;
	const struct row *r = &c->rows[i];
	const struct vms_trace_site *s = &c->rep.sites[r->site];
	attr_t at = theme_attr(sel ? EL_SELECTION : EL_NORMAL);
	char a[16], b[16], d[16], e[16], st[512];

	if (r->frame >= 0) {
		frame_text(&s->frames[r->frame], st, sizeof(st));
		put_blank(y, 0, 6, at);
		put_fmt(y, 6, COLS - 6, sel ? at : theme_attr(EL_CHILD),
			"%s %s", r->frame ? "<" : " ", st);
		return;
	}
	if (s->nframes)
		frame_text(&s->frames[0], st, sizeof(st));
	else
		snprintf(st, sizeof(st), "(no stack)");
	if (s->impacting_bytes < 0)
		snprintf(a, sizeof(a), "-%s",
			 fmt_size((uint64_t)-s->impacting_bytes, d, sizeof(d)));
	else
		fmt_size((uint64_t)s->impacting_bytes, a, sizeof(a));
	put_fmt(y, 0, COLS, at,
		" %s %-4s %9s %9s %7llu %9s %7llu %7llu %7llu  %s",
		c->open[r->site] ? "-" : "+", vms_trace_kind_names[s->kind], a,
		fmt_size(s->by[VMS_TRACE_outstanding].bytes, b, sizeof(b)),
		(unsigned long long)s->by[VMS_TRACE_outstanding].count,
		fmt_size(s->by[VMS_TRACE_transient].bytes, e, sizeof(e)),
		(unsigned long long)s->by[VMS_TRACE_transient].count,
		(unsigned long long)s->by[VMS_TRACE_released].count,
		(unsigned long long)s->by[VMS_TRACE_lasting].count, st);
}

static void calls_draw(struct ui *u)
{
	struct calls *c = cs_of(u);
	const struct vms_trace_report *r = &c->rep;
	char right[48];
	int st = 0;
	bool ended;

	if (!c->have && !c->why[0])
		rebuild(u, c);
	if (u->tracer)
		ended = tracer_wait(u->tracer, &st);
	else if ((ended = c->have && r->ended && r->exit_status >= 0))
		st = (int)r->exit_status;
	put_fmt(0, 0, COLS, theme_attr(EL_TITLE),
		" vmscope  call sites  %s  pid %d  %s",
		u->snap && u->snap->proc.name ? u->snap->proc.name : "?",
		u->snap ? (int)u->snap->proc.pid : 0,
		ended	    ? (WIFEXITED(st) ? "ended" : "killed")
		: u->tracer ? "traced"
			    : "saved trace");
	if (c->have && c->saved)
		put_fmt(1, 0, COLS, theme_attr(EL_LABEL),
			" Window: saved with the snapshot (%.1f s to %.1f s)  "
			"%s, %llu calls%s",
			(double)r->from_ns / 1e9, (double)r->to_ns / 1e9,
			r->sampled ? "sampled" : "exact",
			(unsigned long long)r->events,
			r->dropped ? ", some not recorded" : "");
	else if (c->have)
		put_fmt(1, 0, COLS, theme_attr(EL_LABEL),
			" Window: %s (%.1f s to %.1f s)  %s, %llu calls%s",
			window_names[c->window], (double)r->from_ns / 1e9,
			(double)r->to_ns / 1e9,
			r->sampled ? "sampled" : "exact",
			(unsigned long long)r->events,
			r->dropped ? ", some not recorded" : "");
	else
		put_fmt(1, 0, COLS, theme_attr(EL_LABEL), " Window: %s: %s",
			window_names[c->window], c->why);
	put_fmt(2, 0, COLS, theme_attr(EL_COLUMN),
		"   Kind Impacting Outstand.   Count Transient   Count "
		"Release Lasting  Stack (innermost first)");
	listview_draw(&c->lv, 3, LINES - 4, c->nrows, draw_row, c);
	snprintf(right, sizeof(right), "%zu/%zu", c->nrows ? c->lv.cur + 1 : 0,
		 c->nrows);
	ui_status(u,
		  " Enter open  w window  r snapshot (a mark)  Esc back  "
		  "q quit",
		  right);
}

/* ---- actions ---- */

static int act_toggle(struct ui *u)
{
	struct calls *c = cs_of(u);
	size_t site;

	if (!c->nrows)
		return 0;
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

	if (!c->nrows || c->open[c->rows[c->lv.cur].site])
		return 0;
	return act_toggle(u);
}

static int act_close(struct ui *u)
{
	struct calls *c = cs_of(u);

	if (!c->nrows || !c->open[c->rows[c->lv.cur].site])
		return 0;
	return act_toggle(u);
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
	rebuild(u, c);
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
	size_t row;

	(void)x;
	switch (listview_mouse(&c->lv, c->nrows, y, b, 3, &row)) {
	case LV_WHEEL:
		return UI_DRAW;
	case LV_ROW:
		c->lv.cur = row;
		return UI_DRAW;
	default:
		return 0;
	}
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
	rebuild(u, cs_of(u));
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
	if (!u->snap || mark_of(c, u->snap) || tracer_wait(u->tracer, NULL))
		return;
	{
		struct vms_error err = { 0 };

		tracer_drain(u->tracer, &err); /* what came before it */
	}
	if ((m = tracer_mark(u->tracer)) < 0)
		return;
	if (c->nmarks == MARKS_MAX) {
		memmove(c->snap, c->snap + 1,
			(MARKS_MAX - 1) * sizeof(*c->snap));
		memmove(c->mark, c->mark + 1,
			(MARKS_MAX - 1) * sizeof(*c->mark));
		c->nmarks--;
	}
	c->snap[c->nmarks] = u->snap;
	c->mark[c->nmarks++] = (unsigned)m;
	if (u->scr == SCR_CALLS)
		rebuild(u, c);
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
	if (u->scr == SCR_CALLS && !ended && mono_us() - c->built_us > 1e6) {
		rebuild(u, c);
		return UI_DRAW;
	}
	return 0;
}

static void calls_free(struct ui *u)
{
	drop_report(cs_of(u));
	free(cs_of(u)->open_ids);
}

const struct ui_screen screen_calls = {
	.name = "calls",
	.title = "Call sites (C in the viewer, with --trace)",
	.keys = calls_keys,
	.data_size = sizeof(struct calls),
	.init = calls_init,
	.free = calls_free,
	.enter = calls_enter,
	.snapshot_changed = calls_snapshot_changed,
	.draw = calls_draw,
	.key = calls_key,
	.mouse = calls_mouse,
	.tick = calls_tick,
};
