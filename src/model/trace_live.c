/* trace_live.c — what a kept trace report's live part says (model/trace.h,
 * struct vms_trace_live): the call site of an id, the log filtered, the
 * allocations in a span and their report by call site, as the live
 * trace's readers (trace/tracedb.h) say them; and the folding of a
 * report's sites of one name, which both share.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/trace.h"

const struct vms_trace_site *vms_trace_site_of(const struct vms_trace_report *r,
					       uint32_t id)
{
	size_t i;

	for (i = 0; i < r->nsites; i++)
		if (r->sites[i].id == id)
			return &r->sites[i];
	for (i = 0; r->live && i < r->live->nstacks; i++)
		if (r->live->stacks[i].id == id)
			return &r->live->stacks[i];
	return NULL;
}

size_t vms_trace_log_of(const struct vms_trace_report *r,
			const struct vms_trace_filter *f,
			struct vms_trace_event *out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; r->live && i < r->live->nlog && n < max; i++) {
		const struct vms_trace_event *e = &r->live->log[i];

		if (!vms_trace_filter_pass(f, e))
			continue;
		out[n++] = *e;
	}
	return n;
}

/* The sites of a report and its stacks by id (sorted), for the blocks'
 * look-ups. */
struct by_id {
	const struct vms_trace_site **v;
	size_t n;
};

static int id_order(const void *x, const void *y)
{
	const struct vms_trace_site *const *a = x, *const *b = y;

	return ((*a)->id > (*b)->id) - ((*a)->id < (*b)->id);
}

static int by_id_init(struct by_id *t, const struct vms_trace_report *r)
{
	size_t i, ns = r->live ? r->live->nstacks : 0;

	t->n = 0;
	t->v = malloc((r->nsites + ns + 1) * sizeof(*t->v));
	if (!t->v)
		return -1;
	for (i = 0; i < r->nsites; i++)
		t->v[t->n++] = &r->sites[i];
	for (i = 0; i < ns; i++)
		t->v[t->n++] = &r->live->stacks[i];
	qsort(t->v, t->n, sizeof(*t->v), id_order);
	return 0;
}

static const struct vms_trace_site *by_id_get(const struct by_id *t,
					      uint32_t id)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (t->v[m]->id < id)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < t->n && t->v[lo]->id == id ? t->v[lo] : NULL;
}

/* Whether kept block b lies in [lo, hi): a heap block by its address, a
 * map (its site's kind mmap or brk) where it overlaps. */
static bool block_in(const struct by_id *t, const struct vms_trace_block *b,
		     uint64_t lo, uint64_t hi)
{
	const struct vms_trace_site *s = by_id_get(t, b->site);

	if (!s || s->kind == VMS_TRACE_HEAP)
		return b->addr >= lo && b->addr < hi;
	return b->addr < hi && b->addr + b->size > lo;
}

size_t vms_trace_blocks_of(const struct vms_trace_report *r, uint64_t lo,
			   uint64_t hi, struct vms_trace_block *out, size_t max)
{
	struct by_id t;
	size_t i, n = 0;

	if (!r->live || by_id_init(&t, r) < 0)
		return 0;
	for (i = 0; i < r->live->nblocks && n < max; i++)
		if (block_in(&t, &r->live->blocks[i], lo, hi))
			out[n++] = r->live->blocks[i];
	free(t.v);
	return n;
}

int vms_trace_report_of(const struct vms_trace_report *r, uint64_t lo,
			uint64_t hi, struct arena *a,
			struct vms_trace_report *out)
{
	const struct vms_trace_live *lv = r->live;
	struct vms_trace_count *acc;
	struct by_id t;
	size_t i, n = 0, nids = 0;
	uint32_t *ids;

	*out = *r;
	out->sites = NULL;
	out->nsites = 0;
	out->before_walked = false;
	out->before = NULL;
	out->nbefore = 0;
	if (!lv || !lv->nblocks)
		return 0;
	/* the distinct sites of the blocks there, each one's figures */
	if (by_id_init(&t, r) < 0)
		return -1;
	ids = malloc(t.n * sizeof(*ids) + 1);
	acc = calloc(t.n + 1, sizeof(*acc));
	if (!ids || !acc) {
		free(t.v);
		free(ids);
		free(acc);
		return -1;
	}
	for (i = 0; i < lv->nblocks; i++) {
		const struct vms_trace_block *b = &lv->blocks[i];
		uint64_t x = b->addr > lo ? b->addr : lo;
		uint64_t y = b->addr + b->size < hi ? b->addr + b->size : hi;
		const struct vms_trace_site *s = by_id_get(&t, b->site);
		size_t k;

		if (!s || !block_in(&t, b, lo, hi))
			continue; /* (a loaded file's sites are all known) */
		for (k = 0; k < nids && ids[k] != b->site; k++)
			;
		if (k == nids)
			ids[nids++] = b->site;
		acc[k].count += b->count;
		/* a map's bytes inside the span, a block's whole */
		acc[k].bytes +=
			s && s->kind != VMS_TRACE_HEAP ? y - x : b->size;
	}
	if (nids &&
	    !(out->sites = arena_alloc(a, nids * sizeof(*out->sites)))) {
		free(t.v);
		free(ids);
		free(acc);
		return -1;
	}
	for (i = 0; i < nids; i++) {
		const struct vms_trace_site *s = by_id_get(&t, ids[i]);
		struct vms_trace_site *o = &out->sites[n++];

		memset(o, 0, sizeof(*o));
		o->id = ids[i];
		o->kind = s->kind;
		o->frames = s->frames;
		o->nframes = s->nframes;
		o->by[VMS_TRACE_outstanding].count =
			(acc[i].count + VMS_TRACE_ONE / 2) / VMS_TRACE_ONE;
		o->by[VMS_TRACE_outstanding].bytes = acc[i].bytes;
		o->impacting_bytes = (int64_t)acc[i].bytes;
	}
	free(t.v);
	free(ids);
	free(acc);
	out->nsites = n;
	if (n && vms_trace_fold_sites(out, a) < 0)
		return -1;
	vms_trace_sort_sites(out->sites, out->nsites);
	return 0;
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
	uint32_t id;
	size_t i;
};

static int cmp_keyed(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	return c ? c : (a->id > b->id) - (a->id < b->id);
}

/* m's cells and s's, in one array (the window's figures are sums) */
static int join_cells(struct arena *a, struct vms_trace_site *m,
		      const struct vms_trace_site *s)
{
	struct vms_trace_cell *v =
		arena_alloc(a, (m->ncells + s->ncells) * sizeof(*v));

	if (!v)
		return -1;
	if (m->ncells)
		memcpy(v, m->cells, m->ncells * sizeof(*v));
	memcpy(v + m->ncells, s->cells, s->ncells * sizeof(*v));
	m->cells = v;
	m->ncells += s->ncells;
	return 0;
}

/* Sites of one key folded into the first of them by id (its frames,
 * lines and id stand for all): a live report's sites are in id order, a
 * kept one's in any. */
int vms_trace_fold_sites(struct vms_trace_report *r, struct arena *a)
{
	struct keyed *ks = malloc(r->nsites * sizeof(*ks));
	struct vms_trace_site *out;
	size_t i, n = 0;
	unsigned k;

	if (!ks)
		return -1;
	for (i = 0; i < r->nsites; i++) {
		ks[i].i = i;
		ks[i].id = r->sites[i].id;
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
			if (s->ncells && join_cells(a, m, s) < 0) {
				free(ks);
				return -1;
			}
			continue;
		}
		out[n++] = *s;
	}
	free(ks);
	r->sites = out;
	r->nsites = n;
	return 0;
}
