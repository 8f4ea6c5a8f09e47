/* calls_priv.h — the calls screen's state, shared by its two files:
 * screen_calls.c (the report, the rows, the keys; its header comment is
 * the screen's contract) and calls_draw.c (the drawing, with the names
 * of the windows and views; it uses nothing of screen_calls.c, which
 * uses it). No other file includes it.
 */
#ifndef VMS_UI_CALLS_PRIV_H
#define VMS_UI_CALLS_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "core/listview.h"
#include "core/ui_priv.h"
#include "model/calltree.h"
#include "screens/calls_marks.h"

enum window { W_ALL, W_SINCE, W_MARKS, W_COUNT };

extern const char *const calls_window_names[W_COUNT];

/* v: what the list is */
enum view { V_SITES, V_CALLERS, V_CALLEES, V_COUNT };

extern const char *const calls_view_names[V_COUNT];

struct row {
	size_t site; /* the tree's: its node */
	int frame; /* -1: the site's (the node's) own row */
};

/* The screen's own state (u->data[SCR_CALLS]). */
struct calls {
	struct listview lv;
	enum window window;
	struct calls_marks marks; /* which snapshot took which mark */
	struct arena ar; /* the report's */
	bool have; /* rep is built */
	bool saved; /* rep is the snapshot's own (no tracer): ar holds
		     * only its tree */
	struct vms_trace_report rep;
	bool *open; /* by site, in rep */
	uint32_t *open_ids; /* the sites open (their ids): kept across
			     * reports, as the figures follow the trace */
	size_t nopen;
	struct row *rows;
	size_t nrows;
	double built_us; /* when rep was built */
	bool ended_seen;
	char why[160]; /* why the window is empty (no marks ...) */
	/* f: only what is alive in [in_lo, in_hi) (in_hi 0: everything),
	 * the viewer's row it was taken from named in in_what */
	uint64_t in_lo, in_hi;
	char in_what[96];
	/* the trees (v): the report's, and the nodes open by their paths
	 * (kept across reports) */
	enum view view;
	struct vms_calltree tree;
	uint64_t *topen;
	size_t ntopen, captopen;
	size_t caprows;
};

/* Whether the tree's node is open (by its path). */
bool calls_node_open(const struct calls *c, uint32_t node);
/* The screen drawn (calls_draw.c; the report built before). */
void calls_draw(struct ui *u);

#endif
