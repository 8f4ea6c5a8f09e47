/* uilib.c — key tables, cursor movement, the status line, the theme keys,
 * the clock: the helpers every screen shares. See uilib.h.
 */
#include "core/uilib.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "core/draw.h"
#include "core/ui_priv.h"

const struct key_action *key_lookup(const struct key_action *t, int key)
{
	for (; t && t->fn; t++)
		if (t->key == key)
			return t;
	return NULL;
}

int key_dispatch(struct ui *u, const struct key_action *t, int key)
{
	const struct key_action *k = key_lookup(t, key);

	return k ? k->fn(u) : -1;
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
	/* Home and End as a VT220's keyboard has them, Find and Select
	 * (ESC [1~ and ESC [4~): the Linux console sends those for Home and
	 * End, and so does tmux whatever TERM its panes have, where an
	 * xterm's terminfo names them kfnd and kslt */
	case KEY_HOME:
	case KEY_FIND:
	case 'g':
		return MV_HOME;
	case KEY_END:
	case KEY_SELECT:
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

bool ui_edit_line(char *buf, size_t n, int key)
{
	size_t len = strlen(buf);

	if (key == KEY_BACKSPACE || key == 127 || key == 8) {
		/* a character: a UTF-8 one's continuation bytes with it */
		while (len && ((unsigned char)buf[len - 1] & 0xc0) == 0x80)
			len--;
		if (len)
			len--;
		buf[len] = '\0';
		return true;
	}
	/* getch gives a character typed in UTF-8 a byte at a time (0x80 to
	 * 0xff; the keys curses names are past 0xff): each kept, so "café"
	 * and "漢字" can be found */
	if (key < 32 || key > 0xff)
		return false;
	if (len + 1 < n) {
		buf[len] = (char)key;
		buf[len + 1] = '\0';
	}
	return true;
}

void ui_message(struct ui *u, bool error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(u->msg, sizeof(u->msg), fmt, ap);
	va_end(ap);
	u->msg_error = error;
}

/* The columns of the hints that fit in w without cutting an entry: the
 * entries are separated by two blanks ("F1 help  Tab pane"), and the last
 * ones give way whole. */
static int whole_hints(const char *hints, int w)
{
	const char *p;
	int fit = 0;

	if (text_cols(hints) <= w)
		return w;
	for (p = strstr(hints + 1, "  "); p; p = strstr(p + 2, "  ")) {
		int end = (int)(p - hints);

		if (end > w)
			break;
		fit = end;
	}
	return fit;
}

/* A text wider than the screen, wrapped at spaces into at most
 * MSG_LINES lines of w columns (a word wider than a line is cut by
 * put_str; past MSG_LINES the last line is cut): its pieces' starts and
 * lengths; returns how many. */
enum { MSG_LINES = 4, MSG_MAX = 1024 };

static int wrap_message(const char *m, int w, const char **at, size_t *len)
{
	char piece[MSG_MAX];
	int n = 0;

	while (*m && n < MSG_LINES) {
		size_t take = strlen(m), sp = 0, k;

		/* the longest run of whole words that fits */
		for (k = 1; k <= take && k < sizeof(piece); k++) {
			if (m[k] != ' ' && m[k] != '\0')
				continue;
			memcpy(piece, m, k);
			piece[k] = '\0';
			if (text_cols(piece) > w)
				break;
			sp = k;
		}
		if (sp && text_cols(m) > w && n + 1 < MSG_LINES)
			take = sp;
		at[n] = m;
		len[n++] = take;
		m += take;
		while (*m == ' ')
			m++;
	}
	return n;
}

int ui_bottom_text(int y, attr_t at, const char *m)
{
	const char *p[MSG_LINES];
	size_t len[MSG_LINES];
	char line[MSG_MAX];
	int n = text_cols(m) > COLS ? wrap_message(m, COLS - 1, p, len) : 0, k;

	if (n <= 1) {
		put_str(y, 0, COLS, at, m, 1);
		return 1;
	}
	for (k = 0; k < n; k++) {
		size_t l = len[k] < sizeof(line) ? len[k] : sizeof(line) - 1;

		memcpy(line, p[k], l);
		line[l] = '\0';
		put_str(y - n + 1 + k, 0, COLS, at, line, 1);
	}
	return n;
}

void ui_prompt(attr_t at, const char *what, const char *line, const char *help)
{
	int room = COLS - text_cols(what) - 2;
	size_t len = strlen(line);
	const char *l = line;
	char typed[MSG_MAX];

	/* the line's end (where typing goes) always shown */
	if (room > 1 && (int)len > room) {
		l += len - (size_t)(room - 1);
		while (((unsigned char)*l & 0xc0) == 0x80)
			l++;
	}
	snprintf(typed, sizeof(typed), "%s%s%s_", what, l == line ? "" : "<",
		 l);
	if (text_cols(typed) + 3 + text_cols(help) <= COLS) {
		put_fmt(LINES - 1, 0, COLS, at, "%s   %s", typed, help);
		return;
	}
	/* the typed line keeps the last line; what is said of it goes
	 * above, wrapped */
	put_str(LINES - 1, 0, COLS, at, typed, 1);
	ui_bottom_text(LINES - 2, at, help);
}

void ui_status(struct ui *u, const char *hints, const char *right)
{
	int y = LINES - 1, rw = right ? (int)strlen(right) : 0;

	if (u->finding) {
		put_fmt(y, 0, COLS, theme_attr(EL_FIND),
			"Find: %s_   "
			"(Enter: next match, Esc: cancel)",
			u->find);
		return;
	}
	if (u->msg[0]) {
		/* a long message wraps over the lines above the status line
		 * (until the next key clears it), never cut at the edge */
		ui_bottom_text(y,
			       theme_attr(u->msg_error ? EL_ERROR : EL_STATUS),
			       u->msg);
		return;
	}
	if (!rw || rw + 20 > COLS) {
		put_str(y, 0, whole_hints(hints, COLS), theme_attr(EL_STATUS),
			hints, 0);
		put_blank(y, whole_hints(hints, COLS), COLS,
			  theme_attr(EL_STATUS));
		return;
	}
	/* the state on the right wins over the hints when space is short */
	put_blank(y, 0, COLS - rw - 3, theme_attr(EL_STATUS));
	put_str(y, 0, whole_hints(hints, COLS - rw - 3), theme_attr(EL_STATUS),
		hints, 0);
	put_blank(y, COLS - rw - 3, 2, theme_attr(EL_STATUS));
	put_str(y, COLS - rw - 1, rw + 1, theme_attr(EL_STATUS), right, 1);
}

const char *ui_file_of(const struct ui *u, const struct vms_snapshot *s,
		       bool base)
{
	for (size_t i = 0; s && i < sizeof(u->files) / sizeof(u->files[0]); i++)
		if (u->files[i].snap == s && u->files[i].path) {
			const char *p = u->files[i].path,
				   *b = base ? strrchr(p, '/') : NULL;

			return b && b[1] ? b + 1 : p;
		}
	return NULL;
}

int ui_quit(struct ui *u)
{
	(void)u;
	return UI_QUIT;
}

void ui_set_theme(struct ui *u, const struct theme *t)
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
		ui_message(u, false,
			   "no colour here (NO_COLOR or the "
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
	ui_set_theme(u, &t);
	ui_message(u, false, "theme: %s", t.name);
	return UI_DRAW | UI_CLEAR;
}

double ui_clock_us(void)
{
	return (double)vms_mono_ns() / 1e3;
}
