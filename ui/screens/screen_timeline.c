/* screen_timeline.c — the history of the process shown (struct history:
 * every snapshot a refresh or a --watch tick took), one row a snapshot:
 * its time, committed memory, working set, private bytes, the change of
 * committed since the one before, and a bar; above them a sparkline of
 * committed memory over the whole history. The user marks two snapshots,
 * A and B, and opens the diff screen on them.
 *
 * Contract: reads u->hist only; marks are u->hist.mark (pointers into the
 * history, cleared by ui.c when their snapshot leaves it). Enter without
 * both marks compares the row above the cursor with it (or A with the
 * cursor's row). w saves every snapshot of the history into a directory
 * (a prompt offers one), one snapshot file each, named as --watch -w
 * names them; a snapshot captured without the kernel's text a file holds
 * (ui_priv.h: UI_KEEP_RAW_REGIONS; -b fork) cannot be, and the status
 * line says how many.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/outbuf.h"
#include "base/outfile.h"
#include "pipeline.h"

#include "core/draw.h"
#include "core/listview.h"
#include "core/ui_priv.h"
#include "screens/screen_calls.h"

/* The screen's own state (u->data[SCR_TIMELINE]): the list of snapshots. */
struct timeline {
	struct listview lv;
	bool prompt; /* w: the directory being typed */
	char dir[512];
};

static struct timeline *tl_of(const struct ui *u)
{
	return u->data[SCR_TIMELINE];
}

/* "13:25:24.123" (UTC; the date is in the title) */
static const char *fmt_time(const struct vms_snapshot *s, char *buf, size_t n)
{
	time_t t = (time_t)s->cap.taken_at_sec;
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, n, "%02d:%02d:%02d.%03ld", tm.tm_hour, tm.tm_min,
		 tm.tm_sec, s->cap.taken_at_nsec / 1000000);
	return buf;
}

static uint64_t committed(const struct vms_snapshot *s)
{
	return s->total.committed;
}

/* The sparkline: one cell a snapshot (the newest at the right), its
 * committed memory between the least and the most of the history. */
static void draw_sparkline(struct ui *u, int y)
{
	static const char *const blocks[8] = { "\u2581", "\u2582", "\u2583",
					       "\u2584", "\u2585", "\u2586",
					       "\u2587", "\u2588" };
	static const char ascii[] = "_.-=+*#@";
	const struct history *h = &u->hist;
	uint64_t lo = UINT64_MAX, hi = 0;
	char a[16], b[16];
	size_t i, first;
	int x = 12, w = COLS - 12 - 24;
	bool utf8 = MB_CUR_MAX > 1;

	put_blank(y, 0, COLS, theme_attr(EL_NORMAL));
	put_str(y, 1, 11, theme_attr(EL_LABEL), "Committed", 1);
	for (i = 0; i < h->n; i++) {
		uint64_t c = committed(h->s[i]);

		lo = c < lo ? c : lo;
		hi = c > hi ? c : hi;
	}
	if (!h->n || w < 4)
		return;
	first = h->n > (size_t)w ? h->n - (size_t)w : 0;
	for (i = first; i < h->n; i++, x++) {
		uint64_t c = committed(h->s[i]);
		int lv = hi > lo ? (int)((c - lo) * 7 / (hi - lo)) : 0;
		char cell[8];

		snprintf(cell, sizeof(cell), "%s",
			 utf8 ? blocks[lv] : (char[]){ ascii[lv], 0 });
		put_str(y, x, 1, theme_attr(EL_PRIVATE_DATA), cell, 0);
	}
	put_fmt(y, COLS - 23, 23, theme_attr(EL_NORMAL), "%8s .. %s",
		fmt_size(lo, a, sizeof(a)), fmt_size(hi, b, sizeof(b)));
}

/* What a row is drawn with (listview_draw's ctx). */
struct row_ctx {
	struct ui *u;
	uint64_t hi; /* the most committed: a full bar */
};

static void draw_row(void *ctx, int y, size_t i, bool sel)
{
	struct ui *u = ((struct row_ctx *)ctx)->u;
	uint64_t hi = ((struct row_ctx *)ctx)->hi;
	const struct history *h = &u->hist;
	const struct vms_snapshot *s = h->s[i];
	char t[24], c[16], w[16], p[16], d[16], mk[4];
	attr_t at = theme_attr(EL_NORMAL);
	int bw = COLS - 62, n;

	if (sel)
		at = theme_attr(EL_SELECTION);
	snprintf(mk, sizeof(mk), "%s%s", h->mark[0] == s ? "A" : "",
		 h->mark[1] == s ? "B" : "");
	put_fmt(y, 0, 62, at, " %-2s %3zu  %s %9s %9s %9s %10s ", mk, i + 1,
		fmt_time(s, t, sizeof(t)), fmt_size(committed(s), c, sizeof(c)),
		s->cap.no_counters ? "-" : fmt_size(s->total.ws, w, sizeof(w)),
		fmt_size(s->total.private_bytes, p, sizeof(p)),
		i ? fmt_size_delta(
			    (int64_t)(committed(s) - committed(h->s[i - 1])), d,
			    sizeof(d))
		  : "");
	put_blank(y, 62, COLS - 62, theme_attr(EL_NORMAL));
	if (bw < 4 || !hi)
		return;
	n = (int)((double)committed(s) * (bw - 1) / (double)hi + 0.5);
	if (n > 0) {
		attrset(theme_attr(EL_PRIVATE_DATA) | A_REVERSE);
		mvhline(y, 62, u->color ? ' ' : '#', n);
		attrset(A_NORMAL);
	}
}

static void timeline_draw(struct ui *u)
{
	const struct history *h = &u->hist;
	const struct vms_snapshot *s = h->n ? h->s[h->n - 1] : u->snap;
	char when[40], right[64];
	struct row_ctx rc = { u, 0 };
	struct listview *lv = &tl_of(u)->lv;
	size_t i;

	if (s && s->cap.taken_at_sec) {
		time_t t = (time_t)s->cap.taken_at_sec;
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d UTC", &tm);
	} else {
		snprintf(when, sizeof(when), "-");
	}
	put_fmt(0, 0, COLS, theme_attr(EL_TITLE),
		" vmscope  timeline  %s  pid %d  %zu snapshot%s  %s",
		s && s->proc.name ? s->proc.name : "?",
		s ? (int)s->proc.pid : 0, h->n, h->n == 1 ? "" : "s", when);
	draw_sparkline(u, 1);
	put_fmt(2, 0, COLS, theme_attr(EL_COLUMN),
		" AB   #  Taken         Committed Total WS   Private     Change ");
	for (i = 0; i < h->n; i++)
		rc.hi = committed(h->s[i]) > rc.hi ? committed(h->s[i]) : rc.hi;
	listview_draw(lv, 3, LINES - 4, h->n, draw_row, &rc);
	snprintf(right, sizeof(right), "A %s  B %s | %zu/%zu",
		 h->mark[0] ? "set" : "-", h->mark[1] ? "set" : "-",
		 h->n ? lv->cur + 1 : 0, h->n);
	ui_status(u,
		  " a mark A  b mark B  Enter diff  w save all  r refresh  "
		  "Esc back  q quit",
		  right);
	if (tl_of(u)->prompt)
		ui_prompt(
			theme_attr(EL_FIND),
			"Save every snapshot to the directory: ", tl_of(u)->dir,
			"Enter writes, Ctrl-U clears, Esc cancels");
}

/* ---- actions ---- */

static int mark(struct ui *u, int which)
{
	const struct history *h = &u->hist;
	size_t cur = tl_of(u)->lv.cur;

	if (!h->n)
		return 0;
	u->hist.mark[which] =
		u->hist.mark[which] == h->s[cur] ? NULL : h->s[cur];
	return UI_DRAW;
}

static int act_mark_a(struct ui *u)
{
	return mark(u, 0);
}

static int act_mark_b(struct ui *u)
{
	return mark(u, 1);
}

static int act_diff(struct ui *u)
{
	struct history *h = &u->hist;
	size_t at = tl_of(u)->lv.cur;
	const struct vms_snapshot *cur = h->n ? h->s[at] : NULL;

	if (h->n < 2) {
		ui_message(u, true, "%s",
			   "one snapshot: r takes another to compare with");
		return UI_DRAW;
	}
	if (!h->mark[0] && !h->mark[1]) {
		size_t c = at ? at : 1;

		h->mark[0] = h->s[c - 1];
		h->mark[1] = h->s[c];
	} else if (!h->mark[1]) {
		h->mark[1] = cur;
	} else if (!h->mark[0]) {
		h->mark[0] = cur;
	}
	if (h->mark[0] == h->mark[1]) {
		ui_message(u, true, "%s", "A and B are the same snapshot");
		return UI_DRAW;
	}
	u->next = SCR_DIFF;
	return UI_SWITCH | UI_DRAW;
}

static int act_back(struct ui *u)
{
	u->next = SCR_VIEWER;
	return UI_SWITCH | UI_DRAW;
}

static int act_refresh(struct ui *u)
{
	(void)u;
	return UI_RESAMPLE;
}

/* ---- w: every snapshot saved ---- */

/* TIME to the millisecond, UTC: 20261123T132524.123Z (names that sort
 * by time; two snapshots of one second apart). */
static void stamp(const struct vms_snapshot *s, char *buf, size_t n)
{
	time_t t = (time_t)s->cap.taken_at_sec;
	struct tm tm;
	char when[32];

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y%m%dT%H%M%S", &tm);
	snprintf(buf, n, "%.20s.%03dZ", when,
		 (int)(s->cap.taken_at_nsec / 1000000 % 1000));
}

static bool savable(const struct vms_snapshot *s)
{
	return s->raw && s->raw->smaps;
}

/* One snapshot as dir/TIME-pidPID.vms (--watch -w's name); its bytes
 * added to *bytes. -1 with err. */
static int save_one(struct ui *u, const struct vms_snapshot *s, const char *dir,
		    uint64_t *bytes, struct vms_error *err)
{
	char path[1024], st[64];
	struct outbuf o;
	void *buf;
	size_t len;

	stamp(s, st, sizeof(st));
	snprintf(path, sizeof(path), "%s/%s-pid%d.vms", dir, st,
		 (int)s->proc.pid);
	if (calls_save(u, s, &buf, &len, err) < 0)
		return -1;
	if (outbuf_open_file(&o, path, err) < 0) {
		free(buf);
		return -1;
	}
	ob_write(&o, buf, len);
	free(buf);
	if (outbuf_close(&o, err) < 0)
		return -1;
	*bytes += len;
	return 0;
}

static void save_all(struct ui *u, const char *dir)
{
	const struct history *h = &u->hist;
	struct vms_error err = { 0 };
	uint64_t bytes = 0;
	size_t i, saved = 0, not = 0;
	char sz[16];

	if (!dir[0]) {
		ui_message(u, true, "%s", "no directory: nothing written");
		return;
	}
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		ui_message(u, true, "cannot make the directory %s: %s", dir,
			   strerror(errno));
		return;
	}
	for (i = 0; i < h->n; i++) {
		if (!savable(h->s[i])) {
			not ++;
			continue;
		}
		if (save_one(u, h->s[i], dir, &bytes, &err) < 0) {
			ui_message(u, true, "%zu saved, then: %s", saved,
				   err.msg);
			return;
		}
		saved++;
	}
	ui_message(
		u, not > 0,
		"saved %zu snapshot%s (%s) to %s/, one file each (vmscope -l "
		"opens it)%s",
		saved, saved == 1 ? "" : "s", fmt_size(bytes, sz, sizeof(sz)),
		dir,
		not ? "; not the ones taken without the kernel's text a "
		      "file holds (-b fork, or a large process: w in the "
		      "viewer takes one with it)"
		    : "");
}

static int act_save_all(struct ui *u)
{
	struct timeline *t = tl_of(u);
	const struct history *h = &u->hist;
	char st[64];

	if (!h->n) {
		ui_message(u, true, "%s", "no snapshot in the timeline");
		return UI_DRAW;
	}
	stamp(h->s[0], st, sizeof(st));
	snprintf(t->dir, sizeof(t->dir), "vmscope-pid%d-%s",
		 (int)h->s[0]->proc.pid, st);
	t->prompt = true;
	u->prompting = true;
	return UI_DRAW;
}

/* A key while the directory is typed: Enter saves, Esc cancels. */
static int prompt_key(struct ui *u, int key)
{
	struct timeline *t = tl_of(u);

	if (key == 27 || key == '\r' || key == '\n' || key == KEY_ENTER) {
		t->prompt = false;
		u->prompting = false;
		if (key != 27)
			save_all(u, t->dir);
		return UI_DRAW;
	}
	if (key == 21) /* Ctrl-U: the line cleared */
		t->dir[0] = '\0';
	else
		ui_edit_line(t->dir, sizeof(t->dir), key);
	return UI_DRAW;
}

static const struct key_action timeline_keys[] = {
	{ 'w', "w",
	  "save every snapshot of the timeline into a directory (a prompt "
	  "offers one): a file each, named as --watch -w names them, that "
	  "vmscope -l opens",
	  act_save_all },
	{ 'a', "a", "mark the snapshot as A (again: unmark)", act_mark_a },
	{ 'b', "b", "mark the snapshot as B", act_mark_b },
	{ '\r', "Enter d",
	  "compare A with B (without marks: the row above with this one)",
	  act_diff },
	{ '\n', NULL, NULL, act_diff },
	{ KEY_ENTER, NULL, NULL, act_diff },
	{ 'd', NULL, NULL, act_diff },
	{ KEY_F(5), "F5 r", "take a new snapshot (a new row)", act_refresh },
	{ 'r', NULL, NULL, act_refresh },
	{ 't', "t", "next colour theme", ui_next_theme },
	{ 27, "Esc T", "back to the viewer", act_back },
	{ 'T', NULL, NULL, act_back },
	{ 'q', "q F10", "quit", ui_quit },
	{ KEY_F(10), NULL, NULL, ui_quit },
	{ 0, NULL, NULL, NULL },
};

static int timeline_key(struct ui *u, int key)
{
	int r;

	if (tl_of(u)->prompt)
		return prompt_key(u, key);
	r = key_dispatch(u, timeline_keys, key);

	if (r >= 0)
		return r;
	return listview_key(&tl_of(u)->lv, u->hist.n, key) ? UI_DRAW : 0;
}

static int timeline_mouse(struct ui *u, int y, int x, mmask_t b)
{
	struct listview *lv = &tl_of(u)->lv;
	size_t row;

	(void)x;
	if (listview_mouse(lv, u->hist.n, y, b, 0, &row) != LV_ROW)
		return 0;
	lv->cur = row;
	return UI_DRAW;
}

/* Opened: the cursor on the newest. */
static int timeline_enter(struct ui *u)
{
	tl_of(u)->lv.cur = u->hist.n ? u->hist.n - 1 : 0;
	return 0;
}

/* A new row: the cursor follows it when it was on the newest. */
static void timeline_snapshot_changed(struct ui *u,
				      const struct vms_snapshot *old,
				      bool new_process)
{
	struct listview *lv = &tl_of(u)->lv;

	(void)old;
	if (new_process || lv->cur + 2 >= u->hist.n)
		lv->cur = u->hist.n ? u->hist.n - 1 : 0;
	if (lv->cur >= u->hist.n)
		lv->cur = u->hist.n ? u->hist.n - 1 : 0;
}

/* The key of the viewer that opens the timeline (ui_priv.h:
 * from_keys). */
static int act_enter_from_viewer(struct ui *u)
{
	u->next = SCR_TIMELINE;
	return UI_SWITCH | UI_DRAW;
}

static const struct key_action from_viewer[] = {
	{ 'T', "T",
	  "the timeline: every snapshot r (or --watch) took; mark two and "
	  "compare them",
	  act_enter_from_viewer },
	{ 0, NULL, NULL, NULL },
};

const struct ui_screen screen_timeline = {
	.name = "timeline",
	.title = "Timeline (T in the viewer)",
	.keys = timeline_keys,
	.data_size = sizeof(struct timeline),
	.enter = timeline_enter,
	.snapshot_changed = timeline_snapshot_changed,
	.draw = timeline_draw,
	.key = timeline_key,
	.mouse = timeline_mouse,
	.from = SCR_VIEWER,
	.from_keys = from_viewer,
};
