/* fork_clone.h — what the keeper (fork_keeper.c) does to make the clone
 * and to make it go away, each step with the target frozen by the keeper.
 *
 * Contract: fork_clone_make() borrows one stopped thread of the frozen
 * target (never one with a seccomp filter or a signal to hand back; one
 * outside an rseq critical section if it can), checks the system-call
 * instruction at *gadget in memory right before it runs (found again in
 * libc or the vDSO if it moved or was rewritten), turns Syscall User
 * Dispatch off for the call, runs clone(exit signal 0, an unmapped stack)
 * in it with every signal blocked and restores the thread exactly; *clone
 * is the clone's pid here (0 if none was made), also on failure. A call
 * that does not return in time is held, never let go (inject.h's late). fork_clone_first_stop()
 * takes the clone at its first stop, before it ran an instruction: EXITKILL,
 * RLIMIT_CORE 0, close_range(0, ~0) run in it; *clone_ns is its pid in the
 * target's namespace. fork_clone_kill() freezes the whole target, kills
 * the clone, reaps it as its tracer and has the target reap the zombie
 * (wait4(clone_ns, __WALL|WNOHANG) injected into one thread), retrying
 * while the target cannot be frozen; it returns when the clone is gone for
 * good or the target is. Each returns 0 or -1 with *err (none for kill).
 */
#ifndef VMS_FORK_CLONE_H
#define VMS_FORK_CLONE_H

#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"
#include "capture/ptrace/freeze.h"
#include "capture/ptrace/inject.h"

int fork_clone_make(struct freeze *f, uint64_t *gadget, pid_t *clone,
		    const struct inject_late *late, struct vms_error *err);
int fork_clone_first_stop(pid_t clone, pid_t *clone_ns, uint64_t gadget,
			  struct vms_error *err);
void fork_clone_kill(pid_t target, pid_t clone, pid_t clone_ns,
		     uint64_t gadget);

#endif
