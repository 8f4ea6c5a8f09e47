/* tracer_priv.h — the tracer's state (tracer.h), shared by its two files:
 * tracer.c (the shared file, the launch, the reading of the rings) and
 * tracer_kernel.c (the kernel's trace of the mmap family beside the
 * library of an attach). Nothing else includes it.
 */
#ifndef VMS_TRACER_PRIV_H
#define VMS_TRACER_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/tracewire.h"
#include "model/trace.h"
#include "trace/tracer.h"

struct bpfmaps;
struct tracesym;

struct slot_map {
	int64_t stack[TW_STACK_IDS]; /* the thread's id -> tracedb stack;
				      * -1: not sent */
};

struct tracer {
	struct tracer_opts o;
	int fd;
	struct tw_header *hdr;
	struct tracedb *db;
	struct tracesym *sym;
	struct slot_map *maps[TW_SLOTS];
	pid_t pid;
	bool attached; /* pid is not vmscope's child (tracer_attached) */
	bool reaped;
	int status;
	uint64_t end_ns; /* when the command was seen ended */
	uint64_t bad; /* records refused */
	uint64_t next_seq; /* the merge's: the event number to read next */
	uint64_t stall_seq, stall_ns; /* a number awaited since (a thread
				       * inside its call) */
	uint64_t run; /* the report's run: drawn at the start, never 0 */
	/* the mmap family from the kernel (tracer_kernel_open), and its
	 * figures once closed */
	struct bpfmaps *kernel;
	bool kernel_on; /* attached (else loaded only) */
	bool kernel_done;
	struct vms_trace_report kernel_fig;
	uint64_t page;
	char cmd[256]; /* the command launched, for a message */
};

/* tracer_kernel.c's: what the kernel's ring buffer holds, fed (after the
 * rings: tracer.h); how many events, -1 with *err. */
long tracer_kernel_drain(struct tracer *tr, struct vms_error *err);
/* Its trace-wide figures into a report (none when it did not run). */
void tracer_kernel_figures(const struct tracer *tr,
			   struct vms_trace_report *out);

#endif
