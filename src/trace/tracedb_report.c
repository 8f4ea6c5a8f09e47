/* tracedb_report.c — tracedb_report(): a window's figures per call site,
 * from the sites' (alloc epoch, free epoch) cells, or, for the part of the
 * address space asked for, from the allocations alive now; the sites'
 * frames named, sites of one name folded, largest impact first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/tracedb.h"
#include "trace/tracedb_priv.h"
#include "trace/tracesym.h"

/* The impacting type of a cell in the window [from, to), or -1. */
static int impact_of(const struct cell *c, unsigned from, unsigned to)
{
	bool inside = c->a >= from && c->a < to, before = c->a < from;
	bool freed = c->f != LIVE_EPOCH && c->f >= from && c->f < to;
	bool alive = c->f == LIVE_EPOCH || c->f >= to;

	if (inside && freed)
		return VMS_TRACE_transient;
	if (inside && alive)
		return VMS_TRACE_outstanding;
	if (before && freed)
		return VMS_TRACE_released;
	if (before && alive)
		return VMS_TRACE_lasting;
	return -1;
}

static int cmp_site(const void *x, const void *y)
{
	const struct vms_trace_site *a = x, *b = y;
	uint64_t ta = a->by[VMS_TRACE_transient].bytes +
		      a->by[VMS_TRACE_outstanding].bytes;
	uint64_t tb = b->by[VMS_TRACE_transient].bytes +
		      b->by[VMS_TRACE_outstanding].bytes;

	if (a->impacting_bytes != b->impacting_bytes)
		return a->impacting_bytes > b->impacting_bytes ? -1 : 1;
	if (ta != tb)
		return ta > tb ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

/* A site's stack as its names say it: kind, then each frame's module and
 * function (or module and offset, or address). Sites whose keys are equal
 * are one call path to a reader (a loop the compiler unrolled calls
 * from four return addresses): the report shows them as one. */
static char *site_key(struct arena *a, const struct vms_trace_site *s)
{
	size_t len = 8, i;
	char *k, *p;

	for (i = 0; i < s->nframes; i++) {
		const struct vms_trace_frame *f = &s->frames[i];

		len += (f->module ? strlen(f->module) : 0) +
		       (f->function ? strlen(f->function) : 0) + 24;
	}
	if (!(k = arena_alloc(a, len)))
		return NULL;
	p = k + sprintf(k, "%u", (unsigned)s->kind);
	for (i = 0; i < s->nframes; i++) {
		const struct vms_trace_frame *f = &s->frames[i];

		if (f->function)
			p += sprintf(p, "\n%s!%s", f->module ? f->module : "",
				     f->function);
		else if (f->module)
			p += sprintf(p, "\n%s+%llx", f->module,
				     (unsigned long long)f->offset);
		else
			p += sprintf(p, "\n%llx", (unsigned long long)f->ip);
	}
	return k;
}

struct keyed {
	const char *key;
	size_t i;
};

static int cmp_keyed(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* Folds sites of one key into the first of them (its frames, lines and
 * id stand for all). */
static int merge_same(struct vms_trace_report *r, struct arena *a)
{
	struct keyed *ks = malloc(r->nsites * sizeof(*ks));
	struct vms_trace_site *out;
	size_t i, n = 0;
	unsigned k;

	if (!ks)
		return -1;
	for (i = 0; i < r->nsites; i++) {
		ks[i].i = i;
		if (!(ks[i].key = site_key(a, &r->sites[i]))) {
			free(ks);
			return -1;
		}
	}
	qsort(ks, r->nsites, sizeof(*ks), cmp_keyed);
	if (!(out = arena_alloc(a, r->nsites * sizeof(*out)))) {
		free(ks);
		return -1;
	}
	for (i = 0; i < r->nsites; i++) {
		const struct vms_trace_site *s = &r->sites[ks[i].i];

		if (n && strcmp(ks[i].key, ks[i - 1].key) == 0) {
			struct vms_trace_site *m = &out[n - 1];

			for (k = 0; k < VMS_TRACE_NIMPACTS; k++) {
				m->by[k].count += s->by[k].count;
				m->by[k].bytes += s->by[k].bytes;
			}
			m->impacting_bytes += s->impacting_bytes;
			continue;
		}
		out[n++] = *s;
	}
	free(ks);
	r->sites = out;
	r->nsites = n;
	return 0;
}

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
		struct cell c = { .a = e->epoch, .f = LIVE_EPOCH };
		int k;

		if (!e->addr || e->addr < lo || e->addr >= hi ||
		    (k = impact_of(&c, from, to)) < 0)
			continue;
		acc[e->site * VMS_TRACE_NIMPACTS + k].count += e->count;
		acc[e->site * VMS_TRACE_NIMPACTS + k].bytes += e->size;
	}
	for (i = 0; i < db->nranges; i++) {
		const struct range *r = &db->ranges[i];
		uint64_t a = r->start > lo ? r->start : lo;
		uint64_t b = r->end < hi ? r->end : hi;
		struct cell c = { .a = r->epoch, .f = LIVE_EPOCH };
		int k;

		if (a >= b || (k = impact_of(&c, from, to)) < 0)
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
			const struct cell *k = &h->freed.cells[c];
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

int tracedb_report(const struct tracedb *db, unsigned from, unsigned to,
		   uint64_t end_ns, struct tracesym *sym, struct arena *a,
		   struct vms_trace_report *out)
{
	return tracedb_report_in(db, from, to, 0, 0, end_ns, sym, a, out);
}

int tracedb_report_in(const struct tracedb *db, unsigned from, unsigned to,
		      uint64_t lo, uint64_t hi, uint64_t end_ns,
		      struct tracesym *sym, struct arena *a,
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
			int k = impact_of(&s->cells[c], from, to);

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
		n++;
	}
	out->nsites = n;
	if (n && merge_same(out, a) < 0)
		goto out;
	if (out->nsites)
		qsort(out->sites, out->nsites, sizeof(*out->sites), cmp_site);
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
			out[n++] = (struct vms_trace_block){ e->addr, e->size,
							     e->t, e->site };
	}
	for (i = 0; i < db->nranges && n < max; i++) {
		const struct range *r = &db->ranges[i];

		if (r->start < hi && r->end > lo)
			out[n++] = (struct vms_trace_block){ r->start,
							     r->end - r->start,
							     r->t, r->site };
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
