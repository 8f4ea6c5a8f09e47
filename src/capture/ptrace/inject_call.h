/* inject_call.h — loading a shared library into a running process and
 * calling one of its functions, by vmscope's own ptrace injection (the
 * tracer library's attach and detach: trace/attach.c).
 *
 * Contract: inject_lib_call(pid, lib, fn, arg) makes one thread of pid run
 * dlopen(lib, RTLD_NOW | RTLD_LOCAL) (with RTLD_NOLOAD when `load` is
 * false: only a library already there), then dlsym(handle, fn), then
 * fn(arg) (arg: a string, or NULL), and returns fn's int result. dlopen
 * and dlsym are found by libc's dynamic symbols (glibc 2.34 and later has
 * them in libc.so.6; an older glibc is refused with that reason). x86_64
 * only; another machine is refused.
 *
 * All of it runs in a child process of vmscope's own (its own session, no
 * parent-death signal, deaf to SIGINT/SIGTERM/SIGHUP/SIGPIPE): vmscope
 * SIGKILLed at any moment leaves that child to finish the call and put the
 * thread back exactly; the kernel detaches what it traced when it exits.
 *
 * Which thread, and why no lock is held: the whole process is frozen
 * (freeze.h), and a thread is borrowed only when all of these hold:
 *  - it is stopped inside a blocking system call from a fixed list (read,
 *    poll, epoll_wait, nanosleep, accept, ...: calls that neither glibc's
 *    malloc nor the loader makes while holding a lock), interrupted
 *    (-ERESTART* in its registers, or -EINTR: the calls the kernel never
 *    restarts after a stop, epoll_wait first, where a server's main
 *    thread waits; the freeze's interrupt already made them fail, as
 *    freeze.h says, and the registers put back return it so), never
 *    while running user code, and
 *    never in futex (a lock wait), mmap, munmap, mprotect, brk, madvise,
 *    mremap (the allocator's and the loader's calls) or clone (fork holds
 *    every arena's lock);
 *  - its pc is outside the loader (ld.so's executable mapping: the
 *    loader makes its own system calls, so a thread inside it blocks
 *    with its pc there), and none of the frames it is in (told by each
 *    module's CFI, inject_unwind.h; a signal frame's interrupted code
 *    is one) is in libc's malloc-family functions, dlopen, dlsym,
 *    dlclose or dl_iterate_phdr, in the whole code of another
 *    allocator's library (one that defines malloc: jemalloc, tcmalloc,
 *    mimalloc) or of the tracer library, or in the malloc-family
 *    functions of a program that defines malloc itself (an allocator
 *    linked in). Where the frames cannot be told to the outermost (a
 *    module without CFI, JIT code), no word of the top 32 KiB of its
 *    stack may point into those (or be a return address into a whole
 *    library's code: the code before it a call): a conservative scan,
 *    where a stale word (a return address an earlier call left in a
 *    live frame's slot: a shell's stack holds some into free) only
 *    makes vmscope look for another thread, never accept a wrong one.
 *    A sleep the thread went on with after a stop is restart_syscall,
 *    listed (as is a timed futex wait gone on with so: pthread's timed
 *    waits; the frames then say whether it is inside the allocator).
 *    The
 *    stack is not scanned for the loader's code: every first call through
 *    a lazy PLT entry leaves its return addresses behind, and the
 *    loader's locks are recursive (a thread in a library's constructor,
 *    which dlopen runs holding dl_load_lock, or in a dl_iterate_phdr
 *    callback may itself call dlopen, as glibc allows);
 *  - it has no seccomp filter (dlopen's own calls could kill it: a
 *    process whose every thread has one, or runs in strict mode, is
 *    refused before it is stopped, saying so), no
 *    pending signal, 64-bit registers, and its stack can be written 2 KiB
 *    below its red zone.
 * Such a thread holds none of malloc's locks (not recursive: taken and
 * released inside the functions the scan looks for, never across the
 * blocking calls listed), and is not inside the loader; a loader lock it
 * may hold (a constructor blocked in read) is taken again by its own
 * dlopen, as the loader allows.
 *
 * Another allocator (the program linked with jemalloc or tcmalloc, whose
 * malloc is then the one dlopen, the loader's own allocations and the
 * tracer library's first calls use: attached, its next definitions are
 * the global ones, trace/vmstrace.c): its locks are not recursive either
 * (jemalloc's malloc_mutex, tcmalloc's SpinLock), and a thread could
 * hold one across a blocking call of the list: jemalloc's init_lock
 * while malloc_init reads /proc/sys/vm/overcommit_memory, its
 * prof_dump_mtx while a heap profile is written, an arena's extent
 * growth lock across an extent hook of the program's own (which may
 * block anywhere); tcmalloc's heap profiler's lock while it writes, a
 * MallocHook of the program's called inside tc_malloc. Its entry points
 * tail-call their slow paths (jemalloc's malloc jumps to malloc_default),
 * so a thread inside it need not have a return address into malloc:
 * one into any of its code is the sign, hence the library's whole code;
 * a function pointer the program keeps there (mallctl) is told from a
 * return address by the call before it. Its background threads (jemalloc's
 * background_thread) wait in futex: never borrowed. The tracer library
 * (a detach, an attach again) is avoided whole for its own locks (the
 * entries' lock, the modules' spin lock). Remaining risk: an allocator
 * linked into the program tail-calling an internal function that blocks
 * holding a lock (only its malloc family's ranges are known there).
 *
 * Every other
 * thread is let go before the call: dlopen then waits, as any caller would,
 * for a lock another thread holds, instead of deadlocking on a stopped
 * holder. When no thread qualifies, the process is let go and frozen again
 * after a short nap, up to INJECT_CALL_TRIES times, then refused ("no
 * thread of PID is waiting in a system call outside the allocator and the
 * loader"). Remaining risk, stated: a signal handler that interrupted
 * malloc through a tail call and then blocks in one of the listed calls
 * would pass the scan.
 *
 * How a call is made: the thread's registers and x87/SSE state are saved;
 * its signals are blocked but the synchronous ones (a blocked forced
 * signal would reset the process's handler to the default); the strings
 * are written below its stack's red zone, with a return address that is
 * never mapped (below mmap_min_addr); the thread runs from the function's
 * entry with orig_rax -1 (no restart of the interrupted call) and ends in
 * a SIGSEGV at that address, seen at its signal-delivery stop, never
 * delivered. Another signal met meanwhile is delivered (its stop resumed
 * with it). Its errno (found by a first call of libc's
 * __errno_location) is read before the calls and written back after
 * them: dlopen sets it, and the thread, back from its interrupted call,
 * must see its own. After the last call, the saved registers go back at that
 * stop and the thread is detached from it: the kernel's own restart rules
 * (arch_do_signal_or_restart) then restart the interrupted system call as
 * after a SIGSTOP/SIGCONT. A call is waited for as long as the thread
 * lives (it is never let go in the middle of dlopen).
 */
#ifndef VMS_INJECT_CALL_H
#define VMS_INJECT_CALL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"

#define INJECT_CALL_TRIES 100

/* What one injection did: fn's result, how long the process was frozen
 * (all threads) and how long the borrowed thread was held. */
struct inject_call_result {
	long ret;
	uint64_t frozen_us, held_us;
	pid_t tid;
};

/* The checks inject_lib_call() makes before it stops anything (pid not
 * stopped, not dumping core, its libc's dlopen found): 0, or -1 with *err
 * saying why it would be refused. For a caller with work to do before the
 * injection that is of no use if it is refused. */
int inject_lib_check(pid_t pid, struct vms_error *err);

/* 0 with *res, or -1 with *err (nothing changed in pid, unless the
 * message says the call ran). */
int inject_lib_call(pid_t pid, const char *lib, bool load, const char *fn,
		    const char *arg, struct inject_call_result *res,
		    struct vms_error *err);
/* The same, then, when fn returned 0 or more, in the same stop of the
 * same thread: between(ctx), run in vmscope's injecting child (a fork of
 * the caller: only what it stores to memory shared with the target or
 * the kernel is seen after; it runs while the borrowed thread waits at
 * its SIGSEGV stop, so it must not fail: a crash there would let that
 * signal kill the target), then fn2() (dlsym'd with fn, before either
 * runs; no argument), whose result res->ret is (fn's where fn returned
 * less than 0). An error after fn ran says so. */
int inject_lib_call_then(pid_t pid, const char *lib, bool load, const char *fn,
			 const char *arg, void (*between)(void *ctx), void *ctx,
			 const char *fn2, struct inject_call_result *res,
			 struct vms_error *err);

#endif
