/* uilib.h — what every screen shares: key tables, cursor movement over a
 * list, the status line and its message, the theme keys, the clock.
 *
 * Contract: uilib.c is below every screen and pane: it calls none of them
 * and knows no screen's data, only struct ui's status line (msg, finding,
 * find) and theme. Nothing here allocates. The key tables are the help's
 * source: every key a screen answers is a line in its table.
 */
#ifndef VMS_UI_UILIB_H
#define VMS_UI_UILIB_H

#include <stdbool.h>
#include <stddef.h>

#include "core/theme.h"

struct ui;
struct vms_snapshot;

/* One line of a key table: the help screen is made from these tables, so
 * it always lists every key. keyname NULL: an alias not listed again. */
struct key_action {
	int key;
	const char *keyname;
	const char *help;
	int (*fn)(struct ui *u);
};

/* Looks key up in a table ended by a NULL fn (t may be NULL); -1 if it
 * is not there. */
int key_dispatch(struct ui *u, const struct key_action *t, int key);
/* key's line in t (ended by a NULL fn; t may be NULL), or NULL. */
const struct key_action *key_lookup(const struct key_action *t, int key);

/* CLOCK_MONOTONIC in microseconds (timing, refresh intervals). */
double ui_clock_us(void);

enum move { MV_NONE, MV_UP, MV_DOWN, MV_PGUP, MV_PGDN, MV_HOME, MV_END };
/* The movement a key means (arrows, j/k, PgUp/PgDn, Home/End). */
enum move key_move(int key);
/* Moves a cursor over n rows shown h at a time, keeping it visible. */
void cursor_apply(size_t *cur, size_t *top, size_t n, int h, enum move mv);
/* Keeps top so cur is visible in h rows. */
void cursor_show(size_t cur, size_t *top, size_t n, int h);

/* A line being typed at a prompt (buf: NUL-terminated, n bytes): Backspace
 * deletes a character (a UTF-8 one whole), a printable key or a byte of a
 * UTF-8 character is added. Returns true when key was one of those. */
bool ui_edit_line(char *buf, size_t n, int key);

/* A message in the status line until the next key. */
void ui_message(struct ui *u, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* m at the bottom of the screen ending at line y: one line, or wider
 * than the screen wrapped at spaces over up to 4 lines ending at y (drawn
 * over what is there), never cut at the edge. Returns the lines used. */
int ui_bottom_text(int y, attr_t at, const char *m);
/* A prompt in the last line: what ("Save to: "), the line being typed
 * (its end and the cursor always shown: a longer line starts with "<"),
 * then help; where they do not fit, help wraps over the lines above
 * (ui_bottom_text) and the typed line keeps the last line. */
void ui_prompt(attr_t at, const char *what, const char *line, const char *help);
/* The status line: the find prompt, the message, or hints and state on
 * the right. */
void ui_status(struct ui *u, const char *hints, const char *right);
/* The file s was loaded from (-l FILE, a side of -d A B), or NULL;
 * base: its last component only. */
const char *ui_file_of(const struct ui *u, const struct vms_snapshot *s,
		       bool base);
/* The 'q' action of every screen. */
int ui_quit(struct ui *u);
/* Switches to the next theme (the 't' key). */
int ui_next_theme(struct ui *u);
/* Makes t the theme of the run (curses started). */
void ui_set_theme(struct ui *u, const struct theme *t);

#endif
