/* export_trace.c — a trace report (model/trace.h) as DESIGN.md's JSON
 * "trace" object and as text: the call sites by impacting size, per kind,
 * as heaptrack_print and `jeprof --base` list them, each with its stack.
 */
#include "export/export_trace.h"

#include <inttypes.h>
#include <string.h>

static void count_json(struct outbuf *o, const char *name,
		       const struct vms_trace_count *c)
{
	ob_printf(o, "\"%s\":{\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 "},",
		  name, c->count, c->bytes);
}

static void frame_json(struct outbuf *o, const struct vms_trace_frame *f)
{
	OB_LIT(o, "{\"function\":");
	ob_json_str(o, f->function);
	OB_LIT(o, ",\"file\":");
	ob_json_str(o, f->file);
	OB_LIT(o, ",\"line\":");
	if (f->line)
		ob_u64(o, f->line);
	else
		OB_LIT(o, "null");
	OB_LIT(o, ",\"module\":");
	ob_json_str(o, f->module);
	OB_LIT(o, ",\"offset\":");
	ob_u64(o, f->offset);
	OB_LIT(o, ",\"ip\":\"");
	ob_hex(o, f->ip);
	OB_LIT(o, "\"}");
}

void export_trace_json(struct outbuf *o, const struct vms_trace_report *r)
{
	size_t i;
	uint32_t k;

	OB_LIT(o, "{\"mode\":");
	ob_puts(o, r->sampled ? "\"sampled\"" : "\"exact\"");
	OB_LIT(o, ",\"sample_bytes\":");
	if (r->sampled)
		ob_u64(o, r->sample_bytes);
	else
		OB_LIT(o, "null");
	OB_LIT(o, ",\"seed\":");
	if (r->sampled)
		ob_u64(o, r->seed);
	else
		OB_LIT(o, "null");
	ob_printf(o,
		  ",\"attached\":%s,\"heap_traced\":%s,\"events\":%" PRIu64
		  ",\"dropped\":%" PRIu64 ",\"dropped_bytes\":%" PRIu64
		  ",\"unknown_frees\":%" PRIu64 ",\"ended\":%s,",
		  r->attached ? "true" : "false",
		  r->heap_untraced ? "false" : "true", r->events, r->dropped,
		  r->dropped_bytes, r->unknown_frees,
		  r->ended ? "true" : "false");
	OB_LIT(o, "\"madvised\":");
	if (r->madvise_traced)
		ob_printf(o, "{\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 "},",
			  r->madvised, r->madvised_bytes);
	else
		OB_LIT(o, "null,");
	OB_LIT(o, "\"window\":{\"from_ns\":");
	ob_u64(o, r->from_ns);
	OB_LIT(o, ",\"to_ns\":");
	ob_u64(o, r->to_ns);
	OB_LIT(o, "},\"sites\":[");
	for (i = 0; i < r->nsites; i++) {
		const struct vms_trace_site *s = &r->sites[i];

		if (i)
			ob_putc(o, ',');
		ob_printf(o, "{\"id\":%u,\"kind\":\"%s\",\"frames\":[", s->id,
			  vms_trace_kind_names[s->kind]);
		for (k = 0; k < s->nframes; k++) {
			if (k)
				ob_putc(o, ',');
			frame_json(o, &s->frames[k]);
		}
		OB_LIT(o, "],");
		for (k = 0; k < VMS_TRACE_NIMPACTS; k++)
			count_json(o, vms_trace_impact_names[k], &s->by[k]);
		OB_LIT(o, "\"impacting_bytes\":");
		ob_i64(o, s->impacting_bytes);
		ob_putc(o, '}');
	}
	OB_LIT(o, "]}");
}

/* "function (file:line)" or "module+0xoff" for one frame. */
static void frame_text(struct outbuf *o, const struct vms_trace_frame *f)
{
	const char *file = f->file ? strrchr(f->file, '/') : NULL;

	if (f->function) {
		ob_text_str(o, f->function);
		if (f->file) {
			OB_LIT(o, " (");
			ob_text_str(o, file ? file + 1 : f->file);
			ob_printf(o, ":%u)", f->line);
		} else if (f->module) {
			const char *m = strrchr(f->module, '/');

			OB_LIT(o, " in ");
			ob_text_str(o, m ? m + 1 : f->module);
		}
	} else if (f->module) {
		const char *m = strrchr(f->module, '/');

		ob_text_str(o, m ? m + 1 : f->module);
		ob_printf(o, "+0x%" PRIx64, f->offset);
	} else {
		ob_hex(o, f->ip);
	}
}

static void size_cell(struct outbuf *o, uint64_t v, int width)
{
	ob_size(o, v, width);
}

void export_trace_text(struct outbuf *o, const struct vms_trace_report *r,
		       unsigned max_frames)
{
	size_t i, shown = 0;
	uint32_t k;

	if (r->sampled)
		ob_printf(o,
			  "Trace:       sampled (blocks under 64 K: one every "
			  "%" PRIu64 " bytes on average, counts and sizes "
			  "scaled; seed %" PRIu64 "), %" PRIu64
			  " calls recorded",
			  r->sample_bytes, r->seed, r->events);
	else
		ob_printf(o,
			  "Trace:       exact (every call), %" PRIu64
			  " calls recorded",
			  r->events);
	if (r->dropped)
		ob_printf(o,
			  ", %" PRIu64 " not recorded (%" PRIu64
			  " bytes): the figures are short by them",
			  r->dropped, r->dropped_bytes);
	if (r->unknown_frees)
		ob_printf(o,
			  ", %" PRIu64 " frees of memory allocated before "
			  "the trace",
			  r->unknown_frees);
	ob_putc(o, '\n');
	if (r->heap_untraced)
		OB_LIT(o, "Heap:        not traced (attached: the mmap family "
			  "only, from the kernel)\n");
	if (r->madvise_traced && r->madvised)
		ob_printf(o,
			  "Madvised:    %" PRIu64
			  " bytes given back by %" PRIu64
			  " madvise calls (MADV_DONTNEED, MADV_FREE: still "
			  "mapped)\n",
			  r->madvised_bytes, r->madvised);
	ob_printf(o, "Window:      %.3f s to %.3f s%s\n",
		  (double)r->from_ns / 1e9, (double)r->to_ns / 1e9,
		  r->ended ? " (the program's end)" : "");
	OB_LIT(o, "\nCall sites by impacting size (outstanding - released "
		  "in the window):\n");
	OB_LIT(o, "Kind  Impacting  Outstanding    Count   Transient    Count"
		  "    Released    Count  Stack\n");
	for (i = 0; i < r->nsites; i++) {
		const struct vms_trace_site *s = &r->sites[i];
		int64_t imp = s->impacting_bytes;

		ob_pad(o, vms_trace_kind_names[s->kind], 5);
		if (imp < 0) {
			ob_putc(o, '-');
			size_cell(o, (uint64_t)-imp, 9);
		} else {
			size_cell(o, (uint64_t)imp, 10);
		}
		size_cell(o, s->by[VMS_TRACE_outstanding].bytes, 13);
		ob_printf(o, " %8" PRIu64, s->by[VMS_TRACE_outstanding].count);
		size_cell(o, s->by[VMS_TRACE_transient].bytes, 12);
		ob_printf(o, " %8" PRIu64, s->by[VMS_TRACE_transient].count);
		size_cell(o, s->by[VMS_TRACE_released].bytes, 12);
		ob_printf(o, " %8" PRIu64 "  ",
			  s->by[VMS_TRACE_released].count);
		for (k = 0; k < s->nframes && k < max_frames; k++) {
			if (k)
				OB_LIT(o, " < ");
			frame_text(o, &s->frames[k]);
		}
		if (s->nframes > max_frames)
			OB_LIT(o, " < ...");
		ob_putc(o, '\n');
		shown++;
	}
	if (!shown)
		OB_LIT(o, "(nothing allocated or freed in the window)\n");
}
