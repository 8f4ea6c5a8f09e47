/* fork_clone.c — the clone's making and unmaking, inside the keeper
 * (fork_keeper.c): which thread of the frozen target is borrowed, the
 * injected clone(), the clone's first stop (EXITKILL, no core, its
 * descriptors closed), and its killing and reaping by the target itself.
 * The contract is fork_clone.h's; the ptrace steps are inject.h's.
 */
#include "capture/ptrace/fork_clone.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/ptrace/inject.h"
#include "linux/procfs.h"

#define ERESTARTNOINTR 513

static int sigmask_swap(pid_t tid, uint64_t *old, uint64_t set)
{
	if (ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof(*old), old) < 0)
		return -1;
	return (int)ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(set), &set);
}

static void sigmask_set(pid_t tid, uint64_t mask)
{
	ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(mask), &mask);
}

static bool usable(pid_t pid, const struct freeze_thread *t)
{
	return t->stopped && !t->pending_sig && inject_regs_native(&t->regs) &&
	       procfs_thread_seccomp(pid, t->tid) == 0;
}

/* The thread to inject into: the main thread, else any other (never one
 * with a seccomp filter, read per thread inside the freeze), preferring
 * one that is not inside an rseq critical section (one that is gets its ip
 * moved to the section's abort ip, see inject_rseq_fixup). */
static struct freeze_thread *pick_thread(struct freeze *f)
{
	struct freeze_thread *first = NULL;
	uint64_t ip;
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->t[i].tid == f->pid && usable(f->pid, &f->t[i])) {
			first = &f->t[i];
			if (!inject_rseq_abort_ip(first->tid, &first->regs,
						  &ip))
				return first;
		}
	for (i = 0; i < f->n; i++) {
		struct freeze_thread *t = &f->t[i];

		if (t->tid == f->pid || !usable(f->pid, t))
			continue;
		if (!inject_rseq_abort_ip(t->tid, &t->regs, &ip))
			return t;
		if (!first)
			first = t;
	}
	return first;
}

/* The pid in its own (innermost) PID namespace of host, a process of
 * ours to read (the last field of NSpid: in its status); host itself on a
 * kernel without NSpid, 0 if it cannot be read. */
static pid_t ns_pid(pid_t host)
{
	char *b, *line, *end;
	size_t n;
	long v = 0;

	if (procfs_read_pid(host, "status", &b, &n) < 0)
		return 0;
	line = strstr(b, "\nNSpid:");
	if (!line) {
		free(b);
		return host;
	}
	line += 7;
	for (;;) {
		long x = strtol(line, &end, 10);

		if (end == line)
			break;
		v = x;
		line = end;
	}
	free(b);
	return (pid_t)v;
}

/* The host pid of the child of thread tid of target whose pid in the
 * target's namespace is nspid, or 0. */
static pid_t host_pid_of_child(pid_t target, pid_t tid, pid_t nspid)
{
	char name[64], *b, *p, *end;
	size_t n;
	pid_t found = 0;

	snprintf(name, sizeof(name), "task/%d/children", (int)tid);
	if (procfs_read_pid(target, name, &b, &n) < 0)
		return 0;
	for (p = b; !found; p = end) {
		long c = strtol(p, &end, 10);

		if (end == p)
			break;
		if (ns_pid((pid_t)c) == nspid)
			found = (pid_t)c;
	}
	free(b);
	return found;
}

/* Why no thread could be borrowed, as an error. */
static int no_thread(const struct freeze *f, struct vms_error *err)
{
	size_t i, filtered = 0, stopped = 0, signalled = 0;

	for (i = 0; i < f->n; i++)
		if (f->t[i].stopped) {
			stopped++;
			filtered +=
				procfs_thread_seccomp(f->pid, f->t[i].tid) != 0;
			signalled += f->t[i].pending_sig != 0;
		}
	if (stopped && filtered == stopped)
		return vms_error_set(err, VMS_ERR_CAPTURE, EPERM,
				     "every thread of process %d has a seccomp "
				     "filter; a fork injected into it may be "
				     "refused or kill it; use -b pss",
				     (int)f->pid);
	if (stopped && signalled == stopped)
		/* its stop was a signal's delivery (the interrupt came
		 * second): the signal is handed back at the release, and
		 * the thread, not at a system call's edge, is not borrowed */
		return vms_error_set(err, VMS_ERR_CAPTURE, EAGAIN,
				     "every thread of process %d was stopped "
				     "receiving a signal (a timer's?), where a "
				     "fork cannot be injected; try again, or "
				     "use -b pss",
				     (int)f->pid);
	return vms_error_set(err, VMS_ERR_CAPTURE, 0,
			     "no thread of process %d is stopped in a state a "
			     "fork can be injected into; try again, or use -b "
			     "pss",
			     (int)f->pid);
}

/* Makes *gadget one that is right now a system-call instruction in
 * executable memory of pid (inject_verify_gadget), found again if not (an
 * exec moved libc), else in the vDSO (libc's rewritten in memory). */
static int sure_gadget(pid_t pid, uint64_t *gadget, struct vms_error *err)
{
	struct vms_error e;
	uint64_t g;

	if (inject_verify_gadget(pid, *gadget, err) == 0)
		return 0;
	if ((inject_find_gadget(pid, &g, &e) == 0 &&
	     inject_verify_gadget(pid, g, &e) == 0) ||
	    (inject_find_gadget_vdso(pid, &g, &e) == 0 &&
	     inject_verify_gadget(pid, g, &e) == 0)) {
		*gadget = g;
		return 0;
	}
	return -1; /* *err: what was wrong with the first one */
}

/* Runs nr(a) in stopped thread tid of pid with every signal blocked and
 * Syscall User Dispatch off for the call, both put back after; opts: the
 * ptrace options for the call (PTRACE_O_TRACEEXEC stays set after, as
 * the freeze set it). The gadget is checked right before. */
static int borrow(pid_t pid, pid_t tid, const struct user_regs_struct *regs,
		  uint64_t *gadget, long nr, const uint64_t a[6], long opts,
		  long *ret, pid_t *child, const struct inject_late *late,
		  struct vms_error *err)
{
	struct inject_sud sud;
	uint64_t old;
	int rc;

	if (sure_gadget(pid, gadget, err) < 0)
		return -1;
	if (sigmask_swap(tid, &old, ~0ull) < 0)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno,
				     "cannot block signals in process %d: %s",
				     (int)pid, strerror(errno));
	if (inject_sud_off(tid, &sud) < 0) {
		rc = vms_error_set(
			err, VMS_ERR_CAPTURE, errno,
			"thread %d of process %d uses Syscall User "
			"Dispatch, which could not be suspended: %s; "
			"use -b pss",
			(int)tid, (int)pid, strerror(errno));
		goto mask;
	}
	if (ptrace(PTRACE_SETOPTIONS, tid, NULL,
		   (void *)(opts | PTRACE_O_TRACESYSGOOD |
			    PTRACE_O_TRACEEXEC)) < 0) {
		rc = vms_error_set(err, VMS_ERR_CAPTURE, errno,
				   "cannot set ptrace options on process %d: "
				   "%s",
				   (int)pid, strerror(errno));
		goto sud;
	}
	rc = inject_syscall(tid, regs, *gadget, nr, a, ret, child, late, err);
	ptrace(PTRACE_SETOPTIONS, tid, NULL, (void *)(long)PTRACE_O_TRACEEXEC);
sud:
	inject_sud_restore(tid, &sud);
mask:
	sigmask_set(tid, old);
	return rc;
}

int fork_clone_make(struct freeze *f, uint64_t *gadget, pid_t *clone,
		    const struct inject_late *late, struct vms_error *err)
{
	struct freeze_thread *t = pick_thread(f);
	const uint64_t a[6] = {
		0 /* no flags, exit signal 0 */, inject_dead_sp(), 0, 0, 0, 0
	};
	struct user_regs_struct back;
	long ret = -ERESTARTNOINTR;
	int tries, rc = 0;

	*clone = 0;
	if (!t)
		return no_thread(f, err);
	if (!freeze_thread_same(t))
		return vms_error_set(err, VMS_ERR_CAPTURE, EAGAIN,
				     "thread %d of process %d is not as it was "
				     "stopped (a new program? killed?); it was "
				     "let go; try again",
				     (int)t->tid, (int)f->pid);
	/* Once, before the first attempt resumes the thread at the gadget
	 * (which clears its rseq_cs): every attempt restores the same. */
	back = t->regs;
	inject_rseq_fixup(t->tid, &back);
	/* copy_process() gives up with -ERESTARTNOINTR when a signal came in
	 * meanwhile (even a blocked one aimed at the whole group): retry. */
	for (tries = 0; tries < 4 && ret == -ERESTARTNOINTR; tries++) {
		rc = borrow(f->pid, t->tid, &back, gadget, inject_nr_clone, a,
			    PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK, &ret,
			    clone, late, err);
		if (rc < 0 || *clone)
			break;
	}
	if (rc == 0 && ret < 0)
		rc = vms_error_set(
			err, VMS_ERR_CAPTURE, (int)-ret,
			"the kernel refused the fork in process %d: %s%s",
			(int)f->pid, strerror((int)-ret),
			ret == -ENOMEM ? " (no commit left for the clone: "
					 "overcommit_memory=2?); use -b pss"
				       : "; use -b pss");
	if (rc == 0 && !*clone && ret > 0) {
		/* Created but not reported: never let it run. ret is its pid
		 * in the target's namespace, never one to kill() here. */
		*clone = host_pid_of_child(f->pid, t->tid, (pid_t)ret);
		if (*clone > 0)
			kill(*clone, SIGKILL);
		rc = vms_error_set(err, VMS_ERR_CAPTURE, 0,
				   "the clone of process %d was not attached",
				   (int)f->pid);
	}
	return rc;
}

/* The clone's first stop, before it ran an instruction: EXITKILL, no core,
 * and every descriptor it inherited closed (close_range run in the clone,
 * which is stopped and ours: the target is not touched), so that it holds
 * no socket, lock or pipe of the target while it lives. */
int fork_clone_first_stop(pid_t clone, pid_t *clone_ns, uint64_t gadget,
			  struct vms_error *err)
{
	struct rlimit none = { 0, 0 };
	const uint64_t a[6] = { 0, ~0u, 0, 0, 0, 0 };
	struct user_regs_struct regs;
	long ret = -1;
	pid_t child;
	int st;

	if (inject_wait_stop(clone, &st, 5000) < 0)
		return vms_error_set(err, VMS_ERR_CAPTURE, ESRCH,
				     "the clone %d died at birth (%s)",
				     (int)clone, strerror(errno));
	if (ptrace(PTRACE_SETOPTIONS, clone, NULL,
		   (void *)(long)(PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD)) <
	    0)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno,
				     "cannot set ptrace options on the clone: "
				     "%s",
				     strerror(errno));
	prlimit(clone, RLIMIT_CORE, &none, NULL); /* never dump, if it died */
	/* Its pid as the target knows it (a PID namespace of its own),
	 * for the wait4 that reaps it there. */
	*clone_ns = ns_pid(clone);
	if (*clone_ns <= 0)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno,
				     "cannot read the clone's pid in its "
				     "namespace");
	if (inject_getregs(clone, &regs) < 0 ||
	    inject_verify_gadget(clone, gadget, err) < 0 ||
	    inject_syscall(clone, &regs, gadget, inject_nr_close_range, a, &ret,
			   &child, NULL, err) < 0)
		return -1;
	if (ret != 0)
		return vms_error_set(err, VMS_ERR_CAPTURE, (int)-ret,
				     "cannot close the clone's copies of the "
				     "target's descriptors: %s",
				     strerror((int)-ret));
	return 0;
}

/* The clone is stopped and traced by us. Kill it, reap it as its tracer
 * (the kernel then hands its zombie to its real parent, the target: exit
 * signal 0, no SIGCHLD), and have the target reap that zombie itself:
 * wait4(clone_ns, __WALL|WNOHANG) run in one of its threads. Order: the
 * whole target is frozen first, so that a thread of its own blocked in
 * waitpid(-1, __WALL) cannot take the zombie before the injected wait4
 * does (it is woken, stopped, and finds nothing when it runs again).
 * Returns 1 when the clone is gone for good, 0 when the target could not be
 * frozen or lent a thread yet (try again), -1 when the target is gone. */
static int reap_clone(pid_t target, pid_t clone, pid_t clone_ns,
		      uint64_t *gadget)
{
	struct freeze fz;
	struct vms_error err;
	struct freeze_thread *t;
	int st, done = 0;

	if (freeze_stop(&fz, target,
			&(struct freeze_how){ 1000, "use -b pss", -1 },
			&err) < 0) {
		if (kill(target, 0) < 0 && errno == ESRCH)
			return -1;
		return 0;
	}
	if (clone > 0) {
		kill(clone, SIGKILL);
		if (inject_wait_stop(clone, &st, 2000) == 0)
			/* a stop before the kill landed: go on waiting */
			inject_wait_stop(clone, &st, 2000);
	}
	t = pick_thread(&fz);
	if (t && clone_ns > 0 && freeze_thread_same(t)) {
		const uint64_t a[6] = {
			(uint64_t)clone_ns, 0, __WALL | WNOHANG, 0, 0, 0
		};
		struct user_regs_struct back = t->regs;
		long ret = 0;
		pid_t child;

		inject_rseq_fixup(t->tid, &back);
		if (borrow(target, t->tid, &back, gadget, inject_nr_wait4, a, 0,
			   &ret, &child, NULL, &err) == 0 &&
		    (ret == clone_ns || ret == -ECHILD))
			done = 1;
	}
	freeze_release(&fz);
	return done;
}

/* clone: its pid here; clone_ns: in the target's namespace (0 if not read
 * yet: it died before its first stop). */
void fork_clone_kill(pid_t target, pid_t clone, pid_t clone_ns, uint64_t gadget)
{
	int tries;

	if (clone_ns <= 0) /* died before its first stop: ask now */
		clone_ns = ns_pid(clone);
	for (tries = 0; tries < 300; tries++) {
		struct timespec ts = { 0, 10000000 };
		int r = reap_clone(target, tries ? 0 : clone, clone_ns,
				   &gadget);

		if (r != 0)
			break;
		if (!tries) {
			/* Could not freeze the target now (an exec, a thread
			 * in the kernel): never keep the clone for that. */
			kill(clone, SIGKILL);
			inject_wait_stop(clone, &(int){ 0 }, 2000);
		}
		nanosleep(&ts, NULL);
	}
}
