/* bpfmaps.h — the mmap family of a process already running, traced from the
 * kernel: an eBPF program (trace/bpf/bpfmaps.bpf.c, a CO-RE skeleton
 * built into vmscope) on the raw tracepoints every system call passes
 * (sys_enter, sys_exit: no tracefs needed; every system call of the
 * machine runs them while a trace runs, to a comparison of its tgid), for
 * the target's 64-bit calls of mmap, munmap, mremap, brk, madvise and
 * mprotect only, sends each call that succeeded with its user stack
 * through a ring buffer; this module reads it into a tracedb (tracedb.h),
 * so that the report, the call sites and their names are those of a
 * traced launch. Nothing is injected: the
 * target is never stopped, and runs as it would untraced.
 *
 * What it sees: mmap (an allocation of kind mmap; MAP_FIXED first unmaps
 * what it replaces), munmap, mremap (the old range unmapped, the new one
 * allocated), brk (the break's growth an allocation of kind brk, its
 * shrinking an unmap), madvise(MADV_DONTNEED or MADV_FREE), which
 * gives pages back without unmapping: counted (the report's madvised),
 * not an event, and mprotect where it changes commit (tracedb.h): pages
 * PROT_NONE (reserved: at the start, by /proc/PID/maps; since, by the
 * maps and mprotects seen) made accessible are a commit (kind commit) by
 * the mprotect's stack, made PROT_NONE again its end. Not the malloc family: the report says so (heap_traced
 * false).
 *
 * Stacks (x86-64): the kernel's frame-pointer walk loses the caller of
 * glibc's wrappers (they have no frame) and stops at the first function
 * built without frame pointers (Debian's libraries, most programs), and
 * here cost a fault at each chain's end. So each event brings instead the
 * user ip, sp, rbp and a copy of the top of the user stack (4 KiB), and
 * the stack is unwound here by the call frame information of the modules
 * (.eh_frame, through tracesym_cfa()) from the syscall's instruction: the
 * wrapper's caller first (as a traced launch records it), then its
 * callers as far as the copy reaches (a frame deeper is lost). Without
 * call frame information at ip, the word at sp stands alone when it is
 * code (the return address into the caller of a frameless wrapper), else
 * ip. A return address outside every executable mapping ends the stack.
 *
 * Names: the modules (mapped files, by their load bias) are read from
 * /proc/PID/maps at the start, each file opened through procfile.h, and
 * read again when a frame falls in an executable mapping not yet known
 * (a library loaded later).
 *
 * Needs root, or CAP_BPF with CAP_PERFMON, and a kernel with BTF
 * (/sys/kernel/btf/vmlinux); without them bpfmaps_open() fails with an
 * error that says which (VMS_ERR_PERM). The pid is the one the kernel's
 * first pid namespace knows (vmscope in a container's namespace is not
 * handled).
 *
 * The modules are read before the program is attached (a process that
 * exits before its events are read still has names).
 *
 * Contract: one reader thread. Errors are values; nothing is printed
 * (libbpf's messages are kept for the error, never written).
 */
#ifndef VMS_BPFMAPS_H
#define VMS_BPFMAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/arena.h"
#include "base/error.h"
#include "model/trace.h"

struct bpfmaps;
struct tracedb;
struct tracesym;

/* Loads and attaches the program for pid. */
int bpfmaps_open(struct bpfmaps **out, pid_t pid, struct vms_error *err);

/* Beside the tracer library injected (tracer.h: tracer_kernel_arm): the
 * events fed into the tracer's aggregation and named by its modules (db
 * and sym, not freed by bpfmaps_free); the calls a thread makes while
 * the library's "inside" flag (base/tracewire.h: inside_off) is set left
 * out, counted (allocator_maps); the frames of the module at skip_path
 * (the library: its mmap forwards the program's call) left out of the
 * stacks. */
struct bpfmaps_opts {
	struct tracedb *db; /* NULL: its own (and its own names) */
	struct tracesym *sym;
	bool inside;
	int64_t inside_off;
	const char *skip_path; /* or NULL */
	uint64_t start_ns; /* the trace's time 0 (CLOCK_MONOTONIC); 0: now */
	/* loaded (verified, the modules read) and attached, but recording
	 * nothing until bpfmaps_arm() gives it the flag, once the library
	 * says where it is: the load and the attach (some 20-50 ms) are done
	 * before the injection, the arming between the library's start and
	 * its redirection of the GOT entries (tracer.h) */
	bool unarmed;
};
int bpfmaps_open_opts(struct bpfmaps **out, pid_t pid,
		      const struct bpfmaps_opts *o, struct vms_error *err);
/* The program attached, unarmed (opts.unarmed): 0, or -1 with *err. */
int bpfmaps_attach(struct bpfmaps *bm, struct vms_error *err);
/* Arms it: from now on it records, the calls made inside the library's
 * flag (inside, at inside_off) left out. Only stores to the program's
 * global data, a shared mapping: safe in a forked child of the reader. */
void bpfmaps_arm(struct bpfmaps *bm, bool inside, int64_t inside_off);
/* The events before from_ns (CLOCK_MONOTONIC) left out as they are read:
 * the trace's start, as the library says it. */
void bpfmaps_from(struct bpfmaps *bm, uint64_t from_ns);
/* bpfmaps_arm(), then bpfmaps_attach(). */
int bpfmaps_start(struct bpfmaps *bm, bool inside, int64_t inside_off,
		  struct vms_error *err);
/* The kernel's trace-wide figures into a report: its dropped calls and
 * bytes added, madvise's, kernel_maps and allocator_maps. */
void bpfmaps_figures(const struct bpfmaps *bm, struct vms_trace_report *out);
/* Detaches (the target runs on untraced) and frees. */
void bpfmaps_free(struct bpfmaps *bm);

/* Waits up to timeout_ms for events, then reads every event the ring
 * buffer holds; returns how many, -1 with err (out of memory, or the ring
 * buffer cannot be read). */
long bpfmaps_drain(struct bpfmaps *bm, int timeout_ms, struct vms_error *err);
/* Whether the target has exited (its pid gone). */
bool bpfmaps_ended(struct bpfmaps *bm);
/* A mark at this instant; its number or -1. */
int bpfmaps_mark(struct bpfmaps *bm);
unsigned bpfmaps_marks(const struct bpfmaps *bm);
/* The window from mark `from` to mark `to` (bpfmaps_marks() + 1: now),
 * with the trace-wide figures (attached, dropped, heap_traced false). */
int bpfmaps_report(struct bpfmaps *bm, unsigned from, unsigned to,
		   struct arena *a, struct vms_trace_report *out,
		   struct vms_error *err);
/* ns since the trace began. */
uint64_t bpfmaps_now(const struct bpfmaps *bm);

#endif
