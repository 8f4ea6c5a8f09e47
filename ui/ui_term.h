/* ui_term.h — the terminal the viewer draws on: whether it can, curses
 * started and ended, and the signals that end the viewer.
 *
 * Contract: ui_term_start() refuses, before curses writes anything, a
 * terminal that cannot move the cursor (TERM=dumb; curses would draw a
 * blank screen), so the refusal is a plain line on a sane terminal. Once
 * started, the terminal is restored by ui_term_end(), which may be called
 * any number of times and is safe from atexit (a path that forgets still
 * leaves a sane terminal). SIGINT, SIGTERM and SIGHUP, while caught, only
 * set what ui_term_signal() returns and wake getch() (no SA_RESTART): the
 * loop sees them and ends the viewer cleanly. Only ui.c and ui_capture.c
 * use this.
 */
#ifndef VMS_UI_TERM_H
#define VMS_UI_TERM_H

#include <stdbool.h>

#include "base/error.h"

/* Catches the three signals (on) or puts back what was there (off). */
void ui_term_signals(bool on);
/* The signal caught, or 0. */
int ui_term_signal(void);
/* curses on the terminal of standard input and output: keys, the mouse,
 * 250 ms reads; *color whether it is drawn in colour (NO_COLOR only sets
 * the default: a theme asked for, explicit_theme, is drawn in its colours
 * where the terminal has them). -1 with *err (VMS_ERR_USAGE) for a
 * terminal it cannot use. */
int ui_term_start(bool explicit_theme, bool *color, struct vms_error *err);
/* Restores the terminal (nothing if curses is not started). */
void ui_term_end(void);

#endif
