/* heaps_managed.c — the managed heaps of the heaps screen: their rows'
 * names and figures and their detail (heaps_managed.h). Reads only the
 * finished snapshot's s->managed. Names from the target (a JVM's part
 * names come from its hsperfdata) are drawn through put_str, escaped.
 */
#include "screens/heaps_managed.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/draw.h"

bool hm_open(const struct heapview *hv, size_t i)
{
	return i < hv->nmopen && hv->mopen[i];
}

void hm_row(const struct ui *u, const struct hrow *r, char *name, size_t n,
	    int64_t v[5])
{
	const struct vms_snapshot *s = u->snap;
	const struct vms_managed *m = &s->managed[r->heap];

	v[3] = v[4] = -1;
	if (r->kind == HR_PART) {
		const struct vms_managed_part *p = &m->parts[r->seg];

		snprintf(name, n, "%s%s", p->name,
			 p->in_heap ? "" : " (outside the heap)");
		v[0] = p->capacity;
		v[1] = p->used;
		v[2] = p->max;
		/* hsperfdata's figures in K, as jstat shows them: G1's empty
		 * survivor space has a capacity of 8 bytes there (jstat:
		 * 0.0), not a size to read; b shows the bytes as stored */
		if (!heaps_of(u)->bytes && m->figures &&
		    strstr(m->figures, "hsperfdata")) {
			int k;

			for (k = 0; k < 3; k++)
				if (v[k] > 0 && v[k] < 1024)
					v[k] = 0;
		}
		return;
	}
	/* "+" opens a heap with parts; one without has none to open */
	snprintf(name, n, "  %s %s 0x%llx%s%s",
		 !m->nparts			 ? " "
		 : hm_open(heaps_of(u), r->heap) ? "-"
						 : "+",
		 m->runtime, (unsigned long long)m->start,
		 m->detail ? "  " : "", m->detail ? m->detail : "");
	if (m->nparts) {
		size_t k = strlen(name);

		snprintf(name + k, n - k, ", %u part%s", m->nparts,
			 m->nparts == 1 ? "" : "s");
	}
	v[0] = (int64_t)m->committed;
	v[1] = m->used;
	v[2] = (int64_t)m->reserved;
}

static const char *fig(const struct ui *u, int64_t v, char *buf, size_t n)
{
	struct heapview *hv = heaps_of(u);

	if (v < 0)
		return "-";
	if (!hv->bytes)
		return fmt_size((uint64_t)v, buf, n);
	snprintf(buf, n, "%lld", (long long)v);
	return buf;
}

/* A line of the detail at y, wrapped (not cut at 80 columns) into the
 * lines left before ymax; returns the lines it took. */
__attribute__((format(printf, 4, 5))) static int detail_line(int y, int ymax,
							     attr_t a,
							     const char *fmt,
							     ...)
{
	char buf[1024];
	va_list ap;

	if (y >= ymax)
		return 0;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return put_wrapped(y, 1, COLS - 2, ymax - y, a, buf);
}

void hm_detail(struct ui *u, int y, int ymax, const struct hrow *r)
{
	const struct vms_managed *m = &u->snap->managed[r->heap];
	char b[3][24];

	y += detail_line(y, ymax, theme_attr(EL_TITLE),
			 "%s managed heap 0x%llx-0x%llx%s%s", m->runtime,
			 (unsigned long long)m->start,
			 (unsigned long long)m->end, m->detail ? "  " : "",
			 m->detail ? m->detail : "");
	y += detail_line(y, ymax, theme_attr(EL_NORMAL),
			 "Reserved %s  Committed %s  Used %s  figures: %s",
			 fig(u, (int64_t)m->reserved, b[0], 24),
			 fig(u, (int64_t)m->committed, b[1], 24),
			 fig(u, m->used, b[2], 24),
			 m->figures
				 ? m->figures
				 : "none from the runtime (the map's shape)");
	if (r->kind == HR_PART) {
		const struct vms_managed_part *p = &m->parts[r->seg];

		detail_line(y, ymax, theme_attr(EL_NORMAL),
			    "Part %s: Capacity %s  Used %s  Max %s  (%s)",
			    p->name, fig(u, p->capacity, b[0], 24),
			    fig(u, p->used, b[1], 24), fig(u, p->max, b[2], 24),
			    p->in_heap ? "inside the heap's range"
				       : "outside the heap's range");
	} else if (m->nparts) {
		detail_line(y, ymax, theme_attr(EL_DIM), "%s",
			    "Right opens it into its parts, as the runtime "
			    "counts them");
	}
}

ptrdiff_t hm_find(const struct vms_snapshot *s, uint64_t addr)
{
	const struct vms_region *r = vms_snapshot_find(s, addr);
	size_t i;

	for (i = 0; i < s->nmanaged; i++) {
		const struct vms_managed *m = &s->managed[i];

		/* a heap whose regions lie apart (a V8 isolate) holds only
		 * the managed heap regions of its range */
		if (m->reserved < m->end - m->start &&
		    (!r || r->type != VMS_T_MANAGED_HEAP))
			continue;
		if (addr >= m->start && addr < m->end)
			return (ptrdiff_t)i;
	}
	return -1;
}
