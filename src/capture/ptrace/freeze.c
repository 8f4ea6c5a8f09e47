#include "capture/ptrace/freeze.h"
#include "capture/ptrace/freeze_priv.h"

#include <elf.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "linux/procfs.h"
#include "linux/procthread.h"

/* The one ptrace option a freeze sets: an exec by any thread stops it
 * (PTRACE_EVENT_EXEC) and is seen, instead of a new program being taken for
 * the old one. Options die with a detach or with the tracer. */
#define FREEZE_OPTIONS PTRACE_O_TRACEEXEC

uint64_t freeze_regs_sp(const struct user_regs_struct *r)
{
#if defined(__x86_64__)
	return r->rsp;
#elif defined(__aarch64__)
	return r->sp;
#else
	(void)r;
	return 0;
#endif
}

void freeze_nap(long ns)
{
	struct timespec ts = { 0, ns };
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	/* a SIGCHLD, the time up (EAGAIN) or another signal: the caller
	 * polls again whichever it was */
	(void)sigtimedwait(&chld, NULL, &ts);
}

/* Why ptrace may refuse pid for good (EPERM): its ids against ours, Yama,
 * a root without CAP_SYS_PTRACE. false when none of them refuses; why then
 * says what else may (an exec under way refuses the pid for a moment, a
 * security module for good). */
static bool eperm_lasting(pid_t pid, char *why, size_t size)
{
	const char *w = NULL;
	char *b;
	size_t n;

	if (procfs_ids_refuse(pid, why, size))
		return true;
	if (procfs_read_file("/proc/sys/kernel/yama/ptrace_scope", &b, &n) ==
	    0) {
		int scope = atoi(b);

		free(b);
		if (scope == 3)
			w = "kernel.yama.ptrace_scope is 3: no process may be "
			    "traced";
		else if (scope == 2 && geteuid() != 0)
			w = "kernel.yama.ptrace_scope is 2: only root (with "
			    "CAP_SYS_PTRACE) may trace";
		else if (scope == 1 && geteuid() != 0)
			w = "kernel.yama.ptrace_scope forbids tracing "
			    "non-children; run as root or set it to 0";
	}
	/* root in a user namespace has every capability there, and none
	 * over a process outside it */
	if (!w && geteuid() == 0 && procfs_userns_refuses(pid, why, size))
		return true;
	if (!w && geteuid() == 0 && !procthread_self_cap_ptrace())
		w = "vmscope runs as root without CAP_SYS_PTRACE (a "
		    "container, or a dropped capability); grant it, or run as "
		    "the target's user";
	snprintf(why, size, "%s",
		 w		  ? w
		 : geteuid() != 0 ? "run as the target's user, or as root with "
				    "CAP_SYS_PTRACE"
				  : "refused though vmscope runs as root with "
				    "CAP_SYS_PTRACE (a security module?)");
	return w != NULL;
}

static int seize_error(struct vms_error *err, pid_t pid, int e, int tracer)
{
	if (e == ESRCH)
		return procfs_errno_error(err, pid, "threads", ESRCH);
	if (e == EPERM && procfs_pid_exiting(pid))
		/* ptrace refuses a process that is exiting with EPERM */
		return vms_error_set(err, VMS_ERR_CAPTURE, ESRCH,
				     "process %d exited during capture",
				     (int)pid);
	if (e == EPERM && tracer > 0 && tracer != getpid())
		return vms_error_set(err, VMS_ERR_PERM, e,
				     "process %d is already traced by process "
				     "%d (a debugger?); detach it first",
				     (int)pid, tracer);
	if (e == EPERM) {
		char why[360];

		(void)eperm_lasting(pid, why, sizeof(why));
		return vms_error_set(err, VMS_ERR_PERM, e,
				     "not permitted to stop process %d with "
				     "ptrace: %s",
				     (int)pid, why);
	}
	return vms_error_set(err, VMS_ERR_CAPTURE, e,
			     "cannot stop process %d with ptrace: %s", (int)pid,
			     strerror(e));
}

/* A PTRACE_SEIZE can block: it takes the target's cred_guard_mutex, which
 * an exec holds while it waits (de_thread) for the process's other threads
 * to be reaped, and those this freeze has seized are reaped by nobody but
 * us. So while seizing, a timer interrupts the call every few ms (it then
 * restarts: -ERESTARTNOINTR) and its handler reaps the exits of the threads
 * already seized (peeked with WNOWAIT first: their stop reports stay
 * pending: peeked first), as gdb and strace do. File scope: a signal handler's state. */
static struct freeze *volatile seizing;

static void on_seize_tick(int sig)
{
	struct freeze *f = seizing;
	int e = errno;
	size_t i;

	(void)sig;
	for (i = 0; f && i < f->n; i++) {
		siginfo_t si;

		if (!f->t[i].seized)
			continue;
		/* Peek (WNOWAIT): a ptrace stop is reported to any wait,
		 * and must stay for wait_stops(); reap only an exit. */
		si.si_pid = 0;
		if (waitid(P_PID, (id_t)f->t[i].tid, &si,
			   WEXITED | WNOHANG | WNOWAIT | __WALL) == 0 &&
		    si.si_pid == f->t[i].tid && si.si_code != CLD_TRAPPED &&
		    si.si_code != CLD_STOPPED && si.si_code != CLD_CONTINUED) {
			waitpid(f->t[i].tid, NULL, __WALL | WNOHANG);
			f->t[i].seized = false; /* exited: reaped */
		}
	}
	errno = e;
}

#define SEIZE_TICK_SIG (SIGRTMAX - 1)

/* PTRACE_SEIZE of tid, interruptible as above. 0, or -1 with errno. */
static int seize_one(struct freeze *f, pid_t tid)
{
	struct sigaction sa, old;
	struct sigevent sev;
	struct itimerspec its = { { 0, 5000000 }, { 0, 5000000 } };
	timer_t timer;
	sigset_t unblock;
	bool created = false;
	long r;
	int e;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_seize_tick;
	sigemptyset(&sa.sa_mask);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SEIZE_TICK_SIG;
	sev._sigev_un._tid = gettid();
	sigemptyset(&unblock);
	sigaddset(&unblock, SEIZE_TICK_SIG);
	if (sigaction(SEIZE_TICK_SIG, &sa, &old) == 0) {
		pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
		if (timer_create(CLOCK_MONOTONIC, &sev, &timer) == 0) {
			created = true;
			seizing = f;
			timer_settime(timer, 0, &its, NULL);
		}
	}
	r = ptrace(PTRACE_SEIZE, tid, NULL, (void *)(long)FREEZE_OPTIONS);
	e = errno;
	if (created)
		timer_delete(timer);
	seizing = NULL;
	sigaction(SEIZE_TICK_SIG, &old, NULL);
	errno = e;
	return r < 0 ? -1 : 0;
}

/* PTRACE_SEIZE of one thread. EPERM while another tracer holds the
 * process (a second capture, a debugger) is retried for a while: captures
 * are short, and the other may let go. *tracer gets the last tracer seen
 * (its pid; never this process), so the message can name it even if it let
 * go meanwhile. ESRCH for a thread that has exited (a zombie). EPERM with
 * no tracer is tried again too, as long when nothing refuses the pid for
 * good (eperm_lasting): an exec under way by a thread other than the main
 * one refuses the main thread's pid for a moment (the exiting main thread
 * is found), and a process that execs all the time, on a loaded machine,
 * was refused four times in a row (10 ms apart); "not permitted" would be
 * a lie. */
static int seize_retry(struct freeze *f, pid_t tid, int *tracer)
{
	int tries;

	*tracer = 0;
	for (tries = 0; tries < 25; tries++) {
		char why[360];
		struct timespec ts = { 0, 10000000 };
		int t;

		if (seize_one(f, tid) == 0)
			return 0;
		if (errno != EPERM)
			return -1;
		if (procthread_dead(f->pid, tid)) {
			errno = ESRCH;
			return -1;
		}
		t = procthread_tracer(f->pid, tid);
		if (t == gettid()) {
			/* ours already: seized under another tid, before an
			 * exec gave that thread this one */
			errno = EALREADY;
			return -1;
		}
		if (t > 0)
			*tracer = t;
		else if (tries >= 4 && eperm_lasting(f->pid, why, sizeof(why)))
			break; /* nobody traces it: truly not permitted */
		nanosleep(&ts, NULL);
	}
	errno = EPERM;
	return -1;
}

/* Whether a signal that ends vmscope (Ctrl-C and the like), held back
 * while frozen, is waiting: the freeze then gives up at once. */
static bool stop_requested(const struct freeze *f)
{
	sigset_t p;

	if (f->how.cancel_fd >= 0) {
		/* The keeper's socket: nothing is sent to it while it
		 * freezes, so anything readable is an EOF: vmscope died. */
		struct pollfd pf = { f->how.cancel_fd, POLLIN | POLLRDHUP, 0 };

		if (poll(&pf, 1, 0) > 0)
			return true;
	}
	if (!f->masked || sigpending(&p) < 0)
		return false;
	return sigismember(&p, SIGINT) || sigismember(&p, SIGTERM) ||
	       sigismember(&p, SIGHUP) || sigismember(&p, SIGQUIT);
}

static int interrupted(struct freeze *f, struct vms_error *err)
{
	f->interrupted = true;
	return vms_error_set(err, VMS_ERR_CAPTURE, EINTR,
			     "interrupted; process %d was let go", (int)f->pid);
}

/* Seizes every thread not yet seized. Returns how many were new, or -1. */
static int seize_new(struct freeze *f, struct vms_error *err)
{
	pid_t *tids;
	size_t n, i;
	int added = 0, tracer;

	if (procfs_list_tasks(f->pid, &tids, &n) < 0)
		return procfs_errno_error(err, f->pid, "task list", errno);
	/* the pid first (even if the list, read during an exec, lacks it):
	 * a thread seized before it may run an exec and take it, and be
	 * found ours under it (EALREADY) */
	{
		pid_t *all = malloc((n + 1) * sizeof(*all));
		size_t k = 0;

		if (!all) {
			free(tids);
			return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					     "out of memory");
		}
		all[k++] = f->pid;
		for (i = 0; i < n; i++)
			if (tids[i] != f->pid)
				all[k++] = tids[i];
		free(tids);
		tids = all;
		n = k;
	}
	for (i = 0; i < n; i++) {
		struct freeze_thread *t;

		if (freeze_find_thread(f, tids[i]))
			continue;
		if (stop_requested(f)) {
			free(tids);
			return interrupted(f, err);
		}
		t = freeze_add_thread(f, tids[i]);
		if (!t) {
			free(tids);
			return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					     "out of memory");
		}
		if (seize_retry(f, tids[i], &tracer) < 0) {
			int e = errno;

			if (e == EALREADY) {
				/* a leftover of a freeze before (its
				 * interrupt pending), or, after an exec, a
				 * thread seized under another tid: fails */
				t = &f->t[f->n - 1];
				t->seized = true;
				if (freeze_take_leftover(tids[i])) {
					added++;
					continue;
				}
				f->exec_seen = true;
				if (tids[i] == f->pid)
					freeze_recheck_pid(f);
				else
					ptrace(PTRACE_INTERRUPT, tids[i], NULL,
					       NULL);
				added++;
				continue;
			}
			if (e == ESRCH) {
				/* Exited meanwhile, or a zombie (a main
				 * thread that called pthread_exit): kept,
				 * not seized, so it is not tried again. */
				continue;
			}
			f->n--; /* not ours */
			free(tids);
			return seize_error(err, f->pid, e, tracer);
		}
		t = &f->t[f->n - 1];
		t->seized = true;
		if (ptrace(PTRACE_INTERRUPT, tids[i], NULL, NULL) < 0) {
			if (errno != ESRCH && errno != EIO) {
				free(tids);
				return seize_error(err, f->pid, errno, 0);
			}
			/* seized, then its tid gone (a traced thread
			 * that exits stays until reaped): an exec's; or
			 * EIO, the tid another task's, never seized (the
			 * pid an exec gave its thread), or a task exiting
			 * (its signal handlers gone): test_freeze's exec
			 * race, 1 run in 20 on a 2-core machine */
			t->seized = false;
			freeze_exec_took_tid(f, tids[i]);
		}
		added++;
	}
	free(tids);
	return added;
}

/* Takes one report st of seized thread t. */
static void take_report(struct freeze *f, struct freeze_thread *t, int st)
{
	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		t->seized = t->stopped = false;
		return;
	}
	if (!WIFSTOPPED(st))
		return;
	if ((st >> 16) == PTRACE_EVENT_EXEC) {
		/* A new program: this is the thread that ran it, now with the
		 * process's pid; its old stop (if any) and signal are gone. */
		f->exec_seen = true;
		t->pending_sig = 0;
	} else if (t->stopped) {
		/* A stopped thread reports nothing: this is another task's
		 * stop under its tid, the pid's after an exec (a thread of
		 * ours under another tid before, exec_took_tid) */
		f->exec_seen = true;
		t->pending_sig = (st >> 16) == 0 ? WSTOPSIG(st) : 0;
	} else if ((st >> 16) == 0) {
		/* A signal-delivery stop came first: keep the signal to hand
		 * back at detach; the interrupt is still pending and would
		 * stop it again, but stopped is stopped. */
		t->pending_sig = WSTOPSIG(st);
	}
	/* else our interrupt, or a group stop (a SIGSTOPped process). */
	if (freeze_read_regs(t->tid, &t->regs, &t->regs_len) < 0)
		t->regs_len = 0;
	t->stopped = true;
}

/* Waits until every seized thread reports a stop, polling each by its id
 * (never any child: vmscope's own children, a command it launched or the
 * fork sampler's keeper, are not ours to reap here), so that the exit of
 * any of them is reaped as it comes (a zombie main thread is reported only
 * after its traced siblings are reaped). A thread that exits is dropped. */
static int wait_stops(struct freeze *f, struct vms_error *err)
{
	int wait_ms = f->how.wait_ms;
	uint64_t t0, looks = 0;

	t0 = vms_mono_ns();
	for (;;) {
		size_t i, left = 0, first = 0;
		bool got = false, retaken = false;

		for (i = 0; i < f->n; i++) {
			struct freeze_thread *t = &f->t[i];
			int st = 0;
			pid_t w;

			if (!t->seized)
				continue;
			w = waitpid(t->tid, &st, __WALL | WNOHANG);
			if (w < 0 && errno == ECHILD) {
				t->seized = t->stopped = false;
				freeze_exec_took_tid(f, t->tid);
				t = &f->t[i]; /* f->t may have moved */
				retaken = true; /* the pid's: looked at again */
			} else if (w == t->tid) {
				take_report(f, t, st);
				got = true;
			}
			if (t->seized && !t->stopped && !t->dead && !left++)
				first = i;
		}
		if (!left && !retaken)
			return 0;
		/* a main thread slow to stop: an exec may have let it go
		 * (looked at every 20 ms, not at every poll) */
		if (vms_ms_since(t0) >= 20 * (uint64_t)(looks + 1)) {
			looks++;
			freeze_recheck_pid(f);
			if (f->exec_seen)
				continue;
		}
		if (stop_requested(f))
			return interrupted(f, err);
		if ((int64_t)vms_ms_since(t0) > wait_ms)
			return vms_error_set(
				err, VMS_ERR_CAPTURE, ETIMEDOUT,
				"thread %d of process %d did not stop "
				"within %d ms (uninterruptible sleep?); "
				"try again, or %s",
				(int)f->t[first].tid, (int)f->pid, wait_ms,
				f->how.instead);
		if (!got)
			freeze_nap(50000);
	}
}

/* Whether pid is dumping core (status "CoreDumping:", kernels since 4.15;
 * unknown: false). Its dumping thread writes the core in the kernel, and a
 * PTRACE_INTERRUPT, like any signal's wakeup, ends that write: the core is
 * cut short and the process dies. */
bool freeze_dumping_core(pid_t pid)
{
	char path[128], *b;
	size_t n;
	bool yes;

	/* a thread with the address space: an exited main thread's status
	 * has no CoreDumping line */
	procfs_mm_path(pid, "status", path, sizeof(path));
	if (procfs_read_file(path, &b, &n) < 0)
		return false;
	yes = procfs_status_value(b, n, "CoreDumping") > 0;
	free(b);
	return yes;
}

/* The freeze let go after an exec, or what looked like one. A process
 * killed meanwhile is said so (noproc: as one that is not there), else
 * it executed a new program. -1. */
static int let_go_exec(struct freeze *f, bool noproc, struct vms_error *err)
{
	pid_t pid = f->pid;

	freeze_release(f);
	if (freeze_killed_not_exec(pid))
		return noproc ? procfs_errno_error(err, pid, "threads", ESRCH)
			      : vms_error_set(err, VMS_ERR_CAPTURE, ESRCH,
					      "process %d was killed or "
					      "exited while it was being "
					      "stopped",
					      (int)pid);
	return vms_error_set(err, VMS_ERR_CAPTURE, EAGAIN,
			     "process %d executed a new program while it was "
			     "being stopped; it was let go; try again",
			     (int)pid);
}

int freeze_stop(struct freeze *f, pid_t pid, const struct freeze_how *how,
		struct vms_error *err)
{
	const struct freeze_thread *t_pid;
	int wait_ms = how->wait_ms;
	uint64_t t0;
	sigset_t block;
	pid_t d;
	int rounds, r;

	memset(f, 0, sizeof(*f));
	f->pid = pid;
	f->how = *how;
	if (!f->how.instead)
		f->how.instead = "without --freeze";
	freeze_reap_leftovers();
	/* A process dumping core: never touched (a stop would end the dump;
	 * the check and the seize are not atomic: a dump that begins between
	 * them is cut short as any signal's wakeup would cut it). */
	if (freeze_dumping_core(pid))
		return vms_error_set(err, VMS_ERR_CAPTURE, EBUSY,
				     "process %d is dumping core: stopping it "
				     "would cut the core short, so it was not "
				     "touched; try again once the dump has "
				     "ended, or %s (which reads it without "
				     "stopping it)",
				     (int)pid, f->how.instead);
	/* SIGSTOPped already (its main thread in a group stop, or the
	 * first live one's when the main one exited): released, it is
	 * waited for until it is stopped again */
	f->job_stopped = procthread_job_stopped(pid);
	/* A thread in D would not stop, and once interrupted it could not be
	 * let go until it did: wait for it to leave the kernel, or refuse. */
	t0 = vms_mono_ns();
	while ((d = procthread_in_d_state(pid))) {
		struct timespec ts = { 0, 1000000 };

		if (stop_requested(f))
			return interrupted(f, err);
		if ((int64_t)vms_ms_since(t0) > wait_ms)
			return vms_error_set(
				err, VMS_ERR_CAPTURE, EBUSY,
				"thread %d of process %d is in uninterruptible "
				"sleep (disk I/O, or a vfork parent waiting for "
				"its child) and cannot be stopped now; try "
				"again, or %s",
				(int)d, (int)pid, f->how.instead);
		nanosleep(&ts, NULL);
	}
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	f->masked = pthread_sigmask(SIG_BLOCK, &block, &f->oldmask) == 0;
	f->t_stop_ns = vms_mono_ns();
	/* Threads may be created until the one creating them is stopped:
	 * re-read the task list until a pass after all stops adds none. */
	for (rounds = 0; rounds < 100; rounds++) {
		r = seize_new(f, err);
		if (r < 0)
			goto fail;
		if (wait_stops(f, err) < 0)
			goto fail;
		if (r == 0 || f->exec_seen)
			break;
	}
	/* the main thread's stop seen, then an exec let it go, is not the
	 * pid's: only the pid's entry can name another task (an exec gives
	 * the pid to its thread, whose old tid is then gone), so only it is
	 * asked again, not every thread while the process waits */
	freeze_recheck_pid(f);
	/* the pid's thread held, or dead (a zombie main thread): else an
	 * exec gave the pid to a thread never seized (the main thread had
	 * exited, so no seized one saw it) */
	t_pid = freeze_find_thread(f, pid);
	if (!(t_pid && t_pid->stopped) && !procthread_dead(pid, pid) &&
	    !procfs_pid_exiting(pid))
		f->exec_seen = true;
	if (f->exec_seen)
		return let_go_exec(f, false, err);
	if (rounds == 100) {
		vms_error_set(err, VMS_ERR_CAPTURE, 0,
			      "process %d creates threads faster than they "
			      "can be stopped",
			      (int)pid);
		goto fail;
	}
	{
		size_t i, live = 0;

		for (i = 0; i < f->n; i++)
			live += f->t[i].stopped;
		/* none held: every thread seized is gone, killed, or an exec
		 * let the old main thread go while its zombie still showed at
		 * the pid, so that no exec was seen above (once in some 30
		 * runs of test_freeze's exec race under load) */
		if (!live)
			return let_go_exec(f, true, err);
	}
	return 0;
fail:
	freeze_release(f);
	return -1;
}

void freeze_release_others(struct freeze *f, pid_t keep)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		struct freeze_thread *t = &f->t[i];

		if (t->seized && t->stopped && t->tid != keep &&
		    ptrace(PTRACE_DETACH, t->tid, NULL,
			   (void *)(long)t->pending_sig) == 0)
			t->seized = t->stopped = false;
	}
}

/* A process SIGSTOPped before the freeze: the detach put each thread
 * back into its group stop by waking it to stop again, so for a moment
 * after it shows R (under load, until it gets a CPU). Waits until every
 * thread is stopped again (or gone), at most a second, so that what looks
 * after vmscope finds it as it was. */
static void back_in_group_stop(const struct freeze *f)
{
	struct timespec ts = { 0, 200000 };
	uint64_t t0;
	size_t i;

	t0 = vms_mono_ns();
	for (;;) {
		bool all = true;

		for (i = 0; i < f->n && all; i++) {
			char c = procthread_state(f->pid, f->t[i].tid);

			/* S or D: continued by someone meanwhile (a thread
			 * going back into its stop shows R, then T) */
			if (c == 'S' || c == 'D')
				return;
			all = c == 'T' || c == 't' || c == 'Z' || c == 'X';
		}
		if (all || vms_ms_since(t0) > 1000)
			return;
		nanosleep(&ts, NULL);
	}
}

/* In the release: seized thread tid is gone without a report (ECHILD);
 * the pid's entry is looked at again (freeze_exec_took_tid) and, if the
 * task there is ours, polled with the others until it stops and is let
 * go. *left counts the entries still to poll. */
static void release_exec_took(struct freeze *f, pid_t tid, size_t *left)
{
	struct freeze_thread *t = freeze_find_thread(f, tid), *p;
	bool polled;

	if (t)
		t->seized = t->stopped = false;
	(*left)--;
	p = freeze_find_thread(f, f->pid);
	polled = p && p->seized;
	freeze_exec_took_tid(f, tid); /* may move f->t */
	p = freeze_find_thread(f, f->pid);
	/* polled only if ours: freeze_recheck_pid keeps a dead main thread
	 * without asking (a zombie's report comes as the process's), and
	 * a task not ours must never be waited for here (vmscope may be
	 * its parent) */
	if (p && p->seized && p->dead && !polled &&
	    ptrace(PTRACE_INTERRUPT, f->pid, NULL, NULL) < 0 && errno == ESRCH)
		p->seized = false;
	if (p && p->seized && !polled) {
		p->stopped = false; /* its stop, if any, is still to report */
		(*left)++;
	} else if (polled && !(p && p->seized)) {
		(*left)--; /* it was to be polled, and is not ours */
	}
}

uint64_t freeze_release(struct freeze *f)
{
	uint64_t t0;
	size_t i, left = 0;
	uint64_t us;

	/* Every stopped thread first, with the signal it stopped for (siginfo
	 * kept); one that was killed meanwhile, or never stopped, is then
	 * polled with all the others, so each exit is reaped as it comes (a
	 * zombie main thread reports only after its traced siblings) and its
	 * real parent sees the death. */
	for (i = 0; i < f->n; i++) {
		struct freeze_thread *t = &f->t[i];

		if (!t->seized)
			continue;
		if (t->stopped && ptrace(PTRACE_DETACH, t->tid, NULL,
					 (void *)(long)t->pending_sig) == 0) {
			t->seized = false;
			continue;
		}
		t->stopped = false;
		left++;
	}
	t0 = vms_mono_ns();
	while (left) {
		struct timespec ts = { 0, 200000 };

		for (i = 0; i < f->n; i++) {
			struct freeze_thread *t = &f->t[i];
			int st;
			pid_t w;

			if (!t->seized)
				continue;
			w = waitpid(t->tid, &st, __WALL | WNOHANG);
			if (w == 0)
				continue;
			if (w < 0 && errno == ECHILD && t->tid != f->pid) {
				/* An exec by this thread, seized but not yet
				 * stopped, gave it the pid after the main
				 * thread was let go: ours there still, in its
				 * exec stop (or running), and polled under
				 * the pid now (test_freeze's exec race: the
				 * pid left traced, state t). */
				release_exec_took(f, t->tid, &left);
				continue;
			}
			if (w > 0 && WIFSTOPPED(st))
				/* A signal-delivery stop gives its signal
				 * back; an event or interrupt stop none. */
				ptrace(PTRACE_DETACH, t->tid, NULL,
				       (void *)(long)((st >> 16) == 0
							      ? WSTOPSIG(st)
							      : 0));
			t->seized = false;
			left--;
		}
		if (!left || vms_ms_since(t0) > 1000)
			break;
		nanosleep(&ts, NULL);
	}
	/* Still in the kernel (uninterruptible sleep), or dead and not yet
	 * reported: detached or reaped when they report, later. */
	for (i = 0; i < f->n; i++)
		if (f->t[i].seized) {
			freeze_keep_leftover(f->t[i].tid);
			f->t[i].seized = false;
		}
	us = vms_us_since(f->t_stop_ns);
	if (f->masked) {
		pthread_sigmask(SIG_SETMASK, &f->oldmask, NULL);
		f->masked = false;
	}
	if (f->job_stopped) /* after: not counted as the freeze's */
		back_in_group_stop(f);
	free(f->t);
	f->t = NULL;
	f->n = f->cap = 0;
	return us;
}
