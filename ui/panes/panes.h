/* panes.h — the two panes the viewer is made of: the summary (one row per
 * type) and the details (one row per region, child or free gap).
 *
 * Contract: a pane draws into the rows it is given and keeps its state in
 * the viewer's (struct viewer below: sum_* and focus; det); it calls no
 * screen. The details rows
 * point into u->snap: details_reset() must follow every change of it.
 */
#ifndef VMS_UI_PANES_H
#define VMS_UI_PANES_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "core/listview.h"
#include "core/notes.h"
#include "core/ui_priv.h"
#include "linux/pageout.h"
#include "model/alloc.h"
#include "model/columns.h"
#include "model/diff.h"
#include "model/trace.h"

/* A row of the details pane: an allocation, a region (alone, or one of
 * an allocation's), a child of a region, a free gap, or what the
 * snapshot compared with had and this one does not (removed: idx into
 * details.removed; pane_changes.c). depth: 0 a top row, 1 under it, 2
 * under that. */
enum { DROW_REGION, DROW_CHILD, DROW_GAP, DROW_ALLOC, DROW_REMOVED };
struct drow {
	uint32_t idx; /* region, gap or allocation index */
	uint8_t kind;
	uint8_t depth;
	uint16_t child; /* child index for DROW_CHILD */
};
/* What is open, per region (details.expanded): its children; and, on an
 * allocation's first region, the allocation's regions. */
enum { DEXP_REGION = 1, DEXP_ALLOC = 2 };
struct dgap {
	uint64_t start, end;
	uint32_t next; /* the region it comes before (nregions: none) */
};

/* What the details are sorted by: the address, the type, or a column
 * (config.h's ids: a figure, Prot or Details) at DS_COL + id. */
enum dsort { DS_ADDRESS, DS_TYPE, DS_COL, DS_COUNT = DS_COL + VMS_DCOL_END };

/* The innermost function of a traced map's call site, by site id: what
 * the details show of a region's commit stack (kept while tracing). */
enum { DETAILS_SITES = 16 };

struct details {
	struct {
		uint32_t id; /* UINT32_MAX: empty */
		char name[64];
	} site_names[DETAILS_SITES];
	unsigned site_next;
	/* The rows shown: the top rows themselves (tops, below) while
	 * nothing is open, else rows_own, cap of them, made from the top
	 * rows and what is open under them. */
	struct drow *rows, *rows_own;
	size_t nrows, cap;
	struct dgap *gaps;
	size_t ngaps;
	uint8_t *expanded; /* per region: DEXP_* */
	struct vms_alloc *allocs; /* alloc.h, in address order */
	size_t nallocs;
	uint32_t *alloc_of; /* per region: its allocation */
	uint8_t *type_of; /* per region: its type, made when a filter asks */
	/* per region, made while nobody types (pane_details_keys.c): each
	 * shown figure column's figure in pages (fig_key_none: a column
	 * found not worth it), and its Prot (VMS_PERM_* bits); all in
	 * keys_block, made for the columns in keys_cols (a bit each) */
	uint32_t *fig_key[VMS_NCOLS];
	bool fig_key_none[VMS_NCOLS];
	uint8_t *perm_of;
	uint32_t *keys_block;
	unsigned keys_cols;
	/* per region, made while nobody types (pane_find_classes.c): its
	 * class for find, an index into find_classes (or
	 * FIND_CLASS_RECORD) */
	uint16_t *find_cls;
	struct find_class *find_classes;
	size_t nfind_classes;
	bool find_cls_tried; /* made, or tried and out of memory */
	/* per region: its Details text's rank among the regions' texts,
	 * made when a sort by it asks (pane_details_sort.c), kept at the
	 * start of the scratch below (NULL when it moves) */
	uint32_t *text_rank;
	/* the distinct texts of the regions in strcmp's order, each with
	 * its rank, made with text_rank (freed with the rows): a removed
	 * row's text, not among the regions', is ranked among them by a
	 * binary search */
	const char **text_sorted;
	uint32_t *text_sorted_rank;
	size_t ntext_sorted;
	bool by_region; /* the region list, not allocations ('a') */
	int filter; /* -1: everything; a type: its rows only */
	bool show_free; /* the free gaps in the all view too ('f') */
	/* the sort of the list shown (filter's): sorts[] keeps each
	 * list's own, loaded and stored as the filter changes
	 * (details_set_filter) */
	int sort;
	bool reverse;
	struct {
		int sort;
		bool reverse;
	} sorts[1 + VMS_NTYPES]; /* [0] the all view, [1 + type] a type's */
	struct listview lv; /* over the rows; placed at the last draw */
	/* The top rows filtered and sorted, kept while the view, filter,
	 * free gaps and sort they were made for stay (tops_for): opening
	 * or closing a row only emits them again. Freed with the rows. */
	struct drow *tops;
	size_t ntops, tops_cap;
	/* The removed groups of the changes shown (pane_changes.c's, in
	 * address order, alive while the changes are): listed among the
	 * rows in address order as DROW_REMOVED, as their type's. */
	const struct vms_diff_change *const *removed;
	size_t nremoved;
	const struct vms_snapshot *removed_from; /* their snapshot */
	struct dtops_for {
		int filter, sort;
		bool by_region, show_free, reverse, valid;
	} tops_for;
	/* The top rows in address order (tops_of's) for the view, filter
	 * and free gaps in addr_for, kept once a sort needed them (not
	 * under --watch): a sort by another column copies them, where
	 * walking the allocations again took a third of a sort of a million
	 * rows. Freed with the rows; let go with tops_for by
	 * details_tops_stale. */
	struct drow *addr_tops;
	size_t naddr_tops, addr_tops_cap;
	struct daddr_for {
		int filter;
		bool by_region, show_free, valid;
	} addr_for;
	/* The other view's ('a': the allocations' or the regions') top
	 * rows, sorted and in address order, with what each was made for,
	 * as 'a' left them: 'a' back swaps them in if they are still of the
	 * filter, gaps and sort then (pane_details_tops.c), where making
	 * them again took a walk of every region and a sort. The address
	 * order is made while nobody types (details_tops_warm), the sorted
	 * ones are what 'a' left. Freed with the rows, let go with them. */
	struct drow *alt_tops, *alt_addr_tops;
	size_t nalt_tops, alt_tops_cap, nalt_addr_tops, alt_addr_tops_cap;
	struct dtops_for alt_tops_for;
	struct daddr_for alt_addr_for;
	/* The sort's temporaries, kept between keys and grown as needed
	 * (pane_details_row.c: details_scratch), the ranks of the texts at
	 * their start (text_rank): fresh pages from the kernel for every
	 * sort cost more than the sort itself. */
	void *scratch;
	size_t scratch_cap;
};

/* The viewer's own state (u->data[SCR_VIEWER], screen_viewer.c's table
 * gives its size), declared here because its panes, below the viewer,
 * keep theirs in it: the focus, the summary's and the details'. */
struct viewer {
	int focus; /* 0: summary, 1: details */
	int sum_cur; /* 0..7 a type, 8 Total, 9 Free */
	/* The summary rows shown at the last layout (all ten, or folded to
	 * those with something in them on a short terminal), scrolled from
	 * sum_top; drawn from line sum_y. */
	int sum_vis[16];
	int sum_nvis, sum_top, sum_shown, sum_y;
	struct details det;
	/* The sort menu (F6): open, its cursor (an index into
	 * details_sorts), and where it was drawn (for a click). */
	bool menu;
	int menu_cur, menu_y, menu_x, menu_w, menu_n;
	/* The save and export's prompt (screens/viewer_save.c): what is
	 * asked (VS_*), the file name typed, the format menu's cursor and
	 * the format chosen (vms_exporters), a save waiting for the
	 * snapshot that keeps the kernel's text. */
	int vs_mode, vs_cur, vs_fmt;
	char vs_line[512];
	bool vs_after, vs_retaken;
	/* The copy menu (screens/viewer_copy.c): open, its cursor; the
	 * row to be copied as the next draw shows it. */
	bool cp_open, cp_row;
	int cp_cur;
	/* Empty Working Set (screens/viewer_ews.c): the confirmation
	 * open, what the kernel was asked and did, shown with the snapshot
	 * taken after it. */
	bool ews_confirm, ews_after;
	struct vms_pageout ews;
	const struct vms_snapshot *ews_from; /* shown when it was asked */
	/* The changes against the snapshot before (pane_changes.c): the
	 * diff, each region of u->snap's group (CHG_NONE: none; below
	 * chg.n: a change; else chg.n + its index among the same), the
	 * counts. */
	struct vms_diff chg;
	bool chg_valid;
	uint32_t *chg_of;
#define CHG_NONE UINT32_MAX
	const struct vms_diff_change **chg_removed; /* det.removed's */
	size_t chg_count[VMS_NCHANGES];
	uint8_t chg_type[VMS_NTYPES]; /* a change touched the type */
	bool chg_show; /* D: the figures show how much they moved */
	/* What changes_update was last given: the one before u->snap, and
	 * the snapshot it compared with (or tried to: the mark A, or that
	 * one), so a mark set or taken off in the timeline is seen on the
	 * way back (changes_base_moved). Compared as pointers only. */
	const struct vms_snapshot *chg_prev, *chg_base;
	/* The notes of the snapshot shown (notes.h), made once for it
	 * (viewer_notes): notes_for is the snapshot they were made for. */
	struct ui_note notes[UI_NOTES_MAX];
	size_t nnotes; /* as ui_notes counted: may exceed UI_NOTES_MAX */
	const struct vms_snapshot *notes_for;
};

static inline struct viewer *viewer_of(const struct ui *u)
{
	return u->data[SCR_VIEWER];
}

static inline struct details *det_of(const struct ui *u)
{
	return &viewer_of(u)->det;
}

/* The most top rows the view may have: every region, gap and removed
 * group (what d->tops, the kept address order and the sort's scratch are
 * sized for). */
static inline size_t details_rows_max(const struct ui *u)
{
	const struct details *d = det_of(u);

	return u->snap->nregions + d->ngaps + d->nremoved + 1;
}

/* pane_changes.c: the changes in the main view. A new snapshot (old:
 * the one before): compared with the one marked first in the timeline,
 * else with old, when that stays in the history and is of the same
 * process; else none. */
void changes_update(struct ui *u, const struct vms_snapshot *old);
/* Whether the changes would now be against another snapshot than the one
 * changes_update last used (A marked, moved or taken off in the timeline
 * since): changes_update(u, chg_prev) makes them again. */
bool changes_base_moved(const struct ui *u);
void changes_free(struct ui *u);
/* How row r changed (enum vms_change: an allocation's regions together;
 * *delta its size, else committed, moved), or -1: not changed, or
 * nothing to compare with. */
int changes_row(const struct ui *u, const struct drow *r, int64_t *delta);
/* The removed rows let go before the rows are made again for a new
 * snapshot (changes_update lists the new ones). */
void changes_hide_removed(struct ui *u);
/* A removed row's group (r->kind DROW_REMOVED), and its first region
 * (in d->removed_from). */
const struct vms_diff_change *changes_removed(const struct details *d,
					      const struct drow *r);
const struct vms_region *changes_removed_region(const struct details *d,
						const struct drow *r);
/* "[grown +4 M] ", "[added] ": the row's change as its Details begin, in
 * buf; NULL when it did not change. */
const char *changes_row_text(const struct ui *u, const struct drow *r,
			     char *buf, size_t n);
/* The mark of summary row `row` (a type, SUM_TOTAL): '+' it grew, '-'
 * shrank, '~' a change touched it that moved neither its size nor its
 * committed bytes; 0: untouched, or nothing to compare with. */
char changes_type_mark(const struct ui *u, int row);
/* How much the summary row's figure in column c moved; false: nothing
 * to compare with. */
bool changes_type_delta(const struct ui *u, int row, enum vms_col c,
			int64_t *delta);
/* Whether what the summary row's figure in column c is compared with is
 * known (a core's Rss is not: the change is "-", never one from 0). */
bool changes_type_known(const struct ui *u, int row, enum vms_col c);
/* How much a details row's figure in column c moved (each group of
 * regions the diff matched counted on its first region); false for a gap
 * or a child, or with nothing to compare with. *known (NULL: not asked)
 * false when a side of a group it counts does not know the figure (a
 * core's Rss): the move is then not known either. */
bool changes_figure_delta(const struct ui *u, const struct drow *r,
			  enum vms_col c, int64_t *delta, bool *known);
/* "+4 K", "-12", "" (no move): a delta as the figures show it. */
const char *changes_delta_text(int64_t d, bool count, char *buf, size_t n);
/* Whether each figure has its change beside it: the setup's Change shown,
 * a snapshot to compare with, and D off (with D the figures are the
 * changes already). */
bool changes_beside(const struct ui *u);
/* D: the figures show how much they moved, or again the figures. */
int changes_toggle(struct ui *u);

/* pane_summary.c */
/* The notes of u->snap (notes.h), made again only for another snapshot
 * (or while a preview fills in): *out the first min(count,
 * UI_NOTES_MAX); returns their count. */
size_t viewer_notes(struct ui *u, const struct ui_note **out);
/* How many of them are kept (at most UI_NOTES_MAX). */
static inline size_t viewer_notes_kept(size_t count)
{
	return count < UI_NOTES_MAX ? count : UI_NOTES_MAX;
}
enum { SUM_ROWS = 10, SUM_TOTAL = 8, SUM_FREE = 9, SUM_HEIGHT = 12 };
/* Chooses the rows to show in at most max lines (headings included): all
 * ten when they fit, else those that are not zero (Total, Free and the
 * cursor's row always), scrolled to the cursor. Returns the lines the
 * pane takes. */
int summary_layout(struct ui *u, int max);
/* Draws the rows summary_layout chose, from line y. */
void summary_draw(struct ui *u, int y);
/* The summary row drawn on screen line y, or -1. */
int summary_row_at(const struct ui *u, int y);
/* Moves the summary's cursor over the rows shown. */
void summary_move(struct ui *u, enum move mv);
/* The note a click at (y, x) leads to: on the ! beside a summary row's
 * label; -1 if none. */
int summary_note_at(struct ui *u, int y, int x);
/* The details filter a summary row stands for. */
int summary_row_filter(int row);
/* The summary row of a details filter (-1: Total). */
int summary_filter_row(int filter);

/* pane_details.c */
/* A new snapshot (u->snap; old: the one before, still alive, or NULL):
 * rows rebuilt with the filter, sort, view and free toggle kept, the
 * cursor on the row it was on (by address, and by name on a child) at the
 * same place on screen; a snapshot of the same process keeps the expanded
 * rows too. */
void details_reset(struct ui *u, const struct vms_snapshot *old);
void details_free(struct details *d);
/* The top rows made again at the next rebuild: the sorted ones and the
 * address order kept for sorts (what they were made from changed). */
void details_tops_stale(struct details *d);
/* The top rows in address order for the view now and for the other
 * view ('a'), and each region's type for a filter, made and kept (idle
 * work: a first sort, 'a' or filter then copies them; nothing if kept
 * already, under --watch, with no snapshot, or if there is no memory). */
void details_tops_warm(struct ui *u);
/* The top rows in address order kept for the view now (*n of them), or
 * NULL if none are kept (none made yet for it, under --watch). */
const struct drow *details_addr_tops(const struct details *d, size_t *n);
/* The top rows for the view, filter, gaps and sort now, in d->tops
 * (pane_details_tops.c); false if out of memory for them. For
 * details_rebuild only: the rows may be the top rows themselves, and
 * it points them again after. */
bool details_make_tops(struct ui *u);
/* filter, sort, view or expansion changed: the rows again, the cursor on
 * its row (or the row now holding its address) */
void details_rebuild(struct ui *u);
void details_draw(struct ui *u, int y, int h);
/* Right/Left on the cursor's row: an allocation opens into its regions
 * and their children; Left on a row inside one closes what holds it. */
int details_expand(struct ui *u, bool open);
/* Enter: opens or closes the cursor's row. */
int details_toggle(struct ui *u);
int details_find(struct ui *u, bool backwards);
/* The cursor on the row holding addr: in the list shown, in its sort,
 * when it has one; else in the all view, in the all view's sort; a free
 * gap neither lists, in the free list; the status line says why when
 * it is there, or that no list has addr. */
int details_goto_addr(struct ui *u, uint64_t addr);
const char *dsort_name(int s);
/* "^" (smallest first) or "v": the direction of d's sort as shown. */
const char *details_sort_arrow(const struct details *d);

/* Shared by the details' files (pane_details*.c, pane_find.c). */
/* The addresses row r spans in s (the snapshot d's rows were made on);
 * details_row_span: in u->snap. */
void details_span_in(const struct details *d, const struct vms_snapshot *s,
		     const struct drow *r, uint64_t *a, uint64_t *b);
void details_row_span(const struct ui *u, const struct drow *r, uint64_t *a,
		      uint64_t *b);
/* What the Details column says of a region (its detail, else its path). */
const char *details_region_text(const struct vms_region *r);
/* The region a row stands for (an allocation's main one); NULL: a gap. */
const struct vms_region *details_node_region(const struct ui *u,
					     const struct drow *r);
/* The region of row `row`, as above, or NULL. */
const struct vms_region *details_region(const struct ui *u, size_t row);
/* The allocation region i is in (NULL without allocations). */
const struct vms_alloc *details_alloc_of(const struct details *d,
					 uint32_t region);
/* The protection a row shows (5 bytes of buf): a region's, or an
 * allocation's (every permission one of its regions has). */
const char *details_row_perms(const struct ui *u, const struct drow *r,
			      char *buf);
/* A row's figure in column c (an allocation's: the sum of its regions';
 * Blocks: the regions a row stands for). */
uint64_t details_figure(const struct ui *u, const struct drow *r,
			enum vms_col c);
bool details_same_node(const struct drow *a, const struct drow *b);
/* Opens what holds node r (its region, its allocation); no rebuild. */
void details_open_path(struct ui *u, const struct drow *r);
/* The cursor to the deepest row holding addr (its child named child, if
 * open); false, the cursor left where it was, when no row holds addr. */
bool details_cursor_to(struct ui *u, uint64_t addr, const char *child);

/* A buffer of at least bytes, kept in d and grown as asked (keep: with
 * its contents), for temporaries a key makes and drops; NULL if out of
 * memory. Freed with the rows (details_free); d->text_rank, kept in it,
 * let go when it moves. */
void *details_scratch(struct details *d, size_t bytes, bool keep);
/* pane_details_sort.c: each list's sort (the all view's and each
 * type's, kept apart): by address, the free list by size (largest
 * first). */
void details_sort_defaults(struct details *d);
/* Each list's sort from the settings (config.h: the lists it names),
 * and back into them (every list's, the one shown too), so the setup
 * writes them with the columns. */
void details_sorts_from_config(struct details *d, const struct vms_config *c);
void details_sorts_to_config(const struct details *d, struct vms_config *c);
/* Shows the list of filter (-1: all; a type), with its own sort: the
 * sort of the list shown is kept for it. No rebuild. */
void details_set_filter(struct details *d, int filter);
/* Sorts the list shown by sort (a dsort); by the same one again: the
 * other way. Rebuilds the rows. */
void details_sort_by(struct ui *u, int sort);
/* pane_details_draw.c: the sorts offered, in the order the s key steps
 * through them and the sort menu lists them: Address, each column on
 * screen now (the setup's, as many as the terminal's width shows: in
 * the setup's order), Type. Returns how many (at most DS_COUNT). */
int details_sorts(const struct ui *u, int *out);
/* Whether the list shown is sorted by one of those: false when by a
 * column the setup or the terminal's width no longer shows (the sort
 * stays; the status line says it is hidden). */
bool details_sort_shown(const struct ui *u);
/* pane_details_draw.c: the sort the heading's field at column x stands
 * for, or -1 (a blank between fields). */
int details_heading_sort_at(const struct ui *u, int x);
/* The line of the details' heading (at the last draw). */
int details_heading_y(const struct ui *u);

/* pane_details_sort.c: top rows (in address order) sorted by the
 * details' sort column into sorted (tops itself, or another array as
 * large); false if out of memory (sorted left as it was). */
bool details_sort_tops(struct ui *u, const struct drow *tops,
		       struct drow *sorted, size_t n);
/* The viewer's idle: the scratch a sort of every row will ask for, taken
 * and faulted in now (a million rows: 36 MB, 60-140 ms of first-touch
 * page faults on this project's VM, else paid by the first sort key),
 * and the ranks of the regions' Details texts (d->text_rank). Not with
 * --watch (each tick's snapshot frees them again). */
void details_sort_warm(struct ui *u);

/* pane_details_keys.c: the regions' sort keys kept small, so that a sort
 * reads 4 bytes a region (a byte for Prot), not its record.
 * details_keys_warm(), while nobody types (not under --watch): for each
 * figure column shown that a region has, d->fig_key[col][region] = the
 * figure / DETAILS_KEY_PAGE, or DETAILS_KEY_RECORD where it is not whole
 * pages or does not fit (the sort reads that region's record); a column
 * with many such is left NULL (fig_key_none); made again when the columns
 * shown change. d->perm_of[region] = its perms & 15. Out of memory: left
 * NULL (sorts read the records). VMSCOPE_SORT_RECORDS=1: nothing made.
 * details_keys_free(): all let go (details_free calls it). */
enum { DETAILS_KEY_PAGE = 4096 };
#define DETAILS_KEY_RECORD UINT32_MAX
void details_keys_warm(struct ui *u);
void details_keys_free(struct details *d);

/* Whether VMSCOPE_SORT_RECORDS=1 asks that nothing be kept small: every
 * sort and find reads the regions' records (the tests' way there). */
bool details_keep_nothing(void);

/* pane_find_classes.c: what find matches of a region kept small.
 * details_find_warm(), while nobody types (not under --watch, not with
 * details_keep_nothing()): d->find_cls[region], an index into
 * d->find_classes, the distinct (path, detail, type, whether it has
 * children) of the regions (compared by the texts' addresses), at most
 * FIND_CLASSES_MAX of them; a region past those is FIND_CLASS_RECORD
 * (find reads its record). Out of memory: left NULL (find reads every
 * record). details_find_free(): let go (details_free calls it). */
struct find_class {
	const char *path, *detail;
	uint8_t type;
	bool kids; /* the region has children */
};
#define FIND_CLASS_RECORD UINT16_MAX
enum { FIND_CLASSES_MAX = UINT16_MAX };
void details_find_warm(struct ui *u);
void details_find_free(struct details *d);

/* The radix sorts of top rows (pane_details_radix.c), stable: equal keys
 * keep the order given. details_radix_bits(v): the bits a number up to v
 * takes (0 for 0). details_radix_packed(): the keys in p (a row's key's
 * kb bits from bit lo, the bits every key has alike left out) packed in
 * place with their rows (a kind and an index of ib bits: kb + ib + 3 must
 * be at most 64) and sorted into sorted (tops itself, or another array
 * as large), tmp as large as p to work in. details_radix_pairs(): keys
 * too wide for that, made (key, row) pairs in place in p (room for 16
 * bytes a row) and sorted with tmp (16 bytes a row) into sorted. */
unsigned details_radix_bits(uint64_t v);
void details_radix_packed(uint64_t *p, const struct drow *tops, uint64_t *tmp,
			  struct drow *sorted, size_t n, unsigned lo,
			  unsigned kb, unsigned ib);
void details_radix_pairs(uint64_t *p, const struct drow *tops, uint64_t *tmp,
			 struct drow *sorted, size_t n, unsigned ib);

/* pane_stack.c: what the trace screens share. A frame as one line of
 * text (function, file:line, module; else module+offset; else the
 * address). */
void trace_frame_text(const struct vms_trace_frame *f, char *buf, size_t n);
/* A call stack, innermost first, under a title, on lines [y, y + h)
 * (s NULL: the title alone). */
void trace_stack_draw(const struct vms_trace_site *s, const char *title, int y,
		      int h);
/* The span of the viewer's row (the region or allocation under its
 * cursor) and what it is, into what; false with a message on the status
 * line when there is none (no row, a free gap). */
bool details_cursor_span(struct ui *u, uint64_t *lo, uint64_t *hi, char *what,
			 size_t n);
/* The stack of call site `id` (UINT32_MAX: none), symbolised once and kept
 * while the id stays (a screen's cursor moving over rows of one site);
 * NULL when there is none. stack_cache_drop lets it go. */
struct stack_cache {
	struct arena ar;
	bool have;
	uint32_t id;
	struct vms_trace_site site;
};
const struct vms_trace_site *stack_cache_get(struct stack_cache *sc,
					     struct ui *u, uint32_t id);
void stack_cache_drop(struct stack_cache *sc);
/* The trace the screens read when there is no live one: the report a
 * snapshot file kept with its allocations and log (model/trace.h, struct
 * vms_trace_live), or NULL (a live trace, no trace, or a file of an
 * older vmscope that kept its call sites alone). */
const struct vms_trace_report *trace_kept(const struct ui *u);
/* Whether there is a trace to list (live or kept); false with a message
 * that says why not. */
bool trace_have(struct ui *u);
/* What the screens list, from the live trace or the kept one: the
 * allocations in [lo, hi) (tracer_blocks_in), the log's events that pass
 * f (tracer_log), the innermost frame of call site id as text (false:
 * none), and the trace's now in ns since it began (a kept one's: its
 * end, the snapshot's). */
size_t trace_blocks(struct ui *u, uint64_t lo, uint64_t hi,
		    struct vms_trace_block *out, size_t max);
size_t trace_events(struct ui *u, const struct vms_trace_filter *f,
		    struct vms_trace_event *out, size_t max);
bool trace_site_text(struct ui *u, uint32_t id, char *buf, size_t n);
uint64_t trace_now_ns(struct ui *u);
/* " [mmap by FUNC]" for the rows of [lo, hi) a traced map made (the
 * innermost frame of its call site, named once per site), into buf; ""
 * without a live trace or such a map. */
const char *trace_commit_words(struct ui *u, uint64_t lo, uint64_t hi,
			       char *buf, size_t n);

#endif
