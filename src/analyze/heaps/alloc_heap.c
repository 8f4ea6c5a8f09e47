/* alloc_heap.c — marking and typing an allocator's regions, and reading
 * its file's symbols (alloc_heap.h). */
#include "analyze/heaps/alloc_heap.h"

#include <stdlib.h>
#include <string.h>

#include "model/parts.h"
#include "model/source.h"

/* Ranges kept at most (48 MiB): past them the regions are typed whole,
 * as marked (a jemalloc of millions of extents, or memory made to read
 * as records, costs vmscope no more). */
#define ALLOC_MAX_RANGES (1u << 21)

/* Keeps [a, a + len) (joined to the last range where they touch). */
static void keep_range(struct alloc_marks *m, uint64_t a, uint64_t len,
		       uint8_t how)
{
	struct alloc_range *l = m->nrng ? &m->rng[m->nrng - 1] : NULL;

	if (l && l->how == how && a >= l->start && a <= l->end) {
		if (a + len > l->end)
			l->end = a + len;
		return;
	}
	if (m->nrng >= ALLOC_MAX_RANGES) {
		m->exact = false;
		alloc_marks_fini(m);
		return;
	}
	if (m->nrng == m->caprng) {
		size_t cap = m->caprng ? m->caprng * 2 : 64;
		struct alloc_range *n = realloc(m->rng, cap * sizeof(*n));

		if (!n) {
			m->oom = true;
			return;
		}
		m->rng = n;
		m->caprng = cap;
	}
	m->rng[m->nrng++] = (struct alloc_range){ a, a + len, how };
}

void alloc_marks_fini(struct alloc_marks *m)
{
	free(m->rng);
	m->rng = NULL;
	m->nrng = m->caprng = 0;
}

void alloc_mark(struct alloc_marks *m, uint64_t a, uint64_t len, uint8_t how)
{
	const struct rtscan_run *run = rtscan_run_of(m->runs, m->nruns, a, 1);
	ptrdiff_t k = run ? vms_snapshot_find_index(m->s, a) : -1;
	size_t i;

	if (k < 0 || (size_t)k < run->first)
		return;
	if (m->exact && len && a + len > a)
		keep_range(m, a, len, how);
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

static int by_start(const void *a, const void *b)
{
	const struct alloc_range *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* The ranges by address, overlapping ones joined (the higher how), and
 * adjacent ones of one how. */
static void join_ranges(struct alloc_marks *m)
{
	size_t i, n = 0;

	qsort(m->rng, m->nrng, sizeof(*m->rng), by_start);
	for (i = 0; i < m->nrng; i++) {
		struct alloc_range *l = n ? &m->rng[n - 1] : NULL;

		if (l &&
		    (m->rng[i].start < l->end ||
		     (m->rng[i].start == l->end && m->rng[i].how == l->how))) {
			if (m->rng[i].end > l->end)
				l->end = m->rng[i].end;
			if (m->rng[i].how > l->how)
				l->how = m->rng[i].how;
			continue;
		}
		m->rng[n++] = m->rng[i];
	}
	m->nrng = n;
}

/* The stretches of r the ranges cover, from *at (the first range that
 * may reach r; moved on), into sp[] (room for every range); their count,
 * *covered their bytes. */
static size_t stretches(const struct alloc_marks *m, const struct vms_region *r,
			size_t *at, const char *const *details,
			struct vms_part_spec *sp, uint64_t *covered)
{
	size_t i, n = 0;

	*covered = 0;
	while (*at < m->nrng && m->rng[*at].end <= r->start)
		(*at)++;
	for (i = *at; i < m->nrng && m->rng[i].start < r->end; i++) {
		uint64_t lo =
			m->rng[i].start > r->start ? m->rng[i].start : r->start;
		uint64_t hi = m->rng[i].end < r->end ? m->rng[i].end : r->end;

		sp[n++] = (struct vms_part_spec){
			.name = details[m->rng[i].how - 1],
			.start = lo,
			.end = hi,
			.type = VMS_T_HEAP,
			.rss = -1,
			.swap = -1,
			.priv = -1,
		};
		*covered += hi - lo;
	}
	return n;
}

/* Whether the stretches sp[0, n) are pieces of more than one kind
 * (details[how - 1]: jemalloc's base blocks and its extents). */
static bool mixed(const struct vms_part_spec *sp, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (sp[i].name != sp[0].name)
			return true;
	return false;
}

/* Splits r into the heap parts sp[0, n) (measured from the page tables
 * where the source can tell); its detail says what it holds (kind's
 * heap where the parts are of more than one kind). 0, -1 on out of
 * memory; 1 when r cannot be split (typed whole then). */
static int split_region(struct vms_snapshot *s, struct vms_region *r,
			struct vms_part_spec *sp, size_t n, uint64_t covered,
			const char *kind, unsigned char *buf)
{
	const char *what = sp[0].name;
	size_t i;
	int rc;

	if (r->nchildren)
		return 1;
	for (i = 0; i < n; i++) {
		struct vms_part_fig f;

		if (vms_parts_measure(s, sp[i].start, sp[i].end, buf, 4096,
				      &f)) {
			sp[i].rss = f.rss;
			sp[i].swap = f.swap;
			sp[i].priv = f.priv;
		}
	}
	rc = vms_parts_set(s, r, sp, n);
	if (rc == -2)
		return 1;
	if (rc < 0)
		return -1;
	if (mixed(sp, n))
		what = arena_printf(&s->arena, "%s heap", kind);
	if (!what)
		return -1;
	r->detail = arena_printf(&s->arena, "holds %s (%llu K)", what,
				 (unsigned long long)(covered >> 10));
	return r->detail ? 0 : -1;
}

static void add_seg(struct vms_heap *h, uint64_t start, uint64_t end)
{
	if (h->nsegs && h->segs[h->nsegs - 1].end == start)
		h->segs[h->nsegs - 1].end = end;
	else
		h->segs[h->nsegs++] = (struct vms_heap_seg){ start, end };
}

int alloc_type(struct alloc_marks *m, struct vms_allocator *al,
	       const char *kind, const char *const *details,
	       struct vms_heap **out)
{
	struct vms_snapshot *s = m->s;
	struct vms_part_spec *sp = NULL;
	unsigned char *buf = NULL;
	struct vms_heap *nh, *h;
	size_t i, nseg = 0, at = 0;
	int rc = -1;

	*out = NULL;
	for (i = 0; i < s->nregions; i++)
		nseg += m->mark[i] != 0;
	if (!nseg)
		return 0;
	if (m->oom)
		return -1;
	if (m->exact && m->nrng) {
		join_ranges(m);
		nseg += m->nrng;
		sp = malloc(m->nrng * sizeof(*sp));
		buf = malloc(4096);
		if (!sp || !buf)
			goto out;
	}
	nh = arena_alloc(&s->arena, (s->nheaps + 1) * sizeof(*nh));
	if (!nh)
		goto out;
	if (s->nheaps)
		memcpy(nh, s->heaps, s->nheaps * sizeof(*nh));
	h = &nh[s->nheaps];
	memset(h, 0, sizeof(*h));
	h->kind = kind;
	h->in_use = h->free = h->chunks = h->free_chunks = h->top = h->mmapped =
		-1;
	h->segs = arena_alloc(&s->arena, nseg * sizeof(*h->segs));
	if (!h->segs)
		goto out;
	for (i = 0; i < s->nregions; i++) {
		struct vms_region *r = &s->regions[i];
		uint64_t covered = 0;
		size_t n = 0, k;
		int split = 1;

		if (!m->mark[i])
			continue;
		if (sp)
			n = stretches(m, r, &at, details, sp, &covered);
		/* a region its ranges cover in part, or whole with pieces
		 * of more than one kind (a base block merged with extents) */
		if (n && (covered < vms_region_size(r) || mixed(sp, n))) {
			split = split_region(s, r, sp, n, covered, kind, buf);
			if (split < 0)
				goto out;
		}
		al->nregions++;
		if (split == 0) {
			al->heap += covered;
			for (k = 0; k < n; k++)
				add_seg(h, sp[k].start, sp[k].end);
			continue;
		}
		r->type = VMS_T_HEAP;
		r->detail = details[m->mark[i] - 1];
		al->heap += vms_region_size(r);
		add_seg(h, r->start, r->end);
	}
	h->id = h->segs[0].start;
	s->heaps = nh;
	s->nheaps++;
	*out = h;
	rc = 0;
out:
	free(sp);
	free(buf);
	return rc;
}

bool alloc_image_symbol(struct vms_snapshot *s, const struct vms_image *im,
			const char *name, struct elfimage_sym *sym, int *fd,
			struct elfimage_src *src)
{
	struct vms_error e;

	*fd = -1;
	if (!im->elf || !im->elf->is_image)
		return false;
	*fd = vms_source_open_file(s, &s->regions[im->first_region], NULL);
	return *fd >= 0 && elfimage_src_fd(*fd, src, &e) == 0 &&
	       elfimage_symbol(im->elf, src, name, sym);
}
