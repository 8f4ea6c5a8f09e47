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
 */
#ifndef VMS_TRACE_H
#define VMS_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

struct vms_trace_site {
	uint32_t id;
	enum vms_trace_kind kind;
	const struct vms_trace_frame *frames; /* innermost first */
	uint32_t nframes;
	struct vms_trace_count by[VMS_TRACE_NIMPACTS];
	int64_t impacting_bytes;
};

struct vms_trace_report {
	bool sampled; /* --trace-sample: counts and bytes scaled */
	uint64_t sample_bytes; /* 0 when exact */
	uint64_t seed; /* sampling's seed, when sampled */
	bool attached; /* to a running process (else launched) */
	bool heap_untraced; /* the malloc family was not traced (an attach
			     * sees the mmap family only, from the kernel):
			     * no heap site means nothing of it */
	/* madvise(MADV_DONTNEED or MADV_FREE): pages given back, still
	 * mapped (not an event of any site); seen only when attached */
	bool madvise_traced;
	uint64_t madvised, madvised_bytes;
	uint64_t events; /* calls recorded */
	uint64_t dropped, dropped_bytes; /* calls not recorded, their bytes */
	uint64_t unknown_frees; /* frees of what no record allocated */
	uint64_t from_ns, to_ns; /* the window, since the trace began */
	bool ended; /* the process exited within the trace */
	int exit_status; /* its wait status, when ended */
	/* the call sites with anything in the window, by impacting bytes,
	 * largest first, then by bytes allocated in it */
	struct vms_trace_site *sites;
	size_t nsites;
};

#endif
