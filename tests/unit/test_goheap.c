/* test_goheap.c — the Go span walk (goheap.h) over a memory image built
 * here with Go 1.19's layout (the offsets the DWARF of Debian's go 1.19
 * gives; tests/live/test_go.py reads them from a real program and ties
 * the walk to its runtime.MemStats): spans in use, large, manual (stacks),
 * dead, outside the ranges, damaged, unreadable; allspans itself unsane;
 * and goheap_layout_fd() on files without Go's DWARF, which must say why.
 * Without DWARF: the version from .go.buildinfo's bytes (recorded from
 * goheap's build), the layouts kept by version, allspans found among a
 * program's words (decoys refused, two candidates refused).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fixtures/goheap_go119.h"
#include "tap.h"

#define L119 goheap_go119

/* The image: the mheap's allspans header, the pointer array, the spans. */
#define HEAP_AT 0x547660ull
#define ARRAY_AT 0x7f0000000000ull
#define SPANS_AT 0x7f0000100000ull
#define NSPANS 16
#define A 0xc000000000ull /* range a: 64 MiB */
#define B 0xc004000000ull /* range b: 64 MiB */

static unsigned char heap_hdr[16];
static uint64_t array[NSPANS];
#define DECOY_AT 0x7f0000010000ull /* another slice's elements */
static uint64_t decoy[8];
/* room for 64: a 4 KiB block read over the first spans comes whole */
static unsigned char spans[64][144];
static uint64_t unreadable_at; /* a span there reads as missing */

static bool copy_from(uint64_t a, size_t len, uint64_t at, const void *b,
		      size_t n, void *buf)
{
	if (a < at || a - at > n || len > n - (a - at))
		return false;
	memcpy(buf, (const unsigned char *)b + (a - at), len);
	return true;
}

static bool rd(void *ctx, uint64_t a, void *buf, size_t len)
{
	(void)ctx;
	if (unreadable_at && a <= unreadable_at && unreadable_at < a + len)
		return false;
	return copy_from(a, len, HEAP_AT + L119.allspans, heap_hdr,
			 sizeof(heap_hdr), buf) ||
	       copy_from(a, len, ARRAY_AT, array, sizeof(array), buf) ||
	       copy_from(a, len, DECOY_AT, decoy, sizeof(decoy), buf) ||
	       copy_from(a, len, SPANS_AT, spans, sizeof(spans), buf);
}

static void span(size_t i, uint8_t state, uint64_t start, uint64_t npages,
		 uint64_t elemsize, uint16_t count)
{
	unsigned char *b = spans[i];

	memset(b, 0, 144);
	b[L119.state] = state;
	memcpy(b + L119.start, &start, 8);
	memcpy(b + L119.npages, &npages, 8);
	memcpy(b + L119.elemsize, &elemsize, 8);
	memcpy(b + L119.alloc_count, &count, 2);
}

static void header(uint64_t arr, uint64_t len)
{
	memcpy(heap_hdr, &arr, 8);
	memcpy(heap_hdr + 8, &len, 8);
}

static int walk(struct goheap_range *r, size_t n, struct goheap_walk *w)
{
	return goheap_walk(&L119, HEAP_AT, rd, NULL, NULL, r, n, w);
}

/* The image of sound(): spans of every kind, allspans pointing to them. */
static void sound_image(void)
{
	size_t i;

	for (i = 0; i < NSPANS; i++)
		array[i] = SPANS_AT + i * 144;
	span(0, 1, A, 1, 48, 100); /* 4,800 of 8,192 */
	span(1, 1, A + 8192, 10, 81920, 1); /* a large object */
	span(2, 2, A + 90112, 4, 0, 0); /* a goroutine's stack */
	span(3, 0, A + 122880, 1, 48, 170); /* dead: not counted */
	span(4, 1, B, 2, 16, 1024); /* range b, full */
	span(5, 1, 0x7f0000200000ull, 1, 32, 3); /* in no range */
	span(6, 3, A, 1, 8, 1); /* another state: not counted */
	for (i = 7; i < NSPANS; i++)
		span(i, 0, 0, 0, 0, 0); /* dead, never written */
	/* one across a 4 KiB block: read whole, not from the block */
	span(28, 1, A + (1 << 20), 1, 64, 10);
	array[7] = SPANS_AT + 28 * 144;
	header(ARRAY_AT, NSPANS);
}

static void sound(void)
{
	struct goheap_range r[2] = { { A, A + (64 << 20), { 0 } },
				     { B, B + (64 << 20), { 0 } } };
	struct goheap_walk w;

	sound_image();
	ok(walk(r, 2, &w) == 0 && !w.why && w.nspans == NSPANS && !w.bad &&
		   !w.unread,
	   "sound spans: walked, %llu spans, nothing bad or unread",
	   (unsigned long long)w.nspans);
	ok(w.all.heap_alloc == 4800 + 81920 + 16384 + 96 + 640 &&
		   w.all.heap_inuse == 8192 * (1 + 10 + 2 + 1 + 1) &&
		   w.all.objects == 100 + 1 + 1024 + 3 + 10 &&
		   w.all.stack_inuse == 4 * 8192 && w.all.spans == 6,
	   "sums: alloc %llu, inuse %llu, objects %llu, stacks %llu, spans "
	   "%llu",
	   (unsigned long long)w.all.heap_alloc,
	   (unsigned long long)w.all.heap_inuse,
	   (unsigned long long)w.all.objects,
	   (unsigned long long)w.all.stack_inuse,
	   (unsigned long long)w.all.spans);
	ok(r[0].sums.heap_alloc == 4800 + 81920 + 640 &&
		   r[0].sums.stack_inuse == 32768 && r[0].sums.spans == 4 &&
		   r[1].sums.heap_alloc == 16384 &&
		   r[1].sums.heap_inuse == 16384 && r[1].sums.spans == 1 &&
		   w.outside == 1 && w.outside_alloc == 96,
	   "per range: a %llu in use + %llu stacks, b %llu, one outside "
	   "(%llu bytes)",
	   (unsigned long long)r[0].sums.heap_alloc,
	   (unsigned long long)r[0].sums.stack_inuse,
	   (unsigned long long)r[1].sums.heap_alloc,
	   (unsigned long long)w.outside_alloc);
}

static void damaged(void)
{
	struct goheap_range r = { A, A + (64 << 20), { 0 } };
	struct goheap_walk w;

	span(0, 1, A + 100, 1, 48, 1); /* start not on a page */
	span(1, 1, A, 0, 48, 1); /* no pages */
	span(2, 1, A, 1, 0, 1); /* no element size */
	span(3, 1, A, 1, 48, 171); /* 171 x 48 > 8192 */
	span(4, 1, A, 1, 16384, 1); /* an element larger than the span */
	span(5, 1, ~0ull & ~8191ull, 2, 8192, 1); /* wraps the address space */
	span(6, 2, A, 1ull << 40, 0, 0); /* a stack of 2^53 bytes */
	span(7, 1, A, 1, 8192, 1); /* sound */
	array[7] = SPANS_AT + 7 * 144;
	array[8] = 0; /* a null pointer */
	array[9] = SPANS_AT + 9 * 144 + 4; /* misaligned */
	array[10] = 0x10; /* nowhere */
	header(ARRAY_AT, 11);
	ok(walk(&r, 1, &w) == 0 && w.bad == 9 && w.unread == 1 &&
		   w.all.spans == 1 && w.all.heap_alloc == 8192 && w.why,
	   "damaged spans counted bad (%llu), not counted; the sound one is "
	   "(%llu bytes); why: %s",
	   (unsigned long long)w.bad, (unsigned long long)w.all.heap_alloc,
	   w.why ? w.why : "(none)");
	array[8] = SPANS_AT + 8 * 144;
	array[9] = SPANS_AT + 9 * 144;
	array[10] = SPANS_AT + 10 * 144;
	span(8, 1, A, 1, 8, 1);
	unreadable_at = SPANS_AT + 8 * 144 + 50;
	ok(walk(&r, 1, &w) == 0 && w.unread == 1 && w.bad == 7,
	   "a span that cannot be read is unread, not bad");
	unreadable_at = ARRAY_AT + 8;
	ok(walk(&r, 1, &w) == 0 && w.unread == 11 && w.all.spans == 0,
	   "a pointer array that cannot be read: its spans unread");
	unreadable_at = 0;
}

static void insane(void)
{
	struct goheap_walk w;
	struct goheap_layout bad = L119;

	header(0, 5);
	ok(walk(NULL, 0, &w) < 0 && w.why, "allspans with no array: %s", w.why);
	header(ARRAY_AT + 4, 5);
	ok(walk(NULL, 0, &w) < 0, "allspans misaligned: refused");
	header(ARRAY_AT, GOHEAP_MAX_SPANS + 1ull);
	ok(walk(NULL, 0, &w) < 0, "allspans too long: refused");
	header(~0ull & ~7ull, 4);
	ok(walk(NULL, 0, &w) < 0, "allspans wrapping the address space: "
				  "refused");
	header(ARRAY_AT, 0);
	ok(walk(NULL, 0, &w) == 0 && w.nspans == 0 && !w.all.spans,
	   "no spans: nothing, no error");
	ok(goheap_walk(&L119, 0x1000, rd, NULL, NULL, NULL, 0, &w) < 0 && w.why,
	   "mheap_ unreadable: %s", w.why);
	span(0, 1, A, 1ull << 34, 8192, 1); /* 2^47 bytes each, sane alone */
	span(1, 1, A, 1ull << 34, 8192, 1);
	span(2, 1, A, 1ull << 34, 8192, 1);
	array[0] = SPANS_AT;
	array[1] = SPANS_AT + 144;
	array[2] = SPANS_AT + 2 * 144;
	header(ARRAY_AT, 3);
	ok(walk(NULL, 0, &w) < 0 && w.why && strstr(w.why, "address space"),
	   "spans adding up past the address space: refused (%s)",
	   w.why ? w.why : "");
	bad.state = 144;
	ok(goheap_walk(&bad, HEAP_AT, rd, NULL, NULL, NULL, 0, &w) < 0,
	   "a layout with a field past the span: refused");
}

static void layouts(const char *self)
{
	struct goheap_layout L;
	char why[200] = "";
	char path[] = "/tmp/vms-goheap-XXXXXX";
	int fd;

	/* this test, built with -g: DWARF, but no Go runtime in it */
	fd = open(self, O_RDONLY);
	ok(fd >= 0 && goheap_layout_fd(fd, &L, why, sizeof(why)) < 0 &&
		   strstr(why, "runtime.mspan"),
	   "a C program with DWARF: %s", why);
	if (fd >= 0)
		close(fd);
	fd = mkstemp(path);
	if (fd >= 0) {
		ok(write(fd, "not an ELF file\n", 16) == 16, "text written");
		why[0] = '\0';
		ok(goheap_layout_fd(fd, &L, why, sizeof(why)) < 0 &&
			   strstr(why, "not ELF"),
		   "a text file: %s", why);
		close(fd);
		unlink(path);
	}
}

/* .go.buildinfo's first bytes, from tests/targets/goheap.go built with
 * go 1.19.8 (readelf -x .go.buildinfo). */
static const unsigned char buildinfo[] = {
	0xff, 0x20, 0x47, 0x6f, 0x20, 0x62, 0x75, 0x69, 0x6c, 0x64, 0x69,
	0x6e, 0x66, 0x3a, 0x08, 0x02, 0,    0,	  0,	0,    0,    0,
	0,    0,    0,	  0,	0,    0,    0,	  0,	0,    0,    0x08,
	0x67, 0x6f, 0x31, 0x2e, 0x31, 0x39, 0x2e, 0x38, 0x98, 0x01, 0x30
};

/* One slice {DECOY_AT, 8, 8} whose elements are spans 40..47 as made
 * ready by the caller: found or not. */
static bool decoy_found(const struct goheap_layout *L,
			const struct goheap_range *r, size_t nr)
{
	uint64_t words[3] = { DECOY_AT, 8, 8 };
	const char *why;
	size_t i;

	for (i = 0; i < 8; i++)
		decoy[i] = SPANS_AT + (40 + i) * 144;
	return goheap_find_allspans(L, words, 3, 0x52d000, r, nr, rd, NULL,
				    &why) != 0;
}

/* Slices that are not allspans, each refused for its own reason; the
 * same slice with sound spans found (the control). */
static void decoys(const struct goheap_layout *L)
{
	struct goheap_range r = { A, A + (64 << 20), { 0 } };
	size_t i;

	for (i = 40; i < 48; i++)
		span(i, 0, 0, 0, 0, 0);
	span(40, 1, A, 1, 48, 100);
	ok(decoy_found(L, &r, 1), "decoy control: a slice of sound spans is "
				  "found");
	span(40, 0, 0, 0, 0, 0);
	ok(!decoy_found(L, NULL, 0), "a slice of dead spans only: refused");
	span(40, 3, A, 1, 48, 1);
	ok(!decoy_found(L, NULL, 0), "a span of state 3: refused");
	span(40, 1, A + 100, 1, 48, 1);
	ok(!decoy_found(L, NULL, 0), "an in-use span off its page: refused");
	span(40, 1, 0, 1, 48, 1);
	ok(!decoy_found(L, NULL, 0), "an in-use span at 0: refused");
	span(40, 1, B, 1, 48, 1);
	ok(!decoy_found(L, &r, 1) && decoy_found(L, NULL, 0),
	   "an in-use span outside the arenas given: refused (found "
	   "without them)");
	span(40, 1, A, 1, 48, 171);
	ok(!decoy_found(L, NULL, 0), "more objects than the span holds: "
				     "refused");
	span(40, 0, 0, 0, 0, 0);
}

static void without_dwarf(void)
{
	unsigned char b[sizeof(buildinfo)];
	struct goheap_layout L;
	uint64_t words[16] = { 0 }, at;
	const char *why;
	char v[32];
	size_t i;

	ok(goheap_buildinfo_version(buildinfo, sizeof(buildinfo), v,
				    sizeof(v)) &&
		   strcmp(v, "go1.19.8") == 0,
	   "buildinfo: %s", v);
	memcpy(b, buildinfo, sizeof(b));
	b[15] = 0; /* the older form: pointers to strings */
	ok(!goheap_buildinfo_version(b, sizeof(b), v, sizeof(v)),
	   "buildinfo of the pre-1.18 form: refused");
	memcpy(b, buildinfo, sizeof(b));
	b[32] = 0x7f; /* longer than what was read */
	ok(!goheap_buildinfo_version(b, sizeof(b), v, sizeof(v)) &&
		   !goheap_buildinfo_version(buildinfo, sizeof(buildinfo), v,
					     8) &&
		   !goheap_buildinfo_version(buildinfo, 20, v, sizeof(v)),
	   "buildinfo longer than the bytes or the room: refused");
	memset(b + 32, 0xff, sizeof(b) - 32); /* a varint that never ends */
	ok(!goheap_buildinfo_version(b, sizeof(b), v, sizeof(v)),
	   "buildinfo with an endless varint: refused");
	ok(goheap_layout_known("go1.19.8", &L) &&
		   L.span_size == L119.span_size && L.state == L119.state &&
		   L.alloc_count == L119.alloc_count &&
		   L.elemsize == L119.elemsize && !L.allspans,
	   "go1.19.8: the layout kept is the one its DWARF gives");
	ok(!goheap_layout_known("go1.190", &L) &&
		   !goheap_layout_known("go1.20.1", &L) &&
		   !goheap_layout_known("", &L),
	   "other versions: not known, not guessed");

	/* the program's words: a decoy slice (to no spans), one whose len
	 * passes its cap, then allspans at word 9 */
	sound_image();
	span(6, 0, 0, 0, 0, 0); /* no state 3 in a real Go: dead */
	words[1] = ARRAY_AT + 8 * NSPANS; /* past the pointers: unreadable */
	words[2] = 4;
	words[3] = 4;
	words[5] = ARRAY_AT;
	words[6] = 5;
	words[7] = 4;
	words[9] = ARRAY_AT;
	words[10] = NSPANS;
	words[11] = NSPANS;
	goheap_layout_known("go1.19.8", &L);
	at = goheap_find_allspans(&L, words, 16, 0x52d000, NULL, 0, rd, NULL,
				  &why);
	ok(at == 0x52d000 + 8 * 9, "allspans found at word 9 (%llx)",
	   (unsigned long long)at);
	decoys(&L);
	for (i = 12; i < 15; i++)
		words[i] = words[i - 3];
	ok(!goheap_find_allspans(&L, words, 16, 0x52d000, NULL, 0, rd, NULL,
				 &why) &&
		   why && strstr(why, "two"),
	   "two slices that read as allspans: refused (%s)", why ? why : "");
	memset(words, 0, sizeof(words));
	ok(!goheap_find_allspans(&L, words, 16, 0x52d000, NULL, 0, rd, NULL,
				 &why) &&
		   why,
	   "none: %s", why ? why : "");
}

int main(int argc, char **argv)
{
	(void)argc;
	sound();
	damaged();
	insane();
	layouts(argv[0]);
	without_dwarf();
	return tap_done();
}
