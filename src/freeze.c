#include "freeze.h"

#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procfs.h"

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

static struct freeze_thread *find_thread(struct freeze *f, pid_t tid)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->t[i].tid == tid)
			return &f->t[i];
	return NULL;
}

static struct freeze_thread *add_thread(struct freeze *f, pid_t tid)
{
	if (f->n == f->cap) {
		size_t ncap = f->cap ? f->cap * 2 : 16;
		struct freeze_thread *nt = realloc(f->t, ncap * sizeof(*nt));

		if (!nt)
			return NULL;
		f->t = nt;
		f->cap = ncap;
	}
	memset(&f->t[f->n], 0, sizeof(f->t[0]));
	f->t[f->n].tid = tid;
	return &f->t[f->n++];
}

static int tracer_of(pid_t pid)
{
	char *b;
	size_t n;
	long long v;

	if (procfs_read_pid(pid, "status", &b, &n) < 0)
		return 0;
	v = procfs_status_value(b, n, "TracerPid");
	free(b);
	return v > 0 ? (int)v : 0;
}

/* Whether this process has CAP_SYS_PTRACE (19) in its effective set. */
static bool has_cap_sys_ptrace(void)
{
	char *b;
	size_t n;
	const char *p;
	bool yes = true; /* unknown: do not claim it is missing */

	if (procfs_read_file("/proc/self/status", &b, &n) < 0)
		return yes;
	p = strstr(b, "\nCapEff:");
	if (p)
		yes = (strtoull(p + 8, NULL, 16) >> 19) & 1;
	free(b);
	return yes;
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
	if (e == EPERM && (tracer > 0 || (tracer = tracer_of(pid)) > 0))
		return vms_error_set(err, VMS_ERR_PERM, e,
				     "process %d is already traced by process "
				     "%d (a debugger?); detach it first",
				     (int)pid, tracer);
	if (e == EPERM) {
		char *b, path[64];
		size_t n;
		const char *why = "run as the target's user, or as root "
				  "with CAP_SYS_PTRACE";
		struct stat st;

		snprintf(path, sizeof(path), "/proc/%d", (int)pid);
		if (geteuid() != 0 && stat(path, &st) == 0 &&
		    st.st_uid != geteuid())
			return vms_error_set(
				err, VMS_ERR_PERM, e,
				"not permitted to stop process %d with ptrace: "
				"it belongs to uid %u and you are uid %u; run "
				"as that user, or as root (CAP_SYS_PTRACE)",
				(int)pid, (unsigned)st.st_uid,
				(unsigned)geteuid());

		if (procfs_read_file("/proc/sys/kernel/yama/ptrace_scope", &b,
				     &n) == 0) {
			int scope = atoi(b);

			free(b);
			if (scope >= 1 && geteuid() != 0)
				why = scope == 3
					      ? "kernel.yama.ptrace_scope is 3: "
						"no process may be traced"
					      : "kernel.yama.ptrace_scope "
						"forbids tracing non-children; "
						"run as root or set it to 0";
			else if (scope == 3)
				why = "kernel.yama.ptrace_scope is 3: no "
				      "process may be traced";
		}
		if (geteuid() == 0 && !has_cap_sys_ptrace() &&
		    strncmp(why, "kernel.yama", 11) != 0)
			why = "vmscope runs as root without CAP_SYS_PTRACE (a "
			      "container, or a dropped capability); grant it, "
			      "or run as the target's user";
		return vms_error_set(err, VMS_ERR_PERM, e,
				     "not permitted to stop process %d with "
				     "ptrace: %s",
				     (int)pid, why);
	}
	return vms_error_set(err, VMS_ERR_CAPTURE, e,
			     "cannot stop process %d with ptrace: %s", (int)pid,
			     strerror(e));
}

/* PTRACE_SEIZE of one thread. EPERM while another tracer holds the
 * process (a second capture, a debugger) is retried for a while: captures
 * are short, and the other may let go. *tracer gets the last tracer seen
 * (its pid), so the message can name it even if it let go meanwhile. */
static int seize_retry(pid_t tid, pid_t pid, int *tracer)
{
	int tries;

	*tracer = 0;
	for (tries = 0; tries < 25; tries++) {
		struct timespec ts = { 0, 10000000 };
		int t;

		if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) == 0)
			return 0;
		if (errno != EPERM)
			return -1;
		t = tracer_of(pid);
		if (t > 0)
			*tracer = t;
		else if (tries > 0)
			break; /* nobody traces it: truly not permitted */
		nanosleep(&ts, NULL);
	}
	errno = EPERM;
	return -1;
}

/* Seizes every thread not yet seized. Returns how many were new, or -1. */
static int seize_new(struct freeze *f, struct vms_error *err)
{
	pid_t *tids;
	size_t n, i;
	int added = 0, tracer;

	if (procfs_list_tasks(f->pid, &tids, &n) < 0)
		return procfs_errno_error(err, f->pid, "task list", errno);
	for (i = 0; i < n; i++) {
		struct freeze_thread *t;

		if (find_thread(f, tids[i]))
			continue;
		t = add_thread(f, tids[i]);
		if (!t) {
			free(tids);
			return vms_error_set(err, VMS_ERR_NOMEM, ENOMEM,
					     "out of memory");
		}
		if (seize_retry(tids[i], f->pid, &tracer) < 0) {
			int e = errno;

			f->n--; /* not ours */
			if (e == ESRCH)
				continue; /* the thread exited meanwhile */
			free(tids);
			return seize_error(err, f->pid, e, tracer);
		}
		t->seized = true;
		if (ptrace(PTRACE_INTERRUPT, tids[i], NULL, NULL) < 0 &&
		    errno != ESRCH) {
			free(tids);
			return seize_error(err, f->pid, errno, 0);
		}
		added++;
	}
	free(tids);
	return added;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000 +
	       (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Waits until every seized thread reports a stop. A thread that exits is
 * dropped. */
static int wait_stops(struct freeze *f, int wait_ms, struct vms_error *err)
{
	struct timespec t0;
	size_t left = 0, i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < f->n; i++)
		if (f->t[i].seized && !f->t[i].stopped)
			left++;
	while (left) {
		int st = 0;
		pid_t w = 0;
		struct freeze_thread *t = NULL;

		/* Wait for our tracees by their ids, never for any child:
		 * vmscope's own children (a command it launched, the fork
		 * sampler's keeper) are not ours to reap here. */
		for (i = 0; i < f->n && w == 0; i++) {
			if (!f->t[i].seized || f->t[i].stopped)
				continue;
			w = waitpid(f->t[i].tid, &st, __WALL | WNOHANG);
			if (w < 0 && errno == ECHILD) {
				f->t[i].seized = false; /* gone */
				left--;
				w = 0;
			}
		}
		if (w == 0 && left == 0)
			break;
		if (w == 0) {
			struct timespec ts = { 0, 50000 };

			if (ms_since(&t0) > wait_ms) {
				for (i = 0; i < f->n; i++)
					if (f->t[i].seized && !f->t[i].stopped)
						break;
				return vms_error_set(
					err, VMS_ERR_CAPTURE, ETIMEDOUT,
					"thread %d of process %d did not stop "
					"within %d ms (uninterruptible sleep?); "
					"try again, or without --freeze",
					i < f->n ? (int)f->t[i].tid : 0,
					(int)f->pid, wait_ms);
			}
			nanosleep(&ts, NULL);
			continue;
		}
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return vms_error_set(err, VMS_ERR_CAPTURE, errno,
					     "waiting for process %d to stop: %s",
					     (int)f->pid, strerror(errno));
		}
		t = find_thread(f, w);
		if (!t || t->stopped)
			continue;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			t->seized = false;
			left--;
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		if ((st >> 16) == PTRACE_EVENT_STOP) {
			/* Our interrupt, or a group stop (SIGSTOP'ed
			 * process): either way stopped. */
		} else if ((st >> 16) == 0) {
			/* A signal-delivery stop came first: keep the signal
			 * to hand back at detach; the interrupt is still
			 * pending and would stop it again, but stopped is
			 * stopped. */
			t->pending_sig = WSTOPSIG(st);
		}
		{
			struct iovec iov = { &t->regs, sizeof(t->regs) };

			if (ptrace(PTRACE_GETREGSET, w, (void *)NT_PRSTATUS,
				   &iov) < 0)
				memset(&t->regs, 0, sizeof(t->regs));
		}
		t->stopped = true;
		left--;
	}
	return 0;
}

/* Threads seized by a freeze that had not stopped when it was released:
 * they stop when they leave the kernel, and must then be detached. Kept
 * across freezes (a struct freeze dies at release), hence file scope. */
static pid_t leftover[64];
static size_t nleftover;

size_t freeze_reap_leftovers(void)
{
	size_t i = 0;

	while (i < nleftover) {
		int st;
		pid_t w = waitpid(leftover[i], &st, __WALL | WNOHANG);

		if (w == 0) {
			i++;
			continue;
		}
		if (w > 0 && WIFSTOPPED(st))
			ptrace(PTRACE_DETACH, leftover[i], NULL,
			       (void *)(long)((st >> 16) == 0 ? WSTOPSIG(st)
							     : 0));
		leftover[i] = leftover[--nleftover];
	}
	return nleftover;
}

static void keep_leftover(pid_t tid)
{
	if (nleftover < sizeof(leftover) / sizeof(leftover[0]))
		leftover[nleftover++] = tid;
}

/* The first thread of pid in uninterruptible sleep, or 0. */
static pid_t thread_in_d_state(pid_t pid)
{
	pid_t *tids, found = 0;
	size_t n, i;

	if (procfs_list_tasks(pid, &tids, &n) < 0)
		return 0;
	for (i = 0; i < n && !found; i++) {
		char name[64], *b, *p;
		size_t len;

		snprintf(name, sizeof(name), "task/%d/stat", (int)tids[i]);
		if (procfs_read_pid(pid, name, &b, &len) < 0)
			continue;
		p = memrchr(b, ')', len);
		if (p && p + 2 < b + len && p[2] == 'D')
			found = tids[i];
		free(b);
	}
	free(tids);
	return found;
}

int freeze_stop(struct freeze *f, pid_t pid, int wait_ms,
		struct vms_error *err)
{
	struct timespec t0;
	sigset_t block;
	pid_t d;
	int rounds, r;

	memset(f, 0, sizeof(*f));
	f->pid = pid;
	freeze_reap_leftovers();
	/* A thread in D would not stop, and once interrupted it could not be
	 * let go until it did: wait for it to leave the kernel, or refuse. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((d = thread_in_d_state(pid))) {
		struct timespec ts = { 0, 1000000 };

		if (ms_since(&t0) > wait_ms)
			return vms_error_set(
				err, VMS_ERR_CAPTURE, EBUSY,
				"thread %d of process %d is in uninterruptible "
				"sleep (disk I/O, or a vfork parent waiting for "
				"its child) and cannot be stopped now; try "
				"again, or without --freeze",
				(int)d, (int)pid);
		nanosleep(&ts, NULL);
	}
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	f->masked = pthread_sigmask(SIG_BLOCK, &block, &f->oldmask) == 0;
	clock_gettime(CLOCK_MONOTONIC, &f->t_stop);
	/* Threads may be created until the one creating them is stopped:
	 * re-read the task list until a pass after all stops adds none. */
	for (rounds = 0; rounds < 100; rounds++) {
		r = seize_new(f, err);
		if (r < 0)
			goto fail;
		if (wait_stops(f, wait_ms, err) < 0)
			goto fail;
		if (r == 0)
			break;
	}
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
		if (!live) {
			procfs_errno_error(err, pid, "threads", ESRCH);
			goto fail;
		}
	}
	return 0;
fail:
	freeze_release(f);
	return -1;
}

/* Waits (bounded) for a tracee's next report; 0 if none came. */
static pid_t wait_report(pid_t tid, int *st, int ms)
{
	pid_t w = 0;
	int tries;

	for (tries = 0; tries < ms && w == 0; tries++) {
		struct timespec ts = { 0, 1000000 };

		w = waitpid(tid, st, __WALL | WNOHANG);
		if (w == 0)
			nanosleep(&ts, NULL);
	}
	return w;
}

uint64_t freeze_release(struct freeze *f)
{
	size_t i;
	uint64_t us;

	for (i = 0; i < f->n; i++) {
		struct freeze_thread *t = &f->t[i];
		int st;

		if (!t->seized)
			continue;
		if (!t->stopped) {
			/* Interrupted but not yet reported: it must stop
			 * before it can be detached. A thread still stuck in
			 * the kernel is detached when it stops, later. */
			pid_t w = wait_report(t->tid, &st, 200);

			if (w == 0) {
				keep_leftover(t->tid);
				t->seized = false;
				continue;
			}
			if (w < 0 || !WIFSTOPPED(st)) {
				t->seized = false;
				continue;
			}
		}
		if (ptrace(PTRACE_DETACH, t->tid, NULL,
			   (void *)(long)t->pending_sig) < 0 &&
		    errno == ESRCH) {
			/* Killed while frozen: its exit is reported to us,
			 * the tracer, first; take that report so that its
			 * real parent sees the death. */
			if (wait_report(t->tid, &st, 1000) == 0)
				keep_leftover(t->tid);
		}
		t->seized = t->stopped = false;
	}
	clock_gettime(CLOCK_MONOTONIC, &f->t_run);
	us = (uint64_t)((f->t_run.tv_sec - f->t_stop.tv_sec) * 1000000 +
			(f->t_run.tv_nsec - f->t_stop.tv_nsec) / 1000);
	if (f->masked) {
		pthread_sigmask(SIG_SETMASK, &f->oldmask, NULL);
		f->masked = false;
	}
	free(f->t);
	f->t = NULL;
	f->n = f->cap = 0;
	return us;
}
