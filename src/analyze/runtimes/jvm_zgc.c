/* jvm_zgc.c — ZGC's three views of the Java heap (jvm_zgc.h). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analyze/runtimes/jvm_zgc.h"
#include "analyze/steps.h"

#define ZGC_MIN_BITS 42 /* ZGC's fewest offset bits (4 TiB) */

/* The heap's pages: the memfd ZGC names, mapped shared. */
static bool heap_pages(const struct vms_region *r)
{
	return (r->perms & VMS_PERM_SHARED) &&
	       step_path_starts(r, "/memfd:java_heap");
}

/* A view's reservation: private anonymous PROT_NONE, nothing else's. */
static bool reserved(const struct vms_region *r)
{
	return !(r->perms &
		 (VMS_PERM_SHARED | VMS_PERM_R | VMS_PERM_W | VMS_PERM_X)) &&
	       vms_region_is_anon(r) && !r->path;
}

static unsigned top_bit(uint64_t a)
{
	return 63u - (unsigned)__builtin_clzll(a);
}

int jvm_zgc_find(struct vms_snapshot *s, const char *alias, size_t *first,
		 size_t *end, const char **why)
{
	unsigned bits = 64;
	uint64_t view, span;
	size_t i, f = SIZE_MAX, e = 0;

	for (i = 0; i < s->nregions; i++)
		if (heap_pages(&s->regions[i]) && s->regions[i].start &&
		    top_bit(s->regions[i].start) < bits)
			bits = top_bit(s->regions[i].start);
	if (bits == 64)
		return 1;
	*why = "a memfd named java_heap is mapped, but not as ZGC's three "
	       "views of the heap (marked0, marked1, remapped)";
	if (bits < ZGC_MIN_BITS || bits + 3 > 47)
		return -1;
	span = 1ull << bits; /* the heap's offsets: [0, span) in each view */
	view = 4ull << bits; /* remapped */
	for (i = 0; i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];
		bool pages = heap_pages(r);

		if (pages && r->end - 1 >= 8ull << bits)
			return -1; /* above the remapped view */
		if (pages && r->start >= view + span)
			return -1;
		if (r->start >= view && r->end <= view + span &&
		    (pages || reserved(r))) {
			if (f == SIZE_MAX)
				f = i;
			else if (r->start != s->regions[i - 1].end || i != e)
				return -1; /* a hole or another's mapping */
			e = i + 1;
		}
	}
	if (f == SIZE_MAX)
		return -1;
	for (i = f; i < e && !heap_pages(&s->regions[i]); i++)
		;
	if (i == e)
		return -1; /* a reservation only */
	/* the other two views: their pages and reservations named */
	for (i = 0; i < s->nregions; i++) {
		struct vms_region *r = &s->regions[i];
		uint64_t v = r->start >> bits;

		if ((v == 1 || v == 2) && (r->end - 1) >> bits == v &&
		    (heap_pages(r) || reserved(r)))
			r->detail = alias;
	}
	*first = f;
	*end = e;
	return 0;
}
