/* rtheap.c — runtime and allocator headers read from a buffer
 * (rtheap.h). */
#include "analyze/rtheap.h"

#include <elf.h>
#include <string.h>

static uint64_t word(const void *buf, size_t i)
{
	uint64_t w;

	memcpy(&w, (const unsigned char *)buf + i * 8, 8);
	return w;
}

/* ---- V8 ---- */

/* The page header sits in the page's first bytes: objects start after it,
 * some 4 KiB at most (0x1148 on V8 11.3; 0x60 on a read-only page). */
#define V8_MAX_HEADER 0x4000

bool rtheap_v8_page(const void *buf, size_t len, uint64_t base,
		    uint64_t run_end, struct rtheap_v8_page *out)
{
	struct rtheap_v8_page p;

	if (len < RTHEAP_V8_HDR_MIN || base % RTHEAP_V8_ALIGN != 0 ||
	    run_end <= base)
		return false;
	memset(&p, 0, sizeof(p));
	if (word(buf, 1) == base) { /* V8 12 */
		if (len < RTHEAP_V8_HDR)
			return false;
		p.layout = 12;
		p.flags = word(buf, 0);
		p.size = word(buf, 2);
		p.heap = word(buf, 3);
		p.area_start = word(buf, 4);
		p.area_end = word(buf, 5);
		p.high_water = word(buf, 8);
		p.owner = word(buf, 9);
	} else {
		p.layout = 11;
		p.size = word(buf, 0);
		p.flags = word(buf, 1);
		p.heap = word(buf, 2);
		p.area_start = word(buf, 3);
		p.area_end = word(buf, 4);
		p.high_water = word(buf, 7);
		p.owner = word(buf, 8);
	}
	if (p.size < 4096 || p.size % 4096 != 0 || p.size > run_end - base)
		return false;
	if (p.area_start <= base || p.area_start - base >= V8_MAX_HEADER ||
	    p.area_start % 8 != 0)
		return false;
	if (p.area_end <= p.area_start || p.area_end > base + p.size)
		return false;
	if (p.heap % 8 != 0 || p.owner % 8 != 0)
		return false;
	p.allocated =
		word(buf, 5 + (p.layout == 12)) <= p.area_end - p.area_start
			? (int64_t)word(buf, 5 + (p.layout == 12))
			: -1;
	*out = p;
	return true;
}

int rtheap_v8_owner_id(const void *buf, size_t len, uint64_t heap)
{
	uint64_t id;

	if (len < RTHEAP_V8_OWNER || !heap || word(buf, 1) != heap)
		return -1;
	id = word(buf, 2) & 0xffffffffu;
	return id < 64 ? (int)id : -1;
}

#define V8_EXECUTABLE (1u << 0)
#define V8_YOUNG (3u << 3) /* FROM_PAGE, TO_PAGE */
#define V8_12_EXECUTABLE (1u << 18)
#define V8_12_TRUSTED (1u << 19)
#define V8_PRE_FREED (1u << 13)

const char *const rtheap_v8_spaces[RTHEAP_V8_NSPACES] = {
	[RTHEAP_V8_NEW] = "new_space",
	[RTHEAP_V8_OLD] = "old_space",
	[RTHEAP_V8_CODE] = "code_space",
	[RTHEAP_V8_MAP] = "map_space",
	[RTHEAP_V8_TRUSTED] = "trusted_space",
	[RTHEAP_V8_LO] = "large_object_space",
	[RTHEAP_V8_NEW_LO] = "new_large_object_space",
	[RTHEAP_V8_CODE_LO] = "code_large_object_space",
	[RTHEAP_V8_TRUSTED_LO] = "trusted_large_object_space",
	[RTHEAP_V8_RO] = "read_only_space",
};

unsigned rtheap_v8_space(const struct rtheap_v8_page *p)
{
	/* the page's base is area_start's 256 KiB boundary (rtheap_v8_page) */
	uint64_t header = p->area_start & (RTHEAP_V8_ALIGN - 1);
	bool regular = p->size == RTHEAP_V8_ALIGN || p->high_water != header;
	uint64_t exec = p->layout == 12 ? V8_12_EXECUTABLE : V8_EXECUTABLE;

	if (!p->owner)
		return RTHEAP_V8_RO;
	if (p->flags & V8_YOUNG)
		return regular ? RTHEAP_V8_NEW : RTHEAP_V8_NEW_LO;
	if ((p->flags & exec) || p->exec_area)
		return regular ? RTHEAP_V8_CODE : RTHEAP_V8_CODE_LO;
	if (p->layout == 12 && (p->flags & V8_12_TRUSTED))
		return regular ? RTHEAP_V8_TRUSTED : RTHEAP_V8_TRUSTED_LO;
	if (p->map_space)
		return RTHEAP_V8_MAP;
	return regular ? RTHEAP_V8_OLD : RTHEAP_V8_LO;
}

bool rtheap_v8_freed(const struct rtheap_v8_page *p)
{
	return (p->flags & V8_PRE_FREED) != 0;
}

int64_t rtheap_v8_used(const struct rtheap_v8_page *p)
{
	unsigned k = rtheap_v8_space(p);

	/* V8 12's code and trusted pages count their allocation area whole
	 * (measured: 12.4) */
	if (p->layout == 12 && (k == RTHEAP_V8_CODE || k == RTHEAP_V8_TRUSTED))
		return -1;
	return k == RTHEAP_V8_NEW ? -1 : p->allocated;
}

/* ---- CPython ---- */

#define PY_ALIGN 16
#define PY_CLASSES (512 / PY_ALIGN)

bool rtheap_py_pool(const void *buf, size_t len, uint64_t addr,
		    uint32_t pool_size, struct rtheap_py_pool *out)
{
	uint32_t v[4]; /* arenaindex, szidx, nextoffset, maxnextoffset */
	uint64_t count, freeblock;
	uint32_t block;

	if (len < RTHEAP_PY_HDR || (pool_size != 4096 && pool_size != 16384) ||
	    addr % pool_size != 0)
		return false;
	count = word(buf, 0) & 0xffffffffu; /* ref.count, a uint */
	freeblock = word(buf, 1);
	memcpy(v, (const unsigned char *)buf + 32, sizeof(v));
	if (v[1] >= PY_CLASSES)
		return false;
	block = (v[1] + 1) * PY_ALIGN;
	/* init_pool: maxnextoffset = POOL_SIZE - size; nextoffset starts at
	 * the header plus two blocks and grows by one block at a time. */
	if (v[3] != pool_size - block || v[2] < RTHEAP_PY_HDR + block ||
	    v[2] > v[3] + block || (v[2] - RTHEAP_PY_HDR) % block != 0)
		return false;
	out->capacity = (v[2] - RTHEAP_PY_HDR) / block;
	if (count > out->capacity)
		return false;
	if (freeblock != 0 &&
	    (freeblock < addr + RTHEAP_PY_HDR || freeblock >= addr + v[2] ||
	     (freeblock - addr - RTHEAP_PY_HDR) % block != 0))
		return false;
	out->count = (uint32_t)count;
	out->arenaindex = v[0];
	out->block = block;
	return true;
}

/* ---- jemalloc ---- */

bool rtheap_je_base(const void *buf, size_t len, uint64_t addr,
		    uint64_t run_end, struct rtheap_je_base *out)
{
	uint64_t size, next, eaddr, bsize;

	if (len < RTHEAP_JE_HDR || addr % RTHEAP_JE_ALIGN != 0 ||
	    run_end <= addr)
		return false;
	size = word(buf, 0);
	next = word(buf, 1);
	eaddr = word(buf, 3);
	bsize = word(buf, 4);
	if (size < RTHEAP_JE_ALIGN || size % 4096 != 0 || size > run_end - addr)
		return false;
	if (next % RTHEAP_JE_ALIGN != 0 || next == addr)
		return false;
	/* The tail's edata: [eaddr, eaddr + bsize) is the block's free end. */
	if (eaddr <= addr + RTHEAP_JE_HDR || eaddr > addr + size ||
	    bsize != addr + size - eaddr)
		return false;
	out->size = size;
	out->next = next;
	out->used_end = eaddr;
	return true;
}

size_t rtheap_je_extents(const void *buf, size_t len, uint64_t at,
			 bool (*in_anon)(void *ctx, uint64_t addr,
					 uint64_t size),
			 int (*fn)(void *ctx, uint64_t addr, uint64_t size),
			 void *ctx)
{
	size_t i, n = len / 8, seen = 0;

	for (i = 0; i + 1 < n; i++) {
		uint64_t a = word(buf, i), sz = word(buf, i + 1) & ~0xfffull;

		/* a large extent's address moved into its first page by a
		 * cache line multiple (cache-oblivious): only where a record
		 * holds its address (word 1 of a cache-line-aligned edata) */
		if (a % 4096 != 0 &&
		    (a % RTHEAP_JE_LINE != 0 ||
		     (at + i * 8) % RTHEAP_JE_LINE != RTHEAP_JE_ADDR_AT))
			continue;
		a &= ~0xfffull;
		if (a == 0 || sz == 0 || sz > UINT64_MAX - a ||
		    !in_anon(ctx, a, sz))
			continue;
		seen++;
		if (fn(ctx, a, sz))
			break;
		i++; /* the size word is not an address */
	}
	return seen;
}

bool rtheap_je_stats(const void *buf, size_t len, struct rtheap_je_stats *out)
{
	struct rtheap_je_stats st;

	if (len < RTHEAP_JE_STATS)
		return false;
	st.allocated = word(buf, 0);
	st.active = word(buf, 1);
	st.metadata = word(buf, 2);
	st.metadata_thp = word(buf, 3);
	st.resident = word(buf, 4);
	st.mapped = word(buf, 5);
	st.retained = word(buf, 6);
	if (!st.allocated || st.allocated > st.active ||
	    st.active > st.resident || st.resident > st.mapped ||
	    !st.metadata || st.metadata_thp > st.metadata ||
	    st.metadata > st.mapped || st.mapped >> 56 || st.retained >> 56)
		return false;
	if ((st.active | st.resident | st.mapped | st.retained) % 4096)
		return false;
	*out = st;
	return true;
}

bool rtheap_je_arena(const void *buf, size_t len, uint64_t addr,
		     const struct rtheap_je_stats *st,
		     struct rtheap_je_counts *io)
{
	const size_t a = 11; /* the stats' first word */

	if (len < RTHEAP_JE_ARENA_HDR || addr % 16 ||
	    (word(buf, 0) & 0xffffffffffull) != 0x100001000ull ||
	    word(buf, 10) != addr + 88)
		return false;
	if (word(buf, 7) * 4096 != st->active ||
	    word(buf, a) + word(buf, a + 4) != st->metadata ||
	    word(buf, a + 1) != st->resident ||
	    word(buf, a + 2) != st->metadata_thp ||
	    word(buf, a + 3) != st->mapped ||
	    word(buf, a + 5) > st->allocated ||
	    word(buf, a + 7) > word(buf, a + 6))
		return false;
	io->internal = word(buf, a + 4);
	io->allocated_large = word(buf, a + 5);
	io->nmalloc_large = word(buf, a + 6);
	io->ndalloc_large = word(buf, a + 7);
	return true;
}

bool rtheap_je_small(const void *buf, size_t len,
		     const struct rtheap_je_stats *st,
		     struct rtheap_je_counts *io)
{
	if (len < RTHEAP_JE_SMALL ||
	    word(buf, 0) + io->allocated_large != st->allocated ||
	    word(buf, 2) > word(buf, 1))
		return false;
	io->nmalloc_small = word(buf, 1);
	io->ndalloc_small = word(buf, 2);
	return true;
}

/* ---- mimalloc ---- */

static uint32_t u32at(const void *buf, size_t off)
{
	uint32_t w;

	memcpy(&w, (const unsigned char *)buf + off, 4);
	return w;
}

int rtheap_mi_version(const void *code, size_t len, uint16_t machine)
{
	const unsigned char *c = code;

	if (machine == EM_X86_64 && len >= 6 && c[0] == 0xb8 && c[5] == 0xc3)
		return (int)(u32at(c, 1) & 0x7fffffff);
	if (machine == EM_AARCH64 && len >= 8 &&
	    (u32at(c, 0) & 0xffe0001f) == 0x52800000 &&
	    u32at(c, 4) == 0xd65f03c0)
		return (int)((u32at(c, 0) >> 5) & 0xffff);
	return -1;
}

bool rtheap_mi_known(int version)
{
	return version >= 209 && version <= 211;
}

/* mi_segment_t of 2.0.9-2.1.1, in words: memid, three bools, the OS
 * alignment and its offset, allow_decommit, decommit_expire, two commit
 * masks of 512 bits (decommit_mask at 6, commit_mask at 14), abandoned_next, next, abandoned, abandoned_visits,
 * used (26), cookie (27), segment_slices (28), segment_info_slices (29),
 * kind (30), slice_entries (31), thread_id (32). */
enum {
	MI_W_ALIGN = 2,
	MI_W_COMMIT = 14, /* commit_mask, after decommit_mask (6) */
	MI_W_ABANDONED = 24,
	MI_W_USED = 26,
	MI_W_COOKIE,
	MI_W_SLICES,
	MI_W_INFO,
	MI_W_KIND,
	MI_W_ENTRIES,
	MI_W_THREAD
};
#define MI_SLICES_NORMAL (RTHEAP_MI_ALIGN / RTHEAP_MI_SLICE)

bool rtheap_mi_segment(const void *buf, size_t len, uint64_t addr,
		       uint64_t run_end, struct rtheap_mi_seg *out)
{
	const unsigned char *b = buf;
	uint64_t slices, info, kind, entries, used, align;
	size_t i;

	if (len < RTHEAP_MI_HDR || addr % RTHEAP_MI_ALIGN != 0 ||
	    run_end <= addr)
		return false;
	if (b[8] > 1 || b[9] > 1 || b[10] > 1 || b[32] > 1)
		return false;
	align = word(buf, MI_W_ALIGN);
	if (align & (align - 1))
		return false;
	slices = word(buf, MI_W_SLICES);
	info = word(buf, MI_W_INFO);
	kind = word(buf, MI_W_KIND) & 0xffffffffu;
	entries = word(buf, MI_W_ENTRIES);
	used = word(buf, MI_W_USED);
	if (kind > 1 || (kind == 0 && slices != MI_SLICES_NORMAL) ||
	    slices == 0 || slices > (run_end - addr) / RTHEAP_MI_SLICE)
		return false;
	if (info == 0 || info * RTHEAP_MI_SLICE < RTHEAP_MI_HDR || info > 8 ||
	    info >= slices)
		return false;
	if (entries != (slices < MI_SLICES_NORMAL ? slices : MI_SLICES_NORMAL))
		return false;
	if (used > entries || word(buf, MI_W_ABANDONED) > used)
		return false;
	out->size = slices * RTHEAP_MI_SLICE;
	out->key = addr ^ word(buf, MI_W_COOKIE);
	out->thread = word(buf, MI_W_THREAD);
	out->entries = (uint32_t)entries;
	out->info_slices = (uint32_t)info;
	out->pages = (uint32_t)used;
	out->huge = kind == 1;
	out->committed = 0;
	for (i = MI_W_COMMIT; i < MI_W_COMMIT + 8; i++)
		out->committed += (uint64_t)__builtin_popcountll(word(buf, i)) *
				  RTHEAP_MI_SLICE;
	return true;
}

/* mi_page_t: slice_count (0), slice_offset (4), capacity (10), reserved
 * (12), used (24), xblock_size (28). A block size of 2 GiB or more means
 * "the page's size" (a huge block). */
#define MI_HUGE_BLOCK (2ull << 30)

bool rtheap_mi_pages(const void *buf, size_t len,
		     const struct rtheap_mi_seg *seg, struct rtheap_mi_use *out)
{
	return rtheap_mi_pages_each(buf, len, seg, 0, out, NULL, NULL);
}

uint64_t rtheap_mi_start_offset(int version, uint64_t bsize)
{
	if (bsize < 8)
		return 0;
	if (version == 209)
		return bsize <= 1024 ? 384 : 0;
	if (bsize <= 64)
		return 3 * bsize;
	return bsize <= 512 ? bsize : 0;
}

bool rtheap_mi_pages_each(const void *buf, size_t len,
			  const struct rtheap_mi_seg *seg, uint64_t addr,
			  struct rtheap_mi_use *out,
			  void (*fn)(void *ctx, const struct rtheap_mi_page *p),
			  void *ctx)
{
	const unsigned char *b = buf;
	uint64_t slices = seg->size / RTHEAP_MI_SLICE;
	uint32_t i = 0;

	memset(out, 0, sizeof(*out));
	if (seg->entries > RTHEAP_MI_MAX_ENTRIES ||
	    len < RTHEAP_MI_HDR + (size_t)seg->entries * RTHEAP_MI_PAGE)
		return false;
	while (i < seg->entries) {
		const unsigned char *p =
			b + RTHEAP_MI_HDR + (size_t)i * RTHEAP_MI_PAGE;
		uint32_t count = u32at(p, 0), used = u32at(p, 24);
		uint64_t bytes = (uint64_t)count * RTHEAP_MI_SLICE,
			 bsize = u32at(p, 28);
		uint16_t cap, res;

		memcpy(&cap, p + 10, 2);
		memcpy(&res, p + 12, 2);
		/* a run's first entry; only a huge page may run past the
		 * entries (they stop at 512) */
		if (count == 0 || u32at(p, 4) != 0 || count > slices - i ||
		    (count > seg->entries - i && !seg->huge))
			return false;
		if (i == 0 && count != seg->info_slices)
			return false;
		if (bsize >= MI_HUGE_BLOCK)
			bsize = bytes;
		if (i == 0 || bsize == 0) {
			/* the header's own run, or a free run */
			if (i)
				out->free_spans += bytes;
		} else if (used > res || cap > res || used * bsize > bytes) {
			return false;
		} else {
			out->in_use += used * bsize;
			out->blocks += used;
			out->pages++;
			if (fn && used) {
				struct rtheap_mi_page pg = {
					addr + (uint64_t)i * RTHEAP_MI_SLICE,
					bytes,
					bsize,
					used,
					word(p, RTHEAP_MI_TFREE / 8) & ~3ull,
					word(p, RTHEAP_MI_XHEAP / 8)
				};

				fn(ctx, &pg);
			}
		}
		i += count;
	}
	return true;
}

/* ---- gperftools tcmalloc ---- */

bool rtheap_tc_span(const void *buf, size_t len, uint64_t page, unsigned shift,
		    struct rtheap_tc_span *out)
{
	const unsigned char *b = buf;
	uint32_t bits;

	if (len < RTHEAP_TC_SPAN || shift < 12 || shift > 24)
		return false;
	memcpy(&out->start, b, 8);
	memcpy(&out->length, b + 8, 8);
	memcpy(&out->next, b + RTHEAP_TC_NEXT, 8);
	memcpy(&out->prev, b + RTHEAP_TC_PREV, 8);
	memcpy(&bits, b + 40, 4);
	out->refcount = (uint16_t)(bits & 0xffff);
	out->sizeclass = (uint8_t)(bits >> 16);
	out->location = (uint8_t)((bits >> 24) & 3);
	return out->length && out->start <= page &&
	       out->length <= (1ull << (48 - shift)) &&
	       out->start < (1ull << (48 - shift)) - out->length + 1 &&
	       page - out->start < out->length && out->location <= 2;
}
