/* glibc_mcache.c — block cache over a glibc_mem (glibc_mcache.h), and
 * the checks every file of the walker makes before it follows a pointer,
 * and an arena's list of segments (glibc_walk_int.h): below glibc_walk.c,
 * glibc_tcache.c and glibc_noncontig.c, so none calls another for them. */
#include "analyze/heaps/glibc_mcache.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/heaps/glibc_walk_int.h"

#define MINSIZE 32u

int mcache_init(struct mcache *c, const struct glibc_mem *mem, size_t nblk,
		size_t bsize, uint64_t page, bool direct)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	c->mem = mem;
	c->nblk = nblk;
	c->bsize = bsize;
	c->page = page ? page : 4096;
	c->direct = direct;
	if (!bsize)
		return -1;
	c->blk = calloc(nblk, sizeof(*c->blk));
	if (!c->blk)
		return -1;
	for (i = 0; i < nblk; i++)
		c->blk[i].base = UINT64_MAX;
	return 0;
}

int mcache_init_runs(struct mcache *c, const struct glibc_mem *mem, size_t nblk,
		     size_t maxblk, size_t bsize, uint64_t page)
{
	if (mcache_init(c, mem, nblk, bsize, page, true) < 0)
		return -1;
	c->multi = true;
	c->maxblk = maxblk;
	if (bsize % c->page || nblk < 2 || (nblk & (nblk - 1)) ||
	    bsize / c->page > MCACHE_BLK_PAGES) {
		mcache_fini(c);
		return -1;
	}
	return 0;
}

void mcache_fini(struct mcache *c)
{
	size_t i;

	for (i = 0; c->blk && i < c->nblk; i++)
		free(c->blk[i].buf);
	free(c->blk);
	c->blk = NULL;
	c->last = NULL;
}

/* Reads npages pages from addr (page-aligned) into buf, past the absent
 * ones: ok[i] says whether page i was read. A short read may end where
 * a region does (a core file's, a fixture's): read on from there, and
 * only a page that reads nothing is absent. The bytes read. */
static uint64_t read_pages(struct mcache *c, uint64_t addr, unsigned char *buf,
			   size_t npages, unsigned char *ok)
{
	size_t pg = 0, k;
	uint64_t bytes = 0;

	memset(ok, 0, npages);
	if (c->mem->read_pages) {
		ssize_t got =
			c->mem->read_pages(c->mem->ctx, addr, buf, npages, ok);

		if (got < 0)
			memset(ok, 0, npages);
		return got > 0 ? (uint64_t)got : 0;
	}
	while (pg < npages) {
		ssize_t got = c->mem->read(c->mem->ctx, addr + pg * c->page,
					   buf + pg * c->page,
					   (npages - pg) * c->page);
		size_t whole = got > 0 ? (size_t)got / c->page : 0;

		for (k = 0; k < whole; k++)
			ok[pg + k] = 1;
		bytes += whole * c->page;
		pg += whole ? whole : 1; /* none read: absent */
	}
	return bytes;
}

/* A block's validity from ok[] (one byte a page): bits and prefix. */
static void set_valid(const struct mcache *c, struct mcache_blk *b,
		      const unsigned char *ok)
{
	size_t np = c->bsize / c->page, i;

	b->valid = 0;
	for (i = 0; i < np; i++)
		if (ok[i])
			b->valid |= 1ull << i;
	for (i = 0; i < np && ok[i]; i++)
		;
	b->len = i * c->page;
}

/* Reads the block at base into b. */
static void load(struct mcache *c, struct mcache_blk *b, uint64_t base)
{
	unsigned char ok[MCACHE_BLK_PAGES];
	ssize_t got;

	b->base = UINT64_MAX;
	b->len = 0;
	b->valid = 0;
	b->used = ++c->clock;
	if (!b->buf && !(b->buf = malloc(c->bsize))) {
		c->oom = true;
		return;
	}
	b->base = base;
	if (c->multi) {
		c->bytes_read +=
			read_pages(c, base, b->buf, c->bsize / c->page, ok);
		set_valid(c, b, ok);
		return;
	}
	got = c->mem->read(c->mem->ctx, base, b->buf, c->bsize);
	b->len = got > 0 ? (size_t)got : 0;
	c->bytes_read += b->len;
}

/* The bytes of b from addr on that were read, without a gap; 0 when
 * addr is not among them. */
static size_t avail(const struct mcache *c, const struct mcache_blk *b,
		    uint64_t addr)
{
	size_t off, pg, end, np;

	if (b->base == UINT64_MAX || addr < b->base ||
	    addr - b->base >= c->bsize)
		return 0;
	off = (size_t)(addr - b->base);
	if (!c->multi)
		return off < b->len ? b->len - off : 0;
	np = c->bsize / c->page;
	pg = off / c->page;
	for (end = pg; end < np && ((b->valid >> end) & 1); end++)
		;
	return end > pg ? end * c->page - off : 0;
}

/* The first slot of the pair that holds the block at base. */
static struct mcache_blk *pair_of(const struct mcache *c,
				  struct mcache_blk *blk, size_t nblk,
				  uint64_t base)
{
	uint64_t h = (base / c->bsize) * 0x9e3779b97f4a7c15ull;

	return &blk[((size_t)(h >> 32) % nblk) & ~(size_t)1];
}

/* Twice the slots (a multi cache): every block held moved to its pair in
 * the new array (one whose pair is taken let go: rare at half full). -1
 * on out of memory (the cache goes on as it is). */
static int grow(struct mcache *c)
{
	size_t n = c->nblk * 2, i;
	struct mcache_blk *nb = calloc(n, sizeof(*nb)), *b;

	if (!nb)
		return -1;
	for (i = 0; i < n; i++)
		nb[i].base = UINT64_MAX;
	c->nheld = 0;
	for (i = 0; i < c->nblk; i++) {
		struct mcache_blk *o = &c->blk[i];

		if (o->base == UINT64_MAX) {
			free(o->buf);
			continue;
		}
		b = pair_of(c, nb, n, o->base);
		if (b->base != UINT64_MAX)
			b++;
		if (b->base != UINT64_MAX) {
			free(o->buf);
			continue;
		}
		*b = *o;
		c->nheld++;
	}
	free(c->blk);
	c->blk = nb;
	c->nblk = n;
	c->last = NULL;
	return 0;
}

/* The block holding addr, loaded if need be; NULL when addr is absent. */
static struct mcache_blk *blk_for(struct mcache *c, uint64_t addr)
{
	struct mcache_blk *b;
	uint64_t base = addr - addr % c->page;
	size_t i;

	if (c->multi) {
		/* two ways: a block of a library's data and one of the heap
		 * that fall on the same slot do not take turns; an absent
		 * page stays absent for the walk: not read again */
		base = addr - addr % c->bsize;
		b = pair_of(c, c->blk, c->nblk, base);
		if (b->base != base && b[1].base == base)
			b++;
		else if (b->base != base) {
			if (base > UINT64_MAX - c->bsize)
				return NULL;
			/* half full: twice the slots, up to maxblk */
			if (c->nheld >= c->nblk / 2 && c->nblk < c->maxblk &&
			    grow(c) == 0)
				b = pair_of(c, c->blk, c->nblk, base);
			if (b[1].used < b->used)
				b++;
			if (b->base == UINT64_MAX)
				c->nheld++;
			load(c, b, base);
			if (b->base == UINT64_MAX)
				c->nheld--;
		}
		b->used = ++c->clock;
		return avail(c, b, addr) ? b : NULL;
	}
	if (c->direct) {
		b = &c->blk[(base / c->bsize) % c->nblk];
		base = addr - addr % c->bsize;
		if (avail(c, b, addr))
			return b;
	} else {
		b = &c->blk[0];
		for (i = 0; i < c->nblk; i++) {
			if (avail(c, &c->blk[i], addr)) {
				c->blk[i].used = ++c->clock;
				return &c->blk[i];
			}
			if (c->blk[i].used < b->used)
				b = &c->blk[i];
		}
	}
	if (base > UINT64_MAX - c->bsize)
		return NULL;
	load(c, b, base);
	return avail(c, b, addr) ? b : NULL;
}

bool mcache_copy(struct mcache *c, uint64_t addr, void *dst, size_t n)
{
	unsigned char *d = dst;

	while (n) {
		struct mcache_blk *b = blk_for(c, addr);
		size_t off, k;

		if (!b)
			return false;
		c->last = b;
		off = (size_t)(addr - b->base);
		k = avail(c, b, addr);
		k = k < n ? k : n;
		memcpy(d, b->buf + off, k);
		d += k;
		n -= k;
		if (addr > UINT64_MAX - k)
			return n == 0;
		addr += k;
	}
	return true;
}

static int cmp_base(const void *x, const void *y)
{
	uint64_t a = (*(struct mcache_blk *const *)x)->base;
	uint64_t b = (*(struct mcache_blk *const *)y)->base;

	return (a > b) - (a < b);
}

/* Bytes read again in one read at most (its buffer: below the mmap
 * threshold vmscope --all sets), and pages. */
#define REFRESH_BYTES (1u << 20)
#define REFRESH_PAGES (REFRESH_BYTES / 4096 + MCACHE_BLK_PAGES)

int mcache_refresh(struct mcache *c)
{
	struct mcache_blk **held;
	unsigned char *buf = NULL, ok[REFRESH_PAGES];
	size_t n = 0, i, j, k, np = c->bsize / c->page;
	size_t run = REFRESH_BYTES / c->bsize ? REFRESH_BYTES / c->bsize : 1;

	c->bytes_read = 0;
	c->last = NULL;
	if (!c->multi) { /* read again as asked for */
		for (i = 0; i < c->nblk; i++)
			c->blk[i].base = UINT64_MAX;
		return 0;
	}
	held = malloc(c->nblk * sizeof(*held));
	if (!held) {
		for (i = 0; i < c->nblk; i++)
			c->blk[i].base = UINT64_MAX;
		c->nheld = 0;
		return -1;
	}
	for (i = 0; i < c->nblk; i++)
		if (c->blk[i].base != UINT64_MAX)
			held[n++] = &c->blk[i];
	qsort(held, n, sizeof(*held), cmp_base);
	for (i = 0; i < n; i = j) {
		/* the run of adjacent blocks from held[i] */
		for (j = i + 1; j < n && j - i < run &&
				held[j]->base == held[j - 1]->base + c->bsize;
		     j++)
			;
		if (j - i == 1) { /* into its own buffer */
			c->bytes_read += read_pages(c, held[i]->base,
						    held[i]->buf, np, ok);
			set_valid(c, held[i], ok);
			held[i]->used = ++c->clock;
			continue;
		}
		if (!buf && !(buf = malloc(run * c->bsize))) {
			for (k = i; k < n; k++)
				held[k]->base = UINT64_MAX;
			c->nheld -= n - i;
			free(held);
			return -1;
		}
		c->bytes_read +=
			read_pages(c, held[i]->base, buf, (j - i) * np, ok);
		for (k = i; k < j; k++) {
			memcpy(held[k]->buf, buf + (k - i) * c->bsize,
			       c->bsize);
			set_valid(c, held[k], ok + (k - i) * np);
			held[k]->used = ++c->clock;
		}
	}
	free(held);
	free(buf);
	return 0;
}

/* ---- the cache kept between walks (glibc_walk.h) ---- */

/* The lists' page cache (lists_only): page-sized blocks (a block of many
 * pages reads pages the lists do not touch: a CPython heap's cost 2x),
 * LISTS_NBLK slots to begin with, up to LISTS_MAXBLK (128 MiB of 4 KiB
 * pages), each block's buffer allocated as it is read. */
#define LISTS_NBLK 64
#define LISTS_MAXBLK 32768

int walk_pages_init(struct mcache *c, const struct glibc_mem *mem,
		    uint64_t page, bool lists_only,
		    struct glibc_walk_keep *keep)
{
	if (keep && keep->ready) {
		/* the walk before read these: again, in runs */
		*c = keep->pages;
		keep->ready = false;
		c->mem = mem;
		return mcache_refresh(c);
	}
	/* the lists alone jump about the heap: a page cache that grows
	 * with what is read, each page read once a walk */
	return lists_only ? mcache_init_runs(c, mem, LISTS_NBLK, LISTS_MAXBLK,
					     page, page)
			  : mcache_init(c, mem, 256, page, page, true);
}

void walk_pages_done(struct mcache *c, struct glibc_walk_keep *keep)
{
	if (keep && c->blk) {
		keep->pages = *c;
		keep->ready = true;
	} else {
		mcache_fini(c);
	}
}

struct glibc_walk_keep *glibc_walk_keep_new(void)
{
	return calloc(1, sizeof(struct glibc_walk_keep));
}

void glibc_walk_keep_free(struct glibc_walk_keep *k)
{
	if (k && k->ready)
		mcache_fini(&k->pages);
	free(k);
}

/* ---- checks and the block callback (glibc_walk_int.h) ---- */

int walk_block(struct walk *w, uint64_t arena, uint64_t chunk, uint64_t usable,
	       bool held)
{
	if (!w->in->block)
		return 0;
	return w->in->block(w->in->block_ctx, arena, chunk + 16, usable, held)
		       ? -1
		       : 0;
}

void walk_note(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (buf[0])
		return; /* the first reason is the one that matters */
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

const struct glibc_span *walk_span(const struct walk *w, uint64_t addr)
{
	size_t lo = 0, hi = w->in->nspans;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct glibc_span *s = &w->in->spans[mid];

		if (addr < s->start)
			hi = mid;
		else if (addr >= s->end)
			lo = mid + 1;
		else
			return s;
	}
	return NULL;
}

bool walk_ptr_ok(const struct walk *w, uint64_t p, uint64_t n)
{
	const struct glibc_span *s = walk_span(w, p);

	return s && n <= s->end - p;
}

bool chunk_ptr_ok(const struct walk *w, uint64_t p)
{
	return (p & 15) == 0 && walk_ptr_ok(w, p, MINSIZE);
}

uint64_t walk_reveal(const struct walk *w, uint64_t pos, uint64_t v)
{
	return w->in->lay.safe_linking ? (pos >> 12) ^ v : v;
}

bool brent_step(struct brent *b, uint64_t p)
{
	if (p == b->saved)
		return false;
	if (++b->lam == b->power) {
		b->saved = p;
		b->power *= 2;
		b->lam = 0;
	}
	return true;
}

void brent_init(struct brent *b, uint64_t first)
{
	b->saved = first;
	b->power = 1;
	b->lam = 0;
}

int walk_add_seg(struct glibc_arena *a, uint64_t start, uint64_t end)
{
	struct glibc_seg *n;

	if ((a->nsegs & (a->nsegs + 1)) == 0 || a->nsegs == 0) {
		size_t cap = a->nsegs ? (a->nsegs + 1) * 2 : 4;

		n = realloc(a->segs, cap * sizeof(*n));
		if (!n)
			return -1;
		a->segs = n;
	}
	a->segs[a->nsegs].start = start;
	a->segs[a->nsegs].end = end;
	a->nsegs++;
	return 0;
}
