/* test_mimalloc_walk.c — alloc_mimalloc's walk of the blocks other threads
 * freed into a page (each page's xthread_free list), against a segment
 * built by hand in a source of memory of the test's own: a list is
 * followed only through blocks that hold their link inside the page.
 *
 * The segment (mimalloc 2.0.9's header, rtheap.h) has one page of 8
 * slices (512 KiB: read at once, MI_AREA) of blocks of bsize bytes, one
 * block used; its xthread_free points at the page's last 4 bytes. A
 * block smaller than a pointer is no mimalloc block (its blocks hold a
 * next pointer: 8 bytes at least), and a link read there would come from
 * past the page: the list must be refused (said in figures_note), never
 * read past what was read of the page. Then the same with blocks of 16
 * bytes and a list of two well inside the page: read, and counted.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/heaps/alloc_heap.h"
#include "analyze/rtheap.h"
#include "linux/smaps.h"
#include "model/snapshot.h"
#include "model/source.h"
#include "tap.h"

#define PG 4096u
#define ANON 0x7e0000000000ull /* 32 MiB-aligned */
#define ANON_LEN (32ull << 20)
#define PAGE_AT (ANON + 2 * RTHEAP_MI_SLICE) /* after 2 info slices */

static const char maps[] = "7e0000000000-7e0002000000 rw-p 00000000 00:00 0 \n";

static unsigned char *mem; /* ANON_LEN bytes */

static ssize_t img_read(struct vms_snapshot *s, uint64_t addr, void *buf,
			size_t len, struct vms_error *err)
{
	(void)s;
	(void)err;
	if (addr < ANON || addr >= ANON + ANON_LEN)
		return 0;
	if (len > ANON + ANON_LEN - addr)
		len = (size_t)(ANON + ANON_LEN - addr);
	memcpy(buf, mem + (addr - ANON), len);
	return (ssize_t)len;
}

static int img_present(struct vms_snapshot *s, uint64_t addr, size_t n,
		       unsigned char *out, struct vms_error *err)
{
	size_t i;

	(void)s;
	(void)err;
	for (i = 0; i < n; i++)
		out[i] = addr + i * PG >= ANON && addr + i * PG < ANON + ANON_LEN;
	return 0;
}

static const struct vms_source_ops ops = { .name = "test",
					   .read_mem = img_read,
					   .present = img_present };

static void put64(uint64_t a, uint64_t v)
{
	memcpy(mem + (a - ANON), &v, 8);
}

static void put32(uint64_t a, uint32_t v)
{
	memcpy(mem + (a - ANON), &v, 4);
}

static void put16(uint64_t a, uint16_t v)
{
	memcpy(mem + (a - ANON), &v, 2);
}

/* Page entry i (its first slice's): count slices, block size, used. */
static void entry(uint32_t i, uint32_t count, uint32_t bsize, uint32_t used,
		  uint16_t res, uint64_t tfree)
{
	uint64_t e = ANON + RTHEAP_MI_HDR + (uint64_t)i * RTHEAP_MI_PAGE;

	put32(e, count);
	put32(e + 4, 0); /* slice_offset */
	put16(e + 10, res); /* capacity */
	put16(e + 12, res); /* reserved */
	put32(e + 24, used);
	put32(e + 28, bsize);
	put64(e + RTHEAP_MI_TFREE, tfree);
	put64(e + RTHEAP_MI_XHEAP, 0);
}

/* The segment: 512 slices, 2 of them its header's, a page of 8 at slice
 * 2, the rest free. */
static void build(uint32_t bsize, uint16_t res, uint64_t tfree)
{
	memset(mem, 0, RTHEAP_MI_INFO);
	put64(ANON + 8 * 26, 1); /* used pages */
	put64(ANON + 8 * 27, ANON ^ 0x1234); /* cookie */
	put64(ANON + 8 * 28, 512); /* slices */
	put64(ANON + 8 * 29, 2); /* info slices */
	put64(ANON + 8 * 30, 0); /* kind: normal */
	put64(ANON + 8 * 31, 512); /* entries */
	put64(ANON + 8 * 32, 77); /* thread id */
	put64(ANON + 8 * 14, ~0ull); /* committed: 64 slices at least */
	entry(0, 2, 0, 0, 0, 0);
	entry(2, 8, bsize, 1, res, tfree);
	entry(10, 502, 0, 0, 0, 0);
}

static const char *run(struct vms_allocator *al, int64_t *in_use)
{
	struct vms_snapshot *s = vms_snapshot_new();
	struct vms_error err;
	struct alloc_marks m = { 0 };
	const char *note = NULL;
	bool oom;

	*in_use = -2;
	if (!s || smaps_parse_buffer(s, maps, sizeof(maps) - 1, &err) < 0)
		return NULL;
	s->src = (struct vms_source){ .ops = &ops,
				      .caps = VMS_SRC_MEMORY |
					      VMS_SRC_CONSISTENT };
	s->regions[0].type = VMS_T_PRIVATE_DATA;
	s->cap.page_size = PG;
	m.s = s;
	m.runs = rtscan_runs(s, &m.nruns, &oom);
	m.mark = calloc(s->nregions, 1);
	memset(al, 0, sizeof(*al));
	if (m.runs && m.mark && alloc_mimalloc(&m, al, NULL, 209) == 0 &&
	    s->nheaps) {
		*in_use = s->heaps[s->nheaps - 1].in_use;
		note = al->figures_note ? strdup(al->figures_note) : NULL;
	}
	alloc_marks_fini(&m);
	free(m.mark);
	vms_snapshot_free(s);
	return note;
}

int main(void)
{
	struct vms_allocator al;
	const char *note;
	int64_t in_use;

	mem = calloc(1, ANON_LEN);
	if (!mem)
		return 1;

	/* blocks of 4 bytes: the list's first at the page's last 4 */
	build(4, 1, PAGE_AT + 8 * RTHEAP_MI_SLICE - 4);
	note = run(&al, &in_use);
	ok(note && strstr(note, "not all of them read") &&
		   strstr(note, "does not read as one"),
	   "a list through blocks smaller than their link is refused (%s)",
	   note ? note : "no heap");
	ok(in_use == 4, "its used block counted in use (%lld)",
	   (long long)in_use);
	free((void *)note);

	/* blocks of 16 bytes: two freed by another thread, past 2.0.9's
	 * first block's offset (384), linked 400 -> 800 -> end */
	build(16, 64, PAGE_AT + 400);
	put64(PAGE_AT + 400, PAGE_AT + 800);
	put64(PAGE_AT + 800, 0);
	entry(2, 8, 16, 3, 64, PAGE_AT + 400);
	note = run(&al, &in_use);
	ok(note && !strstr(note, "not all of them read") &&
		   strstr(note, "32 bytes in 2 blocks"),
	   "a list of two blocks inside the page is read (%s)",
	   note ? note : "no heap");
	ok(in_use == 16, "in use: 3 used blocks less the 2 freed (%lld)",
	   (long long)in_use);
	free((void *)note);
	free(mem);
	return tap_done();
}
