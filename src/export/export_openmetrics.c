/* export_openmetrics.c — -e openmetrics: the per-type figures as gauges in
 * the OpenMetrics text format, for node_exporter's textfile collector and
 * any scraper (docs/json.md, "OpenMetrics": the cron line).
 *
 * One metric family per column of the summary rows (vms_columns[] with
 * VMS_COLF_TYPE): vmscope_KEY_bytes, or vmscope_KEY for a count, one sample
 * per type, labelled {pid, comm, type} (type as in JSON). Then the largest
 * free block, the capture's duration, how long the target was frozen and
 * when the capture was taken, labelled {pid, comm}. Ends with "# EOF".
 *
 * OpenMetrics has no null: a figure vmscope cannot know (columns.h,
 * vms_row_known: a core's Rss, its page table; a capture's duration it
 * was not told) is no sample, never 0, and a family with no sample is
 * left out, as the heap families are where no heap was walked.
 *
 * Label values: the command name came from the target. It is first made
 * printable as everywhere else (escape.h: "\x1b" for ESC...), then escaped
 * as OpenMetrics wants (\\, \", \n), so that a scraper reads the same
 * visible text the summary shows, and no control byte reaches the file.
 *
 * export_openmetrics_all (export_openmetrics.h): the same families over
 * many processes in one exposition (vmscope --all), each family's samples
 * together as the format wants.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "export/export.h"
#include "export/export_openmetrics.h"
#include "model/columns.h"

/* One unit of s (escape.h: a character, or a byte made printable) as a
 * label value holds it (\\ and \" escaped) into dst: its bytes (at most
 * 2 ESCAPE_UNIT_MAX), 0 at the end of s; s moved past it. */
static size_t label_unit(char *dst, const char **s)
{
	char unit[ESCAPE_UNIT_MAX];
	size_t took, len, i, w = 0;
	int32_t cp;

	if (!*s || !(took = escape_unit(*s, unit, &len, &cp)))
		return 0;
	for (i = 0; i < len; i++) {
		if (unit[i] == '\\' || unit[i] == '"')
			dst[w++] = '\\';
		dst[w++] = unit[i];
	}
	*s += took;
	return w;
}

static void label_value(struct outbuf *o, const char *s)
{
	char unit[2 * ESCAPE_UNIT_MAX];
	size_t n;

	ob_putc(o, '"');
	while ((n = label_unit(unit, &s)) != 0)
		ob_write(o, unit, n);
	ob_putc(o, '"');
}

/* "# TYPE name gauge", "# UNIT", "# HELP" for one family. */
static void family(struct outbuf *o, const char *name, const char *unit,
		   const char *help)
{
	ob_printf(o, "# TYPE %s gauge\n", name);
	if (unit)
		ob_printf(o, "# UNIT %s %s\n", name, unit);
	ob_printf(o, "# HELP %s %s\n", name, help);
}

/* Room for a row's labels before its key (row_prefix). */
#define PREFIX_MAX                                                             \
	(32 + 2 * ESCAPE_UNIT_MAX *                                            \
		      (sizeof(((struct om_proc *)0)->comm) +                   \
		       sizeof(((struct om_proc *)0)->unit)))

/* A quoted label value of s (shorter than a row's unit) into dst. */
static size_t quoted(char *dst, const char *s)
{
	size_t w = 0, n;

	dst[w++] = '"';
	while ((n = label_unit(dst + w, &s)) != 0)
		w += n;
	dst[w++] = '"';
	return w;
}

/* "{pid=..,comm=..[,unit=..]" of one row into dst (PREFIX_MAX bytes): pid
 * "other" for the processes of a comm summed (--top); the unit in --all's
 * rows only. Its length. */
static size_t row_prefix(char *dst, const struct om_proc *p, bool unit)
{
	size_t w = 0;

	w += (size_t)(p->pid > 0 ? sprintf(dst, "{pid=\"%d\"", (int)p->pid)
				 : sprintf(dst, "{pid=\"other\""));
	memcpy(dst + w, ",comm=", 6);
	w += 6 + quoted(dst + w + 6, p->comm);
	if (unit) {
		memcpy(dst + w, ",unit=", 6);
		w += 6 + quoted(dst + w + 6, p->unit);
	}
	return w;
}

/* Each row's prefix made once (a row's labels are written some 110
 * times: every column and type); NULL when memory runs out (then
 * made at each line). */
static char **row_prefixes(const struct om_proc *p, size_t n, bool unit)
{
	char buf[PREFIX_MAX], **v = calloc(n ? n : 1, sizeof(*v));
	size_t i, len;

	for (i = 0; v && i < n; i++) {
		len = row_prefix(buf, &p[i], unit);
		if (!(v[i] = malloc(len + 1))) {
			while (i > 0)
				free(v[--i]);
			free(v);
			return NULL;
		}
		memcpy(v[i], buf, len);
		v[i][len] = '\0';
	}
	return v;
}

static void free_prefixes(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* The labels of row p (pre: its prefix made, or NULL), and key=val when
 * key is not NULL. */
static void all_labels(struct outbuf *o, const struct om_proc *p,
		       const char *pre, bool unit, const char *key,
		       const char *val)
{
	char buf[PREFIX_MAX];

	if (pre)
		ob_puts(o, pre);
	else
		ob_write(o, buf, row_prefix(buf, p, unit));
	if (key) {
		ob_putc(o, ',');
		ob_puts(o, key);
		ob_putc(o, '=');
		label_value(o, val);
	}
	ob_putc(o, '}');
}

/* A sum of figures any of which may be unknown (< 0): unknown then. */
static int64_t add_known(int64_t sum, int64_t v)
{
	return sum < 0 || v < 0 ? -1 : sum + v;
}

/* Adds a and b to the kind name[0, len) of k: a sum with one figure
 * unknown is unknown (no sample), not the sum of the others (a glibc
 * arena locked at the snapshot, a process of a pid="other" row whose heap
 * was not walked): as a summed row knows only what each of its processes
 * knows. */
static void kind_add(struct om_kind *k, const char *name, size_t len, int64_t a,
		     int64_t b)
{
	size_t i;

	for (i = 0; i < OM_KINDS && k[i].name[0]; i++)
		if (strncmp(k[i].name, name, len) == 0 && !k[i].name[len])
			break;
	if (i == OM_KINDS)
		return; /* more kinds than kept: the first OM_KINDS */
	if (!k[i].name[0]) {
		snprintf(k[i].name, sizeof(k[i].name), "%.*s", (int)len, name);
		k[i].a = k[i].b = 0;
	}
	k[i].a = add_known(k[i].a, a);
	k[i].b = add_known(k[i].b, b);
}

void om_kinds_add(struct om_kind *to, const struct om_kind *from)
{
	size_t k;

	for (k = 0; k < OM_KINDS && from[k].name[0]; k++)
		kind_add(to, from[k].name, strlen(from[k].name), from[k].a,
			 from[k].b);
}

void om_proc_kinds(struct om_proc *p, const struct vms_snapshot *s)
{
	size_t i;

	for (i = 0; i < s->nheaps; i++) {
		const struct vms_heap *h = &s->heaps[i];
		const char *kind = h->kind ? h->kind : "";
		/* glibc's arenas: mallinfo2's figures are exact only where
		 * the walk left nothing partial (glibc_walk.h): an arena
		 * locked or damaged, an arena list cut short */
		bool whole = !vms_heap_is_glibc(h) ||
			     (s->glibc && !s->glibc->partial && h->glibc &&
			      !h->glibc->busy && !h->glibc->partial);

		kind_add(p->heap, kind, strcspn(kind, "-"),
			 whole ? h->in_use : -1, whole ? h->free : -1);
	}
	for (i = 0; i < s->nmanaged; i++) {
		const char *rt =
			s->managed[i].runtime ? s->managed[i].runtime : "";

		kind_add(p->managed, rt, strlen(rt),
			 (int64_t)s->managed[i].committed, s->managed[i].used);
	}
}

/* One family over every process's kinds: figure a (second: b) of each;
 * none when no process has a figure of it (the heaps are walked only
 * where the capture had memory of one instant: not by --all's sampler). */
static void kind_family(struct outbuf *o, const struct om_proc *p, size_t n,
			char **pre, bool unit, bool managed, bool second,
			const char *name, const char *label, const char *help)
{
	size_t i, k, any = 0;

	for (i = 0; i < n; i++)
		for (k = 0; k < OM_KINDS; k++)
			any += ((managed ? p[i].managed : p[i].heap)[k].a >=
					0 ||
				(managed ? p[i].managed : p[i].heap)[k].b >=
					0) &&
			       (managed ? p[i].managed : p[i].heap)[k].name[0];
	if (!any)
		return; /* no sample: no family (no walk, no runtime) */
	family(o, name, "bytes", help);
	for (i = 0; i < n; i++) {
		const struct om_kind *v = managed ? p[i].managed : p[i].heap;

		for (k = 0; k < OM_KINDS && v[k].name[0]; k++) {
			int64_t x = second ? v[k].b : v[k].a;

			if (x < 0)
				continue;
			ob_puts(o, name);
			all_labels(o, &p[i], pre ? pre[i] : NULL, unit, label,
				   v[k].name);
			ob_putc(o, ' ');
			ob_u64(o, (uint64_t)x);
			ob_putc(o, '\n');
		}
	}
}

void om_proc_of(struct om_proc *p, const struct vms_snapshot *s,
		const char *unit)
{
	int t;

	memset(p, 0, sizeof(*p));
	p->pid = s->proc.pid;
	p->nproc = 1;
	snprintf(p->comm, sizeof(p->comm), "%s",
		 s->proc.name ? s->proc.name : "");
	snprintf(p->unit, sizeof(p->unit), "%s", unit ? unit : "");
	memcpy(p->types, s->types, sizeof(p->types));
	for (t = 0; t < VMS_NTYPES; t++)
		p->known[t] = vms_row_known_mask(s, &s->types[t], NULL,
						 t == VMS_T_PAGE_TABLE);
	p->pss = s->total.pss;
	p->largest_free = s->largest_free;
	om_proc_kinds(p, s);
}

/* Whether any row of p[0, n) knows column c of a type: its family has a
 * sample. */
static bool any_known(const struct om_proc *p, size_t n, enum vms_col c)
{
	size_t i, t;

	for (i = 0; i < n; i++)
		for (t = 0; t < VMS_NTYPES; t++)
			if (vms_mask_has(p[i].known[t], c))
				return true;
	return false;
}

/* The families of the rows p[0, n), each family's samples together: one
 * column of the summary rows per family (a sample per row and type), the
 * largest free block, the summed rows' counts (--top), the heaps' and the
 * managed heaps' figures. unit: the rows are --all's ({pid, comm,
 * unit}); else one process's ({pid, comm}). */
static void write_rows(struct outbuf *o, const struct om_proc *p, size_t n,
		       bool unit)
{
	/* each row's labels and each type's label made once, not at each
	 * of some 110 lines a row (the types' names are ours: plain) */
	char **pre = row_prefixes(p, n, unit), name[64];
	char type[VMS_NTYPES][48];
	size_t c, t, i;
	bool any;

	for (t = 0; t < VMS_NTYPES; t++)
		snprintf(type[t], sizeof(type[t]), ",type=\"%s\"} ",
			 vms_type_info[t].json);
	for (c = 0; c < VMS_NCOLS; c++) {
		const struct vms_column *col = &vms_columns[c];
		bool count = vms_column_has((enum vms_col)c, VMS_COLF_COUNT);

		if (!vms_column_has((enum vms_col)c, VMS_COLF_TYPE) ||
		    !any_known(p, n, (enum vms_col)c))
			continue;
		snprintf(name, sizeof(name), "vmscope_%s%s", col->key,
			 count ? "" : "_bytes");
		/* The meanings are ours: plain text, no escaping needed. */
		family(o, name, count ? NULL : "bytes", col->meaning);
		for (i = 0; i < n; i++)
			for (t = 0; t < VMS_NTYPES; t++) {
				if (!vms_mask_has(p[i].known[t],
						  (enum vms_col)c))
					continue; /* not known: no sample */
				ob_puts(o, name);
				if (pre) {
					ob_puts(o, pre[i]);
					ob_puts(o, type[t]);
				} else {
					all_labels(o, &p[i], NULL, unit, "type",
						   vms_type_info[t].json);
					ob_putc(o, ' ');
				}
				ob_u64(o, vms_column_type(&p[i].types[t],
							  (enum vms_col)c));
				ob_putc(o, '\n');
			}
	}
	family(o, "vmscope_largest_free_bytes", "bytes",
	       "the largest free block of the user address space");
	for (i = 0; i < n; i++) {
		if (p[i].pid <= 0)
			continue;
		ob_puts(o, "vmscope_largest_free_bytes");
		all_labels(o, &p[i], pre ? pre[i] : NULL, unit, NULL, NULL);
		ob_putc(o, ' ');
		ob_u64(o, p[i].largest_free);
		ob_putc(o, '\n');
	}
	for (i = 0, any = false; i < n; i++)
		any |= p[i].pid <= 0;
	if (any) {
		family(o, "vmscope_summed_processes", NULL,
		       "processes beyond --top summed into the pid=other rows "
		       "of their comm");
		for (i = 0; i < n; i++) {
			if (p[i].pid > 0)
				continue;
			ob_puts(o, "vmscope_summed_processes");
			all_labels(o, &p[i], pre ? pre[i] : NULL, unit, NULL,
				   NULL);
			ob_putc(o, ' ');
			ob_u64(o, p[i].nproc);
			ob_putc(o, '\n');
		}
	}
	kind_family(o, p, n, pre, unit, false, false,
		    "vmscope_heap_in_use_bytes", "allocator",
		    "bytes in use in the process's heaps of an allocator "
		    "(malloc's arenas and the like), as the heap walk found");
	kind_family(o, p, n, pre, unit, false, true, "vmscope_heap_free_bytes",
		    "allocator",
		    "free bytes in the process's heaps of an allocator");
	kind_family(o, p, n, pre, unit, true, false,
		    "vmscope_managed_committed_bytes", "runtime",
		    "committed bytes of the process's managed heaps of a "
		    "runtime (JVM, Go, V8, CPython ...)");
	kind_family(o, p, n, pre, unit, true, true,
		    "vmscope_managed_used_bytes", "runtime",
		    "bytes in use in the process's managed heaps of a runtime, "
		    "by its own count");
	free_prefixes(pre, n);
}

/* A family of one sample of one process ({pid, comm}). */
static void one(struct outbuf *o, const struct om_proc *p, const char *name,
		const char *unit, const char *help, const char *value)
{
	family(o, name, unit, help);
	ob_puts(o, name);
	all_labels(o, p, NULL, false, NULL, NULL);
	ob_printf(o, " %s\n", value);
}

static void export_openmetrics(const struct vms_snapshot *s, struct outbuf *o)
{
	struct om_proc row, *p = &row;
	char v[48];

	om_proc_of(p, s, NULL);
	write_rows(o, p, 1, false);
	/* not known (a core's; the duration of a file saved before 0.2.0):
	 * no family */
	snprintf(v, sizeof(v), "%.6f", (double)s->cap.duration_us / 1e6);
	if (vms_capture_known(&s->cap, VMS_CAP_DURATION_US))
		one(o, p, "vmscope_capture_duration_seconds", "seconds",
		    "how long the capture took, every step included", v);
	snprintf(v, sizeof(v), "%.6f", (double)s->cap.frozen_us / 1e6);
	if (vms_capture_known(&s->cap, VMS_CAP_FROZEN_US))
		one(o, p, "vmscope_frozen_seconds", "seconds",
		    "how long the target was stopped for the capture (0: "
		    "never)",
		    v);
	snprintf(v, sizeof(v), "%lld.%09ld", (long long)s->cap.taken_at_sec,
		 s->cap.taken_at_nsec);
	one(o, p, "vmscope_capture_timestamp_seconds", "seconds",
	    "when the capture was taken, seconds since the Unix epoch", v);
	ob_puts(o, "# EOF\n");
}

void export_openmetrics_all(const struct om_proc *p, size_t n,
			    const struct om_unread *u, size_t nu,
			    struct outbuf *o)
{
	size_t i;

	write_rows(o, p, n, true);
	family(o, "vmscope_unread_processes", NULL,
	       "processes vmscope was asked for and could not read, by "
	       "reason");
	for (i = 0; i < nu; i++)
		ob_printf(o, "vmscope_unread_processes{reason=\"%s\"} %lu\n",
			  u[i].reason, u[i].n);
	ob_puts(o, "# EOF\n");
}

const struct vms_exporter vms_export_openmetrics = {
	.name = "openmetrics",
	.help = "per-type gauges in the OpenMetrics text format (a "
		"node_exporter textfile)",
	.listed = true,
	.write = export_openmetrics,
};
