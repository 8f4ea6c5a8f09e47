/* rtheap.h — the headers that tell a runtime's or an allocator's memory
 * from other anonymous memory: a V8 heap page, a CPython obmalloc pool, a
 * jemalloc base block (the blocks that hold its metadata) and the extent
 * records inside it, a mimalloc segment and the pages it holds, a
 * gperftools tcmalloc span.
 *
 * Contract: each parser takes a buffer (the first bytes of a candidate, as
 * read from the snapshot's source), the address it was read at and the end
 * of the mapped run it lies in; it never reads outside buf[0, len), never
 * allocates, and answers true only when every field it checks is sane for
 * that place (sizes inside the run, pointers inside the page, counts within
 * capacity). Garbage gives false, never a crash (tests/fuzz/fuzz_rtheap.c).
 * Layouts were measured on Debian 12 (NOTES-heaps-runtimes.md B.4, B.5,
 * A.6): node 18, 20 and 22 / V8 10.2, 11.3 and 12.4 without pointer
 * compression, python 3.11,
 * jemalloc 5.3.0, mimalloc 2.0.9; each is said where it is version
 * specific.
 */
#ifndef VMS_RTHEAP_H
#define VMS_RTHEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- V8 ---- */

/* Pages (MemoryChunks) start at 256 KiB-aligned addresses; a large-object
 * page is larger, read-only pages smaller. Two header layouts are read:
 * V8 7 to 11 (node 12 to 21; measured on 10.2 and 11.3): size, flags,
 * heap, area_start, area_end, allocated, ..., high_water at word 7, owner
 * at word 8; V8 12 (node 22, measured on 12.4): flags, the page's own
 * address, size, heap, area_start, area_end, allocated, ..., high_water at
 * word 8, owner at word 9. The second is told by word 1 being the page's
 * address (a flags word never is). */
#define RTHEAP_V8_ALIGN (256u << 10)
/* The header bytes to read: up to the owner of the later layout; the
 * earlier needs RTHEAP_V8_HDR_MIN of them. */
#define RTHEAP_V8_HDR 80
#define RTHEAP_V8_HDR_MIN 72

struct rtheap_v8_page {
	uint64_t size; /* the page's bytes (its reservation) */
	uint64_t flags;
	uint64_t heap; /* the isolate's Heap (0: the shared read-only heap) */
	uint64_t area_start, area_end; /* where objects may lie */
	uint64_t owner; /* the space it belongs to */
	/* The bytes allocated on the page, objects and the linear allocation
	 * area (what a space's used adds up); -1 where it is past the area
	 * (another layout). A new-space (semispace) page always says its
	 * whole area: its use is not in the page. */
	int64_t allocated;
	/* The high-water mark of allocation on the page, an offset; a
	 * large-object page, never allocated into piecemeal, keeps it at the
	 * start of its area. */
	uint64_t high_water;
	unsigned layout; /* 11: V8 7 to 11, 12: V8 12 (above) */
	/* Not in the header: set by the caller when the page's area lies
	 * in executable memory (a code page: V8 11 sets no flag bit 0 on
	 * it); false from rtheap_v8_page(). */
	bool exec_area;
	/* Not in the header: set by the caller when the page's space is the
	 * map space (V8 before 11 keeps every Map there; its space object
	 * whose id says so, rtheap_v8_owner_id); false from rtheap_v8_page(). */
	bool map_space;
};

bool rtheap_v8_page(const void *buf, size_t len, uint64_t base,
		    uint64_t run_end, struct rtheap_v8_page *out);

/* The space object a page's owner points to (BaseSpace: its vtable, its
 * heap, its AllocationSpace id, committed bytes): the id, when buf (its
 * first RTHEAP_V8_OWNER bytes) names heap as its own; -1 otherwise. Ids
 * are per version: MAP_SPACE is 3 in V8 7 to 10 (RTHEAP_V8_MAP_ID). */
#define RTHEAP_V8_OWNER 24
#define RTHEAP_V8_MAP_ID 3
int rtheap_v8_owner_id(const void *buf, size_t len, uint64_t heap);

/* The space a page belongs to, an index into rtheap_v8_spaces: the names
 * V8's getHeapSpaceStatistics() gives them. Told from the flag bits that
 * have kept their place since V8 7 (executable: bit 0, or an area in
 * executable memory, exec_area; young: bits 3 and 4; the large-page bit
 * moved; V8 12.4's layout: executable bit 18, trusted bit 19), its owner
 * (none: the shared read-only heap), map_space, and, for a large-object
 * page, its size (not 256 KiB) with its high-water mark still at its
 * header (a regular page shrunk to its objects is not 256 KiB either, but
 * was allocated into). */
enum {
	RTHEAP_V8_NEW,
	RTHEAP_V8_OLD,
	RTHEAP_V8_CODE,
	RTHEAP_V8_MAP,
	RTHEAP_V8_TRUSTED,
	RTHEAP_V8_LO,
	RTHEAP_V8_NEW_LO,
	RTHEAP_V8_CODE_LO,
	RTHEAP_V8_TRUSTED_LO,
	RTHEAP_V8_RO,
	RTHEAP_V8_NSPACES
};
extern const char *const rtheap_v8_spaces[RTHEAP_V8_NSPACES];
unsigned rtheap_v8_space(const struct rtheap_v8_page *p);

/* The page's bytes in use as its space counts them, -1 unknown (a
 * new-space page, V8 12's code and trusted pages, or an allocated count
 * past the area). */
int64_t rtheap_v8_used(const struct rtheap_v8_page *p);

/* Whether V8 has freed the page and not yet unmapped it: its PRE_FREED
 * flag (bit 13 in both layouts, V8 7 to 12.4, by V8's sources; measured
 * on 12.4, where a page of an evacuated old space waits so for the
 * unmapper's next run, which may come only with the next collection).
 * Such a page is in no space's page list and in none of V8's figures,
 * but its memory is V8's and committed. Later V8 moved the flag (bit 15,
 * then 16, then off the page): a layout past 12.4 must look again. */
bool rtheap_v8_freed(const struct rtheap_v8_page *p);

/* ---- CPython obmalloc ---- */

/* struct pool_header (48 bytes on LP64, every version since 3.0):
 * ref.count, freeblock, nextpool, prevpool, arenaindex, szidx,
 * nextoffset, maxnextoffset. */
#define RTHEAP_PY_HDR 48
/* Pools per arena: 16 KiB pools in 1 MiB arenas (3.10+, radix tree, 64
 * bit), or 4 KiB pools in 256 KiB arenas (before): 64 either way. */
#define RTHEAP_PY_POOLS 64

struct rtheap_py_pool {
	uint32_t count; /* blocks in use */
	uint32_t arenaindex;
	uint32_t block; /* block size, bytes */
	uint32_t capacity; /* blocks the pool has carved so far */
};

/* pool_size: 16384 or 4096 (the pool must be aligned to it); align: the
 * block alignment (16 since 3.8). */
bool rtheap_py_pool(const void *buf, size_t len, uint64_t addr,
		    uint32_t pool_size, struct rtheap_py_pool *out);

/* ---- jemalloc ---- */

/* Base blocks are mapped 2 MiB-aligned (HUGEPAGE); their header:
 * size, next, then the edata of the block's unused tail (bits, addr,
 * bsize): addr + bsize is the block's end (5.x). */
#define RTHEAP_JE_ALIGN (2u << 20)
#define RTHEAP_JE_HDR 40

struct rtheap_je_base {
	uint64_t size; /* the block's bytes */
	uint64_t next; /* the next block of the same base, or 0 */
	uint64_t used_end; /* the bump pointer: [addr, used_end) is in use */
};

bool rtheap_je_base(const void *buf, size_t len, uint64_t addr,
		    uint64_t run_end, struct rtheap_je_base *out);

/* The extents a base block's used bytes describe: each edata_t (5.x:
 * bits, addr, size; 64-byte aligned in 5.0-5.2, 128 in 5.3) has the
 * extent's address, then its size (low 12 bits: a serial number). The
 * address is page-aligned, or, for a large extent under cache-oblivious
 * placement (config.cache_oblivious, Debian's default), moved into its
 * first page by a multiple of the cache line: such an address is taken
 * only at a record's place (word 1 of a 64-byte line, known from at,
 * the address buf[0] was read at), and the extent begins at its page.
 * Calls fn(ctx, addr, size) for each pair of words that reads so and
 * that in_anon(ctx, addr, size) accepts (the range lies in one run of
 * anonymous memory), until fn returns non-zero. Returns the pairs seen. */
#define RTHEAP_JE_LINE 64
#define RTHEAP_JE_ADDR_AT 8
size_t rtheap_je_extents(const void *buf, size_t len, uint64_t at,
			 bool (*in_anon)(void *ctx, uint64_t addr,
					 uint64_t size),
			 int (*fn)(void *ctx, uint64_t addr, uint64_t size),
			 void *ctx);

/* Its ctl_stats (the layout since 5.1, which added metadata_thp; 5.3.0
 * measured): the record mallctl("stats.*") reads, filled at each "epoch" refresh:
 * allocated, active, metadata (base and internal), metadata_thp,
 * resident, mapped, retained, in that order. True when the figures are
 * sane together: allocated <= active <= resident <= mapped, metadata_thp
 * <= metadata <= mapped, the page counts whole pages (4 KiB), some bytes
 * active. */
#define RTHEAP_JE_STATS 56

struct rtheap_je_stats {
	uint64_t allocated, active, metadata, metadata_thp, resident, mapped,
		retained;
};

bool rtheap_je_stats(const void *buf, size_t len, struct rtheap_je_stats *out);

/* ctl's merged arena record, what mallctl("stats.arenas.<all>.*") reads
 * (5.3.0, 64-bit, 4 KiB pages: measured): a ctl_arena_t (arena_ind
 * MALLCTL_ARENAS_ALL = 4096, initialized, ..., pactive at 56, astats at
 * 80) followed at 88 by its ctl_arena_stats_t, allocated together at
 * each refresh's first. Its arena_stats_t begins base, resident,
 * metadata_thp, mapped, internal, allocated_large, nmalloc_large,
 * ndalloc_large; after it (RTHEAP_JE_SMALL_AT bytes from the record)
 * allocated_small, nmalloc_small, ndalloc_small. The ctl_stats the same
 * refresh filled (st) are sums of these: a record is taken only where
 * they agree (allocated = allocated_small + allocated_large, metadata =
 * base + internal, active = pactive pages, resident, mapped and
 * metadata_thp equal). */
#define RTHEAP_JE_ARENA_HDR 152 /* the ctl_arena_t, and 64 bytes of stats */
#define RTHEAP_JE_SMALL_AT (88 + 10368)
#define RTHEAP_JE_SMALL 24

struct rtheap_je_counts {
	/* allocations handed out and returned, cumulative (small: by its
	 * bins, to the thread caches too; large: by the arena) */
	uint64_t nmalloc_small, ndalloc_small, nmalloc_large, ndalloc_large;
	uint64_t allocated_large, internal;
};

/* The record's head (RTHEAP_JE_ARENA_HDR bytes read at addr): true when it
 * is the merged arena's and agrees with st; sets the large counts and
 * internal. */
bool rtheap_je_arena(const void *buf, size_t len, uint64_t addr,
		     const struct rtheap_je_stats *st,
		     struct rtheap_je_counts *io);

/* Its small figures (RTHEAP_JE_SMALL bytes read RTHEAP_JE_SMALL_AT after
 * the record): true when allocated_small + allocated_large is st's
 * allocated and none was returned more than handed out; sets the small
 * counts. */
bool rtheap_je_small(const void *buf, size_t len,
		     const struct rtheap_je_stats *st,
		     struct rtheap_je_counts *io);

/* ---- mimalloc ---- */

/* mimalloc 2.x on 64 bit: segments of 32 MiB (larger for one huge block),
 * aligned to 32 MiB, cut into 64 KiB slices; the segment's header
 * (mi_segment_t) is its first bytes, and ends with one mi_page_t of 80
 * bytes per slice (a run of slices used as one page is described by its
 * first entry). The layout read here is that of 2.0.9 to 2.1.1 (the same
 * segment and page fields, release builds): RTHEAP_MI_HDR bytes of
 * header, then the entries. */
#define RTHEAP_MI_ALIGN (32ull << 20)
#define RTHEAP_MI_SLICE (64u << 10)
#define RTHEAP_MI_HDR 264
#define RTHEAP_MI_PAGE 80
#define RTHEAP_MI_MAX_ENTRIES 513
/* Bytes that hold the header and every entry. */
#define RTHEAP_MI_INFO (RTHEAP_MI_HDR + RTHEAP_MI_MAX_ENTRIES * RTHEAP_MI_PAGE)

/* The number mi_version() returns (209: 2.0.9), read from its code:
 * x86-64 "mov eax, imm32; ret", aarch64 "mov w0, #imm16; ret". machine is
 * the ELF's e_machine. -1 when the code has another shape. */
int rtheap_mi_version(const void *code, size_t len, uint16_t machine);

/* True for a version whose layout this file reads (209 to 211). */
bool rtheap_mi_known(int version);

struct rtheap_mi_seg {
	uint64_t size; /* segment_slices * 64 KiB */
	uint64_t key; /* its address ^ its cookie: one value per process */
	uint64_t thread; /* the owning thread's id (0: abandoned) */
	uint32_t entries; /* slice_entries: entries in the header */
	uint32_t info_slices; /* slices the header takes */
	uint32_t pages; /* pages in use, as the header counts them */
	/* its commit mask's bytes (64 KiB a bit, 512 bits: a huge
	 * segment's first 32 MiB), what mimalloc counts as committed */
	uint64_t committed;
	bool huge; /* one huge block (kind MI_SEGMENT_HUGE) */
};

/* A segment header at addr, a 32 MiB boundary, in a run of mapped memory
 * ending at run_end (the segment must fit in it). buf holds its first
 * bytes: RTHEAP_MI_HDR at least. */
bool rtheap_mi_segment(const void *buf, size_t len, uint64_t addr,
		       uint64_t run_end, struct rtheap_mi_seg *out);

struct rtheap_mi_use {
	uint64_t in_use; /* bytes in used blocks (mi_page_t.used * size) */
	uint64_t blocks; /* used blocks */
	uint64_t pages; /* pages (runs of slices holding blocks) */
	uint64_t free_spans; /* bytes in runs of slices not in a page */
};

/* The segment's pages from its header's entries (buf: the header, len
 * at least RTHEAP_MI_HDR + entries * RTHEAP_MI_PAGE): true only when the
 * runs of slices tile the segment, the first being the header's own, and
 * every page's blocks fit in it. Blocks a thread freed for another are
 * still used until their owner collects them, as in mimalloc. */
bool rtheap_mi_pages(const void *buf, size_t len,
		     const struct rtheap_mi_seg *seg,
		     struct rtheap_mi_use *out);

/* A page in use, for what other threads freed into it (its entry:
 * xthread_free at 40, the list of blocks another thread freed, its low
 * two bits flags; xheap at 48, the owning thread's heap, 0 when its
 * segment is abandoned). */
#define RTHEAP_MI_TFREE 40
#define RTHEAP_MI_XHEAP 48
struct rtheap_mi_page {
	uint64_t start, bytes; /* its blocks' area (segment + slice * 64 KiB) */
	uint64_t bsize; /* block size */
	uint32_t used;
	uint64_t thread_free; /* the first such block, or 0 */
	uint64_t heap;
};

/* Where a page's first block lies past its start (to keep small blocks
 * off page boundaries; the blocks lie on multiples of bsize from there):
 * 2.0.9, 384 bytes for blocks of 8 B to 1 KiB; 2.1.0-2.1.1, 3 blocks up
 * to 64 B, one up to 512 B; 0 otherwise. */
uint64_t rtheap_mi_start_offset(int version, uint64_t bsize);

/* rtheap_mi_pages() of the segment at addr, calling fn(ctx, page) for
 * each page with used blocks (NULL: none). */
bool rtheap_mi_pages_each(const void *buf, size_t len,
			  const struct rtheap_mi_seg *seg, uint64_t addr,
			  struct rtheap_mi_use *out,
			  void (*fn)(void *ctx, const struct rtheap_mi_page *p),
			  void *ctx);

/* A thread's heap (mi_heap_t, 2.0.9-2.1.1 release: 3,064 bytes): its
 * thread_delayed_free (the blocks other threads freed into its full
 * pages, one a page at most, linked through their first word) at
 * RTHEAP_MI_DELAYED, its thread id the word after. A thread's own data
 * (mi_thread_data_t: its heap, then its tld, whose heap_backing at
 * RTHEAP_MI_BACKING points back at the heap; the tld's address is the
 * heap's first word) is taken from the system apart, page-aligned,
 * RTHEAP_MI_TD bytes (sizeof rounded to pages: measured, 4 KiB pages),
 * and counted in its stats' reserved and committed; the main thread's is
 * a static. */
#define RTHEAP_MI_DELAYED 2840
#define RTHEAP_MI_BACKING 16
#define RTHEAP_MI_TD 8192

/* ---- gperftools tcmalloc ---- */

/* A Span (src/span.h, unchanged in its first 44 bytes since gperftools
 * 2.0): start (a page number), length (pages), next, prev, objects, then
 * the bit fields refcount:16, sizeclass:8, location:2 in one 32-bit word
 * (GCC's order: the first field in the low bits). location: IN_USE 0,
 * ON_NORMAL_FREELIST 1, ON_RETURNED_FREELIST 2. */
#define RTHEAP_TC_SPAN 48
#define RTHEAP_TC_NEXT 16 /* where next and prev are: lists link them */
#define RTHEAP_TC_PREV 24

struct rtheap_tc_span {
	uint64_t start, length; /* pages */
	uint64_t next, prev;
	uint8_t location, sizeclass;
	uint16_t refcount;
};

/* A span that the page map gives for page (pages of 1 << shift bytes):
 * true when it holds that page, its pages lie in a 48-bit address space,
 * and its location is one of the three. */
bool rtheap_tc_span(const void *buf, size_t len, uint64_t page, unsigned shift,
		    struct rtheap_tc_span *out);

#endif
