/* export_text.c — the full text export (-e text): the summary, then every
 * region with its children indented below it, then the threads.
 */
#include <stdio.h>
#include <string.h>

#include "export/export.h"
#include "export/export_util.h"
#include "model/columns.h"

/* "WS" rather than "Total WS": a region has no total. */
static const char *short_name(int c)
{
	return c == VMS_COL_WS ? "WS" : vms_columns[c].name;
}

/* A column's width: its figures' (cw), or its heading's where that is
 * wider ("Committed"), so the rows stay under their heading. */
static int col_width(int c, int cw)
{
	int n = (int)strlen(short_name(c));

	return n > cw ? n : cw;
}

void export_text(const struct vms_snapshot *s, struct outbuf *o)
{
	size_t i, j;
	int c, cw = o->exact ? 14 : 8; /* "123456789012345", "9999.9 T" */

	export_summary(s, o);
	ob_printf(o, "\nRegions (sizes in %s)\n",
		  o->exact ? "bytes" : "K, M, G, T");
	ob_printf(o, "%-33s %-13s", "Address", "Type");
	for (c = 0; c < VMS_NCOLS; c++)
		if (vms_column_has((enum vms_col)c, VMS_COLF_TEXT))
			ob_printf(o, " %*s", col_width(c, cw), short_name(c));
	ob_printf(o, " %-4s  %s\n", "Prot", "Details");
	for (i = 0; i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];
		const char *w[8];
		size_t nw = export_state_words(r, w, 8);
		char perms[5];

		ob_printf(o, "%016llx-%016llx %-13s",
			  (unsigned long long)r->start,
			  (unsigned long long)r->end,
			  vms_type_info[r->type].label);
		for (c = 0; c < VMS_NCOLS; c++)
			if (!vms_column_has((enum vms_col)c, VMS_COLF_TEXT))
				continue;
			else if (!vms_row_known(s, NULL, r, (enum vms_col)c,
						false)) /* a core's Rss */
				ob_printf(o, "%*s", col_width(c, cw) + 1, "-");
			else
				ob_size(o,
					vms_column_region(r, (enum vms_col)c),
					col_width(c, cw) + 1);
		ob_printf(o, " %-4s  ", export_perms(r, perms));
		ob_text_str(o, r->detail); /* the target's: escaped */
		for (j = 0; j < nw; j++)
			ob_printf(o, "%s%s%s", j ? ", " : " [", w[j],
				  j + 1 == nw ? "]" : "");
		ob_putc(o, '\n');
		for (j = 0; j < r->nchildren; j++) {
			const struct vms_child *ch = &r->children[j];
			uint64_t n = ch->end - ch->start;
			char sz[32];

			/* the size before the name, so rows line up whatever
			 * the name's length; under 1 K in bytes, as the
			 * viewer shows them ("864 B", not "0 K") */
			if (n < 1024 && !o->exact)
				snprintf(sz, sizeof(sz), "%llu B",
					 (unsigned long long)n);
			else
				ob_size_text(o, n, sz, sizeof(sz));
			ob_printf(o, "  %016llx-%016llx %*s  ",
				  (unsigned long long)ch->start,
				  (unsigned long long)ch->end, cw, sz);
			ob_text_str(o, ch->name);
			if (ch->part) /* a typed part (model/parts.h) */
				ob_printf(o, "  (%s)",
					  vms_type_info[ch->part->type].label);
			ob_putc(o, '\n');
		}
	}
	ob_puts(o, "\nThreads\n");
	ob_printf(o, "%8s  %-16s %-18s %s\n", "TID", "Name", "SP", "Stack");
	for (i = 0; i < s->nthreads; i++) {
		const struct vms_thread *t = &s->threads[i];

		ob_printf(o, "%8d  ", (int)t->tid);
		ob_text_pad(o, t->name ? t->name : "?", 16);
		ob_printf(o, " 0x%016llx ", (unsigned long long)t->sp);
		if (t->stack_end)
			ob_printf(o, "%016llx-%016llx\n",
				  (unsigned long long)t->stack_start,
				  (unsigned long long)t->stack_end);
		else
			ob_puts(o, "unknown\n");
	}
}

const struct vms_exporter vms_export_text = {
	.name = "text",
	.help = "the summary, every region with its children, the threads",
	.listed = true,
	.write = export_text,
	.write_diff = export_diff_text,
};
