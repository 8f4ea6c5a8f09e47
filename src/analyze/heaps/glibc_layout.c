/* glibc_layout.c — where glibc malloc keeps its fields, version by
 * version (glibc_walk.h). Offsets are for LP64 (SIZE_SZ 8, pointers 8,
 * int 4), read from glibc's malloc/malloc.c and malloc/arena.c at each
 * release tag and checked on 2.36 against the debug information of
 * Debian's libc6-dbg (ptype/o):
 *  - struct malloc_state: 2.27 adds int have_fastchunks (top 0x58 -> 0x60);
 *    unchanged to 2.42 (2.43 removes the fastbins: not known here);
 *  - struct malloc_par: 2.35 adds thp_pagesize, hp_pagesize, hp_flags
 *    before n_mmaps; 2.42 renames tcache_bins (same place);
 *  - heap_info: 2.35 adds pagesize: 0x20 -> 0x30;
 *  - safe-linking of fastbin and tcache links from 2.32;
 *  - tcache_perthread_struct: char counts[64] to 2.29, uint16_t from 2.30,
 *    uint16_t num_slots[76] (free slots left) in 2.42; tcache_entry gets a
 *    key in 2.29 (the tcache itself), random tcache_key from 2.34.
 */
#include <string.h>

#include "analyze/heaps/glibc_walk.h"

bool glibc_layout_for(unsigned major, unsigned minor, struct glibc_layout *l)
{
	unsigned tc_struct;

	memset(l, 0, sizeof(*l));
	if (major != 2 || minor < 27 || minor > 42)
		return false;
	l->major = major;
	l->minor = minor;
	l->ms_fastbins = 0x10;
	l->ms_top = 0x60;
	l->ms_bins = 0x70;
	l->ms_next = 0x870;
	l->ms_system_mem = 0x888;
	l->ms_size = 0x898;
	if (minor >= 35) {
		l->mp_hp_pagesize = 48;
		l->mp_n_mmaps = 60;
		l->mp_mmapped_mem = 80;
		l->mp_sbrk_base = 96;
		l->mp_tcache_bins = 104;
		l->mp_tcache_count = 120;
		l->mp_size = 136;
		l->heap_info_size = 0x30;
	} else {
		l->mp_n_mmaps = 40;
		l->mp_mmapped_mem = 56;
		l->mp_sbrk_base = 72;
		l->mp_tcache_bins = 80;
		l->mp_tcache_count = 96;
		l->mp_size = 112;
		l->heap_info_size = 0x20;
	}
	l->safe_linking = minor >= 32;
	l->tc_bins = minor >= 42 ? 76 : 64;
	l->tc_count_size = minor >= 30 ? 2 : 1;
	l->tc_key = minor >= 34 ? 2 : minor >= 29 ? 1 : 0;
	l->tc_slots_left = minor >= 42;
	tc_struct = l->tc_bins * (l->tc_count_size + 8);
	/* request2size: + SIZE_SZ, rounded up to MALLOC_ALIGNMENT */
	l->tc_chunk = (tc_struct + 8 + 15) & ~15u;
	return true;
}

static void put64(unsigned char *want, unsigned char *mask, unsigned off,
		  uint64_t v)
{
	memcpy(want + off, &v, 8);
	memset(mask + off, 0xff, 8);
}

static void put32(unsigned char *want, unsigned char *mask, unsigned off,
		  uint32_t v)
{
	memcpy(want + off, &v, 4);
	memset(mask + off, 0xff, 4);
}

size_t glibc_mp_initialiser(const struct glibc_layout *lay, unsigned char *want,
			    unsigned char *mask)
{
	/* static struct malloc_par mp_ = { .top_pad = DEFAULT_TOP_PAD,
	 * .n_mmaps_max = DEFAULT_MMAP_MAX, .mmap_threshold, .trim_threshold
	 * = 128 KiB, .arena_test = NARENAS_FROM_NCORES (1), .tcache_count =
	 * 7, .tcache_bins = 64, .tcache_max_bytes = tidx2usize (63) }: the
	 * rest zero. top_pad is left out (a distribution may change it). */
	memset(want, 0, lay->mp_size);
	memset(mask, 0xff, lay->mp_size);
	memset(mask + 8, 0, 8); /* top_pad */
	put64(want, mask, 0, 128 * 1024); /* trim_threshold */
	put64(want, mask, 16, 128 * 1024); /* mmap_threshold */
	put64(want, mask, 24, 8); /* arena_test */
	put32(want, mask, lay->mp_n_mmaps + 4, 65536); /* n_mmaps_max */
	put64(want, mask, lay->mp_tcache_bins, 64);
	put64(want, mask, lay->mp_tcache_bins + 8, 1032); /* max bytes */
	put64(want, mask, lay->mp_tcache_count, 7);
	/* the hole after no_dyn_threshold (2.35 on) is not the compiler's
	 * to fill */
	if (lay->mp_mmapped_mem - lay->mp_n_mmaps == 20)
		memset(mask + lay->mp_n_mmaps + 16, 0, 4);
	return lay->mp_size;
}

unsigned glibc_hist_bucket(uint64_t sz)
{
	unsigned b = 0;

	sz >>= 6; /* [32, 64) -> 0 */
	while (sz && b < GLIBC_HIST - 1) {
		sz >>= 1;
		b++;
	}
	return b;
}
