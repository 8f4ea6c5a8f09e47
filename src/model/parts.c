/* parts.c — a region split into typed parts (parts.h). */
#include "model/parts.h"

#include <string.h>

#include "model/source.h"

/* v * num / den, rounded down (num <= den). */
static uint64_t share(uint64_t v, uint64_t num, uint64_t den)
{
	if (!den)
		return 0;
	return (uint64_t)((unsigned __int128)v * num / den);
}

static uint64_t clamp(int64_t want, uint64_t left)
{
	return want < 0 ? 0 : (uint64_t)want < left ? (uint64_t)want : left;
}

/* The part's counters from the region's r, its Rss and Swap set, priv
 * its private resident bytes (-1: not measured), each at most left's,
 * which loses them. */
static void apportion(const struct vms_region *r, struct vms_region *p,
		      int64_t priv, struct vms_counters *left)
{
	const struct vms_counters *c = &r->c;
	uint64_t rss = p->c.rss, swap = p->c.swap;
	struct vms_counters w;

#define SHARE(m, key) w.m = share(c->m, rss, c->rss);
	VMS_COUNTER_FIELDS(SHARE)
#undef SHARE
	w.rss = rss;
	w.swap = swap;
	w.swap_pss = share(c->swap_pss, swap, c->swap);
	if (priv >= 0) {
		uint64_t u = (uint64_t)priv < rss ? (uint64_t)priv : rss;
		uint64_t sh = rss - u, ru = c->private_clean + c->private_dirty;
		uint64_t rs = c->shared_clean + c->shared_dirty;

		w.private_dirty = ru ? share(c->private_dirty, u, ru) : u;
		w.private_clean = u - w.private_dirty;
		w.shared_dirty = rs ? share(c->shared_dirty, sh, rs) : sh;
		w.shared_clean = sh - w.shared_dirty;
		w.pss = u + share(c->pss > ru ? c->pss - ru : 0, sh, rs);
	}
#define TAKE(m, key)                                                           \
	p->c.m = w.m < left->m ? w.m : left->m;                                \
	left->m -= p->c.m;
	VMS_COUNTER_FIELDS(TAKE)
#undef TAKE
}

static void derive_one(const struct vms_region *r, struct vms_region *p)
{
	uint16_t whole = p->flags & VMS_RF_COMMIT_WHOLE;

	p->acct = r->acct;
	p->flags = (uint16_t)(r->flags | whole);
	if (whole) {
		p->acct |= VMS_ACCT_COMMIT_SIZE;
		p->acct &= (uint8_t)~VMS_ACCT_COMMIT_UNKNOWN;
	}
	if (vms_region_committed(p) == 0 &&
	    !(p->acct & VMS_ACCT_COMMIT_UNKNOWN))
		p->flags |= VMS_RF_RESERVED;
	else
		p->flags &= (uint16_t)~VMS_RF_RESERVED;
}

void vms_parts_derive(struct vms_region *r)
{
	uint32_t i;

	if (!vms_region_has_parts(r))
		return;
	for (i = 0; i < r->nchildren; i++)
		derive_one(r, r->children[i].part);
}

int vms_parts_set(struct vms_snapshot *s, struct vms_region *r,
		  const struct vms_part_spec *p, size_t n)
{
	struct vms_child *ch;
	struct vms_region *pr;
	struct vms_counters left = r->c;
	uint64_t at = r->start, size = vms_region_size(r);
	size_t i;

	if (!n || n > UINT32_MAX)
		return -2;
	for (i = 0; i < n; i++) {
		if (p[i].start < at || p[i].end <= p[i].start ||
		    p[i].end > r->end || p[i].type >= VMS_NTYPES)
			return -2;
		at = p[i].end;
	}
	ch = arena_alloc(&s->arena, n * sizeof(*ch));
	pr = arena_alloc(&s->arena, n * sizeof(*pr));
	if (!ch || !pr)
		return -1;
	for (i = 0; i < n; i++) {
		uint64_t len = p[i].end - p[i].start;

		pr[i] = *r;
		pr[i].start = p[i].start;
		pr[i].end = p[i].end;
		pr[i].type = p[i].type;
		pr[i].detail = p[i].name;
		pr[i].children = NULL;
		pr[i].nchildren = 0;
		pr[i].build_id = NULL;
		/* not measured: the region's, by size */
		pr[i].c.rss = clamp(
			p[i].rss >= 0 ? p[i].rss
				      : (int64_t)share(r->c.rss, len, size),
			left.rss);
		pr[i].c.swap = clamp(
			p[i].swap >= 0 ? p[i].swap
				       : (int64_t)share(r->c.swap, len, size),
			left.swap);
		if (p[i].counters) {
			pr[i].c = *p[i].counters;
#define TAKE(m, key)                                                           \
	pr[i].c.m = pr[i].c.m < left.m ? pr[i].c.m : left.m;                   \
	left.m -= pr[i].c.m;
			VMS_COUNTER_FIELDS(TAKE)
#undef TAKE
		} else {
			apportion(r, &pr[i], p[i].priv, &left);
		}
		pr[i].flags = p[i].commit_whole ? VMS_RF_COMMIT_WHOLE : 0;
		derive_one(r, &pr[i]);
		ch[i] = (struct vms_child){ p[i].name, p[i].start, p[i].end,
					    &pr[i] };
	}
	r->children = ch;
	r->nchildren = (uint32_t)n;
	return 0;
}

bool vms_parts_measure(struct vms_snapshot *s, uint64_t start, uint64_t end,
		       unsigned char *buf, size_t cap, struct vms_part_fig *f)
{
	uint64_t page = s->cap.page_size ? s->cap.page_size : 4096;
	uint64_t a = start - start % page, n = 0, sw = 0, ex = 0;
	bool known = true;

	while (a < end) {
		uint64_t left = (end - a + page - 1) / page;
		size_t want = left < cap ? (size_t)left : cap, i;
		struct vms_error e;

		if (vms_source_pages(s, a, want, buf, &e) < 0)
			return false;
		for (i = 0; i < want; i++) {
			n += (buf[i] & VMS_PG_PRESENT) != 0;
			sw += (buf[i] & VMS_PG_SWAP) != 0;
			ex += (buf[i] & (VMS_PG_PRESENT | VMS_PG_EXCL)) ==
			      (VMS_PG_PRESENT | VMS_PG_EXCL);
			known = known && (buf[i] & VMS_PG_EXCL_KNOWN);
		}
		a += want * page;
	}
	f->rss = (int64_t)(n * page);
	f->swap = (int64_t)(sw * page);
	f->priv = known ? (int64_t)(ex * page) : -1;
	return true;
}

void vms_parts_rest(const struct vms_region *r, struct vms_region *rest)
{
	uint64_t size = vms_region_size(r);
	uint32_t i;

	*rest = *r;
	rest->children = NULL;
	rest->nchildren = 0;
	for (i = 0; vms_region_has_parts(r) && i < r->nchildren; i++) {
		const struct vms_region *p = r->children[i].part;

		size -= vms_region_size(p) < size ? vms_region_size(p) : size;
		/* never below 0: counters written over the region's since
		 * (a layout's, pipeline.h) leave the rest what remains */
#define LESS(m, key) rest->c.m -= p->c.m < rest->c.m ? p->c.m : rest->c.m;
		VMS_COUNTER_FIELDS(LESS)
#undef LESS
	}
	rest->start = 0;
	rest->end = size;
}
