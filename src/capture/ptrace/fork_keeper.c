/* fork_keeper.c — the keeper process; see fork_keeper.h for the contract
 * (the clone is made and unmade by fork_clone.c).
 *
 * The keeper and vmscope talk over a stream socketpair in fixed messages
 * (struct kmsg), both sides being the same binary. vmscope's part is
 * keeper_start/keeper_fork/keeper_stop; everything under "keeper side"
 * runs only in the keeper.
 */
#include "capture/ptrace/fork_keeper.h"

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

#include "capture/ptrace/fork_clone.h"
#include "capture/ptrace/inject.h"
#include "linux/procfs.h"

enum {
	OP_FROZEN = 'Z',
	OP_FORK = 'F',
	OP_LETGO = 'L',
	OP_CLONED = 'C',
	OP_RELEASE = 'R',
	OP_DONE = 'D',
};

struct kmsg {
	int op, status;
	int held; /* the keeper holds a thread in a call that has not
		   * returned: it goes on after this answer; do not wait */
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

/* ---- keeper side ---- */

static int keeper_isolate(int sock)
{
	static const int deaf[] = { SIGINT,  SIGTERM, SIGHUP,  SIGPIPE,
				    SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU };
	sigset_t none;
	size_t i;
	int fd;

	setsid();
	for (i = 0; i < sizeof(deaf) / sizeof(deaf[0]); i++)
		signal(deaf[i], SIG_IGN);
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&none);
	/* SIGCHLD blocked: its waits for a tracee (freeze_nap) end as the
	 * tracee stops, not at the next poll */
	sigaddset(&none, SIGCHLD);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, 0);
	prctl(PR_SET_NAME, PROCFS_KEEPER_COMM);
	/* Its waits for a thread to stop poll every 50 us: with the default
	 * timer slack (50 us) each sleep lasts twice that, inside the
	 * target's freeze. */
	prctl(PR_SET_TIMERSLACK, 1UL);
	if (sock != 3 && dup2(sock, 3) < 0)
		return -1;
	fd = open("/dev/null", O_RDWR);
	for (i = 0; i < 3 && fd >= 0; i++)
		if (fd != (int)i)
			dup2(fd, (int)i);
	close_range(4, ~0u, 0);
	return 3;
}
/* The state letter of process pid ('T' stopped, 't' traced), or 0. */
static char proc_state(pid_t pid)
{
	char *b, *p, c = 0;
	size_t n;

	if (procfs_read_pid(pid, "stat", &b, &n) < 0)
		return 0;
	p = memrchr(b, ')', n);
	if (p && p + 2 < b + n)
		c = p[2];
	free(b);
	return c;
}

/* Waits for vmscope's OP_RELEASE (or EOF). The clone lives only while
 * vmscope answers: if vmscope stays stopped (^Z, SIGSTOP, a debugger) for
 * CLONE_IDLE_MS, the clone is killed anyway; its reads then find it gone. */
#define CLONE_IDLE_MS 3000
static void wait_release(int sock, pid_t vmscope)
{
	int stopped_ms = 0;

	for (;;) {
		int op = recv_op_within(sock, 250);
		char st;

		if (op != -2)
			return; /* OP_RELEASE, or EOF: vmscope died */
		st = proc_state(vmscope);
		stopped_ms = st == 'T' || st == 't' ? stopped_ms + 250 : 0;
		if (stopped_ms >= CLONE_IDLE_MS || !st)
			return;
	}
}

/* Waits for vmscope's next op while the target is frozen: the op, -1 at
 * EOF (vmscope died), -2 after max_ms, -3 when vmscope has stayed stopped
 * (^Z, SIGSTOP, a debugger) for FROZEN_IDLE_MS: a frozen target is never
 * held for a vmscope that does not run. */
#define FROZEN_IDLE_MS 1000
static int recv_op_frozen(int sock, int max_ms, pid_t vmscope)
{
	int waited = 0, stopped_ms = 0;

	while (waited < max_ms) {
		int slice = max_ms - waited < 250 ? max_ms - waited : 250;
		int op = recv_op_within(sock, slice);
		char st;

		if (op != -2)
			return op;
		waited += slice;
		st = proc_state(vmscope);
		stopped_ms = st == 'T' || st == 't' ? stopped_ms + slice : 0;
		if (stopped_ms >= FROZEN_IDLE_MS)
			return -3;
		if (!st)
			return -1; /* vmscope gone (reaped) */
	}
	return -2;
}

/* The injected fork has not returned in time (inject.h's late): the
 * target's other threads go (a monitor among them can then end the wait),
 * and vmscope is told now; the keeper holds the thread until the call
 * returns, then puts it back and kills the clone. */
struct late_ctx {
	int sock;
	struct freeze *fz;
};

static void on_late(void *arg, pid_t tid)
{
	struct late_ctx *c = arg;
	struct kmsg m;

	freeze_release_others(c->fz, tid);
	memset(&m, 0, sizeof(m));
	m.op = OP_CLONED;
	m.held = 1;
	m.status = vms_error_set(
		&m.err, VMS_ERR_CAPTURE, ETIMEDOUT,
		"the fork injected into thread %d of process %d did not "
		"return within %d s: it waits in the kernel where it cannot "
		"be stopped (for a userfaultfd monitor?); the other threads "
		"were let go and nothing was killed; thread %d stays with "
		"vmscope-keeper (pid %d) until the call returns, then gets its "
		"registers and signal mask back, and the clone is killed; use "
		"-b pss",
		(int)tid, (int)c->fz->pid, INJECT_CALL_MS / 1000, (int)tid,
		(int)getpid());
	write_all(c->sock, &m, sizeof(m));
}

static void keeper_main(int sock, pid_t target, uint64_t gadget, int max_ms,
			const char *instead)
{
	struct freeze fz;
	struct kmsg m;
	pid_t clone = 0, clone_ns = 0, vmscope = getppid();
	int op = 0;

	sock = keeper_isolate(sock);
	memset(&m, 0, sizeof(m));
	m.op = OP_FROZEN;
	/* The socket cancels the freeze: nothing comes on it meanwhile but
	 * vmscope's EOF (Ctrl-C killed it), and the target is let go then. */
	if (sock < 0 || freeze_stop(&fz, target,
				    &(struct freeze_how){ 2000, instead, sock },
				    &m.err) < 0) {
		m.status = -1;
		write_all(sock, &m, sizeof(m));
		return;
	}
	m.n = fz.n;
	if (write_all(sock, &m, sizeof(m)) == 0 &&
	    write_all(sock, fz.t, fz.n * sizeof(*fz.t)) == 0 &&
	    (op = recv_op_frozen(sock, max_ms, vmscope)) == OP_LETGO) {
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
		if (op == -2 || op == -3) {
			memset(&m, 0, sizeof(m));
			m.op = OP_CLONED;
			if (op == -2)
				m.status = vms_error_set(
					&m.err, VMS_ERR_CAPTURE, ETIMEDOUT,
					"process %d was let go after %d ms "
					"frozen waiting for vmscope to read "
					"its counters; try again",
					(int)target, max_ms);
			else
				m.status = vms_error_set(
					&m.err, VMS_ERR_CAPTURE, ETIMEDOUT,
					"process %d was let go: vmscope was "
					"stopped (^Z?) while it held it "
					"frozen; try again",
					(int)target);
			/* read by vmscope when it runs again (buffered in
			 * the socket after this keeper has gone) */
			write_all(sock, &m, sizeof(m));
		}
		return;
	}
	memset(&m, 0, sizeof(m));
	m.op = OP_CLONED;
	{
		struct late_ctx lc = { sock, &fz };
		struct inject_late late = { on_late, &lc };

		m.status = fork_clone_make(&fz, &gadget, &clone, &late, &m.err);
	}
	m.frozen_us = freeze_release(&fz);
	if (m.status == 0 &&
	    fork_clone_first_stop(clone, &clone_ns, gadget, &m.err) < 0)
		m.status = -1;
	if (m.status < 0 && kill(target, 0) < 0 && errno == ESRCH)
		vms_error_set(&m.err, VMS_ERR_CAPTURE, ESRCH,
			      "process %d exited during capture", (int)target);
	m.clone = clone;
	if (write_all(sock, &m, sizeof(m)) == 0 && m.status == 0)
		wait_release(sock, vmscope);
	if (clone > 0)
		fork_clone_kill(target, clone, clone_ns, gadget);
	send_op(sock, OP_DONE);
}

/* ---- vmscope side ---- */

int keeper_start(struct fork_keeper *k, pid_t target, uint64_t gadget,
		 int max_ms, const char *instead, struct vms_error *err)
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
		keeper_main(sv[1], target, gadget, max_ms, instead);
		_exit(0);
	}
	close(sv[1]);
	k->sock = sv[0];
	if (read_all(k->sock, &m, sizeof(m)) < 0 || m.op != OP_FROZEN) {
		vms_error_set(err, VMS_ERR_CAPTURE, EPIPE,
			      "the ptrace helper (vmscope-keeper) died during "
			      "the capture; the kernel let process %d go; try "
			      "again",
			      (int)target);
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
			      "the ptrace helper (vmscope-keeper) died during "
			      "the capture; the kernel let process %d go; try "
			      "again",
			      (int)target);
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
			      "the ptrace helper (vmscope-keeper) died during "
			      "the capture; the kernel let process %d go and "
			      "killed its clone; try again",
			      (int)k->target);
		goto fail;
	}
	k->frozen_us = m.frozen_us;
	if (m.held) {
		/* The keeper goes on without us (it holds a thread until
		 * its call returns): never wait for it. */
		*err = m.err;
		close(k->sock);
		k->sock = -1;
		waitpid(k->keeper, NULL, WNOHANG);
		k->keeper = 0;
		goto fail;
	}
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

bool keeper_gone(const struct fork_keeper *k, int ms)
{
	struct pollfd pf = { k->sock, POLLIN | POLLRDHUP, 0 };
	char c;

	if (k->sock < 0 || poll(&pf, 1, ms) <= 0)
		return false;
	/* the keeper writes nothing unasked: readable is EOF, but look */
	return recv(k->sock, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0 ||
	       (pf.revents & (POLLHUP | POLLRDHUP));
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
