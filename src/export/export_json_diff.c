/* export_json_diff.c — a diff as JSON (-d A B -e json): DESIGN.md's
 * "vmscope-diff" contract, version 1, beside export_json.c, whose members
 * (process, capture, totals, types) each side's object is; and the JSON
 * format's row, its write and write_diff.
 */
#include <stdio.h>
#include <string.h>

#include "export/export.h"
#include "export/export_trace.h"
#include "export/export_util.h"
#include "model/columns.h"
#include "model/diff.h"

/* Added beyond the contract: "delta" beside "a" and "b", "counts". */

/* The figures of a row by their keys: b's (a NULL), or b - a (a side
 * NULL: 0; delta); null where known (columns.h) lacks one. */
static void json_figs(struct outbuf *o, const uint64_t *a, const uint64_t *b,
		      uint32_t known, unsigned flag, bool delta)
{
	int c;
	bool first = true;

	ob_putc(o, '{');
	for (c = 0; c < VMS_NCOLS; c++) {
		if (!vms_column_has((enum vms_col)c, flag) &&
		    c != VMS_COL_BLOCKS)
			continue;
		if (!first)
			ob_putc(o, ',');
		first = false;
		ob_printf(o, "\"%s\":", vms_columns[c].key);
		if (!vms_mask_has(known, (enum vms_col)c))
			OB_LIT(o, "null");
		else if (delta)
			ob_i64(o, (int64_t)((b ? b[c] : 0) - (a ? a[c] : 0)));
		else
			ob_u64(o, b[c]);
	}
	ob_putc(o, '}');
}

/* v: NULL where the side does not have the row; known: which of v are
 * known (columns.h): null where not. */
static void json_cols(struct outbuf *o, const uint64_t *v, uint32_t known,
		      unsigned flag)
{
	if (v)
		json_figs(o, NULL, v, known, flag, false);
	else
		ob_puts(o, "null");
}

static void json_side(const struct vms_snapshot *s, struct outbuf *o)
{
	ob_putc(o, '{');
	export_json_members(s, o);
	if (o->len && o->buf[o->len - 1] == ',')
		o->len--;
	ob_putc(o, '}');
}

static void export_diff_json(const struct vms_diff *d, struct outbuf *o)
{
	uint64_t a[VMS_NCOLS], b[VMS_NCOLS];
	size_t i;
	int t;

	ob_puts(o, "{\"format\":\"vmscope-diff\",\"version\":1,\"a\":");
	json_side(d->a, o);
	ob_puts(o, ",\"b\":");
	json_side(d->b, o);
	ob_puts(o, ",\"counts\":{");
	for (t = 0; t < VMS_NCHANGES; t++)
		ob_printf(o, "%s\"%s\":%zu", t ? "," : "", vms_change_names[t],
			  d->count[t]);
	ob_puts(o, "},\n\"changes\":{\"types\":[");
	for (t = 0; t < VMS_NTYPES; t++) {
		bool pt = t == VMS_T_PAGE_TABLE;
		uint32_t ka =
			vms_row_known_mask(d->a, &d->a->types[t], NULL, pt);
		uint32_t kb =
			vms_row_known_mask(d->b, &d->b->types[t], NULL, pt);

		export_totals_values(&d->a->types[t], a);
		export_totals_values(&d->b->types[t], b);
		ob_printf(o, "%s{\"type\":\"%s\",\"a\":", t ? "," : "",
			  vms_type_info[t].json);
		json_cols(o, a, ka, VMS_COLF_TYPE);
		ob_puts(o, ",\"b\":");
		json_cols(o, b, kb, VMS_COLF_TYPE);
		ob_puts(o, ",\"delta\":");
		json_figs(o, a, b, ka & kb, VMS_COLF_TYPE, true);
		ob_putc(o, '}');
	}
	ob_puts(o, "],\n\"regions\":[");
	for (i = 0; i < d->n; i++) {
		const struct vms_diff_change *x = &d->v[i];
		const uint64_t *va = x->a.n ? x->a.v : NULL;
		const uint64_t *vb = x->b.n ? x->b.v : NULL;

		ob_printf(o, "%s{\"change\":\"%s\",\"start\":\"",
			  i ? ",\n" : "\n", vms_change_names[x->change]);
		ob_hex(o, x->start);
		ob_puts(o, "\",\"end\":\"");
		ob_hex(o, x->end);
		ob_printf(o, "\",\"type\":\"%s\",\"path\":",
			  vms_type_info[x->type].json);
		ob_json_str(o, x->path);
		ob_puts(o, ",\"a\":");
		json_cols(o, va, x->a.known, VMS_COLF_REGION);
		ob_puts(o, ",\"b\":");
		json_cols(o, vb, x->b.known, VMS_COLF_REGION);
		ob_puts(o, ",\"delta\":");
		json_figs(o, va, vb, x->a.known & x->b.known, VMS_COLF_REGION,
			  true);
		ob_putc(o, '}');
	}
	ob_puts(o, "\n]}");
	if (d->traced) { /* both saved with their traces: the call sites */
		OB_LIT(o, ",\n\"trace\":");
		export_trace_diff_json(o, d->a->trace, d->b->trace, &d->trace);
	}
	if (d->windowed) { /* one run's: the trace between A and B */
		OB_LIT(o, ",\n\"trace_window\":");
		export_trace_json(o, &d->window);
	}
	ob_puts(o, "}\n");
}

/* The JSON format's row (export.c's table): here, above export_json.c,
 * whose export_json and members it takes. */
const struct vms_exporter vms_export_json = {
	.name = "json",
	.help = "every figure, the version 1 JSON contract (man vmscope)",
	.listed = true,
	.write = export_json,
	.write_diff = export_diff_json,
};
