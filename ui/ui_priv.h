/* ui_priv.h — what the screens and panes of the viewer share.
 *
 * Contract: one struct ui holds all the state of a run; the snapshot in it
 * is only read. Every screen has a draw function (draws its whole area from
 * the state, touching only the visible rows) and a key function that acts
 * through a key-to-action table and returns UI_* flags; ui.c's loop alone
 * redraws, resamples, switches screens and quits in answer to those flags,
 * and handles resizing in one place.
 */
#ifndef VMS_UI_PRIV_H
#define VMS_UI_PRIV_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../src/proclist.h"
#include "../src/snapshot.h"
#include "theme.h"
#include "ui.h"

enum {
	UI_DRAW = 1, /* redraw the screen */
	UI_RESAMPLE = 2, /* take a new snapshot of the same process */
	UI_QUIT = 4,
	UI_OPEN = 8, /* open the viewer on ui->open_pid */
	UI_CLEAR = 16, /* repaint every cell (Ctrl-L, new theme) */
};

enum ui_screen { SCR_PICKER, SCR_VIEWER, SCR_MAP, SCR_HELP };

/* The smallest terminal anything is drawn in. */
enum { UI_MIN_COLS = 60, UI_MIN_LINES = 19 };

struct ui;

/* One line of a key table: the help screen is made from these tables, so
 * it always lists every key. keyname NULL: an alias not listed again. */
struct key_action {
	int key;
	const char *keyname;
	const char *help;
	int (*fn)(struct ui *u);
};

/* Looks key up in a table ended by a NULL fn; -1 if it is not there. */
int key_dispatch(struct ui *u, const struct key_action *t, int key);

enum move { MV_NONE, MV_UP, MV_DOWN, MV_PGUP, MV_PGDN, MV_HOME, MV_END };
/* The movement a key means (arrows, j/k, PgUp/PgDn, Home/End). */
enum move key_move(int key);
/* Moves a cursor over n rows shown h at a time, keeping it visible. */
void cursor_apply(size_t *cur, size_t *top, size_t n, int h, enum move mv);
/* Keeps top so cur is visible in h rows. */
void cursor_show(size_t cur, size_t *top, size_t n, int h);

/* A row of the details pane: a region, a child of one, or a free gap. */
enum { DROW_REGION, DROW_CHILD, DROW_GAP };
struct drow {
	uint32_t idx; /* region index, or gap index */
	uint16_t kind;
	uint16_t child; /* child index for DROW_CHILD */
};
struct dgap {
	uint64_t start, end;
};

enum dsort { DS_ADDRESS, DS_SIZE, DS_COMMITTED, DS_WS, DS_PRIVATE_WS,
	     DS_TYPE, DS_DETAILS, DS_COUNT };

struct details {
	struct drow *rows;
	size_t nrows, cap;
	struct dgap *gaps;
	size_t ngaps;
	uint8_t *expanded; /* per region */
	int filter; /* -1: everything; a type: its rows only */
	int sort;
	bool reverse;
	size_t cur, top;
	int h; /* rows shown at the last draw */
	int y; /* first row on screen at the last draw */
};

struct mapview {
	uint64_t *lines; /* start address of each line; MAP_GAP bit: a gap */
	size_t nlines;
	int zoom; /* a cell is page_size << zoom bytes */
	int cells; /* cells per line */
	size_t cur, top; /* line */
	int col; /* cell */
	int h;
	bool built;
};
#define MAP_GAP (1ull << 63)

struct picker {
	struct proc_list list;
	size_t *view; /* indexes into list that pass the filter */
	size_t nview;
	char filter[64];
	int sort;
	bool reverse;
	size_t cur, top;
	int h, y;
	bool loaded;
};

struct ui {
	const struct ui_opts *opts;
	struct vms_snapshot *snap;
	bool own_snap;
	struct theme theme;
	bool color;
	enum ui_screen scr, help_from;
	bool from_picker;
	int focus; /* 0: summary, 1: details */
	int sum_cur; /* 0..7 a type, 8 Total, 9 Free */
	struct details det;
	struct mapview map;
	struct picker pick;
	char msg[256];
	bool msg_error;
	bool finding; /* the find prompt is open */
	char find[128];
	pid_t open_pid;
	size_t help_top;
};

/* A message in the status line until the next key. */
void ui_message(struct ui *u, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The status line: the message, or hints and state on the right. */
void ui_status(struct ui *u, const char *hints, const char *right);
/* The 'q' action of every screen. */
int ui_quit(struct ui *u);
/* Switches to the next theme (the 't' key). */
int ui_next_theme(struct ui *u);

/* screen_viewer.c: header, summary and details together. */
void viewer_draw(struct ui *u);
int viewer_key(struct ui *u, int key);
int viewer_mouse(struct ui *u, int y, int x, mmask_t b);
extern const struct key_action viewer_keys[];

/* pane_summary.c */
enum { SUM_ROWS = 10, SUM_TOTAL = 8, SUM_FREE = 9, SUM_HEIGHT = 12 };
void summary_draw(struct ui *u, int y);
/* The details filter a summary row stands for. */
int summary_row_filter(int row);

/* pane_details.c */
/* A new snapshot: rows rebuilt, the cursor on the row at addr if any. */
void details_reset(struct ui *u, uint64_t addr);
/* The address of the cursor row (0: none), to find it again. */
uint64_t details_cursor_addr(const struct ui *u);
void details_free(struct details *d);
void details_rebuild(struct ui *u); /* filter, sort or expansion changed */
void details_draw(struct ui *u, int y, int h);
int details_expand(struct ui *u, bool open);
int details_find(struct ui *u, bool backwards);
int details_goto_addr(struct ui *u, uint64_t addr);
const char *dsort_name(int s);
/* Region of the current row, or NULL (a gap). */
const struct vms_region *details_region(const struct ui *u, size_t row);

/* screen_map.c */
void map_draw(struct ui *u);
int map_key(struct ui *u, int key);
int map_mouse(struct ui *u, int y, int x, mmask_t b);
void map_free(struct mapview *m);
extern const struct key_action map_keys[];

/* screen_picker.c */
int picker_load(struct ui *u);
void picker_draw(struct ui *u);
int picker_key(struct ui *u, int key);
int picker_mouse(struct ui *u, int y, int x, mmask_t b);
void picker_free(struct picker *p);
extern const struct key_action picker_keys[];

/* screen_help.c */
void help_draw(struct ui *u);
int help_key(struct ui *u, int key);

#endif
