/* viewer_copy.h — copy from the viewer to the terminal's clipboard (issue
 * 31 item 4): y opens a menu of what to copy of the cursor's row, its
 * address, its path, or the row as shown; the text goes to the terminal
 * as OSC 52 (ESC ] 52 ; c ; BASE64 BEL: xterm's, kitty's, iTerm2's,
 * WezTerm's, foot's clipboard, and tmux's paste buffer with set-clipboard
 * on), which the terminal takes where it allows it: no terminal answers
 * whether it did. Only for the viewer (screen_viewer.c), whose state
 * (struct viewer, panes.h) holds the menu.
 *
 * Contract: writes the one escape sequence to the terminal, between two
 * screen updates, and nothing else; the status line says what was sent.
 */
#ifndef VMS_UI_VIEWER_COPY_H
#define VMS_UI_VIEWER_COPY_H

#include <stdbool.h>

#include "core/ui_priv.h"

/* The y key. */
int vcopy_menu(struct ui *u);
/* Whether the menu is open; then every key goes to vcopy_key. */
bool vcopy_open(const struct ui *u);
int vcopy_key(struct ui *u, int key);
/* Draws the menu over the details; after the rest (a row asked for is
 * copied then, as the screen shows it without the menu). */
void vcopy_draw(struct ui *u);

#endif
