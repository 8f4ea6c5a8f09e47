/* ui_capture.c — a capture with its progress on screen (ui_capture.h):
 * a box, or the frame's status line once a frame is there; the frame
 * drawn again as the counters of its regions come in; Esc or q cancels;
 * other keys typed meanwhile kept for the loop.
 */
#include "ui_capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/draw.h"
#include "core/ui_priv.h"
#include "pipeline.h"
#include "preview.h"
#include "ui.h"
#include "ui_term.h"

/* Keys typed while a capture ran (other than the Esc or q that cancel
 * it), replayed after it: typing ahead loses nothing. */
static int typed[64];
static size_t ntyped;

int ui_capture_typed(void)
{
	int ch;

	if (!ntyped)
		return ERR;
	ch = typed[0];
	memmove(typed, typed + 1, --ntyped * sizeof(typed[0]));
	return ch;
}

struct progress {
	struct ui *u;
	void (*draw)(struct ui *u);
	pid_t pid;
	bool cancelled;
	double last;
	/* The streaming fill (open_pid): u->snap is the frame of u->pre,
	 * its counters filled in as the capture reads them. */
	double last_frame;
	/* VMSCOPE_FILL_PAUSE=N, for the tests: once N regions are filled,
	 * the frame is drawn and the capture waits for a key (the key is
	 * not acted on); only with the pss sampler without --freeze, which
	 * never stops the target. 0: no pause. */
	size_t pause_at;
};

/* what: a step (done of total when total is known; done alone, bytes
 * so far, when it is not: a heap walk), or NULL while regions are read
 * (done of them). */
static void draw_progress(struct ui *u, pid_t pid, const char *what,
			  size_t regions, size_t total)
{
	int w = 56, y = LINES / 2 - 2, x = (COLS - w) / 2;
	char pct[16] = "";

	if (what && total && regions <= total)
		snprintf(pct, sizeof(pct), " %d%%",
			 (int)((double)regions * 100 / (double)total));
	else if (what && !total && regions) {
		char b[16];

		snprintf(pct, sizeof(pct), " %s",
			 fmt_size((uint64_t)regions, b, sizeof(b)));
	}

	if (u->snap && u->scr == SCR_VIEWER && COLS >= UI_MIN_COLS &&
	    LINES >= UI_MIN_LINES) {
		/* a frame is on screen: progress goes in its status line */
		if (what)
			put_fmt(LINES - 1, 0, COLS, theme_attr(EL_FIND),
				" pid %d: %s%s   Esc cancels", (int)pid, what,
				pct);
		else
			put_fmt(LINES - 1, 0, COLS, theme_attr(EL_FIND),
				" Reading the counters of pid %d: %zu of ~%zu "
				"regions   Esc cancels",
				(int)pid, regions, u->snap->nregions);
		refresh();
		return;
	}
	if (x < 0) {
		x = 0;
		w = COLS;
	}
	put_blank(y, x, w, theme_attr(EL_TITLE));
	if (what)
		put_fmt(y + 1, x, w, theme_attr(EL_TITLE), "  Process %d: %s%s",
			(int)pid, what, pct);
	else
		put_fmt(y + 1, x, w, theme_attr(EL_TITLE),
			"  Reading process %d: %zu regions", (int)pid, regions);
	put_fmt(y + 2, x, w, theme_attr(EL_TITLE), "  Esc or q cancels");
	put_blank(y + 3, x, w, theme_attr(EL_TITLE));
	refresh();
}

/* what: a step's name, or NULL while regions are read. */
static int on_progress(void *ctx, const char *what, size_t done, size_t total)
{
	struct progress *p = ctx;
	double t = ui_clock_us();
	int ch;

	if (t - p->last > 50000) {
		draw_progress(p->u, p->pid, what, done, total);
		p->last = t;
	}
	timeout(0);
	while ((ch = getch()) != ERR) {
		if (ch == 27 || ch == 'q')
			p->cancelled = true;
		else if (ntyped < sizeof(typed) / sizeof(typed[0]))
			typed[ntyped++] = ch;
	}
	timeout(250);
	return p->cancelled || ui_term_signal();
}

/* The counters of the regions read so far are in the preview on screen
 * (preview.h; filled: how many this time): the frame drawn again with
 * them at most every 50 ms (the caller draws the full snapshot after). */
static int on_regions(void *ctx, const struct vms_preview *pv, size_t filled)
{
	struct progress *p = ctx;
	struct ui *u = p->u;
	double t = ui_clock_us();
	bool pause;

	if (!filled)
		return p->cancelled || ui_term_signal();
	pause = p->pause_at && vms_preview_filled(pv) >= p->pause_at;
	if (pause || t - p->last_frame > 50000) {
		p->draw(u);
		if (COLS >= UI_MIN_COLS && LINES >= UI_MIN_LINES)
			put_fmt(LINES - 1, 0, COLS, theme_attr(EL_FIND),
				" Reading the counters of pid %d: %zu of ~%zu "
				"regions%s",
				(int)p->pid, vms_preview_filled(pv),
				u->snap->nregions,
				pause ? "   paused (VMSCOPE_FILL_PAUSE): a key "
					"goes on"
				      : "   Esc cancels");
		refresh();
		p->last_frame = t;
		p->last = t; /* the status line is fresh */
	}
	if (pause) {
		p->pause_at = 0;
		timeout(-1);
		while (getch() == ERR && !ui_term_signal())
			;
		timeout(250);
	}
	return p->cancelled || ui_term_signal();
}

struct vms_snapshot *ui_capture(struct ui *u, pid_t pid,
				void (*draw)(struct ui *u), bool *cancelled,
				struct vms_error *err)
{
	struct vms_capture_opts co = u->opts->copts;
	struct progress p = {
		.u = u, .draw = draw, .pid = pid, .last = ui_clock_us()
	};
	const char *pause = getenv("VMSCOPE_FILL_PAUSE");
	struct vms_snapshot *s;

	co.pid = pid;
	/* a save from the screen asked for a snapshot a file can hold; and
	 * every snapshot keeps it while the process is not large (its last
	 * snapshot, or the frame from maps), so that w saves at once and
	 * the timeline can be saved (T, w): not under -b fork, whose fast
	 * freeze does without the text (it holds the target longer) */
	co.keep_raw = co.keep_raw || u->keep_raw ||
		      (u->snap && u->snap->nregions <= UI_KEEP_RAW_REGIONS &&
		       (!u->opts->sampler ||
			strcmp(u->opts->sampler->name, "fork") != 0));
	u->keep_raw = false;
	/* the viewer shows region contents: the fork clone (or the frozen
	 * target's reader) lives as long as the snapshot, but not into the
	 * next capture, where the pages the target shares with it would
	 * read as shared (a cancelled capture leaves the old snapshot
	 * without memory: its contents then say so) */
	co.keep_memory = true;
	if (u->snap)
		vms_memview_release(u->snap);
	co.progress = on_progress;
	co.progress_ctx = &p;
	/* the array sized once, from the layout on screen */
	co.expect_regions = u->snap ? u->snap->nregions : 0;
	/* never while the target is held still (--freeze, the fork
	 * sampler's freeze): a test's pause must not stop it */
	if (u->pre && !co.freeze && strcmp(u->opts->sampler->name, "pss") == 0)
		p.pause_at = pause ? strtoul(pause, NULL, 10) : 0;
	draw_progress(u, pid, NULL, 0, 0);
	/* the capture writes over the preview's regions: one array of
	 * them in the viewer, not two */
	s = u->pre ? vms_preview_capture(u->pre, u->opts->sampler, &co,
					 on_regions, &p, err)
		   : vms_capture(u->opts->sampler, &co, err);
	*cancelled = p.cancelled;
	return s;
}
