#include "model/snapshot.h"

#include "base/bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct vms_type_desc vms_type_info[VMS_NTYPES] = {
	[VMS_T_IMAGE] = { "image", "Image", 'I' },
	[VMS_T_MAPPED_FILE] = { "mapped_file", "Mapped File", 'F' },
	[VMS_T_SHAREABLE] = { "shareable", "Shareable", 'S' },
	[VMS_T_HEAP] = { "heap", "Heap", 'H' },
	[VMS_T_MANAGED_HEAP] = { "managed_heap", "Managed Heap", 'M' },
	[VMS_T_STACK] = { "stack", "Stack", 'K' },
	[VMS_T_PRIVATE_DATA] = { "private_data", "Private Data", 'D' },
	[VMS_T_PAGE_TABLE] = { "page_table", "Page Table", 'P' },
	[VMS_T_FREE] = { "free", "Free", '.' },
};

struct vms_snapshot *vms_snapshot_new(void)
{
	struct vms_snapshot *s = calloc(1, sizeof(*s));

	if (s)
		arena_init(&s->arena);
	return s;
}

void vms_snapshot_free(struct vms_snapshot *s)
{
	if (!s)
		return;
	vms_source_release(s);
	if (s->src.files.held && s->src.files.proc_dir >= 0)
		close(s->src.files.proc_dir);
	if (s->src.files.held && s->src.files.root_dir >= 0)
		close(s->src.files.root_dir);
	if (s->raw) {
		free(s->raw->smaps);
		free(s->raw->status);
		free(s->raw);
	}
	if (!s->regions_lent)
		free(s->regions);
	arena_fini(&s->arena);
	free(s);
}

size_t vms_snapshot_bytes(const struct vms_snapshot *s)
{
	size_t n = sizeof(*s) + s->regions_cap * sizeof(*s->regions) +
		   arena_bytes(&s->arena);

	if (s->raw)
		n += s->raw->smaps_cap + s->raw->status_len;
	return n;
}

int vms_raw_append_smaps(struct vms_raw *raw, const char *p, size_t n)
{
	if (n == 0)
		return 0; /* nothing read (a process gone): no buffer yet */
	if (raw->smaps_cap - raw->smaps_len < n) {
		size_t ncap = raw->smaps_cap ? raw->smaps_cap : 1u << 20;
		char *nb;

		while (ncap - raw->smaps_len < n)
			ncap *= 2;
		nb = realloc(raw->smaps, ncap);
		if (!nb)
			return -1;
		raw->smaps = nb;
		raw->smaps_cap = ncap;
	}
	memcpy(raw->smaps + raw->smaps_len, p, n);
	raw->smaps_len += n;
	return 0;
}

int vms_snapshot_reserve(struct vms_snapshot *s, size_t n)
{
	struct vms_region *nr;
	size_t bytes;

	if (n <= s->regions_cap)
		return 0;
	/* a layout's array is written over as it is: it only grows when a
	 * region comes that it has no room for (add_region) */
	if (s->lend && !s->lend->parted)
		return 0;
	if (n > SIZE_MAX / sizeof(*nr)) /* a count from a file: no wrap */
		return -1;
	bytes = n * sizeof(*nr);
	/* whole huge pages: the last part of the array one too, not some
	 * hundreds of 4 KiB pages to fault in and to free (the memory is
	 * taken only as the regions fill it) */
	if (bytes >= ((size_t)4 << 20) && bytes <= SIZE_MAX - ((size_t)2 << 20))
		bytes = (bytes + ((size_t)2 << 20) - 1) &
			~(((size_t)2 << 20) - 1);
	nr = realloc(s->regions, bytes);
	if (!nr)
		return -1;
	s->regions = nr;
	s->regions_cap = n;
	/* Huge pages: a fault per 2 MiB, not per 4 KiB (on this VM every
	 * first touch of a page traps: -l FILE -s of 65,000 regions took
	 * 155 ms of CPU, 89 with them). Faulted in as the regions come,
	 * not populated at once: a snapshot file's load would then hold
	 * the whole array beside the whole file (1,000,000 regions peaked
	 * 2 MB above the live capture; now 1 MB below it) */
	vms_hint_huge(nr, bytes);
	return 0;
}

/* Region i, written over the layout's saved one: the same bounds, or the
 * target mapped between the two reads. */
static void lend_check(struct vms_lend *l, const struct vms_region *r, size_t i)
{
	if (l->saved_ok && l->saved_at == i &&
	    (r->start != l->saved.start || r->end != l->saved.end))
		l->shifted = true;
}

bool vms_lend_shifted(struct vms_snapshot *s)
{
	struct vms_lend *l = s->lend;

	/* the last region written, whole or not */
	if (!l->parted && s->nregions)
		lend_check(l, &s->regions[s->nregions - 1], s->nregions - 1);
	return l->shifted;
}

struct vms_region *vms_snapshot_add_region(struct vms_snapshot *s)
{
	struct vms_region *r;

	if (s->nregions == s->regions_cap && s->lend && !s->lend->parted) {
		/* no room left in the layout's array: an array of our own,
		 * the layout keeps its (with what was written over it) */
		size_t ncap = s->regions_cap ? s->regions_cap * 2 : 1024;
		struct vms_region *nr = vms_big_malloc(ncap * sizeof(*nr));

		if (!nr)
			return NULL;
		memcpy(nr, s->regions, s->nregions * sizeof(*nr));
		s->regions = nr;
		s->regions_cap = ncap;
		s->lend->parted = true;
	}
	if (s->nregions == s->regions_cap) {
		size_t ncap = s->regions_cap ? s->regions_cap * 2 : 1024;
		struct vms_region *nr =
			vms_big_realloc(s->regions, ncap * sizeof(*nr));

		if (!nr)
			return NULL;
		s->regions = nr;
		s->regions_cap = ncap;
	}
	r = &s->regions[s->nregions++];
	/* The array is far larger than the cache: ask for the lines of the
	 * regions to come while this one is parsed. */
	if (s->nregions + 4 <= s->regions_cap)
		__builtin_prefetch(&s->regions[s->nregions + 3], 1, 0);
	if (s->lend && !s->lend->parted) {
		struct vms_lend *l = s->lend;
		size_t i = s->nregions - 1;

		/* the region before is whole now */
		if (i)
			lend_check(l, &r[-1], i - 1);
		l->saved = *r;
		l->saved_at = i;
		l->saved_ok = true;
		if (i < l->pre->nregions)
			l->take(l, i); /* before it is gone */
		memset(r, 0, sizeof(*r));
		if (i >= l->pre->nregions) {
			l->shifted = true;
		} else {
			/* the layout's display fields stay while the
			 * counters come (classify clears them) */
			r->type = l->saved.type;
			r->detail = l->saved.detail;
			r->children = l->saved.children;
			r->nchildren = l->saved.nchildren;
			r->build_id = l->saved.build_id;
		}
		return r;
	}
	memset(r, 0, sizeof(*r));
	return r;
}

void vms_snapshot_drop_last(struct vms_snapshot *s)
{
	struct vms_lend *l = s->lend;

	if (!s->nregions)
		return;
	s->nregions--;
	if (l && !l->parted && l->saved_ok && l->saved_at == s->nregions) {
		s->regions[s->nregions] = l->saved;
		l->saved_ok = false;
		if (s->nregions < l->pre->nregions)
			l->undo(l, s->nregions);
	}
}

size_t vms_snapshot_index_from(const struct vms_snapshot *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nregions;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->regions[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

ptrdiff_t vms_snapshot_find_index(const struct vms_snapshot *s, uint64_t addr)
{
	size_t i = vms_snapshot_index_from(s, addr);

	return i < s->nregions && s->regions[i].start <= addr ? (ptrdiff_t)i
							      : -1;
}

const struct vms_region *vms_snapshot_find(const struct vms_snapshot *s,
					   uint64_t addr)
{
	ptrdiff_t i = vms_snapshot_find_index(s, addr);

	return i < 0 ? NULL : &s->regions[i];
}

struct vms_gap_iter vms_gaps(const struct vms_snapshot *s)
{
	struct vms_gap_iter it = { s, 0, s->user_start, false };

	return it;
}

bool vms_gap_next(struct vms_gap_iter *it, uint64_t *start, uint64_t *end)
{
	const struct vms_snapshot *s = it->s;

	while (!it->done) {
		uint64_t next;

		if (it->i < s->nregions &&
		    s->regions[it->i].start < s->user_end) {
			const struct vms_region *r = &s->regions[it->i++];

			next = r->start;
			*start = it->prev;
			*end = next;
			if (r->end > it->prev)
				it->prev = r->end;
			if (next > *start)
				return true;
			continue;
		}
		/* past the last region in the range: the rest of it */
		it->done = true;
		*start = it->prev;
		*end = s->user_end;
		if (*end > *start)
			return true;
	}
	return false;
}

bool vms_region_is_anon(const struct vms_region *r)
{
	return r->inode == 0 &&
	       (!r->path || r->path[0] == '[' || r->path[0] == '\0');
}

bool vms_region_is_private_anon(const struct vms_region *r)
{
	if (r->perms & VMS_PERM_SHARED)
		return false;
	if (vms_region_is_anon(r))
		return true;
	/* the kernel makes a private mapping of /dev/zero anonymous memory
	 * (its file only named), and MAP_PRIVATE | MAP_HUGETLB is
	 * anonymous memory in a hugetlbfs file only in name */
	return r->path && (strcmp(r->path, "/dev/zero") == 0 ||
			   strncmp(r->path, "/anon_hugepage", 14) == 0);
}

bool vms_region_plain_anon(const struct vms_region *r)
{
	return r->type == VMS_T_PRIVATE_DATA && vms_region_is_private_anon(r) &&
	       (!r->path ? !r->detail
			 : r->path[0] == '/' &&
				   (!r->detail || r->detail == r->path));
}

bool vms_region_continues(const struct vms_region *a,
			  const struct vms_region *b)
{
	return a->inode && b->start == a->end && b->inode == a->inode &&
	       b->dev_major == a->dev_major && b->dev_minor == a->dev_minor &&
	       b->offset == a->offset + (a->end - a->start);
}

/* Mappings the kernel itself provides ([vdso], [vvar], ...): shared by
 * every process, charged to none. */
bool vms_region_is_kernel_special(const struct vms_region *r)
{
	static const char *const names[] = {
		"[vdso]",    "[vvar]",	  "[vvar_vclock]", "[vsyscall]",
		"[uprobes]", "[sigpage]", "[vectors]",
	};
	size_t i;

	if (!r->path || r->path[0] != '[')
		return false;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(r->path, names[i]) == 0)
			return true;
	return false;
}

bool vms_heap_is_glibc(const struct vms_heap *h)
{
	return h->kind && strncmp(h->kind, "glibc", 5) == 0;
}

static void add_known(int64_t *sum, int64_t v)
{
	*sum = *sum < 0 || v < 0 ? -1 : *sum + v;
}

struct vms_heap_sum vms_allocator_heaps(const struct vms_snapshot *s)
{
	struct vms_heap_sum t = { 0, 0, 0, 0 };
	size_t i;

	for (i = 0; i < s->nheaps; i++) {
		const struct vms_heap *h = &s->heaps[i];

		if (vms_heap_is_glibc(h))
			continue;
		t.n++;
		add_known(&t.in_use, h->in_use);
		add_known(&t.free, h->free);
		add_known(&t.chunks, h->chunks);
	}
	if (!t.n)
		t.in_use = t.free = t.chunks = -1;
	return t;
}

int vms_snapshot_note(struct vms_snapshot *s, const char *step, const char *why)
{
	struct vms_note *n =
		arena_alloc(&s->arena, (s->nnotes + 1) * sizeof(*n));

	if (!n)
		return -1;
	if (s->nnotes)
		memcpy(n, s->notes, s->nnotes * sizeof(*n));
	n[s->nnotes].step = step;
	n[s->nnotes].why = arena_strdup(&s->arena, why);
	if (!n[s->nnotes].why)
		return -1;
	s->notes = n;
	s->nnotes++;
	return 0;
}

int vms_managed_add(struct vms_snapshot *s, const struct vms_managed *m)
{
	/* The capacity is the power of two at or above nmanaged, so no field
	 * holds it: the array grows when nmanaged is 0 or a power of two. */
	if (s->nmanaged == 0 || (s->nmanaged & (s->nmanaged - 1)) == 0) {
		size_t ncap = s->nmanaged ? s->nmanaged * 2 : 1;
		struct vms_managed *nm =
			arena_alloc(&s->arena, ncap * sizeof(*nm));

		if (!nm)
			return -1;
		if (s->nmanaged)
			memcpy(nm, s->managed, s->nmanaged * sizeof(*nm));
		s->managed = nm;
	}
	s->managed[s->nmanaged++] = *m;
	return 0;
}

/* A million regions sit in a viewer: what each costs is a budget (issue
 * 13: at most 200 bytes a region in the engine, all told). A region is a
 * fixed part (96 bytes: addresses, identity, flags, strings, children)
 * and its smaps counters, 8 bytes each: the budget follows the counter
 * list, and records.h's VMS_NCOUNTERS_MAX bounds that (the rule is
 * there, beside the list). */
_Static_assert(sizeof(struct vms_region) <= 96 + sizeof(struct vms_counters),
	       "struct vms_region's fixed part grew past 96 bytes");
_Static_assert(VMS_NCOUNTERS <= VMS_NCOUNTERS_MAX,
	       "more smaps counters than a region has room for: see "
	       "VMS_NCOUNTERS_MAX in records.h");

static int seg_cmp(const void *a, const void *b)
{
	const struct vms_heap_seg *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

void vms_snapshot_type_mmapped(struct vms_snapshot *s)
{
	const struct vms_malloc *m = s->glibc;
	struct vms_heap_seg *c;
	size_t i, n;

	if (!m || !m->nmmapped)
		return;
	n = m->nmmapped;
	c = malloc(n * sizeof(*c));
	if (!c)
		return; /* the regions keep their type */
	memcpy(c, m->mmapped, n * sizeof(*c));
	qsort(c, n, sizeof(*c), seg_cmp);
	for (i = 0; i < n;) {
		ptrdiff_t k = vms_snapshot_find_index(s, c[i].start);
		struct vms_region *r = k >= 0 ? &s->regions[k] : NULL;
		uint64_t end = c[i].end;
		size_t j = i + 1;

		while (r && end < r->end && j < n && c[j].start == end)
			end = c[j++].end;
		if (r && r->start == c[i].start && r->end == end &&
		    vms_region_plain_anon(r)) {
			r->type = VMS_T_HEAP;
			r->detail = VMS_MMAPPED_CHUNK;
			/* glibc maps a chunk charged to the commit limit (no
			 * MAP_NORESERVE): where VmFlags are not known (a
			 * core), the walk says so */
			if (!r->vmflags || !*r->vmflags)
				r->vmflags_mask |= VMS_VF_AC;
		}
		i = j;
	}
	free(c);
}
