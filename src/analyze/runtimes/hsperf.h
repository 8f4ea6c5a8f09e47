/* hsperf.h — HotSpot's performance data file (hsperfdata), parsed from a
 * buffer: the JVM's own figures of its heap, as jstat reads them.
 *
 * Format (openjdk src/hotspot/share/runtime/perfMemory.hpp, version 2.0):
 * a 32-byte prologue (magic CA FE C0 C0 in that byte order, byte_order
 * 0 big / 1 little endian, major 2, minor 0, accessible, used, overflow,
 * mod_time_stamp, entry_offset, num_entries), then num_entries entries of
 * { entry_length, name_offset, vector_length (0: a scalar), data_type
 * ('J' a 64-bit long, 'B' a byte vector: strings), flags, units,
 * variability, data_offset }, each followed by its NUL-terminated name and
 * its data.
 *
 * Contract: hsperf_parse() takes the bytes of the file (any length, never
 * trusted: every offset and length is checked against the buffer and the
 * prologue's used size, the walk is bounded by num_entries and by the
 * buffer) and fills *out with the figures vmscope shows; it reads nothing
 * else. 0, or -1 with *err (VMS_ERR_FILE) saying what is wrong with the
 * bytes. Unknown entries are skipped; a figure the file lacks is -1. Names
 * are copied as the JVM wrote them, NUL-terminated and cut to the array:
 * they come from the target and are escaped where printed. The figures
 * are as the JVM reports them (G1 adds 8 bytes to its capacities).
 */
#ifndef VMS_HSPERF_H
#define VMS_HSPERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define HSPERF_GENS 4 /* sun.gc.generation.0 .. 3 */
#define HSPERF_SPACES 4 /* sun.gc.generation.N.space.0 .. 3 */
#define HSPERF_NAME 32

/* One space, or a figure group (metaspace): bytes, -1 when absent. */
struct hsperf_space {
	char name[HSPERF_NAME]; /* "eden", "s0", "old", ... ("" absent) */
	int64_t capacity, used, max;
};

struct hsperf_gen {
	char name[HSPERF_NAME]; /* "young", "new", "old" ("" absent) */
	int64_t capacity, max;
	uint32_t nspaces; /* spaces present: space[0 .. nspaces) */
	struct hsperf_space space[HSPERF_SPACES];
};

struct hsperf {
	uint8_t major, minor;
	bool accessible; /* the JVM has finished writing its prologue */
	uint32_t nentries; /* entries read */
	char policy[HSPERF_NAME]; /* sun.gc.policy.name: "GarbageFirst" */
	uint32_t ngens; /* generations present: gen[0 .. ngens) */
	struct hsperf_gen gen[HSPERF_GENS];
	struct hsperf_space metaspace, class_space;
};

int hsperf_parse(const void *buf, size_t len, struct hsperf *out,
		 struct vms_error *err);

/* The Java heap's maximum size as the file tells it: the sum of the
 * generations' maximum capacities (Serial, Parallel) in *sum, the largest
 * of them (G1: each generation may take the whole heap) in *largest; both
 * rounded down to page (G1 adds 8 bytes). 0 when not known. */
void hsperf_heap_max(const struct hsperf *h, uint64_t page, uint64_t *sum,
		     uint64_t *largest);

#endif
