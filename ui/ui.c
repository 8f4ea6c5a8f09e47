/* ui.c — the curses front end's entry point and main loop: terminal set-up
 * and restore (on return, errors and signals), captures with progress and
 * cancel, the dispatch of keys to the current screen, resizing, themes.
 * See ui.h and ui_priv.h.
 */
#include "ui.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../src/pipeline.h"
#include "draw.h"
#include "ui_priv.h"

static volatile sig_atomic_t got_signal;
static SCREEN *screen;
/* VMSCOPE_TIMING=FILE appends "key CODE MICROSECONDS" (or "redraw" for
 * Ctrl-L) for every key that redraws: from the key read to the screen
 * written. For make bench. */
static FILE *timing;
/* Keys typed while a capture ran (other than the Esc or q that cancel
 * it), replayed after it: typing ahead loses nothing. */
static int pending_keys[64];
static size_t npending;

static void on_signal(int sig)
{
	got_signal = sig;
}

/* Runs at exit too, so a path that forgets still restores the terminal. */
static void restore_terminal(void)
{
	if (screen) {
		endwin();
		delscreen(screen);
		screen = NULL;
	}
}

static void install_signals(struct sigaction old[3])
{
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a signal wakes getch() so the loop sees it */
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
}

static void restore_signals(const struct sigaction old[3])
{
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	int i;

	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int key_dispatch(struct ui *u, const struct key_action *t, int key)
{
	for (; t->fn; t++)
		if (t->key == key)
			return t->fn(u);
	return -1;
}

enum move key_move(int key)
{
	switch (key) {
	case KEY_UP:
	case 'k':
		return MV_UP;
	case KEY_DOWN:
	case 'j':
		return MV_DOWN;
	case KEY_PPAGE:
		return MV_PGUP;
	case KEY_NPAGE:
		return MV_PGDN;
	case KEY_HOME:
	case 'g':
		return MV_HOME;
	case KEY_END:
	case 'G':
		return MV_END;
	default:
		return MV_NONE;
	}
}

void cursor_show(size_t cur, size_t *top, size_t n, int h)
{
	size_t hh = h > 0 ? (size_t)h : 1;

	if (cur < *top)
		*top = cur;
	else if (cur >= *top + hh)
		*top = cur - hh + 1;
	if (n <= hh)
		*top = 0;
	else if (*top > n - hh)
		*top = n - hh;
}

void cursor_apply(size_t *cur, size_t *top, size_t n, int h, enum move mv)
{
	size_t page = h > 1 ? (size_t)h - 1 : 1;

	if (n == 0) {
		*cur = *top = 0;
		return;
	}
	switch (mv) {
	case MV_UP:
		if (*cur > 0)
			(*cur)--;
		break;
	case MV_DOWN:
		if (*cur + 1 < n)
			(*cur)++;
		break;
	case MV_PGUP:
		*cur = *cur > page ? *cur - page : 0;
		if (*top > page)
			*top -= page;
		else
			*top = 0;
		break;
	case MV_PGDN:
		*cur = *cur + page < n ? *cur + page : n - 1;
		*top += page;
		break;
	case MV_HOME:
		*cur = 0;
		break;
	case MV_END:
		*cur = n - 1;
		break;
	case MV_NONE:
		break;
	}
	if (*cur >= n)
		*cur = n - 1;
	cursor_show(*cur, top, n, h);
}

void ui_message(struct ui *u, bool error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(u->msg, sizeof(u->msg), fmt, ap);
	va_end(ap);
	u->msg_error = error;
}

void ui_status(struct ui *u, const char *hints, const char *right)
{
	int y = LINES - 1, rw = right ? (int)strlen(right) : 0;

	if (u->finding) {
		put_fmt(y, 0, COLS, theme_attr(EL_FIND), "Find: %s_   "
			"(Enter: next match, Esc: cancel)", u->find);
		return;
	}
	if (u->msg[0]) {
		put_str(y, 0, COLS, theme_attr(u->msg_error ? EL_ERROR
							    : EL_STATUS),
			u->msg, 1);
		return;
	}
	if (!rw || rw + 20 > COLS) {
		put_str(y, 0, COLS, theme_attr(EL_STATUS), hints, 1);
		return;
	}
	/* the state on the right wins over the hints when space is short */
	put_str(y, 0, COLS - rw - 3, theme_attr(EL_STATUS), hints, 1);
	put_blank(y, COLS - rw - 3, 2, theme_attr(EL_STATUS));
	put_str(y, COLS - rw - 1, rw + 1, theme_attr(EL_STATUS), right, 1);
}

int ui_quit(struct ui *u)
{
	(void)u;
	return UI_QUIT;
}

static void set_theme(struct ui *u, const struct theme *t)
{
	u->theme = *t;
	theme_apply(&u->theme, u->color);
}

int ui_next_theme(struct ui *u)
{
	char name[256];
	struct theme t;
	struct vms_error err = { 0 };

	if (!u->color) {
		ui_message(u, false, "no colour here (NO_COLOR or the "
			   "terminal): the monochrome theme stays");
		return UI_DRAW;
	}
	if (theme_next_name(u->theme.name, name, sizeof(name)) < 0) {
		ui_message(u, false, "no theme files found; built-in default");
		return UI_DRAW;
	}
	if (theme_load(&t, name, &err) < 0) {
		ui_message(u, true, "%s", err.msg);
		return UI_DRAW;
	}
	set_theme(u, &t);
	ui_message(u, false, "theme: %s", t.name);
	return UI_DRAW | UI_CLEAR;
}

static void draw(struct ui *u);

/* ---- capture with progress ---- */

struct progress {
	struct ui *u;
	pid_t pid;
	bool cancelled;
	double last;
};

static void draw_progress(struct ui *u, pid_t pid, const char *what,
			  size_t regions)
{
	int w = 56, y = LINES / 2 - 2, x = (COLS - w) / 2;

	if (u->snap && u->scr == SCR_VIEWER && COLS >= UI_MIN_COLS &&
	    LINES >= UI_MIN_LINES) {
		/* a frame is on screen: progress goes in its status line */
		if (what)
			put_fmt(LINES - 1, 0, COLS, theme_attr(EL_FIND),
				" pid %d: %s   Esc cancels", (int)pid, what);
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
		put_fmt(y + 1, x, w, theme_attr(EL_TITLE),
			"  Process %d: %s", (int)pid, what);
	else
		put_fmt(y + 1, x, w, theme_attr(EL_TITLE),
			"  Reading process %d: %zu regions", (int)pid,
			regions);
	put_fmt(y + 2, x, w, theme_attr(EL_TITLE), "  Esc or q cancels");
	put_blank(y + 3, x, w, theme_attr(EL_TITLE));
	refresh();
}

/* what: a step's name, or NULL while regions are read. */
static int on_progress(void *ctx, const char *what, size_t done,
		       size_t total)
{
	struct progress *p = ctx;
	double t = now_us();
	int ch;

	(void)total;

	if (t - p->last > 50000) {
		draw_progress(p->u, p->pid, what, done);
		p->last = t;
	}
	timeout(0);
	while ((ch = getch()) != ERR) {
		if (ch == 27 || ch == 'q')
			p->cancelled = true;
		else if (npending < sizeof(pending_keys) / sizeof(pending_keys[0]))
			pending_keys[npending++] = ch;
	}
	timeout(250);
	return p->cancelled || got_signal;
}

static struct vms_snapshot *capture(struct ui *u, pid_t pid, bool *cancelled,
				    struct vms_error *err)
{
	struct vms_capture_opts co = u->opts->copts;
	struct progress p = { u, pid, false, now_us() };
	struct vms_snapshot *s;

	co.pid = pid;
	co.progress = on_progress;
	co.progress_ctx = &p;
	draw_progress(u, pid, NULL, 0);
	s = vms_capture(u->opts->sampler, &co, err);
	*cancelled = p.cancelled;
	return s;
}

static void set_snapshot(struct ui *u, struct vms_snapshot *s, bool own)
{
	uint64_t at = details_cursor_addr(u);

	if (u->snap && u->own_snap)
		vms_snapshot_free(u->snap);
	u->snap = s;
	u->own_snap = own;
	details_reset(u, at);
	map_free(&u->map);
}

/* Opens the viewer on pid: the layout from /proc/PID/maps at once, then
 * the full capture. On failure goes back where it was, with *err. */
static int open_pid(struct ui *u, pid_t pid, struct vms_error *err)
{
	enum ui_screen was = u->scr;
	struct vms_capture_opts mo = { .pid = pid, .no_memory = true };
	struct vms_error ignore;
	/* The layout from maps first: shown at once, counters to follow. */
	struct vms_snapshot *pre = vms_capture(&vms_sampler_maps, &mo, &ignore);
	struct vms_snapshot *s;
	bool cancelled;

	u->focus = 0;
	u->sum_cur = SUM_TOTAL;
	u->det.filter = -1;
	if (pre) {
		set_snapshot(u, pre, true);
		u->scr = SCR_VIEWER;
		draw(u);
		refresh();
	}
	s = capture(u, pid, &cancelled, err);
	if (s) {
		set_snapshot(u, s, true);
		u->scr = SCR_VIEWER;
		return 0;
	}
	if (pre && cancelled && !got_signal) {
		ui_message(u, true, "cancelled: the layout only, no counters "
			   "(r reads them)");
		return 0;
	}
	if (pre) {
		set_snapshot(u, NULL, false);
		u->scr = was;
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
	switch (u->scr) {
	case SCR_PICKER:
		picker_draw(u);
		break;
	case SCR_VIEWER:
		viewer_draw(u);
		break;
	case SCR_MAP:
		map_draw(u);
		break;
	case SCR_HELP:
		help_draw(u);
		break;
	}
}

static int mouse(struct ui *u)
{
	MEVENT ev;

	if (getmouse(&ev) != OK)
		return 0;
	switch (u->scr) {
	case SCR_VIEWER:
		return viewer_mouse(u, ev.y, ev.x, ev.bstate);
	case SCR_MAP:
		return map_mouse(u, ev.y, ev.x, ev.bstate);
	case SCR_PICKER:
		return picker_mouse(u, ev.y, ev.x, ev.bstate);
	case SCR_HELP:
		break;
	}
	return 0;
}

static int dispatch(struct ui *u, int ch)
{
	bool typing = u->finding || u->scr == SCR_PICKER;

	if (ch == KEY_MOUSE)
		return mouse(u);
	if (ch == 12) /* Ctrl-L */
		return UI_DRAW | UI_CLEAR;
	if (ch == KEY_F(1) || (ch == '?' && !typing)) {
		if (u->scr == SCR_HELP)
			return help_key(u, 27);
		u->help_from = u->scr;
		u->help_top = 0;
		u->scr = SCR_HELP;
		return UI_DRAW;
	}
	if (COLS < UI_MIN_COLS || LINES < UI_MIN_LINES)
		return ch == 'q' || ch == KEY_F(10) ? UI_QUIT : 0;
	switch (u->scr) {
	case SCR_PICKER:
		return picker_key(u, ch);
	case SCR_VIEWER:
		return viewer_key(u, ch);
	case SCR_MAP:
		return map_key(u, ch);
	case SCR_HELP:
		return help_key(u, ch);
	}
	return 0;
}

static void loop(struct ui *u)
{
	int flags = UI_DRAW;
	double t0 = 0;
	int last = 0;

	for (;;) {
		int ch;

		if (flags & UI_CLEAR)
			clearok(curscr, TRUE);
		if (flags & (UI_DRAW | UI_CLEAR)) {
			draw(u);
			refresh();
			if (timing && t0 > 0)
				fprintf(timing, "%s %d %.1f\n",
					last == 12 ? "redraw" : "key", last,
					now_us() - t0);
		}
		flags = 0;
		t0 = 0;
		if (npending) {
			ch = pending_keys[0];
			memmove(pending_keys, pending_keys + 1,
				--npending * sizeof(pending_keys[0]));
		} else {
			ch = getch();
		}
		if (got_signal)
			return;
		if (ch == ERR) {
			vms_idle();
			continue;
		}
		t0 = now_us();
		last = ch;
		if (ch == KEY_RESIZE) {
			flags = UI_DRAW | UI_CLEAR;
			continue;
		}
		if (u->msg[0] && !u->finding) {
			u->msg[0] = '\0';
			flags |= UI_DRAW;
		}
		flags |= dispatch(u, ch);
		if (flags & UI_QUIT)
			return;
		if (flags & UI_RESAMPLE) {
			struct vms_error err = { 0 };
			bool cancelled;
			struct vms_snapshot *s =
				capture(u, u->snap->proc.pid, &cancelled, &err);

			if (s) {
				set_snapshot(u, s, true);
				ui_message(u, false, "new snapshot: %zu regions",
					   s->nregions);
			} else {
				ui_message(u, true, "%s",
					   cancelled ? "refresh cancelled"
						     : err.msg);
			}
			flags |= UI_DRAW | UI_CLEAR;
		}
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

static bool want_colour(void)
{
	const char *nc = getenv("NO_COLOR");

	return !(nc && *nc) && has_colors();
}

static int start_curses(struct ui *u, struct vms_error *err)
{
	const char *term = getenv("TERM");

	screen = newterm(NULL, stdout, stdin);
	if (!screen)
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "cannot use the terminal (TERM=%s); "
				     "use -s or -e for text output",
				     term ? term : "unset");
	set_term(screen);
	u->color = want_colour();
	if (u->color) {
		start_color();
		use_default_colors();
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	timeout(250);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED |
			  BUTTON4_PRESSED | BUTTON5_PRESSED,
		  NULL);
	mouseinterval(0);
	return 0;
}

int ui_run(const struct ui_opts *o, struct vms_error *err)
{
	struct ui u;
	struct sigaction old[3];
	struct theme t;
	const char *tv = getenv("VMSCOPE_TIMING");
	int rc = 0;

	memset(&u, 0, sizeof(u));
	u.opts = o;
	u.det.filter = -1;
	u.sum_cur = SUM_TOTAL;
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
	install_signals(old);
	atexit(restore_terminal);
	if (start_curses(&u, err) < 0) {
		restore_signals(old);
		return -1;
	}
	if (!u.color) {
		struct theme m;

		if (theme_load(&m, "mono", err) == 0)
			t = m;
	}
	set_theme(&u, &t);
	if (tv && *tv)
		timing = fopen(tv, "a");
	if (timing)
		setvbuf(timing, NULL, _IOLBF, 0);
	if (o->snap) {
		set_snapshot(&u, o->snap, false);
		u.scr = SCR_VIEWER;
	} else if (o->copts.pid) {
		if (open_pid(&u, o->copts.pid, err) < 0)
			rc = -1;
	} else {
		u.scr = SCR_PICKER;
		if (picker_load(&u) < 0)
			ui_message(&u, true, "cannot list processes");
	}
	if (rc == 0 && !got_signal)
		loop(&u);
	restore_terminal();
	restore_signals(old);
	if (timing)
		fclose(timing);
	timing = NULL;
	set_snapshot(&u, NULL, false);
	details_free(&u.det);
	picker_free(&u.pick);
	return rc;
}
