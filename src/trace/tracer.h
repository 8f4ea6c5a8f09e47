/* tracer.h — an allocation trace of a command vmscope starts: the shared
 * file the tracer library writes (base/tracewire.h), the command started
 * with the library preloaded, and the reading of its rings into a
 * tracedb (tracedb.h) with its stacks' modules kept for names (tracesym.h).
 *
 * Use: tracer_new(); tracer_launch() (the command runs with
 * LD_PRELOAD=the library and the file's descriptor in VMSCOPE_TRACE_FD);
 * tracer_drain() often (every few ms: the rings are 1 MiB a thread, and a
 * full one makes the program wait for vmscope: it takes every thread's
 * events in the order they happened, by their sequence numbers, holding
 * back what comes after one still being written); tracer_mark() at each
 * snapshot; tracer_report() for a window; tracer_free().
 *
 * Refused before anything starts, with the reason: a program the kernel
 * runs secure (set-user-ID, set-group-ID, or with file capabilities for a
 * user other than root: the loader ignores LD_PRELOAD for it) and a
 * statically linked one (no loader at all); for a script, of its
 * interpreter. One the loader still did not preload into (a security
 * module's rule, a 32-bit program) is told by tracer_started(). A launched
 * command is never killed by vmscope: when the trace ends before it does (--duration,
 * Ctrl-C), tracer_free() sets the rings to pass-through and the command
 * runs on untraced, as it would if vmscope died (the library sees its
 * pid gone).
 *
 * Contract: one reader thread. The file's data come from the traced
 * program, which may be hostile: every record is checked (its length,
 * operation, stack id and frame count) before use, and a ring that breaks
 * the rules is skipped to its head and counted (tracer_bad(), with the
 * events whose numbers were passed over: base/tracewire.h).
 */
#ifndef VMS_TRACER_H
#define VMS_TRACER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/arena.h"
#include "base/error.h"
#include "model/trace.h"
#include "trace/tracedb.h"

struct tracer;

struct tracer_opts {
	uint64_t sample_bytes; /* 0: every call (exact) */
	uint64_t seed; /* sampling's random streams start from it */
	const char *library; /* the tracer library's path */
	/* --trace-children: the children the command forks and execs are
	 * traced too, each its own process (tracer_procs) */
	bool follow_children;
	/* where the command's output goes */
	enum {
		TRACER_OUT_KEEP, /* vmscope's own */
		TRACER_OUT_STDERR, /* its stdout to vmscope's stderr (an
				    * export on stdout) */
		TRACER_OUT_NULL, /* nowhere (the viewer owns the terminal) */
	} output;
};

int tracer_new(struct tracer **out, const struct tracer_opts *o,
	       struct vms_error *err);
void tracer_free(struct tracer *tr);

/* Starts cmd (execvp) traced; *pid its pid. The command is vmscope's
 * child: tracer_wait() reaps it. */
int tracer_launch(struct tracer *tr, char *const *cmd, pid_t *pid,
		  struct vms_error *err);
/* A process vmscope did not start, into which the tracer library is
 * loaded (src/capture/ptrace/inject_call.h, trace/attach.c): path gets
 * where that library opens the shared file (/proc/<vmscope>/fd/<fd>: the
 * target needs only the ptrace access it was attached with), and
 * tracer_wait() says true once pid is gone (its status unknown). */
int tracer_attached(struct tracer *tr, pid_t pid, char *path, size_t n);
/* 0 when the tracer library started in the launched command (or the
 * process is attached); else -1 with *err saying that nothing was
 * traced and why that may be: a command that ran without the library
 * (the loader did not preload it) is not an empty trace. Asked once the
 * command has run (its library starts before its main). */
int tracer_started(const struct tracer *tr, struct vms_error *err);
/* Reads every ring up to its head; returns the number of records read,
 * -1 on out of memory (err). */
long tracer_drain(struct tracer *tr, struct vms_error *err);
/* A drain that read fewer records than this found the rings far from
 * full (a ring holds some 26,000 events; a thread records well under
 * 10,000 a millisecond): the reader may wait a millisecond before the
 * next. Read again at once, a trickle of records (a sampled trace's)
 * keeps the rings' cache lines moving between vmscope's core and the
 * program's at every record, which the program pays for. */
#define TRACER_DRAIN_FEW 2048
/* Whether the command has ended (reaped; *status its wait status). */
bool tracer_wait(struct tracer *tr, int *status);
/* -w FILE: asks the launched command to wait at its exit() for a last
 * snapshot (base/tracewire.h: exit_hold). tracer_at_exit() says when it
 * waits there, its map still whole; tracer_exit_taking() before the
 * capture, tracer_exit_taken() after it (taken or not) lets it go.
 * tracer_exit_end() asks no more (the trace is over: an exit() from now
 * on does not wait) and lets one waiting go; tracer_free() lets it go too
 * (pass-through). */
void tracer_hold_exit(struct tracer *tr);
bool tracer_at_exit(const struct tracer *tr);
void tracer_exit_taking(struct tracer *tr);
void tracer_exit_taken(struct tracer *tr);
void tracer_exit_end(struct tracer *tr);
/* A mark at this instant (a snapshot taken now); its number or -1. */
int tracer_mark(struct tracer *tr);
/* The window from mark `from` to mark `to` (0: the start; tracer_marks()
 * + 1: now, or the command's end) with the trace-wide figures. */
int tracer_report(struct tracer *tr, unsigned from, unsigned to,
		  struct arena *a, struct vms_trace_report *out,
		  struct vms_error *err);
/* The trace from its start to mark `to` (tracer_marks() + 1: now) with
 * its sites' cells, as a snapshot file keeps it (tracedb_report_kept). */
int tracer_report_kept(struct tracer *tr, unsigned to, struct arena *a,
		       struct vms_trace_report *out, struct vms_error *err);
/* What a snapshot file keeps for the viewer beside such a report (out,
 * up to the same mark): out->live (tracedb_kept_live, with the stacks of
 * the sites it names that out's sites do not list), in a. */
int tracer_keep_live(struct tracer *tr, unsigned to, struct arena *a,
		     struct vms_trace_report *out, struct vms_error *err);
/* The same, of what is alive now in [lo, hi) (tracedb_report_in): a
 * region's commit stack (the map that made it), a heap's blocks by call
 * site. */
int tracer_report_in(struct tracer *tr, unsigned from, unsigned to, uint64_t lo,
		     uint64_t hi, struct arena *a, struct vms_trace_report *out,
		     struct vms_error *err);
/* What the viewer lists beside the report (tracedb.h): the log of the
 * newest events, the allocations alive in [lo, hi), a call site's stack
 * (1; 0: no such site; -1: out of memory). */
size_t tracer_log(const struct tracer *tr, const struct vms_trace_filter *f,
		  struct vms_trace_event *out, size_t max);
size_t tracer_blocks_in(const struct tracer *tr, uint64_t lo, uint64_t hi,
			struct vms_trace_block *out, size_t max);
int tracer_site(struct tracer *tr, uint32_t id, struct arena *a,
		struct vms_trace_site *out);
/* The call site of the traced map that made [lo, hi) (tracedb_map_at). */
uint32_t tracer_map_at(const struct tracer *tr, uint64_t lo, uint64_t hi);
unsigned tracer_marks(const struct tracer *tr);
/* The mmap family of an attached process from the kernel, beside the
 * library (bpfmaps.h; needs root or CAP_BPF and CAP_PERFMON; -1 with
 * *err saying why not). In three steps around an attach in two
 * calls of the library (trace/attach.c: vmstrace_attach_begin, _patch):
 * tracer_kernel_load, before the injection, loads the eBPF program and
 * attaches it unarmed (the verification and the attach take some 20-50
 * ms; it records nothing yet); tracer_kernel_arm, once the library has
 * started (its "inside" flag known, base/tracewire.h) and before it
 * redirects any GOT entry, arms it with that flag and sets kernel_maps,
 * from which the library's mmap, munmap, mremap and mprotect forward
 * without recording; tracer_kernel_from, after the redirection, leaves
 * out the kernel's events from before the trace's start the library
 * wrote (trace_from_ns: before it, the malloc family's own maps were not
 * inside the flag, and no call of the program was the trace's). The
 * library's start and its redirection are one stop of one borrowed
 * thread, the arming between them (inject_call.h: inject_lib_call_then);
 * the process's other threads run meanwhile. So the
 * kernel sees every call from the trace's start, brk, madvise and raw
 * system calls too, and each call is counted once: one the library
 * records runs inside its flag, which the kernel's trace leaves out; one
 * it forwards unrecorded read kernel_maps set, after the program was
 * armed. The malloc family's own maps (glibc's arenas, its large blocks,
 * brk, madvise; jemalloc's extents) run inside the flag too: left out,
 * as a launch never sees them (counted: allocator_maps). library: the
 * library's path (its frames, the mmap forwarding the program's call,
 * left out of the kernel's stacks).
 *
 * The order of the two streams: each in its own order (the rings by
 * their sequence numbers, the ring buffer as the kernel filled it), fed
 * by tracer_drain the rings first, then the kernel's; a mark is taken
 * after both are drained. The two feed different records of the
 * aggregation (heap blocks; maps, commits and reserved pages), so their
 * interleaving changes no figure but an event's epoch (each is fed
 * before any mark taken after it) and, at the switch (tracer_kernel_arm
 * and _close), a map the library recorded and the kernel unmaps within
 * one drain (a thread stopped between its map's call and its record;
 * not met in practice).
 *
 * tracer_kernel_close (before the detach) sets kernel_maps back (the
 * library records again, inside its flag), drains and closes the
 * kernel's trace, keeping its figures for the reports. tracer_free
 * closes it too. */
int tracer_kernel_load(struct tracer *tr, const char *library,
		       struct vms_error *err);
/* Only stores to memory shared with the program and the kernel: its
 * effect seen from a forked child (the injecting one). */
int tracer_kernel_arm(struct tracer *tr, struct vms_error *err);
/* -1 with *err (the kernel's trace closed) where it was not armed. */
int tracer_kernel_from(struct tracer *tr, struct vms_error *err);
void tracer_kernel_close(struct tracer *tr);
/* Whether the kernel's trace ran beside the library. */
bool tracer_kernel(const struct tracer *tr);
/* Its aggregation, for what is fed beside the rings before they are
 * read (an attach's heap walk: tracedb_before_*). */
struct tracedb *tracer_db(struct tracer *tr);
uint64_t tracer_bad(const struct tracer *tr);
/* ns since the trace began. */
uint64_t tracer_now(const struct tracer *tr);

/* ---- following children (tracer_opts.follow_children) ----
 *
 * Each child the launched command forks (fork(): the raw system call runs
 * no handler, such a child records nothing) or execs (a program started
 * with the library: LD_PRELOAD and the variable that names vmscope's
 * socket stay in the environment), and each of theirs, records into a file
 * of its own that it sends vmscope (base/tracewire.h); tracer_drain()
 * takes them and reads their rings. A process's allocations are its own:
 * its own aggregation and names (a free in a forked child of a block its
 * parent made before the fork is the child's free of a block it never
 * allocated, counted in its unknown_frees, and changes nothing of the
 * parent's). At most TW_FOLLOW_MAX processes, the launched one too; the
 * files of the others are set pass-through at once (they run untraced)
 * and counted. A child's end is seen by its pidfd (its exit status is its
 * parent's, not vmscope's), its file then read to its end and let go. */

/* The processes followed: 0 the launched one, then the children in the
 * order their files came. */
unsigned tracer_procs(const struct tracer *tr);
/* Process i: its pid, its parent's (as it said), how it came
 * ("launched", "exec", "fork"), its command line (as it said) and
 * whether it has ended; report NULL. */
void tracer_proc(struct tracer *tr, unsigned i, struct vms_trace_proc *out);
/* The whole trace of process i (i >= 1; the launched one's is
 * tracer_report_kept's), as tracer_report_kept's to its end. */
int tracer_proc_report(struct tracer *tr, unsigned i, struct arena *a,
		       struct vms_trace_report *out, struct vms_error *err);
/* Children whose files came and were not followed (the limit). */
uint64_t tracer_not_followed(const struct tracer *tr);
/* Whether the launched command has ended (reaped) and every child
 * followed too, no file waiting to be taken. */
bool tracer_all_ended(struct tracer *tr);

#endif
