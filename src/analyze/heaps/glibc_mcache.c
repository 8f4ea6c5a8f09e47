/* glibc_mcache.c — block cache over a glibc_mem (glibc_mcache.h), and
 * the checks every file of the walker makes before it follows a pointer,
 * and an arena's list of segments (glibc_walk_int.h): below glibc_walk.c,
 * glibc_tcache.c and glibc_noncontig.c, so none calls another for them. */
#include "analyze/heaps/glibc_mcache.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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
	c->blk = calloc(nblk, sizeof(*c->blk));
	if (!c->blk || nblk * bsize / bsize != nblk)
		goto fail;
	/* pages are touched only as blocks fill */
	c->area = mmap(NULL, nblk * bsize, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->area == MAP_FAILED) {
		c->area = NULL;
		goto fail;
	}
	for (i = 0; i < nblk; i++) {
		c->blk[i].buf = c->area + i * bsize;
		c->blk[i].base = UINT64_MAX;
	}
	return 0;
fail:
	mcache_fini(c);
	return -1;
}

void mcache_fini(struct mcache *c)
{
	if (c->area)
		munmap(c->area, c->nblk * c->bsize);
	c->area = NULL;
	free(c->blk);
	c->blk = NULL;
	c->last = NULL;
}

static bool in_blk(const struct mcache_blk *b, uint64_t addr)
{
	return b->base != UINT64_MAX && addr >= b->base &&
	       addr - b->base < b->len;
}

/* The block holding addr, loaded if need be; NULL when addr is absent. */
static struct mcache_blk *blk_for(struct mcache *c, uint64_t addr)
{
	struct mcache_blk *b;
	uint64_t base = addr - addr % c->page;
	ssize_t got;
	size_t i;

	if (c->direct) {
		b = &c->blk[(base / c->bsize) % c->nblk];
		base = addr - addr % c->bsize;
		if (in_blk(b, addr))
			return b;
	} else {
		b = &c->blk[0];
		for (i = 0; i < c->nblk; i++) {
			if (in_blk(&c->blk[i], addr)) {
				c->blk[i].used = ++c->clock;
				return &c->blk[i];
			}
			if (c->blk[i].used < b->used)
				b = &c->blk[i];
		}
	}
	if (base > UINT64_MAX - c->bsize)
		return NULL;
	got = c->mem->read(c->mem->ctx, base, b->buf, c->bsize);
	b->base = base;
	b->len = got > 0 ? (size_t)got : 0;
	b->used = ++c->clock;
	c->bytes_read += b->len;
	return in_blk(b, addr) ? b : NULL;
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
		k = b->len - off < n ? b->len - off : n;
		memcpy(d, b->buf + off, k);
		d += k;
		n -= k;
		if (addr > UINT64_MAX - k)
			return n == 0;
		addr += k;
	}
	return true;
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
