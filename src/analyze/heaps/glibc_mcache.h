/* glibc_mcache.h — the heap walker's reads of the snapshot's memory: a
 * small cache of blocks over a struct glibc_mem, so that a chunk walk reads
 * the heap in large blocks and a pointer chase reads each page once.
 *
 * Contract: a cache reads only through its glibc_mem; a block starts on a
 * page boundary (one of mcache_init_runs on a multiple of its size) and
 * holds the bytes the read returned (mcache_init_runs: of each page read,
 * a block reading past an absent page to the present ones after it).
 * mcache_copy() is all-or-nothing: it copies n bytes at addr and returns
 * true, or returns false when any of them is absent. The cache owns its
 * buffers (each allocated when its block is first read): mcache_fini()
 * frees them. mcache_refresh() reads every block held again, adjacent
 * blocks in one read: a second walk of a running target reads what the
 * first read in runs, not a page at a time. Private to the walker
 * (glibc_walk.c, glibc_tcache.c), with the pointer checks of
 * glibc_walk_int.h; glibc_mcache.c also keeps the cache between walks
 * (glibc_walk_keep_*, walk_pages_init).
 */
#ifndef VMS_GLIBC_MCACHE_H
#define VMS_GLIBC_MCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analyze/heaps/glibc_walk.h"

struct mcache_blk {
	uint64_t base;
	size_t len; /* bytes valid from base on, without a gap */
	uint64_t valid; /* the pages read, bit i: page i of the block */
	uint64_t used; /* for eviction */
	unsigned char *buf;
};

/* The most pages a block holds (its valid bits). */
#define MCACHE_BLK_PAGES 64

struct mcache {
	const struct glibc_mem *mem;
	struct mcache_blk *blk;
	size_t nblk, bsize;
	/* each block's buffer allocated when first read: a walk of a small
	 * heap costs the few it reads, no mapping of the whole made and
	 * unmapped again (vmscope --all walks hundreds); none as large as
	 * malloc's mmap threshold, which would move it */
	uint64_t page, clock, bytes_read;
	bool direct; /* direct-mapped by page (pointer chasing), else LRU */
	bool multi; /* mcache_init_runs: blocks whose pages are each valid or
		     * not, two ways (a pair of slots a block) */
	bool oom; /* a block's buffer could not be had */
	size_t nheld, maxblk; /* multi: blocks held, the most slots */
	struct mcache_blk *last; /* the block last used */
};

/* bsize: a multiple of page, at most MCACHE_BLK_PAGES of them; -1 on out
 * of memory. */
int mcache_init(struct mcache *c, const struct glibc_mem *mem, size_t nblk,
		size_t bsize, uint64_t page, bool direct);
/* A cache that mcache_refresh() reads again in runs: two ways, each block
 * of bsize (a multiple of page, at most MCACHE_BLK_PAGES of them) its
 * pages valid or not; nblk slots (a power of two) to begin with, twice as
 * many each time half are held, up to maxblk: a walk of a small heap
 * sets up a small table, one of a large heap reads each block once. -1
 * on out of memory or a bad size. */
int mcache_init_runs(struct mcache *c, const struct glibc_mem *mem, size_t nblk,
		     size_t maxblk, size_t bsize, uint64_t page);
void mcache_fini(struct mcache *c);
/* Reads every block held again (from c->mem); bytes_read counts from 0.
 * -1 on out of memory (the cache is then left empty). */
int mcache_refresh(struct mcache *c);
bool mcache_copy(struct mcache *c, uint64_t addr, void *dst, size_t n);

/* mcache_copy, first trying the block last used without a call (the
 * chunk walk reads a header every few dozen bytes). */
static inline bool mcache_get(struct mcache *c, uint64_t addr, void *dst,
			      size_t n)
{
	const struct mcache_blk *b = c->last;

	if (b && addr >= b->base && addr - b->base <= b->len &&
	    n <= b->len - (addr - b->base)) {
		memcpy(dst, b->buf + (addr - b->base), n);
		return true;
	}
	return mcache_copy(c, addr, dst, n);
}

static inline bool mcache_u64(struct mcache *c, uint64_t addr, uint64_t *v)
{
	return mcache_copy(c, addr, v, sizeof(*v));
}

#endif
