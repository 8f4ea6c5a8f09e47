/* fuzz_alloc.c — libFuzzer harness for the allocator step's recognisers
 * that follow pointers through a snapshot's memory (alloc_heap.h):
 * tcmalloc's page map, jemalloc's base blocks, mimalloc's segments.
 *
 * The memory is built once: a gperftools tcmalloc page heap as
 * alloc_tcmalloc() finds it (2.10's Spans and 8 KiB pages; leaves of 2^20
 * entries, not 2.10's 2^18, so that the root the recogniser looks for
 * word by word is 256 KiB, not 1 MiB: four times the runs a second). The
 * library's writable memory (320 KiB, its .bss) holds three span lists'
 * sentinels and the page map's root; an anonymous 16 MiB region holds the
 * one leaf the root points to, the Span objects, and the pages they
 * cover: three spans in use (4, 8 and 2 pages) and a free one (16 pages).
 * Before any input the recogniser must find exactly these (3 spans in use,
 * 1 free; in use and free unknown: no size classes, so no caches, are
 * built), or the harness aborts: a harness whose image
 * the recogniser no longer takes would fuzz nothing.
 *
 * Beside it, a mimalloc heap as alloc_mimalloc() finds it, in a 68 MiB
 * anonymous region of its own (32 MiB-aligned): a segment of 32 MiB (its
 * header's run, a page of small blocks and one of medium blocks each with
 * blocks another thread freed into it (xthread_free), a full page, a free
 * run) and a huge one of 33 MiB after it, both of one thread and key;
 * past them that thread's own data (mi_thread_data_t: its heap, whose
 * thread_delayed_free holds a block freed into the full page, and its tld
 * pointing back); after the region 32 MiB reserved (PROT_NONE: where a
 * segment whose commit was delayed may run on). Before any input
 * mimalloc must be found so (142 blocks used, 4 of them freed by another
 * thread, one thread's data) or the harness aborts.
 *
 * Each input damages a copy of that memory: its first byte picks the
 * recognisers run (bit 0 tcmalloc, 1 jemalloc, 2 mimalloc; none set: all),
 * by bit 3 mimalloc's version (2.1.0, else 2.0.9: where a page's first block
 * lies) and, by its high nibble, which pages read as absent besides the
 * pages never written (a source's short reads, zeros where the region has no
 * swap); the rest is records of a 32-bit place and a 64-bit word written
 * there, 8-aligned: the place's low 4 bits pick an area (all of .bss, all of
 * the region, the sentinels, the spans, the root's entry, the leaf's entries
 * for the spans' pages, the region's first page where jemalloc's and
 * mimalloc's headers would be, the spans' pages; mimalloc's segment header,
 * its first entries, the huge segment's header and entries, the thread's
 * data, the small and medium pages' blocks, the full page, all of mimalloc's
 * region), the rest an offset in it. Each run must return without a
 * sanitizer report, within the recognisers' own read budgets; the words are
 * then put back.
 *
 *   make fuzz [FUZZ_SECONDS=60]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/heaps/alloc_heap.h"
#include "analyze/rtheap.h"
#include "linux/smaps.h"
#include "model/snapshot.h"
#include "model/source.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PG 4096u
#define LIB 0x7f0000000000ull /* the library's first (read-only) page */
#define BSS 0x7f0000010000ull /* its writable memory */
#define BSS_LEN 0x50000ull
#define ANON 0x7e0000000000ull /* 32 MiB-aligned: segments looked at */
#define ANON_LEN 0x1000000ull
#define SHIFT 13 /* tcmalloc's 8 KiB pages */
#define LEAF_BITS 20 /* 2.10 has 18: a smaller root here, a faster run */
#define ROOT (BSS + 0x10000) /* 2^15 entries: 256 KiB */
#define LEAF ANON /* 2^20 entries: 8 MiB */
#define SPANS (ANON + 0x800000)
#define PAGES (ANON + 0xc00000)

/* mimalloc's region: a segment, a huge segment, a thread's data */
#define MI 0x7f1000000000ull
#define MI_LEN (68ull << 20)
#define MI_SLICE 0x10000ull
#define MI_SEG1 (MI + (32ull << 20)) /* the huge one: 528 slices */
#define MI_TD (MI + (66ull << 20)) /* its heap, then its tld */
#define MI_TLD (MI_TD + 3064)
#define MI_TID 0x7f00deadb640ull /* the thread's id */
#define MI_KEY 0x5eed5eed5eed5eedull /* a segment's address ^ cookie */

static const char maps[] = "7e0000000000-7e0001000000 rw-p 00000000 00:00 0 \n"
			   "7f0000000000-7f0000010000 r--p 00000000 08:01 4242 "
			   "/usr/lib/libtcmalloc_minimal.so.4\n"
			   "7f0000010000-7f0000060000 rw-p 00010000 08:01 4242 "
			   "/usr/lib/libtcmalloc_minimal.so.4\n"
			   "7f1000000000-7f1004400000 rw-p 00000000 00:00 0 \n"
			   "7f1004400000-7f1006400000 ---p 00000000 00:00 0 \n";

static unsigned char *mem; /* BSS_LEN bytes of .bss, then the region */
static unsigned char *absent; /* per page: reads as not there */
static unsigned char *pristine_absent;
static const size_t npages = (BSS_LEN + ANON_LEN + MI_LEN) / PG;

/* The image's offset of address a, or -1 outside it. */
static int64_t off_of(uint64_t a)
{
	if (a >= BSS && a < BSS + BSS_LEN)
		return (int64_t)(a - BSS);
	if (a >= ANON && a < ANON + ANON_LEN)
		return (int64_t)(BSS_LEN + (a - ANON));
	if (a >= MI && a < MI + MI_LEN)
		return (int64_t)(BSS_LEN + ANON_LEN + (a - MI));
	return -1;
}

static void put(uint64_t a, uint64_t v)
{
	int64_t o = off_of(a);

	memcpy(mem + o, &v, 8);
	absent[o / PG] = 0;
}

static void put32(uint64_t a, uint32_t v)
{
	int64_t o = off_of(a);

	memcpy(mem + o, &v, 4);
	absent[o / PG] = 0;
}

/* As a live source reads: up to the first page not there. */
static ssize_t img_read(struct vms_snapshot *s, uint64_t addr, void *buf,
			size_t len, struct vms_error *err)
{
	int64_t o = off_of(addr);
	size_t done = 0;

	(void)s;
	(void)err;
	if (o < 0)
		return 0;
	while (done < len) {
		uint64_t at = (uint64_t)o + done;
		size_t n = PG - at % PG;

		if (off_of(addr + done) < 0 || absent[at / PG])
			break;
		if (n > len - done)
			n = len - done;
		memcpy((unsigned char *)buf + done, mem + at, n);
		done += n;
	}
	return (ssize_t)done;
}

static int img_present(struct vms_snapshot *s, uint64_t addr, size_t n,
		       unsigned char *out, struct vms_error *err)
{
	size_t i;

	(void)s;
	(void)err;
	for (i = 0; i < n; i++) {
		int64_t o = off_of(addr + i * PG);

		out[i] = o >= 0 && !absent[o / PG];
	}
	return 0;
}

static const struct vms_source_ops ops = { .name = "fuzz",
					   .read_mem = img_read,
					   .present = img_present };

/* A Span: start page, length, next, prev, objects, bits. */
static void span(uint64_t at, uint64_t addr, uint64_t pages, uint64_t next,
		 uint64_t prev, unsigned location, unsigned sizeclass)
{
	put(at, addr >> SHIFT);
	put(at + 8, pages);
	put(at + 16, next);
	put(at + 24, prev);
	put(at + 32, 0);
	put(at + 40, 1u | (uint64_t)sizeclass << 16 | (uint64_t)location << 24);
}

/* The leaf's entry for the page at a. */
#define LEAF_AT(a) (LEAF + 8 * (((a) >> SHIFT) & ((1ull << LEAF_BITS) - 1)))

static void leaf_entry(uint64_t addr, uint64_t sp)
{
	put(LEAF_AT(addr), sp);
}

/* mimalloc: a page's entry (i of the segment at seg): its slices,
 * block size, blocks used, reserved, blocks other threads freed, heap. */
static void mi_entry(uint64_t seg, uint32_t i, uint32_t count, uint32_t bsize,
		     uint32_t used, uint16_t res, uint64_t tfree, uint64_t heap)
{
	uint64_t e = seg + RTHEAP_MI_HDR + (uint64_t)i * RTHEAP_MI_PAGE;
	uint32_t k;

	put32(e, count);
	put32(e + 4, 0);
	put32(e + 8, (uint32_t)res << 16); /* capacity */
	put32(e + 12, res);
	put32(e + 24, used);
	put32(e + 28, bsize);
	put(e + RTHEAP_MI_TFREE, tfree);
	put(e + RTHEAP_MI_XHEAP, heap);
	/* the run's other entries: their offset back to the first */
	for (k = 1; k < count && i + k < RTHEAP_MI_MAX_ENTRIES - 1; k++)
		put32(e + (uint64_t)k * RTHEAP_MI_PAGE + 4, k * RTHEAP_MI_PAGE);
}

static void mi_header(uint64_t seg, uint64_t slices, uint64_t kind,
		      uint64_t used)
{
	put(seg, 0);
	put(seg + 8 * 14, ~0ull); /* commit_mask: 64 slices */
	put(seg + 8 * 26, used);
	put(seg + 8 * 27, seg ^ MI_KEY); /* cookie */
	put(seg + 8 * 28, slices);
	put(seg + 8 * 29, 1); /* info slices */
	put(seg + 8 * 30, kind);
	put(seg + 8 * 31, slices < 512 ? slices : 512);
	put(seg + 8 * 32, MI_TID);
}

/* Its block k: 384 bytes on (2.0.9's first block; 2.1.0's is 3 small
 * blocks on: 192, so both are on a multiple of 64 from it). */
#define MI_SMALL(k) (MI + MI_SLICE + 384 + 64ull * (k))
#define MI_MED(k) (MI + 2 * MI_SLICE + 8192ull * (k))
#define MI_FULL (MI + 10 * MI_SLICE)

static void mi_build(void)
{
	/* the segment: header, small page (slice 1), medium page (2-9),
	 * full page (10-11), free run (12-511) */
	mi_header(MI, 512, 0, 3);
	mi_entry(MI, 0, 1, 0, 0, 0, 0, 0);
	mi_entry(MI, 1, 1, 64, 10, 32, MI_SMALL(2) | 1, MI_TD);
	put(MI_SMALL(2), MI_SMALL(5));
	put(MI_SMALL(5), 0);
	mi_entry(MI, 2, 8, 8192, 3, 64, MI_MED(1), MI_TD);
	put(MI_MED(1), 0);
	mi_entry(MI, 10, 2, 1024, 128, 128, 0, MI_TD);
	mi_entry(MI, 12, 500, 0, 0, 0, 0, 0);
	/* the huge segment: its header's run, then one block */
	mi_header(MI_SEG1, 528, 1, 1);
	mi_entry(MI_SEG1, 0, 1, 0, 0, 0, 0, 0);
	mi_entry(MI_SEG1, 1, 527, 0x80000000u, 1, 1, 0, MI_TD);
	put(MI_SEG1 + MI_SLICE, 0x5a5a5a5a5a5a5a5aull);
	/* the thread's data: heap (its tld, its delayed list and thread
	 * id), tld (heap_backing) */
	put(MI_TD, MI_TLD);
	put(MI_TD + RTHEAP_MI_DELAYED, MI_FULL + MI_SLICE + 3 * 1024);
	put(MI_TD + RTHEAP_MI_DELAYED + 8, MI_TID);
	put(MI_TLD + RTHEAP_MI_BACKING, MI_TD);
	put(MI_FULL + MI_SLICE + 3 * 1024, 0);
}

static void build(void)
{
	static const struct {
		uint64_t off, pages;
		unsigned location, sizeclass;
	} s[] = { { 0, 4, 0, 3 },
		  { 4, 8, 0, 7 },
		  { 12, 16, 1, 0 },
		  { 28, 2, 0, 12 } };
	/* sentinels in .bss, one list per span but the last */
	static const uint64_t head[] = { BSS + 0x100, BSS + 0x200,
					 BSS + 0x300 };
	size_t i;
	uint64_t k;

	mem = calloc(1, BSS_LEN + ANON_LEN + MI_LEN);
	absent = malloc(npages);
	pristine_absent = malloc(npages);
	if (!mem || !absent || !pristine_absent)
		abort();
	memset(absent, 1, npages); /* never written */
	for (i = 0; i < 4; i++) {
		uint64_t at = SPANS + 64 * i;
		uint64_t addr = PAGES + (s[i].off << SHIFT);
		bool listed = i < 3;

		span(at, addr, s[i].pages, listed ? head[i] : 0,
		     listed ? head[i] : 0, s[i].location, s[i].sizeclass);
		if (listed) /* a ring of one: sentinel <-> span */
			span(head[i], 0, 0, at, at, 0, 0);
		if (s[i].location == 0)
			for (k = 0; k < s[i].pages; k++)
				leaf_entry(addr + (k << SHIFT), at);
		else {
			leaf_entry(addr, at);
			leaf_entry(addr + ((s[i].pages - 1) << SHIFT), at);
		}
		/* the pages of the spans in use were written */
		for (k = 0; s[i].location == 0 && k < s[i].pages << SHIFT;
		     k += PG)
			put(addr + k, 0x5a5a5a5a5a5a5a5aull);
	}
	put(ROOT + 8 * ((LEAF >> SHIFT) >> LEAF_BITS), LEAF);
	mi_build();
	memcpy(pristine_absent, absent, npages);
}

struct run {
	struct vms_snapshot *s;
	struct alloc_marks m;
	struct vms_allocator al;
	struct vms_image im;
};

static bool run_open(struct run *r)
{
	struct vms_error err;
	size_t i;
	bool oom;

	memset(r, 0, sizeof(*r));
	r->s = vms_snapshot_new();
	if (!r->s || smaps_parse_buffer(r->s, maps, sizeof(maps) - 1, &err) < 0)
		return false;
	r->s->src = (struct vms_source){
		.ops = &ops, .caps = VMS_SRC_MEMORY | VMS_SRC_CONSISTENT
	};
	for (i = 0; i < r->s->nregions; i++)
		if (!r->s->regions[i].path)
			r->s->regions[i].type = VMS_T_PRIVATE_DATA;
	r->im.path = r->s->regions[1].path;
	r->im.start = LIB;
	r->im.end = BSS + BSS_LEN;
	r->im.first_region = 1;
	r->im.nregions = 2;
	r->m.s = r->s;
	r->m.runs = rtscan_runs(r->s, &r->m.nruns, &oom);
	r->m.mark = calloc(r->s->nregions, 1);
	return r->m.runs && r->m.mark;
}

static void run_close(struct run *r)
{
	alloc_marks_fini(&r->m);
	free(r->m.mark);
	if (r->s)
		vms_snapshot_free(r->s);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct run r;
	const char *why;
	const struct vms_heap *h;

	(void)argc;
	(void)argv;
	build();
	if (!run_open(&r) || alloc_tcmalloc(&r.m, &r.al, &r.im, NULL, &why) < 0)
		abort();
	h = r.s->nheaps ? &r.s->heaps[r.s->nheaps - 1] : NULL;
	/* in use and free are the application's bytes and the rest: not
	 * known here, the built heap having no size classes (so no caches
	 * to read, alloc_tccache.c); its spans are */
	if (!h || strcmp(h->kind, "tcmalloc") != 0 || h->in_use != -1 ||
	    h->chunks != 3 || h->free != -1 || h->free_chunks != 1 || why ||
	    r.al.transfer_cache != -1) {
		fprintf(stderr,
			"fuzz_alloc: the built tcmalloc heap is not found "
			"(%s)\n",
			why ? why : "figures differ");
		abort();
	}
	run_close(&r);
	/* and the mimalloc heap, whole */
	if (!run_open(&r) || alloc_mimalloc(&r.m, &r.al, &r.im, 209) < 0)
		abort();
	h = r.s->nheaps ? &r.s->heaps[r.s->nheaps - 1] : NULL;
	if (!h || strcmp(h->kind, "mimalloc") != 0 || h->chunks != 142 - 4 ||
	    r.al.reserved != (int64_t)((65ull << 20) + RTHEAP_MI_TD) ||
	    !r.al.figures_note || strstr(r.al.figures_note, "not all") ||
	    !strstr(r.al.figures_note, "(1 found")) {
		fprintf(stderr,
			"fuzz_alloc: the built mimalloc heap is not found "
			"(%s; %s)\n",
			h ? h->kind : "no heap",
			r.al.figures_note ? r.al.figures_note
					  : (r.al.partial ? r.al.partial : ""));
		abort();
	}
	run_close(&r);
	return 0;
}

static const struct {
	uint64_t base, len;
} areas[16] = {
	{ BSS, BSS_LEN },
	{ ANON, ANON_LEN },
	{ BSS + 0x100, 0x230 },
	{ SPANS, 4 * 64 },
	{ ROOT + 8 * ((LEAF >> SHIFT) >> LEAF_BITS) - 64, 136 },
	{ LEAF_AT(PAGES), 8 * 30 },
	{ ANON, PG },
	{ PAGES, 30ull << SHIFT },
	{ MI, RTHEAP_MI_HDR },
	{ MI + RTHEAP_MI_HDR, 13 * RTHEAP_MI_PAGE },
	{ MI_SEG1, RTHEAP_MI_HDR + 2 * RTHEAP_MI_PAGE },
	{ MI_TD, 3064 + 64 },
	{ MI + MI_SLICE, 1024 },
	{ MI + 2 * MI_SLICE, 4 * 8192 },
	{ MI_FULL, 2 * MI_SLICE },
	{ MI, MI_LEN },
};

struct undo {
	int64_t off;
	uint64_t old;
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct undo u[4096];
	size_t nu = 0, i;
	unsigned which, pattern;
	int version;
	struct run r;
	const char *why;

	if (size < 1)
		return 0;
	which = data[0] & 7 ? data[0] & 7 : 7;
	version = data[0] & 8 ? 210 : 209;
	pattern = data[0] >> 4;
	for (i = 0; pattern && i < npages; i++)
		if ((i * 2654435761u >> 7) % 16 < pattern / 4 + 1 &&
		    (i + pattern) % 3 == 0)
			absent[i] = 1;
	for (i = 1; i + 12 <= size && nu < 4096; i += 12) {
		uint32_t o;
		uint64_t v;

		memcpy(&o, data + i, 4);
		memcpy(&v, data + i + 4, 8);
		o = (uint32_t)off_of(areas[o & 15].base +
				     ((o >> 4) % areas[o & 15].len & ~7ull));
		u[nu].off = o;
		memcpy(&u[nu].old, mem + o, 8);
		nu++;
		memcpy(mem + o, &v, 8);
		absent[o / PG] = 0;
	}
	if (run_open(&r)) {
		if (which & 1)
			(void)alloc_tcmalloc(&r.m, &r.al, &r.im, NULL, &why);
		if (which & 2)
			(void)alloc_jemalloc(&r.m, &r.al, &r.im);
		if (which & 4)
			(void)alloc_mimalloc(&r.m, &r.al, &r.im, version);
	}
	run_close(&r);
	while (nu--)
		memcpy(mem + u[nu].off, &u[nu].old, 8);
	memcpy(absent, pristine_absent, npages);
	return 0;
}
