/* glibc_tcache.c — the per-thread caches and the mmapped chunks
 * (glibc_walk.h).
 *
 * Tcaches: nothing outside a thread's TLS points to its
 * tcache_perthread_struct, but each is a chunk of its own size (tc_chunk)
 * in some arena; the chunk walk keeps those (walk_tcache_candidate), and
 * one is taken for a tcache only when all of it holds: every count within
 * mp_.tcache_count and zero exactly where its list is empty (to 2.41),
 * every list head an aligned chunk of its bin's size, carrying the key
 * glibc stores in a cached chunk (2.29: the tcache's address; 2.34: the
 * process's random tcache_key, the same in every chunk). A tcache'd chunk
 * may belong to any arena (a thread caches what it frees): its bytes go to
 * the arena holding it. An empty tcache adds nothing either way.
 *
 * Mmapped chunks: the anonymous private read-write regions are looked at
 * from their start for chunks with IS_MMAPPED alone set and a whole number
 * of pages in size, chunk after chunk (neighbours merge into one region),
 * until as many as mp_.n_mmaps and mp_.mmapped_mem say are found.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/heaps/glibc_walk_int.h"

#define TC_MAX_CANDIDATES 65536
#define TC_MAX_BINS 76

int walk_tcache_candidate(struct walk *w, uint64_t chunk)
{
	if (w->ntc == TC_MAX_CANDIDATES)
		return 0;
	if (w->ntc == w->captc) {
		size_t cap = w->captc ? w->captc * 2 : 64;
		uint64_t *n = realloc(w->tc, cap * sizeof(*n));

		if (!n)
			return -1;
		w->tc = n;
		w->captc = cap;
	}
	w->tc[w->ntc++] = chunk;
	return 0;
}

static struct glibc_arena *arena_of(struct walk *w, uint64_t p)
{
	size_t i, j;

	for (i = 0; i < w->res->narenas; i++) {
		struct glibc_arena *a = &w->res->arenas[i];

		for (j = 0; j < a->nsegs; j++)
			if (p >= a->segs[j].start && p < a->segs[j].end)
				return a;
	}
	return NULL;
}

/* A cached chunk at mem (the user pointer): its size, link and key. */
struct tc_ent {
	uint64_t size, next, key;
};

static bool tc_read(struct walk *w, uint64_t mem, unsigned bin,
		    struct tc_ent *e)
{
	uint64_t h[3]; /* size, next, key */

	if ((mem & 15) || mem < 16 || !chunk_ptr_ok(w, mem - 16) ||
	    !mcache_copy(&w->pages, mem - 8, h, sizeof(h)))
		return false;
	e->size = h[0] & ~(uint64_t)7;
	e->next = walk_reveal(w, mem, h[1]);
	e->key = h[2];
	if (bin < 64)
		return e->size == 32 + 16 * (uint64_t)bin;
	return e->size >= 32 + 16 * 64 && !(e->size & 15);
}

static bool key_ok(struct walk *w, uint64_t tcache, uint64_t key,
		   uint64_t *want)
{
	switch (w->in->lay.tc_key) {
	case 1:
		return key == tcache;
	case 2:
		if (!*want)
			*want = key;
		return key && key == *want;
	}
	return true;
}

static uint64_t count_at(const unsigned char *st, unsigned size, unsigned i)
{
	if (size == 1)
		return st[i];
	return (uint64_t)st[2 * i] | (uint64_t)st[2 * i + 1] << 8;
}

/* The struct at mem, read into st: true when it is a tcache. */
static bool tc_valid(struct walk *w, uint64_t mem, const unsigned char *st,
		     uint64_t *key)
{
	const struct glibc_layout *l = &w->in->lay;
	unsigned i, eoff = l->tc_bins * l->tc_count_size;
	uint64_t want = *key;

	for (i = 0; i < l->tc_bins; i++) {
		uint64_t e, c = count_at(st, l->tc_count_size, i);
		struct tc_ent ent;

		memcpy(&e, st + eoff + 8 * i, 8);
		if (!l->tc_slots_left &&
		    ((c == 0) != (e == 0) || c > w->tcache_count))
			return false;
		if (e && (!tc_read(w, e, i, &ent) ||
			  !key_ok(w, mem, ent.key, &want)))
			return false;
	}
	*key = want;
	return true;
}

static void tc_walk(struct walk *w, uint64_t mem, const unsigned char *st,
		    uint64_t *key)
{
	const struct glibc_layout *l = &w->in->lay;
	unsigned i, eoff = l->tc_bins * l->tc_count_size;

	for (i = 0; i < l->tc_bins; i++) {
		uint64_t p, n = 0, c = count_at(st, l->tc_count_size, i);
		uint64_t cap = l->tc_slots_left ? w->tcache_count : c;
		struct brent br;

		memcpy(&p, st + eoff + 8 * i, 8);
		brent_init(&br, p);
		while (p) {
			struct tc_ent e;
			struct glibc_arena *a;

			if (n == cap || !tc_read(w, p, i, &e) ||
			    !key_ok(w, mem, e.key, key) ||
			    !brent_step(&br, e.next)) {
				walk_note(w->res->partial,
					  sizeof(w->res->partial),
					  "tcache 0x%llx, bin %u: corrupt at "
					  "0x%llx (after %llu of %llu)",
					  (unsigned long long)mem, i,
					  (unsigned long long)p,
					  (unsigned long long)n,
					  (unsigned long long)cap);
				break;
			}
			if (walk_block(w, 0, p - 16, e.size - 8, false) < 0)
				w->cancelled = true;
			a = arena_of(w, p);
			if (a) {
				a->tcache += e.size;
				a->tcache_chunks++;
			}
			n++;
			p = e.next;
		}
		if (!l->tc_slots_left && !p && n != c)
			walk_note(w->res->partial, sizeof(w->res->partial),
				  "tcache 0x%llx, bin %u: %llu chunks listed, "
				  "%llu counted",
				  (unsigned long long)mem, i,
				  (unsigned long long)n, (unsigned long long)c);
	}
}

int walk_tcaches(struct walk *w)
{
	const struct glibc_layout *l = &w->in->lay;
	unsigned char st[TC_MAX_BINS * 10];
	size_t len = l->tc_bins * (l->tc_count_size + 8), i;
	uint64_t key = 0;

	if (len > sizeof(st))
		return 0;
	for (i = 0; i < w->ntc; i++) {
		uint64_t mem = w->tc[i] + 16;
		unsigned k, eoff = l->tc_bins * l->tc_count_size;
		bool any = false;

		if (!mcache_copy(&w->pages, mem, st, len) ||
		    !tc_valid(w, mem, st, &key))
			continue;
		tc_walk(w, mem, st, &key);
		/* the tcache itself is malloc's, not the program's: told
		 * from a zeroed block of its size only by a list */
		for (k = 0; k < l->tc_bins && !any; k++) {
			uint64_t e;

			memcpy(&e, st + eoff + 8 * k, 8);
			any = e != 0;
		}
		if (any &&
		    walk_block(w, 0, w->tc[i], l->tc_chunk - 8, false) < 0)
			return -1;
		if (w->cancelled)
			return -1;
	}
	return 0;
}

static int add_mmapped(struct glibc_walk_res *r, uint64_t p, uint64_t sz)
{
	if ((r->nmmapped & (r->nmmapped - 1)) == 0) {
		size_t cap = r->nmmapped ? r->nmmapped * 2 : 1;
		struct glibc_seg *n = realloc(r->mmapped, cap * sizeof(*n));

		if (!n)
			return -1;
		r->mmapped = n;
	}
	r->mmapped[r->nmmapped].start = p;
	r->mmapped[r->nmmapped].end = p + sz;
	r->nmmapped++;
	r->mmapped_found += sz;
	return 0;
}

/* The size of the mmapped chunk whose header is at p (page-aligned, in
 * s), or 0: prev_size 0 (none moved by memalign), IS_MMAPPED alone of
 * the flag bits, whole pages that fit in s and in left. */
static uint64_t mmapped_at(struct walk *w, struct mcache *c,
			   const struct glibc_span *s, uint64_t p,
			   uint64_t left)
{
	uint64_t page = w->in->page_size ? w->in->page_size : 4096, h[2], sz;

	if (!mcache_copy(c, p, h, sizeof(h)) || h[0] != 0 || (h[1] & 7) != 2)
		return 0;
	sz = h[1] & ~(uint64_t)7;
	if (sz == 0 || sz % page || sz > s->end - p || sz > left)
		return 0;
	return sz;
}

/* The chunk of found[0, n) (by address, apart) that holds p, or NULL. */
static const struct glibc_seg *found_at(const struct glibc_seg *found, size_t n,
					uint64_t p)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (found[mid].end <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && found[lo].start <= p ? &found[lo] : NULL;
}

static bool all_located(const struct glibc_walk_res *r)
{
	return r->nmmapped >= r->hblks || r->mmapped_found >= r->hblkhd;
}

/* Pass 2: every page of the anonymous spans, highest first, past the
 * chunks pass 1 found (found[0, nfound), by address), where the kernel merged a
 * chunk's mapping with other memory before it: a header at each page
 * present, read in the walk's large blocks, GLIBC_MMAPPED_SEARCH bytes of
 * them at most (w->mmapped_bound says it was met). What reads as a header there
 * is taken only if no more of them than mp_'s count leaves, and no more
 * bytes: else which are chunks cannot be told, and none is. */
static int mmapped_inside(struct walk *w, const struct glibc_seg *found,
			  size_t nfound)
{
	struct glibc_walk_res *r = w->res;
	uint64_t page = w->in->page_size ? w->in->page_size : 4096;
	uint64_t want = r->hblks - r->nmmapped;
	uint64_t bytes = r->hblkhd - r->mmapped_found, got = 0, read = 0;
	uint64_t span = 0;
	size_t i, n0 = r->nmmapped;
	unsigned char pres[512];

	/* on while more could be there, or one too many, which says some
	 * are not chunks */
#define MORE()                                                                 \
	((r->nmmapped - n0 < want && got <= bytes) ||                          \
	 (r->nmmapped - n0 == want && got < bytes))
	/* from the top: glibc's mappings are made from there down, the
	 * large heaps of runtimes lie low */
	for (i = w->in->nspans; i-- > 0 && MORE();) {
		const struct glibc_span *s = &w->in->spans[i];
		uint64_t p = s->start, batch = 0, at = 0;

		if (!s->anon_rw || s->heap)
			continue;
		while (s->end - p >= page && MORE()) {
			const struct glibc_seg *f = found_at(found, nfound, p);
			uint64_t sz;

			if (f) {
				p = f->end;
				batch = 0;
				continue;
			}
			if (p >= at + batch * page) { /* which are present */
				uint64_t left = (s->end - p) / page;

				at = p;
				batch = left < sizeof(pres) ? left
							    : sizeof(pres);
				/* absent pages cost a look each too: the
				 * address space looked at is bounded */
				if ((span += batch * page) >
				    GLIBC_MMAPPED_SPAN) {
					w->mmapped_bound = true;
					i = 0;
					break;
				}
				if (!w->mem->present ||
				    w->mem->present(w->mem->ctx, at,
						    (size_t)batch, pres) < 0)
					memset(pres, 1, (size_t)batch);
			}
			if (!pres[(p - at) / page]) { /* to the next present */
				uint64_t k = (p - at) / page;

				while (k < batch && !pres[k])
					k++;
				p = at + k * page;
				continue;
			}
			if (pres[(p - at) / page] &&
			    (read += page) > GLIBC_MMAPPED_SEARCH) {
				w->mmapped_bound = true;
				i = 0;
				break;
			}
			sz = pres[(p - at) / page]
				     ? mmapped_at(w, &w->blocks, s, p,
						  UINT64_MAX)
				     : 0;
			if (sz && add_mmapped(r, p, sz) < 0)
				return -1;
			got += sz;
			p += sz ? sz : page;
		}
	}
#undef MORE
	if (r->nmmapped - n0 > want || got > bytes) {
		r->nmmapped = n0; /* more than there are: none */
		r->mmapped_found -= got;
	}
	return 0;
}

int walk_mmapped(struct walk *w)
{
	struct glibc_walk_res *r = w->res;
	uint64_t page = w->in->page_size ? w->in->page_size : 4096;
	struct glibc_seg *found;
	size_t i, n;
	int rc;

	/* pass 1: the chunks a region starts with, one after another */
	for (i = 0; i < w->in->nspans && !all_located(r); i++) {
		const struct glibc_span *s = &w->in->spans[i];
		uint64_t p = s->start, sz;

		if (!s->anon_rw || s->heap)
			continue;
		while (s->end - p >= page &&
		       (sz = mmapped_at(w, &w->pages, s, p,
					r->hblkhd - r->mmapped_found)) != 0) {
			if (add_mmapped(r, p, sz) < 0)
				return -1;
			p += sz;
		}
	}
	if (!all_located(r)) {
		n = r->nmmapped;
		found = malloc((n ? n : 1) * sizeof(*found));
		if (!found)
			return -1;
		if (n)
			memcpy(found, r->mmapped, n * sizeof(*found));
		rc = mmapped_inside(w, found, n);
		free(found);
		if (rc < 0)
			return rc;
	}
	/* each chunk located, one block held (the block callback) */
	for (i = 0; i < r->nmmapped; i++)
		if (walk_block(w, w->in->main_arena, r->mmapped[i].start,
			       r->mmapped[i].end - r->mmapped[i].start - 16,
			       true) < 0)
			return -1;
	return 0;
}
