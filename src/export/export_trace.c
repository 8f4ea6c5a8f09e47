/* export_trace.c — a trace report (model/trace.h) as DESIGN.md's JSON
 * "trace" object and as text: the call sites by impacting size, per kind,
 * as heaptrack_print and `jeprof --base` list them, each with its stack.
 */
#include "export/export_trace.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "base/tracewire.h"
#include "export/export_util.h"

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

/* A site's kind in its column of 5 (and its space); how far a longer
 * name ("commit") runs into the next cell, which is narrowed by that. */
static int kind_cell(struct outbuf *o, enum vms_trace_kind k)
{
	int n = (int)strlen(vms_trace_kind_names[k]);

	ob_pad(o, vms_trace_kind_names[k], 5);
	return n > 5 ? n - 5 : 0;
}

/* The report's trace-wide fields (records.h, VMS_TRACE_FIELDS) in their
 * list's order, each followed by a comma: "mode" in sampled's place, the
 * sampling's figures null when exact, those without a JSON key left to
 * the caller. */
static void trace_fields(struct outbuf *o, const struct vms_trace_report *r)
{
	size_t i;

	for (i = 0; i < vms_trace_record.nfields; i++) {
		const struct vms_field *f = &vms_trace_record.fields[i];

		if (f->off == offsetof(struct vms_trace_report, sampled)) {
			OB_LIT(o, "\"mode\":");
			ob_puts(o, r->sampled ? "\"sampled\"," : "\"exact\",");
			continue;
		}
		if (f->off ==
		    offsetof(struct vms_trace_report, heap_untraced)) {
			ob_puts(o, r->heap_untraced ? "\"heap_traced\":false,"
						    : "\"heap_traced\":true,");
			continue;
		}
		if (f->off ==
		    offsetof(struct vms_trace_report, madvise_traced)) {
			OB_LIT(o, "\"madvised\":");
			if (r->madvise_traced)
				ob_printf(o,
					  "{\"count\":%" PRIu64
					  ",\"bytes\":%" PRIu64 "},",
					  r->madvised, r->madvised_bytes);
			else
				OB_LIT(o, "null,");
			continue;
		}
		if (!f->json)
			continue;
		ob_putc(o, '"');
		ob_puts(o, f->json);
		OB_LIT(o, "\":");
		if (!r->sampled &&
		    (f->off ==
			     offsetof(struct vms_trace_report, sample_bytes) ||
		     f->off == offsetof(struct vms_trace_report, seed))) {
			OB_LIT(o, "null,");
			continue;
		}
		if (!export_json_scalar(o, f, r)) /* the list has no other */
			OB_LIT(o, "null");
		ob_putc(o, ',');
	}
}

void export_trace_exit_json(struct outbuf *o, const struct vms_trace_report *r)
{
	bool ended = r->ended && r->exit_status >= 0;

	OB_LIT(o, "\"exit_status\":");
	if (ended && WIFEXITED(r->exit_status))
		ob_printf(o, "%d", (int)WEXITSTATUS(r->exit_status));
	else
		OB_LIT(o, "null");
	OB_LIT(o, ",\"signal\":");
	if (ended && WIFSIGNALED(r->exit_status))
		ob_printf(o, "%d", (int)WTERMSIG(r->exit_status));
	else
		OB_LIT(o, "null");
}

/* The window's Impacting Size: its call sites' and what was freed of
 * the blocks alive before the trace. */
static int64_t window_impacting(const struct vms_trace_report *r)
{
	int64_t v = 0;
	size_t i;

	for (i = 0; i < r->nsites; i++)
		v += r->sites[i].impacting_bytes;
	for (i = 0; i < r->nbefore; i++)
		v += r->before[i].impacting_bytes;
	return v;
}

/* "before": allocated before the trace, per heap walked, or null. */
static void before_json(struct outbuf *o, const struct vms_trace_report *r)
{
	size_t i;

	OB_LIT(o, "\"before\":");
	if (!r->before_walked) {
		OB_LIT(o, "null,");
		return;
	}
	OB_LIT(o, "{\"partial\":");
	ob_json_str(o, r->before_partial);
	OB_LIT(o, ",\"heaps\":[");
	for (i = 0; i < r->nbefore; i++) {
		const struct vms_trace_before *b = &r->before[i];

		if (i)
			ob_putc(o, ',');
		OB_LIT(o, "{\"kind\":");
		ob_json_str(o, b->kind);
		OB_LIT(o, ",\"id\":\"");
		ob_hex(o, b->id);
		OB_LIT(o, "\",");
		count_json(o, "at_start", &b->at_start);
		count_json(o, "released", &b->released);
		count_json(o, "lasting", &b->lasting);
		OB_LIT(o, "\"impacting_bytes\":");
		ob_i64(o, b->impacting_bytes);
		ob_putc(o, '}');
	}
	OB_LIT(o, "]},");
}

/* The trace object less its closing brace. */
static void trace_json_open(struct outbuf *o, const struct vms_trace_report *r)
{
	size_t i;
	uint32_t k;

	ob_putc(o, '{');
	trace_fields(o, r);
	before_json(o, r);
	OB_LIT(o, "\"window\":{\"from_ns\":");
	ob_u64(o, r->from_ns);
	OB_LIT(o, ",\"to_ns\":");
	ob_u64(o, r->to_ns);
	OB_LIT(o, ",\"impacting_bytes\":");
	ob_i64(o, window_impacting(r));
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
	ob_putc(o, ']');
}

void export_trace_json(struct outbuf *o, const struct vms_trace_report *r)
{
	trace_json_open(o, r);
	ob_putc(o, '}');
}

/* A report's sum over its sites of one impacting type. */
static struct vms_trace_count sum_of(const struct vms_trace_report *r,
				     enum vms_trace_impact k)
{
	struct vms_trace_count c = { 0, 0 };
	size_t i;

	for (i = 0; i < r->nsites; i++) {
		c.count += r->sites[i].by[k].count;
		c.bytes += r->sites[i].by[k].bytes;
	}
	return c;
}

void export_trace_procs_json(struct outbuf *o, const struct vms_trace_report *r,
			     const struct vms_trace_procs *ps)
{
	size_t i;

	trace_json_open(o, r);
	ob_printf(o,
		  ",\"children\":{\"followed\":%zu,\"not_followed\":%" PRIu64
		  ",\"limit\":%u},\"processes\":[",
		  ps->n ? ps->n - 1 : 0, ps->not_followed, ps->limit);
	for (i = 0; i < ps->n; i++) {
		const struct vms_trace_proc *p = &ps->v[i];
		const struct vms_trace_report *pr = p->report ? p->report : r;
		struct vms_trace_count c;

		if (i)
			ob_putc(o, ',');
		ob_printf(o, "{\"pid\":%d,\"ppid\":%d,\"how\":", (int)p->pid,
			  (int)p->ppid);
		ob_json_str(o, p->how);
		OB_LIT(o, ",\"command\":");
		ob_json_str(o, p->command);
		ob_printf(o, ",\"ended\":%s,", p->ended ? "true" : "false");
		c = sum_of(pr, VMS_TRACE_outstanding);
		count_json(o, "outstanding", &c);
		c = sum_of(pr, VMS_TRACE_transient);
		count_json(o, "transient", &c);
		OB_LIT(o, "\"trace\":");
		if (p->report)
			export_trace_json(o, p->report);
		else
			OB_LIT(o, "null");
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

/* A site's stack on the rest of its line, innermost first, at most
 * max_frames of it, then the end of the line. */
static void stack_text(struct outbuf *o, const struct vms_trace_site *s,
		       unsigned max_frames)
{
	uint32_t k;

	for (k = 0; k < s->nframes && k < max_frames; k++) {
		if (k)
			OB_LIT(o, " < ");
		frame_text(o, &s->frames[k]);
	}
	if (s->nframes > max_frames)
		OB_LIT(o, " < ...");
	ob_putc(o, '\n');
}

void export_trace_end_text(struct outbuf *o, const struct vms_trace_report *r)
{
	bool ended = r->ended && r->exit_status >= 0;

	if (ended && WIFEXITED(r->exit_status))
		ob_printf(o, "Ended:       exit status %d\n",
			  (int)WEXITSTATUS(r->exit_status));
	else if (ended && WIFSIGNALED(r->exit_status))
		ob_printf(o, "Ended:       killed by signal %d\n",
			  (int)WTERMSIG(r->exit_status));
	else
		OB_LIT(o,
		       "Ended:       no (it ran on, untraced, after the trace)\n");
}

static void size_cell(struct outbuf *o, uint64_t v, int width)
{
	ob_size(o, v, width);
}

/* One line per heap walked: what was allocated before the trace. */
static void before_text(struct outbuf *o, const struct vms_trace_report *r)
{
	int64_t imp;
	size_t i;

	if (!r->before_walked)
		return;
	for (i = 0; i < r->nbefore; i++) {
		const struct vms_trace_before *b = &r->before[i];

		OB_LIT(o, "Before:      ");
		ob_text_str(o, b->kind);
		ob_printf(o, " 0x%" PRIx64 ": %" PRIu64 " blocks (", b->id,
			  b->at_start.count);
		size_cell(o, b->at_start.bytes, 0);
		ob_printf(o,
			  ") alive when the trace began; %" PRIu64 " of them (",
			  b->released.count);
		size_cell(o, b->released.bytes, 0);
		ob_printf(o, ") freed in the window, %" PRIu64 " (",
			  b->lasting.count);
		size_cell(o, b->lasting.bytes, 0);
		OB_LIT(o, ") alive at its end\n");
	}
	if (!r->nbefore)
		OB_LIT(o, "Before:      no block alive when the trace began\n");
	imp = window_impacting(r);
	OB_LIT(o, "Impacting:   ");
	if (imp < 0)
		ob_putc(o, '-');
	size_cell(o, imp < 0 ? (uint64_t)-imp : (uint64_t)imp, 0);
	OB_LIT(o, " in the window (the call sites', less what was freed of "
		  "the blocks alive before)\n");
	if (r->before_partial) {
		OB_LIT(o, "             (the heap walk is partial: ");
		ob_text_str(o, r->before_partial);
		OB_LIT(o, ")\n");
	}
}

void export_trace_text(struct outbuf *o, const struct vms_trace_report *r,
		       unsigned max_frames)
{
	size_t i, shown = 0;

	if (r->sampled)
		ob_printf(o,
			  "Trace:       sampled (blocks under 64 K: one every "
			  "%" PRIu64 " bytes on average, counts and sizes "
			  "scaled; seed %" PRIu64 "), %" PRIu64,
			  r->sample_bytes, r->seed, r->events);
	else
		ob_printf(o, "Trace:       exact (every call), %" PRIu64,
			  r->events);
	ob_printf(o, " call%s recorded", r->events == 1 ? "" : "s");
	if (r->dropped) {
		ob_printf(o, ", %" PRIu64 " not recorded (%" PRIu64 " bytes",
			  r->dropped, r->dropped_bytes);
		if (r->dropped_threads)
			ob_printf(o,
				  "; %" PRIu64 " of them by threads past the "
				  "%u that held a ring at once: too many "
				  "threads allocating at once",
				  r->dropped_threads, TW_SLOTS);
		OB_LIT(o, "): a block whose allocation was not recorded is "
			  "missing from the figures, one whose free was not is "
			  "counted alive");
	}
	if (r->bad_records)
		ob_printf(o,
			  ", %" PRIu64 " records refused (written over by the "
			  "program, or a call a thread never finished)",
			  r->bad_records);
	if (r->unknown_frees)
		ob_printf(o,
			  ", %" PRIu64 " free%s of memory allocated before "
			  "the trace",
			  r->unknown_frees, r->unknown_frees == 1 ? "" : "s");
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
	before_text(o, r);
	OB_LIT(o, "\nCall sites by impacting size (outstanding - released "
		  "in the window):\n");
	OB_LIT(o, "Kind  Impacting  Outstanding    Count   Transient    Count"
		  "    Released    Count  Stack\n");
	for (i = 0; i < r->nsites; i++) {
		const struct vms_trace_site *s = &r->sites[i];
		int64_t imp = s->impacting_bytes;
		int over = kind_cell(o, s->kind);

		if (imp < 0) {
			ob_putc(o, '-');
			size_cell(o, (uint64_t)-imp, 9 - over);
		} else {
			size_cell(o, (uint64_t)imp, 10 - over);
		}
		size_cell(o, s->by[VMS_TRACE_outstanding].bytes, 13);
		ob_printf(o, " %8" PRIu64, s->by[VMS_TRACE_outstanding].count);
		size_cell(o, s->by[VMS_TRACE_transient].bytes, 12);
		ob_printf(o, " %8" PRIu64, s->by[VMS_TRACE_transient].count);
		size_cell(o, s->by[VMS_TRACE_released].bytes, 12);
		ob_printf(o, " %8" PRIu64 "  ",
			  s->by[VMS_TRACE_released].count);
		stack_text(o, s, max_frames);
		shown++;
	}
	if (!shown)
		OB_LIT(o, "(nothing allocated or freed in the window)\n");
}

void export_trace_procs_text(struct outbuf *o, const struct vms_trace_procs *ps,
			     unsigned max_frames)
{
	size_t i;

	ob_printf(o,
		  "\nChildren:    %zu followed (each its own trace below), "
		  "%" PRIu64 " not followed (at most %u processes in all)\n",
		  ps->n ? ps->n - 1 : 0, ps->not_followed, ps->limit);
	for (i = 1; i < ps->n; i++) {
		const struct vms_trace_proc *p = &ps->v[i];

		ob_printf(o, "\nProcess:     %d ", (int)p->pid);
		ob_text_str(o, p->command);
		ob_printf(o, "\nFollowed:    %s by %d\n",
			  strcmp(p->how, "fork") == 0 ? "forked" : "exec'd",
			  (int)p->ppid);
		ob_puts(o, p->ended ? "Ended:       yes\n"
				    : "Ended:       no (it ran on, untraced, "
				      "after the trace)\n");
		if (p->report)
			export_trace_text(o, p->report, max_frames);
	}
}

/* ---- two reports compared (-d A B: trace.h, vms_trace_diff) ---- */

static const char *change_name(const struct vms_trace_change *c)
{
	return !c->a ? "added" : !c->b ? "removed" : "changed";
}

static void figures_json(struct outbuf *o, const struct vms_trace_site *s)
{
	uint32_t k;

	if (!s) {
		OB_LIT(o, "null");
		return;
	}
	ob_putc(o, '{');
	for (k = 0; k < VMS_TRACE_NIMPACTS; k++)
		count_json(o, vms_trace_impact_names[k], &s->by[k]);
	OB_LIT(o, "\"impacting_bytes\":");
	ob_i64(o, s->impacting_bytes);
	ob_putc(o, '}');
}

static void side_json(struct outbuf *o, const struct vms_trace_report *r)
{
	ob_putc(o, '{');
	trace_fields(o, r);
	OB_LIT(o, "\"window\":{\"from_ns\":");
	ob_u64(o, r->from_ns);
	OB_LIT(o, ",\"to_ns\":");
	ob_u64(o, r->to_ns);
	OB_LIT(o, "}}");
}

void export_trace_diff_json(struct outbuf *o, const struct vms_trace_report *a,
			    const struct vms_trace_report *b,
			    const struct vms_trace_diff *d)
{
	size_t i;
	uint32_t k;

	OB_LIT(o, "{\"a\":");
	side_json(o, a);
	OB_LIT(o, ",\"b\":");
	side_json(o, b);
	ob_printf(o,
		  ",\"counts\":{\"added\":%zu,\"removed\":%zu,\"changed\":%zu,"
		  "\"same\":%zu},\"sites\":[",
		  d->added, d->removed, d->changed, d->same);
	for (i = 0; i < d->n; i++) {
		const struct vms_trace_change *c = &d->v[i];
		const struct vms_trace_site *s = c->b ? c->b : c->a;

		ob_printf(o,
			  "%s{\"change\":\"%s\",\"kind\":\"%s\",\"frames\":[",
			  i ? ",\n" : "\n", change_name(c),
			  vms_trace_kind_names[s->kind]);
		for (k = 0; k < s->nframes; k++) {
			if (k)
				ob_putc(o, ',');
			frame_json(o, &s->frames[k]);
		}
		OB_LIT(o, "],\"a\":");
		figures_json(o, c->a);
		OB_LIT(o, ",\"b\":");
		figures_json(o, c->b);
		OB_LIT(o, ",\"delta\":{");
		for (k = 0; k < VMS_TRACE_NIMPACTS; k++)
			ob_printf(o,
				  "\"%s\":{\"count\":%" PRId64
				  ",\"bytes\":%" PRId64 "},",
				  vms_trace_impact_names[k],
				  (int64_t)((c->b ? c->b->by[k].count : 0) -
					    (c->a ? c->a->by[k].count : 0)),
				  (int64_t)((c->b ? c->b->by[k].bytes : 0) -
					    (c->a ? c->a->by[k].bytes : 0)));
		OB_LIT(o, "\"impacting_bytes\":");
		ob_i64(o, vms_trace_change_impacting(c->b) -
				  vms_trace_change_impacting(c->a));
		OB_LIT(o, "}}");
	}
	OB_LIT(o, "]}");
}

/* A signed size as the text report writes sizes, in width: "+12.3 M". */
static void delta_cell(struct outbuf *o, int64_t v, int width)
{
	char buf[40], cell[48];

	ob_size_text(o, v < 0 ? (uint64_t)-v : (uint64_t)v, buf, sizeof(buf));
	snprintf(cell, sizeof(cell), "%s%s",
		 v > 0	 ? "+"
		 : v < 0 ? "-"
			 : "",
		 buf);
	ob_printf(o, "%*s", width, cell);
}

static int64_t d_count(const struct vms_trace_change *c, int k)
{
	return (int64_t)((c->b ? c->b->by[k].count : 0) -
			 (c->a ? c->a->by[k].count : 0));
}

static int64_t d_bytes(const struct vms_trace_change *c, int k)
{
	return (int64_t)((c->b ? c->b->by[k].bytes : 0) -
			 (c->a ? c->a->by[k].bytes : 0));
}

void export_trace_diff_text(struct outbuf *o, const struct vms_trace_report *a,
			    const struct vms_trace_report *b,
			    const struct vms_trace_diff *d, size_t max_sites,
			    unsigned max_frames)
{
	size_t i;

	ob_printf(o,
		  "Trace:       call sites compared: %zu added, %zu removed, "
		  "%zu changed, %zu the same\n",
		  d->added, d->removed, d->changed, d->same);
	ob_printf(o,
		  "             A: %.3f s to %.3f s, %" PRIu64
		  " calls; B: %.3f s to %.3f s, %" PRIu64 " calls\n",
		  (double)a->from_ns / 1e9, (double)a->to_ns / 1e9, a->events,
		  (double)b->from_ns / 1e9, (double)b->to_ns / 1e9, b->events);
	if (!d->n) {
		OB_LIT(o, "No call site changed.\n");
		return;
	}
	if (max_sites && d->n > max_sites)
		ob_printf(o, "The %zu call sites that changed most (B - A):\n",
			  max_sites);
	else
		OB_LIT(o, "Every call site that changed (B - A):\n");
	OB_LIT(o, "Change   Kind  Impacting  Outstanding    Count   Transient"
		  "    Count    Released    Count  Stack\n");
	for (i = 0; i < d->n && (!max_sites || i < max_sites); i++) {
		const struct vms_trace_change *c = &d->v[i];
		const struct vms_trace_site *s = c->b ? c->b : c->a;

		ob_pad(o, change_name(c), 9);
		delta_cell(o,
			   vms_trace_change_impacting(c->b) -
				   vms_trace_change_impacting(c->a),
			   10 - kind_cell(o, s->kind));
		delta_cell(o, d_bytes(c, VMS_TRACE_outstanding), 13);
		ob_printf(o, " %+8" PRId64, d_count(c, VMS_TRACE_outstanding));
		delta_cell(o, d_bytes(c, VMS_TRACE_transient), 12);
		ob_printf(o, " %+8" PRId64, d_count(c, VMS_TRACE_transient));
		delta_cell(o, d_bytes(c, VMS_TRACE_released), 12);
		ob_printf(o, " %+8" PRId64 "  ",
			  d_count(c, VMS_TRACE_released));
		stack_text(o, s, max_frames);
	}
}
