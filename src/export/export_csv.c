/* export_csv.c — CSV (-e csv): one header line, then one row per record;
 * the first column says what the row is: "type" (a row of the summary),
 * "total", "region", "child" (a section or part of the region above it),
 * "thread". The figures' columns come from columns.h, in its order.
 */
#include <stdio.h>

#include "export/export.h"
#include "export/export_util.h"
#include "model/columns.h"

/* The figures of one row, in the table's order: each column the row has
 * (want: VMS_COLF_TYPE or VMS_COLF_REGION), empty where it has none or
 * where the snapshot does not know it (a core's counters). */
static void csv_figures(struct outbuf *o, const struct vms_snapshot *s,
			const struct vms_totals *t, const struct vms_region *r,
			bool page_table_row)
{
	int c;

	for (c = 0; c < VMS_NCOLS; c++) {
		ob_putc(o, ',');
		if (!vms_row_known(s, t, r, (enum vms_col)c, page_table_row))
			continue;
		if (t && vms_column_has((enum vms_col)c, VMS_COLF_TYPE))
			ob_u64(o, vms_column_type(t, (enum vms_col)c));
		else if (r && vms_column_has((enum vms_col)c, VMS_COLF_REGION))
			ob_u64(o, vms_column_region(r, (enum vms_col)c));
	}
}

/* A row with only a size (a child), or no figure at all (size 0: a
 * thread). */
static void csv_size_only(struct outbuf *o, uint64_t size)
{
	int c;

	for (c = 0; c < VMS_NCOLS; c++) {
		ob_putc(o, ',');
		if (c == VMS_COL_SIZE && size)
			ob_u64(o, size);
	}
}

static void csv_totals(struct outbuf *o, const struct vms_snapshot *s,
		       const char *record, const char *type,
		       const struct vms_totals *t, bool page_table_row)
{
	ob_puts(o, record);
	ob_putc(o, ',');
	ob_puts(o, type);
	ob_puts(o, ",,,,,,,,,");
	csv_figures(o, s, t, NULL, page_table_row);
	ob_puts(o, ",,\n");
}

static void csv_region(struct outbuf *o, const struct vms_snapshot *s,
		       const struct vms_region *r)
{
	const char *w[8];
	size_t nw = export_state_words(r, w, 8), j;
	char perms[5];

	ob_puts(o, "region,");
	ob_puts(o, vms_type_info[r->type].json);
	ob_puts(o, ",,");
	ob_hex(o, r->start);
	ob_putc(o, ',');
	ob_hex(o, r->end);
	ob_printf(o, ",%s,", export_perms(r, perms));
	ob_u64(o, r->offset);
	ob_printf(o, ",%02x:%02x,", r->dev_major, r->dev_minor);
	ob_u64(o, r->inode);
	ob_putc(o, ',');
	ob_csv_str(o, r->path);
	ob_putc(o, ',');
	ob_csv_str(o, r->detail);
	csv_figures(o, s, NULL, r, false);
	ob_putc(o, ',');
	ob_csv_str(o, r->vmflags);
	ob_putc(o, ',');
	for (j = 0; j < nw; j++) {
		if (j)
			ob_putc(o, ' ');
		ob_puts(o, w[j]);
	}
	ob_putc(o, '\n');
	for (j = 0; j < r->nchildren; j++) {
		const struct vms_child *c = &r->children[j];

		/* a typed part (model/parts.h): its own type and figures */
		ob_puts(o, "child,");
		ob_puts(o,
			vms_type_info[c->part ? c->part->type : r->type].json);
		ob_putc(o, ',');
		ob_csv_str(o, c->name);
		ob_putc(o, ',');
		ob_hex(o, c->start);
		ob_putc(o, ',');
		ob_hex(o, c->end);
		ob_puts(o, ",,,,,,");
		if (c->part)
			csv_figures(o, s, NULL, c->part, false);
		else
			csv_size_only(o, c->end - c->start);
		ob_puts(o, ",,\n"); /* vmflags, state */
	}
}

void export_csv(const struct vms_snapshot *s, struct outbuf *o)
{
	size_t i;
	int t;

	ob_puts(o, "record,type,name,start,end,perms,offset,dev,inode,path,"
		   "detail");
	for (t = 0; t < VMS_NCOLS; t++) {
		ob_putc(o, ',');
		ob_puts(o, vms_columns[t].key);
	}
	ob_puts(o, ",vmflags,state\n");
	for (t = 0; t < VMS_NTYPES; t++)
		csv_totals(o, s, "type", vms_type_info[t].json, &s->types[t],
			   t == VMS_T_PAGE_TABLE);
	csv_totals(o, s, "total", "", &s->total, false);
	for (i = 0; i < s->nregions; i++)
		csv_region(o, s, &s->regions[i]);
	for (i = 0; i < s->nthreads; i++) {
		const struct vms_thread *th = &s->threads[i];

		ob_puts(o, "thread,stack,");
		ob_csv_str(o, th->name);
		ob_putc(o, ',');
		ob_hex(o, th->stack_start);
		ob_putc(o, ',');
		ob_hex(o, th->stack_end);
		ob_printf(o, ",,,,%d,,sp=0x%llx", (int)th->tid,
			  (unsigned long long)th->sp);
		csv_size_only(o, 0);
		ob_puts(o, ",,\n");
	}
}

const struct vms_exporter vms_export_csv = {
	.name = "csv",
	.help = "one row per type, region, child and thread; bytes",
	.listed = true,
	.write = export_csv,
	.write_diff = export_diff_csv,
};
