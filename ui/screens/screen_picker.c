/* screen_picker.c — the process picker (libproc2 through proclist.h): PID,
 * user, name, RSS, PSS and command, sortable; typing filters; Enter opens
 * the viewer. Processes that cannot be read are shown dimmed with why.
 *
 * Every printable key types into the filter, so the picker's commands are
 * on keys that do not print (Tab, Shift-Tab, F5, Enter, Esc).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "core/draw.h"
#include "core/listview.h"
#include "core/ui_priv.h"
#include "linux/proclist.h"

/* The screen's own state (u->data[SCR_PICKER]): the processes, those the
 * filter lets through, the sort, the list. */
struct picker {
	struct proc_list list;
	size_t *view; /* indexes into list that pass the filter */
	size_t nview;
	char filter[64];
	int sort;
	bool reverse;
	struct listview lv;
	bool loaded;
};

static struct picker *pick_of(const struct ui *u)
{
	return u->data[SCR_PICKER];
}

static const struct {
	const char *name;
	enum proclist_sort key;
	bool largest_first;
} sorts[] = {
	{ "PSS", PROCLIST_BY_PSS, true },
	{ "RSS", PROCLIST_BY_RSS, true },
	{ "PID", PROCLIST_BY_PID, false },
	{ "User", PROCLIST_BY_USER, false },
	{ "Name", PROCLIST_BY_NAME, false },
};
enum { NSORTS = sizeof(sorts) / sizeof(sorts[0]) };

static void picker_free(struct picker *p)
{
	if (p->loaded)
		proclist_free(&p->list);
	free(p->view);
	p->view = NULL;
	p->nview = 0;
	p->loaded = false;
}

/* Whether e passes the filter f: its pid, user, or its name or command
 * line as the list shows them (escaped: "\x1b[2J" matches "\x1b"; a
 * command line's first 4 K of escaped text). */
static bool passes(const struct proc_entry *e, const char *f)
{
	char pid[16], text[4096];

	if (!*f)
		return true;
	snprintf(pid, sizeof(pid), "%d", (int)e->pid);
	if (contains_ci(pid, f) || contains_ci(e->user, f))
		return true;
	vms_escape_str(text, sizeof(text), e->name);
	if (contains_ci(text, f))
		return true;
	if (escape_clean(e->cmdline))
		return contains_ci(e->cmdline, f);
	vms_escape_str(text, sizeof(text), e->cmdline);
	return contains_ci(text, f);
}

/* Sorts, filters, and keeps the cursor on the same process. */
static void refilter(struct picker *p)
{
	pid_t keep =
		p->lv.cur < p->nview ? p->list.v[p->view[p->lv.cur]].pid : 0;
	char f[sizeof(p->filter)];
	size_t i;

	for (i = 0; p->filter[i]; i++)
		f[i] = (char)tolower((unsigned char)p->filter[i]);
	f[i] = '\0';
	proclist_sort(&p->list, sorts[p->sort].key,
		      sorts[p->sort].largest_first != p->reverse);
	p->nview = 0;
	p->lv.cur = 0;
	for (i = 0; i < p->list.n; i++) {
		if (!passes(&p->list.v[i], f))
			continue;
		if (p->list.v[i].pid == keep)
			p->lv.cur = p->nview;
		p->view[p->nview++] = i;
	}
	listview_show(&p->lv, p->nview);
}

static int picker_load(struct ui *u)
{
	struct picker *p = pick_of(u);
	struct vms_error err = { 0 };
	struct proc_list l;

	if (proclist_read(&l, &err) < 0) {
		ui_message(u, true, "%s", err.msg);
		return -1;
	}
	picker_free(p);
	p->list = l;
	p->loaded = true;
	p->view = calloc(l.n + 1, sizeof(*p->view));
	if (!p->view)
		return -1;
	refilter(p);
	return 0;
}

/* Row i of the list: a process (dimmed, with why, when it cannot be
 * read). */
static void picker_row(void *ctx, int yy, size_t i, bool sel)
{
	const struct picker *p = ctx;
	const struct proc_entry *e = &p->list.v[p->view[i]];
	attr_t at = theme_attr(sel	     ? EL_SELECTION
			       : e->readable ? EL_NORMAL
					     : EL_DIM);
	char a[16], b[16];

	put_blank(yy, 0, COLS, at);
	put_fmt(yy, 0, 8, at, "%8d", (int)e->pid);
	put_str(yy, 9, 10, at, e->user, 1);
	put_str(yy, 20, 15, at, e->name, 1);
	put_right(yy, 36, 9, at, fmt_size(e->rss, a, sizeof(a)));
	put_right(yy, 46, 9, at,
		  e->readable ? fmt_size(e->pss, b, sizeof(b)) : "-");
	/* the reason first: a long command line must not hide it */
	put_fmt(yy, 57, COLS - 57, at, "%s%s%s%s", e->readable ? "" : "(",
		e->readable ? "" : e->why, e->readable ? "" : ") ", e->cmdline);
}

static void picker_draw(struct ui *u)
{
	struct picker *p = pick_of(u);
	attr_t col = theme_attr(EL_COLUMN);
	char hint[96];

	put_fmt(0, 0, COLS, theme_attr(EL_TITLE),
		" vmscope: pick a process   %zu of %zu shown", p->nview,
		p->list.n);
	put_blank(1, 0, COLS, theme_attr(EL_NORMAL));
	put_str(1, 1, 8, theme_attr(EL_LABEL), "Filter:", 1);
	put_fmt(1, 9, COLS - 9, theme_attr(EL_FIND), "%s_", p->filter);
	put_blank(2, 0, COLS, col);
	put_right(2, 0, 8, col, "PID");
	put_str(2, 9, 10, col, "USER", 1);
	put_str(2, 20, 16, col, "NAME", 1);
	put_right(2, 36, 9, col, "RSS");
	put_right(2, 46, 9, col, "PSS");
	put_str(2, 57, COLS - 57, col, "COMMAND", 1);
	listview_draw(&p->lv, 3, LINES - 4, p->nview, picker_row, p);
	snprintf(hint, sizeof(hint), "sort %s %s", sorts[p->sort].name,
		 sorts[p->sort].largest_first != p->reverse ? "v" : "^");
	ui_status(u,
		  " F1 help  type to filter  Enter open  Tab sort  "
		  "S-Tab reverse  F5 reload  Esc clear/quit",
		  hint);
}

static int act_open(struct ui *u)
{
	struct picker *p = pick_of(u);

	if (p->lv.cur >= p->nview)
		return 0;
	u->open_pid = p->list.v[p->view[p->lv.cur]].pid;
	return UI_OPEN;
}

static int act_sort(struct ui *u)
{
	struct picker *p = pick_of(u);

	p->sort = (p->sort + 1) % (int)NSORTS;
	p->reverse = false;
	refilter(p);
	return UI_DRAW;
}

static int act_reverse(struct ui *u)
{
	struct picker *p = pick_of(u);

	p->reverse = !p->reverse;
	refilter(p);
	return UI_DRAW;
}

static int act_reload(struct ui *u)
{
	picker_load(u);
	return UI_DRAW;
}

static int act_escape(struct ui *u)
{
	struct picker *p = pick_of(u);

	if (!p->filter[0])
		return UI_QUIT;
	p->filter[0] = '\0';
	refilter(p);
	return UI_DRAW;
}

static int act_backspace(struct ui *u)
{
	struct picker *p = pick_of(u);

	ui_edit_line(p->filter, sizeof(p->filter), KEY_BACKSPACE);
	refilter(p);
	return UI_DRAW;
}

static int act_none(struct ui *u)
{
	(void)u;
	return 0;
}

static const struct key_action picker_keys[] = {
	/* documents the typing; -1 is never a key */
	{ -1, "typing",
	  "filters by pid, user, name or command (here j k g "
	  "G q ? t type too)",
	  act_none },
	{ '\r', "Enter", "open the viewer on the process", act_open },
	{ '\n', NULL, NULL, act_open },
	{ KEY_ENTER, NULL, NULL, act_open },
	{ '\t', "Tab F6", "next sort column (PSS, RSS, PID, user, name)",
	  act_sort },
	{ KEY_F(6), NULL, NULL, act_sort },
	{ KEY_BTAB, "Shift-Tab", "reverse the sort", act_reverse },
	{ KEY_F(5), "F5", "read the process list again", act_reload },
	{ KEY_BACKSPACE, "Backspace", "delete a filter character",
	  act_backspace },
	{ 127, NULL, NULL, act_backspace },
	{ 8, NULL, NULL, act_backspace },
	{ 27, "Esc", "clear the filter; quit when it is empty", act_escape },
	{ KEY_F(10), "F10", "quit", ui_quit },
	{ 0, NULL, NULL, NULL },
};

static int picker_key(struct ui *u, int key)
{
	struct picker *p = pick_of(u);
	int r;

	r = key_dispatch(u, picker_keys, key);
	if (r >= 0)
		return r;
	if (ui_edit_line(p->filter, sizeof(p->filter), key)) {
		refilter(p);
		return UI_DRAW;
	}
	return listview_key(&p->lv, p->nview, key) ? UI_DRAW : 0;
}

static int picker_mouse(struct ui *u, int y, int x, mmask_t b)
{
	struct picker *p = pick_of(u);
	size_t row;

	(void)x;
	switch (listview_mouse(&p->lv, p->nview, y, b, 1, &row)) {
	case LV_WHEEL:
		return UI_DRAW;
	case LV_MISS:
		return 0;
	case LV_ROW:
		break;
	}
	if (row == p->lv.cur && (b & BUTTON1_DOUBLE_CLICKED))
		return act_open(u);
	p->lv.cur = row;
	return UI_DRAW;
}

/* ---- the screen ---- */

static void picker_screen_free(struct ui *u)
{
	picker_free(pick_of(u));
}

/* Entered (at the start, or Esc in the viewer): the list read again. */
static int picker_enter(struct ui *u)
{
	return picker_load(u);
}

const struct ui_screen screen_picker = {
	.name = "picker",
	.title = "Process picker",
	.keys = picker_keys,
	.data_size = sizeof(struct picker),
	.typing = true,
	.free = picker_screen_free,
	.enter = picker_enter,
	.draw = picker_draw,
	.key = picker_key,
	.mouse = picker_mouse,
};
