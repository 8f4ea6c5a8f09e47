/* columns.c — the table of figures. See columns.h. */
#include "model/columns.h"

#include <string.h>
#include <strings.h>

static uint64_t r_size(const struct vms_region *r)
{
	return vms_region_size(r);
}

static uint64_t r_committed(const struct vms_region *r)
{
	return vms_region_committed(r);
}

static uint64_t r_private(const struct vms_region *r)
{
	return vms_region_private(r);
}

static uint64_t r_ws(const struct vms_region *r)
{
	return r->c.rss;
}

static uint64_t r_private_ws(const struct vms_region *r)
{
	return vms_region_private_ws(r);
}

static uint64_t r_shareable_ws(const struct vms_region *r)
{
	uint64_t pws = vms_region_private_ws(r);

	return r->c.rss - (pws < r->c.rss ? pws : r->c.rss);
}

static uint64_t r_shared_ws(const struct vms_region *r)
{
	return r->c.shared_clean + r->c.shared_dirty;
}

static uint64_t r_locked(const struct vms_region *r)
{
	return r->c.locked;
}

static uint64_t r_pss(const struct vms_region *r)
{
	return r->c.pss;
}

static uint64_t r_uss(const struct vms_region *r)
{
	return r->c.private_clean + r->c.private_dirty;
}

static uint64_t r_swap(const struct vms_region *r)
{
	return r->c.swap;
}

static uint64_t r_swap_pss(const struct vms_region *r)
{
	return r->c.swap_pss;
}

/* One column a paragraph. */
/* clang-format off */
#define RT (VMS_COLF_REGION | VMS_COLF_TYPE)
#define CT (RT | VMS_COLF_COUNTER)
#define OFF(f) offsetof(struct vms_totals, f)
const struct vms_column vms_columns[VMS_NCOLS] = {
	[VMS_COL_SIZE] = { "Size", { "", "Size" }, "size",
			   "address space the region takes",
			   RT | VMS_COLF_FREE | VMS_COLF_DETAILS |
				   VMS_COLF_TEXT, OFF(size),
			   r_size },
	[VMS_COL_COMMITTED] = { "Committed", { "", "Committed" }, "committed",
				"memory the process has been promised",
				RT | VMS_COLF_DETAILS | VMS_COLF_TEXT,
				OFF(committed),
				r_committed },
	[VMS_COL_PRIVATE] = { "Private", { "", "Private" }, "private",
			      "committed memory no other process can share",
			      CT | VMS_COLF_DETAILS, OFF(private_bytes),
			      r_private },
	[VMS_COL_WS] = { "Total WS", { "Total", "WS" }, "ws",
			 "the working set: what is in RAM now (Rss)",
			 CT | VMS_COLF_DETAILS | VMS_COLF_TEXT, OFF(ws), r_ws },
	[VMS_COL_PRIVATE_WS] = { "Private WS", { "Private", "WS" },
				 "private_ws",
				 "resident memory only this process maps",
				 CT | VMS_COLF_DETAILS | VMS_COLF_TEXT, OFF(private_ws),
				 r_private_ws },
	[VMS_COL_SHAREABLE_WS] = { "Shareable WS", { "Shareable", "WS" },
				   "shareable_ws",
				   "resident memory that could be shared",
				   CT | VMS_COLF_DETAILS, OFF(shareable_ws),
				   r_shareable_ws },
	[VMS_COL_SHARED_WS] = { "Shared WS", { "Shared", "WS" }, "shared_ws",
				"resident memory another process maps now",
				CT | VMS_COLF_DETAILS, OFF(shared_ws),
				r_shared_ws },
	[VMS_COL_LOCKED_WS] = { "Locked WS", { "Locked", "WS" }, "locked_ws",
				"resident memory locked in RAM (mlock)",
				CT | VMS_COLF_DETAILS, OFF(locked_ws), r_locked },
	[VMS_COL_PSS] = { "PSS", { "", "PSS" }, "pss",
			  "each page divided by the processes mapping it",
			  CT | VMS_COLF_TEXT | VMS_COLF_DETAILS, OFF(pss),
			  r_pss },
	[VMS_COL_USS] = { "USS", { "", "USS" }, "uss",
			  "pages mapped by this process only", CT, OFF(uss),
			  r_uss },
	[VMS_COL_SWAP] = { "Swap", { "", "Swap" }, "swap", "swapped out",
			   CT | VMS_COLF_TEXT | VMS_COLF_DETAILS, OFF(swap),
			   r_swap },
	[VMS_COL_SWAP_PSS] = { "Swap PSS", { "Swap", "PSS" }, "swap_pss",
			       "swap divided by the processes sharing it",
			       VMS_COLF_REGION | VMS_COLF_COUNTER, 0, r_swap_pss },
	[VMS_COL_BLOCKS] = { "Blocks", { "", "Blocks" }, "blocks",
			     "how many regions",
			     VMS_COLF_TYPE | VMS_COLF_COUNT | VMS_COLF_FREE |
				     VMS_COLF_DETAILS,
			     OFF(blocks), NULL },
	[VMS_COL_LARGEST] = { "Largest", { "", "Largest" }, "largest",
			      "the largest region (Free: the largest free "
			      "block)",
			      VMS_COLF_TYPE | VMS_COLF_FREE, OFF(largest),
			      NULL },
};
#undef OFF
#undef CT
#undef RT

const enum vms_col vms_summary_columns[VMS_NSUMMARY] = {
	VMS_COL_SIZE,	   VMS_COL_COMMITTED,	 VMS_COL_PRIVATE,
	VMS_COL_WS,	   VMS_COL_PRIVATE_WS,	 VMS_COL_SHAREABLE_WS,
	VMS_COL_SHARED_WS, VMS_COL_LOCKED_WS,	 VMS_COL_PSS,
	VMS_COL_SWAP,	   VMS_COL_BLOCKS,	 VMS_COL_LARGEST,
};

/* clang-format on */

uint64_t vms_column_type(const struct vms_totals *t, enum vms_col c)
{
	uint64_t v;

	if (!vms_column_has(c, VMS_COLF_TYPE))
		return 0;
	memcpy(&v, (const char *)t + vms_columns[c].offset, sizeof(v));
	return v;
}

uint64_t vms_column_region(const struct vms_region *r, enum vms_col c)
{
	return vms_columns[c].region ? vms_columns[c].region(r) : 0;
}

bool vms_row_known(const struct vms_snapshot *s, const struct vms_totals *t,
		   const struct vms_region *r, enum vms_col c,
		   bool page_table_row)
{
	if (!vms_cell_known(s, c, page_table_row))
		return false;
	return c != VMS_COL_COMMITTED ||
	       !((t && t->committed_unknown) ||
		 (r && (r->acct & VMS_ACCT_COMMIT_UNKNOWN)));
}

_Static_assert(VMS_NCOLS <= 32, "a known mask has a bit for every column");

uint32_t vms_row_known_mask(const struct vms_snapshot *s,
			    const struct vms_totals *t,
			    const struct vms_region *r, bool page_table_row)
{
	uint32_t m = 0;
	int c;

	for (c = 0; c < VMS_NCOLS; c++)
		if (vms_row_known(s, t, r, (enum vms_col)c, page_table_row))
			m |= 1u << c;
	return m;
}

const char vms_no_counters_why[] =
	"a core dump holds no Rss, Pss, Swap, sharing or page table figures";

int vms_column_find(const char *s)
{
	int c;

	for (c = 0; c < VMS_NCOLS; c++)
		if (strcasecmp(s, vms_columns[c].key) == 0 ||
		    strcasecmp(s, vms_columns[c].name) == 0)
			return c;
	return -1;
}

bool vms_column_known(const struct vms_snapshot *s, enum vms_col c)
{
	return !s->cap.no_counters || !vms_column_has(c, VMS_COLF_COUNTER);
}

bool vms_cell_known(const struct vms_snapshot *s, enum vms_col c,
		    bool page_table_row)
{
	return vms_column_known(s, c) &&
	       !(page_table_row && s->cap.no_counters &&
		 !vms_column_has(c, VMS_COLF_COUNT));
}
