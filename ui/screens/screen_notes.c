/* screen_notes.c — every note of the snapshot on screen, in full (issue
 * 31 item 1): what the capture could not do or found odd (notes.h), each
 * with what it touches, its text wrapped to the terminal's width; a pager
 * over them. The viewer's ! opens it, on the note of the cursor's row
 * when that row is marked: u->goto_set, u->goto_addr the note's index.
 * Esc (or !) goes back to the viewer; q quits.
 */
#include <stdio.h>
#include <string.h>

#include "core/draw.h"
#include "core/notes.h"
#include "core/ui_priv.h"

/* The lines the notes make at most (more are not shown). */
enum { NOTES_LINES = 1200, INDENT = 5 };

/* A line of the pager: a note's heading, a piece of its text (off, len
 * into ui_note_text), or blank. */
enum { NL_HEAD, NL_TEXT, NL_BLANK };
struct nline {
	uint16_t note;
	uint8_t kind;
	uint32_t off, len;
};

/* The screen's own state (u->data[SCR_NOTES]). */
struct notes {
	struct ui_note n[UI_NOTES_MAX];
	size_t count; /* as ui_notes said (may exceed UI_NOTES_MAX) */
	struct nline lines[NOTES_LINES];
	size_t nlines;
	size_t top;
	int lead; /* the note it was opened on, or -1 */
};

static struct notes *notes_of(const struct ui *u)
{
	return u->data[SCR_NOTES];
}

static void push(struct notes *st, uint16_t note, uint8_t kind, uint32_t off,
		 uint32_t len)
{
	if (st->nlines < NOTES_LINES)
		st->lines[st->nlines++] =
			(struct nline){ note, kind, off, len };
}

/* The bytes of text from its start that fit in w columns, cut after a
 * space where there is one (a word longer than w is cut where it must). */
static size_t fit(const char *t, int w)
{
	char buf[512];
	size_t n = strlen(t), lo = 0, cut;

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	/* the longest prefix of at most w columns (put_str's, escapes
	 * counted), a whole character at a time */
	for (cut = 1; cut <= n; cut++) {
		if (cut < n && ((unsigned char)t[cut] & 0xc0) == 0x80)
			continue;
		memcpy(buf, t, cut);
		buf[cut] = '\0';
		if (text_cols(buf) > w)
			break;
		lo = cut;
	}
	if (lo == strlen(t) || lo == 0)
		return lo ? lo : 1;
	for (cut = lo; cut > lo / 2; cut--)
		if (t[cut] == ' ')
			return cut + 1;
	return lo;
}

/* The notes of the snapshot shown, wrapped to w columns. */
static void notes_layout(struct ui *u, int w)
{
	struct notes *st = notes_of(u);
	size_t i, shown;

	st->count = ui_notes(u->snap, st->n, UI_NOTES_MAX);
	shown = st->count < UI_NOTES_MAX ? st->count : UI_NOTES_MAX;
	st->nlines = 0;
	for (i = 0; i < shown; i++) {
		const char *t = ui_note_text(&st->n[i]);
		size_t off = 0, len = strlen(t);

		push(st, (uint16_t)i, NL_HEAD, 0, 0);
		while (off < len) {
			size_t k = fit(t + off, w - INDENT);

			push(st, (uint16_t)i, NL_TEXT, (uint32_t)off,
			     (uint32_t)k);
			off += k;
		}
		push(st, (uint16_t)i, NL_BLANK, 0, 0);
	}
}

/* The first line of note i. */
static size_t line_of(const struct notes *st, int i)
{
	size_t k;

	for (k = 0; k < st->nlines; k++)
		if (st->lines[k].note == i && st->lines[k].kind == NL_HEAD)
			return k;
	return 0;
}

static const char *touches(const struct ui_note *n)
{
	return n->type < 0 ? "the Total" : vms_type_info[n->type].label;
}

/* The title, in buf; the lines it takes at this width (wrapped at 80
 * columns, not cut). */
static int title(const struct ui *u, char *buf, size_t n)
{
	snprintf(buf, n,
		 "vmscope notes: %zu of pid %d %s: what the capture could "
		 "not do or found odd",
		 notes_of(u)->count, u->snap ? (int)u->snap->proc.pid : 0,
		 u->snap && u->snap->proc.name ? u->snap->proc.name : "?");
	return text_cols(buf) + 1 > COLS ? 2 : 1;
}

/* The lines of the pager under the title. */
static int pager_h(const struct ui *u)
{
	char buf[200];

	return LINES - 1 - title(u, buf, sizeof(buf));
}

static void notes_draw(struct ui *u)
{
	struct notes *st = notes_of(u);
	int h, th, y;
	size_t i;
	char buf[200];

	notes_layout(u, COLS - 1);
	th = title(u, buf, sizeof(buf));
	h = LINES - 1 - th;
	if (st->top + (size_t)h > st->nlines)
		st->top = st->nlines > (size_t)h ? st->nlines - (size_t)h : 0;
	for (y = 0; y < th; y++)
		put_blank(y, 0, 1, theme_attr(EL_TITLE));
	put_wrapped(0, 1, COLS - 1, th, theme_attr(EL_TITLE), buf);
	for (y = 0, i = st->top; y < h; y++, i++) {
		const struct nline *l = i < st->nlines ? &st->lines[i] : NULL;
		const struct ui_note *n = l ? &st->n[l->note] : NULL;
		attr_t a = theme_attr(EL_NORMAL);

		put_blank(th + y, 0, COLS, a);
		if (!l || l->kind == NL_BLANK)
			continue;
		if (l->kind == NL_HEAD) {
			snprintf(buf, sizeof(buf), "! %u. %s (touches %s)%s",
				 l->note + 1u, n->from ? n->from : "?",
				 touches(n),
				 (int)l->note == st->lead ? "  <" : "");
			put_str(th + y, 1, COLS - 1,
				theme_attr(EL_ERROR) | A_BOLD, buf, 1);
			continue;
		}
		{
			char t[512];
			size_t len =
				l->len < sizeof(t) ? l->len : sizeof(t) - 1;

			memcpy(t, ui_note_text(n) + l->off, len);
			t[len] = '\0';
			put_str(th + y, INDENT, COLS - INDENT, a, t, 1);
		}
	}
	if (!st->count)
		put_wrapped(th + 1, 2, COLS - 3, h - 1, theme_attr(EL_NORMAL),
			    "No notes: the capture did all it does, and the "
			    "regions add up to the kernel's totals.");
	ui_status(u, " Esc back   Up/Down PgUp/PgDn scroll   q quit", NULL);
}

static int act_back(struct ui *u)
{
	u->next = SCR_VIEWER;
	return UI_SWITCH | UI_DRAW;
}

static const struct key_action notes_keys[] = {
	{ 27, "Esc !", "back to the viewer", act_back },
	{ '!', NULL, NULL, act_back },
	{ 'q', "q F10", "quit", ui_quit },
	{ KEY_F(10), NULL, NULL, ui_quit },
	{ 0, NULL, NULL, NULL },
};

static int notes_key(struct ui *u, int key)
{
	struct notes *st = notes_of(u);
	int h = pager_h(u), r = key_dispatch(u, notes_keys, key);
	enum move mv;
	size_t cur;

	if (r >= 0)
		return r;
	mv = key_move(key);
	if (mv == MV_NONE)
		return 0;
	notes_layout(u, COLS - 1);
	/* a pager: the cursor at the bottom line to go down, the top to go
	 * up */
	cur = mv == MV_DOWN || mv == MV_PGDN || mv == MV_END
		      ? st->top + (size_t)(h > 0 ? h - 1 : 0)
		      : st->top;
	cursor_apply(&cur, &st->top, st->nlines, h, mv);
	return UI_DRAW;
}

static int notes_mouse(struct ui *u, int y, int x, mmask_t b)
{
	(void)y;
	(void)x;
	if (b & BUTTON4_PRESSED)
		return notes_key(u, KEY_UP);
	if (b & BUTTON5_PRESSED)
		return notes_key(u, KEY_DOWN);
	return 0;
}

/* On the note asked for (u->goto_addr, its index) when there is one. */
static int notes_enter(struct ui *u)
{
	struct notes *st = notes_of(u);

	st->top = 0;
	st->lead = -1;
	notes_layout(u, COLS - 1);
	if (u->goto_set) {
		u->goto_set = false;
		st->lead = (int)u->goto_addr;
		st->top = line_of(st, st->lead);
	}
	return 0;
}

const struct ui_screen screen_notes = {
	.name = "notes",
	.title = "Notes (! in the viewer)",
	.keys = notes_keys,
	.data_size = sizeof(struct notes),
	.enter = notes_enter,
	.draw = notes_draw,
	.key = notes_key,
	.mouse = notes_mouse,
};
