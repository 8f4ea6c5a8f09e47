/* pane_details_draw.c — drawing the details pane: the heading (the sort
 * column marked) and the visible rows, each in its type's colour, with the
 * columns that fit the terminal (pane_details.c makes the rows).
 *
 * Contract: draws only the rows between d->top and d->top + h; reads the
 * rows and the snapshot, changes nothing but d->h, d->y and d->top (to
 * keep the cursor visible).
 */
#include <stdio.h>
#include <string.h>

#include "columns.h"
#include "draw.h"
#include "export_util.h"
#include "panes.h"

enum { X_MARK = 0, X_ADDR = 2, X_TYPE = 19, X_SIZE = 32, MIN_DETAILS = 24 };

/* Where the columns after Size go; 0: not shown. On a narrow terminal
 * Private WS, then Committed, then WS give way so Details keeps room. */
struct dlayout {
	int commit, ws, pws, prot, details;
};

static struct dlayout layout_for(int cols)
{
	struct dlayout l;
	bool commit = true, ws = true, pws = true;
	int x;

	for (;;) {
		int need = X_SIZE + 9 + (commit ? 10 : 0) + (ws ? 9 : 0) +
			   (pws ? 11 : 0) + 5;

		if (cols - need >= MIN_DETAILS || !(pws || commit || ws))
			break;
		if (pws)
			pws = false;
		else if (commit)
			commit = false;
		else
			ws = false;
	}
	x = X_SIZE + 9;
	l.commit = commit ? x : 0;
	x += commit ? 10 : 0;
	l.ws = ws ? x : 0;
	x += ws ? 9 : 0;
	l.pws = pws ? x : 0;
	x += pws ? 11 : 0;
	l.prot = x;
	l.details = x + 5;
	return l;
}

/* A column's heading in w columns at x (right: right-aligned, as its
 * figures); the sort column is underlined and marked with its direction,
 * beside the name (in the blank column left of a right-aligned field). */
static void draw_head(const struct details *d, int y, int x, int w, bool right,
		      const char *name, int sort)
{
	attr_t a = theme_attr(EL_COLUMN);
	int len = text_cols(name);

	if (d->sort != sort) {
		if (right)
			put_right(y, x, w, a, name);
		else
			put_str(y, x, w, a, name, 1);
		return;
	}
	a |= A_BOLD | A_UNDERLINE;
	if (right) {
		put_right(y, x, w, a, name);
		put_str(y, x + w - len - (len + 2 <= w ? 2 : 1), 1, a,
			details_sort_arrow(d), 1);
	} else {
		put_str(y, x, w, a, name, 1);
		if (len + 2 <= w)
			put_str(y, x + len + 1, 1, a, details_sort_arrow(d), 1);
	}
}

static void draw_heading(const struct details *d, int y,
			 const struct dlayout *l)
{
	put_blank(y, 0, COLS, theme_attr(EL_COLUMN));
	draw_head(d, y, X_ADDR, 16, false, "Address", DS_ADDRESS);
	draw_head(d, y, X_TYPE, 12, false, "Type", DS_TYPE);
	draw_head(d, y, X_SIZE, 8, true, "Size", DS_SIZE);
	if (l->commit)
		draw_head(d, y, l->commit, 9, true, "Committed", DS_COMMITTED);
	if (l->ws)
		draw_head(d, y, l->ws, 8, true, "WS", DS_WS);
	if (l->pws)
		draw_head(d, y, l->pws, 10, true, "Private WS", DS_PRIVATE_WS);
	draw_head(d, y, l->prot, 4, false, "Prot", -1);
	draw_head(d, y, l->details, COLS - l->details, false, "Details",
		  DS_DETAILS);
}

/* What the Details column shows in w columns: text and the state words
 * as they are when they fit; a path that does not fit is shown by its
 * file name first, then its directory shortened in the middle
 * ("libc.so.6  /usr/li...-linux-gnu"), so a narrow terminal still tells
 * one library from another. */
static void details_text(const char *t, const char *words, int w, char *out,
			 size_t n)
{
	const char *slash = strrchr(t, '/');
	char dir[512];
	int room, dl, head;

	snprintf(out, n, "%s%s", t, words);
	if (text_cols(out) <= w || *t != '/' || !slash || !slash[1])
		return;
	snprintf(out, n, "%s%s", slash + 1, words);
	room = w - text_cols(out) - 2;
	dl = (int)(slash - t);
	if (room < 8 || dl <= 0)
		return;
	if (dl > (int)sizeof(dir) - 1)
		dl = (int)sizeof(dir) - 1;
	memcpy(dir, t, (size_t)dl);
	dir[dl] = '\0';
	if (text_cols(dir) > room) {
		head = (room - 3) / 2;
		snprintf(out, n, "%s%s  %.*s...%s", slash + 1, words, head, dir,
			 dir + dl - (room - 3 - head));
		return;
	}
	snprintf(out, n, "%s%s  %s", slash + 1, words, dir);
}

/* The protection of an allocation: every permission one of its regions
 * has ("r-xp" and "rw-p" read "rwxp"), shared or private as its main. */
static const char *alloc_perms(const struct ui *u, const struct drow *r,
			       char *buf)
{
	const struct vms_alloc *a = &u->det.allocs[r->idx];
	unsigned p = 0;
	uint32_t k;

	for (k = 0; k < a->n; k++)
		p |= u->snap->regions[a->first + k].perms;
	buf[0] = p & VMS_PERM_R ? 'r' : '-';
	buf[1] = p & VMS_PERM_W ? 'w' : '-';
	buf[2] = p & VMS_PERM_X ? 'x' : '-';
	buf[3] = u->snap->regions[a->main].perms & VMS_PERM_SHARED ? 's' : 'p';
	buf[4] = '\0';
	return buf;
}

/* Whether a row has nothing committed (drawn as reserved). */
static bool row_reserved(const struct ui *u, const struct drow *r)
{
	const struct vms_alloc *a;
	uint32_t k;

	if (r->kind != DROW_ALLOC)
		return u->snap->regions[r->idx].flags & VMS_RF_RESERVED;
	a = &u->det.allocs[r->idx];
	for (k = 0; k < a->n; k++)
		if (!(u->snap->regions[a->first + k].flags & VMS_RF_RESERVED))
			return false;
	return true;
}

/* '+' closed, '-' open, ' ' nothing to open. */
static const char *row_mark(const struct ui *u, const struct drow *r)
{
	const struct details *d = &u->det;

	if (r->kind == DROW_ALLOC)
		return d->expanded[d->allocs[r->idx].first] & DEXP_ALLOC ? "-"
									 : "+";
	if (!u->snap->regions[r->idx].nchildren)
		return " ";
	return d->expanded[r->idx] & DEXP_REGION ? "-" : "+";
}

static void draw_child(struct ui *u, int y, const struct drow *r,
		       const struct dlayout *l)
{
	static const char *const kind[VMS_NTYPES] = {
		[VMS_T_IMAGE] = "section",
		[VMS_T_STACK] = "part",
		[VMS_T_HEAP] = "segment",
	};
	const struct vms_child *c =
		&u->snap->regions[r->idx].children[r->child];
	const char *k = kind[u->snap->regions[r->idx].type];
	attr_t base = theme_attr(EL_CHILD);
	char buf[32];

	put_blank(y, 0, COLS, base);
	put_fmt(y, X_ADDR, 16, base, "%016llx", (unsigned long long)c->start);
	put_fmt(y, X_TYPE, 12, base, "%*s%s", 2 * r->depth, "", k ? k : "");
	put_right(y, X_SIZE, 8, base,
		  fmt_size(c->end - c->start, buf, sizeof(buf)));
	put_fmt(y, l->details, COLS - l->details, base, "%*s%s", 2 * r->depth,
		"", c->name);
}

/* An allocation or a region: its figures (an allocation's summed). */
static void draw_region(struct ui *u, int y, const struct drow *r,
			const struct dlayout *l)
{
	const struct vms_region *g = details_node_region(u, r);
	attr_t base = theme_attr(EL_NORMAL), ta;
	char buf[32], text[600], words[160];
	const char *w[8];
	size_t nw = export_state_words(g, w, 8), k;
	uint64_t a, b;
	int len;

	details_row_span(u, r, &a, &b);
	if (row_reserved(u, r))
		base = ta = theme_attr(EL_RESERVED);
	else
		ta = theme_attr(theme_type(g->type));
	put_blank(y, 0, COLS, base);
	put_str(y, X_MARK, 1, base, row_mark(u, r), 1);
	put_fmt(y, X_ADDR, 16, base, "%016llx", (unsigned long long)a);
	put_fmt(y, X_TYPE, 12, ta, "%*s%s", 2 * r->depth, "",
		vms_type_info[g->type].label);
	put_right(y, X_SIZE, 8, base, fmt_size(b - a, buf, sizeof(buf)));
	if (l->commit)
		put_right(y, l->commit, 9, base,
			  fmt_col(u->snap, VMS_COL_COMMITTED,
				  details_figure(u, r, VMS_COL_COMMITTED), buf,
				  sizeof(buf)));
	if (l->ws)
		put_right(y, l->ws, 8, base,
			  fmt_col(u->snap, VMS_COL_WS,
				  details_figure(u, r, VMS_COL_WS), buf,
				  sizeof(buf)));
	if (l->pws)
		put_right(y, l->pws, 10, base,
			  fmt_col(u->snap, VMS_COL_PRIVATE_WS,
				  details_figure(u, r, VMS_COL_PRIVATE_WS), buf,
				  sizeof(buf)));
	put_str(y, l->prot, 4, base,
		r->kind == DROW_ALLOC ? alloc_perms(u, r, buf)
				      : export_perms(g, buf),
		1);
	for (k = 0, len = 0; k < nw && len < (int)sizeof(words) - 40; k++)
		len += snprintf(words + len, sizeof(words) - (size_t)len,
				"%s%s%s", k ? ", " : " [", w[k],
				k + 1 == nw ? "]" : "");
	if (!nw)
		words[0] = '\0';
	details_text(details_region_text(g), words,
		     COLS - l->details - 2 * r->depth, text, sizeof(text));
	put_fmt(y, l->details, COLS - l->details, base, "%*s%s", 2 * r->depth,
		"", text);
}

static void draw_row(struct ui *u, int y, size_t i, const struct dlayout *l)
{
	const struct drow *r = &u->det.rows[i];
	char buf[32];
	uint64_t a, b;

	if (r->kind == DROW_GAP) {
		attr_t base = theme_attr(EL_FREE);

		details_row_span(u, r, &a, &b);
		put_blank(y, 0, COLS, base);
		put_fmt(y, X_ADDR, 16, base, "%016llx", (unsigned long long)a);
		put_str(y, X_TYPE, 12, base, "Free", 1);
		put_right(y, X_SIZE, 8, base,
			  fmt_size(b - a, buf, sizeof(buf)));
	} else if (r->kind == DROW_CHILD) {
		draw_child(u, y, r, l);
	} else {
		draw_region(u, y, r, l);
	}
	if (i == u->det.cur) {
		attr_t sa = theme_attr(u->focus == 1 ? EL_SELECTION
						     : EL_SELECTION_IDLE);

		mvchgat(y, 0, COLS, sa & ~A_COLOR, (short)PAIR_NUMBER(sa),
			NULL);
	}
}

void details_draw(struct ui *u, int y, int h)
{
	struct details *d = &u->det;
	size_t i;
	int row;

	struct dlayout l = layout_for(COLS);

	d->h = h - 1;
	d->y = y + 1;
	draw_heading(d, y, &l);
	cursor_show(d->cur, &d->top, d->nrows, d->h);
	for (row = 0, i = d->top; row < d->h; row++, i++) {
		if (i < d->nrows)
			draw_row(u, d->y + row, i, &l);
		else
			put_blank(d->y + row, 0, COLS, theme_attr(EL_NORMAL));
	}
	if (!d->nrows)
		put_str(d->y, X_ADDR, COLS - X_ADDR, theme_attr(EL_DIM),
			d->filter == VMS_T_PAGE_TABLE
				? "(the page table is kernel memory: it has "
				  "no regions)"
				: "(no regions of this type)",
			1);
}
