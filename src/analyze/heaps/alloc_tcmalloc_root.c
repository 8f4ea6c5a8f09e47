/* alloc_tcmalloc_root.c — gperftools tcmalloc's page map found: steps 1
 * and 2 of alloc_tcmalloc.c's account (the spans its .bss lists link to,
 * then the root that reaches them at their start pages). See
 * alloc_tcmalloc.h.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/heaps/alloc_tcmalloc.h"
#include "model/source.h"

const struct vms_region *tc_anon_holding(struct vms_snapshot *s, uint64_t a,
					 uint64_t len)
{
	ptrdiff_t i = vms_snapshot_find_index(s, a);
	const struct vms_region *r;

	if (i < 0)
		return NULL;
	r = &s->regions[i];
	if ((r->path && r->path[0] != '[') || !(r->perms & VMS_PERM_R) ||
	    (r->flags & VMS_RF_UNREADABLE) || a + len < a || a + len > r->end)
		return NULL;
	return r;
}

static bool read_u64(struct vms_snapshot *s, uint64_t a, uint64_t *v)
{
	return rtscan_read_unswapped(s, a, v, 8);
}

/* 1: the spans the .bss lists link to. */
void tc_listed_spans(struct tc_walk *t)
{
	size_t k, end;

	for (k = 0;
	     t->nlisted < MAX_LISTED && rtscan_rw_next(&t->rw, &k, &end);)
		for (; k < end && t->nlisted < MAX_LISTED; k++) {
			uint64_t v = t->w[k], a = t->lo + 8 * k;
			unsigned char b[RTHEAP_TC_SPAN];
			struct rtheap_tc_span sp;

			if (!v || v % 8 || a - t->lo < RTHEAP_TC_NEXT ||
			    !tc_anon_holding(t->s, v, sizeof(b)) ||
			    !rtscan_read(t->s, v, b, sizeof(b)))
				continue;
			memcpy(&sp.prev, b + RTHEAP_TC_PREV, 8);
			memcpy(&sp.start, b, 8);
			if (sp.prev != a - RTHEAP_TC_NEXT ||
			    !rtheap_tc_span(b, sizeof(b), sp.start, 13, &sp))
				continue;
			t->listed_at[t->nlisted] = v;
			t->listed[t->nlisted++] = sp;
		}
}

/* Span v found at its start page through the map (shift, L, root). */
static bool through(struct tc_walk *t, unsigned shift, unsigned L,
		    uint64_t root, uint64_t v, uint64_t start)
{
	uint64_t i = start >> L, leaf, got, slot = root + 8 * i;

	if (start >> (48 - shift) || slot < root || slot + 8 > t->hi)
		return false;
	leaf = tc_word(t, slot);
	return leaf && leaf % 8 == 0 &&
	       tc_anon_holding(t->s, leaf, 8ull << L) &&
	       read_u64(t->s, leaf + 8 * (start & ((1ull << L) - 1)), &got) &&
	       got == v;
}

/* The listed spans whose pages lie in readable anonymous memory at this
 * page size, and of those the ones found through the map (shift, L,
 * root). */
static void tally(struct tc_walk *t, unsigned shift, unsigned L, uint64_t root,
		  size_t *mapped, size_t *found)
{
	size_t n;

	*mapped = *found = 0;
	for (n = 0; n < t->nlisted; n++) {
		const struct rtheap_tc_span *sp = &t->listed[n];

		if (sp->start >> (48 - shift) ||
		    !tc_anon_holding(t->s, sp->start << shift,
				     sp->length << shift))
			continue;
		(*mapped)++;
		*found +=
			through(t, shift, L, root, t->listed_at[n], sp->start);
	}
}

/* Source reads the search for the root may make (2.10: some 2,000). */
#define ROOT_READS (1u << 18)
/* Listed spans tried as the anchor a root must hold. */
#define ANCHORS 4

/* The root placed so that the word at a (a leaf whose entry for page p
 * holds the anchor span v, leaf size L) is p's root slot, at one of the
 * page sizes, when it passes the tally (find_root()): true, set in t. */
static bool root_at(struct tc_walk *t, uint64_t a, uint64_t p, unsigned L)
{
	static const unsigned shifts[] = { 13, 15, 16 };
	size_t k;

	for (k = 0; k < sizeof(shifts) / sizeof(*shifts); k++) {
		unsigned bits = 48 - shifts[k];
		uint64_t off = 8 * (p >> L);
		size_t mapped, found;

		if (L + 4 > bits || p >> bits || a - t->lo < off ||
		    (8ull << (bits - L)) > t->hi - (a - off))
			continue;
		tally(t, shifts[k], L, a - off, &mapped, &found);
		if (!found || found * 4 < mapped * 3 ||
		    (mapped >= 2 && found < 2))
			continue;
		t->shift = shifts[k];
		t->leaf_bits = L;
		t->root = a - off;
		return true;
	}
	return false;
}

/* A word of the writable memory that may point at a leaf: its index,
 * its value, the end of the anonymous region holding that. */
struct tc_leaf {
	size_t k;
	uint64_t leaf, end;
};

/* The words read that point into readable anonymous memory (a leaf of
 * 2^8 entries at least fits there), in address order: *n of them in a
 * malloc'd array; NULL with *n 0 when none, or on out of memory (*oom
 * set). Each search of find_root() asks each of them again. */
static struct tc_leaf *tc_leaves(struct tc_walk *t, size_t *n, bool *oom)
{
	struct tc_leaf *v = NULL;
	size_t k, end, cap = 0;

	*n = 0;
	*oom = false;
	for (k = 0; rtscan_rw_next(&t->rw, &k, &end);)
		for (; k < end; k++) {
			uint64_t leaf = t->w[k];
			const struct vms_region *r;

			if (!leaf || leaf % 8 ||
			    !(r = tc_anon_holding(t->s, leaf, 8ull << 8)))
				continue;
			if (*n == cap) {
				size_t nc = cap ? cap * 2 : 256;
				struct tc_leaf *nv =
					realloc(v, nc * sizeof(*nv));

				if (!nv) {
					free(v);
					*n = 0;
					*oom = true;
					return NULL;
				}
				v = nv;
				cap = nc;
			}
			v[(*n)++] = (struct tc_leaf){ k, leaf, r->end };
		}
	return v;
}

/* Leaf entries read at once in the search for the root (the source's
 * read_each: one read of the page tables for them). */
#define ROOT_BATCH 256

/* One entry to read: its address, its place in the batch. */
struct tc_ent {
	uint64_t addr;
	size_t j;
};

static int by_ent(const void *a, const void *b)
{
	const struct tc_ent *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The entries at ent[0, m) (address order) into val[e.j], ok[e.j]: 1 read,
 * else 0 (as read_u64 gives them: a page never written reads as zeros,
 * which no anchor span is). */
static void read_ents(struct vms_snapshot *s, const struct tc_ent *ent,
		      size_t m, uint64_t *val, unsigned char *ok)
{
	uint64_t addr[ROOT_BATCH], got[ROOT_BATCH];
	unsigned char came[ROOT_BATCH];
	struct vms_error e;
	size_t j;

	for (j = 0; j < m; j++)
		addr[j] = ent[j].addr;
	if (vms_source_read_each(s, addr, m, 8, got, came, &e) < 0) {
		for (j = 0; j < m; j++)
			ok[ent[j].j] = read_u64(s, ent[j].addr, &val[ent[j].j]);
		return;
	}
	for (j = 0; j < m; j++) {
		ok[ent[j].j] = came[j];
		val[ent[j].j] = got[j];
	}
}

/* The next ROOT_BATCH words from lv[*i] on whose region holds a leaf
 * of 2^L entries whole (tc_anon_holding(leaf, 8 << L)): at[] their places
 * in lv, ent[] the entry each one's leaf has for page p, in address
 * order (ent[].j: the word's place in at[]); their number. */
static size_t root_batch(const struct tc_leaf *lv, size_t nl, size_t *i,
			 uint64_t p, unsigned L, size_t *at, struct tc_ent *ent)
{
	uint64_t off = 8 * (p & ((1ull << L) - 1));
	size_t m = 0;

	for (; *i < nl && m < ROOT_BATCH; (*i)++)
		if ((8ull << L) <= lv[*i].end - lv[*i].leaf) {
			at[m] = *i;
			ent[m] = (struct tc_ent){ lv[*i].leaf + off, m };
			m++;
		}
	qsort(ent, m, sizeof(*ent), by_ent);
	return m;
}

/* 2: the root: a .bss word whose leaf holds an anchor span at its start
 * page, placed so the root lies in the writable memory; kept when at
 * least three quarters of the listed spans whose pages are mapped at that
 * page size (and two at least, where two are) are found through it. The
 * leaf's entry does not depend on the page size: it is read once per
 * word and leaf size. The words that may point at a leaf are found once
 * (tc_leaves: of the pages read alone, the others zeros), not a search
 * each; their entries are read ROOT_BATCH at a time, then tried in the
 * words' order. 1 found, 0 not (*why), -1 on out of memory. */
int tc_find_root(struct tc_walk *t, const char **why)
{
	size_t i, j, m, nl, n, reads = 0, at[ROOT_BATCH];
	struct tc_ent ent[ROOT_BATCH];
	uint64_t val[ROOT_BATCH];
	unsigned char ok[ROOT_BATCH];
	unsigned L;
	bool oom;
	struct tc_leaf *lv = tc_leaves(t, &nl, &oom);
	int rc = 0;

	if (oom)
		return -1;
	for (n = 0; n < t->nlisted && n < ANCHORS; n++) {
		uint64_t v = t->listed_at[n], p = t->listed[n].start;

		for (L = 8; L <= 35 - 4; L++)
			for (i = 0; i < nl;) {
				m = root_batch(lv, nl, &i, p, L, at, ent);
				read_ents(t->s, ent, m, val, ok);
				for (j = 0; j < m; j++) {
					if (++reads > ROOT_READS) {
						*why = "its page map was not "
						       "found: the search "
						       "gave up";
						goto out;
					}
					if (ok[j] && val[j] == v &&
					    root_at(t, t->lo + 8 * lv[at[j]].k,
						    p, L)) {
						rc = 1;
						goto out;
					}
				}
			}
	}
	*why = t->nlisted ? "its page map was not found"
			  : "its page map was not found: no span list in its "
			    ".bss";
out:
	free(lv);
	return rc;
}
