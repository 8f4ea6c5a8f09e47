/* step_parts.c — the "parts" step: a heap found by what it is, not by
 * the region it sits in. Where pieces of a heap whose mappings the kernel
 * merges with their anonymous neighbours cover a private data region in
 * part, the region is split into typed parts (model/parts.h). The pieces
 * come from a table of sources, one row each: the managed entries of
 * CPython (its obmalloc arenas: managed heap, adjacent arenas one part),
 * a JVM's Java heap where a region reaches past it (managed heap, its
 * regions' name; its resident bytes not measured), and glibc's mmapped
 * chunks that the malloc step located (heap, a part a
 * chunk, "glibc malloc (mmapped chunk)"; a region they fill whole is
 * typed heap by that step already; only where the pages can be told:
 * from a file or a core, without page tables, a part's figures would be
 * its size's share of the region's, a guess, and the region stays whole). A part's size and committed bytes are
 * the piece's (each is mapped whole), its Rss the pages of its range
 * present in RAM, its Swap the pages in swap, its private resident bytes
 * those present pages the process alone maps (the source's page tables:
 * /proc/PID/pagemap as of the snapshot; the fork clone shares every page
 * with the target, and does not tell that), the rest of its figures the
 * region's in proportion (parts.h). A region pieces of one type cover
 * whole is typed so itself. Runs after the heaps' and runtimes' steps,
 * before the totals, which count by parts.
 *
 * Each managed entry's resident bytes (its record's "resident") are
 * measured here while the source has memory and its pages can be told,
 * and kept with the entries (a snapshot file puts them back); -1 where
 * not measured, and for the runtimes not in the table. A snapshot file
 * keeps the parts of a region as captured (snapfile_write.c), which are
 * then not made again. Reads a pagemap entry per page of the pieces, in
 * the hold the steps before took. See steps.h.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/steps.h"
#include "model/parts.h"
#include "model/source.h"

/* A piece of a heap that may cover part of a region: a managed entry's
 * range, or one of glibc's mmapped chunks. */
struct piece {
	uint64_t start, end;
	const char *name; /* the part's */
	uint8_t type;
	bool commit_whole; /* mapped whole, charged to the commit limit */
	bool bare; /* only in a region nothing named (no detail) */
	struct vms_managed *m; /* its entry (resident kept), or NULL */
	int64_t resident; /* measured, or the entry's kept; -1 */
};

struct pieces {
	struct piece *v;
	size_t n, cap;
};

static int piece_add(struct pieces *p, const struct piece *x)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct piece *n = realloc(p->v, cap * sizeof(*n));

		if (!n)
			return -1;
		p->v = n;
		p->cap = cap;
	}
	p->v[p->n++] = *x;
	return 0;
}

/* The runtimes whose entries make parts, and the name of their part. */
static const struct {
	const char *runtime, *part;
} part_runtimes[] = {
	{ "cpython", "cpython obmalloc arenas" },
};
#define NPART_RT (sizeof(part_runtimes) / sizeof(part_runtimes[0]))

static const char *part_name(const struct vms_managed *m)
{
	size_t k;

	for (k = 0; k < NPART_RT; k++)
		if (strcmp(m->runtime, part_runtimes[k].runtime) == 0)
			return part_runtimes[k].part;
	return NULL;
}

/* The managed entries of the runtimes above (their resident as kept: a
 * snapshot file's). */
static int from_managed(struct vms_snapshot *s, struct pieces *p)
{
	size_t i;

	for (i = 0; i < s->nmanaged; i++) {
		struct vms_managed *m = &s->managed[i];
		const char *name = part_name(m);

		if (!name) {
			m->resident = -1;
			continue;
		}
		if (m->end > m->start &&
		    piece_add(p, &(struct piece){ m->start, m->end, name,
						  VMS_T_MANAGED_HEAP, true,
						  false, m, m->resident }) < 0)
			return -1;
	}
	return 0;
}

/* glibc's mmapped chunks (the malloc step's): a region one or more fill
 * is typed heap already (vms_snapshot_type_mmapped); one merged with
 * other memory gets a heap part per chunk. glibc maps each whole, charged
 * to the commit limit. */
static int from_glibc(struct vms_snapshot *s, struct pieces *p)
{
	const struct vms_malloc *g = s->glibc;
	uint32_t i;

	for (i = 0; g && i < g->nmmapped; i++)
		if (g->mmapped[i].end > g->mmapped[i].start &&
		    piece_add(p, &(struct piece){ g->mmapped[i].start,
						  g->mmapped[i].end,
						  VMS_MMAPPED_CHUNK, VMS_T_HEAP,
						  true, true, NULL, -1 }) < 0)
			return -1;
	/* the main arena's segments in mmapped memory (sbrk failed: not
	 * contiguous), each mapped whole, charged */
	for (i = 0; g && i < s->nheaps; i++) {
		const struct vms_heap *h = &s->heaps[i];
		uint32_t k;

		if (strcmp(h->kind, "glibc-main") != 0)
			continue;
		for (k = 0; k < h->nsegs; k++) {
			ptrdiff_t r =
				vms_snapshot_find_index(s, h->segs[k].start);

			if (r < 0 ||
			    (s->regions[r].path &&
			     !vms_region_plain_anon(&s->regions[r])) ||
			    h->segs[k].end <= h->segs[k].start)
				continue;
			if (piece_add(p, &(struct piece){ h->segs[k].start,
							  h->segs[k].end,
							  VMS_MAIN_MMAPPED,
							  VMS_T_HEAP, true,
							  true, NULL, -1 }) < 0)
				return -1;
		}
	}
	return 0;
}

/* A JVM's Java heap where a region reaches past its reservation (the
 * kernel merged a neighbour's mapping with the heap's: step_jvm.c): the
 * heap's share a managed heap part named as its regions are. Its
 * resident bytes are not measured (a heap of many GiB: a pagemap entry a
 * page). */
static int from_jvm(struct vms_snapshot *s, struct pieces *p)
{
	size_t i, k;

	for (i = 0; i < s->nmanaged; i++) {
		const struct vms_managed *m = &s->managed[i];
		const char *name = "Java heap";
		ptrdiff_t at;

		if (strcmp(m->runtime, "jvm") != 0 || m->end <= m->start)
			continue;
		at = vms_snapshot_find_index(s, m->start);
		for (k = at < 0 ? s->nregions : (size_t)at;
		     k < s->nregions && s->regions[k].start < m->end; k++)
			if (s->regions[k].type == VMS_T_MANAGED_HEAP &&
			    s->regions[k].detail) {
				name = s->regions[k].detail;
				break;
			}
		if (piece_add(p, &(struct piece){ m->start, m->end, name,
						  VMS_T_MANAGED_HEAP, false,
						  false, NULL, -1 }) < 0)
			return -1;
	}
	return 0;
}

/* Where the pieces come from: one row each. */
static int (*const part_sources[])(struct vms_snapshot *,
				   struct pieces *) = { from_managed,
							from_glibc, from_jvm };
#define NPART_SRC (sizeof(part_sources) / sizeof(part_sources[0]))

static int by_start(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* The bytes of x's resident that lie in [lo, hi) (a file's parts: the
 * entries' figures kept): all of them when x is inside, else by size, in
 * whole pages; -1 unknown. */
static int64_t piece_rss(const struct piece *x, uint64_t lo, uint64_t hi,
			 uint64_t page)
{
	uint64_t len = x->end - x->start, v;

	if (x->resident < 0)
		return -1;
	if (lo <= x->start && hi >= x->end)
		return x->resident;
	v = (uint64_t)((unsigned __int128)(uint64_t)x->resident * (hi - lo) /
		       len);
	return (int64_t)(v - v % page);
}

/* What split() needs to measure a part (buf NULL: from the pieces). */
struct meas {
	unsigned char *buf;
	size_t cap;
	uint64_t page;
};

/* The parts of region r from pieces v[first...] (by address); 0, -1 on
 * out of memory. Adjacent pieces of one name are one part. */
static int split(struct vms_snapshot *s, struct vms_region *r,
		 const struct piece *v, size_t nv, size_t first,
		 struct vms_part_spec *sp, const struct meas *me)
{
	size_t i, n = 0;
	uint64_t covered = 0;
	bool one_type = true;
	int rc;

	for (i = first; i < nv && v[i].start < r->end; i++) {
		uint64_t lo = v[i].start > r->start ? v[i].start : r->start;
		uint64_t hi = v[i].end < r->end ? v[i].end : r->end;
		int64_t rss;

		/* a bare piece: only where nothing described the region
		 * (its file's name, for a file in name only, is no word) */
		if (lo >= hi ||
		    (v[i].bare && r->detail && r->detail != r->path))
			continue;
		if (n && lo < sp[n - 1].end)
			lo = sp[n - 1].end; /* overlapping pieces: once */
		if (lo >= hi)
			continue;
		rss = piece_rss(&v[i], lo, hi, me->page);
		covered += hi - lo;
		if (n && sp[n - 1].end == lo && sp[n - 1].name == v[i].name &&
		    !v[i].bare) {
			sp[n - 1].end = hi;
			sp[n - 1].rss = sp[n - 1].rss < 0 || rss < 0
						? -1
						: sp[n - 1].rss + rss;
			continue;
		}
		one_type = one_type && (!n || sp[0].type == v[i].type);
		sp[n++] = (struct vms_part_spec){
			.name = v[i].name,
			.start = lo,
			.end = hi,
			.type = v[i].type,
			.rss = rss,
			.swap = -1,
			.priv = -1,
			.commit_whole = v[i].commit_whole,
		};
	}
	if (!n)
		return 0;
	if (covered == vms_region_size(r) && one_type) {
		r->type = sp[0].type;
		r->detail = sp[0].name;
		return 0;
	}
	/* measured whole, where the pages can be told: a piece that
	 * overlaps its neighbour or its region's end is not cut by size */
	for (i = 0; me->buf && i < n; i++) {
		struct vms_part_fig f;

		if (!vms_parts_measure(s, sp[i].start, sp[i].end, me->buf,
				       me->cap, &f))
			continue;
		sp[i].rss = f.rss;
		sp[i].swap = f.swap;
		sp[i].priv = f.priv;
	}
	rc = vms_parts_set(s, r, sp, n);
	if (rc == 0) {
		/* what the region holds, for its row (the first two kinds) */
		const char *other = NULL;

		for (i = 1; i < n && !other; i++)
			if (strcmp(sp[i].name, sp[0].name) != 0)
				other = sp[i].name;
		r->detail = arena_printf(&s->arena, "holds %s%s%s (%llu K)",
					 sp[0].name, other ? ", " : "",
					 other ? other : "",
					 (unsigned long long)(covered >> 10));
		if (!r->detail)
			return -1;
	}
	return rc == -1 ? -1 : 0;
}

static int step_parts_run(struct vms_snapshot *s, unsigned have,
			  struct vms_error *err)
{
	struct pieces p = { NULL, 0, 0 };
	struct vms_part_spec *sp = NULL;
	struct meas me = { NULL, 4096, 0 };
	size_t i, at = 0;
	bool held = false;
	int rc = 0;

	for (i = 0; i < NPART_SRC; i++)
		if (part_sources[i](s, &p) < 0)
			goto oom;
	if (!p.n)
		goto out;
	qsort(p.v, p.n, sizeof(*p.v), by_start);
	sp = malloc(p.n * sizeof(*sp));
	if (!sp)
		goto oom;
	me.page = s->cap.page_size ? s->cap.page_size : 4096;
	if (have & VMS_SRC_MEMORY) {
		bool known = true;

		me.buf = malloc(me.cap);
		if (!me.buf)
			goto oom;
		vms_source_hold(s, true);
		held = true;
		/* each managed entry's resident, kept with it */
		for (i = 0; i < p.n && known; i++) {
			struct vms_part_fig f;

			if (!p.v[i].m)
				continue;
			known = vms_parts_measure(s, p.v[i].start, p.v[i].end,
						  me.buf, me.cap, &f);
			p.v[i].resident = p.v[i].m->resident =
				known ? f.rss : -1;
		}
		/* a source whose pages cannot be told: from the pieces */
		if (!known) {
			free(me.buf);
			me.buf = NULL;
		}
	}
	if (!me.buf) {
		/* no page tables (a snapshot file, a core): a managed
		 * entry's kept resident bytes make its parts' figures; a
		 * glibc chunk has none, and a part figured by its size
		 * would be a guess: the region stays whole, as captured */
		size_t k = 0;

		for (i = 0; i < p.n; i++)
			if (p.v[i].m)
				p.v[k++] = p.v[i];
		p.n = k;
	}
	for (i = 0; i < s->nregions && at < p.n; i++) {
		struct vms_region *r = &s->regions[i];

		while (at < p.n && p.v[at].end <= r->start)
			at++;
		if (at == p.n || p.v[at].start >= r->end ||
		    r->type != VMS_T_PRIVATE_DATA || r->nchildren ||
		    !(vms_region_is_anon(r) || vms_region_plain_anon(r)))
			continue;
		if (split(s, r, p.v, p.n, at, sp, &me) < 0)
			goto oom;
	}
	goto out;
oom:
	rc = step_nomem(err, "parts");
out:
	if (held)
		vms_source_hold(s, false);
	free(me.buf);
	free(sp);
	free(p.v);
	return rc;
}

const struct vms_step vms_step_parts = {
	.name = "parts",
	.doing = "splitting regions into heaps' parts",
	.run = step_parts_run,
};
