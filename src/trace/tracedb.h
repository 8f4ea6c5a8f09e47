/* tracedb.h — an allocation trace aggregated as it is read: the call sites
 * (each distinct stack and kind once), every allocation alive now with its
 * site, size and time, and, per site, the counts and bytes of what was
 * allocated and freed between the marks. Memory is bounded by the live
 * allocations, the call sites and the marks, never by the number of
 * events.
 *
 * Marks: mark 0 is the trace's start; tracedb_mark() adds one (a snapshot
 * taken while tracing) and returns its number; the end of the trace (now)
 * is an implicit last mark. An allocation made between mark i and i+1 is
 * "of epoch i"; freed in epoch j. For a window [mark a, mark b) every
 * allocation's impacting type (model/trace.h) follows from its two epochs,
 * so a site keeps one cell per (alloc epoch, free epoch) pair it has seen.
 *
 * The reader (tracer.h) feeds events in the order they happened across
 * threads (base/tracewire.h: sequence numbers). A free of an address no
 * live block has is counted (unknown_frees: allocated before the trace, or
 * its record dropped); an allocation at the address of a live block ends
 * that block (its free went by a path no interposer sees).
 *
 * Contract: times are ns since the trace began. Functions return -1 only
 * when out of memory. Not thread-safe: one reader.
 */
#ifndef VMS_TRACEDB_H
#define VMS_TRACEDB_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "model/trace.h"

struct tracedb;
struct tracesym;

struct tracedb *tracedb_new(void);
void tracedb_free(struct tracedb *db);

/* Interns a stack (frames innermost first) and returns its stack number
 * (frames only: the kind comes with each event), or -1. */
int64_t tracedb_stack(struct tracedb *db, const uint64_t *frames, unsigned n);

/* Events. stack: a number tracedb_stack() returned. */
int tracedb_alloc(struct tracedb *db, enum vms_trace_kind kind, uint32_t stack,
		  uint64_t addr, uint64_t size, uint64_t t);
/* A block recorded by sampling, standing for count / 1024 blocks of
 * bytes in all (the inverse of the chance it had to be taken). */
int tracedb_alloc_weighed(struct tracedb *db, enum vms_trace_kind kind,
			  uint32_t stack, uint64_t addr, uint64_t size,
			  uint32_t count, uint64_t bytes, uint64_t t);
/* A free of the malloc family. */
void tracedb_free_heap(struct tracedb *db, uint64_t addr, uint64_t t);
/* An unmap of [addr, addr + size): every mmap, brk or commit allocation it
 * covers is freed, in part where it covers part. */
int tracedb_unmap(struct tracedb *db, uint64_t addr, uint64_t size, uint64_t t);

/* ---- commit: pages reserved (PROT_NONE) made accessible later by
 * mprotect, as JVMs, V8, Go and glibc's arena heaps do. The reader says
 * which pages are reserved: those PROT_NONE when the trace began (an
 * attach reads its maps), and each map or mprotect since; an unmap takes
 * them out. A commit is an allocation of kind VMS_TRACE_COMMIT of the
 * pieces of [addr, addr + size) that were reserved, by the stack of the
 * mprotect; mprotect(PROT_NONE) ends the commits there (freed, as an
 * unmap) and reserves the pages again. A commit's bytes lie inside a
 * map's (the reservation's, when it was made in the trace): the address
 * space is the map's site's, the pages made usable the commit's. ---- */

/* [addr, addr + size) mapped or protected: reserved (none) or not. */
int tracedb_reserved(struct tracedb *db, uint64_t addr, uint64_t size,
		     bool none);
/* Whether any page of [addr, addr + size) is reserved now (a reader
 * unwinds an mprotect's stack only then). */
bool tracedb_reserved_in(const struct tracedb *db, uint64_t addr,
			 uint64_t size);
/* mremap of [old, old + old_len) to [addr, addr + size) (span: size in
 * whole pages): the old range unmapped (but with keep_old:
 * MREMAP_DONTUNMAP), a map of size by stack made, its pages reserved
 * where the old range's were (one mapping, one protection: a PROT_NONE
 * reservation moved or grown stays one). -1: out of memory. */
int tracedb_remap(struct tracedb *db, uint32_t stack, uint64_t old,
		  uint64_t old_len, bool keep_old, uint64_t addr, uint64_t size,
		  uint64_t span, uint64_t t);
/* mprotect of [addr, addr + size): to PROT_NONE (none), or to access
 * (the reserved pieces committed by stack). -1: out of memory. */
int tracedb_protect(struct tracedb *db, uint32_t stack, uint64_t addr,
		    uint64_t size, bool none, uint64_t t);

/* ---- what was allocated before the trace (an attach's heap walk,
 * fed before any event): blocks without a stack, counted per heap
 * (model/trace.h, struct vms_trace_before). A free of one of them, or an
 * allocation at its address (its free went unseen), takes it out as
 * released in that epoch; it is counted in unknown_frees too (the
 * frees of what no record of the trace allocated). ---- */

/* A block held when the trace began (held), or, after all, not (the
 * walk's block callback, glibc_walk.h), in heap (its id). -1: out of
 * memory. */
int tracedb_before_block(struct tracedb *db, uint64_t heap, uint64_t addr,
			 uint64_t usable, bool held);
/* The walk done: the kind of each heap it found (tracedb_before_heap,
 * for each heap; "heap" otherwise), and why its figures are incomplete
 * (partial, or NULL). */
void tracedb_before_heap(struct tracedb *db, uint64_t heap, const char *kind);
void tracedb_before_done(struct tracedb *db, const char *partial);
/* What the walk fed, dropped: not the program's heap after all (another
 * allocator provides its malloc). */
void tracedb_before_drop(struct tracedb *db);

/* A new mark at time t; returns its number (1, 2, ...), or -1. */
int tracedb_mark(struct tracedb *db, uint64_t t);
unsigned tracedb_marks(const struct tracedb *db);
uint64_t tracedb_events(const struct tracedb *db);
uint64_t tracedb_unknown_frees(const struct tracedb *db);

/* The report of the window from mark `from` to mark `to` (to = the number
 * of marks + 1: the trace's end, at end_ns), its sites symbolised by sym
 * (may be NULL: frames without names), allocated in a. The caller fills
 * the report's trace-wide fields (mode, dropped, ended). */
int tracedb_report(const struct tracedb *db, unsigned from, unsigned to,
		   uint64_t end_ns, struct tracesym *sym, struct arena *a,
		   struct vms_trace_report *out);
/* The report of the trace up to mark `to` (from its start), with every
 * site's cells as they stood then (model/trace.h: what a snapshot file
 * keeps, so that the window between two of a run's snapshots follows
 * from the later one); its mark to (0 when to is the trace's end). */
int tracedb_report_kept(const struct tracedb *db, unsigned to, uint64_t end_ns,
			struct tracesym *sym, struct arena *a,
			struct vms_trace_report *out);
/* The same, of what lies in [lo, hi) (a region, a heap) and is alive now:
 * its blocks and its maps' bytes there, outstanding or lasting by when
 * they were made (what was freed is no longer anywhere). lo >= hi: all,
 * as tracedb_report. */
int tracedb_report_in(const struct tracedb *db, unsigned from, unsigned to,
		      uint64_t lo, uint64_t hi, uint64_t end_ns,
		      struct tracesym *sym, struct arena *a,
		      struct vms_trace_report *out);

/* ---- what the viewer lists (model/trace.h's events and blocks) ---- */

/* The thread whose events are fed from now on (the log says it). */
void tracedb_thread(struct tracedb *db, int32_t tid);

/* The logged events that pass f (model/trace.h; NULL: all), oldest first, at most max
 * of them, into out; returns how many. The log keeps the newest
 * VMS_TRACE_LOG; tracedb_logged() counts all ever logged. */
size_t tracedb_log(const struct tracedb *db, const struct vms_trace_filter *f,
		   struct vms_trace_event *out, size_t max);
uint64_t tracedb_logged(const struct tracedb *db);

/* The allocations alive now in [lo, hi) (blocks whose address lies in
 * it, maps that overlap it), at most max, in address order. */
size_t tracedb_blocks_in(const struct tracedb *db, uint64_t lo, uint64_t hi,
			 struct vms_trace_block *out, size_t max);

/* What a snapshot file keeps for the viewer beside the report up to mark
 * `to` (tracedb_report_kept's; the number of marks + 1: now), model/
 * trace.h's struct vms_trace_live, into *out (in a): the allocations
 * alive now that were made before the mark (by the order the events were
 * read, not by their times; at most VMS_TRACE_BLOCKS_KEPT, the first by
 * address; one freed since the mark is no longer known), the logged
 * events up to the mark that the log still holds, and in *ids (malloc'd,
 * *nids) the distinct call sites they name (the caller gives those the
 * report does not list their stacks: tracedb_site). -1: out of memory. */
int tracedb_kept_live(const struct tracedb *db, unsigned to, struct arena *a,
		      struct vms_trace_live *out, uint32_t **ids, size_t *nids);

/* The call site of the first live commit that overlaps [lo, hi), else of
 * the first live map (mmap or brk): a region's commit stack; UINT32_MAX:
 * none. */
uint32_t tracedb_map_at(const struct tracedb *db, uint64_t lo, uint64_t hi);

/* Call site `id` (an event's or a block's) with its frames named by sym,
 * its figures zero: 1, 0 when no such site, -1 out of memory. */
int tracedb_site(const struct tracedb *db, uint32_t id, struct tracesym *sym,
		 struct arena *a, struct vms_trace_site *out);

#endif
