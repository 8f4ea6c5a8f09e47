/* heaps_alloc.c — the other allocator on the heaps screen (heaps_alloc.h).
 * Reads only the finished snapshot's s->allocator and s->heaps. The
 * allocator's image path and its notes come from the target or a file:
 * drawn through put_str / put_fmt, which escape.
 */
#include "screens/heaps_alloc.h"

#include <stdio.h>
#include <string.h>

#include "analyze/heaps/allocators.h"
#include "core/draw.h"
#include "screens/heaps_glibc.h"

static uint64_t seg_bytes(const struct vms_heap *h)
{
	uint64_t b = 0;
	uint32_t g;

	for (g = 0; g < h->nsegs; g++)
		b += h->segs[g].end - h->segs[g].start;
	return b;
}

static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path ? path : "?";
}

void ha_row(const struct ui *u, const struct hrow *r, char *name, size_t n,
	    int64_t v[5])
{
	const struct vms_snapshot *s = u->snap;
	const struct vms_allocator *al = s->allocator;
	const struct heapview *hv = heaps_of(u);
	struct vms_heap_sum t;

	v[3] = -1;
	if (r->kind == HR_ARENA) {
		const struct vms_heap *h = &s->heaps[r->heap];

		snprintf(name, n, "  %s %s heap 0x%llx, %u range%s",
			 r->heap < hv->nopen && hv->open[r->heap] ? "-" : "+",
			 h->kind, (unsigned long long)h->id, h->nsegs,
			 h->nsegs == 1 ? "" : "s");
		v[0] = (int64_t)seg_bytes(h);
		v[1] = h->in_use;
		v[2] = h->free;
		v[4] = h->chunks;
		return;
	}
	t = vms_allocator_heaps(s);
	v[0] = al->system;
	v[1] = t.in_use;
	v[2] = t.free;
	v[4] = t.chunks;
	snprintf(name, n, "%s %s (%s), %zu heap%s%s", hv->aclosed ? "+" : "-",
		 al->name, base_name(al->image), t.n, t.n == 1 ? "" : "s",
		 al->partial ? " (partial)" : "");
}

/* Where the figures of the allocator's heaps come from: its row's words
 * (a name this vmscope does not know, from a file: none). */
static const char *how_found(const char *name)
{
	const struct alloc_kind *k = alloc_kind_find(name);

	return k ? k->how : "";
}

void ha_detail(struct ui *u, int y, int ymax, const struct hrow *r)
{
	const struct vms_snapshot *s = u->snap;
	const struct vms_allocator *al = s->allocator;
	char b[4][24];

	if (!al || y >= ymax)
		return;
	put_fmt(y++, 1, COLS - 1, theme_attr(EL_TITLE), "%s  %s", al->name,
		al->image ? al->image : "?");
	if (y < ymax)
		put_fmt(y++, 1, COLS - 1, theme_attr(EL_NORMAL),
			"%s malloc (found by %s)",
			al->provides_malloc ? "provides" : "beside glibc's",
			al->found_by ? al->found_by : "?");
	{
		char regs[24];
		const char *kv[] = {
			"Heap",
			hg_figure(u, al->heap, b[0], sizeof(b[0])),
			"Regions",
			(snprintf(regs, sizeof(regs), "%llu",
				  (unsigned long long)al->nregions),
			 regs),
			"Metadata",
			al->metadata < 0 ? "-"
					 : hg_figure(u, (uint64_t)al->metadata,
						     b[1], sizeof(b[1])),
			"Taken from the system (its count)",
			al->system < 0 ? "-"
				       : hg_figure(u, (uint64_t)al->system,
						   b[2], sizeof(b[2])),
		};

		y = hg_pairs(y, ymax, kv, sizeof(kv) / sizeof(kv[0]));
	}
	{
		/* its own figures (VMS_ALLOC_FIGURES), where it gives them */
#define COUNT(f, label) +1
		enum { NFIG = 0 VMS_ALLOC_FIGURE_LIST(COUNT) };
#undef COUNT
		char fb[NFIG][24];
		const char *kv[2 * NFIG];
		size_t n = 0;

#define FIGURE(f, label)                                                       \
	if (al->f >= 0) {                                                      \
		kv[n] = label;                                                 \
		kv[n + 1] = hg_figure(u, (uint64_t)al->f, fb[n / 2],           \
				      sizeof(fb[n / 2]));                      \
		n += 2;                                                        \
	}
		VMS_ALLOC_FIGURE_LIST(FIGURE)
#undef FIGURE
		if (n)
			y = hg_pairs(y, ymax, kv, n);
	}
	if (al->figures_note && y < ymax)
		put_str(y++, 1, COLS - 1, theme_attr(EL_DIM), al->figures_note,
			1);
	if (r->kind != HR_ATOP && y < ymax) {
		const struct vms_heap *h = &s->heaps[r->heap];

		put_fmt(y++, 1, COLS - 1, theme_attr(EL_LABEL),
			"%s heap 0x%llx: %s in %u address range%s", h->kind,
			(unsigned long long)h->id,
			hg_figure(u, seg_bytes(h), b[3], sizeof(b[3])),
			h->nsegs, h->nsegs == 1 ? "" : "s");
	}
	if (y < ymax)
		put_str(y++, 1, COLS - 1, theme_attr(EL_DIM),
			how_found(al->name), 1);
	if (al->partial && y < ymax)
		put_fmt(y, 1, COLS - 1, theme_attr(EL_ERROR), "partial: %s",
			al->partial);
}
