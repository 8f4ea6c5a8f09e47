#include "model/totals.h"

#include <stdio.h>
#include <string.h>

#include "model/columns.h"
#include "model/parts.h"

void totals_region_derive(struct vms_region *r)
{
	bool shared = r->perms & VMS_PERM_SHARED;
	bool special = vms_region_is_kernel_special(r);
	bool anon = !special && vms_region_is_private_anon(r);
	bool no_access = !(r->perms & (VMS_PERM_R | VMS_PERM_W | VMS_PERM_X));
	/* hugetlb pages are reserved from the pool at mmap, not charged to
	 * the commit limit (no ac), unless mapped MAP_NORESERVE (nr) */
	bool reserved =
		(r->vmflags_mask & (VMS_VF_HT | VMS_VF_NR)) == VMS_VF_HT;

	/* Committed: file-backed and shared: Size. Private anonymous that is
	 * accountable (or hugetlb reserved): Size. Other private anonymous
	 * (PROT_NONE reservations, MAP_NORESERVE), file mappings nobody may
	 * access (the PROT_NONE alignment gaps ld.so leaves in an image) and
	 * the kernel's own mappings: what is actually there, Rss + Swap
	 * (and hugetlb pages, in no Rss). */
	r->acct = 0;
	if (anon ? (r->vmflags_mask & VMS_VF_AC) || reserved
		 : !(no_access || special))
		r->acct |= VMS_ACCT_COMMIT_SIZE;
	/* Private WS of anonymous memory: the pages mapped by this process
	 * only. After a fork, pages still shared copy-on-write with the
	 * child are Shared_*: shareable (and shared) until one side writes.
	 * A private file mapping's private bytes: its copied-on-write
	 * pages. */
	if (anon)
		r->acct |= VMS_ACCT_ANON;
	else if (!shared && !special)
		r->acct |= VMS_ACCT_FILE;
	/* Rss + Swap not known (a core): unknown, where it may be more than
	 * 0: writable memory (what was never writable was never written,
	 * and gdb's cores show PROT_NONE as r--) */
	if (anon && !(r->acct & VMS_ACCT_COMMIT_SIZE) &&
	    (r->perms & VMS_PERM_W) && (r->flags & VMS_RF_NO_COUNTERS))
		r->acct |= VMS_ACCT_COMMIT_UNKNOWN;
	if (vms_region_committed(r) == 0 &&
	    !(r->acct & VMS_ACCT_COMMIT_UNKNOWN))
		r->flags |= VMS_RF_RESERVED;
	else
		r->flags &= (uint16_t)~VMS_RF_RESERVED;
	vms_parts_derive(r);
}

/* The columns a region adds to a summary row (columns.h: both flags). */
struct summed {
	int col[VMS_NCOLS];
	int n;
};

static void find_summed(struct summed *sm)
{
	int c;

	sm->n = 0;
	for (c = 0; c < VMS_NCOLS; c++)
		if ((vms_columns[c].flags &
		     (VMS_COLF_REGION | VMS_COLF_TYPE)) ==
		    (VMS_COLF_REGION | VMS_COLF_TYPE))
			sm->col[sm->n++] = c;
}

/* Adds a block's figures to its type's row and to the total: each
 * column's getter runs once per block. */
static void add_block(const struct summed *sm, struct vms_totals *type,
		      struct vms_totals *total, const struct vms_region *r,
		      uint64_t blocks, uint64_t size)
{
	int k;

	for (k = 0; k < sm->n; k++) {
		const struct vms_column *col = &vms_columns[sm->col[k]];
		uint64_t v = col->region(r), a;

		memcpy(&a, (char *)type + col->offset, sizeof(a));
		a += v;
		memcpy((char *)type + col->offset, &a, sizeof(a));
		memcpy(&a, (char *)total + col->offset, sizeof(a));
		a += v;
		memcpy((char *)total + col->offset, &a, sizeof(a));
	}
	type->blocks += blocks;
	total->blocks += blocks;
	if (r->acct & VMS_ACCT_COMMIT_UNKNOWN) {
		type->committed_unknown++;
		total->committed_unknown++;
	}
	if (size > type->largest)
		type->largest = size;
	if (size > total->largest)
		total->largest = size;
}

/* A region's blocks, each counted in its own type's row (parts.h): its
 * typed parts, and the rest of it, whose figures are counted once and
 * whose blocks are the stretches between the parts (the largest the
 * longest of them); or the region itself. */
static void add_region(const struct summed *sm, struct vms_snapshot *s,
		       const struct vms_region *r)
{
	struct vms_region rest;
	uint64_t at = r->start, gaps = 0, longest = 0;
	uint32_t i;

	if (!vms_region_has_parts(r)) {
		add_block(sm, &s->types[r->type], &s->total, r, 1,
			  vms_region_size(r));
		return;
	}
	for (i = 0; i <= r->nchildren; i++) {
		const struct vms_region *p =
			i < r->nchildren ? r->children[i].part : NULL;
		uint64_t next = p ? p->start : r->end;

		if (next > at) {
			gaps++;
			if (next - at > longest)
				longest = next - at;
		}
		if (!p)
			break;
		add_block(sm, &s->types[p->type], &s->total, p, 1,
			  vms_region_size(p));
		if (p->end > at)
			at = p->end;
	}
	vms_parts_rest(r, &rest);
	/* parts that cover it whole may leave figures (what the parts'
	 * shares rounded down): counted, in no block */
	if (gaps || rest.c.rss || rest.c.pss || rest.c.swap ||
	    rest.c.private_clean || rest.c.private_dirty ||
	    rest.c.shared_clean || rest.c.shared_dirty || rest.c.locked)
		add_block(sm, &s->types[r->type], &s->total, &rest, gaps,
			  longest);
}

/* Subtracts a block's figures from its type's row and the total (sign
 * -1) or adds them (+1); blocks and largest are not touched. */
static void move_block(const struct summed *sm, struct vms_snapshot *s,
		       const struct vms_region *r, int sign)
{
	int k;

	for (k = 0; k < sm->n; k++) {
		const struct vms_column *col = &vms_columns[sm->col[k]];
		uint64_t v = col->region(r), a;
		char *rows[2] = { (char *)&s->types[r->type],
				  (char *)&s->total };
		int j;

		for (j = 0; j < 2; j++) {
			memcpy(&a, rows[j] + col->offset, sizeof(a));
			a = sign > 0 ? a + v : a - v;
			memcpy(rows[j] + col->offset, &a, sizeof(a));
		}
	}
	if (r->acct & VMS_ACCT_COMMIT_UNKNOWN) {
		s->types[r->type].committed_unknown += sign > 0 ? 1 : -1;
		s->total.committed_unknown += sign > 0 ? 1 : -1;
	}
}

void totals_region_move(struct vms_snapshot *s, size_t i, int sign)
{
	const struct vms_region *r = &s->regions[i];
	struct vms_region rest;
	struct summed sm;
	uint32_t k;

	find_summed(&sm);
	if (sign > 0)
		totals_region_derive(&s->regions[i]);
	if (!vms_region_has_parts(r)) {
		move_block(&sm, s, r, sign);
		return;
	}
	for (k = 0; k < r->nchildren; k++)
		move_block(&sm, s, r->children[k].part, sign);
	vms_parts_rest(r, &rest);
	move_block(&sm, s, &rest, sign);
}

static void add_free(struct vms_totals *t, uint64_t a, uint64_t b)
{
	t->size += b - a;
	t->blocks++;
	if (b - a > t->largest)
		t->largest = b - a;
}

void totals_compute(struct vms_snapshot *s)
{
	struct vms_totals *pt = &s->types[VMS_T_PAGE_TABLE];
	struct vms_totals *fr = &s->types[VMS_T_FREE];
	struct vms_gap_iter it;
	struct summed sm;
	uint64_t a, b;
	size_t i;

	find_summed(&sm);
	memset(s->types, 0, sizeof(s->types));
	memset(&s->total, 0, sizeof(s->total));
	for (i = 0; i < s->nregions; i++) {
		struct vms_region *r = &s->regions[i];

		totals_region_derive(r);
		add_region(&sm, s, r);
	}
	/* Free: the gaps inside the user address range. */
	it = vms_gaps(s);
	while (vms_gap_next(&it, &a, &b))
		add_free(fr, a, b);
	s->largest_free = fr->largest;
	/* The page table is kernel memory the process pays for: committed,
	 * private and resident. */
	pt->size = pt->committed = pt->private_bytes = pt->ws = pt->private_ws =
		s->page_table;
	pt->blocks = 0;
	pt->largest = 0;
}

int totals_check_rollup(const struct vms_snapshot *s, char *why, size_t n)
{
	const struct vms_rollup *k = &s->rollup;
	uint64_t rss = 0, pc = 0, pd = 0, sc = 0, sd = 0, swap = 0, pss = 0;
	uint64_t htlb = 0;
	size_t i;

	if (!k->valid)
		return -1;
	if (s->cap.approx_regions) {
		/* smaps_rollup was read with smaps, before the fast freeze;
		 * the regions that moved since are the freeze's */
		snprintf(why, n,
			 "%llu regions moved between it, read before the "
			 "freeze, and the freeze",
			 (unsigned long long)s->cap.approx_regions);
		return 0;
	}
	for (i = 0; i < s->nregions; i++) {
		const struct vms_counters *c = &s->regions[i].c;

		rss += c->rss;
		pc += c->private_clean;
		pd += c->private_dirty;
		sc += c->shared_clean;
		sd += c->shared_dirty;
		swap += c->swap;
		pss += c->pss;
		/* the sum: private and shared apart move with the
		 * sharing, as Private_* and Shared_* do */
		htlb += c->hugetlb;
	}
#define CHECK(name, ours, theirs)                                              \
	if ((ours) != (theirs)) {                                              \
		snprintf(why, n, "%s: regions %llu K, smaps_rollup %llu K",    \
			 name, (unsigned long long)((ours) >> 10),             \
			 (unsigned long long)((theirs) >> 10));                \
		return 0;                                                      \
	}
	CHECK("Rss", rss, k->rss);
	CHECK("Swap", swap, k->swap);
	/* a rollup without hugetlb figures (a file of a vmscope before
	 * them) has 0: not a difference */
	if (k->private_hugetlb + k->shared_hugetlb)
		CHECK("Hugetlb", htlb, k->private_hugetlb + k->shared_hugetlb);
#undef CHECK
	{
		uint64_t ksh = k->shared_clean + k->shared_dirty;
		uint64_t sh = sc + sd > ksh ? sc + sd : ksh;
		/* smaps rounds each region's Pss down to a K; the rollup
		 * rounds once. Beyond that, a shared page's Pss is its size
		 * over its mappers: it moves whenever another process maps
		 * or unmaps it, the target frozen or not; so does the split
		 * of Rss into Private and Shared. Only by what is shared. */
		uint64_t lo = k->pss > sh ? k->pss - sh : 0;
		uint64_t hi = k->pss + sh + (uint64_t)s->nregions * 1024;

		uint64_t kpriv = k->private_clean + k->private_dirty;
		uint64_t dpriv =
			pc + pd > kpriv ? pc + pd - kpriv : kpriv - (pc + pd);

		/* a page moves between private and shared only by its
		 * mappers: never by more than is shared */
		if (dpriv > sh) {
			snprintf(why, n,
				 "Private: regions %llu K, smaps_rollup %llu K",
				 (unsigned long long)((pc + pd) >> 10),
				 (unsigned long long)(kpriv >> 10));
			return 0;
		}
		if (pss < lo || pss > hi) {
			snprintf(why, n,
				 "Pss: regions %llu K, smaps_rollup "
				 "%llu K",
				 (unsigned long long)(pss >> 10),
				 (unsigned long long)(k->pss >> 10));
			return 0;
		}
		if (pc + pd != k->private_clean + k->private_dirty ||
		    pss > k->pss ||
		    k->pss - pss >= (uint64_t)s->nregions * 1024) {
			snprintf(why, n,
				 "agrees in Rss and Swap; the sharing moved "
				 "(Pss: regions %llu K, smaps_rollup %llu K; "
				 "Private %llu K, %llu K): other processes "
				 "mapped or unmapped pages it shares",
				 (unsigned long long)(pss >> 10),
				 (unsigned long long)(k->pss >> 10),
				 (unsigned long long)((pc + pd) >> 10),
				 (unsigned long long)((k->private_clean +
						       k->private_dirty) >>
						      10));
			return 1;
		}
	}
	snprintf(why, n, "agrees");
	return 1;
}

void totals_set_user_range(struct vms_snapshot *s, uint64_t start, uint64_t end)
{
	size_t i;

	s->user_start = start;
	s->user_end = end;
	/* A process that opted into 5-level paging maps above 47 bits: its
	 * user range is the 56-bit one. Regions are sorted and apart
	 * (snapshot.h): the last one below the kernel's half (the vsyscall
	 * page) ends highest; a pass over a million would cost a cache miss
	 * each. */
	for (i = s->nregions; i-- > 0;)
		if (s->regions[i].start < 0xff00000000000000ull) {
			if (s->regions[i].end > s->user_end)
				s->user_end = 0x00fffffffffff000ull;
			break;
		}
}
