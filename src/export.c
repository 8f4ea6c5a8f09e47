#include "export.h"

#include "totals.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int export_format_parse(const char *name)
{
	if (strcmp(name, "text") == 0)
		return EXPORT_TEXT;
	if (strcmp(name, "csv") == 0)
		return EXPORT_CSV;
	if (strcmp(name, "json") == 0)
		return EXPORT_JSON;
	return -1;
}

void export_write(const struct vms_snapshot *s, enum export_format f,
		  struct outbuf *o)
{
	switch (f) {
	case EXPORT_SUMMARY:
		export_summary(s, o);
		break;
	case EXPORT_TEXT:
		export_text(s, o);
		break;
	case EXPORT_CSV:
		export_csv(s, o);
		break;
	case EXPORT_JSON:
		export_json(s, o);
		break;
	}
}

const char *export_perms(const struct vms_region *r, char *buf)
{
	buf[0] = r->perms & VMS_PERM_R ? 'r' : '-';
	buf[1] = r->perms & VMS_PERM_W ? 'w' : '-';
	buf[2] = r->perms & VMS_PERM_X ? 'x' : '-';
	buf[3] = r->perms & VMS_PERM_SHARED ? 's' : 'p';
	buf[4] = '\0';
	return buf;
}

size_t export_state_words(const struct vms_region *r, const char **w,
			  size_t max)
{
	static const struct {
		uint16_t bit;
		const char *word;
	} tab[] = {
		{ VMS_RF_DELETED, "deleted" },
		{ VMS_RF_RESERVED, "reserved" },
		{ VMS_RF_NO_COUNTERS, "partial" },
		{ VMS_RF_UNREADABLE, "unreadable" },
		{ VMS_RF_IMAGE_UNOPENED, "image_unopened" },
		{ VMS_RF_GUARD, "guard" },
	};
	size_t i, n = 0;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]) && n < max; i++)
		if (r->flags & tab[i].bit)
			w[n++] = tab[i].word;
	return n;
}

const char *export_taken_at(const struct vms_snapshot *s, char *buf, size_t n)
{
	time_t t = (time_t)s->cap.taken_at_sec;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, n, "unknown");
	return buf;
}

const char *export_rollup_check(const struct vms_snapshot *s, char *buf,
				size_t n)
{
	char why[120];
	int r = totals_check_rollup(s, why, sizeof(why));

	if (r < 0)
		snprintf(buf, n, "smaps_rollup not read");
	else if (r > 0)
		snprintf(buf, n, "the regions add up to smaps_rollup");
	else
		snprintf(buf, n, "differs from smaps_rollup (%s): the process "
			 "changed while it was read%s", why,
			 s->cap.frozen ? "" : "; --freeze reads it still");
	return buf;
}

/* ---- the summary table ---- */

enum { NCOLS = VMS_NCOLUMNS };

static void row_values(const struct vms_totals *t, uint64_t v[NCOLS])
{
	int i;

	for (i = 0; i < NCOLS; i++)
		v[i] = vms_column_value(t, i);
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
		if (free_row && !vms_columns[i].free_too) {
			ob_printf(o, "%*s", w[i], "");
			continue;
		}
		if (vms_columns[i].count) {
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

		w[i] = (int)strlen(vms_columns[i].label);
		for (t = 0; t <= VMS_NTYPES; t++) {
			int d;

			row_values(t < VMS_NTYPES ? &s->types[t] : &s->total,
				   v);
			d = vms_columns[i].count ? digits(v[i])
						 : digits(v[i] >> 10) + 2;
			if (d > w[i])
				w[i] = d;
		}
	}
	ob_pad(o, "Type", 14);
	for (i = 0; i < NCOLS; i++)
		ob_printf(o, " %*s", w[i], vms_columns[i].label);
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

/* ---- full text ---- */

void export_text(const struct vms_snapshot *s, struct outbuf *o)
{
	size_t i, j;

	export_summary(s, o);
	ob_puts(o, "\nRegions (sizes in K)\n");
	ob_printf(o, "%-33s %-13s %10s %10s %10s %10s %10s %10s %-4s  %s\n",
		  "Address", "Type", "Size", "Committed", "WS", "Private WS",
		  "PSS", "Swap", "Prot", "Details");
	for (i = 0; i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];
		const char *w[8];
		size_t nw = export_state_words(r, w, 8);
		char perms[5];

		ob_printf(o, "%016llx-%016llx %-13s",
			  (unsigned long long)r->start,
			  (unsigned long long)r->end,
			  vms_type_info[r->type].label);
		ob_kb(o, vms_region_size(r), 11);
		ob_kb(o, r->committed, 11);
		ob_kb(o, r->c.rss, 11);
		ob_kb(o, r->private_ws, 11);
		ob_kb(o, r->c.pss, 11);
		ob_kb(o, r->c.swap, 11);
		ob_printf(o, " %-4s  %s", export_perms(r, perms),
			  r->detail ? r->detail : "");
		for (j = 0; j < nw; j++)
			ob_printf(o, "%s%s%s", j ? ", " : " [", w[j],
				  j + 1 == nw ? "]" : "");
		ob_putc(o, '\n');
		for (j = 0; j < r->nchildren; j++) {
			const struct vms_child *c = &r->children[j];

			ob_printf(o, "  %016llx-%016llx %-11s",
				  (unsigned long long)c->start,
				  (unsigned long long)c->end, c->name);
			ob_kb(o, c->end - c->start, 11);
			ob_putc(o, '\n');
		}
	}
	ob_puts(o, "\nThreads\n");
	ob_printf(o, "%8s  %-16s %-18s %s\n", "TID", "Name", "SP", "Stack");
	for (i = 0; i < s->nthreads; i++) {
		const struct vms_thread *t = &s->threads[i];

		ob_printf(o, "%8d  %-16s 0x%016llx ", (int)t->tid,
			  t->name ? t->name : "?", (unsigned long long)t->sp);
		if (t->stack_end)
			ob_printf(o, "%016llx-%016llx\n",
				  (unsigned long long)t->stack_start,
				  (unsigned long long)t->stack_end);
		else
			ob_puts(o, "unknown\n");
	}
}

/* ---- CSV ---- */

static void csv_u64s(struct outbuf *o, const uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		ob_putc(o, ',');
		ob_u64(o, v[i]);
	}
}

static void csv_totals(struct outbuf *o, const char *record, const char *type,
		       const struct vms_totals *t)
{
	uint64_t v[] = { t->size,	  t->committed, t->private_bytes,
			 t->ws,		  t->private_ws, t->shareable_ws,
			 t->shared_ws,	  t->locked_ws, t->pss,
			 t->uss,	  t->swap };

	ob_puts(o, record);
	ob_putc(o, ',');
	ob_puts(o, type);
	ob_puts(o, ",,,,,,,,,");
	csv_u64s(o, v, sizeof(v) / sizeof(v[0]));
	ob_puts(o, ",,");
	ob_u64(o, t->blocks);
	ob_putc(o, ',');
	ob_u64(o, t->largest);
	ob_puts(o, ",,\n");
}

void export_csv(const struct vms_snapshot *s, struct outbuf *o)
{
	size_t i, j;
	int t;

	ob_puts(o, "record,type,name,start,end,perms,offset,dev,inode,path,"
		   "detail,size,committed,private,ws,private_ws,shareable_ws,"
		   "shared_ws,locked_ws,pss,uss,swap,swap_pss,blocks,largest,"
		   "vmflags,state\n");
	for (t = 0; t < VMS_NTYPES; t++)
		csv_totals(o, "type", vms_type_info[t].json, &s->types[t]);
	csv_totals(o, "total", "", &s->total);
	for (i = 0; i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];
		const char *w[8];
		size_t nw = export_state_words(r, w, 8);
		uint64_t shareable = r->c.rss - (r->private_ws < r->c.rss
							 ? r->private_ws
							 : r->c.rss);
		uint64_t v[] = { vms_region_size(r),
				 r->committed,
				 r->private_bytes,
				 r->c.rss,
				 r->private_ws,
				 shareable,
				 r->c.shared_clean + r->c.shared_dirty,
				 r->c.locked,
				 r->c.pss,
				 r->c.private_clean + r->c.private_dirty,
				 r->c.swap,
				 r->c.swap_pss };
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
		csv_u64s(o, v, sizeof(v) / sizeof(v[0]));
		ob_puts(o, ",,,");
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

			ob_puts(o, "child,");
			ob_puts(o, vms_type_info[r->type].json);
			ob_putc(o, ',');
			ob_csv_str(o, c->name);
			ob_putc(o, ',');
			ob_hex(o, c->start);
			ob_putc(o, ',');
			ob_hex(o, c->end);
			ob_puts(o, ",,,,,,,");
			ob_u64(o, c->end - c->start);
			ob_puts(o, ",,,,,,,,,,,,,,,\n"); /* committed..state */
		}
	}
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
		ob_puts(o, ",,,,,,,,,,,,,,,,\n");
	}
}
