/* fork_keeper.c — the keeper process; see fork_keeper.h for the contract
 * (the ptrace steps it borrows are inject_ptrace.c's, inject.h).
 *
 * The keeper and vmscope talk over a stream socketpair in fixed messages
 * (struct kmsg), both sides being the same binary. vmscope's part is
 * keeper_start/keeper_fork/keeper_stop; everything under "keeper side"
 * runs only in the keeper.
 */
#include "fork_keeper.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inject.h"
#include "procfs.h"

enum {
	OP_FROZEN = 'Z',
	OP_FORK = 'F',
	OP_LETGO = 'L',
	OP_CLONED = 'C',
	OP_RELEASE = 'R',
	OP_DONE = 'D',
};

#define ERESTARTNOINTR 513

struct kmsg {
	int op, status;
	pid_t clone;
	uint64_t frozen_us, n;
	struct vms_error err;
};

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = send(fd, p, len, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* 0, or -1 on error or EOF. */
static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t r = read(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static int send_op(int fd, int op)
{
	struct kmsg m = { .op = op };

	return write_all(fd, &m, sizeof(m));
}

/* The next op, or -1 at EOF (vmscope gone). */
static int recv_op(int fd)
{
	struct kmsg m;

	return read_all(fd, &m, sizeof(m)) < 0 ? -1 : m.op;
}

/* The same, or -2 when none came within ms. */
static int recv_op_within(int fd, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };
	int r;

	do
		r = poll(&p, 1, ms);
	while (r < 0 && errno == EINTR);
	return r == 0 ? -2 : recv_op(fd);
}

/* ---- ptrace helpers (keeper side) ---- */

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

/* ---- keeper side ---- */

static int keeper_isolate(int sock)
{
	static const int deaf[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE,
				    SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU };
	sigset_t none;
	size_t i;
	int fd;

	setsid();
	for (i = 0; i < sizeof(deaf) / sizeof(deaf[0]); i++)
		signal(deaf[i], SIG_IGN);
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, 0);
	prctl(PR_SET_NAME, "vmscope-keeper");
	if (sock != 3 && dup2(sock, 3) < 0)
		return -1;
	fd = open("/dev/null", O_RDWR);
	for (i = 0; i < 3 && fd >= 0; i++)
		if (fd != (int)i)
			dup2(fd, (int)i);
	close_range(4, ~0u, 0);
	return 3;
}

static bool usable(const struct freeze_thread *t)
{
	return t->stopped && !t->pending_sig && inject_regs_native(&t->regs);
}

/* The thread to inject into: the main thread, else any other, preferring
 * one that is not inside an rseq critical section (one that is gets its ip
 * moved to the section's abort ip, see inject_rseq_fixup). */
static struct freeze_thread *pick_thread(struct freeze *f)
{
	struct freeze_thread *first = NULL;
	uint64_t ip;
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->t[i].tid == f->pid && usable(&f->t[i])) {
			first = &f->t[i];
			if (!inject_rseq_abort_ip(first->tid, &first->regs, &ip))
				return first;
		}
	for (i = 0; i < f->n; i++) {
		struct freeze_thread *t = &f->t[i];

		if (t->tid == f->pid || !usable(t))
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

static int inject_fork(struct freeze *f, uint64_t gadget, pid_t *clone,
		       struct vms_error *err)
{
	struct freeze_thread *t = pick_thread(f);
	const uint64_t a[6] = { 0 /* no flags, exit signal 0 */,
				inject_dead_sp(), 0, 0, 0, 0 };
	struct user_regs_struct back;
	uint64_t old;
	long ret = -ERESTARTNOINTR;
	int tries, rc = 0;

	*clone = 0;
	if (!t)
		return vms_error_set(err, VMS_ERR_CAPTURE, 0,
				     "no thread of process %d is stopped in a "
				     "state a fork can be injected into; try "
				     "again, or use -b pss",
				     (int)f->pid);
	/* Once, before the first attempt resumes the thread at the gadget
	 * (which clears its rseq_cs): every attempt restores the same. */
	back = t->regs;
	inject_rseq_fixup(t->tid, &back);
	if (sigmask_swap(t->tid, &old, ~0ull) < 0)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno,
				     "cannot block signals in process %d: %s",
				     (int)f->pid, strerror(errno));
	if (ptrace(PTRACE_SETOPTIONS, t->tid, NULL,
		   (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE |
				  PTRACE_O_TRACEFORK)) < 0) {
		rc = vms_error_set(err, VMS_ERR_CAPTURE, errno,
				   "cannot set ptrace options on process %d: "
				   "%s",
				   (int)f->pid, strerror(errno));
		goto out;
	}
	/* copy_process() gives up with -ERESTARTNOINTR when a signal came in
	 * meanwhile (even a blocked one aimed at the whole group): retry. */
	for (tries = 0; tries < 4 && ret == -ERESTARTNOINTR; tries++) {
		rc = inject_syscall(t->tid, &back, gadget, inject_nr_clone,
				    a, &ret, clone, err);
		if (rc < 0 || *clone)
			break;
	}
	ptrace(PTRACE_SETOPTIONS, t->tid, NULL, NULL);
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
out:
	sigmask_set(t->tid, old);
	return rc;
}

/* The clone's first stop, before it ran an instruction. */
static int clone_first_stop(pid_t clone, pid_t *clone_ns,
			    struct vms_error *err)
{
	struct rlimit none = { 0, 0 };
	int st;

	if (inject_wait_stop(clone, &st) < 0)
		return vms_error_set(err, VMS_ERR_CAPTURE, ESRCH,
				     "the clone %d died at birth", (int)clone);
	if (ptrace(PTRACE_SETOPTIONS, clone, NULL,
		   (void *)(long)PTRACE_O_EXITKILL) < 0)
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
	return 0;
}

/* Waits up to ms for tid to stop; 0 with *st, or -1. */
static int wait_stop_bounded(pid_t tid, int ms, int *st)
{
	int i;

	for (i = 0; i < ms * 10; i++) {
		struct timespec ts = { 0, 100000 };
		pid_t w = waitpid(tid, st, __WALL | WNOHANG);

		if (w == tid)
			return WIFSTOPPED(*st) ? 0 : -1;
		if (w < 0 && errno != EINTR)
			return -1;
		nanosleep(&ts, NULL);
	}
	return -1;
}

/* The clone is dead and reaped by us as its tracer: the kernel now hands
 * its zombie to the target (exit signal 0: no SIGCHLD). Make one thread of
 * the target reap it (clone_ns: its pid in the target's namespace), with
 * every signal blocked for that one call. A thread that stops for a signal
 * instead of the interrupt is detached with that signal (siginfo kept) and
 * another one is tried. Returns true when the wait4 reaped the clone, false
 * when not yet or no thread could be borrowed (all traced by someone else
 * just now, say: a concurrent capture). */
static bool reap_in_target(pid_t target, pid_t clone_ns, uint64_t gadget)
{
	pid_t *tids = NULL;
	size_t n = 0, i;
	bool done = false;

	if (procfs_list_tasks(target, &tids, &n) < 0)
		return true; /* the target is gone, and its zombies with it */
	/* The main thread first: it is most likely to be a plain one. */
	for (i = 0; i < n; i++)
		if (tids[i] == target) {
			tids[i] = tids[0];
			tids[0] = target;
		}
	for (i = 0; i < n; i++) {
		struct user_regs_struct saved;
		const uint64_t a[6] = { (uint64_t)clone_ns, 0,
					__WALL | WNOHANG, 0, 0, 0 };
		struct vms_error err;
		uint64_t old;
		long ret = 0;
		pid_t child;
		int st = 0, sig;

		if (ptrace(PTRACE_SEIZE, tids[i], NULL,
			   (void *)(long)PTRACE_O_TRACESYSGOOD) < 0)
			continue;
		ptrace(PTRACE_INTERRUPT, tids[i], NULL, NULL);
		if (wait_stop_bounded(tids[i], 2000, &st) < 0) {
			/* Did not stop (uninterruptible sleep?): the kernel
			 * detaches it when the keeper exits. */
			continue;
		}
		sig = inject_delivery_sig(st);
		if (sig || (st >> 16) != PTRACE_EVENT_STOP) {
			/* Stopped for a signal (or an event) first: give it
			 * back at detach, siginfo kept, and borrow another
			 * thread (the pending interrupt dies with the
			 * detach). */
			ptrace(PTRACE_DETACH, tids[i], NULL, (void *)(long)sig);
			continue;
		}
		if (inject_getregs(tids[i], &saved) == 0 &&
		    inject_regs_native(&saved) &&
		    sigmask_swap(tids[i], &old, ~0ull) == 0) {
			inject_rseq_fixup(tids[i], &saved);
			if (inject_syscall(tids[i], &saved, gadget,
					   inject_nr_wait4, a, &ret, &child,
					   &err) == 0 &&
			    ret == clone_ns)
				done = true;
			sigmask_set(tids[i], old);
			ptrace(PTRACE_DETACH, tids[i], NULL, NULL);
			break;
		}
		ptrace(PTRACE_DETACH, tids[i], NULL, NULL);
	}
	free(tids);
	return done;
}

/* clone: its pid here; clone_ns: in the target's namespace (0 if not read
 * yet: it died before its first stop). */
static void kill_clone(pid_t target, pid_t clone, pid_t clone_ns,
		       uint64_t gadget)
{
	int st, tries;

	if (clone_ns <= 0) /* died before its first stop: ask now */
		clone_ns = ns_pid(clone);
	kill(clone, SIGKILL);
	for (;;) {
		pid_t w = waitpid(clone, &st, __WALL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 || WIFEXITED(st) || WIFSIGNALED(st))
			break;
	}
	for (tries = 0; tries < 200; tries++) {
		struct timespec ts = { 0, 10000000 };
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d", (int)clone);
		if (access(path, F_OK) < 0 ||
		    (clone_ns > 0 &&
		     reap_in_target(target, clone_ns, gadget)))
			break; /* reaped (by us, or by the target itself) */
		nanosleep(&ts, NULL);
	}
}

static void keeper_main(int sock, pid_t target, uint64_t gadget,
			int max_ms)
{
	struct freeze fz;
	struct kmsg m;
	pid_t clone = 0, clone_ns = 0;
	int op = 0;

	sock = keeper_isolate(sock);
	memset(&m, 0, sizeof(m));
	m.op = OP_FROZEN;
	if (sock < 0 || freeze_stop(&fz, target, 2000, &m.err) < 0) {
		m.status = -1;
		write_all(sock, &m, sizeof(m));
		return;
	}
	m.n = fz.n;
	if (write_all(sock, &m, sizeof(m)) == 0 &&
	    write_all(sock, fz.t, fz.n * sizeof(*fz.t)) == 0 &&
	    (op = recv_op_within(sock, max_ms)) == OP_LETGO) {
		/* No fork wanted: only the freeze time. */
		memset(&m, 0, sizeof(m));
		m.op = OP_CLONED;
		m.frozen_us = freeze_release(&fz);
		write_all(sock, &m, sizeof(m));
		return;
	}
	if (op != OP_FORK) {
		/* vmscope gone, no fork wanted, or vmscope stopped (^Z) or
		 * starved while the target waits: never hold it longer. */
		freeze_release(&fz);
		if (op == -2) {
			memset(&m, 0, sizeof(m));
			m.op = OP_CLONED;
			m.status = vms_error_set(
				&m.err, VMS_ERR_CAPTURE, ETIMEDOUT,
				"process %d was let go after %d ms frozen "
				"waiting for vmscope to read its counters; "
				"try again",
				(int)target, max_ms);
			write_all(sock, &m, sizeof(m));
		}
		return;
	}
	memset(&m, 0, sizeof(m));
	m.op = OP_CLONED;
	m.status = inject_fork(&fz, gadget, &clone, &m.err);
	m.frozen_us = freeze_release(&fz);
	if (m.status == 0 && clone_first_stop(clone, &clone_ns, &m.err) < 0)
		m.status = -1;
	m.clone = clone;
	if (write_all(sock, &m, sizeof(m)) == 0 && m.status == 0)
		recv_op(sock); /* OP_RELEASE, or EOF when vmscope died */
	if (clone > 0)
		kill_clone(target, clone, clone_ns, gadget);
	send_op(sock, OP_DONE);
}

/* ---- vmscope side ---- */

int keeper_start(struct fork_keeper *k, pid_t target, uint64_t gadget,
		 int max_ms, struct vms_error *err)
{
	int sv[2];
	struct kmsg m;

	memset(k, 0, sizeof(*k));
	k->sock = -1;
	k->target = target;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno,
				     "socketpair: %s", strerror(errno));
	k->keeper = fork();
	if (k->keeper < 0) {
		close(sv[0]);
		close(sv[1]);
		return vms_error_set(err, VMS_ERR_CAPTURE, errno, "fork: %s",
				     strerror(errno));
	}
	if (k->keeper == 0) {
		close(sv[0]);
		keeper_main(sv[1], target, gadget, max_ms);
		_exit(0);
	}
	close(sv[1]);
	k->sock = sv[0];
	if (read_all(k->sock, &m, sizeof(m)) < 0 || m.op != OP_FROZEN) {
		vms_error_set(err, VMS_ERR_CAPTURE, EPIPE,
			      "the ptrace helper process died");
		goto fail;
	}
	if (m.status < 0) {
		*err = m.err;
		goto fail;
	}
	k->fz.pid = target;
	k->fz.t = calloc(m.n ? m.n : 1, sizeof(*k->fz.t));
	if (!k->fz.t) {
		vms_error_set(err, VMS_ERR_NOMEM, ENOMEM, "out of memory");
		goto fail;
	}
	k->fz.n = k->fz.cap = m.n;
	if (read_all(k->sock, k->fz.t, m.n * sizeof(*k->fz.t)) < 0) {
		vms_error_set(err, VMS_ERR_CAPTURE, EPIPE,
			      "the ptrace helper process died");
		goto fail;
	}
	return 0;
fail:
	keeper_stop(k);
	return -1;
}

/* Sends op (OP_FORK or OP_LETGO) and reads the keeper's answer. */
static int keeper_ask(struct fork_keeper *k, int op, struct vms_error *err)
{
	struct kmsg m;

	/* The keeper may have answered already (it let the target go after
	 * its time limit) and be gone: read its answer whatever the send. */
	send_op(k->sock, op);
	if (read_all(k->sock, &m, sizeof(m)) < 0 || m.op != OP_CLONED) {
		vms_error_set(err, VMS_ERR_CAPTURE, EPIPE,
			      "the ptrace helper process died");
		goto fail;
	}
	k->frozen_us = m.frozen_us;
	if (m.status < 0) {
		*err = m.err;
		goto fail;
	}
	k->clone = m.clone;
	return 0;
fail:
	keeper_stop(k);
	return -1;
}

int keeper_fork(struct fork_keeper *k, struct vms_error *err)
{
	return keeper_ask(k, OP_FORK, err);
}

int keeper_release(struct fork_keeper *k, struct vms_error *err)
{
	return keeper_ask(k, OP_LETGO, err);
}

void keeper_stop(struct fork_keeper *k)
{
	if (k->sock >= 0) {
		/* Any op but OP_FORK lets the target go; after a fork,
		 * OP_RELEASE kills the clone. Wait for the keeper's last
		 * word (or EOF) so the clone is gone when this returns. */
		send_op(k->sock, OP_RELEASE);
		while (recv_op(k->sock) >= 0)
			;
		close(k->sock);
		k->sock = -1;
	}
	if (k->keeper > 0) {
		while (waitpid(k->keeper, NULL, 0) < 0 && errno == EINTR)
			;
		k->keeper = 0;
	}
	free(k->fz.t);
	k->fz.t = NULL;
	k->fz.n = k->fz.cap = 0;
	k->clone = 0;
}
