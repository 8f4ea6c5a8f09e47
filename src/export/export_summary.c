/* export_summary.c — the text summary (-s): the capture, then one row per
 * type with the summary's columns (columns.h), Total and Free.
 */
#include <stdio.h>
#include <string.h>

#include "base/outbuf.h"

#include "export/export.h"
#include "export/export_trace.h"
#include "export/export_util.h"
#include "model/columns.h"

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

/* A cell as printed: a count as it is, bytes as ob_size writes them
 * (units, or exact bytes with --bytes). */
static const char *cell(const struct outbuf *o, int i, uint64_t v, char *buf,
			size_t n)
{
	if (col(i)->flags & VMS_COLF_COUNT) {
		snprintf(buf, n, "%llu", (unsigned long long)v);
		return buf;
	}
	return ob_size_text(o, v, buf, n);
}

static void print_row(struct outbuf *o, const struct vms_snapshot *s,
		      const char *label, const struct vms_totals *t,
		      const int w[NCOLS], bool free_row, bool page_table)
{
	uint64_t v[NCOLS];
	char tmp[32];
	int i;

	row_values(t, v);
	ob_pad(o, label, 14);
	for (i = 0; i < NCOLS; i++) {
		ob_putc(o, ' ');
		if (free_row && !(col(i)->flags & VMS_COLF_FREE))
			ob_printf(o, "%*s", w[i], "");
		else if (!vms_row_known(s, t, NULL, vms_summary_columns[i],
					page_table))
			ob_printf(o, "%*s", w[i], "-");
		else
			ob_printf(o, "%*s", w[i],
				  cell(o, i, v[i], tmp, sizeof(tmp)));
	}
	/* no trailing blanks */
	while (o->len && o->buf[o->len - 1] == ' ')
		o->len--;
	ob_putc(o, '\n');
}

/* "Key:  " and a string from the target or a file, escaped, one line. */
static void line_str(struct outbuf *o, const char *key, const char *v)
{
	ob_puts(o, key);
	ob_text_str(o, v);
	ob_putc(o, '\n');
}

static void summary_header(const struct vms_snapshot *s, struct outbuf *o)
{
	char when[160];
	size_t i;

	ob_printf(o, "Process:     %d ", (int)s->proc.pid);
	line_str(o, "", s->proc.name ? s->proc.name : "?");
	if (s->proc.cmdline && *s->proc.cmdline)
		line_str(o, "Command:     ", s->proc.cmdline);
	if (s->proc.exe)
		line_str(o, "Executable:  ", s->proc.exe);
	ob_printf(o, "Sampler:     %s, ", s->cap.backend);
	if (s->cap.frozen && s->cap.freeze_counters &&
	    strcmp(s->cap.freeze_counters, "pagemap_scan") == 0)
		ob_printf(o,
			  "frozen %llu us (Rss and Swap read in it, the rest "
			  "just before: %llu regions approx)\n",
			  (unsigned long long)s->cap.frozen_us,
			  (unsigned long long)s->cap.approx_regions);
	else if (s->cap.frozen &&
		 !vms_capture_known(&s->cap, VMS_CAP_FROZEN_US))
		ob_puts(o, "frozen (for how long: not known)\n"); /* a core */
	else if (s->cap.frozen)
		ob_printf(o, "frozen %llu us\n",
			  (unsigned long long)s->cap.frozen_us);
	else
		ob_puts(o, "not frozen (figures read while it ran)\n");
	ob_printf(o, "Taken at:    %s   kernel ",
		  export_taken_at(s, when, sizeof(when)));
	ob_text_str(o, s->cap.kernel ? s->cap.kernel : "?");
	ob_printf(o, "   page size %llu\n",
		  (unsigned long long)s->cap.page_size);
	if (s->cap.partial)
		line_str(o, "Partial:     ", s->cap.partial);
	for (i = 0; i < s->nnotes; i++) {
		ob_printf(o, "Missing:     %s ", s->notes[i].step);
		line_str(o, "", s->notes[i].why);
	}
	ob_printf(o, "Kernel:      %s\n",
		  export_rollup_check(s, when, sizeof(when)));
}

/* glibc malloc's figures (step "malloc"), when walked: mallinfo2's. */
static void malloc_line(const struct vms_snapshot *s, struct outbuf *o)
{
	const struct vms_malloc *m = s->glibc;
	char a[32], b[32], c[32], d[32], e[32] = "not known";
	bool top_known = true;
	size_t i, n = 0;

	if (!m)
		return;
	for (i = 0; i < s->nheaps; i++) {
		n += s->heaps[i].glibc != NULL;
		/* keepcost is the main arena's top: 0 when it was not
		 * walked (locked, unreadable), which is no figure */
		if (s->heaps[i].kind &&
		    strcmp(s->heaps[i].kind, "glibc-main") == 0 &&
		    s->heaps[i].glibc &&
		    !vms_heap_glibc_walked(s->heaps[i].glibc))
			top_known = false;
	}
	if (m->empty) {
		ob_printf(o, "Malloc:      glibc %s: no heap yet\n",
			  m->version);
		return;
	}
	ob_printf(o,
		  "Malloc:      glibc %s (found by %s): %zu arena%s, %s from "
		  "the system, in use %s (tcache %s), free %s (top %s)",
		  m->version, m->found_by, n, n == 1 ? "" : "s",
		  ob_size_text(o, m->arena, a, sizeof(a)),
		  ob_size_text(o, m->uordblks, b, sizeof(b)),
		  ob_size_text(o, m->tcache, c, sizeof(c)),
		  ob_size_text(o, m->fordblks, d, sizeof(d)),
		  top_known ? ob_size_text(o, m->keepcost, e, sizeof(e)) : e);
	ob_printf(o, ", %llu mmapped chunk%s %s%s\n",
		  (unsigned long long)m->hblks, m->hblks == 1 ? "" : "s",
		  ob_size_text(o, m->hblkhd, a, sizeof(a)),
		  m->partial ? " (partial: see Missing)" : "");
}

/* The allocator behind malloc when it is not glibc's, or one beside it
 * (step "allocator"): what it is, its heap, and its own figures where
 * they were read. Its image and partial may come from a snapshot file:
 * escaped. */
static void allocator_line(const struct vms_snapshot *s, struct outbuf *o)
{
	const struct vms_allocator *al = s->allocator;
	struct vms_heap_sum t = vms_allocator_heaps(s);
	char a[32], b[32], c[32];

	if (!al)
		return;
	ob_puts(o, "Allocator:   ");
	ob_text_str(o, al->name);
	ob_puts(o, " (");
	ob_text_str(o, al->image ? al->image : "?");
	ob_printf(o, ") %s: heap %s in %llu region%s",
		  al->provides_malloc ? "provides malloc" : "beside glibc's",
		  ob_size_text(o, al->heap, a, sizeof(a)),
		  (unsigned long long)al->nregions,
		  al->nregions == 1 ? "" : "s");
	if (t.in_use >= 0)
		ob_printf(o, ", in use %s",
			  ob_size_text(o, (uint64_t)t.in_use, a, sizeof(a)));
	if (t.chunks >= 0)
		ob_printf(o, " in %llu blocks", (unsigned long long)t.chunks);
	if (t.free >= 0)
		ob_printf(o, ", free %s",
			  ob_size_text(o, (uint64_t)t.free, b, sizeof(b)));
	if (al->metadata >= 0)
		ob_printf(
			o, ", metadata %s",
			ob_size_text(o, (uint64_t)al->metadata, c, sizeof(c)));
	if (al->system >= 0)
		ob_printf(o, ", %s taken from the system (its count)",
			  ob_size_text(o, (uint64_t)al->system, a, sizeof(a)));
#define FIGURE(f, label)                                                       \
	if (al->f >= 0)                                                        \
		ob_printf(o, ", " #f " %s",                                    \
			  ob_size_text(o, (uint64_t)al->f, a, sizeof(a)));
	VMS_ALLOC_FIGURE_LIST(FIGURE)
#undef FIGURE
	if (al->partial) {
		ob_puts(o, " (partial: ");
		ob_text_str(o, al->partial);
		ob_putc(o, ')');
	}
	ob_putc(o, '\n');
}

/* One "Managed:" line per runtime (in the order first found): its heaps,
 * their bytes, and what the runtime says is in use where it says it: a
 * heap whose use is not known as a whole (a V8 isolate: new space's is
 * not) gives that of the parts whose use is known, against their
 * capacity. */
static void managed_line(const struct vms_snapshot *s, struct outbuf *o,
			 const char *rt)
{
	uint64_t reserved = 0, committed = 0, known_committed = 0;
	uint64_t used = 0;
	size_t i, k, n = 0, known = 0, parts = 0;
	const char *figures = NULL;
	char a[32], b[32], c[32], d[32];

	for (i = 0; i < s->nmanaged; i++) {
		const struct vms_managed *m = &s->managed[i];

		if (strcmp(m->runtime, rt) != 0)
			continue;
		n++;
		reserved += m->reserved;
		committed += m->committed;
		if (!figures)
			figures = m->figures;
		if (m->used >= 0) {
			known++;
			used += (uint64_t)m->used;
			known_committed += m->committed;
			continue;
		}
		for (k = 0; k < m->nparts; k++)
			if (m->parts[k].used >= 0 &&
			    m->parts[k].capacity >= 0) {
				parts++;
				used += (uint64_t)m->parts[k].used;
				known_committed +=
					(uint64_t)m->parts[k].capacity;
			}
	}
	ob_puts(o, "Managed:     ");
	ob_text_str(o, rt); /* a snapshot file's: escaped */
	ob_printf(o, ": %zu heap%s, reserved %s, committed %s", n,
		  n == 1 ? "" : "s", ob_size_text(o, reserved, a, sizeof(a)),
		  ob_size_text(o, committed, b, sizeof(b)));
	if (!known && !parts)
		ob_puts(o, ", used not known");
	else if (known == n)
		ob_printf(o, ", used %s", ob_size_text(o, used, c, sizeof(c)));
	else if (!parts)
		ob_printf(o,
			  ", used %s of the %s committed in the %zu whose "
			  "use is known",
			  ob_size_text(o, used, c, sizeof(c)),
			  ob_size_text(o, known_committed, d, sizeof(d)),
			  known);
	else {
		ob_printf(o, ", used %s of the %s in the ",
			  ob_size_text(o, used, c, sizeof(c)),
			  ob_size_text(o, known_committed, d, sizeof(d)));
		if (known)
			ob_printf(o, "%zu heap%s and ", known,
				  known == 1 ? "" : "s");
		ob_printf(o, "%zu part%s whose use is known", parts,
			  parts == 1 ? "" : "s");
	}
	if (figures) {
		ob_puts(o, " (figures: ");
		ob_text_str(o, figures);
		ob_putc(o, ')');
	} else if (!known && !parts) {
		ob_puts(o, " (the map's shape only)");
	}
	ob_putc(o, '\n');
}

static void managed_lines(const struct vms_snapshot *s, struct outbuf *o)
{
	size_t i, j;

	for (i = 0; i < s->nmanaged; i++) {
		const char *rt = s->managed[i].runtime;

		/* first of its runtime; a run of one runtime is the usual
		 * case, so look back only until another runtime's entry */
		for (j = i; j > 0; j--)
			if (strcmp(s->managed[j - 1].runtime, rt) == 0)
				break;
		if (j > 0)
			continue;
		managed_line(s, o, rt);
	}
}

void export_summary(const struct vms_snapshot *s, struct outbuf *o)
{
	int w[NCOLS], i, t;
	char tmp[32];

	summary_header(s, o);
	ob_putc(o, '\n');
	for (i = 0; i < NCOLS; i++) {
		uint64_t v[NCOLS];

		w[i] = (int)strlen(col(i)->name);
		for (t = 0; t <= VMS_NTYPES; t++) {
			int d;

			row_values(t < VMS_NTYPES ? &s->types[t] : &s->total,
				   v);
			d = (int)strlen(cell(o, i, v[i], tmp, sizeof(tmp)));
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
			print_row(o, s, vms_type_info[t].label, &s->types[t], w,
				  false, t == VMS_T_PAGE_TABLE);
	print_row(o, s, "Total", &s->total, w, false, false);
	print_row(o, s, "Free", &s->types[VMS_T_FREE], w, true, false);
	ob_putc(o, '\n');
	ob_printf(o, "Largest free block: %s\n",
		  ob_size_text(o, s->largest_free, tmp, sizeof(tmp)));
	malloc_line(s, o);
	allocator_line(s, o);
	managed_lines(s, o);
	ob_puts(o, o->exact ? "Sizes in bytes.\n"
			    : "Sizes in K (1024 bytes), M, G, T (each 1024 of "
			      "the one before); --bytes for exact bytes.\n");
	ob_puts(o, "Total is the sum over regions; the page table is "
		   "counted in its own row only.\n");
	if (s->cap.no_counters)
		ob_printf(o, "- : not known: %s.\n", vms_no_counters_why);
	if (s->trace) { /* taken while tracing: the call sites up to it */
		ob_putc(o, '\n');
		export_trace_end_text(o, s->trace);
		export_trace_text(o, s->trace, 8);
	}
}

const struct vms_exporter vms_export_summary = {
	.name = "summary",
	.help = "the text summary (what -s prints)",
	.write = export_summary,
	.write_diff = export_diff_summary,
};
