/* draw.h — the small pieces every screen draws with: sizes as people read
 * them, and text clipped or padded to a field of stdscr.
 *
 * Contract: the fmt_* functions write into the (buf, n) given and return
 * buf; nothing here keeps state. The put functions never write past the
 * field or the screen, so a narrow terminal clips instead of wrapping.
 */
#ifndef VMS_UI_DRAW_H
#define VMS_UI_DRAW_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/theme.h"
#include "model/columns.h"

/* Bytes as B under 1 K, K up to 9999 K, then M, G, T with one decimal
 * below 100: "864 B", "3636 K", "12.3 M", "128 T". At most 7 characters. */
const char *fmt_size(uint64_t bytes, char *buf, size_t n);
/* fmt_size of column c's figure, or "-" when s does not know that column
 * (a core's counters: unknown, never 0). */
const char *fmt_col(const struct vms_snapshot *s, enum vms_col c,
		    uint64_t bytes, char *buf, size_t n);

/* A change of size, signed, as fmt_size: "+100 M", "-4 K", "0". */
const char *fmt_size_delta(int64_t d, char *buf, size_t n);

/* Writes s at (y, x) in attr, clipped to w columns and padded with blanks
 * to w (pad false: not padded). Returns the columns written. Every string
 * drawn goes through here, so it is made safe here: control characters,
 * invalid UTF-8 and what the terminal cannot show are drawn as escapes
 * (escape.h: "\r", "\x1b", "\u202e"), never passed to the terminal; the
 * clip counts columns and never cuts an escape or a character. */
int put_str(int y, int x, int w, attr_t attr, const char *s, int pad);

/* s wrapped at blanks into lines of w columns from (y, x), at most
 * maxlines of them (a word wider than a line is cut by put_str; what
 * does not fit in maxlines is cut at the last). Returns the lines used. */
int put_wrapped(int y, int x, int w, int maxlines, attr_t attr, const char *s);

/* The lines put_wrapped(.., w, maxlines, .., s) would take, drawing
 * nothing. */
int wrap_lines(int w, int maxlines, const char *s);

/* A popup's box (a menu over a screen): lines y to y + h - 1, columns x
 * to x + w - 1 and a column either side of them, blanked in attr, so
 * that nothing drawn before shows inside it or runs into its text; a
 * side that would keep fewer than 3 columns of what is under it is
 * blanked to the screen's edge. Its text is drawn after. */
void put_box(int y, int x, int w, int h, attr_t attr);

/* printf into put_wrapped (at most 1,024 bytes). */
int put_wrapped_fmt(int y, int x, int w, int maxlines, attr_t attr,
		    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* The columns s takes when drawn by put_str (escapes included). */
int text_cols(const char *s);

/* The same, right-aligned in w columns. */
void put_right(int y, int x, int w, attr_t attr, const char *s);

/* printf into a field (clipped and padded like put_str). */
int put_fmt(int y, int x, int w, attr_t attr, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* A row of blanks in attr. */
void put_blank(int y, int x, int w, attr_t attr);

/* The letter of a region type (vms_type_info), lower case when reserved:
 * the map's cells and the monochrome bars. */
char type_letter(int type, bool reserved);

/* Case-insensitive substring test (needle already lower-case), in hay
 * as it is and, where it has something escape.h escapes, as the text
 * forms print it (vms_escape_str): a zero-width space is found by
 * "\u200b". */
int contains_ci(const char *hay, const char *needle_lc);

#endif
