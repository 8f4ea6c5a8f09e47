/* viewer_copy.c — copy to the terminal's clipboard (viewer_copy.h). */
#include "screens/viewer_copy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/draw.h"
#include "panes/panes.h"

/* What the menu offers, in its order; the letter picks it at once. */
enum { CP_ADDRESS, CP_PATH, CP_ROW, CP_COUNT };
static const struct {
	int key;
	const char *name;
} items[CP_COUNT] = {
	{ 'a', "address" },
	{ 'p', "path" },
	{ 'r', "row" },
};

/* base64 of n bytes of s into out (4/3 n + 4 bytes). */
static void base64(const unsigned char *s, size_t n, char *out)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		*out++ = tab[s[i] >> 2];
		*out++ = tab[((s[i] & 3) << 4) | (s[i + 1] >> 4)];
		*out++ = tab[((s[i + 1] & 15) << 2) | (s[i + 2] >> 6)];
		*out++ = tab[s[i + 2] & 63];
	}
	if (i < n) {
		*out++ = tab[s[i] >> 2];
		if (i + 1 < n) {
			*out++ = tab[((s[i] & 3) << 4) | (s[i + 1] >> 4)];
			*out++ = tab[(s[i + 1] & 15) << 2];
		} else {
			*out++ = tab[(s[i] & 3) << 4];
			*out++ = '=';
		}
		*out++ = '=';
	}
	*out = '\0';
}

/* The most bytes copied (a path is at most PATH_MAX, a row a screen line:
 * far below it), whole; past it the copy is refused with a message, never
 * cut: a clipboard that silently holds part of a path misleads. */
enum { OSC52_MAX = 64 * 1024, SHOWN_MAX = 60 };

/* The bytes of text's first max bytes that end on a whole character. */
static size_t whole_chars(const char *text, size_t max)
{
	size_t n = strlen(text);

	if (n <= max)
		return n;
	while (max > 0 && ((unsigned char)text[max] & 0xc0) == 0x80)
		max--;
	return max;
}

/* The whole text to the terminal's clipboard; the status line says so
 * (and shows its start, whole characters). */
static void osc52(struct ui *u, const char *what, const char *text)
{
	size_t n = strlen(text), k;
	char *b64;

	if (n > OSC52_MAX) {
		ui_message(u, true,
			   "the %s is too long to copy: %zu bytes, OSC 52 "
			   "takes %d here",
			   what, n, OSC52_MAX);
		return;
	}
	b64 = malloc(4 * (n / 3 + 1) + 1);
	if (!b64) {
		ui_message(u, true, "the %s was not copied: out of memory",
			   what);
		return;
	}
	base64((const unsigned char *)text, n, b64);
	fprintf(stdout, "\033]52;c;%s\a", b64);
	fflush(stdout);
	free(b64);
	k = whole_chars(text, SHOWN_MAX);
	ui_message(u, false,
		   "copied the %s to the terminal's clipboard (OSC 52, where "
		   "the terminal allows it): %.*s%s",
		   what, (int)k, text, k < n ? "..." : "");
}

/* The cursor's row as shown: its screen line, trailing blanks left out. */
static void row_text(struct ui *u, char *buf, size_t n)
{
	struct viewer *v = viewer_of(u);
	const struct listview *lv = &v->det.lv;
	wchar_t line[1024];
	int y = lv->y + (int)(lv->cur - lv->top), len;
	size_t k;

	buf[0] = '\0';
	if (v->focus == 0) {
		int i;

		for (i = 0; i < LINES; i++)
			if (summary_row_at(u, i) == v->sum_cur)
				break;
		y = i;
	}
	if (y < 0 || y >= LINES)
		return;
	len = mvinnwstr(y, 0, line, COLS < 1023 ? COLS : 1023);
	if (len <= 0)
		return;
	line[len] = L'\0';
	while (len > 0 && line[len - 1] == L' ')
		line[--len] = L'\0';
	k = wcstombs(buf, line, n - 1);
	if (k == (size_t)-1)
		buf[0] = '\0';
	else
		buf[k] = '\0';
}

static int copy(struct ui *u, int item)
{
	struct viewer *v = viewer_of(u);
	const struct vms_region *r =
		v->focus == 1 ? details_region(u, v->det.lv.cur) : NULL;
	char buf[1100];

	switch (item) {
	case CP_ADDRESS:
		if (v->focus == 1 && v->det.nrows) {
			uint64_t a, b;

			details_row_span(u, &v->det.rows[v->det.lv.cur], &a,
					 &b);
			snprintf(buf, sizeof(buf), "0x%llx",
				 (unsigned long long)a);
			osc52(u, "address", buf);
		} else {
			ui_message(u, true, "%s",
				   "no address here: the cursor is on the "
				   "summary (Tab goes to the details)");
		}
		break;
	case CP_PATH:
		if (r && r->path && r->path[0])
			osc52(u, "path", r->path);
		else
			ui_message(u, true, "%s",
				   "the cursor's row has no path (anonymous "
				   "memory, a free gap, or the summary)");
		break;
	case CP_ROW:
		/* read from the screen once it is drawn without the menu
		 * (vcopy_draw) */
		v->cp_row = true;
		break;
	}
	return UI_DRAW;
}

int vcopy_menu(struct ui *u)
{
	struct viewer *v = viewer_of(u);

	if (!u->snap)
		return 0;
	v->cp_open = true;
	v->cp_cur = v->focus == 1 ? CP_ADDRESS : CP_ROW;
	return UI_DRAW;
}

bool vcopy_open(const struct ui *u)
{
	return viewer_of(u)->cp_open;
}

int vcopy_key(struct ui *u, int key)
{
	struct viewer *v = viewer_of(u);
	size_t cur = (size_t)v->cp_cur, top = 0;
	enum move mv;
	int k;

	for (k = 0; k < CP_COUNT; k++)
		if (key == items[k].key) {
			v->cp_open = false;
			return copy(u, k);
		}
	switch (key) {
	case 27:
	case 'y':
		v->cp_open = false;
		return UI_DRAW;
	case '\r':
	case '\n':
	case KEY_ENTER:
		v->cp_open = false;
		return copy(u, v->cp_cur);
	case 'q':
	case KEY_F(10):
		return UI_QUIT;
	}
	mv = key_move(key);
	if (mv == MV_NONE)
		return 0;
	cursor_apply(&cur, &top, CP_COUNT, CP_COUNT, mv);
	v->cp_cur = (int)cur;
	return UI_DRAW;
}

void vcopy_draw(struct ui *u)
{
	struct viewer *v = viewer_of(u);
	int y = LINES - 1 - CP_COUNT - 2, k, w = 40;
	attr_t a = theme_attr(EL_TITLE);

	if (v->cp_row) {
		char buf[1100];

		v->cp_row = false;
		row_text(u, buf, sizeof(buf));
		if (buf[0]) {
			osc52(u, "row", buf);
			ui_status(u, "", NULL); /* says so */
		}
	}
	if (!v->cp_open)
		return;
	if (y < 0)
		y = 0;
	put_box(y, 2, w, CP_COUNT + 2, a);
	put_fmt(y, 2, w, a | A_BOLD, " Copy to the clipboard%*s", w - 22, "");
	for (k = 0; k < CP_COUNT; k++)
		put_fmt(y + 1 + k, 2, w,
			k == v->cp_cur ? theme_attr(EL_SELECTION) : a,
			" %c  the %s", items[k].key, items[k].name);
	put_fmt(y + 1 + CP_COUNT, 2, w, a, " %s",
		"a, p, r or Enter copies, Esc closes");
}
