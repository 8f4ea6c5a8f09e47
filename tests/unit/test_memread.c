/* test_memread — memread_read_each (linux/memread.h) against memread_read
 * piece by piece, on this process's own memory (a mapping the test makes,
 * every third page written, the rest never touched, and a second mapping
 * 600 pages past it: pieces beyond one read of pagemap):
 *  - each piece read where all its pages are in RAM, with the bytes
 *    written there; not read (ok 0) where one of its pages is not, as
 *    memread_read's short read says;
 *  - a piece across a written and an unwritten page: not read;
 *  - the untouched pages still not in RAM after the reads (mincore: the
 *    reads built no page). The mapping without huge pages
 *    (MADV_NOHUGEPAGE);
 *  - memread_pages: a huge page written after the reader was opened
 *    (the zero page's frames found then), each of its pages present.
 *    Where a read of memory never written is not a zero page
 *    (transparent_hugepage/use_zero_page 0: test_zero_frames runs this
 *    so), the frames the reader took for the huge zero page were a
 *    real huge page, freed at once: the next one made on this CPU is
 *    likely those frames, and its pages counted absent.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "linux/memread.h"
#include "model/source.h"
#include "tap.h"

enum { PAGES = 64, FAR = 600, PIECE = 48, MAXP = 512 };

/* Zeros on the stack below the caller's frame. */
__attribute__((noinline)) static void stack_zeroed(void)
{
	volatile unsigned char z[16384];
	size_t i;

	for (i = 0; i < sizeof(z); i++)
		z[i] = 0;
}

int main(void)
{
	const size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *m = mmap(NULL, (FAR + PAGES) * ps, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *far = m + FAR * ps;
	static uint64_t addr[MAXP];
	static unsigned char got[MAXP * PIECE], one[PIECE], okv[MAXP];
	unsigned char inram[PAGES];
	struct memread r;
	struct vms_error e;
	size_t n = 0, i, bad = 0, read = 0, unread = 0;

	ok(m != MAP_FAILED, "a mapping of %d pages", FAR + PAGES);
	if (m == MAP_FAILED)
		return tap_done();
	/* no huge page: a written page must not bring its neighbours */
	madvise(m, (FAR + PAGES) * ps, MADV_NOHUGEPAGE);
	for (i = 0; i < PAGES; i += 3) {
		memset(m + i * ps, (int)(i + 1), ps);
		memset(far + i * ps, (int)(i + 101), ps);
	}
	/* pieces at three offsets a page, one across the page's end */
	for (i = 0; i < PAGES; i++) {
		addr[n++] = (uint64_t)(uintptr_t)(m + i * ps);
		addr[n++] = (uint64_t)(uintptr_t)(m + i * ps + 1000);
		addr[n++] = (uint64_t)(uintptr_t)(m + (i + 1) * ps - PIECE / 2);
	}
	for (i = 0; i < PAGES; i++)
		addr[n++] = (uint64_t)(uintptr_t)(far + i * ps + 16);
	ok(memread_open(&r, getpid(), &e) == 0, "this process's memory opened");
	ok(memread_read_each(&r, addr, n, PIECE, got, okv, &e) == 0,
	   "%zu pieces read", n);
	for (i = 0; i < n; i++) {
		ssize_t g = memread_read(&r, addr[i], one, PIECE, &e);
		bool all = g == PIECE;

		if (all != !!okv[i] ||
		    (all && (memcmp(one, got + i * PIECE, PIECE) != 0 ||
			     memcmp(one, (void *)(uintptr_t)addr[i], PIECE) !=
				     0)))
			bad++;
		read += okv[i] != 0;
		unread += !okv[i];
	}
	ok(bad == 0, "each piece as memread_read has it (%zu read, %zu not, "
		     "%zu differ)",
	   read, unread, bad);
	/* written pages: 22 of 64 in each mapping; a piece within one read,
	 * the one across its end not (the next page is unwritten) */
	ok(read == 22 * 2 + 22 && unread == n - read,
	   "read: the two pieces within each written page and the far "
	   "mapping's written pages");
	{ /* out of order within one read of pagemap: a piece past the
	   * last one's pages (page 39) between two lower (pages 0 and 3),
	   * all written: each read, as memread_read has it. The stack the
	   * call's table of pages takes zeroed first: a page the table
	   * was not read for then says "not in RAM" */
		uint64_t odd[3] = { (uint64_t)(uintptr_t)m,
				    (uint64_t)(uintptr_t)(m + 39 * ps),
				    (uint64_t)(uintptr_t)(m + 3 * ps) };
		unsigned char oko[3];

		stack_zeroed();
		ok(memread_read_each(&r, odd, 3, PIECE, got, oko, &e) == 0 &&
			   oko[0] && oko[1] && oko[2] &&
			   memcmp(got + PIECE, m + 39 * ps, PIECE) == 0,
		   "pieces out of order: each read (%d %d %d)", oko[0],
		   oko[1], oko[2]);
	}
	ok(mincore(m, PAGES * ps, inram) == 0, "mincore");
	for (i = 0, bad = 0; i < PAGES; i++)
		bad += (i % 3 != 0) && (inram[i] & 1);
	ok(bad == 0, "no untouched page brought in by the reads");
	{
		const size_t huge = 2u << 20;
		unsigned char *hm = mmap(NULL, 2 * huge, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		unsigned char *h = (unsigned char *)(((uintptr_t)hm + huge -
						      1) &
						     ~(uintptr_t)(huge - 1));
		static unsigned char pg[512];
		size_t np = huge / ps, present = 0;

		ok(hm != MAP_FAILED, "a mapping for a huge page");
		if (hm != MAP_FAILED) {
			(void)madvise(h, huge, MADV_HUGEPAGE);
			memset(h, 7, huge);
			ok(np <= sizeof(pg) &&
				   memread_pages(&r, (uint64_t)(uintptr_t)h,
						 np, pg, &e) == 0,
			   "memread_pages on a written huge page");
			for (i = 0; i < np && i < sizeof(pg); i++)
				present += (pg[i] & VMS_PG_PRESENT) != 0;
			ok(present == np,
			   "each page of memory written after the reader "
			   "was opened is present (%zu of %zu)",
			   present, np);
			munmap(hm, 2 * huge);
		}
	}
	memread_close(&r);
	munmap(m, (FAR + PAGES) * ps);
	return tap_done();
}
