/* tracer_priv.h — the tracer's records, shared by its files, each using
 * only those below it: tracer_lock.c (the lock that tells the traced
 * process whether vmscope lives), tracer_read.c (the reading of one
 * process's rings), tracer_kernel.c (the kernel's trace of the mmap
 * family beside the library of an attach), tracer_follow.c (--trace-children: the
 * children's files received, read and let go) and tracer.c (the file,
 * the launch, the reports: tracer.h). Nothing else includes it.
 */
#ifndef VMS_TRACER_PRIV_H
#define VMS_TRACER_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/tracewire.h"
#include "model/trace.h"
#include "trace/tracedb.h"
#include "trace/tracer.h"
#include "trace/tracesym.h"

struct bpfmaps;

struct slot_map {
	int64_t stack[TW_STACK_IDS]; /* the thread's id -> tracedb stack;
				      * -1: not sent */
	/* the number and time of the ring's last event, which a short one
	 * takes its own from (tracewire.h); have_event false: none yet */
	bool have_event;
	uint64_t last_seq, last_ns;
};

/* One process traced: the launched (or attached) one, or a child
 * followed. Each has its own file, aggregation and modules' names: the
 * addresses of two processes are never matched. */
struct tproc {
	int fd; /* -1: let go (a child ended, its rings read) */
	int pidfd; /* a child's (its end), or -1 */
	struct tw_header *hdr; /* NULL: let go */
	bool locked; /* vmscope holds hdr's consumer_mutex (tracer_lock) */
	struct tracedb *db;
	struct tracesym *sym; /* NULL: frames without names */
	struct slot_map *maps[TW_SLOTS];
	pid_t pid, ppid;
	unsigned how; /* 0: the launched one; else enum tw_follow_how */
	bool reaped; /* ended (a child: seen gone) */
	int status; /* the launched one's wait status */
	uint64_t end_ns; /* when it was seen ended */
	uint64_t bad; /* records refused */
	uint64_t next_seq; /* the merge's: the event number to read next */
	uint64_t stall_seq, stall_ns; /* a number awaited since (a thread
				       * inside its call) */
	/* as the file said when let go */
	uint64_t dropped, dropped_bytes, dropped_threads;
	uint64_t beat_ns; /* when its heartbeat last moved */
	char cmd[256]; /* its command, for a message and the report */
};

#define TRACER_BIRTHS 256u /* children awaited at once, at most */

struct tracer {
	struct tracer_opts o;
	struct tproc p; /* the launched (or attached) process */
	bool attached; /* p is not vmscope's child (tracer_attached) */
	uint64_t run; /* the report's run: drawn at the start, never 0 */
	uint64_t start_ns; /* the trace's time 0 (CLOCK_MONOTONIC) */
	/* --trace-children (tracer_follow.c): the socket children send
	 * their files to, its name, the children followed, those not */
	int sock;
	char sock_name[64];
	char follow_env[160]; /* TW_FOLLOW_ENV's value */
	struct tproc *kids[TW_FOLLOW_MAX];
	unsigned nkids;
	/* the files the children load, each named once for all of them
	 * (their tracesym a view of it: tracesym_view) */
	struct tracesym *kid_sym;
	uint64_t not_followed;
	/* children forked (TW_FOLLOW_BORN) whose file has not come: the
	 * trace waits for them (their file, or their end) */
	struct birth {
		pid_t pid;
		int pidfd;
	} births[TRACER_BIRTHS];
	unsigned nbirths;
	/* the mmap family from the kernel beside the library of an attach
	 * (tracer_kernel.c), and its figures once closed */
	struct bpfmaps *kernel;
	bool kernel_on; /* armed (else loaded and attached only) */
	bool kernel_done;
	struct vms_trace_report kernel_fig;
	uint64_t page;
};

/* tracer_lock.c's: h's consumer_mutex made and locked, consumer_lock set
 * (tracewire.h): true; false, not held (the library asks vmscope's pid).
 * The file let go: unmapped, its rings' memory given back first when
 * punch; locked (tracer_lock's answer, never the file's word), its
 * first page stays mapped while vmscope lives (tracer_lock.c says why). */
bool tracer_lock(struct tw_header *h);
void tracer_unmap(struct tw_header *h, int fd, bool punch, bool locked);

/* tracer_read.c's: the process's rings read up to their heads (records
 * taken; -1 out of memory). */
long tracer_drain_proc(struct tracer *tr, struct tproc *p,
		       struct vms_error *err);
/* A process's figures, its own: the report's trace-wide fields. */
void tracer_report_fields(const struct tracer *tr, const struct tproc *p,
			  struct vms_trace_report *out);
/* Frees what a process's reading holds (not its db, sym, nor the file). */
void tracer_free_maps(struct tproc *p);

/* tracer_kernel.c's: what the kernel's ring buffer holds, fed (after the
 * rings: tracer.h); how many events, -1 with *err. Its trace-wide
 * figures into a report of the traced process (none when it did not
 * run). */
long tracer_kernel_drain(struct tracer *tr, struct vms_error *err);
void tracer_kernel_figures(const struct tracer *tr,
			   struct vms_trace_report *out);

/* tracer_follow.c's: the socket made and TW_FOLLOW_ENV's value (-1 with
 * err); the children's files received, their rings read, the ended ones
 * let go; every child's file set pass-through and freed; child i (1 to
 * nkids) and its report (tracer.h's tracer_proc, tracer_proc_report);
 * whether every child followed, or made to be, has ended. */
int tracer_follow_start(struct tracer *tr, struct vms_error *err);
long tracer_follow_drain(struct tracer *tr, struct vms_error *err);
void tracer_follow_free(struct tracer *tr);
void tracer_follow_proc(const struct tracer *tr, unsigned i,
			struct vms_trace_proc *out);
int tracer_follow_report(struct tracer *tr, unsigned i, struct arena *a,
			 struct vms_trace_report *out, struct vms_error *err);
bool tracer_follow_ended(const struct tracer *tr);

#endif
