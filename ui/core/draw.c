/* draw.c — formatting and clipped drawing. See draw.h. */
#include "core/draw.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "base/escape.h"
#include "base/units.h"
#include "model/snapshot.h"

char type_letter(int type, bool reserved)
{
	char c = vms_type_info[type].letter;

	return reserved && c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

const char *fmt_size(uint64_t bytes, char *buf, size_t n)
{
	/* Under 1 K in bytes (a .plt of 864 bytes is not "0 K"); the rest as
	 * the text summary has it. 0 stays "0 K", as the summary's columns. */
	if (bytes && bytes < 1024) {
		snprintf(buf, n, "%u B", (unsigned)bytes);
		return buf;
	}
	return units_size(bytes, buf, n);
}

const char *fmt_col(const struct vms_snapshot *s, enum vms_col c,
		    uint64_t bytes, char *buf, size_t n)
{
	return vms_column_known(s, c) ? fmt_size(bytes, buf, n) : "-";
}

/* Characters whose width a terminal decides from their neighbours (it
 * joins them into one glyph with the characters around them, or not),
 * where curses counts each alone (wcwidth): the emoji skin tone modifiers
 * and the regional indicators that pair into flags. The line a terminal
 * drew was shorter than curses thought, and what was on screen before
 * stayed at its end. (The joiner, the other invisible format characters,
 * variation selectors and tags, which a terminal joins too, escape.h
 * escapes everywhere: drawn as nothing, they would make two names one.) */
static bool joins(int32_t cp)
{
	return (cp >= 0x1f1e6 && cp <= 0x1f1ff) ||
	       (cp >= 0x1f3fb && cp <= 0x1f3ff);
}

/* What to draw for one unit of s (escape.h), and its columns: printable
 * characters as they are, escapes as their text. A character this locale
 * cannot show (or any non-ASCII one outside a UTF-8 locale), or one whose
 * width depends on its neighbours (joins), is escaped as \uXXXX too, so
 * nothing reaches the terminal that it would act on or draw wider or
 * narrower than counted; one past U+FFFF as \UXXXXXXXX (C's and
 * Python's escape): as \u1f389, U+1F389 read as U+1F38 and a 9. */
static size_t draw_unit(const char *s, char out[16], size_t *outlen, int *cols)
{
	int32_t cp;
	size_t in = escape_unit(s, out, outlen, &cp);

	*cols = (int)*outlen;
	if (cp >= 0x80) {
		int cw = MB_CUR_MAX > 1 && !joins(cp) ? wcwidth((wchar_t)cp)
						      : -1;

		if (cw < 0)
			*outlen = (size_t)snprintf(
				out, 16, cp > 0xffff ? "\\U%08x" : "\\u%04x",
				(unsigned)cp);
		*cols = cw < 0 ? (int)*outlen : cw;
	} else if (cp >= 0) {
		*cols = 1;
	}
	return in;
}

int text_cols(const char *s)
{
	char u[16];
	size_t ulen, in;
	int cols = 0, c;

	while (s && (in = draw_unit(s, u, &ulen, &c)) != 0) {
		cols += c;
		s += in;
	}
	return cols;
}

const char *fmt_size_delta(int64_t d, char *buf, size_t n)
{
	char a[16];

	if (!d) {
		snprintf(buf, n, "0");
		return buf;
	}
	snprintf(buf, n, "%c%s", d > 0 ? '+' : '-',
		 fmt_size(d > 0 ? (uint64_t)d : (uint64_t)-d, a, sizeof(a)));
	return buf;
}

int put_str(int y, int x, int w, attr_t attr, const char *s, int pad)
{
	char line[2048], u[16];
	int maxx = getmaxx(stdscr), cols = 0, c;
	size_t used = 0, ulen, in;

	if (y < 0 || y >= getmaxy(stdscr) || x >= maxx || w <= 0)
		return 0;
	if (x + w > maxx)
		w = maxx - x;
	/* Clipped by columns, never inside an escape or a character. */
	while (s && (in = draw_unit(s, u, &ulen, &c)) != 0) {
		if (cols + c > w || used + ulen > sizeof(line))
			break;
		memcpy(line + used, u, ulen);
		used += ulen;
		cols += c;
		s += in;
	}
	attrset(attr);
	mvaddnstr(y, x, line, (int)used);
	if (pad && cols < w)
		mvhline(y, x + cols, ' ', w - cols);
	attrset(A_NORMAL);
	return pad ? w : cols;
}

void put_right(int y, int x, int w, attr_t attr, const char *s)
{
	int len = text_cols(s);

	if (len >= w) {
		put_str(y, x, w, attr, s, 1);
		return;
	}
	put_blank(y, x, w - len, attr);
	put_str(y, x + w - len, len, attr, s, 1);
}

int put_fmt(int y, int x, int w, attr_t attr, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return put_str(y, x, w, attr, buf, 1);
}

void put_blank(int y, int x, int w, attr_t attr)
{
	put_str(y, x, w, attr, "", 1);
}

static int has_ci(const char *hay, const char *needle_lc, size_t nl)
{
	const char *h;

	for (h = hay; *h; h++) {
		size_t i;

		/* bytes past 0x7f (UTF-8) compared as bytes: a char is
		 * signed here, and tolower's 0xe6 was never (char)0xe6 */
		for (i = 0; i < nl && h[i]; i++)
			if (tolower((unsigned char)h[i]) !=
			    (unsigned char)needle_lc[i])
				break;
		if (i == nl)
			return 1;
	}
	return 0;
}

int contains_ci(const char *hay, const char *needle_lc)
{
	size_t nl = strlen(needle_lc), n;
	char small[512], *shown = small;
	int hit;

	if (!hay)
		return 0;
	if (!nl || has_ci(hay, needle_lc, nl))
		return 1;
	if (escape_clean(hay))
		return 0;
	/* as the screen shows it: a name's escapes (\u200b, \x01, \\)
	 * are found as typed */
	n = vms_escape_str(small, sizeof(small), hay);
	if (n >= sizeof(small)) {
		if (!(shown = malloc(n + 1)))
			return 0;
		vms_escape_str(shown, n + 1, hay);
	}
	hit = has_ci(shown, needle_lc, nl);
	if (shown != small)
		free(shown);
	return hit;
}

/* put_wrapped's lines, drawn only when draw is set: the lines it takes
 * are counted the same way for wrap_lines. */
static int wrap(int y, int x, int w, int maxlines, attr_t attr, const char *s,
		bool draw)
{
	char piece[2048];
	int n = 0;

	while (*s && n < maxlines && w > 0) {
		size_t len = strlen(s), take = len, k, sp = 0;

		if (len >= sizeof(piece))
			len = sizeof(piece) - 1;
		memcpy(piece, s, len);
		piece[len] = '\0';
		/* the longest run of whole words that fits (the last line
		 * takes the rest, cut) */
		if (text_cols(piece) > w && n + 1 < maxlines) {
			for (k = 1; k <= len; k++) {
				char c = piece[k];

				if (c != ' ' && c != '\0')
					continue;
				piece[k] = '\0';
				if (text_cols(piece) > w) {
					piece[k] = c;
					break;
				}
				sp = k;
				piece[k] = c;
			}
			take = sp ? sp : len;
		}
		piece[take < len ? take : len] = '\0';
		if (draw)
			put_str(y + n, x, w, attr, piece, 1);
		n++;
		s += take;
		while (*s == ' ')
			s++;
	}
	return n;
}

int put_wrapped(int y, int x, int w, int maxlines, attr_t attr, const char *s)
{
	return wrap(y, x, w, maxlines, attr, s, true);
}

int wrap_lines(int w, int maxlines, const char *s)
{
	return wrap(0, 0, w, maxlines, A_NORMAL, s, false);
}

void put_box(int y, int x, int w, int h, attr_t attr)
{
	int maxx = getmaxx(stdscr), from = x - 1, to = x + w + 1, k;

	/* a side that would keep fewer than 3 columns of what is under
	 * it is blanked to the edge: no stray characters beside the box */
	if (from < 3)
		from = 0;
	if (to > maxx - 3)
		to = maxx;
	for (k = 0; k < h; k++)
		put_blank(y + k, from, to - from, attr);
}

int put_wrapped_fmt(int y, int x, int w, int maxlines, attr_t attr,
		    const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return put_wrapped(y, x, w, maxlines, attr, buf);
}
