/* alloc_mimalloc.c — mimalloc 2's heap (alloc_heap.h): its segments, found
 * at the 32 MiB boundaries of unclaimed anonymous memory by their header
 * (rtheap.h), which ends with an entry per 64 KiB slice: the pages and
 * their blocks in use. A segment's cookie is its address xor a secret of
 * the process, so every true segment gives the same key: where two or
 * more segments are found, those whose key is not the most common one are
 * left out (memory that only looked like a header).
 *
 * Figures (the heap entry's, from the headers, mimalloc's own
 * bookkeeping): in_use, the bytes of used blocks, less those other
 * threads freed (each page's xthread_free list, each heap's
 * thread_delayed_free: a page's used drops only when its owner collects
 * them); chunks, those blocks; free, the segments' bytes that are neither
 * a header nor such blocks. al->metadata: the headers' slices;
 * al->committed: the bytes their commit masks say are committed, and
 * al->reserved the segments' bytes, each with the threads' own data
 * (mi_thread_data_t, taken from the system apart: found from the heaps
 * the pages and the threads' TLS name, and in its cache), as its stats
 * count them.
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

/* ---- what other threads freed, and the threads' own data ---- */

/* List steps (a read of a block's first word each) at most, over every
 * list of blocks pending. */
#define MI_MAX_STEPS (1u << 20)

struct mi_heapref {
	uint64_t heap, thread;
};

struct mi_pend {
	struct vms_snapshot *s;
	int version; /* mi_version()'s */
	uint64_t thread; /* the segment's whose pages are being read */
	uint64_t bytes, blocks; /* freed by other threads, pending */
	uint64_t steps;
	const char *why; /* a list not read to its end, or NULL */
	struct mi_heapref *heaps; /* the owners of pages: heap, thread */
	size_t nheaps, capheaps;
	unsigned char *area; /* MI_AREA bytes, or NULL */
	bool oom;
};

/* A page's blocks read at once, at most (a medium page's: 8 slices). */
#define MI_AREA (512u << 10)

/* The blocks of the list at b, each in [start, start + bytes) on a
 * multiple of bsize from start, at most max of them (a page's used): its
 * length, or -1 where it does not read so (p->why says). */
static int64_t mi_walk(struct mi_pend *p, uint64_t b, uint64_t start,
		       uint64_t bytes, uint64_t bsize, uint64_t max)
{
	/* a page of small or medium blocks read at once where all of it
	 * comes (else block by block) */
	bool whole = p->area && bytes <= MI_AREA &&
		     rtscan_read_unswapped(p->s, start, p->area, (size_t)bytes);
	int64_t n = 0;

	while (b) {
		/* a block holds its link: one that would not fit before
		 * the area's end (a block size under 8) is no list */
		if (b < start || b - start >= bytes ||
		    bytes - (b - start) < sizeof(b) || (b - start) % bsize ||
		    (uint64_t)n >= max) {
			p->why = "a list of blocks freed by another thread "
				 "does not read as one";
			return -1;
		}
		if (++p->steps > MI_MAX_STEPS) {
			p->why = "more blocks freed by other threads than "
				 "vmscope reads";
			return -1;
		}
		if (whole)
			memcpy(&b, p->area + (b - start), sizeof(b));
		else if (!rtscan_read(p->s, b, &b, sizeof(b))) {
			p->why = "a block freed by another thread was not "
				 "read";
			return -1;
		}
		n++;
	}
	return n;
}

/* A page in use (rtheap_mi_pages_each): the blocks another thread freed
 * into it, and its heap. */
static void mi_page_pending(void *ctx, const struct rtheap_mi_page *pg)
{
	struct mi_pend *p = ctx;
	int64_t n;

	if (pg->thread_free && !p->why) {
		uint64_t off = rtheap_mi_start_offset(p->version, pg->bsize);

		if (off >= pg->bytes)
			p->why = "a page smaller than its first block's offset";
		n = off >= pg->bytes
			    ? -1
			    : mi_walk(p, pg->thread_free, pg->start + off,
				      pg->bytes - off, pg->bsize, pg->used);
		if (n > 0) {
			p->bytes += (uint64_t)n * pg->bsize;
			p->blocks += (uint64_t)n;
		}
	}
	if (!pg->heap || !p->thread ||
	    (p->nheaps && p->heaps[p->nheaps - 1].heap == pg->heap))
		return;
	if (p->nheaps == p->capheaps) {
		size_t nc = p->capheaps ? p->capheaps * 2 : 16;
		struct mi_heapref *nv = realloc(p->heaps, nc * sizeof(*nv));

		if (!nv) {
			p->oom = true;
			return;
		}
		p->heaps = nv;
		p->capheaps = nc;
	}
	p->heaps[p->nheaps++] = (struct mi_heapref){ pg->heap, p->thread };
}

static int cmp_heapref(const void *a, const void *b)
{
	const struct mi_heapref *x = a, *y = b;

	if (x->heap != y->heap)
		return x->heap < y->heap ? -1 : 1;
	return (x->thread > y->thread) - (x->thread < y->thread);
}

/* The block at b, freed into a full page: its page's block size from its
 * segment's header (one of l's), 0 where it is in none. */
static uint64_t mi_block_size(struct vms_snapshot *s, const struct mi_list *l,
			      uint64_t key, uint64_t b)
{
	uint64_t seg = b & ~(RTHEAP_MI_ALIGN - 1), at;
	unsigned char e[RTHEAP_MI_PAGE];
	uint32_t off, bsize;
	size_t lo = 0, hi = l->n, i;

	/* l is in address order (runs are, and segments in a run) */
	while (lo < hi) {
		i = lo + (hi - lo) / 2;
		if (l->v[i].addr < seg)
			lo = i + 1;
		else
			hi = i;
	}
	i = lo;
	if (i == l->n || l->v[i].addr != seg ||
	    (key && l->v[i].seg.key != key) ||
	    (b - seg) / RTHEAP_MI_SLICE >= l->v[i].seg.entries)
		return 0;
	at = seg + RTHEAP_MI_HDR + (b - seg) / RTHEAP_MI_SLICE * RTHEAP_MI_PAGE;
	if (!rtscan_read(s, at, e, sizeof(e)))
		return 0;
	memcpy(&off, e + 4, 4); /* slice_offset: bytes back to the page's */
	if (off > at - seg - RTHEAP_MI_HDR ||
	    !rtscan_read(s, at - off, e, sizeof(e)))
		return 0;
	memcpy(&bsize, e + 28, 4);
	return bsize < (2u << 30) ? bsize : 0;
}

/* Each heap's list of blocks freed into its full pages (the heaps that
 * own pages, checked by the thread id they hold): at most one a page of
 * the pages in use (pages). */
static void mi_delayed(struct mi_pend *p, const struct mi_list *l, uint64_t key,
		       uint64_t pages)
{
	size_t i, read = 0;

	for (i = 0; i < p->nheaps && !p->why; i++) {
		uint64_t w[2], b, n;

		if ((i && p->heaps[i].heap == p->heaps[i - 1].heap) ||
		    !rtscan_read(p->s, p->heaps[i].heap + RTHEAP_MI_DELAYED, w,
				 sizeof(w)) ||
		    w[1] != p->heaps[i].thread)
			continue;
		read++;
		for (b = w[0], n = 0; b && !p->why; n++) {
			uint64_t bsize = mi_block_size(p->s, l, key, b);

			if (!bsize || n >= pages || ++p->steps > MI_MAX_STEPS ||
			    !rtscan_read(p->s, b, &b, sizeof(b))) {
				p->why = "a heap's list of blocks freed by "
					 "another thread does not read as one";
				break;
			}
			p->bytes += bsize;
			p->blocks++;
		}
	}
	if (p->nheaps && !read && !p->why)
		p->why =
			"no heap its pages name holds their thread's id where "
			"2.0.9 keeps it: their lists of blocks freed into full "
			"pages were not read";
}

/* Whether a thread's own data is at t: page-aligned in unclaimed
 * anonymous memory, its heap's first word its tld, whose heap_backing is
 * t. */
static bool mi_is_td(struct alloc_marks *m, uint64_t t)
{
	uint64_t tld, back;

	return t && t % 4096 == 0 &&
	       rtscan_run_of(m->runs, m->nruns, t, RTHEAP_MI_TD) &&
	       rtscan_read(m->s, t, &tld, sizeof(tld)) && tld > t &&
	       tld % 8 == 0 &&
	       tld - t <= RTHEAP_MI_TD - RTHEAP_MI_BACKING - 8 &&
	       rtscan_read(m->s, tld + RTHEAP_MI_BACKING, &back,
			   sizeof(back)) &&
	       back == t;
}

/* Bytes at the top of a thread's stack region read for its TLS (glibc
 * puts a thread's TCB and static TLS there, mimalloc's _mi_heap_default
 * among them: some KiB). */
#define MI_TLS_TOP (16u << 10)

/* The threads' own data: the live threads' (the heaps their pages name,
 * and the default heap each thread's TLS at the top of its stack region
 * points to: a thread that holds no page) and those mimalloc keeps of
 * exited threads (its cache, a static array of the library's .bss: each
 * page-aligned word of its writable memory that points at one). Each is
 * marked (how 3) and counted; their number, -1 on out of memory. */
static int64_t mi_thread_data(struct alloc_marks *m, const struct mi_pend *p,
			      const struct vms_image *im)
{
	const struct vms_snapshot *s = m->s;
	struct rtscan_rw rw = { 0 };
	uint64_t lo = 0, hi = 0, *w, *c;
	size_t i, k, end, n = 0, nw = 0, cap = s->nthreads * (MI_TLS_TOP / 8);
	int64_t found = 0;

	/* the library's: its pages in RAM alone (rtscan.h) */
	if (im && rtscan_image_rw(m->s, im, 16u << 20, &lo, &hi) &&
	    rtscan_rw_read(m->s, lo, hi, &rw) < 0)
		return -1;
	w = calloc(cap + 1, 8);
	if (!w) {
		rtscan_rw_fini(&rw);
		return -1;
	}
	for (i = 0; i < s->nthreads; i++) {
		const struct vms_thread *t = &s->threads[i];
		uint64_t top = t->stack_end, a,
			 len = top - t->stack_start < MI_TLS_TOP
				       ? top - t->stack_start
				       : MI_TLS_TOP;

		/* page by page: the lowest may never have been touched */
		for (a = top - len; top > t->stack_start && a < top; a += 4096)
			if (rtscan_read_zeros(m->s, a, w + nw, 4096))
				nw += 4096 / 8;
	}
	c = malloc((p->nheaps + nw + rw.nw + 1) * sizeof(*c));
	if (!c) {
		free(w);
		rtscan_rw_fini(&rw);
		return -1;
	}
	for (i = 0; i < p->nheaps; i++)
		c[n++] = p->heaps[i].heap;
	for (k = 0; rtscan_rw_next(&rw, &k, &end);)
		for (; k < end; k++)
			if (rw.w[k] && rw.w[k] % 4096 == 0)
				c[n++] = rw.w[k];
	for (i = 0; i < nw; i++)
		if (w[i] && w[i] % 4096 == 0)
			c[n++] = w[i];
	free(w);
	rtscan_rw_fini(&rw);
	qsort(c, n, sizeof(*c), cmp_u64);
	for (i = 0; i < n; i++) {
		if ((i && c[i] == c[i - 1]) || !mi_is_td(m, c[i]))
			continue;
		alloc_mark(m, c[i], RTHEAP_MI_TD, 3);
		found++;
	}
	free(c);
	return found;
}

/* Reads again each segment kept (key) for its pages' pending frees. */
static int mi_pending(struct alloc_marks *m, const struct mi_list *l,
		      uint64_t key, unsigned char *buf, struct mi_pend *p)
{
	uint64_t pages = 0;
	size_t i;

	for (i = 0; i < l->n && !p->why; i++) {
		const struct mi_found *f = &l->v[i];
		size_t want =
			RTHEAP_MI_HDR + (size_t)f->seg.entries * RTHEAP_MI_PAGE;
		struct rtheap_mi_use u;

		if (key && f->seg.key != key)
			continue;
		p->thread = f->seg.thread;
		pages += f->use.pages;
		if (!rtscan_read_zeros(m->s, f->addr, buf, want) ||
		    !rtheap_mi_pages_each(buf, want, &f->seg, f->addr, &u,
					  mi_page_pending, p))
			p->why = "a segment's header changed";
		if (p->oom)
			return -1;
	}
	if (p->nheaps)
		qsort(p->heaps, p->nheaps, sizeof(*p->heaps), cmp_heapref);
	mi_delayed(p, l, key, pages);
	return 0;
}

/* What figures_note says of its threads: their own data found, and the
 * blocks other threads freed (in the snapshot's arena; NULL on out of
 * memory). */
static const char *mi_note(struct vms_snapshot *s, int64_t tds,
			   const struct mi_pend *p)
{
	return arena_printf(
		&s->arena,
		"committed and reserved: its segments' commit masks and sizes, "
		"and its threads' own data (%lld found: the live threads' from "
		"the heaps their pages and TLS name, the exited ones' from its "
		"cache; "
		"%u K each), what its stats count (mi_process_info's current "
		"commit, mi_stats_print_out's reserved); in use: its pages' "
		"used blocks less those other threads freed (pending on the "
		"pages' and heaps' lists until their owner collects them: "
		"%llu bytes in %llu blocks), free as mi_free counts them%s%s; "
		"the bytes in use by the application are not in its stats (a "
		"release build counts no allocation: MI_STAT 0); allocated, "
		"active, resident, mapped and retained are jemalloc's",
		(long long)tds, RTHEAP_MI_TD >> 10,
		(unsigned long long)p->bytes, (unsigned long long)p->blocks,
		p->why ? "; not all of them read, in use counts the rest: "
		       : "",
		p->why ? p->why : "");
}

int alloc_mimalloc(struct alloc_marks *m, struct vms_allocator *al,
		   const struct vms_image *im, int version)
{
	static const char *const details[] = { "mimalloc segment",
					       "mimalloc huge segment",
					       "mimalloc thread data" };
	unsigned char *buf;
	struct mi_list l = { NULL, 0, 0 };
	struct mi_pend pend = { .s = m->s, .version = version };
	struct vms_heap *h;
	uint64_t key, in_use = 0, blocks = 0, meta = 0, bytes = 0,
		      committed = 0;
	int64_t tds;
	size_t i;
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
	pend.area = malloc(MI_AREA); /* NULL: block by block */
	if (l.n && mi_pending(m, &l, key, buf, &pend) < 0)
		goto out;
	tds = l.n ? mi_thread_data(m, &pend, im) : 0;
	if (tds < 0)
		goto out;
	if (alloc_type(m, al, "mimalloc", details, &h) < 0)
		goto out;
	rc = 0;
	if (!h) {
		al->partial = "no mimalloc segment found in anonymous memory";
		goto out;
	}
	/* what other threads freed is free (pend.bytes are used blocks') */
	in_use -= pend.bytes <= in_use ? pend.bytes : in_use;
	blocks -= pend.blocks <= blocks ? pend.blocks : blocks;
	h->in_use = (int64_t)in_use;
	h->chunks = (int64_t)blocks;
	h->free = (int64_t)(bytes - meta - in_use);
	al->metadata = (int64_t)meta;
	al->committed = (int64_t)(committed + (uint64_t)tds * RTHEAP_MI_TD);
	al->reserved = (int64_t)(bytes + (uint64_t)tds * RTHEAP_MI_TD);
	al->figures_note = mi_note(m->s, tds, &pend);
	if (!al->figures_note)
		rc = -1;
out:
	free(pend.area);
	free(pend.heaps);
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

	return alloc_mimalloc(m, al, im, f->version);
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
