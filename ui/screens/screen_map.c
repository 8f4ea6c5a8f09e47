/* screen_map.c — the address-space map (VMMap's fragmentation view): the
 * address space as cells coloured and lettered by type, free cells as '.',
 * zoomable from one page a cell upwards. Lines with nothing mapped are
 * folded into one "free" line that says how much is free, so the gaps stay
 * visible without pages of dots. The cursor names the region under it;
 * Enter shows that region in the details.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/draw.h"
#include "core/listview.h"
#include "core/ui_priv.h"
#include "export/export_util.h"

enum { MAP_X = 17, MAX_LINES = 400000, MAX_ZOOM = 36 };

/* The screen's own state (u->data[SCR_MAP]): the lines of cells, laid out
 * at the first draw after a change, and the list over them. */
struct mapview {
	uint64_t *lines; /* start address of each line; MAP_GAP bit: a gap */
	size_t nlines;
	int zoom; /* a cell is page_size << zoom bytes */
	int cells; /* cells per line */
	struct listview lv; /* over the lines; below the legend */
	int col; /* the cursor's cell */
	bool built;
};
#define MAP_GAP (1ull << 63)

static struct mapview *map_of(const struct ui *u)
{
	return u->data[SCR_MAP];
}

static int draw_legend(int y, bool draw);

static void map_free(struct mapview *m)
{
	free(m->lines);
	m->lines = NULL;
	m->nlines = 0;
	m->built = false;
}

static int page_shift(const struct vms_snapshot *s)
{
	int sh = 12;

	while (s->cap.page_size && (1ull << sh) < s->cap.page_size && sh < 30)
		sh++;
	return sh;
}

/* Every column right of the addresses is a cell (the full width). */
static int cells_for(int cols)
{
	return cols - MAP_X - 1 > 8 ? cols - MAP_X - 1 : 8;
}

/* log2 of the bytes of one cell */
static int cell_shift(const struct ui *u, int zoom)
{
	return page_shift(u->snap) + zoom;
}

/* The bytes of one line: cells of a cell each (not a power of two). */
static uint64_t line_bytes(const struct ui *u, int zoom, int cells)
{
	return (uint64_t)cells << cell_shift(u, zoom);
}

/* Lays out the lines for a zoom, at most limit + 1 of them (with out
 * NULL only counts them): a count that only asks whether the lines fit
 * stops as soon as they do not, instead of reading every region at each
 * zoom (a million regions took 113 ms to open the map). */
static size_t layout(const struct ui *u, int zoom, int cells, uint64_t *out,
		     size_t limit)
{
	const struct vms_snapshot *s = u->snap;
	uint64_t lb = line_bytes(u, zoom, cells);
	uint64_t next = 0; /* first line not yet laid out */
	size_t n = 0, i;

	for (i = 0; i < s->nregions && n <= limit; i++) {
		uint64_t a = s->regions[i].start / lb;
		uint64_t b = (s->regions[i].end - 1) / lb;

		/* The map is the user address range, as Free counts it:
		 * [vsyscall] lies beyond the non-canonical hole. */
		if (s->regions[i].start >= s->user_end)
			break;
		if (b < next)
			continue;
		if (a < next)
			a = next;
		if (a > next && n) {
			if (out)
				out[n] = MAP_GAP | next;
			n++;
		}
		for (; a <= b && n <= limit; a++) {
			if (out)
				out[n] = a;
			n++;
		}
		next = b + 1;
	}
	return n;
}

static uint64_t cur_addr(const struct ui *u)
{
	const struct mapview *m = map_of(u);
	uint64_t l, lb;

	if (!m->nlines)
		return 0;
	lb = line_bytes(u, m->zoom, m->cells);
	l = m->lines[m->lv.cur];
	if (l & MAP_GAP)
		return (l & ~MAP_GAP) * lb;
	return l * lb + ((uint64_t)m->col << cell_shift(u, m->zoom));
}

/* (Re)builds the lines, keeping the cursor on addr when keep is set. */
static void build(struct ui *u, bool keep, uint64_t addr)
{
	struct mapview *m = map_of(u);
	int cells = cells_for(COLS), csh;
	uint64_t lb;
	size_t n, i;

	if (!m->built) {
		int h = LINES - 2 - 1 - draw_legend(1, false);
		size_t fit = h > 0 ? (size_t)h * 4 : 4;

		for (m->zoom = 0; m->zoom < MAX_ZOOM; m->zoom++)
			if (layout(u, m->zoom, cells, NULL, fit) <= fit)
				break;
	}
	for (;; m->zoom++) {
		n = layout(u, m->zoom, cells, NULL, MAX_LINES);
		if (n <= MAX_LINES || m->zoom >= MAX_ZOOM)
			break;
	}
	free(m->lines);
	m->lines = calloc(n + 1, sizeof(*m->lines));
	m->nlines =
		m->lines ? layout(u, m->zoom, cells, m->lines, MAX_LINES) : 0;
	m->cells = cells;
	m->built = true;
	m->lv.cur = 0;
	m->col = 0;
	if (!m->nlines)
		return;
	if (!keep) /* start on the first region, not on the free cells */
		addr = u->snap->regions[0].start;
	lb = line_bytes(u, m->zoom, cells);
	csh = cell_shift(u, m->zoom);
	/* lines (and the first missing line of a gap) only increase */
	for (i = 0; i < m->nlines && (m->lines[i] & ~MAP_GAP) <= addr / lb; i++)
		m->lv.cur = i;
	if (m->lines[m->lv.cur] == addr / lb)
		m->col = (int)((addr % lb) >> csh);
}

/* The first region ending after addr (binary search), or nregions. */
static size_t first_after(const struct vms_snapshot *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nregions;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->regions[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The region the cursor's cell shows (the first one in the cell, as
 * draw_line colours it), or NULL: a free cell. */
static const struct vms_region *cur_region(const struct ui *u)
{
	const struct vms_snapshot *s = u->snap;
	const struct mapview *m = map_of(u);
	uint64_t ca = cur_addr(u), cb;
	size_t idx;

	if (!m->nlines || (m->lines[m->lv.cur] & MAP_GAP))
		return NULL;
	cb = ca + (1ull << cell_shift(u, m->zoom));
	idx = first_after(s, ca);
	return idx < s->nregions && s->regions[idx].start < cb
		       ? &s->regions[idx]
		       : NULL;
}

static void draw_line(void *ctx, int y, size_t li, bool here)
{
	struct ui *u = ctx;
	const struct vms_snapshot *s = u->snap;
	const struct mapview *m = map_of(u);
	uint64_t lb = line_bytes(u, m->zoom, m->cells);
	int csh = cell_shift(u, m->zoom), c;
	uint64_t l = m->lines[li], base;
	size_t idx;
	char buf[16];

	if (l & MAP_GAP) {
		uint64_t from = (l & ~MAP_GAP) * lb;
		uint64_t to = li + 1 < m->nlines ? m->lines[li + 1] * lb : from;

		put_blank(y, 0, COLS, theme_attr(EL_NORMAL));
		put_fmt(y, 0, COLS, theme_attr(here ? EL_MAP_CURSOR : EL_FREE),
			"%016llx ~~~~~~~~ %s free ~~~~~~~~",
			(unsigned long long)from,
			fmt_size(to - from, buf, sizeof(buf)));
		return;
	}
	base = l * lb;
	put_fmt(y, 0, MAP_X, theme_attr(EL_LABEL), "%016llx ",
		(unsigned long long)base);
	idx = first_after(s, base);
	for (c = 0; c < m->cells; c++) {
		uint64_t ca = base + ((uint64_t)c << csh);
		uint64_t cb = ca + (1ull << csh);
		attr_t a;
		char ch;

		while (idx < s->nregions && s->regions[idx].end <= ca)
			idx++;
		if (idx < s->nregions && s->regions[idx].start < cb) {
			const struct vms_region *r = &s->regions[idx];
			bool res = r->flags & VMS_RF_RESERVED;

			ch = type_letter(r->type, res);
			a = res ? theme_attr(theme_type(r->type))
				: theme_attr(theme_type(r->type)) | A_REVERSE;
		} else {
			ch = '.';
			a = theme_attr(EL_FREE);
		}
		if (here && c == m->col)
			a = theme_attr(EL_MAP_CURSOR);
		attrset(a);
		mvaddch(y, MAP_X + c, (chtype)(unsigned char)ch);
	}
	attrset(A_NORMAL);
	if (MAP_X + m->cells < COLS)
		put_blank(y, MAP_X + m->cells, COLS - MAP_X - m->cells,
			  theme_attr(EL_NORMAL));
}

/* The legend from line y, wrapped at whole entries ("H Heap"); with draw
 * false only counts its lines. Returns the lines it takes. */
static int draw_legend(int y, bool draw)
{
	int t, x = 1, lines = 1;

	if (draw)
		put_blank(y, 0, COLS, theme_attr(EL_NORMAL));
	for (t = 0; t <= VMS_NTYPES; t++) {
		const char *label = t < VMS_NTYPES ? vms_type_info[t].label
						   : "lower case: reserved";
		int w = text_cols(label) + (t < VMS_NTYPES ? 2 : 0);
		char l[2] = { t < VMS_NTYPES ? type_letter(t, false) : 0, 0 };

		if (t == VMS_T_PAGE_TABLE)
			continue;
		if (x > 1 && x + w > COLS) {
			x = 1;
			lines++;
			if (draw)
				put_blank(y + lines - 1, 0, COLS,
					  theme_attr(EL_NORMAL));
		}
		if (!draw) {
			x += w + 2;
			continue;
		}
		if (t == VMS_NTYPES) {
			put_str(y + lines - 1, x, COLS - x, theme_attr(EL_DIM),
				label, 0);
			break;
		}
		put_str(y + lines - 1, x, 1,
			t == VMS_T_FREE ? theme_attr(EL_FREE)
					: theme_attr(theme_type(t)) | A_REVERSE,
			l, 1);
		put_str(y + lines - 1, x + 2, COLS - x - 2,
			theme_attr(EL_NORMAL), label, 0);
		x += w + 2;
	}
	return lines;
}

static void draw_info(struct ui *u, int y)
{
	uint64_t a = cur_addr(u);
	const struct vms_region *r = cur_region(u);
	char sz[16], pm[8];

	if (!r) {
		put_fmt(y, 0, COLS, theme_attr(EL_FREE), " %016llx  Free",
			(unsigned long long)a);
		return;
	}
	put_fmt(y, 0, COLS, theme_attr(EL_NORMAL),
		" %016llx  %s %016llx-%016llx  %s  %s  %s",
		(unsigned long long)a, vms_type_info[r->type].label,
		(unsigned long long)r->start, (unsigned long long)r->end,
		fmt_size(vms_region_size(r), sz, sizeof(sz)),
		export_perms(r, pm),
		r->detail && *r->detail ? r->detail
		: r->path		? r->path
					: "");
}

static void map_draw(struct ui *u)
{
	struct mapview *m = map_of(u);
	char cell[16], line[16];
	int y;

	if (!m->built || m->cells != cells_for(COLS))
		build(u, m->built, cur_addr(u));
	y = 1 + draw_legend(1, false);
	put_fmt(0, 0, COLS, theme_attr(EL_TITLE),
		" Address space of %s (pid %d)   cell %s   line %s",
		u->snap->proc.name ? u->snap->proc.name : "?",
		(int)u->snap->proc.pid,
		fmt_size(1ull << cell_shift(u, m->zoom), cell, sizeof(cell)),
		fmt_size(line_bytes(u, m->zoom, m->cells), line, sizeof(line)));
	draw_legend(1, true);
	listview_draw(&m->lv, y, LINES - 2 - y, m->nlines, draw_line, u);
	draw_info(u, LINES - 2);
	ui_status(u,
		  " arrows move  + - zoom  Enter details  Esc/m back"
		  "  ? help  q quit",
		  NULL);
}

static int zoom(struct ui *u, int dz)
{
	struct mapview *m = map_of(u);
	uint64_t a = cur_addr(u);

	if (m->zoom + dz < 0 || m->zoom + dz > MAX_ZOOM)
		return 0;
	m->zoom += dz;
	build(u, true, a);
	return UI_DRAW;
}

static int act_zoom_in(struct ui *u)
{
	return zoom(u, -1);
}

static int act_zoom_out(struct ui *u)
{
	return zoom(u, 1);
}

static int act_left(struct ui *u)
{
	struct mapview *m = map_of(u);

	if (m->col > 0)
		m->col--;
	else if (m->lv.cur > 0) {
		m->lv.cur--;
		m->col = m->cells - 1;
	}
	return UI_DRAW;
}

static int act_right(struct ui *u)
{
	struct mapview *m = map_of(u);

	if (m->col + 1 < m->cells)
		m->col++;
	else if (m->lv.cur + 1 < m->nlines) {
		m->lv.cur++;
		m->col = 0;
	}
	return UI_DRAW;
}

static int act_back(struct ui *u)
{
	u->next = SCR_VIEWER;
	return UI_SWITCH | UI_DRAW;
}

/* The viewer, on enter, shows the address asked for: the region the
 * cell shows, or the free gap (the viewer says where it lists it). */
static int act_details(struct ui *u)
{
	const struct vms_region *r = cur_region(u);
	uint64_t a = cur_addr(u);

	u->goto_set = true;
	u->goto_addr = r && r->start > a ? r->start : a;
	u->next = SCR_VIEWER;
	return UI_SWITCH | UI_DRAW;
}

static const struct key_action map_keys[] = {
	{ KEY_LEFT, "Left Right h l", "move a cell", act_left },
	{ 'h', NULL, NULL, act_left },
	{ KEY_RIGHT, NULL, NULL, act_right },
	{ 'l', NULL, NULL, act_right },
	{ '+', "+ -", "zoom in (smaller cells) / out", act_zoom_in },
	{ '=', NULL, NULL, act_zoom_in },
	{ '-', NULL, NULL, act_zoom_out },
	{ '\r', "Enter",
	  "show the region under the cursor in the details (a free "
	  "cell: its gap)",
	  act_details },
	{ '\n', NULL, NULL, act_details },
	{ KEY_ENTER, NULL, NULL, act_details },
	{ 't', "t", "next colour theme", ui_next_theme },
	{ 27, "Esc m", "back to the viewer", act_back },
	{ 'm', NULL, NULL, act_back },
	{ 'q', "q F10", "quit", ui_quit },
	{ KEY_F(10), NULL, NULL, ui_quit },
	{ 0, NULL, NULL, NULL },
};

static int map_key(struct ui *u, int key)
{
	struct mapview *m = map_of(u);
	int r = key_dispatch(u, map_keys, key);

	if (r >= 0)
		return r;
	return listview_key(&m->lv, m->nlines, key) ? UI_DRAW : 0;
}

static int map_mouse(struct ui *u, int y, int x, mmask_t b)
{
	struct mapview *m = map_of(u);

	size_t row;

	switch (listview_mouse(&m->lv, m->nlines, y, b, 1, &row)) {
	case LV_WHEEL:
		return UI_DRAW;
	case LV_MISS:
		return 0;
	case LV_ROW:
		break;
	}
	m->lv.cur = row;
	if (x >= MAP_X && x < MAP_X + m->cells)
		m->col = x - MAP_X;
	if (b & BUTTON1_DOUBLE_CLICKED)
		return act_details(u);
	return UI_DRAW;
}

/* ---- the screen ---- */

static void map_screen_free(struct ui *u)
{
	map_free(map_of(u));
}

/* Laid out again at the next draw. */
static void map_snapshot_changed(struct ui *u, const struct vms_snapshot *old,
				 bool new_process)
{
	(void)old;
	(void)new_process;
	map_free(map_of(u));
}

/* The key of the viewer that opens the map (ui_priv.h: from_keys). */
static int act_enter_from_viewer(struct ui *u)
{
	u->next = SCR_MAP;
	return UI_SWITCH | UI_DRAW;
}

static const struct key_action from_viewer[] = {
	{ 'm', "m", "address-space map", act_enter_from_viewer },
	{ 0, NULL, NULL, NULL },
};

const struct ui_screen screen_map = {
	.name = "map",
	.title = "Map",
	.keys = map_keys,
	.data_size = sizeof(struct mapview),
	.free = map_screen_free,
	.snapshot_changed = map_snapshot_changed,
	.draw = map_draw,
	.key = map_key,
	.mouse = map_mouse,
	.from = SCR_VIEWER,
	.from_keys = from_viewer,
};
