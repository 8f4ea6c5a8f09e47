/* freeze_exec.c — who is at the pid: an exec during a freeze (freeze.h).
 *
 * An exec by a thread other than the main one gives that thread the pid
 * (de_thread) and lets the old main thread go with no report to the
 * tracer, so a stop the freeze saw of the pid may be the old main
 * thread's, whose registers must never be put into the new program. Here:
 * a thread's registers as ptrace gives them, whether a stopped thread is
 * still where it stopped, the pid's entry made the task's there now, what
 * a thread that changed was (a new program, or a kill). The freeze's own
 * steps and state are freeze.c's; what the two share, freeze_priv.h.
 */
#include "capture/ptrace/freeze.h"
#include "capture/ptrace/freeze_priv.h"

#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <time.h>

#include "linux/procfs.h"
#include "linux/procthread.h"

/* Thread tid's registers into *r (zeroed first) and their length into
 * *len; -1 when ptrace will not (not ours, or not stopped). */
int freeze_read_regs(pid_t tid, struct user_regs_struct *r, uint32_t *len)
{
	struct iovec iov = { r, sizeof(*r) };

	memset(r, 0, sizeof(*r));
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &iov) < 0)
		return -1;
	*len = (uint32_t)iov.iov_len;
	return 0;
}

/* Whether registers read now are t's as saved. */
static bool regs_same(const struct freeze_thread *t,
		      const struct user_regs_struct *now, uint32_t len)
{
	return len == t->regs_len && memcmp(now, &t->regs, len) == 0;
}

bool freeze_thread_same(const struct freeze_thread *t)
{
	struct user_regs_struct now;
	uint32_t len;

	return t->stopped && freeze_read_regs(t->tid, &now, &len) == 0 &&
	       regs_same(t, &now, len);
}

/* The pid's entry made the task's there now: its stop kept if that task
 * is the one stopped (its registers as saved), taken again if it is
 * another of ours stopped (the thread that ran an exec, under the pid
 * now: exec_seen), waited for again if it is ours and running
 * (interrupted), let go if it is not ours. An exec by a thread other
 * than the main one gives it the pid and lets the main thread go
 * without a report, so a stop of the pid seen before may be the old
 * main thread's, whose registers must never be put into the new program
 * (tests/unit/test_freeze.c, the exec race). Asked by ptrace itself, not
 * by /proc's TracerPid: the same in any pid namespace, and for a caller
 * that is the process's parent too (a wait for the pid then never says
 * ECHILD). */
void freeze_recheck_pid(struct freeze *f)
{
	struct freeze_thread *t = freeze_find_thread(f, f->pid);
	struct user_regs_struct now;
	uint32_t len;

	if (!t || !t->seized)
		return;
	if (freeze_read_regs(f->pid, &now, &len) == 0) { /* ours, stopped */
		if (!t->stopped)
			return; /* its report is on its way to wait_stops */
		if (regs_same(t, &now, len))
			return;
		f->exec_seen = true; /* another stop than the one seen */
		t->regs = now;
		t->regs_len = len;
		t->pending_sig = 0;
		return;
	}
	if (procthread_dead(f->pid, f->pid)) {
		/* killed, or it called pthread_exit: no other task. Its exit
		 * comes only as the process's (a zombie main thread is
		 * reported after its siblings): still polled, and reaped
		 * when it comes (at the release, for a process dying), but
		 * not waited for as a stop */
		t->dead = true;
		t->stopped = false;
		return;
	}
	if (ptrace(PTRACE_INTERRUPT, f->pid, NULL, NULL) < 0 &&
	    errno == ESRCH) {
		f->exec_seen = true; /* not ours: the task there changed */
		t->seized = t->stopped = false;
		return;
	}
	if (t->stopped) { /* ours, running: another task than stopped */
		f->exec_seen = true;
		t->stopped = false;
		t->pending_sig = 0;
	}
}

/* Seized thread tid has stopped being ours without an exit reported
 * (ECHILD), or its tid is gone right after its seize (ESRCH): its tid
 * names another task now. Only an exec by a thread other than the main
 * one does that. The freeze then fails (exec_seen). If tid was not the
 * pid, it may be the thread that ran the exec, seized by a call that
 * waited for the exec to let the process's cred_guard_mutex go: ours
 * under the pid now, never interrupted. The pid's entry (made if none)
 * is then looked at again (freeze_recheck_pid). A signal the old main
 * thread stopped for is not handed to the new program (whose handlers
 * are gone: it would mostly kill it). */
void freeze_exec_took_tid(struct freeze *f, pid_t tid)
{
	struct freeze_thread *t;

	f->exec_seen = true;
	if (tid == f->pid)
		return; /* the pid's task is not ours */
	t = freeze_find_thread(f, f->pid);
	if (!t)
		t = freeze_add_thread(f, f->pid);
	if (!t)
		return; /* out of memory: the kernel detaches it at our exit */
	t->seized = true;
	t->dead = false; /* whatever the old main thread was */
	freeze_recheck_pid(f);
}

/* Whether every thread of pid has exited (or pid is gone), as one look
 * at the task list sees them. */
static bool all_dead_now(pid_t pid)
{
	pid_t *tids;
	size_t n, i;
	bool yes = true;

	if (procfs_list_tasks(pid, &tids, &n) < 0)
		return kill(pid, 0) < 0 && errno == ESRCH;
	for (i = 0; i < n && yes; i++)
		yes = procthread_dead(pid, tids[i]);
	free(tids);
	return yes;
}

/* all_dead_now(), twice, 1 ms apart: a thread that execs takes the pid
 * and its own tid goes (unreadable, taken for dead) while the old main
 * thread, read a moment before, was still a zombie; the next look sees
 * the pid's new thread (test_freeze's exec race: 1 freeze in 3000 said
 * "killed or exited" so, on a loaded 2-core machine). */
static bool all_dead(pid_t pid)
{
	struct timespec ts = { 0, 1000000 };

	if (!all_dead_now(pid))
		return false;
	nanosleep(&ts, NULL);
	return all_dead_now(pid);
}

/* What a thread seen to change was (exec_seen), once the freeze let
 * everything go: a new program when a live thread without a SIGKILL
 * pending holds the pid (an exec's SIGKILLs are its other threads'); a
 * kill, or an exit, when every thread has exited. Neither yet (the old
 * main thread a zombie while the exec's thread takes the pid, or a
 * process dying): asked again, for at most 200 ms, each settling in a
 * few; then a new program is said (try again). */
bool freeze_killed_not_exec(pid_t pid)
{
	int i;

	for (i = 0; i < 200; i++) {
		struct timespec ts = { 0, 1000000 };

		if (!procthread_dead(pid, pid) &&
		    procthread_sigkill_pending(pid, pid) == 0)
			return false;
		if (all_dead(pid))
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}
