/* test_glibc_walk.c — the glibc finder and walker (glibc_find.h,
 * glibc_walk.h) on recorded fixtures and on this machine's libc.
 *
 *  - tests/fixtures/glibc236_small.heap (record_heap.py: heap_arenas.c in
 *    small mode, 2 threads): the walk gives every mallinfo2 field the
 *    target printed, with nothing partial; the blocks it holds (the
 *    walk's block callback) make up in_use with the tcaches and overhead;
 *  - the same image damaged (a chunk size, a fastbin made a loop, the arena
 *    list broken, mp_ elsewhere, thousands of random words overwritten):
 *    a result marked partial, in a bounded number of reads, never a crash;
 *  - the lists alone (a running target's walk, lists_only), twice with
 *    the page cache kept between: the same figures, read again in runs,
 *    a change between the two seen;
 *  - the mmapped chunks in spans that start before them (merged with
 *    other memory): each located; a false header there that makes one
 *    too many: none of those taken;
 *  - versions: 2.27 to 2.42 have a layout, 2.26 and 2.43 none;
 *  - the libc this test runs with: it is glibc, its release version is
 *    gnu_get_libc_version(), and main_arena and mp_ found from the file
 *    alone are those of its debug file (skipped without libc6-dbg); the
 *    file cut short finds nothing, and says why.
 */
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fixtures/fixture.h"
#include "../fixtures/heapfix.h"
#include "elf/elfimage.h"
#include "analyze/heaps/glibc_find.h"
#include "analyze/heaps/glibc_walk.h"
#include "tap.h"

static void mallinfo_of(const struct glibc_walk_res *r, uint64_t *mi)
{
	const uint64_t v[10] = { r->arena,    r->ordblks,  r->smblks,
				 r->hblks,    r->hblkhd,   r->usmblks,
				 r->fsmblks,  r->uordblks, r->fordblks,
				 r->keepcost };

	memcpy(mi, v, sizeof(v));
}

/* Writes v at addr in the image, where addr was recorded. */
static bool poke(struct heapfix *f, uint64_t addr, uint64_t v)
{
	size_t i;

	for (i = 0; i < f->nrecs; i++)
		if (addr >= f->recs[i].addr &&
		    addr + 8 <= f->recs[i].addr + f->recs[i].len) {
			memcpy(f->recs[i].bytes + (addr - f->recs[i].addr), &v,
			       8);
			return true;
		}
	return false;
}

static uint64_t peek(struct heapfix *f, uint64_t addr)
{
	uint64_t v = 0;

	heapfix_read(f, addr, &v, 8);
	return v;
}

static int walk(struct heapfix *f, const struct glibc_walk_in *in,
		struct glibc_walk_res *r)
{
	struct glibc_mem mem = { heapfix_read, f, NULL, NULL };

	f->reads = 0;
	return glibc_walk(in, &mem, r);
}

/* Residency as a source would say it: every page in RAM, none, every
 * other one, or "cannot tell". */
static int present_mode;

static int fake_present(void *ctx, uint64_t addr, size_t npages,
			unsigned char *out)
{
	struct heapfix *f = ctx;
	size_t i;

	if (present_mode < 0)
		return -1;
	for (i = 0; i < npages; i++)
		out[i] = present_mode == 2
				 ? (unsigned char)(((addr / f->page_size) + i) &
						   1)
				 : (unsigned char)present_mode;
	return 0;
}

/* Free bytes still resident: all of free when every page is in RAM, none
 * when no page is, between when every other page is (and then exactly
 * the free chunks' bytes in even pages), unknown when the source cannot
 * tell. */
static void test_resident(struct heapfix *f)
{
	struct glibc_mem mem = { heapfix_read, f, fake_present, NULL };
	struct glibc_walk_in in;
	struct glibc_walk_res r;
	int mode;

	heapfix_input(f, &in);
	for (mode = -1; mode <= 2; mode++) {
		int good = 1;
		size_t i;

		present_mode = mode;
		if (glibc_walk(&in, &mem, &r) != 0 || r.narenas == 0)
			good = 0;
		for (i = 0; good && i < r.narenas; i++) {
			const struct glibc_arena *a = &r.arenas[i];

			if (mode < 0)
				good = !a->resident_known;
			else if (!a->resident_known)
				good = 0;
			else if (mode == 0)
				good = a->free_resident == 0;
			else if (mode == 1)
				good = a->free_resident == a->free;
			else
				good = a->free_resident > 0 &&
				       a->free_resident < a->free;
			if (!good)
				printf("# arena %zu: free %llu resident %llu "
				       "known %d\n",
				       i, (unsigned long long)a->free,
				       (unsigned long long)a->free_resident,
				       a->resident_known);
		}
		if (mode == 1) {
			int strip = r.narenas > 0;

			for (i = 0; i < r.narenas; i++) {
				const struct glibc_arena *a = &r.arenas[i];
				uint64_t fr = 0, tp = 0;
				unsigned c;

				for (c = 0; c < GLIBC_STRIP; c++) {
					fr += a->strip_free[c];
					tp += a->strip_top[c];
					if (a->strip_free[c] + a->strip_top[c] >
					    a->strip_bytes / GLIBC_STRIP + 1)
						strip = 0;
				}
				if (tp != a->top || fr + tp != a->free)
					strip = 0;
			}
			ok(strip, "the strip: its cells hold top and the other "
				  "free chunks exactly, none past its size");
		}
		ok(good, "resident free bytes, pages %s",
		   mode < 0    ? "unknown: not known"
		   : mode == 0 ? "all absent: 0"
		   : mode == 1 ? "all present: all of free"
			       : "every other present: some of free");
		glibc_walk_fini(&r);
	}
}

static void test_exact(struct heapfix *f)
{
	struct glibc_walk_in in;
	struct glibc_walk_res r;
	uint64_t mi[10];
	int i, same = 1;

	ok(heapfix_input(f, &in), "fixture: glibc %u.%u has a layout",
	   f->major, f->minor);
	ok(walk(f, &in, &r) == 0, "fixture: walked");
	mallinfo_of(&r, mi);
	for (i = 0; i < 10; i++)
		if (mi[i] != f->mi[i]) {
			printf("# %s: walked %llu, recorded %llu\n",
			       heapfix_mi_names[i], (unsigned long long)mi[i],
			       (unsigned long long)f->mi[i]);
			same = 0;
		}
	ok(same, "fixture: every mallinfo2 field is the target's own");
	ok(!r.partial[0], "fixture: nothing partial (%s)", r.partial);
	ok(r.narenas == 3, "fixture: three arenas (main and two threads): %zu",
	   r.narenas);
	ok(r.tcache_chunks > 0 && r.overhead > 0,
	   "fixture: tcache'd chunks %llu, overhead %llu",
	   (unsigned long long)r.tcache_chunks,
	   (unsigned long long)r.overhead);
	ok(r.nmmapped == r.hblks && r.mmapped_found == r.hblkhd,
	   "fixture: %zu mmapped chunks located", r.nmmapped);
	glibc_walk_fini(&r);
}

/* The lists alone (vmscope --all: lists_only), read in blocks of many
 * pages past the fixture's holes: mallinfo2 as the target printed it.
 * Walked twice with a kept cache (a running target: glibc_walk_in.keep),
 * the second walk reads what the first read again, in fewer reads, and
 * sees what changed between the two: the top chunk's size written
 * between them is the second walk's keepcost. */
static void test_lists(struct heapfix *f)
{
	struct glibc_walk_in in;
	struct glibc_walk_res a, b, c;
	uint64_t mi[10], top, topsz, word;
	size_t reads_a, reads_b;
	int i, same = 1;

	heapfix_input(f, &in);
	in.lists_only = true;
	ok(walk(f, &in, &a) == 0, "lists: walked");
	mallinfo_of(&a, mi);
	for (i = 0; i < 10; i++)
		if (mi[i] != f->mi[i]) {
			printf("# %s: walked %llu, recorded %llu\n",
			       heapfix_mi_names[i], (unsigned long long)mi[i],
			       (unsigned long long)f->mi[i]);
			same = 0;
		}
	ok(same && !a.partial[0],
	   "lists: every mallinfo2 field is the target's own (%s)", a.partial);
	glibc_walk_fini(&a);

	in.keep = glibc_walk_keep_new();
	ok(in.keep != NULL, "lists: a cache to keep");
	walk(f, &in, &a);
	reads_a = f->reads;
	walk(f, &in, &b);
	reads_b = f->reads;
	ok(memcmp(&a.uordblks, &b.uordblks, sizeof(a.uordblks)) == 0 &&
		   a.fordblks == b.fordblks && a.keepcost == b.keepcost &&
		   a.ordblks == b.ordblks && a.smblks == b.smblks,
	   "lists: the second walk of the same memory finds the same");
	ok(reads_b > 0 && reads_b <= reads_a,
	   "lists: the second walk reads again in runs (%zu reads, the "
	   "first %zu)",
	   reads_b, reads_a);
	top = peek(f, in.main_arena + in.lay.ms_top);
	topsz = peek(f, top + 8);
	poke(f, top + 8, topsz + 0x1000);
	walk(f, &in, &c);
	ok(c.keepcost == a.keepcost + 0x1000,
	   "lists: a top grown between two walks is seen by the second "
	   "(keepcost %llu, before %llu)",
	   (unsigned long long)c.keepcost, (unsigned long long)a.keepcost);
	poke(f, top + 8, topsz);
	glibc_walk_keep_free(in.keep);
	glibc_walk_fini(&a);
	glibc_walk_fini(&b);
	glibc_walk_fini(&c);

	/* the main arena marked not contiguous (its flags, after the mutex:
	 * NONCONTIGUOUS_BIT): its segments are found by reading chunk
	 * headers, for the lists alone too (a zeroed block cache divided by
	 * its page size there: SIGFPE under vmscope --all); the brk heap is
	 * its one segment, so the same figures */
	in.keep = NULL;
	word = peek(f, in.main_arena); /* the mutex, then the flags */
	poke(f, in.main_arena, word | (uint64_t)2 << 32);
	ok(walk(f, &in, &a) == 0, "lists, not contiguous: walked");
	mallinfo_of(&a, mi);
	ok(memcmp(mi, f->mi, sizeof(mi)) == 0,
	   "lists, not contiguous: every mallinfo2 field the target's own "
	   "(%s)",
	   a.partial);
	poke(f, in.main_arena, word);
	glibc_walk_fini(&a);
}

/* The mmapped chunks where the kernel merged their mappings with other
 * memory below them: the span of each chunk that starts one reaches four
 * pages lower (read as zeros: no header). Every chunk is still located,
 * at the same place; with a false header in those pages (a page-sized
 * chunk, one more than mp_ counts), none of the merged ones is taken. */
static void test_merged(struct heapfix *f)
{
	struct glibc_walk_in in;
	struct glibc_walk_res r, m;
	uint64_t pg;
	size_t i, k, moved = 0;
	bool same;

	heapfix_input(f, &in);
	pg = in.page_size;
	walk(f, &in, &r);
	for (i = 0; i < f->nspans; i++)
		for (k = 0; k < r.nmmapped; k++)
			if (f->spans[i].start == r.mmapped[k].start &&
			    (i == 0 || f->spans[i - 1].end <
					       f->spans[i].start - 4 * pg)) {
				f->spans[i].start -= 4 * pg;
				moved++;
				break;
			}
	walk(f, &in, &m);
	same = m.nmmapped == r.nmmapped && m.mmapped_found == r.mmapped_found;
	for (k = 0; same && k < r.nmmapped; k++) {
		for (i = 0; i < m.nmmapped; i++)
			if (m.mmapped[i].start == r.mmapped[k].start &&
			    m.mmapped[i].end == r.mmapped[k].end)
				break;
		same = i < m.nmmapped;
	}
	ok(moved > 0 && same && r.nmmapped == r.hblks,
	   "merged: %zu spans start before their chunk; all %zu chunks "
	   "located where they are",
	   moved, r.nmmapped);
	glibc_walk_fini(&m);
	/* a header of one page where the first span made longer starts */
	f->recs = realloc(f->recs, (f->nrecs + 1) * sizeof(*f->recs));
	for (i = 0; f->recs && i < f->nspans; i++)
		for (k = 0; k < r.nmmapped; k++)
			if (f->spans[i].start + 4 * pg == r.mmapped[k].start) {
				static uint64_t hdr[2];

				hdr[1] = pg | 2;
				f->recs[f->nrecs] = (struct heapfix_rec){
					f->spans[i].start, sizeof(hdr),
					(unsigned char *)hdr
				};
				i = f->nspans;
				break;
			}
	f->nrecs++;
	walk(f, &in, &m);
	for (k = 0, same = false; k < m.nmmapped; k++)
		for (i = 0; i < f->nspans; i++)
			same = same ||
			       f->spans[i].start + 4 * pg == m.mmapped[k].start;
	ok(!same && m.nmmapped < r.nmmapped,
	   "merged, a false header before them: one more than mp_ counts, so "
	   "none of those in merged spans is taken (%zu of %zu located)",
	   m.nmmapped, r.nmmapped);
	glibc_walk_fini(&m);
	f->nrecs--;
	for (i = 0; i < f->nspans; i++)
		for (k = 0; k < r.nmmapped; k++)
			if (f->spans[i].start + 4 * pg == r.mmapped[k].start)
				f->spans[i].start += 4 * pg;
	glibc_walk_fini(&r);
}

/* The blocks the program holds (glibc_walk_in.block), kept by address. */
#define BLOCKS_MAX 65536
static struct held {
	uint64_t mem, usable, arena;
} blocks[BLOCKS_MAX];
static size_t nblocks, stray, removed;

static int on_block(void *ctx, uint64_t arena, uint64_t mem, uint64_t usable,
		    bool held)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < nblocks && blocks[i].mem != mem; i++)
		;
	if (!held) {
		if (i == nblocks) {
			stray++;
			return 0;
		}
		blocks[i] = blocks[--nblocks];
		removed++;
		return 0;
	}
	if (i < nblocks || nblocks == BLOCKS_MAX)
		return i < nblocks ? 0 : -1;
	blocks[nblocks++] = (struct held){ mem, usable, arena };
	return 0;
}

static bool is_mmapped(const struct glibc_walk_res *r, uint64_t mem)
{
	size_t k;

	for (k = 0; k < r->nmmapped; k++)
		if (mem == r->mmapped[k].start + 16)
			return true;
	return false;
}

/* The walk's blocks: every chunk in use but the cached ones (each a block
 * the chunk walk had seen) and the tcaches; with the tcaches' bytes and
 * the arenas' overhead, the blocks' chunks make up in_use, arena by
 * arena, but for the tcaches themselves (one per thread at most, three
 * here); the mmapped ones make up mp_'s mmapped bytes. */
static void test_blocks(struct heapfix *f)
{
	struct glibc_walk_in in;
	struct glibc_walk_res r;
	uint64_t left = 0, mmapped = 0, tc = 0;
	size_t i, k;
	bool owned = true;

	heapfix_input(f, &in);
	in.block = on_block;
	nblocks = stray = removed = 0;
	ok(walk(f, &in, &r) == 0 && !r.partial[0], "blocks: walked");
	tc = in.lay.tc_chunk;
	for (k = 0; k < r.narenas; k++) {
		const struct glibc_arena *a = &r.arenas[k];
		uint64_t sum = 0;

		for (i = 0; i < nblocks; i++)
			if (blocks[i].arena == a->addr &&
			    !is_mmapped(&r, blocks[i].mem))
				sum += blocks[i].usable + 8;
		owned &= sum + a->tcache + a->overhead <= a->in_use;
		left += a->in_use - sum - a->tcache - a->overhead;
	}
	for (i = 0; i < nblocks; i++)
		if (is_mmapped(&r, blocks[i].mem))
			mmapped += blocks[i].usable + 16;
	ok(nblocks > 0 && removed >= r.tcache_chunks && stray == 0,
	   "blocks: %zu held; %zu found cached after all (%llu tcache'd), "
	   "none unknown",
	   nblocks, removed, (unsigned long long)r.tcache_chunks);
	ok(owned && left % tc == 0 && left / tc >= 1 && left / tc <= 3,
	   "blocks: with the tcaches' bytes and the overhead, the chunks of "
	   "each arena's blocks make up its in_use but for its tcaches "
	   "(%llu bytes: %llu of them)",
	   (unsigned long long)left, (unsigned long long)(left / tc));
	ok(mmapped == r.hblkhd, "blocks: the mmapped ones are mp_'s %llu bytes",
	   (unsigned long long)r.hblkhd);
	glibc_walk_fini(&r);
}

/* One damage, then the image restored from a copy of its bytes. */
static void test_damage(struct heapfix *f, const char *what,
			void (*damage)(struct heapfix *, struct glibc_walk_in *),
			const char *expect)
{
	unsigned char *save = malloc(f->bloblen);
	struct glibc_walk_in in;
	struct glibc_walk_res r;
	int rc;

	memcpy(save, f->blob, f->bloblen);
	heapfix_input(f, &in);
	damage(f, &in);
	rc = walk(f, &in, &r);
	ok(rc == 0 && r.partial[0] && strstr(r.partial, expect),
	   "%s: partial, \"%s\" (%llu reads)", what, r.partial,
	   (unsigned long long)f->reads);
	glibc_walk_fini(&r);
	memcpy(f->blob, save, f->bloblen);
	free(save);
}

static uint64_t sbrk_base(struct heapfix *f)
{
	struct glibc_walk_in in;

	heapfix_input(f, &in);
	return peek(f, f->mp + in.lay.mp_sbrk_base);
}

static void bad_size(struct heapfix *f, struct glibc_walk_in *in)
{
	uint64_t first = sbrk_base(f) + in->lay.tc_chunk; /* after tcache */

	poke(f, first + 8, ~(uint64_t)0xf | 1);
}

static void fast_loop(struct heapfix *f, struct glibc_walk_in *in)
{
	/* the first chunk of a fastbin's size (0x20 to 0xb0) in the main
	 * heap, listed as pointing to itself */
	uint64_t c = sbrk_base(f) + in->lay.tc_chunk;
	int i;

	for (i = 0; i < 100 && (peek(f, c + 8) & ~7ull) > 0xb0; i++)
		c += peek(f, c + 8) & ~7ull;

	poke(f, c + 16, ((c + 16) >> 12) ^ c); /* fd: itself */
	poke(f, f->main_arena + in->lay.ms_fastbins, c);
}

static void bad_next(struct heapfix *f, struct glibc_walk_in *in)
{
	poke(f, f->main_arena + in->lay.ms_next, 0x4141414141414140ull);
}

static void bad_mp(struct heapfix *f, struct glibc_walk_in *in)
{
	(void)f;
	in->mp = 0x10;
}

/* mp_.sbrk_base below [heap] (no span of it) */
static void bad_sbrk(struct heapfix *f, struct glibc_walk_in *in)
{
	poke(f, f->mp + in->lay.mp_sbrk_base, sbrk_base(f) - 4096);
}

/* mp_.sbrk_base inside [heap] but in the middle of a chunk: allowed (a
 * program may move the break before glibc's first sbrk), so the walk
 * starts there and meets what is no chunk header */
static void mid_sbrk(struct heapfix *f, struct glibc_walk_in *in)
{
	poke(f, f->mp + in->lay.mp_sbrk_base, sbrk_base(f) + 4096 + 8);
}

static void test_noise(struct heapfix *f)
{
	unsigned char *save = malloc(f->bloblen);
	struct glibc_walk_in in;
	uint32_t seed = tap_seed(12345);
	uint64_t most = 0;
	int round, partial = 0;

	memcpy(save, f->blob, f->bloblen);
	heapfix_input(f, &in);
	for (round = 0; round < 300; round++) {
		struct glibc_walk_res r;
		int k;

		for (k = 0; k < 1 + round % 40; k++) {
			size_t at;
			uint64_t v;

			seed = seed * 1103515245u + 12345u;
			at = (seed >> 4) % (f->bloblen / 8) * 8;
			seed = seed * 1103515245u + 12345u;
			v = seed & 1 ? seed : (uint64_t)seed << 20 | (seed & 15);
			memcpy(f->blob + at, &v, 8);
		}
		if (walk(f, &in, &r) != 0)
			break;
		partial += r.partial[0] != 0;
		if (f->reads > most)
			most = f->reads;
		glibc_walk_fini(&r);
		memcpy(f->blob, save, f->bloblen);
	}
	ok(round == 300, "noise: 300 damaged images walked, %d marked partial, "
	   "at most %llu reads a walk",
	   partial, (unsigned long long)most);
	free(save);
}

static void test_versions(void)
{
	struct glibc_layout l;

	ok(glibc_layout_for(2, 36, &l) && l.heap_info_size == 0x30 &&
		   l.tc_chunk == 0x290 && l.safe_linking && l.mp_size == 136,
	   "2.36: heap_info 0x30, tcache chunk 0x290, safe-linking, mp_ 136");
	ok(glibc_layout_for(2, 27, &l) && l.tc_chunk == 0x250 &&
		   !l.safe_linking && l.tc_key == 0 && l.heap_info_size == 0x20,
	   "2.27: tcache chunk 0x250, no safe-linking, no key");
	ok(glibc_layout_for(2, 42, &l) && l.tc_chunk == 0x300 &&
		   l.tc_bins == 76 && l.tc_slots_left,
	   "2.42: 76 tcache bins counting free slots, chunk 0x300");
	ok(!glibc_layout_for(2, 26, &l) && !glibc_layout_for(2, 43, &l) &&
		   !glibc_layout_for(3, 0, &l),
	   "2.26, 2.43, 3.0: no layout (said, not guessed)");
}

static void test_unsupported_fixture(struct heapfix *f)
{
	struct glibc_walk_in in;

	f->minor = 43;
	ok(!heapfix_input(f, &in),
	   "fixture relabelled 2.43: the walker has no layout for it");
	f->minor = 36;
}

/* ---- the finder on this machine's libc ---- */

static bool libc_path(char *out, size_t n)
{
	FILE *fp = fopen("/proc/self/maps", "r");
	char line[4200];
	bool found = false;

	if (!fp)
		return false;
	while (!found && fgets(line, sizeof(line), fp)) {
		char *p = strchr(line, '/');

		if (p && strstr(p, "/libc.so")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(out, n, "%s", p);
			found = true;
		}
	}
	fclose(fp);
	return found;
}

static void test_finder(void)
{
	struct arena a;
	struct elfimage im, dbg;
	struct elfimage_src src, dsrc;
	struct glibc_layout lay;
	struct vms_error err;
	char path[4096], dpath[4300], why[200];
	uint64_t ma = 0, mp = 0, dma = 0, dmp = 0;
	unsigned maj = 0, min = 0, want_maj = 0, want_min = 0;
	int fd, dfd;

	if (!libc_path(path, sizeof(path)) ||
	    (fd = open(path, O_RDONLY)) < 0) {
		ok(1, "# SKIP no libc.so in /proc/self/maps");
		return;
	}
	arena_init(&a);
	ok(elfimage_src_fd(fd, &src, &err) == 0 &&
		   elfimage_read(&src, &a, &im, &err) == 0 && im.is_image,
	   "libc: read");
	ok(glibc_find_is_libc(&im, &src), "libc: defines gnu_get_libc_version");
	sscanf(gnu_get_libc_version(), "%u.%u", &want_maj, &want_min);
	ok(glibc_find_version(&im, &src, &maj, &min) && maj == want_maj &&
		   min == want_min,
	   "libc: release version %u.%u is gnu_get_libc_version() %s", maj,
	   min, gnu_get_libc_version());
	if (!glibc_layout_for(maj, min, &lay)) {
		ok(1, "# SKIP glibc %u.%u has no layout here", maj, min);
		goto out;
	}
	ok(glibc_find_in_file(&im, &src, &lay, &ma, &mp, why, sizeof(why)),
	   "libc: main_arena 0x%llx and mp_ 0x%llx from the file alone (%s)",
	   (unsigned long long)ma, (unsigned long long)mp,
	   glibc_find_in_file(&im, &src, &lay, &ma, &mp, why, sizeof(why))
		   ? "found"
		   : why);
	snprintf(dpath, sizeof(dpath), "/usr/lib/debug/.build-id/%.2s/%s.debug",
		 im.build_id ? im.build_id : "xx",
		 im.build_id ? im.build_id + 2 : "");
	dfd = open(dpath, O_RDONLY);
	if (dfd < 0) {
		printf("ok - # SKIP no debug file %s\n", dpath);
	} else {
		ok(elfimage_src_fd(dfd, &dsrc, &err) == 0 &&
			   elfimage_read(&dsrc, &a, &dbg, &err) == 0 &&
			   glibc_find_debug(&dbg, &dsrc, im.build_id, &dma,
					    &dmp) &&
			   dma == ma && dmp == mp,
		   "libc: the debug file's symbols agree (main_arena 0x%llx, "
		   "mp_ 0x%llx)",
		   (unsigned long long)dma, (unsigned long long)dmp);
		ok(!glibc_find_debug(&dbg, &dsrc, "0000", &dma, &dmp),
		   "libc: a debug file of another build id is not used");
		close(dfd);
	}
	{
		/* the file cut at 64 KiB: headers, no tables nor data */
		unsigned char *cut = malloc(65536);
		struct elfimage ci;
		struct elfimage_src csrc;

		elfimage_src_read(&src, 0, cut, 65536);
		csrc = elfimage_src_buf(cut, 65536, false);
		ok(elfimage_read(&csrc, &a, &ci, &err) == 0 &&
			   !glibc_find_in_file(&ci, &csrc, &lay, &ma, &mp, why,
					       sizeof(why)) &&
			   why[0],
		   "libc cut at 64 KiB: nothing found, and why: %s", why);
		free(cut);
	}
out:
	arena_fini(&a);
	close(fd);
}

int main(void)
{
	char path[4200];
	unsigned char *buf;
	size_t len;
	struct heapfix f;

	test_versions();
	snprintf(path, sizeof(path), "%s/glibc236_small.heap", fixture_dir());
	if (!heapfix_read_file(path, &buf, &len) ||
	    !heapfix_load(buf, len, &f)) {
		ok(0, "fixture %s loads", path);
		return tap_done();
	}
	ok(!heapfix_load(buf, len / 2, &(struct heapfix){ 0 }) &&
		   !heapfix_load(buf, 20, &(struct heapfix){ 0 }),
	   "a fixture cut short is refused");
	test_exact(&f);
	test_blocks(&f);
	test_lists(&f);
	test_resident(&f);
	test_merged(&f);
	test_damage(&f, "a chunk size past the heap", bad_size,
		    "corrupt chunk header");
	test_damage(&f, "a fastbin that loops", fast_loop, "fastbin 0 loops");
	test_damage(&f, "main_arena.next garbage", bad_next,
		    "does not close at main_arena");
	test_damage(&f, "mp_ elsewhere", bad_mp, "mp_ at 0x10 cannot be read");
	test_damage(&f, "mp_.sbrk_base below [heap]", bad_sbrk,
		    "is not in [heap]");
	test_damage(&f, "mp_.sbrk_base in the middle of a chunk", mid_sbrk,
		    "arena");
	test_unsupported_fixture(&f);
	test_noise(&f);
	heapfix_free(&f);
	free(buf);
	test_finder();
	return tap_done();
}
