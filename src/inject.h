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
 *  - inject_syscall() (fork_keeper.c) runs one call in a thread that the
 *    caller has seized and stopped at an interrupt stop, and puts back the
 *    registers given. The caller moves an ip inside an rseq critical
 *    section to the section's abort ip first (fork_keeper.c rseq_fixup):
 *    resuming at the gadget clears the thread's rseq_cs.
 * Nothing here prints or exits; errors come back as struct vms_error.
 */
#ifndef VMS_INJECT_H
#define VMS_INJECT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "error.h"

/* The native numbers of the calls vmscope injects. */
extern const long inject_nr_clone, inject_nr_wait4;
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

/* Runs syscall nr(a) in thread tid, seized with PTRACE_O_TRACESYSGOOD and
 * at an interrupt stop with the registers saved, and leaves it at an interrupt stop again with
 * exactly saved. *ret gets the result; *child the pid the kernel reported
 * in a PTRACE_EVENT_CLONE/FORK stop (0 if none; the caller set the
 * options). A signal-delivery stop met on the way stores its signal in *sig
 * (the caller re-delivers it at detach).
 *
 * Restarting: the registers are put back at the syscall-exit stop and the
 * thread is sent through one more interrupt stop before it may return to
 * user mode, so the kernel's own signal path (arch_do_signal_or_restart)
 * sees the interrupted call's -ERESTART* code and restarts it, or turns it
 * into EINTR for a handler without SA_RESTART, exactly as if vmscope had
 * never run a call in between. (A departure from rewriting ip/ax by hand as
 * CRIU does: that restarts even where a handler should see EINTR.) */
int inject_syscall(pid_t tid, const struct user_regs_struct *saved,
		   uint64_t gadget, long nr, const uint64_t a[6], long *ret,
		   pid_t *child, struct vms_error *err);

#endif
