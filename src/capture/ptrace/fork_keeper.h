/* fork_keeper.h — the process that does every ptrace step of a fork
 * capture, so that vmscope can die at any moment without harm.
 *
 * Contract: keeper_start() forks a keeper (its own session, deaf to
 * SIGINT/SIGTERM/SIGHUP/SIGPIPE, no parent-death signal, every descriptor
 * but its socket closed) that freezes every thread of the target and reports
 * the threads back (k->fz: tids and registers; nothing in it is seized by
 * this process). While keeper_start()'s caller reads the original's
 * counters, the target stays frozen. Then either keeper_fork() — the keeper
 * injects clone(exit signal 0, an unmapped stack) into one thread with every
 * signal blocked, restores that thread exactly, lets the target go, stops
 * the clone at its first stop before it ran an instruction, sets
 * PTRACE_O_EXITKILL and RLIMIT_CORE 0 on it, runs close_range(0, ~0) in
 * it (so it holds none of the target's sockets, locks or pipes), and
 * reports its pid and the freeze time — or keeper_release(), which lets
 * the target go without a fork and reports the freeze time (a capture
 * that will never read memory), or keeper_stop() without either, which
 * lets the target go.
 *
 * The keeper never holds the target more than max_ms waiting for the fork
 * request, nor once vmscope has stayed stopped (^Z, SIGSTOP) for 1 s: such
 * a vmscope gets a "let go" error from keeper_fork() or keeper_release()
 * instead. A vmscope that dies while the keeper is still stopping threads
 * (its socket reads EOF) makes the freeze give up at once.
 *
 * The pss sampler's --freeze is a keeper without a fork (keeper_start,
 * keeper_release): a thread that had not stopped when the target is let
 * go (stuck in the kernel) stays traced by the keeper only until the
 * keeper exits, and the kernel then detaches it, its signal kept; vmscope
 * itself never traces anything, so it has nothing to reap later.
 *
 * keeper_stop() after a fork: the keeper freezes the whole target, kills
 * the clone, reaps it as its tracer, and has the target itself reap the
 * zombie the kernel then hands it (wait4(clone, __WALL|WNOHANG) injected
 * into one thread) before letting it go: no SIGCHLD (exit signal 0), no
 * zombie, and a thread of the target blocked in waitpid(-1, __WALL) never
 * gets it. The keeper also kills the clone when vmscope has stayed stopped
 * (^Z) for 3 s.
 *
 * Before each injected call the keeper checks, inside the freeze, that the
 * instruction it borrows is still a system call in executable memory (else
 * finds one again: libc, then the vDSO), borrows only a thread without a
 * seccomp filter, and turns Syscall User Dispatch off on it for the call
 * (restored after). An exec or the death of the target ends the capture
 * with a message; no wait is unbounded (inject.h, freeze.h), but one: an
 * injected fork that has not returned in time (it waits in the kernel,
 * where an interrupt does not reach) is never let go in the middle. The
 * keeper then lets the target's other threads go, answers vmscope at once
 * (keeper_fork() fails with the message and does not wait for the
 * keeper), and stays to hold that thread until its call returns, then
 * puts the thread back and kills the clone.
 *
 * If vmscope dies (any signal, SIGKILL included), the keeper reads EOF on
 * its socket at its next step, finishes the step it is in (never leaving the
 * target stopped or with its registers changed), kills and reaps the clone
 * as above, and exits. If the keeper itself is SIGKILLed, the kernel kills
 * the clone (EXITKILL) and detaches the target.
 *
 * Remaining risk: setsid() leaves the session, not the cgroup. A SIGKILL to
 * every process of vmscope's cgroup (systemctl stop or kill of its unit,
 * an OOM kill of the group, cgroup.kill) kills the keeper with vmscope.
 * The kernel then detaches the target and kills the clone (EXITKILL), but
 * nothing reaps the clone's zombie in the target (exit signal 0: no
 * SIGCHLD): it stays until the target waits for any child, and the target
 * is let go wherever it was: with its own registers between steps, but
 * if the kill lands while an injected call runs, the injected thread
 * resumes at the gadget with the call's registers, which corrupts the
 * target (the keeper keeps that window to a few system calls). Run vmscope
 * outside the cgroup of a unit that may be stopped meanwhile.
 *
 * The same for a keeper killed between the clone's birth and its first
 * stop (EXITKILL and RLIMIT_CORE 0 are set on it there: a clone takes its
 * tracer's options from the thread it was cloned from, and the target's
 * never has EXITKILL): the clone runs, on its unmapped stack, every signal
 * blocked, so its first fault kills it at once (the target's handlers are
 * not run), but it may dump core under the target's own RLIMIT_CORE and
 * core_pattern (0 by default on Debian; a unit's limit under systemd). The
 * tests that kill the keeper at that moment leave such lines in the kernel
 * log ("segfault at 100 ... sp 0000000000000100"). Setting the limit on
 * the target before the clone would close it, at the price of a target
 * left with RLIMIT_CORE 0 should the keeper die in between: not done.
 */
#ifndef VMS_FORK_KEEPER_H
#define VMS_FORK_KEEPER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"
#include "capture/ptrace/freeze.h"

struct fork_keeper {
	pid_t keeper, target, clone;
	int sock;
	struct freeze fz; /* the frozen threads as the keeper saw them */
	uint64_t frozen_us;
};

/* Starts the keeper and returns with the target frozen (for max_ms at
 * most, and never while vmscope stays stopped for a second). instead:
 * what a refusal tells the user to do instead ("use -b pss", "without
 * --freeze"). gadget 0: a freeze only (pss --freeze), to be ended by
 * keeper_release(), never keeper_fork(). On failure nothing is left
 * frozen and the keeper is gone. */
int keeper_start(struct fork_keeper *k, pid_t target, uint64_t gadget,
		 int max_ms, const char *instead, struct vms_error *err);
/* Forks the target; on return the target runs and k->clone is stopped. On
 * failure the keeper has let the target go, and no clone lives. */
int keeper_fork(struct fork_keeper *k, struct vms_error *err);
/* Lets the target go without a fork and sets k->frozen_us; k->fz stays
 * until keeper_stop(). On failure (the keeper had let the target go after
 * max_ms, or died) the error says so and keeper_stop() has been called. */
int keeper_release(struct fork_keeper *k, struct vms_error *err);
/* Whether the keeper has died (its socket reads EOF within ms): the
 * kernel then detached the target and killed the clone (EXITKILL). */
bool keeper_gone(const struct fork_keeper *k, int ms);
/* Lets the target go (no fork yet) or kills the clone; waits for the
 * keeper to finish and reaps it. Idempotent. */
void keeper_stop(struct fork_keeper *k);

#endif
