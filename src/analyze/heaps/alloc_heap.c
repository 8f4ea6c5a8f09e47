/* alloc_heap.c — marking and typing an allocator's regions, and reading
 * its file's symbols (alloc_heap.h). */
#include "analyze/heaps/alloc_heap.h"

#include <string.h>

#include "model/source.h"

void alloc_mark(struct alloc_marks *m, uint64_t a, uint64_t len, uint8_t how)
{
	const struct rtscan_run *run = rtscan_run_of(m->runs, m->nruns, a, 1);
	ptrdiff_t k = run ? vms_snapshot_find_index(m->s, a) : -1;
	size_t i;

	if (k < 0 || (size_t)k < run->first)
		return;
	/* from the region holding a: a heap of millions of spans marks
	 * each in the few regions it covers, not in its whole run */
	for (i = (size_t)k; i <= run->last; i++) {
		const struct vms_region *r = &m->s->regions[i];

		if (r->start >= a + len)
			break;
		if (a < r->end && m->mark[i] < how)
			m->mark[i] = how;
	}
}

int alloc_type(struct alloc_marks *m, struct vms_allocator *al,
	       const char *kind, const char *const *details,
	       struct vms_heap **out)
{
	struct vms_snapshot *s = m->s;
	struct vms_heap *nh, *h;
	size_t i, nseg = 0;

	*out = NULL;
	for (i = 0; i < s->nregions; i++)
		nseg += m->mark[i] != 0;
	if (!nseg)
		return 0;
	nh = arena_alloc(&s->arena, (s->nheaps + 1) * sizeof(*nh));
	if (!nh)
		return -1;
	if (s->nheaps)
		memcpy(nh, s->heaps, s->nheaps * sizeof(*nh));
	h = &nh[s->nheaps];
	memset(h, 0, sizeof(*h));
	h->kind = kind;
	h->in_use = h->free = h->chunks = h->free_chunks = h->top = h->mmapped =
		-1;
	h->segs = arena_alloc(&s->arena, nseg * sizeof(*h->segs));
	if (!h->segs)
		return -1;
	for (i = 0; i < s->nregions; i++) {
		struct vms_region *r = &s->regions[i];

		if (!m->mark[i])
			continue;
		r->type = VMS_T_HEAP;
		r->detail = details[m->mark[i] - 1];
		al->heap += vms_region_size(r);
		al->nregions++;
		if (h->nsegs && h->segs[h->nsegs - 1].end == r->start) {
			h->segs[h->nsegs - 1].end = r->end;
			continue;
		}
		h->segs[h->nsegs++] = (struct vms_heap_seg){ r->start, r->end };
	}
	h->id = h->segs[0].start;
	s->heaps = nh;
	s->nheaps++;
	*out = h;
	return 0;
}

bool alloc_image_symbol(struct vms_snapshot *s, const struct vms_image *im,
			const char *name, struct elfimage_sym *sym, int *fd,
			struct elfimage_src *src)
{
	struct vms_error e;

	*fd = -1;
	if (!im->elf || !im->elf->is_image)
		return false;
	*fd = vms_source_open_file(s, &s->regions[im->first_region]);
	return *fd >= 0 && elfimage_src_fd(*fd, src, &e) == 0 &&
	       elfimage_symbol(im->elf, src, name, sym);
}
