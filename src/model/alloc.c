/* alloc.c — regions grouped into allocations. See alloc.h. */
#include "model/alloc.h"

#include "base/bigmem.h"

#include <stdlib.h>
#include <string.h>

static bool same_file(const struct vms_region *a, const struct vms_region *b)
{
	return a->path && b->path && a->end == b->start &&
	       a->inode == b->inode && strcmp(a->path, b->path) == 0;
}

/* How many regions from i make one allocation, and its kind. */
static uint32_t run_at(const struct vms_snapshot *s, size_t i,
		       const struct vms_image **img, uint8_t *kind,
		       uint32_t *main)
{
	const struct vms_region *r = &s->regions[i];
	size_t h, k;

	*main = (uint32_t)i;
	/* the images step's loads, in address order */
	while (*img < s->images + s->nimages && (*img)->first_region < i)
		(*img)++;
	if (*img < s->images + s->nimages && (*img)->first_region == i &&
	    (*img)->nregions > 0 && i + (*img)->nregions <= s->nregions) {
		*kind = VMS_A_IMAGE;
		return (uint32_t)(*img)->nregions;
	}
	if (!s->nimages && r->type == VMS_T_IMAGE && r->path) {
		for (k = i + 1;
		     k < s->nregions && s->regions[k].type == VMS_T_IMAGE &&
		     same_file(&s->regions[k - 1], &s->regions[k]);
		     k++)
			;
		*kind = VMS_A_IMAGE;
		return (uint32_t)(k - i);
	}
	if ((r->flags & VMS_RF_GUARD) && i + 1 < s->nregions &&
	    s->regions[i + 1].type == VMS_T_STACK &&
	    s->regions[i + 1].start == r->end &&
	    !(s->regions[i + 1].flags & VMS_RF_GUARD)) {
		*kind = VMS_A_STACK;
		*main = (uint32_t)(i + 1);
		return 2;
	}
	if (r->type == VMS_T_HEAP)
		for (h = 0; h < s->nheaps; h++) {
			const struct vms_heap *hp = &s->heaps[h];
			uint32_t g;

			if (!hp->kind || strcmp(hp->kind, "glibc-arena") != 0)
				continue;
			for (g = 0; g < hp->nsegs; g++) {
				uint64_t a = hp->segs[g].start;
				uint64_t b = hp->segs[g].end;

				if (r->start != a)
					continue;
				for (k = i; k < s->nregions &&
					    s->regions[k].type == VMS_T_HEAP &&
					    s->regions[k].end <= b;
				     k++)
					;
				if (k > i) {
					*kind = VMS_A_ARENA;
					return (uint32_t)(k - i);
				}
			}
		}
	if (r->type == VMS_T_MANAGED_HEAP)
		for (h = 0; h < s->nmanaged; h++) {
			const struct vms_managed *m = &s->managed[h];

			if (m->start != r->start)
				continue;
			for (k = i + 1;
			     k < s->nregions &&
			     s->regions[k].type == VMS_T_MANAGED_HEAP &&
			     s->regions[k].start == s->regions[k - 1].end &&
			     s->regions[k].end <= m->end;
			     k++)
				;
			*kind = VMS_A_MANAGED;
			return (uint32_t)(k - i);
		}
	*kind = VMS_A_REGION;
	return 1;
}

int vms_allocs(const struct vms_snapshot *s, struct vms_alloc **out, size_t *n)
{
	const struct vms_image *img = s->images;
	struct vms_alloc *v = vms_big_malloc((s->nregions + 1) * sizeof(*v)),
			 *t;
	size_t i = 0;

	*out = NULL;
	*n = 0;
	if (!v)
		return -1;
	while (i < s->nregions) {
		struct vms_alloc *a = &v[(*n)++];

		a->first = (uint32_t)i;
		a->n = run_at(s, i, &img, &a->kind, &a->main);
		i += a->n;
	}
	/* an image's mappings are one: give back what it did not use */
	t = realloc(v, (*n ? *n : 1) * sizeof(*v));
	*out = t ? t : v;
	return 0;
}

uint64_t vms_alloc_figure(const struct vms_snapshot *s,
			  const struct vms_alloc *a, enum vms_col c)
{
	uint64_t sum = 0;
	uint32_t k;

	for (k = 0; k < a->n; k++)
		sum += vms_column_region(&s->regions[a->first + k], c);
	return sum;
}
