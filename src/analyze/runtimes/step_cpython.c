/* step_cpython.c — the "cpython" step: CPython's obmalloc arenas, found by
 * their pools' headers (rtheap.h) at the pool-aligned addresses of
 * anonymous memory no step before claimed: 16 KiB pools in 1 MiB arenas
 * (3.10+ on 64 bit), else 4 KiB pools in 256 KiB arenas. Pools are grouped
 * into arenas by their arenaindex; each arena is one s->managed entry of
 * runtime "cpython". Its range is the arena's mapping as obmalloc's own
 * arenas vector (struct arena_object, its `address`) says, the vector
 * found in the writable memory of the image that exports PyObject_Malloc
 * (the `arenas` pointer: a static of obmalloc.c, in .bss, up to 3.11; in
 * _PyRuntime in 3.12; in .bss again from 3.13), looked for in the image's
 * .bss first, by every arena seen agreeing with it; where it is not found, from
 * the arena's first pool (up to a pool past the mapping's page-aligned
 * start). Size reserved and committed: the arena's (obmalloc maps each
 * arena whole); used = the bytes in allocated blocks (Σ count × block
 * size, as sys._debugmallocstats() counts them). The regions they lie in
 * are typed by the step "parts" (step_parts.c): a region the arenas fill
 * is a managed heap, one they share with other memory is split into typed
 * parts. The gate is the image that exports PyObject_Malloc. Needs memory;
 * reads 48 bytes per pool of unclaimed anonymous memory (256 headers at a
 * time: vms_source_read_each), the image's writable memory and 48 bytes
 * per arena per pointer in it into memory malloc could have handed out
 * (private, read-write, anonymous, in no pool found), in one hold. See
 * steps.h.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/rtheap.h"
#include "analyze/rtscan.h"
#include "analyze/steps.h"
#include "elf/elfimage.h"
#include "model/source.h"

struct py_pool {
	uint64_t addr, used;
	uint32_t arenaindex, count;
};

struct py_pools {
	struct py_pool *p;
	size_t n, cap;
};

/* Pool headers read at once (the source's read_each: one read of the
 * page tables for them, then one of each header in RAM). */
#define PY_SCAN_BATCH 256

static int scan_run(struct vms_snapshot *s, const struct rtscan_run *run,
		    uint32_t psize, struct py_pools *v)
{
	uint64_t a = (run->start + psize - 1) & ~(uint64_t)(psize - 1);
	uint64_t addr[PY_SCAN_BATCH];
	unsigned char hdr[PY_SCAN_BATCH * RTHEAP_PY_HDR], ok[PY_SCAN_BATCH];

	while (a < run->end && run->end - a >= psize) {
		struct vms_error e;
		size_t n = 0, i;

		for (;
		     n < PY_SCAN_BATCH && a < run->end && run->end - a >= psize;
		     a += psize)
			addr[n++] = a;
		if (vms_source_read_each(s, addr, n, RTHEAP_PY_HDR, hdr, ok,
					 &e) < 0)
			continue; /* none read */
		for (i = 0; i < n; i++) {
			struct rtheap_py_pool p;

			if (!ok[i] ||
			    !rtheap_py_pool(hdr + i * RTHEAP_PY_HDR,
					    RTHEAP_PY_HDR, addr[i], psize, &p))
				continue;
			if (v->n == v->cap) {
				size_t nc = v->cap ? v->cap * 2 : 1024;
				struct py_pool *np =
					realloc(v->p, nc * sizeof(*np));

				if (!np)
					return -1;
				v->p = np;
				v->cap = nc;
			}
			v->p[v->n++] =
				(struct py_pool){ addr[i],
						  (uint64_t)p.count * p.block,
						  p.arenaindex, p.count };
		}
	}
	return 0;
}

static int by_arena(const void *a, const void *b)
{
	const struct py_pool *x = a, *y = b;

	if (x->arenaindex != y->arenaindex)
		return x->arenaindex < y->arenaindex ? -1 : 1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* struct arena_object (Objects/obmalloc.c, the same since 2.5; 48 bytes on
 * LP64): address (the arena's mapping, 0 once freed), pool_address,
 * nfreepools, ntotalpools, freepools, nextarena, prevarena. */
#define PY_ARENA_OBJ 48
#define PY_MAX_RW (64u << 20) /* an image's writable memory read whole */
#define PY_MAX_INDEX (1u << 20) /* arenas: 1 TiB of 1 MiB arenas */

/* The arenas of v (sorted by_arena): the first pool of each, and its index. */
struct py_first {
	uint64_t addr;
	uint32_t index;
};

/* Whether entry e (PY_ARENA_OBJ bytes) is an arena of asize bytes holding
 * the pool at addr: a page-aligned mapping around it, the next pool to
 * carve within it, its pool counts within an arena's. */
static bool arena_holds(const unsigned char *e, uint64_t addr, uint64_t asize)
{
	uint64_t a, pa, n;

	memcpy(&a, e, 8);
	memcpy(&pa, e + 8, 8);
	memcpy(&n, e + 16, 8);
	return a && a % 4096 == 0 && a <= addr && addr - a < asize && pa >= a &&
	       pa - a <= asize && (n >> 32) >= 1 &&
	       (n >> 32) <= RTHEAP_PY_POOLS && (n & 0xffffffffu) <= (n >> 32);
}

/* Whether a vector at base agrees with every arena in f[0, n). */
static bool vector_agrees(struct vms_snapshot *s, uint64_t base,
			  const struct py_first *f, size_t n, uint32_t top,
			  uint64_t asize, unsigned char *vec)
{
	size_t k;

	if (base + (uint64_t)(top + 1) * PY_ARENA_OBJ < base ||
	    !rtscan_read(s, base, vec, (size_t)(top + 1) * PY_ARENA_OBJ))
		return false;
	for (k = 0; k < n; k++)
		if (!arena_holds(vec + (size_t)f[k].index * PY_ARENA_OBJ,
				 f[k].addr, asize))
			return false;
	return true;
}

/* Whether addr lies in one of the pools at pool[0, n) (sorted), each
 * psize bytes. */
static bool in_pool(const uint64_t *pool, size_t n, uint32_t psize,
		    uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the first pool past addr */
		size_t mid = lo + (hi - lo) / 2;

		if (pool[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && addr - pool[lo - 1] < psize;
}

/* Whether b may be where malloc put a vector: in memory malloc hands out
 * (private, readable and writable, anonymous: no file, or the kernel's
 * [heap] or a name of prctl's [anon:...]), in none of obmalloc's pools
 * (pool[0, npool), sorted: what points into them is an object of
 * CPython's). Only a cheap test of the snapshot's figures, before a read
 * of the target's memory: on a running CPython nine pointers in ten of
 * the image's writable memory are to its code, its constants or its
 * objects. */
static bool may_hold_vector(const struct vms_snapshot *s, uint64_t b,
			    const uint64_t *pool, size_t npool, uint32_t psize)
{
	ptrdiff_t i = vms_snapshot_find_index(s, b);
	const struct vms_region *r;

	if (i < 0)
		return false;
	r = &s->regions[i];
	return (r->perms & (VMS_PERM_R | VMS_PERM_W | VMS_PERM_SHARED)) ==
		       (VMS_PERM_R | VMS_PERM_W) &&
	       (!r->path || r->path[0] == '[') &&
	       !in_pool(pool, npool, psize, b);
}

static int by_addr(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The words read of rw (a part of an image's writable memory at [lo,
 * hi): its pages in RAM) that may point to a malloc'd vector
 * (may_hold_vector; 16-aligned, outside the image), sorted, each once,
 * into a malloc'd *out: how many, -1 when out of memory. */
static ssize_t candidates(const struct vms_snapshot *s,
			  const struct rtscan_rw *rw, uint64_t lo, uint64_t hi,
			  const uint64_t *pool, size_t npool, uint32_t psize,
			  uint64_t **out)
{
	uint64_t *c = NULL;
	size_t k = 0, end, m = 0, cap = 0, u = 0;

	while (rtscan_rw_next(rw, &k, &end))
		for (; k < end; k++) {
			uint64_t b = rw->w[k];

			if (!b || b % 16 || (b >= lo && b < hi) ||
			    !may_hold_vector(s, b, pool, npool, psize))
				continue;
			if (m == cap) {
				size_t nc = cap ? cap * 2 : 256;
				uint64_t *nv = realloc(c, nc * sizeof(*c));

				if (!nv) {
					free(c);
					return -1;
				}
				c = nv;
				cap = nc;
			}
			c[m++] = b;
		}
	if (m)
		qsort(c, m, sizeof(*c), by_addr);
	for (k = 0; k < m; k++)
		if (!u || c[k] != c[u - 1])
			c[u++] = c[k];
	*out = c;
	return (ssize_t)u;
}

/* CPython is in the image that defines it: its obmalloc's entry. */
static const char *const gate[] = { "PyObject_Malloc", NULL };

/* What find_vector shares with each range it looks in. */
struct py_find {
	struct vms_snapshot *s;
	const struct py_first *f;
	size_t n;
	uint32_t top;
	uint64_t asize;
	const uint64_t *pool;
	size_t npool;
	uint64_t lo, hi; /* the image's writable memory */
	unsigned char *vec, *one; /* top + 1 entries; PY_SCAN_BATCH */
};

/* The vector a pointer in [a, b) (within the image's writable memory)
 * leads to: 1 with *found when exactly one does, 0 when none, 2 when
 * more than one, -1 on out of memory. The candidates' entries for the
 * first arena are read PY_SCAN_BATCH at a time (the source's read_each:
 * one read of the page tables for them; a running CPython's image holds
 * some hundreds). */
static int vector_in(struct py_find *F, uint64_t a, uint64_t b, uint64_t *found)
{
	uint32_t psize = (uint32_t)(F->asize / RTHEAP_PY_POOLS);
	uint64_t first = (uint64_t)F->f[0].index * PY_ARENA_OBJ;
	uint64_t *c = NULL, addr[PY_SCAN_BATCH];
	unsigned char ok[PY_SCAN_BATCH];
	struct rtscan_rw rw = { 0 };
	ssize_t nc;
	size_t k, i;
	int rc = 0;

	*found = 0;
	/* (its pages not in RAM zeros, never written: rtscan.h) */
	switch (rtscan_rw_read(F->s, a, b, &rw)) {
	case -1:
		return -1;
	case 0:
		rtscan_rw_fini(&rw);
		return 0;
	}
	nc = candidates(F->s, &rw, F->lo, F->hi, F->pool, F->npool, psize, &c);
	rtscan_rw_fini(&rw);
	if (nc < 0)
		return -1;
	for (k = 0; k < (size_t)nc && rc < 2; k += PY_SCAN_BATCH) {
		size_t m = (size_t)nc - k < PY_SCAN_BATCH ? (size_t)nc - k
							  : PY_SCAN_BATCH;
		struct vms_error e;

		for (i = 0; i < m; i++) /* (each in a region: no overflow) */
			addr[i] = c[k + i] + first;
		if (vms_source_read_each(F->s, addr, m, PY_ARENA_OBJ, F->one,
					 ok, &e) < 0)
			continue; /* none read */
		for (i = 0; i < m && rc < 2; i++) {
			/* a malloc'd vector: its entry for the first arena
			 * holding that arena, every other arena's too */
			if (!ok[i] ||
			    !arena_holds(F->one + i * PY_ARENA_OBJ,
					 F->f[0].addr, F->asize) ||
			    !vector_agrees(F->s, c[k + i], F->f, F->n, F->top,
					   F->asize, F->vec))
				continue;
			rc++;
			*found = c[k + i];
		}
	}
	free(c);
	return rc;
}

/* The .bss of the image's writable loads, within [lo, hi), whole pages
 * of page bytes (a power of two):
 * [*a, *b). False when it has none (or its ELF headers are not known). */
static bool image_bss(const struct vms_image *im, uint64_t page, uint64_t lo,
		      uint64_t hi, uint64_t *a, uint64_t *b)
{
	size_t k;

	*a = *b = 0;
	for (k = 0; im->elf && k < im->elf->nload; k++) {
		const struct elfimage_load *l = &im->elf->load[k];
		uint64_t x = (im->bias + l->vaddr + l->filesz) & ~(page - 1);
		uint64_t y = (im->bias + l->vaddr + l->memsz + page - 1) &
			     ~(page - 1);

		if (!(l->flags & PF_W) || l->memsz <= l->filesz)
			continue;
		x = x < lo ? lo : x;
		y = y > hi ? hi : y;
		if (x < y && (!*b || y - x > *b - *a)) {
			*a = x;
			*b = y;
		}
	}
	return *a < *b;
}

/* obmalloc's arenas vector: the one pointer in the image's writable memory
 * to a vector every arena seen agrees with (its entry's mapping holds the
 * arena's first pool). pool[0, npool): every pool's address, sorted.
 * Looked for first in the image's .bss, where obmalloc keeps its state
 * up to 3.11 (a static of obmalloc.c) and from 3.13 (the main
 * interpreter's, obmalloc_state_main), a fifth of the writable memory of
 * a python3.11; then, when none is there, in all of it (3.12 keeps it in
 * _PyRuntime, initialised data). Returns its entries 0..top in a
 * malloc'd buffer, NULL when none (or more than one in the range looked
 * in) is found; -1 in *oom on out of memory. */
static unsigned char *find_vector(struct vms_snapshot *s,
				  const struct py_first *f, size_t n,
				  uint32_t top, uint64_t asize,
				  const uint64_t *pool, size_t npool, bool *oom)
{
	size_t which;
	const struct vms_image *im = rtscan_defines(s, gate, &which);
	struct py_find F = {
		s, f, n, top, asize, pool, npool, 0, 0, NULL, NULL
	};
	unsigned char *got = NULL;
	uint64_t a, b, found = 0;
	int rc = 0;

	*oom = false;
	if (!n || top >= PY_MAX_INDEX || !im ||
	    !rtscan_image_rw(s, im, PY_MAX_RW, &F.lo, &F.hi))
		return NULL;
	F.vec = malloc((size_t)(top + 1) * PY_ARENA_OBJ);
	F.one = malloc(PY_SCAN_BATCH * PY_ARENA_OBJ);
	if (!F.vec || !F.one) {
		*oom = true;
		goto out;
	}
	if (image_bss(im, s->cap.page_size ? s->cap.page_size : 4096, F.lo,
		      F.hi, &a, &b))
		rc = vector_in(&F, a, b, &found);
	if (rc == 0)
		rc = vector_in(&F, F.lo, F.hi, &found);
	if (rc < 0)
		*oom = true;
	if (rc == 1 && vector_agrees(s, found, f, n, top, asize, F.vec)) {
		got = F.vec;
		F.vec = NULL;
	}
out:
	free(F.one);
	free(F.vec);
	return got;
}

static int add_arenas(struct vms_snapshot *s, struct py_pools *v,
		      uint32_t psize)
{
	uint64_t asize = (uint64_t)psize * RTHEAP_PY_POOLS;
	struct py_first *f;
	unsigned char *vec;
	uint64_t *pool;
	uint32_t top = 0;
	size_t i = 0, n = 0;
	bool oom;

	/* found in address order: the pools' addresses sorted as they are */
	pool = malloc(v->n * sizeof(*pool));
	if (!pool)
		return -1;
	for (i = 0; i < v->n; i++)
		pool[i] = v->p[i].addr;
	qsort(v->p, v->n, sizeof(*v->p), by_arena);
	f = malloc(v->n * sizeof(*f));
	if (!f) {
		free(pool);
		return -1;
	}
	for (i = 0; i < v->n; i++)
		if (!i || v->p[i].arenaindex != v->p[i - 1].arenaindex) {
			f[n++] = (struct py_first){ v->p[i].addr,
						    v->p[i].arenaindex };
			if (v->p[i].arenaindex > top)
				top = v->p[i].arenaindex;
		}
	vec = find_vector(s, f, n, top, asize, pool, v->n, &oom);
	free(f);
	free(pool);
	if (oom)
		return -1;
	i = 0;
	while (i < v->n) {
		size_t j = i, inuse = 0;
		uint64_t used = 0, start = v->p[i].addr;
		const char *how = "from its first pool";

		/* Its mapping, as the vector says, when that holds the pool:
		 * a second interpreter's arenas (3.12+) have their own. */
		if (vec &&
		    arena_holds(vec + (size_t)v->p[i].arenaindex * PY_ARENA_OBJ,
				start, asize)) {
			memcpy(&start,
			       vec + (size_t)v->p[i].arenaindex * PY_ARENA_OBJ,
			       8);
			how = "its mapping as the arenas vector says";
		}
		/* An arena's pools lie within its size of its start. */
		for (; j < v->n && v->p[j].arenaindex == v->p[i].arenaindex &&
		       v->p[j].addr - start < asize;
		     j++) {
			used += v->p[j].used;
			inuse += v->p[j].count > 0;
		}
		if (vms_managed_add(
			    s, &(struct vms_managed){
				       .runtime = "cpython",
				       .start = start,
				       .end = start + asize,
				       .reserved = asize,
				       .committed = asize,
				       .used = (int64_t)used,
				       .figures = "obmalloc pool headers",
				       .detail = arena_printf(
					       &s->arena,
					       "obmalloc arena %u: %zu pools "
					       "seen, %zu in use; its range "
					       "%s",
					       v->p[i].arenaindex, j - i, inuse,
					       how) }) < 0) {
			free(vec);
			return -1;
		}
		i = j;
	}
	free(vec);
	return 0;
}

static int py_scan(struct vms_snapshot *s, struct py_pools *v)
{
	static const uint32_t sizes[] = { 16384, 4096 };
	struct rtscan_run *runs;
	size_t nruns, i, k;
	bool oom;

	runs = rtscan_runs(s, &nruns, &oom);
	if (oom)
		return -1;
	vms_source_hold(s, true);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		for (i = 0; i < nruns; i++) {
			/* cancelled: the pipeline stops at the next step */
			if (vms_source_progress(s, "finding CPython arenas", i,
						nruns))
				return 0;
			if (scan_run(s, &runs[i], sizes[k], v) < 0)
				return -1;
		}
		if (v->n)
			return add_arenas(s, v, sizes[k]);
	}
	return 0;
}

static void step_cpython_asks(void (*add)(void *ctx, const char *const *names),
			      void *ctx)
{
	add(ctx, gate);
}

static int step_cpython_run(struct vms_snapshot *s, unsigned have,
			    struct vms_error *err)
{
	struct py_pools v = { 0 };
	int rc = rtscan_gate(s, have, "cpython", gate, "obmalloc arenas");

	if (rc <= 0)
		return rc < 0 ? step_nomem(err, "cpython") : 0;
	rc = py_scan(s, &v);
	vms_source_hold(s, false);
	free(v.p);
	return rc < 0 ? step_nomem(err, "cpython") : 0;
}

/* What a snapshot file keeps of it (model/kept.h). */
static const struct vms_kept kept = {
	.step = "cpython",
	.runtime = "cpython",
};

const struct vms_step vms_step_cpython = {
	.name = "cpython",
	.doing = "finding CPython arenas",
	.run = step_cpython_run,
	.kept = &kept,
	.asks = step_cpython_asks,
};
