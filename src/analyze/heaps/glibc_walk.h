/* glibc_walk.h — glibc malloc's state read from a memory image, without
 * debug symbols: the arenas, their chunks, and mallinfo2()'s figures.
 *
 * Contract:
 *  - Memory comes through struct glibc_mem (a callback that copies bytes as
 *    of one instant: the step's snapshot source, or a fixture image in the
 *    tests and the fuzzer); never a pid. Reads are in large blocks for the
 *    chunk walk (GLIBC_WALK_BLOCK) and in pages for pointer chasing, each
 *    cached; a read may be short where memory is absent (pages not in RAM).
 *  - Where main_arena and mp_ are (runtime addresses) and which layout the
 *    library has (glibc_layout_for) are the caller's: glibc_find.h finds
 *    them in the library's files.
 *  - Every pointer followed is checked first: inside one of the regions
 *    given, aligned, a sane size; every list is bounded (Brent's cycle
 *    check and a cap from the arena's size). Garbage memory gives a result
 *    marked partial with the reason (res->partial, arena->partial), never a
 *    crash or a loop. Work is O(bytes of the heaps + chunks in the lists).
 *  - The mallinfo2 figures are computed as glibc's int_mallinfo does, from
 *    the arenas' lists (fastbins, bins, top) and system_mem, so they equal
 *    what the process's own mallinfo2() returns at that instant. The chunk
 *    walk adds what mallinfo2 does not say: chunk counts, tcache'd bytes,
 *    arena overhead, a free-size histogram, the largest free chunk.
 *  - An arena whose mutex is held is marked busy (its lists may be half
 *    updated) and not walked; the totals are then partial.
 *  - glibc_walk() returns -1 only when out of memory or cancelled (the
 *    progress callback said so); everything else is in the result. The
 *    result owns its arrays: glibc_walk_fini() frees them.
 *
 * LP64 only (x86-64, aarch64...: SIZE_SZ 8, MALLOC_ALIGNMENT 16), glibc
 * 2.27 to 2.42; glibc_layout_for() says which it does not know.
 */
#ifndef VMS_GLIBC_WALK_H
#define VMS_GLIBC_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Bytes read at a time for the chunk walk. */
#define GLIBC_WALK_BLOCK (1u << 20)
/* Free-size histogram buckets: [32 << k, 64 << k), the last open. */
#define GLIBC_HIST 24
/* Cells of an arena's fragmentation strip. */
#define GLIBC_STRIP 128
/* Bytes of present pages the search for mmapped chunks inside regions
 * merged with other memory reads at most (a page each: 1 MiB reads). */
#define GLIBC_MMAPPED_SEARCH (1ull << 30)
/* ... and the address space looked at for them, present or not (a
 * terabyte reserved and merged with a chunk would be 2^28 pages to look
 * at: seconds of a target held still) */
#define GLIBC_MMAPPED_SPAN (64ull << 30)
/* Arenas followed at most (glibc makes 8 per CPU by default). */
#define GLIBC_MAX_ARENAS 4096

/* Where the fields are, by glibc version (x86-64 offsets). */
struct glibc_layout {
	unsigned major, minor;
	/* struct malloc_state */
	unsigned ms_fastbins, ms_top, ms_bins, ms_next, ms_system_mem, ms_size;
	/* struct malloc_par (mp_); mp_hp_pagesize 0: no such field */
	unsigned mp_hp_pagesize, mp_n_mmaps, mp_mmapped_mem, mp_sbrk_base,
		mp_tcache_bins, mp_tcache_count, mp_size;
	unsigned heap_info_size; /* 0x20, 0x30 from 2.35 */
	bool safe_linking; /* 2.32: fd/next in chunks are PROTECT_PTR'd */
	/* tcache_perthread_struct */
	unsigned tc_bins; /* 64; 76 in 2.42 */
	unsigned tc_count_size; /* bytes a count: 1 to 2.29, 2 after */
	unsigned tc_chunk; /* the struct's chunk size: 0x250, 0x290, 0x300 */
	unsigned tc_key; /* 0 none (<2.29), 1 the tcache itself, 2 random */
	bool tc_slots_left; /* 2.42: counts are free slots, not chunks */
};

/* The layout of glibc major.minor; false when it is not one this walker
 * knows (say so: never guess). */
bool glibc_layout_for(unsigned major, unsigned minor, struct glibc_layout *l);

/* The byte image glibc's mp_ starts with in the library file (its static
 * initialiser), for the finder: want[i] is compared where mask[i] is set.
 * Returns the length (lay->mp_size). */
size_t glibc_mp_initialiser(const struct glibc_layout *lay, unsigned char *want,
			    unsigned char *mask);

struct glibc_mem {
	/* Copies len bytes at addr as of the snapshot; returns the bytes
	 * copied (short where memory is absent), or -1. */
	ssize_t (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *ctx;
	/* Optional: out[i] = 1 when page i from addr (page-aligned) is in
	 * RAM as of the snapshot, else 0, for npages pages; 0, or -1 when
	 * the source cannot tell (residency then stays unknown). */
	int (*present)(void *ctx, uint64_t addr, size_t npages,
		       unsigned char *out);
	/* Optional: read of npages pages from addr (page-aligned) that goes
	 * on past absent ones: ok[i] = 1 for page i read. The bytes read, or
	 * -1. Without it, the walker reads with read, on from where each
	 * read stopped (a page that reads nothing is absent). */
	ssize_t (*read_pages)(void *ctx, uint64_t addr, void *buf,
			      size_t npages, unsigned char *ok);
};

/* A region of the address space the walker may follow pointers into. */
struct glibc_span {
	uint64_t start, end;
	bool anon_rw; /* anonymous, private, read-write: may hold mmapped
		       * chunks */
	bool heap; /* [heap] */
};

struct glibc_walk_in {
	struct glibc_layout lay;
	uint64_t main_arena, mp; /* runtime addresses */
	const struct glibc_span *spans; /* by address, not overlapping */
	size_t nspans;
	uint64_t page_size;
	/* mallinfo2's figures alone (a run of many processes: vmscope
	 * --all): the arenas' lists, top and mp_, no chunk walk, no tcache
	 * or mmapped chunk looked for; what only those give (chunk counts,
	 * tcache, overhead, the strip, mmapped) is left 0. */
	bool lists_only;
	/* Optional, with lists_only: the lists' page cache kept from one
	 * walk to the next (glibc_walk_keep_new). A running target walked
	 * twice: the second walk first reads again every page the first one
	 * read, adjacent ones in one read, then walks as the first did
	 * (reading what it did not). */
	struct glibc_walk_keep *keep;
	/* Called now and then; non-zero cancels. May be NULL. */
	int (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	/* Optional: the blocks the program holds. Called with held true for
	 * each chunk the chunk walk sees in use (mem: its user pointer,
	 * usable: malloc_usable_size's bytes, arena: its arena's address;
	 * an mmapped chunk's is the main arena's), then with held false for
	 * each of those found cached after all (in a fastbin or a tcache)
	 * or being a tcache itself: what is left held is what the program
	 * holds. A tcache with every list empty cannot be told from a
	 * program's zeroed block of its size, and stays held. Non-zero
	 * cancels (out of memory). */
	int (*block)(void *ctx, uint64_t arena, uint64_t mem, uint64_t usable,
		     bool held);
	void *block_ctx;
};

struct glibc_seg {
	uint64_t start, end;
};

/* One arena. mallinfo2's per-arena figures are exact when partial is
 * empty; the walk's when walk_partial is too. */
struct glibc_arena {
	uint64_t addr; /* its struct malloc_state */
	bool main;
	bool busy; /* its mutex was held: not walked */
	/* its malloc_state or its top chunk could not be read: not walked,
	 * its figures unknown (not 0) */
	bool unread;
	struct glibc_seg *segs; /* brk heap, or its mmapped heaps, by walk */
	size_t nsegs;
	/* mallinfo2, this arena alone */
	uint64_t system; /* system_mem */
	uint64_t free; /* fordblks: top + bins + fastbins */
	uint64_t in_use; /* uordblks: system - free */
	uint64_t ordblks; /* 1 (top) + chunks in bins */
	uint64_t smblks, fsmblks; /* fastbin chunks, their bytes */
	uint64_t top; /* chunksize(top) */
	/* the chunk walk */
	uint64_t chunks; /* chunks walked, top included */
	uint64_t tcache, tcache_chunks; /* in tcaches (in in_use) */
	uint64_t overhead; /* system - sum of chunk sizes: heap_info,
			    * malloc_state, padding, fenceposts (in in_use) */
	uint64_t largest_free; /* in bins or fastbins (top apart) */
	uint64_t hist[GLIBC_HIST], hist_bytes[GLIBC_HIST];
	/* free bytes (top, bins, fastbins: those in free) in pages present
	 * in RAM; known only when glibc_mem.present answered for every
	 * segment */
	uint64_t free_resident;
	bool resident_known;
	/* the fragmentation strip: the segments end to end (strip_bytes)
	 * in GLIBC_STRIP equal cells, each cell's bytes in free chunks
	 * other than top, and in top; the rest of a cell is in use */
	uint64_t strip_bytes;
	uint64_t strip_free[GLIBC_STRIP], strip_top[GLIBC_STRIP];
	char partial[160]; /* why the figures are incomplete, or "" */
};

struct glibc_walk_res {
	/* the process's mallinfo2() */
	uint64_t arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks,
		uordblks, fordblks, keepcost;
	uint64_t tcache, tcache_chunks, overhead;
	struct glibc_arena *arenas; /* main first, then by next */
	size_t narenas;
	/* mmapped chunks found among the anonymous regions */
	struct glibc_seg *mmapped;
	size_t nmmapped;
	uint64_t mmapped_found; /* their bytes */
	char mmapped_note[128]; /* "" when all of mp_'s were located */
	bool empty; /* malloc never ran: no heap yet */
	/* heap_max_size(): each non-main heap's reservation and alignment
	 * (64 MiB; 4 huge pages under glibc.malloc.hugetlb=2); 0 when mp_
	 * was not read */
	uint64_t heap_max;
	uint64_t bytes_read; /* through glibc_mem, in all */
	char partial[256]; /* why the whole is incomplete, or "" */
};

int glibc_walk(const struct glibc_walk_in *in, const struct glibc_mem *mem,
	       struct glibc_walk_res *res);

/* A page cache to keep between walks (glibc_walk_in.keep); NULL when out
 * of memory (then walk without). Free it after the last walk. */
struct glibc_walk_keep *glibc_walk_keep_new(void);
void glibc_walk_keep_free(struct glibc_walk_keep *k);
void glibc_walk_fini(struct glibc_walk_res *res);

/* The histogram bucket of a free chunk of size sz. */
unsigned glibc_hist_bucket(uint64_t sz);

#endif
