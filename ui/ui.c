/* ui.c — the curses front end's entry point and main loop: captures with
 * progress and cancel, the history of snapshots, the dispatch of keys to
 * the current screen (and to the from_keys of the screens it enters),
 * switching screens, resizing. It knows the screens only through their
 * tables (the screens[] below, made from UI_SCREENS). The terminal itself
 * (set up, restored on return, errors and signals) is ui_term.c's; a
 * capture with its progress on screen, ui_capture.c's. See ui.h and
 * ui_priv.h.
 */
#include "ui.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/draw.h"
#include "core/ui_priv.h"
#include "pipeline.h"
#include "preview.h"
#include "ui_capture.h"
#include "ui_term.h"

static const struct ui_screen *const screens[SCR_COUNT] = {
#define X(id, table) [id] = &table,
	UI_SCREENS(X)
#undef X
};

/* VMSCOPE_TIMING=FILE appends "key CODE MICROSECONDS CPU_MICROSECONDS"
 * (or "redraw" for Ctrl-L) for every key that redraws: from the key read
 * to the screen written, in wall time and in this thread's CPU time. And
 * "first 0 US CPU_US" when the first frame of a process (the layout from
 * maps) is on screen, "rss 0 US CPU_US" when its Rss from the page tables
 * is, "full 0 US CPU_US" when its capture is, all from the start of the
 * viewer; "idle SOON US CPU_US" for each screen's idle work, its own
 * time (SOON 1: run as soon as no key waited, 0: after a wait).
 * For make bench and the tests. */
static FILE *timing;
static double t_start, cpu_start;
/* this thread's CPU time, or the whole process's */
static double cpu_us_of(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static double cpu_us(void)
{
	return cpu_us_of(CLOCK_THREAD_CPUTIME_ID);
}

/* VMSCOPE_TIMING: a frame of a process, timed from the viewer's start */
static void log_frame(const char *what)
{
	if (timing)
		fprintf(timing, "%s 0 %.1f %.1f\n", what,
			ui_clock_us() - t_start,
			cpu_us_of(CLOCK_PROCESS_CPUTIME_ID) - cpu_start);
}

static void draw(struct ui *u);

/* The next --watch tick from now; none when the count is done. */
static void watch_arm(struct ui *u)
{
	u->watch_next = u->opts->watch_s > 0 && u->watch_left != 0
				? ui_clock_us() + u->opts->watch_s * 1e6
				: 0;
}

/* Makes id current; enter: call its enter (a switch), else it is shown
 * as it was (a return). Returns what enter did. */
static int set_screen(struct ui *u, enum ui_screen_id id, bool enter)
{
	u->prev = u->scr;
	u->scr = id;
	return enter && screens[id]->enter ? screens[id]->enter(u) : 0;
}

/* UI_SWITCH: u->next entered, unless its enter has nothing to show (-1,
 * having said why): the screen shown stays, as it was (C without a trace
 * showed an empty "saved trace" of call sites). */
static void switch_screen(struct ui *u)
{
	enum ui_screen_id was = u->scr, before = u->prev;

	if (set_screen(u, u->next, true) < 0) {
		u->scr = was;
		u->prev = before;
	}
}

/* Every screen's tick (background work), their flags. */
static int tick(struct ui *u)
{
	int k, flags = 0;

	for (k = 0; k < SCR_COUNT; k++)
		if (screens[k]->tick)
			flags |= screens[k]->tick(u);
	return flags;
}

/* The shown screen's idle work, once until the next key or snapshot
 * (u->idled), logged to VMSCOPE_TIMING: "idle 1" run as soon as no key
 * waited, "idle 0" after a wait without one. */
static void idle(struct ui *u, bool soon)
{
	if (!u->idled && screens[u->scr]->idle) {
		double i0 = ui_clock_us(), c = timing ? cpu_us() : 0;

		screens[u->scr]->idle(u);
		if (timing)
			fprintf(timing, "idle %d %.1f %.1f\n", soon ? 1 : 0,
				ui_clock_us() - i0, cpu_us() - c);
	}
	u->idled = true;
}

/* Drops the history's entry k (no free: into gone). */
static void hist_drop(struct history *h, size_t k, struct vms_snapshot **gone,
		      bool *gone_own)
{
	*gone = h->s[k];
	*gone_own = h->own[k];
	h->bytes -= vms_snapshot_bytes(h->s[k]);
	memmove(h->s + k, h->s + k + 1, (h->n - k - 1) * sizeof(h->s[0]));
	memmove(h->own + k, h->own + k + 1, (h->n - k - 1) * sizeof(h->own[0]));
	h->n--;
	if (h->mark[0] == *gone)
		h->mark[0] = NULL;
	if (h->mark[1] == *gone)
		h->mark[1] = NULL;
}

/* Makes s the newest snapshot (s may be NULL: none), tells every screen,
 * then frees what left the history (if it was ours). new_process: a
 * process is being opened, so the history starts again; else s joins
 * it, and the oldest leave while it holds more than HIST_MAX snapshots
 * or HIST_BUDGET bytes (never s, nor the one before it). The one shown before (old) stays alive
 * while the screens are told. */
static void set_snapshot(struct ui *u, struct vms_snapshot *s, bool own,
			 bool new_process)
{
	struct history *h = &u->hist;
	struct vms_snapshot *old = u->snap, *gone[HIST_MAX + 2];
	bool gone_own[HIST_MAX + 2];
	size_t ngone = 0, i;
	int k;
	/* a preview is shown until what replaces it (its capture's
	 * snapshot, or nothing) is: then it goes */
	struct vms_preview *gone_pre =
		u->pre && s != vms_preview_frame(u->pre) ? u->pre : NULL;

	if (gone_pre)
		u->pre = NULL;
	/* a layout from maps is only shown until its capture replaces it */
	if (old && u->pre_own) {
		gone[ngone] = old;
		gone_own[ngone++] = true;
	}
	u->pre_own = false;
	if (new_process || !s)
		while (h->n) {
			hist_drop(h, 0, &gone[ngone], &gone_own[ngone]);
			ngone++;
		}
	if (s && u->pre) {
		/* the preview's frame: not a snapshot, not in the history */
	} else if (s && s->cap.backend && strcmp(s->cap.backend, "maps") == 0 &&
		   own) {
		u->pre_own = true; /* not a snapshot to keep */
	} else if (s) {
		if (h->n == HIST_MAX) {
			hist_drop(h, 0, &gone[ngone], &gone_own[ngone]);
			ngone++;
		}
		h->s[h->n] = s;
		h->own[h->n++] = own;
		h->bytes += vms_snapshot_bytes(s);
		/* the newest two stay whatever their size: the main view's
		 * changes are against the one before (a process of a
		 * million regions fills the budget alone) */
		while (h->n > 2 && h->bytes > HIST_BUDGET) {
			hist_drop(h, 0, &gone[ngone], &gone_own[ngone]);
			ngone++;
		}
	}
	u->snap = s;
	u->idled = false;
	for (k = 0; k < SCR_COUNT; k++)
		if (screens[k]->snapshot_changed)
			screens[k]->snapshot_changed(u, old, new_process);
	for (i = 0; i < ngone; i++)
		if (gone_own[i] && gone[i] != s)
			vms_snapshot_free(gone[i]);
	vms_preview_free(gone_pre);
}

/* Opens the viewer on pid: the layout from /proc/PID/maps at once, its
 * counters filled in as the full capture reads them (on_regions), then
 * the capture's own snapshot in its place. On failure goes back where it
 * was, with *err. */
static int open_pid(struct ui *u, pid_t pid, struct vms_error *err)
{
	enum ui_screen_id was = u->scr;
	struct vms_error ignore;
	/* The layout from maps first (preview.h): shown at once, counters
	 * to follow. */
	struct vms_preview *pre = vms_preview_open(pid, &ignore);
	struct vms_snapshot *s;
	bool cancelled;

	if (pre) {
		u->pre = pre;
		set_snapshot(u, vms_preview_frame(pre), false, true);
		set_screen(u, SCR_VIEWER, true);
		draw(u);
		refresh();
		log_frame("first");
		/* then its Rss and Swap from the page tables, where the
		 * kernel gives them in one pass: a frame with them */
		if (vms_preview_rss(pre, &ignore) > 0) {
			draw(u);
			refresh();
			log_frame("rss");
		}
	}
	s = ui_capture(u, pid, draw, &cancelled, err);
	if (s) {
		set_snapshot(u, s, true, true);
		set_screen(u, SCR_VIEWER, true);
		if (timing) {
			draw(u);
			refresh();
			log_frame("full");
		}
		return 0;
	}
	if (pre && cancelled && !ui_term_signal()) {
		/* what the preview read, handed over as a snapshot (its
		 * rows made again: the capture wrote over them), shown but
		 * not kept in the history */
		u->pre = NULL;
		set_snapshot(u, vms_preview_end(pre), true, false);
		ui_message(u, true, "%s",
			   "cancelled: the counters of the regions read so "
			   "far only (r reads them all)");
		return 0;
	}
	if (pre) {
		set_snapshot(u, NULL, false, false);
		set_screen(u, was, false);
	}
	return -1;
}

/* ---- the loop ---- */

static void draw(struct ui *u)
{
	erase();
	if (COLS < UI_MIN_COLS || LINES < UI_MIN_LINES) {
		char l1[64], l2[64];

		snprintf(l1, sizeof(l1), "Terminal too small: %dx%d", COLS,
			 LINES);
		snprintf(l2, sizeof(l2), "need %dx%d", UI_MIN_COLS,
			 UI_MIN_LINES);
		put_str(LINES / 2 - 1, 0, COLS, A_NORMAL, l1, 0);
		put_str(LINES / 2, 0, COLS, A_NORMAL, l2, 0);
		return;
	}
	screens[u->scr]->draw(u);
}

static int mouse(struct ui *u)
{
	MEVENT ev;

	if (getmouse(&ev) != OK || !screens[u->scr]->mouse)
		return 0;
	return screens[u->scr]->mouse(u, ev.y, ev.x, ev.bstate);
}

static int dispatch(struct ui *u, int ch)
{
	const struct ui_screen *cur = screens[u->scr];
	bool typing = u->finding || u->prompting || cur->typing;

	if (ch == KEY_MOUSE)
		return mouse(u);
	if (ch == 12) /* Ctrl-L */
		return UI_DRAW | UI_CLEAR;
	/* too small, nothing is seen: a key but quit would act unseen (the
	 * help opened behind it, which Esc could not close) */
	if (COLS < UI_MIN_COLS || LINES < UI_MIN_LINES)
		return ch == 'q' || ch == KEY_F(10) ? UI_QUIT : 0;
	if (ch == KEY_F(1) || (ch == '?' && !typing)) {
		if (u->scr == SCR_HELP)
			return cur->key(u, 27);
		u->next = SCR_HELP;
		return UI_SWITCH | UI_DRAW;
	}
	if (!typing) {
		/* a key of the current screen that enters another: that
		 * screen's own from_keys */
		int k, r;

		for (k = 0; k < SCR_COUNT; k++)
			if (screens[k]->from == u->scr &&
			    (r = key_dispatch(u, screens[k]->from_keys, ch)) >=
				    0)
				return r;
	}
	return cur->key(u, ch);
}

static void loop(struct ui *u)
{
	int flags = UI_DRAW;
	bool ticked = false; /* the resample is a --watch tick's */
	double t0 = 0, c0 = 0;
	int last = 0;
	bool replayed;

	for (;;) {
		int ch;

		if (flags & UI_CLEAR)
			clearok(curscr, TRUE);
		if (flags & (UI_DRAW | UI_CLEAR)) {
			draw(u);
			refresh();
			if (timing && t0 > 0)
				fprintf(timing, "%s %d %.1f %.1f\n",
					last == 12 ? "redraw" : "key", last,
					ui_clock_us() - t0, cpu_us() - c0);
		}
		flags = 0;
		t0 = 0;
		ch = ui_capture_typed();
		replayed = ch != ERR;
		if (!replayed) {
			int wake = u->tick_ms ? u->tick_ms : 250;

			ch = ERR;
			flags |= tick(u);
			/* the screen's idle work as soon as no key waits: a
			 * key typed while it runs waits for it (the viewer's:
			 * some 60 ms of CPU once a snapshot of a million
			 * regions is on screen, microseconds after a key) */
			if (!u->idled && !(flags & UI_DRAW) &&
			    !ui_term_signal()) {
				timeout(0);
				ch = getch();
				if (ch == ERR)
					idle(u, true);
			}
			if (ch == ERR) {
				/* wake for the next --watch tick, not later */
				double left = u->watch_next - ui_clock_us();

				if (u->watch_next > 0 && left < wake * 1000.0)
					timeout(left > 0 ? (int)(left / 1000)
							 : 0);
				else
					timeout(wake);
				ch = getch();
			}
			timeout(250);
			if (ch == ERR && (flags & UI_DRAW))
				goto act;
		}
		if (ui_term_signal())
			return;
		if (ch == ERR && u->watch_next > 0 &&
		    ui_clock_us() >= u->watch_next && u->snap &&
		    vms_snapshot_refreshable(u->snap)) {
			/* a --watch tick: a refresh, as r */
			if (u->watch_left > 0)
				u->watch_left--;
			flags = UI_RESAMPLE;
			ticked = true;
			watch_arm(u);
			goto act;
		}
		if (ch == ERR) {
			idle(u, false);
			continue;
		}
		u->idled = false;
		t0 = ui_clock_us();
		c0 = timing ? cpu_us() : 0;
		last = ch;
		if (ch == KEY_RESIZE) {
			flags = UI_DRAW | UI_CLEAR;
			continue;
		}
		/* A message stays until a key typed after it was shown (keys
		 * typed during a capture are acted on, but leave its error
		 * up); that key is acted on too, never only dismisses it. */
		if (u->msg[0] && !u->finding && !replayed) {
			u->msg[0] = '\0';
			flags |= UI_DRAW;
		}
		flags |= dispatch(u, ch);
		if (flags & UI_QUIT)
			return;
act:
		if (flags & UI_SWITCH)
			switch_screen(u);
		else if (flags & UI_BACK)
			set_screen(u, u->prev, false);
		if ((flags & UI_RESAMPLE) &&
		    !vms_snapshot_refreshable(u->snap)) {
			flags &= ~(unsigned)UI_RESAMPLE;
			ui_message(u, true, "%s",
				   "a saved snapshot: there is nothing to "
				   "refresh");
			flags |= UI_DRAW;
		}
		if (flags & UI_RESAMPLE) {
			struct vms_error err = { 0 };
			bool cancelled;
			struct vms_snapshot *s = ui_capture(
				u, u->snap->proc.pid, draw, &cancelled, &err);

			if (s) {
				char said[sizeof(u->msg)];
				bool said_error = u->msg_error;

				/* a screen may say what the snapshot
				 * shows (snapshot_changed): that stays */
				memcpy(said, u->msg, sizeof(said));
				u->msg[0] = '\0';
				set_snapshot(u, s, true, false);
				/* a --watch tick says nothing: the key
				 * hints stay (the timeline, T, counts
				 * them), or what was said before it (a
				 * save's count), until the next key */
				if (ticked) {
					memcpy(u->msg, said, sizeof(said));
					u->msg_error = said_error;
				} else if (!u->msg[0])
					ui_message(u, false,
						   "new snapshot: %zu regions, "
						   "%zu in the timeline (T)",
						   s->nregions, u->hist.n);
			} else {
				ui_message(u, true, "%s%s",
					   cancelled ? "refresh cancelled"
						     : err.msg,
					   u->watch_next > 0
						   ? " (--watch stopped)"
						   : "");
				u->watch_next = 0; /* no tick after a failure */
			}
			flags |= UI_DRAW | UI_CLEAR;
		}
		ticked = false;
		if (flags & UI_OPEN) {
			struct vms_error err = { 0 };

			if (open_pid(u, u->open_pid, &err) == 0)
				u->from_picker = true;
			else
				ui_message(u, true, "%s", err.msg);
			flags |= UI_DRAW | UI_CLEAR;
		}
	}
}

/* The details' columns from the settings file (config.h); what is wrong
 * with it goes in warn, shown once the terminal is up: a bad file is
 * never a reason not to start. */
static void load_config(struct ui *u, char *warn, size_t n)
{
	struct vms_error e = { 0 };

	vms_config_default(&u->conf);
	if (vms_config_path(u->conf_path, sizeof(u->conf_path)) < 0) {
		u->conf_path[0] = '\0';
		return;
	}
	if (vms_config_load(&u->conf, u->conf_path, warn, n, &e) < 0)
		snprintf(warn, n, "%s; the default columns", e.msg);
}

/* The screens' own states (after their free). */
static void free_data(struct ui *u)
{
	int i;

	for (i = 0; i < SCR_COUNT; i++) {
		free(u->data[i]);
		u->data[i] = NULL;
	}
}

/* A key that enters a screen (its from_keys) may be no key of the screen
 * it is typed on, nor enter another screen from there: the one would
 * hide the other. Checked before anything is drawn, so a clash added
 * with a screen shows at the viewer's first start. */
static int check_entries(struct vms_error *err)
{
	int i, j;

	for (i = 0; i < SCR_COUNT; i++) {
		const struct ui_screen *s = screens[i];
		const struct key_action *k;

		for (k = s->from_keys; k && k->fn; k++) {
			const char *other =
				key_lookup(screens[s->from]->keys, k->key)
					? screens[s->from]->name
					: NULL;

			for (j = 0; j < i && !other; j++)
				if (screens[j]->from == s->from &&
				    key_lookup(screens[j]->from_keys, k->key))
					other = screens[j]->name;
			if (other)
				return vms_error_set(
					err, VMS_ERR_USAGE, 0,
					"internal: the key %s that enters the "
					"%s screen from the %s screen is the "
					"%s screen's too",
					keyname(k->key) ? keyname(k->key) : "?",
					s->name, screens[s->from]->name, other);
		}
	}
	return 0;
}

/* Each screen's own state, zeroed, then its defaults (init). */
static int start_screens(struct ui *u, struct vms_error *err)
{
	int i;

	if (check_entries(err) < 0)
		return -1;
	for (i = 0; i < SCR_COUNT; i++)
		if (screens[i]->data_size &&
		    !(u->data[i] = calloc(1, screens[i]->data_size))) {
			free_data(u);
			return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					     "out of memory");
		}
	for (i = 0; i < SCR_COUNT; i++)
		if (screens[i]->init)
			screens[i]->init(u);
	return 0;
}

int ui_run(const struct ui_opts *o, struct vms_error *err)
{
	struct ui u;
	struct theme t;
	const char *tv = getenv("VMSCOPE_TIMING");
	char warn[700] = "";
	int rc = 0, i;

	t_start = ui_clock_us();
	cpu_start = cpu_us_of(CLOCK_PROCESS_CPUTIME_ID);
	memset(&u, 0, sizeof(u));
	u.opts = o;
	u.watching = o->watch_s > 0;
	u.tracer = o->tracer;
	u.screens = screens;
	u.scr = u.prev = SCR_PICKER;
	/* The theme is read before the terminal is touched, so a bad file is
	 * a plain error message on a sane terminal. */
	if (o->theme) {
		if (theme_load(&t, o->theme, err) < 0)
			return -1;
	} else if (theme_load(&t, "default", err) < 0) {
		theme_builtin(&t);
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "the viewer needs a terminal; use -s or "
				     "-e for text output");
	/* the settings first: a screen's defaults may come from them (the
	 * details' sorts) */
	load_config(&u, warn, sizeof(warn));
	if (start_screens(&u, err) < 0)
		return -1;
	ui_term_signals(true);
	atexit(ui_term_end);
	if (ui_term_start(o->theme != NULL, &u.color, err) < 0) {
		ui_term_signals(false);
		free_data(&u);
		return -1;
	}
	if (!u.color) {
		struct theme m;

		if (theme_load(&m, "mono", err) == 0)
			t = m;
	}
	ui_set_theme(&u, &t);
	if (warn[0])
		ui_message(&u, true, "%s", warn);
	if (tv && *tv)
		timing = fopen(tv, "a");
	if (timing)
		setvbuf(timing, NULL, _IOLBF, 0);
	if (o->snap && o->snap_b) {
		/* -d A B: both in the timeline, marked, the diff shown */
		set_snapshot(&u, o->snap, false, true);
		set_snapshot(&u, o->snap_b, false, false);
		u.hist.mark[0] = o->snap;
		u.hist.mark[1] = o->snap_b;
		u.files[0] = (struct ui_file){ o->snap, o->snap_path };
		u.files[1] = (struct ui_file){ o->snap_b, o->snap_path_b };
		set_screen(&u, SCR_VIEWER, true);
		set_screen(&u, SCR_TIMELINE, true);
		if (set_screen(&u, SCR_DIFF, true) < 0)
			rc = vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					   "out of memory comparing the "
					   "snapshots");
	} else if (o->snap) {
		set_snapshot(&u, o->snap, false, true);
		u.files[0] = (struct ui_file){ o->snap, o->snap_path };
		set_screen(&u, SCR_VIEWER, true);
	} else if (o->copts.pid) {
		if (open_pid(&u, o->copts.pid, err) < 0)
			rc = -1;
	} else if (set_screen(&u, SCR_PICKER, true) < 0) {
		ui_message(&u, true, "cannot list processes");
	}
	u.watch_left = o->count > 0 ? o->count - 1 : -1;
	watch_arm(&u);
	if (rc == 0 && !ui_term_signal())
		loop(&u);
	ui_term_end();
	ui_term_signals(false);
	if (timing)
		fclose(timing);
	timing = NULL;
	set_snapshot(&u, NULL, false, false);
	for (i = 0; i < SCR_COUNT; i++)
		if (screens[i]->free)
			screens[i]->free(&u);
	free_data(&u);
	return rc;
}
