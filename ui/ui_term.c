/* ui_term.c — the terminal: checked, curses started and ended, the
 * signals that end the viewer (ui_term.h).
 */
#include "ui_term.h"

#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* last: its capability macros (lines, columns...) would rename fields of
 * the headers above */
#include <term.h>

static volatile sig_atomic_t got_signal;
static SCREEN *screen;
/* what the three signals did before ui_term_signals(true) */
static struct sigaction old[3];

static void on_signal(int sig)
{
	got_signal = sig;
}

/* Runs at exit too, so a path that forgets still restores the terminal. */
void ui_term_end(void)
{
	if (screen) {
		endwin();
		delscreen(screen);
		screen = NULL;
	}
}

static void install_signals(void)
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

static void restore_signals(void)
{
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	int i;

	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
}

/* NO_COLOR only sets the default: a theme asked for with -t is drawn in
 * its colours when the terminal has them. */
static bool want_colour(bool explicit_theme)
{
	const char *nc = getenv("NO_COLOR");

	return (explicit_theme || !(nc && *nc)) && has_colors();
}

/* A terminal the viewer can draw on: it must move the cursor (TERM=dumb
 * cannot; curses would draw a blank screen). Asked before curses writes
 * anything, so the refusal is a plain line on a sane terminal. */
static int check_terminal(struct vms_error *err)
{
	const char *term = getenv("TERM");
	int errret = 0;
	bool cup;

	if (!term || !*term)
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "TERM is not set: set it to the "
				     "terminal's type (xterm-256color, say), "
				     "or use -s or -e for text output");
	if (setupterm(NULL, STDOUT_FILENO, &errret) != OK)
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     errret == 0
					     ? "no terminfo entry for TERM=%s: "
					       "set TERM to a terminal type "
					       "this system knows "
					       "(xterm-256color, say), or use "
					       "-s or -e for text output"
					     : "cannot use the terminal "
					       "(TERM=%s); use -s or -e for "
					       "text output",
				     term);
	cup = tigetstr("cup") != NULL && tigetstr("cup") != (char *)-1;
	del_curterm(cur_term);
	if (!cup)
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "the terminal (TERM=%s) cannot move the "
				     "cursor; use another TERM, or -s or -e "
				     "for text output",
				     term && *term ? term : "unset");
	return 0;
}

/* The keys the help lists as xterm, a VT220 and tmux send them, taken
 * where this terminal's terminfo does not name the sequence: a TERM
 * that is not the terminal's own (xterm-256color inside tmux, linux
 * under tmux, vt100 in an xterm) left Home, End, PgUp, PgDn and the
 * function keys unread, and their bytes read as keys of their own: the
 * ESC first (clear the filter, back to the picker), then '[', '1', '~'.
 * A sequence the terminfo binds, or that begins one it binds, is left
 * as it is. */
static void define_common_keys(void)
{
	static const struct {
		const char *seq;
		int key;
	} keys[] = {
		{ "\033[1~", KEY_HOME },   { "\033[4~", KEY_END },
		{ "\033[H", KEY_HOME },	   { "\033[F", KEY_END },
		{ "\033OH", KEY_HOME },	   { "\033OF", KEY_END },
		{ "\033[7~", KEY_HOME },   { "\033[8~", KEY_END },
		{ "\033[5~", KEY_PPAGE },  { "\033[6~", KEY_NPAGE },
		{ "\033[A", KEY_UP },	   { "\033[B", KEY_DOWN },
		{ "\033[C", KEY_RIGHT },   { "\033[D", KEY_LEFT },
		{ "\033OA", KEY_UP },	   { "\033OB", KEY_DOWN },
		{ "\033OC", KEY_RIGHT },   { "\033OD", KEY_LEFT },
		{ "\033[Z", KEY_BTAB },	   { "\033OP", KEY_F(1) },
		{ "\033OQ", KEY_F(2) },	   { "\033OR", KEY_F(3) },
		{ "\033OS", KEY_F(4) },	   { "\033[11~", KEY_F(1) },
		{ "\033[12~", KEY_F(2) },  { "\033[13~", KEY_F(3) },
		{ "\033[14~", KEY_F(4) },  { "\033[15~", KEY_F(5) },
		{ "\033[17~", KEY_F(6) },  { "\033[18~", KEY_F(7) },
		{ "\033[19~", KEY_F(8) },  { "\033[20~", KEY_F(9) },
		{ "\033[21~", KEY_F(10) },
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (key_defined(keys[i].seq) == 0)
			define_key(keys[i].seq, keys[i].key);
}

int ui_term_start(bool explicit_theme, bool *color, struct vms_error *err)
{
	const char *term = getenv("TERM");

	if (check_terminal(err) < 0)
		return -1;
	screen = newterm(NULL, stdout, stdin);
	if (!screen)
		return vms_error_set(err, VMS_ERR_USAGE, 0,
				     "cannot use the terminal (TERM=%s); "
				     "use -s or -e for text output",
				     term ? term : "unset");
	set_term(screen);
	*color = want_colour(explicit_theme);
	if (*color) {
		start_color();
		use_default_colors();
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	define_common_keys();
	curs_set(0);
	set_escdelay(25);
	timeout(250);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED |
			  BUTTON4_PRESSED | BUTTON5_PRESSED,
		  NULL);
	mouseinterval(0);
	return 0;
}

void ui_term_signals(bool on)
{
	if (on)
		install_signals();
	else
		restore_signals();
}

int ui_term_signal(void)
{
	return got_signal;
}
