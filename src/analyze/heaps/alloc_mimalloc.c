/* alloc_mimalloc.c — mimalloc 2's heap (alloc_heap.h): its segments, found
 * at the 32 MiB boundaries of unclaimed anonymous memory by their header
 * (rtheap.h), which ends with an entry per 64 KiB slice: the pages and
 * their blocks in use. A segment's cookie is its address xor a secret of
 * the process, so every true segment gives the same key: where two or
 * more segments are found, those whose key is not the most common one are
 * left out (memory that only looked like a header).
 *
 * Figures (the heap entry's, from the headers, mimalloc's own
 * bookkeeping): in_use, the bytes of used blocks; chunks, the used
 * blocks; free, the segments' bytes that are neither a header nor used
 * blocks. al->metadata: the headers' slices; al->committed: the bytes
 * their commit masks say are committed (mimalloc's stats' committed).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/heaps/alloc_heap.h"
#include "analyze/rtheap.h"
#include "model/source.h"

struct mi_found {
	uint64_t addr;
	const struct rtscan_run *run; /* the run it begins in */
	struct rtheap_mi_seg seg;
	struct rtheap_mi_use use;
};

struct mi_list {
	struct mi_found *v;
	size_t n, cap;
};

static int mi_push(struct mi_list *l, const struct mi_found *f)
{
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 16;
		struct mi_found *nv = realloc(l->v, ncap * sizeof(*nv));

		if (!nv)
			return -1;
		l->v = nv;
		l->cap = ncap;
	}
	l->v[l->n++] = *f;
	return 0;
}

/* Anonymous memory reserved and not committed (PROT_NONE, no file): a
 * segment whose commit was delayed (a thread's first ones,
 * mi_option_eager_commit_delay) is reserved whole and made readable as
 * its pages are committed, so its tail may be such a region. */
static bool mi_reserved_tail(const struct vms_region *r)
{
	return r->type == VMS_T_PRIVATE_DATA && !r->path &&
	       !(r->perms &
		 (VMS_PERM_R | VMS_PERM_W | VMS_PERM_X | VMS_PERM_SHARED));
}

/* Where a segment that begins in run may end: the run's end, or the end
 * of the reserved regions right after it. */
static uint64_t mi_reach(const struct vms_snapshot *s,
			 const struct rtscan_run *run)
{
	uint64_t end = run->end;
	size_t k;

	for (k = run->last + 1; k < s->nregions && s->regions[k].start == end &&
				mi_reserved_tail(&s->regions[k]);
	     k++)
		end = s->regions[k].end;
	return end;
}

/* Marks the reserved regions after run that [a, a + len) covers (the run's
 * own: alloc_mark()). */
static void mi_mark_tail(struct alloc_marks *m, const struct rtscan_run *run,
			 uint64_t a, uint64_t len, uint8_t how)
{
	size_t k;

	for (k = run->last + 1;
	     k < m->s->nregions && m->s->regions[k].start < a + len &&
	     mi_reserved_tail(&m->s->regions[k]);
	     k++)
		if (m->mark[k] < how)
			m->mark[k] = how;
}

/* The segments of one run, header by header. */
static int mi_scan_run(struct alloc_marks *m, const struct rtscan_run *run,
		       unsigned char *buf, struct mi_list *l)
{
	uint64_t a = (run->start + RTHEAP_MI_ALIGN - 1) &
		     ~(uint64_t)(RTHEAP_MI_ALIGN - 1);
	uint64_t reach = mi_reach(m->s, run);

	while (a < run->end && reach - a >= RTHEAP_MI_ALIGN) {
		struct mi_found f = { a, run, { 0 }, { 0 } };
		uint64_t step = RTHEAP_MI_ALIGN;
		size_t want;

		if (rtscan_read(m->s, a, buf, RTHEAP_MI_HDR) &&
		    rtheap_mi_segment(buf, RTHEAP_MI_HDR, a, reach, &f.seg)) {
			want = RTHEAP_MI_HDR +
			       (size_t)f.seg.entries * RTHEAP_MI_PAGE;
			/* entries a page never written holds read as
			 * zeros: a run's first entry there makes the
			 * tiling fail, never a page */
			if (rtscan_read_zeros(m->s, a, buf, want) &&
			    rtheap_mi_pages(buf, want, &f.seg, &f.use)) {
				if (mi_push(l, &f) < 0)
					return -1;
				step = (f.seg.size + RTHEAP_MI_ALIGN - 1) &
				       ~(uint64_t)(RTHEAP_MI_ALIGN - 1);
			}
		}
		if (step > UINT64_MAX - a)
			break;
		a += step;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The key most segments share; 0 (keep all) when fewer than two do, or
 * out of memory (*oom). */
static uint64_t mi_common_key(const struct mi_list *l, bool *oom)
{
	uint64_t *k, key = 0;
	size_t i, run = 0, best = 0;

	*oom = false;
	if (l->n < 2)
		return 0;
	k = malloc(l->n * sizeof(*k));
	if (!k) {
		*oom = true;
		return 0;
	}
	for (i = 0; i < l->n; i++)
		k[i] = l->v[i].seg.key;
	qsort(k, l->n, sizeof(*k), cmp_u64);
	for (i = 0; i < l->n; i++) {
		run = i && k[i] == k[i - 1] ? run + 1 : 1;
		if (run > best) {
			best = run;
			key = k[i];
		}
	}
	free(k);
	return best >= 2 ? key : 0;
}

/* The threads that own the segments kept (key: as below; abandoned
 * ones, thread 0, left out). */
static size_t mi_threads(const struct mi_list *l, uint64_t key, bool *oom)
{
	uint64_t *t = malloc((l->n ? l->n : 1) * sizeof(*t));
	size_t i, n = 0, distinct = 0;

	*oom = !t;
	if (!t)
		return 0;
	for (i = 0; i < l->n; i++)
		if ((!key || l->v[i].seg.key == key) && l->v[i].seg.thread)
			t[n++] = l->v[i].seg.thread;
	qsort(t, n, sizeof(*t), cmp_u64);
	for (i = 0; i < n; i++)
		distinct += !i || t[i] != t[i - 1];
	free(t);
	return distinct;
}

int alloc_mimalloc(struct alloc_marks *m, struct vms_allocator *al, int version)
{
	static const char *const details[] = { "mimalloc segment",
					       "mimalloc huge segment" };
	unsigned char *buf;
	struct mi_list l = { NULL, 0, 0 };
	struct vms_heap *h;
	uint64_t key, in_use = 0, blocks = 0, meta = 0, bytes = 0,
		      committed = 0;
	size_t i, threads;
	bool oom;
	int rc = -1;

	if (!rtheap_mi_known(version)) {
		al->partial =
			version < 0
				? "its version could not be read (mi_version)"
				: arena_printf(&m->s->arena,
					       "mimalloc %d.%d.%d: not a "
					       "layout this vmscope reads "
					       "(2.0.9 to 2.1.1)",
					       version / 100, version / 10 % 10,
					       version % 10);
		return al->partial ? 0 : -1;
	}
	buf = malloc(RTHEAP_MI_INFO);
	if (!buf)
		return -1;
	for (i = 0; i < m->nruns; i++) {
		if (vms_source_progress(m->s, "finding mimalloc's segments", i,
					m->nruns))
			break;
		if (mi_scan_run(m, &m->runs[i], buf, &l) < 0)
			goto out;
	}
	key = mi_common_key(&l, &oom);
	if (oom)
		goto out;
	m->exact = true; /* a segment is its own bounds */
	for (i = 0; i < l.n; i++) {
		const struct mi_found *f = &l.v[i];

		if (key && f->seg.key != key)
			continue;
		alloc_mark(m, f->addr, f->seg.size, f->seg.huge ? 2 : 1);
		if (f->addr + f->seg.size > f->run->end)
			mi_mark_tail(m, f->run, f->addr, f->seg.size,
				     f->seg.huge ? 2 : 1);
		in_use += f->use.in_use;
		blocks += f->use.blocks;
		meta += (uint64_t)f->seg.info_slices * RTHEAP_MI_SLICE;
		bytes += f->seg.size;
		committed += f->seg.committed;
	}
	if (alloc_type(m, al, "mimalloc", details, &h) < 0)
		goto out;
	rc = 0;
	if (!h) {
		al->partial = "no mimalloc segment found in anonymous memory";
		goto out;
	}
	h->in_use = (int64_t)in_use;
	h->chunks = (int64_t)blocks;
	h->free = (int64_t)(bytes - meta - in_use);
	al->metadata = (int64_t)meta;
	al->committed = (int64_t)committed;
	al->reserved = (int64_t)bytes;
	threads = mi_threads(&l, key, &oom);
	if (oom)
		goto out;
	al->figures_note = arena_printf(
		&m->s->arena,
		"committed and reserved: its segments' commit masks and sizes, "
		"what its stats count (mi_process_info's current commit, "
		"mi_stats_print_out's reserved)%s; the bytes in use by the "
		"application are not in its stats (a release build counts no "
		"allocation: MI_STAT 0): in use is its pages' used blocks; "
		"allocated, active, resident, mapped and retained are "
		"jemalloc's",
		threads > 1 ? ", less what it took for each thread besides the "
			      "main one (its heap and statistics, a page or "
			      "two from the system each, not read)"
			    : "");
	if (!al->figures_note)
		goto out;
out:
	free(l.v);
	free(buf);
	return rc;
}

/* ---- the row (allocators.h) ---- */

/* What mi_version() returns, read from its code in the file; -1. */
static int mi_version_of(struct vms_snapshot *s, const struct vms_image *im)
{
	struct elfimage_sym sym;
	struct elfimage_src src;
	unsigned char code[8];
	uint64_t off;
	int fd, v = -1;

	if (alloc_image_symbol(s, im, "mi_version", &sym, &fd, &src) &&
	    elfimage_vaddr_offset(im->elf, &src, sym.value, sizeof(code),
				  &off) &&
	    elfimage_src_read(&src, off, code, sizeof(code)) == sizeof(code))
		v = rtheap_mi_version(code, sizeof(code), im->elf->machine);
	if (fd >= 0)
		close(fd);
	return v;
}

/* Read from its file before the hold. */
struct mi_facts {
	int version; /* mi_version()'s value, -1 */
};

static void mi_facts(struct vms_snapshot *s, const struct vms_image *im,
		     void *facts)
{
	struct mi_facts *f = facts;

	f->version = mi_version_of(s, im);
}

static int mi_find(struct alloc_marks *m, struct vms_allocator *al,
		   const struct vms_image *im, const void *facts)
{
	const struct mi_facts *f = facts;

	(void)im;
	return alloc_mimalloc(m, al, f->version);
}

static const char *const mi_syms[] = { "mi_malloc", NULL };

const struct alloc_kind alloc_kind_mimalloc = {
	.name = "mimalloc",
	.syms = mi_syms,
	.how = "segments found by their headers; figures from their pages' "
	       "entries",
	.facts = mi_facts,
	.facts_size = sizeof(struct mi_facts),
	.find = mi_find,
};
