/* freeze.h — stop every thread of a process with ptrace, and let it go.
 *
 * Contract: freeze_stop() PTRACE_SEIZEs every thread (re-reading
 * /proc/PID/task until the set is stable), PTRACE_INTERRUPTs each, waits for
 * each to stop (bounded: a thread in uninterruptible sleep fails the freeze
 * rather than hang it) and saves its registers. freeze_release() detaches
 * every thread, re-delivering any signal that arrived while it was stopped,
 * and returns how long the process was stopped. A process that was already
 * stopped by SIGSTOP stays stopped after release (the kernel puts a seized
 * thread back into its group stop on detach).
 *
 * If vmscope dies while a process is frozen, the kernel detaches and resumes
 * its threads: ptrace options are never set on the target (PTRACE_O_EXITKILL
 * would kill it).
 *
 * One struct freeze per frozen process; nothing global.
 */
#ifndef VMS_FREEZE_H
#define VMS_FREEZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/user.h>
#include <time.h>

#include "error.h"

struct freeze_thread {
	pid_t tid;
	bool seized, stopped;
	int pending_sig; /* signal that stopped it instead of our interrupt */
	struct user_regs_struct regs; /* valid when stopped */
};

struct freeze {
	pid_t pid;
	struct freeze_thread *t;
	size_t n, cap;
	struct timespec t_stop, t_run;
	sigset_t oldmask; /* vmscope's own, restored at release */
	bool masked;
};

/* Stops every thread of pid. A thread in uninterruptible sleep (D: disk
 * I/O, a vfork parent) is waited for up to wait_ms, then the freeze is
 * refused without stopping anything. On failure nothing stays stopped.
 * While frozen, SIGINT, SIGTERM, SIGHUP and SIGQUIT are held back in
 * vmscope, so a Ctrl-C lands after the target is let go (a signal that
 * reaches the target meanwhile is handed back to it at release). */
int freeze_stop(struct freeze *f, pid_t pid, int wait_ms,
		struct vms_error *err);

/* Detaches every thread (idempotent). A thread killed while frozen is
 * reaped back to its parent. Returns the stopped time in us. */
uint64_t freeze_release(struct freeze *f);

/* A thread that was interrupted but had not stopped by release (it was
 * stuck in the kernel) stops later, traced by vmscope: this detaches such
 * threads as soon as they stop. Called by every freeze; a long-running
 * caller (the viewer) also calls it from its loop. Returns how many are
 * still waited for. */
size_t freeze_reap_leftovers(void);

/* The stack pointer in saved registers. */
uint64_t freeze_regs_sp(const struct user_regs_struct *r);

#endif
