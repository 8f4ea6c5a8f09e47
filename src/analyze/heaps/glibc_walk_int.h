/* glibc_walk_int.h — what the walker's files share (glibc_walk.c: arenas,
 * chunks, lists; glibc_tcache.c: tcaches, mmapped chunks; glibc_place.c:
 * where the free chunks lie; glibc_noncontig.c: a non-contiguous main
 * arena's segments; glibc_mcache.c: the blocks they read through).
 * Private to them: the rest of the engine uses glibc_walk.h.
 */
#ifndef VMS_GLIBC_WALK_INT_H
#define VMS_GLIBC_WALK_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/heaps/glibc_mcache.h"
#include "analyze/heaps/glibc_walk.h"

/* A free chunk the walk saw (the next chunk's PREV_INUSE is clear). */
struct walk_free {
	uint64_t addr, size, bk;
};

/* A chunk of a fastbin's size the walk saw whose link, revealed, is 0 or
 * a chunk of its arena: perhaps in a fastbin. key: its address, with its
 * size / 16 in the low 4 bits (sizes 0x20 to 0xb0). */
struct walk_fast {
	uint64_t key, fd;
};

/* The most walk_fast entries kept (16 bytes each); past it, fastbin
 * chunks are read by page. */
#define WALK_FAST_MAX (8u << 20)

/* The lists' page cache kept from one walk to the next (glibc_walk.h:
 * glibc_walk_in.keep; made and freed in glibc_mcache.c). */
struct glibc_walk_keep {
	struct mcache pages;
	bool ready; /* pages holds what the last walk read */
};

/* The walk's page cache (struct walk.pages): for the lists alone one that
 * grows as it fills, read again in runs when keep holds the last walk's;
 * else 256 pages. -1 on out of memory. */
int walk_pages_init(struct mcache *c, const struct glibc_mem *mem,
		    uint64_t page, bool lists_only,
		    struct glibc_walk_keep *keep);
/* Into keep for the next walk (not NULL), else freed. */
void walk_pages_done(struct mcache *c, struct glibc_walk_keep *keep);

/* Brent's cycle check on a list: O(1) memory, stops within two turns. */
struct brent {
	uint64_t saved, power, lam;
};

struct walk {
	const struct glibc_walk_in *in;
	struct glibc_walk_res *res;
	struct mcache blocks; /* chunk walk: GLIBC_WALK_BLOCK reads */
	struct mcache pages; /* pointer chasing: page reads */
	const struct glibc_mem *mem;
	uint64_t sbrk_base, heap_max, tcache_count;
	uint64_t done, total; /* progress, bytes */
	/* the current arena's free chunks, by address once walked */
	struct walk_free *free;
	size_t nfree, capfree;
	uint64_t binned_unwalked; /* binned chunks the walk did not see */
	/* the current arena's walk_fast entries, by address */
	struct walk_fast *fast;
	size_t nfast, capfast, fast_hint;
	/* the current arena's segments' pages present in RAM (one byte a
	 * page, segment after segment, a->segs order), or NULL: unknown */
	unsigned char *present;
	size_t cappresent;
	uint64_t *segoff; /* each segment's first page in present */
	uint64_t *segbytes; /* each segment's first byte, end to end */
	/* the search for mmapped chunks inside merged regions read its
	 * bound (GLIBC_MMAPPED_SEARCH) */
	bool mmapped_bound;
	/* chunks of the tcache struct's size: candidate tcaches */
	uint64_t *tc;
	size_t ntc, captc;
	bool cancelled; /* by the block callback */
};

/* The block callback (glibc_walk_in.block), if any: -1 cancels. */
int walk_block(struct walk *w, uint64_t arena, uint64_t chunk, uint64_t usable,
	       bool held);
void walk_note(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const struct glibc_span *walk_span(const struct walk *w, uint64_t addr);
/* [p, p + n) lies in one span. */
bool walk_ptr_ok(const struct walk *w, uint64_t p, uint64_t n);
/* p may be a chunk: aligned, its header and links in a span. */
bool chunk_ptr_ok(const struct walk *w, uint64_t p);
/* REVEAL_PTR of the link v stored at pos (2.32 on), else v. */
uint64_t walk_reveal(const struct walk *w, uint64_t pos, uint64_t v);
void brent_init(struct brent *b, uint64_t first);
/* Records one more step to p: false when p closes a cycle. */
bool brent_step(struct brent *b, uint64_t p);

/* glibc_place.c: after the arena's segments are sorted, then for each
 * free chunk (top, bins, fastbins): its resident bytes and strip cells.
 * walk_place_init returns -1 only when out of memory. */
int walk_place_init(struct walk *w, struct glibc_arena *a);
void walk_place_free(struct walk *w, struct glibc_arena *a, uint64_t p,
		     uint64_t sz, bool top);

/* glibc_mcache.c: a segment more for arena a; -1 on out of memory. */
int walk_add_seg(struct glibc_arena *a, uint64_t start, uint64_t end);

/* glibc_noncontig.c: the main arena's segments where it is not contiguous
 * (sbrk failed), found where they lie; -1 on out of memory, a note in
 * a->partial where they do not add up to system_mem and top. */
int walk_main_noncontig(struct walk *w, struct glibc_arena *a, uint64_t top,
			uint64_t topsz);

/* glibc_tcache.c */
int walk_tcache_candidate(struct walk *w, uint64_t chunk);
int walk_tcaches(struct walk *w);
int walk_mmapped(struct walk *w);

#endif
