/* test_rtheap.c — the runtime and allocator header parsers (rtheap.h) on
 * headers recorded from live node, python and redis processes
 * (tests/fixtures/rtheap.txt, record_rtheap.py), each with damaged copies
 * that must be refused; the jemalloc extent scan over a recorded base
 * block: extents found, each inside the recorded anonymous runs. mimalloc
 * segments recorded from two processes (rtheap_mi.txt,
 * record_rtheap_mi.py): their blocks in use against the process's own sum
 * of malloc_usable_size(), a huge segment against its block's size, and
 * damaged copies refused; mi_version()'s code read on both machines.
 * gperftools tcmalloc spans recorded from allocs under tcmalloc 2.10 (two
 * in use, one free), read at their first and last pages, refused outside
 * them and when damaged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fixtures/fixture.h"
#include "analyze/rtheap.h"
#include "tap.h"

#define MAXRUNS 4096

static uint64_t runs[MAXRUNS][2];
static size_t nruns;

static size_t unhex(const char *h, unsigned char *out, size_t cap)
{
	size_t n = 0;
	unsigned v;

	while (n < cap && sscanf(h + 2 * n, "%2x", &v) == 1)
		out[n++] = (unsigned char)v;
	return n;
}

static bool in_runs(void *ctx, uint64_t a, uint64_t size)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < nruns; i++)
		if (runs[i][0] <= a && size <= runs[i][1] - a)
			return true;
	return false;
}

static int count(void *ctx, uint64_t a, uint64_t size)
{
	(void)a;
	(void)size;
	++*(size_t *)ctx;
	return 0;
}

/* The recorded V8 pages' spaces and bytes in use, as node 20 counted them
 * (record_rtheap.py; the new-space page's use is not in its header). */
static const struct {
	uint64_t addr;
	unsigned space;
	int64_t used;
} v8_want[] = {
	{ 0x1dac840000, RTHEAP_V8_OLD, 257696 },
	{ 0x7941580000, RTHEAP_V8_NEW, -1 },
	{ 0x3a957700000, RTHEAP_V8_LO, 2060768 },
	{ 0x16c07cfc0000, RTHEAP_V8_RO, 50016 },
};

static void v8_space(const unsigned char *b, size_t n, uint64_t addr,
		     uint64_t end)
{
	struct rtheap_v8_page v;
	unsigned char c[RTHEAP_V8_HDR_MIN];
	uint64_t w;
	size_t i;

	for (i = 0; i < sizeof(v8_want) / sizeof(v8_want[0]); i++)
		if (v8_want[i].addr == addr)
			break;
	if (i == sizeof(v8_want) / sizeof(v8_want[0]) ||
	    !rtheap_v8_page(b, n, addr, end, &v))
		return;
	ok(rtheap_v8_space(&v) == v8_want[i].space &&
		   rtheap_v8_used(&v) == v8_want[i].used &&
		   !rtheap_v8_freed(&v),
	   "v8 page at 0x%llx: %s, %lld bytes in use (want %s, %lld)",
	   (unsigned long long)addr, rtheap_v8_spaces[rtheap_v8_space(&v)],
	   (long long)rtheap_v8_used(&v), rtheap_v8_spaces[v8_want[i].space],
	   (long long)v8_want[i].used);
	if (v8_want[i].space == RTHEAP_V8_OLD) {
		/* shrunk to its objects (a deserialised page, as recorded
		 * beside it: 229376 bytes, an area of 224952): still old */
		memcpy(c, b, sizeof(c));
		w = 229376;
		memcpy(c, &w, 8);
		w = v.area_start + 224952;
		memcpy(c + 32, &w, 8);
		ok(rtheap_v8_page(c, sizeof(c), addr, end, &v) &&
			   rtheap_v8_space(&v) == RTHEAP_V8_OLD,
		   "a regular page shrunk below 256 KiB is still old space");
		/* allocated past the area: another layout, not known */
		w = v.area_end - v.area_start + 8;
		memcpy(c + 40, &w, 8);
		ok(rtheap_v8_page(c, sizeof(c), addr, end, &v) &&
			   rtheap_v8_used(&v) == -1,
		   "an allocated count past the area is not taken");
	}
	if (v8_want[i].space == RTHEAP_V8_LO) {
		memcpy(c, b, sizeof(c));
		w = v.flags | (1u << 4); /* TO_PAGE: a young large page */
		memcpy(c + 8, &w, 8);
		ok(rtheap_v8_page(c, sizeof(c), addr, end, &v) &&
			   rtheap_v8_space(&v) == RTHEAP_V8_NEW_LO &&
			   rtheap_v8_used(&v) == 2060768,
		   "a young large page is new large object space, its bytes "
		   "known");
		w = 0x10000; /* allocated into: not a large-object page */
		memcpy(c + 56, &w, 8);
		ok(rtheap_v8_page(c, sizeof(c), addr, end, &v) &&
			   rtheap_v8_space(&v) == RTHEAP_V8_NEW,
		   "a young page allocated into is new space");
	}
}

static bool parse(const char *kind, const unsigned char *b, size_t n,
		  uint64_t addr, uint64_t end)
{
	struct rtheap_v8_page v;
	struct rtheap_py_pool p;
	struct rtheap_je_base j;

	if (strcmp(kind, "v8") == 0)
		return rtheap_v8_page(b, n, addr, end, &v) &&
		       v.area_end <= addr + v.size;
	if (strcmp(kind, "py16") == 0)
		return rtheap_py_pool(b, n, addr, 16384, &p) &&
		       p.count <= p.capacity &&
		       !rtheap_py_pool(b, n, addr, 4096, &p);
	return rtheap_je_base(b, n, addr, end, &j) && j.used_end > addr &&
	       j.used_end <= addr + j.size;
}

/* ---- mimalloc ---- */

static unsigned char mi_buf[RTHEAP_MI_INFO];

static void put64(unsigned char *b, size_t off, uint64_t v)
{
	memcpy(b + off, &v, 8);
}

static bool mi_parse(const unsigned char *b, uint64_t a, uint64_t e,
		     struct rtheap_mi_seg *seg, struct rtheap_mi_use *use)
{
	return rtheap_mi_segment(b, RTHEAP_MI_HDR, a, e, seg) &&
	       rtheap_mi_pages(b, RTHEAP_MI_INFO, seg, use);
}

/* One recorded segment, and copies of it broken one field each. */
static void mi_damaged(uint64_t a, uint64_t e, const struct rtheap_mi_seg *g)
{
	static unsigned char c[RTHEAP_MI_INFO];
	struct rtheap_mi_seg seg;
	struct rtheap_mi_use use;
	uint32_t i, zero = 0, big = 60000;
	const struct {
		size_t off;
		uint64_t v;
		const char *what;
	} words[] = {
		{ 8 * 30, 2, "kind 2" },
		{ 8 * 28, 511, "511 slices" },
		{ 8 * 31, g->entries + 1, "one entry too many" },
		{ 8 * 29, 0, "no header slices" },
		{ 8 * 26, 600, "more pages used than entries" },
		{ 16, 3 << 20, "an OS alignment that is no power of two" },
	};

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		memcpy(c, mi_buf, sizeof(c));
		put64(c, words[i].off, words[i].v);
		ok(!mi_parse(c, a, e, &seg, &use),
		   "mimalloc segment at 0x%llx with %s is refused",
		   (unsigned long long)a, words[i].what);
	}
	ok(!mi_parse(mi_buf, a + 4096, e, &seg, &use) &&
		   !mi_parse(mi_buf, a, a + g->size - 4096, &seg, &use),
	   "a segment off its boundary, or past its run, is refused");
	/* the entries: the header's own run, then a page */
	memcpy(c, mi_buf, sizeof(c));
	memcpy(c + RTHEAP_MI_HDR, &big, 4);
	ok(!mi_parse(c, a, e, &seg, &use),
	   "a header run longer than the header's slices is refused");
	memcpy(c, mi_buf, sizeof(c));
	i = g->info_slices;
	memcpy(c + RTHEAP_MI_HDR + (size_t)i * RTHEAP_MI_PAGE, &zero, 4);
	ok(!mi_parse(c, a, e, &seg, &use),
	   "a run of no slices (a page never written) is refused");
	memcpy(c, mi_buf, sizeof(c));
	memcpy(c + RTHEAP_MI_HDR + (size_t)i * RTHEAP_MI_PAGE + 24, &big, 4);
	ok(!mi_parse(c, a, e, &seg, &use),
	   "a page with more blocks used than reserved is refused");
	memset(c, 0, sizeof(c));
	ok(!mi_parse(c, a, e, &seg, &use), "a zeroed segment is refused");
}

/* Adds a page's used bytes to *(uint64_t *)ctx, checking the page lies
 * in its segment's slices. */
static void mi_each(void *ctx, const struct rtheap_mi_page *p)
{
	uint64_t *sum = ctx;

	if (p->start % RTHEAP_MI_SLICE == 0 && p->used && p->bsize &&
	    p->used * p->bsize <= p->bytes)
		*sum += p->used * p->bsize;
}

static void mimalloc(void)
{
	static const unsigned char x86[] = { 0xb8, 0xd1, 0, 0, 0, 0xc3, 0, 0 },
				   arm[] = { 0x20, 0x1a, 0x80, 0x52,
					     0xc0, 0x03, 0x5f, 0xd6 },
				   other[] = { 0x55, 0x48, 0x89, 0xe5,
					       0xb8, 0xd1, 0,	 0 };
	char path[4200], *line = NULL, *hex = malloc(2 * RTHEAP_MI_INFO + 2),
			 who[32];
	uint64_t in_use = 0, huge = 0, key = 0;
	unsigned long long a, e, n;
	size_t cap = 0, segs = 0, keyed = 0;
	FILE *f;

	ok(rtheap_mi_version(x86, sizeof(x86), 62) == 209 &&
		   rtheap_mi_version(arm, sizeof(arm), 183) == 209 &&
		   rtheap_mi_version(other, sizeof(other), 62) == -1 &&
		   rtheap_mi_version(x86, 5, 62) == -1 &&
		   rtheap_mi_version(x86, sizeof(x86), 183) == -1,
	   "mi_version()'s code gives 209 on x86-64 and aarch64, -1 for "
	   "other code");
	ok(rtheap_mi_start_offset(209, 256) == 384 &&
		   rtheap_mi_start_offset(209, 1024) == 384 &&
		   rtheap_mi_start_offset(209, 2048) == 0 &&
		   rtheap_mi_start_offset(211, 32) == 96 &&
		   rtheap_mi_start_offset(211, 256) == 256 &&
		   rtheap_mi_start_offset(211, 1024) == 0,
	   "a page's first block: 384 bytes in for small blocks in 2.0.9, "
	   "three blocks or one in 2.1");
	ok(rtheap_mi_known(209) && rtheap_mi_known(211) &&
		   !rtheap_mi_known(208) && !rtheap_mi_known(212) &&
		   !rtheap_mi_known(-1),
	   "the layouts read: 2.0.9 to 2.1.1");
	snprintf(path, sizeof(path), "%s/rtheap_mi.txt", fixture_dir());
	f = fopen(path, "r");
	ok(f && hex, "fixture %s opens", path);
	if (!f || !hex) {
		free(hex);
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		struct rtheap_mi_seg seg;
		struct rtheap_mi_use use, use2;
		uint64_t each;

		if (sscanf(line, "usable %31s %llu", who, &n) == 2) {
			ok(segs > 0 && in_use >= n && in_use - n <= 16384,
			   "%s: %llu bytes in used blocks in %zu segments, "
			   "its own malloc_usable_size() sum %llu (and at "
			   "most 16 KiB of stdio and the loader's)",
			   who, (unsigned long long)in_use, segs, n);
			in_use = 0;
			segs = 0;
			continue;
		}
		if (sscanf(line, "huge %31s %llu", who, &n) == 2) {
			ok(huge == n,
			   "%s: a huge segment's block of %llu bytes, its "
			   "malloc_usable_size() %llu",
			   who, (unsigned long long)huge, n);
			continue;
		}
		if (sscanf(line, "mi %llx %llx %s", &a, &e, hex) != 3)
			continue;
		memset(mi_buf, 0, sizeof(mi_buf));
		unhex(hex, mi_buf, sizeof(mi_buf));
		ok(mi_parse(mi_buf, a, e, &seg, &use) &&
			   use.in_use <= seg.size && use.pages <= seg.pages &&
			   seg.committed >= (uint64_t)seg.info_slices *
							   RTHEAP_MI_SLICE &&
			   seg.committed <= seg.size,
		   "mimalloc segment at 0x%llx, recorded live, is accepted: "
		   "%llu bytes in %llu blocks, %llu pages, its header "
		   "committed",
		   a, (unsigned long long)use.in_use,
		   (unsigned long long)use.blocks,
		   (unsigned long long)use.pages);
		each = 0;
		ok(rtheap_mi_pages_each(mi_buf, RTHEAP_MI_INFO, &seg, a, &use2,
					mi_each, &each) &&
			   each == use.in_use && use2.in_use == use.in_use,
		   "its pages one by one: their used blocks are its %llu "
		   "bytes",
		   (unsigned long long)use.in_use);
		if (seg.huge)
			huge = use.in_use;
		in_use += use.in_use;
		segs++;
		keyed += key == seg.key;
		key = seg.key;
		mi_damaged(a, e, &seg);
	}
	ok(keyed >= 1, "two segments of one process share the cookie's key");
	free(line);
	free(hex);
	fclose(f);
}

/* Spans recorded from tests/targets/allocs under Debian's tcmalloc 2.10
 * (TCMALLOC_SKIP_SBRK=1, through its page map): start page, then the
 * Span's first 48 bytes. */
static const struct {
	uint64_t start, length;
	uint8_t location, sizeclass;
	uint16_t refcount;
	const char *hex;
} tc_spans[] = {
	{ 0x2acfd292f, 9, 0, 62, 1,
	  "2f29fdac020000000900000000000000b0e5ef0b1b7f0000b0e5ef0b1b7f0000"
	  "000000000000000001003e0000000000" },
	{ 0x2acfd2938, 1, 0, 1, 1,
	  "3829fdac02000000010000000000000020c4ee0b1b7f000020c4ee0b1b7f0000"
	  "080027a59f5500000100010000000000" },
	{ 0x3f8d8506d, 19, 1, 0, 0,
	  "6d50d8f8030000001300000000000000e894ee0b1b7f0000e894ee0b1b7f0000"
	  "00000000000000000000000100000000" },
};

static void tcmalloc_spans(void)
{
	size_t i;

	for (i = 0; i < sizeof(tc_spans) / sizeof(tc_spans[0]); i++) {
		unsigned char b[RTHEAP_TC_SPAN], d[RTHEAP_TC_SPAN];
		struct rtheap_tc_span sp;
		uint64_t st = tc_spans[i].start, len = tc_spans[i].length, v;

		unhex(tc_spans[i].hex, b, sizeof(b));
		ok(rtheap_tc_span(b, sizeof(b), st, 13, &sp) &&
			   sp.start == st && sp.length == len &&
			   sp.location == tc_spans[i].location &&
			   sp.sizeclass == tc_spans[i].sizeclass &&
			   sp.refcount == tc_spans[i].refcount,
		   "tcmalloc span %zu at its first page: %llu pages, location "
		   "%u, size class %u",
		   i, (unsigned long long)len, tc_spans[i].location,
		   tc_spans[i].sizeclass);
		ok(rtheap_tc_span(b, sizeof(b), st + len - 1, 13, &sp),
		   "tcmalloc span %zu at its last page", i);
		ok(!rtheap_tc_span(b, sizeof(b), st + len, 13, &sp) &&
			   !rtheap_tc_span(b, sizeof(b), st - 1, 13, &sp) &&
			   !rtheap_tc_span(b, sizeof(b) - 1, st, 13, &sp),
		   "tcmalloc span %zu refused past its pages and short", i);
		memcpy(d, b, sizeof(d));
		d[43] |= 3; /* location 3: no such list */
		ok(!rtheap_tc_span(d, sizeof(d), st, 13, &sp),
		   "tcmalloc span %zu refused with location 3", i);
		memcpy(d, b, sizeof(d));
		memset(d + 8, 0, 8); /* no pages */
		ok(!rtheap_tc_span(d, sizeof(d), st, 13, &sp),
		   "tcmalloc span %zu refused with length 0", i);
		memcpy(d, b, sizeof(d));
		v = ~0ull;
		memcpy(d + 8, &v, 8); /* past the address space */
		ok(!rtheap_tc_span(d, sizeof(d), st, 13, &sp) &&
			   !rtheap_tc_span(b, sizeof(b), st, 16, &sp),
		   "tcmalloc span %zu refused past 48 bits (length 2^64-1; "
		   "or 64 KiB pages)",
		   i);
	}
}

/* V8 12's layout (node 22, V8 12.4): words recorded from a live node 22's
 * pages (flags, own address, size, heap, area start and end, allocated,
 * wasted, high water, owner), and node 18's space objects (vtable, heap,
 * id): the space of each, and the owner's id. */
static void v8_12(void)
{
	static const struct {
		uint64_t flags;
		unsigned space;
		int64_t used;
	} pg[] = {
		{ 0x800a, RTHEAP_V8_NEW, -1 }, /* from-space */
		{ 0x204, RTHEAP_V8_OLD, 0x3eec0 },
		{ 0x80004, RTHEAP_V8_TRUSTED, -1 },
		{ 0xc0004, RTHEAP_V8_CODE, -1 },
	};
	const uint64_t base = 0x102fdc0000;
	uint64_t w[10] = { 0,	  base,	   0x40000,	0x1f4bcea0,
			   base + 0x1140, base + 0x40000, 0x3eec0, 0,
			   0x40000, 0x1f4038a8 };
	uint64_t own[3] = { 0x7fdebbebe170, 0x55ebab22bf88,
			    0x718a770a00000003 };
	struct rtheap_v8_page v;
	size_t i;

	for (i = 0; i < sizeof(pg) / sizeof(pg[0]); i++) {
		w[0] = pg[i].flags;
		ok(rtheap_v8_page(w, sizeof(w), base, base + 0x40000, &v) &&
			   v.layout == 12 && v.size == 0x40000 &&
			   v.heap == 0x1f4bcea0 && v.owner == 0x1f4038a8 &&
			   rtheap_v8_space(&v) == pg[i].space &&
			   rtheap_v8_used(&v) == pg[i].used,
		   "V8 12 page, flags 0x%llx: %s", (unsigned long long)w[0],
		   rtheap_v8_spaces[pg[i].space]);
	}
	ok(!rtheap_v8_page(w, RTHEAP_V8_HDR_MIN, base, base + 0x40000, &v),
	   "V8 12 page: refused without its owner's word");
	ok(rtheap_v8_owner_id(own, sizeof(own), 0x55ebab22bf88) ==
		   RTHEAP_V8_MAP_ID,
	   "node 18's map space object says MAP_SPACE");
	ok(rtheap_v8_owner_id(own, sizeof(own), 0x55ebab22bf80) == -1,
	   "a space object of another heap is refused");
}

/* Two old-space page headers of one node 22 process (V8 12.4, at
 * --max-old-space-size=48), read live: one in old space's page list, one
 * V8 had evacuated and freed (flags PRE_FREED, UNREGISTERED and
 * EVACUATION_CANDIDATE; its list links zero) and left mapped. Both name
 * old space; only the second is freed. */
static void v8_freed(void)
{
	static const struct {
		uint64_t base;
		const char *hex;
		bool freed;
	} pg[] = {
		{ 0x325a66e00000,
		  "26000000000000000000e0665a320000000004000000000"
		  "0a09eff3f000000004011e0665a3200000000e4665a3200"
		  "00c0ee0300000000000000000000000000000004000000"
		  "00002037f53f00000000",
		  false },
		{ 0xd6744e40000,
		  "04210100000000000000e444670d000000000400000000"
		  "00a09eff3f000000004011e444670d00000000e844670d"
		  "000000f0000000000000000000000000000040010100000"
		  "000002037f53f00000000",
		  true },
	};
	unsigned char b[RTHEAP_V8_HDR];
	struct rtheap_v8_page v;
	size_t i;

	for (i = 0; i < sizeof(pg) / sizeof(pg[0]); i++) {
		ok(unhex(pg[i].hex, b, sizeof(b)) == sizeof(b) &&
			   rtheap_v8_page(b, sizeof(b), pg[i].base,
					  pg[i].base + RTHEAP_V8_ALIGN, &v) &&
			   rtheap_v8_space(&v) == RTHEAP_V8_OLD &&
			   rtheap_v8_freed(&v) == pg[i].freed,
		   "node 22's old-space page at 0x%llx: %s",
		   (unsigned long long)pg[i].base,
		   pg[i].freed ? "freed by V8, still mapped" : "in its space");
	}
}

/* jemalloc's statistics record: one as 5.3.0 filled it (allocs.c's
 * figures, read by mallctl), and the same damaged. */
static void je_stats(void)
{
	static const uint64_t live[7] = { 116087984, 116252672, 3946992, 0,
					  120176640, 122544128, 2236416 };
	unsigned char b[RTHEAP_JE_STATS];
	struct rtheap_je_stats st;
	size_t i;

	memcpy(b, live, sizeof(b));
	ok(rtheap_je_stats(b, sizeof(b), &st) &&
		   st.allocated == live[0] && st.active == live[1] &&
		   st.metadata == live[2] && st.resident == live[4] &&
		   st.mapped == live[5] && st.retained == live[6],
	   "jemalloc statistics as 5.3.0 left them are read in order");
	ok(!rtheap_je_stats(b, sizeof(b) - 1, &st),
	   "a short record is refused");
	for (i = 0; i < 7; i++) {
		uint64_t w[7];

		memcpy(w, live, sizeof(w));
		/* allocated past active, a page count not whole pages,
		 * metadata past mapped, ... */
		w[i] = i == 0	? live[1] + 1
		       : i == 2 ? live[5] + 1
		       : i == 3 ? live[2] + 1
				: live[i] + 1;
		memcpy(b, w, sizeof(b));
		ok(!rtheap_je_stats(b, sizeof(b), &st),
		   "jemalloc statistics with word %zu damaged are refused", i);
	}
}

/* ctl's merged arena record as 5.3.0 left it after a refresh (a target
 * linked with Debian's libjemalloc2, read live: its mallctl gave
 * allocated 17,051,248, active 19,288,064, metadata 2,763,376, small
 * 2,506,352 in 19,976 - 5,844, large 14,544,896 in 402 - 134), and the
 * same damaged. */
static void je_arena(void)
{
	static const uint64_t head[19] = {
		0x100001000ull, 0, 0, 1, 0x7f112be8660aull, ~0ull, ~0ull, 4709,
		1918, 0, 0x7f112aa36048ull, 2734704, 29884416, 0, 33435648,
		28672, 14544896, 402, 134
	};
	static const uint64_t small[3] = { 2506352, 19976, 5844 };
	const uint64_t at = 0x7f112aa35ff0ull;
	const struct rtheap_je_stats st = { 17051248, 19288064, 2763376, 0,
					    29884416, 33435648, 0 };
	unsigned char h[RTHEAP_JE_ARENA_HDR], sm[RTHEAP_JE_SMALL];
	struct rtheap_je_counts c;
	size_t i;

	memcpy(h, head, sizeof(h));
	memcpy(sm, small, sizeof(sm));
	ok(rtheap_je_arena(h, sizeof(h), at, &st, &c) &&
		   rtheap_je_small(sm, sizeof(sm), &st, &c) &&
		   c.nmalloc_small - c.ndalloc_small + c.nmalloc_large -
				   c.ndalloc_large ==
			   14400 &&
		   c.internal == 28672,
	   "jemalloc's merged arena record as 5.3.0 left it: 14,400 "
	   "allocations in use");
	ok(!rtheap_je_arena(h, sizeof(h), at + 16, &st, &c),
	   "a record whose stats are not right after it is refused");
	ok(!rtheap_je_arena(h, sizeof(h) - 1, at, &st, &c),
	   "a short record is refused");
	/* arena index, pactive, base, resident, metadata_thp, mapped,
	 * internal, large allocated (past allocated) */
	for (i = 0; i < 19; i++) {
		uint64_t w[19];

		if (i != 0 && i != 7 && (i < 11 || i > 16))
			continue;
		memcpy(w, head, sizeof(w));
		w[i] += i == 16 ? 17051248 : 1;
		memcpy(h, w, sizeof(h));
		ok(!rtheap_je_arena(h, sizeof(h), at, &st, &c),
		   "jemalloc's merged arena record with word %zu other than "
		   "its statistics' is refused",
		   i);
	}
	memcpy(h, head, sizeof(h));
	(void)rtheap_je_arena(h, sizeof(h), at, &st, &c);
	memcpy(sm, (uint64_t[3]){ small[0] + 8, small[1], small[2] }, 24);
	ok(!rtheap_je_small(sm, sizeof(sm), &st, &c),
	   "small bytes that do not add up to allocated are refused");
	memcpy(sm, (uint64_t[3]){ small[0], small[2], small[1] }, 24);
	ok(!rtheap_je_small(sm, sizeof(sm), &st, &c),
	   "more returned than handed out is refused");
}

int main(void)
{
	char path[4200], *line = NULL, kind[16], hex[20000], expect[8];
	unsigned char *blk = NULL, buf[10000], zero[128] = { 0 };
	size_t cap = 0, nblk = 0, good = 0, bad = 0, found = 0;
	unsigned long long a, e, blk_at = 0;
	FILE *f;

	tcmalloc_spans();
	v8_12();
	v8_freed();
	je_stats();
	je_arena();
	snprintf(path, sizeof(path), "%s/rtheap.txt", fixture_dir());
	f = fopen(path, "r");
	ok(f != NULL, "fixture %s opens", path);
	if (!f)
		return tap_done();
	while (getline(&line, &cap, f) > 0) {
		size_t n;

		if (sscanf(line, "RUNS %llx %llx", &a, &e) == 2 &&
		    nruns < MAXRUNS) {
			runs[nruns][0] = a;
			runs[nruns++][1] = e;
			continue;
		}
		if (sscanf(line, "%15s %llx %llx %19999s %7s", kind, &a, &e,
			   hex, expect) != 5)
			continue;
		n = unhex(hex, buf, sizeof(buf));
		if (strcmp(kind, "jeblk") == 0) {
			blk = malloc(n);
			memcpy(blk, buf, n);
			nblk = n;
			blk_at = a;
			continue;
		}
		if (strcmp(expect, "good") == 0) {
			good++;
			if (strcmp(kind, "v8") == 0)
				v8_space(buf, n, a, e);
			ok(parse(kind, buf, n, a, e),
			   "%s header at 0x%llx, recorded live, is accepted",
			   kind, a);
		} else {
			bad++;
			ok(!parse(kind, buf, n, a, e),
			   "%s header at 0x%llx, damaged, is refused", kind, a);
		}
	}
	free(line);
	fclose(f);
	ok(good >= 6 && bad >= 12,
	   "fixture has %zu live and %zu damaged "
	   "headers",
	   good, bad);
	ok(blk && nruns, "fixture has a jemalloc base block and its runs");
	if (blk) {
		size_t seen =
			rtheap_je_extents(blk, nblk, blk_at, in_runs, count, &found);

		ok(found > 0 && seen == found,
		   "jemalloc base block: %zu extent records inside anonymous "
		   "runs",
		   found);
		found = 0;
		memset(blk, 0, nblk);
		ok(rtheap_je_extents(blk, nblk, blk_at, in_runs, count, &found) == 0,
		   "a zeroed block has no extents");
		free(blk);
	}
	ok(!rtheap_v8_page(zero, sizeof(zero), 0x40000, 0x80000,
			   &(struct rtheap_v8_page){ 0 }) &&
		   !rtheap_py_pool(zero, sizeof(zero), 0x4000, 16384,
				   &(struct rtheap_py_pool){ 0 }) &&
		   !rtheap_je_base(zero, sizeof(zero), 0x200000, 0x400000,
				   &(struct rtheap_je_base){ 0 }),
	   "zeroed memory is none of them");
	mimalloc();
	return tap_done();
}
