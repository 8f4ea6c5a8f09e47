/* inject_call.c — inject_call.h: dlopen, dlsym and one function of the
 * library called in a borrowed thread of a running process.
 */
#include "capture/ptrace/inject_call.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "capture/ptrace/freeze.h"
#include "capture/ptrace/inject.h"
#include "capture/ptrace/inject_target.h"
#include "capture/ptrace/inject_unwind.h"
#include "linux/procfs.h"
#include "model/snapshot.h"

/* What to call: dlopen(lib), then fn(arg) of it. */
struct job {
	const char *lib, *fn, *arg;
	bool load;
	/* then, fn having returned 0 or more: between(ctx) here, fn2() there
	 * (inject_lib_call_then) */
	void (*between)(void *ctx);
	void *ctx;
	const char *fn2;
};

#if defined(__x86_64__)

/* The return address of every call: below mmap_min_addr, never mapped. */
#define TRAP 0xdea0ull
#define SCAN_BYTES (32u << 10)
#define STR_BYTES 2048u
#define NAP_NS 20000000L

/* ---- which thread ---- */

static const long blocking[] = {
	0 /* read */,
	1 /* write */,
	7 /* poll */,
	17 /* pread64 */,
	19 /* readv */,
	23 /* select */,
	34 /* pause */,
	35 /* nanosleep */,
	42 /* connect */,
	43 /* accept */,
	44 /* sendto */,
	45 /* recvfrom */,
	46 /* sendmsg */,
	47 /* recvmsg */,
	61 /* wait4 */,
	128 /* sigtimedwait */,
	/* a nanosleep, clock_nanosleep, poll or futex wait the thread
	 * went on with after a stop (this vmscope's own freeze for the heap
	 * walk, a debugger, SIGSTOP): the kernel restarts it as this, its
	 * restart_block kept, as it keeps it across the call */
	219 /* restart_syscall */,
	130 /* sigsuspend */,
	230 /* clock_nanosleep */,
	232 /* epoll_wait */,
	247 /* waitid */,
	270 /* pselect6 */,
	271 /* ppoll */,
	281 /* epoll_pwait */,
	288 /* accept4 */,
	426 /* io_uring_enter */,
	441 /* epoll_pwait2 */,
};

static bool in_range(const struct range *r, uint64_t v)
{
	return v >= r->lo && v < r->hi;
}

/* Whether the stack at sp has STACK_ROOM below it in its mapping (the
 * main thread's [stack] grows). */
#define STACK_ROOM (128u << 10)

static bool stack_room(const struct target *t, uint64_t sp)
{
	size_t i;

	for (i = 0; i < t->maps->nregions; i++) {
		const struct vms_region *r = &t->maps->regions[i];

		if (sp > r->start && sp <= r->end)
			return (r->path && strcmp(r->path, "[stack]") == 0) ||
			       sp - r->start >= STACK_ROOM;
	}
	return false;
}

/* The length of an indirect call (FF /2: its ModRM's reg field 2) at c,
 * its ModRM, SIB and displacement counted; 0: not one. */
static unsigned ff2_len(const unsigned char *c)
{
	unsigned mod = c[1] >> 6, rm = c[1] & 7u;

	if (c[0] != 0xff || ((c[1] >> 3) & 7u) != 2)
		return 0;
	if (mod == 3)
		return 2;
	if (mod == 0 && rm == 5)
		return 6; /* rip-relative */
	if (rm == 4 && mod == 0 && (c[2] & 7u) == 5)
		return 7; /* SIB, no base: disp32 */
	return 2 + (rm == 4) + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

/* Whether the code before v (in the target) is a call that returns to v
 * (x86-64: call rel32, E8; or an indirect call, FF /2, with or without a
 * REX prefix, ending at v). A function's address (a pointer the program
 * keeps to the allocator's mallctl) is preceded by another function's
 * end or padding. Unreadable: taken for a call (a word taken for a
 * return address only makes vmscope look for another thread). */
static bool after_call(int mem, uint64_t v)
{
	unsigned char b[8 + 2];
	unsigned p, q;

	if (v < 8 || pread(mem, b, 8, (off_t)(v - 8)) != 8)
		return true;
	b[8] = b[9] = 0; /* ff2_len may look past: never a match there */
	if (b[3] == 0xe8)
		return true;
	for (p = 0; p < 7; p++) {
		q = (b[p] & 0xf0) == 0x40 ? p + 1 : p; /* REX */
		if (q < 7 && q + ff2_len(&b[q]) == 8)
			return true;
	}
	return false;
}

/* Whether any of the nf frames' pcs lies in a range avoided
 * (inject_unwind.h: the frames the thread is in; the loader's are not
 * avoided, as inject_call.h says). */
static bool frames_avoided(const struct target *t, const uint64_t *pcs, int nf)
{
	int i;
	size_t k;

	for (i = 0; i < nf; i++) {
		for (k = 0; k < t->navoid; k++)
			if (in_range(&t->avoid[k], pcs[i]))
				return true;
	}
	return false;
}

/* Frames told by their CFI at the most: deeper, the stack is scanned. */
#define UNWIND_FRAMES 256

static bool safe_thread(pid_t pid, int mem, const struct freeze_thread *th,
			const struct target *t, struct inject_unwind *u)
{
	const struct user_regs_struct *r = &th->regs;
	long nr = (long)r->orig_rax, rc = (long)r->rax;
	static uint64_t w[SCAN_BYTES / 8];
	uint64_t pcs[UNWIND_FRAMES];
	ssize_t got;
	size_t i, k, n;
	bool listed = false;
	int nf;

	if (!th->stopped || th->pending_sig || !inject_regs_native(r))
		return false;
	for (i = 0; i < sizeof(blocking) / sizeof(blocking[0]); i++)
		listed |= nr == blocking[i];
	/* interrupted inside the call: -ERESTARTSYS .. -ERESTART_RESTARTBLOCK,
	 * or -EINTR from a call the kernel never restarts after a stop
	 * (epoll_wait, sigtimedwait: the freeze's own interrupt made it
	 * fail, and the thread's registers put back return it so) */
	if (!listed || ((rc < -516 || rc > -512) && rc != -EINTR))
		return false;
	if (in_range(&t->ld, r->rip) || !stack_room(t, r->rsp))
		return false;
	/* the frames it is in, by their CFI: none in the allocator (a word
	 * an earlier call left in a frame's slot is not a frame: a shell's
	 * stack holds return addresses into free) */
	nf = inject_unwind_frames(u, th->tid, mem, r, pcs, UNWIND_FRAMES);
	if (nf > 0)
		return !frames_avoided(t, pcs, nf) &&
		       procfs_thread_seccomp(pid, th->tid) == 0;
	/* not told (no CFI somewhere, JIT code): every word of the stack
	 * that may be a return address into them, as a frame may be */
	got = pread(mem, w, sizeof(w), (off_t)r->rsp);
	if (got <= 0)
		return false;
	n = (size_t)got / 8;
	for (i = 0; i < n; i++) {
		for (k = 0; k < t->navoid; k++)
			if (in_range(&t->avoid[k], w[i]) &&
			    (!t->avoid[k].called || after_call(mem, w[i])))
				return false;
	}
	return procfs_thread_seccomp(pid, th->tid) == 0;
}

/* ---- one call ---- */

static int setregs(pid_t tid, const struct user_regs_struct *r)
{
	struct iovec iov = { (void *)r, sizeof(*r) };

	return (int)ptrace(PTRACE_SETREGSET, tid, (void *)NT_PRSTATUS, &iov);
}

static long call_fail(struct vms_error *err, pid_t tid, const char *what)
{
	return vms_error_set(err, VMS_ERR_CAPTURE, errno,
			     "cannot load the tracer: thread %d %s: %s",
			     (int)tid, what, strerror(errno));
}

/* Runs fn(a0, a1) with stack pointer sp (whose word holds TRAP) in tid,
 * stopped at a ptrace stop; returns with tid at the SIGSEGV stop. */
static int call(pid_t tid, const struct user_regs_struct *saved, uint64_t sp,
		uint64_t fn, uint64_t a0, uint64_t a1, uint64_t *ret,
		struct vms_error *err)
{
	struct user_regs_struct r = *saved;
	int st, sig;

	r.rip = fn;
	r.rdi = a0;
	r.rsi = a1;
	r.rax = 0;
	r.orig_rax = (unsigned long long)-1; /* no restart */
	r.rsp = sp;
	r.eflags &= ~0x400ull; /* DF clear, as the ABI says at a call */
	if (setregs(tid, &r) < 0)
		return (int)call_fail(err, tid, "registers");
	if (ptrace(PTRACE_CONT, tid, NULL, NULL) < 0)
		return (int)call_fail(err, tid, "resumed");
	for (;;) {
		if (inject_wait_stop(tid, &st, 1000) < 0) {
			if (errno == ETIMEDOUT)
				continue; /* never let go mid-call */
			return (int)call_fail(err, tid, "exited in the call");
		}
		sig = inject_delivery_sig(st);
		if (sig == SIGSEGV && inject_getregs(tid, &r) == 0 &&
		    r.rip == TRAP) {
			*ret = r.rax;
			return 0;
		}
		/* another signal: delivered; any other stop: resumed */
		ptrace(PTRACE_CONT, tid, NULL, (void *)(long)sig);
	}
}

static int put_str(int mem, uint64_t at, const char *s)
{
	size_t n = strlen(s) + 1;

	return pwrite(mem, s, n, (off_t)at) == (ssize_t)n ? 0 : -1;
}

/* Borrows tid (saved registers at its interrupt stop) for the three
 * calls, and puts it back. */
static int borrow(pid_t pid, int mem, pid_t tid,
		  const struct user_regs_struct *saved, const struct target *t,
		  const struct job *j, long *out, struct vms_error *err)
{
	struct user_fpregs_struct fp;
	struct iovec fiov = { &fp, sizeof(fp) };
	uint64_t base = (saved->rsp - 128) & ~15ull, s_lib, s_fn, s_arg, s_fn2,
		 sp;
	uint64_t trap = TRAP, h = 0, rv = 0, eloc = 0, fn[2] = { 0, 0 };
	unsigned k;
	int eval = 0;
	/* the kernel's mask: bit sig - 1 */
	uint64_t all = ~0ull, old;
	int rc = -1;

	(void)pid;
	if (strlen(j->lib) + strlen(j->fn) + (j->arg ? strlen(j->arg) : 0) +
		    (j->fn2 ? strlen(j->fn2) : 0) + 4 >
	    STR_BYTES)
		return vms_error_set(err, VMS_ERR_USAGE, ENAMETOOLONG,
				     "the tracer library's path is too long");
	s_lib = base - STR_BYTES;
	s_fn = s_lib + strlen(j->lib) + 1;
	s_arg = s_fn + strlen(j->fn) + 1;
	s_fn2 = s_arg + (j->arg ? strlen(j->arg) : 0) + 1;
	sp = ((s_lib - 64) & ~15ull) - 8; /* as after a call: 8 mod 16 */
	if (put_str(mem, s_lib, j->lib) < 0 || put_str(mem, s_fn, j->fn) < 0 ||
	    (j->arg && put_str(mem, s_arg, j->arg) < 0) ||
	    (j->fn2 && put_str(mem, s_fn2, j->fn2) < 0) ||
	    pwrite(mem, &trap, 8, (off_t)sp) != 8)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno,
				     "cannot load the tracer: thread %d's "
				     "stack cannot be written",
				     (int)tid);
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRFPREG, &fiov) < 0 ||
	    ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof(old), &old) < 0)
		return (int)call_fail(err, tid, "state");
	all &= ~(1ull << (SIGSEGV - 1) | 1ull << (SIGBUS - 1) |
		 1ull << (SIGILL - 1) | 1ull << (SIGFPE - 1) |
		 1ull << (SIGTRAP - 1) | 1ull << (SIGSYS - 1));
	ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(all), &all);
	/* the thread's errno, which the calls below may set: kept to be put
	 * back (a thread that looks at errno after its interrupted call
	 * returns must see its own) */
	if (t->errno_loc &&
	    (call(tid, saved, sp, t->errno_loc, 0, 0, &eloc, err) < 0 ||
	     pread(mem, &eval, sizeof(eval), (off_t)eloc) != sizeof(eval)))
		eloc = 0;
	if (call(tid, saved, sp, t->dlopen, s_lib,
		 RTLD_NOW | RTLD_LOCAL | (j->load ? 0 : RTLD_NOLOAD), &h,
		 err) < 0)
		goto back;
	if (!h) {
		vms_error_set(err, VMS_ERR_CAPTURE, ENOENT,
			      j->load ? "process %d could not load %s (dlopen "
					"failed: its own loader refused it)"
				      : "process %d has no %s loaded",
			      (int)pid, j->lib);
		goto back;
	}
	/* both found before either runs: fn2 missing changes nothing */
	for (k = 0; k < (j->fn2 ? 2u : 1u); k++) {
		if (call(tid, saved, sp, t->dlsym, h, k ? s_fn2 : s_fn, &fn[k],
			 err) < 0)
			goto back;
		if (!fn[k]) {
			vms_error_set(err, VMS_ERR_CAPTURE, ENOENT,
				      "%s in process %d has no %s", j->lib,
				      (int)pid, k ? j->fn2 : j->fn);
			goto back;
		}
	}
	if (call(tid, saved, sp, fn[0], j->arg ? s_arg : 0, 0, &rv, err) < 0)
		goto back;
	*out = (long)(int)rv;
	if (j->fn2 && (int)rv >= 0) { /* the same thread, still held */
		if (j->between)
			j->between(j->ctx);
		if (call(tid, saved, sp, fn[1], 0, 0, &rv, err) < 0) {
			snprintf(err->msg + strlen(err->msg),
				 sizeof(err->msg) - strlen(err->msg),
				 " (after %s ran)", j->fn);
			goto back;
		}
		*out = (long)(int)rv;
	}
	rc = 0;
back:
	if (eloc &&
	    pwrite(mem, &eval, sizeof(eval), (off_t)eloc) != sizeof(eval))
		rc = (int)call_fail(err, tid, "errno put back");
	/* at the SIGSEGV stop: the thread's own state back; the detach
	 * (freeze_release) drops the signal and the kernel restarts the
	 * interrupted call */
	if (setregs(tid, saved) < 0 ||
	    ptrace(PTRACE_SETREGSET, tid, (void *)NT_PRFPREG, &fiov) < 0)
		rc = (int)call_fail(err, tid, "put back");
	ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(old), &old);
	return rc;
}

/* Whether pid is stopped (SIGSTOP, a debugger): its state T or t. */
static bool stopped(pid_t pid)
{
	char *b, *at;
	size_t n;
	bool st = false;

	/* a live thread's state when the main one has exited (its own
	 * says Z): a group stop stops every thread */
	if (procfs_read_pid(procfs_mm_pid(pid), "stat", &b, &n) < 0)
		return false;
	at = memrchr(b, ')', n);
	if (at && at + 2 < b + n)
		st = at[2] == 'T' || at[2] == 't';
	free(b);
	return st;
}

/* Refused when no thread of pid is free of seccomp (Seccomp: 1 or 2 in
 * every thread's own status; a filter is per thread, and TSYNC or
 * inheritance gives every thread one): the call would have to run in a
 * filtered thread, where dlopen opens, reads and maps the tracer's file,
 * and a filter that forbids one of those (the sandboxes that forbid
 * opening files after their start) kills the whole process. The filter
 * itself cannot be read (PTRACE_SECCOMP_GET_FILTER wants CAP_SYS_ADMIN),
 * so it is not judged: any is refused. 0: some thread is free (the call
 * is made only in such a thread: safe_thread). */
static int refuse_filtered(pid_t pid, struct vms_error *err)
{
	long long mode = 0;
	pid_t *tids;
	size_t n, i;
	bool free_one = false;

	if (procfs_list_tasks(pid, &tids, &n) < 0)
		return 0; /* gone: the freeze says so */
	for (i = 0; i < n && !free_one; i++) {
		long long m = procfs_thread_seccomp(pid, tids[i]);

		free_one = m == 0;
		if (m > 0)
			mode = m;
	}
	free(tids);
	if (free_one || !mode)
		return 0;
	if (mode == 1)
		return vms_error_set(err, VMS_ERR_CAPTURE, EPERM,
				     "cannot load the tracer into process %d: "
				     "it runs in strict seccomp mode, where "
				     "any call but read, write, exit and "
				     "sigreturn kills it; it was not touched",
				     (int)pid);
	return vms_error_set(err, VMS_ERR_CAPTURE, EPERM,
			     "cannot load the tracer into process %d: every "
			     "thread of it runs under a seccomp filter "
			     "(Seccomp: %lld), which vmscope cannot read; "
			     "loading the tracer opens and maps its file "
			     "there, and a filter that forbids that kills the "
			     "process; it was not touched (trace it from its "
			     "start instead: vmscope --trace -- CMD)",
			     (int)pid, mode);
}

/* What can be known without stopping pid: refused while it is stopped;
 * its libc's dlopen and dlsym found (t filled, its maps the caller's to
 * free). */
static int precheck(pid_t pid, struct target *t, struct vms_error *err)
{
	if (stopped(pid))
		return vms_error_set(err, VMS_ERR_CAPTURE, EAGAIN,
				     "cannot load the tracer into process %d: "
				     "it is stopped (SIGSTOP, or a debugger "
				     "holds it); it is left so",
				     (int)pid);
	if (freeze_dumping_core(pid))
		return vms_error_set(err, VMS_ERR_CAPTURE, EBUSY,
				     "cannot load the tracer into process %d: "
				     "it is dumping core, and stopping it "
				     "would cut the core short; it was not "
				     "touched",
				     (int)pid);
	if (refuse_filtered(pid, err) < 0)
		return -1;
	if (inject_read_target(pid, t, err) < 0) {
		vms_snapshot_free(t->maps);
		t->maps = NULL;
		return -1;
	}
	return 0;
}

int inject_lib_check(pid_t pid, struct vms_error *err)
{
	struct target t;
	int rc;

	memset(&t, 0, sizeof(t));
	rc = precheck(pid, &t, err);
	vms_snapshot_free(t.maps);
	return rc;
}

static int run(pid_t pid, const struct job *j, struct inject_call_result *res,
	       struct vms_error *err)
{
	struct freeze_how how = { 2000, "try again", -1 };
	struct inject_unwind *u;
	struct target t;
	struct freeze f;
	uint64_t t0;
	char path[64];
	int mem, tries, rc = -1;
	size_t i;

	memset(res, 0, sizeof(*res));
	memset(&t, 0, sizeof(t));
	if (precheck(pid, &t, err) < 0)
		return -1;
	procfs_mm_path(pid, "mem", path, sizeof(path));
	mem = open(path, O_RDWR | O_CLOEXEC);
	if (mem < 0) {
		vms_snapshot_free(t.maps);
		return procfs_errno_error(err, pid, "mem", errno);
	}
	/* its modules reported before any stop (NULL: the stacks scanned) */
	u = inject_unwind_new(pid);
	for (tries = 0; tries < INJECT_CALL_TRIES; tries++) {
		memset(&f, 0, sizeof(f));
		if (freeze_stop(&f, pid, &how, err) < 0)
			break;
		for (i = 0; i < f.n; i++)
			if (safe_thread(pid, mem, &f.t[i], &t, u) &&
			    freeze_thread_same(&f.t[i]))
				break;
		if (i == f.n) {
			res->frozen_us += freeze_release(&f);
			freeze_nap(NAP_NS);
			continue;
		}
		res->tid = f.t[i].tid;
		t0 = vms_mono_ns();
		freeze_release_others(&f, f.t[i].tid);
		rc = borrow(pid, mem, f.t[i].tid, &f.t[i].regs, &t, j,
			    &res->ret, err);
		res->held_us = vms_us_since(t0);
		res->frozen_us += freeze_release(&f);
		break;
	}
	if (tries == INJECT_CALL_TRIES)
		vms_error_set(err, VMS_ERR_CAPTURE, EAGAIN,
			      "cannot load the tracer into process %d: no "
			      "thread of it is waiting in a system call "
			      "outside the allocator and the loader (%d "
			      "tries)",
			      (int)pid, INJECT_CALL_TRIES);
	inject_unwind_free(u);
	close(mem);
	vms_snapshot_free(t.maps);
	return rc;
}

#else

int inject_lib_check(pid_t pid, struct vms_error *err)
{
	return vms_error_set(err, VMS_ERR_USAGE, ENOSYS,
			     "cannot load the tracer into process %d: this "
			     "version injects on x86_64 only",
			     (int)pid);
}

static int run(pid_t pid, const struct job *j, struct inject_call_result *res,
	       struct vms_error *err)
{
	(void)j;
	(void)res;
	return vms_error_set(err, VMS_ERR_USAGE, ENOSYS,
			     "cannot load the tracer into process %d: this "
			     "version injects on x86_64 only",
			     (int)pid);
}

#endif

/* ---- the child that does it (vmscope may die meanwhile) ---- */

struct wire {
	int rc;
	struct inject_call_result res;
	struct vms_error err;
};

int inject_lib_call(pid_t pid, const char *lib, bool load, const char *fn,
		    const char *arg, struct inject_call_result *res,
		    struct vms_error *err)
{
	return inject_lib_call_then(pid, lib, load, fn, arg, NULL, NULL, NULL,
				    res, err);
}

int inject_lib_call_then(pid_t pid, const char *lib, bool load, const char *fn,
			 const char *arg, void (*between)(void *ctx), void *ctx,
			 const char *fn2, struct inject_call_result *res,
			 struct vms_error *err)
{
	struct job j = { lib, fn, arg, load, between, ctx, fn2 };
	struct wire w;
	int p[2], st;
	pid_t kid;
	ssize_t got;

	if (pipe2(p, O_CLOEXEC) < 0)
		return vms_error_set(err, VMS_ERR_CAPTURE, errno,
				     "cannot make a pipe: %s", strerror(errno));
	kid = fork();
	if (kid < 0) {
		close(p[0]);
		close(p[1]);
		return vms_error_set(err, VMS_ERR_CAPTURE, errno,
				     "cannot fork: %s", strerror(errno));
	}
	if (kid == 0) {
		close(p[0]);
		setsid();
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		prctl(PR_SET_PDEATHSIG, 0);
		memset(&w, 0, sizeof(w));
		w.rc = run(pid, &j, &w.res, &w.err);
		if (write(p[1], &w, sizeof(w)) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	do
		got = read(p[0], &w, sizeof(w));
	while (got < 0 && errno == EINTR);
	close(p[0]);
	while (waitpid(kid, &st, 0) < 0 && errno == EINTR)
		;
	if (got != (ssize_t)sizeof(w))
		return vms_error_set(err, VMS_ERR_CAPTURE, EIO,
				     "the injecting process of vmscope died");
	if (w.rc < 0) {
		*err = w.err;
		return -1;
	}
	*res = w.res;
	return 0;
}
