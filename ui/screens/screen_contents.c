/* screen_contents.c — a region's contents (VMMap's Strings view): its
 * strings, ASCII and UTF-16LE, of a minimum length + and - change
 * (default 4), or its bytes in hex (Tab turns between them); / finds hex
 * bytes or text across the whole snapshot and moves to the region holding
 * them (n: the next one).
 *
 * Memory comes from the snapshot's source only (memview.h): the fork
 * clone, a target frozen for the reads (pss -F), a core dump. Otherwise the
 * screen says why there is none (a snapshot file, a pss capture not
 * frozen). At most CONTENTS_MAX bytes of a region are read (said when
 * cut); pages not read show as "??" and hold no strings: not in RAM,
 * or, through a fork clone, file pages it has not mapped (fork copies no
 * page tables of file mappings without private pages). Every byte
 * drawn is printable ASCII, '.', or escaped by put_str (draw.h).
 *
 * The viewer's x opens it on the region under its cursor (u->goto_addr);
 * Esc returns to the viewer on the region shown. State: its own (struct contents).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/scan.h"
#include "core/draw.h"
#include "core/listview.h"
#include "core/ui_priv.h"
#include "pipeline.h"

#define CONTENTS_MAX (16u << 20)
#define STRS_MAX 200000

/* The screen's own state (u->data[SCR_CONTENTS]): the region shown (its
 * first len bytes read, ok: which pages), its strings, the list over the
 * lines (hex) or the strings, the find's pattern and last match. */
struct scan_str;
struct contents {
	uint64_t start, end;
	unsigned char *buf, *ok;
	size_t len, pages_read;
	const char *why; /* no memory to show, and why */
	char err[512];
	struct scan_str *strs;
	size_t nstrs, total; /* stored, found */
	unsigned min; /* the strings' minimum length */
	bool hex;
	struct listview lv;
	bool prompting;
	char typed[128];
	unsigned char pat[256];
	size_t plen;
	bool have_hit;
	uint64_t hit;
};

static struct contents *cont_of(const struct ui *u)
{
	return u->data[SCR_CONTENTS];
}

static void release(struct contents *c)
{
	free(c->buf);
	free(c->ok);
	free(c->strs);
	c->buf = c->ok = NULL;
	c->strs = NULL;
	c->len = c->nstrs = c->total = 0;
}

static uint64_t page_size(const struct ui *u)
{
	uint64_t pg = u->snap->cap.page_size;

	return pg && !(pg & (pg - 1)) ? pg : 4096;
}

static void find_strings(struct contents *c)
{
	free(c->strs);
	c->strs = NULL;
	c->nstrs = c->total = 0;
	if (!c->buf)
		return;
	c->total = scan_strings(c->buf, c->len, c->min, SCAN_ASCII | SCAN_UTF16,
				NULL, 0);
	c->nstrs = c->total < STRS_MAX ? c->total : STRS_MAX;
	c->strs = calloc(c->nstrs ? c->nstrs : 1, sizeof(*c->strs));
	if (!c->strs) {
		c->nstrs = 0;
		return;
	}
	scan_strings(c->buf, c->len, c->min, SCAN_ASCII | SCAN_UTF16, c->strs,
		     c->nstrs);
}

/* Reads the region holding addr (its first CONTENTS_MAX bytes). */
static void load(struct ui *u, uint64_t addr)
{
	struct contents *c = cont_of(u);
	const struct vms_region *r = vms_snapshot_find(u->snap, addr);
	struct vms_error err = { 0 };
	uint64_t pg = page_size(u);
	ssize_t got;

	release(c);
	c->err[0] = '\0';
	c->lv.cur = c->lv.top = 0;
	if (!r) {
		snprintf(c->err, sizeof(c->err),
			 "no region holds 0x%llx: it is free address space",
			 (unsigned long long)addr);
		c->start = c->end = addr;
		return;
	}
	c->start = r->start;
	c->end = r->end;
	c->why = vms_memview_why(u->snap);
	if (c->why)
		return;
	c->len = r->end - r->start > CONTENTS_MAX ? CONTENTS_MAX
						  : (size_t)(r->end - r->start);
	c->buf = malloc(c->len ? c->len : 1);
	c->ok = calloc((c->len + pg - 1) / pg + 1, 1);
	if (!c->buf || !c->ok) {
		release(c);
		snprintf(c->err, sizeof(c->err), "out of memory");
		return;
	}
	got = vms_memview_read(u->snap, r->start, c->buf, c->len, c->ok, &err);
	if (got < 0) {
		snprintf(c->err, sizeof(c->err), "%s", err.msg);
		release(c);
		return;
	}
	c->pages_read = (size_t)got;
	find_strings(c);
}

/* ---- drawing ---- */

static int bytes_per_line(void)
{
	return COLS >= 16 * 4 + 22 ? 16 : 8;
}

static size_t hex_lines(const struct contents *c)
{
	size_t bpl = (size_t)bytes_per_line();

	return (c->len + bpl - 1) / bpl;
}

static size_t nrows(const struct contents *c)
{
	return c->hex ? hex_lines(c) : c->nstrs;
}

static bool byte_ok(const struct ui *u, size_t off)
{
	struct contents *c = cont_of(u);

	return c->ok[off / page_size(u)] != 0;
}

static void draw_hex_line(struct ui *u, int y, size_t line, bool sel)
{
	const struct contents *c = cont_of(u);
	size_t bpl = (size_t)bytes_per_line(), off = line * bpl, k;
	attr_t a = sel ? theme_attr(EL_SELECTION) : theme_attr(EL_NORMAL);
	char text[16 * 4 + 40];
	int x;

	x = snprintf(text, sizeof(text), "%016llx ",
		     (unsigned long long)(c->start + off));
	for (k = 0; k < bpl; k++) {
		if (off + k >= c->len)
			x += snprintf(text + x, sizeof(text) - (size_t)x,
				      "   ");
		else if (!byte_ok(u, off + k))
			x += snprintf(text + x, sizeof(text) - (size_t)x,
				      " ??");
		else
			x += snprintf(text + x, sizeof(text) - (size_t)x,
				      " %02x", c->buf[off + k]);
	}
	x += snprintf(text + x, sizeof(text) - (size_t)x, "  ");
	for (k = 0; k < bpl && off + k < c->len; k++) {
		unsigned char b = c->buf[off + k];

		text[x++] = !byte_ok(u, off + k)    ? ' '
			    : b >= 0x20 && b < 0x7f ? (char)b
						    : '.';
	}
	text[x] = '\0';
	put_str(y, 0, COLS, a, text, 1);
}

static void draw_string(struct ui *u, int y, size_t i, bool sel)
{
	const struct contents *c = cont_of(u);
	const struct scan_str *st = &c->strs[i];
	attr_t a = sel ? theme_attr(EL_SELECTION) : theme_attr(EL_NORMAL);
	char text[512], line[600];

	scan_str_text(c->buf, st, text, sizeof(text));
	snprintf(line, sizeof(line), "%016llx %c %5zu  %s",
		 (unsigned long long)(c->start + st->off),
		 st->kind == SCAN_UTF16 ? 'U' : 'A', st->chars, text);
	put_str(y, 0, COLS, a, line, 1); /* escapes what is not printable */
}

static void draw_prompt(struct ui *u)
{
	struct contents *c = cont_of(u);

	ui_prompt(theme_attr(EL_FIND), "Find in memory: ", c->typed,
		  "(hex: de ad be ef; text; \"quoted\" is text. Enter finds, "
		  "Esc cancels)");
}

/* Line i of the list: hex bytes or a string. */
static void draw_line(void *ctx, int y, size_t i, bool sel)
{
	struct ui *u = ctx;

	if (cont_of(u)->hex)
		draw_hex_line(u, y, i, sel);
	else
		draw_string(u, y, i, sel);
}

static void contents_draw(struct ui *u)
{
	struct contents *c = cont_of(u);
	const struct vms_region *r = vms_snapshot_find(u->snap, c->start);
	char sz[16], legend[200];
	size_t n;
	int y;

	for (y = 0; y < LINES; y++)
		put_blank(y, 0, COLS, theme_attr(EL_NORMAL));
	put_fmt(0, 0, COLS, theme_attr(EL_TITLE),
		" %s of 0x%llx-0x%llx  %s  %s", c->hex ? "Bytes" : "Strings",
		(unsigned long long)c->start, (unsigned long long)c->end,
		r ? vms_type_info[r->type].label : "",
		r && r->detail ? r->detail
		: r && r->path ? r->path
			       : "");
	c->lv.y = 2;
	c->lv.h = LINES - 1 - c->lv.y;
	if (c->why || c->err[0]) {
		put_str(1, 0, COLS, theme_attr(EL_ERROR),
			c->why ? "Contents unavailable:" : "Cannot read it:",
			1);
		/* wrapped: read whole at 80 columns */
		put_wrapped(2, 1, COLS - 2, LINES - 3, theme_attr(EL_ERROR),
			    c->why ? c->why : c->err);
	} else {
		if (c->hex)
			snprintf(legend, sizeof(legend),
				 "%s read%s; ?? = not read: not in RAM (never "
				 "touched, swapped out), or a file page the "
				 "fork clone has not mapped",
				 fmt_size(c->len, sz, sizeof(sz)),
				 c->len < c->end - c->start
					 ? " (the first part)"
					 : "");
		else
			snprintf(legend, sizeof(legend),
				 "%zu strings of %u or more (+/- change it), "
				 "A ASCII, U UTF-16LE%s",
				 c->total, c->min,
				 c->total > c->nstrs ? " (the first shown)"
				 : c->len < c->end - c->start
					 ? " in its first part"
					 : "");
		/* wrapped at 80 columns, the list under it */
		c->lv.y = 1 + put_wrapped(1, 0, COLS, 2, theme_attr(EL_LABEL),
					  legend);
		c->lv.h = LINES - 1 - c->lv.y;
	}
	n = nrows(c);
	if (c->lv.cur >= n)
		c->lv.cur = n ? n - 1 : 0;
	listview_place(&c->lv, c->lv.y, c->lv.h, n);
	if (c->buf)
		listview_draw(&c->lv, c->lv.y, c->lv.h, n, draw_line, u);
	if (c->prompting)
		draw_prompt(u);
	else
		ui_status(u,
			  " Tab strings/hex  +/- min length  / find in memory  "
			  "n next  Esc back  ? help  q quit",
			  NULL);
}

/* ---- finding across the snapshot ---- */

/* Esc while a find runs cancels it. */
static int find_progress(void *ctx, uint64_t at)
{
	struct ui *u = ctx;
	int ch, stop = 0;

	put_fmt(LINES - 1, 0, COLS, theme_attr(EL_FIND),
		" Finding: at 0x%llx   Esc cancels", (unsigned long long)at);
	refresh();
	timeout(0);
	while ((ch = getch()) != ERR)
		if (ch == 27)
			stop = 1;
	timeout(250);
	(void)u;
	return stop;
}

static int do_find(struct ui *u, bool next)
{
	struct contents *c = cont_of(u);
	struct vms_error err = { 0 };
	uint64_t from = next && c->have_hit ? c->hit + 1 : 0, at = 0;
	int rc;

	if (!c->plen) {
		ui_message(u, true, "nothing to find yet: / asks what");
		return UI_DRAW;
	}
	rc = vms_memview_find(u->snap, from, c->pat, c->plen, &at,
			      find_progress, u, &err);
	if (rc < 0) {
		ui_message(u, true, "%s", err.msg);
		return UI_DRAW;
	}
	if (rc == 0) {
		ui_message(u, false, "%s not found%s", c->typed,
			   next ? " after the last match" : "");
		c->have_hit = false;
		return UI_DRAW;
	}
	c->have_hit = true;
	c->hit = at;
	load(u, at);
	c->hex = true;
	if (at - c->start < c->len)
		c->lv.cur = (size_t)(at - c->start) / (size_t)bytes_per_line();
	ui_message(u, false, "found at 0x%llx (+0x%llx in this region)%s",
		   (unsigned long long)at, (unsigned long long)(at - c->start),
		   at - c->start < c->len ? "; n finds the next"
					  : ", past the part read");
	return UI_DRAW;
}

static int prompt_key(struct ui *u, int key)
{
	struct contents *c = cont_of(u);
	struct vms_error err = { 0 };
	bool hex;

	switch (key) {
	case 27:
		c->prompting = false;
		u->finding = false;
		return UI_DRAW;
	case '\r':
	case '\n':
	case KEY_ENTER:
		c->prompting = false;
		u->finding = false;
		if (scan_pattern(c->typed, c->pat, sizeof(c->pat), &c->plen,
				 &hex, &err) < 0) {
			c->plen = 0;
			ui_message(u, true, "%s", err.msg);
			return UI_DRAW;
		}
		c->have_hit = false;
		return do_find(u, false);
	default:
		ui_edit_line(c->typed, sizeof(c->typed), key);
		return UI_DRAW;
	}
}

/* ---- keys ---- */

static int act_tab(struct ui *u)
{
	struct contents *c = cont_of(u);
	size_t bpl = (size_t)bytes_per_line();

	/* the cursor stays on the same bytes */
	if (!c->hex && c->lv.cur < c->nstrs)
		c->lv.cur = c->strs[c->lv.cur].off / bpl;
	else if (c->hex) {
		size_t off = c->lv.cur * bpl, i;

		for (i = 0; i < c->nstrs && c->strs[i].off < off; i++)
			;
		c->lv.cur = i;
	}
	c->hex = !c->hex;
	return UI_DRAW;
}

static int min_len(struct ui *u, int d)
{
	struct contents *c = cont_of(u);

	if ((d < 0 && c->min <= SCAN_MIN_LEN) ||
	    (d > 0 && c->min >= SCAN_MAX_LEN))
		return 0;
	c->min = (unsigned)((int)c->min + d);
	find_strings(c);
	return UI_DRAW;
}

static int act_longer(struct ui *u)
{
	return min_len(u, 1);
}

static int act_shorter(struct ui *u)
{
	return min_len(u, -1);
}

static int act_find(struct ui *u)
{
	struct contents *c = cont_of(u);

	c->prompting = true;
	u->finding = true; /* printable keys are text: '?' too */
	return UI_DRAW;
}

static int act_next(struct ui *u)
{
	return do_find(u, true);
}

/* Back to the viewer, on the region shown. */
static int act_back(struct ui *u)
{
	const struct contents *c = cont_of(u);

	u->goto_set = c->start != c->end;
	u->goto_addr = c->have_hit ? c->hit : c->start;
	u->next = SCR_VIEWER;
	return UI_SWITCH | UI_DRAW;
}

static const struct key_action contents_keys[] = {
	{ '\t', "Tab", "strings or bytes (hex)", act_tab },
	{ '+', "+ -",
	  "strings: one character longer / shorter at least (default 4)",
	  act_longer },
	{ '=', NULL, NULL, act_longer },
	{ '-', NULL, NULL, act_shorter },
	{ '/', "/",
	  "find hex bytes (de ad be ef) or text across the snapshot: "
	  "shows the region holding it",
	  act_find },
	{ 'n', "n", "the next match", act_next },
	{ 't', "t", "next colour theme", ui_next_theme },
	{ 27, "Esc x", "back to the viewer, on this region", act_back },
	{ 'x', NULL, NULL, act_back },
	{ 'q', "q F10", "quit", ui_quit },
	{ KEY_F(10), NULL, NULL, ui_quit },
	{ 0, NULL, NULL, NULL },
};

static int contents_key(struct ui *u, int key)
{
	struct contents *c = cont_of(u);
	int r;

	if (c->prompting)
		return prompt_key(u, key);
	r = key_dispatch(u, contents_keys, key);
	if (r >= 0)
		return r;
	return listview_key(&c->lv, nrows(c), key) ? UI_DRAW : 0;
}

static int contents_mouse(struct ui *u, int y, int x, mmask_t b)
{
	struct contents *c = cont_of(u);

	size_t row;

	(void)x;
	/* a click off the lines redraws too */
	if (listview_mouse(&c->lv, nrows(c), y, b, 1, &row) == LV_ROW)
		c->lv.cur = row;
	return UI_DRAW;
}

/* ---- the screen ---- */

static void contents_init(struct ui *u)
{
	struct contents *c = cont_of(u);

	c->min = 4;
}

static void contents_free(struct ui *u)
{
	struct contents *c = cont_of(u);

	release(c);
}

/* The region's bytes belong to the old snapshot: read again on enter. */
static void contents_snapshot_changed(struct ui *u,
				      const struct vms_snapshot *old,
				      bool new_process)
{
	struct contents *c = cont_of(u);

	(void)old;
	(void)new_process;
	release(c);
	c->have_hit = false;
	c->start = c->end = 0;
}

/* Entered from the viewer with u->goto_addr: that region's contents. */
static int contents_enter(struct ui *u)
{
	struct contents *c = cont_of(u);

	if (!u->snap)
		return -1;
	if (u->goto_set) {
		u->goto_set = false;
		c->have_hit = false;
		load(u, u->goto_addr);
	} else if (!c->buf && !c->why) {
		load(u, c->start);
	}
	return 0;
}

const struct ui_screen screen_contents = {
	.name = "contents",
	.title = "Contents (x in the viewer)",
	.keys = contents_keys,
	.data_size = sizeof(struct contents),
	.init = contents_init,
	.free = contents_free,
	.enter = contents_enter,
	.snapshot_changed = contents_snapshot_changed,
	.draw = contents_draw,
	.key = contents_key,
	.mouse = contents_mouse,
};
