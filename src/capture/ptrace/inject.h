/* inject.h — making a stopped thread of another process execute one system
 * call, without writing a byte into that process.
 *
 * Contract:
 *  - The arch part (inject_x86_64.c, inject_aarch64.c: exactly one is
 *    compiled in) decodes machine code to find a system-call instruction at
 *    an instruction boundary, prepares registers for a call and reads its
 *    result.
 *  - inject_find_gadget() (fork_gadget.c) finds such an instruction that
 *    already exists in the target: libc's syscall() function, located
 *    through its ELF dynamic symbol and the mapping that holds it, else a
 *    function of the vDSO. The code is read from the mapped file (or, for
 *    the vDSO, from the target's memory): it never faults a page into the
 *    target.
 *  - The ptrace part (inject_ptrace.c): inject_syscall() runs one call in
 *    a thread that the caller has seized and stopped at an interrupt stop,
 *    and puts back the registers given, through one more interrupt stop so
 *    that the kernel's own restart rules apply to an interrupted call (no
 *    ip/ax rewriting by hand). The caller gives registers fixed up for rseq
 *    first (inject_rseq_fixup: resuming at the gadget clears the thread's
 *    rseq_cs, so an ip left inside a critical section would be
 *    unprotected). A signal met at a stop on the way is handed back at that
 *    stop as resume data (siginfo kept), never suppressed and re-sent.
 * Nothing here prints or exits; errors come back as struct vms_error.
 */
#ifndef VMS_INJECT_H
#define VMS_INJECT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "base/error.h"

/* The native numbers of the calls vmscope injects. */
extern const long inject_nr_clone, inject_nr_wait4, inject_nr_close_range;
/* Bytes of the system-call instruction (x86_64 syscall: 2, aarch64 svc: 4). */
extern const size_t inject_insn_len;

/* Offset of the first system-call instruction found by decoding code[0,len)
 * from its first byte, instruction by instruction; -1 if there is none or
 * an instruction the decoder does not know comes first. */
long inject_decode_syscall(const uint8_t *code, size_t len);

/* Whether saved registers belong to a thread this build can inject into
 * (x86_64: a 64-bit code segment, not a 32-bit compat process). */
int inject_regs_native(const struct user_regs_struct *r);

/* r: registers saved at an interrupt stop; sets r to run syscall nr with
 * args a[0..5] at the instruction at gadget. */
void inject_prepare(struct user_regs_struct *r, uint64_t gadget, long nr,
		    const uint64_t a[6]);

/* The instruction pointer in saved registers, and setting it. */
uint64_t inject_regs_ip(const struct user_regs_struct *r);
void inject_regs_set_ip(struct user_regs_struct *r, uint64_t ip);

/* The return value (or -errno) in registers read at the syscall-exit stop. */
long inject_result(const struct user_regs_struct *r);

/* The stack pointer the clone is given: unmapped, so that should it ever
 * run, its first stack access faults and (signals blocked) kills it. */
uint64_t inject_dead_sp(void);

/* Finds a system-call instruction mapped executable in pid. */
int inject_find_gadget(pid_t pid, uint64_t *addr, struct vms_error *err);
/* The same, in the vDSO only (inject_find_gadget's last resort). */
int inject_find_gadget_vdso(pid_t pid, uint64_t *addr, struct vms_error *err);

/* ---- inject_ptrace.c: the thread is one the caller has seized ---- */

/* Registers of a stopped tracee (PTRACE_GETREGSET NT_PRSTATUS); 0 or -1. */
int inject_getregs(pid_t tid, struct user_regs_struct *r);

/* Waits up to ms for tid's next report: 0 with *st when it stopped; -1
 * with errno ESRCH when it exited, ETIMEDOUT when nothing came. Meanwhile
 * it reaps the exits of tid's sibling threads (the caller traces them all:
 * the freeze), peeked with WNOWAIT so their stops stay theirs, as gdb and
 * strace reap: a killed target's zombie threads, an exec's de_thread and a
 * zombie main thread's own report never wait on us. */
int inject_wait_stop(pid_t tid, int *st, int ms);

/* Syscall User Dispatch (as Wine uses): a thread with it on gets SIGSYS
 * for a system call made outside its allowed range, the injected one
 * included. inject_sud_off() saves tid's configuration and turns it off
 * (0; also when the kernel has no SUD); inject_sud_restore() puts it back.
 * Layout of struct ptrace_sud_config. */
struct inject_sud {
	uint64_t mode, selector, offset, len;
};
int inject_sud_off(pid_t tid, struct inject_sud *saved);
void inject_sud_restore(pid_t tid, const struct inject_sud *saved);

/* Checks, at the moment of use, that gadget in pid is executable and that
 * its bytes (read through /proc/PID/mem, present pages only) are still a
 * system-call instruction: a libc rewritten in memory (syscall
 * interceptors, hot patches: ud2, jmp .) or an exec since the gadget was
 * found fails with a message. 0 or -1. */
int inject_verify_gadget(pid_t pid, uint64_t gadget, struct vms_error *err);

/* The signal of a signal-delivery stop st (resume with it as data to
 * deliver it, siginfo kept), or 0 for any other stop: syscall stops (with
 * PTRACE_O_TRACESYSGOOD), ptrace events, group and interrupt stops. */
int inject_delivery_sig(int st);

/* rseq: 1 with *abort_ip when r's ip lies inside the rseq critical section
 * that tid (stopped with registers r) has entered (its rseq_cs read through
 * PTRACE_GET_RSEQ_CONFIGURATION and /proc/TID/mem), 0 when not, when tid
 * has no rseq, or when the kernel cannot say. Valid only before tid is
 * resumed anywhere: its return to user mode clears rseq_cs. */
int inject_rseq_abort_ip(pid_t tid, const struct user_regs_struct *r,
			 uint64_t *abort_ip);
/* Moves r's ip to that abort ip, as the kernel would on preemption; 1 when
 * it did. Call once per stop, before the first inject_syscall(). */
int inject_rseq_fixup(pid_t tid, struct user_regs_struct *r);

/* Runs syscall nr(a) in thread tid, seized with PTRACE_O_TRACESYSGOOD and
 * at an interrupt stop, and leaves it at an interrupt stop again with
 * exactly saved (the registers saved at that stop, after
 * inject_rseq_fixup()). Returns 0 with *ret the result (or -errno), or -1
 * with *err when the call could not run or the thread could not be put
 * back (it exited). *child gets the pid the kernel reported in a
 * PTRACE_EVENT_CLONE/FORK stop (0 if none; the caller set the options).
 * The caller blocks the thread's signals for the call (PTRACE_SETSIGMASK);
 * a signal-delivery stop met on the way (SIGSTOP, a forced synchronous
 * signal) is resumed with its signal: a blocked one is queued again with
 * its siginfo and delivered once the caller restores the mask.
 *
 * Restarting: the registers are put back at the syscall-exit stop and the
 * thread is sent through one more interrupt stop before it may return to
 * user mode, so the kernel's own signal path (arch_do_signal_or_restart)
 * sees the interrupted call's -ERESTART* code and restarts it, or turns it
 * into EINTR for a handler without SA_RESTART, exactly as if vmscope had
 * never run a call in between. (A departure from rewriting ip/ax by hand as
 * CRIU does: that restarts even where a handler should see EINTR.) */
/* A call that has not returned after INJECT_CALL_MS, nor stopped for a
 * PTRACE_INTERRUPT within a further 2 s, waits in the kernel where only a
 * fatal signal or what it waits for ends it (a fork waiting for a
 * userfaultfd monitor: fork_preflight.h). The thread is never let go in
 * the middle of the call (it would return into the injected registers):
 * late->fn(late->arg, tid) is called once (the keeper lets the process's
 * other threads go, so that one of them can end the wait, and tells
 * vmscope), and inject_syscall() then waits for as long as the thread
 * lives, puts its registers back as above when the call returns, and
 * returns -1 with *child set if a child was made. late may be NULL. */
#define INJECT_CALL_MS 30000
struct inject_late {
	void (*fn)(void *arg, pid_t tid);
	void *arg;
};

int inject_syscall(pid_t tid, const struct user_regs_struct *saved,
		   uint64_t gadget, long nr, const uint64_t a[6], long *ret,
		   pid_t *child, const struct inject_late *late,
		   struct vms_error *err);

#endif
