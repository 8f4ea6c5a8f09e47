/* hsg1.h — a G1 heap's used bytes by the JVM's own regions, read from its
 * memory through the offsets its VMStructs table gives (hsstructs.h).
 *
 * G1CollectedHeap::used() is _summary_bytes_used (the regions retired
 * from allocation, counted at collections and as each is retired) plus
 * what the regions being allocated in hold (G1Allocator's mutator
 * regions, their top - bottom): jcmd GC.heap_info prints it. hsperfdata
 * (jstat) has only the first part between collections. Each region's
 * used is its top - bottom (HeapRegion::used(); a free region's top is its
 * bottom, a humongous object's regions are filled to its end), so the sum
 * over the heap's regions is used() whenever no collection is under way
 * (during one, the regions collected and those copied into are both
 * counted until it ends).
 *
 * The regions: G1CollectedHeap::_hrm (a HeapRegionManager within the
 * heap) ::_regions (a G1HeapRegionTable within that): _base, an array of
 * _length HeapRegion* (NULL for a region never committed), _length the
 * reservation's size over HeapRegion::GrainBytes (a static, 0 unless the
 * heap is G1's). Region i's HeapRegion has _bottom = the reservation's
 * start + i * GrainBytes, _end = _bottom + GrainBytes, _top between.
 *
 * Contract: hsg1_used() never trusts what it reads: GrainBytes a power
 * of two from a page to 1 GiB dividing the reservation, at most
 * HSG1_MAX_REGIONS regions, _length exactly their number, every offset
 * bounded, every pointer checked, every region's _bottom and _end those
 * of its index and its _top between; one region that cannot be read or
 * says otherwise fails the whole (no partial sum). Reads are batched:
 * the pointers HSG1_CHUNK at a time, the HeapRegions sorted by address
 * and read in windows of up to HSG1_WINDOW bytes (each one alone through
 * the reader's each() where a window cannot be read whole); its memory
 * use is bounded (some 200 KiB) whatever the heap. still: the memory is
 * of one instant (a target held still, a clone, a core): read once, and
 * refused while a collection is under way (CollectedHeap::_is_gc_active).
 * Not still (a running target): the collection count
 * (CollectedHeap::_total_collections) and _is_gc_active are read before
 * and after the regions, which are taken only when no collection ran or
 * began meanwhile and every region read was as its index says (a region
 * being added to the table may not be yet), up to HSG1_TRIES times;
 * each region's top is then of
 * the instant it was read (the sum lies between used() at the walk's
 * start and at its end: tops only grow between collections).
 * Returns 0 with *used; 1 when the heap is not G1's (GrainBytes 0) or
 * that cannot be told (the table has no GrainBytes, or it cannot be
 * read), *why saying which; -1 with *why (a static string) when it is
 * G1's and its used cannot be read; -2 on out of memory.
 */
#ifndef VMS_HSG1_H
#define VMS_HSG1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/runtimes/hsstructs.h"

#define HSG1_MAX_REGIONS (1u << 22) /* G1 aims at 2048 */
#define HSG1_CHUNK 4096 /* pointers read at once */
#define HSG1_WINDOW 65536 /* bytes of HeapRegions read at once */
#define HSG1_TRIES 3

/* Reads len bytes at each of addr[0, n) (ascending) into buf + i * len:
 * ok[i] = 1 when all of piece i came, else 0. False when the reader
 * failed (not a piece: the source). */
typedef bool (*hsg1_each_fn)(void *ctx, const uint64_t *addr, size_t n,
			     size_t len, void *buf, unsigned char *ok);

struct hsg1_reader {
	hsstructs_read_fn read;
	hsg1_each_fn each;
	void *ctx;
};

/* heap: the CollectedHeap*; [start, end): its reservation (as
 * hsstructs_heap() read them). */
int hsg1_used(const struct hsstructs *t, const struct hsg1_reader *rd,
	      uint64_t heap, uint64_t start, uint64_t end, bool still,
	      uint64_t *used, const char **why);

#endif
