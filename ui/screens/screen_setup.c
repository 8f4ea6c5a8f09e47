/* screen_setup.c — the column setup (htop's F2): every column the details
 * pane offers (config.h: the summary's figures, Prot, Details), in the
 * order shown, each shown or hidden. Space shows or hides the cursor's
 * column, [ and ] (or F7, F8) move it up or down, d restores the
 * defaults; every change is written to the settings file at once
 * (u->conf_path, written as -o writes) and read again at the next start.
 * Esc, F2 or c goes back to the viewer, which draws the columns that fit
 * in this order.
 *
 * Contract: changes u->conf and its own state only; reaches the engine
 * through config.h alone.
 */
#include <stdio.h>
#include <string.h>

#include "core/draw.h"
#include "core/listview.h"
#include "core/ui_priv.h"

enum { SETUP_Y = 3 }; /* the first column's line */

/* The screen's own state (u->data[SCR_SETUP]): the cursor over
 * u->conf.order. */
struct setup {
	struct listview lv;
};

static struct listview *lv_of(const struct ui *u)
{
	return &((struct setup *)u->data[SCR_SETUP])->lv;
}

/* What Prot and Details are, beside the figures' meanings (columns.h). */
static const char *meaning(int id)
{
	if (id == VMS_DCOL_PROT)
		return "the protection: r w x, and p private or s shared";
	if (id == VMS_DCOL_DETAILS)
		return "the file mapped, or what the region is (thread, arena)";
	if (id == VMS_DCOL_CHANGE)
		return "each figure's change beside it, as D counts it";
	if (id == VMS_COL_BLOCKS)
		return "how many regions a row stands for";
	return vms_columns[id].meaning;
}

/* Row i of the list: a column, shown or not, and what it means. */
static void setup_row(void *ctx, int line, size_t i, bool sel)
{
	const struct vms_config *c = &((struct ui *)ctx)->conf;
	attr_t n = theme_attr(EL_NORMAL);
	int id = c->order[i];

	put_blank(line, 0, COLS, n);
	put_str(line, 2, 6, n, c->shown[id] ? "[x]" : "[ ]", 1);
	put_str(line, 9, 14, c->shown[id] ? n : theme_attr(EL_DIM),
		vms_config_name(id), 1);
	put_str(line, 24, COLS - 24, theme_attr(EL_DIM), meaning(id), 1);
	if (sel) {
		attr_t sa = theme_attr(EL_SELECTION);

		put_str(line, 0, 1, sa, ">", 1);
		mvchgat(line, 0, COLS, sa & ~A_COLOR, (short)PAIR_NUMBER(sa),
			NULL);
	}
}

static void setup_draw(struct ui *u)
{
	attr_t n = theme_attr(EL_NORMAL);

	put_str(0, 0, COLS, theme_attr(EL_TITLE),
		" vmscope: the columns of the details, in the order shown", 1);
	put_blank(1, 0, COLS, n);
	put_str(1, 1, COLS - 1, theme_attr(EL_LABEL),
		u->conf_path[0] ? "Saved in" : "Not saved (no HOME)", 1);
	if (u->conf_path[0])
		put_str(1, 10, COLS - 10, n, u->conf_path, 1);
	put_blank(2, 0, COLS, theme_attr(EL_COLUMN));
	put_str(2, 2, 6, theme_attr(EL_COLUMN), "Shown", 1);
	put_str(2, 9, 14, theme_attr(EL_COLUMN), "Column", 1);
	put_str(2, 24, COLS - 24, theme_attr(EL_COLUMN), "Meaning", 1);
	listview_draw(lv_of(u), SETUP_Y, LINES - 1 - SETUP_Y, (size_t)u->conf.n,
		      setup_row, u);
	ui_status(u, " Space show/hide  [ ] move up/down  d defaults  Esc back",
		  NULL);
}

/* Writes the settings; says so, or why not. */
static int save(struct ui *u)
{
	struct vms_error err = { 0 };

	if (!u->conf_path[0]) {
		ui_message(u, true, "%s",
			   "no HOME or XDG_CONFIG_HOME: the columns are not "
			   "saved");
		return UI_DRAW;
	}
	if (vms_config_save(&u->conf, u->conf_path, &err) < 0)
		ui_message(u, true, "%s", err.msg);
	else
		ui_message(u, false, "columns saved");
	return UI_DRAW;
}

static int act_toggle(struct ui *u)
{
	int id = u->conf.order[lv_of(u)->cur];

	u->conf.shown[id] = !u->conf.shown[id];
	return save(u);
}

static int move_by(struct ui *u, int delta)
{
	struct listview *lv = lv_of(u);
	int to = vms_config_move(&u->conf, (int)lv->cur, delta);

	if (to == (int)lv->cur)
		return 0;
	lv->cur = (size_t)to;
	return save(u);
}

static int act_up(struct ui *u)
{
	return move_by(u, -1);
}

static int act_down(struct ui *u)
{
	return move_by(u, 1);
}

/* The default columns; the lists' sorts are kept. */
static int act_defaults(struct ui *u)
{
	struct vms_config_sort sort[VMS_CONFIG_LISTS];

	memcpy(sort, u->conf.sort, sizeof(sort));
	vms_config_default(&u->conf);
	memcpy(u->conf.sort, sort, sizeof(sort));
	return save(u);
}

static int act_back(struct ui *u)
{
	u->next = SCR_VIEWER;
	return UI_SWITCH | UI_DRAW;
}

static const struct key_action setup_keys[] = {
	{ ' ', "Space Enter", "show or hide the column", act_toggle },
	{ '\r', NULL, NULL, act_toggle },
	{ '\n', NULL, NULL, act_toggle },
	{ KEY_ENTER, NULL, NULL, act_toggle },
	{ '[', "[ ] F7 F8", "move the column up / down (left / right)",
	  act_up },
	{ KEY_F(7), NULL, NULL, act_up },
	{ ']', NULL, NULL, act_down },
	{ KEY_F(8), NULL, NULL, act_down },
	{ 'd', "d", "the default columns again", act_defaults },
	{ 27, "Esc F2 c", "back to the viewer", act_back },
	{ KEY_F(2), NULL, NULL, act_back },
	{ 'c', NULL, NULL, act_back },
	{ 'q', "q F10", "quit", ui_quit },
	{ KEY_F(10), NULL, NULL, ui_quit },
	{ 0, NULL, NULL, NULL },
};

static int setup_key(struct ui *u, int key)
{
	int r = key_dispatch(u, setup_keys, key);

	if (r >= 0)
		return r;
	return listview_key(lv_of(u), (size_t)u->conf.n, key) ? UI_DRAW : 0;
}

static int setup_mouse(struct ui *u, int y, int x, mmask_t b)
{
	struct listview *lv = lv_of(u);
	size_t row;

	(void)x;
	if (listview_mouse(lv, (size_t)u->conf.n, y, b, 0, &row) != LV_ROW)
		return 0;
	lv->cur = row;
	if (b & BUTTON1_DOUBLE_CLICKED)
		return act_toggle(u);
	return UI_DRAW;
}

static int setup_enter(struct ui *u)
{
	lv_of(u)->cur = lv_of(u)->top = 0;
	return 0;
}

/* The keys of the viewer that open the setup (ui_priv.h: from_keys). */
static int act_enter_from_viewer(struct ui *u)
{
	u->next = SCR_SETUP;
	return UI_SWITCH | UI_DRAW;
}

static const struct key_action from_viewer[] = {
	{ KEY_F(2), "F2 c",
	  "column setup: which columns the details show, in which order",
	  act_enter_from_viewer },
	{ 'c', NULL, NULL, act_enter_from_viewer },
	{ 0, NULL, NULL, NULL },
};

const struct ui_screen screen_setup = {
	.name = "setup",
	.title = "Column setup (F2 or c in the viewer)",
	.keys = setup_keys,
	.data_size = sizeof(struct setup),
	.enter = setup_enter,
	.draw = setup_draw,
	.key = setup_key,
	.mouse = setup_mouse,
	.from = SCR_VIEWER,
	.from_keys = from_viewer,
};
