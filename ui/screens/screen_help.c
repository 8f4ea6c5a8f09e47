/* screen_help.c — every key, made from the screens' own key tables (read
 * from the screen table in struct ui) so the list cannot fall behind them:
 * a screen's section lists its keys, then the keys typed on it that enter
 * other screens (their from_keys, in UI_SCREENS order), each text wrapped
 * to the screen's width (80 columns: every word shown) and scrolled with
 * the moving keys. Esc, ? or F1 goes back; q quits.
 */
#include <stdio.h>
#include <string.h>

#include "core/draw.h"
#include "core/ui_priv.h"

/* The screen's own state (u->data[SCR_HELP]): a pager, no cursor; the
 * first line shown. */
struct help {
	size_t top;
};

static struct help *help_of(const struct ui *u)
{
	return u->data[SCR_HELP];
}

/* The help's lines at most (every screen's keys, wrapped at 80
 * columns, fit). A line is a title (key NULL), a key and its text, or
 * the rest of a text wrapped (key ""). */
enum { HELP_MAX = 600, KEY_W = 15, TEXT_X = 18 };

struct help_line {
	const char *key; /* NULL: a title (text) or a blank (text NULL) */
	const char *text; /* from the key tables: they outlive the help */
	int len; /* bytes of text on this line */
};

static const struct key_action common[] = {
	{ 0, "Up Down j k", "move the cursor", NULL },
	{ 0, "PgUp PgDn", "move a page", NULL },
	{ 0, "Home End g G", "first / last row", NULL },
	{ 0, "? F1", "this help (Esc, ? or F1 closes it)", NULL },
	{ 0, "Ctrl-L", "repaint the screen", NULL },
	{ 0, "mouse", "click selects a row, a type or a cell; the wheel moves",
	  NULL },
	{ 0, NULL, NULL, NULL },
};

static size_t add(struct help_line *l, size_t max, size_t n, const char *key,
		  const char *text, int len)
{
	if (n < max) {
		l[n].key = key;
		l[n].text = text;
		l[n].len = len;
	}
	return n + 1;
}

/* The bytes of t that fit in w columns, broken after a blank (a word
 * wider than w is cut); the whole of t when it fits. */
static int fit_words(const char *t, int w)
{
	char piece[512];
	int k, sp = 0, len = (int)strlen(t);

	if (len >= (int)sizeof(piece))
		len = (int)sizeof(piece) - 1;
	memcpy(piece, t, (size_t)len);
	piece[len] = '\0';
	if (text_cols(piece) <= w)
		return len;
	for (k = 1; k <= len; k++) {
		if (t[k] != ' ' && t[k] != '\0')
			continue;
		piece[k] = '\0';
		if (text_cols(piece) > w)
			break;
		sp = k;
		piece[k] = t[k];
	}
	if (!sp) { /* one word wider than the line: cut it */
		for (sp = len; sp > 1; sp--) {
			piece[sp] = '\0';
			if (text_cols(piece) <= w)
				break;
		}
	}
	return sp;
}

/* Adds the listed keys of t (ended by a NULL fn; has_fn false: by a NULL
 * keyname), each text wrapped at w columns onto lines of its own, from
 * n; returns the new n. */
static size_t add_keys(struct help_line *l, size_t max, size_t n,
		       const struct key_action *t, bool has_fn, int w)
{
	for (; t && (has_fn ? t->fn != NULL : t->keyname != NULL); t++) {
		const char *p = t->help ? t->help : "";
		bool first = true;

		if (!t->keyname)
			continue;
		do {
			int len = fit_words(p, w);

			n = add(l, max, n, first ? t->keyname : "", p, len);
			first = false;
			p += len;
			while (*p == ' ')
				p++;
		} while (*p);
	}
	return n;
}

/* Fills l (at most max; returns how many there are) for a screen cols
 * wide: the keys common to all, then of every screen in the table that
 * has a title and keys, in the table's order, each followed by the keys
 * that enter other screens from it. */
static size_t help_lines(const struct ui *u, struct help_line *l, size_t max,
			 int cols)
{
	size_t n = 0, i, j;
	int w = cols - TEXT_X - 1 > 20 ? cols - TEXT_X - 1 : 20;

	n = add(l, max, n, NULL, "Everywhere", 10);
	n = add_keys(l, max, n, common, false, w);
	n = add(l, max, n, NULL, NULL, 0);
	for (i = 0; i < SCR_COUNT; i++) {
		const char *title = u->screens[i]->title;

		if (!title || !u->screens[i]->keys)
			continue;
		n = add(l, max, n, NULL, title, (int)strlen(title));
		n = add_keys(l, max, n, u->screens[i]->keys, true, w);
		for (j = 0; j < SCR_COUNT; j++)
			if (u->screens[j]->from == i)
				n = add_keys(l, max, n,
					     u->screens[j]->from_keys, true, w);
		n = add(l, max, n, NULL, NULL, 0);
	}
	return n < max ? n : max;
}

static void help_draw(struct ui *u)
{
	static struct help_line lines[HELP_MAX];
	size_t n = help_lines(u, lines, HELP_MAX, COLS), i;
	int y, h = LINES - 2;
	char buf[512];

	if (help_of(u)->top + (size_t)h > n)
		help_of(u)->top = n > (size_t)h ? n - (size_t)h : 0;
	put_fmt(0, 0, COLS, theme_attr(EL_TITLE),
		" vmscope help: every key (lines %zu-%zu of %zu)",
		help_of(u)->top + 1,
		help_of(u)->top + (size_t)h < n ? help_of(u)->top + (size_t)h
						: n,
		n);
	for (y = 0, i = help_of(u)->top; y < h; y++, i++) {
		const struct help_line *l = i < n ? &lines[i] : NULL;
		attr_t a = theme_attr(EL_NORMAL);

		put_blank(1 + y, 0, COLS, a);
		if (!l || !l->text)
			continue;
		snprintf(buf, sizeof(buf), "%.*s", l->len, l->text);
		if (!l->key) {
			put_str(1 + y, 1, COLS - 1,
				theme_attr(EL_LABEL) | A_BOLD, buf, 1);
		} else {
			put_str(1 + y, 2, KEY_W, theme_attr(EL_KEY), l->key, 0);
			put_str(1 + y, TEXT_X, COLS - TEXT_X, a, buf, 1);
		}
	}
	ui_status(u, " Esc back   Up/Down PgUp/PgDn scroll", NULL);
}

static int help_key(struct ui *u, int key)
{
	static struct help_line lines[HELP_MAX];
	size_t n = help_lines(u, lines, HELP_MAX, COLS);
	enum move mv;

	if (key == 'q')
		return UI_QUIT;
	if (key == 27 || key == '?' || key == KEY_F(1))
		return UI_BACK | UI_DRAW;
	mv = key_move(key);
	if (mv == MV_NONE)
		return 0;
	{
		size_t cur = mv == MV_DOWN || mv == MV_PGDN || mv == MV_END
				     ? help_of(u)->top + (size_t)(LINES - 3)
				     : help_of(u)->top;

		cursor_apply(&cur, &help_of(u)->top, n, LINES - 2, mv);
	}
	return UI_DRAW;
}

/* ---- the screen ---- */

static int help_enter(struct ui *u)
{
	help_of(u)->top = 0;
	return 0;
}

/* Shown over another screen: its keys return there (UI_BACK). */
const struct ui_screen screen_help = {
	.name = "help",
	.data_size = sizeof(struct help),
	.enter = help_enter,
	.draw = help_draw,
	.key = help_key,
};
