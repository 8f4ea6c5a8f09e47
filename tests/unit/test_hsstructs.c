/* test_hsstructs.c — hsstructs_heap() on a VMStructs table laid out in a
 * buffer as libjvm has it (JDK 17 x86-64: 48-byte entries, type name at
 * 0, field name 8, type string 16, isStatic 24, offset 32, address 40):
 * the heap's reservation read through Universe::_collectedHeap ->
 * CollectedHeap::_reserved; every way the table or the heap can be wrong
 * is a -1 with a reason, never a range. */
#include "analyze/runtimes/hsstructs.h"
#include "tap.h"

#include <stdint.h>
#include <string.h>

#define BASE 0x10000ull /* the buffer's address in the "target" */
#define SIZE 0x4000
#define PAGE 4096ull

static unsigned char mem[SIZE];
static size_t nstr = 0x3000; /* strings from here on */

static bool rd(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr < BASE || addr - BASE > SIZE || len > SIZE - (addr - BASE))
		return false;
	memcpy(buf, mem + (addr - BASE), len);
	return true;
}

static uint64_t str(const char *s)
{
	uint64_t at = BASE + nstr;

	memcpy(mem + nstr, s, strlen(s) + 1);
	nstr += strlen(s) + 1;
	return at;
}

static void put64(uint64_t addr, uint64_t v)
{
	memcpy(mem + (addr - BASE), &v, sizeof(v));
}

/* Entry i of the table at BASE. */
static void entry(int i, const char *type, const char *field, int32_t st,
		  uint64_t offset, uint64_t address)
{
	uint64_t e = BASE + (uint64_t)i * 48;

	put64(e, type ? str(type) : 0);
	put64(e + 8, field ? str(field) : 0);
	put64(e + 16, str("T"));
	memcpy(mem + (e + 24 - BASE), &st, sizeof(st));
	put64(e + 32, offset);
	put64(e + 40, address);
}

static const struct hsstructs_layout L = { BASE, 48, 0, 8, 24, 32, 40 };
#define HEAP_PTR (BASE + 0x2000) /* Universe::_collectedHeap */
#define HEAP (BASE + 0x2100) /* the CollectedHeap */

static void table(uint64_t start, uint64_t words)
{
	memset(mem, 0, sizeof(mem));
	nstr = 0x3000;
	entry(0, "Klass", "_name", 0, 0x10, 0);
	entry(1, "MemRegion", "_start", 0, 0, 0);
	entry(2, "MemRegion", "_word_size", 0, 8, 0);
	entry(3, "CollectedHeap", "_total_collections", 0, 0x40, 0);
	entry(4, "CollectedHeap", "_reserved", 0, 0x20, 0);
	entry(5, "Universe", "_collectedHeap", 1, 0, HEAP_PTR);
	entry(6, NULL, NULL, 0, 0, 0);
	put64(HEAP_PTR, HEAP);
	put64(HEAP + 0x20, start);
	put64(HEAP + 0x28, words);
}

int main(void)
{
	struct hsstructs_layout l = L;
	uint64_t start = 0, end = 0;
	const char *why = NULL;

	table(0xe0000000, (512ull << 20) / 8);
	ok(hsstructs_heap(&L, rd, NULL, PAGE, &start, &end, &why) == 0 &&
		   start == 0xe0000000 && end == 0x100000000,
	   "the heap's reservation: %#llx-%#llx", (unsigned long long)start,
	   (unsigned long long)end);
	put64(HEAP_PTR, 0);
	ok(hsstructs_heap(&L, rd, NULL, PAGE, &start, &end, &why) < 0 &&
		   strstr(why, "no heap yet"),
	   "no heap yet (null Universe::_collectedHeap): %s", why);
	table(0xe0000800, 1024);
	ok(hsstructs_heap(&L, rd, NULL, PAGE, &start, &end, &why) < 0 &&
		   strstr(why, "range of pages"),
	   "a heap not page-aligned: %s", why);
	table(0xe0000000, 0);
	ok(hsstructs_heap(&L, rd, NULL, PAGE, &start, &end, &why) < 0,
	   "an empty heap: %s", why);
	table(0x7ffffff00000, 1ull << 40);
	ok(hsstructs_heap(&L, rd, NULL, PAGE, &start, &end, &why) < 0,
	   "a heap past the user range: %s", why);
	table(0xe0000000, 1024);
	entry(4, "CollectedHeap", "_reservedX", 0, 0x20, 0);
	entry(6, NULL, NULL, 0, 0, 0);
	ok(hsstructs_heap(&L, rd, NULL, PAGE, &start, &end, &why) < 0 &&
		   strstr(why, "no Universe::_collectedHeap"),
	   "a table without CollectedHeap::_reserved: %s", why);
	table(0xe0000000, 1024);
	entry(5, "Universe", "_collectedHeap", 0, 0, HEAP_PTR);
	ok(hsstructs_heap(&L, rd, NULL, PAGE, &start, &end, &why) < 0 &&
		   strstr(why, "no Universe::_collectedHeap"),
	   "Universe::_collectedHeap not static: not it: %s", why);
	table(0xe0000000, 1024);
	l.stride = 16;
	ok(hsstructs_heap(&l, rd, NULL, PAGE, &start, &end, &why) < 0 &&
		   strstr(why, "layout"),
	   "a stride shorter than its fields: %s", why);
	l = L;
	l.address = 48;
	ok(hsstructs_heap(&l, rd, NULL, PAGE, &start, &end, &why) < 0,
	   "a field offset past the stride: %s", why);
	/* no end marker: the walk stops where memory ends */
	table(0xe0000000, 1024);
	memset(mem + 6 * 48, 0x41, SIZE - 6 * 48);
	entry(5, "Universe", "_other", 1, 0, HEAP_PTR);
	ok(hsstructs_heap(&L, rd, NULL, PAGE, &start, &end, &why) < 0,
	   "a table without its end, nor the entry: bounded: %s", why);
	return tap_done();
}
