/* glibc_mcache.h — the heap walker's reads of the snapshot's memory: a
 * small cache of blocks over a struct glibc_mem, so that a chunk walk reads
 * the heap in large blocks and a pointer chase reads each page once.
 *
 * Contract: a cache reads only through its glibc_mem; a block starts on a
 * page boundary and holds the bytes the read returned (short where memory
 * is absent). mcache_copy() is all-or-nothing: it copies n bytes at addr
 * and returns true, or returns false when any of them is absent. The
 * cache owns its buffers: mcache_fini() frees them. Private to the walker
 * (glibc_walk.c, glibc_tcache.c), with the pointer checks of
 * glibc_walk_int.h.
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
	size_t len; /* bytes valid from base */
	uint64_t used; /* for eviction */
	unsigned char *buf;
};

struct mcache {
	const struct glibc_mem *mem;
	struct mcache_blk *blk;
	size_t nblk, bsize;
	/* the blocks' buffers, one mapping: no malloc of a megabyte a walk
	 * (its threshold moves, and the heap grows and is trimmed again for
	 * every walk of a run of many: vmscope --all) */
	unsigned char *area;
	uint64_t page, clock, bytes_read;
	bool direct; /* direct-mapped by page (pointer chasing), else LRU */
	struct mcache_blk *last; /* the block last used */
};

int mcache_init(struct mcache *c, const struct glibc_mem *mem, size_t nblk,
		size_t bsize, uint64_t page, bool direct);
void mcache_fini(struct mcache *c);
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
