/* test_hsstructs.c — hsstructs_read() and hsstructs_heap() on a VMStructs
 * table laid out in a buffer as libjvm has it (JDK 17 x86-64: 48-byte
 * entries, type name at 0, field name 8, type string 16, isStatic 24,
 * offset 32, address 40): the heap's reservation read through
 * Universe::_collectedHeap -> CollectedHeap::_reserved; every way the
 * table or the heap can be wrong is a -1 with a reason, never a range.
 * G1's entries under the names of JDK 17 and of JDK 23 on (G1HeapRegion,
 * G1HeapRegionManager, _is_stw_gc_active), entries sharing their type's
 * name (as the compiler merges the literals), a name of the right type
 * and the wrong staticness not taken. */
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

/* hsstructs_read() then hsstructs_heap(). */
static int heap_of(const struct hsstructs_layout *l, uint64_t *start,
		   uint64_t *end, const char **why)
{
	struct hsstructs t;
	uint64_t heap;

	if (hsstructs_read(l, rd, NULL, PAGE, &t, why) < 0)
		return -1;
	return hsstructs_heap(&t, rd, NULL, PAGE, &heap, start, end, why);
}

/* Entry i with type name at tn (shared with an entry before it). */
static void entry_tn(int i, uint64_t tn, const char *field, int32_t st,
		     uint64_t offset, uint64_t address)
{
	uint64_t e = BASE + (uint64_t)i * 48;

	put64(e, tn);
	put64(e + 8, str(field));
	put64(e + 16, str("T"));
	memcpy(mem + (e + 24 - BASE), &st, sizeof(st));
	put64(e + 32, offset);
	put64(e + 40, address);
}

static void g1_names(void)
{
	struct hsstructs t;
	const char *why = NULL;
	uint64_t tn;

	/* JDK 17's names, HeapRegion's entries sharing one type name */
	table(0xe0000000, 1024);
	entry(6, "G1CollectedHeap", "_hrm", 0, 304, 0);
	entry(7, "HeapRegionManager", "_regions", 0, 96, 0);
	entry(8, "G1HeapRegionTable", "_base", 0, 16, 0);
	entry(9, "G1HeapRegionTable", "_length", 0, 24, 0);
	entry(10, "HeapRegion", "GrainBytes", 1, 0, BASE + 0x2800);
	tn = BASE + 0x3000 - 0x100;
	memcpy(mem + (tn - BASE), "HeapRegion", 11);
	entry(11, "HeapRegion", "_top", 1, 0, 0x1234); /* static: not it */
	entry_tn(12, tn, "_bottom", 0, 0, 0);
	entry_tn(13, tn, "_top", 0, 16, 0);
	entry_tn(14, tn, "_end", 0, 8, 0);
	entry(15, "CollectedHeap", "_is_gc_active", 0, 48, 0);
	entry(16, NULL, NULL, 0, 0, 0);
	ok(hsstructs_read(&L, rd, NULL, PAGE, &t, &why) == 0 &&
		   t.have[HS_G1_HRM] && t.at[HS_G1_HRM] == 304 &&
		   t.at[HS_HRM_REGIONS] == 96 && t.at[HS_TABLE_BASE] == 16 &&
		   t.at[HS_TABLE_LENGTH] == 24 &&
		   t.at[HS_HR_GRAIN] == BASE + 0x2800 &&
		   t.at[HS_HR_BOTTOM] == 0 && t.at[HS_HR_TOP] == 16 &&
		   t.at[HS_HR_END] == 8 && t.at[HS_HEAP_GC_ACTIVE] == 48 &&
		   t.at[HS_HEAP_COLLECTIONS] == 0x40 &&
		   t.have[HS_UNIVERSE_HEAP],
	   "JDK 17's G1 entries, HeapRegion's sharing their type's name, "
	   "a static of a field's name not taken");
	/* JDK 23 on: G1HeapRegion, G1HeapRegionManager, _is_stw_gc_active */
	table(0xe0000000, 1024);
	entry(6, "G1HeapRegionManager", "_regions", 0, 88, 0);
	entry(7, "G1HeapRegion", "GrainBytes", 1, 0, BASE + 0x2800);
	entry(8, "G1HeapRegion", "_top", 0, 16, 0);
	entry(9, "CollectedHeap", "_is_stw_gc_active", 0, 64, 0);
	entry(10, "HeapRegion", "_bottom", 0, 0, 0);
	entry(11, NULL, NULL, 0, 0, 0);
	ok(hsstructs_read(&L, rd, NULL, PAGE, &t, &why) == 0 &&
		   t.at[HS_HRM_REGIONS] == 88 &&
		   t.at[HS_HR_GRAIN] == BASE + 0x2800 &&
		   t.at[HS_HR_TOP] == 16 && t.at[HS_HEAP_GC_ACTIVE] == 64 &&
		   t.have[HS_HR_BOTTOM] && !t.have[HS_G1_HRM] &&
		   !t.have[HS_HR_END],
	   "JDK 23's G1 names taken too; what the table lacks is not had");
}

int main(void)
{
	struct hsstructs_layout l = L;
	uint64_t start = 0, end = 0;
	const char *why = NULL;

	table(0xe0000000, (512ull << 20) / 8);
	ok(heap_of(&L, &start, &end, &why) == 0 &&
		   start == 0xe0000000 && end == 0x100000000,
	   "the heap's reservation: %#llx-%#llx", (unsigned long long)start,
	   (unsigned long long)end);
	put64(HEAP_PTR, 0);
	ok(heap_of(&L, &start, &end, &why) < 0 &&
		   strstr(why, "no heap yet"),
	   "no heap yet (null Universe::_collectedHeap): %s", why);
	table(0xe0000800, 1024);
	ok(heap_of(&L, &start, &end, &why) < 0 &&
		   strstr(why, "range of pages"),
	   "a heap not page-aligned: %s", why);
	table(0xe0000000, 0);
	ok(heap_of(&L, &start, &end, &why) < 0,
	   "an empty heap: %s", why);
	table(0x7ffffff00000, 1ull << 40);
	ok(heap_of(&L, &start, &end, &why) < 0,
	   "a heap past the user range: %s", why);
	table(0xe0000000, 1024);
	entry(4, "CollectedHeap", "_reservedX", 0, 0x20, 0);
	entry(6, NULL, NULL, 0, 0, 0);
	ok(heap_of(&L, &start, &end, &why) < 0 &&
		   strstr(why, "no Universe::_collectedHeap"),
	   "a table without CollectedHeap::_reserved: %s", why);
	table(0xe0000000, 1024);
	entry(5, "Universe", "_collectedHeap", 0, 0, HEAP_PTR);
	ok(heap_of(&L, &start, &end, &why) < 0 &&
		   strstr(why, "no Universe::_collectedHeap"),
	   "Universe::_collectedHeap not static: not it: %s", why);
	table(0xe0000000, 1024);
	l.stride = 16;
	ok(heap_of(&l, &start, &end, &why) < 0 &&
		   strstr(why, "layout"),
	   "a stride shorter than its fields: %s", why);
	l = L;
	l.address = 48;
	ok(heap_of(&l, &start, &end, &why) < 0,
	   "a field offset past the stride: %s", why);
	/* no end marker: the walk stops where memory ends */
	table(0xe0000000, 1024);
	memset(mem + 6 * 48, 0x41, SIZE - 6 * 48);
	entry(5, "Universe", "_other", 1, 0, HEAP_PTR);
	ok(heap_of(&L, &start, &end, &why) < 0,
	   "a table without its end, nor the entry: bounded: %s", why);
	g1_names();
	return tap_done();
}
