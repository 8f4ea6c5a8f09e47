/* calltree.c — calltree.h: the sites' stacks folded into a tree, a node
 * per (parent, function), found through an open-addressing table of
 * their hashes while the tree is built (a bottom-up tree has as many
 * roots as allocating functions: no linear search among siblings).
 */
#include "model/calltree.h"

#include <stdlib.h>
#include <string.h>

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--) {
		h ^= *c++;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* A frame's name as the tree knows it: its function, else its module and
 * offset, else its address (NULL: a site with no stack). */
static uint64_t frame_hash(const struct vms_trace_frame *f)
{
	uint64_t h = 0xcbf29ce484222325ull;

	if (!f)
		return h;
	if (f->function)
		return fnv(h, f->function, strlen(f->function));
	if (f->module)
		return fnv(fnv(h, f->module, strlen(f->module)), &f->offset,
			   sizeof(f->offset));
	return fnv(h ^ 1, &f->ip, sizeof(f->ip));
}

static bool same_frame(const struct vms_trace_frame *a,
		       const struct vms_trace_frame *b)
{
	if (!a || !b)
		return a == b;
	if (a->function || b->function)
		return a->function && b->function &&
		       strcmp(a->function, b->function) == 0;
	if (a->module || b->module)
		return a->module && b->module && a->offset == b->offset &&
		       strcmp(a->module, b->module) == 0;
	return a->ip == b->ip;
}

struct build {
	struct vms_calltree_node *n;
	uint64_t *hash;
	size_t nn, cap;
	uint32_t *tab; /* node + 1; 0: empty */
	size_t tcap; /* a power of two */
};

static uint64_t key(uint32_t parent, uint64_t fh)
{
	uint64_t h = fh ^ ((uint64_t)parent + 1) * 0x9e3779b97f4a7c15ull;

	h ^= h >> 31;
	return h * 0xbf58476d1ce4e5b9ull;
}

static uint64_t path_of(uint64_t parent_path, uint64_t fh)
{
	uint64_t h = parent_path ^ (fh + 0x9e3779b97f4a7c15ull +
				    (parent_path << 6) + (parent_path >> 2));

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

static int rehash(struct build *b)
{
	size_t cap = b->tcap ? b->tcap * 2 : 1024, i, k;
	uint32_t *t = calloc(cap, sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i < b->nn; i++) {
		for (k = b->hash[i] & (cap - 1); t[k]; k = (k + 1) & (cap - 1))
			;
		t[k] = (uint32_t)i + 1;
	}
	free(b->tab);
	b->tab = t;
	b->tcap = cap;
	return 0;
}

/* The node of frame f under parent, made when new; NONE: no memory. */
static uint32_t node_of(struct build *b, uint32_t parent,
			const struct vms_trace_frame *f)
{
	uint64_t h = key(parent, frame_hash(f));
	size_t k;
	struct vms_calltree_node *n;

	for (k = h & (b->tcap ? b->tcap - 1 : 0); b->tcap && b->tab[k];
	     k = (k + 1) & (b->tcap - 1)) {
		uint32_t i = b->tab[k] - 1;

		if (b->hash[i] == h && b->n[i].parent == parent &&
		    same_frame(b->n[i].frame, f))
			return i;
	}
	if (b->nn == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		void *p = realloc(b->n, cap * sizeof(*b->n));

		if (!p)
			return VMS_CALLTREE_NONE;
		b->n = p;
		if (!(p = realloc(b->hash, cap * sizeof(*b->hash))))
			return VMS_CALLTREE_NONE;
		b->hash = p;
		b->cap = cap;
	}
	n = &b->n[b->nn];
	memset(n, 0, sizeof(*n));
	n->frame = f;
	n->parent = parent;
	n->path = path_of(parent == VMS_CALLTREE_NONE ? 0 : b->n[parent].path,
			  frame_hash(f));
	n->depth = parent == VMS_CALLTREE_NONE ? 0 : b->n[parent].depth + 1;
	b->hash[b->nn] = h;
	b->nn++;
	if (b->nn * 2 > b->tcap) {
		if (rehash(b) < 0) /* places the new node too */
			return VMS_CALLTREE_NONE;
	} else {
		for (k = h & (b->tcap - 1); b->tab[k];
		     k = (k + 1) & (b->tcap - 1))
			;
		b->tab[k] = (uint32_t)b->nn;
	}
	return (uint32_t)(b->nn - 1);
}

static int by_impact(const void *x, const void *y, void *ctx)
{
	const struct vms_calltree_node *nodes = ctx;
	const struct vms_calltree_node *a = &nodes[*(const uint32_t *)x];
	const struct vms_calltree_node *b = &nodes[*(const uint32_t *)y];
	uint64_t ta = a->by[VMS_TRACE_outstanding].bytes +
		      a->by[VMS_TRACE_transient].bytes;
	uint64_t tb = b->by[VMS_TRACE_outstanding].bytes +
		      b->by[VMS_TRACE_transient].bytes;

	if (a->impacting_bytes != b->impacting_bytes)
		return a->impacting_bytes > b->impacting_bytes ? -1 : 1;
	if (ta != tb)
		return ta > tb ? -1 : 1;
	return (*(const uint32_t *)x > *(const uint32_t *)y) -
	       (*(const uint32_t *)x < *(const uint32_t *)y);
}

/* The children runs (kids) and the roots, each in impact order. */
static int link_children(struct vms_calltree *t, struct arena *a)
{
	size_t i, nroots = 0, at = 0;
	uint32_t *fill;

	for (i = 0; i < t->nnodes; i++) {
		if (t->nodes[i].parent == VMS_CALLTREE_NONE)
			nroots++;
		else
			t->nodes[t->nodes[i].parent].nchildren++;
	}
	t->kids = arena_alloc(a, (t->nnodes + 1) * sizeof(*t->kids));
	t->roots = arena_alloc(a, (nroots + 1) * sizeof(*t->roots));
	fill = calloc(t->nnodes + 1, sizeof(*fill));
	if (!t->kids || !t->roots || !fill) {
		free(fill);
		return -1;
	}
	for (i = 0; i < t->nnodes; i++) {
		t->nodes[i].first = (uint32_t)at;
		at += t->nodes[i].nchildren;
	}
	t->nroots = 0;
	for (i = 0; i < t->nnodes; i++) {
		uint32_t p = t->nodes[i].parent;

		if (p == VMS_CALLTREE_NONE)
			t->roots[t->nroots++] = (uint32_t)i;
		else
			t->kids[t->nodes[p].first + fill[p]++] = (uint32_t)i;
	}
	free(fill);
	qsort_r(t->roots, t->nroots, sizeof(*t->roots), by_impact, t->nodes);
	for (i = 0; i < t->nnodes; i++)
		if (t->nodes[i].nchildren > 1)
			qsort_r(&t->kids[t->nodes[i].first],
				t->nodes[i].nchildren, sizeof(*t->kids),
				by_impact, t->nodes);
	return 0;
}

int vms_calltree_build(const struct vms_trace_report *r, bool callers_first,
		       struct arena *a, struct vms_calltree *out)
{
	struct build b = { 0 };
	size_t i, k;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < r->nsites; i++) {
		const struct vms_trace_site *s = &r->sites[i];
		uint32_t cur = VMS_CALLTREE_NONE,
			 depth = s->nframes ? s->nframes : 1;

		for (k = 0; k < depth; k++) {
			const struct vms_trace_frame *f =
				!s->nframes	? NULL
				: callers_first ? &s->frames[s->nframes - 1 - k]
						: &s->frames[k];
			struct vms_calltree_node *n;
			unsigned j;

			if ((cur = node_of(&b, cur, f)) == VMS_CALLTREE_NONE)
				goto out;
			n = &b.n[cur];
			for (j = 0; j < VMS_TRACE_NIMPACTS; j++) {
				n->by[j].count += s->by[j].count;
				n->by[j].bytes += s->by[j].bytes;
			}
			n->impacting_bytes += s->impacting_bytes;
		}
	}
	out->nnodes = b.nn;
	out->nodes = arena_alloc(a, (b.nn + 1) * sizeof(*out->nodes));
	if (!out->nodes)
		goto out;
	if (b.nn)
		memcpy(out->nodes, b.n, b.nn * sizeof(*out->nodes));
	rc = link_children(out, a);
out:
	free(b.n);
	free(b.hash);
	free(b.tab);
	if (rc < 0)
		memset(out, 0, sizeof(*out));
	return rc;
}
