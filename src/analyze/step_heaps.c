/* step_heaps.c — the "heaps" step: glibc's main heap ([heap]) and the
 * heaps of its other arenas (MAP_NORESERVE regions aligned to their
 * reservation's size, each followed by the PROT_NONE rest of it,
 * confirmed by their heap_info header when the source has memory; by
 * shape alone otherwise, and said so in the detail). Fills s->heaps with
 * their segments. See steps.h.
 */
#include <string.h>

#include "analyze/steps.h"
#include "model/source.h"

/* A heap's reservation, aligned to its size: glibc's heap_max_size(),
 * HEAP_MAX_SIZE (2 * DEFAULT_MMAP_THRESHOLD_MAX: 64 MiB on LP64), or four
 * huge pages under GLIBC_TUNABLES=glibc.malloc.hugetlb=2 (2.35 and
 * later: 8 MiB with 2 MiB pages, whether or not the pool has pages; the
 * walk reads which from mp_). A candidate is any power of two from four
 * 64 KiB pages to four 1 GiB pages; one of another size than the default
 * is a heap only when its heap_info header is read and holds. */
#define ARENA_HEAP_DEFAULT (64ull << 20)
#define ARENA_HEAP_MIN (256ull << 10)
#define ARENA_HEAP_LARGEST (4ull << 30)

static bool heap_size_ok(uint64_t start, uint64_t size)
{
	return size >= ARENA_HEAP_MIN && size <= ARENA_HEAP_LARGEST &&
	       !(size & (size - 1)) && start % size == 0;
}

bool heaps_info_ok(const void *buf, size_t len, uint64_t start,
		   uint64_t rw_size, uint64_t heap_max, uint64_t *arena)
{
	uint64_t h[4]; /* ar_ptr, prev, size, mprotect_size */

	if (len < sizeof(h) || !heap_max)
		return false;
	memcpy(h, buf, sizeof(h));
	if (h[2] == 0 || h[2] > heap_max || h[3] < h[2] || h[3] > heap_max ||
	    h[3] != rw_size)
		return false;
	if (h[1] == 0) {
		/* First heap of an arena: its malloc_state follows the
		 * heap_info header (32 or 48 bytes, by glibc version). */
		if (h[0] < start + 16 || h[0] > start + 128)
			return false;
	} else if (h[1] % heap_max != 0 || h[1] == start) {
		return false;
	}
	*arena = h[0];
	return true;
}

static int add_heap(struct vms_snapshot *s, size_t *cap, const char *kind,
		    uint64_t id, uint64_t start, uint64_t end)
{
	struct vms_heap *h = NULL;
	size_t i;

	for (i = 0; i < s->nheaps; i++)
		if (s->heaps[i].id == id && strcmp(s->heaps[i].kind, kind) == 0)
			h = &s->heaps[i];
	if (!h) {
		if (s->nheaps == *cap) {
			size_t ncap = *cap ? *cap * 2 : 8;
			struct vms_heap *nh =
				arena_alloc(&s->arena, ncap * sizeof(*nh));

			if (!nh)
				return -1;
			if (s->nheaps)
				memcpy(nh, s->heaps, s->nheaps * sizeof(*nh));
			s->heaps = nh;
			*cap = ncap;
		}
		h = &s->heaps[s->nheaps++];
		memset(h, 0, sizeof(*h));
		h->kind = kind;
		h->id = id;
		h->in_use = h->free = h->chunks = h->free_chunks = h->top =
			h->mmapped = -1;
	}
	/* Segments grow by doubling: the capacity is the power of two at or
	 * above nsegs (so no field holds it), and n adds copy O(n) in all. */
	if ((h->nsegs & (h->nsegs - 1)) == 0) {
		size_t ncap = h->nsegs ? (size_t)h->nsegs * 2 : 1;
		struct vms_heap_seg *ns =
			arena_alloc(&s->arena, ncap * sizeof(*ns));

		if (!ns)
			return -1;
		if (h->nsegs)
			memcpy(ns, h->segs, h->nsegs * sizeof(*ns));
		h->segs = ns;
	}
	h->segs[h->nsegs].start = start;
	h->segs[h->nsegs].end = end;
	h->nsegs++;
	return 0;
}

/* The brk heap's entry, once its first [heap] region is listed. */
static struct vms_heap *main_heap(struct vms_snapshot *s)
{
	size_t i;

	for (i = 0; i < s->nheaps; i++)
		if (strcmp(s->heaps[i].kind, "glibc-main") == 0)
			return &s->heaps[i];
	return NULL;
}

static int heaps_scan(struct vms_snapshot *s, unsigned have, bool *held)
{
	size_t i, cap = 0;

	for (i = 0; i < s->nregions; i++) {
		struct vms_region *r = &s->regions[i];
		struct vms_region *next;
		uint64_t rw, arena = r->start, max;
		bool by_header = false, rest;
		size_t nrw = 1, k;

		if (step_path_is(r, "[heap]")) {
			struct vms_heap *m = main_heap(s);

			r->type = VMS_T_HEAP;
			r->detail = "main arena (brk heap)";
			/* One brk heap, however many lines maps gives it (a
			 * process that forked after its heap grew and grew
			 * it again has two adjacent [heap] regions): adjacent
			 * ones are one segment, the first's start its id. */
			if (m && m->segs[m->nsegs - 1].end == r->start) {
				m->segs[m->nsegs - 1].end = r->end;
				continue;
			}
			if (add_heap(s, &cap, "glibc-main",
				     m ? m->id : r->start, r->start,
				     r->end) < 0)
				return -1;
			continue;
		}
		/* Non-main arena heap: anonymous, MAP_NORESERVE, rw-p
		 * followed by the ---p rest of its reservation, aligned to
		 * the reservation's size (or all of it rw). Of huge pages
		 * (MAP_HUGETLB, "/anon_hugepage"), the kernel shows no "nr":
		 * the pool's pages are reserved at the mapping. */
		if ((r->path && !vms_region_is_private_anon(r)) ||
		    r->type != VMS_T_PRIVATE_DATA ||
		    r->perms != (VMS_PERM_R | VMS_PERM_W) ||
		    !(r->vmflags_mask & (VMS_VF_NR | VMS_VF_HT)))
			continue;
		while (i + nrw < s->nregions &&
		       s->regions[i + nrw].perms == r->perms &&
		       vms_region_continues(&s->regions[i + nrw - 1],
					    &s->regions[i + nrw]))
			nrw++;
		rw = s->regions[i + nrw - 1].end - r->start;
		next = i + nrw < s->nregions ? &s->regions[i + nrw] : NULL;
		rest = next && next->perms == 0 &&
		       (r->inode ? vms_region_continues(
					   &s->regions[i + nrw - 1], next)
				 : next->start == r->end && !next->path) &&
		       heap_size_ok(r->start, rw + vms_region_size(next));
		max = rest ? rw + vms_region_size(next) : rw;
		if (!rest && !heap_size_ok(r->start, rw))
			continue;
		if (have & VMS_SRC_MEMORY) {
			unsigned char hdr[32];
			struct vms_error e;
			ssize_t got;

			/* one stop of the target for all the headers */
			if (!*held)
				vms_source_hold(s, true);
			*held = true;
			got = vms_source_read(s, r->start, hdr, sizeof(hdr),
					      &e);

			if (got == (ssize_t)sizeof(hdr)) {
				if (!heaps_info_ok(hdr, sizeof(hdr), r->start,
						   rw, max, &arena))
					continue; /* read, and not a heap */
				by_header = true;
			}
		}
		/* by shape alone (a source without memory, the header's page
		 * not present): only glibc's default size; another is a heap
		 * only by its header (a reservation of MAP_NORESERVE read-write
		 * and PROT_NONE parts, a power of two in all, is common: V8's,
		 * a JVM's) */
		if (!by_header && max != ARENA_HEAP_DEFAULT)
			continue;
		r->type = VMS_T_HEAP;
		r->detail = by_header ? arena_printf(&s->arena, "arena 0x%llx",
						     (unsigned long long)arena)
				      : "arena (by shape; header not read)";
		if (!r->detail ||
		    add_heap(s, &cap, "glibc-arena", arena, r->start,
			     rest ? next->end : r->start + rw) < 0)
			return -1;
		for (k = 1; k < nrw; k++) {
			s->regions[i + k].type = VMS_T_HEAP;
			s->regions[i + k].detail = r->detail;
		}
		i += nrw - 1;
		if (rest) {
			next->type = VMS_T_HEAP;
			next->detail = "arena heap, reserved";
			i++;
		}
	}
	return 0;
}

static int step_heaps_run(struct vms_snapshot *s, unsigned have,
			  struct vms_error *err)
{
	bool held = false;
	int rc;

	s->nheaps = 0;
	s->heaps = NULL;
	rc = heaps_scan(s, have, &held);
	if (held)
		vms_source_hold(s, false);
	return rc < 0 ? step_nomem(err, "heaps") : 0;
}

const struct vms_step vms_step_heaps = {
	.name = "heaps",
	.doing = "finding heaps",
	.wants = VMS_SRC_MEMORY,
	.run = step_heaps_run,
};
