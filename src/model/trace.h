/* trace.h — the record of a trace report: what an allocation trace says of
 * one window (the span between two marks: snapshots taken while tracing,
 * or the trace's start and end), per call site, by WPA's impacting types.
 * DESIGN.md's "trace" object is this record; src/trace/ builds it
 * (tracedb.h), the exports print it, the viewer shows it.
 *
 * An allocation's impacting type in a window [from, to):
 *   transient    allocated inside, freed inside;
 *   outstanding  allocated inside, alive at its end;
 *   released     allocated before it, freed inside;
 *   lasting      allocated before it, alive at its end.
 * impacting_bytes = outstanding.bytes - released.bytes: what the window
 * changed.
 *
 * Contract: a report and everything it points to live in one arena (the
 * report's owner frees the arena); strings are the program's names as
 * read (escaped by whoever prints them). A figure not known is UINT64_MAX
 * in the record and null in JSON.
 *
 * A snapshot taken while tracing may carry the report of the trace up to
 * it (struct vms_snapshot's trace): a snapshot file keeps it (its
 * "trace" section, snapfile_trace.c) and the exports print it.
 */
#ifndef VMS_TRACE_H
#define VMS_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "model/records.h"

/* The impacting types, in report order; names as in JSON. */
#define VMS_TRACE_IMPACTS(X) X(transient) X(outstanding) X(released) X(lasting)

enum vms_trace_impact {
#define VMS_TRACE_ENUM(n) VMS_TRACE_##n,
	VMS_TRACE_IMPACTS(VMS_TRACE_ENUM)
#undef VMS_TRACE_ENUM
		VMS_TRACE_NIMPACTS
};

enum vms_trace_kind {
	VMS_TRACE_HEAP, /* the malloc family */
	VMS_TRACE_MMAP, /* mmap, mremap */
	VMS_TRACE_BRK, /* brk, sbrk */
	/* mprotect making pages reserved with PROT_NONE accessible (a
	 * commit: its bytes lie inside a map's, the map's site has the
	 * address space, the commit's the pages made usable) */
	VMS_TRACE_COMMIT,
	VMS_TRACE_NKINDS
};

extern const char *const vms_trace_kind_names[VMS_TRACE_NKINDS];
extern const char *const vms_trace_impact_names[VMS_TRACE_NIMPACTS];

struct vms_trace_frame {
	uint64_t ip; /* the return address (the allocating call for the
		      * innermost) */
	const char *function; /* NULL: not known */
	const char *file; /* NULL: no line information */
	uint32_t line; /* 0: none */
	const char *module; /* the mapped file, NULL: none */
	uint64_t offset; /* ip's offset in the module, or from function */
};

struct vms_trace_count {
	uint64_t count, bytes;
};

/* A site's figures by when its blocks were made and freed: epoch i is
 * the span from mark i to mark i + 1 (mark 0 the trace's start, mark n
 * the n-th snapshot taken while tracing); f VMS_TRACE_ALIVE: alive at
 * the report's end. count is in 1/VMS_TRACE_ONE of a block (a sampled
 * block stands for a fraction of blocks more than one). A report up to a
 * mark keeps them (a snapshot file too), so that the window between any
 * two marks of one run follows from the later one (vms_trace_window). */
#define VMS_TRACE_ALIVE UINT32_MAX
#define VMS_TRACE_ONE 1024u

struct vms_trace_cell {
	uint32_t a, f;
	uint64_t count, bytes;
};

struct vms_trace_site {
	uint32_t id;
	enum vms_trace_kind kind;
	const struct vms_trace_frame *frames; /* innermost first */
	uint32_t nframes;
	struct vms_trace_count by[VMS_TRACE_NIMPACTS];
	int64_t impacting_bytes;
	/* its cells up to the report's mark, or NULL (not kept) */
	const struct vms_trace_cell *cells;
	uint32_t ncells;
};

/* What was allocated before the trace, in one heap, as the heap walk of
 * an attach found it when the trace began (blocks without a stack):
 * at_start the blocks alive then (bytes: their usable sizes, as
 * malloc_usable_size says, from the walk's chunk sizes); of those,
 * released the ones freed inside the window (by address: a free, a
 * realloc, or an allocation that reused the address of one whose free
 * went unseen), lasting the ones alive at its end. impacting_bytes =
 * -released.bytes: what they changed of the window's size. kind and id
 * are the snapshot's heap's (struct vms_heap: "glibc-main", the arena's
 * address). */
struct vms_trace_before {
	const char *kind;
	uint64_t id;
	struct vms_trace_count at_start, released, lasting;
	int64_t impacting_bytes;
};

/* The report: its trace-wide fields are records.h's VMS_TRACE_FIELDS
 * (what each means is said there), then its sites. */
struct vms_trace_report {
	VMS_TRACE_FIELDS(VMS_MEMBER)
	/* the call sites with anything in the window, by impacting bytes,
	 * largest first, then by bytes allocated in it */
	struct vms_trace_site *sites;
	size_t nsites;
	/* allocated before the trace, per heap walked (an attach's; a
	 * snapshot file keeps it: snapfile_trace.c);
	 * before_walked false: no walk (a launch, the kernel's trace only,
	 * an allocator other than glibc's), before NULL; before_partial: why
	 * the walk's figures are incomplete, or NULL */
	bool before_walked;
	const char *before_partial;
	struct vms_trace_before *before;
	size_t nbefore;
	/* what the viewer lists beside it, kept with a snapshot (a file's
	 * "tracelive" section), or NULL: not kept (a live report, a file of
	 * an older vmscope) */
	const struct vms_trace_live *live;
};

/* A process of a trace that follows children (--trace-children): the
 * launched one or a child, with its own report (NULL: the report it is
 * listed with, the launched one's). how: "launched", "exec" (a program
 * exec'd with the tracer), "fork" (a child fork() made, no exec);
 * command its command line as it said (escaped by whoever prints it). */
struct vms_trace_proc {
	int32_t pid, ppid;
	const char *how;
	const char *command;
	bool ended;
	const struct vms_trace_report *report;
};

/* The processes of such a trace: n of them, the launched one first;
 * not_followed those past the limit (limit processes in all). */
struct vms_trace_procs {
	const struct vms_trace_proc *v;
	size_t n;
	uint64_t not_followed;
	unsigned limit;
};

/* What the viewer lists beside the report (src/trace/ keeps them live; a
 * snapshot file keeps them as they were at its snapshot: struct
 * vms_trace_live; no export carries them):
 * an event of the trace's log, the newest VMS_TRACE_LOG kept ... */
#define VMS_TRACE_LOG 65536u

enum vms_trace_op {
	VMS_TRACE_OP_ALLOC, /* the malloc family gave a block */
	VMS_TRACE_OP_FREE, /* a block went back (realloc: a free, then an
			    * alloc) */
	VMS_TRACE_OP_MAP, /* mmap, mremap's new range, brk grown */
	VMS_TRACE_OP_UNMAP, /* munmap, mremap's old range, brk shrunk */
	VMS_TRACE_NOPS
};

extern const char *const vms_trace_op_names[VMS_TRACE_NOPS];

/* Its columns are records.h's VMS_TRACE_EVENT_FIELDS (what each means is
 * said there). */
struct vms_trace_event {
	VMS_TRACE_EVENT_FIELDS(VMS_TCOL_MEMBER)
};

/* ... and an allocation alive now (the heap allocations view):
 * VMS_TRACE_BLOCK_FIELDS. */
struct vms_trace_block {
	VMS_TRACE_BLOCK_FIELDS(VMS_TCOL_MEMBER)
};

/* A filter of the log: ops a mask of 1 << VMS_TRACE_OP_* (0: all);
 * min_size; tid (0: any); site (UINT32_MAX: any). */
struct vms_trace_filter {
	unsigned ops;
	uint64_t min_size;
	int32_t tid;
	uint32_t site;
};

/* Whether e passes f (NULL: every event). */
bool vms_trace_filter_pass(const struct vms_trace_filter *f,
			   const struct vms_trace_event *e);

/* What a report kept for the viewer (struct vms_trace_report's live),
 * read back from a snapshot file: the allocations alive at its end
 * (blocks, in address order; nblocks of blocks_alive: a file keeps at
 * most VMS_TRACE_BLOCKS_KEPT), the newest events of its log up to its
 * end (log, oldest first; nlog of logged, every event the trace logged
 * up to then: the log keeps the newest VMS_TRACE_LOG), and the call
 * sites they name that the report's sites do not list (stacks: id, kind
 * and frames, figures zero: a site folded into another of its name, or
 * one with nothing in the window). */
#define VMS_TRACE_BLOCKS_KEPT (1u << 22)

struct vms_trace_live {
	const struct vms_trace_block *blocks;
	size_t nblocks;
	uint64_t blocks_alive;
	const struct vms_trace_event *log;
	size_t nlog;
	uint64_t logged;
	const struct vms_trace_site *stacks;
	size_t nstacks;
};

/* The impacting type of a block made in epoch a and freed in epoch f
 * (VMS_TRACE_ALIVE: not freed) in the window [from, to) of marks, or -1
 * (outside it). */
int vms_trace_impact_of(uint32_t a, uint32_t f, unsigned from, unsigned to);

/* Sorts a report's sites as reports list them: by impacting bytes,
 * largest first, then by bytes allocated in the window, then by id. */
void vms_trace_sort_sites(struct vms_trace_site *v, size_t n);

/* Whether the window between a and b, two reports of one run up to two
 * of its marks, can be had from b (vms_trace_window): the same run, a's
 * mark before b's, b's cells kept. */
bool vms_trace_windowable(const struct vms_trace_report *a,
			  const struct vms_trace_report *b);

/* The report of the window from a's mark to b's (windowable), into *out:
 * b's trace-wide fields, from_ns a's to_ns, its counts of calls (events,
 * dropped, unknown frees ...) b's less a's; sites (malloc'd: free
 * out->sites) b's with anything in the window, their figures from b's
 * cells, frames b's (out lives no longer than b). -1: out of memory. */
int vms_trace_window(const struct vms_trace_report *a,
		     const struct vms_trace_report *b,
		     struct vms_trace_report *out);

/* Two reports compared (-d A B of two snapshots saved with their traces):
 * the call sites of A and B matched by their kind and stack (each frame's
 * function, module and offset: the same in two runs of one build, where
 * addresses differ), and each site whose figures differ listed once: on
 * one side only (a or b NULL) or on both, by how much its impacting bytes
 * moved (b's less a's), the largest first. A report compared with itself
 * has no changes. */
struct vms_trace_change {
	const struct vms_trace_site *a, *b;
};

struct vms_trace_diff {
	struct vms_trace_change *v;
	size_t n;
	size_t added, removed, changed; /* of v */
	size_t same; /* sites on both sides with the same figures */
};

/* ---- what a kept report's live says (struct vms_trace_live), as the
 * live trace's readers say it (trace/tracedb.h), for the viewer of a
 * snapshot file ---- */

/* The call site id: one of r's sites or of its live's stacks, or NULL. */
const struct vms_trace_site *vms_trace_site_of(const struct vms_trace_report *r,
					       uint32_t id);
/* The kept events that pass f (NULL: all), oldest first, at most max,
 * into out; how many. */
size_t vms_trace_log_of(const struct vms_trace_report *r,
			const struct vms_trace_filter *f,
			struct vms_trace_event *out, size_t max);
/* The kept allocations in [lo, hi): a heap block whose address lies in
 * it, a map that overlaps it; at most max, in address order. */
size_t vms_trace_blocks_of(const struct vms_trace_report *r, uint64_t lo,
			   uint64_t hi, struct vms_trace_block *out,
			   size_t max);
/* The report of what r's kept allocations hold in [lo, hi), per call
 * site, all of it outstanding (made in r's one window, alive at its
 * end), as tracedb_report_in says it of a live trace's whole window:
 * sites of one name folded (vms_trace_fold_sites), sorted. Into *out (its
 * trace-wide fields r's; sites in a). -1: out of memory. */
int vms_trace_report_of(const struct vms_trace_report *r, uint64_t lo,
			uint64_t hi, struct arena *a,
			struct vms_trace_report *out);
/* Folds a report's sites of one name (kind, then each frame's module and
 * function, or module and offset, or address) into the first of them
 * (its frames, lines and id stand for all): a loop the compiler unrolled
 * calls from several return addresses. -1: out of memory. */
int vms_trace_fold_sites(struct vms_trace_report *r, struct arena *a);

/* -1 on out of memory; d->v is malloc'd (vms_trace_diff_fini). */
int vms_trace_diff_make(const struct vms_trace_report *a,
			const struct vms_trace_report *b,
			struct vms_trace_diff *d);
void vms_trace_diff_fini(struct vms_trace_diff *d);
/* A change's figure on one side (0 where the side lacks the site). */
int64_t vms_trace_change_impacting(const struct vms_trace_site *s);

#endif
