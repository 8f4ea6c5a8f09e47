/* freeze.h — stop every thread of a process with ptrace, and let it go.
 *
 * Contract: freeze_stop() PTRACE_SEIZEs every thread (re-reading
 * /proc/PID/task until the set is stable), PTRACE_INTERRUPTs each, waits for
 * each to stop (bounded: a thread in uninterruptible sleep fails the freeze
 * rather than hang it) and saves its registers. freeze_release() detaches
 * every thread, re-delivering any signal that arrived while it was stopped,
 * and returns how long the process was stopped. A process that was already
 * stopped by SIGSTOP stays stopped after release (the kernel puts a seized
 * thread back into its group stop on detach, by waking it to stop again:
 * freeze_release() waits, at most a second, until each thread shows it
 * stopped, so that it never looks running after vmscope). A process dumping core
 * (status CoreDumping: 1) is refused before anything is seized: an
 * interrupt would end the kernel's write of its core.
 *
 * If vmscope dies while a process is frozen, the kernel detaches and resumes
 * its threads: PTRACE_O_EXITKILL is never set on the target (it would kill
 * it); the one option set is PTRACE_O_TRACEEXEC (below).
 *
 * Hostile targets: every wait is bounded and polls every seized thread by
 * its id, so an exit is reaped as it comes (a zombie main thread is
 * reported only after its traced siblings are; an exec waits in de_thread
 * for them); a PTRACE_SEIZE blocked on an exec's cred_guard_mutex is
 * interrupted by a timer (SIGRTMAX-1, its handler installed only around
 * the call) whose handler reaps the exits of the threads already seized. The
 * threads are seized with PTRACE_O_TRACEEXEC: an exec during the freeze
 * fails it ("try again"), never passes a new program for the old one; so
 * does a seized thread that stops being ours without an exit (ECHILD: an
 * exec by another thread took its tid, the main thread let go without a
 * report), since the stop seen of the pid was then another task's. A
 * thread that exited (a main thread that called pthread_exit) is listed
 * neither seized nor stopped. A signal met at any stop is handed back at
 * detach, also when the freeze is refused.
 *
 * Interrupted system calls: a freeze never writes a register. A thread
 * PTRACE_INTERRUPTed in a blocking call stops in the kernel's signal path
 * (get_signal) with the call's -ERESTART* code in its registers; the
 * detach lets get_signal go on, so the kernel itself restarts the call,
 * or, if a signal's handler runs, makes it fail with EINTR (ERESTARTNOHAND,
 * and ERESTARTSYS without SA_RESTART): what a SIGSTOP/SIGCONT does. As
 * after each SIGSTOP/SIGCONT, the calls the kernel never restarts after a
 * stop (epoll_wait, semtimedop, sigtimedwait: signal(7)) fail with EINTR
 * once per freeze, and a capture may freeze more than once
 * (tests/live/test_restart_calls.py).
 *
 * One struct freeze per frozen process; the only state kept across them is
 * the list of leftovers (below) and, during a PTRACE_SEIZE, the freeze the
 * timer's handler reaps for.
 */
#ifndef VMS_FREEZE_H
#define VMS_FREEZE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "base/error.h"

struct freeze_thread {
	pid_t tid;
	bool seized, stopped; /* a zombie (exited) thread is neither */
	bool dead; /* seized, then seen dead before it stopped (a main
		    * thread, reported only after its siblings): its exit
		    * reaped when it comes, not waited for as a stop */
	int pending_sig; /* signal that stopped it instead of our interrupt */
	struct user_regs_struct regs; /* valid when stopped */
	uint32_t regs_len; /* bytes of regs the kernel gave (a 32-bit
			    * thread's view is shorter) */
};

/* How a freeze is made. */
struct freeze_how {
	int wait_ms; /* the longest wait for a thread to leave the kernel or
		      * to stop; then the freeze is refused */
	/* What to do instead, ending a refusal's "try again, or ...": true
	 * of the sampler in use ("without --freeze", "use -b pss"); NULL:
	 * "without --freeze". */
	const char *instead;
	/* A descriptor that becomes readable (an EOF) when whoever asked for
	 * the freeze is gone: the freeze then gives up at once, as for a
	 * held-back Ctrl-C; -1 for none. */
	int cancel_fd;
};

struct freeze {
	pid_t pid;
	struct freeze_how how;
	struct freeze_thread *t;
	size_t n, cap;
	uint64_t t_stop_ns; /* vms_mono_ns() as the stop began */
	sigset_t oldmask; /* vmscope's own, restored at release */
	bool masked;
	bool exec_seen; /* a thread ran execve while being stopped */
	bool interrupted; /* given up for a pending SIGINT/TERM/HUP/QUIT */
	bool job_stopped; /* SIGSTOPped before: waited for to stop again */
};

/* Waits at most ns nanoseconds, less when a child or tracee changes state
 * (SIGCHLD, in a process that blocks it, as the keeper does: the waits for
 * a thread to stop then end when it stops, not at the next poll); the
 * caller polls waitpid() again after it, whatever woke it. */
void freeze_nap(long ns);

/* Whether pid is dumping core now (its status's CoreDumping: 1; unknown:
 * false): freeze_stop() refuses it; a caller may say so before anything
 * else is done to it. */
bool freeze_dumping_core(pid_t pid);

/* Stops every thread of pid. A thread in uninterruptible sleep (D: disk
 * I/O, a vfork parent) is waited for up to wait_ms, then the freeze is
 * refused without stopping anything. On failure nothing stays stopped.
 * While frozen, SIGINT, SIGTERM, SIGHUP and SIGQUIT are held back in
 * vmscope, so a Ctrl-C lands after the target is let go (a signal that
 * reaches the target meanwhile is handed back to it at release); one that
 * comes while freeze_stop() is still stopping threads makes it give up at
 * once (EINTR, f->interrupted), the target let go. */
int freeze_stop(struct freeze *f, pid_t pid, const struct freeze_how *how,
		struct vms_error *err);

/* Detaches every stopped thread but keep (its signal handed back), which
 * stays seized for freeze_release(). */
void freeze_release_others(struct freeze *f, pid_t keep);

/* Detaches every thread (idempotent). A thread killed while frozen is
 * reaped back to its parent. Returns the stopped time in us. */
uint64_t freeze_release(struct freeze *f);

/* A thread that was interrupted but had not stopped by release (it was
 * stuck in the kernel) stops later, traced by this process: this detaches
 * such threads as soon as they stop. Called by every freeze. vmscope makes
 * its freezes in short-lived keeper processes (fork_keeper.h), whose exit
 * makes the kernel detach whatever is left, its signal kept: nothing
 * long-running needs to call this. Returns how many are still waited
 * for. */
size_t freeze_reap_leftovers(void);

/* Whether stopped thread t is still the task the freeze stopped, where it
 * stopped: ptrace can read its registers and they are those saved, as
 * many bytes as then (a stopped thread's never change; a 32-bit thread's
 * view is shorter). Checked right before a thread's registers are
 * changed: a task that took its tid meanwhile (an exec) has others, or
 * is not stopped. */
bool freeze_thread_same(const struct freeze_thread *t);

/* The stack pointer in saved registers. */
uint64_t freeze_regs_sp(const struct user_regs_struct *r);

#endif
