/* tracedb_priv.h — the aggregation's records, shared by its two files:
 * tracedb.c (what the events do to them) and tracedb_report.c (what a
 * window's report reads from them). Nothing else includes it.
 */
#ifndef VMS_TRACEDB_PRIV_H
#define VMS_TRACEDB_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/trace.h"

#define LIVE_EPOCH VMS_TRACE_ALIVE
/* Counts are kept in 1/1024ths of a block: a sampled block stands for a
 * fraction of blocks more than one (1 / 0.465 = 2.15 for 40 bytes every
 * 64), and rounding each to a whole one would lose 7% of them. */
#define ONE VMS_TRACE_ONE

struct stack {
	uint64_t hash;
	size_t off; /* into db->frames */
	uint32_t n;
};

struct site {
	uint32_t stack;
	uint8_t kind;
	/* by alloc and free epoch (f LIVE_EPOCH: alive), as a report
	 * keeps them (model/trace.h) */
	uint32_t ncells, capcells;
	struct vms_trace_cell *cells;
};

struct live {
	uint64_t addr; /* 0: empty */
	uint64_t size, t; /* size: the bytes it stands for (sampled: more) */
	uint32_t site, epoch;
	uint32_t count; /* the blocks it stands for: 1, more when sampled */
};

struct ltab {
	struct live *v; /* cap entries, a power of two; addr 0: empty */
	size_t n, cap;
};

struct range {
	uint64_t start, end, t;
	uint32_t site, epoch;
	uint32_t id; /* its allocation: a map unmapped in its middle is two
		      * ranges of one allocation */
};

struct rset {
	struct range *v;
	size_t n, cap;
};

/* A heap walked when the trace began (tracedb_before_*): its blocks
 * alive then, and their frees by epoch (cells (0, epoch)). */
struct before_heap {
	uint64_t id;
	char kind[24];
	uint64_t count, bytes;
	struct site freed;
};

struct tracedb {
	uint64_t *frames;
	size_t nframes, capframes;
	struct stack *stacks;
	size_t nstacks, capstacks;
	uint32_t *stack_tab; /* index + 1, 0: empty */
	size_t stack_cap; /* a power of two */
	struct site *sites;
	size_t nsites, capsites;
	uint32_t *site_tab; /* index + 1 */
	size_t site_cap;
	struct ltab live; /* the blocks alive */
	/* the live ranges, each set sorted and without overlaps: maps (mmap,
	 * mremap, brk), commits (mprotect made reserved pages accessible:
	 * inside a map's range, of another site), and the pages reserved
	 * now, PROT_NONE (site and epoch unused) */
	struct rset maps, commits, reserved;
	uint32_t range_ids;
	uint64_t *mark_ns;
	uint64_t *mark_nlog; /* nlog at each mark: the log up to it */
	unsigned nmarks;
	uint64_t events, unknown_frees;
	/* the newest VMS_TRACE_LOG events (made at the first), a ring:
	 * nlog counts every event logged */
	struct vms_trace_event *log;
	uint64_t nlog;
	int32_t tid; /* the thread of the events fed now */
	/* the blocks alive when the trace began, not freed yet (site: their
	 * heap's index in bheaps, count 1), empty unless walked */
	struct ltab before;
	struct before_heap *bheaps;
	size_t nbheaps;
	bool before_walked;
	char before_partial[640]; /* a refused capture's whole message */
};

#endif
