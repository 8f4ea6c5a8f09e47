/* step_malloc.c — the "malloc" step: glibc malloc walked in the snapshot's
 * memory, without debug symbols when there are none (glibc_find.h,
 * glibc_walk.h). Fills s->glibc (mallinfo2 of the process) and each glibc
 * heap's figures (s->heaps, found by the heaps step; an arena it did not
 * find is added). The regions its mmapped chunks cover whole become Heap,
 * "glibc malloc (mmapped chunk)" (vms_snapshot_type_mmapped).
 *
 * Needs memory of one instant (a fork clone, a frozen target, a core): the
 * lists and chunks of a running malloc are not of one piece. Or it
 * settles (VMS_SRC_SETTLE, vmscope --all): the running target walked
 * twice, its figures kept only when both walks found the same mallinfo2
 * and arenas. With a run's cache (elf/elfcache.h), what the libc file
 * says (version, main_arena, mp_) is found once for every process. The target's
 * libc is the image that defines gnu_get_libc_version; its version comes
 * from its release string. main_arena and mp_ come from a debug file for
 * its build id when there is one (under $VMSCOPE_DEBUGDIR, default
 * /usr/lib/debug: .build-id/xx/yyy.debug), else from the library file
 * itself. Then checked live: mp_.sbrk_base must be where [heap] starts and
 * the arena list must close at main_arena (the walk notes it otherwise).
 * What it cannot do is a note of the step, never a failure of the whole.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/heaps/glibc_find.h"
#include "analyze/heaps/glibc_walk.h"
#include "analyze/rtscan.h"
#include "analyze/steps.h"
#include "base/clock.h"
#include "elf/elfcache.h"
#include "elf/elfimage.h"
#include "model/source.h"

struct libc_info {
	const struct vms_image *img;
	int fd;
	bool own_fd; /* else the run's cache's (rtscan_image_fd) */
	struct elfimage_src src;
	unsigned major, minor;
	uint64_t main_arena, mp; /* link-time */
	const char *found_by;
};

static int note(struct vms_snapshot *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int note(struct vms_snapshot *s, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return vms_snapshot_note(s, "malloc", buf);
}

static bool named_like_libc(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	b = b ? b + 1 : path;
	return b &&
	       (strncmp(b, "libc.so", 7) == 0 || strncmp(b, "libc-", 5) == 0);
}

/* The image that is glibc's libc: by its symbols (names only say which to
 * try first). fd is left open on it; -1 when the run's cache knew the
 * file for libc (its identity checked when the images step looked it up):
 * opened only if what it says is not known yet (libc_open). */
static bool find_libc(struct vms_snapshot *s, struct libc_info *li)
{
	static const char *const sig[] = { "gnu_get_libc_version", NULL };
	int pass, known;
	size_t i, w;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < s->nimages; i++) {
			const struct vms_image *im = &s->images[i];
			struct vms_error e;
			int fd;
			bool is, own;

			if (!im->elf || !im->elf->is_image ||
			    named_like_libc(im->path) != (pass == 0))
				continue;
			/* a file of the run's cache known not to be libc */
			known = elfcache_defines(s->src.elfcache, im->elf, sig,
						 &w);
			if (known == 0)
				continue;
			if (known == 1) {
				li->img = im;
				li->fd = -1;
				return true;
			}
			fd = rtscan_image_fd(s, im, &own);
			if (fd < 0)
				continue;
			is = elfimage_src_fd(fd, &li->src, &e) == 0 &&
			     glibc_find_is_libc(im->elf, &li->src);
			if (known < 0)
				elfcache_defines_keep(s->src.elfcache, im->elf,
						      sig, is, 0);
			if (is) {
				li->img = im;
				li->fd = fd;
				li->own_fd = own;
				return true;
			}
			if (own)
				close(fd);
		}
	}
	return false;
}

static void libc_close(struct libc_info *li)
{
	if (li->fd >= 0 && li->own_fd)
		close(li->fd);
	li->fd = -1;
}

/* li->fd and li->src on the libc file, when find_libc left it closed. */
static bool libc_open(struct vms_snapshot *s, struct libc_info *li)
{
	struct vms_error e;

	if (li->fd >= 0)
		return true;
	li->fd = rtscan_image_fd(s, li->img, &li->own_fd);
	if (li->fd < 0)
		return false;
	if (elfimage_src_fd(li->fd, &li->src, &e) < 0) {
		libc_close(li);
		return false;
	}
	return true;
}

static bool from_debug_file(const struct libc_info *li, uint64_t *arena,
			    uint64_t *mp)
{
	const char *dir = getenv("VMSCOPE_DEBUGDIR");
	const char *id = li->img->build_id;
	struct elfimage dbg;
	struct elfimage_src dsrc;
	struct vms_error e;
	struct arena tmp;
	char path[4200];
	bool ok = false;
	int fd;

	if (!dir)
		dir = "/usr/lib/debug";
	if (!*dir || !id || strlen(id) < 3)
		return false;
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", dir, id,
		 id + 2);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	arena_init(&tmp);
	if (elfimage_src_fd(fd, &dsrc, &e) == 0 &&
	    elfimage_read(&dsrc, &tmp, &dbg, &e) == 0)
		ok = glibc_find_debug(&dbg, &dsrc, id, arena, mp);
	arena_fini(&tmp);
	close(fd);
	return ok;
}

/* ---- memory and the map, as the walker sees them ---- */

static ssize_t read_source(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct vms_error e;

	return vms_source_read(ctx, addr, buf, len, &e);
}

static ssize_t read_pages_source(void *ctx, uint64_t addr, void *buf,
				 size_t npages, unsigned char *ok)
{
	struct vms_error e;

	return vms_source_read_pages(ctx, addr, buf, npages, ok, &e);
}

static int present_source(void *ctx, uint64_t addr, size_t npages,
			  unsigned char *out)
{
	struct vms_error e;

	return vms_source_present(ctx, addr, npages, out, &e);
}

static int progress(void *ctx, uint64_t done, uint64_t total)
{
	return vms_source_progress(ctx, "walking glibc heaps", (size_t)done,
				   (size_t)total);
}

static struct glibc_span *spans_of(const struct vms_snapshot *s, size_t *n)
{
	struct glibc_span *sp = malloc((s->nregions + 1) * sizeof(*sp));
	size_t i;

	*n = 0;
	if (!sp)
		return NULL;
	for (i = 0; i < s->nregions; i++) {
		const struct vms_region *r = &s->regions[i];

		if (!(r->perms & VMS_PERM_R) || (r->flags & VMS_RF_UNREADABLE))
			continue;
		/* The brk heap is one span however many lines maps gives it:
		 * a process that forked after its heap grew and grew it
		 * again has two adjacent [heap] regions (the kernel does not
		 * merge the part whose pages the parent shares with the part
		 * the child added), and glibc's top may straddle them. */
		if (*n && sp[*n - 1].heap && sp[*n - 1].end == r->start &&
		    step_path_is(r, "[heap]")) {
			sp[*n - 1].end = r->end;
			continue;
		}
		/* A hugetlb mapping is a region a huge page where its parts
		 * were mprotected apart (glibc.malloc.hugetlb=2's heaps):
		 * one span, as the kernel would have merged them. */
		if (i && *n && sp[*n - 1].end == r->start &&
		    s->regions[i - 1].perms == r->perms &&
		    vms_region_continues(&s->regions[i - 1], r)) {
			sp[*n - 1].end = r->end;
			continue;
		}
		sp[*n] = (struct glibc_span){
			r->start, r->end,
			vms_region_is_private_anon(r) &&
				r->perms == (VMS_PERM_R | VMS_PERM_W) &&
				(!r->path || r->path[0] != '[' ||
				 strncmp(r->path, "[anon:", 6) == 0),
			step_path_is(r, "[heap]")
		};
		(*n)++;
	}
	return sp;
}

/* ---- into the snapshot ---- */

/* The regions of an arena the walk found that its shape did not tell (a
 * core: no VmFlags, and gcore writes the reserved rest of a heap, PROT_NONE,
 * as r--): each segment's anonymous Private Data typed Heap as the heaps
 * step types them ("arena 0x.."), and the anonymous region right after a
 * segment up to the end of its heap "arena heap, reserved" (a heap is
 * heap_max bytes, aligned to its size: glibc's heap_max_size(), 64 MiB
 * but under glibc.malloc.hugetlb=2). Only regions no step typed
 * otherwise; -1 on out of memory. */
static int type_arena(struct vms_snapshot *s, const struct glibc_arena *a,
		      uint64_t heap_max)
{
	const char *detail = NULL;
	size_t i, k;

	for (i = 0; i < a->nsegs; i++) {
		uint64_t lo = a->segs[i].start, hi = a->segs[i].end,
			 top = (lo & ~(heap_max - 1)) + heap_max;

		for (k = 0; k < s->nregions; k++) {
			struct vms_region *r = &s->regions[k];
			bool in = r->start >= lo && r->end <= hi,
			     rest = r->start == hi && r->end == top;

			if ((!in && !rest) || r->path ||
			    r->type != VMS_T_PRIVATE_DATA)
				continue;
			if (in && !detail &&
			    !(detail = arena_printf(
				      &s->arena, "arena 0x%llx",
				      (unsigned long long)a->addr)))
				return -1;
			r->type = VMS_T_HEAP;
			r->detail = in ? detail : "arena heap, reserved";
		}
	}
	return 0;
}

static struct vms_heap *heap_for(struct vms_snapshot *s,
				 const struct glibc_arena *a, uint64_t heap_max)
{
	struct vms_heap *nh;
	size_t i;

	for (i = 0; i < s->nheaps; i++) {
		struct vms_heap *h = &s->heaps[i];

		if (a->main ? strcmp(h->kind, "glibc-main") == 0
			    : h->id == a->addr)
			return h;
		/* found by its shape with its heap_info unread (its id the
		 * heap's start): the arena's malloc_state lies in that heap */
		if (!a->main && strcmp(h->kind, "glibc-arena") == 0 &&
		    h->nsegs && a->addr >= h->segs[0].start &&
		    a->addr < h->segs[0].end && h->id == h->segs[0].start)
			return h;
	}
	/* not found by its shape: one more heap */
	nh = arena_alloc(&s->arena, (s->nheaps + 1) * sizeof(*nh));
	if (!nh)
		return NULL;
	if (s->nheaps)
		memcpy(nh, s->heaps, s->nheaps * sizeof(*nh));
	s->heaps = nh;
	nh = &s->heaps[s->nheaps++];
	memset(nh, 0, sizeof(*nh));
	nh->kind = a->main ? "glibc-main" : "glibc-arena";
	/* not known until walked (step_heaps.c's heaps alike) */
	nh->in_use = nh->free = nh->chunks = nh->free_chunks = nh->top =
		nh->mmapped = -1;
	nh->segs = arena_alloc(&s->arena,
			       (a->nsegs ? a->nsegs : 1) * sizeof(*nh->segs));
	if (!nh->segs)
		return NULL;
	for (i = 0; i < a->nsegs; i++) {
		nh->segs[i].start = a->segs[i].start;
		nh->segs[i].end = a->segs[i].end;
	}
	nh->nsegs = (uint32_t)a->nsegs;
	if (!a->main && heap_max && type_arena(s, a, heap_max) < 0)
		return NULL;
	return nh;
}

_Static_assert(GLIBC_STRIP == VMS_HEAP_STRIP && GLIBC_HIST == VMS_HEAP_HIST,
	       "the walker's arrays are copied into the snapshot's");

/* The main heap found by its shape holds the [heap] lines; a main arena
 * that is not contiguous (sbrk failed) has segments in mmapped memory
 * too (glibc_noncontig.c): they join its segments, in address order. */
static int main_segs_join(struct vms_snapshot *s, struct vms_heap *h,
			  const struct glibc_arena *a)
{
	struct vms_heap_seg *v;
	size_t i, j, n = h->nsegs;

	for (i = 0; i < a->nsegs; i++) {
		for (j = 0; j < h->nsegs; j++)
			if (a->segs[i].start >= h->segs[j].start &&
			    a->segs[i].end <= h->segs[j].end)
				break;
		n += j == h->nsegs;
	}
	if (n == h->nsegs)
		return 0;
	v = arena_alloc(&s->arena, n * sizeof(*v));
	if (!v)
		return -1;
	memcpy(v, h->segs, h->nsegs * sizeof(*v));
	for (n = h->nsegs, i = 0; i < a->nsegs; i++) {
		for (j = 0; j < h->nsegs; j++)
			if (a->segs[i].start >= h->segs[j].start &&
			    a->segs[i].end <= h->segs[j].end)
				break;
		if (j == h->nsegs)
			v[n++] = (struct vms_heap_seg){ a->segs[i].start,
							a->segs[i].end };
	}
	/* a few segments: insertion by start */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j].start < v[j - 1].start; j--) {
			struct vms_heap_seg t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	h->segs = v;
	h->nsegs = (uint32_t)n;
	return 0;
}

static int fill_heap(struct vms_snapshot *s, const struct glibc_walk_res *r,
		     const struct glibc_arena *a, bool lists)
{
	struct vms_heap *h = heap_for(s, a, r->heap_max);
	struct vms_heap_glibc *g = arena_alloc(&s->arena, sizeof(*g));

	if (!h || !g || (a->main && main_segs_join(s, h, a) < 0))
		return -1;
	memset(g, 0, sizeof(*g));
	h->id = a->addr;
	h->glibc = g;
	g->free_resident = -1;
	g->busy = a->busy;
	g->unread = a->unread;
	g->partial = a->partial[0] ? arena_strdup(&s->arena, a->partial) : NULL;
	if (a->partial[0] && !g->partial)
		return -1;
	if (a->busy || a->unread)
		return 0;
	h->in_use = (int64_t)a->in_use;
	h->free = (int64_t)a->free;
	/* a walk of the lists alone counted no chunk (glibc_walk.h) */
	h->chunks = lists ? -1 : (int64_t)a->chunks;
	h->free_chunks = (int64_t)(a->ordblks + a->smblks);
	h->top = (int64_t)a->top;
	h->mmapped = a->main ? (int64_t)r->hblkhd : 0;
	g->system = a->system;
	g->ordblks = a->ordblks;
	g->smblks = a->smblks;
	g->fsmblks = a->fsmblks;
	g->tcache = a->tcache;
	g->tcache_chunks = a->tcache_chunks;
	g->overhead = a->overhead;
	g->largest_free = a->largest_free;
	g->free_resident = a->resident_known ? (int64_t)a->free_resident : -1;
	memcpy(g->hist, a->hist, sizeof(g->hist));
	g->strip_bytes = a->strip_bytes;
	memcpy(g->strip_free, a->strip_free, sizeof(g->strip_free));
	memcpy(g->strip_top, a->strip_top, sizeof(g->strip_top));
	memcpy(g->hist_bytes, a->hist_bytes, sizeof(g->hist_bytes));
	return 0;
}

static int fill(struct vms_snapshot *s, const struct libc_info *li,
		const struct glibc_walk_in *in, const struct glibc_walk_res *r,
		uint64_t walk_us)
{
	struct vms_malloc *m = arena_alloc(&s->arena, sizeof(*m));
	size_t i;

	if (!m)
		return -1;
	memset(m, 0, sizeof(*m));
	m->allocator = "glibc";
	m->version = arena_printf(&s->arena, "%u.%u", li->major, li->minor);
	m->found_by = li->found_by;
	m->main_arena = in->main_arena;
	m->mp = in->mp;
	m->arena = r->arena;
	m->ordblks = r->ordblks;
	m->smblks = r->smblks;
	m->hblks = r->hblks;
	m->hblkhd = r->hblkhd;
	m->usmblks = r->usmblks;
	m->fsmblks = r->fsmblks;
	m->uordblks = r->uordblks;
	m->fordblks = r->fordblks;
	m->keepcost = r->keepcost;
	m->tcache = r->tcache;
	m->tcache_chunks = r->tcache_chunks;
	m->overhead = r->overhead;
	m->empty = r->empty;
	m->walk_us = walk_us;
	m->bytes_read = r->bytes_read;
	if (!m->version)
		return -1;
	if (r->partial[0] &&
	    !(m->partial = arena_strdup(&s->arena, r->partial)))
		return -1;
	if (r->mmapped_note[0] &&
	    !(m->mmapped_note = arena_strdup(&s->arena, r->mmapped_note)))
		return -1;
	if (r->nmmapped) {
		m->mmapped = arena_alloc(&s->arena,
					 r->nmmapped * sizeof(*m->mmapped));
		if (!m->mmapped)
			return -1;
		for (i = 0; i < r->nmmapped; i++) {
			m->mmapped[i].start = r->mmapped[i].start;
			m->mmapped[i].end = r->mmapped[i].end;
		}
		m->nmmapped = (uint32_t)r->nmmapped;
	}
	for (i = 0; i < r->narenas && !r->empty; i++)
		if (fill_heap(s, r, &r->arenas[i], in->lists_only) < 0)
			return -1;
	s->glibc = m;
	vms_snapshot_type_mmapped(s);
	return 0;
}

/* ---- the step ---- */

/* Whether two walks of a running target found the same mallinfo2 and
 * the same arenas: nothing moved between them that mallinfo2 counts. */
static bool same_walk(const struct glibc_walk_res *a,
		      const struct glibc_walk_res *b)
{
	size_t i;

	if (a->arena != b->arena || a->ordblks != b->ordblks ||
	    a->smblks != b->smblks || a->hblks != b->hblks ||
	    a->hblkhd != b->hblkhd || a->usmblks != b->usmblks ||
	    a->fsmblks != b->fsmblks || a->uordblks != b->uordblks ||
	    a->fordblks != b->fordblks || a->keepcost != b->keepcost ||
	    a->empty != b->empty || a->narenas != b->narenas ||
	    strcmp(a->partial, b->partial) != 0)
		return false;
	for (i = 0; i < a->narenas; i++)
		if (a->arenas[i].addr != b->arenas[i].addr ||
		    a->arenas[i].in_use != b->arenas[i].in_use ||
		    a->arenas[i].free != b->arenas[i].free ||
		    a->arenas[i].busy != b->arenas[i].busy)
			return false;
	return true;
}

static int walk(struct vms_snapshot *s, struct libc_info *li,
		struct vms_error *err)
{
	struct glibc_walk_in in = { 0 };
	struct glibc_walk_res res = { 0 }, first = { 0 };
	struct glibc_mem mem = { read_source, s, present_source,
				 read_pages_source };
	/* a running target (VMS_SRC_SETTLE): walked twice */
	bool twice = !(vms_source_caps(s) & VMS_SRC_CONSISTENT);
	uint64_t t0;
	int rc;

	in.spans = spans_of(s, &in.nspans);
	if (!in.spans)
		return step_nomem(err, "malloc");
	glibc_layout_for(li->major, li->minor, &in.lay);
	in.main_arena = li->main_arena + li->img->bias;
	in.mp = li->mp + li->img->bias;
	in.page_size = s->cap.page_size;
	/* walked twice while it runs: mallinfo2's lists alone, each time */
	in.lists_only = twice;
	in.progress = progress;
	in.progress_ctx = s;
	in.block = s->src.heap_block;
	in.block_ctx = s->src.heap_block_ctx;
	vms_source_hold(s, true);
	t0 = vms_mono_ns();
	/* the second walk reads again what the first read, in runs */
	in.keep = twice ? glibc_walk_keep_new() : NULL;
	rc = twice ? glibc_walk(&in, &mem, &first) : 0;
	if (rc == 0)
		rc = glibc_walk(&in, &mem, &res);
	glibc_walk_keep_free(in.keep);
	t0 = vms_us_since(t0);
	vms_source_hold(s, false);
	if (twice && rc == 0 && !same_walk(&first, &res)) {
		glibc_walk_fini(&first);
		glibc_walk_fini(&res);
		free((void *)in.spans);
		return note(s, "not done: the heap changed between two walks "
			       "of the running target (-F or -b fork hold "
			       "it still)") < 0
			       ? step_nomem(err, "malloc")
			       : 0;
	}
	glibc_walk_fini(&first); /* nothing when walked once */
	if (rc == 0) {
		if (fill(s, li, &in, &res, t0) < 0)
			rc = step_nomem(err, "malloc");
		else if (res.partial[0] &&
			 note(s, "partial: %s", res.partial) < 0)
			rc = step_nomem(err, "malloc");
	} else {
		vms_error_set(err, VMS_ERR_CAPTURE, 0,
			      "the heap walk was cancelled or ran out of "
			      "memory");
	}
	glibc_walk_fini(&res);
	free((void *)in.spans);
	return rc;
}

/* What the libc file says for every process that maps it (the run's
 * cache keeps it: elfcache_facts). */
struct libc_facts {
	bool known;
	unsigned major, minor;
	uint64_t main_arena, mp;
	const char *found_by; /* a literal */
};

static int step_malloc_run(struct vms_snapshot *s, unsigned have,
			   struct vms_error *err)
{
	struct libc_info li = { 0 };
	struct glibc_layout lay;
	struct libc_facts *f;
	char why[200];
	int rc = 0;

	(void)have;
	s->glibc = NULL;
	/* No glibc libc among the images: nothing is missing, there is no
	 * glibc heap to walk (a Go program, another C library), unless one
	 * is named like it but could not be read, or heaps of its shape
	 * were found (a static binary). */
	if (!find_libc(s, &li)) {
		const char *named = NULL;
		size_t i;

		for (i = 0; i < s->nimages && !named; i++)
			if (named_like_libc(s->images[i].path))
				named = s->images[i].path;
		/* heaps of glibc's shape all the same (the heaps step: a
		 * thread arena's heap_info, [heap]): a glibc linked into the
		 * executable, which has no release string to say its
		 * layout; their figures are null, and this says why */
		for (i = 0; i < s->nheaps && !named; i++)
			if (vms_heap_is_glibc(&s->heaps[i]))
				return note(s, "not done: no image is glibc's "
					       "libc (a C library linked "
					       "into the executable, or "
					       "another one): its heaps are "
					       "known by their shape only") < 0
					       ? step_nomem(err, "malloc")
					       : 0;
		if (!named)
			return 0;
		return note(s,
			    "not done: %s cannot be opened or is not "
			    "glibc's libc",
			    named) < 0
			       ? step_nomem(err, "malloc")
			       : 0;
	}
	f = elfcache_facts(s->src.elfcache, li.img->elf, "malloc", sizeof(*f));
	if (f && f->known) {
		libc_close(&li);
		li.major = f->major;
		li.minor = f->minor;
		li.main_arena = f->main_arena;
		li.mp = f->mp;
		li.found_by = f->found_by;
		return walk(s, &li, err);
	}
	if (!libc_open(s, &li))
		return note(s, "not done: %s cannot be opened", li.img->path) <
				       0
			       ? step_nomem(err, "malloc")
			       : 0;
	if (!glibc_find_version(li.img->elf, &li.src, &li.major, &li.minor)) {
		rc = note(s,
			  "not done: %s has no glibc release version "
			  "string",
			  li.img->path);
	} else if (!glibc_layout_for(li.major, li.minor, &lay)) {
		rc = note(s,
			  "not done: glibc %u.%u is not a version whose "
			  "malloc layout this vmscope knows (2.27 to 2.42)",
			  li.major, li.minor);
	} else if (from_debug_file(&li, &li.main_arena, &li.mp)) {
		li.found_by = "debug symbols";
	} else if (glibc_find_in_file(li.img->elf, &li.src, &lay,
				      &li.main_arena, &li.mp, why,
				      sizeof(why))) {
		li.found_by = "relocation";
	} else {
		rc = note(s, "not done: glibc %u.%u without debug symbols: %s",
			  li.major, li.minor, why);
	}
	libc_close(&li);
	if (rc < 0)
		return step_nomem(err, "malloc");
	if (!li.found_by)
		return 0;
	if (f) /* found: the same for the next process mapping this file */
		*f =
			(struct libc_facts){ true,     li.major,
					     li.minor, li.main_arena,
					     li.mp,    li.found_by };
	return walk(s, &li, err);
}

const struct vms_step vms_step_malloc = {
	.name = "malloc",
	.doing = "walking glibc heaps",
	.needs = VMS_SRC_MEMORY | VMS_SRC_CONSISTENT,
	.wants = VMS_SRC_FILES,
	.settles = true,
	.run = step_malloc_run,
};
