/* hsstructs.h — HotSpot's own table of its structures (VMStructs), read
 * from a JVM's memory: where the JVM reserved its Java heap, and the
 * offsets of what a G1 heap's regions say (hsg1.h), by its own account,
 * as the Serviceability Agent (jhsdb) reads them from outside.
 *
 * libjvm.so exports (.dynsym, every HotSpot since JDK 6, kept for the SA:
 * openjdk src/hotspot/share/runtime/vmStructs.cpp) gHotSpotVMStructs, a
 * pointer to an array of entries { typeName, fieldName, typeString,
 * isStatic, offset, address } ended by a NULL typeName, and the entries'
 * layout itself: gHotSpotVMStructEntryArrayStride and the
 * gHotSpotVMStructEntry{TypeName,FieldName,IsStatic,Offset,Address}Offset
 * longs. The heap is Universe::_collectedHeap (static, a CollectedHeap*)
 * -> CollectedHeap::_reserved (a MemRegion { HeapWord* _start; size_t
 * _word_size }): the whole reservation, for every collector (G1, Parallel,
 * Serial, Shenandoah, Z: all set it in initialize_reserved_region). A
 * HeapWord is a pointer's size: 8 bytes (vmscope reads 64-bit targets).
 *
 * Contract: hsstructs_read() takes the values of those exported longs
 * (read by the caller from the target's memory) and a reader of the
 * target's memory, and walks the table once for every entry of enum
 * hsstructs_entry; it never trusts what it reads: the stride and offsets
 * are checked against each other, the walk is bounded (HSSTRUCTS_MAX
 * entries), names are compared within HSSTRUCTS_NAME bytes, an entry is
 * taken only when static where it should be (and not where not). 0 with
 * *t (what the table lacks: have[] false), or -1 with *why (a static
 * string). hsstructs_heap() then reads the heap: its CollectedHeap* and
 * its reservation, which must be non-empty, page-aligned and below 2^47.
 * 0, or -1 with *why.
 */
#ifndef VMS_HSSTRUCTS_H
#define VMS_HSSTRUCTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HSSTRUCTS_MAX 20000 /* entries (JDK 17: 788; JDK 25: 585) */
#define HSSTRUCTS_NAME 64 /* longest name compared */

/* The exported longs, as the target holds them. */
struct hsstructs_layout {
	uint64_t table; /* gHotSpotVMStructs */
	uint64_t stride, type_name, field_name, is_static, offset, address;
};

/* The entries looked for: each the offset of a field in its type, or
 * (static) the address of a static. Names as dumped from the tables of
 * the JDK 17 (Debian 17.0.15) and JDK 25 (Temurin 25.0.3) on the machine
 * this was written on; where JDK 23 renamed G1's types (HeapRegion to
 * G1HeapRegion, HeapRegionManager to G1HeapRegionManager) and a field
 * (_is_gc_active to _is_stw_gc_active), either name is taken. */
enum hsstructs_entry {
	HS_UNIVERSE_HEAP, /* Universe::_collectedHeap (static) */
	HS_HEAP_RESERVED, /* CollectedHeap::_reserved (a MemRegion) */
	HS_REGION_START, /* MemRegion::_start */
	HS_REGION_WORDS, /* MemRegion::_word_size */
	HS_HEAP_GC_ACTIVE, /* CollectedHeap::_is_gc_active: a bool, true
			    * while a stop-the-world collection runs */
	HS_HEAP_COLLECTIONS, /* CollectedHeap::_total_collections: an
			      * unsigned int */
	HS_G1_HRM, /* G1CollectedHeap::_hrm (a HeapRegionManager, within) */
	HS_HRM_REGIONS, /* HeapRegionManager::_regions (a
			 * G1HeapRegionTable, within) */
	HS_TABLE_BASE, /* G1HeapRegionTable::_base: HeapRegion*[_length] */
	HS_TABLE_LENGTH, /* G1HeapRegionTable::_length: size_t */
	HS_HR_GRAIN, /* HeapRegion::GrainBytes (static, size_t; 0 unless
		      * the heap is G1's) */
	HS_HR_BOTTOM, /* HeapRegion::_bottom */
	HS_HR_TOP, /* HeapRegion::_top */
	HS_HR_END, /* HeapRegion::_end */
	HS_NENTRIES
};

/* What the table holds of them. */
struct hsstructs {
	uint64_t at[HS_NENTRIES]; /* the offset, or the static's address */
	bool have[HS_NENTRIES];
};

/* Reads len bytes of the target at addr: true when all came. */
typedef bool (*hsstructs_read_fn)(void *ctx, uint64_t addr, void *buf,
				  size_t len);

int hsstructs_read(const struct hsstructs_layout *l, hsstructs_read_fn rd,
		   void *ctx, uint64_t page, struct hsstructs *t,
		   const char **why);

/* *heap: the CollectedHeap*; [*start, *end): its reservation. */
int hsstructs_heap(const struct hsstructs *t, hsstructs_read_fn rd, void *ctx,
		   uint64_t page, uint64_t *heap, uint64_t *start,
		   uint64_t *end, const char **why);

#endif
