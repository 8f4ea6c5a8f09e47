/* viewer_header.c — the viewer's header: the title (the process, the
 * file a snapshot was opened from), the capture line (sampler, freeze
 * time, time of the snapshot, regions, largest free), VMMap's three bars
 * (Committed, Private, Working set: each the Total row's figure) and
 * their legend, and the line of the capture's notes.
 */
#include "screens/viewer_header.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/draw.h"
#include "export/export_util.h"
#include "panes/panes.h"
#include "pipeline.h"

/* The header: the title and the capture line, then the three bars
 * (VMMap's: Committed, Private, Working set) and their legend, then the
 * line of notes when the capture has any, when the terminal is tall
 * enough; on a short one the details come first (the Total row has the
 * bars' figures): one line, the notes' count in it. */
enum { HEAD_BARS = 2, HEAD_LEGEND = 5, HEAD_NOTES = 6 };

int viewer_header_h(struct ui *u)
{
	const struct ui_note *notes;

	if (LINES < 30)
		return 1;
	return viewer_notes(u, &notes) ? HEAD_NOTES + 1 : HEAD_NOTES;
}

/* The line of notes (issue 31 item 1): marked, their count, the first
 * of them as much as fits; ! shows them all in full. */
static void draw_notes_line(struct ui *u, int y)
{
	const struct ui_note *notes;
	size_t n = viewer_notes(u, &notes);

	put_blank(y, 0, COLS, theme_attr(EL_NORMAL));
	put_fmt(y, 0, COLS, theme_attr(EL_ERROR) | A_BOLD,
		" ! %zu note%s (! shows %s): %s: %s", n, n == 1 ? "" : "s",
		n == 1 ? "it in full" : "them all", notes[0].from,
		ui_note_text(&notes[0]));
}

/* A bar of width w: each type's share of scale, in its colour (or its
 * letter without colour). */
static void draw_bar(struct ui *u, int y, int x, int w, const uint64_t *v,
		     uint64_t scale)
{
	uint64_t cum = 0;
	int t, done = 0;

	for (t = 0; t < VMS_NTYPES && scale; t++) {
		int upto, n;

		cum += v[t];
		upto = (int)((double)cum * w / (double)scale + 0.5);
		if (upto > w)
			upto = w;
		n = upto - done;
		if (n <= 0)
			continue;
		attrset(theme_attr(theme_type(t)) | A_REVERSE);
		mvhline(y, x + done, u->color ? ' ' : type_letter(t, false), n);
		done = upto;
	}
	attrset(theme_attr(EL_BAR_EMPTY));
	if (done < w)
		mvhline(y, x + done, '.', w - done);
	attrset(A_NORMAL);
}

/* Text in at least w columns at x, if it fits whole; returns the column
 * after it (and a gap), or x when it did not fit. */
static int field(int y, int x, int w, attr_t a, const char *text)
{
	int len = text_cols(text);

	if (len > w)
		w = len;
	if (x + w > COLS)
		return x;
	put_str(y, x, w, a, text, 1);
	return x + w + 1;
}

/* "Label value" as one field: both or nothing. */
static int label_field(int y, int x, const char *label, attr_t a,
		       const char *value)
{
	int ll = text_cols(label), vl = text_cols(value);

	if (x + ll + 1 + vl > COLS)
		return x;
	put_str(y, x, ll + 1, theme_attr(EL_LABEL), label, 1);
	put_str(y, x + ll + 1, vl, a, value, 1);
	return x + ll + 1 + vl + 2;
}

/* The title and the capture line: sampler, time, then a warning or the
 * counts, each shown whole or not at all on a narrow terminal. compact
 * (a short terminal): all on one line, the labels that say the obvious
 * left out, so the time still fits in 80 columns. */
static void draw_header(struct ui *u, bool compact)
{
	const struct vms_snapshot *s = u->snap;
	char when[40], a[16], buf[300];
	const struct ui_note *notes;
	size_t nn;
	int x, y = compact ? 0 : 1;
	attr_t l = theme_attr(EL_LABEL), n = theme_attr(EL_NORMAL);

	/* a snapshot opened from a file says which (its time is Taken's) */
	const char *file = ui_file_of(u, s, true);

	export_taken_at(s, when, sizeof(when));
	if (compact) {
		char nb[32] = "";
		int w;

		nn = viewer_notes(u, &notes);
		if (nn)
			snprintf(nb, sizeof(nb), "! %zu note%s", nn,
				 nn == 1 ? "" : "s");
		snprintf(buf, sizeof(buf), "%s  pid %d",
			 s->proc.name ? s->proc.name : "?", (int)s->proc.pid);
		put_blank(0, 0, COLS, n);
		x = 1;
		if (file) {
			/* its name cut to leave room for the name and pid,
			 * the notes' count and the time it was taken (the
			 * gaps: field()'s) */
			w = COLS - (int)strlen(when) - 2 -
			    (nn ? (int)strlen(nb) + 2 : 0) - 1 -
			    text_cols(buf) - 2;
			if (w > 0) {
				x += put_str(0, x, w, theme_attr(EL_TITLE),
					     file, 0);
				x += put_str(0, x, 2, theme_attr(EL_TITLE),
					     ": ", 0);
			}
		}
		x += put_str(0, x, COLS - x, theme_attr(EL_TITLE), buf, 0) + 2;
		/* the notes' count first: ! shows them */
		if (nn)
			x = field(y, x, 0, theme_attr(EL_ERROR) | A_BOLD, nb) +
			    1;
		/* then a file's time, what tells it from a live one (the
		 * label where it fits) */
		if (file) {
			int at = x;

			x = label_field(y, x, "Taken", n, when);
			if (x == at)
				x = field(y, x, 0, n, when) + 1;
		}
	} else {
		put_fmt(0, 0, COLS, theme_attr(EL_TITLE),
			" vmscope  %s%s%s%s  pid %d  %s", file ? "file " : "",
			file ? file : "", file ? "  " : "",
			s->proc.name ? s->proc.name : "?", (int)s->proc.pid,
			s->proc.cmdline ? s->proc.cmdline : "");
		put_blank(1, 0, COLS, n);
		x = 1 + put_str(1, 1, 8, l, "Sampler", 1);
	}
	if (s->cap.frozen && !vms_capture_known(&s->cap, VMS_CAP_FROZEN_US))
		snprintf(buf, sizeof(buf), "%s, frozen", s->cap.backend);
	else if (s->cap.frozen)
		snprintf(buf, sizeof(buf), "%s, frozen %llu us", s->cap.backend,
			 (unsigned long long)s->cap.frozen_us);
	else
		snprintf(buf, sizeof(buf), "%s, not frozen", s->cap.backend);
	x = field(y, x, compact ? 0 : 27, n, buf);
	/* the time stays; a warning takes what is left after it, before
	 * the counts */
	if (!(compact && file))
		x = label_field(y, x + compact, "Taken", n, when);
	if (s->cap.partial) {
		static const char more[] = "... (! shows it)";
		int room = COLS - x;

		snprintf(buf, sizeof(buf), "partial: %s", s->cap.partial);
		/* too long for the line: as much as fits, and where the rest
		 * is (the notes have it whole) */
		if (text_cols(buf) > room && room > (int)sizeof(more) + 10) {
			int w = put_str(y, x, room - (int)sizeof(more) + 1,
					theme_attr(EL_ERROR), buf, 0);

			put_str(y, x + w, COLS - x - w, theme_attr(EL_ERROR),
				more, 1);
			return;
		}
		/* else whole, or where it is (no fragment a word long) */
		if (text_cols(buf) > room)
			snprintf(buf, sizeof(buf), "partial (! shows it)");
		if (text_cols(buf) > room)
			snprintf(buf, sizeof(buf), "partial (!)");
		if (text_cols(buf) <= room)
			put_str(y, x, room, theme_attr(EL_ERROR), buf, 1);
		return;
	}
	snprintf(buf, sizeof(buf), "%zu", s->nregions);
	x = label_field(y, x, "Regions", n, buf);
	label_field(y, x, "Largest free", n,
		    fmt_size(s->largest_free, a, sizeof(a)));
}

/* The Total row's figure of column c, as the summary shows it ('-' when
 * not known). */
static const char *total_fig(const struct vms_snapshot *s, enum vms_col c,
			     char *buf, size_t n)
{
	if (!vms_row_known(s, &s->total, NULL, c, false))
		return "-";
	return fmt_size(vms_column_type(&s->total, c), buf, n);
}

/* The bars and their figures, VMMap's three: each the Total row's
 * figure (the page table, kernel memory with no regions, is its own row,
 * in neither: vmscope.1, COLUMNS), each type's share in its colour, on
 * one scale, Committed's; the rest of the width is what Committed has
 * beyond the figure. */
static void draw_bars(struct ui *u)
{
	const struct vms_snapshot *s = u->snap;
	char a[16], b[16];
	uint64_t com[VMS_NTYPES], prv[VMS_NTYPES], ws[VMS_NTYPES], scale = 0;
	int t, bw = COLS - 42, y = HEAD_BARS;
	attr_t l = theme_attr(EL_LABEL), n = theme_attr(EL_NORMAL);

	for (t = 0; t < VMS_NTYPES; t++) {
		bool in = t != VMS_T_FREE && t != VMS_T_PAGE_TABLE;

		com[t] = in ? s->types[t].committed : 0;
		prv[t] = in ? s->types[t].private_bytes : 0;
		ws[t] = in ? s->types[t].ws : 0;
		scale += com[t];
	}
	put_str(y, 1, 12, l, "Committed", 1);
	put_str(y + 1, 1, 12, l, "Private", 1);
	put_str(y + 2, 1, 12, l, "Working set", 1);
	draw_bar(u, y, 13, bw, com, scale);
	draw_bar(u, y + 1, 13, bw, prv, scale);
	draw_bar(u, y + 2, 13, bw, ws, scale);
	/* the bar: what is known; its figure, as the Total row's: '-'
	 * where a region's Committed is not (a core's anonymous memory) */
	put_fmt(y, 14 + bw, COLS - 14 - bw, n, "%8s",
		total_fig(s, VMS_COL_COMMITTED, a, sizeof(a)));
	put_fmt(y + 1, 14 + bw, COLS - 14 - bw, n, "%8s",
		total_fig(s, VMS_COL_PRIVATE, a, sizeof(a)));
	put_fmt(y + 2, 14 + bw, COLS - 14 - bw, n, "%8s  Priv WS %s",
		total_fig(s, VMS_COL_WS, a, sizeof(a)),
		total_fig(s, VMS_COL_PRIVATE_WS, b, sizeof(b)));
}

/* The bars' legend: a swatch and the name of each type in them (those
 * with something committed), then the rest; each shown whole or not at
 * all. */
static void draw_legend(struct ui *u)
{
	const struct vms_snapshot *s = u->snap;
	int t, x = 13, y = HEAD_LEGEND;
	attr_t n = theme_attr(EL_NORMAL);
	const char *rest = "the rest of Committed";

	put_blank(y, 0, COLS, n);
	for (t = 0; t < VMS_NTYPES; t++) {
		char label[32];
		size_t k;
		int w;

		/* in lower case, as words: the rows below have the labels */
		snprintf(label, sizeof(label), "%s", vms_type_info[t].label);
		for (k = 0; label[k]; k++)
			label[k] = (char)tolower((unsigned char)label[k]);
		w = 3 + text_cols(label);

		if (t == VMS_T_FREE || t == VMS_T_PAGE_TABLE ||
		    !s->types[t].committed)
			continue;
		if (x + w + 1 > COLS - 3 - text_cols(rest))
			break;
		attrset(theme_attr(theme_type(t)) | A_REVERSE);
		mvhline(y, x, u->color ? ' ' : type_letter(t, false), 2);
		attrset(A_NORMAL);
		put_str(y, x + 3, w - 3, n, label, 0);
		x += w + 2;
	}
	if (x + 3 + text_cols(rest) > COLS)
		return;
	attrset(theme_attr(EL_BAR_EMPTY));
	mvhline(y, x, '.', 2);
	attrset(A_NORMAL);
	put_str(y, x + 3, COLS - x - 3, n, rest, 0);
}

int viewer_notes_line(struct ui *u)
{
	return viewer_header_h(u) > HEAD_NOTES ? HEAD_NOTES : -1;
}

void viewer_header_draw(struct ui *u, int hh)
{
	draw_header(u, hh == 1);
	if (hh > 1) {
		draw_bars(u);
		draw_legend(u);
	}
	if (hh > HEAD_NOTES)
		draw_notes_line(u, HEAD_NOTES);
}
