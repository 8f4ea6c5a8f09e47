/* calls_draw.c — the calls screen's drawing (screen_calls.c has the
 * screen's contract): its title, the window's line, the headings and the
 * rows, a call site with its stack or a node of the call tree.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "core/draw.h"
#include "core/listview.h"
#include "core/ui_priv.h"
#include "panes/panes.h"
#include "screens/calls_priv.h"
#include "trace/tracer.h"

const char *const calls_window_names[W_COUNT] = {
	"the whole trace",
	"since the snapshot shown",
	"between the timeline's marks A and B",
};

const char *const calls_view_names[V_COUNT] = {
	"call sites",
	"call tree, callers first",
	"call tree, callees first",
};

bool calls_node_open(const struct calls *c, uint32_t node)
{
	size_t i;

	for (i = 0; i < c->ntopen; i++)
		if (c->topen[i] == c->tree.nodes[node].path)
			return true;
	return false;
}

/* The figures' columns of a row: impacting, outstanding, transient,
 * released and lasting (as the heading says). */
static void figures(const struct vms_trace_count *by, int64_t impacting,
		    bool narrow, char *buf, size_t n)
{
	char a[16], b[16], d[16], e[16];

	if (impacting < 0)
		snprintf(a, sizeof(a), "-%s",
			 fmt_size((uint64_t)-impacting, d, sizeof(d)));
	else
		fmt_size((uint64_t)impacting, a, sizeof(a));
	snprintf(buf, n, "%9s %9s %7llu %9s %7llu", a,
		 fmt_size(by[VMS_TRACE_outstanding].bytes, b, sizeof(b)),
		 (unsigned long long)by[VMS_TRACE_outstanding].count,
		 fmt_size(by[VMS_TRACE_transient].bytes, e, sizeof(e)),
		 (unsigned long long)by[VMS_TRACE_transient].count);
	if (!narrow)
		snprintf(buf + strlen(buf), n - strlen(buf), " %7llu %7llu",
			 (unsigned long long)by[VMS_TRACE_released].count,
			 (unsigned long long)by[VMS_TRACE_lasting].count);
}

/* Below 100 columns the tree leaves out Released and Lasting: its names,
 * indented, need the room more. */
static bool tree_narrow(void)
{
	return COLS < 100;
}

/* A node of the call tree: its figures, then its function indented by
 * its depth. */
static void draw_node(struct calls *c, int y, uint32_t node, attr_t at)
{
	const struct vms_calltree_node *n = &c->tree.nodes[node];
	char fig[128], st[512];
	int indent = n->depth < 30 ? (int)n->depth * 2 : 60;

	figures(n->by, n->impacting_bytes, tree_narrow(), fig, sizeof(fig));
	if (n->frame)
		trace_frame_text(n->frame, st, sizeof(st));
	else
		snprintf(st, sizeof(st), "(no stack)");
	put_fmt(y, 0, COLS, at, " %s      %s  %*s%s",
		!n->nchildren		   ? " "
		: calls_node_open(c, node) ? "-"
					   : "+",
		fig, indent, "", st);
}

static void draw_row(void *ctx, int y, size_t i, bool sel)
{
	struct calls *c = ctx;
	const struct row *r = &c->rows[i];
	const struct vms_trace_site *s;
	attr_t at = theme_attr(sel ? EL_SELECTION : EL_NORMAL);
	char fig[128], st[512];

	if (c->view != V_SITES) {
		draw_node(c, y, (uint32_t)r->site, at);
		return;
	}
	s = &c->rep.sites[r->site];

	if (r->frame >= 0) {
		trace_frame_text(&s->frames[r->frame], st, sizeof(st));
		put_blank(y, 0, 6, at);
		put_fmt(y, 6, COLS - 6, sel ? at : theme_attr(EL_CHILD),
			"%s %s", r->frame ? "<" : " ", st);
		return;
	}
	if (s->nframes)
		trace_frame_text(&s->frames[0], st, sizeof(st));
	else
		snprintf(st, sizeof(st), "(no stack)");
	figures(s->by, s->impacting_bytes, false, fig, sizeof(fig));
	put_fmt(y, 0, COLS, at, " %s %-4s %s  %s", c->open[r->site] ? "-" : "+",
		vms_trace_kind_names[s->kind], fig, st);
}

/* Whether the window's line holds why it has no report. */
static bool why_fits(const struct calls *c)
{
	return 11 + text_cols(calls_window_names[c->window]) +
		       text_cols(c->why) <=
	       COLS;
}

void calls_draw(struct ui *u)
{
	struct calls *c = u->data[SCR_CALLS];
	const struct vms_trace_report *r = &c->rep;
	const struct vms_trace_report *kept = trace_kept(u);
	struct vms_error err = { 0 };
	char right[48];
	int st = 0, top, k;
	bool ended;
	attr_t la = theme_attr(EL_LABEL);

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
	/* the window's line, and the row's, each wrapped onto a second
	 * line where it does not fit (80 columns), not cut */
	if (u->tracer && ended && tracer_started(u->tracer, &err) < 0)
		top = 1 + put_wrapped_fmt(1, 1, COLS - 1, 2, la, "%s", err.msg);
	else if (c->have && c->saved)
		top = 1 +
		      put_wrapped_fmt(1, 1, COLS - 1, 2, la,
				      "Window: saved with the snapshot "
				      "(%.1f s to %.1f s)  %s, %llu calls%s",
				      (double)r->from_ns / 1e9,
				      (double)r->to_ns / 1e9,
				      r->sampled ? "sampled" : "exact",
				      (unsigned long long)r->events,
				      r->dropped ? ", some not recorded" : "");
	else if (c->have)
		top = 1 +
		      put_wrapped_fmt(1, 1, COLS - 1, 2, la,
				      "%s  Window: %s (%.1f s to %.1f s)  %s, "
				      "%llu calls%s",
				      calls_view_names[c->view],
				      calls_window_names[c->window],
				      (double)r->from_ns / 1e9,
				      (double)r->to_ns / 1e9,
				      r->sampled ? "sampled" : "exact",
				      (unsigned long long)r->events,
				      r->dropped ? ", some not recorded" : "");
	else /* why, where it does not fit: wrapped in the empty list */
		top = 1 + put_wrapped_fmt(1, 1, COLS - 1, 2, la,
					  "Window: %s: %s",
					  calls_window_names[c->window],
					  why_fits(c) ? c->why : "");
	if (c->in_hi)
		top += put_wrapped_fmt(
			top, 1, COLS - 1, 2, la,
			"Only what is alive %sin %llx-%llx: %s%s",
			c->saved ? "at the snapshot " : "",
			(unsigned long long)c->in_lo,
			(unsigned long long)c->in_hi, c->in_what,
			c->saved && kept &&
					kept->live->nblocks <
						kept->live->blocks_alive
				? "  (of the allocations the file keeps: the "
				  "first by address)"
				: "");
	for (k = 1; k < top; k++)
		put_blank(k, 0, 1, la);
	put_fmt(top, 0, COLS, theme_attr(EL_COLUMN),
		"   %s Impacting Outstand.   Count Transient   Count %s %s",
		c->view == V_SITES ? "Kind" : "    ",
		c->view != V_SITES && tree_narrow() ? "" : "Release Lasting ",
		c->view == V_SITES     ? "Stack (innermost first)"
		: c->view == V_CALLERS ? "Function (callers first)"
				       : "Function (callees first)");
	listview_draw(&c->lv, top + 1, LINES - top - 2, c->nrows, draw_row, c);
	if (!c->have && !why_fits(c))
		put_wrapped(top + 1, 1, COLS - 2, LINES - top - 2,
			    theme_attr(EL_LABEL), c->why);
	snprintf(right, sizeof(right), "%zu/%zu", c->nrows ? c->lv.cur + 1 : 0,
		 c->nrows);
	ui_status(u,
		  " Enter open  v view  w window  f only the row  r snapshot  "
		  "Esc back",
		  right);
}
