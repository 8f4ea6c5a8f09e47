/* step_cpython.c — the "cpython" step: CPython's obmalloc arenas, found by
 * their pools' headers (rtheap.h) at the pool-aligned addresses of
 * anonymous memory no step before claimed: 16 KiB pools in 1 MiB arenas
 * (3.10+ on 64 bit), else 4 KiB pools in 256 KiB arenas. Pools are grouped
 * into arenas by their arenaindex; each arena is one s->managed entry of
 * runtime "cpython": from its first pool, the arena's size reserved and
 * committed (obmalloc maps each arena whole), used = the bytes in
 * allocated blocks (Σ count × block size, as sys._debugmallocstats()
 * counts them). The regions they lie in are typed by the step "parts"
 * (step_parts.c): a region the arenas fill is a managed heap, one they
 * share with other memory is split into typed parts. The gate is the image that exports PyObject_Malloc. Needs memory;
 * reads 48 bytes per pool of unclaimed anonymous memory, in one hold.
 * See steps.h.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/rtheap.h"
#include "analyze/rtscan.h"
#include "analyze/steps.h"
#include "model/source.h"

struct py_pool {
	uint64_t addr, used;
	uint32_t arenaindex, count;
};

struct py_pools {
	struct py_pool *p;
	size_t n, cap;
};

static int scan_run(struct vms_snapshot *s, const struct rtscan_run *run,
		    uint32_t psize, struct py_pools *v)
{
	uint64_t a = (run->start + psize - 1) & ~(uint64_t)(psize - 1);

	for (; a < run->end && run->end - a >= psize; a += psize) {
		unsigned char hdr[RTHEAP_PY_HDR];
		struct rtheap_py_pool p;

		if (!rtscan_read(s, a, hdr, sizeof(hdr)) ||
		    !rtheap_py_pool(hdr, sizeof(hdr), a, psize, &p))
			continue;
		if (v->n == v->cap) {
			size_t nc = v->cap ? v->cap * 2 : 1024;
			struct py_pool *np = realloc(v->p, nc * sizeof(*np));

			if (!np)
				return -1;
			v->p = np;
			v->cap = nc;
		}
		v->p[v->n++] = (struct py_pool){ a, (uint64_t)p.count * p.block,
						 p.arenaindex, p.count };
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

static int add_arenas(struct vms_snapshot *s, struct py_pools *v,
		      uint32_t psize)
{
	uint64_t asize = (uint64_t)psize * RTHEAP_PY_POOLS;
	size_t i = 0;

	qsort(v->p, v->n, sizeof(*v->p), by_arena);
	while (i < v->n) {
		size_t j = i, inuse = 0;
		uint64_t used = 0, start = v->p[i].addr;

		/* An arena's pools lie within its size of its first. */
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
					       "seen, %zu in use",
					       v->p[i].arenaindex, j - i,
					       inuse) }) < 0)
			return -1;
		i = j;
	}
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

static int step_cpython_run(struct vms_snapshot *s, unsigned have,
			    struct vms_error *err)
{
	static const char *const gate[] = { "PyObject_Malloc", NULL };
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
};
