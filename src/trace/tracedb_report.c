/* tracedb_report.c — tracedb_report(): a window's figures per call site,
 * from the sites' (alloc epoch, free epoch) cells, or, for the part of the
 * address space asked for, from the allocations alive now; the sites'
 * frames named, sites of one name folded (vms_trace_fold_sites), largest
 * impact first; and what a snapshot file keeps for the viewer beside the
 * report (tracedb_kept_live).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/tracedb.h"
#include "trace/tracedb_priv.h"
#include "trace/tracesym.h"

/* What is alive now in [lo, hi), per site and impacting type (a live
 * block or range is outstanding or lasting by its epoch): acc[site *
 * VMS_TRACE_NIMPACTS + type], counts in 1/ONE. A range is counted for the
 * bytes of it inside, once for each piece. NULL: out of memory. */
static struct vms_trace_count *alive_in(const struct tracedb *db, uint64_t lo,
					uint64_t hi, unsigned from, unsigned to)
{
	struct vms_trace_count *acc = calloc(db->nsites ? db->nsites : 1,
					     VMS_TRACE_NIMPACTS * sizeof(*acc));
	size_t i;

	if (!acc)
		return NULL;
	for (i = 0; i < db->live.cap && db->live.n; i++) {
		const struct live *e = &db->live.v[i];
		int k;

		if (!e->addr || e->addr < lo || e->addr >= hi ||
		    (k = vms_trace_impact_of(e->epoch, LIVE_EPOCH, from, to)) <
			    0)
			continue;
		acc[e->site * VMS_TRACE_NIMPACTS + k].count += e->count;
		acc[e->site * VMS_TRACE_NIMPACTS + k].bytes += e->size;
	}
	for (i = 0; i < db->maps.n + db->commits.n; i++) {
		const struct range *r =
			i < db->maps.n ? &db->maps.v[i]
				       : &db->commits.v[i - db->maps.n];
		uint64_t a = r->start > lo ? r->start : lo;
		uint64_t b = r->end < hi ? r->end : hi;
		int k;

		if (a >= b || (k = vms_trace_impact_of(r->epoch, LIVE_EPOCH,
						       from, to)) < 0)
			continue;
		acc[r->site * VMS_TRACE_NIMPACTS + k].count += ONE;
		acc[r->site * VMS_TRACE_NIMPACTS + k].bytes += b - a;
	}
	return acc;
}

/* What was allocated before the trace, per heap, in the window [from,
 * to): released if freed inside it, lasting if alive at its end. */
static int before_report(const struct tracedb *db, unsigned from, unsigned to,
			 struct arena *a, struct vms_trace_report *out)
{
	size_t i;
	uint32_t c;

	out->before_walked = db->before_walked;
	if (!db->before_walked)
		return 0;
	if (db->before_partial[0] &&
	    !(out->before_partial = arena_strdup(a, db->before_partial)))
		return -1;
	if (db->nbheaps &&
	    !(out->before = arena_alloc(a, db->nbheaps * sizeof(*out->before))))
		return -1;
	for (i = 0; i < db->nbheaps; i++) {
		const struct before_heap *h = &db->bheaps[i];
		struct vms_trace_before *o = &out->before[i];
		struct vms_trace_count gone = { 0, 0 };

		memset(o, 0, sizeof(*o));
		if (!(o->kind = arena_strdup(a, h->kind)))
			return -1;
		o->id = h->id;
		o->at_start = (struct vms_trace_count){ h->count, h->bytes };
		for (c = 0; c < h->freed.ncells; c++) {
			const struct vms_trace_cell *k = &h->freed.cells[c];
			struct vms_trace_count *to_add = k->f < from ? &gone
							 : k->f < to
								 ? &o->released
								 : NULL;

			if (to_add) {
				to_add->count += k->count;
				to_add->bytes += k->bytes;
			}
		}
		o->lasting.count = h->count - gone.count - o->released.count;
		o->lasting.bytes = h->bytes - gone.bytes - o->released.bytes;
		o->impacting_bytes = -(int64_t)o->released.bytes;
	}
	out->nbefore = db->nbheaps;
	return 0;
}

static int cell_order(const void *x, const void *y)
{
	const struct vms_trace_cell *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->f > q->f) - (p->f < q->f);
}

/* s's cells as they stood at mark `to` (what was made later left out,
 * what was freed later alive), one per (alloc, free) pair, into o. */
static int kept_cells(const struct site *s, unsigned to, struct arena *a,
		      struct vms_trace_site *o)
{
	struct vms_trace_cell *v;
	uint32_t c, n = 0, m = 0;

	o->cells = NULL;
	o->ncells = 0;
	if (!s->ncells)
		return 0;
	if (!(v = arena_alloc(a, s->ncells * sizeof(*v))))
		return -1;
	for (c = 0; c < s->ncells; c++) {
		struct vms_trace_cell x = s->cells[c];

		if (x.a >= to || (!x.count && !x.bytes))
			continue;
		if (x.f != LIVE_EPOCH && x.f >= to)
			x.f = LIVE_EPOCH;
		v[n++] = x;
	}
	if (n)
		qsort(v, n, sizeof(*v), cell_order);
	for (c = 0; c < n; c++) {
		if (m && v[m - 1].a == v[c].a && v[m - 1].f == v[c].f) {
			v[m - 1].count += v[c].count;
			v[m - 1].bytes += v[c].bytes;
		} else {
			v[m++] = v[c];
		}
	}
	o->cells = v;
	o->ncells = m;
	return 0;
}

static int report(const struct tracedb *db, unsigned from, unsigned to,
		  uint64_t lo, uint64_t hi, uint64_t end_ns,
		  struct tracesym *sym, struct arena *a, bool cells,
		  struct vms_trace_report *out);

int tracedb_report(const struct tracedb *db, unsigned from, unsigned to,
		   uint64_t end_ns, struct tracesym *sym, struct arena *a,
		   struct vms_trace_report *out)
{
	return report(db, from, to, 0, 0, end_ns, sym, a, false, out);
}

int tracedb_report_kept(const struct tracedb *db, unsigned to, uint64_t end_ns,
			struct tracesym *sym, struct arena *a,
			struct vms_trace_report *out)
{
	if (report(db, 0, to, 0, 0, end_ns, sym, a, true, out) < 0)
		return -1;
	out->mark = to <= db->nmarks ? to : 0;
	return 0;
}

int tracedb_report_in(const struct tracedb *db, unsigned from, unsigned to,
		      uint64_t lo, uint64_t hi, uint64_t end_ns,
		      struct tracesym *sym, struct arena *a,
		      struct vms_trace_report *out)
{
	return report(db, from, to, lo, hi, end_ns, sym, a, false, out);
}

static int report(const struct tracedb *db, unsigned from, unsigned to,
		  uint64_t lo, uint64_t hi, uint64_t end_ns,
		  struct tracesym *sym, struct arena *a, bool cells,
		  struct vms_trace_report *out)
{
	struct vms_trace_count *acc = NULL;
	size_t i, n = 0;
	uint32_t c;
	int rc = -1;

	out->sites = db->nsites
			     ? arena_alloc(a, db->nsites * sizeof(*out->sites))
			     : NULL;
	if (db->nsites && !out->sites)
		return -1;
	if (lo < hi && !(acc = alive_in(db, lo, hi, from, to)))
		return -1;
	out->before_walked = false;
	out->before_partial = NULL;
	out->before = NULL;
	out->nbefore = 0;
	if (lo >= hi && before_report(db, from, to, a, out) < 0)
		return -1;
	out->from_ns = from == 0 ? 0 : db->mark_ns[from - 1];
	out->to_ns = to > db->nmarks ? end_ns : db->mark_ns[to - 1];
	out->events = db->events;
	out->unknown_frees = db->unknown_frees;
	for (i = 0; i < db->nsites; i++) {
		const struct site *s = &db->sites[i];
		struct vms_trace_site *o = &out->sites[n];
		const struct stack *st = &db->stacks[s->stack];
		struct vms_trace_frame *f;
		bool any = false;

		memset(o, 0, sizeof(*o));
		for (c = 0; acc && c < VMS_TRACE_NIMPACTS; c++) {
			o->by[c] = acc[i * VMS_TRACE_NIMPACTS + c];
			any |= o->by[c].count || o->by[c].bytes;
		}
		for (c = 0; !acc && c < s->ncells; c++) {
			int k = vms_trace_impact_of(s->cells[c].a,
						    s->cells[c].f, from, to);

			if (k < 0 || (!s->cells[c].count && !s->cells[c].bytes))
				continue;
			o->by[k].count += s->cells[c].count;
			o->by[k].bytes += s->cells[c].bytes;
			any = true;
		}
		if (!any)
			continue;
		for (c = 0; c < VMS_TRACE_NIMPACTS; c++)
			o->by[c].count = (o->by[c].count + ONE / 2) / ONE;
		o->id = (uint32_t)i;
		o->kind = (enum vms_trace_kind)s->kind;
		o->impacting_bytes =
			(int64_t)o->by[VMS_TRACE_outstanding].bytes -
			(int64_t)o->by[VMS_TRACE_released].bytes;
		f = st->n ? arena_alloc(a, st->n * sizeof(*f)) : NULL;
		if (st->n && !f)
			goto out;
		for (c = 0; c < st->n; c++) {
			f[c].ip = db->frames[st->off + c];
			if (sym && tracesym_frame(sym, f[c].ip, a, &f[c]) < 0)
				goto out;
		}
		o->frames = f;
		o->nframes = st->n;
		if (cells && kept_cells(s, to, a, o) < 0)
			goto out;
		n++;
	}
	out->nsites = n;
	if (n && vms_trace_fold_sites(out, a) < 0)
		goto out;
	vms_trace_sort_sites(out->sites, out->nsites);
	rc = 0;
out:
	free(acc);
	return rc;
}

static int cmp_block(const void *x, const void *y)
{
	const struct vms_trace_block *a = x, *b = y;

	return (a->addr > b->addr) - (a->addr < b->addr);
}

size_t tracedb_blocks_in(const struct tracedb *db, uint64_t lo, uint64_t hi,
			 struct vms_trace_block *out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < db->live.cap && db->live.n && n < max; i++) {
		const struct live *e = &db->live.v[i];

		if (e->addr && e->addr >= lo && e->addr < hi)
			out[n++] =
				(struct vms_trace_block){ .addr = e->addr,
							  .size = e->size,
							  .t_ns = e->t,
							  .site = e->site,
							  .count = e->count };
	}
	for (i = 0; i < db->maps.n + db->commits.n && n < max; i++) {
		const struct range *r =
			i < db->maps.n ? &db->maps.v[i]
				       : &db->commits.v[i - db->maps.n];

		if (r->start < hi && r->end > lo)
			out[n++] = (struct vms_trace_block){ .addr = r->start,
							     .size = r->end -
								     r->start,
							     .t_ns = r->t,
							     .site = r->site,
							     .count = ONE };
	}
	qsort(out, n, sizeof(*out), cmp_block);
	return n;
}

int tracedb_site(const struct tracedb *db, uint32_t id, struct tracesym *sym,
		 struct arena *a, struct vms_trace_site *out)
{
	const struct stack *st;
	struct vms_trace_frame *f;
	uint32_t c;

	memset(out, 0, sizeof(*out));
	if (id >= db->nsites)
		return 0;
	st = &db->stacks[db->sites[id].stack];
	f = st->n ? arena_alloc(a, st->n * sizeof(*f)) : NULL;
	if (st->n && !f)
		return -1;
	for (c = 0; c < st->n; c++) {
		f[c].ip = db->frames[st->off + c];
		if (sym && tracesym_frame(sym, f[c].ip, a, &f[c]) < 0)
			return -1;
	}
	out->id = id;
	out->kind = (enum vms_trace_kind)db->sites[id].kind;
	out->frames = f;
	out->nframes = st->n;
	return 1;
}

static int cmp_u32(const void *x, const void *y)
{
	const uint32_t *a = x, *b = y;

	return (*a > *b) - (*a < *b);
}

int tracedb_kept_live(const struct tracedb *db, unsigned to, struct arena *a,
		      struct vms_trace_live *out, uint32_t **ids, size_t *nids)
{
	size_t alive = db->live.n + db->maps.n + db->commits.n, nb = 0, nl, i,
	       k, n = 0;
	uint64_t logged = to > db->nmarks ? db->nlog : db->mark_nlog[to - 1];
	uint32_t before = to > db->nmarks ? UINT32_MAX : to; /* epochs */
	struct vms_trace_block *b;
	struct vms_trace_event *l;

	memset(out, 0, sizeof(*out));
	*ids = NULL;
	*nids = 0;
	b = arena_alloc(a, (alive ? alive : 1) * sizeof(*b));
	l = arena_alloc(a, VMS_TRACE_LOG * sizeof(*l));
	if (!b || !l)
		return -1;
	/* the blocks and maps alive now made before the mark (by their
	 * epoch: the order they were read in, not a clock) */
	for (i = 0; i < db->live.cap && db->live.n; i++) {
		const struct live *e = &db->live.v[i];

		if (e->addr && e->epoch < before)
			b[nb++] = (struct vms_trace_block){ .addr = e->addr,
							    .size = e->size,
							    .t_ns = e->t,
							    .site = e->site,
							    .count = e->count };
	}
	for (i = 0; i < db->maps.n + db->commits.n; i++) {
		const struct range *r =
			i < db->maps.n ? &db->maps.v[i]
				       : &db->commits.v[i - db->maps.n];

		if (r->epoch < before)
			b[nb++] = (struct vms_trace_block){ .addr = r->start,
							    .size = r->end -
								    r->start,
							    .t_ns = r->t,
							    .site = r->site,
							    .count = ONE };
	}
	qsort(b, nb, sizeof(*b), cmp_block);
	out->blocks_alive = nb;
	out->nblocks = nb < VMS_TRACE_BLOCKS_KEPT ? nb : VMS_TRACE_BLOCKS_KEPT;
	out->blocks = b;
	/* the log up to the mark: the first `logged` events, of which the
	 * ring still holds the newest */
	i = db->nlog > VMS_TRACE_LOG ? db->nlog - VMS_TRACE_LOG : 0;
	for (nl = 0; db->log && i < logged; i++)
		l[nl++] = db->log[i % VMS_TRACE_LOG];
	out->nlog = nl;
	out->log = l;
	out->logged = logged;
	/* the sites they name, each once */
	if (!(*ids = malloc((out->nblocks + out->nlog + 1) * sizeof(**ids))))
		return -1;
	for (i = 0; i < out->nblocks; i++)
		(*ids)[n++] = b[i].site;
	for (i = 0; i < out->nlog; i++)
		if (l[i].site != UINT32_MAX)
			(*ids)[n++] = l[i].site;
	qsort(*ids, n, sizeof(**ids), cmp_u32);
	for (i = 0, k = 0; i < n; i++)
		if (!k || (*ids)[k - 1] != (*ids)[i])
			(*ids)[k++] = (*ids)[i];
	*nids = k;
	return 0;
}
