/* hsstructs.h — HotSpot's own table of its structures (VMStructs), read
 * from a JVM's memory: where the JVM reserved its Java heap, by its own
 * account, as the Serviceability Agent (jhsdb) reads it from outside.
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
 * Contract: hsstructs_heap() takes the values of those exported longs
 * (read by the caller from the target's memory) and a reader of the
 * target's memory; it never trusts what it reads: the stride and offsets
 * are checked against each other, the walk is bounded (HSSTRUCTS_MAX
 * entries), names are compared within HSSTRUCTS_NAME bytes, the heap found
 * must be non-empty, page-aligned and below 2^47. 0 with [*start, *end),
 * or -1 with *why (a static string) saying what was missing.
 */
#ifndef VMS_HSSTRUCTS_H
#define VMS_HSSTRUCTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HSSTRUCTS_MAX 20000 /* entries (JDK 17: 788) */
#define HSSTRUCTS_NAME 64 /* longest name compared */

/* The exported longs, as the target holds them. */
struct hsstructs_layout {
	uint64_t table; /* gHotSpotVMStructs */
	uint64_t stride, type_name, field_name, is_static, offset, address;
};

/* Reads len bytes of the target at addr: true when all came. */
typedef bool (*hsstructs_read_fn)(void *ctx, uint64_t addr, void *buf,
				  size_t len);

int hsstructs_heap(const struct hsstructs_layout *l, hsstructs_read_fn rd,
		   void *ctx, uint64_t page, uint64_t *start, uint64_t *end,
		   const char **why);

#endif
