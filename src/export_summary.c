/* export_summary.c — the text summary (-s): the capture, then one row per
 * type with the summary's columns (columns.h), Total and Free.
 */
#include <stdio.h>
#include <string.h>

#include "columns.h"
#include "export.h"
#include "export_util.h"

enum { NCOLS = VMS_NSUMMARY };

static void row_values(const struct vms_totals *t, uint64_t v[NCOLS])
{
	int i;

	for (i = 0; i < NCOLS; i++)
		v[i] = vms_column_type(t, vms_summary_columns[i]);
}

static const struct vms_column *col(int i)
{
	return &vms_columns[vms_summary_columns[i]];
}

static int digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static void print_row(struct outbuf *o, const char *label,
		      const struct vms_totals *t, const int w[NCOLS],
		      bool free_row)
{
	uint64_t v[NCOLS];
	int i;

	row_values(t, v);
	ob_pad(o, label, 14);
	for (i = 0; i < NCOLS; i++) {
		ob_putc(o, ' ');
		if (free_row && !(col(i)->flags & VMS_COLF_FREE)) {
			ob_printf(o, "%*s", w[i], "");
			continue;
		}
		if (col(i)->flags & VMS_COLF_COUNT) {
			char tmp[24];

			snprintf(tmp, sizeof(tmp), "%llu",
				 (unsigned long long)v[i]);
			ob_printf(o, "%*s", w[i], tmp);
		} else {
			ob_kb(o, v[i], w[i] - 2);
			ob_puts(o, " K");
		}
	}
	/* no trailing blanks */
	while (o->len && o->buf[o->len - 1] == ' ')
		o->len--;
	ob_putc(o, '\n');
}

static void summary_header(const struct vms_snapshot *s, struct outbuf *o)
{
	char when[160];
	size_t i;

	ob_printf(o, "Process:     %d %s\n", (int)s->proc.pid,
		  s->proc.name ? s->proc.name : "?");
	if (s->proc.cmdline && *s->proc.cmdline)
		ob_printf(o, "Command:     %s\n", s->proc.cmdline);
	if (s->proc.exe)
		ob_printf(o, "Executable:  %s\n", s->proc.exe);
	ob_printf(o, "Sampler:     %s, ", s->cap.backend);
	if (s->cap.frozen)
		ob_printf(o, "frozen %llu us\n",
			  (unsigned long long)s->cap.frozen_us);
	else
		ob_puts(o, "not frozen (figures read while it ran)\n");
	ob_printf(o, "Taken at:    %s   kernel %s   page size %llu\n",
		  export_taken_at(s, when, sizeof(when)),
		  s->cap.kernel ? s->cap.kernel : "?",
		  (unsigned long long)s->cap.page_size);
	if (s->cap.partial)
		ob_printf(o, "Partial:     %s\n", s->cap.partial);
	for (i = 0; i < s->nnotes; i++)
		ob_printf(o, "Missing:     %s %s\n", s->notes[i].step,
			  s->notes[i].why);
	ob_printf(o, "Kernel:      %s\n", export_rollup_check(s, when,
								 sizeof(when)));
}

void export_summary(const struct vms_snapshot *s, struct outbuf *o)
{
	int w[NCOLS], i, t;

	summary_header(s, o);
	ob_putc(o, '\n');
	for (i = 0; i < NCOLS; i++) {
		uint64_t v[NCOLS];

		w[i] = (int)strlen(col(i)->name);
		for (t = 0; t <= VMS_NTYPES; t++) {
			int d;

			row_values(t < VMS_NTYPES ? &s->types[t] : &s->total,
				   v);
			d = (col(i)->flags & VMS_COLF_COUNT) ? digits(v[i])
						 : digits(v[i] >> 10) + 2;
			if (d > w[i])
				w[i] = d;
		}
	}
	ob_pad(o, "Type", 14);
	for (i = 0; i < NCOLS; i++)
		ob_printf(o, " %*s", w[i], col(i)->name);
	ob_putc(o, '\n');
	for (t = 0; t < VMS_NTYPES; t++)
		if (t != VMS_T_FREE)
			print_row(o, vms_type_info[t].label, &s->types[t], w,
				  false);
	print_row(o, "Total", &s->total, w, false);
	print_row(o, "Free", &s->types[VMS_T_FREE], w, true);
	ob_putc(o, '\n');
	ob_printf(o, "Largest free block: %llu K\n",
		  (unsigned long long)(s->largest_free >> 10));
	ob_puts(o, "Total is the sum over regions; the page table is "
		   "counted in its own row only.\n");
}

const struct vms_exporter vms_export_summary = {
	.name = "summary",
	.help = "the text summary (what -s prints)",
	.write = export_summary,
};
