/* trace.c — the names of trace.h's kinds, impacting types and
 * operations, and two reports compared (trace.h). */
#include "model/trace.h"

#include <stdlib.h>
#include <string.h>

const char *const vms_trace_kind_names[VMS_TRACE_NKINDS] = {
	[VMS_TRACE_HEAP] = "heap",
	[VMS_TRACE_MMAP] = "mmap",
	[VMS_TRACE_BRK] = "brk",
	[VMS_TRACE_COMMIT] = "commit",
};

const char *const vms_trace_impact_names[VMS_TRACE_NIMPACTS] = {
#define VMS_TRACE_NAME(n) #n,
	VMS_TRACE_IMPACTS(VMS_TRACE_NAME)
#undef VMS_TRACE_NAME
};

const char *const vms_trace_op_names[VMS_TRACE_NOPS] = {
	[VMS_TRACE_OP_ALLOC] = "alloc",
	[VMS_TRACE_OP_FREE] = "free",
	[VMS_TRACE_OP_MAP] = "map",
	[VMS_TRACE_OP_UNMAP] = "unmap",
};

int vms_trace_impact_of(uint32_t a, uint32_t f, unsigned from, unsigned to)
{
	bool inside = a >= from && a < to, before = a < from;
	bool freed = f != VMS_TRACE_ALIVE && f >= from && f < to;
	bool alive = f == VMS_TRACE_ALIVE || f >= to;

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

static uint64_t window_bytes(const struct vms_trace_site *s)
{
	return s->by[VMS_TRACE_transient].bytes +
	       s->by[VMS_TRACE_outstanding].bytes;
}

static int report_order(const void *x, const void *y)
{
	const struct vms_trace_site *a = x, *b = y;
	uint64_t ta = window_bytes(a), tb = window_bytes(b);

	if (a->impacting_bytes != b->impacting_bytes)
		return a->impacting_bytes > b->impacting_bytes ? -1 : 1;
	if (ta != tb)
		return ta > tb ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

void vms_trace_sort_sites(struct vms_trace_site *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), report_order);
}

/* ---- the window between two marks of one run ---- */

static bool cells_kept(const struct vms_trace_report *r)
{
	size_t i;

	for (i = 0; i < r->nsites; i++)
		if (r->sites[i].ncells)
			return true;
	return r->nsites == 0;
}

bool vms_trace_windowable(const struct vms_trace_report *a,
			  const struct vms_trace_report *b)
{
	return a && b && a->run && a->run == b->run && a->mark &&
	       b->mark > a->mark && cells_kept(b);
}

/* b's count less a's, of a counter that only grows along a run (0 where a
 * file says otherwise) */
static uint64_t since(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

int vms_trace_window(const struct vms_trace_report *a,
		     const struct vms_trace_report *b,
		     struct vms_trace_report *out)
{
	unsigned from = (unsigned)a->mark, to = (unsigned)b->mark;
	size_t i, n = 0;
	uint32_t c;

	*out = *b;
	out->from_ns = a->to_ns;
	/* the counts of calls are the window's too, as its sites' are */
	out->events = since(a->events, b->events);
	out->dropped = since(a->dropped, b->dropped);
	out->dropped_bytes = since(a->dropped_bytes, b->dropped_bytes);
	out->dropped_threads = since(a->dropped_threads, b->dropped_threads);
	out->unknown_frees = since(a->unknown_frees, b->unknown_frees);
	out->bad_records = since(a->bad_records, b->bad_records);
	out->allocator_maps = since(a->allocator_maps, b->allocator_maps);
	out->madvised = since(a->madvised, b->madvised);
	out->madvised_bytes = since(a->madvised_bytes, b->madvised_bytes);
	out->ended = false; /* b's mark came before any end */
	out->exit_status = -1;
	out->sites = malloc((b->nsites ? b->nsites : 1) * sizeof(*out->sites));
	out->nsites = 0;
	/* what was allocated before an attach is b's whole trace's */
	out->before_walked = false;
	out->before_partial = NULL;
	out->before = NULL;
	out->nbefore = 0;
	if (!out->sites)
		return -1;
	for (i = 0; i < b->nsites; i++) {
		const struct vms_trace_site *s = &b->sites[i];
		struct vms_trace_site *o = &out->sites[n];
		bool any = false;
		int k;

		*o = *s;
		memset(o->by, 0, sizeof(o->by));
		for (c = 0; c < s->ncells; c++) {
			const struct vms_trace_cell *x = &s->cells[c];

			k = vms_trace_impact_of(x->a, x->f, from, to);
			if (k < 0 || (!x->count && !x->bytes))
				continue;
			o->by[k].count += x->count;
			o->by[k].bytes += x->bytes;
			any = true;
		}
		if (!any)
			continue;
		for (k = 0; k < VMS_TRACE_NIMPACTS; k++)
			o->by[k].count = (o->by[k].count + VMS_TRACE_ONE / 2) /
					 VMS_TRACE_ONE;
		/* as unsigned: a file's figures may be anything */
		o->impacting_bytes =
			(int64_t)(o->by[VMS_TRACE_outstanding].bytes -
				  o->by[VMS_TRACE_released].bytes);
		n++;
	}
	out->nsites = n;
	vms_trace_sort_sites(out->sites, n);
	return 0;
}

/* ---- two reports compared ---- */

static int str_cmp(const char *x, const char *y)
{
	if (!x || !y)
		return (x != NULL) - (y != NULL);
	return strcmp(x, y);
}

/* The order of sites by kind and stack, frame by frame (function, module,
 * offset: what two runs of one build share). */
static int site_cmp(const void *pa, const void *pb)
{
	const struct vms_trace_site *x =
		*(const struct vms_trace_site *const *)pa;
	const struct vms_trace_site *y =
		*(const struct vms_trace_site *const *)pb;
	uint32_t k;
	int c;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	for (k = 0; k < x->nframes && k < y->nframes; k++) {
		const struct vms_trace_frame *f = &x->frames[k],
					     *g = &y->frames[k];

		if ((c = str_cmp(f->function, g->function)) != 0 ||
		    (c = str_cmp(f->module, g->module)) != 0)
			return c;
		if (f->offset != g->offset)
			return f->offset < g->offset ? -1 : 1;
	}
	if (x->nframes != y->nframes)
		return x->nframes < y->nframes ? -1 : 1;
	return 0;
}

int64_t vms_trace_change_impacting(const struct vms_trace_site *s)
{
	return s ? s->impacting_bytes : 0;
}

static bool same_figures(const struct vms_trace_site *x,
			 const struct vms_trace_site *y)
{
	int k;

	for (k = 0; k < VMS_TRACE_NIMPACTS; k++)
		if (x->by[k].count != y->by[k].count ||
		    x->by[k].bytes != y->by[k].bytes)
			return false;
	return x->impacting_bytes == y->impacting_bytes;
}

static uint64_t moved(const struct vms_trace_change *c)
{
	int64_t v = vms_trace_change_impacting(c->b) -
		    vms_trace_change_impacting(c->a);

	return v < 0 ? (uint64_t)-v : (uint64_t)v;
}

static uint64_t allocated(const struct vms_trace_site *s)
{
	return s ? s->by[VMS_TRACE_outstanding].bytes +
			       s->by[VMS_TRACE_transient].bytes
		 : 0;
}

static int change_cmp(const void *pa, const void *pb)
{
	const struct vms_trace_change *x = pa, *y = pb;
	uint64_t mx = moved(x), my = moved(y), ax, ay;

	if (mx != my)
		return mx > my ? -1 : 1;
	ax = allocated(x->b) + allocated(x->a);
	ay = allocated(y->b) + allocated(y->a);
	if (ax != ay)
		return ax > ay ? -1 : 1;
	return 0;
}

static const struct vms_trace_site **sorted(const struct vms_trace_report *r)
{
	const struct vms_trace_site **v =
		malloc((r->nsites ? r->nsites : 1) * sizeof(*v));
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < r->nsites; i++)
		v[i] = &r->sites[i];
	qsort(v, r->nsites, sizeof(*v), site_cmp);
	return v;
}

int vms_trace_diff_make(const struct vms_trace_report *a,
			const struct vms_trace_report *b,
			struct vms_trace_diff *d)
{
	const struct vms_trace_site **va = sorted(a), **vb = sorted(b);
	size_t i = 0, j = 0;

	memset(d, 0, sizeof(*d));
	d->v = malloc((a->nsites + b->nsites + 1) * sizeof(*d->v));
	if (!va || !vb || !d->v) {
		free(va);
		free(vb);
		free(d->v);
		d->v = NULL;
		return -1;
	}
	while (i < a->nsites || j < b->nsites) {
		int c = i == a->nsites	 ? 1
			: j == b->nsites ? -1
					 : site_cmp(&va[i], &vb[j]);
		struct vms_trace_change *x = &d->v[d->n];

		if (c == 0 && same_figures(va[i], vb[j])) {
			d->same++;
			i++;
			j++;
			continue;
		}
		x->a = c <= 0 ? va[i++] : NULL;
		x->b = c >= 0 ? vb[j++] : NULL;
		d->added += !x->a;
		d->removed += !x->b;
		d->changed += x->a && x->b;
		d->n++;
	}
	qsort(d->v, d->n, sizeof(*d->v), change_cmp);
	free(va);
	free(vb);
	return 0;
}

void vms_trace_diff_fini(struct vms_trace_diff *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}

bool vms_trace_filter_pass(const struct vms_trace_filter *f,
			   const struct vms_trace_event *e)
{
	return !f || ((!f->ops || (f->ops & 1u << e->op)) &&
		      e->size >= f->min_size && (!f->tid || e->tid == f->tid) &&
		      (f->site == UINT32_MAX || e->site == f->site));
}
