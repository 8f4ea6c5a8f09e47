/* columns.h — the one table of figures: every column a region or a row of
 * the summary has, with its name, heading, JSON/CSV key, meaning, how to
 * get it, its unit and its default sort direction.
 *
 * Contract: the text summary, the full text export, CSV, JSON, the viewer's
 * summary and details panes and its sorting all take their columns from
 * vms_columns[]; a figure added here shows up everywhere that lists the
 * flag it has. Values are bytes unless the column is a count. The meaning
 * of each figure is DESIGN.md's table (vmscope.1, COLUMNS).
 */
#ifndef VMS_COLUMNS_H
#define VMS_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snapshot.h"

/* In CSV order (and the order of the JSON totals and types). */
enum vms_col {
	VMS_COL_SIZE,
	VMS_COL_COMMITTED,
	VMS_COL_PRIVATE,
	VMS_COL_WS,
	VMS_COL_PRIVATE_WS,
	VMS_COL_SHAREABLE_WS,
	VMS_COL_SHARED_WS,
	VMS_COL_LOCKED_WS,
	VMS_COL_PSS,
	VMS_COL_USS,
	VMS_COL_SWAP,
	VMS_COL_SWAP_PSS,
	VMS_COL_BLOCKS,
	VMS_COL_LARGEST,
	VMS_NCOLS
};

enum {
	VMS_COLF_COUNT = 1u << 0, /* a number of things, not bytes */
	VMS_COLF_REGION = 1u << 1, /* a region has it (region_value) */
	VMS_COLF_TYPE = 1u << 2, /* a summary row has it (vms_totals) */
	VMS_COLF_FREE = 1u << 3, /* the Free row shows it */
	VMS_COLF_DETAILS = 1u << 4, /* offered by the viewer's details (its
				     * setup, config.h; Blocks: an
				     * allocation's regions) */
	VMS_COLF_ASCENDING = 1u << 5, /* sorted smallest first by default */
	VMS_COLF_TEXT = 1u << 6, /* a column of the full text export */
	VMS_COLF_COUNTER = 1u << 7, /* from the smaps counters: unknown in a
				     * snapshot without them (a core) */
};

struct vms_column {
	const char *name; /* "Total WS": text summary, sort names */
	const char *head[2]; /* the name on two lines: "Total", "WS" */
	const char *key; /* "ws": JSON and CSV */
	const char *meaning; /* one line, in a user's words */
	unsigned flags; /* VMS_COLF_* */
	size_t offset; /* of the figure in struct vms_totals (TYPE) */
	uint64_t (*region)(const struct vms_region *r); /* REGION */
};

extern const struct vms_column vms_columns[VMS_NCOLS];

/* The summary's columns in VMMap's order (a subset of vms_columns). */
enum { VMS_NSUMMARY = 12 };
extern const enum vms_col vms_summary_columns[VMS_NSUMMARY];

static inline bool vms_column_has(enum vms_col c, unsigned flag)
{
	return (vms_columns[c].flags & flag) != 0;
}

/* The figure of a summary row (0 if the column has none). */
uint64_t vms_column_type(const struct vms_totals *t, enum vms_col c);
/* The figure of a region (0 if the column has none). */
uint64_t vms_column_region(const struct vms_region *r, enum vms_col c);
/* Whether s knows the figures of column c (false: a counter column of a
 * snapshot without counters, s->cap.no_counters; shown as unknown). */
bool vms_column_known(const struct vms_snapshot *s, enum vms_col c);
/* Whether a cell of column c is known: vms_column_known, and in the page
 * table's summary row (page_table_row) of a snapshot without counters
 * only the counts (its VmPTE is not known either). Unknown cells are
 * printed as unknown ("-", null, an empty CSV cell), never as 0. */
bool vms_cell_known(const struct vms_snapshot *s, enum vms_col c,
		    bool page_table_row);
/* Whether the cell of column c of a summary row t (NULL: none) or of a
 * region r (NULL: none) is known: vms_cell_known, and Committed not where
 * the row has a region whose Committed is not known, or the region is one
 * (VMS_ACCT_COMMIT_UNKNOWN: a core's anonymous memory). */
bool vms_row_known(const struct vms_snapshot *s, const struct vms_totals *t,
		   const struct vms_region *r, enum vms_col c,
		   bool page_table_row);
/* vms_row_known of every column, as a mask: bit c set when column c is
 * known (VMS_COLS_ALL: all of them). What a writer that keeps a row's
 * figures apart from its snapshot (a diff's side, an OpenMetrics row)
 * keeps beside them. */
#define VMS_COLS_ALL ((uint32_t)((1u << VMS_NCOLS) - 1))
uint32_t vms_row_known_mask(const struct vms_snapshot *s,
			    const struct vms_totals *t,
			    const struct vms_region *r, bool page_table_row);
static inline bool vms_mask_has(uint32_t known, enum vms_col c)
{
	return (known >> c) & 1u;
}
/* Why a snapshot without counters (s->cap.no_counters) does not know
 * them, in words: the text summary's "- : not known: ..." line and the
 * JSON's capture.missing entry say it with these. */
extern const char vms_no_counters_why[];
/* The column whose key or name is s (case-insensitive), or -1. */
int vms_column_find(const char *s);

#endif
