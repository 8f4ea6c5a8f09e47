/* export_diff.c — a diff (diff.h) as the summary (-d A B -s), text and
 * CSV: the summary, text and csv rows' write_diff (the JSON one is
 * export_json.c's, beside the JSON it embeds).
 * Strings from the targets or the files (names, paths) are escaped as in
 * every export.
 */
#include <stdio.h>
#include <string.h>

#include "export/export.h"
#include "export/export_trace.h"
#include "export/export_util.h"
#include "model/columns.h"
#include "model/diff.h"

/* The summary's columns: each as A, B and the change. */
static const enum vms_col sum_cols[] = { VMS_COL_COMMITTED, VMS_COL_PRIVATE,
					 VMS_COL_WS };
#define NSUM (sizeof(sum_cols) / sizeof(sum_cols[0]))
#define W 10 /* a figure's width */

/* A signed size as ob_size writes sizes: "+12.3 M", "-4 K", "0 K". */
static const char *delta_text(const struct outbuf *o, int64_t v, char *buf,
			      size_t n)
{
	if (n < 2)
		return "";
	buf[0] = v > 0 ? '+' : '-';
	ob_size_text(o, v < 0 ? (uint64_t)-v : (uint64_t)v, buf + (v != 0),
		     n - 1);
	return buf;
}

static void side_line(const char *label, const char *named,
		      const struct vms_snapshot *s, struct outbuf *o)
{
	char when[64];

	ob_puts(o, label);
	if (named) { /* the file or PID the user gave */
		ob_putc(o, ' ');
		ob_text_str(o, named);
		ob_putc(o, ',');
	}
	ob_printf(o, " process %d ", (int)s->proc.pid);
	ob_text_str(o, s->proc.name ? s->proc.name : "?");
	ob_printf(o, ", taken at %s (%s%s)\n",
		  export_taken_at(s, when, sizeof(when)), s->cap.backend,
		  s->cap.frozen ? ", frozen" : "");
}

static void counts_line(const struct vms_diff *d, struct outbuf *o)
{
	int c;

	ob_printf(o, "Changes:     %zu (", d->n);
	for (c = 0; c < VMS_NCHANGES; c++)
		ob_printf(o, "%s%zu %s", c ? ", " : "", d->count[c],
			  vms_change_names[c]);
	ob_puts(o, ")\n");
}

/* A figure, "-" where not known (columns.h: a core's Rss). */
static const char *fig_text(const struct outbuf *o, uint64_t v, bool known,
			    char *buf, size_t n)
{
	return known ? ob_size_text(o, v, buf, n) : "-";
}

/* Row t of both sides (VMS_NTYPES: the total). */
static void type_row(struct outbuf *o, const struct vms_diff *d, int t)
{
	bool total = t == VMS_NTYPES, pt = t == VMS_T_PAGE_TABLE;
	const struct vms_totals *a = total ? &d->a->total : &d->a->types[t];
	const struct vms_totals *b = total ? &d->b->total : &d->b->types[t];
	uint32_t ka = vms_row_known_mask(d->a, a, NULL, pt);
	uint32_t kb = vms_row_known_mask(d->b, b, NULL, pt);
	char x[32];
	size_t i;

	ob_pad(o, total ? "Total" : vms_type_info[t].label, 14);
	for (i = 0; i < NSUM; i++) {
		uint64_t va = vms_column_type(a, sum_cols[i]);
		uint64_t vb = vms_column_type(b, sum_cols[i]);
		bool knowa = vms_mask_has(ka, sum_cols[i]);
		bool knowb = vms_mask_has(kb, sum_cols[i]);

		ob_printf(o, " %*s", W, fig_text(o, va, knowa, x, sizeof(x)));
		ob_printf(o, " %*s", W, fig_text(o, vb, knowb, x, sizeof(x)));
		/* unknown on either side: no change can be told */
		ob_printf(o, " %*s", W,
			  knowa && knowb ? delta_text(o, (int64_t)(vb - va), x,
						      sizeof(x))
					 : "-");
	}
	ob_printf(o, " %6llu %6llu\n", (unsigned long long)a->blocks,
		  (unsigned long long)b->blocks);
}

static void type_table(const struct vms_diff *d, struct outbuf *o)
{
	size_t i;
	int t;

	ob_pad(o, "", 14);
	for (i = 0; i < NSUM; i++)
		ob_printf(o, " %*s", 3 * W + 2, vms_columns[sum_cols[i]].name);
	ob_printf(o, " %13s\n", "Blocks");
	ob_pad(o, "Type", 14);
	for (i = 0; i < NSUM; i++)
		ob_printf(o, " %*s %*s %*s", W, "A", W, "B", W, "change");
	ob_printf(o, " %6s %6s\n", "A", "B");
	for (t = 0; t <= VMS_NTYPES; t++)
		if (t != VMS_T_FREE)
			type_row(o, d, t);
}

/* A change's delta of column col, "-" where not known on both sides. */
static const char *change_delta(const struct outbuf *o,
				const struct vms_diff_change *c,
				enum vms_col col, char *buf, size_t n)
{
	return vms_diff_known(c, col)
		       ? delta_text(o, vms_diff_delta(c, col), buf, n)
		       : "-";
}

/* One change on one line: what, type, where, how much, path. */
static void change_line(const struct vms_diff_change *c, struct outbuf *o)
{
	char x[32], y[32];

	ob_printf(o, "  %-8s %-13s 0x%012llx-0x%012llx %10s %10s  ",
		  vms_change_names[c->change], vms_type_info[c->type].label,
		  (unsigned long long)c->start, (unsigned long long)c->end,
		  change_delta(o, c, VMS_COL_COMMITTED, x, sizeof(x)),
		  change_delta(o, c, VMS_COL_WS, y, sizeof(y)));
	ob_text_str(o, c->path);
	ob_putc(o, '\n');
}

static void changes_head(struct outbuf *o)
{
	ob_printf(o, "  %-8s %-13s %-31s %10s %10s  %s\n", "change", "type",
		  "address (B, or A when removed)", "Committed", "Total WS",
		  "path");
}

/* Both of one traced run: the trace between them (or why not, when given
 * out of order). */
static void window_lines(const struct vms_diff *d, struct outbuf *o)
{
	if (d->windowed) {
		OB_LIT(o, "\nThe trace between A and B (one run, A's "
			  "snapshot to B's):\n");
		export_trace_text(o, &d->window, 8);
	} else if (d->traced && d->a->trace->run &&
		   d->a->trace->run == d->b->trace->run &&
		   d->a->trace->mark > d->b->trace->mark) {
		OB_LIT(o, "\nTrace:       B was taken before A in one run: "
			  "give them in the order taken (-d EARLIER LATER) "
			  "for the trace between them\n");
	}
}

/* Both sides saved with their traces: the call sites that changed (up to
 * max); one side only: a line saying so. */
static void trace_lines(const struct vms_diff *d, struct outbuf *o, size_t max)
{
	if (d->traced) {
		ob_putc(o, '\n');
		export_trace_diff_text(o, d->a->trace, d->b->trace, &d->trace,
				       max, 8);
	} else if (d->a->trace || d->b->trace) {
		ob_printf(o,
			  "\nTrace:       only %s was saved with a trace: no "
			  "call sites to compare\n",
			  d->a->trace ? "A" : "B");
	}
}

void export_diff_summary(const struct vms_diff *d, struct outbuf *o)
{
	size_t top[10], n, i;

	side_line("A:", d->name_a, d->a, o);
	side_line("B:", d->name_b, d->b, o);
	counts_line(d, o);
	ob_putc(o, '\n');
	type_table(d, o);
	n = vms_diff_largest(d, top, sizeof(top) / sizeof(top[0]));
	ob_putc(o, '\n');
	if (!n) {
		ob_puts(o, "No region changed.\n");
	} else {
		ob_puts(o, "Largest changes (by committed bytes):\n");
		changes_head(o);
		for (i = 0; i < n; i++)
			change_line(&d->v[top[i]], o);
	}
	window_lines(d, o);
	trace_lines(d, o, 10);
}

void export_diff_text(const struct vms_diff *d, struct outbuf *o)
{
	size_t i;

	export_diff_summary(d, o);
	if (d->n) {
		ob_puts(o, "\nEvery change, by address:\n");
		changes_head(o);
		for (i = 0; i < d->n; i++)
			change_line(&d->v[i], o);
	}
	if (d->traced && d->trace.n > 10) /* the summary showed 10 */
		trace_lines(d, o, 0);
}

/* ---- CSV ---- */

static bool csv_col(int c)
{
	return vms_column_has((enum vms_col)c, VMS_COLF_TYPE);
}

/* a and b: NULL where the side does not have the row (an added or
 * removed region: empty, its delta from 0); ka, kb: which of their
 * figures are known (columns.h): an unknown cell is empty, and so is its
 * delta. */
static void csv_figures(struct outbuf *o, const uint64_t *a, uint32_t ka,
			const uint64_t *b, uint32_t kb)
{
	int c;

	for (c = 0; c < VMS_NCOLS; c++) {
		if (!csv_col(c))
			continue;
		ob_putc(o, ',');
		if (a && vms_mask_has(ka, (enum vms_col)c))
			ob_u64(o, a[c]);
		ob_putc(o, ',');
		if (b && vms_mask_has(kb, (enum vms_col)c))
			ob_u64(o, b[c]);
		ob_putc(o, ',');
		if (vms_mask_has(ka & kb, (enum vms_col)c))
			ob_i64(o, (int64_t)((b ? b[c] : 0) - (a ? a[c] : 0)));
	}
	ob_putc(o, '\n');
}

void export_diff_csv(const struct vms_diff *d, struct outbuf *o)
{
	uint64_t a[VMS_NCOLS], b[VMS_NCOLS];
	size_t i;
	int c, t;

	ob_puts(o, "record,change,type,start,end,path");
	for (c = 0; c < VMS_NCOLS; c++)
		if (csv_col(c))
			ob_printf(o, ",a_%s,b_%s,delta_%s", vms_columns[c].key,
				  vms_columns[c].key, vms_columns[c].key);
	ob_putc(o, '\n');
	for (t = 0; t < VMS_NTYPES; t++) {
		bool pt = t == VMS_T_PAGE_TABLE;

		ob_printf(o, "type,,%s,,,", vms_type_info[t].json);
		export_totals_values(&d->a->types[t], a);
		export_totals_values(&d->b->types[t], b);
		csv_figures(
			o, a,
			vms_row_known_mask(d->a, &d->a->types[t], NULL, pt), b,
			vms_row_known_mask(d->b, &d->b->types[t], NULL, pt));
	}
	ob_puts(o, "total,,,,,");
	export_totals_values(&d->a->total, a);
	export_totals_values(&d->b->total, b);
	csv_figures(o, a, vms_row_known_mask(d->a, &d->a->total, NULL, false),
		    b, vms_row_known_mask(d->b, &d->b->total, NULL, false));
	for (i = 0; i < d->n; i++) {
		const struct vms_diff_change *x = &d->v[i];

		ob_printf(o, "region,%s,%s,", vms_change_names[x->change],
			  vms_type_info[x->type].json);
		ob_hex(o, x->start);
		ob_putc(o, ',');
		ob_hex(o, x->end);
		ob_putc(o, ',');
		ob_csv_str(o, x->path ? x->path : "");
		csv_figures(o, x->a.n ? x->a.v : NULL, x->a.known,
			    x->b.n ? x->b.v : NULL, x->b.known);
	}
}
