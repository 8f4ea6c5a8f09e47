/* screen_help.c — every key, made from the screens' own key tables (read
 * from the screen table in struct ui) so the list cannot fall behind them:
 * a screen's section lists its keys, then the keys typed on it that enter
 * other screens (their from_keys, in UI_SCREENS order). Esc, ? or F1 goes
 * back; q quits.
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

/* The help's lines at most (every screen's keys fit). */
enum { HELP_MAX = 160 };

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

/* Adds the listed keys of t (ended by a NULL fn; has_fn false: by a NULL
 * keyname) to lines from n; returns the new n. */
static size_t add_keys(char lines[][160], size_t max, size_t n,
		       const struct key_action *t, bool has_fn)
{
	for (; t && (has_fn ? t->fn != NULL : t->keyname != NULL); t++) {
		if (!t->keyname)
			continue;
		if (n < max)
			snprintf(lines[n], 160, "  %-14s %s", t->keyname,
				 t->help);
		n++;
	}
	return n;
}

static size_t add_title(char lines[][160], size_t max, size_t n,
			const char *title)
{
	if (n < max)
		snprintf(lines[n], 160, "%s", title);
	return n + 1;
}

static size_t add_blank(char lines[][160], size_t max, size_t n)
{
	if (n < max)
		lines[n][0] = '\0';
	return n + 1;
}

/* Fills lines (at most max; returns how many there are): the keys
 * common to all, then of every screen in the table that has a title and
 * keys, in the table's order, each followed by the keys that enter
 * other screens from it. */
static size_t help_lines(const struct ui *u, char lines[][160], size_t max)
{
	size_t n = 0, i, j;

	n = add_title(lines, max, n, "Everywhere");
	n = add_keys(lines, max, n, common, false);
	n = add_blank(lines, max, n);
	for (i = 0; i < SCR_COUNT; i++) {
		if (!u->screens[i]->title || !u->screens[i]->keys)
			continue;
		n = add_title(lines, max, n, u->screens[i]->title);
		n = add_keys(lines, max, n, u->screens[i]->keys, true);
		for (j = 0; j < SCR_COUNT; j++)
			if (u->screens[j]->from == i)
				n = add_keys(lines, max, n,
					     u->screens[j]->from_keys, true);
		n = add_blank(lines, max, n);
	}
	return n;
}

static void help_draw(struct ui *u)
{
	char lines[HELP_MAX][160];
	size_t n = help_lines(u, lines, HELP_MAX), i;
	int y, h = LINES - 2;

	if (n > HELP_MAX)
		n = HELP_MAX;
	if (help_of(u)->top + (size_t)h > n)
		help_of(u)->top = n > (size_t)h ? n - (size_t)h : 0;
	put_str(0, 0, COLS, theme_attr(EL_TITLE), " vmscope help: every key",
		1);
	for (y = 0, i = help_of(u)->top; y < h; y++, i++) {
		const char *l = i < n ? lines[i] : "";
		attr_t a = theme_attr(EL_NORMAL);

		put_blank(1 + y, 0, COLS, a);
		if (l[0] && l[0] != ' ') {
			put_str(1 + y, 1, COLS - 1,
				theme_attr(EL_LABEL) | A_BOLD, l, 1);
		} else if (l[0]) {
			put_str(1 + y, 2, 15, theme_attr(EL_KEY), l + 2, 0);
			put_str(1 + y, 18, COLS - 18, a, l + 17, 1);
		}
	}
	ui_status(u, " Esc back   Up/Down scroll", NULL);
}

static int help_key(struct ui *u, int key)
{
	char lines[HELP_MAX][160];
	size_t n = help_lines(u, lines, HELP_MAX);
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
